#include "rhoflow/compare/compare.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <set>

#include "rhoflow/compare/detail/effective_columns.hpp"
#include "rhoflow/compare/pseudotrajectory.hpp"
#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/stochastic/detail/execute_units.hpp"
#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/ode/ode.hpp"

namespace rhoflow {

namespace {

// The study fits log(error) against log(eta0), over all values and over the smaller half: each
// value once, so that every fit has distinct x (values whose logarithms coincide count as one).
void validate_study_distinct(const std::vector<double>& eta0) {
    std::vector<double> v = eta0;
    std::sort(v.begin(), v.end());
    for (std::size_t i = 1; i < v.size(); ++i) {
        if (std::log(v[i]) != std::log(v[i - 1])) continue;
        throw InvalidArgument("study_eta0",
                              fmt::format("study_eta0 {} (accepted: at least 3 distinct values > 0, each given once: "
                                          "the study fits a slope against log eta0)",
                                          v[i] == v[i - 1] ? fmt::format("gives {} twice", format_number(v[i]))
                                                           : fmt::format("gives {} and {}, too close to tell apart",
                                                                         format_number(v[i - 1]), format_number(v[i]))));
    }
}

}  // namespace

void CompareParams::validate() const {
    validate_member("model", [&] { model.validate(); });
    // One trial has no spread: its "95% CI" would have zero width and every row would pass.
    if (sga.trials < 2)
        throw InvalidArgument("sga.trials", fmt::format("trials = {} is out of range (accepted: 2 <= trials <= 1e7: a "
                                                        "comparison needs 2 trials or more for its confidence intervals)",
                                                        sga.trials));
    validate_member("sga", [&] { sga.validate(); });
    validate_member("table", [&] { table.validate(); });
    require(std::isfinite(horizon) && horizon > 0, "horizon", horizon, "finite horizon > 0");
    require(anchors >= 3 && anchors <= 10000, "anchors", anchors, "3 <= anchors <= 10000");
    require(rows >= 3 && rows <= 1000, "rows", rows, "3 <= rows <= 1000");
    for (double e : study_eta0) require(std::isfinite(e) && e > 0, "study_eta0", e, "finite study_eta0 > 0");
    if (!study_eta0.empty() && study_eta0.size() < 3)
        throw InvalidArgument("study_eta0", fmt::format("study_eta0 has {} value{}, too few to fit a slope (accepted: a "
                                                        "list of at least 3 values, or none)",
                                                        study_eta0.size(), study_eta0.size() == 1 ? "" : "s"));
    validate_study_distinct(study_eta0);
    require(study_trials >= 2 && study_trials <= 1000000, "study_trials", static_cast<double>(study_trials),
            "2 <= study_trials <= 1e6");
    require(std::isfinite(study_horizon) && study_horizon >= 0, "study_horizon", study_horizon,
            "study_horizon >= 0 (0 = automatic)");
    require(std::isfinite(field_scale) && field_scale > 0 && field_scale <= 1000, "field_scale", field_scale,
            "0 < field_scale <= 1000");
    validate_member("effective", [&] { effective.validate(); });
    const auto& keys = compare_table_column_keys();
    std::string accepted;
    for (const auto& k : keys) accepted += (accepted.empty() ? "" : ", ") + k;
    for (std::size_t i = 0; i < table_columns.size(); ++i) {
        const std::string& c = table_columns[i];
        if (std::find(keys.begin(), keys.end(), c) == keys.end())
            throw InvalidArgument("table_columns", fmt::format("table_columns = '{}' is not a column (accepted: {})", c,
                                                               accepted));
        if (std::find(table_columns.begin(), table_columns.begin() + static_cast<std::ptrdiff_t>(i), c) !=
            table_columns.begin() + static_cast<std::ptrdiff_t>(i))
            throw InvalidArgument("table_columns", fmt::format("table_columns names '{}' twice (accepted: each of {} "
                                                               "at most once)", c, accepted));
    }
    if (field == DriftMethod::exact) validate_member("model", [&] { validate_exact_field(model, table.exact); });
    const double t_final = sga.schedule.time_at(sga.steps);
    require(horizon < t_final, "horizon", horizon,
            fmt::format("horizon < the run's ODE time t_final = {} (more steps or a shorter horizon)",
                        format_number(t_final)));
}

const std::vector<std::string>& compare_table_column_keys() {
    static const std::vector<std::string> keys = {"step",   "t", "rho_ode", "rho_eff",  "pred",    "sga",
                                                  "median", "z", "z_ode",   "gap_mean", "nuisance"};
    return keys;
}

SgaParams CompareParams::default_sga() {
    SgaParams s;
    s.steps = 20000;
    s.trials = 30;
    s.seed = 1;
    s.schedule = {0.01, 5000, 1.0};
    s.rho0 = 0.1;
    return s;
}

CompareParams default_compare_params() { return CompareParams{}; }

DriftField theory_field(const DriftField& field, double field_scale) {
    return field_scale == 1.0 ? field : field.scaled(field_scale);
}

namespace {

// Where the run is observed: table rows (step 0 and rows-1 steps geometric in k), gap anchors
// (geometric in t, plus every row whose window fits) and the ensemble's record steps.
}  // namespace

ComparePlan compare_plan(const CompareParams& p) {
    const SgaParams& sg = p.sga;
    const StepSchedule& sch = sg.schedule;
    ComparePlan plan;
    plan.t_final = sch.time_at(sg.steps);
    std::set<std::int64_t> row_set = {0, sg.steps};
    for (int i = 0; i < p.rows - 1; ++i)
        row_set.insert(std::llround(std::pow(static_cast<double>(sg.steps), static_cast<double>(i) / (p.rows - 2))));
    plan.rows.assign(row_set.begin(), row_set.end());
    std::vector<double> anchor_times;
    const double ta0 = sch.eta(0), ta1 = plan.t_final - p.horizon;
    for (int i = 0; i < p.anchors; ++i)
        anchor_times.push_back(ta0 * std::pow(ta1 / ta0, static_cast<double>(i) / (p.anchors - 1)));
    std::set<std::int64_t> anchor_set;
    for (auto k : sch.steps_at(anchor_times, sg.steps)) anchor_set.insert(k);
    const std::vector<double> row_times = sch.times_at(plan.rows);
    for (std::size_t i = 0; i < plan.rows.size(); ++i)  // table rows whose window fits are anchors too
        if (row_times[i] + p.horizon <= plan.t_final * (1 - 1e-12)) anchor_set.insert(plan.rows[i]);
    plan.anchors.assign(anchor_set.begin(), anchor_set.end());
    SgaParams sp = sg;
    sp.record_steps = plan.rows;
    plan.records = record_steps_for(sp);
    return plan;
}

namespace {

class GapObserver : public StepObserver {
public:
    GapObserver(std::function<double(double)> drift, GapConfig cfg, TrialTracking* slot)
        : tracker_(std::move(drift), std::move(cfg)), slot_(slot) {}
    void on_step(std::int64_t k, double t, double rho, double m) override { tracker_.on_step(k, t, rho, m); }
    void finish() override {
        slot_->gaps = tracker_.gaps();
        slot_->sup_tracking = tracker_.sup_tracking_error();
        slot_->ode_records = tracker_.ode_at_records();
    }

private:
    GapTracker tracker_;
    TrialTracking* slot_;
};

// What every trial's GapTracker watches: D_T at the plan's anchors, rho_ODE at its records.
GapConfig gap_config(const CompareParams& p, const ComparePlan& plan) {
    GapConfig cfg;
    cfg.horizon = p.horizon;
    cfg.anchors = plan.anchors;
    cfg.record_steps = plan.records;
    return cfg;
}

// Observers tracking the trials from `first` on into slots[trial - first], against `drift`.
ObserverFactory observers_into(std::function<double(double)> drift, GapConfig cfg, std::int64_t first,
                               std::vector<TrialTracking>& slots) {
    return [drift = std::move(drift), cfg = std::move(cfg), first, &slots](std::int64_t trial) {
        return std::make_unique<GapObserver>(drift, cfg, &slots[static_cast<std::size_t>(trial - first)]);
    };
}

// Runs an ensemble with a GapTracker on every trial; returns the trials' gap records.
std::vector<TrialTracking> run_tracked(const ModelParams& model, const SgaParams& sp, const DriftField& F,
                                       const GapConfig& cfg, ProgressCounter* progress, EnsembleResult* ens) {
    std::vector<TrialTracking> slots(static_cast<std::size_t>(sp.trials));
    auto drift = [&F](double r) { return F.drift(r); };
    EnsembleResult r = run_trials_here(model, sp, progress, observers_into(drift, cfg, sp.first_trial, slots));
    if (ens) *ens = std::move(r);
    return slots;
}

double mean_of(const std::vector<double>& v) { return mean_ci(v).mean; }

std::vector<double> sups_of(const std::vector<TrialTracking>& slots) {
    std::vector<double> sup;
    for (const auto& s : slots) sup.push_back(s.sup_tracking);
    return sup;
}

std::vector<GapAnchor> anchor_stats(const ComparePlan& plan, const std::vector<TrialTracking>& slots, const StepSchedule& sch) {
    std::vector<GapAnchor> out;
    const std::vector<double> anchor_t = sch.times_at(plan.anchors);
    for (std::size_t a = 0; a < plan.anchors.size(); ++a) {
        std::vector<double> g;
        for (const auto& s : slots)
            if (s.gaps[a]) g.push_back(*s.gaps[a]);
        if (g.size() != slots.size()) continue;  // window not complete (cannot happen by construction)
        out.push_back({plan.anchors[a], anchor_t[a], sch.eta(plan.anchors[a]), mean_of(g), quantile(g, 0.5),
                       quantile(g, 0.9), *std::max_element(g.begin(), g.end())});
    }
    return out;
}

// Hitting times: SGA (t at the hit step) and the ODE from each trial's own start.
HittingTimes hitting_times(const EnsembleResult& ens, const DriftField& F, const SgaParams& sg, double t_final) {
    HittingTimes h;
    h.level = 1 - sg.hit_eps;
    h.trials = static_cast<std::int64_t>(ens.trials.size());
    std::vector<double> sga, ode;
    OdeParams op;
    op.hit_eps = sg.hit_eps;
    op.error_estimate = false;
    std::map<double, std::optional<double>> ode_hit_from;  // one solve per distinct start
    for (const auto& tr : ens.trials) {
        if (tr.hit_step) sga.push_back(sg.schedule.time_at(*tr.hit_step));
        auto it = ode_hit_from.find(tr.rho0);
        if (it == ode_hit_from.end())
            it = ode_hit_from.emplace(tr.rho0, solve_ode(F, tr.rho0, {0.0, t_final}, op).hit_time).first;
        if (it->second) ode.push_back(*it->second);
    }
    // The plateau: the first record at which the trials' mean |rho| has risen 90% of the way from
    // its start to its final value (a rise time: with a decreasing step the plateau itself keeps
    // creeping up, so "within the final CI" would be the run's end).
    auto mean_abs = [&](std::size_t k) {
        double sum = 0;
        for (const auto& tr : ens.trials) sum += k < tr.rho.size() ? std::abs(tr.rho[k]) : 0.0;
        return sum / static_cast<double>(ens.trials.size());
    };
    const double start = ens.trials.empty() || ens.record_times.empty() ? 0.0 : mean_abs(0);
    const double floor = start + 0.9 * (ens.summary.abs_rho_final.mean - start);
    for (std::size_t k = 1; k < ens.record_times.size() && !ens.trials.empty() && floor > start; ++k) {
        if (mean_abs(k) >= floor) {
            h.sga_plateau = ens.record_times[k];
            h.sga_plateau_after = ens.record_times[k - 1];
            break;
        }
    }
    h.sga_hits = static_cast<std::int64_t>(sga.size());
    if (!sga.empty()) h.sga = mean_ci_within(sga, 0, t_final);  // hitting times lie in [0, t_final]
    if (!ode.empty()) h.ode = mean_ci_within(ode, 0, t_final);
    return h;
}

// Fit of log mean D_T against log eta(t) once the ODE has converged (else over all anchors).
std::optional<GapFit> fit_gap(const std::vector<GapAnchor>& anchors, double t_fit, const StepSchedule& sch) {
    std::vector<double> fx, fy;
    auto collect = [&](double from) {
        fx.clear();
        fy.clear();
        for (const auto& a : anchors)
            if (a.t >= from && a.mean > 0) {
                fx.push_back(std::log(a.eta));
                fy.push_back(std::log(a.mean));
            }
    };
    collect(t_fit);
    double from = t_fit;
    if (fx.size() < 3 && !anchors.empty()) {  // too few after the hit: every anchor, and say so
        from = anchors.front().t;
        collect(from);
    }
    if (fx.size() < 3 || sch.gamma == 0) return std::nullopt;
    return GapFit{fit_line(fx, fy), from};
}

// (SGA mean - rho_ODE) / the SGA mean's standard error; none where that error is 0.
std::optional<double> ode_residual(const CompareRow& r) {
    if (!(r.rho_sga.se > 0)) return std::nullopt;
    return (r.rho_sga.mean - r.rho_ode) / r.rho_sga.se;
}

std::vector<CompareRow> table_rows(const ComparePlan& plan, const EnsembleResult& ens, const std::vector<TrialTracking>& slots,
                                   const std::vector<GapAnchor>& anchors, const DriftField& F) {
    std::vector<CompareRow> rows;
    for (const std::int64_t step : plan.rows) {
        const std::vector<std::int64_t>& rec = ens.record_steps;
        const auto j = static_cast<std::size_t>(std::lower_bound(rec.begin(), rec.end(), step) - rec.begin());
        std::vector<double> rho, mass, ode, pop;
        for (std::size_t n = 0; n < slots.size(); ++n) {
            rho.push_back(ens.trials[n].rho[j]);
            mass.push_back(ens.trials[n].nuisance_mass[j]);
            ode.push_back(slots[n].ode_records[j]);
            pop.push_back(1.0 - F.mass(slots[n].ode_records[j]));
        }
        CompareRow r;
        r.step = step;
        r.t = ens.record_times[j];
        r.rho_ode = mean_of(ode);
        r.rho_sga = mean_ci_within(rho, -1, 1);
        r.ode_z = ode_residual(r);
        r.rho_sga_q10 = quantile(rho, 0.1);
        r.rho_sga_median = quantile(rho, 0.5);
        r.rho_sga_q90 = quantile(rho, 0.9);
        for (const auto& a : anchors)
            if (a.step == step) {
                r.gap_mean = a.mean;
                r.gap_q90 = a.q90;
            }
        r.nuisance_mass_sga = mean_ci_within(mass, 0, 1);
        r.nuisance_mass_population = mean_of(pop);
        rows.push_back(r);
    }
    return rows;
}

std::vector<TrajectoryPoint> trajectory(const EnsembleResult& ens, const std::vector<TrialTracking>& slots) {
    std::vector<TrajectoryPoint> out;
    for (std::size_t j = 1; j < ens.record_steps.size(); ++j) {
        std::vector<double> rho, ode;
        for (std::size_t n = 0; n < slots.size(); ++n) {
            rho.push_back(ens.trials[n].rho[j]);
            ode.push_back(slots[n].ode_records[j]);
        }
        TrajectoryPoint p;
        p.t = ens.record_times[j];
        p.rho_ode = mean_of(ode);
        p.sga_mean = mean_of(rho);
        p.sga_q10 = quantile(rho, 0.1);
        p.sga_q90 = quantile(rho, 0.9);
        const std::size_t kept = std::min<std::size_t>(kTrajectoryTrials, rho.size());
        p.trials.assign(rho.begin(), rho.begin() + static_cast<std::ptrdiff_t>(kept));
        out.push_back(std::move(p));
    }
    return out;
}

std::vector<FieldCurvePoint> field_curve(const DriftField& F) {
    std::vector<FieldCurvePoint> out;
    std::vector<double> rho;
    for (int i = 0; i <= 400; ++i) rho.push_back(-1.0 + i / 200.0);
    // Denser near the ends (1 - |rho| from 10^-1.5 down to 10^-5), where equilibria crowd and the
    // figure zooms in.
    for (int i = 0; i <= 70; ++i) {
        const double gap = std::pow(10.0, -1.5 - i / 20.0);
        rho.push_back(-1.0 + gap);
        rho.push_back(1.0 - gap);
    }
    std::sort(rho.begin(), rho.end());
    rho.erase(std::unique(rho.begin(), rho.end()), rho.end());
    for (double r : rho) out.push_back({r, F.drift(r), F.dj(r)});
    return out;
}

// The study's horizon: as given, else 3 x the ODE's hitting time from the shared start (>= 5).
double study_horizon_for(const CompareParams& p, const DriftField& F, double rho0, double t_final) {
    if (p.study_horizon > 0) return std::min(p.study_horizon, t_final);
    OdeParams o;
    o.hit_eps = p.sga.hit_eps;
    o.error_estimate = false;
    const OdeSolution s = solve_ode(F, rho0, {0.0, t_final}, o);
    return std::min(t_final, s.hit_time ? std::max(5.0, 3.0 * *s.hit_time) : 20.0);
}

// The study's ensembles: eta0 k0 fixed so that eta(t) keeps its shape; each run over [0, t_study]
// from a shared start, on streams of its own purpose (sub = the run's rank by decreasing eta0).
std::vector<SgaParams> study_runs(const CompareParams& p, double rho0, double horizon) {
    std::vector<double> eta0s = p.study_eta0;
    std::sort(eta0s.begin(), eta0s.end(), std::greater<>());
    std::vector<SgaParams> runs;
    for (std::size_t m = 0; m < eta0s.size(); ++m) {
        SgaParams q = p.sga;
        q.schedule.eta0 = eta0s[m];
        q.schedule.k0 = p.sga.schedule.k0 * p.sga.schedule.eta0 / eta0s[m];
        q.trials = p.study_trials;
        q.first_trial = 0;
        q.purpose = StreamPurpose::step_size_study;
        q.purpose_sub = m;
        q.rho0 = rho0;
        q.steps = std::max<std::int64_t>(1, q.schedule.steps_at({horizon}, std::int64_t{1} << 40).front());
        q.record_steps = {};
        q.records_per_decade = 1;
        runs.push_back(q);
    }
    return runs;
}

StepSizeStudy study_result(const CompareParams& p, const std::vector<SgaParams>& runs,
                           const std::vector<std::vector<double>>& sups, double rho0, double horizon) {
    StepSizeStudy st;
    st.horizon = horizon;
    st.rho0 = rho0;
    st.trials = p.study_trials;
    std::vector<double> lx, ly;
    for (std::size_t m = 0; m < runs.size(); ++m) {
        const SgaParams& q = runs[m];
        const std::vector<double>& sup = sups[m];
        const MeanCI ci = mean_ci_within(sup, 0, 2);  // |rho_k - rho_ODE| <= 2
        st.rows.push_back({q.schedule.eta0, q.schedule.k0, q.steps, ci, quantile(sup, 0.5), q.purpose_sub});
        lx.push_back(std::log(q.schedule.eta0));
        ly.push_back(std::log(ci.mean));
    }
    st.fit = fit_line(lx, ly);
    // The smaller half of the eta0 values (the list runs from large to small), at least 3.
    const auto half = static_cast<std::ptrdiff_t>(std::max<std::size_t>(3, (lx.size() + 1) / 2));
    st.fit_small_eta0 = fit_line(std::vector<double>(lx.end() - half, lx.end()), std::vector<double>(ly.end() - half, ly.end()));
    return st;
}

}  // namespace

// ------------------------------------------------------------------------- composition

namespace {

// Trial n of an ensemble with `records` record steps (an ensemble read back from a file is
// untrusted): one record of each kind per step, its start and end recorded, every number in its
// range.
void check_trial(const TrialResult& tr, std::size_t records, std::int64_t steps) {
    if (tr.rho.size() != records || tr.nuisance_mass.size() != records)
        throw InvalidArgument("ensemble.trials", fmt::format("trial {} has {} records of rho and the ensemble {} "
                                                             "record steps (accepted: one record per step)",
                                                             tr.trial, tr.rho.size(), records));
    auto in = [](double x, double lo, double hi) { return std::isfinite(x) && x >= lo && x <= hi; };
    bool ok = in(tr.rho0, -1, 1) && in(tr.rho_final, -1, 1) && tr.rho.front() == tr.rho0 &&
              tr.rho.back() == tr.rho_final && (!tr.hit_step || (*tr.hit_step >= 0 && *tr.hit_step <= steps));
    for (std::size_t j = 0; j < records; ++j) ok = ok && in(tr.rho[j], -1, 1) && in(tr.nuisance_mass[j], 0, 1);
    if (!ok)
        throw InvalidArgument("ensemble.trials", fmt::format("trial {} holds a number out of its range or records "
                                                             "another start or end than it reports (accepted: rho in "
                                                             "[-1, 1], nuisance mass in [0, 1], hit step in [0, "
                                                             "sga.steps], rho0 and rho_final recorded at the first "
                                                             "and last record)", tr.trial));
}

// The ensemble, run with `p`'s model and sga (its own), must keep every trial, recorded from step
// 0 to its last step at its schedule's times, each number in its range.
void check_ensemble(const EnsembleResult& ens, const CompareParams& p) {
    const auto n = static_cast<std::int64_t>(ens.trials.size());
    if (n != p.sga.trials)
        throw InvalidArgument("ensemble.trials", fmt::format("the ensemble keeps {} of its sga.trials = {} trials "
                                                             "(accepted: every trial kept, EnsembleOutput::all())",
                                                             n, p.sga.trials));
    const std::vector<std::int64_t>& rec = ens.record_steps;
    const bool ascending = std::adjacent_find(rec.begin(), rec.end(), std::greater_equal<>()) == rec.end();
    if (rec.empty() || rec.front() != 0 || rec.back() != p.sga.steps || !ascending ||
        ens.record_times.size() != rec.size())
        throw InvalidArgument("ensemble.record_steps", fmt::format("the ensemble's record steps do not run from step 0 "
                                                                   "to its sga.steps = {} in ascending order, each "
                                                                   "once, with one time each (accepted: an ensemble "
                                                                   "from run_ensemble)", p.sga.steps));
    if (p.sga.schedule.times_at(rec) != ens.record_times)
        throw InvalidArgument("ensemble.record_times", "the ensemble's record times are not its sga.schedule's times "
                                                       "of its record steps (accepted: an ensemble from run_ensemble)");
    for (const TrialResult& tr : ens.trials) check_trial(tr, rec.size(), p.sga.steps);
}

// A comparison's parameters: the ensemble's run with the caller's settings.
CompareParams params_of(const EnsembleResult& ens, const CompareSettings& settings) {
    CompareParams p;
    static_cast<CompareSettings&>(p) = settings;
    p.model = ens.model;
    p.sga = ens.sga;
    return p;
}

// add_effective_prediction's result must be compare()'s for this ensemble: the same run.
void check_same_run(const CompareParams& p, const EnsembleResult& ens) {
    if (nlohmann::json(p.model) != nlohmann::json(ens.model) || nlohmann::json(p.sga) != nlohmann::json(ens.sga))
        throw InvalidArgument("result", "the comparison's params.model or params.sga are not the ensemble's (accepted: "
                                        "compare()'s result for this ensemble)");
}

// Tracking given by the caller must be one per trial, shaped as the plan and the records say.
void check_tracking(const std::vector<TrialTracking>& tracking, const EnsembleResult& ens, const ComparePlan& plan) {
    if (tracking.size() != ens.trials.size())
        throw InvalidArgument("tracking", fmt::format("tracking holds {} entries and the ensemble {} trials "
                                                      "(accepted: one entry per trial, or none)",
                                                      tracking.size(), ens.trials.size()));
    auto bad = [](const TrialTracking& t) {
        bool b = !std::isfinite(t.sup_tracking) || t.sup_tracking < 0 || t.sup_tracking > 2;
        for (const auto& g : t.gaps) b = b || (g && !(*g >= 0 && *g <= 2));
        for (double r : t.ode_records) b = b || !(r >= -1 && r <= 1);
        return b;
    };
    for (const auto& t : tracking)
        if (t.gaps.size() != plan.anchors.size() || t.ode_records.size() != ens.record_steps.size() || bad(t))
            throw InvalidArgument("tracking", fmt::format("a trial's tracking has {} gaps and {} ODE records (accepted: "
                                                          "{} and {}, in their ranges, from tracking_observers on an "
                                                          "ensemble run with sga.record_steps = compare_plan(options).rows)",
                                                          t.gaps.size(), t.ode_records.size(), plan.anchors.size(),
                                                          ens.record_steps.size()));
}

// The table's rows: for each of the plan's, the record step nearest to it in log(1 + k) (the
// rows themselves when the ensemble was recorded there, as run_compare's is).
std::vector<std::int64_t> rows_among(const std::vector<std::int64_t>& rows, const std::vector<std::int64_t>& rec) {
    std::vector<std::int64_t> out;
    auto distance = [](std::int64_t a, std::int64_t b) {
        return std::abs(std::log1p(static_cast<double>(a)) - std::log1p(static_cast<double>(b)));
    };
    for (const std::int64_t row : rows) {
        const auto it = std::lower_bound(rec.begin(), rec.end(), row);
        std::int64_t best = it == rec.end() ? rec.back() : *it;
        if (it != rec.begin() && distance(*std::prev(it), row) < distance(best, row)) best = *std::prev(it);
        if (out.empty() || out.back() != best) out.push_back(best);
    }
    return out;
}

// Tracking from the record steps alone: each trial's GapTracker fed its records only, so that
// the flows advance between records and D_T opens at the anchors that are record steps.
std::vector<TrialTracking> track_records(const EnsembleResult& ens, const DriftField& F, GapConfig cfg) {
    cfg.record_steps = ens.record_steps;
    std::vector<TrialTracking> out(ens.trials.size());
    auto drift = [&F](double r) { return F.drift(r); };
    for (std::size_t n = 0; n < ens.trials.size(); ++n) {
        const TrialResult& tr = ens.trials[n];
        GapObserver obs(drift, cfg, &out[n]);
        for (std::size_t j = 0; j < ens.record_steps.size(); ++j)
            obs.on_step(ens.record_steps[j], ens.record_times[j], tr.rho[j], tr.nuisance_mass[j]);
        obs.finish();
    }
    return out;
}

// The statistics and figure data of an ensemble with its tracking, against the theory's field F.
CompareResult statistics(const CompareParams& p, const ComparePlan& plan, const DriftField& F,
                         const EnsembleResult& ens, const std::vector<TrialTracking>& slots) {
    const SgaParams& sg = p.sga;
    CompareResult out;
    out.params = p;
    out.field = F.info();
    out.phase = phase_portrait(F);
    out.t_final = plan.t_final;
    out.gap = anchor_stats(plan, slots, sg.schedule);
    out.hitting_time = hitting_times(ens, F, sg, plan.t_final);
    out.gap_fit = fit_gap(out.gap, out.hitting_time.ode ? out.hitting_time.ode->mean : 0.0, sg.schedule);
    out.table = table_rows(plan, ens, slots, out.gap, F);
    const std::vector<double> sups = sups_of(slots);
    out.tracking_error = mean_ci_within(sups, 0, 2);
    out.tracking_error_max = *std::max_element(sups.begin(), sups.end());
    out.summary = summarise(ens.trials);  // from the trials, not from what a file says of them
    std::vector<double> rho_finals;  // ens.trials holds every trial (check_ensemble)
    for (const auto& t : ens.trials) rho_finals.push_back(t.rho_final);
    out.outcomes = outcome_summary(out.phase, rho_finals, sg.rho0, p.model.d);
    out.rho_ode_final = out.table.back().rho_ode;
    {
        const auto& rec = ens.record_steps;  // the last row's record, as table_rows finds it
        const auto last = static_cast<std::size_t>(std::lower_bound(rec.begin(), rec.end(), out.table.back().step) - rec.begin());
        double sum = 0;
        for (const auto& sl : slots) sum += std::abs(sl.ode_records[last]);
        out.abs_rho_ode_final = slots.empty() ? std::abs(out.rho_ode_final) : sum / static_cast<double>(slots.size());
    }
    out.trajectory = trajectory(ens, slots);
    out.field_curve = field_curve(F);
    out.warning = sg.schedule.warning();
    return out;
}

}  // namespace

ObserverFactory tracking_observers(const DriftField& field, const CompareParams& p, std::vector<TrialTracking>& out) {
    p.validate();
    if (out.size() != static_cast<std::size_t>(p.sga.trials))
        throw InvalidArgument("tracking", fmt::format("tracking holds {} entries and sga.trials = {} (accepted: one "
                                                      "entry per trial)", out.size(), p.sga.trials));
    auto F = std::make_shared<const DriftField>(field);
    return observers_into([F](double r) { return F->drift(r); }, gap_config(p, compare_plan(p)), p.sga.first_trial,
                          out);
}

CompareResult compare(const EnsembleResult& ens, const DriftField& F, const CompareSettings& settings,
                      const std::vector<TrialTracking>& tracking) {
    const CompareParams p = params_of(ens, settings);
    p.validate();
    check_ensemble(ens, p);
    ComparePlan plan = compare_plan(p);
    plan.rows = rows_among(plan.rows, ens.record_steps);
    CompareResult out;
    if (!tracking.empty()) {
        check_tracking(tracking, ens, plan);
        out = statistics(p, plan, F, ens, tracking);
    } else {
        // D_T at the record steps nearest to the plan's anchors (so every row whose window fits
        // has one); its slope against eta is not fitted: windows sampled at record steps bias it.
        plan.anchors = rows_among(plan.anchors, ens.record_steps);
        out = statistics(p, plan, F, ens, track_records(ens, F, gap_config(p, plan)));
        out.every_step = false;
        out.gap_fit.reset();
    }
    out.params.study_eta0.clear();  // no study here (run_compare adds it)
    out.ode = ode_agreement(out);
    return out;
}

OdeAgreement ode_agreement(const CompareResult& r) {
    OdeAgreement a;
    for (const CompareRow& row : r.table) {
        if (!row.ode_z) continue;
        ++a.rows;
        a.max_abs_z = std::max(a.max_abs_z, std::abs(*row.ode_z));
        if (row.rho_ode < row.rho_sga.lo || row.rho_ode > row.rho_sga.hi) {
            ++a.outside;
            if (!a.first_outside_t) a.first_outside_t = row.t;
        }
    }
    if (a.rows == 0) {
        a.explanation = "No row has an SGA mean with a positive standard error (the trials agree exactly), so the "
                        "mean-field ODE is not compared with it.";
        return a;
    }
    if (a.outside == 0) {
        a.explanation = fmt::format("The mean-field ODE lies inside the SGA mean's 95% CI at all {} rows (largest "
                                    "|z_ODE| = {:.2f}): at these step sizes SGA follows it within the ensemble's "
                                    "resolution.",
                                    a.rows, a.max_abs_z);
        return a;
    }
    a.explanation = fmt::format("The mean-field ODE lies outside the SGA mean's 95% CI at {} of {} rows (the first at t "
                                "= {:.3g}; largest |z_ODE| = {:.2f})",
                                a.outside, a.rows, *a.first_outside_t, a.max_abs_z);
    // What explains it: the finite-step bias only when the effective dynamics, which predict
    // that bias, pass the verdict with the field as computed.
    if (r.verdict && r.verdict->consistent && r.params.field_scale == 1.0)
        a.explanation += ": the finite-step bias of SGA, O(eta), which the effective dynamics predict; the verdict tests "
                         "their prediction";
    else if (r.verdict)
        a.explanation += ": the verdict finds the ensemble inconsistent with the effective dynamics too (or the field is "
                         "scaled), so the finite-step bias does not explain the gap";
    else
        a.explanation += ": a finite-step bias of SGA, O(eta), would explain it; the effective dynamics (compare's "
                         "default) predict that bias and test it";
    if (r.study && r.study->rows.size() >= 2)
        a.explanation += fmt::format("; the step-size study's sup tracking error falls as eta0^({:.2f} +- {:.2f}, 95% "
                                     "half-width).",
                                     r.study->fit.slope, 1.959963984540054 * r.study->fit.slope_se);
    else
        a.explanation += ".";
    return a;
}

namespace {

// add_effective_prediction's inputs: a valid comparison of this very ensemble (checked once,
// before the moment tables are measured).
void check_prediction_inputs(const CompareResult& r, const EnsembleResult& ens) {
    const CompareParams& p = r.params;
    p.validate();
    check_same_run(p, ens);
    check_ensemble(ens, p);
    if (r.table.empty() || r.trajectory.size() + 1 != ens.record_steps.size())
        throw InvalidArgument("result", "the comparison's rows and trajectory are not those of this ensemble "
                                        "(accepted: compare()'s result for it)");
}

void predict(CompareResult& r, const EnsembleResult& ens, const DriftField& field, GapTables tables) {
    const std::size_t want = table_etas(r.params.sga, r.params.effective).size();
    if (tables.tables.size() != want)
        throw InvalidArgument("tables", fmt::format("{} moment tables given (accepted: {}, one per step size of "
                                                    "table_etas)", tables.tables.size(), want));
    r.params.effective.enabled = true;
    detail::explain_gap(r.params, field, ens.record_steps, ens, std::move(tables), r);
    r.ode = ode_agreement(r);
}

}  // namespace

void add_effective_prediction(CompareResult& r, const EnsembleResult& ens, const DriftField& field,
                              GapTables tables) {
    check_prediction_inputs(r, ens);
    predict(r, ens, field, std::move(tables));
}

void add_effective_prediction(CompareResult& r, const EnsembleResult& ens, const DriftField& field) {
    check_prediction_inputs(r, ens);
    const CompareParams& p = r.params;
    predict(r, ens, field, measure_gap_tables(p.model, p.sga, p.effective, field));
}

// ------------------------------------------------------------------------------- units

namespace {

// What every unit and the finish need: computed from the parameters alone (the same bits on
// every rank), once per process.
struct Context {
    DriftField F;  // the theory's field: the field built (or given) times field_scale
    ComparePlan plan;
    double study_rho0 = 0, study_t = 0;
    std::vector<SgaParams> study;
    SgaParams sp;
    GapConfig cfg;
};

Context make_context(const CompareParams& p, const DriftField* field) {
    // run_compare's explicit step: the theory's field is the field times field_scale.
    DriftField F = theory_field(field ? *field : DriftField::make(p.model, p.field, p.table), p.field_scale);
    Context c{std::move(F), compare_plan(p), 0, 0, {}, p.sga, {}};
    c.study_rho0 = p.sga.rho0.value_or(0.1);
    c.study_t = p.study_eta0.empty() ? 0.0 : study_horizon_for(p, c.F, c.study_rho0, c.plan.t_final);
    if (!p.study_eta0.empty()) c.study = study_runs(p, c.study_rho0, c.study_t);
    c.sp.record_steps = c.plan.rows;
    c.cfg = gap_config(p, c.plan);
    return c;
}

// The trials of one ensemble with their gap records.
struct Tracked {
    EnsembleResult ens;
    std::vector<TrialTracking> slots;
};

Tracked run_tracked_all(const ModelParams& model, const SgaParams& sp, const DriftField& F, const GapConfig& cfg,
                        ProgressCounter* progress) {
    Tracked t;
    t.slots = run_tracked(model, sp, F, cfg, progress, &t.ens);
    return t;
}

}  // namespace

// Units: [main blocks][study run 0 blocks]...[study run m-1 blocks][table node blocks].
struct CompareUnits::Impl {
    CompareParams p;
    const DriftField* field = nullptr;
    std::unique_ptr<Context> ctx;  // prepared by this rank's first run() or by finish()
    std::vector<std::int64_t> main_first, study_first;  // block starts (the study's runs share theirs)
    std::vector<std::int64_t> node_first;  // the tables' node blocks (one block serves every step size)
    std::int64_t tables = 0, table_nodes = 0;  // tables: 1 with the effective dynamics, else 0
    // Rank 0: outputs by unit.
    std::vector<std::vector<TrialResult>> main_trials;
    std::vector<std::vector<TrialTracking>> main_gaps;
    std::vector<std::vector<std::vector<double>>> study_sups;  // [run][block]
    std::vector<std::vector<std::optional<GapTables>>> table_out;  // [0][node block]
    std::vector<std::int64_t> steps_done;  // by unit, once accepted

    ProgressCounter* progress = nullptr;  // rank 0's: the study's steps are added once they are known
    const Context& prepare() {
        if (!ctx) {
            ctx = std::make_unique<Context>(make_context(p, field));
            if (progress)
                for (const auto& q : ctx->study) progress->total += q.steps * q.trials;
        }
        return *ctx;
    }
    static std::vector<std::int64_t> cut(std::int64_t n, std::int64_t blocks) {
        const std::int64_t b = std::clamp<std::int64_t>(blocks, 1, n);
        std::vector<std::int64_t> first;
        for (std::int64_t i = 0; i < b; ++i) first.push_back(n * i / b);
        return first;
    }
    static std::int64_t count(const std::vector<std::int64_t>& first, std::size_t i, std::int64_t n) {
        return (i + 1 < first.size() ? first[i + 1] : n) - first[i];
    }
    std::int64_t mains() const { return static_cast<std::int64_t>(main_first.size()); }
    std::int64_t studies() const { return static_cast<std::int64_t>(p.study_eta0.size() * study_first.size()); }
    // Which part unit u is: 0 main (block), 1 study (run, block), 2 table (level, node block).
    int kind(std::int64_t u, std::size_t& a, std::size_t& b) const {
        if (u < mains()) return a = static_cast<std::size_t>(u), 0;
        u -= mains();
        if (u < studies()) {
            a = static_cast<std::size_t>(u) / study_first.size();
            b = static_cast<std::size_t>(u) % study_first.size();
            return 1;
        }
        a = static_cast<std::size_t>(u - studies()) / node_first.size();
        b = static_cast<std::size_t>(u - studies()) % node_first.size();
        return 2;
    }
};

CompareUnits::CompareUnits(const CompareParams& p, const DriftField* field, std::int64_t blocks)
    : impl_(std::make_unique<Impl>()) {
    p.validate();
    Impl& m = *impl_;
    m.p = p;
    m.field = field;
    m.main_first = Impl::cut(p.sga.trials, blocks);
    if (!p.study_eta0.empty()) m.study_first = Impl::cut(p.study_trials, blocks);
    m.tables = p.effective.enabled ? 1 : 0;
    // A table (nodes x samples draws) is cut into node blocks about the size of a trial block.
    m.table_nodes = p.effective.moments.nodes + 1;
    const double trial_block = static_cast<double>(p.sga.steps) * static_cast<double>(p.sga.trials) /
                               static_cast<double>(m.main_first.size());
    const double table = static_cast<double>(m.table_nodes) * static_cast<double>(p.effective.moments.samples);
    m.node_first = Impl::cut(m.table_nodes, static_cast<std::int64_t>(std::ceil(table / std::max(1.0, trial_block))));
    m.main_trials.resize(m.main_first.size());
    m.main_gaps.resize(m.main_first.size());
    m.study_sups.assign(p.study_eta0.size(), std::vector<std::vector<double>>(m.study_first.size()));
    m.table_out.assign(static_cast<std::size_t>(m.tables),
                       std::vector<std::optional<GapTables>>(m.node_first.size()));
    m.steps_done.assign(static_cast<std::size_t>(size()), 0);
}

CompareUnits::~CompareUnits() = default;

std::int64_t CompareUnits::size() const noexcept {
    return impl_->mains() + impl_->studies() + impl_->tables * static_cast<std::int64_t>(impl_->node_first.size());
}

double CompareUnits::cost(std::int64_t u) const {
    const Impl& m = *impl_;
    std::size_t a = 0, b = 0;
    const double per_step = step_cost(m.p.model, m.p.sga.sampler);
    switch (m.kind(u, a, b)) {
        case 0: return per_step * static_cast<double>(m.p.sga.steps * Impl::count(m.main_first, a, m.p.sga.trials));
        case 1: return per_step * static_cast<double>(m.p.sga.steps * Impl::count(m.study_first, b, m.p.study_trials));
        default:  // a table node's draws cost a reduced step each
            return step_cost(m.p.model, SamplerKind::reduced) * static_cast<double>(Impl::count(m.node_first, b, m.table_nodes)) *
                   static_cast<double>(m.p.effective.moments.samples);
    }
}

std::int64_t CompareUnits::table_units() const noexcept {
    return impl_->tables * static_cast<std::int64_t>(impl_->node_first.size());
}

void CompareUnits::count_steps(ProgressCounter* progress) {
    // The main trials' steps now; the study's when the field is built (the study's horizon
    // depends on the ODE), inside the first unit, where a failure is that unit's failure.
    impl_->progress = progress;
    progress->total = impl_->p.sga.steps * impl_->p.sga.trials;
}

std::int64_t CompareUnits::steps(std::int64_t u) const { return impl_->steps_done.at(static_cast<std::size_t>(u)); }

CompareBlock CompareUnits::run(std::int64_t u, ProgressCounter* progress) {
    Impl& m = *impl_;
    const Context& c = m.prepare();
    std::size_t a = 0, b = 0;
    CompareBlock out;
    switch (m.kind(u, a, b)) {
        case 0: {
            SgaParams q = c.sp;
            q.first_trial = c.sp.first_trial + m.main_first[a];
            q.trials = Impl::count(m.main_first, a, m.p.sga.trials);
            Tracked t = run_tracked_all(m.p.model, q, c.F, c.cfg, progress);
            out.trials = std::move(t.ens.trials);
            out.tracking = std::move(t.slots);
            out.steps = q.steps * q.trials;
            break;
        }
        case 1: {
            SgaParams q = c.study[a];
            q.first_trial = m.study_first[b];
            q.trials = Impl::count(m.study_first, b, m.p.study_trials);
            GapConfig qc;
            qc.horizon = m.p.horizon;
            out.sups = sups_of(run_tracked(m.p.model, q, c.F, qc, progress, nullptr));
            out.steps = q.steps * q.trials;
            break;
        }
        default:
            out.tables = detail::measure_table_nodes(m.p, c.F, static_cast<std::size_t>(m.node_first[b]),
                                                     static_cast<std::size_t>(Impl::count(m.node_first, b, m.table_nodes)));
    }
    return out;
}

void CompareUnits::accept(std::int64_t u, CompareBlock block) {
    Impl& m = *impl_;
    std::size_t a = 0, b = 0;
    m.steps_done.at(static_cast<std::size_t>(u)) = block.steps;
    switch (m.kind(u, a, b)) {
        case 0:
            m.main_trials[a] = std::move(block.trials);
            m.main_gaps[a] = std::move(block.tracking);
            break;
        case 1: m.study_sups[a][b] = std::move(block.sups); break;
        default:
            if (!block.tables) throw std::runtime_error("compare: a moment table block came back empty");
            m.table_out[a][b] = std::move(block.tables);
    }
}

CompareResult CompareUnits::finish() {
    Impl& m = *impl_;
    const Context& c = m.prepare();
    EnsembleResult ens;  // the main ensemble as its units ran it: recorded at the plan's rows
    ens.model = m.p.model;
    ens.sga = c.sp;
    ens.record_steps = record_steps_for(c.sp);
    ens.record_times = c.sp.schedule.times_at(ens.record_steps);
    ens.warning = c.sp.schedule.warning();
    std::vector<TrialTracking> slots;
    for (std::size_t i = 0; i < m.main_trials.size(); ++i) {
        ens.trials.insert(ens.trials.end(), m.main_trials[i].begin(), m.main_trials[i].end());
        slots.insert(slots.end(), m.main_gaps[i].begin(), m.main_gaps[i].end());
    }
    if (static_cast<std::int64_t>(ens.trials.size()) != m.p.sga.trials) throw std::runtime_error("compare: a trial block is missing");
    ens.summary = summarise(ens.trials);
    std::vector<std::vector<double>> sups;
    for (const auto& run : m.study_sups) {
        sups.emplace_back();
        for (const auto& block : run) sups.back().insert(sups.back().end(), block.begin(), block.end());
    }
    GapTables tables;  // the node blocks of every step size's table, and their draws, in order
    for (const auto& group : m.table_out)
        for (const auto& block : group) {
            if (!block) throw std::runtime_error("compare: a moment table block is missing");
            if (tables.tables.empty()) tables.tables = block->tables;
            else
                for (std::size_t e = 0; e < tables.tables.size(); ++e)
                    tables.tables[e].nodes.insert(tables.tables[e].nodes.end(), block->tables.at(e).nodes.begin(),
                                                  block->tables.at(e).nodes.end());
            tables.draws.insert(tables.draws.end(), block->draws.begin(), block->draws.end());
        }
    // The theory's field c.F: the field built (or given) times field_scale, an explicit step here.
    CompareResult out = compare(ens, c.F, m.p.settings(), slots);
    if (m.p.effective.enabled) add_effective_prediction(out, ens, c.F, std::move(tables));
    out.params = m.p;  // the run as asked (its sga without the plan's record steps) and the study
    if (!c.study.empty()) out.study = study_result(m.p, c.study, sups, c.study_rho0, c.study_t);
    out.ode = ode_agreement(out);
    return out;
}

std::optional<CompareResult> run_compare(Execution ex, const CompareParams& p, ProgressCounter* progress,
                                         const DriftField* field) {
    p.validate();
    CompareUnits units(p, field, blocks_for(p.sga.trials, ranks_for(ex)));
    if (progress && keeps_results(ex)) units.count_steps(progress);
    detail::execute_units(ex, units, progress);
    return on_keeper<CompareResult>(ex, [&] { return units.finish(); });
}

CompareResult run_compare(const CompareParams& p, ProgressCounter* progress, const DriftField* field) {
    return *run_compare(Execution::local, p, progress, field);
}

RHOFLOW_JSON_HOOKS(CompareParams, model, sga, field, table, horizon, anchors, rows, study_eta0, study_trials,
                   study_horizon, field_scale, effective, table_columns)
RHOFLOW_JSON_HOOKS(CompareRow, step, t, rho_ode, rho_sga, rho_sga_q10, rho_sga_median, rho_sga_q90, gap_mean, gap_q90,
                   nuisance_mass_sga, nuisance_mass_population, rho_eff_ode, rho_first_order, pred_mean, pred_q10, pred_q90, pred_se,
                   residual_z, p_value, ode_z)
RHOFLOW_JSON_HOOKS(OdeAgreement, rows, outside, first_outside_t, max_abs_z, explanation)
RHOFLOW_JSON_HOOKS(GapAnchor, step, t, eta, mean, median, q90, max)
RHOFLOW_JSON_HOOKS(GapFit, fit, from_t)
namespace {
RHOFLOW_JSON_HOOKS_NAMED(hitting_members_to_json, hitting_members_from_json, HittingTimes, level, ode, sga, sga_hits, trials)
}  // namespace
// The plateau time came after documents were written: absent there, it reads back empty.
void to_json(nlohmann::json& j, const HittingTimes& v) {
    hitting_members_to_json(j, v);
    j["sga_plateau"] = v.sga_plateau;
    j["sga_plateau_after"] = v.sga_plateau_after;
}
void from_json(const nlohmann::json& j, HittingTimes& v) {
    hitting_members_from_json(j, v);
    v.sga_plateau = j.contains("sga_plateau") ? j.at("sga_plateau").get<std::optional<double>>() : std::nullopt;
    v.sga_plateau_after =
        j.contains("sga_plateau_after") ? j.at("sga_plateau_after").get<std::optional<double>>() : std::nullopt;
}
RHOFLOW_JSON_HOOKS(StudyRow, eta0, k0, steps, sup_err, sup_err_median, stream_run)
RHOFLOW_JSON_HOOKS(StepSizeStudy, horizon, rho0, trials, rows, fit, fit_small_eta0)
RHOFLOW_JSON_HOOKS(TrajectoryPoint, t, rho_ode, sga_mean, sga_q10, sga_q90, trials, rho_eff_ode, rho_first_order,
                   pred_mean, pred_q10, pred_q90)
RHOFLOW_JSON_HOOKS(FieldCurvePoint, rho, drift, dj)
RHOFLOW_JSON_HOOKS(TrialTracking, gaps, sup_tracking, ode_records)
RHOFLOW_JSON_HOOKS(ComparePlan, t_final, rows, anchors, records)
RHOFLOW_JSON_HOOKS(CompareBlock, trials, tracking, sups, tables, steps)
namespace {
RHOFLOW_JSON_HOOKS_NAMED(to_json_members, from_json_members, CompareResult, params, field, phase, t_final, table, gap,
                         gap_fit, tracking_error, tracking_error_max, every_step, hitting_time, summary, outcomes, rho_ode_final,
                         study, trajectory, field_curve, warning, effective, verdict, ode)
// abs_rho_ode_final came after documents were written: there |rho_ode_final|, which it equals
// when every start lies in one basin.
void read_abs_ode(const nlohmann::json& j, CompareResult& v) {
    v.abs_rho_ode_final = j.contains("abs_rho_ode_final") ? j.at("abs_rho_ode_final").get<double>() : std::abs(v.rho_ode_final);
}
}  // namespace
void to_json(nlohmann::json& j, const CompareResult& v) {
    to_json_members(j, v);
    j["abs_rho_ode_final"] = v.abs_rho_ode_final;
}
void from_json(const nlohmann::json& j, CompareResult& v) {
    if (j.contains("outcomes") && j.contains("every_step") && j.contains("ode")) {
        from_json_members(j, v);
        return read_abs_ode(j, v);
    }
    nlohmann::json with = j;
    if (!with.contains("outcomes")) with["outcomes"] = OutcomeSummary{};  // written before the outcome statistics: none (0 trials)
    if (!with.contains("every_step")) with["every_step"] = true;  // written before compare(): always every step
    // Written before the ODE's residuals (issue 33): taken from the rows' SGA means and errors.
    const bool old_rows = !with.contains("ode");
    if (old_rows) {
        with["ode"] = OdeAgreement{};
        if (with.contains("table") && with["table"].is_array())
            for (auto& row : with["table"])
                if (row.is_object() && !row.contains("ode_z")) row["ode_z"] = nullptr;
    }
    from_json_members(with, v);
    read_abs_ode(j, v);
    if (old_rows) {
        for (CompareRow& row : v.table) row.ode_z = ode_residual(row);
        v.ode = ode_agreement(v);
    }
}

}  // namespace rhoflow
