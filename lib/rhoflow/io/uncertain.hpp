// A value with its error, printed for a paper: the error rounded to one or two significant
// digits, the value rounded to the same decimal place (docs/cli.md, "Tables for papers").
//
// Rule (the Particle Data Group's, Review of Particle Physics, "Introduction: rounding"): take
// the error's three leading digits (the error rounded to three significant digits).
//   100-354: the error keeps two significant digits  (0.0123 -> 0.012, 0.354 -> 0.35);
//   355-949: the error keeps one significant digit   (0.0355 -> 0.04,  0.0949 -> 0.09);
//   950-999: the error is rounded up to 1000 and keeps two significant digits (0.0996 -> 0.10).
// The value is then rounded (correctly, from its binary value) to the last decimal place the
// error shows, carrying into the next digit when it must (0.0995 +- 0.003 -> 0.100 +- 0.003,
// 9.96 +- 0.3 -> 10.0 +- 0.3). A value rounded to zero prints without a sign.
// Error 0 means an exact value (a parameter, a time on the output grid): it prints alone, with
// at most `exact_digits` significant digits and no trailing zeros, no "+- 0".
// When the larger of |value| and the rounded error is below 10^min_exponent or at or above
// 10^(max_exponent + 1), a power of ten is factored out, "(1.23 +- 0.12) x 10^-7", so that no C
// exponent ("1e+04", "6.8e-01") ever reaches a paper. LaTeX uses a real minus sign (math mode),
// Markdown the Unicode minus U+2212 and "±", plain text ASCII only.
// Fails: a NaN or infinite value or error, or a negative error, throws NumericalError: a number
// that is not a number is never printed as a result.
#pragma once

#include <string>

namespace rhoflow {

/// The target notation of format_uncertain() and format_exact().
enum class UncertainStyle {
    latex,     ///< LaTeX math, delimited: "$-0.537 \pm 0.015$", "$(1.23 \pm 0.12) \times 10^{-7}$"
    siunitx,   ///< siunitx: "\num[uncertainty-mode=separate]{-0.537 \pm 0.015}", exponent as "e-7"
    markdown,  ///< Unicode: "−0.537 ± 0.015", "(1.23 ± 0.12) × 10⁻⁷"
    plain,     ///< ASCII: "-0.537 +/- 0.015", "(1.23 +/- 0.12) x 10^-7"
};

/// Where the printed form switches to a factored power of ten, and the digits of exact values.
struct UncertainOptions {
    int min_exponent = -3;  ///< factor 10^n out when max(|value|, error) < 10^min_exponent
    int max_exponent = 5;   ///< factor 10^n out when max(|value|, error) >= 10^(max_exponent + 1)
    int exact_digits = 6;   ///< significant digits of a value whose error is 0 (1 ... 17)
};

/// A value and its error rounded by the rule above, as decimal digit strings sharing one power
/// of ten: value = mantissa x 10^exponent, error = error x 10^exponent.
struct RoundedUncertain {
    bool negative = false;  ///< the rounded value is below zero (never true for a rounded 0)
    std::string value;      ///< |value|'s mantissa, digits and '.', e.g. "0.537", "10.0", "1.23"
    std::string error;      ///< the error's mantissa at the same decimal place, e.g. "0.015"; "" when exact
    int exponent = 0;       ///< the power of ten factored out (0 when none)
};

/// Rounds `value` to its `error` by the rule (error 0: exact value with options.exact_digits).
/// Throws NumericalError on a non-finite value or error or a negative error.
RoundedUncertain round_to_error(double value, double error, const UncertainOptions& options = {});

/// `value` +- `error` rounded by the rule and written in `style` (error 0: the value alone).
std::string format_uncertain(double value, double error, UncertainStyle style,
                             const UncertainOptions& options = {});

/// A value without an error (exact, or its error shown elsewhere) with at most `digits`
/// significant digits, no trailing zeros, in `style` (same minus signs and powers of ten).
std::string format_exact(double value, int digits, UncertainStyle style, const UncertainOptions& options = {});

/// `r` written in `style`, as format_uncertain() writes it.
std::string to_string(const RoundedUncertain& r, UncertainStyle style);

}  // namespace rhoflow
