// The SAX events of nlohmann's parser, each turned into a call on the CheckedJsonBuilder
// (engine/json_input.hpp) that builds the value being read, for readers that stream a large
// document and build one part of it at a time. The reader (CRTP `Reader`) decides where each
// event goes by defining
//   template <class Event> bool scalar(Event&& event);            // null, numbers, strings
//   template <class Event> bool container_start(bool is_object, Event&& event);
//   template <class Event> bool container_end(Event&& event);
// plus key() and parse_error(); each Event is called with the builder to hand it to.
//
//   class EventStream : public JsonSaxForward<EventStream> { ... };
//   nlohmann::json::sax_parse(text.begin(), text.end(), &stream);
#pragma once

#include <cstddef>
#include <set>
#include <string>

#include "common/input_error.hpp"
#include "engine/json_input.hpp"

namespace opsim {

template <class Reader>
class JsonSaxForward {
 public:
  using json = nlohmann::json;

  bool null() {
    return reader().scalar([](CheckedJsonBuilder& b) { return b.null(); });
  }
  bool boolean(bool v) {
    return reader().scalar([v](CheckedJsonBuilder& b) { return b.boolean(v); });
  }
  bool number_integer(json::number_integer_t v) {
    return reader().scalar([v](CheckedJsonBuilder& b) { return b.number_integer(v); });
  }
  bool number_unsigned(json::number_unsigned_t v) {
    return reader().scalar([v](CheckedJsonBuilder& b) { return b.number_unsigned(v); });
  }
  bool number_float(json::number_float_t v, const std::string& text) {
    return reader().scalar([&](CheckedJsonBuilder& b) { return b.number_float(v, text); });
  }
  bool string(std::string& v) {
    return reader().scalar([&](CheckedJsonBuilder& b) { return b.string(v); });
  }
  bool binary(json::binary_t& v) {
    return reader().scalar([&](CheckedJsonBuilder& b) { return b.binary(v); });
  }
  bool start_object(std::size_t size) {
    return reader().container_start(true,
                                    [size](CheckedJsonBuilder& b) { return b.start_object(size); });
  }
  bool start_array(std::size_t size) {
    return reader().container_start(false,
                                    [size](CheckedJsonBuilder& b) { return b.start_array(size); });
  }
  bool end_object() {
    return reader().container_end([](CheckedJsonBuilder& b) { return b.end_object(); });
  }
  bool end_array() {
    return reader().container_end([](CheckedJsonBuilder& b) { return b.end_array(); });
  }

 private:
  Reader& reader() { return static_cast<Reader&>(*this); }
};

/// The keys of a document's top-level object as a streaming reader meets them: each may come
/// once (a second time is the input's error, naming `source`); current() is the latest.
class TopLevelKeys {
 public:
  void add(const std::string& key, const std::string& source) {
    if (!seen_.insert(key).second)
      throw InputError(source + ": the top level: key '" + key + "' appears twice");
    current_ = key;
  }
  const std::string& current() const { return current_; }

 private:
  std::set<std::string> seen_;
  std::string current_;
};

}  // namespace opsim
