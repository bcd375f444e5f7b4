#include "rhoflow/effective/step_moments.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rhoflow/core/cancel.hpp"
#include "rhoflow/core/chebyshev.hpp"
#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/exec/parallel.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/core/stats.hpp"
#include "rhoflow/stochastic/reduced_sampler.hpp"

namespace rhoflow {

void StepMomentParams::validate() const {
    require(nodes >= 8 && nodes <= 256, "nodes", nodes, "8 <= nodes <= 256");
    require(samples >= 40 && samples <= 100000000, "samples", static_cast<double>(samples), "40 <= samples <= 1e8");
    require(threads >= 0 && threads <= 1024, "threads", threads, "0 (all cores) <= threads <= 1024");
}

namespace {

constexpr int kBatches = 20;

// The running sums of one node at one step size.
struct NodeSums {
    RunningStats residual, step, batch;
    std::vector<double> batch_var;
};

// One node at every step size, from the same draws (the draw is the cost; the update is not):
// the control-variate residual for a, and batch variances of the scaled step for v.
std::vector<StepMomentNode> measure_node(ReducedSampler& sampler, double rho, double F, const std::vector<double>& etas,
                                         UpdateRule rule, std::int64_t samples, RandomStream& rng,
                                         std::vector<BankDraw>* keep) {
    const double s = std::sqrt(std::max(0.0, 1 - rho * rho));
    const std::int64_t per_batch = std::max<std::int64_t>(2, samples / kBatches);
    std::vector<NodeSums> sums(etas.size());
    for (int b = 0; b < kBatches; ++b) {
        throw_if_cancelled();  // a node of 1e6 samples takes seconds: stop on request
        for (std::int64_t i = 0; i < per_batch; ++i) {
            const GradientDraw g = sampler.draw(rho, rng);
            if (keep) keep->push_back({g.g_u, g.g_v, g.g_w_sq});
            for (std::size_t e = 0; e < etas.size(); ++e) {
                const double next = ReducedSampler::step(rho, etas[e], g, rule);
                if (!std::isfinite(next))
                    throw NumericalError(fmt::format("one-step moments at rho = {}: the step eta = {} overflows",
                                                     format_number(rho), format_number(etas[e])));
                const double x = (next - rho) / etas[e];
                sums[e].residual.add(x - s * g.g_v);
                sums[e].step.add(x);
                sums[e].batch.add(x);
            }
        }
        for (auto& sm : sums) {
            sm.batch_var.push_back(sm.batch.variance());
            sm.batch = RunningStats{};
        }
    }
    std::vector<StepMomentNode> out;
    for (const auto& sm : sums)
        out.push_back({rho, F, F + sm.residual.mean(), sm.residual.standard_error(), sm.step.variance(),
                       mean_ci(sm.batch_var).se});
    return out;
}

}  // namespace

std::vector<StepMomentTable> measure_step_moment_nodes(const ModelParams& model, const DriftField& field,
                                                       const std::vector<double>& etas, UpdateRule rule,
                                                       const StepMomentParams& params, std::uint64_t sub,
                                                       std::size_t first, std::size_t count,
                                                       std::vector<std::vector<BankDraw>>* draws) {
    model.validate();
    params.validate();
    require(!etas.empty(), "eta", 0, "at least one step size");
    for (double eta : etas) require(std::isfinite(eta) && eta > 0 && eta <= 1e100, "eta", eta, "0 < eta <= 1e100");
    const std::vector<double> rho = Chebyshev::lobatto_points(params.nodes);
    if (first > rho.size() || count > rho.size() - first)
        throw InvalidArgument("nodes", fmt::format("nodes {} ... {} of a table of {}", first, first + count, rho.size()));
    std::vector<StepMomentTable> tables(etas.size());
    for (std::size_t e = 0; e < etas.size(); ++e) {
        tables[e].eta = etas[e];
        tables[e].rule = rule;
        tables[e].nodes.resize(count);
    }
    if (draws) draws->assign(count, {});
    parallel_for(static_cast<std::int64_t>(count), params.threads, [&](std::int64_t j) {
        const std::size_t k = first + static_cast<std::size_t>(j);
        ReducedSampler sampler(model);
        RandomStream rng({params.seed, StreamPurpose::one_step_moments, static_cast<std::uint64_t>(k), sub});
        const auto nodes = measure_node(sampler, rho[k], field.drift(rho[k]), etas, rule, params.samples, rng,
                                        draws ? &(*draws)[static_cast<std::size_t>(j)] : nullptr);
        for (std::size_t e = 0; e < etas.size(); ++e) tables[e].nodes[static_cast<std::size_t>(j)] = nodes[e];
    });
    return tables;
}

std::vector<StepMomentTable> measure_step_moments(const ModelParams& model, const DriftField& field,
                                                  const std::vector<double>& etas, UpdateRule rule,
                                                  const StepMomentParams& params, std::uint64_t sub) {
    params.validate();
    return measure_step_moment_nodes(model, field, etas, rule, params, sub, 0,
                                     static_cast<std::size_t>(params.nodes) + 1);
}

StepMomentTable measure_step_moments(const ModelParams& model, const DriftField& field, double eta, UpdateRule rule,
                                     const StepMomentParams& params, std::uint64_t sub) {
    return measure_step_moments(model, field, std::vector<double>{eta}, rule, params, sub).front();
}

StepMomentTable perturbed_within_errors(const StepMomentTable& table, RandomStream& rng) {
    StepMomentTable p = table;
    for (auto& n : p.nodes) {
        n.a += n.a_err * rng.normal();
        n.v = std::max(0.05 * n.v, n.v + n.v_err * rng.normal());
    }
    return p;
}

void to_json(nlohmann::json& j, const BankDraw& v) { j = nlohmann::json::array({v.g_u, v.g_v, v.g_w_sq}); }
void from_json(const nlohmann::json& j, BankDraw& v) {
    v = {j.at(0).get<double>(), j.at(1).get<double>(), j.at(2).get<double>()};
    if (j.size() != 3) throw nlohmann::json::other_error::create(501, "a gradient draw is [g_u, g_v, g_w_sq]", &j);
}

RHOFLOW_JSON_HOOKS(StepMomentParams, nodes, samples, seed, threads)
RHOFLOW_JSON_HOOKS(StepMomentNode, rho, F, a, a_err, v, v_err)
RHOFLOW_JSON_HOOKS(StepMomentTable, eta, rule, nodes)

}  // namespace rhoflow
