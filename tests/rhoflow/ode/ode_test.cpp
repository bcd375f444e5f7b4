// ODE integrator: accuracy tests on closed-form solutions of the same form d rho/dt =
// (1 - rho^2) j'(rho), then API tests.
#include "rhoflow/ode/ode.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
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
// The two closed-form flows of the accuracy tests: j' = 0.7 from -0.4 (rho = tanh(0.7 t + atanh(-0.4)))
// and j' = 1.3 rho from 0.05 (linear_exact), solved at rtol (atol = rtol / 100).
double tanh_exact(double t) { return std::tanh(0.7 * t + std::atanh(-0.4)); }
std::pair<OdeSolution, OdeSolution> closed_form_flows(const std::vector<double>& times, double rtol) {
    OdeParams p;
    p.rtol = rtol;
    p.atol = rtol * 1e-2;
    return {solve_ode(constant_field(0.7), -0.4, times, p), solve_ode(linear_field(1.3), 0.05, times, p)};
}
}  // namespace

TEST_CASE("ode accuracy: closed-form solutions to the tolerance, with honest error estimates") {
    const auto times = linear_grid(20.0, 201);
    for (double rtol : {1e-6, 1e-8, 1e-10}) {
        CAPTURE(rtol);
        const auto [s, q] = closed_form_flows(times, rtol);
        for (std::size_t i = 0; i < times.size(); ++i) {
            const double e1 = std::abs(s.rho[i] - tanh_exact(times[i]));
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

TEST_CASE("ode accuracy: the dense solution between the samples, within its own error estimate") {
    // Few requested times, so nearly every query falls between them and inside a step.
    const double t_end = 20.0;
    const auto times = linear_grid(t_end, 5);
    for (double rtol : {1e-6, 1e-8, 1e-10}) {
        CAPTURE(rtol);
        const auto [s, q] = closed_form_flows(times, rtol);
        for (const auto* sol : {&s, &q}) {
            const bool linear = sol == &q;
            double worst = 0, worst_est = 0;
            std::vector<std::pair<double, double>> errs;  // (true error, estimate)
            for (int i = 0; i < 3000; ++i) {
                const double t = t_end * (i + 0.377) / 3000;
                const OdePoint at = sol->sol(t);
                const double exact = linear ? linear_exact(1.3, 0.05, t) : tanh_exact(t);
                const double e = std::abs(at.rho - exact);
                CAPTURE(t);
                CHECK(e <= at.err + 4e-16);  // covered, up to the rounding of the comparison
                worst = std::max(worst, e);
                worst_est = std::max(worst_est, at.err);
                errs.emplace_back(e, at.err);
            }
            // Not absurdly loose: within 1e3 x wherever the true error is significant (above
            // rounding and above 1e-3 of its largest, away from where the error changes sign).
            for (const auto& [e, est] : errs)
                if (e > 1e-14 && e > 1e-3 * worst) CHECK(est <= 1e3 * e);
            CHECK(worst_est <= 100 * worst);
        }
    }
}

TEST_CASE("ode accuracy: the dense solution is the samples' interpolant (degree 5, held exactly)") {
    const auto times = linear_grid(10.0, 101);
    const OdeSolution q = solve_ode(linear_field(1.3), 0.05, times, {});
    REQUIRE(q.sol.t_end == 10.0);
    for (std::size_t i = 0; i < times.size(); ++i) {
        CAPTURE(times[i]);
        CHECK(std::abs(q.sol(times[i]).rho - q.rho[i]) <= 2e-15);  // rounding, not the O(h^5) of another interpolant
    }
    // Continuous across the steps' ends (the interpolants meet), and exact at t = 0.
    const OdeInterpolant& d = q.sol.rho;
    REQUIRE(d.t.size() > 10);
    for (std::size_t k = 1; k + 1 < d.t.size(); ++k) {
        const double below = std::nextafter(d.t[k], 0.0), above = std::nextafter(d.t[k], 1e9);
        CHECK(std::abs(d.at(below) - d.at(above)) <= 1e-14);
    }
    CHECK(q.sol(0.0).rho == 0.05);
    CHECK(q.sol(0.0).err == 0.0);
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

namespace {
// j' = 1 below rho = 0.5 and NaN above: the solve fails once rho passes 0.5.
DriftField nan_above_half() {
    return DriftField::from_functions([](double r) { return r < 0.5 ? 1.0 : std::nan(""); },
                                      [](double) { return 0.0; }, 0.0, "nan");
}
}  // namespace

TEST_CASE("ode api: too many steps is a status with a message, the samples up to it kept") {
    const auto times = linear_grid(20.0, 41);
    const OdeSolution full = solve_ode(linear_field(1.3), 0.05, times, {});
    REQUIRE(full.status == OdeStatus::success);
    CHECK(full.message.empty());
    OdeOptions o;
    o.max_steps = full.steps / 2;
    const OdeSolution s = try_solve_ode(linear_field(1.3), 0.05, times, {}, o);
    CHECK(s.status == OdeStatus::too_many_steps);
    CHECK(s.message.find(std::to_string(o.max_steps) + " steps (max_steps)") != std::string::npos);
    CHECK(s.steps == o.max_steps);
    REQUIRE(s.rho.size() > 1);
    REQUIRE(s.rho.size() < times.size());
    CHECK(s.t.size() == s.rho.size());
    CHECK(s.rho_err == std::vector<double>(s.rho.size(), 0.0));  // no error estimate after a failure
    for (std::size_t i = 0; i < s.rho.size(); ++i) CHECK(s.rho[i] == full.rho[i]);  // the same steps so far
    // The dense solution covers what was integrated, and no more.
    CHECK(s.sol.t_end >= s.t.back());
    CHECK(s.sol.t_end < times[s.rho.size()]);
    CHECK(std::abs(s.sol(s.sol.t_end).rho - full.sol(s.sol.t_end).rho) < 1e-9);
    CHECK(test::invalid_param([&] { s.sol(std::nextafter(s.sol.t_end, 1e9)); }) == "t");
    // solve_ode throws it as a NumericalError with the same message.
    try {
        solve_ode(linear_field(1.3), 0.05, times, {}, o);
        FAIL("no exception");
    } catch (const NumericalError& e) {
        CHECK(std::string(e.what()) == s.message);
    }
    CHECK_THROWS_AS(throw_if_failed(s), NumericalError);
    CHECK(&throw_if_failed(full) == &full);
    // The budget is per solve: enough for the main one but not for the error estimate's tighter
    // one keeps all samples and says which solve ran out.
    o.max_steps = full.steps;
    const OdeSolution e = try_solve_ode(linear_field(1.3), 0.05, times, {}, o);
    CHECK(e.status == OdeStatus::too_many_steps);
    CHECK(e.message.find("(in a solve for the error estimate)") != std::string::npos);
    CHECK(e.rho == full.rho);
    o.max_steps = 10 * full.steps;
    CHECK(try_solve_ode(linear_field(1.3), 0.05, times, {}, o).status == OdeStatus::success);
}

TEST_CASE("ode api: a field returning NaN is a status, with today's message, the samples before it kept") {
    const auto times = linear_grid(2.0, 21);
    const OdeSolution s = try_solve_ode(nan_above_half(), 0.1, times, {});
    CHECK(s.status == OdeStatus::non_finite);
    CHECK(s.message == "ODE: the solution became non-finite");
    REQUIRE(s.rho.size() > 2);
    REQUIRE(s.rho.size() < times.size());
    const double reach = std::atanh(0.5) - std::atanh(0.1);  // where rho = tanh(t + atanh 0.1) passes 0.5
    for (std::size_t i = 0; i < s.rho.size(); ++i) {
        CHECK(s.t[i] < reach);
        CHECK(std::abs(s.rho[i] - std::tanh(s.t[i] + std::atanh(0.1))) < 1e-9);
    }
    CHECK(s.sol.t_end <= reach + 0.2);
    CHECK(std::isfinite(s.sol(s.sol.t_end).rho));
    try {
        solve_ode(nan_above_half(), 0.1, times, {});
        FAIL("no exception");
    } catch (const NumericalError& e) {
        CHECK(std::string(e.what()) == "ODE: the solution became non-finite");
    }
}

TEST_CASE("ode api: the observer sees every requested time in order, with the samples' values") {
    const std::vector<double> times = {0.0, 0.0, 0.5, 0.5, 1.0, 3.0, 3.0001, 10.0};
    std::vector<std::pair<double, double>> seen;
    OdeOptions o;
    o.observer = [&](double t, double rho) { seen.emplace_back(t, rho); };
    const OdeSolution s = solve_ode(linear_field(1.3), 0.05, times, {}, o);
    REQUIRE(seen.size() == times.size());
    for (std::size_t i = 0; i < times.size(); ++i) {
        CHECK(seen[i].first == times[i]);
        CHECK(seen[i].second == s.rho[i]);
    }
    // Only the main solve is observed (not the error estimate's), and a failed one up to its failure.
    seen.clear();
    const OdeSolution f = try_solve_ode(nan_above_half(), 0.1, linear_grid(2.0, 21), {}, o);
    REQUIRE(seen.size() == f.rho.size());
    for (std::size_t i = 0; i < seen.size(); ++i) CHECK(seen[i].second == f.rho[i]);
}

TEST_CASE("ode api: the dense solution's range, without an error estimate, and read back from JSON") {
    OdeParams p;
    p.error_estimate = false;
    const OdeSolution s = solve_ode(constant_field(0.7), -0.4, {0.0, 5.0}, p);
    CHECK(s.sol(2.5).err == 0.0);
    CHECK(std::abs(s.sol(2.5).rho - std::tanh(0.7 * 2.5 + std::atanh(-0.4))) < 1e-8);
    CHECK(test::invalid_param([&] { s.sol(-1e-9); }) == "t");
    CHECK(test::invalid_param([&] { s.sol(5.0 + 1e-9); }) == "t");
    // Only requested times at 0: the dense solution is the start.
    const OdeSolution z = solve_ode(constant_field(0.7), -0.4, {0.0}, {});
    CHECK(z.sol(0.0).rho == -0.4);
    CHECK(z.steps == 0);
    // Not serialised: a copy through JSON has none.
    OdeSolution back;
    from_json(nlohmann::json(s), back);
    CHECK(back.sol.empty());
    CHECK(test::invalid_param([&] { back.sol(1.0); }) == "t");
}
