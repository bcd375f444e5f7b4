// The resampled effective chain (docs/theory.md section 9, "The resampled chain", (9.4')): a
// 1-D chain with the real chain's one-step law, tails included, at O(1) cost per step.
//
// Why: the Gaussian chain of effective.hpp matches the real chain's one-step mean and variance
// but not its shape. Near the plateau the true increments are strongly left-skewed (one-signed
// O(eta^2) pull -eta^2 rho |g_perp|^2 / 2, heavy-tailed |g_w|^2) and bounded above by the
// geometry (1 - rho'^2 >= eta^2 |g_w|^2 / |q + eta g|^2), so the Gaussian chain turns rare
// downward jumps into spurious upward diffusion: it predicts hits of |rho| >= 0.99 that SGA never
// makes, while means and 10-90% bands (CLT-scale) agree.
//
// Method: a bank of the per-sample gradient components (g_u, g_v, |g_w|^2) drawn with the exact
// reduced sampler at the Chebyshev-Lobatto nodes (their law depends on rho, not on eta): the
// comparator keeps the moment tables' own draws (bank_from_draws); sample_gradient_bank draws
// them with the tables' streams (the same seed and `sub` give the tables' first draws). A path at
// (rho, eta) takes the bracketing node nearer in probability (node j + 1 with the linear weight
// of rho between the nodes), a stored draw uniformly at random, and applies the exact projected
// update (model/update_rule.hpp) at its own rho and eta. So each step is bounded, skewed and
// floored like the real one and needs no interpolation in eta. Recentring (the default) shifts
// g_v by s j'_theory(rho) - mean_node(g_v), s = sqrt(1 - rho^2), so that the first-order drift
// E[s g_v] is the theory's field exactly at the path's own rho (field_scale keeps its meaning,
// and the nodes' resolution does not bias the drift).
// What it assumes: steps independent given rho (true of SGA with fresh samples), and the law of
// the gradient at rho close to that at the bracketing nodes (checked against the full chain in
// tests/rhoflow/effective/resampled_chain_test.cpp).
// When it fails: never for a valid model; a step that overflows (eta |g| not representable)
// throws NumericalError naming rho and eta.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "rhoflow/core/random.hpp"
#include "rhoflow/effective/effective.hpp"
#include "rhoflow/effective/step_moments.hpp"
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/model/model.hpp"
#include "rhoflow/model/update_rule.hpp"
#include "rhoflow/stochastic/schedule.hpp"

namespace rhoflow {

/// Controls of the gradient bank.
struct GradientBankParams {
    int nodes = 32;                 ///< Chebyshev-Lobatto degree n: n + 1 nodes in rho on [-1, 1], 8 ... 256
    std::int64_t samples = 2000;    ///< stored draws per node, 100 ... 1e6
    std::uint64_t seed = 1;         ///< master seed (stream purpose one_step_moments, index = node: the tables' draws)
    std::uint64_t sub = 0;          ///< the streams' counter word (the moment tables' `sub`)
    int threads = 0;                ///< worker threads (0 = all cores); results do not depend on it
    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// Stored gradient draws at the nodes.
struct GradientBank {
    std::vector<double> rho;                   ///< the nodes, ascending from -1 to 1
    std::vector<std::vector<BankDraw>> draws;  ///< draws[j]: the draws at rho[j]
    std::vector<double> mean_g_u;              ///< the mean of g_u at each node
    std::vector<double> mean_g_v;              ///< the mean of g_v at each node
};

/// Draws the bank of `model` with the exact reduced sampler.
GradientBank sample_gradient_bank(const ModelParams& model, const GradientBankParams& params = {});
/// The bank of draws already made, e.g. by the moment tables (measure_step_moment_nodes' `draws`):
/// `rho` the nodes in the tables' order (from +1 down), draws[j] those at rho[j]. Throws
/// InvalidArgument when the sizes differ, a node holds no draw or a draw is not finite.
GradientBank bank_from_draws(const std::vector<double>& rho, std::vector<std::vector<BankDraw>> draws);

/// A bootstrap replica of the bank: each node's draws drawn again with replacement from its own
/// (the bank's sampling error, e.g. of the one-step variance, made visible to its users).
GradientBank bootstrap_bank(const GradientBank& bank, RandomStream& rng);

/// The resampled chain: steps from any (rho, eta) with a stored draw.
class ResampledChain {
public:
    /// From a bank, the theory's field (for the recentring; a scaled field scales the drift) and the update rule.
    ResampledChain(GradientBank bank, const DriftField& field, UpdateRule rule, bool recentre = true);
    /// One step from rho with step eta, its randomness from `rng` (two 64-bit draws); `diffusion`
    /// multiplies the draw's deviation from the node's mean (g_u, g_v about their means, g_w as a
    /// whole: |g_w|^2 by its square), a deliberately wrong diffusion for D != 1.
    double step(double rho, double eta, RandomStream& rng, double diffusion = 1.0) const;
    /// The bank.
    const GradientBank& bank() const noexcept { return bank_; }

private:
    GradientBank bank_;
    std::vector<double> dj_;  // j'_theory on a uniform grid of kGrid cells in rho (recentring)
    UpdateRule rule_;
    bool recentre_;
};

/// Runs `params.paths` paths of the resampled chain for `steps` steps of the schedule's sizes
/// from rho0 (or, when empty, from the sphere's uniform law in dimension d), recording at
/// `record_steps`: the same statistics as predict_ensemble (effective.hpp), on the streams of
/// purpose effective_chain (counter word `sub`: one per bank replica), with every path's values
/// in `samples` when given; the steps' `diffusion` is params.diffusion_scale.
EffectivePrediction predict_resampled(const ResampledChain& chain, const StepSchedule& schedule, std::int64_t steps,
                                      const std::vector<std::int64_t>& record_steps, std::optional<double> rho0,
                                      std::int64_t d, double hit_eps, const PredictionParams& params = {},
                                      PathSamples* samples = nullptr, std::uint64_t sub = 0);

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const GradientBankParams& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, GradientBankParams& v);

}  // namespace rhoflow
