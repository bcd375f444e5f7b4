#include "rhoflow/reduced_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rhoflow {

double updated_rho(double rho, double eta, const GradientDraw& g, UpdateRule rule) noexcept {
    const double s = std::sqrt(std::max(0.0, 1.0 - rho * rho));
    const double cq = rule == UpdateRule::normalized ? 1.0 + eta * g.g_u : 1.0;
    const double ev = eta * g.g_v;
    const double den = std::sqrt(cq * cq + ev * ev + eta * eta * g.g_w_sq);
    if (!(den > 0)) return rho;  // q + eta g = 0 has probability zero; keep q
    return std::clamp((rho * cq + s * ev) / den, -1.0, 1.0);
}

ReducedSampler::ReducedSampler(const ModelParams& model) : m_(model) {
    m_.validate();
    const auto L = static_cast<std::size_t>(m_.L);
    u_.resize(L);
    v_.resize(L);
    z_.resize(L);
    a_.resize(L);
    c_.resize(L);
}

GradientDraw ReducedSampler::draw(double rho, RandomStream& rng) {
    const std::size_t L = u_.size(), R = static_cast<std::size_t>(m_.R);
    const double sigma = m_.sigma, beta = m_.beta;
    const double mean_u = m_.theta * rho;
    const double mean_v = m_.theta * std::sqrt(std::max(0.0, 1.0 - rho * rho));
    const bool has_w = m_.d >= 3;

    // Pass 1: the two in-plane coordinates of every token, and the largest score.
    double umax = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < L; ++i) {
        const double zu = rng.normal(), zv = rng.normal();
        const double u = sigma * zu + (i < R ? mean_u : 0.0);
        u_[i] = u;
        v_[i] = sigma * zv + (i < R ? mean_v : 0.0);
        umax = std::max(umax, u);
    }
    // Pass 2: stable softmax (scores shifted by the max) and the first moments; the normal
    // vector zeta of the conditional law of W W^T a is drawn here too.
    double Z = 0, Su = 0, Sv = 0, S2 = 0, SI = 0, SIu = 0, SI2 = 0, Sz = 0;
    for (std::size_t i = 0; i < L; ++i) {
        const double e = std::exp(beta * (u_[i] - umax));
        a_[i] = e;
        Z += e;
        Su += e * u_[i];
        Sv += e * v_[i];
        S2 += e * e;
        if (i < R) {
            SI += e;
            SIu += e * u_[i];
            SI2 += e * e;
        }
        if (has_w) {
            const double z = sigma * rng.normal();
            z_[i] = z;
            Sz += e * z;
        }
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
    // H = ||W^T a_hat||^2 ~ sigma^2 chi2_{d-2}; <a_hat, zeta>.
    const double H = has_w ? sigma * sigma * rng.chi_squared(m_.d - 2) : 0.0;
    const double sqH = std::sqrt(H);
    const double ah_z = has_w ? Sz * invZ / na : 0.0;
    g.f_w_sq = na2 * H;

    // Pass 3: <f, x_i> = f_u u_i + f_v v_i + r_i with r = W W^T a = a H + ||a|| sqrt(H) P zeta;
    // c_i = 2 beta a_i <f, x_i>, and b = c - (sum c) a enters through sums of c.
    double C = 0, Cu = 0, Cv = 0, Ca = 0, Cpz = 0;
    for (std::size_t i = 0; i < L; ++i) {
        const double a = a_[i] * invZ;
        a_[i] = a;
        double r = 0, pz = 0;
        if (has_w) {
            pz = z_[i] - (a / na) * ah_z;
            r = a * H + na * sqH * pz;
        }
        const double c = 2.0 * beta * a * (g.f_u * u_[i] + g.f_v * v_[i] + r);
        c_[i] = c;
        C += c;
        Cu += c * u_[i];
        Cv += c * v_[i];
        Ca += c * a;
        Cpz += c * pz;
    }
    g.g_u = Cu - C * g.f_u;
    g.g_v = Cv - C * g.f_v;
    if (has_w) {
        // b_ah = <b, a_hat>; ||b_perp||^2 summed directly (no cancellation); <P zeta, b> = Cpz
        // because <a, P zeta> = 0.
        const double b_ah = (Ca - C * na2) / na;
        double bperp2 = 0;
        for (std::size_t i = 0; i < L; ++i) {
            const double bp = c_[i] - C * a_[i] - b_ah * (a_[i] / na);
            bperp2 += bp * bp;
        }
        const double kappa = b_ah * sqH + Cpz;
        g.g_w_sq = kappa * kappa + sigma * sigma * bperp2 * rng.chi_squared(m_.d - 3);
    }
    return g;
}

double ReducedSampler::step(double rho, double eta, UpdateRule rule, RandomStream& rng,
                            GradientDraw* out) {
    const GradientDraw g = draw(rho, rng);
    if (out) *out = g;
    return updated_rho(rho, eta, g, rule);
}

}  // namespace rhoflow
