#include "rhoflow/compare/compare.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/ode/ode.hpp"
#include "rhoflow/ode/phase.hpp"
#include "rhoflow/compare/pseudotrajectory.hpp"
#include "rhoflow/io/report.hpp"
#include "rhoflow/core/stats.hpp"
#include "rhoflow/version.hpp"

namespace rhoflow {

using nlohmann::json;

void CompareParams::validate() const {
    validate_member("model", [&] { model.validate(); });
    validate_member("sga", [&] { sga.validate(); });
    validate_member("table", [&] { table.validate(); });
    require(std::isfinite(horizon) && horizon > 0, "horizon", horizon, "finite horizon > 0");
    require(anchors >= 3 && anchors <= 10000, "anchors", anchors, "3 <= anchors <= 10000");
    require(rows >= 3 && rows <= 1000, "rows", rows, "3 <= rows <= 1000");
    for (double e : study_eta0) require(std::isfinite(e) && e > 0, "study_eta0", e, "finite study-eta0 > 0");
    require(study_eta0.empty() || study_eta0.size() >= 3, "study_eta0", static_cast<double>(study_eta0.size()),
            "a list of at least 3 values (or none)");
    require(study_trials >= 2 && study_trials <= 1000000, "study_trials", static_cast<double>(study_trials),
            "2 <= study_trials <= 1e6");
    require(std::isfinite(study_horizon) && study_horizon >= 0, "study_horizon", study_horizon,
            "study_horizon >= 0 (0 = automatic)");
    if (field == FieldMethod::montecarlo)
        throw InvalidArgument("field", "field = 'montecarlo' cannot drive the ODE (accepted: exact, meanfield)");
    if (field == FieldMethod::exact) validate_member("model", [&] { validate_exact_field(model, table.exact); });
    const double t_final = sga.schedule.time_at(sga.steps);
    require(horizon < t_final, "horizon", horizon,
            fmt::format("horizon < the run's ODE time t_final = {} (more --steps or a shorter --horizon)",
                        format_number(t_final)));
}

CompareParams default_compare_params() {
    CompareParams p;
    p.sga.steps = 20000;
    p.sga.trials = 30;
    p.sga.seed = 1;
    p.sga.schedule = {0.01, 5000, 1.0};
    p.sga.rho0 = 0.1;
    return p;
}

namespace {

double study_horizon_for(const CompareParams& p, const DriftField& F, double rho0, double t_final) {
    if (p.study_horizon > 0) return std::min(p.study_horizon, t_final);
    OdeParams o;
    o.hit_eps = p.sga.hit_eps;
    o.error_estimate = false;
    const OdeSolution s = solve_ode(F, rho0, {0.0, t_final}, o);
    return std::min(t_final, s.hit_time ? std::max(5.0, 3.0 * *s.hit_time) : 20.0);
}

// Copies a trial's gap results into its slot when the trial ends.
struct TrialGaps {
    std::vector<std::optional<double>> gaps;
    double sup_tracking = 0;
    std::vector<double> ode_records;
};
class GapObserver : public StepObserver {
public:
    GapObserver(std::function<double(double)> drift, GapConfig cfg, TrialGaps* slot)
        : tracker_(std::move(drift), std::move(cfg)), slot_(slot) {}
    void on_step(std::int64_t k, double t, double rho, double m) override { tracker_.on_step(k, t, rho, m); }
    void finish() override {
        slot_->gaps = tracker_.gaps();
        slot_->sup_tracking = tracker_.sup_tracking_error();
        slot_->ode_records = tracker_.ode_at_records();
    }

private:
    GapTracker tracker_;
    TrialGaps* slot_;
};

double mean_of(const std::vector<double>& v) { return mean_ci(v).mean; }

std::string model_line(const CompareParams& p) {
    return fmt::format("d = {}, L = {}, R = {}, theta = {}, sigma = {}{}, beta = {}", p.model.d, p.model.L, p.model.R,
                       format_number(p.model.theta), format_number(p.model.sigma),
                       p.convention == NoiseConvention::per_norm ? " (per coordinate; given per norm)" : "",
                       format_number(p.model.beta));
}

std::vector<std::string> provenance_lines(const CompareParams& p) {
    const auto& s = p.sga;
    return {fmt::format("rhoflow {}", version),
            model_line(p),
            fmt::format("{} sampler, {} trials x {} steps, seed = {}", to_string(s.sampler), s.trials, s.steps, s.seed),
            fmt::format("eta_k = {} / (1 + k/{})^{}, {} update, rho0 = {}", format_number(s.schedule.eta0),
                        format_number(s.schedule.k0), format_number(s.schedule.gamma), to_string(s.update),
                        s.rho0 ? format_number(*s.rho0) : "uniform on the sphere"),
            fmt::format("ODE field = {}, horizon T = {}, hit level = {}", to_string(p.field), format_number(p.horizon),
                        format_number(1 - s.hit_eps))};
}

}  // namespace

CompareResult run_compare(const CompareParams& p, ProgressCounter* progress, const DriftField* field) {
    p.validate();
    const DriftField F = field ? *field : DriftField::make(p.model, p.field, p.table);
    const PhasePortrait phase = phase_portrait(F);
    auto drift = [&F](double r) { return F.drift(r); };
    const SgaParams& sg = p.sga;
    const StepSchedule& sch = sg.schedule;
    const double t_final = sch.time_at(sg.steps);

    // Table rows: step 0 and rows-1 steps geometric in k; anchors geometric in t.
    std::set<std::int64_t> row_set = {0, sg.steps};
    for (int i = 0; i < p.rows - 1; ++i)
        row_set.insert(std::llround(std::pow(static_cast<double>(sg.steps), static_cast<double>(i) / (p.rows - 2))));
    const std::vector<std::int64_t> row_steps(row_set.begin(), row_set.end());
    std::vector<double> anchor_times;
    const double ta0 = sch.eta(0), ta1 = t_final - p.horizon;
    for (int i = 0; i < p.anchors; ++i)
        anchor_times.push_back(ta0 * std::pow(ta1 / ta0, static_cast<double>(i) / (p.anchors - 1)));
    std::set<std::int64_t> anchor_set;
    for (auto k : sch.steps_at(anchor_times, sg.steps)) anchor_set.insert(k);
    const std::vector<double> row_times = sch.times_at(row_steps);
    for (std::size_t i = 0; i < row_steps.size(); ++i)  // table rows whose window fits are anchors too
        if (row_times[i] + p.horizon <= t_final * (1 - 1e-12)) anchor_set.insert(row_steps[i]);
    const std::vector<std::int64_t> anchors(anchor_set.begin(), anchor_set.end());

    // The step-size study's runs: eta0 k0 fixed so that eta(t) keeps its shape; each run over
    // [0, t_study] from a shared start, on streams apart from the main run's.
    const double study_rho0 = sg.rho0.value_or(0.1);
    const double study_t = p.study_eta0.empty() ? 0.0 : study_horizon_for(p, F, study_rho0, t_final);
    std::vector<SgaParams> study;
    {
        std::vector<double> eta0s = p.study_eta0;
        std::sort(eta0s.begin(), eta0s.end(), std::greater<>());
        for (std::size_t m = 0; m < eta0s.size(); ++m) {
            SgaParams q = sg;
            q.schedule.eta0 = eta0s[m];
            q.schedule.k0 = sch.k0 * sch.eta0 / eta0s[m];
            q.trials = p.study_trials;
            q.first_trial = 0;
            q.purpose = StreamPurpose::step_size_study;
            q.purpose_sub = m;
            q.rho0 = study_rho0;
            q.steps = std::max<std::int64_t>(1, q.schedule.steps_at({study_t}, std::int64_t{1} << 40).front());
            q.record_steps = {};
            q.records_per_decade = 1;
            study.push_back(q);
        }
    }
    if (progress) {
        std::int64_t total = sg.steps * sg.trials;
        for (const auto& q : study) total += q.steps * q.trials;
        progress->total = total;
    }

    // The main ensemble, with a gap tracker on every trial.
    SgaParams sp = sg;
    sp.record_steps = row_steps;
    const std::vector<std::int64_t> records = record_steps_for(sp);
    GapConfig cfg;
    cfg.horizon = p.horizon;
    cfg.anchors = anchors;
    cfg.record_steps = records;
    std::vector<TrialGaps> slots(static_cast<std::size_t>(sp.trials));
    const EnsembleResult ens = run_ensemble(p.model, sp, progress, [&](std::int64_t trial) {
        return std::make_unique<GapObserver>(drift, cfg, &slots[static_cast<std::size_t>(trial - sp.first_trial)]);
    });
    const std::size_t N = slots.size();

    // D_T per anchor across trials.
    struct AnchorStat {
        std::int64_t k;
        double t, eta, mean, median, q90, max;
    };
    std::vector<AnchorStat> astats;
    const std::vector<double> anchor_t = sch.times_at(anchors);
    for (std::size_t a = 0; a < anchors.size(); ++a) {
        std::vector<double> g;
        for (const auto& s : slots)
            if (s.gaps[a]) g.push_back(*s.gaps[a]);
        if (g.size() != N) continue;  // window not complete (cannot happen by construction)
        astats.push_back({anchors[a], anchor_t[a], sch.eta(anchors[a]), mean_of(g), quantile(g, 0.5), quantile(g, 0.9),
                          *std::max_element(g.begin(), g.end())});
    }

    // Hitting times: SGA (t at the hit step) and the ODE from each trial's own start.
    std::vector<double> sga_hits, ode_hits;
    OdeParams op;
    op.hit_eps = sg.hit_eps;
    op.error_estimate = false;
    std::map<double, std::optional<double>> ode_hit_from;  // one solve per distinct start
    for (const auto& tr : ens.trials) {
        if (tr.hit_step) sga_hits.push_back(sch.time_at(*tr.hit_step));
        auto it = ode_hit_from.find(tr.rho0);
        if (it == ode_hit_from.end())
            it = ode_hit_from.emplace(tr.rho0, solve_ode(F, tr.rho0, {0.0, t_final}, op).hit_time).first;
        if (it->second) ode_hits.push_back(*it->second);
    }
    const MeanCI sga_hit = mean_ci(sga_hits), ode_hit = mean_ci(ode_hits);

    // Fit of log mean D_T against log eta(t) once the ODE has converged (else over all anchors).
    const double t_fit = ode_hits.empty() ? 0.0 : ode_hit.mean;
    std::vector<double> fx, fy;
    for (const auto& a : astats)
        if (a.t >= t_fit && a.mean > 0) {
            fx.push_back(std::log(a.eta));
            fy.push_back(std::log(a.mean));
        }
    if (fx.size() < 3) {
        fx.clear();
        fy.clear();
        for (const auto& a : astats)
            if (a.mean > 0) {
                fx.push_back(std::log(a.eta));
                fy.push_back(std::log(a.mean));
            }
    }
    std::optional<LineFit> gap_fit;
    if (fx.size() >= 3 && sch.gamma > 0) gap_fit = fit_line(fx, fy);

    CompareResult out;
    const auto meta = provenance_lines(p);

    // The ODE-vs-SGA table.
    out.table.caption = "ODE prediction against the SGA ensemble";
    out.table.meta = meta;
    out.table.label = "tab:rhoflow-compare";
    out.table.columns = {
        {"step", "step k", "$k$", "{:.0f}"},
        {"t", "t", "$t_k$", "{:.4g}"},
        {"rho_ode", "rho ODE", "$\\rho_{\\mathrm{ODE}}$", "{:.5f}"},
        {"rho_sga_mean", "rho SGA mean", "$\\bar\\rho_{\\mathrm{SGA}}$", "{:.5f}"},
        {"rho_sga_ci95_lo", "95% CI lo", "CI$_{95}$ lo", "{:.5f}"},
        {"rho_sga_ci95_hi", "95% CI hi", "CI$_{95}$ hi", "{:.5f}"},
        {"rho_sga_q10", "q10", "$q_{0.1}$", "{:.5f}"},
        {"rho_sga_q50", "median", "$q_{0.5}$", "{:.5f}"},
        {"rho_sga_q90", "q90", "$q_{0.9}$", "{:.5f}"},
        {"gap_mean", "D_T mean", "$\\bar D_T$", "{:.3g}"},
        {"gap_q90", "D_T q90", "$D_T$ $q_{0.9}$", "{:.3g}"},
        {"nuisance_mass_sga", "nuisance mass SGA", "$1-A_I$ SGA", "{:.5f}"},
        {"nuisance_mass_population", "nuisance mass pop.", "$1-\\mathbb{E}A_I$", "{:.5f}"},
    };
    json rows_json = json::array();
    std::vector<std::size_t> row_index;  // index of each row step in `records`
    for (auto r : row_steps)
        row_index.push_back(static_cast<std::size_t>(std::lower_bound(records.begin(), records.end(), r) - records.begin()));
    for (std::size_t i = 0; i < row_steps.size(); ++i) {
        const std::size_t j = row_index[i];
        std::vector<double> rho, mass, ode, pop;
        for (std::size_t n = 0; n < N; ++n) {
            rho.push_back(ens.trials[n].rho[j]);
            mass.push_back(ens.trials[n].nuisance_mass[j]);
            ode.push_back(slots[n].ode_records[j]);
            pop.push_back(1.0 - F.mass(slots[n].ode_records[j]));
        }
        const MeanCI ci = mean_ci(rho), mci = mean_ci(mass);
        const double rho_ode = mean_of(ode), pop_mass = mean_of(pop);
        const double q10 = quantile(rho, 0.1), q50 = quantile(rho, 0.5), q90 = quantile(rho, 0.9);
        TableCell gap_mean, gap_q90;
        json gap_json = nullptr;
        for (const auto& a : astats)
            if (a.k == row_steps[i]) {
                gap_mean = a.mean;
                gap_q90 = a.q90;
                gap_json = {{"mean", a.mean}, {"q90", a.q90}};
            }
        out.table.rows.push_back({static_cast<double>(row_steps[i]), ens.record_times[j], rho_ode, ci.mean, ci.lo, ci.hi,
                                  q10, q50, q90, gap_mean, gap_q90, mci.mean, pop_mass});
        rows_json.push_back({{"step", row_steps[i]},
                             {"t", ens.record_times[j]},
                             {"rho_ode", rho_ode},
                             {"rho_sga", {{"mean", ci.mean}, {"se", ci.se}, {"ci95", {ci.lo, ci.hi}},
                                          {"q10", q10}, {"q50", q50}, {"q90", q90}}},
                             {"gap", gap_json},
                             {"nuisance_mass_sga", mci.mean},
                             {"nuisance_mass_sga_ci95", {mci.lo, mci.hi}},
                             {"nuisance_mass_population", pop_mass}});
    }

    // D_T per anchor.
    out.gap_table.caption = fmt::format("Asymptotic-pseudotrajectory gap D_T(t), T = {}, across {} trials",
                                        format_number(p.horizon), N);
    out.gap_table.meta = meta;
    out.gap_table.label = "tab:rhoflow-gap";
    out.gap_table.columns = {{"step", "step k", "$k$", "{:.0f}"},       {"t", "t", "$t$", "{:.4g}"},
                             {"eta", "eta(t)", "$\\eta(t)$", "{:.3g}"},  {"gap_mean", "mean", "mean", "{:.3g}"},
                             {"gap_median", "median", "median", "{:.3g}"}, {"gap_q90", "q90", "$q_{0.9}$", "{:.3g}"},
                             {"gap_max", "max", "max", "{:.3g}"}};
    json gaps_json = json::array();
    for (const auto& a : astats) {
        out.gap_table.rows.push_back({static_cast<double>(a.k), a.t, a.eta, a.mean, a.median, a.q90, a.max});
        gaps_json.push_back({{"step", a.k}, {"t", a.t}, {"eta", a.eta}, {"mean", a.mean}, {"median", a.median},
                             {"q90", a.q90}, {"max", a.max}});
    }

    // The step-size study.
    json study_json = nullptr;
    std::optional<LineFit> study_fit, study_fit_small;
    std::vector<std::array<double, 5>> study_rows;  // eta0, mean, lo, hi, median
    if (!p.study_eta0.empty()) {
        out.study_table.caption = fmt::format(
            "Step-size study: sup over [0, {:.3g}] of |rho_k - rho_ODE(t_k)| from rho0 = {} (eta0 k0 fixed)", study_t,
            format_number(study_rho0));
        out.study_table.meta = meta;
        out.study_table.label = "tab:rhoflow-study";
        out.study_table.columns = {{"eta0", "eta0", "$\\eta_0$", "{:.4g}"},
                                   {"k0", "k0", "$k_0$", "{:.4g}"},
                                   {"steps", "steps", "steps", "{:.0f}"},
                                   {"sup_err_mean", "mean sup error", "mean $\\sup_k|\\rho_k-\\rho(t_k)|$", "{:.4g}"},
                                   {"sup_err_ci95_lo", "95% CI lo", "CI$_{95}$ lo", "{:.4g}"},
                                   {"sup_err_ci95_hi", "95% CI hi", "CI$_{95}$ hi", "{:.4g}"},
                                   {"sup_err_median", "median", "median", "{:.4g}"}};
        json srows = json::array();
        std::vector<double> lx, ly;
        for (const SgaParams& q : study) {
            GapConfig qc;
            qc.horizon = p.horizon;
            std::vector<TrialGaps> qs(static_cast<std::size_t>(q.trials));
            run_ensemble(p.model, q, progress, [&](std::int64_t trial) {
                return std::make_unique<GapObserver>(drift, qc, &qs[static_cast<std::size_t>(trial - q.first_trial)]);
            });
            std::vector<double> sup;
            for (const auto& s : qs) sup.push_back(s.sup_tracking);
            const MeanCI ci = mean_ci(sup);
            const double e0 = q.schedule.eta0;
            study_rows.push_back({e0, ci.mean, ci.lo, ci.hi, quantile(sup, 0.5)});
            out.study_table.rows.push_back({e0, q.schedule.k0, static_cast<double>(q.steps), ci.mean, ci.lo, ci.hi,
                                            quantile(sup, 0.5)});
            srows.push_back({{"eta0", e0}, {"k0", q.schedule.k0}, {"steps", q.steps}, {"sup_err_mean", ci.mean},
                             {"sup_err_se", ci.se}, {"sup_err_ci95", {ci.lo, ci.hi}},
                             {"sup_err_median", quantile(sup, 0.5)}, {"stream_run", q.purpose_sub}});
            lx.push_back(std::log(e0));
            ly.push_back(std::log(ci.mean));
        }
        study_fit = fit_line(lx, ly);
        // The smaller half of the eta0 values (the list runs from large to small), at least 3.
        const std::size_t half = std::max<std::size_t>(3, (lx.size() + 1) / 2);
        study_fit_small = fit_line(std::vector<double>(lx.end() - static_cast<std::ptrdiff_t>(half), lx.end()),
                                   std::vector<double>(ly.end() - static_cast<std::ptrdiff_t>(half), ly.end()));
        study_json = {{"horizon", study_t},
                      {"rho0", study_rho0},
                      {"trials", p.study_trials},
                      {"rows", srows},
                      {"fit", {{"slope", study_fit->slope}, {"slope_se", study_fit->slope_se},
                               {"intercept", study_fit->intercept}, {"n", study_fit->n}}},
                      {"fit_small_eta0", {{"slope", study_fit_small->slope}, {"slope_se", study_fit_small->slope_se},
                                          {"intercept", study_fit_small->intercept}, {"n", study_fit_small->n}}}};
    }

    // The JSON document.
    const auto& s = ens.summary;
    json doc = provenance();
    doc["command"] = "compare";
    doc["model"] = to_json(p.model, p.convention);
    doc["params"] = {{"sampler", to_string(sg.sampler)},
                     {"steps", sg.steps},
                     {"trials", sg.trials},
                     {"seed", sg.seed},
                     {"eta0", sch.eta0},
                     {"k0", sch.k0},
                     {"gamma", sch.gamma},
                     {"update", to_string(sg.update)},
                     {"rho0", sg.rho0 ? json(*sg.rho0) : json("uniform")},
                     {"hit", sg.hit_eps},
                     {"horizon", p.horizon},
                     {"anchors", anchors.size()},
                     {"field", to_string(p.field)},
                     {"t_final", t_final}};
    if (!ens.warning.empty()) doc["warning"] = ens.warning;
    doc["field"] = to_json(F);
    doc["phase"] = to_json(phase);
    doc["table"] = rows_json;
    doc["gap"] = {{"anchors", gaps_json},
                  {"fit_against_eta",
                   gap_fit ? json({{"slope", gap_fit->slope}, {"slope_se", gap_fit->slope_se}, {"n", gap_fit->n},
                                   {"from_t", t_fit}})
                           : json(nullptr)}};
    std::vector<double> sups;
    for (const auto& sl : slots) sups.push_back(sl.sup_tracking);
    const MeanCI track = mean_ci(sups);
    doc["tracking_error"] = {{"sup_mean", track.mean}, {"sup_ci95", {track.lo, track.hi}}, {"sup_max", *std::max_element(sups.begin(), sups.end())}};
    doc["hitting_time"] = {
        {"level", 1 - sg.hit_eps},
        {"ode", ode_hits.empty() ? json(nullptr) : json({{"mean", ode_hit.mean}, {"ci95", {ode_hit.lo, ode_hit.hi}}, {"n", ode_hit.n}})},
        {"sga", sga_hits.empty() ? json(nullptr) : json({{"mean", sga_hit.mean}, {"ci95", {sga_hit.lo, sga_hit.hi}}, {"n", sga_hit.n}})}};
    doc["summary"] = {{"mean_abs_rho_final", s.abs_rho_final.mean},
                      {"ci95", {s.abs_rho_final.lo, s.abs_rho_final.hi}},
                      {"mean_rho_final", s.rho_final.mean},
                      {"rho_ode_final", out.table.rows.empty() ? 0.0 : std::get<double>(out.table.rows.back()[2])},
                      {"nuisance_mass", s.nuisance_mass.mean},
                      {"nuisance_mass_ci95", {s.nuisance_mass.lo, s.nuisance_mass.hi}},
                      {"hits", s.hits}};
    doc["study"] = study_json;
    ensure_finite(doc);
    out.doc = doc;

    // What the CLI prints.
    std::string md = "## rhoflow compare\n\n" + to_markdown(out.table) + "\n";
    md += fmt::format("- mean |rho_final| = {:.5f} (95% CI [{:.5f}, {:.5f}]); ODE predicts {:.5f}\n",
                      s.abs_rho_final.mean, s.abs_rho_final.lo, s.abs_rho_final.hi,
                      std::abs(std::get<double>(out.table.rows.back()[2])));
    md += fmt::format("- hitting time of |rho| >= {}: ODE {} ; SGA {} ({} of {} trials)\n", 1 - sg.hit_eps,
                      ode_hits.empty() ? "not reached" : fmt::format("{:.4g} (95% CI [{:.4g}, {:.4g}])", ode_hit.mean, ode_hit.lo, ode_hit.hi),
                      sga_hits.empty() ? "not reached" : fmt::format("{:.4g} (95% CI [{:.4g}, {:.4g}])", sga_hit.mean, sga_hit.lo, sga_hit.hi),
                      sga_hits.size(), N);
    md += fmt::format("- tracking error sup_k |rho_k - rho_ODE(t_k)|: mean {:.4g} (95% CI [{:.4g}, {:.4g}])\n", track.mean,
                      track.lo, track.hi);
    if (gap_fit)
        md += fmt::format("- D_T(t), T = {}: from {:.3g} at t = {:.3g} to {:.3g} at t = {:.3g}; log-log slope against "
                          "eta(t) = {:.3f} +- {:.3f} (over t >= {:.3g})\n",
                          format_number(p.horizon), astats.front().mean, astats.front().t, astats.back().mean,
                          astats.back().t, gap_fit->slope, gap_fit->slope_se, t_fit);
    if (study_fit)
        md += fmt::format("- step-size study: sup tracking error ~ eta0^{:.3f} (+- {:.3f}) over all eta0, ^{:.3f} (+- "
                          "{:.3f}) over the {} smallest; theory: about 1/2 for small eta0\n",
                          study_fit->slope, study_fit->slope_se, study_fit_small->slope, study_fit_small->slope_se,
                          study_fit_small->n);
    if (!ens.warning.empty()) md += "- warning: " + ens.warning + "\n";
    if (!phase.monotone && !phase.flat)
        md += fmt::format("- note: the field is not monotone ({} equilibria); see compare.json \"phase\"\n",
                          phase.equilibria.size());
    out.markdown = md;

    // Figure data (space-separated, '#' header) and gnuplot bodies.
    const std::string title = fmt::format("{}, {} trials, seed {}", model_line(p), N, sg.seed);
    {
        std::string d = "# t rho_ode sga_mean sga_q10 sga_q90 trial0 trial1 trial2 trial3 trial4\n";
        for (std::size_t j = 1; j < records.size(); ++j) {
            std::vector<double> rho, ode;
            for (std::size_t n = 0; n < N; ++n) {
                rho.push_back(ens.trials[n].rho[j]);
                ode.push_back(slots[n].ode_records[j]);
            }
            d += fmt::format("{:.10g} {:.10g} {:.10g} {:.10g} {:.10g}", ens.record_times[j], mean_of(ode), mean_of(rho),
                             quantile(rho, 0.1), quantile(rho, 0.9));
            for (std::size_t n = 0; n < std::min<std::size_t>(5, N); ++n) d += fmt::format(" {:.10g}", rho[n]);
            d += "\n";
        }
        out.data_files.push_back({"fig_trajectory.dat", d});
        std::string trials_plot;
        for (std::size_t n = 0; n < std::min<std::size_t>(5, N); ++n)
            trials_plot += fmt::format(", '' using 1:{} with lines lw 0.6 lc rgb '#9ecae1' {}", 6 + n,
                                       n == 0 ? "title 'single trials'" : "notitle");
        out.figures.push_back(
            {"fig_trajectory",
             fmt::format("set title \"{}\" noenhanced\nset logscale x\nset xlabel 't = sum of step sizes (ODE time)'\n"
                         "set ylabel 'rho = <q, xi>'\nset key bottom right\nset grid\n"
                         "plot 'fig_trajectory.dat' using 1:4:5 with filledcurves lc rgb '#c6dbef' title 'SGA "
                         "10-90% band'{}, '' using 1:3 with lines lw 2 lc rgb '#08519c' title 'SGA mean', '' using "
                         "1:2 with lines lw 2 dt 2 lc rgb '#d62728' title 'ODE'",
                         title, trials_plot)});
    }
    {
        std::string d = "# t eta sqrt_eta gap_mean gap_median gap_q90 gap_max\n";
        for (const auto& a : astats)
            d += fmt::format("{:.10g} {:.10g} {:.10g} {:.10g} {:.10g} {:.10g} {:.10g}\n", a.t, a.eta, std::sqrt(a.eta),
                             a.mean, a.median, a.q90, a.max);
        out.data_files.push_back({"fig_gap.dat", d});
        out.figures.push_back(
            {"fig_gap", fmt::format("set title \"D_T(t), T = {}: {}\" noenhanced\nset logscale xy\nset xlabel 't'\n"
                                    "set ylabel 'D_T(t)'\nset key top right\nset grid\nset format y '%g'\n"
                                    "plot 'fig_gap.dat' using 1:4 with linespoints lw 2 pt 7 title 'mean', '' using 1:5 "
                                    "with lines lw 1.5 title 'median', '' using 1:6 with lines lw 1.5 dt 2 title '90% "
                                    "quantile', '' using 1:2 with lines lw 1 dt 3 lc rgb 'black' title 'eta(t)', '' using "
                                    "1:3 with lines lw 1 dt 4 lc rgb 'gray40' title 'sqrt(eta(t))'",
                                    format_number(p.horizon), title)});
    }
    {
        std::string d = "# rho drift j_prime\n";
        for (int i = 0; i <= 400; ++i) {
            const double r = -1.0 + i / 200.0;
            d += fmt::format("{:.10g} {:.10g} {:.10g}\n", r, F.drift(r), F.dj(r));
        }
        out.data_files.push_back({"fig_field.dat", d});
        std::string e = "# rho stable\n";
        for (const auto& q : phase.equilibria) e += fmt::format("{:.15g} {}\n", q.rho, q.stable ? 1 : 0);
        out.data_files.push_back({"fig_field_equilibria.dat", e});
        out.figures.push_back(
            {"fig_field", fmt::format("set title \"F(rho) = (1 - rho^2) j'(rho), {} field: {}\" noenhanced\n"
                                      "set xlabel 'rho'\nset ylabel 'F(rho)'\nset grid\nset key top left\nset xzeroaxis "
                                      "lt -1\nplot 'fig_field.dat' using 1:2 with lines lw 2 title 'F', "
                                      "'fig_field_equilibria.dat' using 1:($2 == 1 ? 0 : 1/0) with points pt 7 ps 1.8 "
                                      "lc rgb '#2ca02c' title 'stable', '' using 1:($2 == 0 ? 0 : 1/0) with points pt "
                                      "6 ps 1.8 lw 2 lc rgb '#d62728' title 'unstable'",
                                      F.name(), model_line(p))});
    }
    if (study_fit) {
        std::string d = "# eta0 sup_err_mean ci_lo ci_hi median\n";
        for (const auto& r : study_rows) d += fmt::format("{:.10g} {:.10g} {:.10g} {:.10g} {:.10g}\n", r[0], r[1], r[2], r[3], r[4]);
        out.data_files.push_back({"fig_study.dat", d});
        out.figures.push_back(
            {"fig_study",
             fmt::format("set title \"step-size study: sup tracking error, slope {:.3f} +- {:.3f}\" noenhanced\n"
                         "set logscale xy\nset xlabel 'eta_0'\nset ylabel 'mean sup_k |rho_k - rho_{{ODE}}(t_k)|'\nset grid\n"
                         "set key top left\nplot 'fig_study.dat' using 1:2:3:4 with yerrorbars pt 7 title 'mean, 95% CI', "
                         "exp({:.17g}) * x**{:.17g} with lines lw 2 title 'least-squares fit', "
                         "{:.17g} * (x / {:.17g})**0.5 with lines dt 2 lc rgb 'gray40' title 'slope 1/2 through the "
                         "smallest eta_0'",
                         study_fit->slope, study_fit->slope_se, study_fit->intercept, study_fit->slope,
                         study_rows.back()[1], study_rows.back()[0])});
    }
    return out;
}

std::vector<std::string> write_compare(const CompareResult& r, const std::filesystem::path& dir, bool render) {
    std::vector<std::string> lines;
    write_file_atomic(dir / "compare.json", r.doc.dump(2) + "\n");
    write_file_atomic(dir / "table.csv", to_csv(r.table));
    write_file_atomic(dir / "table.md", to_markdown(r.table));
    write_file_atomic(dir / "table.tex", to_latex(r.table));
    write_file_atomic(dir / "gap.csv", to_csv(r.gap_table));
    write_file_atomic(dir / "gap.md", to_markdown(r.gap_table));
    write_file_atomic(dir / "gap.tex", to_latex(r.gap_table));
    lines.push_back("compare.json; table.{csv,md,tex}; gap.{csv,md,tex}");
    if (!r.study_table.rows.empty()) {
        write_file_atomic(dir / "study.csv", to_csv(r.study_table));
        write_file_atomic(dir / "study.md", to_markdown(r.study_table));
        write_file_atomic(dir / "study.tex", to_latex(r.study_table));
        lines.push_back("study.{csv,md,tex}");
    }
    for (const auto& [name, content] : r.data_files) write_file_atomic(dir / name, content);
    for (auto& l : render_figures(dir, r.figures, render)) lines.push_back(l);
    return lines;
}

}  // namespace rhoflow
