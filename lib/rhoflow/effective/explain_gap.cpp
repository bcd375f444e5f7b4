#include "rhoflow/effective/explain_gap.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <fmt/format.h>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/exec/parallel.hpp"
#include "rhoflow/core/stats.hpp"
#include "rhoflow/field/gradient_moments.hpp"
#include "rhoflow/effective/effective.hpp"
#include "rhoflow/effective/resampled_chain.hpp"

namespace rhoflow {

void EffectiveParams::validate() const {
    require(std::isfinite(level_ratio) && level_ratio >= 1.05 && level_ratio <= 10, "level_ratio", level_ratio,
            "1.05 <= level_ratio <= 10");
    validate_member("moments", [&] { moments.validate(); });
    validate_member("prediction", [&] { prediction.validate(); });
    require(bootstrap >= 4 && bootstrap <= 1000, "bootstrap", bootstrap, "4 <= bootstrap <= 1000");
    require(std::isfinite(alpha) && alpha >= 1e-6 && alpha <= 0.5, "alpha", alpha, "1e-6 <= alpha <= 0.5");
}

std::string_view to_string(EffectiveChain c) { return c == EffectiveChain::resampled ? "resampled" : "gaussian"; }

EffectiveChain parse_effective_chain(std::string_view s, const std::string& field) {
    if (s == "resampled") return EffectiveChain::resampled;
    if (s == "gaussian") return EffectiveChain::gaussian;
    throw InvalidArgument(field, fmt::format("{} = '{}' is not an effective chain (accepted: resampled, gaussian)",
                                             field, s));
}

RHOFLOW_JSON_ENUM_HOOKS(EffectiveChain, parse_effective_chain)
namespace {
RHOFLOW_JSON_HOOKS_NAMED(effective_params_to_json, effective_params_from_json, EffectiveParams, enabled, chain,
                         level_ratio, moments, prediction, bootstrap, alpha)
}  // namespace
void to_json(nlohmann::json& j, const EffectiveParams& v) { effective_params_to_json(j, v); }
void from_json(const nlohmann::json& j, EffectiveParams& v) {
    if (j.contains("chain")) return effective_params_from_json(j, v);
    nlohmann::json with = j;  // written before the resampled chain: predicted by the Gaussian one
    with["chain"] = EffectiveChain::gaussian;
    effective_params_from_json(with, v);
}
RHOFLOW_JSON_HOOKS(ConsistencyVerdict, consistent, alpha, rows_tested, threshold_z, max_abs_z, worst_step, min_p_value, field_scale,
                   detectable_field_error, method)
RHOFLOW_JSON_HOOKS(PlateauPoint, eta, rho_star, rho_star_err)
RHOFLOW_JSON_HOOKS(EffectiveSummary, params, tables, abs_rho_final, abs_rho_final_err, hit_time, hit_fraction, plateau)
RHOFLOW_JSON_HOOKS(GapRow, step, t, sga_mean)
RHOFLOW_JSON_HOOKS(GapTables, tables, draws)
RHOFLOW_JSON_HOOKS(RowPrediction, rho_eff_ode, rho_first_order, pred_mean, pred_q10, pred_q90, pred_se, residual_z, p_value)
RHOFLOW_JSON_HOOKS(GapExplanation, summary, verdict, rows, trajectory)

namespace {

// The tabulated step sizes: geometric from the run's first eta to its last, consecutive ones at
// most `ratio` apart (one for a constant step). c(rho; eta) is interpolated linearly in eta
// between them; with eta0 = 0.5 decaying 100-fold, four levels (ratio 4.6) left the transient's
// prediction 10 standard errors off, ratio 1.5 (12 levels) within 2. The levels share their
// draws, so their number costs little.
std::vector<double> level_etas(const StepSchedule& sch, std::int64_t steps, double ratio) {
    const double hi = sch.eta(0), lo = sch.eta(steps - 1);
    if (hi <= lo * (1 + 1e-12)) return {hi};
    const int levels = 1 + static_cast<int>(std::ceil(std::log(hi / lo) / std::log(ratio) - 1e-9));
    std::vector<double> etas;
    for (int j = 0; j < levels; ++j) etas.push_back(hi * std::pow(lo / hi, static_cast<double>(j) / (levels - 1)));
    return etas;
}

// The effective ODE from every distinct start of the trials, averaged (like the plain ODE's rows).
std::vector<double> effective_ode_rows(const EffectiveDrift& D, const StepSchedule& eta, std::int64_t steps,
                                       const std::vector<double>& starts, const std::vector<double>& times) {
    std::vector<double> mean(times.size(), 0.0);
    for (double r0 : starts) {
        const std::vector<double> path = solve_effective_ode(D, eta, steps, r0, times);
        for (std::size_t i = 0; i < times.size(); ++i) mean[i] += path[i] / static_cast<double>(starts.size());
    }
    return mean;
}

// The spread of the effective ODE over tables perturbed within their errors: the prediction's
// systematic error at each row (and at the final time, the last entry of `times`).
std::vector<double> systematic_errors(const DriftField& F, const std::vector<StepMomentTable>& tables,
                                      const EffectiveParams& ep, std::uint64_t seed, const StepSchedule& eta,
                                      std::int64_t steps, const std::vector<double>& starts,
                                      const std::vector<double>& times) {
    RandomStream rng({seed, StreamPurpose::bootstrap, 1});
    std::vector<RunningStats> spread(times.size());
    for (int b = 0; b < ep.bootstrap; ++b) {
        std::vector<StepMomentTable> q;
        for (const auto& t : tables) q.push_back(perturbed_within_errors(t, rng));
        const std::vector<double> path = effective_ode_rows(EffectiveDrift(F, q), eta, steps, starts, times);
        for (std::size_t i = 0; i < times.size(); ++i) spread[i].add(path[i]);
    }
    std::vector<double> err;
    for (const auto& s : spread) err.push_back(std::sqrt(s.variance()));
    return err;
}

// rho*(eta): the effective attractor nearest +1 at 16 step sizes over the run's range.
std::vector<PlateauPoint> plateau(const EffectiveDrift& D, const std::vector<double>& etas) {
    std::vector<PlateauPoint> out;
    const double lo = etas.back() < etas.front() ? etas.back() : etas.front();
    const double hi = std::max(etas.front(), etas.back());
    const int n = hi > lo ? 16 : 1;
    for (int i = 0; i < n; ++i) {
        const double eta = n == 1 ? hi : lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1));
        PlateauPoint pt{eta, 1.0, 0.0};
        for (const auto& e : effective_equilibria(D, eta))
            if (e.stable) {
                pt.rho_star = e.rho;
                pt.rho_star_err = e.rho_err;
            }
        out.push_back(pt);
    }
    return out;
}

// Fills each row's prediction and residual; returns the verdict's row statistics.
ConsistencyVerdict judge_rows(const std::vector<GapRow>& rows, std::vector<RowPrediction>& out,
                              const EffectivePrediction& pred, const std::vector<double>& eff,
                              const std::vector<double>& syst, std::int64_t trials, double alpha) {
    ConsistencyVerdict v;
    v.alpha = alpha;
    const double n = static_cast<double>(trials);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const GapRow& row = rows[i];
        RowPrediction& r = out[i];
        const auto it = std::find_if(pred.records.begin(), pred.records.end(), [&](const auto& x) { return x.step == row.step; });
        const double spread = it->rho.se * std::sqrt(static_cast<double>(it->rho.n));
        r.rho_eff_ode = eff[i];
        r.pred_mean = it->rho.mean;
        r.pred_q10 = it->q10;
        r.pred_q90 = it->q90;
        r.pred_se = std::sqrt(spread * spread / n + it->rho.se * it->rho.se + syst[i] * syst[i]);
        const double resid = row.sga_mean - it->rho.mean;
        if (*r.pred_se > 0) {
            r.residual_z = resid / *r.pred_se;
            r.p_value = std::erfc(std::abs(*r.residual_z) / std::sqrt(2.0));
            ++v.rows_tested;
            if (std::abs(*r.residual_z) > v.max_abs_z) {
                v.max_abs_z = std::abs(*r.residual_z);
                v.worst_step = row.step;
            }
            v.min_p_value = std::min(v.min_p_value, *r.p_value);
        }
    }
    const double m = static_cast<double>(std::max<std::int64_t>(1, v.rows_tested));
    v.threshold_z = boost::math::quantile(boost::math::complement(boost::math::normal(), alpha / (2 * m)));
    v.consistent = v.max_abs_z <= v.threshold_z;
    v.method = fmt::format("residual z = (SGA mean - effective-chain mean) / predicted standard error per row; "
                           "Holm-Bonferroni over the {} rows tested: consistent unless some |z| > {:.3f} (p < alpha/m, "
                           "alpha = {}), a family-wise false-alarm rate of at most alpha under any dependence",
                           v.rows_tested, v.threshold_z, alpha);
    return v;
}

// The smallest |S - 1| that would move some row's effective ODE by threshold_z predicted errors.
double detectable_error(const DriftField& F, const std::vector<StepMomentTable>& tables,
                        const StepSchedule& eta, std::int64_t steps, const std::vector<double>& starts,
                        const std::vector<double>& times, const std::vector<RowPrediction>& rows, double threshold) {
    constexpr double d = 0.1;
    const auto up = effective_ode_rows(EffectiveDrift(F.scaled(1 + d), tables), eta, steps, starts, times);
    const auto dn = effective_ode_rows(EffectiveDrift(F.scaled(1 - d), tables), eta, steps, starts, times);
    double best = INFINITY;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const double sens = std::abs(up[i] - dn[i]) / (2 * d);
        if (sens > 0 && rows[i].pred_se && *rows[i].pred_se > 0) best = std::min(best, threshold * *rows[i].pred_se / sens);
    }
    return std::isfinite(best) ? best : 1.0;
}

// The first-order corrected drift F + eta B(rho), B exact (field/gradient_moments.hpp): a table
// whose (a - F)/eta is B at every step size, on 33 Lobatto nodes.
EffectiveDrift first_order_drift(const ModelParams& model, const DriftField& F, UpdateRule rule) {
    StepMomentTable t;
    t.eta = 1.0;
    t.rule = rule;
    const std::vector<double> rho = Chebyshev::lobatto_points(32);
    t.nodes.resize(rho.size());
    parallel_for(static_cast<std::int64_t>(rho.size()), 0, [&](std::int64_t i) {
        const auto k = static_cast<std::size_t>(i);
        const OneStepExpansion x = one_step_expansion(model, rho[k], rule);
        t.nodes[k] = {rho[k], F.drift(rho[k]), F.drift(rho[k]) + x.B, x.B_err, std::max(x.Sigma, 1e-300), x.Sigma_err};
    });
    return EffectiveDrift(F, {t});
}

// The trajectory figure's prediction columns (its points are the record steps after step 0).
void fill_trajectory(const EffectiveDrift& D, const EffectiveDrift& first, const StepSchedule& eta, std::int64_t steps,
                     const std::vector<double>& starts, const EffectivePrediction& pred,
                     const std::vector<double>& times, std::vector<RowPrediction>& traj) {
    traj.resize(times.size());
    const std::vector<double> ode = effective_ode_rows(D, eta, steps, starts, times);
    const std::vector<double> ode1 = effective_ode_rows(first, eta, steps, starts, times);
    for (std::size_t i = 0; i < traj.size(); ++i) {
        const PredictionRecord& r = pred.records[i + 1];
        traj[i].rho_eff_ode = ode[i];
        traj[i].rho_first_order = ode1[i];
        traj[i].pred_mean = r.rho.mean;
        traj[i].pred_q10 = r.q10;
        traj[i].pred_q90 = r.q90;
    }
}

// The chain's prediction of the ensemble at the record steps: the resampled chain from a bank
// of the tables' own first draws (same seed, streams and nodes), or the Gaussian chain.
EffectivePrediction predict(const ModelParams& model, const SgaParams& sg, const EffectiveParams& ep,
                            const DriftField& F, const EffectiveDrift& D, const std::vector<std::int64_t>& records,
                            const std::vector<StepMomentTable>& tables, std::vector<std::vector<BankDraw>> draws) {
    if (ep.chain == EffectiveChain::gaussian)
        return predict_ensemble(D, sg.schedule, sg.steps, records, sg.rho0, model.d, sg.hit_eps, ep.prediction);
    GradientBank bank;
    if (draws.empty()) {
        const GradientBankParams bp{ep.moments.nodes, std::clamp<std::int64_t>(ep.moments.samples, 100, 1000000),
                                    ep.moments.seed, 0, ep.moments.threads};
        bank = sample_gradient_bank(model, bp);
    } else {
        std::vector<double> rho;
        for (const auto& n : tables.front().nodes) rho.push_back(n.rho);
        bank = bank_from_draws(rho, std::move(draws));
    }
    const ResampledChain chain(std::move(bank), F, sg.update);
    return predict_resampled(chain, sg.schedule, sg.steps, records, sg.rho0, model.d, sg.hit_eps, ep.prediction);
}

}  // namespace

std::vector<double> table_etas(const SgaParams& sga, const EffectiveParams& ep) {
    return level_etas(sga.schedule, sga.steps, ep.level_ratio);
}

GapTables measure_gap_table_nodes(const ModelParams& model, const SgaParams& sga, const EffectiveParams& ep,
                                  const DriftField& F, std::size_t first, std::size_t count) {
    StepMomentParams moments = ep.moments;
    moments.seed = sga.seed;
    GapTables out;
    out.tables = measure_step_moment_nodes(model, F, table_etas(sga, ep), sga.update, moments, 0, first, count,
                                           ep.chain == EffectiveChain::resampled ? &out.draws : nullptr);
    return out;
}

GapTables measure_gap_tables(const ModelParams& model, const SgaParams& sga, const EffectiveParams& ep,
                             const DriftField& F) {
    return measure_gap_table_nodes(model, sga, ep, F, 0, static_cast<std::size_t>(ep.moments.nodes) + 1);
}

GapExplanation explain_gap(const ModelParams& model, const SgaParams& sg, const EffectiveParams& ep,
                           double field_scale, const DriftField& F, const std::vector<std::int64_t>& records,
                           const std::vector<double>& starts, const std::vector<GapRow>& rows,
                           const std::vector<double>& trajectory_times, GapTables tables) {
    GapExplanation out;
    EffectiveSummary& eff = out.summary;
    eff.params = ep;
    eff.params.moments.seed = eff.params.prediction.seed = sg.seed;
    const std::vector<double> etas = table_etas(sg, ep);
    if (!tables.draws.empty() && (tables.tables.empty() || tables.draws.size() != tables.tables.front().nodes.size()))
        throw InvalidArgument("draws", fmt::format("{} lists of draws for {} nodes (accepted: one per node, or none)",
                                                   tables.draws.size(),
                                                   tables.tables.empty() ? 0 : tables.tables.front().nodes.size()));
    eff.tables = std::move(tables.tables);
    const EffectiveDrift D(F, eff.tables);
    const StepSchedule& eta = sg.schedule;
    const EffectivePrediction pred = predict(model, sg, eff.params, F, D, records, eff.tables, std::move(tables.draws));

    std::vector<double> times;
    for (const auto& r : rows) times.push_back(r.t);  // the last row is the run's end
    const std::vector<double> eff_ode = effective_ode_rows(D, eta, sg.steps, starts, times);
    const EffectiveDrift first = first_order_drift(model, F, sg.update);
    const std::vector<double> first_ode = effective_ode_rows(first, eta, sg.steps, starts, times);
    out.rows.resize(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) out.rows[i].rho_first_order = first_ode[i];
    fill_trajectory(D, first, eta, sg.steps, starts, pred, trajectory_times, out.trajectory);
    const std::vector<double> syst = systematic_errors(F, eff.tables, ep, sg.seed, eta, sg.steps, starts, times);

    ConsistencyVerdict& v = out.verdict;
    v = judge_rows(rows, out.rows, pred, eff_ode, syst, sg.trials, ep.alpha);
    v.field_scale = field_scale;
    v.detectable_field_error = detectable_error(F, eff.tables, eta, sg.steps, starts, times, out.rows, v.threshold_z);
    eff.abs_rho_final = pred.abs_rho_final;
    eff.abs_rho_final_err = syst.back();
    eff.hit_time = pred.hit_time;
    eff.hit_fraction = pred.hit_fraction;
    eff.plateau = plateau(D, etas);
    return out;
}

}  // namespace rhoflow
