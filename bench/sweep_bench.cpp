// Sweep machinery speed: `opsim sweep` on small points (tree on pcie-switch-4gpu, one
// strategy), through the real binary: points per second, the per-point overhead of the
// machinery (fork, hand-out, append and fsync) beside the simulation's own time, and under
// mpirun at 1, 2 and 4 ranks.
//
//   build/bin/sweep_bench [--points 10000] [--mpi-points 2000] [--jobs 2]
//
// Overhead per point = wall per point at -j1 minus the mean sim_wall_s the children report
// (the simulation, topology and graph included); and the CPU and wall time per point of
// points that fail at once (the machinery alone: fork, error row, append, fsync). On a
// shared machine the wall figures include waiting for a core: compare the CPU per point. Goals
// (issue #28): overhead <= 20 ms,
// >= 100 points/s on 2 cores.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct RunFigures {
  double wall_s = 0;
  double cpu_s = 0;  // user + system of opsim and its children
  double mean_sim_wall_s = 0;
  std::size_t rows = 0;
};

// `strategy` on pcie-switch-4gpu over `points` sizes from 1 KiB up.
fs::path write_spec(const fs::path& dir, std::size_t points, const std::string& strategy = "tree") {
  const fs::path path = dir / ("spec-" + strategy + "-" + std::to_string(points) + ".yaml");
  std::ofstream spec(path);
  spec << "topologies: [pcie-switch-4gpu]\nstrategies: [" << strategy
       << "]\ncomm_only: true\nbytes: [";
  for (std::size_t i = 1; i <= points; ++i) spec << (i > 1 ? ", " : "") << i << "KiB";
  spec << "]\n";
  return path;
}

double children_cpu_s() {
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

RunFigures read_csv(const fs::path& csv) {
  RunFigures figures;
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  std::size_t wall_column = 0, column = 0;
  for (std::stringstream header(line); std::getline(header, line, ','); ++column)
    if (line == "sim_wall_s") wall_column = column;
  double total = 0;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string cell;
    for (std::size_t i = 0; i <= wall_column; ++i) std::getline(fields, cell, ',');
    total += std::atof(cell.c_str());
    ++figures.rows;
  }
  figures.mean_sim_wall_s = figures.rows ? total / static_cast<double>(figures.rows) : 0;
  return figures;
}

RunFigures run(const std::string& command, const fs::path& csv) {
  fs::remove(csv);
  const double cpu_before = children_cpu_s();
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system((command + " 2>/dev/null").c_str());
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool failing_points_expected = command.find("no-such-strategy") != std::string::npos;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != (failing_points_expected ? 2 : 0)) {
    std::fprintf(stderr, "sweep_bench: '%s' failed\n", command.c_str());
    std::exit(1);
  }
  RunFigures figures = read_csv(csv);
  figures.wall_s = wall_s;
  figures.cpu_s = children_cpu_s() - cpu_before;
  return figures;
}

void print(const char* what, const RunFigures& f) {
  const double n = static_cast<double>(f.rows);
  std::printf(
      "%-34s %6zu points  %7.2f s  %7.1f points/s  %6.2f ms CPU/point  %6.2f ms sim/point\n", what,
      f.rows, f.wall_s, n / f.wall_s, 1e3 * f.cpu_s / n, 1e3 * f.mean_sim_wall_s);
}

std::size_t option(int argc, char** argv, const std::string& name, std::size_t fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == name) return std::strtoul(argv[i + 1], nullptr, 10);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t points = option(argc, argv, "--points", 10000);
  const std::size_t mpi_points = option(argc, argv, "--mpi-points", 2000);
  const std::size_t jobs = option(argc, argv, "--jobs", 2);
  const std::string opsim = std::string(OPSIM_BINARY_DIR) + "/bin/opsim";
  const fs::path dir =
      fs::temp_directory_path() / ("opsim_sweep_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path csv = dir / "out.csv";
  std::printf("sweep_bench: tree on pcie-switch-4gpu, 1 KiB.., %ld CPUs online\n",
              ::sysconf(_SC_NPROCESSORS_ONLN));

  const fs::path small = write_spec(dir, 500);
  const RunFigures serial =
      run(opsim + " sweep " + small.string() + " -j 1 -o " + csv.string(), csv);
  print("-j 1", serial);
  const double overhead_ms =
      1e3 * (serial.wall_s / static_cast<double>(serial.rows) - serial.mean_sim_wall_s);
  std::printf(
      "machinery overhead per point (wall/point - sim/point at -j 1): %.2f ms (goal <= 20)\n",
      overhead_ms);

  // The machinery alone: points that fail at once (an unknown strategy) still fork, resolve
  // the topology, send back an error, and append and sync their row.
  const fs::path failing = write_spec(dir, 500, "no-such-strategy");
  const RunFigures machinery =
      run(opsim + " sweep " + failing.string() + " -j 1 -o " + csv.string(), csv);
  print("-j 1, failing points (machinery)", machinery);

  const fs::path big = write_spec(dir, points);
  const RunFigures parallel =
      run(opsim + " sweep " + big.string() + " -j " + std::to_string(jobs) + " -o " + csv.string(),
          csv);
  print(("-j " + std::to_string(jobs)).c_str(), parallel);
  std::printf("points/s at -j %zu: %.1f (goal >= 100 on 2 cores)\n", jobs,
              static_cast<double>(parallel.rows) / parallel.wall_s);

  if (std::system("command -v mpirun >/dev/null 2>&1") == 0) {
    const fs::path mpi_spec = write_spec(dir, mpi_points);
    for (int ranks : {1, 2, 4}) {
      const RunFigures f =
          run("mpirun --allow-run-as-root --oversubscribe -n " + std::to_string(ranks) + " " +
                  opsim + " sweep " + mpi_spec.string() + " -o " + csv.string(),
              csv);
      print(("mpirun -n " + std::to_string(ranks) + (ranks == 1 ? " (local, -j 2)" : "")).c_str(),
            f);
    }
  } else {
    std::printf("mpirun not found: no MPI figures\n");
  }
  fs::remove_all(dir);
  return 0;
}
