#include "rhoflow/io/uncertain.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

#include "rhoflow/core/errors.hpp"

namespace rhoflow {

namespace {

// A non-negative decimal number: digits (no leading zeros, "0" for zero) times 10^place.
struct Decimal {
    std::string digits = "0";
    int place = 0;
};

// x >= 0 in scientific form with `after` digits after the point, correctly rounded by fmt:
// mantissa digits without the point, and the exponent.
std::pair<std::string, int> scientific(double x, int after) {
    const std::string s = fmt::format("{:.{}e}", x, after);
    const std::size_t e = s.find('e');
    std::string digits;
    for (std::size_t i = 0; i < e; ++i)
        if (s[i] != '.') digits += s[i];
    return {digits, std::atoi(s.c_str() + e + 1)};
}

int decimal_exponent(double x) { return scientific(x, 16).second; }

// |x| rounded to the decimal place `place` (a multiple of 10^place), carrying when it must.
Decimal round_at(double x, int place) {
    x = std::fabs(x);
    if (x == 0) return {"0", place};
    const int top = decimal_exponent(x);
    if (top < place - 1) return {"0", place};
    if (top == place - 1) return {scientific(x, 16).first[0] >= '5' ? "1" : "0", place};
    auto [digits, exponent] = scientific(x, top - place);
    if (exponent > top) digits += '0';  // 9.96 -> "1.0e+01" at one place coarser: back to `place`
    return {digits, place};
}

// The error rounded by the rule: one or two significant digits (see the header).
Decimal round_error(double error) {
    const auto [three, top] = scientific(error, 2);  // three leading digits, "100" ... "999"
    const int lead = std::stoi(three);
    if (lead >= 950) return {"10", top};               // 0.0996 -> 0.10
    if (lead >= 355) return {scientific(error, 0).first, top};  // 0.0355 -> 0.04
    auto [two, top2] = scientific(error, 1);            // 0.0123 -> 0.012
    return {two, top2 - 1};
}

// The exponent of the leading digit of d (d not zero).
int top_exponent(const Decimal& d) { return d.place + static_cast<int>(d.digits.size()) - 1; }

// d / 10^shift written as a decimal mantissa: "0.015", "1.23", "123500".
std::string mantissa(const Decimal& d, int shift) {
    const int place = d.place - shift;
    if (place >= 0) return d.digits == "0" ? "0" : d.digits + std::string(static_cast<std::size_t>(place), '0');
    const auto after = static_cast<std::size_t>(-place);
    std::string digits = d.digits;
    if (digits.size() <= after) digits.insert(0, after + 1 - digits.size(), '0');
    const std::size_t point = digits.size() - after;
    return fmt::format("{}.{}", digits.substr(0, point), digits.substr(point));
}

void require_number(double value, double error) {
    if (!std::isfinite(value) || !std::isfinite(error) || error < 0)
        throw NumericalError(fmt::format("a value with its error must be finite with error >= 0, got {} +- {}",
                                         format_number(value), format_number(error)));
}

RoundedUncertain assemble(bool negative, const Decimal& value, const Decimal* error, const UncertainOptions& o) {
    int top = value.digits == "0" ? value.place : top_exponent(value);
    if (error) top = std::max(top, top_exponent(*error));
    const int shift = top < o.min_exponent || top > o.max_exponent ? top : 0;
    RoundedUncertain r;
    r.negative = negative && value.digits != "0";
    r.value = mantissa(value, shift);
    if (error) r.error = mantissa(*error, shift);
    r.exponent = shift;
    return r;
}

std::string superscript(int n) {
    static const char* const digit[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    std::string s = n < 0 ? "⁻" : "";
    for (char ch : std::to_string(std::abs(n))) s += digit[ch - '0'];
    return s;
}

}  // namespace

RoundedUncertain round_to_error(double value, double error, const UncertainOptions& options) {
    require_number(value, error);
    require_in("exact_digits", options.exact_digits, 1, 17);
    if (error == 0) {
        if (value == 0) return assemble(false, {"0", 0}, nullptr, options);
        auto [digits, top] = scientific(std::fabs(value), options.exact_digits - 1);
        while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
        const Decimal exact{digits, top - static_cast<int>(digits.size()) + 1};
        return assemble(value < 0, exact, nullptr, options);
    }
    const Decimal e = round_error(error);
    return assemble(value < 0, round_at(value, e.place), &e, options);
}

std::string to_string(const RoundedUncertain& r, UncertainStyle style) {
    const bool exact = r.error.empty();
    switch (style) {
        case UncertainStyle::latex: {
            const std::string v = (r.negative ? "-" : "") + r.value;
            const std::string body = exact ? v : fmt::format("{} \\pm {}", v, r.error);
            if (r.exponent == 0) return fmt::format("${}$", body);
            return fmt::format(fmt::runtime(exact ? "${} \\times 10^{{{}}}$" : "$({}) \\times 10^{{{}}}$"), body, r.exponent);
        }
        case UncertainStyle::siunitx: {
            // Compact input "1.23(12)" (the error in units of the value's last digit), printed
            // as "1.23 ± 0.12" by uncertainty-mode=separate; "e-7" becomes "× 10^-7".
            std::string body = (r.negative ? "-" : "") + r.value;
            if (!exact) {
                std::string units = r.error;
                units.erase(std::remove(units.begin(), units.end(), '.'), units.end());
                units.erase(0, std::min(units.find_first_not_of('0'), units.size() - 1));
                body += fmt::format("({})", units);
            }
            if (r.exponent != 0) body += fmt::format("e{}", r.exponent);
            return exact ? fmt::format("\\num{{{}}}", body) : fmt::format("\\num[uncertainty-mode=separate]{{{}}}", body);
        }
        case UncertainStyle::markdown: {
            const std::string v = (r.negative ? "−" : "") + r.value;
            const std::string body = exact ? v : fmt::format("{} ± {}", v, r.error);
            if (r.exponent == 0) return body;
            return fmt::format(fmt::runtime(exact ? "{} × 10{}" : "({}) × 10{}"), body, superscript(r.exponent));
        }
        case UncertainStyle::plain: {
            const std::string v = (r.negative ? "-" : "") + r.value;
            const std::string body = exact ? v : fmt::format("{} +/- {}", v, r.error);
            if (r.exponent == 0) return body;
            return fmt::format(fmt::runtime(exact ? "{} x 10^{}" : "({}) x 10^{}"), body, r.exponent);
        }
    }
    return {};
}

std::string format_uncertain(double value, double error, UncertainStyle style, const UncertainOptions& options) {
    return to_string(round_to_error(value, error, options), style);
}

std::string format_exact(double value, int digits, UncertainStyle style, const UncertainOptions& options) {
    UncertainOptions o = options;
    o.exact_digits = digits;
    require_number(value, 0);
    require_in("digits", digits, 1, 17);
    return to_string(round_to_error(value, 0, o), style);
}

}  // namespace rhoflow
