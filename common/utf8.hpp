// Text the user gives that ends up in names, traces and files opsim writes back: well-formed
// UTF-8 without control characters, so that writing it and reading it again gives it back.
#pragma once

#include <string_view>

namespace opsim {

/// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past
/// U+10FFFF).
bool is_valid_utf8(std::string_view text);

/// Whether `text` holds a control character (below U+0020, or U+007F) other than a tab or,
/// where `allow_newlines`, a line break.
bool has_control_characters(std::string_view text, bool allow_newlines);

}  // namespace opsim
