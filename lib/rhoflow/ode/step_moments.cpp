#include "rhoflow/ode/step_moments.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rhoflow/core/chebyshev.hpp"
#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/parallel.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/core/stats.hpp"
#include "rhoflow/model/sample.hpp"

namespace rhoflow {

void StepMomentParams::validate() const {
    require(nodes >= 8 && nodes <= 256, "nodes", nodes, "8 <= nodes <= 256");
    require(samples >= 40 && samples <= 100000000, "samples", static_cast<double>(samples), "40 <= samples <= 1e8");
    require(threads >= 0 && threads <= 1024, "threads", threads, "0 (all cores) <= threads <= 1024");
}

namespace {

constexpr int kBatches = 20;

// One node: the control-variate residual for a, and batch variances of the scaled step for v.
StepMomentNode measure_node(SampleDrawer& drawer, double rho, double F, double eta, UpdateRule rule,
                            std::int64_t samples, RandomStream& rng) {
    const double s = std::sqrt(std::max(0.0, 1 - rho * rho));
    const std::int64_t per_batch = std::max<std::int64_t>(2, samples / kBatches);
    RunningStats residual, step;
    std::vector<double> batch_var;
    for (int b = 0; b < kBatches; ++b) {
        RunningStats batch;
        for (std::int64_t i = 0; i < per_batch; ++i) {
            const GradientDraw g = drawer.draw(rho, rng);
            const double next = updated_rho(rho, eta, g, rule);
            if (!std::isfinite(next))
                throw NumericalError(fmt::format("one-step moments at rho = {}: the step eta = {} overflows",
                                                 format_number(rho), format_number(eta)));
            const double x = (next - rho) / eta;
            residual.add(x - s * g.g_v);
            step.add(x);
            batch.add(x);
        }
        batch_var.push_back(batch.variance());
    }
    StepMomentNode n;
    n.rho = rho;
    n.F = F;
    n.a = F + residual.mean();
    n.a_err = residual.standard_error();
    n.v = step.variance();
    n.v_err = mean_ci(batch_var).se;
    return n;
}

}  // namespace

std::vector<StepMomentNode> measure_step_moment_nodes(const ModelParams& model, const DriftField& field, double eta,
                                                      UpdateRule rule, const StepMomentParams& params, std::uint64_t sub,
                                                      std::size_t first, std::size_t count) {
    model.validate();
    params.validate();
    require(std::isfinite(eta) && eta > 0 && eta <= 1e100, "eta", eta, "0 < eta <= 1e100");
    const std::vector<double> rho = Chebyshev::lobatto_points(params.nodes);
    if (first > rho.size() || count > rho.size() - first)
        throw InvalidArgument("nodes", fmt::format("nodes {} ... {} of a table of {}", first, first + count, rho.size()));
    std::vector<StepMomentNode> out(count);
    parallel_for(static_cast<std::int64_t>(count), params.threads, [&](std::int64_t j) {
        const std::size_t k = first + static_cast<std::size_t>(j);
        SampleDrawer drawer(model);
        RandomStream rng({params.seed, StreamPurpose::one_step_moments, static_cast<std::uint64_t>(k), sub});
        out[static_cast<std::size_t>(j)] = measure_node(drawer, rho[k], field.drift(rho[k]), eta, rule, params.samples, rng);
    });
    return out;
}

StepMomentTable measure_step_moments(const ModelParams& model, const DriftField& field, double eta, UpdateRule rule,
                                     const StepMomentParams& params, std::uint64_t sub) {
    params.validate();
    StepMomentTable t;
    t.eta = eta;
    t.rule = rule;
    t.nodes = measure_step_moment_nodes(model, field, eta, rule, params, sub, 0,
                                        Chebyshev::lobatto_points(params.nodes).size());
    return t;
}

RHOFLOW_JSON_HOOKS(StepMomentParams, nodes, samples, seed, threads)
RHOFLOW_JSON_HOOKS(StepMomentNode, rho, F, a, a_err, v, v_err)
RHOFLOW_JSON_HOOKS(StepMomentTable, eta, rule, nodes)

}  // namespace rhoflow
