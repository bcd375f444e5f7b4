#include "rhoflow/check/output.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/io/uncertain.hpp"
#include "rhoflow/version.hpp"

namespace rhoflow {

namespace {

std::string box_text(const CheckParams& p) {
    std::string s;
    const auto ax = p.box.axes();
    for (int a = 0; a < axis_count; ++a) {
        s += fmt::format("{}{}={}", s.empty() ? "" : " ", axis_name(a), ax[a]->text());
        if (ax[a]->ranged()) s += fmt::format("({})", to_string(ax[a]->effective_scale()));
    }
    if (p.noise == NoiseConvention::per_norm) s += " (sigma per norm)";
    return s;
}

int verdict_code(Verdict v) { return v == Verdict::holds ? 0 : v == Verdict::fails ? 1 : 2; }

}  // namespace

nlohmann::json check_document(const CheckParams& params, const CheckResult& result, const Provenance& provenance) {
    nlohmann::json doc = provenance;
    doc.update(nlohmann::json(result));
    doc["box"] = params.box;
    doc["grid"] = {{"points_per_axis", params.grid}, {"refine", params.refine}, {"levels_done", result.diagnostics.levels}};
    doc["params"] = params;
    doc["sampled_not_proved"] = result.ranged_axes.empty()
                                    ? std::string("a single point: its verdict is verified to estimated tolerances (not proved; see rhoflow prove)")
                                    : std::string("between the evaluated parameter points the result is sampled, not "
                                                  "proved (no Lipschitz bound in the model parameters is used)");
    ensure_finite(doc);
    return doc;
}

Table check_table(const CheckParams& params, const CheckResult& result) {
    Table t;
    t.caption = fmt::format("rhoflow check {} over {}: {} ({} points: {} hold, {} fail, {} undecided)",
                            to_string(params.claim), box_text(params), to_string(result.verdict),
                            result.points.size(), result.holds, result.fails, result.undecided);
    t.meta = {fmt::format("rhoflow {} check", version),
              "claim = " + to_string(params.claim),
              "box = " + box_text(params),
              fmt::format("grid = {} per ranged axis, refine = {} (levels done {})", params.grid, params.refine,
                          result.diagnostics.levels),
              fmt::format("field = {}, tol = {}, table points <= {}, exact rel_tol = {}", to_string(params.certify.field),
                          format_number(params.certify.tol), params.certify.table.max_points,
                          format_number(params.certify.table.exact.rel_tol)),
              "margin: signed, relative (docs/cli.md, rhoflow check); holds iff margin > error, fails iff margin < -error",
              "between the points the result is sampled, not proved"};
    if (params.claim.kind == ClaimKind::hitting_time)
        t.meta.push_back(fmt::format("rho0 = {}, level |rho| >= {}", format_number(params.certify.rho0),
                                     format_number(1 - params.certify.hit_eps)));
    t.label = "tab:rhoflow-check";
    t.columns = {{"d", "d", "$d$", "{:.0f}"},
                 {"L", "L", "$L$", "{:.0f}"},
                 {"R", "R", "$R$", "{:.0f}"},
                 {"theta", "theta", "$\\theta$", "{:.6g}"},
                 {"sigma", "sigma", "$\\sigma$", "{:.6g}"},
                 {"beta", "beta", "$\\beta$", "{:.6g}"},
                 {"level", "level", "level", "{:.0f}"},
                 {"verdict", "verdict", "verdict", "{}"},
                 {"margin", "margin", "margin", "{:.4e}"},
                 {"error", "error", "error", "{:.2e}"},
                 {"where", "rho", "$\\rho$", "{:.6f}"},
                 {"table_points", "table points", "table points", "{:.0f}"}};
    const bool attractors = params.claim.kind == ClaimKind::attractors;
    const bool hitting = params.claim.kind == ClaimKind::hitting_time;
    if (attractors) t.columns.push_back({"attractors", "attractors", "attractors", "{:.0f}"});
    if (hitting) t.columns.push_back({"hit_time", "hitting time", "$T_{\\mathrm{hit}}$", "{:.6g}"});
    for (const auto& p : result.points) {
        std::vector<TableCell> row;
        for (int a = 0; a < axis_count; ++a) row.push_back(p.values[a]);
        row.push_back(static_cast<double>(p.level));
        row.push_back(std::string(to_string(p.cert.verdict)));
        row.push_back(p.cert.margin);
        row.push_back(p.cert.error);
        row.push_back(p.cert.where);
        row.push_back(static_cast<double>(p.cert.table_points));
        if (attractors) {
            if (p.cert.attractors >= 0)
                row.emplace_back(static_cast<double>(p.cert.attractors));
            else
                row.emplace_back(std::monostate{});
        }
        if (hitting) {
            if (p.cert.hit_time >= 0)
                row.emplace_back(p.cert.hit_time);
            else
                row.emplace_back(std::monostate{});
        }
        t.rows.push_back(std::move(row));
    }
    return t;
}

PaperTable check_paper_table(const CheckParams& params, const CheckResult& result, const std::string& stem) {
    static const char* const latex_names[axis_count] = {"$d$", "$L$", "$R$", "$\\theta$", "$\\sigma$", "$\\beta$"};
    static const char* const md_names[axis_count] = {"d", "L", "R", "θ", "σ", "β"};
    std::vector<PaperColumn> cols;
    const auto ax = params.box.axes();
    std::string fixed_tex, fixed_md, ranged_tex, ranged_md;
    for (int a = 0; a < axis_count; ++a) {
        const std::string key(axis_name(a));
        if (ax[a]->ranged()) {
            cols.push_back({key, md_names[a], latex_names[a], key, "", "", "", 6, -1, false});
            const std::string lo = format_exact(ax[a]->lo, 6, UncertainStyle::latex);
            const std::string hi = format_exact(ax[a]->hi, 6, UncertainStyle::latex);
            ranged_tex += fmt::format("{}{} \\in [{}, {}]$ ({})", ranged_tex.empty() ? "" : ", ",
                                      std::string(latex_names[a]).substr(0, std::string(latex_names[a]).size() - 1),
                                      lo.substr(1, lo.size() - 2), hi.substr(1, hi.size() - 2), to_string(ax[a]->effective_scale()));
            ranged_md += fmt::format("{}{} in [{}, {}] ({})", ranged_md.empty() ? "" : ", ", md_names[a],
                                     format_exact(ax[a]->lo, 6, UncertainStyle::markdown),
                                     format_exact(ax[a]->hi, 6, UncertainStyle::markdown),
                                     to_string(ax[a]->effective_scale()));
        } else {
            const std::string v = format_exact(ax[a]->lo, 6, UncertainStyle::latex);
            fixed_tex += fmt::format("{}{} = {}", fixed_tex.empty() ? "" : ", ",
                                     std::string(latex_names[a]).substr(0, std::string(latex_names[a]).size() - 1),
                                     v.substr(1));
            fixed_md += fmt::format("{}{} = {}", fixed_md.empty() ? "" : ", ", md_names[a],
                                    format_exact(ax[a]->lo, 6, UncertainStyle::markdown));
        }
    }
    cols.push_back({"verdict", "verdict", "verdict", "verdict", "", "", "", 6, -1, false});
    cols.push_back({"margin", "margin", "margin", "margin", "error", "", "", 3, -1, false});
    cols.push_back({"where", "at ρ", "at $\\rho$", "where", "", "", "", 4, -1, false});
    if (params.claim.kind == ClaimKind::attractors)
        cols.push_back({"attractors", "attractors", "attractors", "attractors", "", "", "", 6, -1, false});
    if (params.claim.kind == ClaimKind::hitting_time)
        cols.push_back({"hit_time", "hitting time", "$T_{\\mathrm{hit}}$", "hit_time", "", "", "", 4, -1, false});
    auto caption = [&](bool latex) {
        return fmt::format(
            "Claim '{}' checked at {} parameter points ({} hold, {} fail, {} undecided; verdict: {}) of the box {}{}{}{}. "
            "The margin is signed and relative (docs/cli.md, rhoflow check) with its error: a point holds when the "
            "margin exceeds its error; between the points the result is sampled, not proved.",
            latex ? latex_escape(to_string(params.claim)) : to_string(params.claim), result.points.size(), result.holds,
            result.fails, result.undecided, to_string(result.verdict),
            latex ? ranged_tex : ranged_md, (latex ? ranged_tex : ranged_md).empty() ? "" : " with ",
            latex ? fixed_tex : fixed_md, params.noise == NoiseConvention::per_norm ? " (sigma per norm)" : "");
    };
    return paper_table(check_table(params, result), cols, caption(true), caption(false), paper_label(stem, "check"));
}

namespace {

// Colour and legend name of each verdict code (0 holds, 1 fails, 2 undecided).
constexpr const char* kVerdictColours[3] = {"#2ca02c", "#d62728", "#7f7f7f"};
constexpr const char* kVerdictNames[3] = {"holds", "fails", "undecided"};

// The axis label of parameter a, with the fixed L it is relative to and the noise convention.
std::string axis_label(const CheckParams& params, int a) {
    std::string l(axis_name(a));
    if (a == static_cast<int>(Axis::R) && !params.box.L.ranged())
        l += fmt::format(" (R/L = R/{})", format_number(params.box.L.lo));
    if (a == static_cast<int>(Axis::d) && !params.box.L.ranged())
        l += fmt::format(" (d/L = d/{})", format_number(params.box.L.lo));
    if (a == static_cast<int>(Axis::sigma) && params.noise == NoiseConvention::per_norm) l += " (per norm)";
    return l;
}

// Gnuplot settings of axis `which` ('x' or 'y') for range r: log scale when r is on one, and a
// range padded by 3% of the axis so that edge points show whole.
std::string axis_range(const ParamRange& r, char which) {
    if (r.effective_scale() == AxisScale::log) {
        const double f = std::pow(r.hi / r.lo, 0.03);
        // Tics at 1, 2, 5 x 10^k inside the range (gnuplot's own log tics are decades only).
        std::string tics;
        for (int e = static_cast<int>(std::floor(std::log10(r.lo))) - 1; e <= std::log10(r.hi) + 1; ++e)
            for (double m : {1.0, 2.0, 5.0}) {
                const double t = m * std::pow(10.0, e);
                if (t >= r.lo / f && t <= r.hi * f) tics += fmt::format("{}{:g}", tics.empty() ? "" : ", ", t);
            }
        return fmt::format("set logscale {0}\nset {0}range [{1:.17g}:{2:.17g}]\nset {0}tics ({3})\n", which,
                           r.lo / f, r.hi * f, tics);
    }
    const double pad = 0.03 * (r.hi - r.lo);
    return fmt::format("set {}range [{:.17g}:{:.17g}]\n", which, r.lo - pad, r.hi + pad);
}

// check_points.dat: per point x, y (with one axis: the margin), verdict code, margin, error,
// attractors, level and marker size (smaller for refined points).
std::string points_data(const CheckParams& params, const CheckResult& result, int xa, int ya) {
    const double base = std::clamp(55.0 / params.grid, 0.35, 3.0);
    std::string d = fmt::format("# {} {} verdict(0 holds,1 fails,2 undecided) margin error attractors level size\n",
                                axis_name(xa), ya >= 0 ? axis_name(ya) : "margin");
    for (const auto& p : result.points)
        d += fmt::format("{:.17g} {:.17g} {} {:.10g} {:.10g} {} {} {:.4g}\n", p.values[xa],
                         ya >= 0 ? p.values[ya] : p.cert.margin, verdict_code(p.cert.verdict), p.cert.margin,
                         p.cert.error, p.cert.attractors, p.level, base / std::pow(2.0, p.level));
    return d;
}

// check_boundary.dat: the centres of the finest disagreeing cells in the (xa, ya) plane.
std::string boundary_data(const CheckResult& result, int xa, int ya) {
    std::string b = fmt::format("# {} {} (centres of the finest cells whose corners disagree)\n", axis_name(xa),
                                axis_name(ya));
    for (const auto& c : result.boundary) b += fmt::format("{:.17g} {:.17g}\n", c[xa], c[ya]);
    if (result.boundary.empty()) b += "# (none: all corners agree)\n";
    return b;
}

// The check_map script over two axes: each point coloured by verdict, the boundary in black.
std::string verdict_map_2d(const CheckParams& params, const CheckResult& result, const std::string& title, int xa,
                           int ya) {
    const auto ax = params.box.axes();
    const std::string head = fmt::format("set title \"{}\" noenhanced\nset xlabel \"{}\" noenhanced\nset ylabel "
                                         "\"{}\" noenhanced\n{}{}set key below\nset grid\n",
                                         title, axis_label(params, xa), axis_label(params, ya),
                                         axis_range(*ax[xa], 'x'), axis_range(*ax[ya], 'y'));
    std::string plot = "plot ";
    for (int v = 0; v < 3; ++v)
        plot += fmt::format("'check_points.dat' using 1:($3 == {} ? $2 : 1/0):8 with points pt 5 ps variable lc "
                            "rgb '{}' title '{}', ",
                            v, kVerdictColours[v], kVerdictNames[v]);
    plot += result.boundary.empty() ? std::string("1/0 notitle")
                                    : std::string("'check_boundary.dat' using 1:2 with points pt 7 ps 0.35 lc rgb "
                                                  "'black' title 'boundary (finest disagreeing cells)'");
    return head + plot;
}

// The check_attractors script over two axes: each point coloured by its number of attractors.
std::string attractors_map_2d(const CheckParams& params, const CheckResult& result, int xa, int ya) {
    const auto ax = params.box.axes();
    std::set<int> counts;
    for (const auto& p : result.points) counts.insert(p.cert.attractors);
    const char* palette[] = {"#ffffff", "#1f77b4", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"};
    std::string ap = "plot ";
    for (int n : counts) {
        const std::string colour = n < 0 ? "#7f7f7f" : palette[std::min(n, 5)];
        const std::string name =
            n < 0 ? std::string("not certified") : fmt::format("{} attractor{}", n, n == 1 ? "" : "s");
        ap += fmt::format("'check_points.dat' using 1:($6 == {} ? $2 : 1/0):8 with points pt 5 ps variable "
                          "lc rgb '{}' title '{}', ",
                          n, colour, name);
    }
    ap += result.boundary.empty() ? std::string("1/0 notitle")
                                  : std::string("'check_boundary.dat' using 1:2 with points pt 7 ps 0.35 lc rgb "
                                                "'black' title 'boundary'");
    const std::string atitle = fmt::format("number of stable equilibria of d rho/dt = F(rho)\\n{}, {} field",
                                           box_text(params), to_string(params.certify.field));
    return fmt::format("set title \"{}\" noenhanced\nset xlabel \"{}\" noenhanced\nset ylabel \"{}\" "
                       "noenhanced\n{}{}set key below\nset grid\nset object 1 rectangle from graph "
                       "0,0 to graph 1,1 behind fc rgb '#f0f0f0' fs solid noborder\n{}",
                       atitle, axis_label(params, xa), axis_label(params, ya), axis_range(*ax[xa], 'x'),
                       axis_range(*ax[ya], 'y'), ap);
}

// The check_map script over one axis: the margin with its error bar, coloured by verdict.
std::string margin_plot_1d(const CheckParams& params, const std::string& title, int xa) {
    const auto ax = params.box.axes();
    std::string plot = fmt::format("set title \"{}\" noenhanced\nset xlabel \"{}\" noenhanced\nset ylabel "
                                   "'margin (relative; > 0 supports the claim)'\n{}set key below\nset "
                                   "grid\nset xzeroaxis lt -1\nplot ",
                                   title, axis_label(params, xa), axis_range(*ax[xa], 'x'));
    for (int v = 0; v < 3; ++v)
        plot += fmt::format("{}'check_points.dat' using 1:($3 == {} ? $4 : 1/0):5 with yerrorbars pt 7 lc rgb '{}' "
                            "title '{}'",
                            v ? ", " : "", v, kVerdictColours[v], kVerdictNames[v]);
    return plot;
}

}  // namespace

CheckFigures check_figures(const CheckParams& params, const CheckResult& result, int x_axis) {
    CheckFigures out;
    const auto& ranged = result.ranged_axes;
    if (ranged.empty() || ranged.size() > 2) {
        out.skipped = ranged.empty() ? "no figure: no ranged parameter"
                                     : fmt::format("no figure: {} ranged parameters (the phase diagram shows 1 or 2)",
                                                   ranged.size());
        return out;
    }
    int xa = ranged[0], ya = ranged.size() == 2 ? ranged[1] : -1;
    if (ya >= 0 && x_axis == ya) std::swap(xa, ya);
    const std::string title =
        fmt::format("rhoflow check {}: {} ({} points: {} hold, {} fail, {} undecided)\\n{}, {} field",
                    to_string(params.claim), to_string(result.verdict), result.points.size(), result.holds,
                    result.fails, result.undecided, box_text(params), to_string(params.certify.field));
    out.data_files.push_back({"check_points.dat", points_data(params, result, xa, ya)});
    if (ya >= 0) {
        out.data_files.push_back({"check_boundary.dat", boundary_data(result, xa, ya)});
        out.figures.push_back({"check_map", verdict_map_2d(params, result, title, xa, ya)});
        if (params.claim.kind == ClaimKind::attractors)
            out.figures.push_back({"check_attractors", attractors_map_2d(params, result, xa, ya)});
    } else {
        out.figures.push_back({"check_map", margin_plot_1d(params, title, xa)});
    }
    return out;
}

std::string check_text(const CheckParams& params, const CheckResult& r) {
    std::string s = fmt::format("# rhoflow check {}\nbox: {}\n", to_string(params.claim), box_text(params));
    s += fmt::format("grid: {} per ranged axis, refine {} (levels done {}); field {}, tol {}\n", params.grid,
                     params.refine, r.diagnostics.levels, to_string(params.certify.field),
                     format_number(params.certify.tol));
    s += fmt::format("verdict: {}  ({} points: {} hold, {} fail, {} undecided; min margin {:.4e})\n",
                     to_string(r.verdict), r.points.size(), r.holds, r.fails, r.undecided, r.min_margin);
    if (r.points.size() == 1) s += fmt::format("at the point: {}\n", r.points.front().cert.note);
    if (r.witness) {
        const auto& w = *r.witness;
        s += fmt::format("witness (largest |margin| among failures): {}\n  margin {:.4e} +- {:.2e}: {}\n",
                         describe(w.model), w.margin, w.error, w.note);
        s += fmt::format("  reproduce: {}\n", w.command);
        if (!w.claim_command.empty()) s += fmt::format("  directly:  {}\n", w.claim_command);
    }
    for (const auto& n : r.diagnostics.notes) s += "note: " + n + "\n";
    s += fmt::format("({:.2f} s on {} thread{}, {} field evaluations, largest table {} points)\n",
                     r.diagnostics.seconds, r.diagnostics.threads, r.diagnostics.threads == 1 ? "" : "s",
                     r.diagnostics.field_samples, r.diagnostics.max_table_points);
    return s;
}

}  // namespace rhoflow
