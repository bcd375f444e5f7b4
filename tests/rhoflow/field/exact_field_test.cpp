// Accuracy tests of the exact field: reference values from an independent implementation,
// closed forms, an independent derivative (Richardson-extrapolated differences of j), the
// approach to the mean-field limit, and finiteness over the whole parameter range.
#include "rhoflow/field/exact_field.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/field/detail/laplace_quadrature.hpp"
#include "rhoflow/field/meanfield.hpp"
#include "test_util.hpp"

using namespace rhoflow;
using rhoflow::test::rel_diff;

TEST_CASE("exact field: reference values (j to 1e-8, j' to 1e-5 relative, within our error bars)") {
    for (const auto& r : test::reference_rows()) {
        CAPTURE(describe(r.model));
        CAPTURE(r.rho);
        const FieldPoint p = exact_field(r.model, r.rho);
        CHECK(rel_diff(p.j, r.j) < 1e-8);
        CHECK(rel_diff(p.dj, r.dj) < 1e-5);
        CHECK(rel_diff(p.mass_informative, r.mass) < 1e-8);
        CHECK(rel_diff(p.drift, r.drift) < 1e-5);
        // Sharper: our error estimates must cover the difference, up to the reference's own
        // accuracy (1e-11 relative for j and E[A_I]; its extrapolation error estimate for j').
        CHECK(std::abs(p.j - r.j) <= p.j_err + 1e-11 * std::abs(r.j));
        CHECK(std::abs(p.mass_informative - r.mass) <= p.mass_err + 1e-11 * r.mass);
        CHECK(std::abs(p.dj - r.dj) <= p.dj_err + 3 * r.dj_err + 1e-11 * std::abs(r.dj));
        // And they are small: the default target is 1e-12 of the integrand's L1 norm.
        CHECK(p.j_err < 1e-11 * p.j);
    }
}

TEST_CASE("exact field: j' agrees with Richardson-extrapolated differences of j") {
    const std::vector<std::pair<ModelParams, double>> cases = {
        {ModelParams{20, 50, 10, 2.0, 1.0, 1.0}, 0.7},
        {ModelParams{100, 10500, 500, 3.0, 1.0, 1.0}, -0.4},
        {ModelParams{50, 50, 25, 1.0, 1.0, 1.0}, 0.0},
        {ModelParams{64, 300, 1, 3.0, 0.5, 2.0}, 0.5},
        {ModelParams{10, 40, 40, 1.5, 1.0, 0.7}, -0.2},
    };
    for (const auto& [m, rho] : cases) {
        CAPTURE(describe(m));
        auto D = [&](double h) {
            return (exact_field(m, rho + h).j - exact_field(m, rho - h).j) / (2 * h);
        };
        const double h = 2e-3;
        // Two Richardson steps remove the h^2 and h^4 terms; truncation ~h^6, rounding ~1e-16/h.
        const double d1 = (4 * D(h / 2) - D(h)) / 3;
        const double d2 = (4 * D(h / 4) - D(h / 2)) / 3;
        const double fd = (16 * d2 - d1) / 15;
        const FieldPoint p = exact_field(m, rho);
        CHECK(std::abs(p.dj - fd) < 1e-9 * (std::abs(p.dj) + p.j));
    }
}

TEST_CASE("exact field: closed forms") {
    SUBCASE("L = 1: f = x_1, so j = theta^2 + d sigma^2 (informative) or d sigma^2, and j' = 0") {
        for (double rho : {-1.0, -0.3, 0.0, 0.8, 1.0}) {
            const FieldPoint inf = exact_field(ModelParams{7, 1, 1, 1.3, 0.8, 1.7}, rho);
            CHECK(rel_diff(inf.j, 1.3 * 1.3 + 7 * 0.64) < 1e-13);
            CHECK(std::abs(inf.dj) <= inf.dj_err + 1e-13);
            CHECK(inf.mass_informative == doctest::Approx(1.0).epsilon(1e-13));
            const FieldPoint noi = exact_field(ModelParams{7, 1, 0, 1.3, 0.8, 1.7}, rho);
            CHECK(rel_diff(noi.j, 7 * 0.64) < 1e-13);
            CHECK(noi.dj == 0.0);
            CHECK(noi.mass_informative == 0.0);
        }
    }
    SUBCASE("beta -> 0: uniform attention, j = theta^2 alpha^2 + d sigma^2 / L + O(beta)") {
        const ModelParams m{30, 12, 4, 2.0, 1.5, 1e-7};
        const FieldPoint p = exact_field(m, 0.4);
        const double alpha = 4.0 / 12.0;
        CHECK(rel_diff(p.j, 4.0 * alpha * alpha + 30 * 2.25 / 12) < 1e-5);
        CHECK(rel_diff(p.mass_informative, alpha) < 1e-5);
    }
    SUBCASE("R = 0 or theta = 0: no signal, the field is flat") {
        for (double rho : {-0.9, 0.1, 1.0}) {
            CHECK(exact_field(ModelParams{10, 100, 0, 2.0, 1.0, 1.0}, rho).dj == 0.0);
            CHECK(exact_field(ModelParams{10, 100, 5, 0.0, 1.0, 1.0}, rho).dj == 0.0);
        }
        CHECK(rel_diff(exact_field(ModelParams{10, 100, 0, 2.0, 1.0, 1.0}, -0.9).j,
                       exact_field(ModelParams{10, 100, 0, 2.0, 1.0, 1.0}, 0.9).j) < 1e-14);
    }
    SUBCASE("R = L: informative tokens only, E[A_I] = 1, and theta rho shifts all scores alike") {
        // With R = L the common shift beta theta rho cancels in the softmax, so
        // j = theta^2 rho^2 + 2 theta rho E[sum a z_u] + E[(sum a z_u)^2] + theta^2 (1-rho^2) + ...
        // is only a quadratic in rho: j'' is constant. Check that third differences vanish.
        const ModelParams m{5, 6, 6, 1.2, 0.9, 1.1};
        const double h = 0.2;
        const double j0 = exact_field(m, -0.3).j, j1 = exact_field(m, -0.3 + h).j,
                     j2 = exact_field(m, -0.3 + 2 * h).j, j3 = exact_field(m, -0.3 + 3 * h).j;
        CHECK(std::abs(j3 - 3 * j2 + 3 * j1 - j0) < 1e-12 * j0);
        CHECK(exact_field(m, 0.5).mass_informative == doctest::Approx(1.0).epsilon(1e-14));
    }
}

TEST_CASE("exact field: approaches the mean-field limit like 1/L at fixed R/L") {
    // Include the (d-1) sigma^2 E[sum a^2] = O(d/L) term in what vanishes: compare the whole j.
    std::vector<double> gaps;
    std::vector<double> Ls = {1e2, 1e3, 1e4, 1e5, 1e6};
    for (double L : Ls) {
        const ModelParams m{20, static_cast<std::int64_t>(L), static_cast<std::int64_t>(L / 10), 1.5, 1.0, 1.0};
        const double rho = 0.3;
        gaps.push_back(std::abs(exact_field(m, rho).j - meanfield_field(m, rho).j));
    }
    for (std::size_t i = 1; i < gaps.size(); ++i) {
        CAPTURE(i);
        // Each tenfold increase of L divides the gap by about ten (O(1/L)): allow 8..12.5.
        const double ratio = gaps[i - 1] / gaps[i];
        CHECK(ratio > 8.0);
        CHECK(ratio < 12.5);
    }
    CHECK(gaps.back() < 1e-4);
}

TEST_CASE("exact field: finite, with small error bars and the closed forms, over the whole parameter range") {
    const std::vector<std::int64_t> Ls = {1, 2, 3, 17, 1000, 1000000, 100000000};
    const std::vector<double> betas = {0.01, 1.0, 4.0, 12.0};
    for (auto L : Ls)
        for (auto R : {std::int64_t{0}, std::int64_t{1}, L / 2, L - 1, L}) {
            if (R < 0 || R > L) continue;
            for (double beta : betas) {
                double j_first = 0;  // j at the first rho (R = 0: j does not depend on rho)
                for (double rho : {-1.0, -0.5, 0.0, 0.9, 1.0}) {
                    const ModelParams m{3, L, R, 2.5, 1.0, beta};
                    CAPTURE(describe(m));
                    CAPTURE(rho);
                    const FieldPoint p = exact_field(m, rho);
                    CHECK(std::isfinite(p.j));
                    CHECK(std::isfinite(p.dj));
                    CHECK(std::isfinite(p.mass_informative));
                    CHECK(std::isfinite(p.j_err));
                    CHECK(std::isfinite(p.dj_err));
                    CHECK(p.j > 0);
                    CHECK(p.mass_informative >= 0);
                    CHECK(p.mass_informative <= 1 + 1e-12);
                    CHECK(p.j_err < 1e-9 * p.j);
                    // Closed forms that hold at every point of the sweep (d = 3, theta = 2.5,
                    // sigma = 1): L = 1 gives f = x_1, so j = theta^2 + d sigma^2 when the token
                    // is informative and d sigma^2 when not, with j' = 0 and E[A_I] = R.
                    if (L == 1) {
                        CHECK(rel_diff(p.j, R == 1 ? 2.5 * 2.5 + 3.0 : 3.0) < 1e-12);
                        CHECK(std::abs(p.dj) <= p.dj_err + 1e-12);
                        CHECK(p.mass_informative == doctest::Approx(static_cast<double>(R)).epsilon(1e-12));
                    }
                    // Only informative tokens: all the attention is on them.
                    if (R == L) CHECK(p.mass_informative == doctest::Approx(1.0).epsilon(1e-12));
                    // No informative token: no attention on them, and nothing depends on rho.
                    if (R == 0) {
                        CHECK(p.mass_informative == 0.0);
                        CHECK(p.dj == 0.0);
                        CHECK(p.drift == 0.0);
                        if (rho == -1.0) j_first = p.j;
                        CHECK(rel_diff(p.j, j_first) < 1e-13);
                    }
                    // The drift is (1 - rho^2) j' and vanishes at the poles.
                    CHECK(p.drift == drift_of(rho, p.dj));
                    if (std::abs(rho) == 1.0) CHECK(p.drift == 0.0);
                }
            }
        }
}

TEST_CASE("exact field: invalid input is refused, naming the parameter") {
    ModelParams m;
    CHECK(test::invalid_param([&] { exact_field(m, 1.01); }) == "rho");
    CHECK(test::invalid_param([&] { exact_field(m, std::nan("")); }) == "rho");
    m.beta = 13;
    CHECK(test::invalid_param([&] { exact_field(m, 0.5); }) == "beta");
    m.beta = 1;
    ExactFieldParams p;
    p.rel_tol = 0;
    CHECK(test::invalid_param([&] { exact_field(m, 0.5, p); }) == "rel_tol");
}

TEST_CASE("exact field: sigma -> 0 has the deterministic-attention closed form, with j' accurate") {
    // With sigma = 0 the scores are beta theta rho (informative) and 0: every informative token
    // gets w/R, w = R e^{beta theta rho} / (R e^{beta theta rho} + N), so f = w theta xi and
    // j = theta^2 w^2, j' = 2 beta theta^3 w^2 (1 - w). Stein's identity divides by tau and lost
    // j' entirely at tau = 1e-20 (j' = -0.43 +- 4.4 where 0.0296 is right).
    for (const double sigma : {1e-20, 1e-300, 1e-9}) {
        for (const double rho : {-0.6, 0.3, 0.95}) {
            const ModelParams m{50, 1000, 100, 1.3, sigma, 0.8};
            CAPTURE(sigma);
            CAPTURE(rho);
            const double e = std::exp(m.beta * m.theta * rho);
            const double w = 100 * e / (100 * e + 900);
            const FieldPoint p = exact_field(m, rho);
            CHECK(p.j == doctest::Approx(m.theta * m.theta * w * w).epsilon(1e-9));
            CHECK(p.dj == doctest::Approx(2 * m.beta * std::pow(m.theta, 3) * w * w * (1 - w)).epsilon(1e-9));
            CHECK(p.dj_err < 1e-12);
            CHECK(p.mass_informative == doctest::Approx(w).epsilon(1e-12));
        }
    }
}

TEST_CASE("Laplace set-up: each present class's rule from its count and mean, the shift log E[S]") {
    // A rule records what it was made from; the informative class has count R and mean
    // beta theta rho, the nuisance class N and 0, both tau = beta sigma and c = log E[S].
    struct Made {
        double count = -1, mean = -1, tau = -1, c = -1;
    };
    auto make = [](double count, double mean, double tau, double c) { return Made{count, mean, tau, c}; };
    ModelParams m;
    m.L = 7;
    m.R = 3;
    m.theta = 0.5;
    m.sigma = 2.0;
    m.beta = 0.75;
    const double rho = 0.4, mu = 0.75 * 0.5 * 0.4, tau = 1.5;
    const auto s = detail::laplace_setup<Made>(m, rho, make);
    CHECK(s.R == 3);
    CHECK(s.N == 4);
    CHECK(s.tau == tau);
    CHECK(s.mu == mu);
    // E[S] = R e^{mu + tau^2/2} + N e^{tau^2/2}
    CHECK(s.c == doctest::Approx(std::log(3 * std::exp(mu) + 4.0) + 0.5 * tau * tau).epsilon(1e-14));
    CHECK(s.c == detail::laplace_shift(3, 4, mu, tau));
    CHECK(s.rules[0].count == 3.0);
    CHECK(s.rules[0].mean == mu);
    CHECK(s.rules[1].count == 4.0);
    CHECK(s.rules[1].mean == 0.0);
    for (const Made& r : s.rules) {
        CHECK(r.tau == tau);
        CHECK(r.c == s.c);
    }
    // An absent class has no rule: R = 0 (no informative token), then R = L (no nuisance one).
    m.R = 0;
    const auto none_i = detail::laplace_setup<Made>(m, rho, make);
    CHECK(none_i.rules[0].count == -1.0);
    CHECK(none_i.rules[1].count == 7.0);
    m.R = 7;
    const auto none_n = detail::laplace_setup<Made>(m, rho, make);
    CHECK(none_n.rules[0].count == 7.0);
    CHECK(none_n.rules[1].count == -1.0);
}
