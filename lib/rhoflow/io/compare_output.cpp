#include "rhoflow/io/compare_output.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/io/uncertain.hpp"
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
    const std::string sga = "over the SGA trials at step k";
    t.columns = {
        {"step", "step k", "$k$", "{:.0f}", "SGA step k of the row", kSteps, true},
        {"t", "t", "$t_k$", "{:.4g}", "ODE time t_k of step k", kOdeTime},
        {"rho_ode", "rho ODE", "$\\rho_{\\mathrm{ODE}}$", "{:.5f}",
         "rho = <q, xi> of the mean-field ODE at t_k from each trial's start, mean over trials", kUnitless},
        {"rho_sga_mean", "rho SGA mean", "$\\bar\\rho_{\\mathrm{SGA}}$", "{:.5f}", "mean of rho_k " + sga, kUnitless},
        {"rho_sga_ci95_lo", "95% CI lo", "CI$_{95}$ lo", "{:.5f}",
         "lower end of the SGA mean's 95% confidence interval (Student t, clipped to [-1, 1])", kUnitless},
        {"rho_sga_ci95_hi", "95% CI hi", "CI$_{95}$ hi", "{:.5f}",
         "upper end of the SGA mean's 95% confidence interval (Student t, clipped to [-1, 1])", kUnitless},
        {"ode_z", "z ODE", "$z_{\\mathrm{ODE}}$", "{:.2f}",
         "(SGA mean - rho ODE) / the SGA mean's standard error; empty where that error is 0", kUnitless},
        {"rho_sga_q10", "q10", "$q_{0.1}$", "{:.5f}", "10% quantile of rho_k " + sga, kUnitless},
        {"rho_sga_q50", "median", "$q_{0.5}$", "{:.5f}", "median of rho_k " + sga, kUnitless},
        {"rho_sga_q90", "q90", "$q_{0.9}$", "{:.5f}", "90% quantile of rho_k " + sga, kUnitless},
        {"gap_mean", "D_T mean", "$\\bar D_T$", "{:.3g}",
         "pseudotrajectory gap D_T anchored at step k (largest |rho - ODE flow| over the next T of ODE time), mean "
         "over trials; empty if its window did not fit",
         kUnitless},
        {"gap_q90", "D_T q90", "$D_T$ $q_{0.9}$", "{:.3g}", "90% quantile over trials of D_T anchored at step k",
         kUnitless},
        {"nuisance_mass_sga", "nuisance mass SGA", "$1-A_I$ SGA", "{:.5f}",
         "attention mass on the nuisance tokens, 1 - A_I, of a fresh sample, mean " + sga, kUnitless},
        {"nuisance_mass_population", "nuisance mass pop.", "$1-\\mathbb{E}A_I$", "{:.5f}",
         "population attention mass on the nuisance tokens, 1 - E[A_I], at rho ODE (exact field), mean over trials",
         kUnitless},
    };
    if (r.verdict)
        t.columns.insert(
            t.columns.begin() + 3,
            {{"rho_eff_ode", "rho eff. ODE", "$\\rho_{\\mathrm{eff}}$", "{:.5f}",
              "rho of the effective (finite-step) ODE d rho/dt = a(rho; eta(t)) at t_k from the trials' start", kUnitless},
             {"pred_mean", "pred. mean", "$\\hat\\rho$", "{:.5f}", "the effective chain's predicted mean of rho_k",
              kUnitless},
             {"pred_q10", "pred. q10", "$\\hat q_{0.1}$", "{:.5f}", "the effective chain's predicted 10% quantile of rho_k",
              kUnitless},
             {"pred_q90", "pred. q90", "$\\hat q_{0.9}$", "{:.5f}", "the effective chain's predicted 90% quantile of rho_k",
              kUnitless},
             {"residual_z", "z", "$z$", "{:.2f}",
              "(SGA mean - predicted mean) / the predicted standard error of the SGA mean (docs/theory.md (9.6))",
              kUnitless}});
    for (const auto& w : r.table) {
        std::vector<TableCell> row = {static_cast<double>(w.step), w.t, w.rho_ode, w.rho_sga.mean, w.rho_sga.lo,
                                      w.rho_sga.hi, cell(w.ode_z), w.rho_sga_q10, w.rho_sga_median, w.rho_sga_q90, cell(w.gap_mean),
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
    const std::string over = "over trials of D_T anchored at step k (largest |rho - ODE flow| over the next T of ODE time)";
    t.columns = {{"step", "step k", "$k$", "{:.0f}", "anchor step k", kSteps, true},
                 {"t", "t", "$t$", "{:.4g}", "ODE time t_k of the anchor", kOdeTime},
                 {"eta", "eta(t)", "$\\eta(t)$", "{:.3g}", "step size eta_k in force at the anchor", kStepSize},
                 {"gap_mean", "mean", "mean", "{:.3g}", "mean " + over, kUnitless},
                 {"gap_median", "median", "median", "{:.3g}", "median " + over, kUnitless},
                 {"gap_q90", "q90", "$q_{0.9}$", "{:.3g}", "90% quantile " + over, kUnitless},
                 {"gap_max", "max", "max", "{:.3g}", "largest " + over, kUnitless}};
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
    t.meta.push_back(fmt::format("step-size study: {} trials per eta0 over ODE time [0, {}] (the ensemble line above is "
                                 "the main comparison's)",
                                 s.trials, format_number(s.horizon)));
    t.label = "tab:rhoflow-study";
    const std::string sup = "sup over ODE times [0, t_study] of |rho_k - rho_ODE(t_k)| from the shared start";
    t.columns = {{"eta0", "eta0", "$\\eta_0$", "{:.4g}", "initial step size eta_0 of the row's schedule", kStepSize},
                 {"k0", "k0", "$k_0$", "{:.4g}", "decay onset k_0 of the schedule (eta_0 k_0 fixed across rows)", kSteps},
                 {"steps", "steps", "steps", "{:.0f}", "SGA steps to reach the ODE time t_study", kSteps, true},
                 {"sup_err_mean", "mean sup error", "mean $\\sup_k|\\rho_k-\\rho(t_k)|$", "{:.4g}", "mean over trials of the " + sup,
                  kUnitless},
                 {"sup_err_ci95_lo", "95% CI lo", "CI$_{95}$ lo", "{:.4g}",
                  "lower end of the 95% confidence interval of that mean (Student t, clipped to [0, 2])", kUnitless},
                 {"sup_err_ci95_hi", "95% CI hi", "CI$_{95}$ hi", "{:.4g}",
                  "upper end of the 95% confidence interval of that mean (Student t, clipped to [0, 2])", kUnitless},
                 {"sup_err_median", "median", "median", "{:.4g}", "median over trials of the " + sup, kUnitless}};
    for (const auto& w : s.rows)
        t.rows.push_back({w.eta0, w.k0, static_cast<double>(w.steps), w.sup_err.mean, w.sup_err.lo, w.sup_err.hi,
                          w.sup_err_median});
    return t;
}

namespace {

UncertainStyle style_of(bool latex) { return latex ? UncertainStyle::latex : UncertainStyle::markdown; }

// A number inside LaTeX math (format_exact's "$...$" without the dollars).
std::string math(double v, int digits) {
    const std::string x = format_exact(v, digits, UncertainStyle::latex);
    return x.substr(1, x.size() - 2);
}

// "name = value" in a caption: "$d = 50$" (LaTeX) or "d = 50" (Markdown).
std::string eq(const char* tex, const char* md, double v, bool latex) {
    if (!latex) return fmt::format("{} = {}", md, format_exact(v, 6, UncertainStyle::markdown));
    return fmt::format("${} = {}$", tex, math(v, 6));
}

std::string schedule_sentence(const StepSchedule& s, bool latex) {
    const std::string e0 = format_exact(s.eta0, 6, UncertainStyle::plain);
    const std::string k0 = format_exact(s.k0, 6, UncertainStyle::plain);
    if (s.gamma == 0) return latex ? fmt::format("$\\eta = {}$", e0) : fmt::format("η = {}", e0);
    const std::string g = s.gamma == 1 ? "" : format_exact(s.gamma, 6, UncertainStyle::plain);
    if (latex) return fmt::format("$\\eta_k = {}/(1 + k/{}){}$", e0, k0, g.empty() ? "" : "^{" + g + "}");
    return fmt::format("η_k = {}/(1 + k/{}){}", e0, k0, g.empty() ? "" : "^" + g);
}

// How the distance to the ODE shrinks with the step: the study's slope, "" without a study.
std::string study_clause(const CompareResult& r, bool latex) {
    if (!r.study || r.study->rows.size() < 2) return "";
    const std::string slope = format_uncertain(r.study->fit.slope, 1.959963984540054 * r.study->fit.slope_se,
                                               latex ? UncertainStyle::latex : UncertainStyle::markdown);
    return latex ? fmt::format("; it shrinks with the step: the step-size study's largest distance falls as "
                               "$\\eta_0^{{s}}$ with $s = {}$ (95\\% half-width)",
                               slope.size() > 2 && slope.front() == '$' ? slope.substr(1, slope.size() - 2) : slope)
                 : fmt::format("; it shrinks with the step: the step-size study's largest distance falls as η0^s with "
                               "s = {} (95% half-width)",
                               slope);
}

// The ODE's agreement as a caption sentence (r.ode.explanation's content, typeset; empty when no
// row has an SGA error).
std::string ode_agreement_sentence(const CompareResult& r, bool latex) {
    const OdeAgreement& a = r.ode;
    if (a.rows == 0) return "";
    const std::string pct = latex ? "95\\%" : "95%";
    const std::string z = latex ? "$|z_{\\mathrm{ODE}}| = " + math(a.max_abs_z, 3) + "$"
                                : "|z_ODE| = " + format_exact(a.max_abs_z, 3, UncertainStyle::markdown);
    if (a.outside == 0)
        return fmt::format(" The mean-field ODE lies inside the SGA mean's {} confidence interval at all {} rows "
                           "(largest {}).",
                           pct, a.rows, z);
    const std::string t0 = latex ? "$t = " + math(*a.first_outside_t, 3) + "$"
                                 : "t = " + format_exact(*a.first_outside_t, 3, UncertainStyle::markdown);
    const bool bias = r.verdict && r.verdict->consistent && r.params.field_scale == 1.0;
    return fmt::format(" The mean-field ODE lies outside the SGA mean's {} confidence interval at {} of {} rows (the "
                       "first at {}; largest {}){}",
                       pct, a.outside, a.rows, t0, z,
                       bias ? fmt::format(": the {} bias of SGA's finite steps, which the prediction includes{}.",
                                          latex ? "$O(\\eta)$" : "O(η)", study_clause(r, latex))
                            : ".");
}

// Columns of the source table of compare_paper_table: the full table plus the prediction's
// 95% half-width for the SGA mean, so that every paper column is a lookup.
Table compare_source(const CompareResult& r) {
    Table t = compare_table(r);
    if (!r.verdict) {
        for (const char* k : {"rho_eff_ode", "pred_mean", "residual_z"}) t.columns.push_back({k, k, k, "{}"});
        for (auto& row : t.rows) row.insert(row.end(), 3, TableCell{});
    }
    t.columns.push_back({"pred_hw", "", "", "{}"});
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const auto& se = r.table[i].pred_se;
        if (se)
            t.rows[i].emplace_back(1.959963984540054 * *se);
        else
            t.rows[i].emplace_back();  // (not a ternary: GCC 12 then warns of an uninitialized string)
    }
    return t;
}

}  // namespace

std::string compare_parameters_sentence(const CompareParams& p, bool latex) {
    const auto& m = p.model;
    const auto& s = p.sga;
    const std::string rho0 = s.rho0 ? (latex ? eq("\\rho_0", "ρ0", *s.rho0, true) : eq("", "ρ0", *s.rho0, false))
                                    : std::string(latex ? "$\\rho_0$ uniform on the sphere" : "ρ0 uniform on the sphere");
    return fmt::format("{} trials of {} steps ({} sampler, {} update, {}, {}, seed {}) for {}, {}, {}, {}, {}, {}",
                       s.trials, format_exact(static_cast<double>(s.steps), 17, style_of(latex)), to_string(s.sampler),
                       to_string(s.update), schedule_sentence(s.schedule, latex), rho0, s.seed,
                       eq("d", "d", static_cast<double>(m.d), latex), eq("L", "L", static_cast<double>(m.L), latex),
                       eq("R", "R", static_cast<double>(m.R), latex), eq("\\theta", "θ", m.theta, latex),
                       eq("\\sigma", "σ", m.sigma, latex), eq("\\beta", "β", m.beta, latex));
}

namespace {
// What a column of the compare table shows, for its caption ("" for none).
std::string column_meaning(const std::string& key, const CompareResult& r, bool latex) {
    const std::string trials = std::to_string(r.params.sga.trials);
    if (key == "step") return latex ? "$k$: the SGA step" : "k: the SGA step";
    if (key == "t") return latex ? "$t$: the ODE time $t_k = \\sum_{i<k} \\eta_i$" : "t: the ODE time t_k = Σ_{i<k} η_i";
    if (key == "rho_ode") return "ODE: the mean-field ODE's $\\rho$ (exact: no error)";
    if (key == "rho_eff") return "eff.: the effective (finite-step) ODE";
    if (key == "pred")
        return "pred.: the effective dynamics' prediction of the SGA mean ($\\pm$ where the SGA mean should fall)";
    if (key == "sga") return "SGA: the mean $\\rho$ of " + trials + " SGA trials";
    if (key == "median") return "med.: their median";
    if (key == "z") return "$z$: the SGA mean's residual from the prediction in predicted standard errors";
    if (key == "z_ode") return "$z_{\\mathrm{ODE}}$: its residual from the mean-field ODE in its own standard errors";
    if (key == "gap_mean") return "$\\bar D_T$: the mean gap $D_T$ over the trials";
    if (key == "nuisance") return "$1 - A_I$: the SGA's attention mass on the nuisance tokens";
    return "";
}

// The caption's list of the shown columns: "t: the ODE time ...; ODE the ...".
std::string column_meanings(const std::vector<PaperColumn>& cols, const CompareResult& r, bool latex) {
    std::string s;
    for (const auto& c : cols) {
        std::string m = column_meaning(c.key, r, latex);
        if (!latex) {  // the Markdown caption: the same words without TeX
            for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
                     {"$\\pm$", "±"}, {"$\\rho$", "ρ"}, {"\\ ", " "}, {"$z_{\\mathrm{ODE}}$", "z_ODE"}, {"$z$", "z"},
                     {"$k$", "k"}, {"$\\bar D_T$", "mean D_T"}, {"$D_T$", "D_T"}, {"$1 - A_I$", "1 − A_I"}})
                for (auto at = m.find(from); at != std::string::npos; at = m.find(from, at + to.size()))
                    m.replace(at, from.size(), to);
        }
        if (!m.empty()) s += (s.empty() ? "" : "; ") + m;
    }
    return s;
}

}  // namespace

PaperTable compare_paper_table(const CompareResult& r, const std::string& stem, const TableWidth* width) {
    const std::vector<PaperColumn> all = {
        {"step", "step k", "$k$", "step", "", "", "", 17, -1, false},
        {"t", "t_k", "$t$", "t", "", "", "", 4, -1, false},
        {"rho_ode", "ρ ODE", "ODE", "rho_ode", "", "", "", 5, 4, false},
        {"rho_eff", "ρ effective ODE", "eff.", "rho_eff_ode", "", "", "", 5, 4, false},
        {"pred", "predicted mean", "pred.", "pred_mean", "pred_hw", "", "", 5, 4, false},
        {"sga", "SGA mean", "SGA", "rho_sga_mean", "", "rho_sga_ci95_lo", "rho_sga_ci95_hi", 5, 4, false},
        {"median", "SGA median", "med.", "rho_sga_q50", "", "", "", 4, 4, true},
        {"z", "z", "$z$", "residual_z", "", "", "", 3, 2, false},
        {"z_ode", "z ODE", "$z_{\\mathrm{ODE}}$", "ode_z", "", "", "", 3, 2, false},
        {"gap_mean", "mean D_T", "$\\bar D_T$", "gap_mean", "", "", "", 3, -1, true},
        {"nuisance", "nuisance mass", "$1 - A_I$", "nuisance_mass_sga", "", "", "", 4, -1, true},
    };
    const Table source = compare_source(r);
    std::vector<PaperColumn> cols;
    if (!r.params.table_columns.empty() || !width) {  // the user's columns, or the terminal's
        const std::vector<std::string> terminal =
            r.verdict ? std::vector<std::string>{"t", "rho_ode", "pred", "sga", "z"} : std::vector<std::string>{"t", "rho_ode", "sga"};
        cols = select_columns(all, r.params.table_columns, terminal, "table_columns");
        if (!width)  // the terminal prints an exact mean as before ("0.1"; the paper: "0.1000", as the ODE's)
            for (auto& c : cols) c.decimals = c.key == "sga" || c.key == "pred" ? -1 : c.decimals;
    } else if (r.verdict) {
        cols = fitting_columns(all, width->page ? std::vector<std::vector<std::string>>{{"t", "rho_ode", "rho_eff", "pred", "sga", "z", "z_ode"}}
                                            : std::vector<std::vector<std::string>>{{"t", "rho_ode", "sga", "z", "z_ode"},
                                                                                    {"t", "rho_ode", "sga", "z_ode"}},
                           source, *width);
    } else {
        cols = fitting_columns(all, width->page ? std::vector<std::vector<std::string>>{{"t", "rho_ode", "sga", "median", "z_ode"}}
                                            : std::vector<std::vector<std::string>>{{"t", "rho_ode", "sga", "z_ode"}},
                           source, *width);
    }
    const bool predicted = std::any_of(cols.begin(), cols.end(), [](const PaperColumn& c) {
        return c.key == "pred" || c.key == "rho_eff" || c.key == "z";
    });
    auto caption = [&](bool latex) {
        return fmt::format("Alignment {} at ODE times {}: the mean-field ODE{} and the mean of {}. Columns: {}. Every "
                           "{} is a 95{} confidence half-width.",
                           latex ? "$\\rho$" : "ρ", latex ? "$t_k$" : "t_k",
                           predicted ? ", the effective (finite-step) prediction" : "",
                           compare_parameters_sentence(r.params, latex), column_meanings(cols, r, latex),
                           latex ? "$\\pm$" : "±", latex ? "\\%" : "%") +
               (!r.params.sga.rho0 ? ""
                : latex ? " At $t = 0$ every trial starts at $\\rho_0$: the SGA mean is exact (no $\\pm$) and its $z$ "
                          "is --- (none)."
                        : " At t = 0 every trial starts at ρ0: the SGA mean is exact (no ±) and its z is — (none).") +
               ode_agreement_sentence(r, latex);
    };
    PaperTable t = paper_table(source, cols, caption(true), caption(false), paper_label(stem, "compare"));
    t.page = width && (width->page || !fits(t, *width));
    return t;
}

PaperTable gap_paper_table(const CompareResult& r, const std::string& stem, const TableWidth& width) {
    std::vector<PaperColumn> cols = {
        {"t", "t", "$t$", "t", "", "", "", 4, -1, false},
        {"eta", "η(t)", "$\\eta(t)$", "eta", "", "", "", 3, -1, true},
        {"mean", "mean D_T", "mean", "gap_mean", "", "", "", 3, -1, true},
        {"median", "median D_T", "median", "gap_median", "", "", "", 3, -1, true},
        {"q90", "90% quantile of D_T", "90\\%", "gap_q90", "", "", "", 3, -1, true},
        {"max", "max D_T", "max", "gap_max", "", "", "", 3, -1, true},
    };
    auto caption = [&](bool latex) {
        return fmt::format("Asymptotic-pseudotrajectory gap {} over windows of ODE time {} from ODE time {}, across the "
                           "trials: its mean, median, 90{} quantile and largest value over the trials (3 significant "
                           "digits; statistics of the trials, no error), beside the step size {}; {}.",
                           latex ? "$D_T(t)$" : "D_T(t)", eq("T", "T", r.params.horizon, latex), latex ? "$t$" : "t",
                           latex ? "\\%" : "%", latex ? "$\\eta(t)$" : "η(t)", compare_parameters_sentence(r.params, latex));
    };
    PaperTable t = paper_table(gap_table(r), cols, caption(true), caption(false), paper_label(stem, "gap"));
    t.page = width.page || !fits(t, width);
    return t;
}

PaperTable study_paper_table(const CompareResult& r, const std::string& stem, const TableWidth& width) {
    const std::vector<PaperColumn> cols = {
        {"eta0", "η0", "$\\eta_0$", "eta0", "", "", "", 4, -1, false},
        {"k0", "k0", "$k_0$", "k0", "", "", "", 4, -1, false},
        {"steps", "steps", "steps", "steps", "", "", "", 17, -1, false},
        {"sup", "mean sup error", "mean $S$", "sup_err_mean", "", "sup_err_ci95_lo", "sup_err_ci95_hi", 4, -1},
        {"median", "median", "median $S$", "sup_err_median", "", "", "", 3, -1, true},
    };
    const StepSizeStudy& s = *r.study;
    const auto& m = r.params.model;
    auto caption = [&](bool latex) {
        const double hw = 1.959963984540054 * s.fit.slope_se;
        const std::string fit = format_uncertain(s.fit.slope, hw, latex ? UncertainStyle::latex : UncertainStyle::markdown);
        return fmt::format(
            "Step-size study: the largest distance {} between an SGA trial and the ODE over {}, from {}, for step "
            "sizes {} with {} fixed; mean of {} trials per {} {} the 95{} confidence half-width, and the "
            "median; {}, {}, {}, {}, {}, {}. Fitted log-log slope against {}: {} ({} the 95{} confidence half-width, "
            "1.96 standard errors).",
            latex ? "$S = \\sup_k |\\rho_k - \\rho_{\\mathrm{ODE}}(t_k)|$" : "S = sup_k |ρ_k − ρ_ODE(t_k)|",
            latex ? fmt::format("$[0, {}]$", math(s.horizon, 4))
                  : fmt::format("[0, {}]", format_exact(s.horizon, 4, UncertainStyle::markdown)),
            eq("\\rho_0", "ρ0", s.rho0, latex), latex ? "$\\eta_k = \\eta_0/(1 + k/k_0)$" : "η_k = η0/(1 + k/k0)",
            latex ? "$\\eta_0 k_0$" : "η0 k0", s.trials, latex ? "$\\eta_0$" : "η0", latex ? "$\\pm$" : "±",
            latex ? "\\%" : "%", eq("d", "d", static_cast<double>(m.d), latex),
            eq("L", "L", static_cast<double>(m.L), latex), eq("R", "R", static_cast<double>(m.R), latex),
            eq("\\theta", "θ", m.theta, latex), eq("\\sigma", "σ", m.sigma, latex), eq("\\beta", "β", m.beta, latex),
            latex ? "$\\eta_0$" : "η0", fit, latex ? "$\\pm$" : "±", latex ? "\\%" : "%");
    };
    PaperTable t = paper_table(study_table(r), cols, caption(true), caption(false), paper_label(stem, "study"));
    t.page = width.page || !fits(t, width);
    return t;
}

json compare_document(const CompareResult& r, const Provenance& provenance) {
    json doc = provenance;
    doc["model"] = r.params.model;
    doc.update(json(r));
    ensure_finite(doc);
    return doc;
}

namespace {
// A mean with its 95% CI; a mean without spread (every value the same, e.g. the ODE from one
// start for every trial) alone, said so, rather than as a zero-width interval.
std::string ci_text(const std::optional<MeanCI>& c) {
    if (!c) return "not reached";
    if (c->n == 1) return fmt::format("{:.4g} (one trial)", c->mean);
    if (c->se == 0 && c->lo == c->hi) return fmt::format("{:.4g} (the same for every trial)", c->mean);
    return fmt::format("{:.4g} (95% CI [{:.4g}, {:.4g}])", c->mean, c->lo, c->hi);
}
}  // namespace

namespace {
std::string basin_interval(const BasinOutcome& b) {
    return fmt::format("{}{:.6g}, {:.6g}{}", b.from_closed ? "[" : "(", b.from, b.to, b.to_closed ? "]" : ")");
}
std::string percent(double level) { return format_number(100 * level) + "%"; }
}  // namespace

std::vector<std::string> outcome_lines(const OutcomeSummary& o) {
    std::vector<std::string> lines;
    if (o.trials == 0) return lines;  // none computed (a document older than the outcome statistics)
    if (o.basins.empty()) {
        lines.push_back("outcomes: the phase portrait has no basin (the field is flat within its error): no trial is "
                        "assigned to an attractor");
        return lines;
    }
    lines.push_back(fmt::format("outcomes by ODE basin of rho_final ({} trials; fractions with {} Wilson intervals, "
                                "means +- standard errors{}):",
                                o.trials, percent(o.level), o.rho0 ? "" : "; P(uniform) = exact probability of the basin for a query uniform on the sphere"));
    for (const BasinOutcome& b : o.basins) {
        std::string l = fmt::format("  basin of {:.6g} {}{}: {} of {} trials, fraction {:.4f} [{:.4f}, {:.4f}]",
                                    b.attractor, basin_interval(b), b.kind == EquilibriumKind::attractor ? "" : " (" + std::string(to_string(b.kind)) + ")", b.count,
                                    o.trials, b.fraction, b.fraction_lo, b.fraction_hi);
        if (b.count == 1) l += fmt::format("; rho_final {:.6f} (one trial: no standard error)", b.rho_final.mean);
        if (b.count > 1) l += fmt::format("; rho_final mean {:.6f} +- {:.6f}", b.rho_final.mean, b.rho_final.se);
        if (b.count > 1) l += fmt::format(", sd {:.6f} +- {:.6f}", b.sd, b.sd_se);
        if (b.uniform_probability) l += fmt::format("; P(uniform) = {:.6g}", *b.uniform_probability);
        lines.push_back(l);
    }
    if (o.unassigned > 0)
        lines.push_back(fmt::format("  {} of {} trials ended in no basin (exactly at a repeller)", o.unassigned, o.trials));
    if (o.rho0) {
        const BasinOutcome* in = nullptr;
        for (const auto& b : o.basins)
            if (b.contains_rho0) in = &b;
        lines.push_back(in ? fmt::format("  rho0 = {} lies in the ODE basin of {:.6g}, {}: at small steps SGA ends there",
                                         format_number(*o.rho0), in->attractor, basin_interval(*in))
                           : fmt::format("  rho0 = {} lies in no ODE basin (it is a repeller)", format_number(*o.rho0)));
    }
    return lines;
}

namespace {
// The chain's predicted outcomes beside the trials': hit-time quantiles, a hit that is a rare
// excursion of the chain, and the basin fractions.
std::string predicted_outcomes_markdown(const CompareResult& r) {
    const EffectiveSummary& e = *r.effective;
    const HittingTimes& h = r.hitting_time;
    std::string md;
    if (e.hit_time_quantiles.size() == 3)
        md += fmt::format("- predicted hitting time of {}: quantiles 10/50/90% = {:.4g} / {:.4g} / {:.4g}\n",
                          format_number(h.level), e.hit_time_quantiles[0], e.hit_time_quantiles[1],
                          e.hit_time_quantiles[2]);
    if (e.hit_fraction == 0)
        md += fmt::format("- the chain's {} paths never reach |rho| >= {} ({} of {} trials did)\n",
                          e.params.prediction.paths, format_number(h.level), h.sga_hits, h.trials);
    else if (e.hit_fraction < 0.1)
        md += fmt::format("- reaching |rho| >= {} is a rare excursion of the chain: predicted for a fraction {:.3g} of "
                          "trials ({} of {} did)\n",
                          format_number(h.level), e.hit_fraction, h.sga_hits, h.trials);
    if (e.basin_fractions.size() == r.outcomes.basins.size() && e.basin_fractions.size() > 1) {
        std::string parts;
        for (std::size_t i = 0; i < e.basin_fractions.size(); ++i)
            parts += fmt::format("{}{:.6g}: {:.3g} (SGA {} of {})", i ? "; " : "", r.outcomes.basins[i].attractor,
                                 e.basin_fractions[i], r.outcomes.basins[i].count, r.outcomes.trials);
        md += "- predicted basin fractions at this step size (ODE basins): " + parts + "\n";
    }
    return md;
}
}  // namespace

std::string effective_markdown(const CompareResult& r) {
    if (!r.verdict || !r.effective) return "";
    const ConsistencyVerdict& v = *r.verdict;
    const EffectiveSummary& e = *r.effective;
    std::string md = fmt::format(
        "- effective dynamics (one-step moments at {} step sizes, {} paths): predicted mean |rho_final| = {} "
        "(95% half-width); predicted hitting time {}\n",
        e.tables.size(), e.params.prediction.paths,
        format_uncertain(e.abs_rho_final.mean, 1.959963984540054 * std::hypot(e.abs_rho_final.se, e.abs_rho_final_err),
                         UncertainStyle::markdown),
        ci_text(e.hit_time));
    if (v.parts.empty())  // a document from before the verdict in parts: the means decided
        md += fmt::format("- verdict: **{}** with the theory{} (largest |z| = {:.2f} at step {}, threshold {:.2f} for a "
                          "family-wise false-alarm rate of {}); this ensemble would detect a field error of {:.1f}%\n",
                          v.consistent ? "consistent" : "inconsistent",
                          v.field_scale == 1.0 ? "" : fmt::format(" (field scaled by {})", format_number(v.field_scale)),
                          v.max_abs_z, v.worst_step, v.threshold_z, format_number(v.alpha),
                          100 * v.detectable_field_error);
    else
        md += fmt::format("- verdict: **{}** with the theory{} (Holm over {} tests at a family-wise false-alarm rate of "
                          "{}; the means' largest |z| = {:.2f} at step {} is a guide, the p-values decide); this "
                          "ensemble would detect a field error of {:.1f}%\n",
                          v.consistent ? "consistent" : "inconsistent",
                          v.field_scale == 1.0 ? "" : fmt::format(" (field scaled by {})", format_number(v.field_scale)),
                          v.tests.size(), format_number(v.alpha), v.max_abs_z, v.worst_step,
                          100 * v.detectable_field_error);
    md += predicted_outcomes_markdown(r);
    if (v.parts.empty()) return md;  // a document from before the verdict in parts
    md += fmt::format("- verdict in parts{}: {}\n",
                      v.diffusion_scale == 1.0 ? "" : fmt::format(" (diffusion scaled by {})", format_number(v.diffusion_scale)),
                      v.explanation);
    for (const VerdictPart& p : v.parts)
        md += fmt::format("  - {} ({}): {} test{}, {} rejected; smallest p = {:.3g} ({})\n", p.name, p.about, p.tests,
                          p.tests == 1 ? "" : "s", p.rejected, p.min_p_value, p.worst);
    return md;
}

std::string compare_markdown(const CompareResult& r) {
    const auto& s = r.summary;
    const auto& h = r.hitting_time;
    // The compact table of table.md (its columns, each value rounded to its error), without its
    // caption: a terminal is 80-100 characters wide, the CSV's 19 columns are not.
    const PaperTable compact = compare_paper_table(r, "terminal");
    Table shown;
    shown.caption = fmt::format("The mean-field ODE{} and the SGA mean at log-spaced ODE times t_k (table.md: with every "
                                "parameter)",
                                r.verdict ? ", the finite-step prediction" : "");
    for (std::size_t c = 0; c < compact.headers_markdown.size(); ++c)
        shown.columns.push_back({fmt::format("c{}", c), compact.headers_markdown[c], "", "{}"});
    for (const auto& row : compact.markdown) shown.rows.emplace_back(row.begin(), row.end());
    std::string md = "## rhoflow compare\n\n" + to_markdown(shown) + "\n";
    md += fmt::format("± are 95% half-widths{}. Every column (quantiles, D_T, nuisance mass, the ODE's residual ode_z): "
                      "table.csv, or --json.\n\n",
                      r.verdict ? " (the prediction's: where the SGA mean should fall); z = (SGA mean − predicted mean) / "
                                  "predicted SE"
                                : "");
    md += fmt::format("- mean |rho_final| = {:.5f} (95% CI [{:.5f}, {:.5f}]); the ODE ends at {}\n",
                      s.abs_rho_final.mean, s.abs_rho_final.lo, s.abs_rho_final.hi,
                      format_exact(r.abs_rho_ode_final, 5, UncertainStyle::markdown, [] {
                          UncertainOptions o;
                          o.trailing_zeros = true;
                          return o;
                      }()));
    if (r.params.sga.trials == 2)
        md += "- note: 2 trials: each 95% CI is the mean +- 12.7 standard errors (Student t, 1 degree of freedom), "
              "clipped to the quantity's range\n";
    md += fmt::format("- hitting time of |rho| >= {} in ODE time (by the run's end, t = {:.4g}): ODE {} ; SGA {} ({} of {} "
                      "trials)\n",
                      h.level, r.t_final, ci_text(h.ode), ci_text(h.sga), h.sga_hits, h.trials);
    if (h.sga_plateau && h.sga_plateau_after)
        md += fmt::format("- plateau time: the SGA mean |rho| has risen 90% of the way from its start to "
                          "its final value between t = {:.4g} and {:.4g} (two records)\n",
                          *h.sga_plateau_after, *h.sga_plateau);
    md += fmt::format("- tracking error sup_k |rho_k - rho_ODE(t_k)|: mean {:.4g} (95% CI [{:.4g}, {:.4g}])\n",
                      r.tracking_error.mean, r.tracking_error.lo, r.tracking_error.hi);
    if (r.gap_fit)
        md += fmt::format("- D_T(t), T = {}: from {:.3g} at t = {:.3g} to {:.3g} at t = {:.3g}; log-log slope against "
                          "eta(t) = {} (95% half-width; over t >= {:.3g})\n",
                          format_number(r.params.horizon), r.gap.front().mean, r.gap.front().t, r.gap.back().mean,
                          r.gap.back().t,
                          format_uncertain(r.gap_fit->fit.slope, 1.959963984540054 * r.gap_fit->fit.slope_se,
                                           UncertainStyle::markdown),
                          r.gap_fit->from_t);
    if (r.study)
        md += fmt::format("- step-size study: sup tracking error ~ eta0^({}) over all eta0, ^({}) over the {} smallest "
                          "(95% half-widths); theory: about 1/2 for small eta0\n",
                          format_uncertain(r.study->fit.slope, 1.959963984540054 * r.study->fit.slope_se,
                                           UncertainStyle::markdown),
                          format_uncertain(r.study->fit_small_eta0.slope,
                                           1.959963984540054 * r.study->fit_small_eta0.slope_se, UncertainStyle::markdown),
                          r.study->fit_small_eta0.n);
    const std::vector<std::string> outcomes = outcome_lines(r.outcomes);
    for (std::size_t i = 0; i < outcomes.size(); ++i)  // the basins as a nested list under their heading
        md += (i == 0 ? "- " : "  - ") + (i == 0 ? outcomes[i] : outcomes[i].substr(2)) + "\n";
    md += effective_markdown(r);
    if (!r.ode.explanation.empty())
        md += "- against the mean-field ODE: " + r.ode.explanation + "\n";
    if (!r.warning.empty()) md += "- warning: " + r.warning + "\n";
    if (!r.phase.monotone && !r.phase.flat) {
        // Where the extra equilibria are and how much of [-1, 1] each attractor draws, so that a
        // reader sees whether it matters for this run's start (the default model's basin of -1
        // is 0.007 wide).
        std::string where, basins;
        for (const Equilibrium& e : r.phase.equilibria)
            where += fmt::format("{}{:.6g} ({})", where.empty() ? "" : ", ", e.rho, to_string(e.kind));
        for (const Basin& b : r.phase.basins)
            basins += fmt::format("{}{:.6g}: {:.3g} wide", basins.empty() ? "" : "; ", b.attractor, b.to - b.from);
        md += fmt::format("- note: the field is not monotone: equilibria at {}; basins of attraction by attractor: {} "
                          "(compare.json \"phase\")\n",
                          where, basins);
    }
    return md;
}

std::vector<std::string> write_compare(const CompareResult& r, const std::filesystem::path& dir, bool render,
                                       const Provenance& provenance, const FigureParams& figure, const std::string& stem,
                                       const TableParams& tables) {
    std::vector<std::string> lines;
    json doc = compare_document(r, provenance);
    doc["params"]["figure"] = figure;  // as the job's document has it (experiment/jobs.hpp)
    doc["params"]["tables"] = tables;
    const TableWidth width = table_width(tables);
    write_file_atomic(dir / "compare.json", doc.dump(2) + "\n");
    // CSV: every column, for machines; Markdown and LaTeX: the compact table for a paper.
    auto write_table = [&](Table t, const PaperTable& paper, const std::string& name, const std::string& rows,
                           const std::vector<std::pair<std::string, std::string>>& renamed) {
        set_json_paths(t, rows, renamed);
        write_table_files(t, dir, name, provenance, &paper);
    };
    // CSV columns named otherwise than their key in compare.json (docs/cli.md, "Loading the CSV files").
    write_table(compare_table(r), compare_paper_table(r, stem, &width), "table", "table",
                {{"rho_sga_mean", "rho_sga.mean"}, {"rho_sga_ci95_lo", "rho_sga.lo"}, {"rho_sga_ci95_hi", "rho_sga.hi"},
                 {"rho_sga_q50", "rho_sga_median"}, {"nuisance_mass_sga", "nuisance_mass_sga.mean"}});
    write_table(gap_table(r), gap_paper_table(r, stem, width), "gap", "gap",
                {{"gap_mean", "mean"}, {"gap_median", "median"}, {"gap_q90", "q90"}, {"gap_max", "max"}});
    lines.push_back("compare.json; table.{csv,md,tex}; gap.{csv,md,tex}");
    if (r.study) {
        write_table(study_table(r), study_paper_table(r, stem, width), "study", "study.rows",
                    {{"sup_err_mean", "sup_err.mean"}, {"sup_err_ci95_lo", "sup_err.lo"}, {"sup_err_ci95_hi", "sup_err.hi"}});
        lines.push_back("study.{csv,md,tex}");
    }
    const CompareFigures figs = compare_figures(r, figure);
    for (const auto& [name, content] : figs.data) write_file_atomic(dir / name, content);
    for (auto& l : render_figures(dir, figs.figures, render, figure, stem, provenance_lines(provenance))) lines.push_back(l);
    return lines;
}

}  // namespace rhoflow
