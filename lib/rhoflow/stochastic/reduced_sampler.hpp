// The exact reduced sampler of the rho-chain (docs/theory.md section 6): one step
// rho_k -> rho_{k+1} with the law of the full d-dimensional recursion, at O(L) cost whatever d
// is: a fresh sample from the model's reduced per-sample law (model/sample.hpp) followed by the
// projected update (model/update_rule.hpp).
#pragma once

#include "rhoflow/core/random.hpp"
#include "rhoflow/model/model.hpp"
#include "rhoflow/model/sample.hpp"
#include "rhoflow/model/update_rule.hpp"

namespace rhoflow {

/// Steps of the rho-chain in O(L) each; keeps its own workspace, so use one sampler per thread.
class ReducedSampler {
public:
    /// Validates `model` (throws InvalidArgument) and sizes the workspace.
    explicit ReducedSampler(const ModelParams& model) : drawer_(model) {}
    /// The model sampled.
    const ModelParams& model() const noexcept { return drawer_.model(); }
    /// One SGA step from rho with step eta; `g` (optional) receives the gradient drawn.
    double step(double rho, double eta, UpdateRule rule, RandomStream& rng, GradientDraw* g = nullptr) {
        const GradientDraw d = drawer_.draw(rho, rng);
        if (g) *g = d;
        return updated_rho(rho, eta, d, rule);
    }

private:
    SampleDrawer drawer_;
};

}  // namespace rhoflow
