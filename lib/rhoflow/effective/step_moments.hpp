// One-step moments of the rho-chain at a finite step eta (docs/theory.md section 9, (9.1)): the mean
// and variance of one SGA step from rho, a(rho; eta) = E[rho' - rho]/eta and
// v(rho; eta) = Var[rho' - rho]/eta^2, tabulated on Chebyshev-Lobatto nodes in rho.
//
// Method: Monte Carlo with the chain's own exact reduced sampler (stochastic/reduced_sampler.hpp:
// a fresh sample, then the update rule), one independent stream per node
// (StreamPurpose::one_step_moments); tables at several step sizes share the draws.
// The first-order increment s g_v (s = sqrt(1 - rho^2)) has mean F(rho) = (1 - rho^2) j'(rho)
// exactly, so it is used as a control variate:
//     a(rho; eta) = F(rho) + E[(rho' - rho)/eta - s g_v],
// where the residual is O(eta) per sample, so a few thousand samples give a to ~1e-3 even at
// eta = 0.04 (a plain estimate of a would need ~1e6). F comes from the theory's DriftField, so a
// wrong theory (e.g. DriftField::scaled) enters the effective drift while the finite-step
// correction is measured from the chain itself. v is the sample variance of (rho' - rho)/eta.
// Errors: standard errors of the means; for v, the spread of batch variances (20 batches).
// When it fails: not for any valid model; the cost is nodes x samples draws of O(L) each.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "rhoflow/core/random.hpp"
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/model/model.hpp"
#include "rhoflow/model/update_rule.hpp"

namespace rhoflow {

/// Controls of the one-step moment table.
struct StepMomentParams {
    int nodes = 32;                 ///< Chebyshev-Lobatto degree n: n + 1 nodes in rho on [-1, 1], 8 ... 256
    std::int64_t samples = 4000;    ///< Monte Carlo samples per node, 40 ... 1e8 (a multiple of 20 is used)
    std::uint64_t seed = 1;         ///< master seed (stream purpose one_step_moments, index = node)
    int threads = 0;                ///< worker threads (0 = all cores); results do not depend on it

    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// a and v at one node, with standard errors.
struct StepMomentNode {
    double rho = 0;     ///< the node
    double F = 0;       ///< the theory's drift F(rho) (the control variate's mean)
    double a = 0;       ///< E[rho' - rho]/eta
    double a_err = 0;   ///< standard error of a
    double v = 0;       ///< Var[rho' - rho]/eta^2
    double v_err = 0;   ///< standard error of v (batch variances)
};

/// The table at one step size.
struct StepMomentTable {
    double eta = 0;                       ///< the step size
    UpdateRule rule = UpdateRule::normalized;  ///< the update rule
    std::vector<StepMomentNode> nodes;    ///< on the Lobatto nodes, from rho = +1 down to -1
};

/// One stored draw of the per-sample gradient in the reduced frame (what the resampled chain of
/// resampled_chain.hpp resamples; its law depends on rho, not on eta).
struct BankDraw {
    double g_u = 0;     ///< <g, q>
    double g_v = 0;     ///< <g, e>
    double g_w_sq = 0;  ///< |g orthogonal to q and e|^2
};

/// Measures a and v at step `eta` on the nodes; `field` gives F (the theory's drift); `sub`
/// separates the streams of different step sizes (the counter word of the purpose).
StepMomentTable measure_step_moments(const ModelParams& model, const DriftField& field, double eta, UpdateRule rule,
                                     const StepMomentParams& params = {}, std::uint64_t sub = 0);

/// Tables at several step sizes from the same draws (one draw per sample serves every eta, the
/// draw being the cost): common random numbers across step sizes, so differences in eta are
/// not masked by sampling noise.
std::vector<StepMomentTable> measure_step_moments(const ModelParams& model, const DriftField& field,
                                                  const std::vector<double>& etas, UpdateRule rule,
                                                  const StepMomentParams& params = {}, std::uint64_t sub = 0);

/// Nodes [first, first + count) of the tables the previous function gives, the same numbers
/// (each node has its own stream): for spreading the tables over several processes. With
/// `draws`, (*draws)[j] receives every gradient draw node first + j was measured from.
std::vector<StepMomentTable> measure_step_moment_nodes(const ModelParams& model, const DriftField& field,
                                                       const std::vector<double>& etas, UpdateRule rule,
                                                       const StepMomentParams& params, std::uint64_t sub,
                                                       std::size_t first, std::size_t count,
                                                       std::vector<std::vector<BankDraw>>* draws = nullptr);

/// The table with every node's a and v moved by its standard error times a normal variate from
/// `rng` (v kept above 5% of itself): one replica of a parametric bootstrap over the table's
/// Monte Carlo error.
StepMomentTable perturbed_within_errors(const StepMomentTable& table, RandomStream& rng);

/// JSON hooks: a draw as the array [g_u, g_v, g_w_sq] (unit payloads hold thousands).
void to_json(nlohmann::json& j, const BankDraw& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, BankDraw& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const StepMomentParams& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, StepMomentParams& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const StepMomentNode& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, StepMomentNode& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const StepMomentTable& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, StepMomentTable& v);

}  // namespace rhoflow
