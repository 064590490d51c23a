// JSON from a user's file, checked as strictly as the rest of opsim's input: a syntax error
// or a number out of double's range names its line and column, a key given twice in one
// object names its place (e.g. "ops[3]"), and no nlohmann message reaches the user raw.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace opsim {

/// Parses `text`; on bad input throws InputError "SOURCE:LINE:COL: invalid JSON: ..." or
/// "SOURCE: <place>: key 'k' appears twice ...".
nlohmann::json parse_json_input(std::string_view text, std::string_view source);

/// "LINE:COL" of byte offset `byte` in `text` (1-based).
std::string line_and_column(std::string_view text, std::size_t byte);

/// Throws the InputError for a parse error that nlohmann's SAX parser reports at `byte`.
[[noreturn]] void throw_json_syntax_error(std::string_view text, std::string_view source,
                                          std::size_t byte, const std::string& token,
                                          const nlohmann::detail::exception& error);

/// Builds one JSON value from SAX events with the checks above; for readers that stream a
/// large document and build only parts of it (one trace event at a time). `base_place`
/// names the value's own place in errors ("traceEvents[7]"; empty: the top level).
class CheckedJsonBuilder {
 public:
  using json = nlohmann::json;
  CheckedJsonBuilder(json& root, std::string_view source, std::string base_place = "");

  bool null();
  bool boolean(bool value);
  bool number_integer(json::number_integer_t value);
  bool number_unsigned(json::number_unsigned_t value);
  bool number_float(json::number_float_t value, const std::string& text);
  bool string(std::string& value);
  bool binary(json::binary_t& value);
  bool start_object(std::size_t size);
  bool end_object();
  bool start_array(std::size_t size);
  bool end_array();
  bool key(std::string& key);
  /// Containers open inside the value; 0 once it is complete.
  std::size_t depth() const { return open_.size(); }

 private:
  // One open object or array: enough to name the place of an error, and the keys seen so
  // far to refuse a duplicate (a plain list while small, then a hash set).
  struct OpenContainer {
    bool is_object = false;
    std::size_t elements = 0;  // values started so far (arrays)
    std::string last_key;      // key of the value being parsed (objects)
    std::vector<std::string> few_keys;
    std::unordered_set<std::string> many_keys;
    bool insert_key(const std::string& key);
  };
  bool value_started();
  std::string place() const;

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::string_view source_;
  std::string base_place_;
  std::vector<OpenContainer> open_;
};

}  // namespace opsim
