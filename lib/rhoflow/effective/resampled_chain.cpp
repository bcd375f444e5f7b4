#include "rhoflow/effective/resampled_chain.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rhoflow/core/cancel.hpp"
#include "rhoflow/core/chebyshev.hpp"
#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/effective/detail/paths.hpp"
#include "rhoflow/exec/parallel.hpp"
#include "rhoflow/stochastic/reduced_sampler.hpp"

namespace rhoflow {

void GradientBankParams::validate() const {
    require(nodes >= 8 && nodes <= 256, "nodes", nodes, "8 <= nodes <= 256");
    require(samples >= 100 && samples <= 1000000, "samples", static_cast<double>(samples), "100 <= samples <= 1e6");
    require(threads >= 0 && threads <= 1024, "threads", threads, "0 (all cores) <= threads <= 1024");
}

GradientBank sample_gradient_bank(const ModelParams& model, const GradientBankParams& params) {
    model.validate();
    params.validate();
    const std::vector<double> nodes = Chebyshev::lobatto_points(params.nodes);  // from +1 down, as the tables
    std::vector<std::vector<BankDraw>> draws(nodes.size());
    parallel_for(static_cast<std::int64_t>(nodes.size()), params.threads, [&](std::int64_t k) {
        const auto ku = static_cast<std::size_t>(k);
        ReducedSampler sampler(model);
        RandomStream rng({params.seed, StreamPurpose::one_step_moments, static_cast<std::uint64_t>(k), params.sub});
        for (std::int64_t i = 0; i < params.samples; ++i) {
            if ((i & 1023) == 0) throw_if_cancelled();
            const GradientDraw g = sampler.draw(nodes[ku], rng);
            draws[ku].push_back({g.g_u, g.g_v, g.g_w_sq});
        }
    });
    return bank_from_draws(nodes, std::move(draws));
}

GradientBank bank_from_draws(const std::vector<double>& rho, std::vector<std::vector<BankDraw>> draws) {
    if (rho.size() < 2 || draws.size() != rho.size())
        throw InvalidArgument("draws", fmt::format("{} nodes and {} lists of draws (accepted: one list per node, at "
                                                   "least 2 nodes)", rho.size(), draws.size()));
    GradientBank bank;
    for (std::size_t k = rho.size(); k-- > 0;) {  // ascending in rho
        const std::vector<BankDraw>& d = draws[k];
        double sum_u = 0, sum_v = 0;
        for (const BankDraw& g : d) {
            if (!std::isfinite(g.g_u) || !std::isfinite(g.g_v) || !std::isfinite(g.g_w_sq) || g.g_w_sq < 0)
                throw InvalidArgument("draws", "a gradient draw is not finite (accepted: finite g_u, g_v, g_w_sq >= 0)");
            sum_u += g.g_u;
            sum_v += g.g_v;
        }
        if (d.empty()) throw InvalidArgument("draws", "a node holds no gradient draw");
        bank.rho.push_back(rho[k]);
        bank.mean_g_u.push_back(sum_u / static_cast<double>(d.size()));
        bank.mean_g_v.push_back(sum_v / static_cast<double>(d.size()));
        bank.draws.push_back(std::move(draws[k]));
    }
    bank.rho.front() = -1.0;  // the Lobatto end points, exactly
    bank.rho.back() = 1.0;
    return bank;
}

GradientBank bootstrap_bank(const GradientBank& bank, RandomStream& rng) {
    GradientBank out;
    out.rho = bank.rho;
    for (const auto& d : bank.draws) {
        std::vector<BankDraw> again;
        again.reserve(d.size());
        double su = 0, sv = 0;
        const auto n = static_cast<double>(d.size());
        for (std::size_t i = 0; i < d.size(); ++i) {
            again.push_back(d[std::min(d.size() - 1, static_cast<std::size_t>(rng.uniform() * n))]);
            su += again.back().g_u;
            sv += again.back().g_v;
        }
        out.mean_g_u.push_back(su / n);
        out.mean_g_v.push_back(sv / n);
        out.draws.push_back(std::move(again));
    }
    return out;
}

namespace {
constexpr int kGrid = 4096;  // cells of the j' lookup in rho (spacing 5e-4)
}  // namespace

ResampledChain::ResampledChain(GradientBank bank, const DriftField& field, UpdateRule rule, bool recentre)
    : bank_(std::move(bank)), rule_(rule), recentre_(recentre) {
    if (bank_.rho.size() < 2 || bank_.draws.size() != bank_.rho.size() || bank_.mean_g_v.size() != bank_.rho.size() ||
        bank_.mean_g_u.size() != bank_.rho.size() ||
        !std::is_sorted(bank_.rho.begin(), bank_.rho.end()))
        throw InvalidArgument("bank", "the gradient bank has no nodes in ascending order with draws at each "
                                      "(accepted: sample_gradient_bank's)");
    for (const auto& d : bank_.draws)
        if (d.empty()) throw InvalidArgument("bank", "a node of the gradient bank holds no draw");
    for (int i = 0; i <= kGrid; ++i) dj_.push_back(field.dj(-1.0 + 2.0 * i / kGrid));
}

double ResampledChain::step(double rho, double eta, RandomStream& rng, double diffusion) const {
    // The bracketing nodes and the linear weight of the upper one; node j + 1 with that probability.
    const auto& x = bank_.rho;
    const auto up = std::upper_bound(x.begin() + 1, x.end() - 1, rho);
    const auto j = static_cast<std::size_t>(up - x.begin()) - 1;
    const double w = (rho - x[j]) / (x[j + 1] - x[j]);
    const std::uint64_t pick = rng.next_u64();
    const std::size_t node = static_cast<double>(pick >> 11) * 0x1.0p-53 < w ? j + 1 : j;
    const auto& draws = bank_.draws[node];
    // A stored draw, uniformly (53 random bits scaled to the count: no bias to speak of).
    const auto n = static_cast<double>(draws.size());
    const auto i = std::min(draws.size() - 1, static_cast<std::size_t>(rng.uniform() * n));
    const BankDraw& d = draws[i];
    GradientDraw g;
    g.g_u = d.g_u;
    g.g_v = d.g_v;
    g.g_w_sq = d.g_w_sq;
    if (diffusion != 1.0) {  // a wrong diffusion: the draw's deviation from the node's mean scaled
        g.g_u = bank_.mean_g_u[node] + diffusion * (g.g_u - bank_.mean_g_u[node]);
        g.g_v = bank_.mean_g_v[node] + diffusion * (g.g_v - bank_.mean_g_v[node]);
        g.g_w_sq *= diffusion * diffusion;
    }
    if (recentre_) {
        const double s = std::sqrt(std::max(0.0, 1 - rho * rho));
        const double u = (rho + 1) * (kGrid / 2.0);
        const auto c = static_cast<std::size_t>(std::clamp(u, 0.0, kGrid - 1.0));
        const double dj = dj_[c] + (u - static_cast<double>(c)) * (dj_[c + 1] - dj_[c]);
        g.g_v += s * dj - bank_.mean_g_v[node];
    }
    const double next = updated_rho(rho, eta, g, rule_);
    if (!std::isfinite(next))
        throw NumericalError(fmt::format("resampled chain at rho = {}: the step eta = {} overflows", format_number(rho),
                                         format_number(eta)));
    return next;
}

EffectivePrediction predict_resampled(const ResampledChain& chain, const StepSchedule& schedule, std::int64_t steps,
                                      const std::vector<std::int64_t>& record_steps, std::optional<double> rho0,
                                      std::int64_t d, double hit_eps, const PredictionParams& params,
                                      PathSamples* samples, std::uint64_t sub) {
    params.validate();
    require(steps >= 1, "steps", static_cast<double>(steps), "steps >= 1");
    std::vector<double> eta, t = {0.0};
    for (std::int64_t k = 0; k < steps; ++k) {
        eta.push_back(schedule.eta(k));
        t.push_back(t.back() + eta.back());
    }
    auto advance = [&](std::size_t k, std::vector<double>& x, RandomStream& rng) {
        for (auto& r : x) r = chain.step(r, eta[k], rng, params.diffusion_scale);
    };
    return detail::run_paths(t, steps, record_steps, rho0, d, hit_eps, params, StreamPurpose::effective_chain, advance,
                             samples, sub);
}

RHOFLOW_JSON_HOOKS(GradientBankParams, nodes, samples, seed, sub, threads)

}  // namespace rhoflow
