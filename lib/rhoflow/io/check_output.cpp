#include "rhoflow/io/check_output.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/table_files.hpp"
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

namespace {
// The columns of points.csv: the point, its verdict and margin, and the claim's own column.
std::vector<TableColumn> point_columns(bool attractors, bool hitting) {
    std::vector<TableColumn> c = {
        {"d", "d", "$d$", "{:.0f}", "dimension d of the tokens", kUnitless, true},
        {"L", "L", "$L$", "{:.0f}", "tokens per sequence L", kUnitless, true},
        {"R", "R", "$R$", "{:.0f}", "informative tokens R (those carrying the signal)", kUnitless, true},
        {"theta", "theta", "$\\theta$", "{:.6g}", "signal strength theta", kUnitless},
        {"sigma", "sigma", "$\\sigma$", "{:.6g}", "noise level sigma of the point (as the box ranges it)", kUnitless},
        {"beta", "beta", "$\\beta$", "{:.6g}", "inverse temperature beta of the softmax", kUnitless},
        {"level", "level", "level", "{:.0f}", "refinement level that added the point (0: the grid)", kUnitless, true},
        {"verdict", "verdict", "verdict", "{}", "the claim at this point: holds, fails or undecided", kText},
        {"margin", "margin", "margin", "{:.4e}", "signed margin relative to the field's scale (> 0 supports the claim)",
         kUnitless},
        {"error", "error", "error", "{:.2e}", "error bound of the margin (field error + search gap)", kUnitless},
        {"where", "rho", "$\\rho$", "{:.6f}", "rho where the margin is attained (hitting-time: rho0)", kUnitless},
        {"table_points", "table points", "table points", "{:.0f}",
         "size of the Chebyshev-Lobatto grid of the field's table", kUnitless, true}};
    if (attractors)
        c.push_back({"attractors", "attractors", "attractors", "{:.0f}", "stable equilibria counted (empty: not certified)",
                     kUnitless, true});
    if (hitting)
        c.push_back({"hit_time", "hitting time", "$T_{\\mathrm{hit}}$", "{:.6g}",
                     "certified ODE hitting time of the level from rho0 (empty: never reached)", kOdeTime});
    return c;
}
}  // namespace

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
    const bool attractors = params.claim.kind == ClaimKind::attractors;
    const bool hitting = params.claim.kind == ClaimKind::hitting_time;
    t.columns = point_columns(attractors, hitting);
    for (const auto& p : result.points) {
        std::vector<TableCell> row;
        // (emplace_back: GCC 12 warns falsely of an uninitialized string with push_back here)
        for (int a = 0; a < axis_count; ++a) row.emplace_back(std::in_place_type<double>, p.values[a]);
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

PaperTable check_paper_table(const CheckParams& params, const CheckResult& result, const std::string& stem,
                             const TableWidth& width) {
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
    cols.push_back({"margin", "margin ± est. error", "margin", "margin", "error", "", "", 3, -1, false, 6});
    cols.push_back({"where", "at ρ", "at $\\rho$", "where", "", "", "", 4, -1, false});
    if (params.claim.kind == ClaimKind::attractors)
        cols.push_back({"attractors", "attractors", "attractors", "attractors", "", "", "", 6, -1, false});
    if (params.claim.kind == ClaimKind::hitting_time)
        cols.push_back({"hit_time", "hitting time", "$T_{\\mathrm{hit}}$", "hit_time", "", "", "", 4, -1, false});
    auto caption = [&](bool latex) {
        return fmt::format(
            "Claim '{}' checked at {} parameter points ({} hold, {} fail, {} undecided; verdict: {}) of the box {}{}{}{}. "
            "Each point's verdict is verified to estimated tolerances, not proved: the margin is signed and relative "
            "(docs/cli.md, rhoflow check) and the error after it is an estimate (the field table's error and, where a "
            "derivative comes from the table, the {} estimate), not a bound; a point holds when the margin exceeds "
            "its estimated error ({}: that estimate, not a confidence interval; a margin without one has it below its sixth "
            "digit). Between the points the result is "
            "sampled, not proved.",
            latex ? latex_escape(to_string(params.claim)) : to_string(params.claim), result.points.size(), result.holds,
            result.fails, result.undecided, to_string(result.verdict),
            latex ? ranged_tex : ranged_md, (latex ? ranged_tex : ranged_md).empty() ? "" : " with ",
            latex ? fixed_tex : fixed_md, params.noise == NoiseConvention::per_norm ? " (sigma per norm)" : "",
            latex ? "$n^2\\varepsilon$" : "n²ε", latex ? "$\\pm$" : "±");
    };
    const Table full = check_table(params, result);
    PaperTable t = paper_table(full, cols, caption(true), caption(false), paper_label(stem, "check"));
    if (!fits(t, width) && cols.size() > 1) {  // where the margin is decided: in points.csv
        cols.erase(std::find_if(cols.begin(), cols.end(), [](const PaperColumn& c) { return c.key == "where"; }));
        t = paper_table(full, cols, caption(true), caption(false), paper_label(stem, "check"));
    }
    t.page = width.page || !fits(t, width);
    return t;
}

namespace {

// Colour and legend name of each verdict code (0 holds, 1 fails, 2 undecided).
constexpr const char* kVerdictColours[3] = {"#2ca02c", "#d62728", "#7f7f7f"};
constexpr const char* kVerdictNames[3] = {"holds", "fails", "undecided"};

// The symbol of parameter a: enhanced text (UTF-8) or LaTeX math.
std::string axis_symbol(int a, bool latex) {
    const std::string n(axis_name(a));
    if (n == "theta") return latex ? "$\\theta$" : "θ";
    if (n == "sigma") return latex ? "$\\sigma$" : "σ";
    if (n == "beta") return latex ? "$\\beta$" : "β";
    return latex ? "$" + n + "$" : n;
}

// The axis label of parameter a, with the fixed L it is relative to and the noise convention.
std::string axis_label(const CheckParams& params, int a, bool latex) {
    std::string l = axis_symbol(a, latex);
    if (a == static_cast<int>(Axis::R) && !params.box.L.ranged())
        l += latex ? fmt::format(" ($R/L = R/{}$)", format_number(params.box.L.lo))
                   : fmt::format(" (R/L = R/{})", format_number(params.box.L.lo));
    if (a == static_cast<int>(Axis::d) && !params.box.L.ranged())
        l += latex ? fmt::format(" ($d/L = d/{}$)", format_number(params.box.L.lo))
                   : fmt::format(" (d/L = d/{})", format_number(params.box.L.lo));
    if (a == static_cast<int>(Axis::sigma) && params.noise == NoiseConvention::per_norm) l += " (per norm)";
    return FigureText{latex}(l, l);
}

// A tic label: the number in a form both bodies print.
std::string tic_label(double t, bool latex) {
    const std::string plain = fmt::format("{:.4g}", t);
    return latex ? "$" + tex_number(t) + "$" : (plain.find('e') == std::string::npos ? plain : tex_number(t));
}

// Gnuplot settings of axis `which` ('x' or 'y') for range r: log scale when r is on one, a range
// padded by 3% of the axis so that edge points show whole, and tics labelled at both ends of the
// box (the interior tics at 1, 2, 5 x 10^k on a log axis, at a round step on a linear one, minus
// those too close to an end to be read apart).
std::string axis_range(const ParamRange& r, char which, bool latex) {
    const bool log = r.effective_scale() == AxisScale::log;
    auto position = [&](double v) { return log ? std::log(v) : v; };
    const double span = position(r.hi) - position(r.lo);
    std::vector<double> tics = {r.lo};
    auto interior = [&](double t) {
        if (t <= r.lo || t >= r.hi) return;
        if (std::abs(position(t) - position(r.lo)) < 0.12 * span || std::abs(position(r.hi) - position(t)) < 0.12 * span)
            return;
        tics.push_back(t);
    };
    if (log) {
        for (int e = static_cast<int>(std::floor(std::log10(r.lo))) - 1; e <= std::log10(r.hi) + 1; ++e)
            for (double m : {1.0, 2.0, 5.0}) interior(m * std::pow(10.0, e));
    } else if (r.hi > r.lo) {
        const double raw = (r.hi - r.lo) / 4, mag = std::pow(10.0, std::floor(std::log10(raw)));
        const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
        for (double t = std::ceil(r.lo / step) * step; t < r.hi; t += step) interior(t);
    }
    if (r.hi > r.lo) tics.push_back(r.hi);
    std::string list;
    for (double t : tics) list += fmt::format("{}'{}' {:.17g}", list.empty() ? "" : ", ", tic_label(t, latex), t);
    std::string out = fmt::format("set {}tics ({})\n", which, list);
    if (log) {
        const double f = std::pow(r.hi / r.lo, 0.03);
        return fmt::format("set logscale {0}\nset {0}range [{1:.17g}:{2:.17g}]\n", which, r.lo / f, r.hi * f) + out;
    }
    const double pad = r.hi > r.lo ? 0.03 * (r.hi - r.lo) : 0.03 * std::max(1.0, std::abs(r.lo));
    return fmt::format("set {}range [{:.17g}:{:.17g}]\n", which, r.lo - pad, r.hi + pad) + out;
}

// check_points.dat: per point x, y (with one axis: the margin), verdict code, margin, error,
// attractors, level and marker size (smaller for refined points).
std::string points_data(const CheckParams& params, const CheckResult& result, int xa, int ya, double plot_width_in) {
    // A square of point size 1 is about 10 pt wide: a coarse point fills 80% of its grid cell.
    const double cell_pt = plot_width_in * 72.0 / std::max(1, params.grid - 1);
    const double base = std::clamp(0.08 * cell_pt, 0.2, 3.0);
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

// Margins (screen) leaving `key_rows` lines of key below the plot.
std::string check_margins(const FigureGeometry& g, int key_rows) {
    const double line = g.font_pt * 1.35 / 72.0 / g.height;
    return fmt::format("set lmargin at screen {:.4f}\nset rmargin at screen {:.4f}\nset bmargin at screen "
                       "{:.4f}\nset tmargin at screen {:.4f}\nset key at screen 0.5, screen 0.005 center bottom "
                       "vertical maxrows {} samplen 1.5 width 1\n",
                       std::min(0.35, g.font_pt * 6.5 / 72.0 / g.width), 1 - 0.25 / g.width,
                       (key_rows * g.font_pt * 1.35 / 72.0 + 0.06) / g.height + 2.6 * line, 1 - 0.8 * line, key_rows);
}

// The check_map script over two axes: each point coloured by verdict, the boundary in black.
std::string verdict_map_2d(const CheckParams& params, const CheckResult& result, const FigureGeometry& g, int xa, int ya,
                           bool latex) {
    const auto ax = params.box.axes();
    const FigureText T{latex};
    std::string s = "set xlabel " + axis_label(params, xa, latex) + "\nset ylabel " + axis_label(params, ya, latex) +
                    "\n" + axis_range(*ax[xa], 'x', latex) + axis_range(*ax[ya], 'y', latex) + check_margins(g, 2) +
                    "set grid front\n";
    std::string plot = "plot ";
    for (int v = 0; v < 3; ++v)
        plot += fmt::format("'check_points.dat' using 1:($3 == {} ? $2 : 1/0):8 with points pt 5 ps variable lc "
                            "rgb '{}' title {}, ",
                            v, kVerdictColours[v], T(kVerdictNames[v], kVerdictNames[v]));
    plot += result.boundary.empty()
                ? std::string("1/0 notitle")
                : "'check_boundary.dat' using 1:2 with points pt 7 ps 0.3 lc rgb 'black' title " +
                      T("boundary", "boundary");
    return s + plot;
}

// The check_attractors script over two axes: each point coloured by its number of attractors.
std::string attractors_map_2d(const CheckParams& params, const CheckResult& result, const FigureGeometry& g, int xa,
                              int ya, bool latex) {
    const auto ax = params.box.axes();
    const FigureText T{latex};
    std::set<int> counts;
    for (const auto& p : result.points) counts.insert(p.cert.attractors);
    const char* palette[] = {"#ffffff", "#1f77b4", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"};
    std::string ap = "plot ";
    for (int n : counts) {
        const std::string colour = n < 0 ? "#7f7f7f" : palette[std::min(n, 5)];
        const std::string name =
            n < 0 ? std::string("not certified") : fmt::format("{} attractor{}", n, n == 1 ? "" : "s");
        ap += fmt::format("'check_points.dat' using 1:($6 == {} ? $2 : 1/0):8 with points pt 5 ps variable "
                          "lc rgb '{}' title {}, ",
                          n, colour, T(name, name));
    }
    ap += result.boundary.empty() ? std::string("1/0 notitle")
                                  : "'check_boundary.dat' using 1:2 with points pt 7 ps 0.3 lc rgb 'black' title " +
                                        T("boundary", "boundary");
    return "set xlabel " + axis_label(params, xa, latex) + "\nset ylabel " + axis_label(params, ya, latex) + "\n" +
           axis_range(*ax[xa], 'x', latex) + axis_range(*ax[ya], 'y', latex) + check_margins(g, 2) +
           "set grid front\nset object 1 rectangle from graph 0,0 to graph 1,1 behind fc rgb '#f0f0f0' fs solid "
           "noborder\n" + ap;
}

// The check_map script over one axis: the margin with its error bar, coloured by verdict.
std::string margin_plot_1d(const CheckParams& params, const FigureGeometry& g, int xa, bool latex) {
    const auto ax = params.box.axes();
    const FigureText T{latex};
    std::string plot = "set xlabel " + axis_label(params, xa, latex) + "\nset ylabel " +
                       T("relative margin (> 0 supports the claim)", "relative margin ($>0$ supports the claim)") +
                       "\n" + axis_range(*ax[xa], 'x', latex) + check_margins(g, 1) +
                       "set grid\nset xzeroaxis lt -1\nset offsets 0, 0, graph 0.05, graph 0.05\nplot ";
    for (int v = 0; v < 3; ++v)
        plot += fmt::format("{}'check_points.dat' using 1:($3 == {} ? $4 : 1/0):5 with yerrorbars pt 7 ps 0.6 lc rgb "
                            "'{}' title {}",
                            v ? ", " : "", v, kVerdictColours[v], T(kVerdictNames[v], kVerdictNames[v]));
    return plot;
}

// The box in a sentence of LaTeX.
std::string box_tex(const CheckParams& p) {
    std::string s;
    const auto ax = p.box.axes();
    for (int a = 0; a < axis_count; ++a) {
        const ParamRange& r = *ax[a];
        std::string sym = axis_symbol(a, true);
        sym = sym.substr(1, sym.size() - 2);
        s += fmt::format("{}${} {}$", s.empty() ? "" : ", ", sym,
                         r.ranged() ? fmt::format("\\in [{}, {}]", tex_number(r.lo), tex_number(r.hi))
                                    : "= " + tex_number(r.lo));
        if (r.ranged()) s += fmt::format(" ({} scale)", to_string(r.effective_scale()));
    }
    if (p.noise == NoiseConvention::per_norm) s += " ($\\sigma$ per norm)";
    return s;
}

}  // namespace

CheckFigures check_figures(const CheckParams& params, const CheckResult& result, int x_axis, const FigureParams& size) {
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
    const std::string caption =
        fmt::format("\\texttt{{rhoflow check}} of the claim \\texttt{{{}}}: {} ({} points: {} hold, {} fail, {} "
                    "undecided) over the box {}, {} field.{} Verdicts are verified to the field's estimated error at "
                    "each point; between points the result is sampled, not proved.",
                    to_string(params.claim), to_string(result.verdict), result.points.size(), result.holds, result.fails,
                    result.undecided, box_tex(params), to_string(params.certify.field),
                    ya >= 0 ? " Each point is coloured by its verdict (refined points smaller); black dots mark the "
                              "centres of the finest cells whose corners disagree."
                            : " The relative margin of each point with its error bar.");
    const FigureGeometry shape = figure_geometry(size, ya >= 0 ? 0.95 : 0.75);
    out.data_files.push_back({"check_points.dat", points_data(params, result, xa, ya, 0.8 * shape.width)});
    if (ya >= 0) {
        const FigureGeometry g = figure_geometry(size, 0.95);
        out.data_files.push_back({"check_boundary.dat", boundary_data(result, xa, ya)});
        Figure map{"check_map", verdict_map_2d(params, result, g, xa, ya, false),
                   verdict_map_2d(params, result, g, xa, ya, true), caption, 0.95};
        out.figures.push_back(map);
        if (params.claim.kind == ClaimKind::attractors)
            out.figures.push_back(
                {"check_attractors", attractors_map_2d(params, result, g, xa, ya, false),
                 attractors_map_2d(params, result, g, xa, ya, true),
                 fmt::format("Number of stable equilibria of $\\dot\\rho = F(\\rho)$ over the box {}, {} field.",
                             box_tex(params), to_string(params.certify.field)),
                 0.95});
    } else {
        const FigureGeometry g = figure_geometry(size, 0.75);
        out.figures.push_back({"check_map", margin_plot_1d(params, g, xa, false), margin_plot_1d(params, g, xa, true),
                               caption, 0.75});
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

std::vector<std::string> write_check(const CheckParams& params, const CheckResult& result, const nlohmann::json& certificate,
                                     const std::filesystem::path& dir, bool render, const Provenance& provenance, int x_axis,
                                     const FigureParams& figure, const std::string& stem, bool citation,
                                     const TableParams& tables) {
    const std::string cite_line = citation ? "CITATION.bib; " : "";
    write_file_atomic(dir / "check.json", certificate.dump(2) + "\n");
    Table points = check_table(params, result);
    set_json_paths(points, "points", {{"sigma", "sigma_input"}});  // the box's sigma as given (per norm or per coordinate)
    const PaperTable paper = check_paper_table(params, result, stem, table_width(tables));
    write_table_files(points, dir, "points", provenance, &paper);
    std::vector<std::string> lines = {"check.json; " + cite_line + "points.{csv,md,tex}"};
    const CheckFigures figs = check_figures(params, result, x_axis, figure);
    for (const auto& [name, content] : figs.data_files) write_file_atomic(dir / name, content);
    for (auto& l : render_figures(dir, figs.figures, render, figure, stem, provenance_lines(provenance))) lines.push_back(l);
    if (!figs.skipped.empty()) lines.push_back(figs.skipped);
    return lines;
}

}  // namespace rhoflow
