// Exact population field for finite d, L, R by the Laplace-transform representation
// (docs/theory.md section 4).
//
// Method. With scores s_i = beta <q, x_i> (class I: N(mu, tau^2), mu = beta theta rho; class N:
// N(0, tau^2); tau = beta sigma) and S = sum_i e^{s_i}, the identities 1/S^2 = int t e^{-tS} dt and
// 1/S = int e^{-tS} dt turn every softmax moment into a one-dimensional integral over t of
// products of one-dimensional Gaussian expectations (M_c, A_c, B_c). Independence across tokens
// makes the cost independent of L.
//  - Outer integral: over lambda = log(t E[S]) on (-inf, inf); in this variable the integrand is
//    bounded (it is built from x^k e^{-x}, x = t e^s) and decays exponentially on the left.
//    Adaptive Gauss-Kronrod (31 points, Boost.Math nodes) on segments, extended outwards until
//    the tails are negligible, bisected until |Kronrod - Gauss| < rel_tol * L1 per integral.
//  - Inner Gaussian expectations: trapezoidal rule in z = (s - mu)/tau with step
//    h = min(0.25, inner_resolution / tau) on [-z_range, z_range + 2 tau]. The integrands are
//    analytic in a strip of half-width ~pi/(2 tau), so the rule converges like
//    exp(-pi^2 / (tau h)); its nodes nest, so the same pass also yields the rule with step 2h,
//    whose difference is the inner error estimate.
//  - 1 - M_c is summed from -expm1(-x); log M_c = log1p(-(1 - M_c)); all products M^k are
//    formed in log space, so underflow gives 0 and never NaN.
//  - j'(rho): d/dmu E[h(s)] = E[h(s) z]/tau (Stein), applied node by node, then the chain rule
//    through the outer products; rho also enters through theta^2 (1 - rho^2).
// When it fails: for tau = beta*sigma > 12 (the Gaussian rule would need thousands of nodes and
// e^{s} leaves the double range); it refuses such input with InvalidArgument naming beta or sigma. If the outer
// refinement hits max_segments the result carries the larger error estimate it reached.
// Reference: the Laplace representation is standard for ratio moments (e.g. Cressie et al.,
// "The moment-generating function and negative integer moments", Am. Stat. 35 (1981)).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "rhoflow/field/field.hpp"
#include "rhoflow/model/model.hpp"

namespace rhoflow {

/// Accuracy controls of the exact field.
struct ExactFieldParams {
    double rel_tol = 1e-12;          ///< target error of each integral relative to its L1 norm
    double inner_resolution = 0.165; ///< inner trapezoid step is min(0.25, this / tau)
    double z_range = 9.5;            ///< inner Gaussian truncated to [-z_range, z_range + 2 tau]
    int max_segments = 400;          ///< cap on outer Gauss-Kronrod segments

    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// Largest tau = beta*sigma the exact method accepts.
inline constexpr double exact_field_max_tau = 12.0;

/// Work done by one exact evaluation (for benchmarks and the verification report).
struct ExactFieldStats {
    int segments = 0;      ///< outer Gauss-Kronrod segments used
    int outer_nodes = 0;   ///< outer integrand evaluations
    int inner_nodes = 0;   ///< trapezoid nodes per class (informative + nuisance)
    double inner_err_j = 0;  ///< part of j_err from the inner rule (|h vs 2h|)
    double outer_err_j = 0;  ///< part of j_err from the outer rule (sum |K - G|)
    double tail_err_j = 0;   ///< part of j_err from truncating lambda
};

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const ExactFieldParams& p);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, ExactFieldParams& p);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const ExactFieldStats& s);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, ExactFieldStats& s);

/// Throws InvalidArgument when the exact method cannot take `model` or `params` (validation
/// only, no work): the model's own ranges, the params' ranges and tau = beta sigma <= 12.
void validate_exact_field(const ModelParams& model, const ExactFieldParams& params = {});

/// j, j', drift and E[A_I] at rho with error estimates; cost independent of L.
/// Throws InvalidArgument for invalid model/rho/params, NumericalError if the result would not
/// be finite.
FieldPoint exact_field(const ModelParams& model, double rho, const ExactFieldParams& params = {},
                       ExactFieldStats* stats = nullptr);

}  // namespace rhoflow
