#include "rhoflow/io/compare_output.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/version.hpp"

namespace rhoflow {

using nlohmann::json;

std::vector<std::string> compare_provenance(const CompareParams& p) {
    const auto& s = p.sga;
    return {fmt::format("rhoflow {}", version),
            describe(p.model),
            fmt::format("{} sampler, {} trials x {} steps, seed = {}", to_string(s.sampler), s.trials, s.steps, s.seed),
            fmt::format("eta_k = {} / (1 + k/{})^{}, {} update, rho0 = {}", format_number(s.schedule.eta0),
                        format_number(s.schedule.k0), format_number(s.schedule.gamma), to_string(s.update),
                        s.rho0 ? format_number(*s.rho0) : "uniform on the sphere"),
            fmt::format("ODE field = {}, horizon T = {}, hit level = {}", to_string(p.field), format_number(p.horizon),
                        format_number(1 - s.hit_eps))};
}

namespace {
TableCell cell(const std::optional<double>& v) { return v ? TableCell(*v) : TableCell(); }
}  // namespace

Table compare_table(const CompareResult& r) {
    Table t;
    t.caption = "ODE prediction against the SGA ensemble";
    t.meta = compare_provenance(r.params);
    t.label = "tab:rhoflow-compare";
    t.columns = {
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
    if (r.verdict)
        t.columns.insert(t.columns.begin() + 3, {{"rho_eff_ode", "rho eff. ODE", "$\\rho_{\\mathrm{eff}}$", "{:.5f}"},
                                                 {"pred_mean", "pred. mean", "$\\hat\\rho$", "{:.5f}"},
                                                 {"pred_q10", "pred. q10", "$\\hat q_{0.1}$", "{:.5f}"},
                                                 {"pred_q90", "pred. q90", "$\\hat q_{0.9}$", "{:.5f}"},
                                                 {"residual_z", "z", "$z$", "{:.2f}"}});
    for (const auto& w : r.table) {
        std::vector<TableCell> row = {static_cast<double>(w.step), w.t, w.rho_ode, w.rho_sga.mean, w.rho_sga.lo,
                                      w.rho_sga.hi, w.rho_sga_q10, w.rho_sga_median, w.rho_sga_q90, cell(w.gap_mean),
                                      cell(w.gap_q90), w.nuisance_mass_sga.mean, w.nuisance_mass_population};
        if (r.verdict)
            row.insert(row.begin() + 3, {cell(w.rho_eff_ode), cell(w.pred_mean), cell(w.pred_q10), cell(w.pred_q90),
                                         cell(w.residual_z)});
        t.rows.push_back(std::move(row));
    }
    return t;
}

Table gap_table(const CompareResult& r) {
    Table t;
    t.caption = fmt::format("Asymptotic-pseudotrajectory gap D_T(t), T = {}, across {} trials",
                            format_number(r.params.horizon), r.params.sga.trials);
    t.meta = compare_provenance(r.params);
    t.label = "tab:rhoflow-gap";
    t.columns = {{"step", "step k", "$k$", "{:.0f}"},       {"t", "t", "$t$", "{:.4g}"},
                 {"eta", "eta(t)", "$\\eta(t)$", "{:.3g}"},  {"gap_mean", "mean", "mean", "{:.3g}"},
                 {"gap_median", "median", "median", "{:.3g}"}, {"gap_q90", "q90", "$q_{0.9}$", "{:.3g}"},
                 {"gap_max", "max", "max", "{:.3g}"}};
    for (const auto& a : r.gap) t.rows.push_back({static_cast<double>(a.step), a.t, a.eta, a.mean, a.median, a.q90, a.max});
    return t;
}

Table study_table(const CompareResult& r) {
    Table t;
    if (!r.study) return t;
    const StepSizeStudy& s = *r.study;
    t.caption = fmt::format("Step-size study: sup over [0, {:.3g}] of |rho_k - rho_ODE(t_k)| from rho0 = {} (eta0 k0 fixed)",
                            s.horizon, format_number(s.rho0));
    t.meta = compare_provenance(r.params);
    t.label = "tab:rhoflow-study";
    t.columns = {{"eta0", "eta0", "$\\eta_0$", "{:.4g}"},
                 {"k0", "k0", "$k_0$", "{:.4g}"},
                 {"steps", "steps", "steps", "{:.0f}"},
                 {"sup_err_mean", "mean sup error", "mean $\\sup_k|\\rho_k-\\rho(t_k)|$", "{:.4g}"},
                 {"sup_err_ci95_lo", "95% CI lo", "CI$_{95}$ lo", "{:.4g}"},
                 {"sup_err_ci95_hi", "95% CI hi", "CI$_{95}$ hi", "{:.4g}"},
                 {"sup_err_median", "median", "median", "{:.4g}"}};
    for (const auto& w : s.rows)
        t.rows.push_back({w.eta0, w.k0, static_cast<double>(w.steps), w.sup_err.mean, w.sup_err.lo, w.sup_err.hi,
                          w.sup_err_median});
    return t;
}

json compare_document(const CompareResult& r) {
    json doc = provenance("compare");
    doc["model"] = r.params.model;
    doc.update(json(r));
    ensure_finite(doc);
    return doc;
}

namespace {
std::string ci_text(const std::optional<MeanCI>& c) {
    return c ? fmt::format("{:.4g} (95% CI [{:.4g}, {:.4g}])", c->mean, c->lo, c->hi) : std::string("not reached");
}
}  // namespace

std::string effective_markdown(const CompareResult& r) {
    if (!r.verdict || !r.effective) return "";
    const ConsistencyVerdict& v = *r.verdict;
    const EffectiveSummary& e = *r.effective;
    std::string md = fmt::format(
        "- effective dynamics (one-step moments at {} step sizes, {} paths): predicted mean |rho_final| = {:.5f} +- "
        "{:.5f}; predicted hitting time {}\n",
        e.tables.size(), e.params.prediction.paths, e.abs_rho_final.mean,
        std::hypot(e.abs_rho_final.se, e.abs_rho_final_err), ci_text(e.hit_time));
    md += fmt::format("- verdict: **{}** with the theory{} (largest |z| = {:.2f} at step {}, threshold {:.2f} for a "
                      "family-wise false-alarm rate of {}); this ensemble would detect a field error of {:.1f}%\n",
                      v.consistent ? "consistent" : "inconsistent",
                      v.field_scale == 1.0 ? "" : fmt::format(" (field scaled by {})", format_number(v.field_scale)),
                      v.max_abs_z, v.worst_step, v.threshold_z, format_number(v.alpha), 100 * v.detectable_field_error);
    return md;
}

std::string compare_markdown(const CompareResult& r) {
    const auto& s = r.summary;
    const auto& h = r.hitting_time;
    std::string md = "## rhoflow compare\n\n" + to_markdown(compare_table(r)) + "\n";
    md += fmt::format("- mean |rho_final| = {:.5f} (95% CI [{:.5f}, {:.5f}]); ODE predicts {:.5f}\n",
                      s.abs_rho_final.mean, s.abs_rho_final.lo, s.abs_rho_final.hi, std::abs(r.rho_ode_final));
    if (r.params.sga.trials == 2)
        md += "- note: 2 trials: each 95% CI is the mean +- 12.7 standard errors (Student t, 1 degree of freedom), "
              "clipped to the quantity's range\n";
    md += fmt::format("- hitting time of |rho| >= {}: ODE {} ; SGA {} ({} of {} trials)\n", h.level, ci_text(h.ode),
                      ci_text(h.sga), h.sga_hits, h.trials);
    md += fmt::format("- tracking error sup_k |rho_k - rho_ODE(t_k)|: mean {:.4g} (95% CI [{:.4g}, {:.4g}])\n",
                      r.tracking_error.mean, r.tracking_error.lo, r.tracking_error.hi);
    if (r.gap_fit)
        md += fmt::format("- D_T(t), T = {}: from {:.3g} at t = {:.3g} to {:.3g} at t = {:.3g}; log-log slope against "
                          "eta(t) = {:.3f} +- {:.3f} (over t >= {:.3g})\n",
                          format_number(r.params.horizon), r.gap.front().mean, r.gap.front().t, r.gap.back().mean,
                          r.gap.back().t, r.gap_fit->fit.slope, r.gap_fit->fit.slope_se, r.gap_fit->from_t);
    if (r.study)
        md += fmt::format("- step-size study: sup tracking error ~ eta0^{:.3f} (+- {:.3f}) over all eta0, ^{:.3f} (+- "
                          "{:.3f}) over the {} smallest; theory: about 1/2 for small eta0\n",
                          r.study->fit.slope, r.study->fit.slope_se, r.study->fit_small_eta0.slope,
                          r.study->fit_small_eta0.slope_se, r.study->fit_small_eta0.n);
    md += effective_markdown(r);
    if (!r.warning.empty()) md += "- warning: " + r.warning + "\n";
    if (!r.phase.monotone && !r.phase.flat)
        md += fmt::format("- note: the field is not monotone ({} equilibria); see compare.json \"phase\"\n",
                          r.phase.equilibria.size());
    return md;
}

std::vector<std::string> write_compare(const CompareResult& r, const std::filesystem::path& dir, bool render,
                                       const FigureParams& figure, const std::string& label_stem) {
    std::vector<std::string> lines;
    json doc = compare_document(r);
    doc["params"]["figure"] = figure;  // as the job's document has it (experiment/jobs.hpp)
    write_file_atomic(dir / "compare.json", doc.dump(2) + "\n");
    auto write_table = [&](const Table& t, const std::string& stem) {
        write_file_atomic(dir / (stem + ".csv"), to_csv(t));
        write_file_atomic(dir / (stem + ".md"), to_markdown(t));
        write_file_atomic(dir / (stem + ".tex"), to_latex(t));
    };
    write_table(compare_table(r), "table");
    write_table(gap_table(r), "gap");
    lines.push_back("compare.json; table.{csv,md,tex}; gap.{csv,md,tex}");
    if (r.study) {
        write_table(study_table(r), "study");
        lines.push_back("study.{csv,md,tex}");
    }
    const CompareFigures figs = compare_figures(r, figure);
    for (const auto& [name, content] : figs.data) write_file_atomic(dir / name, content);
    for (auto& l : render_figures(dir, figs.figures, render, figure, label_stem)) lines.push_back(l);
    return lines;
}

}  // namespace rhoflow
