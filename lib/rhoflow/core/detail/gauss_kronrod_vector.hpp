// Adaptive Gauss-Kronrod quadrature of a vector-valued integrand over a finite set of
// segments, built on Boost.Math's Gauss-Kronrod and Gauss node tables.
//
// Why not boost::math::quadrature::gauss_kronrod::integrate directly: the exact field needs
// several integrals (j, j', E[A_I] and their coarse-inner-rule twins) of integrands that share
// almost all of their cost (the exponentials of the inner Gaussian expectations). Boost's
// driver is scalar; calling it once per component would repeat that cost per component. This
// driver evaluates the integrand once per node for all components and applies Boost's nodes
// and weights, with Boost's error estimate per segment (|Kronrod - Gauss|) and L1 norm.
//
// The error estimate |K - G| is the error of the embedded Gauss rule, so it bounds the error
// of the Kronrod result that is returned very conservatively for smooth integrands.
#pragma once

#include <array>
#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <cstddef>

namespace rhoflow::detail {

/// Result of one Gauss-Kronrod panel for an integrand with C components.
template <std::size_t C>
struct GKPanel {
    double a = 0, b = 0;          ///< the segment
    std::array<double, C> K{};    ///< Kronrod estimate of each component's integral
    std::array<double, C> G{};    ///< embedded Gauss estimate
    std::array<double, C> L1{};   ///< Kronrod estimate of the integral of |component|
};

/// Applies the (2n+1)-point Gauss-Kronrod rule with NK points to f on [a, b].
/// `f(x, out)` writes the C components of the integrand at x into `out` (std::array<double,C>).
template <unsigned NK, std::size_t C, class F>
GKPanel<C> gauss_kronrod_panel(F&& f, double a, double b) {
    using kronrod = boost::math::quadrature::gauss_kronrod<double, NK>;
    using gauss = boost::math::quadrature::gauss<double, (NK - 1) / 2>;
    const auto& xk = kronrod::abscissa();
    const auto& wk = kronrod::weights();
    const auto& wg = gauss::weights();
    constexpr unsigned gauss_order = (NK - 1) / 2;
    const double mid = 0.5 * (a + b), half = 0.5 * (b - a);

    GKPanel<C> p;
    p.a = a;
    p.b = b;
    std::array<double, C> fp{}, fm{};
    // Node 0 (the centre) is a Gauss node only when the Gauss order is odd.
    f(mid, fp);
    for (std::size_t c = 0; c < C; ++c) {
        p.K[c] = fp[c] * wk[0];
        p.L1[c] = std::abs(fp[c]) * wk[0];
        if (gauss_order & 1) p.G[c] = fp[c] * wg[0];
    }
    const unsigned gauss_start = (gauss_order & 1) ? 2 : 1;
    for (unsigned i = 1; i < xk.size(); ++i) {
        f(mid + half * xk[i], fp);
        f(mid - half * xk[i], fm);
        const bool is_gauss = (i >= gauss_start) && ((i - gauss_start) % 2 == 0);
        for (std::size_t c = 0; c < C; ++c) {
            const double s = fp[c] + fm[c];
            p.K[c] += s * wk[i];
            p.L1[c] += (std::abs(fp[c]) + std::abs(fm[c])) * wk[i];
            if (is_gauss) p.G[c] += s * wg[i / 2];
        }
    }
    for (std::size_t c = 0; c < C; ++c) {
        p.K[c] *= half;
        p.G[c] *= half;
        p.L1[c] *= half;
    }
    return p;
}

}  // namespace rhoflow::detail
