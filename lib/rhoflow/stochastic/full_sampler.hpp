// The full d-dimensional stochastic recursion (docs/theory.md section 2): fresh tokens
// x_i = theta xi 1{i <= R} + z_i, z_i ~ N(0, sigma^2 I_d), every step; softmax attention, the
// per-sample gradient g = sum_i b_i x_i, and the projected update. xi = e_1.
//
// Cost O(L d) per step, organised so that the random-number generation dominates: the token
// rows are generated a block of about 4096 normals at a time (one vectorised fill, in the
// stream's order: row by row) into a reusable L x d buffer and, while still in cache, each
// row's score is taken and the block folded into f by an online softmax (the running maximum
// moves once per block, the partial sums rescaled to it; the block's numerators by one vector
// exp); a second pass forms c_i = 2 beta a_i <x_i, f> and sum_i c_i x_i, whence
// g = sum_i c_i x_i - (sum_i c_i) f. The buffer is written once and read once per step. The
// row loops (detail/full_passes.hpp) are compiled per SIMD variant with their sums in fixed
// lanes: the same bits on every variant.
// This simulator is the reference the reduced sampler is tested against; it makes no use of
// the rotational reduction.
#pragma once

#include <Eigen/Dense>

#include "rhoflow/model/model.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/model/sample.hpp"
#include "rhoflow/model/update_rule.hpp"

namespace rhoflow {

/// The full simulator; keeps an L x d workspace, so use one per thread.
class FullSampler {
public:
    /// Validates `model` (throws InvalidArgument) and allocates the workspace.
    explicit FullSampler(const ModelParams& model);
    /// The model simulated.
    const ModelParams& model() const noexcept { return m_; }
    /// One fresh sample X at unit query q: f and g, decomposed in the frame (q, e, rest) with
    /// e = (xi - rho q)/||xi - rho q|| (any unit vector orthogonal to q when rho = +-1).
    GradientDraw draw(const Eigen::VectorXd& q, RandomStream& rng);
    /// One SGA step: q <- normalise(q + eta g) (or the tangent variant); returns <q, xi>, or NaN
    /// when q + eta g is not representable (the step overflowed).
    double step(Eigen::VectorXd& q, double eta, UpdateRule rule, RandomStream& rng, GradientDraw* g = nullptr);
    /// The gradient g of the last draw (length d).
    const Eigen::VectorXd& last_gradient() const noexcept { return g_; }
    /// The attention output f of the last draw (length d).
    const Eigen::VectorXd& last_output() const noexcept { return f_; }
    /// A unit query with <q, xi> = rho (rho e_1 + sqrt(1 - rho^2) e_2).
    static Eigen::VectorXd query_with_alignment(std::int64_t d, double rho);
    /// A query uniform on the sphere, drawn from `rng`.
    static Eigen::VectorXd random_query(std::int64_t d, RandomStream& rng);

private:
    ModelParams m_;
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> X_;
    Eigen::VectorXd s_, e_, f_, g_;  // scores, softmax numerators, f, g
};

}  // namespace rhoflow
