#include "rhoflow/model/sample.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "rhoflow/core/detail/exp_nonpositive.hpp"

namespace rhoflow {

SampleDrawer::SampleDrawer(const ModelParams& model) : m_(model) {
    m_.validate();
    const auto L = static_cast<std::size_t>(m_.L);
    u_.resize(L);
    v_.resize(L);
    z_.resize(L);
    a_.resize(L);
    c_.resize(L);
}

// Deliberate hot loop, kept whole (an exception to the ~80-line rule): one call per sample for
// the reduced sampler, the Monte Carlo field and the step-moment tables. Its six passes over the
// L tokens share the workspace and the running sums, and the random draws stay in this order
// (passes 1 and 4, then the two chi-squared draws) so that every stream reproduces.
GradientDraw SampleDrawer::draw(double rho, RandomStream& rng) {
    const std::size_t L = u_.size(), R = static_cast<std::size_t>(m_.R);
    const double sigma = m_.sigma, beta = m_.beta;
    const double mean_u = m_.theta * rho;
    const double mean_v = m_.theta * std::sqrt(std::max(0.0, 1.0 - rho * rho));
    const bool has_w = m_.d >= 3;
    double* u = u_.data();
    double* v = v_.data();
    double* z = z_.data();
    double* a = a_.data();
    double* c = c_.data();

    // Pass 1 (random): the two in-plane coordinates of every token, and the largest score.
    double umax = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < L; ++i) {
        const double shift_u = i < R ? mean_u : 0.0, shift_v = i < R ? mean_v : 0.0;
        u[i] = sigma * rng.normal() + shift_u;
        v[i] = sigma * rng.normal() + shift_v;
        umax = std::max(umax, u[i]);
    }
    // Pass 2: e^{beta (u - max)}, the stable softmax numerators (vectorised exp, see
    // detail/exp_nonpositive.hpp).
    for (std::size_t i = 0; i < L; ++i) a[i] = beta * (u[i] - umax);
    detail::exp_nonpositive(a, a, L);
    // Pass 3: first moments of the attention weights.
    double Z = 0, Su = 0, Sv = 0, S2 = 0, SI = 0, SIu = 0, SI2 = 0;
    for (std::size_t i = 0; i < L; ++i) {
        Z += a[i];
        Su += a[i] * u[i];
        Sv += a[i] * v[i];
        S2 += a[i] * a[i];
    }
    for (std::size_t i = 0; i < R; ++i) {
        SI += a[i];
        SIu += a[i] * u[i];
        SI2 += a[i] * a[i];
    }
    const double invZ = 1.0 / Z;
    GradientDraw g;
    g.f_u = Su * invZ;
    g.f_v = Sv * invZ;
    const double na2 = S2 * invZ * invZ, na = std::sqrt(na2);
    g.sum_a2 = na2;
    g.mass_informative = SI * invZ;
    g.informative_au = SIu * invZ;
    g.informative_a2 = SI2 * invZ * invZ;

    // W W^T a = a H + ||a|| sqrt(H) P zeta, with H = ||W^T a_hat||^2 ~ sigma^2 chi2_{d-2},
    // zeta ~ N(0, sigma^2 I_L) and P the projection orthogonal to a_hat = a / ||a||.
    double H = 0, sqH = 0, ah_z = 0;
    if (has_w) {
        double Sz = 0;
        for (std::size_t i = 0; i < L; ++i) {  // pass 4 (random)
            z[i] = sigma * rng.normal();
            Sz += a[i] * z[i];
        }
        H = sigma * sigma * rng.chi_squared(m_.d - 2);
        sqH = std::sqrt(H);
        ah_z = Sz * invZ / na;
    }
    g.f_w_sq = na2 * H;

    // Pass 5: c_i = 2 beta a_i <f, x_i>, <f, x_i> = f_u u_i + f_v v_i + r_i; b = c - (sum c) a.
    // a is normalised here; z becomes P zeta.
    const double pz_coef = has_w ? ah_z / na : 0.0, r_coef = na * sqH;
    double C = 0, Cu = 0, Cv = 0, Ca = 0, Cpz = 0;
    for (std::size_t i = 0; i < L; ++i) {
        const double ai = a[i] * invZ;
        a[i] = ai;
        double r = 0;
        if (has_w) {
            z[i] -= pz_coef * ai;
            r = ai * H + r_coef * z[i];
        }
        const double ci = 2.0 * beta * ai * (g.f_u * u[i] + g.f_v * v[i] + r);
        c[i] = ci;
        C += ci;
        Cu += ci * u[i];
        Cv += ci * v[i];
        Ca += ci * ai;
        if (has_w) Cpz += ci * z[i];
    }
    g.g_u = Cu - C * g.f_u;
    g.g_v = Cv - C * g.f_v;
    if (has_w) {
        // b_ah = <b, a_hat>; ||b_perp||^2 summed directly (no cancellation); <P zeta, b> = Cpz
        // because <a, P zeta> = 0.
        const double b_ah = (Ca - C * na2) / na;
        const double k = C + b_ah / na;
        double bperp2 = 0;
        for (std::size_t i = 0; i < L; ++i) {  // pass 6
            const double bp = c[i] - k * a[i];
            bperp2 += bp * bp;
        }
        const double kappa = b_ah * sqH + Cpz;
        g.g_w_sq = kappa * kappa + sigma * sigma * bperp2 * rng.chi_squared(m_.d - 3);
    }
    return g;
}

}  // namespace rhoflow
