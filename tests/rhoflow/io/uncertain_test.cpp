#include "rhoflow/io/uncertain.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "rhoflow/core/errors.hpp"

using namespace rhoflow;

namespace {

std::string plain(double v, double e) { return format_uncertain(v, e, UncertainStyle::plain); }
std::string tex(double v, double e) { return format_uncertain(v, e, UncertainStyle::latex); }

}  // namespace

TEST_CASE("uncertain: the error keeps 2 digits for leading 100-354, 1 for 355-949, 950-999 rounds up to 10") {
    CHECK(plain(0.53740, 0.015) == "0.537 +/- 0.015");
    CHECK(plain(1.0, 0.0123) == "1.000 +/- 0.012");
    CHECK(plain(1.0, 0.354) == "1.00 +/- 0.35");
    CHECK(plain(1.0, 0.355) == "1.0 +/- 0.4");
    CHECK(plain(1.0, 0.0949) == "1.00 +/- 0.09");
    CHECK(plain(1.0, 0.0950) == "1.00 +/- 0.10");
    CHECK(plain(1.234, 0.0996) == "1.23 +/- 0.10");
    CHECK(plain(1.234, 0.96) == "1.2 +/- 1.0");
    CHECK(plain(1.0, 0.09996) == "1.00 +/- 0.10");  // three leading digits 100 after rounding
}

TEST_CASE("uncertain: the value is rounded to the error's last place, carrying when it must") {
    CHECK(plain(9.96, 0.05) == "9.96 +/- 0.05");
    CHECK(plain(9.96, 0.4) == "10.0 +/- 0.4");
    CHECK(plain(9.96, 0.3) == "9.96 +/- 0.30");  // 0.3 has leading digits 300: two digits
    CHECK(plain(0.0995, 0.0012) == "0.0995 +/- 0.0012");
    CHECK(plain(0.0995, 0.004) == "0.100 +/- 0.004");
    CHECK(plain(0.99996, 0.0004) == "1.0000 +/- 0.0004");
    CHECK(plain(99.96, 0.12) == "99.96 +/- 0.12");
    CHECK(plain(99.96, 0.5) == "100.0 +/- 0.5");
    // a constant column keeps its decimals fixed by the error: 0.061 next to 0.0626 cannot happen
    CHECK(plain(0.061, 0.0012) == "0.0610 +/- 0.0012");
}

TEST_CASE("uncertain: an error larger than the value, and a value rounding to zero, print without a sign") {
    CHECK(plain(0.04, 0.5) == "0.0 +/- 0.5");
    CHECK(plain(-0.04, 0.5) == "0.0 +/- 0.5");
    CHECK(plain(0.06, 0.5) == "0.1 +/- 0.5");
    CHECK(plain(-0.06, 0.5) == "-0.1 +/- 0.5");
    CHECK(plain(0.004, 0.3) == "0.00 +/- 0.30");
    CHECK(plain(0.2, 7.0) == "0 +/- 7");
    CHECK(plain(12345.0, 23.0) == "12345 +/- 23");
    CHECK(plain(123456.0, 2300.0) == "123500 +/- 2300");
    CHECK(plain(3.0, 12000.0) == "0 +/- 12000");
    CHECK(plain(0.0, 0.015) == "0.000 +/- 0.015");
}

TEST_CASE("uncertain: negative values get a real minus sign in LaTeX and Markdown, ASCII in plain text") {
    CHECK(tex(-0.5374, 0.015) == "$-0.537 \\pm 0.015$");
    CHECK(format_uncertain(-0.5374, 0.015, UncertainStyle::markdown) == "\u22120.537 \u00b1 0.015");
    CHECK(plain(-0.5374, 0.015) == "-0.537 +/- 0.015");
    CHECK(format_uncertain(-0.5374, 0.015, UncertainStyle::siunitx) ==
          "\\num[uncertainty-mode=separate]{-0.537(15)}");
    CHECK(format_uncertain(-9.96, 0.4, UncertainStyle::siunitx) == "\\num[uncertainty-mode=separate]{-10.0(4)}");
    CHECK(format_uncertain(1.234, 0.96, UncertainStyle::siunitx) == "\\num[uncertainty-mode=separate]{1.2(10)}");
}

TEST_CASE("uncertain: very small and very large numbers factor a power of ten out, never a C exponent") {
    CHECK(tex(6.85809e-05, 1.2e-06) == "$(6.86 \\pm 0.12) \\times 10^{-5}$");
    CHECK(plain(6.85809e-05, 1.2e-06) == "(6.86 +/- 0.12) x 10^-5");
    CHECK(format_uncertain(6.85809e-05, 1.2e-06, UncertainStyle::markdown) ==
          "(6.86 \u00b1 0.12) \u00d7 10\u207b\u2075");
    CHECK(format_uncertain(6.85809e-05, 1.2e-06, UncertainStyle::siunitx) ==
          "\\num[uncertainty-mode=separate]{6.86(12)e-5}");
    CHECK(tex(-1.5e7, 2e5) == "$(-1.500 \\pm 0.020) \\times 10^{7}$");
    CHECK(tex(1.0e-8, 3.0e-4) == "$(0.0 \\pm 3.0) \\times 10^{-4}$");
    // just inside the limits: no factor
    CHECK(plain(0.00123, 0.00012) == "0.00123 +/- 0.00012");
    CHECK(plain(999000.0, 1200.0) == "999000 +/- 1200");
    // the limits are options
    UncertainOptions o;
    o.min_exponent = -1;
    CHECK(format_uncertain(0.0123, 0.0012, UncertainStyle::plain, o) == "(1.23 +/- 0.12) x 10^-2");
    for (double v : {1e-300, 1e300, -4.9e-324})
        {
        const std::string s = tex(v, std::fabs(v) / 10);
        CHECK(s.find("e-") == std::string::npos);
        CHECK(s.find("e+") == std::string::npos);
    }
}

TEST_CASE("uncertain: error 0 is an exact value, printed alone with at most exact_digits digits") {
    CHECK(plain(10000.0, 0) == "10000");
    CHECK(tex(10000.0, 0) == "$10000$");
    CHECK(plain(0.1, 0) == "0.1");
    CHECK(plain(1.0 / 3.0, 0) == "0.333333");
    CHECK(plain(-2.5, 0) == "-2.5");
    CHECK(tex(-2.5, 0) == "$-2.5$");
    CHECK(plain(0.0, 0) == "0");
    CHECK(tex(2.0e-5, 0) == "$2 \\times 10^{-5}$");
    CHECK(format_exact(0.0025000000000000001, 6, UncertainStyle::plain) == "0.0025");
    CHECK(format_exact(3.14159265, 3, UncertainStyle::latex) == "$3.14$");
    CHECK(format_exact(-0.99996, 4, UncertainStyle::markdown) == "\u22121");
    CHECK(format_exact(1e4, 6, UncertainStyle::siunitx) == "\\num{10000}");
    CHECK_THROWS_AS(format_exact(1.0, 0, UncertainStyle::plain), InvalidArgument);
}

TEST_CASE("uncertain: NaN, infinities and negative errors are refused") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    CHECK_THROWS_AS(plain(nan, 0.1), NumericalError);
    CHECK_THROWS_AS(plain(0.5, nan), NumericalError);
    CHECK_THROWS_AS(plain(inf, 0.1), NumericalError);
    CHECK_THROWS_AS(plain(-inf, 0.1), NumericalError);
    CHECK_THROWS_AS(plain(0.5, inf), NumericalError);
    CHECK_THROWS_AS(plain(0.5, -0.1), NumericalError);
    CHECK_THROWS_AS(format_exact(nan, 6, UncertainStyle::latex), NumericalError);
}

TEST_CASE("uncertain: the rounded parts share one power of ten") {
    const RoundedUncertain r = round_to_error(-6.85809e-05, 1.2e-06);
    CHECK(r.negative);
    CHECK(r.value == "6.86");
    CHECK(r.error == "0.12");
    CHECK(r.exponent == -5);
    CHECK(to_string(r, UncertainStyle::plain) == "(-6.86 +/- 0.12) x 10^-5");
}
