#include "rhoflow/stochastic/full_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rhoflow {

namespace {
// Normals per fill of pass 1: whole rows, about 32 KiB, so that a block is still in the L1/L2
// cache when it is scored and folded.
constexpr Eigen::Index kBlockNormals = 4096;
}  // namespace

FullSampler::FullSampler(const ModelParams& model) : m_(model) {
    m_.validate();
    X_.resize(m_.L, m_.d);
    s_.resize(m_.L);
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
    double smax = -std::numeric_limits<double>::infinity(), Z = 0;
    f_.setZero();
    const Eigen::Index block = std::max<Eigen::Index>(1, kBlockNormals / d);
    for (Eigen::Index i0 = 0; i0 < L; i0 += block) {
        const Eigen::Index rows = std::min(block, L - i0);
        rng.fill_normal(X_.row(i0).data(), static_cast<std::size_t>(rows * d));
        for (Eigen::Index i = i0; i < i0 + rows; ++i) {
            auto x = X_.row(i);
            x *= sigma;
            if (i < R) x[0] += theta;
            const double s = beta * x.dot(q.transpose());
            s_[i] = s;
            if (s > smax) {
                const double scale = std::exp(smax - s);  // 0 on the first token
                Z *= scale;
                f_ *= scale;
                smax = s;
            }
            const double w = std::exp(s - smax);
            Z += w;
            f_.noalias() += w * x.transpose();
        }
    }
    f_ /= Z;

    // Pass 2: c_i = 2 beta a_i <x_i, f>; g = sum c_i x_i - (sum c_i) f.
    GradientDraw out;
    double C = 0, A_I = 0, sum_a2 = 0, Iau = 0, Ia2 = 0;
    g_.setZero();
    for (Eigen::Index i = 0; i < L; ++i) {
        const double a = std::exp(s_[i] - smax) / Z;
        auto x = X_.row(i);
        const double c = 2.0 * beta * a * x.dot(f_.transpose());
        C += c;
        g_.noalias() += c * x.transpose();
        sum_a2 += a * a;
        if (i < R) {
            A_I += a;
            Iau += a * s_[i] / beta;
            Ia2 += a * a;
        }
    }
    g_.noalias() -= C * f_;

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
