#include "rhoflow/ode/phase.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "rhoflow/field/exact_field.hpp"

using namespace rhoflow;

TEST_CASE("phase: d=100 L=10500 R=500 theta=3 has two attractors and one repeller") {
    const ModelParams m{100, 10500, 500, 3.0, 1.0, 1.0};
    const PhasePortrait p = phase_portrait(DriftField::exact(m));
    REQUIRE(p.equilibria.size() == 3);
    CHECK_FALSE(p.monotone);
    CHECK(p.equilibria[0].rho == -1.0);
    CHECK(p.equilibria[0].kind == EquilibriumKind::attractor);
    CHECK(p.equilibria[1].kind == EquilibriumKind::repeller);
    CHECK(p.equilibria[2].rho == 1.0);
    CHECK(p.equilibria[2].kind == EquilibriumKind::attractor);
    const double r = p.equilibria[1].rho;
    CHECK(r > -0.9);
    CHECK(r < 0.0);
    // The repeller is a zero of the exact (untabulated) field, and j'(-1) < 0 as the spec says.
    const FieldPoint at = exact_field(m, r);
    CHECK(std::abs(at.dj) <= 10 * at.dj_err + 1e-10);
    CHECK(exact_field(m, -1.0).dj < 0);
    REQUIRE(p.basins.size() == 2);
    CHECK(p.basins[0].attractor == -1.0);
    CHECK(p.basins[0].to == r);
    CHECK(p.basins[1].attractor == 1.0);
    CHECK(p.basins[1].from == r);
}

TEST_CASE("phase: theta = 1 gives one attractor at rho = 1") {
    const PhasePortrait p = phase_portrait(DriftField::exact(ModelParams{100, 10500, 500, 1.0, 1.0, 1.0}));
    REQUIRE(p.equilibria.size() == 2);
    CHECK(p.monotone);
    CHECK(p.equilibria[0].kind == EquilibriumKind::repeller);
    CHECK(p.equilibria[1].kind == EquilibriumKind::attractor);
    REQUIRE(p.basins.size() == 1);
    CHECK(p.basins[0].attractor == 1.0);
    CHECK(p.basins[0].from == -1.0);
    CHECK_FALSE(p.basins[0].from_closed);
}

TEST_CASE("phase: d=50 L=50 R=25 is bistable through the finite-L term the mean-field limit drops") {
    const ModelParams m{50, 50, 25, 1.0, 1.0, 1.0};
    const PhasePortrait exact = phase_portrait(DriftField::exact(m));
    CHECK(exact.equilibria.size() == 3);
    CHECK(exact.equilibria.front().kind == EquilibriumKind::attractor);
    const PhasePortrait mf = phase_portrait(DriftField::meanfield(m));
    CHECK(mf.monotone);
}

TEST_CASE("phase: a root pair inside one scan cell, and a tangency within error") {
    // j' = (rho - 0.30)(rho - 0.31) + 0: both roots in one cell of width 1/8.
    const DriftField pair = DriftField::from_functions(
        [](double r) { return (r - 0.30) * (r - 0.31); }, [](double r) { return 2 * r - 0.61; }, 1e-15, "pair");
    PhaseParams coarse;
    coarse.scan_cells = 16;
    const PhasePortrait p = phase_portrait(pair, coarse);
    REQUIRE(p.equilibria.size() == 4);
    CHECK(p.equilibria[1].rho == doctest::Approx(0.30).epsilon(1e-12));
    CHECK(p.equilibria[2].rho == doctest::Approx(0.31).epsilon(1e-12));
    CHECK(p.equilibria[1].kind == EquilibriumKind::attractor);  // F' = (1 - r^2) j''(0.30) < 0
    CHECK(p.equilibria[2].kind == EquilibriumKind::repeller);
    // j' = (rho - 0.3)^2 touches zero: reported as a near tangency, not as equilibria.
    const DriftField touch = DriftField::from_functions(
        [](double r) { return (r - 0.3) * (r - 0.3); }, [](double r) { return 2 * (r - 0.3); }, 1e-12, "touch");
    const PhasePortrait t = phase_portrait(touch, coarse);
    CHECK(t.equilibria.size() == 2);
    REQUIRE(t.near_tangencies.size() == 1);
    CHECK(t.near_tangencies[0] == doctest::Approx(0.3).epsilon(1e-6));
}

TEST_CASE("phase: no signal (R = 0) is flat, not monotone") {
    const PhasePortrait p = phase_portrait(DriftField::exact(ModelParams{10, 100, 0, 1.0, 1.0, 1.0}));
    CHECK(p.flat);
    CHECK_FALSE(p.monotone);
    CHECK(p.equilibria.empty());
}

TEST_CASE("phase: one token (L = 1) makes j constant: flat, no basin and no monotonicity claimed") {
    // With L = 1, f = x_1 and j = theta^2 R + d sigma^2 whatever rho: j' = 0 exactly.
    for (const ModelParams m : {ModelParams{50, 1, 1, 1.0, 1.0, 1.0}, ModelParams{5, 1, 0, 2.0, 1.0, 1.0}}) {
        const PhasePortrait p = phase_portrait(DriftField::exact(m));
        CHECK(p.flat);
        CHECK_FALSE(p.monotone);
        CHECK(p.basins.empty());
        CHECK(p.equilibria.empty());
    }
    // A field that is zero up to noise below its error bound is flat too (not the exact case).
    const DriftField noisy = DriftField::from_functions([](double r) { return 1e-14 * std::sin(40 * r); },
                                                        [](double r) { return 4e-13 * std::cos(40 * r); }, 1e-12, "noise");
    CHECK(phase_portrait(noisy).flat);
}
