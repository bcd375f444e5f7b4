// ODE integrator: accuracy tests on closed-form solutions of the same form d rho/dt =
// (1 - rho^2) j'(rho), then API tests.
#include "rhoflow/ode/ode.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/stats.hpp"
#include "test_util.hpp"

using namespace rhoflow;

namespace {
// j' = c: rho(t) = tanh(c t + atanh(rho0)).
DriftField constant_field(double c) {
    return DriftField::from_functions([c](double) { return c; }, [](double) { return 0.0; }, 0.0, "const");
}
// j' = c rho: rho(t) = rho0 e^{ct} / sqrt(1 - rho0^2 + rho0^2 e^{2ct}) (repeller at 0).
DriftField linear_field(double c) {
    return DriftField::from_functions([c](double r) { return c * r; }, [c](double) { return c; }, 0.0, "linear");
}
double linear_exact(double c, double r0, double t) {
    const double e = std::exp(c * t);
    return r0 * e / std::sqrt(1 - r0 * r0 + r0 * r0 * e * e);
}
}  // namespace

TEST_CASE("ode accuracy: closed-form solutions to the tolerance, with honest error estimates") {
    const auto times = linear_grid(20.0, 201);
    for (double rtol : {1e-6, 1e-8, 1e-10}) {
        CAPTURE(rtol);
        OdeParams p;
        p.rtol = rtol;
        p.atol = rtol * 1e-2;
        const OdeSolution s = solve_ode(constant_field(0.7), -0.4, times, p);
        const OdeSolution q = solve_ode(linear_field(1.3), 0.05, times, p);
        for (std::size_t i = 0; i < times.size(); ++i) {
            const double e1 = std::abs(s.rho[i] - std::tanh(0.7 * times[i] + std::atanh(-0.4)));
            const double e2 = std::abs(q.rho[i] - linear_exact(1.3, 0.05, times[i]));
            // Global error stays within a modest multiple of the per-step tolerance here (the
            // flows contract near their attractor), and the estimate covers it.
            CHECK(e1 <= 50 * rtol);
            CHECK(e2 <= 50 * rtol);
            CHECK(e1 <= 1.01 * s.rho_err[i] + 1e-15);
            CHECK(e2 <= 1.01 * q.rho_err[i] + 1e-15);
        }
    }
}

TEST_CASE("ode accuracy: the error falls as the tolerance is tightened (about proportionally)") {
    const auto times = linear_grid(10.0, 101);
    std::vector<double> log_tol, log_err;
    double previous = 1.0;
    for (double rtol : {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10}) {
        OdeParams p;
        p.rtol = rtol;
        p.atol = rtol * 1e-2;
        p.error_estimate = false;
        const OdeSolution q = solve_ode(linear_field(1.3), 0.05, times, p);
        double worst = 0;
        for (std::size_t i = 0; i < times.size(); ++i)
            worst = std::max(worst, std::abs(q.rho[i] - linear_exact(1.3, 0.05, times[i])));
        CHECK(worst < previous);
        previous = worst;
        log_tol.push_back(std::log10(rtol));
        log_err.push_back(std::log10(worst));
    }
    // Dormand-Prince with per-step error control: global error ~ C tol^k with k near 1 (the
    // step size scales like tol^(1/5) and the local error like step^5). Accept 0.8 .. 1.25.
    const LineFit fit = fit_line(log_tol, log_err);
    CAPTURE(fit.slope);
    CHECK(fit.slope > 0.8);
    CHECK(fit.slope < 1.25);
}

TEST_CASE("ode accuracy: hitting time from the dense output, not from the grid") {
    // Only two output times, so a grid-based answer would be off by O(t_end).
    const double c = 0.5, r0 = 0.05, eps = 0.01;
    OdeParams p;
    p.hit_eps = eps;
    const OdeSolution s = solve_ode(constant_field(c), r0, {0.0, 100.0}, p);
    REQUIRE(s.hit_time.has_value());
    const double exact = (std::atanh(1 - eps) - std::atanh(r0)) / c;
    CHECK(std::abs(*s.hit_time - exact) < 1e-8);
    CHECK(std::abs(*s.hit_time - exact) <= 1.01 * s.hit_time_err + 1e-12);
    // Negative side: |rho| is what counts.
    const OdeSolution n = solve_ode(constant_field(-c), -r0, {0.0, 100.0}, p);
    REQUIRE(n.hit_time.has_value());
    CHECK(std::abs(*n.hit_time - exact) < 1e-8);
    // Not reached within the horizon: no hitting time.
    CHECK_FALSE(solve_ode(constant_field(c), r0, {0.0, 1.0}, p).hit_time.has_value());
}

TEST_CASE("ode accuracy: the field's error bound propagates into rho_err") {
    // A field known only to +-delta in j': the estimate must cover the solution of j' + delta.
    const double delta = 1e-6;
    const DriftField f = DriftField::from_functions([](double) { return 0.5; }, [](double) { return 0.0; },
                                                    delta, "uncertain");
    const auto times = linear_grid(5.0, 6);
    const OdeSolution s = solve_ode(f, 0.1, times, {});
    for (std::size_t i = 1; i < times.size(); ++i) {
        const double shifted = std::tanh((0.5 + delta) * times[i] + std::atanh(0.1));
        CHECK(std::abs(shifted - s.rho[i]) <= 1.01 * s.rho_err[i]);
    }
}

TEST_CASE("ode api: equilibria stay put, output at t = 0 is rho0, counts are reported") {
    const OdeSolution s = solve_ode(constant_field(1.0), 1.0, {0.0, 1.0, 2.0}, {});
    CHECK(s.rho[0] == 1.0);
    CHECK(s.rho[2] == 1.0);
    CHECK(s.hit_time.value() == 0.0);
    const OdeSolution q = solve_ode(linear_field(1.0), 0.0, {0.0, 5.0}, {});
    CHECK(q.rho[1] == 0.0);
    CHECK(q.steps > 0);
    CHECK(q.rhs_evals >= 6 * q.steps);
}

TEST_CASE("ode api: invalid input names the parameter") {
    const DriftField f = constant_field(1.0);
    CHECK(test::invalid_param([&] { solve_ode(f, 1.5, {0.0, 1.0}); }) == "rho0");
    CHECK(test::invalid_param([&] { solve_ode(f, 0.5, {1.0, 0.5}); }) == "times");
    OdeParams p;
    p.rtol = 0;
    CHECK(test::invalid_param([&] { solve_ode(f, 0.5, {0.0, 1.0}, p); }) == "rtol");
    p = {};
    p.hit_eps = 1.0;
    CHECK(test::invalid_param([&] { solve_ode(f, 0.5, {0.0, 1.0}, p); }) == "hit_eps");
    CHECK(test::invalid_param([&] { linear_grid(-1.0, 10); }) == "t_end");
    CHECK(test::invalid_param([&] { linear_grid(1.0, 1); }) == "points");
}
