// The vector Gauss-Kronrod panel (31-point Kronrod, embedded 15-point Gauss): exact for
// polynomials up to the rule's degree, |K - G| small for smooth and large for non-smooth
// integrands, L1 the Kronrod estimate of the integral of |f|; every component as Boost's own
// single-panel driver computes it.
#include "rhoflow/core/detail/gauss_kronrod_vector.hpp"

#include <doctest/doctest.h>

#include <array>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <numbers>

using rhoflow::detail::gauss_kronrod_panel;

namespace {
// Integral of x^k over [a, b].
double monomial_integral(int k, double a, double b) {
    return (std::pow(b, k + 1) - std::pow(a, k + 1)) / (k + 1);
}
}  // namespace

TEST_CASE("gauss-kronrod panel: polynomials up to degree 47 (Kronrod) and 29 (Gauss) to rounding") {
    // 15 Gauss points: exact through degree 29. 31 Kronrod points (n = 15 odd): through 3n + 2 = 47.
    const double a = -0.7, b = 1.3;  // asymmetric: odd and even powers both matter
    for (int k = 0; k <= 47; ++k) {
        CAPTURE(k);
        const auto p = gauss_kronrod_panel<31, 1>([k](double x, std::array<double, 1>& out) { out[0] = std::pow(x, k); },
                                                  a, b);
        const double exact = monomial_integral(k, a, b);
        // Rounding: a few ulps of the L1 norm (the sum of |w_i f(x_i)|).
        CHECK(std::abs(p.K[0] - exact) <= 1e-14 * p.L1[0]);
        if (k <= 29) CHECK(std::abs(p.G[0] - exact) <= 1e-14 * p.L1[0]);
    }
    // And not beyond: degree 30 already separates Gauss from the exact value. For f = x^30 the
    // error of the 15-point Gauss rule is exactly (b-a)^31 (15!)^4 / (31 (30!)^3) f^(30), with
    // f^(30) = 30!: 6.1827 on [-2, 2], far above rounding (the integral, 1.4e8, has ulps of 3e-8).
    const auto p30 = gauss_kronrod_panel<31, 1>([](double x, std::array<double, 1>& out) { out[0] = std::pow(x, 30); },
                                                -2.0, 2.0);
    const double exact30 = monomial_integral(30, -2.0, 2.0);
    const double gauss_error = std::exp(31 * std::log(4.0) + 4 * std::lgamma(16.0) - std::log(31.0) - 2 * std::lgamma(31.0));
    CHECK(std::abs(p30.K[0] - exact30) <= 1e-14 * p30.L1[0]);
    CHECK(exact30 - p30.G[0] == doctest::Approx(gauss_error).epsilon(1e-6));
    CHECK(std::abs(p30.K[0] - p30.G[0]) == doctest::Approx(gauss_error).epsilon(1e-6));
}

TEST_CASE("gauss-kronrod panel: all components at once, each as Boost's single-panel driver") {
    auto f = [](double x, std::array<double, 3>& out) {
        out[0] = std::exp(x);
        out[1] = std::sin(3 * x);
        out[2] = std::abs(x - 0.3);
    };
    const double a = -1, b = 2;
    const auto p = gauss_kronrod_panel<31, 3>(f, a, b);
    CHECK(p.a == a);
    CHECK(p.b == b);
    for (std::size_t c = 0; c < 3; ++c) {
        CAPTURE(c);
        auto fc = [&](double x) {
            std::array<double, 3> o{};
            f(x, o);
            return o[c];
        };
        double err = 0, L1 = 0;
        const double K = boost::math::quadrature::gauss_kronrod<double, 31>::integrate(fc, a, b, 0, 0.0, &err, &L1);
        CHECK(p.K[c] == doctest::Approx(K).epsilon(1e-14));
        CHECK(p.L1[c] == doctest::Approx(L1).epsilon(1e-14));
        // (Boost 1.74 reports the single-panel |K - G| in units of the reference interval
        // [-1, 1], so its `err` is not compared: the closed-form tests cover K - G.)
        (void)err;
    }
}

TEST_CASE("gauss-kronrod panel: |K - G| is tiny for a smooth integrand and large for a kink") {
    auto f = [](double x, std::array<double, 2>& out) {
        out[0] = std::exp(x);            // entire: Gauss-15 error ~ 1e-40 on [-1, 1]
        out[1] = std::abs(x - 0.3);      // kink inside the panel
    };
    const auto p = gauss_kronrod_panel<31, 2>(f, -1.0, 1.0);
    const double e_exact = std::exp(1.0) - std::exp(-1.0);
    CHECK(std::abs(p.K[0] - e_exact) <= 4e-16 * e_exact);
    CHECK(std::abs(p.K[0] - p.G[0]) <= 4e-16 * e_exact);
    const double kink_exact = (1.3 * 1.3 + 0.7 * 0.7) / 2;  // 1.09
    const double est = std::abs(p.K[1] - p.G[1]);
    CHECK(est > 1e-5);                                      // the estimate sees the kink
    CHECK(std::abs(p.K[1] - kink_exact) > 1e-8);            // which is real: K is not exact
    CHECK(std::abs(p.K[1] - kink_exact) <= est);            // and the estimate covers it
}

TEST_CASE("gauss-kronrod panel: L1 is the Kronrod integral of |f| for a sign-changing f") {
    // f = sin(3x) on [-1, 2] changes sign at 0 and pi/3.
    auto f = [](double x, std::array<double, 2>& out) {
        out[0] = std::sin(3 * x);
        out[1] = std::abs(std::sin(3 * x));
    };
    const double a = -1, b = 2;
    const auto p = gauss_kronrod_panel<31, 2>(f, a, b);
    // The same rule applied to |f|, bit for bit.
    CHECK(p.L1[0] == p.K[1]);
    CHECK(p.L1[1] == p.K[1]);  // |f| >= 0: its L1 is its integral
    // Close to the true integral of |sin 3x|, computed piecewise: over [-1, 0]: (1 - cos 3)/3;
    // over [0, pi/3]: 2/3; over [pi/3, 2]: (1 + cos 6)/3. (The kinks of |f| at 0 and pi/3 limit
    // the rule's accuracy to about 1e-2 here.)
    const double abs_exact = (1 - std::cos(3.0)) / 3 + 2.0 / 3 + (1 + std::cos(6.0)) / 3;
    CHECK(std::abs(p.L1[0] - abs_exact) < 1e-2);
    // The signed integral: (cos(-3) - cos 6)/3, exact to rounding (smooth).
    CHECK(std::abs(p.K[0] - (std::cos(-3.0) - std::cos(6.0)) / 3) < 1e-15);
    CHECK(p.L1[0] > std::abs(p.K[0]) + 0.5);
    // An odd f with a smooth |f| (x^15, |x|^15 is C^14): K = 0 to rounding, L1 = 2/16.
    const auto q = gauss_kronrod_panel<31, 1>([](double x, std::array<double, 1>& out) { out[0] = std::pow(x, 15); },
                                              -1.0, 1.0);
    CHECK(std::abs(q.K[0]) < 1e-16);
    CHECK(q.L1[0] == doctest::Approx(0.125).epsilon(1e-6));
}
