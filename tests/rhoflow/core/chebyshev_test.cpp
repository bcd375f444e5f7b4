#include "rhoflow/core/chebyshev.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace rhoflow;

namespace {
Chebyshev::BatchFunction batch(double (*f)(double)) {
    return [f](const std::vector<double>& x, std::vector<double>& y) {
        y.resize(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) y[i] = f(x[i]);
    };
}
double runge(double x) { return 1.0 / (1.0 + 25.0 * x * x); }
double runge_d(double x) { return -50.0 * x / ((1.0 + 25.0 * x * x) * (1.0 + 25.0 * x * x)); }
double expo(double x) { return std::exp(3 * x); }
double cubic(double x) { return 2 * x * x * x - x + 0.5; }
}  // namespace

TEST_CASE("chebyshev: a polynomial is reproduced exactly") {
    const Chebyshev c = Chebyshev::fit(batch(cubic), 1e-14);
    for (double x : {-1.0, -0.3, 0.2, 0.77, 1.0}) CHECK(c(x) == doctest::Approx(cubic(x)).epsilon(1e-14));
    CHECK(c.degree() <= 4);
    const Chebyshev d = c.derivative();
    for (double x : {-0.9, 0.1, 0.6}) CHECK(d(x) == doctest::Approx(6 * x * x - 1).epsilon(1e-13));
}

TEST_CASE("chebyshev: the error bound covers the actual error (exp and Runge's function)") {
    for (auto [f, name] : {std::pair{&expo, "exp(3x)"}, std::pair{&runge, "1/(1+25x^2)"}}) {
        CAPTURE(name);
        const Chebyshev c = Chebyshev::fit(batch(f), 1e-13);
        CHECK(c.converged());
        CHECK(c.error_bound() < 1e-11);
        double worst = 0;
        for (int k = 0; k <= 2000; ++k) {
            const double x = -1.0 + k / 1000.0;
            worst = std::max(worst, std::abs(c(x) - f(x)));
        }
        CHECK(worst <= c.error_bound());
    }
}

TEST_CASE("chebyshev: derivative of a fit (Runge's function, poles at +-i/5)") {
    const Chebyshev c = Chebyshev::fit(batch(runge), 1e-14);
    const Chebyshev d = c.derivative();
    double worst = 0;
    for (int k = 0; k <= 400; ++k) {
        const double x = -1.0 + k / 200.0;
        worst = std::max(worst, std::abs(d(x) - runge_d(x)));
    }
    CHECK(worst <= d.error_bound());
    CHECK(worst < 1e-9);
}

TEST_CASE("chebyshev: nested Lobatto grids reuse every earlier point") {
    const auto x8 = Chebyshev::lobatto_points(8);
    const auto add = Chebyshev::lobatto_refinement(8);
    const auto x16 = Chebyshev::merge_refinement(x8, add);
    const auto direct = Chebyshev::lobatto_points(16);
    REQUIRE(x16.size() == direct.size());
    for (std::size_t i = 0; i < direct.size(); ++i) CHECK(x16[i] == doctest::Approx(direct[i]).epsilon(1e-15));
}

TEST_CASE("chebyshev: an unresolvable function is reported as not converged") {
    const Chebyshev c = Chebyshev::fit(
        [](const std::vector<double>& x, std::vector<double>& y) {
            y.resize(x.size());
            for (std::size_t i = 0; i < x.size(); ++i) y[i] = std::abs(x[i] - 0.1234);  // kink
        },
        1e-13, 129);
    CHECK_FALSE(c.converged());
    CHECK(c.error_bound() > 1e-4);
}
