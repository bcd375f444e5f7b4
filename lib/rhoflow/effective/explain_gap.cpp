#include "rhoflow/effective/explain_gap.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/exec/parallel.hpp"
#include "rhoflow/core/stats.hpp"
#include "rhoflow/field/gradient_moments.hpp"
#include "rhoflow/effective/effective.hpp"
#include "rhoflow/effective/detail/paths.hpp"
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
namespace {
RHOFLOW_JSON_HOOKS_NAMED(verdict_to_json, verdict_from_json, ConsistencyVerdict, consistent, alpha, rows_tested,
                         threshold_z, max_abs_z, worst_step, min_p_value, field_scale, diffusion_scale,
                         detectable_field_error, method, parts, tests, explanation)
}  // namespace
void to_json(nlohmann::json& j, const ConsistencyVerdict& v) { verdict_to_json(j, v); }
void from_json(const nlohmann::json& j, ConsistencyVerdict& v) {
    nlohmann::json with = j;  // written before the verdict in parts: the means only, as tested then
    if (!with.contains("diffusion_scale")) with["diffusion_scale"] = 1.0;
    if (!with.contains("parts")) with["parts"] = nlohmann::json::array();
    if (!with.contains("tests")) with["tests"] = nlohmann::json::array();
    if (!with.contains("explanation")) with["explanation"] = "";
    verdict_from_json(with, v);
}
RHOFLOW_JSON_HOOKS(PlateauPoint, eta, rho_star, rho_star_err)
namespace {
RHOFLOW_JSON_HOOKS_NAMED(summary_to_json, summary_from_json, EffectiveSummary, params, tables, abs_rho_final,
                         abs_rho_final_err, hit_time, hit_fraction, hit_time_quantiles, basin_fractions, plateau)
}  // namespace
void to_json(nlohmann::json& j, const EffectiveSummary& v) { summary_to_json(j, v); }
void from_json(const nlohmann::json& j, EffectiveSummary& v) {
    nlohmann::json with = j;  // written before the outcome predictions: none
    for (const char* k : {"hit_time_quantiles", "basin_fractions"})
        if (!with.contains(k)) with[k] = nlohmann::json::array();
    summary_from_json(with, v);
}
RHOFLOW_JSON_HOOKS(GapRow, step, t, sga_mean, sga_sd, sga_iqr)
RHOFLOW_JSON_HOOKS(GapOutcomes, trials, hits, hit_times, basins, basin_counts)
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

// The effective ODE from every distinct start of the trials, averaged (like the plain ODE's
// rows); the starts in parallel, summed in their order (the same bits for any thread count).
std::vector<double> effective_ode_rows(const EffectiveDrift& D, const StepSchedule& eta, std::int64_t steps,
                                       const std::vector<double>& starts, const std::vector<double>& times) {
    std::vector<std::vector<double>> paths(starts.size());
    parallel_for(static_cast<std::int64_t>(starts.size()), 0, [&](std::int64_t i) {
        paths[static_cast<std::size_t>(i)] = solve_effective_ode(D, eta, steps, starts[static_cast<std::size_t>(i)], times);
    });
    std::vector<double> mean(times.size(), 0.0);
    for (const auto& path : paths)
        for (std::size_t i = 0; i < times.size(); ++i) mean[i] += path[i] / static_cast<double>(starts.size());
    return mean;
}

// The values of `all` (at the ascending times `at`) at the times `want`, each one of `at`.
std::vector<double> at_times(const std::vector<double>& all, const std::vector<double>& at,
                             const std::vector<double>& want) {
    std::vector<double> out;
    for (double t : want)
        out.push_back(all[static_cast<std::size_t>(std::lower_bound(at.begin(), at.end(), t) - at.begin())]);
    return out;
}

// The spread of the effective ODE over tables perturbed within their errors: the prediction's
// systematic error at each row (and at the final time, the last entry of `times`).
std::vector<double> systematic_errors(const DriftField& F, const std::vector<StepMomentTable>& tables,
                                      const EffectiveParams& ep, std::uint64_t seed, const StepSchedule& eta,
                                      std::int64_t steps, const std::vector<double>& starts,
                                      const std::vector<double>& times) {
    std::vector<RunningStats> spread(times.size());
    for (int b = 0; b < ep.bootstrap; ++b) {
        // The levels share their draws, so their errors move together: every level of a replica
        // is perturbed with the same deviates, node by node.
        const RandomStream replica({seed, StreamPurpose::bootstrap, 1, static_cast<std::uint64_t>(b)});
        std::vector<StepMomentTable> q;
        for (const auto& t : tables) {
            RandomStream rng = replica;
            q.push_back(perturbed_within_errors(t, rng));
        }
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

// The chain's paths: the prediction pooled over them, and each replica's paths at every record.
struct ChainRun {
    EffectivePrediction pred;          // over all paths
    std::vector<PathSamples> replicas; // the resampled chain: one per bootstrap bank; the Gaussian chain: one
};

// Bootstrap replicas of the bank the resampled chain runs on: enough for the verdict's null
// laws to carry the bank's sampling error, with at least 250 paths each (8 of 500 by default).
int bank_replicas(std::int64_t paths) { return static_cast<int>(std::clamp<std::int64_t>(paths / 250, 1, 8)); }

// The chain's prediction of the ensemble at the record steps: the resampled chain on bootstrap
// replicas of a bank of the tables' own first draws (same seed, streams and nodes), or the
// Gaussian chain.
ChainRun predict(const ModelParams& model, const SgaParams& sg, const EffectiveParams& ep, const DriftField& F,
                 const EffectiveDrift& D, const std::vector<std::int64_t>& records,
                 const std::vector<StepMomentTable>& tables, std::vector<std::vector<BankDraw>> draws) {
    ChainRun out;
    if (ep.chain == EffectiveChain::gaussian) {
        out.replicas.resize(1);
        out.pred = predict_ensemble(D, sg.schedule, sg.steps, records, sg.rho0, model.d, sg.hit_eps, ep.prediction,
                                    &out.replicas[0]);
        return out;
    }
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
    const int K = bank_replicas(ep.prediction.paths);
    PredictionParams pp = ep.prediction;
    pp.paths = (ep.prediction.paths + K - 1) / K;
    out.replicas.resize(static_cast<std::size_t>(K));
    for (int r = 0; r < K; ++r) {  // one replica: the bank itself
        RandomStream rng({sg.seed, StreamPurpose::bootstrap, 2, static_cast<std::uint64_t>(r)});
        const ResampledChain chain(K == 1 ? bank : bootstrap_bank(bank, rng), F, sg.update);
        predict_resampled(chain, sg.schedule, sg.steps, records, sg.rho0, model.d, sg.hit_eps, pp,
                          &out.replicas[static_cast<std::size_t>(r)], static_cast<std::uint64_t>(r));
    }
    out.pred = summarise_paths(detail::step_times(sg.schedule, sg.steps), records, pool_paths(out.replicas));
    return out;
}

// Each replica's paths at record r.
Replicas at_record(const ChainRun& run, std::size_t r) {
    Replicas out;
    for (const auto& s : run.replicas) out.push_back(s.at_records[r]);
    return out;
}

// The spread of the replicas' means at record r: the resampled chain's systematic error there
// (its bank's sampling error, with the replicas' own Monte Carlo error: an upper bound).
double replica_spread(const Replicas& v) {
    RunningStats means;
    for (const auto& x : v) {
        RunningStats s;
        for (double y : x) s.add(y);
        means.add(s.mean());
    }
    return v.size() > 1 ? std::sqrt(means.variance()) : 0.0;
}

// The spread of the replicas' mean |rho_final| (the resampled chain's systematic error of it).
double abs_final_spread(const ChainRun& run) {
    Replicas v;
    for (const auto& s : run.replicas) {
        v.emplace_back();
        for (double x : s.rho_final) v.back().push_back(std::abs(x));
    }
    return replica_spread(v);
}

// The draws of a Monte Carlo null law: enough that the floor 2 / (B + 1) lies below alpha / (4 m)
// for m tests, at least 20000 (p = 1e-4) where n allows, and at most about 2e8 path draws a
// test. Beyond 1e4 trials the laws are close to normal and a floor that stays above alpha / m is
// reported (conclude()).
int null_draws(std::int64_t n, std::size_t tests, double alpha) {
    const double needed = std::ceil(8.0 * static_cast<double>(std::max<std::size_t>(1, tests)) / alpha);
    const double budget = 2e8 / static_cast<double>(std::max<std::int64_t>(1, n));
    return static_cast<int>(std::clamp(std::min(std::max(needed, 20000.0), budget), 200.0, 1e8));
}

// Fills each row's prediction, residual and p-value, and adds the tests of its mean and spread
// (verdict.hpp) against the chain's paths at that row; `tests` is the family's size (for the draws).
void judge_rows(const std::vector<GapRow>& rows, std::vector<RowPrediction>& out, const ChainRun& run,
                const std::vector<double>& eff, const std::vector<double>& syst, std::int64_t trials,
                std::uint64_t seed, std::size_t tests, double alpha, ConsistencyVerdict& v) {
    const EffectivePrediction& pred = run.pred;
    const double n = static_cast<double>(trials);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const GapRow& row = rows[i];
        RowPrediction& r = out[i];
        const auto it = std::find_if(pred.records.begin(), pred.records.end(), [&](const auto& x) { return x.step == row.step; });
        require(it != pred.records.end(), "rows", static_cast<double>(row.step), "a row's step among the record steps");
        const Replicas paths = at_record(run, static_cast<std::size_t>(it - pred.records.begin()));
        const double spread = it->rho.se * std::sqrt(static_cast<double>(it->rho.n));
        r.rho_eff_ode = eff[i];
        r.pred_mean = it->rho.mean;
        r.pred_q10 = it->q10;
        r.pred_q90 = it->q90;
        // The prediction's own error: the chain's Monte Carlo error and, for the Gaussian chain,
        // the tables' (the resampled chain's bank error is in its replicas, hence in the null).
        const double own = run.replicas.size() > 1 ? it->rho.se : std::hypot(it->rho.se, syst[i]);
        const double shown = run.replicas.size() > 1 ? std::hypot(it->rho.se, replica_spread(paths)) : own;
        const double used = std::max(spread, row.sga_sd);  // the guide z: the larger spread
        r.pred_se = std::sqrt(used * used / n + shown * shown);
        if (!(*r.pred_se > 0)) continue;
        r.residual_z = (row.sga_mean - it->rho.mean) / *r.pred_se;
        RowPValues p{std::erfc(std::abs(*r.residual_z) / std::sqrt(2.0)), 1.0, 0.0};
        if (trials >= 2) {
            RandomStream rng({seed, StreamPurpose::verdict, i});
            p = row_p_values({row.sga_mean, row.sga_sd, row.sga_iqr, trials}, paths, own,
                             null_draws(trials, tests, alpha), rng);
        }
        r.p_value = p.mean;
        v.tests.push_back({"mean",
                           fmt::format("mean at t = {:.4g}: SGA {:.5f} against {:.5f} predicted (z = {:.2f})", row.t,
                                       row.sga_mean, it->rho.mean, *r.residual_z),
                           row.sga_mean, it->rho.mean, p.mean, p.floor, false});
        ++v.rows_tested;
        if (std::abs(*r.residual_z) > v.max_abs_z) {
            v.max_abs_z = std::abs(*r.residual_z);
            v.worst_step = row.step;
        }
        v.min_p_value = std::min(v.min_p_value, p.mean);
        if (spread > 1e-12 && trials >= 4) {
            std::vector<double> pooled;
            for (const auto& x : paths) pooled.insert(pooled.end(), x.begin(), x.end());
            const double iqr = interquartile_range(std::move(pooled));
            v.tests.push_back({"spread",
                               fmt::format("IQR at t = {:.4g}: SGA {:.4g} against {:.4g} predicted", row.t,
                                           row.sga_iqr, iqr),
                               row.sga_iqr, iqr, p.spread, p.floor, false});
        }
    }
}

// The tests of the outcomes: hit fraction, hit times and basin fractions against the chain's paths.
void judge_outcomes(const GapOutcomes& o, const ChainRun& run, std::uint64_t seed, std::size_t family, double alpha,
                    std::vector<VerdictTest>& tests) {
    if (o.trials <= 0 || run.replicas.empty()) return;
    std::vector<std::int64_t> paths, hits;
    Replicas times;
    for (const auto& s : run.replicas) {
        paths.push_back(static_cast<std::int64_t>(s.rho_final.size()));
        hits.push_back(static_cast<std::int64_t>(s.hit_times.size()));
        times.push_back(s.hit_times);
    }
    const double f = run.pred.hit_fraction;
    tests.push_back({"hit_fraction", fmt::format("hit fraction {}/{} against {:.3g} predicted", o.hits, o.trials, f),
                     static_cast<double>(o.hits) / static_cast<double>(o.trials), f,
                     proportion_p_value(o.hits, o.trials, hits, paths), 0.0, false});
    // Hitting times: only where the chain's replicas hit often enough for the null (a replica
    // with a handful of hits makes a null that can never reject).
    if (o.hit_times.size() >= 5 && hit_time_replicas(o.hit_times.size(), times) >= 1) {
        RandomStream rng({seed, StreamPurpose::verdict, 1u << 20});
        const int draws = null_draws(static_cast<std::int64_t>(o.hit_times.size()), family, alpha);
        const KSResult ks = hit_time_test(o.hit_times, times, draws, rng);
        const double med = quantile(o.hit_times, 0.5), pmed = run.pred.hit_time_quantiles.at(1);
        tests.push_back({"hit_times",
                         fmt::format("hit times: median {:.4g} over {} trials against {:.4g} predicted (KS D = {:.3f})",
                                     med, o.hit_times.size(), pmed, ks.statistic),
                         med, pmed, ks.p_value, 1.0 / (draws + 1.0), false});
    }
    if (o.basins.size() < 2 || o.basin_counts.size() != o.basins.size()) return;
    for (std::size_t b = 0; b + 1 < o.basins.size(); ++b) {  // the last basin's count is the rest
        std::vector<std::int64_t> in;
        for (const auto& s : run.replicas)
            in.push_back(static_cast<std::int64_t>(std::count_if(s.rho_final.begin(), s.rho_final.end(),
                                                                 [&](double r) { return in_basin(o.basins[b], r); })));
        const double pf = static_cast<double>(std::accumulate(in.begin(), in.end(), std::int64_t{0})) /
                          static_cast<double>(std::accumulate(paths.begin(), paths.end(), std::int64_t{0}));
        tests.push_back({"basins",
                         fmt::format("basin of {:.4g}: {}/{} trials against {:.3g} predicted", o.basins[b].attractor,
                                     o.basin_counts[b], o.trials, pf),
                         static_cast<double>(o.basin_counts[b]) / static_cast<double>(o.trials), pf,
                         proportion_p_value(o.basin_counts[b], o.trials, in, paths), 0.0, false});
    }
}

// The fraction of the chain's paths ending in each basin.
std::vector<double> basin_fractions(const std::vector<Basin>& basins, const ChainRun& run) {
    const PathSamples all = pool_paths(run.replicas);
    std::vector<double> out;
    for (const Basin& b : basins)
        out.push_back(static_cast<double>(std::count_if(all.rho_final.begin(), all.rho_final.end(),
                                                        [&](double r) { return in_basin(b, r); })) /
                      static_cast<double>(all.rho_final.size()));
    return out;
}

// The family over every part's tests: Holm's step-down, the parts and the sentence.
void conclude(ConsistencyVerdict& v, double alpha) {
    v.alpha = alpha;
    holm(v.tests, alpha);
    v.parts = verdict_parts(v.tests);
    v.explanation = verdict_sentence(v.parts);
    v.consistent = std::none_of(v.tests.begin(), v.tests.end(), [](const auto& t) { return t.rejected; });
    const double m = static_cast<double>(std::max<std::size_t>(1, v.tests.size()));
    v.threshold_z = boost::math::quantile(boost::math::complement(boost::math::normal(), alpha / (2 * m)));
    // A Monte Carlo test at its floor above alpha / m could not have been rejected: say so.
    const auto blind = std::count_if(v.tests.begin(), v.tests.end(), [&](const VerdictTest& t) {
        return !t.rejected && t.floor > alpha / m && t.p_value <= t.floor * (1 + 1e-9);
    });
    if (blind > 0) {
        v.consistent = false;
        v.explanation += fmt::format("; undecided: {} test{} at the Monte Carlo floor of p, above alpha/m = {:.2g} (too "
                                     "many tests or trials for the draws; raise alpha or test fewer rows)",
                                     blind, blind == 1 ? "" : "s", alpha / m);
    }
    v.method = fmt::format(
        "{} tests in one family: per row the SGA mean against the effective chain's (a studentized bootstrap from the "
        "chain's paths at the row, with the bank's error as a Student law over its replicas and the chain's own Monte "
        "Carlo error) and the trials' interquartile range against the chain's (likewise, on the log scale); the hit "
        "fraction (exact binomial), hit times (Kolmogorov-Smirnov) and basin fractions against the chain's paths. "
        "Holm's step-down at alpha = {}: a family-wise false-alarm rate of at most alpha under any dependence, given "
        "the chain's null laws",
        v.tests.size(), alpha);
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
void fill_trajectory(const std::vector<double>& ode, const std::vector<double>& ode1, const EffectivePrediction& pred,
                     std::vector<RowPrediction>& traj) {
    traj.resize(ode.size());
    for (std::size_t i = 0; i < traj.size(); ++i) {
        const PredictionRecord& r = pred.records[i + 1];
        traj[i].rho_eff_ode = ode[i];
        traj[i].rho_first_order = ode1[i];
        traj[i].pred_mean = r.rho.mean;
        traj[i].pred_q10 = r.q10;
        traj[i].pred_q90 = r.q90;
    }
}

// Both ODEs (the effective one on D and the first-order one) once per start at the rows' and the
// trajectory's times together: fills the rows' first-order column and the trajectory's columns,
// returns the effective ODE at the rows' times `times`.
std::vector<double> ode_columns(const GapInputs& run, const EffectiveDrift& D, const std::vector<double>& times,
                                const EffectivePrediction& pred, GapExplanation& out) {
    const SgaParams& sg = run.sga;
    std::vector<double> all_times = times;
    all_times.insert(all_times.end(), run.trajectory_times.begin(), run.trajectory_times.end());
    std::sort(all_times.begin(), all_times.end());
    all_times.erase(std::unique(all_times.begin(), all_times.end()), all_times.end());
    const std::vector<double> eff_all = effective_ode_rows(D, sg.schedule, sg.steps, run.starts, all_times);
    const EffectiveDrift first = first_order_drift(run.model, *run.field, sg.update);
    const std::vector<double> first_all = effective_ode_rows(first, sg.schedule, sg.steps, run.starts, all_times);
    const std::vector<double> eff_ode = at_times(eff_all, all_times, times);
    const std::vector<double> first_ode = at_times(first_all, all_times, times);
    out.rows.resize(run.rows.size());
    for (std::size_t i = 0; i < run.rows.size(); ++i) out.rows[i].rho_first_order = first_ode[i];
    fill_trajectory(at_times(eff_all, all_times, run.trajectory_times),
                    at_times(first_all, all_times, run.trajectory_times), pred, out.trajectory);
    return eff_ode;
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

GapExplanation explain_gap(GapInputs run) {
    if (!run.field) throw InvalidArgument("field", "no field given (accepted: the theory's DriftField)");
    const SgaParams& sg = run.sga;
    const EffectiveParams& ep = run.effective;
    const DriftField& F = *run.field;
    GapTables& tables = run.tables;
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
    const ChainRun chain = predict(run.model, sg, eff.params, F, D, run.records, eff.tables, std::move(tables.draws));
    const EffectivePrediction& pred = chain.pred;

    std::vector<double> times;
    for (const auto& r : run.rows) times.push_back(r.t);  // the last row is the run's end
    const std::vector<double> eff_ode = ode_columns(run, D, times, pred, out);
    // The prediction's systematic error: for the Gaussian chain, the effective ODE over tables
    // perturbed within their errors; the resampled chain carries its own in its bank replicas.
    const bool replicated = chain.replicas.size() > 1;
    const std::vector<double> syst = replicated ? std::vector<double>(times.size(), 0.0)
                                                : systematic_errors(F, eff.tables, ep, sg.seed, eta, sg.steps, run.starts, times);

    ConsistencyVerdict& v = out.verdict;
    const GapOutcomes& outcomes = run.outcomes;
    // The family's size, for the Monte Carlo draws: a mean and a spread per row, the outcomes.
    const std::size_t family = 2 * run.rows.size() + 2 + (outcomes.basins.size() > 1 ? outcomes.basins.size() - 1 : 0);
    judge_rows(run.rows, out.rows, chain, eff_ode, syst, sg.trials, sg.seed, family, ep.alpha, v);
    judge_outcomes(outcomes, chain, sg.seed, family, ep.alpha, v.tests);
    conclude(v, ep.alpha);
    v.field_scale = run.field_scale;
    v.diffusion_scale = ep.prediction.diffusion_scale;
    v.detectable_field_error = detectable_error(F, eff.tables, eta, sg.steps, run.starts, times, out.rows, v.threshold_z);
    eff.abs_rho_final = pred.abs_rho_final;
    eff.abs_rho_final_err = replicated ? abs_final_spread(chain) : syst.back();
    eff.hit_time = pred.hit_time;
    eff.hit_fraction = pred.hit_fraction;
    eff.hit_time_quantiles = pred.hit_time_quantiles;
    eff.basin_fractions = basin_fractions(outcomes.basins, chain);
    eff.plateau = plateau(D, etas);
    return out;
}

}  // namespace rhoflow
