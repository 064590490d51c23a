#include "experiments/cli/sweep_mpi.hpp"

#include <dlfcn.h>
#include <mpi.h>
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "common/input_error.hpp"
#include "experiments/cli/sweep_journal.hpp"

namespace opsim {
namespace {

enum Tag : int {
  kAskTag = 1,     // worker -> 0: give me a point (empty), or here is a result and give me another
  kPointTag = 2,   // 0 -> worker: a point's index (uint64)
  kStopTag = 3,    // 0 -> worker: no more points
  kStatusTag = 4,  // 0 -> all: whether the journal opened (int exit code, 0: go on)
};

constexpr int kInputErrorExit = 2;

// Open MPI's blocking calls spin; on a machine with fewer cores than ranks the spinning rank
// takes the core a simulation needs. Probing with short sleeps between costs ~0.2 ms.
void nap() {
  const timespec pause{0, 200'000};
  ::nanosleep(&pause, nullptr);
}

MPI_Status probe_politely(int source) {
  int flag = 0;
  MPI_Status status;
  while (MPI_Iprobe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status), !flag) nap();
  return status;
}

std::string receive_bytes(const MPI_Status& status) {
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::string bytes(static_cast<std::size_t>(count), '\0');
  MPI_Recv(bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  return bytes;
}

// A result on the wire: index (8 bytes), seconds (8), failure kind (1), text.
std::string encode_result(std::uint64_t index, double seconds, const ChildOutcome& outcome) {
  std::string bytes(17, '\0');
  std::memcpy(bytes.data(), &index, 8);
  std::memcpy(bytes.data() + 8, &seconds, 8);
  bytes[16] = static_cast<char>(outcome.failure);
  return bytes + outcome.text;
}

struct WireResult {
  std::uint64_t index = 0;
  double seconds = 0;
  ChildOutcome outcome;
};

WireResult decode_result(const std::string& bytes) {
  if (bytes.size() < 17) throw std::runtime_error("sweep: a worker sent a short result");
  WireResult r;
  std::memcpy(&r.index, bytes.data(), 8);
  std::memcpy(&r.seconds, bytes.data() + 8, 8);
  r.outcome.failure = static_cast<ChildFailure>(bytes[16]);
  r.outcome.text = bytes.substr(17);
  return r;
}

// User and system time of this process (not its children): what handing out costs rank 0.
std::string own_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const double seconds =
      static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
      static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", seconds);
  return text;
}

class MpiSession {
 public:
  MpiSession() {
    // With libsimgrid ahead of libmpi, MPI_Init would be SimGrid's SMPI, which aborts.
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&MPI_Init), &info) != 0 && info.dli_fname != nullptr &&
        std::strstr(info.dli_fname, "simgrid") != nullptr)
      throw std::runtime_error(
          "MPI_Init resolves to SimGrid's SMPI, not the MPI library: link libmpi before "
          "libsimgrid (experiments/cli/CMakeLists.txt)");
    MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  ~MpiSession() { MPI_Finalize(); }
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

// Points a worker rank runs at once: -j when given, else 1 (one rank per core).
unsigned slots_per_worker(const SweepOptions& options) {
  return options.jobs_given ? std::max(1u, options.parallel) : 1u;
}

// A worker rank: keeps `slot_count` points running, each in a forked child; every result it
// sends asks for the next point, and it ends once rank 0 has answered every slot with stop.
int worker(const SweepPlan& plan, unsigned slot_count) {
  int status = 0;
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (status != 0) return status;
  StopOnSignal stop_on_signal;  // rank 0 decides when to stop; a signal here only waits
  IsolatedJobPool pool;
  pool.set_children_ignore_interrupts(true);
  for (unsigned i = 0; i < slot_count; ++i)  // an empty message asks for a first point
    MPI_Send(nullptr, 0, MPI_BYTE, 0, kAskTag, MPI_COMM_WORLD);
  std::vector<std::chrono::steady_clock::time_point> started(plan.points.size());
  unsigned stopped = 0;
  while (stopped < slot_count || pool.running() > 0) {
    int flag = 0;
    MPI_Status reply;
    while (MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &reply), flag) {
      const std::string bytes = receive_bytes(reply);
      if (reply.MPI_TAG == kStopTag) {
        ++stopped;
        continue;
      }
      std::uint64_t index = 0;
      std::memcpy(&index, bytes.data(), std::min<std::size_t>(8, bytes.size()));
      started[index] = std::chrono::steady_clock::now();
      pool.start(index, [&plan, index] { return simulate_point(plan, index); });
    }
    if (pool.running() == 0) {
      if (stopped < slot_count) nap();
      continue;
    }
    // With every slot busy no answer is due: sleep until a child ends.
    const bool answer_due = pool.running() + stopped < slot_count;
    for (const auto& [index, outcome] : pool.wait(answer_due ? 1 : -1)) {
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started[index]).count();
      const std::string message = encode_result(index, seconds, outcome);
      MPI_Send(message.data(), static_cast<int>(message.size()), MPI_BYTE, 0, kAskTag,
               MPI_COMM_WORLD);
    }
  }
  return 0;
}

// Answers requests until every slot of every worker has been told to stop.
void hand_out(const MpiSession& mpi, unsigned slots_per_worker,
              const std::vector<std::size_t>& todo, SweepJournal& journal, SweepTally& tally) {
  std::size_t next = 0;
  std::size_t open_slots = static_cast<std::size_t>(mpi.size() - 1) * slots_per_worker;
  while (open_slots > 0) {
    std::vector<std::pair<std::size_t, std::string>> rows;
    std::vector<int> askers;
    int flag = 0;
    MPI_Status probe;
    do {
      const MPI_Status ask = probe_politely(MPI_ANY_SOURCE);
      const std::string bytes = receive_bytes(ask);
      askers.push_back(ask.MPI_SOURCE);
      if (!bytes.empty()) {
        const WireResult r = decode_result(bytes);
        rows.emplace_back(r.index, tally.row(r.index, r.outcome, r.seconds));
      }
      MPI_Iprobe(MPI_ANY_SOURCE, kAskTag, MPI_COMM_WORLD, &flag, &probe);
    } while (flag);
    // The ranks get their next points first, so that they simulate while the rows sync;
    // a row counts as done (summary, resume) only once on disk.
    for (int asker : askers) {
      if (next < todo.size() && StopOnSignal::received() == 0) {
        const std::uint64_t index = todo[next++];
        MPI_Send(&index, 8, MPI_BYTE, asker, kPointTag, MPI_COMM_WORLD);
      } else {
        MPI_Send(nullptr, 0, MPI_BYTE, asker, kStopTag, MPI_COMM_WORLD);
        --open_slots;
      }
    }
    journal.append(rows);
  }
}

// Rank 0: answers every request; a batch of results that arrived together is appended
// with one fsync.
int coordinator(const MpiSession& mpi, const SweepPlan& plan, const SweepOptions& options) {
  int status = 0;
  std::unique_ptr<SweepJournal> journal;
  try {
    journal = std::make_unique<SweepJournal>(options.out_path, plan.header, plan.keys,
                                             plan.fingerprint, options.restart);
  } catch (const InputError&) {
    status = kInputErrorExit;
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    throw;
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const std::vector<std::size_t> todo = points_to_run(plan, *journal);
  report_resume(plan, todo);
  StopOnSignal stop_on_signal;
  SweepTally tally(plan);
  try {
    hand_out(mpi, slots_per_worker(options), todo, *journal, tally);
  } catch (const std::exception& e) {
    // Workers may be waiting for an answer that will not come: end the whole job.
    std::cerr << "opsim: internal error: " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  const std::string summary = tally.summary(*journal);
  if (const int signal = StopOnSignal::received(); signal != 0) {
    std::cerr << "opsim: sweep stopped by signal " << signal << ": " << summary
              << "; rerun the same command to resume\n";
    return 128 + signal;
  }
  journal->finish();
  tally.throw_first_failure(*journal);  // one line: the first failure, then the summary
  std::cerr << "sweep: " << summary << " over " << mpi.size() - 1 << " worker ranks (rank 0 used "
            << own_cpu_seconds() << " s of CPU handing out and writing)"
            << (options.out_path.empty() ? "" : "; wrote " + options.out_path) << "\n";
  return 0;
}

}  // namespace

int run_sweep_mpi(const SweepPlan& plan, const SweepOptions& options) {
  MpiSession mpi;
  if (mpi.size() == 1) return run_sweep_locally(plan, options);
  if (mpi.rank() != 0) return worker(plan, slots_per_worker(options));
  const int status = coordinator(mpi, plan, options);
  if (status == 0) plot_sweep(options);
  return status;
}

}  // namespace opsim
