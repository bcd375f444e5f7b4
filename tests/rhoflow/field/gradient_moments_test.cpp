// The exact one-step gradient moments against four independent computations:
//  - the exact field: sqrt(1 - rho^2) E[g_v] = (1 - rho^2) j'(rho) (a different formula and code);
//  - brute-force Gauss-Hermite quadrature of the full per-sample gradient for L = 2 and L = 3
//    (products of 1-D rules over every Gaussian coordinate; exact in v and w, whose degree is 6);
//  - Monte Carlo of the moments from the exact reduced sampler (model/sample.hpp);
//  - Monte Carlo of the actual update rho' (model/update_rule.hpp) at small eta, for B and Sigma.
// Monte Carlo comparisons allow 4 standard errors: for a correct implementation each fails with
// probability ~6.3e-5 (normal approximation), and the ~150 of them below together with
// probability ~1% for a random seed; the seeds are fixed, so the suite is deterministic.
#include "rhoflow/field/gradient_moments.hpp"

#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/model/sample.hpp"
#include "rhoflow/model/update_rule.hpp"
#include "test_util.hpp"

using namespace rhoflow;
using rhoflow::test::rel_diff;

namespace {

std::array<double, 6> values(const ExactGradientMoments& g) {
    return {g.g_u, g.g_v, g.g_u_g_v, g.g_v_sq, g.g_w_sq, g.g_u_sq};
}
std::array<double, 6> errors(const ExactGradientMoments& g) {
    return {g.g_u_err, g.g_v_err, g.g_u_g_v_err, g.g_v_sq_err, g.g_w_sq_err, g.g_u_sq_err};
}
const char* const kNames[6] = {"E[g_u]", "E[g_v]", "E[g_u g_v]", "E[g_v^2]", "E|g_w|^2", "E[g_u^2]"};

// Probabilists' Gauss-Hermite rule with n nodes (Golub-Welsch): E[h(Z)] ~ sum w_k h(z_k).
struct GaussHermite {
    std::vector<double> z, w;
};
GaussHermite gauss_hermite(int n) {
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(n, n);
    for (int k = 1; k < n; ++k) J(k, k - 1) = J(k - 1, k) = std::sqrt(static_cast<double>(k));
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(J);
    GaussHermite r;
    for (int k = 0; k < n; ++k) {
        r.z.push_back(es.eigenvalues()(k));
        r.w.push_back(es.eigenvectors()(0, k) * es.eigenvectors()(0, k));
    }
    return r;
}

// The moments by brute force: a product Gauss-Hermite rule over every Gaussian coordinate of
// L tokens in the frame (q, e, d - 2 more): n_u nodes per score (the softmax is smooth), 4 per
// v- and w-coordinate (exact: the moments are polynomials of degree <= 6 in them). g is computed
// from its definition (2.1), g = 2 beta sum_i a_i (<x_i, f> - |f|^2) x_i. Cost n_u^L 4^{L(d-1)}.
std::array<double, 6> brute_force(const ModelParams& m, double rho, int n_u) {
    const int L = static_cast<int>(m.L), D = static_cast<int>(m.d - 2), dim = 2 + D;
    const double s = std::sqrt(std::max(0.0, 1 - rho * rho));
    const GaussHermite gu = gauss_hermite(n_u), g4 = gauss_hermite(4);
    const int nv = L * (1 + D);  // v and w coordinates, 4 nodes each
    std::array<double, 6> out{};
    std::vector<int> iu(static_cast<std::size_t>(L), 0), iv(static_cast<std::size_t>(nv), 0);
    std::vector<double> x(static_cast<std::size_t>(L * dim)), a(static_cast<std::size_t>(L));
    for (;;) {  // odometer over the score nodes
        double wu = 1, amax = -INFINITY;
        for (int i = 0; i < L; ++i) {
            const double u = (i < m.R ? m.theta * rho : 0.0) + m.sigma * gu.z[iu[i]];
            x[static_cast<std::size_t>(i * dim)] = u;
            wu *= gu.w[iu[i]];
            amax = std::max(amax, m.beta * u);
        }
        double S = 0;
        for (int i = 0; i < L; ++i) S += a[i] = std::exp(m.beta * x[static_cast<std::size_t>(i * dim)] - amax);
        for (int i = 0; i < L; ++i) a[i] /= S;
        std::fill(iv.begin(), iv.end(), 0);
        std::array<double, 6> inner{};  // summed separately: less rounding than one long sum
        for (;;) {  // odometer over the v and w nodes
            double wv = 1;
            for (int i = 0; i < L; ++i)
                for (int c = 1; c < dim; ++c) {
                    const int k = iv[static_cast<std::size_t>(i * (1 + D) + c - 1)];
                    const double mean = (c == 1 && i < m.R) ? m.theta * s : 0.0;
                    x[static_cast<std::size_t>(i * dim + c)] = mean + m.sigma * g4.z[k];
                    wv *= g4.w[k];
                }
            double f[8] = {}, g[8] = {};
            for (int i = 0; i < L; ++i)
                for (int c = 0; c < dim; ++c) f[c] += a[i] * x[static_cast<std::size_t>(i * dim + c)];
            double ff = 0;
            for (int c = 0; c < dim; ++c) ff += f[c] * f[c];
            for (int i = 0; i < L; ++i) {
                double xf = 0;
                for (int c = 0; c < dim; ++c) xf += x[static_cast<std::size_t>(i * dim + c)] * f[c];
                const double b = 2 * m.beta * a[i] * (xf - ff);
                for (int c = 0; c < dim; ++c) g[c] += b * x[static_cast<std::size_t>(i * dim + c)];
            }
            double gw2 = 0;
            for (int c = 2; c < dim; ++c) gw2 += g[c] * g[c];
            const double v[6] = {g[0], g[1], g[0] * g[1], g[1] * g[1], gw2, g[0] * g[0]};
            for (int k = 0; k < 6; ++k) inner[static_cast<std::size_t>(k)] += wv * v[k];
            int p = 0;
            while (p < nv && ++iv[static_cast<std::size_t>(p)] == 4) iv[static_cast<std::size_t>(p++)] = 0;
            if (p == nv) break;
        }
        for (std::size_t k = 0; k < 6; ++k) out[k] += wu * inner[k];
        int p = 0;
        while (p < L && ++iu[static_cast<std::size_t>(p)] == n_u) iu[static_cast<std::size_t>(p++)] = 0;
        if (p == L) break;
    }
    return out;
}

// Sample mean and standard error.
struct MeanSE {
    double sum = 0, sum2 = 0;
    std::int64_t n = 0;
    void add(double x) {
        sum += x;
        sum2 += x * x;
        ++n;
    }
    double mean() const { return sum / static_cast<double>(n); }
    double se() const {
        const double m = mean();
        return std::sqrt(std::max(0.0, sum2 / static_cast<double>(n) - m * m) / static_cast<double>(n - 1));
    }
};

// Every moment and B of both rules against Monte Carlo of the reduced sampler, within 4 SE.
void check_against_montecarlo(const ModelParams& m, double rho, std::int64_t samples, std::uint64_t seed) {
    CAPTURE(describe(m));
    CAPTURE(rho);
    const ExactGradientMoments ex = exact_gradient_moments(m, rho);
    const double s = std::sqrt(std::max(0.0, 1 - rho * rho));
    SampleDrawer drawer(m);
    RandomStream rng(StreamId{seed, StreamPurpose::one_step_moments, 0, 0});
    MeanSE mc[6], b_norm, b_tan;
    for (std::int64_t i = 0; i < samples; ++i) {
        const GradientDraw d = drawer.draw(rho, rng);
        const double v[6] = {d.g_u, d.g_v, d.g_u * d.g_v, d.g_v * d.g_v, d.g_w_sq, d.g_u * d.g_u};
        for (int k = 0; k < 6; ++k) mc[k].add(v[k]);
        const double ortho = -0.5 * rho * (d.g_v * d.g_v + d.g_w_sq);
        b_tan.add(ortho);
        b_norm.add(ortho - s * d.g_u * d.g_v);
    }
    const auto val = values(ex), err = errors(ex);
    for (int k = 0; k < 6; ++k) {
        CAPTURE(std::string(kNames[k]));
        CAPTURE(val[k]);
        CAPTURE(mc[k].mean());
        CAPTURE(mc[k].se());
        CHECK(std::abs(mc[k].mean() - val[k]) <= 4 * mc[k].se() + err[k] + 1e-300);
        // The exact value's error estimate is tiny next to the Monte Carlo noise.
        CHECK(err[k] <= 1e-9 * (std::abs(val[k]) + 1) + 1e-3 * mc[k].se());
    }
    const OneStepExpansion en = one_step_expansion(ex, UpdateRule::normalized);
    const OneStepExpansion et = one_step_expansion(ex, UpdateRule::tangent);
    CHECK(std::abs(b_norm.mean() - en.B) <= 4 * b_norm.se() + en.B_err);
    CHECK(std::abs(b_tan.mean() - et.B) <= 4 * b_tan.se() + et.B_err);
}

}  // namespace

TEST_CASE("gradient moments: sqrt(1 - rho^2) E[g_v] equals the exact field's drift to 1e-10") {
    const std::vector<ModelParams> models = {
        ModelParams{},
        ModelParams{20, 50, 10, 2.0, 1.0, 1.0},
        ModelParams{100, 10500, 500, 3.0, 1.0, 1.0},
        ModelParams{64, 300, 1, 3.0, 0.5, 2.0},
        ModelParams{10, 40, 40, 1.5, 1.0, 0.7},
        ModelParams{2, 30, 5, 1.0, 1.0, 1.0},
        ModelParams{3, 30, 5, 1.0, 2.0, 0.5},
        ModelParams{1000, 2000, 100, 1.0, 1.0, 1.0},
    };
    for (const auto& m : models)
        for (double rho : {-0.95, -0.4, 0.0, 0.3, 0.8, 0.99}) {
            CAPTURE(describe(m));
            CAPTURE(rho);
            const ExactGradientMoments g = exact_gradient_moments(m, rho);
            const FieldPoint fp = exact_field(m, rho);
            const OneStepExpansion e = one_step_expansion(g, UpdateRule::normalized);
            CHECK(std::abs(e.F - fp.drift) <= 1e-10 * std::abs(fp.drift) + e.F_err + fp.drift_err);
            CHECK(std::abs(e.F - fp.drift) <= 1e-10 * (std::abs(fp.drift) + fp.j));
        }
}

namespace {
// Independent of every step of the method (no Wick, no partitions, no Laplace transform): the
// full gradient at every node of a product rule. At the n_u used the brute force agrees with the
// exact values to ~1e-14 relative, and stays there as n_u grows (checked to n_u = 160); the
// allowance is the exact error estimate plus 1e-12 of the moments' scale.
void check_brute_force(const ModelParams& m, double rho, int n_u) {
    CAPTURE(describe(m));
    CAPTURE(rho);
    const auto bf = brute_force(m, rho, n_u);
    const ExactGradientMoments ex = exact_gradient_moments(m, rho);
    const auto val = values(ex), err = errors(ex);
    const double scale = std::abs(val[5]) + std::abs(val[3]) + std::abs(val[4]);  // second moments
    for (int k = 0; k < 6; ++k) {
        CAPTURE(std::string(kNames[k]));
        CAPTURE(val[k]);
        CAPTURE(bf[static_cast<std::size_t>(k)]);
        CHECK(std::abs(val[k] - bf[static_cast<std::size_t>(k)]) <= 1e-12 * scale + err[k]);
    }
}
}  // namespace

TEST_CASE("gradient moments: brute-force Gauss-Hermite quadrature of g for L = 2") {
    check_brute_force(ModelParams{2, 2, 1, 1.3, 0.8, 1.7}, 0.4, 120);  // d = 2: no w
    check_brute_force(ModelParams{3, 2, 1, 1.0, 1.0, 1.0}, -0.7, 60);  // one w dimension
    check_brute_force(ModelParams{4, 2, 2, 2.0, 1.0, 0.5}, 0.9, 40);   // two w dimensions, R = L
    check_brute_force(ModelParams{3, 2, 0, 1.0, 1.2, 1.0}, 0.2, 120);  // R = 0
}

TEST_CASE("gradient moments: brute-force Gauss-Hermite quadrature of g for L = 3") {
    check_brute_force(ModelParams{2, 3, 1, 1.5, 1.0, 1.0}, 0.6, 60);  // three distinct tokens
    check_brute_force(ModelParams{3, 3, 2, 1.0, 0.7, 0.7}, 0.3, 20);  // three tokens and w
}

// The Monte Carlo comparisons are split over several test cases so that ctest can spread them
// over both cores and each stays well under 10 s.
TEST_CASE("gradient moments: agree with Monte Carlo of the reduced sampler (default model, large d)") {
    check_against_montecarlo(ModelParams{}, 0.5, 60000, 11);
    check_against_montecarlo(ModelParams{1000, 300, 30, 1.0, 1.0, 1.0}, 0.9, 100000, 14);
}

TEST_CASE("gradient moments: agree with Monte Carlo of the reduced sampler (d = 2, d = 3, R = 0, R = L)") {
    check_against_montecarlo(ModelParams{2, 200, 20, 1.5, 1.0, 1.0}, 0.7, 100000, 12);  // no g_w
    check_against_montecarlo(ModelParams{3, 200, 20, 1.5, 1.0, 1.0}, -0.3, 100000, 13);
    check_against_montecarlo(ModelParams{20, 100, 0, 1.0, 1.0, 1.0}, 0.4, 100000, 15);
    check_against_montecarlo(ModelParams{20, 30, 30, 1.0, 1.0, 1.5}, 0.4, 100000, 16);
}

TEST_CASE("gradient moments: agree with Monte Carlo of the reduced sampler (small L, large L, rho = +-1)") {
    check_against_montecarlo(ModelParams{8, 4, 1, 2.0, 1.0, 1.0}, 0.95, 200000, 17);
    check_against_montecarlo(ModelParams{50, 10000, 500, 2.0, 1.0, 1.0}, 0.3, 8000, 18);
    check_against_montecarlo(ModelParams{10, 40, 8, 2.0, 1.0, 1.0}, 1.0, 100000, 19);  // s = 0
    check_against_montecarlo(ModelParams{10, 40, 8, 2.0, 1.0, 1.0}, -1.0, 100000, 20);
}

namespace {
// B and Sigma against the update rule itself. For each draw g and step eta,
//   Y(eta) = (rho'(eta) - rho - eta s g_v) / eta^2
// has mean B + O(eta) and O(1) variance (the first-order term is subtracted draw by draw, a
// control variate); 2 Y(eta) - Y(2 eta) on the same draws removes the O(eta) term. Likewise
// (rho' - rho)/eta has variance Sigma + O(eta), and 2 V(eta) - V(2 eta) removes the O(eta) term.
void check_expansion(const ModelParams& m, double rho, UpdateRule rule, std::int64_t samples, std::uint64_t seed) {
    CAPTURE(describe(m));
    CAPTURE(rho);
    CAPTURE(to_string(rule));
    const OneStepExpansion e = one_step_expansion(m, rho, rule);
    const double s = std::sqrt(1 - rho * rho), eta = 1e-3;
    SampleDrawer drawer(m);
    RandomStream rng(StreamId{seed, StreamPurpose::one_step_moments, 1, 0});
    MeanSE y_extrap, y1;
    std::vector<double> d1, d2;
    d1.reserve(static_cast<std::size_t>(samples));
    d2.reserve(static_cast<std::size_t>(samples));
    for (std::int64_t i = 0; i < samples; ++i) {
        const GradientDraw g = drawer.draw(rho, rng);
        const double r1 = updated_rho(rho, eta, g, rule), r2 = updated_rho(rho, 2 * eta, g, rule);
        const double Y1 = (r1 - rho - eta * s * g.g_v) / (eta * eta);
        const double Y2 = (r2 - rho - 2 * eta * s * g.g_v) / (4 * eta * eta);
        y1.add(Y1);
        y_extrap.add(2 * Y1 - Y2);
        d1.push_back((r1 - rho) / eta);
        d2.push_back((r2 - rho) / (2 * eta));
    }
    CAPTURE(e.B);
    CAPTURE(y_extrap.mean());
    CAPTURE(y_extrap.se());
    CAPTURE(y1.mean());
    CHECK(std::abs(y_extrap.mean() - e.B) <= 4 * y_extrap.se() + e.B_err);
    // The estimator is sharp enough to see B: its SE is small next to |B| (here |B| > 0.5).
    CHECK(y_extrap.se() < 0.05 * std::abs(e.B));

    // Sigma: the sample variance of the two step sizes, extrapolated; SE by the delta method.
    auto mean_of = [](const std::vector<double>& v) {
        double t = 0;
        for (double x : v) t += x;
        return t / static_cast<double>(v.size());
    };
    const double m1 = mean_of(d1), m2 = mean_of(d2);
    MeanSE v_extrap;
    for (std::size_t i = 0; i < d1.size(); ++i) {
        const double a = (d1[i] - m1) * (d1[i] - m1), b = (d2[i] - m2) * (d2[i] - m2);
        v_extrap.add(2 * a - b);
    }
    CAPTURE(e.Sigma);
    CAPTURE(v_extrap.mean());
    CAPTURE(v_extrap.se());
    CHECK(std::abs(v_extrap.mean() - e.Sigma) <= 4 * v_extrap.se() + e.Sigma_err);
    CHECK(v_extrap.se() < 0.05 * e.Sigma);
}
}  // namespace

TEST_CASE("one-step expansion: B and Sigma agree with Monte Carlo of the update (default model, normalized)") {
    check_expansion(ModelParams{}, 0.5, UpdateRule::normalized, 50000, 21);
    check_expansion(ModelParams{}, 0.9, UpdateRule::normalized, 50000, 22);
}

TEST_CASE("one-step expansion: B and Sigma agree with Monte Carlo of the update (default model, tangent)") {
    check_expansion(ModelParams{}, 0.5, UpdateRule::tangent, 50000, 23);
    check_expansion(ModelParams{}, 0.9, UpdateRule::tangent, 50000, 24);
}

TEST_CASE("one-step expansion: B and Sigma agree with Monte Carlo of the update (small model, rho < 0)") {
    check_expansion(ModelParams{10, 20, 4, 2.0, 1.0, 1.0}, -0.6, UpdateRule::normalized, 100000, 25);
    check_expansion(ModelParams{10, 20, 4, 2.0, 1.0, 1.0}, -0.6, UpdateRule::tangent, 100000, 26);
}

TEST_CASE("one-step expansion: the measured facts of the default model") {
    const ModelParams m;
    SUBCASE("rho = 0.5: E[drho]/eta = 0.3544 +- 0.0006 at eta = 0.01, F = 0.3756") {
        const OneStepExpansion e = one_step_expansion(m, 0.5, UpdateRule::normalized);
        CHECK(std::abs(e.F - 0.3756) < 1e-4);
        CHECK(e.B == doctest::Approx(-2.1).epsilon(0.05));
        // Within 4 SE of the measurement; the O(eta^2) term (~20 eta^2 = 0.002, see below) is
        // not needed here.
        CHECK(std::abs(e.drift(0.01) - 0.3544) < 4 * 0.0006);
    }
    SUBCASE("rho = 0.9: a = 0.1631, 0.1294, 0.0545 at eta = 0, 0.01, 0.04") {
        const OneStepExpansion e = one_step_expansion(m, 0.9, UpdateRule::normalized);
        CHECK(std::abs(e.F - 0.1631) < 1e-4);
        // The raw first difference (0.1294 - 0.1631)/0.01 = -3.37 carries the O(eta) curvature;
        // the quadratic through the three points, a = F + B eta + C eta^2, gives
        // B = (16 (a1 - F) - (a2 - F)) / 0.12 = -3.58, with SE ~0.08 if each a has SE ~0.0006.
        const double a1 = 0.1294, a2 = 0.0545;
        const double B_fit = (16 * (a1 - e.F) - (a2 - e.F)) / 0.12;
        CAPTURE(e.B);
        CAPTURE(B_fit);
        CHECK(std::abs(e.B - B_fit) < 4 * 0.08);
        CHECK(e.B < -3.4);
    }
}

TEST_CASE("gradient moments: error estimates cover the difference to a tighter run") {
    GradientMomentParams tight;
    tight.rel_tol = 1e-14;
    tight.inner_resolution = 0.1;
    tight.z_range = 12;
    tight.max_segments = 2000;
    const std::vector<std::pair<ModelParams, double>> cases = {
        {ModelParams{}, 0.97},
        {ModelParams{1000, 1000, 100, 1.0, 1.0, 1.0}, -0.4},
        {ModelParams{20, 200, 10, 3.0, 1.0, 3.0}, 0.3},
        {ModelParams{7, 2, 1, 1.3, 0.8, 1.7}, 0.97},
        {ModelParams{50, 100000, 1000, 2.0, 1.0, 1.0}, 0.3},
    };
    for (const auto& [m, rho] : cases) {
        CAPTURE(describe(m));
        CAPTURE(rho);
        const ExactGradientMoments a = exact_gradient_moments(m, rho), b = exact_gradient_moments(m, rho, tight);
        const auto va = values(a), vb = values(b), ea = errors(a), eb = errors(b);
        for (int k = 0; k < 6; ++k) {
            CAPTURE(std::string(kNames[k]));
            CHECK(std::abs(va[k] - vb[k]) <= ea[k] + eb[k]);
            CHECK(ea[k] <= 1e-9 * (std::abs(va[k]) + 1));  // and the default is accurate
        }
        const OneStepExpansion x = one_step_expansion(a, UpdateRule::normalized), y = one_step_expansion(b, UpdateRule::normalized);
        CHECK(std::abs(x.B - y.B) <= x.B_err + y.B_err);
        CHECK(std::abs(x.Sigma - y.Sigma) <= x.Sigma_err + y.Sigma_err);
    }
}

TEST_CASE("gradient moments: edge cases") {
    SUBCASE("L = 1: f = x_1, g = 0, so every moment vanishes within its error") {
        for (double rho : {-1.0, 0.3, 1.0}) {
            const ExactGradientMoments g = exact_gradient_moments(ModelParams{7, 1, 1, 1.3, 0.8, 1.7}, rho);
            const auto val = values(g), err = errors(g);
            for (int k = 0; k < 6; ++k) CHECK(std::abs(val[k]) <= err[k]);
            for (int k = 0; k < 6; ++k) CHECK(err[k] < 1e-8);  // cancellation ~1e18: rounding scale
        }
    }
    SUBCASE("R = 0: no signal, F = 0 and the moments do not depend on rho") {
        const ModelParams m{50, 1000, 0, 1.0, 1.0, 1.0};
        const ExactGradientMoments a = exact_gradient_moments(m, -0.6), b = exact_gradient_moments(m, 0.2);
        CHECK(std::abs(a.g_v) <= a.g_v_err);
        CHECK(one_step_expansion(a, UpdateRule::normalized).F == doctest::Approx(0.0).scale(1e-12));
        const auto va = values(a), vb = values(b);
        for (int k = 0; k < 6; ++k) CHECK(va[k] == vb[k]);  // rho enters only through the signal
    }
    SUBCASE("d = 2: no orthogonal part") {
        const ExactGradientMoments g = exact_gradient_moments(ModelParams{2, 100, 10, 1.0, 1.0, 1.0}, 0.4);
        CHECK(g.g_w_sq == 0.0);
        CHECK(g.g_w_sq_err == 0.0);
    }
    SUBCASE("rho = +-1: s = 0, so F = Sigma = 0, and B = -rho (E[g_v^2] + E|g_w|^2)/2 for both rules") {
        for (double rho : {-1.0, 1.0}) {
            const ExactGradientMoments g = exact_gradient_moments(ModelParams{}, rho);
            CHECK(std::abs(g.g_v) <= g.g_v_err);  // e carries no signal: E[g_v] = 0 by symmetry
            const OneStepExpansion n = one_step_expansion(g, UpdateRule::normalized), t = one_step_expansion(g, UpdateRule::tangent);
            CHECK(n.F == 0.0);
            CHECK(n.Sigma == 0.0);
            CHECK(n.B == t.B);
            CHECK(n.B == -0.5 * rho * (g.g_v_sq + g.g_w_sq));
            CHECK(rho * n.B < 0);  // the step always pulls rho back inside
        }
    }
    SUBCASE("L = 10^6: cost independent of L") {
        const ExactGradientMoments g = exact_gradient_moments(ModelParams{50, 1000000, 100000, 1.0, 1.0, 1.0}, 0.5);
        CHECK(g.segments <= 20);
        CHECK(std::isfinite(g.g_w_sq));
        CHECK(g.g_w_sq_err < 1e-9 * g.g_w_sq);
    }
}

TEST_CASE("gradient moments: polynomial in d - 2 of the degree the Wick cycles allow") {
    // d enters only through contracted w-vectors, (d-2)^{#cycles}: at most one cycle in a first
    // moment, two in E[g_u g_v], E[g_v^2], E[g_u^2] and three in E|g_w|^2. So finite differences
    // in d of order 2, 3 and 4 vanish (within the propagated error estimates).
    auto at = [](std::int64_t d) { return exact_gradient_moments(ModelParams{d, 500, 50, 1.0, 1.0, 1.0}, 0.6); };
    const ExactGradientMoments g[5] = {at(10), at(60), at(110), at(160), at(210)};
    const double binom[5][5] = {{1, -1}, {1, -2, 1}, {1, -3, 3, -1}, {1, -4, 6, -4, 1}};
    auto diff = [&](int k, int order) {  // order-th difference of moment k, and its error
        double v = 0, e = 0;
        for (int i = 0; i <= order; ++i) {
            v += binom[order - 1][i] * values(g[i])[static_cast<std::size_t>(k)];
            e += std::abs(binom[order - 1][i]) * errors(g[i])[static_cast<std::size_t>(k)];
        }
        return std::pair{v, e};
    };
    const int degree[6] = {1, 1, 2, 2, 3, 2};
    for (int k = 0; k < 6; ++k) {
        CAPTURE(std::string(kNames[k]));
        const auto [vanish, err] = diff(k, degree[k] + 1);
        CHECK(std::abs(vanish) <= err);
        const auto [lower, err_lower] = diff(k, degree[k]);  // the top degree is really there
        CHECK(std::abs(lower) > 100 * err_lower);
    }
}

TEST_CASE("gradient moments: validation names the field, and a JSON round trip") {
    using test::invalid_param;
    GradientMomentParams p;
    p.rel_tol = 0;
    CHECK(invalid_param([&] { p.validate(); }) == "rel_tol");
    p = {};
    p.inner_resolution = 2;
    CHECK(invalid_param([&] { p.validate(); }) == "inner_resolution");
    p = {};
    p.z_range = 1;
    CHECK(invalid_param([&] { p.validate(); }) == "z_range");
    p = {};
    p.max_segments = 3;
    CHECK(invalid_param([&] { p.validate(); }) == "max_segments");
    CHECK(invalid_param([] { exact_gradient_moments(ModelParams{}, 1.5); }) == "rho");
    CHECK(invalid_param([] { exact_gradient_moments(ModelParams{50, 100, 10, 1.0, 1.0, 13.0}, 0.5); }) == "beta");
    CHECK(invalid_param([] { exact_gradient_moments(ModelParams{1, 100, 10, 1.0, 1.0, 1.0}, 0.5); }) == "d");
    CHECK(invalid_param([] { GradientMomentParams{}.validate(); }).empty());

    GradientMomentParams q;
    q.rel_tol = 1e-10;
    q.max_segments = 99;
    const nlohmann::json jq = q;
    const auto q2 = jq.get<GradientMomentParams>();
    CHECK(q2.rel_tol == q.rel_tol);
    CHECK(q2.inner_resolution == q.inner_resolution);
    CHECK(q2.z_range == q.z_range);
    CHECK(q2.max_segments == q.max_segments);

    const OneStepExpansion e = one_step_expansion(ModelParams{}, 0.5, UpdateRule::tangent);
    const nlohmann::json je = e;
    const auto e2 = je.get<OneStepExpansion>();
    CHECK(nlohmann::json(e2) == je);
    CHECK(e2.rule == UpdateRule::tangent);
    CHECK(e2.B == e.B);
    CHECK(e2.moments.g_w_sq == e.moments.g_w_sq);
    CHECK(e2.moments.segments == e.moments.segments);
    CHECK(je.at("rule") == "tangent");
    nlohmann::json bad = je;
    bad["rule"] = "sideways";
    CHECK(invalid_param([&] { (void)bad.get<OneStepExpansion>(); }) == "update");
}

TEST_CASE("one-step expansion: the default model's table (pinned values)") {
    // The numbers quoted in docs/theory.md section 8 (computed by this code; the tests above are
    // their independent checks). Run with -s to see the table; its speed: rhoflow-bench moments.
    struct Row {
        double rho, F, B_norm, B_tan, Sigma;
    };
    const Row rows[] = {
        {0.10, 0.2591503128, -0.7917195207, -0.1919524398, 0.0898051264},
        {0.50, 0.3756263756, -2.1450097099, -1.1637703005, 0.0860258790},
        {0.90, 0.1630575054, -3.6171491986, -3.0870461500, 0.0285864327},
        {0.97, 0.0551870734, -3.8013144001, -3.6130692864, 0.0092025808},
        {0.99, 0.0190262226, -3.8430215944, -3.7771951819, 0.0031245211},
    };
    const ModelParams m;
    (void)exact_gradient_moments(m, 0.5);  // builds the expansion once
    for (const Row& r : rows) {
        CAPTURE(r.rho);
        const ExactGradientMoments g = exact_gradient_moments(m, r.rho);
        const OneStepExpansion n = one_step_expansion(g, UpdateRule::normalized), t = one_step_expansion(g, UpdateRule::tangent);
        CHECK(std::abs(n.F - r.F) < 1e-10);
        CHECK(std::abs(n.B - r.B_norm) < 1e-10);
        CHECK(std::abs(t.B - r.B_tan) < 1e-10);
        CHECK(std::abs(n.Sigma - r.Sigma) < 1e-10);
        MESSAGE("rho = " << r.rho << ": F = " << n.F << ", B (normalized) = " << n.B << " +- " << n.B_err
                         << ", B (tangent) = " << t.B << " +- " << t.B_err << ", Sigma = " << n.Sigma << " +- "
                         << n.Sigma_err << " (" << g.outer_nodes << " outer nodes)");
    }
}
