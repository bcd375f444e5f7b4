#include "rhoflow/field/montecarlo_field.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/parallel.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/model/sample.hpp"
#include "rhoflow/core/stats.hpp"

namespace rhoflow {

void MonteCarloParams::validate() const {
    require(samples >= 2 && samples <= (std::int64_t{1} << 40), "samples",
            static_cast<double>(samples), "2 <= samples <= 2^40");
    require(threads >= 0 && threads <= 1024, "threads", threads, "0 (all cores) <= threads <= 1024");
}

namespace {
constexpr std::int64_t kChunk = 2048;  // samples per independent stream
struct ChunkStats {
    RunningStats j, dj, drift, mass, gu, gv, gw;
};
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
            out.j.add(g.norm_f_sq());
            out.drift.add(s * g.g_v);
            out.mass.add(g.mass_informative);
            out.gu.add(g.g_u);
            out.gv.add(g.g_v);
            out.gw.add(g.g_w_sq);
            // Pathwise derivative of h(u); see the header.
            const double G = g.f_u, A = g.mass_informative, S = g.sum_a2;
            const double dG = A + beta * (g.informative_au - G * A);
            const double dA = beta * A * (1 - A);
            const double dS = 2 * beta * (g.informative_a2 - A * S);
            const double dh = theta * (2 * G * dG + c2 * 2 * A * dA + c3 * dS) - 2 * rho * theta * theta * A * A;
            out.dj.add(dh);
        }
    });

    ChunkStats all;
    for (const auto& r : results) {
        all.j.merge(r.j);
        all.dj.merge(r.dj);
        all.drift.merge(r.drift);
        all.mass.merge(r.mass);
        all.gu.merge(r.gu);
        all.gv.merge(r.gv);
        all.gw.merge(r.gw);
    }
    if (moments)
        *moments = {all.gu.mean(), all.gu.standard_error(), all.gv.mean(), all.gv.standard_error(),
                    all.gw.mean(), all.gw.standard_error()};
    FieldPoint p;
    p.rho = rho;
    p.j = require_finite_result(all.j.mean(), "j (Monte Carlo)");
    p.dj = require_finite_result(all.dj.mean(), "dj (Monte Carlo)");
    p.drift = require_finite_result(all.drift.mean(), "drift (Monte Carlo)") + 0.0;
    p.mass_informative = require_finite_result(all.mass.mean(), "mass_informative (Monte Carlo)");
    p.j_err = all.j.standard_error();
    p.dj_err = all.dj.standard_error();
    p.drift_err = all.drift.standard_error();
    p.mass_err = all.mass.standard_error();
    return p;
}

}  // namespace rhoflow
