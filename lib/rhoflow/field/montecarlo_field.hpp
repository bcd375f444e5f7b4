// Monte Carlo estimator of the field, independent of the quadrature, with standard errors.
//
// Each sample is one fresh X drawn from the model's exact reduced per-sample law (model/sample.hpp), so the
// cost is O(L) per sample whatever d is. Three estimators, each unbiased:
//  - j:      ||f||^2 = f_u^2 + f_v^2 + ||f_w||^2 of the sample (checks the reduction of j as well
//            as the quadrature, since it does not use the formula of docs/theory.md section 3).
//  - drift:  sqrt(1 - rho^2) <g, e> = <g, xi - rho q>, whose mean is (1 - rho^2) j'(rho)
//            (the identity of docs/theory.md section 3; it uses the per-sample gradient).
//  - dj:     pathwise derivative of the conditional expectation of ||f||^2 given the scores,
//            h(u) = (sum a u)^2 + theta^2 (1 - rho^2) A_I^2 + (d - 1) sigma^2 sum a^2, where
//            u_i = theta rho 1{i <= R} + sigma Z_i: dh/drho = theta sum_{i<=R} dh/du_i
//            - 2 rho theta^2 A_I^2. Unlike drift / (1 - rho^2) it is finite at rho = +-1.
//  - E[A_I]: the sample attention mass on informative tokens.
// Reproducibility: samples are grouped in fixed chunks, chunk c uses the stream (seed, montecarlo_field, c), and
// chunk results are merged in chunk order, so the numbers do not depend on the thread count.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>

#include "rhoflow/field/field.hpp"
#include "rhoflow/model/model.hpp"

namespace rhoflow {

/// Controls of the Monte Carlo estimator.
struct MonteCarloParams {
    std::int64_t samples = 100000;  ///< number of independent samples X, >= 2
    std::uint64_t seed = 1;         ///< master seed
    int threads = 0;                ///< worker threads (0 = all cores)

    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// Means of the per-sample gradient's components in the frame (q, e, rest), with standard errors:
/// what the projection's O(eta) bias depends on (docs/theory.md section 7).
struct GradientMoments {
    double g_u = 0, g_u_err = 0;        ///< E<g, q> (radial: shortens the normalized step)
    double g_v = 0, g_v_err = 0;        ///< E<g, e>
    double g_w_sq = 0, g_w_sq_err = 0;  ///< E||g_w||^2 (orthogonal: pulls rho towards 0)
};

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const MonteCarloParams& p);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, MonteCarloParams& p);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const GradientMoments& m);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, GradientMoments& m);

/// Estimates at rho with standard errors in the *_err fields. `drift` is the gradient-identity
/// estimator, `dj` the pathwise one (see above); they agree in expectation. `moments`, if given,
/// receives the gradient moments from the same samples.
FieldPoint montecarlo_field(const ModelParams& model, double rho, const MonteCarloParams& params = {},
                            GradientMoments* moments = nullptr);

}  // namespace rhoflow
