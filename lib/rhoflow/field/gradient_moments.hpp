// Exact population moments of the per-sample gradient g up to second order, and from them the
// one-step expansion of the rho-chain to order eta^2 (docs/theory.md section 8):
//
//     E[rho' - rho]  = eta F(rho) + eta^2 B(rho) + O(eta^3),   F = s E[g_v] = (1 - rho^2) j'(rho),
//     Var[rho' - rho] = eta^2 Sigma(rho) + O(eta^3),          Sigma = s^2 Var[g_v],   s = sqrt(1 - rho^2),
//
// with B = -s E[g_u g_v] - rho (E[g_v^2] + E|g_w|^2)/2 for the normalized update and
// B = -rho (E[g_v^2] + E|g_w|^2)/2 for the tangent one ((8.1)-(8.5)).
//
// Method ((8.6)-(8.12)). Given the scores u, the other coordinates of the tokens are Gaussian, so
// each moment is, given u, a polynomial in index sums over tokens; Wick's theorem and a sum over set
// partitions (at most 6 indices) turn it into 1373 distinct-token monomials
// E[prod_p a_p^{k_p} u_p^{m_p}] with coefficients polynomial in sigma, theta s and d - 2, built once
// per process (detail/moment_expansion.hpp). Each monomial is an integral over lambda = log t of
// products of one-dimensional Gaussian expectations E_c[u^m x^k e^{-x}], x = t e^{s - c} (the
// Laplace identity 1/S^K = int t^{K-1} e^{-tS} dt / (K-1)!), exactly as the exact field does for K <= 2
// (section 4), with falling factorials of R and N for the classes of the distinct tokens. The cost is
// independent of L and d: one adaptive Gauss-Kronrod rule in lambda shared by all moments, 2 x ~150
// trapezoid nodes per outer node (tau = 1), and a prefix-shared product pass over the monomials.
// Error estimate per moment: sum |Kronrod - Gauss| + |inner rule h - 2h| + tails + 64 eps times the
// integral of sum |terms| (the rounding scale; `cancellation` reports how far it exceeds the value).
// When it fails: like the exact field it refuses tau = beta sigma > 12 (InvalidArgument); it throws
// NumericalError if a tail of the lambda-integral does not decay or a result is not finite. If the
// outer refinement hits max_segments the result carries the larger error estimate it reached.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/model/model.hpp"
#include "rhoflow/model/update_rule.hpp"

namespace rhoflow {

/// Accuracy controls of the exact gradient moments: the exact field's own (same fields, ranges,
/// validate() and JSON keys). rel_tol bounds each moment's outer error relative to its integrand's
/// L1 norm, and the inner Gaussian is truncated to [-z_range, z_range + min(6 tau, 2 tau + 4)]
/// (the moments' integrands reach further than the field's).
using GradientMomentParams = ExactFieldParams;

/// Population moments of g = <per-sample gradient> in the frame (q, e, rest) at alignment rho,
/// each with an error estimate, and the work done.
struct ExactGradientMoments {
    double rho = 0;               ///< alignment <q, xi>
    double g_u = 0;               ///< E[g_u], g_u = <g, q>
    double g_v = 0;               ///< E[g_v], g_v = <g, e>; sqrt(1 - rho^2) E[g_v] = (1 - rho^2) j'(rho)
    double g_u_g_v = 0;           ///< E[g_u g_v]
    double g_v_sq = 0;            ///< E[g_v^2]
    double g_w_sq = 0;            ///< E|g_w|^2, the (d - 2)-dimensional part
    double g_u_sq = 0;            ///< E[g_u^2]
    double g_u_err = 0;           ///< error estimate of g_u
    double g_v_err = 0;           ///< error estimate of g_v
    double g_u_g_v_err = 0;       ///< error estimate of g_u_g_v
    double g_v_sq_err = 0;        ///< error estimate of g_v_sq
    double g_w_sq_err = 0;        ///< error estimate of g_w_sq
    double g_u_sq_err = 0;        ///< error estimate of g_u_sq
    int segments = 0;             ///< outer Gauss-Kronrod segments used
    int outer_nodes = 0;          ///< outer integrand evaluations
    int inner_nodes = 0;          ///< trapezoid nodes (informative + nuisance classes)
    int monomials = 0;            ///< distinct-token monomials with a nonzero coefficient for this model
    double cancellation = 0;      ///< max over moments of int sum|terms| / |moment| (1 = no cancellation)
};

/// The expansion of one step of the rho-chain to second order in eta, each value with an error
/// estimate: E[drho] = eta F + eta^2 B + O(eta^3), Var[drho] = eta^2 Sigma + O(eta^3).
struct OneStepExpansion {
    double rho = 0;                              ///< alignment <q, xi>
    UpdateRule rule = UpdateRule::normalized;    ///< the update rule B refers to
    double F = 0;                                ///< mean-field drift s E[g_v] = (1 - rho^2) j'(rho)
    double B = 0;                                ///< second-order drift coefficient (8.4)/(8.5)
    double Sigma = 0;                            ///< leading variance coefficient s^2 Var[g_v] (8.3)
    double F_err = 0;                            ///< error estimate of F
    double B_err = 0;                            ///< error estimate of B
    double Sigma_err = 0;                        ///< error estimate of Sigma
    ExactGradientMoments moments;                ///< the moments F, B and Sigma come from

    /// E[rho' - rho] / eta to first order in eta: F + eta B.
    double drift(double eta) const noexcept { return F + eta * B; }
};

/// Throws InvalidArgument when the method cannot take `model` or `params` (validation only).
void validate_gradient_moments(const ModelParams& model, const GradientMomentParams& params = {});

/// The moments of g at rho (cost independent of L and d). Throws InvalidArgument for invalid
/// model/rho/params, NumericalError if the quadrature fails.
ExactGradientMoments exact_gradient_moments(const ModelParams& model, double rho,
                                            const GradientMomentParams& params = {});

/// F, B, Sigma of `rule` from moments already computed (both rules share one moments call).
OneStepExpansion one_step_expansion(const ExactGradientMoments& moments, UpdateRule rule);

/// F, B, Sigma at rho for `rule`: exact_gradient_moments, then the formulas (8.3)-(8.5).
OneStepExpansion one_step_expansion(const ModelParams& model, double rho, UpdateRule rule,
                                    const GradientMomentParams& params = {});

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const ExactGradientMoments& m);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, ExactGradientMoments& m);
/// JSON hooks: one key per field (the rule as "normalized" or "tangent", the moments nested).
void to_json(nlohmann::json& j, const OneStepExpansion& e);
/// Reads what to_json writes (throws InvalidArgument naming "update" for an unknown rule).
void from_json(const nlohmann::json& j, OneStepExpansion& e);

}  // namespace rhoflow
