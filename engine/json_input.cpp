#include "engine/json_input.hpp"

#include <cstdio>
#include <unordered_set>

#include "common/input_error.hpp"

namespace opsim {

using nlohmann::json;

bool CheckedJsonBuilder::OpenContainer::insert_key(const std::string& key) {
  if (many_keys.empty()) {
    for (const std::string& seen : few_keys)
      if (seen == key) return false;
    few_keys.push_back(key);
    if (few_keys.size() > 16) many_keys.insert(few_keys.begin(), few_keys.end());
    return true;
  }
  return many_keys.insert(key).second;
}

namespace {

// Bytes outside printable ASCII as \xNN: the token nlohmann quotes may be ill-formed UTF-8.
std::string printable(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    }
  }
  return out;
}

// nlohmann's text without its "[json.exception.parse_error.101] parse error at line 3,
// column 5: " prefix.
std::string reason(const std::exception& error) {
  std::string what = error.what();
  const std::size_t bracket = what.find("] ");
  if (bracket != std::string::npos) what = what.substr(bracket + 2);
  const std::size_t colon = what.find(": ", what.find("parse error"));
  if (what.rfind("parse error", 0) == 0 && colon != std::string::npos)
    what = what.substr(colon + 2);
  if (what.rfind("number overflow", 0) == 0) what += " (outside the range of a double)";
  return printable(what);
}

// A whole document through CheckedJsonBuilder, with nlohmann's parse errors made ours.
class WholeDocument : public CheckedJsonBuilder {
 public:
  WholeDocument(json& root, std::string_view text, std::string_view source)
      : CheckedJsonBuilder(root, source), text_(text), source_(source) {}
  template <class Exception>
  bool parse_error(std::size_t byte, const std::string& token, const Exception& error) {
    throw_json_syntax_error(text_, source_, byte, token, error);
  }

 private:
  std::string_view text_;
  std::string_view source_;
};

}  // namespace

CheckedJsonBuilder::CheckedJsonBuilder(json& root, std::string_view source, std::string base_place)
    : dom_(root), source_(source), base_place_(std::move(base_place)) {}

bool CheckedJsonBuilder::null() {
  return value_started() && dom_.null();
}
bool CheckedJsonBuilder::boolean(bool v) {
  return value_started() && dom_.boolean(v);
}
bool CheckedJsonBuilder::number_integer(json::number_integer_t v) {
  return value_started() && dom_.number_integer(v);
}
bool CheckedJsonBuilder::number_unsigned(json::number_unsigned_t v) {
  return value_started() && dom_.number_unsigned(v);
}
bool CheckedJsonBuilder::number_float(json::number_float_t v, const std::string& text) {
  return value_started() && dom_.number_float(v, text);
}
bool CheckedJsonBuilder::string(std::string& v) {
  return value_started() && dom_.string(v);
}
bool CheckedJsonBuilder::binary(json::binary_t& v) {
  return value_started() && dom_.binary(v);
}

bool CheckedJsonBuilder::start_object(std::size_t size) {
  value_started();
  open_.emplace_back().is_object = true;
  return dom_.start_object(size);
}

bool CheckedJsonBuilder::end_object() {
  open_.pop_back();
  return dom_.end_object();
}

bool CheckedJsonBuilder::start_array(std::size_t size) {
  value_started();
  open_.emplace_back();
  return dom_.start_array(size);
}

bool CheckedJsonBuilder::end_array() {
  open_.pop_back();
  return dom_.end_array();
}

bool CheckedJsonBuilder::key(std::string& key) {
  OpenContainer& object = open_.back();
  object.last_key = key;
  if (!object.insert_key(key))
    throw InputError(std::string(source_) + ": " + place() + ": key '" + printable(key) +
                     "' appears twice (each key once per object)");
  return dom_.key(key);
}

bool CheckedJsonBuilder::value_started() {
  if (!open_.empty() && !open_.back().is_object) ++open_.back().elements;
  return true;
}

// "ops[3].gemm" for the object whose key is being read; "the top level" outside any.
std::string CheckedJsonBuilder::place() const {
  std::string out = base_place_;
  for (const OpenContainer& c : open_) {
    if (c.is_object) {
      if (&c != &open_.back()) out += (out.empty() ? "" : ".") + printable(c.last_key);
    } else {
      out += "[" + std::to_string(c.elements == 0 ? 0 : c.elements - 1) + "]";
    }
  }
  return out.empty() ? "the top level" : out;
}

std::string line_and_column(std::string_view text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

void throw_json_syntax_error(std::string_view text, std::string_view source, std::size_t byte,
                             const std::string& token, const nlohmann::detail::exception& error) {
  // A number out of range is named at its first character, a syntax error where the
  // parser stopped.
  std::size_t at = byte == 0 ? 0 : byte - 1;
  if (error.id == 406 && token.size() <= byte) at = byte - token.size();
  throw InputError(std::string(source) + ":" + line_and_column(text, at) +
                   ": invalid JSON: " + reason(error));
}

json parse_json_input(std::string_view text, std::string_view source) {
  json root;
  WholeDocument builder(root, text, source);
  json::sax_parse(text.begin(), text.end(), &builder);
  return root;
}

}  // namespace opsim
