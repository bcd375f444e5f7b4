// The Monte Carlo estimator against the exact quadrature: two independent computations of the
// same field. Every comparison allows 4 standard errors (the exact field's own error is ~1e-14);
// with 10 points x 4 quantities the chance that a correct implementation fails somewhere is
// below 40 x 6.3e-5 = 0.3% for a random seed, and the seeds here are fixed.
#include "rhoflow/field/montecarlo_field.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/field/exact_field.hpp"

using namespace rhoflow;

namespace {
void check_agreement(const ModelParams& m, double rho, std::int64_t samples, std::uint64_t seed) {
    CAPTURE(describe(m));
    CAPTURE(rho);
    const FieldPoint ex = exact_field(m, rho);
    MonteCarloParams p;
    p.samples = samples;
    p.seed = seed;
    const FieldPoint mc = montecarlo_field(m, rho, p);
    CHECK(std::abs(mc.j - ex.j) <= 4 * mc.j_err + ex.j_err);
    CHECK(std::abs(mc.dj - ex.dj) <= 4 * mc.dj_err + ex.dj_err + 1e-12);
    CHECK(std::abs(mc.drift - ex.drift) <= 4 * mc.drift_err + ex.drift_err + 1e-12);
    CHECK(std::abs(mc.mass_informative - ex.mass_informative) <= 4 * mc.mass_err + ex.mass_err + 1e-12);
    // The estimator is informative: its standard errors are small next to the values.
    CHECK(mc.j_err < 0.02 * ex.j);
}
}  // namespace

TEST_CASE("Monte Carlo field agrees with the exact field within 4 standard errors") {
    SUBCASE("generic points") {
        check_agreement(ModelParams{5, 8, 2, 1.0, 1.0, 1.0}, 0.3, 200000, 1);
        check_agreement(ModelParams{20, 50, 10, 2.0, 1.0, 1.0}, 0.7, 100000, 2);
        check_agreement(ModelParams{64, 300, 1, 3.0, 0.5, 2.0}, 0.95, 100000, 3);
    }
    SUBCASE("R = 0 (no signal: dj = drift = 0)") {
        check_agreement(ModelParams{10, 30, 0, 1.5, 1.0, 1.0}, 0.4, 100000, 4);
    }
    SUBCASE("R = L (no nuisance tokens)") {
        check_agreement(ModelParams{3, 7, 7, 1.0, 1.0, 1.0}, 0.2, 200000, 5);
    }
    SUBCASE("d = 2 (no orthogonal component) and d = 3 (chi2_0 edge)") {
        check_agreement(ModelParams{2, 12, 3, 1.5, 1.0, 1.0}, 0.5, 200000, 6);
        check_agreement(ModelParams{3, 12, 3, 1.5, 1.0, 1.0}, -0.5, 200000, 7);
    }
    SUBCASE("rho = +1 and rho = -1") {
        check_agreement(ModelParams{10, 40, 8, 2.0, 1.0, 1.0}, 1.0, 100000, 8);
        check_agreement(ModelParams{10, 40, 8, 2.0, 1.0, 1.0}, -1.0, 100000, 9);
    }
    SUBCASE("L = 1e4") {
        check_agreement(ModelParams{100, 10000, 500, 1.0, 1.0, 1.0}, -0.6, 6000, 10);
    }
}

TEST_CASE("Monte Carlo field: same seed, same numbers on 1 and 2 threads, a new seed differs") {
    const ModelParams m{10, 40, 8, 2.0, 1.0, 1.0};
    MonteCarloParams p;
    p.samples = 10000;
    p.seed = 77;
    p.threads = 1;
    const FieldPoint a = montecarlo_field(m, 0.3, p);
    p.threads = 2;
    const FieldPoint b = montecarlo_field(m, 0.3, p);
    CHECK(a.j == b.j);
    CHECK(a.dj == b.dj);
    CHECK(a.drift == b.drift);
    CHECK(a.j_err == b.j_err);
    p.seed = 78;
    CHECK(montecarlo_field(m, 0.3, p).j != a.j);
}

TEST_CASE("Monte Carlo field: invalid controls are named") {
    MonteCarloParams p;
    p.samples = 1;
    try {
        montecarlo_field(ModelParams{}, 0.1, p);
        FAIL("no exception");
    } catch (const InvalidArgument& e) {
        CHECK(e.field() == "samples");
    }
}
