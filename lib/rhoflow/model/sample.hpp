// The model's exact per-sample law in the reduced frame (docs/theory.md section 6): one fresh
// sample X at alignment rho, reduced to f and the per-sample gradient g in the frame (q, e, rest),
// with the law of the full d-dimensional computation, at O(L) cost whatever d is. This is what the
// Monte Carlo field, the one-step moments of the rho-chain and both samplers share; it lives below
// the field and the stochastic side so that neither depends on the other.
//
// In the orthonormal frame (q, e, W-directions) with e = (xi - rho q)/sqrt(1 - rho^2), token i
// has coordinates u_i = <q, x_i>, v_i = <e, x_i> and w_i in R^{d-2}. Only W W^T a and ||W^T b||
// involve the d-2 remaining dimensions, and conditioning on W^T a/||a|| gives them exactly from
// one chi-square with d-2 degrees of freedom, L normals and one chi-square with d-3.
// Edge cases: d = 2 has no W at all (H = 0, ||g_w|| = 0); d = 3 has chi2_0 = 0 for the part of
// W^T b orthogonal to W^T a.
#pragma once

#include <vector>

#include "rhoflow/core/random.hpp"
#include "rhoflow/model/model.hpp"

namespace rhoflow {

/// One draw of f and of the per-sample gradient g in the frame (q, e, rest) at alignment rho,
/// with the attention sums the Monte Carlo field estimator needs.
struct GradientDraw {
    double g_u = 0;       ///< <g, q>
    double g_v = 0;       ///< <g, e>
    double g_w_sq = 0;    ///< squared norm of g orthogonal to q and e
    double f_u = 0;       ///< <f, q> = sum a_i u_i
    double f_v = 0;       ///< <f, e> = sum a_i v_i
    double f_w_sq = 0;    ///< squared norm of f orthogonal to q and e
    double mass_informative = 0;  ///< A_I = sum_{i <= R} a_i
    double sum_a2 = 0;            ///< sum_i a_i^2
    double informative_au = 0;    ///< sum_{i <= R} a_i u_i
    double informative_a2 = 0;    ///< sum_{i <= R} a_i^2

    /// ||f||^2, whose mean is j(rho).
    double norm_f_sq() const noexcept { return f_u * f_u + f_v * f_v + f_w_sq; }
};

/// Draws f and g of fresh samples X in O(L) each; keeps its own workspace, so use one per thread.
class SampleDrawer {
public:
    /// Validates `model` (throws InvalidArgument) and sizes the workspace.
    explicit SampleDrawer(const ModelParams& model);
    /// The model sampled.
    const ModelParams& model() const noexcept { return m_; }
    /// One fresh sample X at alignment rho: f and g in the reduced frame.
    GradientDraw draw(double rho, RandomStream& rng);

private:
    ModelParams m_;
    std::vector<double> u_, v_, z_, a_, c_;
};

}  // namespace rhoflow
