#include "rhoflow/core/number_text.hpp"

#include <charconv>
#include <cstdlib>
#include <locale.h>
#include <string>

namespace rhoflow {

std::optional<double> parse_number(std::string_view text) {
    if (text.size() > 1 && text.front() == '+' && text[1] != '-') text.remove_prefix(1);
    double v = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ptr != end) return std::nullopt;
    if (ec == std::errc()) return v;
    if (ec != std::errc::result_out_of_range) return std::nullopt;
    // Beyond the range of double: strtod's rounding (+-inf, +-0) in the C locale, whatever the
    // process's (from_chars has checked the grammar, so strtod reads the same characters).
    static const locale_t c_locale = ::newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
    return ::strtod_l(std::string(text).c_str(), nullptr, c_locale);
}

}  // namespace rhoflow
