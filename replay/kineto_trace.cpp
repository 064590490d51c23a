// The Kineto trace reader: one streaming pass over the JSON text with nlohmann's SAX parser.
// No event is ever held as a JSON tree: each one's fields land in a fixed set of slots (the
// keys replay reads; the rest are only checked for duplicates and skipped), and when the
// event's object closes it becomes a HostEvent, a GpuEvent, a SyncEvent, a flow, a thread
// name, or a count in ignored_events. The small top-level values (deviceProperties,
// distributedInfo) are built with CheckedJsonBuilder. See kineto_trace.hpp for what is kept.
#include "replay/kineto_trace.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "common/decimal_time.hpp"
#include "common/gzip_input.hpp"
#include "common/input_error.hpp"
#include "common/input_file.hpp"
#include "common/utf8.hpp"
#include "engine/json_input.hpp"

namespace opsim::replay {
namespace {

using nlohmann::json;

// Times (and byte counts) stay below 2^62 ns, about 146 years, so that a difference of two
// or a start plus a duration always fits in int64.
constexpr std::int64_t kMostNs = std::int64_t{1} << 62;
constexpr std::int64_t kMostWholeUs = kMostNs / 1000;
constexpr std::int64_t kMostCount = kMostNs;
// Containers nested deeper than this are refused (Kineto writes 6 levels).
constexpr int kMostDepth = 64;

enum class JType : std::uint8_t {
  kAbsent,
  kNull,
  kBool,
  kInteger,
  kUnsigned,  // above int64's range
  kFloat,
  kString,
  kObject,
  kArray,
};

const char* type_name(JType type) {
  switch (type) {
    case JType::kAbsent:
      return "absent";
    case JType::kNull:
      return "null";
    case JType::kBool:
      return "a boolean";
    case JType::kInteger:
    case JType::kUnsigned:
      return "an integer";
    case JType::kFloat:
      return "a fractional number";
    case JType::kString:
      return "a string";
    case JType::kObject:
      return "an object";
    case JType::kArray:
      return "an array";
  }
  return "?";
}

// One field of the event being read.
struct Value {
  JType type = JType::kAbsent;
  bool is_number() const {
    return type == JType::kInteger || type == JType::kUnsigned || type == JType::kFloat;
  }
  std::int64_t integer = 0;  // kInteger
  double number = 0;         // kFloat
  std::string text;          // kString: the string; kFloat: the number as written
};

// The keys of an event that replay reads.
enum class EventKey : std::uint8_t { kPh, kCat, kName, kPid, kTid, kTs, kDur, kId, kArgs, kOther };
constexpr std::size_t kEventKeys = static_cast<std::size_t>(EventKey::kOther);

EventKey classify_event_key(const std::string& k) {
  if (k == "ph") return EventKey::kPh;
  if (k == "cat") return EventKey::kCat;
  if (k == "name") return EventKey::kName;
  if (k == "pid") return EventKey::kPid;
  if (k == "tid") return EventKey::kTid;
  if (k == "ts") return EventKey::kTs;
  if (k == "dur") return EventKey::kDur;
  if (k == "id") return EventKey::kId;
  if (k == "args") return EventKey::kArgs;
  return EventKey::kOther;
}

// The keys of an event's args that replay reads.
enum class ArgKey : std::uint8_t {
  kCorrelation,
  kStream,
  kDevice,
  kBytes,
  kExternalId,
  kCollectiveName,
  kInNelems,
  kOutNelems,
  kDtype,
  kGroupSize,
  kGroupName,
  kGroupRanks,
  kInputDims,
  kInputType,
  kSyncKind,                // cuda_sync_kind
  kWaitOnStream,            // wait_on_stream
  kEventRecordCorrelation,  // wait_on_cuda_event_record_corr_id
  kName,                    // an M event's args.name
  kOther,
};
constexpr std::size_t kArgKeys = static_cast<std::size_t>(ArgKey::kOther);

ArgKey classify_arg_key(const std::string& k) {
  switch (k.size()) {
    case 4:
      if (k == "name") return ArgKey::kName;
      break;
    case 5:
      if (k == "bytes") return ArgKey::kBytes;
      if (k == "dtype") return ArgKey::kDtype;
      break;
    case 6:
      if (k == "stream") return ArgKey::kStream;
      if (k == "device") return ArgKey::kDevice;
      break;
    case 10:
      if (k == "Input Dims") return ArgKey::kInputDims;
      if (k == "Input type") return ArgKey::kInputType;
      if (k == "Group size") return ArgKey::kGroupSize;
      break;
    case 11:
      if (k == "correlation") return ArgKey::kCorrelation;
      if (k == "External id") return ArgKey::kExternalId;
      break;
    case 13:
      if (k == "In msg nelems") return ArgKey::kInNelems;
      break;
    case 14:
      if (k == "Out msg nelems") return ArgKey::kOutNelems;
      if (k == "cuda_sync_kind") return ArgKey::kSyncKind;
      if (k == "wait_on_stream") return ArgKey::kWaitOnStream;
      break;
    case 15:
      if (k == "Collective name") return ArgKey::kCollectiveName;
      break;
    case 18:
      if (k == "Process Group Name") return ArgKey::kGroupName;
      break;
    case 19:
      if (k == "Process Group Ranks") return ArgKey::kGroupRanks;
      break;
    case 33:
      if (k == "wait_on_cuda_event_record_corr_id") return ArgKey::kEventRecordCorrelation;
      break;
    default:
      break;
  }
  return ArgKey::kOther;
}

const char* arg_label(ArgKey key) {
  switch (key) {
    case ArgKey::kCorrelation:
      return "args.correlation";
    case ArgKey::kStream:
      return "args.stream";
    case ArgKey::kDevice:
      return "args.device";
    case ArgKey::kBytes:
      return "args.bytes";
    case ArgKey::kExternalId:
      return "args.\"External id\"";
    case ArgKey::kCollectiveName:
      return "args.\"Collective name\"";
    case ArgKey::kInNelems:
      return "args.\"In msg nelems\"";
    case ArgKey::kOutNelems:
      return "args.\"Out msg nelems\"";
    case ArgKey::kDtype:
      return "args.dtype";
    case ArgKey::kGroupSize:
      return "args.\"Group size\"";
    case ArgKey::kGroupName:
      return "args.\"Process Group Name\"";
    case ArgKey::kGroupRanks:
      return "args.\"Process Group Ranks\"";
    case ArgKey::kInputDims:
      return "args.\"Input Dims\"";
    case ArgKey::kInputType:
      return "args.\"Input type\"";
    case ArgKey::kSyncKind:
      return "args.cuda_sync_kind";
    case ArgKey::kWaitOnStream:
      return "args.wait_on_stream";
    case ArgKey::kEventRecordCorrelation:
      return "args.wait_on_cuda_event_record_corr_id";
    case ArgKey::kName:
      return "args.name";
    case ArgKey::kOther:
      break;
  }
  return "args";
}

// Keys seen in one object, to refuse a key given twice: a bit per recognised key, the others
// compared as strings (a hash set once there are many). Reused from object to object without
// giving back its memory.
class KeySet {
 public:
  void clear() {
    known_ = 0;
    used_ = 0;
    many_.clear();
  }
  bool insert_known(unsigned bit) {
    const std::uint32_t mask = std::uint32_t{1} << bit;
    if ((known_ & mask) != 0) return false;
    known_ |= mask;
    return true;
  }
  bool insert_other(const std::string& key) {
    if (!many_.empty()) return many_.insert(key).second;
    for (std::size_t i = 0; i < used_; ++i)
      if (others_[i] == key) return false;
    if (used_ == others_.size()) others_.emplace_back();
    others_[used_++] = key;
    if (used_ > 16) many_.insert(others_.begin(), others_.begin() + used_);
    return true;
  }

 private:
  std::uint32_t known_ = 0;
  std::size_t used_ = 0;
  std::vector<std::string> others_;
  std::unordered_set<std::string> many_;
};

// A name quoted in a message: at most 80 characters of it.
std::string quote_name(std::string_view name) {
  if (name.size() <= 80) return "\"" + std::string(name) + "\"";
  std::size_t cut = 77;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  return "\"" + std::string(name.substr(0, cut)) + "...\"";
}

// The size of one element of a collective's dtype: PyTorch's ScalarType names as "dtype"
// writes them, and the type words of NCCL kernel names.
std::int64_t element_bytes_of(std::string_view dtype) {
  struct Entry {
    std::string_view name;
    std::int64_t bytes;
  };
  static constexpr Entry kTypes[] = {
      {"Float", 4},
      {"Double", 8},
      {"Half", 2},
      {"BFloat16", 2},
      {"ComplexHalf", 4},
      {"ComplexFloat", 8},
      {"ComplexDouble", 16},
      {"Byte", 1},
      {"Char", 1},
      {"Short", 2},
      {"Int", 4},
      {"Long", 8},
      {"Bool", 1},
      {"UInt16", 2},
      {"UInt32", 4},
      {"UInt64", 8},
      {"QInt8", 1},
      {"QUInt8", 1},
      {"QInt32", 4},
      {"Float8_e5m2", 1},
      {"Float8_e4m3fn", 1},
      {"Float8_e5m2fnuz", 1},
      {"Float8_e4m3fnuz", 1},
      {"Float8_e8m0fnu", 1},
      // NCCL kernel names
      {"float", 4},
      {"double", 8},
      {"half", 2},
      {"bfloat16", 2},
      {"int8_t", 1},
      {"uint8_t", 1},
      {"int32_t", 4},
      {"uint32_t", 4},
      {"int64_t", 8},
      {"uint64_t", 8},
      {"f16", 2},
      {"bf16", 2},
      {"f32", 4},
      {"f64", 8},
      {"i8", 1},
      {"u8", 1},
      {"i32", 4},
      {"u32", 4},
      {"i64", 8},
      {"u64", 8},
      {"f8e4m3", 1},
      {"f8e5m2", 1},
      {"fp8_e4m3", 1},
      {"fp8_e5m2", 1},
  };
  for (const Entry& e : kTypes)
    if (e.name == dtype) return e.bytes;
  return 0;
}

// An NCCL kernel's collective from its name: "ncclKernel_AllReduce_RING_LL_Sum_float(...)",
// "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)". Nothing when the name is not NCCL's.
std::optional<Collective> collective_from_kernel_name(std::string_view name) {
  if (name.substr(0, 5) == "void ") name.remove_prefix(5);
  for (const std::string_view prefix : {"ncclKernel_", "ncclDevKernel_"}) {
    if (name.substr(0, prefix.size()) != prefix) continue;
    name.remove_prefix(prefix.size());
    name = name.substr(0, name.find_first_of("(< "));
    std::vector<std::string_view> words;
    for (std::size_t at = 0; at <= name.size();) {
      const std::size_t end = std::min(name.find('_', at), name.size());
      words.push_back(name.substr(at, end - at));
      at = end + 1;
    }
    Collective c;
    static constexpr std::pair<std::string_view, std::string_view> kOps[] = {
        {"AllReduce", "allreduce"}, {"AllGather", "allgather"}, {"ReduceScatter", "reduce_scatter"},
        {"Broadcast", "broadcast"}, {"Reduce", "reduce"},       {"SendRecv", "sendrecv"},
        {"Send", "send"},           {"Recv", "recv"},           {"AllToAll", "alltoall"},
        {"Generic", "unknown"},
    };
    const std::string_view op = words.empty() ? std::string_view() : words[0];
    for (const auto& [written, ours] : kOps)
      if (op == written) c.name = ours;
    if (c.name.empty()) {
      if (op.empty()) c.name = "unknown";
      for (const char ch : op)
        c.name += static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    }
    // The type word: "float", or "int8" "t" for int8_t, or "fp8" "e4m3".
    for (std::size_t w = 1; w < words.size() && c.dtype.empty(); ++w) {
      std::string word(words[w]);
      if (w + 1 < words.size() && (words[w + 1] == "t" || word == "fp8"))
        word += "_" + std::string(words[w + 1]);
      if (element_bytes_of(word) != 0) c.dtype = word;
    }
    c.element_bytes = element_bytes_of(c.dtype);
    return c;
  }
  return std::nullopt;
}

// "[0, 1]" or "[0, 1, ..., 29, ...]" (PyTorch lists 30 and then "...") as ranks.
bool parse_rank_list(std::string_view text, std::vector<std::int64_t>& ranks, bool& truncated) {
  std::size_t i = 0;
  const auto space = [&] {
    while (i < text.size() && text[i] == ' ') ++i;
  };
  space();
  if (i == text.size() || text[i] != '[') return false;
  ++i;
  space();
  if (i < text.size() && text[i] == ']') return ++i, space(), i == text.size();
  for (;;) {
    space();
    if (text.substr(i, 3) == "...") {
      truncated = true;
      i += 3;
    } else {
      std::int64_t rank = 0;
      const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), rank);
      if (ec != std::errc() || rank < 0) return false;
      i = static_cast<std::size_t>(end - text.data());
      if (truncated) return false;  // nothing after "..."
      ranks.push_back(rank);
    }
    space();
    if (i == text.size()) return false;
    if (text[i] == ']') break;
    if (text[i] != ',') return false;
    ++i;
  }
  ++i;
  space();
  return i == text.size();
}

CopyDirection direction_from_name(std::string_view name) {
  static constexpr std::pair<std::string_view, CopyDirection> kWords[] = {
      {"HtoD", CopyDirection::kHostToDevice},   {"DtoH", CopyDirection::kDeviceToHost},
      {"DtoD", CopyDirection::kDeviceToDevice}, {"PtoP", CopyDirection::kPeer},
      {"HtoH", CopyDirection::kHostToHost},     {"HtoA", CopyDirection::kHostToDevice},
      {"AtoH", CopyDirection::kDeviceToHost},   {"AtoD", CopyDirection::kDeviceToDevice},
      {"DtoA", CopyDirection::kDeviceToDevice}, {"AtoA", CopyDirection::kDeviceToDevice},
  };
  for (const auto& [word, direction] : kWords)
    if (name.find(word) != std::string_view::npos) return direction;
  return CopyDirection::kNone;
}

// The categories replay reads.
enum class Category : std::uint8_t {
  kCpuOp,
  kUserAnnotation,
  kRuntime,
  kPythonFunction,
  kKernel,
  kMemcpy,
  kMemset,
  kFlow,  // ac2g / async_cpu_to_gpu: launch -> GPU op
  kSync,  // cuda_sync: what a synchronizing runtime call waited for
  kOther,
};

Category classify_category(const std::string& cat) {
  if (cat == "cpu_op") return Category::kCpuOp;
  if (cat == "cuda_runtime" || cat == "cuda_driver") return Category::kRuntime;
  if (cat == "kernel") return Category::kKernel;
  if (cat == "ac2g" || cat == "async_cpu_to_gpu") return Category::kFlow;
  if (cat == "gpu_memcpy") return Category::kMemcpy;
  if (cat == "gpu_memset") return Category::kMemset;
  if (cat == "user_annotation") return Category::kUserAnnotation;
  if (cat == "python_function") return Category::kPythonFunction;
  if (cat == "cuda_sync") return Category::kSync;
  return Category::kOther;
}

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct HostRecord {
  HostEvent event;  // start_ns absolute here; thread: a provisional index
};
struct GpuRecord {
  GpuEvent event;  // start_ns absolute here
  std::int64_t pid = 0, tid = 0;
};
struct Flow {
  std::int64_t pid = 0, tid = 0;
  TraceNs ts = 0;  // absolute
  std::int64_t id = 0;
  bool start = false;
};
struct StepRecord {
  std::int64_t number = 0;
  std::uint32_t thread = 0;  // provisional
  TraceNs start_ns = 0, duration_ns = 0;
};

// The SAX handler (nlohmann calls these for each token) and the reader behind it.
class KinetoReader {
 public:
  KinetoReader(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  // --- SAX interface -------------------------------------------------------------------
  bool null() {
    return scalar(JType::kNull, [](CheckedJsonBuilder& b) { return b.null(); });
  }
  bool boolean(bool v) {
    return scalar(JType::kBool, [v](CheckedJsonBuilder& b) { return b.boolean(v); });
  }
  bool number_integer(json::number_integer_t v) {
    if (build_) return forward([v](CheckedJsonBuilder& b) { return b.number_integer(v); });
    if (Value* slot = slot_for_scalar(JType::kInteger)) slot->integer = v;
    if (in_array_of_args()) array_integer(true, v);
    return true;
  }
  bool number_unsigned(json::number_unsigned_t v) {
    if (build_) return forward([v](CheckedJsonBuilder& b) { return b.number_unsigned(v); });
    const bool fits = v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (Value* slot = slot_for_scalar(fits ? JType::kInteger : JType::kUnsigned))
      slot->integer = fits ? static_cast<std::int64_t>(v) : 0;
    if (in_array_of_args()) array_integer(fits, fits ? static_cast<std::int64_t>(v) : 0);
    return true;
  }
  bool number_float(json::number_float_t v, const std::string& text) {
    if (build_) return forward([&](CheckedJsonBuilder& b) { return b.number_float(v, text); });
    if (Value* slot = slot_for_scalar(JType::kFloat)) {
      slot->number = v;
      if (depth_ == 3) slot->text = text;  // ts and dur: converted from the text, exactly
    }
    if (in_array_of_args()) array_integer(false, 0);
    return true;
  }
  bool string(std::string& v) {
    if (build_) return forward([&](CheckedJsonBuilder& b) { return b.string(v); });
    if (Value* slot = slot_for_scalar(JType::kString)) slot->text = v;
    if (in_array_of_args()) array_string(v);
    return true;
  }
  bool binary(json::binary_t& v) {
    return scalar(JType::kNull, [&](CheckedJsonBuilder& b) { return b.binary(v); });
  }
  bool start_object(std::size_t size) {
    if (build_) return forward([size](CheckedJsonBuilder& b) { return b.start_object(size); });
    return open(true);
  }
  bool start_array(std::size_t size) {
    if (build_) return forward([size](CheckedJsonBuilder& b) { return b.start_array(size); });
    return open(false);
  }
  bool end_object() {
    if (build_) return forward([](CheckedJsonBuilder& b) { return b.end_object(); });
    return close();
  }
  bool end_array() {
    if (build_) return forward([](CheckedJsonBuilder& b) { return b.end_array(); });
    return close();
  }
  bool key(std::string& k) {
    if (build_) return forward([&](CheckedJsonBuilder& b) { return b.key(k); });
    if (skipping()) return true;
    if (depth_ == 1) return top_key(k);
    if (depth_ == 2) {  // a key of otherData, the one top-level object looked into
      if (k == "opsim") saw_opsim_ = true;
      return true;
    }
    if (depth_ == 3) {
      event_key_ = classify_event_key(k);
      const bool fresh = event_key_ == EventKey::kOther
                             ? event_keys_.insert_other(k)
                             : event_keys_.insert_known(static_cast<unsigned>(event_key_));
      if (!fresh) fail_event("key '" + printable(k) + "' appears twice (each key once per object)");
      return true;
    }
    if (depth_ == 4) {
      arg_key_ = classify_arg_key(k);
      const bool fresh = arg_key_ == ArgKey::kOther
                             ? arg_keys_.insert_other(k)
                             : arg_keys_.insert_known(static_cast<unsigned>(arg_key_));
      if (!fresh)
        fail_at(event_place() + ".args",
                "key '" + printable(k) + "' appears twice (each key once per object)");
    }
    return true;
  }
  template <class Exception>
  bool parse_error(std::size_t byte, const std::string& token, const Exception& error) {
    throw_json_syntax_error(text_, source_, byte, token, error);
  }

  KinetoTrace finish();

 private:
  enum class TopKey : std::uint8_t {
    kTraceEvents,
    kDeviceProperties,
    kDistributedInfo,
    kOtherData,
    kOther
  };

  // --- where the parser is ---------------------------------------------------------------
  // depth_ counts the open containers: 1 inside the top-level object, 2 inside traceEvents
  // (or otherData), 3 inside an event, 4 inside its args, 5 inside an array of args ("Input
  // Dims"), 6 inside one shape of it. skip_base_ >= 0: inside a value nobody reads, which
  // ends when depth_ is back at skip_base_.
  bool skipping() const { return skip_base_ >= 0; }
  bool in_array_of_args() const { return !skipping() && (depth_ == 5 || depth_ == 6); }

  void skip() {
    skip_base_ = depth_;
    ++depth_;
  }

  bool top_key(const std::string& k) {
    top_key_ = k == "traceEvents"        ? TopKey::kTraceEvents
               : k == "deviceProperties" ? TopKey::kDeviceProperties
               : k == "distributedInfo"  ? TopKey::kDistributedInfo
               : k == "otherData"        ? TopKey::kOtherData
                                         : TopKey::kOther;
    if (!top_keys_.insert_other(k))
      fail_at("the top level",
              "key '" + printable(k) + "' appears twice (each key once per object)");
    if (top_key_names_.size() < 6) top_key_names_.push_back(printable(k));
    ++top_key_count_;
    return true;
  }

  template <class Event>
  bool scalar(JType type, Event&& event) {
    if (build_) return forward(event);
    (void)slot_for_scalar(type);
    if (in_array_of_args()) array_integer(false, 0);
    return true;
  }

  // Where a scalar goes (nullptr: nowhere), after the checks of its place.
  Value* slot_for_scalar(JType type) {
    if (skipping()) return nullptr;
    switch (depth_) {
      case 0:
        fail_at("the top level", std::string("a JSON value that is ") + type_name(type) +
                                     ", not a PyTorch profiler trace (an object with "
                                     "\"traceEvents\")");
      case 1:
        if (top_key_ == TopKey::kTraceEvents)
          fail_at("the top level", std::string("\"traceEvents\" is ") + type_name(type) +
                                       ", not the array of events a PyTorch profiler trace has");
        if (top_key_ == TopKey::kDeviceProperties || top_key_ == TopKey::kDistributedInfo)
          fail_at(top_key_ == TopKey::kDeviceProperties ? "deviceProperties" : "distributedInfo",
                  std::string("is ") + type_name(type) + ", not " +
                      (top_key_ == TopKey::kDeviceProperties ? "an array" : "an object"));
        return nullptr;
      case 2:
        if (in_events_) fail_event(std::string("is ") + type_name(type) + ", not an event object");
        return nullptr;
      case 3:
        if (event_key_ == EventKey::kOther) return nullptr;
        ev_[static_cast<std::size_t>(event_key_)].type = type;
        return &ev_[static_cast<std::size_t>(event_key_)];
      case 4:
        if (arg_key_ == ArgKey::kOther) return nullptr;
        arg_[static_cast<std::size_t>(arg_key_)].type = type;
        return &arg_[static_cast<std::size_t>(arg_key_)];
      default:
        return nullptr;
    }
  }

  // A number inside "Input Dims" (a shape's dimension) or "Process Group Ranks" (a rank);
  // `ok`: an integer within int64.
  void array_integer(bool ok, std::int64_t v) {
    if (arg_key_ == ArgKey::kInputDims) {
      if (depth_ == 6 && ok && v >= 0 && v < kMostCount)
        shape_.push_back(v);
      else
        dims_bad_ = true;  // a dimension that is not a count, or an input that is not a shape
    } else if (arg_key_ == ArgKey::kGroupRanks && depth_ == 5) {
      if (ok && v >= 0)
        ranks_.push_back(v);
      else
        ranks_bad_ = true;
    } else if (arg_key_ == ArgKey::kInputType && depth_ == 5) {
      types_bad_ = true;
    }
  }
  void array_string(const std::string& v) {
    if (arg_key_ == ArgKey::kInputType && depth_ == 5)
      types_.push_back(v);
    else if (arg_key_ == ArgKey::kInputDims)
      dims_bad_ = true;
    else if (arg_key_ == ArgKey::kGroupRanks)
      ranks_bad_ = true;
  }

  bool open(bool is_object) {
    if (skipping()) {
      if (depth_ >= kMostDepth) fail_nesting();
      ++depth_;
      return true;
    }
    switch (depth_) {
      case 0:
        if (!is_object)
          fail_at("the top level",
                  "a JSON array: the array form of a Chrome trace; opsim replay reads the object "
                  "form {\"traceEvents\": [...]} that torch.profiler writes "
                  "(export_chrome_trace, tensorboard_trace_handler)");
        top_keys_.clear();
        saw_top_object_ = true;
        break;
      case 1:
        if (top_key_ == TopKey::kTraceEvents) {
          if (is_object)
            fail_at("the top level",
                    "\"traceEvents\" is an object, not the array of events a PyTorch profiler "
                    "trace has");
          saw_events_ = in_events_ = true;
        } else if (top_key_ == TopKey::kDeviceProperties || top_key_ == TopKey::kDistributedInfo) {
          built_ = json();
          build_.emplace(
              built_, source_,
              top_key_ == TopKey::kDeviceProperties ? "deviceProperties" : "distributedInfo");
          return forward([is_object](CheckedJsonBuilder& b) {
            return is_object ? b.start_object(0) : b.start_array(0);
          });
        } else if (top_key_ != TopKey::kOtherData || !is_object) {
          skip();
          return true;
        }
        break;
      case 2:
        if (!in_events_) {
          skip();
          return true;
        }
        if (!is_object) fail_event("is an array, not an event object");
        begin_event();
        break;
      case 3:
        if (event_key_ == EventKey::kArgs && is_object) {
          ev_[static_cast<std::size_t>(EventKey::kArgs)].type = JType::kObject;
          arg_keys_.clear();
          break;
        }
        if (event_key_ != EventKey::kOther)
          ev_[static_cast<std::size_t>(event_key_)].type =
              is_object ? JType::kObject : JType::kArray;
        skip();
        return true;
      case 4: {
        const bool read =
            !is_object && (arg_key_ == ArgKey::kInputDims || arg_key_ == ArgKey::kInputType ||
                           arg_key_ == ArgKey::kGroupRanks);
        if (arg_key_ != ArgKey::kOther)
          arg_[static_cast<std::size_t>(arg_key_)].type =
              is_object ? JType::kObject : JType::kArray;
        if (!read) {
          skip();
          return true;
        }
        break;
      }
      case 5:
        if (arg_key_ == ArgKey::kInputDims && !is_object) {
          shape_.clear();
          shape_is_list_ = false;
          break;
        }
        (arg_key_ == ArgKey::kInputDims   ? dims_bad_
         : arg_key_ == ArgKey::kInputType ? types_bad_
                                          : ranks_bad_) = true;
        skip();
        return true;
      default:
        // A list inside one input of "Input Dims": a TensorList given as its shapes.
        if (arg_key_ == ArgKey::kInputDims && !is_object)
          shape_is_list_ = true;
        else
          dims_bad_ = true;
        skip();
        return true;
    }
    ++depth_;
    return true;
  }

  bool close() {
    --depth_;
    if (skipping()) {
      if (depth_ == skip_base_) skip_base_ = -1;
      return true;
    }
    switch (depth_) {
      case 1:
        in_events_ = false;
        break;
      case 2:
        if (in_events_) end_event();
        break;
      case 5:
        if (arg_key_ == ArgKey::kInputDims) {
          if (shape_is_list_) shape_.clear();
          dims_.push_back(shape_);
        }
        break;
      default:
        break;
    }
    return true;
  }

  template <class Event>
  bool forward(Event&& event) {
    const bool ok = event(*build_);
    if (build_->depth() == 0) {
      build_.reset();
      if (top_key_ == TopKey::kDeviceProperties)
        read_device_properties();
      else
        read_distributed_info();
    }
    return ok;
  }

  [[noreturn]] void fail_nesting() const {
    fail_at(in_events_ ? event_place() : std::string("the top level"),
            "nested deeper than " + std::to_string(kMostDepth) + " levels");
  }

  // --- one event -------------------------------------------------------------------------
  void begin_event() {
    for (Value& v : ev_) v.type = JType::kAbsent;
    for (Value& v : arg_) v.type = JType::kAbsent;
    event_keys_.clear();
    event_key_ = EventKey::kOther;
    arg_key_ = ArgKey::kOther;
    dims_.clear();
    types_.clear();
    ranks_.clear();
    dims_bad_ = types_bad_ = ranks_bad_ = false;
  }

  const Value& ev(EventKey key) const { return ev_[static_cast<std::size_t>(key)]; }
  const Value& arg(ArgKey key) const { return arg_[static_cast<std::size_t>(key)]; }

  void end_event() {
    const Value& ph = ev(EventKey::kPh);
    if (ph.type != JType::kString)
      fail_event(ph.type == JType::kAbsent
                     ? "no \"ph\" (every trace event has a phase)"
                     : std::string("\"ph\" is ") + type_name(ph.type) + ", not a string");
    const Value& cat = ev(EventKey::kCat);
    if (cat.type != JType::kAbsent && cat.type != JType::kString)
      fail_event(std::string("\"cat\" is ") + type_name(cat.type) + ", not a string");
    const Category category =
        cat.type == JType::kString ? classify_category(cat.text) : Category::kOther;
    const std::string& phase = ph.text;
    if (phase == "X" && category == Category::kSync) {
      sync_event();
    } else if (phase == "X" && category != Category::kOther && category != Category::kFlow) {
      complete_event(category);
    } else if (category == Category::kFlow && (phase == "s" || phase == "f")) {
      flow_event(phase == "s");
    } else if (phase == "M") {
      metadata_event();
    } else if (cat.type == JType::kString) {
      ignore(printable(category == Category::kOther ? cat.text : cat.text + " (ph " + phase + ")"));
    } else {
      ignore(printable(phase));
    }
    ++events_seen_;
  }

  void ignore(const std::string& key) {
    if (last_ignored_ != ignored_.end() && last_ignored_->first == key) {
      ++last_ignored_->second;
      return;
    }
    last_ignored_ = ignored_.try_emplace(key, 0).first;
    ++last_ignored_->second;
  }

  std::int64_t integer(const Value& v, const std::string& what, std::int64_t min,
                       std::int64_t max) const {
    if (v.type == JType::kAbsent) fail_event("no " + what);
    if (v.type == JType::kInteger && v.integer >= min && v.integer <= max) return v.integer;
    const std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
    if (v.type == JType::kInteger)
      fail_event(what + " = " + std::to_string(v.integer) + " is out of range " + range);
    if (v.type == JType::kUnsigned) fail_event(what + " is past 2^63, out of range " + range);
    fail_event(what + " is " + type_name(v.type) + ", not an integer");
  }
  std::optional<std::int64_t> optional_integer(ArgKey key, std::int64_t min,
                                               std::int64_t max) const {
    const Value& v = arg(key);
    if (v.type == JType::kAbsent) return std::nullopt;
    return integer(v, arg_label(key), min, max);
  }
  const std::string* optional_string(ArgKey key) const {
    const Value& v = arg(key);
    if (v.type == JType::kAbsent) return nullptr;
    if (v.type != JType::kString)
      fail_event(std::string(arg_label(key)) + " is " + type_name(v.type) + ", not a string");
    return &v.text;
  }

  // "ts" or "dur" in microseconds as absolute nanoseconds.
  TraceNs time_ns(EventKey key, const char* what) const {
    const Value& v = ev(key);
    if (v.type == JType::kAbsent)
      fail_event(std::string("no \"") + what + "\" (an \"X\" event needs \"ts\" and \"dur\")");
    std::optional<std::int64_t> ns;
    std::string written;
    if (v.type == JType::kInteger) {
      if (v.integer >= -kMostWholeUs && v.integer <= kMostWholeUs) ns = v.integer * 1000;
      written = std::to_string(v.integer);
    } else if (v.type == JType::kFloat) {
      ns = decimal_us_to_ns(v.text);
      written = v.text;
    } else if (v.type == JType::kUnsigned) {
      written = "(past 2^63)";
    } else {
      fail_event(std::string("\"") + what + "\" is " + type_name(v.type) + ", not a number");
    }
    if (!ns)
      fail_event(std::string("\"") + what + "\" = " + written +
                 " us is outside the range opsim reads (magnitude below 4.6e15 us, about 146 "
                 "years)");
    return *ns;
  }

  std::int64_t thread_id(EventKey key, const char* what) const {
    const Value& v = ev(key);
    if (v.type != JType::kInteger)
      fail_event(std::string("\"") + what + "\" is " + type_name(v.type) +
                 ", not an integer (PyTorch writes the process and thread ids as numbers)");
    return v.integer;
  }

  std::uint32_t intern(const std::string& name) {
    const auto it = name_index_.find(std::string_view(name));
    if (it != name_index_.end()) return it->second;
    if (!is_valid_utf8(name)) fail_event("\"name\" is not valid UTF-8");
    if (has_control_characters(name, false))
      fail_event("\"name\" holds a control character (a line break, ...)");
    const auto index = static_cast<std::uint32_t>(names_.size());
    names_.push_back(name);
    name_index_.emplace(name, index);
    return index;
  }

  std::uint32_t host_thread(std::int64_t pid, std::int64_t tid) {
    const std::pair<std::int64_t, std::int64_t> key(pid, tid);
    if (has_last_thread_ && last_thread_key_ == key) return last_thread_;
    const auto [it, fresh] =
        thread_index_.try_emplace(key, static_cast<std::uint32_t>(thread_keys_.size()));
    if (fresh) thread_keys_.push_back(key);
    has_last_thread_ = true;
    last_thread_key_ = key;
    last_thread_ = it->second;
    return it->second;
  }

  void complete_event(Category category) {
    const char* cat_name = ev(EventKey::kCat).text.c_str();
    const Value& name = ev(EventKey::kName);
    if (name.type != JType::kString)
      fail_event(std::string(cat_name) + " event " +
                 (name.type == JType::kAbsent ? "without \"name\""
                                              : std::string("whose \"name\" is ") +
                                                    type_name(name.type) + ", not a string"));
    const std::int64_t pid = thread_id(EventKey::kPid, "pid");
    const std::int64_t tid = thread_id(EventKey::kTid, "tid");
    const TraceNs start = time_ns(EventKey::kTs, "ts");
    const TraceNs duration = time_ns(EventKey::kDur, "dur");
    if (duration < 0)
      fail_event("\"dur\" is negative (" + std::to_string(duration) +
                 " ns): an event cannot end "
                 "before it starts");
    if (start + duration >= kMostNs)
      fail_event("\"ts\" + \"dur\" ends past what opsim reads (4.6e15 us, about 146 years)");
    const JType args_type = ev(EventKey::kArgs).type;
    if (args_type != JType::kAbsent && args_type != JType::kObject)
      fail_event(std::string("\"args\" is ") + type_name(args_type) + ", not an object");
    const std::int64_t correlation =
        optional_integer(ArgKey::kCorrelation, 0, std::numeric_limits<std::int64_t>::max())
            .value_or(-1);
    const std::int64_t external_id =
        optional_integer(ArgKey::kExternalId, 0, std::numeric_limits<std::int64_t>::max())
            .value_or(-1);
    const std::uint32_t name_index = intern(name.text);
    origin_ns_ = std::min(origin_ns_, start);

    if (category == Category::kKernel || category == Category::kMemcpy ||
        category == Category::kMemset) {
      gpu_event(category, cat_name, name.text, name_index, pid, tid, start, duration, correlation,
                external_id);
      return;
    }
    HostRecord record;
    HostEvent& e = record.event;
    e.kind = category == Category::kCpuOp            ? HostEventKind::kCpuOp
             : category == Category::kUserAnnotation ? HostEventKind::kUserAnnotation
             : category == Category::kRuntime        ? HostEventKind::kRuntime
                                                     : HostEventKind::kPythonFunction;
    e.thread = host_thread(pid, tid);
    e.name = name_index;
    e.start_ns = start;
    e.duration_ns = duration;
    e.correlation = correlation;
    e.external_id = external_id;
    if (arg(ArgKey::kInputDims).type != JType::kAbsent) {
      if (arg(ArgKey::kInputDims).type != JType::kArray || dims_bad_)
        fail_event(std::string(arg_label(ArgKey::kInputDims)) +
                   " is not a list of shapes (one list of dimensions >= 0 per input)");
      e.input_dims = std::move(dims_);
      dims_.clear();
    }
    if (arg(ArgKey::kInputType).type != JType::kAbsent) {
      if (arg(ArgKey::kInputType).type != JType::kArray || types_bad_)
        fail_event(std::string(arg_label(ArgKey::kInputType)) + " is not a list of strings");
      for (const std::string& type : types_)
        if (!is_valid_utf8(type) || has_control_characters(type, false))
          fail_event(std::string(arg_label(ArgKey::kInputType)) +
                     " holds a control character or invalid UTF-8");
      e.input_types = std::move(types_);
      types_.clear();
    }
    // A step marker: a user_annotation, or a cpu_op where older PyTorch wrote it as one.
    if ((category == Category::kUserAnnotation || category == Category::kCpuOp) &&
        name.text.rfind("ProfilerStep#", 0) == 0) {
      const std::string_view number = std::string_view(name.text).substr(13);
      StepRecord step;
      const auto [end, ec] =
          std::from_chars(number.data(), number.data() + number.size(), step.number);
      if (number.empty() || ec != std::errc() || end != number.data() + number.size() ||
          step.number < 0)
        fail_event(std::string(cat_name) + " " + quote_name(name.text) +
                   ": the step number after '#' is not an integer >= 0");
      step.thread = e.thread;
      step.start_ns = start;
      step.duration_ns = duration;
      steps_.push_back(step);
    }
    host_.push_back(std::move(record));
  }

  void gpu_event(Category category, const char* cat_name, const std::string& name,
                 std::uint32_t name_index, std::int64_t pid, std::int64_t tid, TraceNs start,
                 TraceNs duration, std::int64_t correlation, std::int64_t external_id) {
    GpuRecord record;
    record.pid = pid;
    record.tid = tid;
    GpuEvent& e = record.event;
    e.kind = category == Category::kKernel   ? GpuEventKind::kKernel
             : category == Category::kMemcpy ? GpuEventKind::kMemcpy
                                             : GpuEventKind::kMemset;
    e.name = name_index;
    e.start_ns = start;
    e.duration_ns = duration;
    e.correlation = correlation;
    e.external_id = external_id;
    if (arg(ArgKey::kStream).type == JType::kAbsent)
      fail_event(std::string(cat_name) + " without args.stream");
    e.stream = integer(arg(ArgKey::kStream), "args.stream", 0, kMostCount);
    constexpr std::int64_t kMostDevice = std::numeric_limits<std::int32_t>::max();
    if (arg(ArgKey::kDevice).type != JType::kAbsent) {
      e.device = integer(arg(ArgKey::kDevice), "args.device", 0, kMostDevice);
    } else {
      if (pid < 0 || pid > kMostDevice)
        fail_event(std::string(cat_name) + " without args.device, and \"pid\" = " +
                   std::to_string(pid) + " is no device number");
      e.device = pid;
    }
    if (category != Category::kKernel) {
      if (arg(ArgKey::kBytes).type == JType::kAbsent)
        fail_event(std::string(cat_name) + " without args.bytes");
      e.bytes = integer(arg(ArgKey::kBytes), "args.bytes", 0, kMostCount);
    }
    if (category == Category::kMemcpy) {
      e.direction = direction_from_name(name);
      if (e.direction == CopyDirection::kNone)
        fail_event("gpu_memcpy " + quote_name(name) +
                   ": no copy direction (HtoD, DtoH, DtoD, PtoP, HtoH) in its name");
    }
    if (category == Category::kKernel) e.collective = collective(name);
    gpu_.push_back(std::move(record));
  }

  // An NCCL kernel's collective: from args where PyTorch wrote them, else from the name.
  std::optional<Collective> collective(const std::string& name) const {
    std::optional<Collective> c = collective_from_kernel_name(name);
    const std::string* collective_name = optional_string(ArgKey::kCollectiveName);
    if (!c && collective_name == nullptr) return std::nullopt;
    if (!c) c.emplace();
    if (collective_name != nullptr) {
      if (collective_name->empty() || !is_valid_utf8(*collective_name) ||
          has_control_characters(*collective_name, false))
        fail_event(std::string(arg_label(ArgKey::kCollectiveName)) +
                   " is empty or holds a control character");
      c->name = *collective_name;
    }
    c->in_elements = optional_integer(ArgKey::kInNelems, 0, kMostCount).value_or(c->in_elements);
    c->out_elements = optional_integer(ArgKey::kOutNelems, 0, kMostCount).value_or(c->out_elements);
    c->group_size = optional_integer(ArgKey::kGroupSize, 1, kMostCount).value_or(c->group_size);
    if (const std::string* dtype = optional_string(ArgKey::kDtype)) {
      if (!is_valid_utf8(*dtype) || has_control_characters(*dtype, false))
        fail_event(std::string(arg_label(ArgKey::kDtype)) + " holds a control character");
      c->dtype = *dtype;
      c->element_bytes = element_bytes_of(*dtype);
    }
    if (const std::string* group = optional_string(ArgKey::kGroupName)) {
      if (!is_valid_utf8(*group) || has_control_characters(*group, false))
        fail_event(std::string(arg_label(ArgKey::kGroupName)) + " holds a control character");
      c->group_name = *group;
    }
    const Value& ranks = arg(ArgKey::kGroupRanks);
    if (ranks.type == JType::kString) {
      if (!parse_rank_list(ranks.text, c->group_ranks, c->group_ranks_truncated))
        fail_event(std::string(arg_label(ArgKey::kGroupRanks)) + " = " + quote_name(ranks.text) +
                   " is not a list of ranks like \"[0, 1]\"");
    } else if (ranks.type == JType::kArray && !ranks_bad_) {
      c->group_ranks = ranks_;
    } else if (ranks.type != JType::kAbsent) {
      fail_event(std::string(arg_label(ArgKey::kGroupRanks)) +
                 " is not a list of ranks (integers >= 0)");
    }
    if (!c->group_ranks_truncated && !c->group_ranks.empty() && c->group_size > 0 &&
        static_cast<std::int64_t>(c->group_ranks.size()) != c->group_size)
      fail_event(std::string(arg_label(ArgKey::kGroupRanks)) + " lists " +
                 std::to_string(c->group_ranks.size()) + " ranks but args.\"Group size\" is " +
                 std::to_string(c->group_size));
    return c;
  }

  // A cuda_sync "X" event. Only its args are read: its times are the runtime call's.
  void sync_event() {
    const JType args_type = ev(EventKey::kArgs).type;
    if (args_type != JType::kAbsent && args_type != JType::kObject)
      fail_event(std::string("\"args\" is ") + type_name(args_type) + ", not an object");
    constexpr std::int64_t kMostId = std::numeric_limits<std::int64_t>::max();
    SyncEvent s;
    if (const std::string* kind = optional_string(ArgKey::kSyncKind)) {
      static constexpr std::pair<std::string_view, SyncKind> kKinds[] = {
          {"Stream Sync", SyncKind::kStreamSync},
          {"Context Sync", SyncKind::kContextSync},
          {"Event Sync", SyncKind::kEventSync},
          {"Stream Wait Event", SyncKind::kStreamWaitEvent},
      };
      for (const auto& [written, ours] : kKinds)
        if (*kind == written) s.kind = ours;
    }
    s.correlation = optional_integer(ArgKey::kCorrelation, 0, kMostId).value_or(-1);
    constexpr std::int64_t kMostDevice = std::numeric_limits<std::int32_t>::max();
    if (arg(ArgKey::kDevice).type != JType::kAbsent) {
      s.device = integer(arg(ArgKey::kDevice), "args.device", 0, kMostDevice);
    } else {
      const std::int64_t pid = thread_id(EventKey::kPid, "pid");
      if (pid < 0 || pid > kMostDevice)
        fail_event("cuda_sync without args.device, and \"pid\" = " + std::to_string(pid) +
                   " is no device number");
      s.device = pid;
    }
    // CUDA's stream handles are 32-bit: Kineto writes "none" (a Context Sync's) as 2^32 - 1.
    const auto stream = [&](ArgKey key) {
      const std::int64_t id = optional_integer(key, 0, kMostCount).value_or(-1);
      return id == std::int64_t{0xFFFFFFFF} ? -1 : id;
    };
    s.stream = stream(ArgKey::kStream);
    s.wait_on_stream = stream(ArgKey::kWaitOnStream);
    s.event_record_correlation =
        optional_integer(ArgKey::kEventRecordCorrelation, 0, kMostId).value_or(-1);
    syncs_.push_back(s);
  }

  void flow_event(bool start) {
    const Value& id = ev(EventKey::kId);
    if (id.type != JType::kInteger)
      fail_event(std::string("flow ") +
                 (id.type == JType::kAbsent ? "without \"id\""
                                            : std::string("\"id\" is ") + type_name(id.type)) +
                 " (an ac2g flow's id is the launch's correlation, an integer)");
    Flow flow;
    flow.id = id.integer;
    flow.pid = thread_id(EventKey::kPid, "pid");
    flow.tid = thread_id(EventKey::kTid, "tid");
    flow.ts = time_ns(EventKey::kTs, "ts");
    flow.start = start;
    flows_.push_back(flow);
  }

  void metadata_event() {
    const Value& name = ev(EventKey::kName);
    const Value& pid = ev(EventKey::kPid);
    const Value& tid = ev(EventKey::kTid);
    const Value& label = arg(ArgKey::kName);
    if (name.type == JType::kString && name.text == "thread_name" && pid.type == JType::kInteger &&
        tid.type == JType::kInteger && label.type == JType::kString) {
      if (!is_valid_utf8(label.text) || has_control_characters(label.text, false))
        fail_event("thread_name's args.name holds a control character");
      thread_names_[{pid.integer, tid.integer}] = label.text;  // the last one wins
      ++thread_name_events_[{pid.integer, tid.integer}];
      return;
    }
    ignore("M");
  }

  // --- the top-level values read -------------------------------------------------------
  void read_device_properties() {
    if (!built_.is_array()) fail_at("deviceProperties", "is not an array");
    for (std::size_t i = 0; i < built_.size(); ++i) {
      const json& entry = built_[i];
      const std::string place = "deviceProperties[" + std::to_string(i) + "]";
      if (!entry.is_object()) fail_at(place, "is not an object");
      const auto id = entry.find("id");
      const auto name = entry.find("name");
      if (id == entry.end() || name == entry.end()) continue;
      if (!id->is_number_integer()) fail_at(place, "\"id\" is not an integer");
      if (!name->is_string()) fail_at(place, "\"name\" is not a string");
      const std::string& text = name->get_ref<const std::string&>();
      if (has_control_characters(text, false)) fail_at(place, "\"name\" holds a control character");
      device_names_.emplace_back(id->get<std::int64_t>(), text);
    }
  }

  void read_distributed_info() {
    if (!built_.is_object()) fail_at("distributedInfo", "is not an object");
    const auto read = [&](const char* key, std::int64_t min) -> std::int64_t {
      const auto it = built_.find(key);
      if (it == built_.end()) return -1;
      if (!it->is_number_integer() || it->get<std::int64_t>() < min ||
          it->get<std::int64_t>() > kMostCount)
        fail_at(std::string("distributedInfo.") + key,
                "is not an integer >= " + std::to_string(min));
      return it->get<std::int64_t>();
    };
    rank_ = read("rank", 0);
    world_size_ = read("world_size", 1);
    if (rank_ >= 0 && world_size_ > 0 && rank_ >= world_size_)
      fail_at("distributedInfo", "rank " + std::to_string(rank_) + " is not below world_size " +
                                     std::to_string(world_size_));
  }

  // --- messages --------------------------------------------------------------------------
  std::string event_place() const { return "traceEvents[" + std::to_string(events_seen_) + "]"; }
  [[noreturn]] void fail_event(const std::string& what) const { fail_at(event_place(), what); }
  [[noreturn]] void fail_at(const std::string& place, const std::string& what) const {
    throw InputError(source_ + ": " + place + ": " + what);
  }
  static std::string printable(const std::string& text) {
    std::string out;
    for (const char c : text) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20 || byte == 0x7f) {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
        out += escaped;
      } else {
        out += c;
      }
    }
    return out.size() > 80 ? out.substr(0, 77) + "..." : out;
  }

  std::string_view text_;
  const std::string& source_;

  int depth_ = 0;
  int skip_base_ = -1;
  std::optional<CheckedJsonBuilder> build_;
  json built_;
  TopKey top_key_ = TopKey::kOther;
  KeySet top_keys_;
  std::vector<std::string> top_key_names_;
  std::size_t top_key_count_ = 0;
  bool saw_top_object_ = false, saw_events_ = false, in_events_ = false, saw_opsim_ = false;

  std::size_t events_seen_ = 0;
  EventKey event_key_ = EventKey::kOther;
  ArgKey arg_key_ = ArgKey::kOther;
  KeySet event_keys_, arg_keys_;
  std::array<Value, kEventKeys> ev_;
  std::array<Value, kArgKeys> arg_;
  std::vector<std::vector<std::int64_t>> dims_;
  std::vector<std::int64_t> shape_;
  bool shape_is_list_ = false;
  std::vector<std::string> types_;
  std::vector<std::int64_t> ranks_;
  bool dims_bad_ = false, types_bad_ = false, ranks_bad_ = false;

  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>> name_index_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> thread_index_;
  std::vector<std::pair<std::int64_t, std::int64_t>> thread_keys_;
  bool has_last_thread_ = false;
  std::pair<std::int64_t, std::int64_t> last_thread_key_;
  std::uint32_t last_thread_ = 0;
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> thread_names_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> thread_name_events_;
  std::vector<HostRecord> host_;
  std::vector<GpuRecord> gpu_;
  std::vector<Flow> flows_;
  std::vector<StepRecord> steps_;
  std::vector<SyncEvent> syncs_;  // in file order
  std::map<std::string, std::int64_t, std::less<>> ignored_;
  std::map<std::string, std::int64_t, std::less<>>::iterator last_ignored_ = ignored_.end();
  std::vector<std::pair<std::int64_t, std::string>> device_names_;
  std::int64_t rank_ = -1, world_size_ = -1;
  TraceNs origin_ns_ = std::numeric_limits<TraceNs>::max();
};

KinetoTrace KinetoReader::finish() {
  if (!saw_events_) {
    std::string keys;
    for (const std::string& k : top_key_names_) keys += (keys.empty() ? "" : ", ") + k;
    if (top_key_count_ > top_key_names_.size()) keys += ", ...";
    fail_at("the top level",
            "a JSON object " + (keys.empty() ? std::string("with no keys") : "with keys " + keys) +
                " and no \"traceEvents\": not a PyTorch profiler trace");
  }
  if (events_seen_ == 0) fail_at("traceEvents", "is empty: the trace holds no events");
  // thread_name events of lanes that are not host threads (GPU streams): not read.
  for (const auto& [key, count] : thread_name_events_)
    if (thread_index_.find(key) == thread_index_.end()) ignored_["M"] += count;
  if (host_.empty() && gpu_.empty()) {
    std::string seen;
    std::vector<std::pair<std::int64_t, std::string>> by_count;
    for (const auto& [key, count] : ignored_) by_count.emplace_back(-count, key);
    std::sort(by_count.begin(), by_count.end());
    for (std::size_t i = 0; i < by_count.size() && i < 4; ++i)
      seen += (i == 0 ? "" : ", ") + printable(by_count[i].second) + " " +
              std::to_string(-by_count[i].first);
    if (by_count.size() > 4) seen += ", ...";
    fail_at("traceEvents",
            std::string("not a PyTorch profiler trace") +
                (saw_opsim_ ? " (an opsim trace: it has otherData.opsim)" : "") +
                ": no cpu_op, user_annotation, cuda_runtime, kernel, gpu_memcpy or gpu_memset "
                "\"X\" events (it has " +
                (seen.empty() ? std::string("none of those") : seen) + ")");
  }

  // Threads in order of their first event (then pid, tid).
  std::vector<TraceNs> first_start(thread_keys_.size(), std::numeric_limits<TraceNs>::max());
  for (const HostRecord& r : host_)
    first_start[r.event.thread] = std::min(first_start[r.event.thread], r.event.start_ns);
  std::vector<std::uint32_t> order(thread_keys_.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::tie(first_start[a], thread_keys_[a]) < std::tie(first_start[b], thread_keys_[b]);
  });
  std::vector<std::uint32_t> final_index(order.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) final_index[order[i]] = i;
  for (HostRecord& r : host_) r.event.thread = final_index[r.event.thread];
  for (StepRecord& s : steps_) s.thread = final_index[s.thread];

  std::stable_sort(host_.begin(), host_.end(), [](const HostRecord& a, const HostRecord& b) {
    const HostEvent &x = a.event, &y = b.event;
    if (x.thread != y.thread) return x.thread < y.thread;
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    return x.duration_ns > y.duration_ns;
  });
  std::stable_sort(gpu_.begin(), gpu_.end(), [](const GpuRecord& a, const GpuRecord& b) {
    const GpuEvent &x = a.event, &y = b.event;
    return std::tie(x.start_ns, x.device, x.stream, y.duration_ns) <
           std::tie(y.start_ns, y.device, y.stream, x.duration_ns);
  });

  // Launch correlations the args did not give, from the ac2g flows: an "f" binds to the GPU
  // op that runs at its ts on its (pid, tid), an "s" to the runtime call on its thread.
  const bool gpu_missing = std::any_of(gpu_.begin(), gpu_.end(),
                                       [](const GpuRecord& r) { return r.event.correlation < 0; });
  const bool host_missing = std::any_of(host_.begin(), host_.end(), [](const HostRecord& r) {
    return r.event.kind == HostEventKind::kRuntime && r.event.correlation < 0;
  });
  if (gpu_missing) {
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::uint32_t>> lanes;
    for (std::uint32_t i = 0; i < gpu_.size(); ++i) lanes[{gpu_[i].pid, gpu_[i].tid}].push_back(i);
    for (const Flow& f : flows_) {
      if (f.start) continue;
      const auto lane = lanes.find({f.pid, f.tid});
      if (lane == lanes.end()) continue;
      const std::vector<std::uint32_t>& ops = lane->second;
      auto it = std::upper_bound(ops.begin(), ops.end(), f.ts, [&](TraceNs ts, std::uint32_t i) {
        return ts < gpu_[i].event.start_ns;
      });
      if (it == ops.begin()) continue;
      GpuEvent& e = gpu_[*(it - 1)].event;
      if (e.correlation < 0 && f.ts <= e.start_ns + e.duration_ns) e.correlation = f.id;
    }
  }
  if (host_missing) {
    std::vector<std::vector<std::uint32_t>> runtime(thread_keys_.size());
    for (std::uint32_t i = 0; i < host_.size(); ++i)
      if (host_[i].event.kind == HostEventKind::kRuntime)
        runtime[host_[i].event.thread].push_back(i);
    for (const Flow& f : flows_) {
      if (!f.start) continue;
      const auto known = thread_index_.find({f.pid, f.tid});
      if (known == thread_index_.end()) continue;
      const std::vector<std::uint32_t>& calls = runtime[final_index[known->second]];
      auto it = std::upper_bound(
          calls.begin(), calls.end(), f.ts,
          [&](TraceNs ts, std::uint32_t i) { return ts < host_[i].event.start_ns; });
      if (it == calls.begin()) continue;
      HostEvent& e = host_[*(it - 1)].event;
      if (e.correlation < 0 && f.ts <= e.start_ns + e.duration_ns) e.correlation = f.id;
    }
  }

  KinetoTrace trace;
  trace.path = source_;
  trace.names = std::move(names_);
  trace.origin_us = static_cast<double>(origin_ns_) / 1000.0;
  trace.trace_events = static_cast<std::int64_t>(events_seen_);
  trace.threads.resize(thread_keys_.size());
  for (std::uint32_t i = 0; i < thread_keys_.size(); ++i) {
    HostThread& t = trace.threads[final_index[i]];
    t.pid = thread_keys_[i].first;
    t.tid = thread_keys_[i].second;
    if (const auto name = thread_names_.find(thread_keys_[i]); name != thread_names_.end())
      t.name = name->second;
  }
  trace.host_events.reserve(host_.size());
  for (HostRecord& r : host_) {
    r.event.start_ns -= origin_ns_;
    trace.host_events.push_back(std::move(r.event));
  }
  std::map<std::int64_t, std::int64_t> per_device;
  trace.gpu_events.reserve(gpu_.size());
  for (GpuRecord& r : gpu_) {
    r.event.start_ns -= origin_ns_;
    ++per_device[r.event.device];
    trace.gpu_events.push_back(std::move(r.event));
  }
  for (StepRecord& s : steps_) s.start_ns -= origin_ns_;
  std::stable_sort(steps_.begin(), steps_.end(), [](const StepRecord& a, const StepRecord& b) {
    return a.start_ns < b.start_ns;
  });
  for (const StepRecord& s : steps_)
    trace.steps.push_back(StepSpan{s.number, s.thread, s.start_ns, s.duration_ns});
  trace.syncs = std::move(syncs_);

  // The GPU most of the events ran on, named as deviceProperties names it.
  std::int64_t device = -1, most = 0;
  for (const auto& [id, count] : per_device)
    if (count > most) device = id, most = count;
  for (const auto& [id, name] : device_names_)
    if (id == device) trace.gpu_name = name;
  trace.rank = rank_;
  trace.world_size = world_size_;
  for (auto& [key, count] : ignored_) trace.ignored_events.emplace(key, count);
  return trace;
}

// What a file that is not JSON at all is, from its first bytes; "" when it may be JSON.
std::string compressed_kind(std::string_view bytes) {
  const auto starts = [&](std::string_view magic) {
    return bytes.substr(0, magic.size()) == magic;
  };
  if (is_gzip(bytes))
    return "gzip-compressed twice; opsim decompresses one layer of gzip (gunzip it once first)";
  if (starts(std::string_view("PK\x03\x04", 4)))
    return "a zip archive; opsim reads a trace as JSON or gzip (unzip it first)";
  if (starts("\x28\xb5\x2f\xfd"))
    return "zstd-compressed; opsim reads a trace as JSON or gzip (zstd -d it first)";
  if (starts(std::string_view("\xfd"
                              "7zXZ\x00",
                              6)))
    return "xz-compressed; opsim reads a trace as JSON or gzip (xz -d it first)";
  if (starts("BZh"))
    return "bzip2-compressed; opsim reads a trace as JSON or gzip (bunzip2 it first)";
  return "";
}

}  // namespace

KinetoTrace parse_kineto_trace(std::string_view text, const std::string& source) {
  if (const std::string kind = compressed_kind(text); !kind.empty())
    throw InputError(source + ": " + kind);
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw InputError(source + ": empty file, not a PyTorch profiler trace");
  KinetoReader reader(text, source);
  json::sax_parse(text.begin(), text.end(), &reader);
  return reader.finish();
}

KinetoTrace read_kineto_trace(const std::string& path) {
  std::string bytes = read_input_file(path, "trace file");
  if (is_gzip(bytes)) {
    std::string text = gunzip_input(bytes, path);
    bytes.clear();
    bytes.shrink_to_fit();
    return parse_kineto_trace(text, path);
  }
  return parse_kineto_trace(bytes, path);
}

}  // namespace opsim::replay
