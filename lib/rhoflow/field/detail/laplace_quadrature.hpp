// Shared machinery of the Laplace-transform quadratures (docs/theory.md sections 4 and 8):
// the unit of t (the shift c = log E[S]), the set-up of both classes' inner rules at one rho
// (laplace_setup) and the adaptive outer rule in lambda = log t.
//
// Both the exact field (exact_field.cpp) and the exact one-step gradient moments
// (gradient_moments.cpp) write a softmax moment as int_{-inf}^{inf} I(lambda) dlambda with an
// integrand built from x^k e^{-x}, x = t e^{s - c}: bounded, decaying at least like e^lambda on
// the left and like M^L on the right. The driver below integrates a vector of C components, of
// which the first Checked carry the accuracy target (the others, e.g. the same integrands with
// the coarse inner rule, are integrated on the same panels and only summed):
//  - 31-point Gauss-Kronrod panels of width 4 on [-12, 8];
//  - extension to the left (widths 4, 8, 16, 16, ...) and to the right (2, 3, 4.5, ..., 8) until
//    the last panel's |Kronrod| is below 0.1 rel_tol times the L1 norm of every checked
//    component; that last panel's size is the tail error;
//  - bisection of the worst panel (largest |K - G| / L1 over the checked components) until
//    sum |K - G| <= rel_tol * L1 for every checked component, or max_segments.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rhoflow/core/detail/gauss_kronrod_vector.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/model/model.hpp"

namespace rhoflow::detail {

/// Above this x = t e^{s - c}, every x^k e^{-x} (k <= 2) is below 50^2 e^{-50} ~ 5e-19 of its bound
/// and 1 - e^{-x} is 1 to double precision (the exact field's cut-off).
inline constexpr double laplace_skip_x = 50.0;
/// Below this x, 1 - e^{-x} comes from expm1 (no cancellation); above, from exp.
inline constexpr double laplace_series_x = 0.25;

/// c = log E[S] for R informative scores N(mu, tau^2) and N nuisance scores N(0, tau^2): t is
/// measured in units of 1/E[S], so lambda = 0 is where t E[S] = 1.
inline double laplace_shift(std::int64_t R, std::int64_t N, double mu, double tau) {
    const double lI = R > 0 ? std::log(static_cast<double>(R)) + mu : -INFINITY;
    const double lN = N > 0 ? std::log(static_cast<double>(N)) : -INFINITY;
    const double lmax = std::max(lI, lN);
    return lmax + std::log(std::exp(lI - lmax) + std::exp(lN - lmax)) + 0.5 * tau * tau;
}

/// The set-up of a Laplace quadrature at one rho: the two classes of scores, the inner rule of
/// each present class and the shift c = laplace_shift(R, N, mu, tau).
template <class Rule>
struct LaplaceSetup {
    std::int64_t R = 0;           ///< informative tokens
    std::int64_t N = 0;           ///< nuisance tokens
    double tau = 0;               ///< the scores' sd, beta sigma
    double mu = 0;                ///< the informative scores' mean, beta theta rho
    double c = 0;                 ///< the unit of t, laplace_shift(R, N, mu, tau)
    std::array<Rule, 2> rules{};  ///< inner rules: informative (when R > 0), nuisance (when N > 0)
};

/// The set-up for `model` at `rho`; `make(count, mean, tau, c)` builds a present class's inner
/// rule (count R and mean mu for the informative class, N and 0 for the nuisance one).
template <class Rule, class Make>
LaplaceSetup<Rule> laplace_setup(const ModelParams& model, double rho, Make&& make) {
    LaplaceSetup<Rule> s;
    s.tau = model.tau();
    s.R = model.R;
    s.N = model.N();
    s.mu = model.beta * model.theta * rho;
    s.c = laplace_shift(s.R, s.N, s.mu, s.tau);
    if (s.R > 0) s.rules[0] = make(static_cast<double>(s.R), s.mu, s.tau, s.c);
    if (s.N > 0) s.rules[1] = make(static_cast<double>(s.N), 0.0, s.tau, s.c);
    return s;
}

/// Outcome of integrate_lambda: sums of all C components, and for the Checked ones their L1
/// norms and error parts.
template <std::size_t C, std::size_t Checked>
struct LambdaIntegral {
    std::array<double, C> sum{};                ///< Kronrod sum of every component
    std::array<double, Checked> L1{};           ///< L1 norm of every checked component
    std::array<double, Checked> outer_err{};    ///< sum over panels of |Kronrod - Gauss|
    std::array<double, Checked> tail_err{};     ///< |Kronrod| of the two outermost panels
    int segments = 0;                           ///< panels used
};

/// Integrates `integrand(lambda, std::array<double, C>& out)` over the real line (see the header
/// comment). `what` prefixes the NumericalError thrown when a tail does not decay by |lambda| = 400.
template <std::size_t C, std::size_t Checked, class F>
LambdaIntegral<C, Checked> integrate_lambda(F&& integrand, double rel_tol, int max_segments,
                                            const std::string& what) {
    static_assert(Checked <= C);
    using Panel = GKPanel<C>;
    auto panel = [&](double a, double b) { return gauss_kronrod_panel<31, C>(integrand, a, b); };

    std::vector<Panel> segs;
    for (double a = -12; a < 8; a += 4) segs.push_back(panel(a, a + 4));

    auto total_L1 = [&]() {
        std::array<double, Checked> L1{};
        for (const auto& s : segs)
            for (std::size_t k = 0; k < Checked; ++k) L1[k] += s.L1[k];
        return L1;
    };
    const double tail_eps = 0.1 * rel_tol;  // the last panel's size is added to the error
    auto negligible = [&](const Panel& s) {
        const auto L1 = total_L1();
        for (std::size_t k = 0; k < Checked; ++k)
            if (std::abs(s.K[k]) > tail_eps * L1[k]) return false;
        return true;
    };
    LambdaIntegral<C, Checked> out;
    // Extend to the left (the integrand decays at least like e^lambda there) and to the right
    // (like M^L, slowly when L is small and tau large), widening the panels as we go.
    double width = 4;
    while (!negligible(segs.front())) {
        const double a = segs.front().a;
        if (a < -400) throw NumericalError(what + ": left tail of the t-integral does not decay");
        segs.insert(segs.begin(), panel(a - width, a));
        width = std::min(2 * width, 16.0);
    }
    for (std::size_t k = 0; k < Checked; ++k) out.tail_err[k] += std::abs(segs.front().K[k]);
    width = 2;
    while (!negligible(segs.back())) {
        const double b = segs.back().b;
        if (b > 400) throw NumericalError(what + ": right tail of the t-integral does not decay");
        segs.push_back(panel(b, b + width));
        width = std::min(1.5 * width, 8.0);
    }
    for (std::size_t k = 0; k < Checked; ++k) out.tail_err[k] += std::abs(segs.back().K[k]);

    // Bisect the worst panel until every checked component meets rel_tol * L1.
    for (;;) {
        const auto L1 = total_L1();
        out.outer_err = {};
        for (const auto& s : segs)
            for (std::size_t k = 0; k < Checked; ++k) out.outer_err[k] += std::abs(s.K[k] - s.G[k]);
        bool ok = true;
        for (std::size_t k = 0; k < Checked; ++k)
            if (out.outer_err[k] > rel_tol * L1[k]) ok = false;
        if (ok || static_cast<int>(segs.size()) >= max_segments) break;
        std::size_t worst = 0;
        double worst_score = -1;
        for (std::size_t i = 0; i < segs.size(); ++i) {
            double score = 0;
            for (std::size_t k = 0; k < Checked; ++k)
                if (L1[k] > 0) score = std::max(score, std::abs(segs[i].K[k] - segs[i].G[k]) / L1[k]);
            if (score > worst_score) {
                worst_score = score;
                worst = i;
            }
        }
        const double a = segs[worst].a, b = segs[worst].b, m = 0.5 * (a + b);
        segs[worst] = panel(a, m);
        segs.insert(segs.begin() + static_cast<std::ptrdiff_t>(worst) + 1, panel(m, b));
    }

    for (const auto& s : segs)
        for (std::size_t k = 0; k < C; ++k) out.sum[k] += s.K[k];
    out.L1 = total_L1();
    out.segments = static_cast<int>(segs.size());
    return out;
}

}  // namespace rhoflow::detail
