// The comparator's figures (compare_output.hpp): data files and gnuplot bodies, each body in two
// versions (enhanced text for PNG/PDF/SVG, LaTeX for cairolatex) and a caption in LaTeX.
// Legends sit below the plots (they never cover data); references are drawn through the data.
#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <fmt/format.h>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/io/compare_output.hpp"
#include "rhoflow/io/uncertain.hpp"
#include "rhoflow/stochastic/schedule.hpp"

namespace rhoflow {

namespace {

// A fitted slope with its 95% half-width (1.96 standard errors), rounded to it: "0.98 ± 0.09".
std::string slope_95(const LineFit& f, UncertainStyle style) {
    return format_uncertain(f.slope, 1.959963984540054 * f.slope_se, style);
}

// The model in a sentence of LaTeX math.
std::string model_tex(const ModelParams& m) {
    return fmt::format("$d = {}$, $L = {}$, $R = {}$, $\\theta = {}$, $\\sigma = {}${}, $\\beta = {}$", m.d, m.L, m.R,
                       tex_number(m.theta), tex_number(m.sigma),
                       m.convention == NoiseConvention::per_norm ? " (per coordinate)" : "", tex_number(m.beta));
}

// The ensemble and its schedule in a sentence of LaTeX.
std::string ensemble_tex(const CompareParams& p) {
    const auto& s = p.sga;
    return fmt::format("{} SGA trials of {} steps ({} sampler, {} update, seed {}), step sizes $\\eta_k = {} / (1 + "
                       "k/{})^{{{}}}$, $\\rho_0 = {}$",
                       s.trials, s.steps, to_string(s.sampler), to_string(s.update), s.seed, tex_number(s.schedule.eta0),
                       tex_number(s.schedule.k0), tex_number(s.schedule.gamma),
                       s.rho0 ? tex_number(*s.rho0) : std::string("\\mbox{uniform on the sphere}"));
}

// Both bodies of a figure from one writer taking the text helper.
template <class Write>
Figure both(std::string name, double aspect, std::string caption, Write write) {
    Figure f;
    f.name = std::move(name);
    f.aspect = aspect;
    f.caption = std::move(caption);
    f.body = write(FigureText{false});
    f.latex_body = write(FigureText{true});
    return f;
}


// A range of an axis.
struct AxisRange {
    double lo = 0, hi = 0;
};

// fig_trajectory.dat: t, the ODE, the ensemble's mean and 10-90% band, the effective
// dynamics' columns when they were computed (a value missing at a row is written '?', gnuplot's
// missing-data mark set in the script), and one column per shown trial (at most 5).
std::string trajectory_data(const CompareResult& r, bool effective, std::size_t shown) {
    std::string d = "# t rho_ode sga_mean sga_q10 sga_q90";
    if (effective) d += " eff_ode first_order_ode pred_mean pred_q10 pred_q90";
    for (std::size_t n = 0; n < shown; ++n) d += fmt::format(" trial{}", n);
    d += "\n";
    auto opt = [](const std::optional<double>& v) { return v ? fmt::format("{:.10g}", *v) : std::string("?"); };
    for (const auto& p : r.trajectory) {
        d += fmt::format("{:.10g} {:.10g} {:.10g} {:.10g} {:.10g}", p.t, p.rho_ode, p.sga_mean, p.sga_q10, p.sga_q90);
        if (effective)
            d += fmt::format(" {} {} {} {} {}", opt(p.rho_eff_ode), opt(p.rho_first_order), opt(p.pred_mean),
                             opt(p.pred_q10), opt(p.pred_q90));
        for (std::size_t n = 0; n < shown; ++n) d += fmt::format(" {:.10g}", n < p.trials.size() ? p.trials[n] : p.sga_mean);
        d += "\n";
    }
    return d;
}

// The time axis: the trajectory's times t > 0 (a range around them when fewer than two).
AxisRange time_range(const CompareResult& r) {
    double t_lo = 0, t_hi = 0;
    for (const auto& p : r.trajectory) {
        if (p.t > 0 && (t_lo == 0 || p.t < t_lo)) t_lo = p.t;
        t_hi = std::max(t_hi, p.t);
    }
    if (t_lo == 0) t_lo = 1, t_hi = 10;  // no row after step 0
    if (t_hi <= t_lo) {                  // one row after step 0 (--steps 1): a range around it
        const double t = t_lo;
        t_lo = t / 3, t_hi = 3 * t;
    }
    return {t_lo, t_hi};
}

// fig_trajectory_gap.dat: per table row, 1 - rho of the SGA mean and of its 95% CI, of the ODE
// and of the prediction (the lower panel, where the late-time gap lives).
std::string trajectory_gap_data(const CompareResult& r) {
    // 1 - x, missing ('?') where it is not > 0 (a log axis).
    auto gap = [](double x) { return 1 - x > 0 ? fmt::format("{:.10g}", 1 - x) : std::string("?"); };
    std::string c = "# t 1-sga_mean 1-ci95_hi 1-ci95_lo 1-rho_ode 1-pred_mean (table rows, t > 0)\n";
    for (const auto& w : r.table)
        if (w.t > 0)
            c += fmt::format("{:.10g} {} {} {} {} {}\n", w.t, gap(w.rho_sga.mean), gap(w.rho_sga.hi), gap(w.rho_sga.lo),
                             gap(w.rho_ode), w.pred_mean ? gap(*w.pred_mean) : std::string("?"));
    return c;
}

// The lower panel's range: the SGA mean's CI and the prediction (the ODE may fall far below).
AxisRange gap_range(const CompareResult& r) {
    double gap_lo = 0, gap_hi = 0;
    auto cover = [&](double x) {
        if (!(1 - x > 0)) return;
        gap_lo = gap_lo == 0 ? 1 - x : std::min(gap_lo, 1 - x);
        gap_hi = std::max(gap_hi, 1 - x);
    };
    for (const auto& w : r.table)
        if (w.t > 0) {
            cover(w.rho_sga.hi);
            cover(w.rho_sga.lo);
            cover(w.rho_sga.mean);
            if (w.pred_mean) cover(*w.pred_mean);
        }
    if (gap_lo == 0) gap_lo = 1e-3, gap_hi = 1;
    if (gap_hi <= gap_lo) gap_hi = gap_lo * 10;
    return {gap_lo, gap_hi};
}

// The trajectory figure's layout: the two panels (screen units) and their axes.
struct TrajectoryPlot {
    bool effective = false;  // with the effective dynamics' columns
    std::size_t shown = 0;   // single trials drawn
    double aspect = 0;
    FigureGeometry g;
    int entries = 0;         // the key's entries
    AxisRange t, gap;        // the time axis, the lower panel's 1 - rho axis
    double line = 0, lower_bottom = 0, top = 0, split = 0;  // one text line; the panels' ends
};

TrajectoryPlot trajectory_plot(const FigureParams& size, bool effective, std::size_t shown, AxisRange t, AxisRange gap) {
    TrajectoryPlot p;
    p.effective = effective;
    p.shown = shown;
    p.aspect = effective ? 1.3 : 1.15;
    p.g = figure_geometry(size, p.aspect);
    p.entries = 3 + (shown > 0) + (effective ? 2 : 0) + 1;
    p.t = t;
    p.gap = gap;
    const double kf = key_fraction(p.g, p.entries, key_columns(p.g));
    p.line = p.g.font_pt * 1.35 / 72.0 / p.g.height;  // one text line, screen units
    p.lower_bottom = kf + label_space(p.g, false), p.top = 1 - 0.5 * p.line;
    p.split = p.lower_bottom + 0.4 * (p.top - p.lower_bottom);
    return p;
}

// The upper panel: rho against t, the ensemble, the ODE and the prediction, the key below.
std::string upper_panel(const FigureText& T, const TrajectoryPlot& p) {
    const std::size_t first_trial_column = p.effective ? 11 : 6;
    std::string s = "set datafile missing '?'\nset multiplot\n" + side_margins(p.g) +
                    fmt::format("set logscale x\nset xrange [{:.10g}:{:.10g}]\nset grid\nset format x ''\n", p.t.lo,
                                p.t.hi) +
                    vertical(p.split + 1.2 * p.line, p.top) + "set ylabel " +
                    T("alignment ρ = ⟨q, ξ⟩", "alignment $\\rho = \\langle q, \\xi\\rangle$") + "\n" +
                    key_below(p.entries, key_columns(p.g));
    std::string plot = "plot 'fig_trajectory.dat' using 1:4:5 with filledcurves lc rgb '#c6dbef' title " +
                       T("SGA 10–90%", "SGA 10--90\\,\\%");
    for (std::size_t n = 0; n < p.shown; ++n)
        plot += fmt::format(", '' using 1:{} with lines lw 1 lc rgb '#969696' {}", first_trial_column + n,
                            n == 0 ? "title " + T("single trials", "single trials") : std::string("notitle"));
    // The effective ODE and its first-order form lie under the prediction: columns of the data
    // file, not curves (a key entry nobody can see).
    if (p.effective)
        plot += ", '' using 1:9 with lines lw 1.5 dt 3 lc rgb '#e6550d' title " +
                T("predicted 10–90%", "predicted 10--90\\,\\%") +
                ", '' using 1:10 with lines lw 1.5 dt 3 lc rgb '#e6550d' notitle, '' using 1:8 with lines lw 2.5 lc "
                "rgb '#e6550d' title " +
                T("finite-step prediction", "finite-step prediction");
    plot += ", '' using 1:3 with lines lw 2.5 lc rgb '#08519c' title " + T("SGA mean", "SGA mean") +
            ", '' using 1:2 with lines lw 2.5 dt 2 lc rgb '#a50f15' title " + T("mean-field ODE", "mean-field ODE") +
            ", 'fig_trajectory_gap.dat' using 1:(1/0) with yerrorbars pt 7 ps 0.4 lc rgb '#08519c' title " +
            T("SGA mean, 95% CI", "SGA mean, 95\\,\\% CI") + "\n";
    return s + plot;
}

// The lower panel: 1 - rho on a log axis, its own y range, the same x axis.
std::string lower_panel(const FigureText& T, const TrajectoryPlot& p) {
    std::string s = "unset key\nset format x " + T("10^{%T}", "$10^{%T}$") + "\nset xlabel " +
                    T("t = Σ_{j<k} η_j (ODE time)", "$t = \\sum_{j<k}\\eta_j$ (ODE time)") + "\n" +
                    vertical(p.lower_bottom + latex_extra(p.g, T.latex), p.split) + "set logscale y\n" +
                    axis_tics('y', p.gap.lo, p.gap.hi, true, T.latex) + "set ylabel " + T("1 − ρ", "$1-\\rho$") + "\n";
    s += "plot 'fig_trajectory_gap.dat' using 1:2:3:4 with yerrorbars pt 7 ps 0.4 lc rgb '#08519c' notitle, '' "
         "using 1:2 with lines lw 1 lc rgb '#08519c' notitle, 'fig_trajectory.dat' using 1:(1-$2 > 0 ? 1-$2 : "
         "1/0) with lines lw 2.5 dt 2 lc rgb '#a50f15' notitle";
    if (p.effective) s += ", 'fig_trajectory_gap.dat' using 1:6 with lines lw 2.5 lc rgb '#e6550d' notitle";
    s += "\nunset multiplot";
    return s;
}

std::string trajectory_caption(const CompareResult& r, bool effective) {
    const HittingTimes& h = r.hitting_time;
    return fmt::format(
        "Alignment $\\rho_k = \\langle q_k, \\xi\\rangle$ of projected SGA against the mean-field ODE "
        "$\\dot\\rho = (1-\\rho^2)\\,j'(\\rho)$ ({} field), against ODE time $t = \\sum_{{j<k}}\\eta_j$. "
        "Top: the ensemble's mean and 10--90\\,\\% band{}. Bottom: the gap $1-\\rho$ on a log axis, the "
        "SGA mean with its 95\\,\\% confidence interval at the table's steps. Model: {}; {}.{}",
        r.field.method,
        effective ? ", and the finite-step prediction of the effective dynamics (one-step moments of the "
                    "chain at the run's step sizes; its 10--90\\,\\% band dotted; the effective ODE and its "
                    "first-order form, which lie under it, are columns of fig\\_trajectory.dat)"
                  : "",
        model_tex(r.params.model), ensemble_tex(r.params),
        h.ode ? fmt::format(" The ODE reaches $|\\rho| \\ge {}$ at $t = {}$.", tex_number(h.level), tex_number(h.ode->mean))
              : std::string());
}

// fig_trajectory: rho against ODE time (upper panel) and the gap 1 - rho (lower panel), from
// fig_trajectory.dat and fig_trajectory_gap.dat.
void trajectory_figure(const CompareResult& r, const FigureParams& size, CompareFigures& out) {
    const bool effective = r.verdict.has_value();
    const std::size_t shown = r.trajectory.empty() ? 0 : std::min<std::size_t>(5, r.trajectory.front().trials.size());
    out.data.push_back({"fig_trajectory.dat", trajectory_data(r, effective, shown)});
    out.data.push_back({"fig_trajectory_gap.dat", trajectory_gap_data(r)});
    const TrajectoryPlot p = trajectory_plot(size, effective, shown, time_range(r), gap_range(r));
    const auto write = [&](const FigureText& T) { return upper_panel(T, p) + lower_panel(T, p); };
    out.figures.push_back(both("fig_trajectory", p.aspect, trajectory_caption(r, effective), write));
}

// fig_seed.dat: per record step k >= 1, t_k, |rho| of the mean-field ODE and of every kept trial.
std::string seed_data(const CompareResult& r, const std::vector<std::int64_t>& steps) {
    std::string d = "# k t abs_rho_ode abs_rho_trial0 abs_rho_trial1 ...\n";
    for (std::size_t j = 0; j < r.trajectory.size(); ++j) {
        const TrajectoryPoint& p = r.trajectory[j];
        d += fmt::format("{} {:.10g} {:.10g}", steps[j + 1], p.t, std::abs(p.rho_ode));
        for (double x : p.trials) d += fmt::format(" {:.10g}", std::abs(x));
        d += "\n";
    }
    return d;
}

// fig_seed: |<q_k, xi>| of every kept trial against the step k, as the seed paper draws its
// trials, with the mean-field ODE at t_k for reference.
void seed_figure(const CompareResult& r, const FigureParams& size, CompareFigures& out) {
    if (r.trajectory.empty()) return;
    std::vector<double> times = {0.0};  // the step of each point: the first k with t_k >= t (the same sums)
    for (const auto& p : r.trajectory) times.push_back(p.t);
    const std::vector<std::int64_t> steps = r.params.sga.schedule.steps_at(times, r.params.sga.steps);
    const std::size_t n = r.trajectory.front().trials.size();
    out.data.push_back({"fig_seed.dat", seed_data(r, steps)});
    const FigureGeometry g = figure_geometry(size, 0.75);
    const double kf = key_fraction(g, 2, 2);
    const double line = g.font_pt * 1.35 / 72.0 / g.height;
    const auto write = [&](const FigureText& T) {
        std::string s = side_margins(g) + vertical(kf + label_space(g, T.latex), 1 - 0.5 * line) + "set grid\n" +
                        axis_tics('x', 0, static_cast<double>(steps.back()), false, T.latex) +
                        "set yrange [0:1.02]\nset ytics 0, 0.2, 1\nset xlabel " + T("step k", "step $k$") +
                        "\nset ylabel " + T("|⟨q_k, ξ⟩|", "$|\\langle q_k, \\xi\\rangle|$") + "\n" +
                        key_below(2, 2) +
                        "plot for [i=4:" + std::to_string(3 + n) +
                        "] 'fig_seed.dat' using 1:i with lines lw 1 lc rgb '#4292c6' title (i == 4 ? " +
                        T(fmt::format("each of {} trials", n), fmt::format("each of {} trials", n)) +
                        " : ''), '' using 1:3 with lines lw 2.5 dt 2 lc rgb '#a50f15' title " +
                        T("mean-field ODE at t_k", "mean-field ODE at $t_k$") + "\n";
        return s;
    };
    out.figures.push_back(both(
        "fig_seed", 0.75,
        fmt::format("Alignment $|\\langle q_k, \\xi\\rangle|$ of each of {} SGA trials against the step $k$ (as in the "
                    "seed paper's figure of its trials), and the mean-field ODE at $t_k = \\sum_{{j<k}}\\eta_j${}. "
                    "Model: {}; {}.",
                    n, r.params.sga.trials > static_cast<std::int64_t>(n)
                           ? fmt::format(" (the first {} of {} trials)", n, r.params.sga.trials)
                           : std::string(),
                    model_tex(r.params.model), ensemble_tex(r.params)),
        write));
}

// The reference c eta(t)^p through the mean's last anchor: a slope to compare with, drawn
// where the data are.
void gap_figure(const CompareResult& r, const FigureParams& size, CompareFigures& out) {
    std::string d = "# t eta sqrt_eta gap_mean gap_median gap_q90 gap_max\n";
    for (const auto& a : r.gap)
        d += fmt::format("{:.10g} {:.10g} {:.10g} {:.10g} {:.10g} {:.10g} {:.10g}\n", a.t, a.eta, std::sqrt(a.eta), a.mean,
                         a.median, a.q90, a.max);
    out.data.push_back({"fig_gap.dat", d});
    const GapAnchor& last = r.gap.back();
    const bool refs = last.eta > 0 && last.mean > 0;
    const double c1 = refs ? last.mean / last.eta : 0, c2 = refs ? last.mean / std::sqrt(last.eta) : 0;
    double t_lo = 0, t_hi = 0, y_lo = 0, y_hi = 0;
    for (const auto& a : r.gap) {
        if (a.t > 0) t_lo = t_lo == 0 ? a.t : std::min(t_lo, a.t), t_hi = std::max(t_hi, a.t);
        for (double y : {a.mean, a.median, a.q90})
            if (y > 0) y_lo = y_lo == 0 ? y : std::min(y_lo, y), y_hi = std::max(y_hi, y);
    }
    if (t_lo == 0) t_lo = 1, t_hi = 10;
    if (t_hi <= t_lo) t_hi = 10 * t_lo;
    if (y_lo == 0) y_lo = 1e-3, y_hi = 1;
    if (y_hi <= y_lo) y_hi = 10 * y_lo;
    const FigureGeometry g = figure_geometry(size, 0.85);
    const double kf = key_fraction(g, refs ? 5 : 3, key_columns(g));
    const double line = g.font_pt * 1.35 / 72.0 / g.height;
    const auto write = [&](const FigureText& T) {
        std::string s = side_margins(g) + vertical(kf + label_space(g, T.latex), 1 - 0.5 * line) +
                        "set logscale xy\nset grid\n" + axis_tics('x', t_lo, t_hi, true, T.latex) +
                        axis_tics('y', y_lo, y_hi, true, T.latex) + "set xlabel " + T("ODE time t", "ODE time $t$") +
                        "\nset ylabel " +
                        T(fmt::format("gap D_T(t), T = {}", format_number(r.params.horizon)),
                          fmt::format("gap $D_T(t)$, $T = {}$", tex_number(r.params.horizon))) +
                        "\n" + key_below(refs ? 5 : 3, key_columns(g));
        s += "plot 'fig_gap.dat' using 1:4 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#08519c' title " +
             T("mean", "mean") + ", '' using 1:5 with lines lw 1.5 lc rgb '#31a354' title " + T("median", "median") +
             ", '' using 1:6 with lines lw 1.5 dt 2 lc rgb '#e6550d' title " +
             T("90% quantile", "90\\,\\% quantile");
        if (refs)
            s += fmt::format(", '' using 1:({:.10g}*$3) with lines lw 2 dt 4 lc rgb '#54278f' title {}, '' using "
                             "1:({:.10g}*$2) with lines lw 2 dt 5 lc rgb '#8c510a' title {}",
                             c2, T("∝ √η(t)", "$\\propto\\sqrt{\\eta(t)}$"), c1, T("∝ η(t)", "$\\propto\\eta(t)$"));
        return s;
    };
    std::string fit;
    if (r.gap_fit)
        fit = fmt::format(" A least-squares fit of $\\log$ mean $D_T$ against $\\log\\eta(t)$ over $t \\ge {}$ gives "
                          "slope {} (95\\,\\% half-width): between the $1/2$ of the noise, $O(\\sqrt{{\\eta}})$, and "
                          "the $1$ of the "
                          "finite-step bias, $O(\\eta)$, which dominates once the ensemble sits on its plateau below "
                          "the ODE; both vanish as $\\eta \\to 0$.",
                          tex_number(r.gap_fit->from_t), slope_95(r.gap_fit->fit, UncertainStyle::latex));
    out.figures.push_back(both(
        "fig_gap", 0.85,
        fmt::format("Asymptotic-pseudotrajectory gap $D_T(t) = \\sup_{{s \\in [0,T]}} |\\rho(t+s) - \\Phi_s(\\rho(t))|$, "
                    "$T = {}$, over {} trials: mean, median and 90\\,\\% quantile, with references "
                    "$\\propto\\sqrt{{\\eta(t)}}$ and $\\propto\\eta(t)$ drawn through the last mean.{} Model: {}; {}.",
                    tex_number(r.params.horizon), r.params.sga.trials, fit, model_tex(r.params.model),
                    ensemble_tex(r.params)),
        write));
}

// A zoom window [lo, hi] at one end of [-1, 1] when an interior equilibrium crowds that end.
struct Zoom {
    double lo = 0, hi = 0;
};

std::vector<Zoom> field_zooms(const PhasePortrait& phase) {
    std::vector<Zoom> z;
    for (double end : {-1.0, 1.0}) {
        double nearest = 0;
        for (const auto& q : phase.equilibria) {
            const double dist = std::abs(q.rho - end);
            if (dist > 1e-12 && dist < 0.05 && dist > nearest) nearest = dist;  // the farthest crowding one
        }
        if (nearest > 0) {
            const double w = std::min(0.5, 3 * nearest);
            z.push_back(end < 0 ? Zoom{-1.0, -1.0 + w} : Zoom{1.0 - w, 1.0});
        }
    }
    return z;
}

void field_figure(const CompareResult& r, const FigureParams& size, CompareFigures& out) {
    std::string d = "# rho drift j_prime\n";
    for (const auto& p : r.field_curve) d += fmt::format("{:.10g} {:.10g} {:.10g}\n", p.rho, p.drift, p.dj);
    out.data.push_back({"fig_field.dat", d});
    std::string e = "# rho stable\n";
    for (const auto& q : r.phase.equilibria) e += fmt::format("{:.15g} {}\n", q.rho, q.stable ? 1 : 0);
    out.data.push_back({"fig_field_equilibria.dat", e});
    const std::vector<Zoom> zooms = field_zooms(r.phase);
    const double aspect = zooms.empty() ? 0.75 : 1.15;
    const FigureGeometry g = figure_geometry(size, aspect);
    const double kf = key_fraction(g, 3, 3);
    const double line = g.font_pt * 1.35 / 72.0 / g.height;
    const double top = 1 - 0.5 * line, bottom = kf + label_space(g, false);
    const double split = zooms.empty() ? bottom : bottom + 0.42 * (top - bottom);
    AxisRange drift{0, 0};
    for (const auto& p : r.field_curve) drift.lo = std::min(drift.lo, p.drift), drift.hi = std::max(drift.hi, p.drift);
    if (drift.hi <= drift.lo) drift.hi = drift.lo + 1;
    const auto write = [&](const FigureText& T) {
        const std::string points = " with points pt 7 ps 1 lc rgb '#2ca02c' ";
        auto markers = [&](bool titled) {
            return "'fig_field_equilibria.dat' using 1:($2 == 1 ? 0 : 1/0)" + points +
                   (titled ? "title " + T("stable", "stable") : std::string("notitle")) +
                   ", '' using 1:($2 == 0 ? 0 : 1/0) with points pt 6 ps 1.2 lw 2 lc rgb '#d62728' " +
                   (titled ? "title " + T("unstable", "unstable") : std::string("notitle"));
        };
        // Tics listed by axis_tics: real minus signs (U+2212, or LaTeX math) on both axes.
        std::string s = "set multiplot\nset grid\nset xzeroaxis lt -1\n" + side_margins(g) +
                        vertical(split + (zooms.empty() ? latex_extra(g, T.latex) : label_space(g, T.latex)), top) +
                        "set xrange [-1.04:1.04]\nset xtics (" +
                        (T.latex ? "'$-1$' -1, '$-0.5$' -0.5, '$0$' 0, '$0.5$' 0.5, '$1$' 1"
                                 : "'−1' -1, '−0.5' -0.5, '0' 0, '0.5' 0.5, '1' 1") +
                        ")\n" + axis_tics('y', drift.lo, drift.hi, false, T.latex) +
                        "set xlabel " + T("alignment ρ", "alignment $\\rho$") + "\nset ylabel " +
                        T("F(ρ) = (1 − ρ^2) j'(ρ)", "$F(\\rho) = (1-\\rho^2)\\,j'(\\rho)$") + "\n" + key_below(3, 3) +
                        "set clip two\n";
        s += "plot 'fig_field.dat' using 1:2 with lines lw 2 lc rgb '#08519c' title " + T("F", "$F$") + ", " +
             markers(true) + "\nunset key\n";
        for (std::size_t i = 0; i < zooms.size(); ++i) {
            const Zoom& z = zooms[i];
            const double left = zooms.size() == 1 ? 0.0 : 0.5 * static_cast<double>(i);
            const double lmargin = std::min(0.35, (g.font_pt * 6.2 / 72.0) / g.width);
            const double width = zooms.size() == 1 ? 1.0 : 0.5;
            s += fmt::format("set lmargin at screen {:.4f}\nset rmargin at screen {:.4f}\n",
                             left + lmargin * (zooms.size() == 1 ? 1.0 : 1.0),
                             std::min(1 - 0.12 / g.width, left + width - 0.04));
            double y_lo = 0, y_hi = 0;
            for (const auto& p : r.field_curve)
                if (p.rho >= z.lo && p.rho <= z.hi) y_lo = std::min(y_lo, p.drift), y_hi = std::max(y_hi, p.drift);
            if (y_hi <= y_lo) y_hi = y_lo + 1;
            s += vertical(bottom + latex_extra(g, T.latex), split) + axis_tics('x', z.lo, z.hi, false, T.latex) +
                 axis_tics('y', y_lo, y_hi, false, T.latex) +
                 "set xlabel " +
                 T(fmt::format("zoom near ρ = {}", z.lo < 0 ? "−1" : "1"),
                   fmt::format("zoom near $\\rho = {}$", z.lo < 0 ? "-1" : "1")) +
                 "\nset ylabel " + T("F(ρ)", "$F(\\rho)$") + "\n" +
                 "plot 'fig_field.dat' using 1:($1 >= " + fmt::format("{:.10g} && $1 <= {:.10g}", z.lo, z.hi) +
                 " ? $2 : 1/0) with lines lw 2 lc rgb '#08519c' notitle, " + markers(false) + "\n";
        }
        return s + "unset multiplot";
    };
    std::string eq;
    for (const auto& q : r.phase.equilibria)
        eq += fmt::format("{}${}$ ({})", eq.empty() ? "" : ", ", fmt::format("{:.6g}", q.rho), q.stable ? "stable" : "unstable");
    out.figures.push_back(both(
        "fig_field", aspect,
        fmt::format("The mean-field drift $F(\\rho) = (1-\\rho^2)\\,j'(\\rho)$ ({} field) on $[-1, 1]$ and its "
                    "equilibria: {}{}. Model: {}.",
                    r.field.method, eq.empty() ? "none" : eq,
                    zooms.empty() ? "" : "; below, zooms near the ends where equilibria crowd (own vertical scale)",
                    model_tex(r.params.model)),
        write));
}

// The fit's 95% band at log eta0 = u: OLS on (log eta0, log mean), var = se_a^2 - xbar^2 se_b^2 +
// se_b^2 (u - xbar)^2 (cov(a, b) = -xbar se_b^2), Student t with n - 2 degrees of freedom.
void study_figure(const StepSizeStudy& s, const FigureParams& size, CompareFigures& out) {
    double xbar = 0;
    for (const auto& w : s.rows) xbar += std::log(w.eta0);
    xbar /= static_cast<double>(s.rows.size());
    const double se_a = s.fit.intercept_se, se_b = s.fit.slope_se;
    const double t = s.fit.n > 2 ? boost::math::quantile(boost::math::complement(
                                       boost::math::students_t(static_cast<double>(s.fit.n - 2)), 0.025))
                                 : 1.96;
    const double floor_var = std::max(0.0, se_a * se_a - xbar * xbar * se_b * se_b);
    std::string d = "# eta0 sup_err_mean ci_lo ci_hi median fit fit_lo95 fit_hi95\n";
    for (const auto& w : s.rows) {
        const double u = std::log(w.eta0);
        const double fit = s.fit.intercept + s.fit.slope * u;
        const double half = t * std::sqrt(floor_var + se_b * se_b * (u - xbar) * (u - xbar));
        d += fmt::format("{:.10g} {:.10g} {:.10g} {:.10g} {:.10g} {:.10g} {:.10g} {:.10g}\n", w.eta0, w.sup_err.mean,
                         w.sup_err.lo, w.sup_err.hi, w.sup_err_median, std::exp(fit), std::exp(fit - half),
                         std::exp(fit + half));
    }
    out.data.push_back({"fig_study.dat", d});
    double lo = s.rows.front().eta0, hi = lo;
    for (const auto& w : s.rows) lo = std::min(lo, w.eta0), hi = std::max(hi, w.eta0);
    double y_lo = s.rows.front().sup_err.mean, y_hi = y_lo;
    for (const auto& w : s.rows)
        for (double y : {w.sup_err.lo, w.sup_err.hi, w.sup_err.mean})
            if (y > 0) y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
    const FigureGeometry g = figure_geometry(size, 0.8);
    const double kf = key_fraction(g, 4, 2);
    const double line = g.font_pt * 1.35 / 72.0 / g.height;
    const auto write = [&](const FigureText& T) {
        std::string c = side_margins(g) + vertical(kf + label_space(g, T.latex), 1 - 0.5 * line) +
                        "set logscale xy\nset grid\n" + axis_tics('x', lo, hi, true, T.latex) + axis_tics('y', y_lo, y_hi, true, T.latex) +
                        "set xlabel " + T("initial step size η_0 (η_0 k_0 fixed)", "initial step size $\\eta_0$ ($\\eta_0 k_0$ fixed)") +
                        "\nset ylabel " +
                        T("mean sup_k |ρ_k − ρ(t_k)|", "mean $\\sup_k|\\rho_k - \\rho(t_k)|$") + "\n" + key_below(4, 2);
        c += "plot 'fig_study.dat' using 1:7:8 with filledcurves fs transparent solid 0.3 lc rgb '#fdae6b' title " +
             T("fit, 95% band", "fit, 95\\,\\% band") + ", '' using 1:6 with lines lw 2 lc rgb '#e6550d' title " +
             T("fit: slope " + slope_95(s.fit, UncertainStyle::markdown), "fit: slope " + slope_95(s.fit, UncertainStyle::latex)) +
             ", '' using 1:2:3:4 with yerrorbars pt 7 ps 0.6 lc rgb '#08519c' title " +
             T("mean, 95% CI", "mean, 95\\,\\% CI") +
             fmt::format(", {:.17g} * (x / {:.17g})**0.5 with lines lw 2 dt 2 lc rgb '#252525' title ",
                         s.rows.back().sup_err.mean, s.rows.back().eta0) +
             T("slope 1/2", "slope $1/2$");
        return c;
    };
    out.figures.push_back(both(
        "fig_study", 0.8,
        fmt::format("Step-size study: the mean over {} trials per $\\eta_0$ of $\\sup_k |\\rho_k - \\rho(t_k)|$ on $[0, "
                    "{}]$ from $\\rho_0 = {}$, with 95\\,\\% confidence intervals, against $\\eta_0$ ($\\eta_0 k_0$ "
                    "fixed). Least-squares slope {} over all $\\eta_0$ (each $\\pm$ a 95\\,\\% half-width; band: 95\\,\\% "
                    "for the fitted line), {} over the {} smallest; the theory predicts $1/2$ for small $\\eta_0$ "
                    "(dashed, through the smallest). The measured slope is larger because the error mixes the "
                    "$O(\\sqrt{{\\eta_0}})$ noise with the $O(\\eta_0)$ bias of a finite step, which pulls SGA "
                    "below the ODE; the slope falls towards $1/2$ as $\\eta_0 \\to 0$.",
                    s.trials, tex_number(s.horizon), tex_number(s.rho0), slope_95(s.fit, UncertainStyle::latex),
                    slope_95(s.fit_small_eta0, UncertainStyle::latex), s.fit_small_eta0.n),
        write));
}

// The effective attractor rho*(eta) over the run's step sizes against where the ensemble was at
// each row's step size: once the transient is over, the ensemble sits on the curve.
void plateau_figure(const CompareResult& r, const EffectiveSummary& e, const FigureParams& size, CompareFigures& out) {
    std::string d = "# eta rho_star rho_star_err\n";
    for (const auto& p : e.plateau) d += fmt::format("{:.10g} {:.10g} {:.10g}\n", p.eta, p.rho_star, p.rho_star_err);
    out.data.push_back({"fig_plateau.dat", d});
    // Rows after the transient (the ODE's hitting time): where the ensemble sits on its plateau.
    const double after = r.hitting_time.ode ? r.hitting_time.ode->mean : 0.0;
    std::string s = "# eta(t_k) t_k sga_mean ci_lo ci_hi (rows with t_k >= the ODE's hitting time)\n";
    for (const auto& w : r.table)
        if (w.step > 0 && w.t >= after)
            s += fmt::format("{:.10g} {:.10g} {:.10g} {:.10g} {:.10g}\n", r.params.sga.schedule.eta(w.step), w.t,
                             w.rho_sga.mean, w.rho_sga.lo, w.rho_sga.hi);
    out.data.push_back({"fig_plateau_sga.dat", s});
    double e_lo = 0, e_hi = 0;
    auto cover = [&](double x) {
        if (x > 0) e_lo = e_lo == 0 ? x : std::min(e_lo, x), e_hi = std::max(e_hi, x);
    };
    for (const auto& p : e.plateau) cover(p.eta);
    for (const auto& w : r.table)
        if (w.step > 0 && w.t >= after) cover(r.params.sga.schedule.eta(w.step));
    if (e_lo == 0) e_lo = 1e-3, e_hi = 1e-2;
    if (e_hi <= e_lo) e_hi = e_lo * 10;
    const FigureGeometry g = figure_geometry(size, 0.8);
    const double kf = key_fraction(g, 3, 1);
    const double line = g.font_pt * 1.35 / 72.0 / g.height;
    const auto write = [&](const FigureText& T) {
        return side_margins(g) + vertical(kf + label_space(g, T.latex), 1 - 0.5 * line) +
               "set logscale x\nset grid\n" + axis_tics('x', e_lo, e_hi, true, T.latex) + "set xlabel " +
               T("step size η", "step size $\\eta$") + "\nset ylabel " + T("alignment ρ", "alignment $\\rho$") +
               "\nset offsets 0, 0, graph 0.05, graph 0.05\n" + key_below(3, 1) +
               "plot 'fig_plateau.dat' using 1:2:3 with yerrorlines lw 2 pt 7 ps 0.5 lc rgb '#e6550d' title " +
               T("finite-step attractor ρ*(η)", "finite-step attractor $\\rho^*(\\eta)$") +
               ", 'fig_plateau_sga.dat' using 1:3:4:5 with yerrorbars pt 6 ps 0.6 lc rgb '#08519c' title " +
               T("SGA mean at step k, 95% CI (x = η_k)", "SGA mean at step $k$, 95\\,\\% CI ($x = \\eta_k$)") +
               ", 1 with lines lw 2.5 dt 2 lc rgb '#a50f15' title " +
               T("mean-field ODE's attractor ρ = 1", "mean-field ODE's attractor $\\rho = 1$");
    };
    out.figures.push_back(both(
        "fig_plateau", 0.8,
        fmt::format("Effective attractor $\\rho^*(\\eta)$ of the chain at constant step size $\\eta$ (root of its "
                    "one-step mean $a(\\rho;\\eta)$, with error bars) and the SGA mean with its 95\\,\\% confidence "
                    "interval at the table's steps after the ODE's hitting time, placed at $\\eta_k$. Model: {}; {}.",
                    model_tex(r.params.model), ensemble_tex(r.params)),
        write));
}

}  // namespace

CompareFigures compare_figures(const CompareResult& r, const FigureParams& size) {
    CompareFigures out;
    trajectory_figure(r, size, out);
    gap_figure(r, size, out);
    field_figure(r, size, out);
    seed_figure(r, size, out);
    if (r.study) study_figure(*r.study, size, out);
    if (r.effective) plateau_figure(r, *r.effective, size, out);
    return out;
}

}  // namespace rhoflow
