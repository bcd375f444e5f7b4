// The path loop of the effective chains (effective.hpp's Gaussian chain, resampled_chain.hpp's
// resampled one): paths in blocks of 256 on one stream each, started at rho0 or from the
// sphere's uniform law, recorded at the record steps, their first hit of |rho| >= 1 - hit_eps
// noted; the chain itself is the `advance` callback. Internal to effective/.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "rhoflow/core/cancel.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/effective/effective.hpp"
#include "rhoflow/exec/parallel.hpp"
#include "rhoflow/stochastic/reduced_sampler.hpp"
#include "rhoflow/stochastic/schedule.hpp"

namespace rhoflow::detail {

/// t_k for k = 0 ... steps: the ODE time at which step k starts (the effective ODE's break points
/// and the chains' record times).
inline std::vector<double> step_times(const StepSchedule& schedule, std::int64_t steps) {
    std::vector<double> t(static_cast<std::size_t>(steps) + 1, 0.0);
    for (std::int64_t k = 0; k < steps; ++k) t[static_cast<std::size_t>(k) + 1] = t[static_cast<std::size_t>(k)] + schedule.eta(k);
    return t;
}

/// Paths per random stream.
inline constexpr std::int64_t kPathBlock = 256;

/// Runs params.paths paths of `steps` steps; t[k] is the ODE time of step k (k = 0 ... steps).
/// `advance(k, x, rng)` moves every path of a block, x, from step k to k + 1 with the block's
/// stream (purpose `purpose`, index = block, counter word `sub`), which first drew the block's
/// starts. Every path's values go to `samples` when given.
template <class Advance>
EffectivePrediction run_paths(const std::vector<double>& t, std::int64_t steps,
                              const std::vector<std::int64_t>& record_steps, std::optional<double> rho0,
                              std::int64_t d, double hit_eps, const PredictionParams& params, StreamPurpose purpose,
                              const Advance& advance, PathSamples* samples = nullptr, std::uint64_t sub = 0) {
    const auto P = static_cast<std::size_t>(params.paths), R = record_steps.size();
    std::vector<double> rec(R * P), final_rho(P), hit(P, -1.0);
    const double level = 1 - hit_eps;
    parallel_for((params.paths + kPathBlock - 1) / kPathBlock, params.threads, [&](std::int64_t b) {
        RandomStream rng({params.seed, purpose, static_cast<std::uint64_t>(b), sub});
        const std::size_t first = static_cast<std::size_t>(b * kPathBlock), last = std::min(P, first + kPathBlock);
        std::vector<double> x(last - first);
        for (auto& r : x) r = rho0 ? *rho0 : uniform_sphere_rho(d, rng);
        std::size_t next = 0;
        for (std::int64_t k = 0; k <= steps; ++k) {
            const auto ks = static_cast<std::size_t>(k);
            if (next < R && record_steps[next] == k) {
                for (std::size_t i = 0; i < x.size(); ++i) rec[next * P + first + i] = x[i];
                ++next;
            }
            for (std::size_t i = 0; i < x.size(); ++i)
                if (hit[first + i] < 0 && std::abs(x[i]) >= level) hit[first + i] = t[ks];
            if (k == steps) break;
            if ((k & 1023) == 0) throw_if_cancelled();  // a long schedule takes seconds: stop on request
            advance(ks, x, rng);
        }
        for (std::size_t i = 0; i < x.size(); ++i) final_rho[first + i] = x[i];
    });
    PathSamples s;
    for (std::size_t r = 0; r < R; ++r)
        s.at_records.emplace_back(rec.begin() + static_cast<std::ptrdiff_t>(r * P),
                                  rec.begin() + static_cast<std::ptrdiff_t>((r + 1) * P));
    s.rho_final = std::move(final_rho);
    for (double h : hit)
        if (h >= 0) s.hit_times.push_back(h);
    EffectivePrediction out = summarise_paths(t, record_steps, s);
    if (samples) *samples = std::move(s);
    return out;
}

}  // namespace rhoflow::detail
