#include "rhoflow/model/model.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "rhoflow/core/errors.hpp"
#include "test_util.hpp"

using namespace rhoflow;

namespace {
// The parameter named by the InvalidArgument that `m.validate()` throws ("" if none).
std::string offending(const ModelParams& m) { return test::invalid_param([&] { m.validate(); }); }
}  // namespace

TEST_CASE("model: defaults are valid and describe themselves") {
    ModelParams m;
    CHECK(offending(m).empty());
    CHECK(m.N() == 900);
    CHECK(m.alpha() == doctest::Approx(0.1));
    CHECK(describe(m) == "d = 50, L = 1000, R = 100, theta = 1, sigma = 1, beta = 1");
}

TEST_CASE("model: every parameter out of range is named") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    auto with = [](auto f) { ModelParams m; f(m); return m; };
    CHECK(offending(with([](ModelParams& m) { m.d = 1; })) == "d");
    CHECK(offending(with([](ModelParams& m) { m.L = 0; })) == "L");
    CHECK(offending(with([](ModelParams& m) { m.R = -1; })) == "R");
    CHECK(offending(with([](ModelParams& m) { m.R = 1001; })) == "R");
    CHECK(offending(with([&](ModelParams& m) { m.theta = -0.1; })) == "theta");
    CHECK(offending(with([&](ModelParams& m) { m.theta = nan; })) == "theta");
    CHECK(offending(with([&](ModelParams& m) { m.theta = inf; })) == "theta");
    CHECK(offending(with([&](ModelParams& m) { m.sigma = 0; })) == "sigma");
    CHECK(offending(with([&](ModelParams& m) { m.sigma = nan; })) == "sigma");
    CHECK(offending(with([&](ModelParams& m) { m.beta = 0; })) == "beta");
    CHECK(offending(with([&](ModelParams& m) { m.beta = inf; })) == "beta");
}

TEST_CASE("model: messages give the value and the accepted range") {
    ModelParams m;
    m.R = 1200;
    try {
        m.validate();
        FAIL("no exception");
    } catch (const InvalidArgument& e) {
        CHECK(std::string(e.what()) == "R = 1200 is out of range (accepted: integer 0 <= R <= L = 1000)");
    }
    CHECK_THROWS_AS(validate_rho(1.0000001), InvalidArgument);
    CHECK_THROWS_AS(validate_rho(std::nan("")), InvalidArgument);
    CHECK_NOTHROW(validate_rho(-1.0));
}

TEST_CASE("model: unit-norm noise convention divides sigma by sqrt(d)") {
    auto m = ModelParams::with_noise(100, 10, 2, 1.0, 1.0, 1.0, NoiseConvention::per_norm);
    CHECK(m.sigma == doctest::Approx(0.1));
    auto k = ModelParams::with_noise(100, 10, 2, 1.0, 0.5, 1.0, NoiseConvention::per_coordinate);
    CHECK(k.sigma == 0.5);
}
