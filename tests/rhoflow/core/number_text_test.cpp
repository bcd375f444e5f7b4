// parse_number: the grammar of std::from_chars over the whole text, strtod's rounding beyond the
// range of double, and no dependence on the C locale (issue 30, H1 and H14).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "rhoflow/core/number_text.hpp"
#include "rhoflow/io/io_test_util.hpp"

using rhoflow::parse_number;

TEST_CASE("parse_number: whole decimal texts, strtod's rounding out of range, nothing for the rest") {
    CHECK(parse_number("0.5") == 0.5);
    CHECK(parse_number("-0.12") == -0.12);
    CHECK(parse_number("+2") == 2.0);
    CHECK(parse_number("1e-3") == 1e-3);
    CHECK(parse_number("1e-308") == 1e-308);  // subnormal: a number, as the settings read it
    CHECK(parse_number("4e-320") == 4e-320);
    CHECK(parse_number("1e-400") == 0.0);
    CHECK(std::signbit(*parse_number("-1e-400")));
    CHECK(parse_number("1e400") == std::numeric_limits<double>::infinity());
    CHECK(parse_number("-1.5e400") == -std::numeric_limits<double>::infinity());
    for (const char* bad : {"", "+", "+-1", "1,5", " 1", "1 ", "0x10", "1e", "abc", "1.5.2"}) {
        CAPTURE(bad);
        CHECK_FALSE(parse_number(bad).has_value());
    }
}

TEST_CASE("parse_number: the same under a decimal-comma C locale") {
    const auto dir = rhoflow::test::comma_locale_path();
    REQUIRE_MESSAGE(dir, "localedef could not build de_DE.UTF-8 (Debian package `locales`)");
    rhoflow::test::CommaLocale comma(*dir);
    CHECK(parse_number("0.5") == 0.5);
    CHECK(parse_number("-1.5e-400") == 0.0);  // the out-of-range path (strtod_l in "C")
    CHECK(parse_number("1.5e400") == std::numeric_limits<double>::infinity());
    CHECK_FALSE(parse_number("0,5").has_value());
}
