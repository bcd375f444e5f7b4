#include "rhoflow/effective/effective.hpp"

#include <algorithm>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <fmt/format.h>
#include <functional>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/effective/detail/paths.hpp"
#include "rhoflow/exec/parallel.hpp"
#include "rhoflow/ode/detail/root_scan.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/stochastic/reduced_sampler.hpp"

namespace rhoflow {

// ------------------------------------------------------------------------------- the drift

EffectiveDrift::EffectiveDrift(const DriftField& field, std::vector<StepMomentTable> tables)
    : field_(field), tables_(std::move(tables)) {
    if (tables_.empty()) throw InvalidArgument("tables", "tables: the effective drift needs at least one step-moment table");
    std::sort(tables_.begin(), tables_.end(), [](const auto& x, const auto& y) { return x.eta < y.eta; });
    for (const auto& t : tables_) {
        std::vector<double> c, lv, e;
        for (const auto& n : t.nodes) {
            c.push_back((n.a - n.F) / t.eta);
            lv.push_back(std::log(std::max(n.v, 1e-300)));
            e.push_back(n.a_err);
        }
        levels_.push_back({t.eta, Chebyshev::from_lobatto(c, 1e-12), Chebyshev::from_lobatto(lv, 1e-12),
                           Chebyshev::from_lobatto(e, 1e-12)});
        etas_.push_back(t.eta);
    }
}

EtaBracket bracket_eta(const std::vector<double>& etas, double eta) {
    EtaBracket b;
    if (eta <= etas.front()) return b;
    if (eta >= etas.back()) {
        b.lo = b.hi = etas.size() - 1;
        return b;
    }
    b.hi = 1;
    while (etas[b.hi] < eta) ++b.hi;
    b.lo = b.hi - 1;
    b.w = (eta - etas[b.lo]) / (etas[b.hi] - etas[b.lo]);
    return b;
}

void EffectiveDrift::bracket(double eta, std::size_t& lo, std::size_t& hi, double& w) const {
    const EtaBracket b = bracket_eta(etas_, eta);
    lo = b.lo;
    hi = b.hi;
    w = b.w;
}

double EffectiveDrift::a(double rho, double eta) const {
    std::size_t lo, hi;
    double w;
    bracket(eta, lo, hi, w);
    const double c = (1 - w) * levels_[lo].c(rho) + w * levels_[hi].c(rho);
    return field_.drift(rho) + eta * c;
}

double EffectiveDrift::v(double rho, double eta) const {
    std::size_t lo, hi;
    double w;
    bracket(eta, lo, hi, w);
    return (1 - w) * std::exp(levels_[lo].log_v(rho)) + w * std::exp(levels_[hi].log_v(rho));
}

double EffectiveDrift::a_err(double rho, double eta) const {
    std::size_t lo, hi;
    double w;
    bracket(eta, lo, hi, w);
    // The tables' errors scale like eta at fixed samples: rescale the nearest table's error.
    const double e = (1 - w) * std::abs(levels_[lo].err(rho)) / levels_[lo].eta +
                     w * std::abs(levels_[hi].err(rho)) / levels_[hi].eta;
    return eta * e;
}

// ------------------------------------------------------------------------------- equilibria

namespace {

// The equilibrium of a(.; eta) at the root rho: a' by a central difference, the root's error
// from a's, and its kind.
EffectiveEquilibrium classify_effective(const EffectiveDrift& drift, double eta, double rho) {
    auto a = [&](double r) { return drift.a(r, eta); };
    EffectiveEquilibrium e;
    e.rho = rho;
    const double h = 1e-4;
    e.slope = (a(std::min(1.0, e.rho + h)) - a(std::max(-1.0, e.rho - h))) /
              (std::min(1.0, e.rho + h) - std::max(-1.0, e.rho - h));
    const double err = drift.a_err(e.rho, eta);
    e.rho_err = std::abs(e.slope) > 0 ? err / std::abs(e.slope) : 2.0;
    // The noise in a is interpolated between the tables' nodes, so it can tilt a by about
    // err over one node spacing (Lobatto: about pi/n sqrt(1 - rho^2), pi^2/(2 n^2) at the ends).
    const double n = static_cast<double>(drift.tables().front().nodes.size() - 1);
    const double spacing = std::max(M_PI / n * std::sqrt(std::max(0.0, 1 - e.rho * e.rho)), M_PI * M_PI / (2 * n * n));
    const double slope_err = 2 * err / spacing;
    e.kind = equilibrium_kind(e.slope, slope_err);
    e.stable = e.kind == EquilibriumKind::attractor;
    return e;
}

}  // namespace

std::vector<EffectiveEquilibrium> effective_equilibria(const EffectiveDrift& drift, double eta, int cells) {
    const std::function<double(double)> a = [&](double r) { return drift.a(r, eta); };
    const detail::RootGrid grid = detail::scan_grid(a, cells, "effective equilibria: a(rho; eta)");
    const detail::RootRefine refine{50, 100};
    std::vector<double> roots = detail::sign_change_roots(a, grid, refine), near_tangencies;
    detail::close_root_pairs(a, grid, 0.0, refine, roots, near_tangencies);
    std::vector<EffectiveEquilibrium> out;
    for (double r : detail::sorted_roots(std::move(roots))) out.push_back(classify_effective(drift, eta, r));
    return out;
}

// ------------------------------------------------------------------------------- effective ODE


std::vector<double> solve_effective_ode(const EffectiveDrift& drift, const StepSchedule& schedule, std::int64_t steps,
                                        double rho0, const std::vector<double>& times, double rtol) {
    // eta(t) jumps at every t_k: one adaptive Dormand-Prince integration per step interval, where
    // the right side is smooth, with the output times as extra break points. (Odeint's stiff
    // Rosenbrock4 needs Boost.uBLAS, which Boost 1.74 does not build under C++20.)
    namespace odeint = boost::numeric::odeint;
    using State = std::array<double, 1>;
    std::vector<double> out;
    if (times.empty()) return out;
    const std::vector<double> tk = detail::step_times(schedule, steps);
    std::size_t next = 0;
    for (; next < times.size() && times[next] <= 0; ++next) out.push_back(rho0);
    State x{rho0};
    auto stepper = odeint::make_controlled(rtol * 1e-2, rtol, odeint::runge_kutta_dopri5<State>());
    double t = 0, dt = tk.size() > 1 ? tk[1] - tk[0] : 1.0;
    auto advance_to = [&](double end, double eta) {
        auto sys = [&](const State& y, State& dydt, double) { dydt[0] = drift.a(std::clamp(y[0], -1.0, 1.0), eta); };
        while (t < end) {
            const bool last = dt >= end - t;
            double h = last ? end - t : dt;
            if (stepper.try_step(sys, x, t, h) == odeint::success && last) t = end;  // on the break point exactly
            dt = h;  // the controller's next step
        }
    };
    for (std::size_t k = 0; k + 1 < tk.size() && next < times.size(); ++k) {
        const double eta = schedule.eta(static_cast<std::int64_t>(k));
        while (next < times.size() && times[next] <= tk[k + 1]) {
            advance_to(times[next], eta);
            out.push_back(std::clamp(x[0], -1.0, 1.0));
            ++next;
        }
        advance_to(tk[k + 1], eta);
    }
    for (; next < times.size(); ++next) out.push_back(std::clamp(x[0], -1.0, 1.0));  // beyond the last step
    return out;
}

// ------------------------------------------------------------------------------- the chain

void PredictionParams::validate() const {
    require(paths >= 100 && paths <= 10000000, "paths", static_cast<double>(paths), "100 <= paths <= 1e7");
    require(threads >= 0 && threads <= 1024, "threads", threads, "0 (all cores) <= threads <= 1024");
    require(std::isfinite(diffusion_scale) && diffusion_scale > 0 && diffusion_scale <= 10, "diffusion_scale",
            diffusion_scale, "0 < diffusion_scale <= 10");
}

namespace {

constexpr int kGrid = 4096;           // cells of the lookup tables in rho

// a and sqrt(v) on a uniform grid in rho for each tabulated step size, so that a path step costs
// two lookups. This is the hot loop of the prediction: linear interpolation in a table whose
// spacing (5e-4) is far below the Chebyshev interpolants' scale of variation.
struct Lookup {
    std::vector<double> F;                   // F at the grid points
    std::vector<std::vector<double>> c, sv;  // per table: (a - F)/eta and sqrt(v)
    std::vector<double> etas;

    Lookup(const EffectiveDrift& drift) {
        for (const auto& t : drift.tables()) etas.push_back(t.eta);
        c.resize(etas.size());
        sv.resize(etas.size());
        for (int i = 0; i <= kGrid; ++i) {
            const double r = -1.0 + 2.0 * i / kGrid;
            F.push_back(drift.F(r));
            for (std::size_t j = 0; j < etas.size(); ++j) {
                c[j].push_back((drift.a(r, etas[j]) - F.back()) / etas[j]);
                sv[j].push_back(std::sqrt(drift.v(r, etas[j])));
            }
        }
    }
};

// The bracketing tables and weight of each step's eta, computed once for all paths.
struct StepPlan {
    std::vector<double> eta, w, t;
    std::vector<std::uint32_t> lo, hi;
};

StepPlan plan_steps(const Lookup& L, const StepSchedule& schedule, std::int64_t steps) {
    StepPlan p;
    double t = 0;
    for (std::int64_t k = 0; k < steps; ++k) {
        const double e = schedule.eta(k);
        const EtaBracket b = bracket_eta(L.etas, e);
        p.eta.push_back(e);
        p.w.push_back(b.w);
        p.lo.push_back(static_cast<std::uint32_t>(b.lo));
        p.hi.push_back(static_cast<std::uint32_t>(b.hi));
        p.t.push_back(t);
        t += e;
    }
    p.t.push_back(t);
    return p;
}

}  // namespace

EffectivePrediction summarise_paths(const std::vector<double>& t, const std::vector<std::int64_t>& record_steps,
                                    const PathSamples& s) {
    if (s.at_records.size() != record_steps.size() || s.rho_final.empty())
        throw InvalidArgument("samples", "the paths' values do not match the record steps (accepted: one list per "
                                         "record step, at least one path)");
    EffectivePrediction out;
    for (std::size_t r = 0; r < record_steps.size(); ++r) {
        const std::vector<double>& v = s.at_records[r];
        const std::int64_t k = record_steps[r];
        out.records.push_back({k, t.at(static_cast<std::size_t>(k)), mean_ci_within(v, -1, 1), quantile(v, 0.1),
                               quantile(v, 0.9)});
    }
    std::vector<double> absf;
    for (double x : s.rho_final) absf.push_back(std::abs(x));
    out.abs_rho_final = mean_ci_within(absf, 0, 1);
    out.hit_fraction = static_cast<double>(s.hit_times.size()) / static_cast<double>(s.rho_final.size());
    if (!s.hit_times.empty()) {
        out.hit_time = mean_ci_within(s.hit_times, 0, t.back());
        out.hit_time_quantiles = {quantile(s.hit_times, 0.1), quantile(s.hit_times, 0.5), quantile(s.hit_times, 0.9)};
    }
    return out;
}

PathSamples pool_paths(const std::vector<PathSamples>& runs) {
    PathSamples out;
    for (const PathSamples& s : runs) {
        if (out.at_records.empty()) out.at_records.resize(s.at_records.size());
        if (s.at_records.size() != out.at_records.size())
            throw InvalidArgument("runs", "runs with different record steps cannot be pooled");
        for (std::size_t r = 0; r < s.at_records.size(); ++r)
            out.at_records[r].insert(out.at_records[r].end(), s.at_records[r].begin(), s.at_records[r].end());
        out.rho_final.insert(out.rho_final.end(), s.rho_final.begin(), s.rho_final.end());
        out.hit_times.insert(out.hit_times.end(), s.hit_times.begin(), s.hit_times.end());
    }
    return out;
}

EffectivePrediction predict_ensemble(const EffectiveDrift& drift, const StepSchedule& schedule, std::int64_t steps,
                                     const std::vector<std::int64_t>& record_steps, std::optional<double> rho0,
                                     std::int64_t d, double hit_eps, const PredictionParams& params,
                                     PathSamples* samples) {
    params.validate();
    require(steps >= 1, "steps", static_cast<double>(steps), "steps >= 1");
    const Lookup L(drift);
    const StepPlan plan = plan_steps(L, schedule, steps);
    const double h = 2.0 / kGrid, D = params.diffusion_scale;
    auto advance = [&](std::size_t ks, std::vector<double>& x, RandomStream& rng) {
        const double e = plan.eta[ks], w = plan.w[ks];
        const auto& clo = L.c[plan.lo[ks]], &chi = L.c[plan.hi[ks]];
        const auto& slo = L.sv[plan.lo[ks]], &shi = L.sv[plan.hi[ks]];
        for (auto& r : x) {  // hot loop: two table lookups and one normal per path-step
            const double u = (r + 1) / h;
            const auto j = static_cast<std::size_t>(std::min(u, kGrid - 1.0));
            const double f = u - static_cast<double>(j);
            auto lerp = [&](const std::vector<double>& tab) { return tab[j] + f * (tab[j + 1] - tab[j]); };
            const double c = (1 - w) * lerp(clo) + w * lerp(chi), sv = (1 - w) * lerp(slo) + w * lerp(shi);
            r = std::clamp(r + e * (lerp(L.F) + e * c) + e * D * sv * rng.normal(), -1.0, 1.0);
        }
    };
    return detail::run_paths(plan.t, steps, record_steps, rho0, d, hit_eps, params, StreamPurpose::effective_sde,
                             advance, samples);
}

RHOFLOW_JSON_HOOKS(EffectiveEquilibrium, rho, rho_err, slope, stable, kind)
namespace {
RHOFLOW_JSON_HOOKS_NAMED(prediction_params_to_json, prediction_params_from_json, PredictionParams, paths, seed, threads,
                         diffusion_scale)
}  // namespace
void to_json(nlohmann::json& j, const PredictionParams& v) { prediction_params_to_json(j, v); }
void from_json(const nlohmann::json& j, PredictionParams& v) {
    if (j.contains("diffusion_scale")) return prediction_params_from_json(j, v);
    nlohmann::json with = j;  // written before the option: the diffusion as measured
    with["diffusion_scale"] = 1.0;
    prediction_params_from_json(with, v);
}
RHOFLOW_JSON_HOOKS(PredictionRecord, step, t, rho, q10, q90)
RHOFLOW_JSON_HOOKS(EffectivePrediction, records, abs_rho_final, hit_time, hit_fraction, hit_time_quantiles)

}  // namespace rhoflow
