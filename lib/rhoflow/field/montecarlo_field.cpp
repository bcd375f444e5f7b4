#include "rhoflow/field/montecarlo_field.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/exec/parallel.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/model/sample.hpp"
#include "rhoflow/core/stats.hpp"

namespace rhoflow {

void MonteCarloParams::validate() const {
    require(samples >= 2 && samples <= (std::int64_t{1} << 40), "samples",
            static_cast<double>(samples), "2 <= samples <= 2^40");
    require(threads >= 0 && threads <= 1024, "threads", threads, "0 (all cores) <= threads <= 1024");
}

RHOFLOW_JSON_HOOKS(MonteCarloParams, samples, seed, threads)
RHOFLOW_JSON_HOOKS(GradientMoments, g_u, g_u_err, g_v, g_v_err, g_w_sq, g_w_sq_err)

namespace {
constexpr std::int64_t kChunk = 2048;  // samples per independent stream
// The per-sample estimators, accumulated side by side.
enum Estimator { kJ, kDj, kDrift, kMass, kGu, kGv, kGw, kEstimators };
using ChunkStats = std::array<RunningStats, kEstimators>;
}  // namespace

FieldPoint montecarlo_field(const ModelParams& model, double rho, const MonteCarloParams& params,
                            GradientMoments* moments) {
    model.validate();
    validate_rho(rho);
    params.validate();
    const std::int64_t chunks = (params.samples + kChunk - 1) / kChunk;
    std::vector<ChunkStats> results(static_cast<std::size_t>(chunks));
    const double theta = model.theta, beta = model.beta;
    const double c2 = theta * theta * (1 - rho * rho);
    const double c3 = static_cast<double>(model.d - 1) * model.sigma * model.sigma;
    const double s = std::sqrt(std::max(0.0, 1 - rho * rho));

    parallel_for(chunks, params.threads, [&](std::int64_t c) {
        SampleDrawer sampler(model);  // workspace of 5 L doubles, small next to 2048 samples
        RandomStream rng({params.seed, StreamPurpose::montecarlo_field, static_cast<std::uint64_t>(c)});
        ChunkStats& out = results[static_cast<std::size_t>(c)];
        const std::int64_t n = std::min(kChunk, params.samples - c * kChunk);
        for (std::int64_t k = 0; k < n; ++k) {
            const GradientDraw g = sampler.draw(rho, rng);
            out[kJ].add(g.norm_f_sq());
            out[kDrift].add(s * g.g_v);
            out[kMass].add(g.mass_informative);
            out[kGu].add(g.g_u);
            out[kGv].add(g.g_v);
            out[kGw].add(g.g_w_sq);
            // Pathwise derivative of h(u); see the header.
            const double G = g.f_u, A = g.mass_informative, S = g.sum_a2;
            const double dG = A + beta * (g.informative_au - G * A);
            const double dA = beta * A * (1 - A);
            const double dS = 2 * beta * (g.informative_a2 - A * S);
            const double dh = theta * (2 * G * dG + c2 * 2 * A * dA + c3 * dS) - 2 * rho * theta * theta * A * A;
            out[kDj].add(dh);
        }
    });

    ChunkStats all;  // merged in chunk order: independent of the thread count
    for (const auto& r : results)
        for (int e = 0; e < kEstimators; ++e) all[e].merge(r[e]);
    auto mean = [&](Estimator e, const char* what) { return require_finite_result(all[e].mean(), what); };
    if (moments)
        *moments = {mean(kGu, "E g_u (Monte Carlo)"), all[kGu].standard_error(), mean(kGv, "E g_v (Monte Carlo)"),
                    all[kGv].standard_error(), mean(kGw, "E |g_w|^2 (Monte Carlo)"), all[kGw].standard_error()};
    FieldPoint p;
    p.rho = rho;
    p.j = mean(kJ, "j (Monte Carlo)");
    p.dj = mean(kDj, "dj (Monte Carlo)");
    p.drift = mean(kDrift, "drift (Monte Carlo)") + 0.0;
    p.mass_informative = mean(kMass, "mass_informative (Monte Carlo)");
    p.j_err = all[kJ].standard_error();
    p.dj_err = all[kDj].standard_error();
    p.drift_err = all[kDrift].standard_error();
    p.mass_err = all[kMass].standard_error();
    return p;
}

}  // namespace rhoflow
