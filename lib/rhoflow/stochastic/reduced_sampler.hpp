// The exact reduced sampler of the rho-chain (docs/theory.md section 6): one step
// rho_k -> rho_{k+1} with the law of the full d-dimensional recursion, at O(L) cost whatever d
// is: a fresh sample from the model's reduced per-sample law (model/sample.hpp) followed by the
// projected update (model/update_rule.hpp). The ensemble's trials and the effective dynamics'
// one-step moment tables both step the chain through it. Also the start of a trial drawn from
// the sphere's uniform law, the one written for the ensemble and for the effective chain.
// When it fails: step() returns NaN when q + eta g is not representable (the step overflowed).
#pragma once

#include <cstdint>

#include "rhoflow/core/random.hpp"
#include "rhoflow/model/model.hpp"
#include "rhoflow/model/sample.hpp"
#include "rhoflow/model/update_rule.hpp"

namespace rhoflow {

/// Steps of the rho-chain in O(L) each; keeps its own workspace, so use one sampler per thread.
class ReducedSampler {
public:
    /// Validates `model` (throws InvalidArgument) and sizes the workspace.
    explicit ReducedSampler(const ModelParams& model);
    /// The model sampled.
    const ModelParams& model() const noexcept { return drawer_.model(); }
    /// One fresh sample X at alignment rho: f and the per-sample gradient g in the reduced frame.
    GradientDraw draw(double rho, RandomStream& rng);
    /// The step from rho with step eta for the gradient `g` already drawn at rho (one draw can
    /// serve several step sizes); NaN when the step overflows.
    static double step(double rho, double eta, const GradientDraw& g, UpdateRule rule) noexcept;
    /// One SGA step from rho with step eta: draw() then the step; `g` (optional) receives the gradient drawn.
    double step(double rho, double eta, UpdateRule rule, RandomStream& rng, GradientDraw* g = nullptr);

private:
    SampleDrawer drawer_;
};

/// <q, xi> for q uniform on the unit sphere of R^d (xi fixed): Z / sqrt(Z^2 + chi2_{d-1}), one
/// normal then one chi-squared draw from `rng`, in that order. d >= 2.
double uniform_sphere_rho(std::int64_t d, RandomStream& rng);

}  // namespace rhoflow
