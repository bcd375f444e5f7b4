#include "rhoflow/model/sample.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "rhoflow/core/detail/exp_nonpositive.hpp"
#include "rhoflow/core/detail/exp_vector.hpp"
#include "rhoflow/core/detail/simd.hpp"

namespace rhoflow {

namespace {

// Token sums run in kLanes interleaved partial sums (model/detail/sample_passes.hpp), one V4.
constexpr std::size_t kLanes = 4;
using V4 = double __attribute__((vector_size(kLanes * sizeof(double))));
// Loads, stores and sums through references and memcpy: no vector crosses a call boundary (its
// ABI differs between the variants) and unaligned access is defined.
[[gnu::always_inline]] inline void load4(V4& x, const double* p) noexcept { std::memcpy(&x, p, sizeof x); }
[[gnu::always_inline]] inline void store4(double* p, const V4& x) noexcept { std::memcpy(p, &x, sizeof x); }
[[gnu::always_inline]] inline double lane_sum(const V4& s) noexcept { return (s[0] + s[1]) + (s[2] + s[3]); }

struct FirstSums {
    double Z, Su, Sv, S2;
};
// The running sums of passes 3 and 4 between the parts of the tokens (FirstSums' Z, Su, Sv, S2 and
// sum a z: a V4 each, kept as doubles between the calls).
constexpr std::size_t kFirstAcc = 5 * kLanes;
struct GradientSums {
    double C, Cu, Cv, Ca, Cz;
};
struct GradientCoefficients {
    double inv_z, pz_coef, h, r_coef, two_beta, f_u, f_v;
};

namespace baseline {
#include "rhoflow/model/detail/sample_passes.hpp"
}  // namespace baseline

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define RHOFLOW_SAMPLE_AVX2 1
#pragma GCC push_options
#pragma GCC target("avx2")
namespace avx2 {
#include "rhoflow/model/detail/sample_passes.hpp"
}  // namespace avx2
#pragma GCC pop_options
// The same passes with AVX-512 for the element-wise loops (the sums stay in V4, four lanes, so
// every variant adds in the same order and gives the same bits).
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512vl,avx2")
namespace avx512 {
#include "rhoflow/model/detail/sample_passes.hpp"
}  // namespace avx512
#pragma GCC pop_options
#endif

// The passes of the variant in force (core/detail/simd.hpp).
struct Passes {
    double (*scale)(double*, double*, std::size_t, std::size_t, double, double, double) noexcept;
    void (*exp_first)(const double*, double*, const double*, double*, std::size_t, std::size_t, double, double, double,
                      double*) noexcept;
    void (*exp_first_zeta)(const double*, double*, const double*, double*, std::size_t, std::size_t, double, double,
                           double, double*) noexcept;
    GradientSums (*gradient)(const double*, const double*, const double*, const double*, double*, std::size_t,
                             const GradientCoefficients&) noexcept;
    double (*perp)(const double*, const double*, double, double, std::size_t) noexcept;
};

#define RHOFLOW_SAMPLE_PASSES(ns, fused)                                                                         \
    Passes {                                                                                                         \
        ns::pass_scale, ns::fused<false>, ns::fused<true>, ns::pass_gradient, ns::pass_perp \
    }

Passes active_passes() noexcept {
#ifdef RHOFLOW_SAMPLE_AVX2
    // AVX-512: the exp of exp_nonpositive_affine (eight lanes) before the sums, as before the fused
    // pass (which has four; this machine could not time it on AVX-512).
    if (detail::active_simd_variant() == detail::SimdVariant::avx512) return RHOFLOW_SAMPLE_PASSES(avx512, exp_then_first_sums);
    if (detail::simd_uses_avx2(detail::active_simd_variant())) return RHOFLOW_SAMPLE_PASSES(avx2, exp_first_sums);
#endif
    return RHOFLOW_SAMPLE_PASSES(baseline, exp_then_first_sums);
}
#undef RHOFLOW_SAMPLE_PASSES

}  // namespace

SampleDrawer::SampleDrawer(const ModelParams& model) : m_(model) {
    m_.validate();
    // Padded with zeros to whole lanes: a padding token has a = 0, so it adds exact zeros.
    const auto Lp = (static_cast<std::size_t>(m_.L) + kLanes - 1) / kLanes * kLanes;
    for (auto* w : {&u_, &v_, &z_, &a_, &c_}) w->assign(Lp, 0.0);
}

// The passes over the tokens are in model/detail/sample_passes.hpp (one copy per SIMD variant);
// the random draws stay here, in this order: L normals for u, L for v (written by the generator
// straight into the workspace: they are the step's main cost), L for zeta, then the two
// chi-squared draws, so that every stream reproduces.
GradientDraw SampleDrawer::draw(double rho, RandomStream& rng) {
    const std::size_t L = static_cast<std::size_t>(m_.L), Lp = u_.size(), R = static_cast<std::size_t>(m_.R);
    const double sigma = m_.sigma, beta = m_.beta;
    const bool has_w = m_.d >= 3;
    double* u = u_.data();
    double* v = v_.data();
    double* z = z_.data();
    double* a = a_.data();
    const Passes pass = active_passes();
    // The padding must be exact zeros; a draw at a non-finite rho would leave NaN there.
    for (std::size_t i = L; i < Lp; ++i) u[i] = v[i] = z[i] = a[i] = c_[i] = 0.0;

    // Pass 1 (random): the two in-plane coordinates of every token, and the softmax exponents.
    rng.fill_normal(u, L);
    rng.fill_normal(v, L);
    const double umax = pass.scale(u, v, L, R, sigma, m_.theta * rho, m_.theta * std::sqrt(std::max(0.0, 1.0 - rho * rho)));
    // Passes 2 to 4 in one loop: e^{beta (u - max)}, the stable softmax numerators (vectorised
    // exp, detail/exp_vector.hpp), each register's first moments of the attention weights as it
    // comes out, and with W (d >= 3) the L normals of zeta (random), scaled, and sum a zeta.
    // (Filling the normals a part at a time, so that the passes would read them from L1, measured
    // slower: 4096-token parts 0.1 cycle per token, 1024 0.8.)
    double acc[kFirstAcc] = {};
    if (has_w) {
        rng.fill_normal(z, L);
        pass.exp_first_zeta(u, a, v, z, L, Lp, beta, umax, sigma, acc);
    } else {
        pass.exp_first(u, a, v, z, L, Lp, beta, umax, sigma, acc);
    }
    double SI = 0, SIu = 0, SI2 = 0;
    for (std::size_t i = 0; i < R; ++i) {
        SI += a[i];
        SIu += a[i] * u[i];
        SI2 += a[i] * a[i];
    }
    V4 lanes;
    const auto sum_of = [&](std::size_t k) {
        load4(lanes, acc + k * kLanes);
        return lane_sum(lanes);
    };
    const FirstSums first{sum_of(0), sum_of(1), sum_of(2), sum_of(3)};
    const double Sz = sum_of(4);
    const double invZ = 1.0 / first.Z;
    GradientDraw g;
    g.f_u = first.Su * invZ;
    g.f_v = first.Sv * invZ;
    const double na2 = first.S2 * invZ * invZ, na = std::sqrt(na2);
    g.sum_a2 = na2;
    g.mass_informative = SI * invZ;
    g.informative_au = SIu * invZ;
    g.informative_a2 = SI2 * invZ * invZ;

    // W W^T a = a H + ||a|| sqrt(H) P zeta, with H = ||W^T a_hat||^2 ~ sigma^2 chi2_{d-2},
    // zeta ~ N(0, sigma^2 I_L) and P the projection orthogonal to a_hat = a / ||a||.
    double H = 0, sqH = 0, ah_z = 0;
    if (has_w) {
        H = sigma * sigma * rng.chi_squared(m_.d - 2);
        sqH = std::sqrt(H);
        ah_z = Sz * invZ / na;
    }
    g.f_w_sq = na2 * H;

    // Pass 5: c_i = 2 beta a_i <f, x_i>, <f, x_i> = f_u u_i + f_v v_i + r_i; b = c - (sum c) a,
    // with a normalised and zeta projected on the fly (neither stored).
    const double pz_coef = has_w ? ah_z / na : 0.0, r_coef = na * sqH;
    // (d = 2: z stays 0, never drawn, and H = 0.)
    const GradientSums sums = pass.gradient(a, u, v, z, c_.data(), Lp, {invZ, pz_coef, H, r_coef, 2.0 * beta, g.f_u, g.f_v});
    const double C = sums.C, Cu = sums.Cu, Cv = sums.Cv, Ca = sums.Ca, Cpz = sums.Cz;
    g.g_u = Cu - C * g.f_u;
    g.g_v = Cv - C * g.f_v;
    if (has_w) {
        // b_ah = <b, a_hat>; ||b_perp||^2 summed directly (no cancellation); <P zeta, b> = Cpz
        // because <a, P zeta> = 0.
        const double b_ah = (Ca - C * na2) / na;
        const double k = C + b_ah / na;
        const double bperp2 = pass.perp(c_.data(), a, invZ, k, Lp);  // pass 6
        const double kappa = b_ah * sqH + Cpz;
        g.g_w_sq = kappa * kappa + sigma * sigma * bperp2 * rng.chi_squared(m_.d - 3);
    }
    return g;
}

}  // namespace rhoflow
