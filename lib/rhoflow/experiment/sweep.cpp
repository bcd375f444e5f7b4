#include "rhoflow/experiment/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <optional>

#include "rhoflow/core/number_text.hpp"
#include "rhoflow/io/paper_table.hpp"
#include "rhoflow/io/uncertain.hpp"

namespace rhoflow {

namespace {

// One cell's headline numbers (nothing computed here: read off the cell's result).
struct CellValues {
    std::size_t cell = 0;                 // index into Experiment::cells
    MeanCI final;                         // SGA mean |rho_final| with its 95% CI
    std::optional<double> ode_final;      // |rho_ODE| at the end
    std::optional<double> pred, pred_err; // effective prediction of |rho_final| and its standard error
    std::optional<MeanCI> hit_sga, hit_ode;
    std::optional<double> hit_pred;
    double eta_final = 0;                 // the last step size
    std::optional<double> rho_star, rho_star_err;  // effective attractor at eta_final
    std::optional<MeanCI> hit_pred_ci;    // the effective chain's hitting time over its paths that hit
    double level = 0, t_final = 0;        // the hitting level and the run's last ODE time
    std::int64_t trials = 0;              // SGA trials of the cell
    std::optional<double> plateau, plateau_after;  // the SGA ensemble on its plateau within (after, plateau]
};

std::optional<CellValues> values_of(const ExperimentCell& c, const JobResult& result) {
    CellValues v;
    if (const auto* r = std::get_if<CompareResult>(&result)) {
        const SgaParams& s = r->params.sga;
        v.final = r->summary.abs_rho_final;
        v.ode_final = r->abs_rho_ode_final;
        v.hit_sga = r->hitting_time.sga;
        v.hit_ode = r->hitting_time.ode;
        v.eta_final = s.schedule.eta(s.steps);
        v.level = r->hitting_time.level, v.t_final = r->t_final, v.trials = s.trials;
        v.plateau = r->hitting_time.sga_plateau, v.plateau_after = r->hitting_time.sga_plateau_after;
        if (r->effective && r->verdict) {
            const EffectiveSummary& e = *r->effective;
            v.pred = e.abs_rho_final.mean;
            v.pred_err = std::hypot(e.abs_rho_final.se, e.abs_rho_final_err);
            v.hit_pred_ci = e.hit_time;
            if (e.hit_time) v.hit_pred = e.hit_time->mean;
            const PlateauPoint* best = nullptr;  // the tabulated step size nearest eta_final
            for (const auto& p : e.plateau)
                if (p.eta > 0 && (!best || std::abs(std::log(p.eta / v.eta_final)) < std::abs(std::log(best->eta / v.eta_final))))
                    best = &p;
            if (best) v.rho_star = best->rho_star, v.rho_star_err = best->rho_star_err;
        }
    } else if (const auto* q = std::get_if<SgaJobResult>(&result)) {
        const auto* job = std::get_if<SgaJob>(&c.job);
        v.final = q->ensemble.summary.abs_rho_final;
        if (job) v.eta_final = job->sga.schedule.eta(job->sga.steps);
    } else {
        return std::nullopt;
    }
    return v;
}

std::optional<double> number(const std::string& t) {
    const auto x = parse_number(t);
    if (!x || !std::isfinite(*x)) return std::nullopt;
    return x;
}

// The symbol of a setting: enhanced text or LaTeX.
std::string symbol(const std::string& key, bool latex) {
    static const std::map<std::string, std::pair<std::string, std::string>> known = {
        {"theta", {"θ", "$\\theta$"}}, {"sigma", {"σ", "$\\sigma$"}}, {"beta", {"β", "$\\beta$"}},
        {"eta0", {"η_0", "$\\eta_0$"}}, {"k0", {"k_0", "$k_0$"}},      {"gamma", {"γ", "$\\gamma$"}},
        {"L", {"L", "$L$"}},           {"R", {"R", "$R$"}},            {"d", {"d", "$d$"}},
        {"rho0", {"ρ_0", "$\\rho_0$"}}, {"steps", {"steps", "steps"}}, {"trials", {"trials", "trials"}}};
    const auto it = known.find(key);
    if (it != known.end()) return latex ? it->second.second : it->second.first;
    std::string k = key;
    if (latex)
        for (std::size_t i = 0; i < k.size(); ++i)
            if (k[i] == '_' || k[i] == '%' || k[i] == '#' || k[i] == '&') k.insert(i++, "\\");
    return latex ? "\\texttt{" + k + "}" : k;
}

// A value text for a legend: the number in short form.
std::string value_text(const std::string& t, bool latex) {
    const auto x = number(t);
    if (!x) return latex ? "\\texttt{" + t + "}" : t;
    const std::string s = fmt::format("{:.6g}", *x);  // 10500, 0.25 (a C exponent only beyond 6 digits)
    if (s.find('e') != std::string::npos) return latex ? "$" + tex_number(*x) + "$" : tex_number(*x);
    return latex ? "$" + s + "$" : s;
}

std::string opt_text(const std::optional<double>& v) { return v ? fmt::format("{:.10g}", *v) : std::string("?"); }

constexpr const char* kColours[] = {"#08519c", "#e6550d", "#31a354", "#756bb1", "#d62728", "#636363", "#8c6d31", "#e377c2"};

std::string colour(std::size_t i) { return kColours[i % (sizeof kColours / sizeof kColours[0])]; }

// The layout every sweep figure shares (io/plot.hpp's, measured): margins and a key below the plot.
std::string frame(const FigureGeometry& g, int entries, bool latex) {
    const int columns = key_columns(g);
    const double line = g.font_pt * 1.35 / 72.0 / g.height;
    // (a quarter line less below the x label than io/plot's two lines: its tics are numbers only)
    return side_margins(g) + vertical(key_fraction(g, entries, columns) + label_space(g, latex) - 0.25 * line, 1 - 0.5 * line) +
           key_below(entries, columns) + "set grid\nset datafile missing '?'\nset offsets 0, 0, 0, 0\n";
}

struct Group {
    std::string label_text, label_tex;  // "θ = 0.25, L = 1000" (empty: the only group)
    std::vector<std::pair<double, const CellValues*>> points;  // by x
};

// The cells of the task grouped by the values of every ranged key except `key` (its values the x).
std::vector<Group> groups_over(const Experiment& e, const std::vector<CellValues>& cells, const std::string& key,
                               const std::vector<std::string>& exclude, double (*x_of)(const CellValues&, double)) {
    std::map<std::vector<std::string>, Group> by;
    std::vector<std::vector<std::string>> order;
    for (const auto& v : cells) {
        const ExperimentCell& c = e.cells[v.cell];
        std::vector<std::string> id;
        std::string text, tex;
        std::optional<double> x;
        for (const auto& [k, t] : c.swept) {
            if (k == key) {
                x = number(t);
                continue;
            }
            if (std::find(exclude.begin(), exclude.end(), k) != exclude.end()) continue;
            id.push_back(t);
            text += fmt::format("{}{} = {}", text.empty() ? "" : ", ", symbol(k, false), value_text(t, false));
            tex += fmt::format("{}{} $=$ {}", tex.empty() ? "" : ", ", symbol(k, true), value_text(t, true));
        }
        if (!x && !key.empty()) continue;
        if (!by.count(id)) order.push_back(id);
        Group& g = by[id];
        g.label_text = text;
        g.label_tex = tex;
        g.points.push_back({x_of(v, x.value_or(0)), &v});
    }
    std::vector<Group> out;
    for (const auto& id : order) {
        Group g = by[id];
        std::sort(g.points.begin(), g.points.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        out.push_back(std::move(g));
    }
    return out;
}

double given_x(const CellValues&, double x) { return x; }
double eta_final_x(const CellValues& v, double) { return v.eta_final; }

std::string data_of(const std::vector<Group>& groups, const std::string& x_name) {
    std::string d = fmt::format("# {} sga_mean ci95_lo ci95_hi ode_final pred pred_err hit_sga hit_sga_lo hit_sga_hi "
                                "hit_ode hit_pred rho_star rho_star_err no_hit_t plateau_t plateau_after (no_hit_t: the run's last "
                                "time where no trial hit; plateau_t: the first record time at which the SGA mean |rho| "
                                "has risen 90% of the way to its final value, plateau_after the record before; one block per group; '?' = "
                                "none)\n",
                                x_name);
    for (std::size_t i = 0; i < groups.size(); ++i) {
        if (i) d += "\n\n";
        d += fmt::format("# group {}: {}\n", i, groups[i].label_text.empty() ? "all cells" : groups[i].label_text);
        for (const auto& [x, v] : groups[i].points)
            d += fmt::format("{:.10g} {:.10g} {:.10g} {:.10g} {} {} {} {} {} {} {} {} {} {} {} {} {}\n", x, v->final.mean,
                             v->final.lo, v->final.hi, opt_text(v->ode_final), opt_text(v->pred), opt_text(v->pred_err),
                             opt_text(v->hit_sga ? std::optional<double>(v->hit_sga->mean) : std::nullopt),
                             opt_text(v->hit_sga ? std::optional<double>(v->hit_sga->lo) : std::nullopt),
                             opt_text(v->hit_sga ? std::optional<double>(v->hit_sga->hi) : std::nullopt),
                             opt_text(v->hit_ode ? std::optional<double>(v->hit_ode->mean) : std::nullopt),
                             opt_text(v->hit_pred), opt_text(v->rho_star), opt_text(v->rho_star_err),
                             opt_text(v->hit_sga || v->level == 0 ? std::nullopt : std::optional<double>(v->t_final)),
                             opt_text(v->plateau), opt_text(v->plateau_after));
    }
    return d;
}

bool log_axis(const std::vector<Group>& groups) {
    double lo = 0, hi = 0;
    for (const auto& g : groups)
        for (const auto& [x, v] : g.points) {
            if (!(x > 0)) return false;
            lo = lo == 0 ? x : std::min(lo, x);
            hi = std::max(hi, x);
        }
    return lo > 0 && hi / lo >= 10;  // a decade or more (the paper study's L: 1000 ... 10500)
}

// Whether the hitting times (SGA, ODE, prediction) of the groups span a decade or more: then a
// log y axis, where a linear one squashes the ODE's times against the SGA's to 0.
bool log_hit_axis(const std::vector<Group>& groups) {
    double lo = 0, hi = 0;
    auto see = [&](double y) {
        if (!(y > 0)) return;
        lo = lo == 0 ? y : std::min(lo, y);
        hi = std::max(hi, y);
    };
    for (const auto& g : groups)
        for (const auto& [x, v] : g.points) {
            if (v->hit_sga) see(v->hit_sga->mean);
            if (v->hit_ode) see(v->hit_ode->mean);
            if (v->hit_pred) see(*v->hit_pred);
            if (!v->hit_sga) see(v->t_final);  // the no-hit triangle
        }
    return lo > 0 && hi / lo >= 10;
}

// One sweep figure: for each group, the SGA column with its CI (points and line) and up to two
// reference columns (dashed, dotted) in the group's colour; for hitting times, a filled triangle
// at the run's end for each cell where no trial hit (a lower bound, not a value).
struct Series {
    int mean = 2, lo = 3, hi = 4;  // columns of the measured value and its CI
    int dashed = 0, dotted = 0;    // reference columns (0: none)
    std::string dashed_text, dashed_tex, dotted_text, dotted_tex;
    bool hits = false;             // hitting times: the y axis starts at 0, no-hit cells drawn as such
    bool log_y = false;            // times spanning a decade: a log y axis instead
    double y_lo = 0, y_hi = 0;     // the range of every value drawn (y_lo > 0 on a log axis)
};

// The range of the values a figure draws, from its cells (columns as in data_of).
void y_range(const std::vector<Group>& groups, Series& s, bool eta_plot) {
    bool first = true;
    auto see = [&](const std::optional<double>& y) {
        if (!y || !std::isfinite(*y) || (s.log_y && !(*y > 0))) return;
        s.y_lo = first ? *y : std::min(s.y_lo, *y), s.y_hi = first ? *y : std::max(s.y_hi, *y);
        first = false;
    };
    for (const auto& g : groups)
        for (const auto& [x, v] : g.points) {
            if (s.hits) {
                if (v->hit_sga) see(v->hit_sga->lo), see(v->hit_sga->hi);
                if (v->hit_ode) see(v->hit_ode->mean);
                see(v->hit_pred);
                if (!v->hit_sga) see(v->t_final);
            } else {
                see(v->final.lo), see(v->final.hi);
                if (eta_plot) see(v->rho_star);
                else see(v->ode_final), see(v->pred);
            }
        }
    if (first) s.y_lo = 0, s.y_hi = 1;
}

// The y axis of `s`: a time from 0 (or log), an alignment around its values.
std::string y_axis(const Series& s, bool latex) {
    if (s.log_y) return axis_tics('y', s.y_lo, s.y_hi, true, latex);
    if (!s.hits) return axis_tics('y', s.y_lo, s.y_hi, false, latex);
    const double top = s.y_hi > 0 ? s.y_hi : 1;
    return axis_tics('y', 0, top, false, latex) + fmt::format("set yrange [0:{:.17g}]\n", 1.05 * top);
}

std::string sweep_body(const std::string& file, const std::vector<Group>& groups, const Series& s, bool log,
                       const FigureGeometry& g, const std::string& xlabel, const std::string& ylabel, bool latex) {
    const FigureText T{latex};
    const bool any_miss = s.hits && std::any_of(groups.begin(), groups.end(), [](const Group& gr) {
        return std::any_of(gr.points.begin(), gr.points.end(), [](const auto& p) { return !p.second->hit_sga; });
    });
    const std::size_t entries = groups.size() + (s.dashed ? 1 : 0) + (s.dotted ? 1 : 0) + 1 + (any_miss ? 1 : 0);
    double lo = groups.front().points.front().first, hi = lo;
    for (const auto& gr : groups)
        for (const auto& [x, v] : gr.points) lo = std::min(lo, x), hi = std::max(hi, x);
    std::string b = frame(g, static_cast<int>(entries), latex) + (log ? "set logscale x\n" : "") +
                    axis_tics('x', lo, hi, log, latex) + (s.log_y ? "set logscale y\n" : "") + y_axis(s, latex) +
                    "set xlabel " + xlabel + "\nset ylabel " + ylabel + "\n";
    std::string plot = "plot ";
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const std::string c = colour(i);
        const std::string title = groups[i].label_text.empty() ? T("SGA mean, 95% CI", "SGA mean, 95\\,\\% CI")
                                                               : T(groups[i].label_text, groups[i].label_tex);
        // A group none of whose cells has a hit has no SGA points: its key entry goes on its
        // triangles.
        const bool none = s.hits && std::none_of(groups[i].points.begin(), groups[i].points.end(),
                                                 [](const auto& p) { return p.second->hit_sga.has_value(); });
        plot += fmt::format("{}'{}' index {} using 1:{}:{}:{} with yerrorlines lw 1.5 pt 7 ps 0.6 lc rgb '{}' {}",
                            i ? ", " : "", file, i, s.mean, s.lo, s.hi, c, none ? "notitle" : "title " + title);
        if (s.dashed) plot += fmt::format(", '' index {} using 1:{} with lines lw 1.5 dt 2 lc rgb '{}' notitle", i, s.dashed, c);
        if (s.dotted) plot += fmt::format(", '' index {} using 1:{} with lines lw 1.5 dt 3 lc rgb '{}' notitle", i, s.dotted, c);
        if (any_miss) {  // the groups' triangles side by side where cells share the run's end
            const double shift = (static_cast<double>(i) - 0.5 * static_cast<double>(groups.size() - 1)) * 0.015;
            const std::string x = log ? fmt::format("($1*{:.6g})", std::pow(hi / lo, shift))
                                      : fmt::format("($1+{:.6g})", shift * (hi - lo));
            plot += fmt::format(", '' index {} using {}:15 with points pt 9 ps 1.1 lc rgb '{}' {}", i, x, c,
                                none ? "title " + title : std::string("notitle"));
        }
    }
    if (!groups.front().label_text.empty()) plot += ", 1/0 with yerrorlines pt 7 ps 0.6 lc rgb 'black' title " + T("SGA mean, 95% CI", "SGA mean, 95\\,\\% CI");
    if (s.dashed) plot += ", 1/0 with lines lw 1.5 dt 2 lc rgb 'black' title " + T(s.dashed_text, s.dashed_tex);
    if (s.dotted) plot += ", 1/0 with lines lw 1.5 dt 3 lc rgb 'black' title " + T(s.dotted_text, s.dotted_tex);
    if (any_miss)
        plot += ", 1/0 with points pt 9 ps 1.1 lc rgb 'black' title " +
                T("no trial hit (at run's end)", "no trial hit (at run's end)");
    return b + plot;
}

// The source of sweep.tex/.md: per cell the swept values, then each quantity with its 95% CI.
Table sweep_source(const Experiment& e, const std::vector<CellValues>& cells, const std::vector<std::string>& keys) {
    Table t;
    for (const auto& k : keys) t.columns.push_back({k, "", "", "{}"});
    for (const char* c : {"sga", "sga_lo", "sga_hi", "pred", "pred_hw", "ode", "hit_sga", "hit_sga_lo", "hit_sga_hi",
                          "hit_pred", "hit_pred_lo", "hit_pred_hi", "hit_ode", "hit_ode_lo", "hit_ode_hi", "plateau",
                          "plateau_hw"})
        t.columns.push_back({c, "", "", "{}"});
    auto opt = [](const std::optional<double>& x) { return x ? TableCell(*x) : TableCell(); };
    for (const auto& v : cells) {
        std::vector<TableCell> row;
        for (const auto& k : keys) {
            std::string text;
            for (const auto& [kk, vv] : e.cells[v.cell].swept)
                if (kk == k) text = vv;
            const auto x = number(text);
            row.push_back(x ? TableCell(*x) : TableCell(text));
        }
        row.insert(row.end(), {v.final.mean, v.final.lo, v.final.hi, opt(v.pred),
                               v.pred_err ? TableCell(1.959963984540054 * *v.pred_err) : TableCell(), opt(v.ode_final)});
        for (const auto* m : {&v.hit_sga, &v.hit_pred_ci, &v.hit_ode}) {
            if (*m) row.insert(row.end(), {(*m)->mean, (*m)->lo, (*m)->hi});
            else row.insert(row.end(), 3, TableCell());
        }
        if (v.plateau && v.plateau_after)  // the middle of its bracket between two records, +- half of it
            row.insert(row.end(), {0.5 * (*v.plateau + *v.plateau_after), 0.5 * (*v.plateau - *v.plateau_after)});
        else row.insert(row.end(), 2, TableCell());
        t.rows.push_back(std::move(row));
    }
    return t;
}

// "$t = 231$" or "$t$ from 9.9 to 231": the cells' last ODE times (or levels).
std::string span(const std::vector<CellValues>& cells, double CellValues::*of, const std::string& symbol) {
    double lo = cells.front().*of, hi = lo;
    for (const auto& v : cells) lo = std::min(lo, v.*of), hi = std::max(hi, v.*of);
    const auto n = [](double x) {
        const std::string s = format_exact(x, 4, UncertainStyle::latex);
        return s.substr(1, s.size() - 2);
    };
    return lo == hi ? fmt::format("${} = {}$", symbol, n(lo)) : fmt::format("${}$ from ${}$ to ${}$", symbol, n(lo), n(hi));
}

// A task's name in LaTeX: \texttt, its underscores escaped (a name is letters, digits, '_', '-' and '.').
std::string tex_name(const std::string& name) {
    std::string n = name;
    for (std::size_t i = 0; i < n.size(); ++i)
        if (n[i] == '_') n.insert(i++, "\\");
    return "\\texttt{" + n + "}";
}

// The captions of sweep.tex: what the task swept, then each table's columns and conventions.
std::string sweep_what(const ExperimentTask& t, const std::vector<CellValues>& cells, const std::vector<std::string>& keys) {
    const std::string task = tex_name(t.name);
    std::string over;
    for (const auto& k : keys) over += (over.empty() ? "" : ", ") + symbol(k, true);
    return fmt::format("the {} cells of task {} (over {}; {} SGA trials each)", cells.size(), task, over,
                       cells.front().trials);
}

std::string alignment_caption(const ExperimentTask& t, const std::vector<CellValues>& cells,
                              const std::vector<std::string>& keys, bool compare, bool ode_column = true) {
    return fmt::format("Final alignment $|\\rho|$ after the last step in {}: SGA, the mean over the trials{}{}. Every "
                       "$\\pm$ is a 95\\% confidence half-width{}.",
                       sweep_what(t, cells, keys),
                       compare ? "; pred., the effective (finite-step) dynamics' prediction of that mean" : "",
                       compare && ode_column ? "; ODE, the mean-field ODE from the trials' starts (exact: no error)" : "",
                       compare ? " (the prediction's: 1.96 predicted standard errors, where the SGA mean should fall)"
                               : "");
}

// Why an SGA hitting time is not a recovery speed (the captions of the hitting tables and figures).
std::string plateau_sentence() {
    return "The mean-field ODE tends to 1, but SGA with a finite step settles on a plateau below it: an SGA hitting "
           "time is when that plateau, rising as the step size shrinks, crosses the level. It measures the "
           "finite-step bias as much as the speed of recovery, which the ODE's time gives.";
}

std::string hitting_caption(const ExperimentTask& t, const std::vector<CellValues>& cells,
                            const std::vector<std::string>& keys, bool pred_column) {
    return fmt::format(
        "Hitting times in {}: the ODE time at which $|\\rho|$ first reaches the level {} (the runs end at {}); SGA, "
        "the mean over the trials that hit; {}ODE, the "
        "mean over the trials' starts of the mean-field ODE's. Every $\\pm$ but the plateau's is a 95\\% confidence "
        "half-width; --- "
        "means that no trial (or path) reached the level by the run's end. Plateau, the time the SGA ensemble "
        "reaches its plateau (the first record at which its mean $|\\rho|$ has risen 90\\% of the way from its start "
        "to its final value; where the step is large, the plateau itself rises as the step shrinks, and this time "
        "with it), $\\pm$ half the interval between that record and the one before. {}",
        sweep_what(t, cells, keys), span(cells, &CellValues::level, "1 - \\varepsilon"),
        span(cells, &CellValues::t_final, "t"),
        pred_column ? "pred., the effective chain's mean over its paths that hit; "
                    : "(the effective chain's prediction is in summary.csv, \\texttt{hit\\_time\\_pred}, and in this "
                      "table at \\texttt{table-width = \"page\"}); ",
        plateau_sentence());
}

// sweep.tex / sweep.md: the final alignment and the hitting times, one row per cell, two tables
// for `width` (table* when made for the page or wider than a column).
std::vector<PaperTable> sweep_tables(const Experiment& e, const ExperimentTask& t, const std::vector<CellValues>& cells,
                                     const std::vector<std::string>& keys, bool compare, const TableWidth& width) {
    const Table source = sweep_source(e, cells, keys);
    std::vector<PaperColumn> head;
    for (const auto& k : keys) head.push_back({k, symbol(k, false), symbol(k, true), k, "", "", "", 6, -1, false});
    auto plus = [&](std::vector<PaperColumn> cols) {
        cols.insert(cols.begin(), head.begin(), head.end());
        return cols;
    };
    const std::vector<PaperColumn> final_cols = {
        {"sga", "SGA", "SGA", "sga", "", "sga_lo", "sga_hi", 4, -1, false},
        {"pred", "pred.", "pred.", "pred", "pred_hw", "", "", 4, -1, false},
        {"ode", "ODE", "ODE", "ode", "", "", "", 4, 4, false}};
    const std::vector<PaperColumn> hit_cols = {
        {"hit_sga", "SGA", "SGA", "hit_sga", "", "hit_sga_lo", "hit_sga_hi", 4, -1, false},
        {"hit_pred", "pred.", "pred.", "hit_pred", "", "hit_pred_lo", "hit_pred_hi", 4, -1, false},
        {"hit_ode", "ODE", "ODE", "hit_ode", "", "hit_ode_lo", "hit_ode_hi", 4, -1, false},
        {"plateau", "plateau", "plateau", "plateau", "plateau_hw", "", "", 4, -1, false}};
    const std::string label = paper_label(sweep_stem(e, t), "sweep");
    std::vector<PaperTable> out;
    auto add = [&](const std::vector<PaperColumn>& cols, const std::string& tex, const std::string& what) {
        PaperTable p = paper_table(source, cols, tex, latex_to_markdown(tex), what.empty() ? label : label + "-" + what);
        p.page = width.page || !fits(p, width);
        out.push_back(std::move(p));
    };
    if (!compare) {
        add(plus({final_cols.front()}), alignment_caption(t, cells, keys, false), "");
        return out;
    }
    // An ODE that ends at 1.0000 in every cell is said once, in the caption, not in a column.
    const ConstantSplit split = constant_columns(source, final_cols);
    std::string also;
    for (const auto& [c, v] : split.constant)
        also += fmt::format(" The mean-field ODE from the trials' starts ends at $|\\rho| = {}$ in every cell (exact).",
                            v.size() > 2 && v.front() == '$' ? v.substr(1, v.size() - 2) : v);
    add(plus(split.kept), alignment_caption(t, cells, keys, true, split.constant.empty()) + also, "");
    // At a column's width without room for every column, the prediction goes (summary.csv keeps it).
    std::vector<PaperColumn> hits = plus(hit_cols);
    const bool narrow = !width.page && !fits(paper_table(source, hits, "", "", ""), width);
    if (narrow) hits.erase(std::find_if(hits.begin(), hits.end(), [](const PaperColumn& c) { return c.key == "hit_pred"; }));
    add(hits, hitting_caption(t, cells, keys, !narrow), "hit");
    return out;
}

}  // namespace

std::string sweep_stem(const Experiment& e, const ExperimentTask& t) {
    return std::filesystem::path(e.out).lexically_normal().filename().string() + "-" + t.name;
}

SweepSummary sweep_summary(const Experiment& e, std::size_t task, const std::vector<JobResult>& results) {
    SweepSummary out;
    const ExperimentTask& t = e.tasks[task];
    if (t.command == "prove" || t.command == "threshold") return atlas_summary(e, task, results);
    std::vector<CellValues> cells;
    FigureParams size;
    bool first = true;
    for (std::size_t i = 0; i < e.cells.size() && i < results.size(); ++i) {
        if (e.cells[i].task != task) continue;
        auto v = values_of(e.cells[i], results[i]);
        if (!v) return out;  // not a compare or sga task
        v->cell = i;
        cells.push_back(*v);
        if (first)
            if (const auto* c = std::get_if<CompareJob>(&e.cells[i].job)) size = c->figure;
        first = false;
    }
    if (cells.empty() || e.cells[cells.front().cell].swept.empty()) return out;
    const bool compare = t.command == "compare";
    std::vector<std::string> keys;
    for (const auto& [k, v] : e.cells[cells.front().cell].swept) keys.push_back(k);
    const std::string run_text = fmt::format("task {}, {} cells", tex_name(t.name), cells.size());
    std::vector<std::string> drawn;  // keys already on an x axis: a together group is drawn against its first key
    for (const auto& key : keys) {
        const std::vector<std::string> partners = partners_of(t, key);
        if (std::any_of(partners.begin(), partners.end(), [&](const std::string& k) {
                return std::find(drawn.begin(), drawn.end(), k) != drawn.end();
            }))
            continue;
        drawn.push_back(key);
        const std::vector<Group> groups = groups_over(e, cells, key, partners, given_x);
        if (groups.empty()) continue;  // a ranged key whose values are not numbers
        const std::string file = "sweep_" + key + ".dat";
        out.files.push_back({file, data_of(groups, key)});
        const bool log = log_axis(groups);
        const FigureGeometry g = figure_geometry(size, 0.8);
        const std::string others = groups.size() > 1 ? ", one curve per value of the other ranged settings" : "";
        Series fin;
        y_range(groups, fin, false);
        if (compare) {
            fin.dashed = 6, fin.dashed_text = "finite-step prediction", fin.dashed_tex = fin.dashed_text;
            fin.dotted = 5, fin.dotted_text = "mean-field ODE", fin.dotted_tex = fin.dotted_text;
        }
        auto xl = [&](bool latex) { return FigureText{latex}(symbol(key, false), symbol(key, true)); };
        Figure f;
        f.name = "fig_final_" + key;
        f.aspect = 0.8;
        f.body = sweep_body(file, groups, fin, log, g, xl(false),
                            FigureText{false}("final alignment |ρ|", ""), false);
        f.latex_body = sweep_body(file, groups, fin, log, g, xl(true),
                                  FigureText{true}("", "final alignment $|\\rho|$"), true);
        f.caption = fmt::format("Final alignment $|\\rho|$ after the last SGA step against {}{} ({}): the SGA mean "
                                "with its 95\\,\\% confidence interval{}.",
                                symbol(key, true), others, run_text,
                                compare ? ", the effective dynamics' prediction (dashed) and the mean-field ODE "
                                          "(dotted)"
                                        : "");
        out.figures.push_back(f);
        if (compare) {
            Series hit;
            hit.mean = 8, hit.lo = 9, hit.hi = 10;
            hit.hits = true;
            hit.log_y = log_hit_axis(groups);
            y_range(groups, hit, false);
            hit.dashed = 12, hit.dashed_text = "finite-step prediction", hit.dashed_tex = hit.dashed_text;
            hit.dotted = 11, hit.dotted_text = "mean-field ODE", hit.dotted_tex = hit.dotted_text;
            Figure h;
            h.name = "fig_hit_" + key;
            h.aspect = 0.8;
            h.body = sweep_body(file, groups, hit, log, g, xl(false), FigureText{false}("hitting time t_{hit}", ""), false);
            h.latex_body = sweep_body(file, groups, hit, log, g, xl(true),
                                      FigureText{true}("", "hitting time $t_{\\mathrm{hit}}$"), true);
            std::vector<CellValues> mine;
            for (const auto& gr : groups)
                for (const auto& pt : gr.points) mine.push_back(*pt.second);
            h.caption = fmt::format("Hitting times against {}{} ({}): the ODE time at which $|\\rho|$ first reaches "
                                    "the level {} (the runs end at {}); the SGA mean over the trials that hit with "
                                    "its 95\\,\\% confidence interval, the effective dynamics' prediction (dashed) "
                                    "and the mean-field ODE (dotted). A filled triangle at the run's end marks a cell "
                                    "where no trial hit (a lower bound, not a value; the groups' triangles side by side). {}",
                                    symbol(key, true), others, run_text, span(mine, &CellValues::level, "1 - \\varepsilon"),
                                    span(mine, &CellValues::t_final, "t"), plateau_sentence());
            out.figures.push_back(h);
        }
    }
    const std::vector<std::string> step_keys = {"eta0", "k0", "gamma"};
    const bool step_sweep = std::any_of(keys.begin(), keys.end(), [&](const std::string& k) {
        return std::find(step_keys.begin(), step_keys.end(), k) != step_keys.end();
    });
    if (compare && step_sweep) {
        const std::vector<Group> groups = groups_over(e, cells, "", step_keys, eta_final_x);
        out.files.push_back({"sweep_eta_final.dat", data_of(groups, "eta_final")});
        const FigureGeometry g = figure_geometry(size, 0.8);
        Series s;
        y_range(groups, s, true);
        s.dashed = 13, s.dashed_text = "effective attractor ρ*(η_{final})",
        s.dashed_tex = "effective attractor $\\rho^*(\\eta_{\\mathrm{final}})$";
        Figure p;
        p.name = "fig_plateau_eta_final";
        p.aspect = 0.8;
        const bool log = log_axis(groups);
        p.body = sweep_body("sweep_eta_final.dat", groups, s, log, g, FigureText{false}("last step size η_{final}", ""),
                            FigureText{false}("final alignment |ρ|", ""), false);
        p.latex_body = sweep_body("sweep_eta_final.dat", groups, s, log, g,
                                  FigureText{true}("", "last step size $\\eta_{\\mathrm{final}}$"),
                                  FigureText{true}("", "final alignment $|\\rho|$"), true);
        p.caption = fmt::format("The step-size plateau ({}): the final alignment of SGA (mean with 95\\,\\% confidence "
                                "interval) against the last step size $\\eta_{{\\mathrm{{final}}}}$ of each cell's "
                                "schedule, and the effective attractor $\\rho^*(\\eta)$ of the chain at that step size "
                                "(dashed).",
                                run_text);
        out.figures.push_back(p);
    }
    const auto tables = sweep_tables(e, t, cells, keys, compare, task_table_width(e, task));
    out.files.push_back({"sweep.tex", to_latex(tables)});
    out.files.push_back({"sweep.md", to_markdown(tables)});
    return out;
}

}  // namespace rhoflow
