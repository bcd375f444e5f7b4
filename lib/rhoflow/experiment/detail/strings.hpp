// Small string helpers shared by the files of the experiment runner. Internal; not installed.
#pragma once

#include <string>

namespace rhoflow::detail {

/// Whether `s` ends with `tail` and is longer than it.
inline bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace rhoflow::detail
