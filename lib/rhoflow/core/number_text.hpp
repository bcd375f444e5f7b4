// Numbers read from text the same whatever the C locale of the process (a Python user's
// locale.setlocale(LC_ALL, "de_DE.UTF-8") must not turn "0.5" into 0 or "-0.12" into 0.12).
// Written numbers go through fmt (never with 'L') or std::to_chars, which ignore the locale.
#pragma once

#include <optional>
#include <string_view>

namespace rhoflow {

/// The number written in the whole of `text` ([+-]digits[.digits][e[+-]digits], inf, nan), read
/// with std::from_chars; beyond the range of double it reads as +-inf or +-0, as strtod rounds it
/// (subnormals included); nothing if `text` is not such a number.
std::optional<double> parse_number(std::string_view text);

}  // namespace rhoflow
