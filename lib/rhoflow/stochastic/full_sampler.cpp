#include "rhoflow/stochastic/full_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "rhoflow/core/detail/exp_nonpositive.hpp"
#include "rhoflow/core/detail/simd.hpp"

namespace rhoflow {

namespace {
// Normals per fill of pass 1: whole rows, about 32 KiB, so that a block is still in the L1/L2
// cache when it is scored and folded.
constexpr Eigen::Index kBlockNormals = 4096;

// The row loops (stochastic/detail/full_passes.hpp) over V4, a GCC vector of four doubles, once
// per SIMD variant; loads and stores through memcpy (no vector crosses a call, defined when
// unaligned).
constexpr std::size_t kLanes = 4;
using V4 = double __attribute__((vector_size(kLanes * sizeof(double))));
[[gnu::always_inline]] inline void load4(V4& x, const double* p) noexcept { std::memcpy(&x, p, sizeof x); }
[[gnu::always_inline]] inline double lane_sum(const V4& s) noexcept { return (s[0] + s[1]) + (s[2] + s[3]); }

namespace baseline {
#include "rhoflow/stochastic/detail/full_passes.hpp"
}  // namespace baseline
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define RHOFLOW_FULL_X86 1
#pragma GCC push_options
#pragma GCC target("avx2")
namespace avx2 {
#include "rhoflow/stochastic/detail/full_passes.hpp"
}  // namespace avx2
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512vl,avx2")
namespace avx512 {
#include "rhoflow/stochastic/detail/full_passes.hpp"
}  // namespace avx512
#pragma GCC pop_options
#endif

struct RowPasses {
    double (*scale_dot)(double*, const double*, std::size_t, double, double) noexcept;
    double (*dot)(const double*, const double*, std::size_t) noexcept;
    void (*axpy)(double*, double, const double*, std::size_t) noexcept;
    void (*scale)(double*, double, std::size_t) noexcept;
};

RowPasses active_row_passes() noexcept {
#ifdef RHOFLOW_FULL_X86
    switch (detail::active_simd_variant()) {
    case detail::SimdVariant::avx512: return {avx512::scale_dot, avx512::dot, avx512::axpy, avx512::scale};
    case detail::SimdVariant::avx2: return {avx2::scale_dot, avx2::dot, avx2::axpy, avx2::scale};
    default: break;
    }
#endif
    return {baseline::scale_dot, baseline::dot, baseline::axpy, baseline::scale};
}
}  // namespace

FullSampler::FullSampler(const ModelParams& model) : m_(model) {
    m_.validate();
    X_.resize(m_.L, m_.d);
    s_.resize(m_.L);
    e_.resize(m_.L);
    f_.resize(m_.d);
    g_.resize(m_.d);
}

Eigen::VectorXd FullSampler::query_with_alignment(std::int64_t d, double rho) {
    Eigen::VectorXd q = Eigen::VectorXd::Zero(d);
    q[0] = rho;
    q[1] = std::sqrt(std::max(0.0, 1 - rho * rho));
    return q;
}

Eigen::VectorXd FullSampler::random_query(std::int64_t d, RandomStream& rng) {
    Eigen::VectorXd q(d);
    rng.fill_normal(q.data(), static_cast<std::size_t>(d));
    return q / q.norm();
}

GradientDraw FullSampler::draw(const Eigen::VectorXd& q, RandomStream& rng) {
    const Eigen::Index L = m_.L, d = m_.d, R = m_.R;
    const double sigma = m_.sigma, beta = m_.beta, theta = m_.theta;

    // Pass 1: generate the tokens a block of rows at a time (one fill of the generator, still
    // in cache when read), score each, and fold it into f by an online softmax.
    const RowPasses pass = active_row_passes();
    const std::size_t dn = static_cast<std::size_t>(d);
    double* f = f_.data();
    double* g = g_.data();
    double smax = -std::numeric_limits<double>::infinity(), Z = 0;
    f_.setZero();
    const Eigen::Index block = std::max<Eigen::Index>(1, kBlockNormals / d);
    for (Eigen::Index i0 = 0; i0 < L; i0 += block) {
        const Eigen::Index rows = std::min(block, L - i0);
        rng.fill_normal(X_.row(i0).data(), static_cast<std::size_t>(rows * d));
        double bmax = smax;
        for (Eigen::Index i = i0; i < i0 + rows; ++i) {
            const double s = beta * pass.scale_dot(X_.row(i).data(), q.data(), dn, sigma, i < R ? theta : 0.0);
            s_[i] = s;
            bmax = s > bmax ? s : bmax;
        }
        // The running maximum moves once per block: the partial sums rescaled to it, then the
        // block's numerators e^{s - smax} in one vector call.
        if (bmax > smax) {
            const double arg = smax - bmax;  // <= 0; -inf on the first block, whose scale is 0
            double scale = 0;
            detail::exp_nonpositive(&arg, &scale, 1);
            Z *= scale;
            pass.scale(f, scale, dn);
            smax = bmax;
        }
        detail::exp_nonpositive_affine(s_.data() + i0, 1.0, smax, e_.data() + i0, static_cast<std::size_t>(rows));
        for (Eigen::Index i = i0; i < i0 + rows; ++i) {
            Z += e_[i];
            pass.axpy(f, e_[i], X_.row(i).data(), dn);
        }
    }
    f_ /= Z;

    // Pass 2: c_i = 2 beta a_i <x_i, f>; g = sum c_i x_i - (sum c_i) f. The numerators
    // e^{s_i - smax} first, all at once (rhoflow's vector exp, detail/exp_nonpositive.hpp).
    detail::exp_nonpositive_affine(s_.data(), 1.0, smax, e_.data(), static_cast<std::size_t>(L));
    GradientDraw out;
    double C = 0, A_I = 0, sum_a2 = 0, Iau = 0, Ia2 = 0;
    g_.setZero();
    for (Eigen::Index i = 0; i < L; ++i) {
        const double a = e_[i] / Z;
        const double* x = X_.row(i).data();
        const double c = 2.0 * beta * a * pass.dot(x, f, dn);
        C += c;
        pass.axpy(g, c, x, dn);
        sum_a2 += a * a;
        if (i < R) {
            A_I += a;
            Iau += a * s_[i] / beta;
            Ia2 += a * a;
        }
    }
    pass.axpy(g, -C, f, dn);

    // Decompose in the frame (q, e, rest).
    const double rho = q[0];
    Eigen::VectorXd e = -rho * q;
    e[0] += 1.0;  // xi - rho q
    double en = e.norm();
    if (en < 1e-12) {
        // rho = +-1: any unit vector orthogonal to q (the law does not depend on the choice).
        e.setZero();
        e[1] = 1.0;
        e -= q[1] * q;
        en = e.norm();
    }
    e /= en;
    out.f_u = f_.dot(q);
    out.f_v = f_.dot(e);
    out.f_w_sq = (f_ - out.f_u * q - out.f_v * e).squaredNorm();
    out.g_u = g_.dot(q);
    out.g_v = g_.dot(e);
    out.g_w_sq = (g_ - out.g_u * q - out.g_v * e).squaredNorm();
    out.mass_informative = A_I;
    out.sum_a2 = sum_a2;
    out.informative_au = Iau;
    out.informative_a2 = Ia2;
    return out;
}

double FullSampler::step(Eigen::VectorXd& q, double eta, UpdateRule rule, RandomStream& rng, GradientDraw* g) {
    const GradientDraw d = draw(q, rng);
    if (g) *g = d;
    if (rule == UpdateRule::tangent) g_ -= g_.dot(q) * q;
    q.noalias() += eta * g_;
    const double n = q.norm();
    if (!std::isfinite(n)) return std::numeric_limits<double>::quiet_NaN();  // the step overflowed
    if (n > 0) q /= n;
    return std::clamp(q[0], -1.0, 1.0);
}

}  // namespace rhoflow
