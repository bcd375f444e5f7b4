// Effective dynamics: the one-step moment tables against the exact leading order, and the
// effective chain against an autoregression with known moments.
#include "rhoflow/effective/effective.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/field/gradient_moments.hpp"
#include "rhoflow/effective/explain_gap.hpp"
#include "rhoflow/effective/step_moments.hpp"

using namespace rhoflow;

TEST_CASE("step moments: at a small step, (a - F)/eta and v match the exact B and Sigma") {
    // eta = 1e-3: a = F + eta B + O(eta^2), v = Sigma + O(eta). The table's a and v carry standard
    // errors; each node must agree within 4 SE plus a bound on the O(eta) remainder (|B| eta
    // for v, generous; c2 eta^2 with |c2| <= 30 for a, from the eta = 0.01 and 0.04 tables).
    // With 9 nodes x 2 quantities x 2 rules, a correct code fails with probability about 0.2%.
    const ModelParams m{50, 1000, 100, 1.0, 1.0, 1.0};
    const DriftField F = DriftField::exact(m);
    const double eta = 1e-3;
    for (const UpdateRule rule : {UpdateRule::normalized, UpdateRule::tangent}) {
        const StepMomentTable t = measure_step_moments(m, F, eta, rule, {8, 4000, 11, 0});
        for (const auto& n : t.nodes) {
            if (std::abs(n.rho) == 1.0) continue;  // Sigma = 0 there; checked by the rounding below
            const OneStepExpansion x = one_step_expansion(m, n.rho, rule);
            CAPTURE(n.rho);
            CHECK(std::abs(n.F - x.F) < 1e-10);
            CHECK(std::abs(n.a - (x.F + eta * x.B)) < 4 * n.a_err + 30 * eta * eta);
            CHECK(std::abs(n.v - x.Sigma) < 4 * n.v_err + std::abs(x.B) * eta);
        }
    }
}

TEST_CASE("effective chain: a linear drift and constant variance give the AR(1) mean and spread") {
    // With F = 0 and a table whose a is -kappa (rho - m) and v constant, the effective chain is
    // rho_{k+1} = rho_k - eta kappa (rho_k - m) + eta sqrt(v) Z: an AR(1) whose mean and variance
    // at step k are known exactly.
    const double kappa = 1.5, mu = 0.2, v = 0.8, eta = 0.02, rho0 = -0.3;
    const DriftField zero = DriftField::from_functions([](double) { return 0.0; }, [](double) { return 0.0; }, 0.0, "zero");
    StepMomentTable t;
    t.eta = eta;
    for (double r : Chebyshev::lobatto_points(16)) t.nodes.push_back({r, 0.0, -kappa * (r - mu), 0.0, v, 0.0});
    const EffectiveDrift D(zero, {t});
    CHECK(D.a(0.7, eta) == doctest::Approx(-kappa * (0.7 - mu)).epsilon(1e-12));
    CHECK(D.v(-0.1, eta) == doctest::Approx(v).epsilon(1e-12));
    const std::int64_t K = 400;
    PredictionParams pp;
    pp.paths = 20000;
    pp.seed = 5;
    const EffectivePrediction p = predict_ensemble(D, StepSchedule{eta, 1.0, 0.0}, K, {0, 50, K}, rho0, 10, 0.01, pp);
    const double phi = 1 - eta * kappa;
    for (const auto& r : p.records) {
        const double k = static_cast<double>(r.step);
        const double mean = mu + (rho0 - mu) * std::pow(phi, k);
        const double var = eta * eta * v * (1 - std::pow(phi, 2 * k)) / (1 - phi * phi);
        CAPTURE(r.step);
        CHECK(std::abs(r.rho.mean - mean) < 4 * r.rho.se + 1e-12);  // false alarm ~6e-5 per row
        const double sd = r.rho.se * std::sqrt(static_cast<double>(r.rho.n));
        CHECK(sd == doctest::Approx(std::sqrt(var)).epsilon(0.03));  // 20000 paths: sd to ~0.5%
        CHECK(r.t == doctest::Approx(eta * k).epsilon(1e-12));
    }
    // The effective ODE is the noise-free recursion's limit: m + (rho0 - m) e^{-kappa t}.
    const auto ode = solve_effective_ode(D, StepSchedule{eta, 1.0, 0.0}, K, rho0, {1.0, 4.0});
    CHECK(ode[0] == doctest::Approx(mu + (rho0 - mu) * std::exp(-kappa * 1.0)).epsilon(1e-6));
    CHECK(ode[1] == doctest::Approx(mu + (rho0 - mu) * std::exp(-kappa * 4.0)).epsilon(1e-6));
}

TEST_CASE("effective equilibria: the roots of a and their stability") {
    // a(rho) = (rho - 0.2)(rho - 0.8)(-1): attracting at 0.8, repelling at 0.2.
    const DriftField zero = DriftField::from_functions([](double) { return 0.0; }, [](double) { return 0.0; }, 0.0, "zero");
    StepMomentTable t;
    t.eta = 0.01;
    for (double r : Chebyshev::lobatto_points(16))
        t.nodes.push_back({r, 0.0, -(r - 0.2) * (r - 0.8), 1e-6, 0.5, 0.0});
    const auto eq = effective_equilibria(EffectiveDrift(zero, {t}), 0.01);
    REQUIRE(eq.size() == 2);
    CHECK(eq[0].rho == doctest::Approx(0.2).epsilon(1e-10));
    CHECK(eq[0].kind == EquilibriumKind::repeller);
    CHECK(eq[1].rho == doctest::Approx(0.8).epsilon(1e-10));
    CHECK(eq[1].kind == EquilibriumKind::attractor);
    CHECK(eq[1].slope == doctest::Approx(-0.6).epsilon(1e-6));
}

TEST_CASE("effective equilibria: two roots inside one scan cell are found (the phase portrait's scan)") {
    // a(rho) = (rho - 0.3001)(rho - 0.3003): both roots lie in the scan cell [0.3, 0.3005] of the
    // default 4000 cells, where a has no sign change on the grid; a scan of sign changes alone
    // finds neither. The shared scan (ode/detail/root_scan.hpp) sees the local minimum of |a| at
    // 0.3 and brackets both: an attractor at 0.3001 (a' = -2e-4), a repeller at 0.3003.
    const DriftField zero = DriftField::from_functions([](double) { return 0.0; }, [](double) { return 0.0; }, 0.0, "zero");
    const double r1 = 0.3001, r2 = 0.3003;
    StepMomentTable t;
    t.eta = 0.01;
    for (double r : Chebyshev::lobatto_points(16)) t.nodes.push_back({r, 0.0, (r - r1) * (r - r2), 0.0, 0.5, 0.0});
    const auto eq = effective_equilibria(EffectiveDrift(zero, {t}), 0.01);
    REQUIRE(eq.size() == 2);
    CHECK(std::abs(eq[0].rho - r1) < 1e-9);
    CHECK(std::abs(eq[1].rho - r2) < 1e-9);
    CHECK(eq[0].kind == EquilibriumKind::attractor);
    CHECK(eq[0].stable);
    CHECK(eq[1].kind == EquilibriumKind::repeller);
    CHECK_FALSE(eq[1].stable);
    CHECK(eq[0].slope == doctest::Approx(r1 - r2).epsilon(1e-6));
}

TEST_CASE("effective drift: several tables, given in any order, interpolate linearly in eta and clamp outside") {
    // Tables at eta = 0.4, 0.1, 0.2 (unsorted) with (a - F)/eta = (1 + 10 eta) rho,
    // v = (1 + eta) e^{rho^2 / 2} and a_err = 1e-3 eta: c and v are linear in eta, so the linear
    // interpolation between the two bracketing levels is exact (v is tabulated in rho as log v,
    // a polynomial here), and the error, which scales like eta, is rescaled exactly. Outside
    // [0.1, 0.4] the nearest level is used. A bracketing off by one level, or an unsorted level
    // list, fails these.
    const DriftField F = DriftField::from_functions([](double r) { return 0.5 * r; }, [](double) { return 0.5; }, 0.0, "lin");
    std::vector<StepMomentTable> tables;
    for (double eta : {0.4, 0.1, 0.2}) {
        StepMomentTable t;
        t.eta = eta;
        for (double r : Chebyshev::lobatto_points(16)) {
            const double Fr = (1 - r * r) * 0.5 * r;
            t.nodes.push_back({r, Fr, Fr + eta * (1 + 10 * eta) * r, 1e-3 * eta, (1 + eta) * std::exp(0.5 * r * r), 0.0});
        }
        tables.push_back(t);
    }
    const EffectiveDrift D(F, tables);
    REQUIRE(D.tables().size() == 3);
    CHECK(D.tables().front().eta == 0.1);
    for (double rho : {-0.8, 0.3, 0.95}) {
        CAPTURE(rho);
        const double Fr = (1 - rho * rho) * 0.5 * rho;
        for (double eta : {0.1, 0.15, 0.2, 0.3, 0.4}) {
            CAPTURE(eta);
            CHECK(D.a(rho, eta) == doctest::Approx(Fr + eta * (1 + 10 * eta) * rho).epsilon(1e-10));
            CHECK(D.v(rho, eta) == doctest::Approx((1 + eta) * std::exp(0.5 * rho * rho)).epsilon(1e-10));
            CHECK(D.a_err(rho, eta) == doctest::Approx(1e-3 * eta).epsilon(1e-10));
        }
        CHECK(D.a(rho, 0.05) == doctest::Approx(Fr + 0.05 * 2 * rho).epsilon(1e-10));   // clamped to eta = 0.1's c
        CHECK(D.a(rho, 1.0) == doctest::Approx(Fr + 1.0 * 5 * rho).epsilon(1e-10));     // clamped to eta = 0.4's c
    }
    CHECK_THROWS_AS(EffectiveDrift(F, {}), InvalidArgument);  // exit 2 at the CLI, naming the field
}

TEST_CASE("effective drift: bracket_eta, the one bracketing rule of the drift and the chain's step plan") {
    const std::vector<double> etas = {0.1, 0.2, 0.4};
    auto is = [](EtaBracket b, std::size_t lo, std::size_t hi, double w) { return b.lo == lo && b.hi == hi && b.w == w; };
    CHECK(is(bracket_eta(etas, 0.05), 0, 0, 0));
    CHECK(is(bracket_eta(etas, 0.1), 0, 0, 0));
    CHECK(is(bracket_eta(etas, 0.15), 0, 1, (0.15 - 0.1) / (0.2 - 0.1)));
    CHECK(is(bracket_eta(etas, 0.2), 0, 1, 1.0));  // at a level: its own weight 1 from below
    CHECK(is(bracket_eta(etas, 0.3), 1, 2, (0.3 - 0.2) / (0.4 - 0.2)));
    CHECK(is(bracket_eta(etas, 0.4), 2, 2, 0));
    CHECK(is(bracket_eta(etas, 9.0), 2, 2, 0));
    CHECK(is(bracket_eta({0.3}, 0.1), 0, 0, 0));
    CHECK(is(bracket_eta({0.3}, 0.5), 0, 0, 0));
}

TEST_CASE("gap explanation: inputs without the theory's field are refused, naming it") {
    GapInputs run;  // everything else at its defaults: the field is checked first
    CHECK_THROWS_AS(explain_gap(run), InvalidArgument);
    try {
        explain_gap(run);
    } catch (const InvalidArgument& e) {
        CHECK(e.field() == "field");
    }
}
