// The exact reduced sampler has the law of the full d-dimensional step. Two-sample
// Kolmogorov-Smirnov tests with fixed seeds; each asserts p > 1e-3, so for fresh seeds the
// chance that a correct pair of samplers fails one given comparison is 0.1%, and about 2% for
// the 22 comparisons in this file together. The power check shows the tests can fail.
#include "rhoflow/stochastic/reduced_sampler.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "rhoflow/stochastic/ensemble.hpp"
#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/stochastic/full_sampler.hpp"
#include "rhoflow/core/stats.hpp"

using namespace rhoflow;

namespace {

struct Draws {
    std::vector<double> rho_next, g_u, g_v, g_w;
};

Draws reduced_draws(const ModelParams& m, double rho, double eta, int n, std::uint64_t seed) {
    ReducedSampler s(m);
    RandomStream rng(seed, 0);
    Draws d;
    for (int i = 0; i < n; ++i) {
        GradientDraw g;
        d.rho_next.push_back(s.step(rho, eta, UpdateRule::normalized, rng, &g));
        d.g_u.push_back(g.g_u);
        d.g_v.push_back(g.g_v);
        d.g_w.push_back(std::sqrt(g.g_w_sq));
    }
    return d;
}

Draws full_draws(const ModelParams& m, double rho, double eta, int n, std::uint64_t seed) {
    FullSampler s(m);
    RandomStream rng(seed, 0);
    Draws d;
    for (int i = 0; i < n; ++i) {
        Eigen::VectorXd q = FullSampler::query_with_alignment(m.d, rho);
        GradientDraw g;
        d.rho_next.push_back(s.step(q, eta, UpdateRule::normalized, rng, &g));
        d.g_u.push_back(g.g_u);
        d.g_v.push_back(g.g_v);
        d.g_w.push_back(std::sqrt(g.g_w_sq));
    }
    return d;
}

}  // namespace

TEST_CASE("reduced vs full sampler: the same one-step law (KS on rho', g_u, g_v, ||g_w||)") {
    struct Shape {
        std::int64_t d, L;
        int n;
    };
    // d < L, d > L, d << L, and the chi-square edge cases d = 2 and d = 3.
    for (const Shape& sh : {Shape{12, 20, 20000}, Shape{200, 15, 12000}, Shape{4, 60, 20000}, Shape{3, 8, 20000},
                            Shape{2, 10, 20000}}) {
        const ModelParams m{sh.d, sh.L, sh.L / 4 + 1, 1.5, 1.0, 1.0};
        CAPTURE(describe(m));
        const Draws r = reduced_draws(m, 0.3, 0.5, sh.n, 101);
        const Draws f = full_draws(m, 0.3, 0.5, sh.n, 202);
        CHECK(ks_two_sample(r.rho_next, f.rho_next).p_value > 1e-3);
        CHECK(ks_two_sample(r.g_u, f.g_u).p_value > 1e-3);
        CHECK(ks_two_sample(r.g_v, f.g_v).p_value > 1e-3);
        if (sh.d > 2) {
            CHECK(ks_two_sample(r.g_w, f.g_w).p_value > 1e-3);
        } else {
            // d = 2: no orthogonal component at all.
            for (double v : r.g_w) REQUIRE(v == 0.0);
            for (double v : f.g_w) REQUIRE(v < 1e-12);
        }
    }
}

TEST_CASE("reduced vs full sampler: the KS comparison has power (a wrong d is rejected)") {
    // The reduced sampler run with d + 6 must be told apart from the full one at d.
    const ModelParams m{12, 20, 6, 1.5, 1.0, 1.0};
    ModelParams wrong = m;
    wrong.d += 6;
    const Draws r = reduced_draws(wrong, 0.3, 0.5, 20000, 303);
    const Draws f = full_draws(m, 0.3, 0.5, 20000, 404);
    CHECK(ks_two_sample(r.g_w, f.g_w).p_value < 1e-6);
    CHECK(ks_two_sample(r.rho_next, f.rho_next).p_value < 1e-6);
}

TEST_CASE("reduced vs full sampler: the same law of rho after 50 steps (tangent and normalized)") {
    for (UpdateRule rule : {UpdateRule::normalized, UpdateRule::tangent}) {
        CAPTURE(to_string(rule));
        const ModelParams m{12, 20, 5, 1.0, 1.0, 1.0};
        SgaParams p;
        p.steps = 50;
        p.trials = 3000;
        p.rho0 = 0.2;
        p.update = rule;
        p.schedule = {0.3, 10, 1.0};
        p.seed = 11;
        const EnsembleResult red = run_ensemble(m, p);
        p.sampler = SamplerKind::full;
        p.seed = 12;
        const EnsembleResult full = run_ensemble(m, p);
        std::vector<double> a, b;
        for (const auto& t : red.trials) a.push_back(t.rho_final);
        for (const auto& t : full.trials) b.push_back(t.rho_final);
        CHECK(ks_two_sample(a, b).p_value > 1e-3);
        // And the chain moved: the law after 50 steps is not the initial point mass.
        CHECK(red.summary.rho_final.mean > 0.3);
    }
}

TEST_CASE("reduced and full sampler: mean increment / eta matches the exact drift (small eta)") {
    // E[rho' - rho] = eta (1 - rho^2) j'(rho) + O(eta^2): with eta = 1e-4 the O(eta) bias of
    // the ratio is about eta E||g||^2 / 2 < 1e-3 here, below the 4 standard errors allowed.
    const ModelParams m{8, 16, 4, 1.5, 1.0, 1.0};
    const double rho = 0.4, eta = 1e-4;
    const double drift = exact_field(m, rho).drift;
    for (bool full : {false, true}) {
        CAPTURE(full);
        const Draws d = full ? full_draws(m, rho, eta, 100000, 7) : reduced_draws(m, rho, eta, 200000, 8);
        RunningStats s;
        for (double r : d.rho_next) s.add((r - rho) / eta);
        CHECK(std::abs(s.mean() - drift) <= 4 * s.standard_error() + 1e-3);
        CHECK(s.standard_error() < 0.05 * drift);
    }
}

TEST_CASE("updated_rho: closed forms of the two projections") {
    GradientDraw g;
    g.g_u = 0.5;
    g.g_v = 2.0;
    g.g_w_sq = 4.0;
    const double rho = 0.6, s = 0.8, eta = 0.1;
    const double cq = 1.05, ev = 0.2;
    CHECK(updated_rho(rho, eta, g, UpdateRule::normalized) ==
          doctest::Approx((rho * cq + s * ev) / std::sqrt(cq * cq + ev * ev + 0.04)));
    CHECK(updated_rho(rho, eta, g, UpdateRule::tangent) ==
          doctest::Approx((rho + s * ev) / std::sqrt(1 + ev * ev + 0.04)));
    CHECK(updated_rho(1.0, eta, GradientDraw{}, UpdateRule::normalized) == 1.0);
}
