#include "rhoflow/io/result_output.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/compare_output.hpp"
#include "rhoflow/io/uncertain.hpp"
#include "rhoflow/version.hpp"

namespace rhoflow {

using json = nlohmann::json;

// ------------------------------------------------------------------------------- printed text

std::string field_text(const ModelParams& model, FieldMethod method, const MonteCarloParams& montecarlo,
                       const std::vector<FieldPoint>& points, const std::vector<GradientMoments>& gradient) {
    std::string s = fmt::format("# rhoflow field, method {}, {}\n", to_string(method), describe(model));
    if (method == FieldMethod::montecarlo)
        s += fmt::format("# {} samples, seed {}; errors are standard errors\n", montecarlo.samples, montecarlo.seed);
    else if (method == FieldMethod::exact)
        s += "# errors are the quadrature's error estimates\n";
    else
        s += "# mean-field limit L -> inf at alpha = R/L (closed form; the O(d/L) term is dropped)\n";
    s += fmt::format("{:>8} {:>19} {:>8} {:>19} {:>8} {:>19} {:>15} {:>8}\n", "rho", "j", "+-", "dj", "+-", "drift",
                     "E[A_I]", "+-");
    for (const auto& p : points)
        s += fmt::format("{:>8.4g} {:>19.14g} {:>8.1e} {:>19.14g} {:>8.1e} {:>19.14g} {:>15.10g} {:>8.1e}\n", p.rho, p.j,
                         p.j_err, p.dj, p.dj_err, p.drift, p.mass_informative, p.mass_err);
    if (!gradient.empty()) {
        s += "# per-sample gradient in the frame (q, e, rest): means and standard errors\n";
        s += fmt::format("{:>8} {:>12} {:>8} {:>12} {:>8} {:>12} {:>8}\n", "rho", "E g_u", "+-", "E g_v", "+-",
                         "E|g_w|^2", "+-");
        for (std::size_t i = 0; i < points.size(); ++i) {
            const auto& g = gradient[i];
            s += fmt::format("{:>8.4g} {:>12.6g} {:>8.1e} {:>12.6g} {:>8.1e} {:>12.6g} {:>8.1e}\n", points[i].rho, g.g_u,
                             g.g_u_err, g.g_v, g.g_v_err, g.g_w_sq, g.g_w_sq_err);
        }
    }
    return s;
}

std::string ode_text(const ModelParams& model, const std::vector<double>& rho0, double t_end, const OdeParams& ode,
                     const DriftFieldInfo& field, const OdeSolution& solution, const std::vector<OdeSolution>& others) {
    std::vector<const OdeSolution*> all = {&solution};
    for (const auto& o : others) all.push_back(&o);
    std::string rho0s;
    for (double v : rho0) rho0s += fmt::format("{}{}", rho0s.empty() ? "" : ", ", format_number(v));
    std::string out = fmt::format("# rhoflow ode, field {}, {}, rho0 = {}\n", field.method, describe(model), rho0s);
    std::int64_t steps = 0, evals = 0;
    for (const auto* s : all) steps += s->steps, evals += s->rhs_evals;
    out += fmt::format("# dopri5 rtol {} atol {}: {} steps, {} evaluations; field error bound on j' {:.1e}\n",
                       format_number(ode.rtol), format_number(ode.atol), steps, evals, field.dj_error);
    if (!ode.error_estimate) out += "# --no-error-estimate: no error was estimated (the +- column shows 0)\n";
    const double t_last = solution.t.empty() ? t_end : solution.t.back();
    for (std::size_t k = 0; k < all.size(); ++k) {
        const OdeSolution& s = *all[k];
        const std::string from = all.size() > 1 ? fmt::format(" from rho0 = {}", format_number(rho0[k])) : "";
        if (s.hit_time && !ode.error_estimate)
            out += fmt::format("# hit |rho| >= {}{} at t = {:.12g} (error not estimated)\n", 1 - ode.hit_eps, from,
                               *s.hit_time);
        else if (s.hit_time)
            out += fmt::format("# hit |rho| >= {}{} at t = {:.12g} +- {:.1e}\n", 1 - ode.hit_eps, from, *s.hit_time,
                               s.hit_time_err);
        else
            out += fmt::format("# |rho| >= {} not reached{} by t = {}\n", 1 - ode.hit_eps, from, format_number(t_last));
    }
    out += fmt::format("{:>14}", "t");
    for (std::size_t k = 0; k < all.size(); ++k)
        out += all.size() > 1 ? fmt::format(" {:>20} {:>9}", fmt::format("rho({})", format_number(rho0[k])), "+-")
                              : fmt::format(" {:>20} {:>9}", "rho", "+-");
    out += "\n";
    for (std::size_t i = 0; i < solution.t.size(); ++i) {
        out += fmt::format("{:>14.8g}", solution.t[i]);
        for (const auto* s : all) out += fmt::format(" {:>20.15f} {:>9.1e}", s->rho[i], s->rho_err[i]);
        out += "\n";
    }
    return out;
}

namespace {

std::string interval(const Basin& b) {
    return fmt::format("{}{:.10g}, {:.10g}{}", b.from_closed ? "[" : "(", b.from, b.to, b.to_closed ? "]" : ")");
}

}  // namespace

std::string phase_text(const ModelParams& model, const DriftFieldInfo& field, const PhasePortrait& portrait) {
    const PhasePortrait& p = portrait;
    std::string s = fmt::format("# rhoflow phase, field {}, {}\n", field.method, describe(model));
    if (p.flat)
        return s + "j' is identically 0 within its error bound (no signal: R = 0, theta = 0 or L = 1): every rho is "
                   "an equilibrium.\n";
    s += p.monotone ? "F = (1 - rho^2) j' has one sign on (-1, 1): monotone.\n"
                    : "F = (1 - rho^2) j' is NOT monotone: it changes sign inside (-1, 1).\n";
    s += fmt::format("{:>20} {:>9} {:>11} {:>16} {:>9}\n", "rho", "+-", "kind", "F'(rho)", "+-");
    for (const auto& e : p.equilibria)
        s += fmt::format("{:>20.15f} {:>9.1e} {:>11} {:>16.10g} {:>9.1e}\n", e.rho, e.rho_err, to_string(e.kind), e.dfdrho,
                         e.dfdrho_err);
    for (const auto& b : p.basins) s += fmt::format("basin of {:g}: {}\n", b.attractor, interval(b));
    for (double t : p.near_tangencies)
        s += fmt::format("warning: |j'| dips within its error bound near rho = {:.6g} without a sign change\n", t);
    s += fmt::format("(scan spacing {:.2e}; field error bound on j' {:.1e})\n", p.scan_spacing, field.dj_error);
    return s;
}

std::string sga_text(const ModelParams& model, const SgaParams& sga, const EnsembleResult& ensemble,
                     const std::optional<OutcomeSummary>& outcomes, const std::string& outcomes_note) {
    const SgaParams& p = sga;
    const EnsembleResult& res = ensemble;
    const auto& s = res.summary;
    std::string r = fmt::format("# rhoflow sga, {} sampler, {}\n", to_string(p.sampler), describe(model));
    r += fmt::format("# {} trials x {} steps, seed {}, eta_k = {}/(1 + k/{})^{}, {} update, rho0 {}\n", p.trials, p.steps,
                     p.seed, format_number(p.schedule.eta0), format_number(p.schedule.k0),
                     format_number(p.schedule.gamma), to_string(p.update),
                     p.rho0 ? format_number(*p.rho0) : "uniform on the sphere");
    if (!res.warning.empty()) r += "# warning: " + res.warning + "\n";
    const bool clipped = s.abs_rho_final.se > 0 && (s.abs_rho_final.lo <= 0 || s.abs_rho_final.hi >= 1);
    r += fmt::format("mean |rho_final| = {:.6f} +- {:.6f} (95% CI [{:.6f}, {:.6f}]{})\n", s.abs_rho_final.mean,
                     s.abs_rho_final.se, s.abs_rho_final.lo, s.abs_rho_final.hi, clipped ? ", clipped to [0, 1]" : "");
    if (p.trials == 2)
        r += "# note: 2 trials: each 95% CI is the mean +- 12.7 standard errors (Student t, 1 degree of freedom), "
             "clipped to the quantity's range; run more trials for an informative interval\n";
    r += fmt::format("rho_final quantiles 5/25/50/75/95%: {:.5f} {:.5f} {:.5f} {:.5f} {:.5f}\n", s.rho_final_quantiles[0],
                     s.rho_final_quantiles[1], s.rho_final_quantiles[2], s.rho_final_quantiles[3],
                     s.rho_final_quantiles[4]);
    if (s.hits)
        r += fmt::format("{} of {} trials reached |rho| >= {}: hit step mean {:.1f} (95% CI [{:.1f}, {:.1f}]), median {:.0f}\n",
                         s.hits, p.trials, 1 - p.hit_eps, s.hit_step.mean, s.hit_step.lo, s.hit_step.hi, s.hit_step_median);
    else
        r += fmt::format("no trial reached |rho| >= {}\n", 1 - p.hit_eps);
    r += fmt::format("attention mass on nuisance tokens (last 10% of steps): {:.5f} (95% CI [{:.5f}, {:.5f}])\n",
                     s.nuisance_mass.mean, s.nuisance_mass.lo, s.nuisance_mass.hi);
    if (outcomes)
        for (const std::string& line : outcome_lines(*outcomes)) r += line + "\n";
    else if (!outcomes_note.empty())
        r += "# " + outcomes_note + "\n";
    if (p.trials <= 50) {
        r += fmt::format("{:>6} {:>12} {:>12} {:>10} {:>10}\n", "trial", "rho0", "rho_final", "hit_step", "nuisance");
        for (const auto& t : res.trials)
            r += fmt::format("{:>6} {:>12.6f} {:>12.6f} {:>10} {:>10.5f}\n", t.trial, t.rho0, t.rho_final,
                             t.hit_step ? fmt::format("{}", *t.hit_step) : "-", t.mean_nuisance_mass_last_decile);
    }
    return r;
}

namespace {
std::string pm(double value, double error) { return format_uncertain(value, error, UncertainStyle::plain); }
std::string pm(const ChainEstimate& e) { return pm(e.value, e.err); }

// One attractor's law: the chain's (the headline) beside the diffusion approximation's.
std::string attractor_text(const AttractorLaw& a) {
    std::string out = fmt::format("attractor rho* = {} (a' = {:.4g}), basin {}{:.6g}, {:.6g}{}; the mean-field ODE's "
                                  "attractor nearest it: {}\n",
                                  pm(a.attractor, a.attractor_err), a.slope, a.basin_from <= -1 ? "[" : "(",
                                  a.basin_from, a.basin_to, a.basin_to >= 1 ? "]" : ")", format_number(a.plain_ode));
    const std::string tail = fmt::format("P(|rho| >= {:.6g})", a.tail_level);
    if (a.chain_ran) {
        out += fmt::format("  the resampled chain (9.4'): {} paths, {} steps kept after {} of burn-in, "
                           "autocorrelation time {:.0f} steps\n",
                           a.paths, a.steps, a.burn_in, a.tau);
        out += fmt::format("    mean rho = {}, sd = {}, mean |rho| = {}, {} = {}\n", pm(a.mean), pm(a.sd), pm(a.mean_abs),
                           tail, pm(a.tail));
        out += fmt::format("    left the basin: {} of {} paths ({:.2g}% of the kept states, not in the statistics)\n",
                           a.escaped_paths, a.paths, 100 * a.escaped_time);
    }
    out += fmt::format("  the diffusion approximation (9.5): mean rho = {}, sd = {}, {} = {}\n",
                       pm(a.diffusion_mean, a.diffusion_mean_err), pm(a.diffusion_sd, a.diffusion_sd_err), tail,
                       pm(a.diffusion_tail, a.diffusion_tail_err));
    out += fmt::format("  {:>8} {:>26} {:>26}\n", "quantile", a.chain_ran ? "chain (9.4')" : "", "diffusion (9.5)");
    for (std::size_t q = 0; q < a.levels.size() && q < a.diffusion_quantiles.size(); ++q)
        out += fmt::format("  {:>7.3g}% {:>26} {:>26}\n", 100 * a.levels[q], a.chain_ran ? pm(a.quantiles[q]) : "",
                           pm(a.diffusion_quantiles[q], a.diffusion_quantile_errs[q]));
    out += fmt::format("  the table: {} Lobatto nodes in the 0.1-99.9% range, spacing {:.2g} at rho*\n", a.nodes_in_range,
                       a.node_spacing);
    if (!a.note.empty()) out += "  note: " + a.note + "\n";
    return out;
}
}  // namespace

std::string stationary_text(const ModelParams& model, double eta, UpdateRule update, const StationaryLaw& law) {
    const StationaryLaw& s = law;
    std::string out = fmt::format("# rhoflow stationary, {} update, eta = {}, {}\n", to_string(update),
                                  format_number(eta), describe(model));
    for (const AttractorLaw& a : s.attractors) out += attractor_text(a);
    if (!s.note.empty()) out += "note: " + s.note + "\n";
    out += fmt::format("the diffusion approximation (9.5) near the attractor at +1: mean |rho| = {:.6f} +- {:.1e}, "
                       "sd = {:.6f} +- {:.1e}\n",
                       s.mean, s.mean_err, s.sd, s.sd_err);
    out += fmt::format("effective attractor rho*(eta) = {:.6f} +- {:.1e}; basin ({:.6g}, 1]; the mean-field ODE says {}\n",
                       s.attractor, s.attractor_err, s.basin_from, format_number(s.plain_ode));
    out += fmt::format("{:>12} {:>9} {:>11} {:>10}\n", "rho*", "+-", "kind", "a'(rho*)");
    for (const auto& e : s.equilibria)
        out += fmt::format("{:>12.6f} {:>9.1e} {:>11} {:>10.4g}\n", e.rho, e.rho_err, to_string(e.kind), e.slope);
    out += "# method: " + s.method + "\n";
    return out;
}

// ------------------------------------------------------------------------------- headline rows

namespace {
// A text cell of a summary CSV holds no comma (numpy.genfromtxt reads no quotes): "a, b" as "a; b".
std::string comma_free(std::string s) {
    for (char& ch : s)
        if (ch == ',') ch = ';';
    return s;
}
TableCell opt(const std::optional<double>& v) { return v ? TableCell(*v) : TableCell(); }
TableCell opt_mean(const std::optional<MeanCI>& v) { return v ? TableCell(v->mean) : TableCell(); }

// The trials per ODE basin as one comma-free text cell: "-1: 3/50; 1: 47/50" (attractor: count/trials).
std::string outcome_cell(const OutcomeSummary& o) {
    std::string cell;
    for (const auto& b : o.basins)
        cell += fmt::format("{}{:.6g}: {}/{}", cell.empty() ? "" : "; ", b.attractor, b.count, o.trials);
    return cell;
}
}  // namespace

std::vector<HeadlineRow> field_headline(const std::vector<FieldPoint>& points) {
    std::vector<HeadlineRow> rows;
    for (const auto& p : points)
        rows.push_back({{"at_rho", p.rho}, {"j", p.j}, {"j_err", p.j_err}, {"dj", p.dj}, {"dj_err", p.dj_err},
                        {"mass_informative", p.mass_informative}});
    return rows;
}
HeadlineRow ode_headline(const OdeSolution& solution) {
    const OdeSolution& s = solution;
    return {{"hit_time", opt(s.hit_time)}, {"rho_end", s.rho.back()}, {"rho_end_err", s.rho_err.back()}};
}
HeadlineRow phase_headline(const PhasePortrait& portrait) {
    std::string attractors;
    for (const auto& e : portrait.equilibria)
        if (e.stable) attractors += fmt::format("{}{:.6g}", attractors.empty() ? "" : " ", e.rho);
    return {{"monotone", std::string(portrait.monotone ? "yes" : "no")},
            {"equilibria", static_cast<double>(portrait.equilibria.size())},
            {"attractors", attractors}};
}
HeadlineRow sga_headline(const EnsembleSummary& summary, const std::optional<OutcomeSummary>& outcomes) {
    const auto& s = summary;
    return {{"mean_abs_rho_final", s.abs_rho_final.mean}, {"ci95_lo", s.abs_rho_final.lo},
             {"ci95_hi", s.abs_rho_final.hi}, {"time_avg_abs_rho", s.abs_rho_last_half.mean},
             {"time_avg_se", s.abs_rho_last_half.se}, {"nuisance_mass", s.nuisance_mass.mean},
             {"hits", static_cast<double>(s.hits)}, {"outcomes", outcomes ? outcome_cell(*outcomes) : std::string()}};
}
HeadlineRow compare_headline(const CompareResult& r) {
    const auto& s = r.summary;
    HeadlineRow row = {{"mean_abs_rho_final", s.abs_rho_final.mean},
               {"ci95_lo", s.abs_rho_final.lo},
               {"ci95_hi", s.abs_rho_final.hi},
               {"abs_rho_ode_final", r.abs_rho_ode_final},
               {"nuisance_mass_sga", s.nuisance_mass.mean},
               {"nuisance_mass_population", r.table.back().nuisance_mass_population},
               {"hit_time_ode", opt_mean(r.hitting_time.ode)},
               {"hit_time_sga", opt_mean(r.hitting_time.sga)},
               {"plateau_time_sga", r.hitting_time.sga_plateau ? TableCell(*r.hitting_time.sga_plateau) : TableCell()},
               {"outcomes", outcome_cell(r.outcomes)}};
    if (r.effective && r.verdict) {  // the effective dynamics' prediction beside the measurement
        const EffectiveSummary& e = *r.effective;
        row.push_back({"pred_abs_rho_final", e.abs_rho_final.mean});
        row.push_back({"pred_err", std::hypot(e.abs_rho_final.se, e.abs_rho_final_err)});
        row.push_back({"hit_time_pred", opt_mean(e.hit_time)});
        row.push_back({"verdict", std::string(r.verdict->consistent ? "consistent" : "inconsistent")});
        row.push_back({"max_abs_z", r.verdict->max_abs_z});
        std::string failed;  // the parts with a rejected test, e.g. "spread,hit_fraction"
        for (const VerdictPart& p : r.verdict->parts)
            if (p.rejected > 0) failed += (failed.empty() ? "" : ",") + p.name;
        if (r.verdict->parts.empty()) failed = "unknown";  // a document from before the parts
        row.push_back({"failed_parts", failed});
    }
    return row;
}
HeadlineRow stationary_headline(const StationaryLaw& law) {
    const StationaryLaw& s = law;
    HeadlineRow row = {{"mean_abs_rho", s.mean}, {"mean_err", s.mean_err}, {"sd", s.sd}, {"sd_err", s.sd_err},
                       {"rho_star", s.attractor}, {"rho_star_err", s.attractor_err}, {"plain_ode", s.plain_ode}};
    // The chain's law at the attractor nearest +1 (empty cells for a document without it).
    const AttractorLaw* top = s.attractors.empty() || !s.attractors.back().chain_ran ? nullptr : &s.attractors.back();
    auto cell = [&](const ChainEstimate AttractorLaw::*e, bool err) {
        return top ? TableCell(err ? (top->*e).err : (top->*e).value) : TableCell();
    };
    row.push_back({"chain_mean_abs_rho", cell(&AttractorLaw::mean_abs, false)});
    row.push_back({"chain_mean_err", cell(&AttractorLaw::mean_abs, true)});
    row.push_back({"chain_q999", top ? TableCell(top->quantiles.back().value) : TableCell()});
    row.push_back({"chain_q999_err", top ? TableCell(top->quantiles.back().err) : TableCell()});
    row.push_back({"chain_tail", cell(&AttractorLaw::tail, false)});
    row.push_back({"chain_tail_err", cell(&AttractorLaw::tail, true)});
    row.push_back({"attractors", static_cast<double>(s.attractors.size())});
    return row;
}
HeadlineRow check_headline(const CheckResult& r) {
    return {{"verdict", std::string(to_string(r.verdict))},
             {"points", static_cast<double>(r.points.size())},
             {"holds", static_cast<double>(r.holds)},
             {"fails", static_cast<double>(r.fails)},
             {"undecided", static_cast<double>(r.undecided)},
             {"min_margin", r.min_margin},
             {"witness", r.witness ? comma_free(describe(r.witness->model)) : std::string()}};
}

// ------------------------------------------------------------------------------- documents and files

json result_document(const Provenance& provenance, const ModelParams& model, const json& params, const json& result) {
    json doc = provenance;
    doc["model"] = model;
    doc["params"] = params;
    doc.update(result);
    return doc;
}

namespace {
// The caption's model and step: "$\eta = 0.01$" in LaTeX, "η = 0.01" in Markdown, and so on.
std::string stationary_parameters(const ModelParams& m, const StationaryLaw& law, bool latex) {
    auto eq = [&](const char* tex, const char* md, double x) {
        if (!latex) return fmt::format("{} = {}", md, format_exact(x, 6, UncertainStyle::markdown));
        const std::string v = format_exact(x, 6, UncertainStyle::latex);
        return fmt::format("${} = {}$", tex, v.substr(1, v.size() - 2));
    };
    return fmt::format("{}, {}, {}, {}, {}, {}, {}", eq("\\eta", "η", law.eta), eq("d", "d", static_cast<double>(m.d)),
                       eq("L", "L", static_cast<double>(m.L)), eq("R", "R", static_cast<double>(m.R)),
                       eq("\\theta", "θ", m.theta), eq("\\sigma", "σ", m.sigma), eq("\\beta", "β", m.beta));
}

constexpr double kHalf95 = 1.959963984540054;  // a standard error's multiple: the 95% half-width

// One row per attractor: the chain's law (mean, sd, the 0.1% and 99.9% quantiles, the tail) and
// (9.5)'s mean beside it.
PaperTable stationary_chain_table(const ModelParams& model, const StationaryLaw& law, const std::string& stem,
                                  const TableWidth& width) {
    Table full;
    full.meta = {fmt::format("rhoflow {} stationary", version), describe(model), law.method};
    for (const char* c : {"eta", "rho_star", "rho_star_err", "mean", "mean_err", "sd", "sd_err", "q001", "q001_err",
                          "q999", "q999_err", "tail", "tail_err", "diffusion_mean", "diffusion_mean_err", "plain_ode"})
        full.columns.push_back({c, "", "", "{}"});
    for (const AttractorLaw& a : law.attractors)
        full.rows.push_back({law.eta, a.attractor, kHalf95 * a.attractor_err, a.mean.value, kHalf95 * a.mean.err,
                             a.sd.value, kHalf95 * a.sd.err, a.quantiles.front().value,
                             kHalf95 * a.quantiles.front().err, a.quantiles.back().value,
                             kHalf95 * a.quantiles.back().err, a.tail.value, kHalf95 * a.tail.err, a.diffusion_mean,
                             kHalf95 * a.diffusion_mean_err, a.plain_ode});
    const double tail_level = law.attractors.back().tail_level;
    const std::vector<PaperColumn> all = {
        {"rho_star", "ρ*(η)", "$\\rho^*$", "rho_star", "rho_star_err", "", "", 6, -1, false},
        {"mean", "E ρ", "$\\mathrm{E}\\,\\rho$", "mean", "mean_err", "", "", 6, -1, false},
        {"sd", "sd of ρ", "sd", "sd", "sd_err", "", "", 6, -1, false},
        {"q001", "0.1% quantile", "$q_{0.001}$", "q001", "q001_err", "", "", 6, -1, false},
        {"q999", "99.9% quantile", "$q_{0.999}$", "q999", "q999_err", "", "", 6, -1, false},
        {"tail", fmt::format("P(|ρ| ≥ {:.6g})", tail_level), "tail", "tail", "tail_err", "", "", 6, -1, false},
        {"diffusion_mean", "E ρ by (9.5)", "(9.5)", "diffusion_mean", "diffusion_mean_err", "", "", 6, -1, false},
        {"plain_ode", "ODE attractor", "ODE", "plain_ode", "", "", "", 6, -1, false},
    };
    const auto cols = fitting_columns(
        all,
        width.page ? std::vector<std::vector<std::string>>{{"rho_star", "mean", "sd", "q001", "q999", "tail", "diffusion_mean", "plain_ode"},
                                                           {"rho_star", "mean", "sd", "q001", "q999", "diffusion_mean", "plain_ode"},
                                                           {"rho_star", "mean", "sd", "q999", "plain_ode"}}
                   : std::vector<std::vector<std::string>>{{"rho_star", "mean", "sd", "q999", "plain_ode"},
                                                           {"rho_star", "mean", "sd", "plain_ode"},
                                                           {"rho_star", "mean", "sd"}},
        full, width);
    static const std::map<std::string, std::pair<std::string, std::string>> meaning = {
        {"rho_star", {"$\\rho^*$: the effective attractor $\\rho^*(\\eta)$", "ρ*(η) the effective attractor"}},
        {"mean", {"$\\mathrm{E}\\,\\rho$: the chain's mean", "E ρ the chain's mean"}},
        {"sd", {"sd: its standard deviation", "its standard deviation"}},
        {"q001", {"$q_{0.001}$: its 0.1\\% quantile", "its 0.1% quantile"}},
        {"q999", {"$q_{0.999}$: its 99.9\\% quantile", "its 99.9% quantile"}},
        {"tail", {"tail: its probability of $|\\rho| \\ge " + fmt::format("{:.6g}", tail_level) + "$", "its tail"}},
        {"diffusion_mean", {"(9.5): the mean of the diffusion approximation (9.5)", "the mean of (9.5)"}},
        {"plain_ode", {"ODE: the mean-field ODE's attractor (exact: no error)", "the mean-field ODE's attractor (exact)"}},
    };
    std::string shown_tex, shown_md;  // the caption's key to the columns shown
    for (const auto& c : cols) {
        const auto& [tex, md] = meaning.at(c.key);
        shown_tex += (shown_tex.empty() ? "" : "; ") + tex;
        shown_md += (shown_md.empty() ? "" : "; ") + c.header + ": " + md;
    }
    auto caption = [&](bool latex) {
        return fmt::format(
            "Stationary law of {} for the {} update at a constant step, near each effective attractor within its "
            "basin, from the resampled chain; {}. Columns: {}. Every {} is a 95{} confidence half-width: 1.96 times "
            "the error (the chain's batch means and the bootstrap replicas of its bank of gradient draws).",
            latex ? "$\\rho$" : "ρ", to_string(law.rule), stationary_parameters(model, law, latex),
            latex ? shown_tex : shown_md, latex ? "$\\pm$" : "±", latex ? "\\%" : "%");
    };
    PaperTable t = paper_table(full, cols, caption(true), caption(false), paper_label(stem, "stationary"));
    t.page = width.page || !fits(t, width);
    return t;
}
}  // namespace

PaperTable stationary_paper_table(const ModelParams& model, const StationaryLaw& law, const std::string& stem,
                                  const TableWidth& width) {
    const bool chain = !law.attractors.empty() &&
                       std::all_of(law.attractors.begin(), law.attractors.end(), [](const auto& a) { return a.chain_ran; });
    if (chain) return stationary_chain_table(model, law, stem, width);
    // Without the chain (--no-chain, or a document written before it): (9.5) near +1.
    Table full;
    full.meta = {fmt::format("rhoflow {} stationary", version), describe(model), law.method};
    full.columns = {{"eta", "", "", "{}"},   {"mean", "", "", "{}"},      {"mean_err", "", "", "{}"},
                    {"sd", "", "", "{}"},    {"sd_err", "", "", "{}"},    {"rho_star", "", "", "{}"},
                    {"rho_star_err", "", "", "{}"}, {"plain_ode", "", "", "{}"}};
    full.rows = {{law.eta, law.mean, kHalf95 * law.mean_err, law.sd, kHalf95 * law.sd_err, law.attractor,
                  kHalf95 * law.attractor_err, law.plain_ode}};
    const std::vector<PaperColumn> cols = {
        {"eta", "η", "$\\eta$", "eta", "", "", "", 6, -1, false},
        {"mean", "E|ρ|", "$\\mathrm{E}\\,|\\rho|$", "mean", "mean_err", "", "", 6, -1, false},
        {"sd", "sd of |ρ|", "sd", "sd", "sd_err", "", "", 6, -1, false},
        {"rho_star", "ρ*(η)", "$\\rho^*$", "rho_star", "rho_star_err", "", "", 6, -1, false},
        {"plain_ode", "ODE attractor", "ODE", "plain_ode", "", "", "", 6, -1, false},
    };
    auto caption = [&](bool latex) {
        return fmt::format(
            "Stationary law of {} for the {} update at a constant step, in the basin ({}, 1] of the attractor nearest "
            "+1, by the diffusion approximation (9.5): its mean and standard deviation, the effective attractor {} "
            "(root of the effective drift a), and the mean-field ODE's attractor (ODE, exact); {}. Every {} is a 95{} "
            "confidence half-width: 1.96 times the error (bootstrap of the one-step moment table and quadrature).",
            latex ? "$|\\rho|$" : "|ρ|", to_string(law.rule),
            format_exact(law.basin_from, 6, latex ? UncertainStyle::latex : UncertainStyle::markdown),
            latex ? "$\\rho^*(\\eta)$" : "ρ*(η)", stationary_parameters(model, law, latex), latex ? "$\\pm$" : "±",
            latex ? "\\%" : "%");
    };
    PaperTable t = paper_table(full, cols, caption(true), caption(false), paper_label(stem, "stationary"));
    t.page = width.page || !fits(t, width);
    return t;
}

void write_stationary(const ModelParams& model, const StationaryLaw& law, const json& doc,
                      const std::filesystem::path& dir, const std::string& file, const Provenance& provenance,
                      const std::string& stem, const TableParams& tables) {
    PaperTable t = stationary_paper_table(model, law, stem, table_width(tables));
    for (auto& l : provenance_lines(provenance)) t.provenance.push_back(l);
    write_file_atomic(dir / file, doc.dump(2) + "\n");
    write_file_atomic(dir / "stationary.md", to_markdown(t));
    write_file_atomic(dir / "stationary.tex", to_latex(t));
}

}  // namespace rhoflow
