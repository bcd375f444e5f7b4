#include "text.hpp"

#include <fmt/format.h>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/check/output.hpp"
#include "rhoflow/io/compare_output.hpp"

namespace rhoflow::cli {

namespace {

std::string text(const FieldJob& job, const FieldJobResult& r) {
    std::string s = fmt::format("# rhoflow field, method {}, {}\n", to_string(job.method), describe(job.model));
    if (job.method == FieldMethod::montecarlo)
        s += fmt::format("# {} samples, seed {}; errors are standard errors\n", job.montecarlo.samples, job.montecarlo.seed);
    else if (job.method == FieldMethod::exact)
        s += "# errors are the quadrature's error estimates\n";
    else
        s += "# mean-field limit L -> inf at alpha = R/L (closed form; the O(d/L) term is dropped)\n";
    s += fmt::format("{:>8} {:>19} {:>8} {:>19} {:>8} {:>19} {:>15} {:>8}\n", "rho", "j", "+-", "dj", "+-", "drift",
                     "E[A_I]", "+-");
    for (const auto& p : r.points)
        s += fmt::format("{:>8.4g} {:>19.14g} {:>8.1e} {:>19.14g} {:>8.1e} {:>19.14g} {:>15.10g} {:>8.1e}\n", p.rho, p.j,
                         p.j_err, p.dj, p.dj_err, p.drift, p.mass_informative, p.mass_err);
    if (!r.gradient.empty()) {
        s += "# per-sample gradient in the frame (q, e, rest): means and standard errors\n";
        s += fmt::format("{:>8} {:>12} {:>8} {:>12} {:>8} {:>12} {:>8}\n", "rho", "E g_u", "+-", "E g_v", "+-",
                         "E|g_w|^2", "+-");
        for (std::size_t i = 0; i < r.points.size(); ++i) {
            const auto& g = r.gradient[i];
            s += fmt::format("{:>8.4g} {:>12.6g} {:>8.1e} {:>12.6g} {:>8.1e} {:>12.6g} {:>8.1e}\n", r.points[i].rho, g.g_u,
                             g.g_u_err, g.g_v, g.g_v_err, g.g_w_sq, g.g_w_sq_err);
        }
    }
    return s;
}

std::string text(const OdeJob& job, const OdeJobResult& r) {
    std::vector<const OdeSolution*> all = {&r.solution};
    for (const auto& o : r.others) all.push_back(&o);
    std::string rho0s;
    for (double v : job.rho0) rho0s += fmt::format("{}{}", rho0s.empty() ? "" : ", ", format_number(v));
    std::string out = fmt::format("# rhoflow ode, field {}, {}, rho0 = {}\n", r.field.method, describe(job.model), rho0s);
    std::int64_t steps = 0, evals = 0;
    for (const auto* s : all) steps += s->steps, evals += s->rhs_evals;
    out += fmt::format("# dopri5 rtol {} atol {}: {} steps, {} evaluations; field error bound on j' {:.1e}\n",
                       format_number(job.ode.rtol), format_number(job.ode.atol), steps, evals, r.field.dj_error);
    if (!job.ode.error_estimate) out += "# --no-error-estimate: no error was estimated (the +- column shows 0)\n";
    const double t_last = r.solution.t.empty() ? job.t_end : r.solution.t.back();
    for (std::size_t k = 0; k < all.size(); ++k) {
        const OdeSolution& s = *all[k];
        const std::string from = all.size() > 1 ? fmt::format(" from rho0 = {}", format_number(job.rho0[k])) : "";
        if (s.hit_time && !job.ode.error_estimate)
            out += fmt::format("# hit |rho| >= {}{} at t = {:.12g} (error not estimated)\n", 1 - job.ode.hit_eps, from,
                               *s.hit_time);
        else if (s.hit_time)
            out += fmt::format("# hit |rho| >= {}{} at t = {:.12g} +- {:.1e}\n", 1 - job.ode.hit_eps, from, *s.hit_time,
                               s.hit_time_err);
        else
            out += fmt::format("# |rho| >= {} not reached{} by t = {}\n", 1 - job.ode.hit_eps, from, format_number(t_last));
    }
    out += fmt::format("{:>14}", "t");
    for (std::size_t k = 0; k < all.size(); ++k)
        out += all.size() > 1 ? fmt::format(" {:>20} {:>9}", fmt::format("rho({})", format_number(job.rho0[k])), "+-")
                              : fmt::format(" {:>20} {:>9}", "rho", "+-");
    out += "\n";
    for (std::size_t i = 0; i < r.solution.t.size(); ++i) {
        out += fmt::format("{:>14.8g}", r.solution.t[i]);
        for (const auto* s : all) out += fmt::format(" {:>20.15f} {:>9.1e}", s->rho[i], s->rho_err[i]);
        out += "\n";
    }
    return out;
}

std::string interval(const Basin& b) {
    return fmt::format("{}{:.10g}, {:.10g}{}", b.from_closed ? "[" : "(", b.from, b.to, b.to_closed ? "]" : ")");
}

std::string text(const PhaseJob& job, const PhaseJobResult& r) {
    const PhasePortrait& p = r.portrait;
    std::string s = fmt::format("# rhoflow phase, field {}, {}\n", r.field.method, describe(job.model));
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
    s += fmt::format("(scan spacing {:.2e}; field error bound on j' {:.1e})\n", p.scan_spacing, r.field.dj_error);
    return s;
}

std::string text(const SgaJob& job, const SgaJobResult& out) {
    const SgaParams& p = job.sga;
    const EnsembleResult& res = out.ensemble;
    const auto& s = res.summary;
    std::string r = fmt::format("# rhoflow sga, {} sampler, {}\n", to_string(p.sampler), describe(job.model));
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
    if (out.outcomes)
        for (const std::string& line : outcome_lines(*out.outcomes)) r += line + "\n";
    else if (!out.outcomes_note.empty())
        r += "# " + out.outcomes_note + "\n";
    if (p.trials <= 50) {
        r += fmt::format("{:>6} {:>12} {:>12} {:>10} {:>10}\n", "trial", "rho0", "rho_final", "hit_step", "nuisance");
        for (const auto& t : res.trials)
            r += fmt::format("{:>6} {:>12.6f} {:>12.6f} {:>10} {:>10.5f}\n", t.trial, t.rho0, t.rho_final,
                             t.hit_step ? fmt::format("{}", *t.hit_step) : "-", t.mean_nuisance_mass_last_decile);
    }
    return r;
}

std::string text(const CompareJob&, const CompareResult& r) { return compare_markdown(r); }

std::string text(const StationaryJob& job, const StationaryLaw& s) {
    std::string out = fmt::format("# rhoflow stationary, {} update, eta = {}, {}\n", to_string(job.update),
                                  format_number(job.eta), describe(job.model));
    out += fmt::format("stationary law near the attractor at +1: mean |rho| = {:.6f} +- {:.1e}, sd = {:.6f} +- {:.1e}\n",
                       s.mean, s.mean_err, s.sd, s.sd_err);
    out += fmt::format("effective attractor rho*(eta) = {:.6f} +- {:.1e}; basin ({:.6g}, 1]; the mean-field ODE says {}\n",
                       s.attractor, s.attractor_err, s.basin_from, format_number(s.plain_ode));
    out += fmt::format("{:>12} {:>9} {:>11} {:>10}\n", "rho*", "+-", "kind", "a'(rho*)");
    for (const auto& e : s.equilibria)
        out += fmt::format("{:>12.6f} {:>9.1e} {:>11} {:>10.4g}\n", e.rho, e.rho_err, to_string(e.kind), e.slope);
    out += "# method: " + s.method + "\n";
    return out;
}

std::string text(const CheckJob& job, const CheckResult& r) { return check_text(job.check, r); }

}  // namespace

std::string render_text(const Job& job, const JobResult& result) {
    return visit_job(job, result, [](const auto& j, const auto& r) { return text(j, r); });
}

}  // namespace rhoflow::cli
