#include "gui/trace_format.hpp"

#include <array>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "common/gzip_input.hpp"
#include "common/input_file.hpp"

namespace opsim::gui {
namespace {

using json = nlohmann::json;

bool is_kineto_key(std::string_view key) {
  return key == "schemaVersion" || key == "deviceProperties" || key == "distributedInfo";
}

bool is_kineto_category(std::string_view cat) {
  static constexpr std::array<std::string_view, 9> kCategories{
      "cpu_op",     "user_annotation", "cuda_runtime", "cuda_driver", "python_function",
      "gpu_memcpy", "gpu_memset",      "kernel",       "ac2g"};
  for (std::string_view c : kCategories)
    if (cat == c) return true;
  return false;
}

// Follows the document only as deep as the decision needs and stops (returns false) once
// it is made: a JSON container per level with the key last seen in it.
class FormatSniffer : public json::json_sax_t {
 public:
  std::optional<TraceFormat> format;

  bool key(string_t& k) override {
    if (levels_.empty()) return true;
    levels_.back().key = k;
    if (levels_.size() == 1 && is_kineto_key(k)) return decide(TraceFormat::kKineto);
    if (levels_.size() == 2 && levels_[0].key == "otherData" && k == "opsim")
      return decide(TraceFormat::kOpsim);
    return true;
  }
  bool string(string_t& s) override {
    const bool event_category = levels_.size() == 3 && levels_[0].key == "traceEvents" &&
                                !levels_[1].object && levels_[2].key == "cat";
    if (event_category && is_kineto_category(s)) return decide(TraceFormat::kKineto);
    return true;
  }
  bool start_object(std::size_t) override { return push(true); }
  bool start_array(std::size_t) override { return push(false); }
  bool end_object() override { return pop(); }
  bool end_array() override { return pop(); }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  struct Level {
    bool object = false;
    std::string key;
  };
  bool decide(TraceFormat f) {
    format = f;
    return false;
  }
  bool push(bool object) {
    levels_.push_back({object, {}});
    return true;
  }
  bool pop() {
    levels_.pop_back();
    return true;
  }
  std::vector<Level> levels_;
};

}  // namespace

TraceFormat trace_format_of(std::string_view bytes) {
  // One level of gzip, as the readers take (a gzip quine would otherwise never end).
  const std::string decompressed = is_gzip(bytes) ? gunzip_prefix(bytes, kTraceSniffBytes) : "";
  const std::string_view json_text = is_gzip(bytes) ? std::string_view(decompressed) : bytes;
  FormatSniffer sniffer;
  json::sax_parse(json_text.begin(), json_text.end(), &sniffer);
  return sniffer.format.value_or(TraceFormat::kChrome);
}

TraceFormat trace_format_of_file(const std::string& path) {
  check_input_file(path, "trace file");
  std::ifstream in(path, std::ios::binary);
  std::string start(kTraceSniffBytes, '\0');
  in.read(start.data(), static_cast<std::streamsize>(start.size()));
  start.resize(static_cast<std::size_t>(in.gcount()));
  return trace_format_of(start);
}

}  // namespace opsim::gui
