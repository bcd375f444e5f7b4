// The toml++ Unicode workaround of the experiment reader (experiment/read_experiment.cpp).
//
// toml++ 3.3 (Debian 12) asks whether a non-ASCII character is whitespace through a function that
// reaches __builtin_unreachable(), undefined behaviour, for U+00A1 ... U+0499, U+2C5E ... U+3057
// (but U+3000) and U+FB26 ... U+FEFE (toml++ issues #190 and #295; its is_non_ascii_horizontal_
// whitespace). It asks outside strings and comments, while it scans a value up to its end, and in
// multi-line strings after a line-ending backslash. So the parser never sees these characters:
// each is replaced by its own private-use character U+F0000 + k (which the function answers), and
// every text taken from the parsed document, and every error message, gets the originals back.
// A file that holds one of those private-use characters itself is refused.
// Internal to the experiment folder; not installed.
#pragma once

#include <string>
#include <string_view>

namespace rhoflow::detail {

/// The text the parser reads, each character it cannot classify as its stand-in; InvalidArgument if it holds a stand-in.
std::string hide_unclassifiable(std::string_view text, const std::string& file);

/// Text from the parsed document (values, keys, error messages) with the original characters back.
std::string restore(std::string_view text);

}  // namespace rhoflow::detail
