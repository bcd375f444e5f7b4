// The atlas of a claim (experiment/sweep.hpp, atlas_summary): what a `prove` task swept over
// parameter boxes, or a `threshold` task swept over models, shows across its cells.
//
// prove: atlas.{md,tex} are the map. Its axis is the first swept key among theta, sigma, beta, R,
// L, d (else the first swept key); one column per value of the axis, in the file's order, one row
// per combination of the other swept keys (keys that step together with the axis, `together`,
// belong to its column). Each entry is its cell's verdict: "holds" (proved for every model in
// the cell), "fails" (disproved: the claim fails at the witness, a model or a whole box of
// models, shown), "?" (not proved within the limits). Per row, the span of the axis proved from
// its first column on and the first witness: the claim's truth changes between them.
// fig_atlas draws the map (atlas.dat). Nothing is recomputed: each cell's certificate
// (OUT/<task>/<cell>/certificate.json) carries its proof, and `rhoflow prove --verify` re-checks it.
//
// threshold: thresholds.{md,tex} give each cell's bracket [lo, hi] of the claim's change, its
// verdicts and point proofs (the registered job's result, read through its JSON).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "rhoflow/experiment/atlas.hpp"

#include "rhoflow/check/claim.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/number_text.hpp"
#include "rhoflow/experiment/job_table.hpp"
#include "rhoflow/experiment/sweep.hpp"
#include "rhoflow/prove/prove.hpp"
#include "rhoflow/io/paper_table.hpp"
#include "rhoflow/io/table.hpp"

namespace rhoflow {

namespace {

// The keys a map's axis may be, in order of preference.
const std::vector<std::string> kAxisKeys = {"theta", "sigma", "beta", "R", "L", "d"};

// A swept key as a table shows it.
std::string key_text(const std::string& k, bool latex) {
    static const std::map<std::string, std::pair<std::string, std::string>> names = {
        {"theta", {"θ", "$\\theta$"}}, {"sigma", {"σ", "$\\sigma$"}}, {"beta", {"β", "$\\beta$"}},
        {"L", {"L", "$L$"}},           {"R", {"R", "$R$"}},           {"d", {"d", "$d$"}}};
    const auto it = names.find(k);
    if (it != names.end()) return latex ? it->second.second : it->second.first;
    return latex ? "\\texttt{" + latex_escape(k) + "}" : k;
}

// A value text as a table shows it: a range "LO:HI" as [LO, HI].
std::string value_text(const std::string& v, bool latex) {
    const auto colon = v.find(':');
    const std::string s = colon == std::string::npos ? v : "[" + v.substr(0, colon) + ", " + v.substr(colon + 1) + "]";
    if (!latex) {
        std::string m;
        for (char c : s) m += c == '|' ? std::string("\\|") : std::string(1, c);
        return m;
    }
    return latex_escape(s);
}

// An interval as text: a point as its value.
std::string interval_text(const Interval& x, bool latex) {
    if (x.lo == x.hi) return format_number(x.lo);
    return latex ? fmt::format("$[{}, {}]$", format_number(x.lo), format_number(x.hi))
                 : fmt::format("[{}, {}]", format_number(x.lo), format_number(x.hi));
}

// A model cell's range along a key of kAxisKeys.
Interval along(const ModelCell& m, const std::string& key) {
    if (key == "theta") return m.theta;
    if (key == "sigma") return m.sigma;
    if (key == "beta") return m.beta;
    const double v = static_cast<double>(key == "R" ? m.R : key == "L" ? m.L : m.d);
    return {v, v};
}
// A box's range along such a key.
Interval along(const ParamBox& b, const std::string& key) {
    const ParamRange& r = key == "theta" ? b.theta : key == "sigma" ? b.sigma : key == "beta" ? b.beta
                        : key == "R"     ? b.R     : key == "L"     ? b.L     : b.d;
    return {r.lo, r.hi};
}

// The value of swept key `k` in cell `c` ("" if not swept there).
std::string swept_value(const ExperimentCell& c, const std::string& k) {
    for (const auto& [kk, v] : c.swept)
        if (kk == k) return v;
    return "";
}

// One cell of the map.
struct MapCell {
    std::size_t column = 0, row = 0;
    ProofVerdict verdict = ProofVerdict::not_proved;
    std::optional<Interval> witness;  // disproved: where it fails, along the axis
    std::int64_t enclosures = 0;
    Interval span{0, 0};              // the cell's range along the axis (a kAxisKeys axis)
};

// The map of a prove task: its axis, columns, rows and cells.
struct AtlasMap {
    std::string axis;                       // the swept key along the columns
    bool numeric = false;                   // the axis is one of kAxisKeys (spans and witnesses known)
    std::vector<std::string> columns;       // its values, in the file's order
    std::vector<std::string> rows_text, rows_tex;  // the other swept keys' values, per row
    std::vector<MapCell> cells;
    std::string claim;
};

AtlasMap atlas_map(const Experiment& e, std::size_t task, const std::vector<JobResult>& results) {
    const ExperimentTask& t = e.tasks[task];
    AtlasMap m;
    std::vector<std::string> keys;
    for (const auto& s : t.settings)
        if (s.values.size() > 1) keys.push_back(s.key);
    for (const auto& s : t.settings)  // theta boxes, even one over several rows: theta is the axis
        if (s.key == "theta" && s.values.front().find(':') != std::string::npos) m.axis = "theta", m.numeric = true;
    for (const auto& k : kAxisKeys)
        if (m.axis.empty() && std::find(keys.begin(), keys.end(), k) != keys.end()) m.axis = k, m.numeric = true;
    if (m.axis.empty() && keys.empty()) m.axis = "theta", m.numeric = true;  // one cell: a map of one
    if (m.axis.empty()) m.axis = keys.front();
    std::string fixed;  // the axis's value when it is not swept
    for (const auto& s : t.settings)
        if (s.key == m.axis) fixed = s.values.front();
    std::vector<std::string> folded = partners_of(t, m.axis);
    folded.push_back(m.axis);
    std::map<std::vector<std::string>, std::size_t> row_of;
    for (std::size_t i = 0; i < e.cells.size() && i < results.size(); ++i) {
        const ExperimentCell& c = e.cells[i];
        const auto* r = c.task == task ? std::get_if<ProveJobResult>(&results[i]) : nullptr;
        if (!r || !r->proof) continue;
        const ProveResult& p = *r->proof;
        m.claim = to_string(p.claim);
        MapCell cell;
        std::string x = swept_value(c, m.axis);
        if (x.empty()) x = fixed.empty() ? "default" : fixed;
        const auto col = std::find(m.columns.begin(), m.columns.end(), x);
        cell.column = static_cast<std::size_t>(col - m.columns.begin());
        if (col == m.columns.end()) m.columns.push_back(x);
        std::vector<std::string> id;
        std::string text, tex;
        for (const auto& [k, v] : c.swept) {
            if (std::find(folded.begin(), folded.end(), k) != folded.end()) continue;
            id.push_back(v);
            text += fmt::format("{}{} = {}", text.empty() ? "" : ", ", key_text(k, false), value_text(v, false));
            tex += fmt::format("{}{} $=$ {}", tex.empty() ? "" : ", ", key_text(k, true), value_text(v, true));
        }
        const auto [it, fresh] = row_of.emplace(id, m.rows_text.size());
        if (fresh) m.rows_text.push_back(text), m.rows_tex.push_back(tex);
        cell.row = it->second;
        cell.verdict = p.verdict;
        cell.enclosures = p.diagnostics.enclosures;
        if (m.numeric) {
            cell.span = along(p.box, m.axis);
            for (const auto& pc : p.param_cells)
                if (pc.verdict == ProofVerdict::disproved && !cell.witness) cell.witness = along(pc.model, m.axis);
        }
        m.cells.push_back(cell);
    }
    return m;
}

// A LaTeX float of `head` and `rows`: one column when it fits (estimated), else across the page.
std::string table_float(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows,
                        const std::string& caption, const std::string& label) {
    PaperTable t;
    t.caption_latex = caption;
    t.label = label;
    t.headers_latex = t.headers_markdown = head;
    t.latex = t.markdown = rows;
    t.page = !fits(t, TableWidth{});
    return to_latex(t);
}

// A word in quotes, as LaTeX sets them (``holds'') or as Markdown shows them.
std::string quoted(const std::string& w, bool latex) { return latex ? "``" + w + "''" : "\"" + w + "\""; }
// The checker's command, its two dashes kept in LaTeX.
std::string verify_command(bool latex) {
    return latex ? "\\texttt{rhoflow prove -{}-verify}" : "`rhoflow prove --verify`";
}

const char* mark(ProofVerdict v) {
    if (v == ProofVerdict::proved) return "holds";
    if (v == ProofVerdict::disproved) return "fails";
    return "?";
}

// Per row: where the claim is proved from the first column on, and its first witness.
std::string row_reading(const AtlasMap& m, std::size_t row, bool latex) {
    std::vector<const MapCell*> cs(m.columns.size(), nullptr);
    for (const auto& c : m.cells)
        if (c.row == row) cs[c.column] = &c;
    std::optional<Interval> held;
    std::size_t k = 0;
    for (; k < cs.size() && cs[k] && cs[k]->verdict == ProofVerdict::proved; ++k) {
        if (held && held->hi != cs[k]->span.lo) break;  // not adjacent: the proved span stops
        held = held ? Interval{held->lo, cs[k]->span.hi} : cs[k]->span;
    }
    std::string out = held ? fmt::format("holds on {}", interval_text(*held, latex)) : "";
    for (const MapCell* c : cs)
        if (c && c->witness) {
            out += fmt::format("{}fails at {} = {}", out.empty() ? "" : "; ", key_text(m.axis, latex),
                               interval_text(*c->witness, latex));
            break;
        }
    return out.empty() ? (latex ? "---" : "–") : out;
}

std::string atlas_table(const Experiment& e, const ExperimentTask& t, const AtlasMap& m, bool latex) {
    std::size_t counts[3] = {0, 0, 0};  // holds, fails, not proved
    for (const auto& c : m.cells)
        ++counts[c.verdict == ProofVerdict::proved ? 0 : c.verdict == ProofVerdict::disproved ? 1 : 2];
    const std::string claim = latex ? "\\texttt{" + latex_escape(m.claim) + "}" : "`" + m.claim + "`";
    const std::string cap = fmt::format(
        "The claim {} proved rigorously over {} cells of task {} ({} hold, {} fail, {} not proved): one column per "
        "value of {}{}, one row per value of the other swept settings. {}: proved for every model in the "
        "cell; {}: disproved, with a witness (a model, or a box of models, where the claim fails); {}: "
        "neither within the prover's limits. Each cell's certificate.json can be re-checked by {}",
        claim, m.cells.size(), latex ? "\\texttt{" + latex_escape(t.name) + "}" : "`" + t.name + "`", counts[0],
        counts[1], counts[2], key_text(m.axis, latex),
        m.numeric ? " (a range is covered whole: every value in it)" : "", quoted("holds", latex), quoted("fails", latex),
        quoted("?", latex), verify_command(latex));
    std::vector<std::string> head = {key_text(m.axis, latex)};  // the corner names the columns' key
    for (const auto& c : m.columns) head.push_back(value_text(c, latex));
    if (m.numeric) head.push_back("reading");
    std::vector<std::vector<std::string>> rows;
    for (std::size_t r = 0; r < m.rows_text.size(); ++r) {
        std::vector<std::string> row = {latex ? m.rows_tex[r] : m.rows_text[r]};
        if (row[0].empty()) row[0] = "all";
        for (std::size_t c = 0; c < m.columns.size(); ++c) {
            std::string entry = latex ? "---" : "–";
            for (const auto& x : m.cells)
                if (x.row == r && x.column == c) entry = mark(x.verdict);
            row.push_back(entry);
        }
        if (m.numeric) row.push_back(row_reading(m, r, latex));
        rows.push_back(row);
    }
    if (latex) return table_float(head, rows, cap + ".", paper_label(sweep_stem(e, t), "atlas"));
    std::string md = cap + ".\n\n|";
    for (const auto& h : head) md += " " + h + " |";
    md += "\n|";
    for (std::size_t i = 0; i < head.size(); ++i) md += i ? " :---: |" : " --- |";
    md += "\n";
    for (const auto& r : rows) {
        md += "|";
        for (const auto& x : r) md += " " + x + " |";
        md += "\n";
    }
    return md;
}

// atlas.dat: per cell its span along the axis, its row and verdict (1 holds, -1 fails, 0 not
// proved), and its witness ('?' if none).
std::string atlas_data(const AtlasMap& m) {
    std::string d = fmt::format("# {}_lo {}_hi row verdict witness_lo witness_hi (verdict: 1 holds, -1 fails, 0 not "
                                "proved; '?' = no witness)\n", m.axis, m.axis);
    for (const auto& c : m.cells) {
        const int v = c.verdict == ProofVerdict::proved ? 1 : c.verdict == ProofVerdict::disproved ? -1 : 0;
        d += fmt::format("{:.17g} {:.17g} {} {} {} {}\n", c.span.lo, c.span.hi, c.row, v,
                         c.witness ? fmt::format("{:.17g}", c.witness->lo) : "?",
                         c.witness ? fmt::format("{:.17g}", c.witness->hi) : "?");
    }
    return d;
}

std::string atlas_body(const AtlasMap& m, const FigureGeometry& g, bool latex) {
    const FigureText T{latex};
    double lo = m.cells.front().span.lo, hi = m.cells.front().span.hi;
    for (const auto& c : m.cells) lo = std::min(lo, c.span.lo), hi = std::max(hi, c.span.hi);
    const bool log = lo > 0 && hi / lo >= 10;
    std::string ytics;
    for (std::size_t r = 0; r < m.rows_text.size(); ++r)
        ytics += fmt::format("{}{} {}", r ? ", " : "", T(m.rows_text[r].empty() ? "all" : m.rows_text[r],
                                                         m.rows_tex[r].empty() ? "all" : m.rows_tex[r]), r);
    const double rows = static_cast<double>(m.rows_text.size());
    std::string s = fmt::format(
        "set xlabel {}\n{}{}set yrange [-0.6:{}]\nset ytics ({}) scale 0\nset lmargin at screen {:.4f}\nset rmargin "
        "at screen {:.4f}\nset bmargin at screen {:.4f}\nset tmargin at screen 0.97\n{}set grid xtics front\n",
        T(key_text(m.axis, false), key_text(m.axis, true)), log ? "set logscale x\n" : "",
        axis_tics('x', lo, hi, log, latex), rows - 0.4, ytics, std::min(0.45, g.font_pt * 9.0 / 72.0 / g.width),
        1 - 0.12 / g.width, key_fraction(g, 4, 2) + label_space(g, latex), key_below(4, 2));
    // (the key below the plot in two columns, its rows counted: cairolatex cannot measure LaTeX
    // text, and a horizontal key stacked its entries over the x label in the LaTeX variant)
    // Fills that print in grey: light for holds, dark for fails, hatched for not proved.
    const char* fills[3][3] = {{"1", "#a6d96a", "fs solid 1.0 border lc rgb '#1a9641'"},
                               {"-1", "#d7191c", "fs solid 1.0 border lc rgb '#7f0000'"},
                               {"0", "#bababa", "fs pattern 4 border lc rgb '#404040'"}};
    const char* names[3] = {"holds (proved)", "fails (disproved)", "not proved"};
    s += "plot ";
    for (int v = 0; v < 3; ++v)
        s += fmt::format("'atlas.dat' using (($1+$2)/2):($4 == {} ? $3 : 1/0):1:2:($3-0.35):($3+0.35) with boxxyerror "
                         "{} lc rgb '{}' title {}, ",
                         fills[v][0], fills[v][2], fills[v][1], T(names[v], names[v]));
    s += "'atlas.dat' using 5:3 with points pt 2 ps 1.2 lw 2 lc rgb 'black' title " +
         T("witness of failure", "witness of failure");
    return s + "\n";
}

SweepSummary prove_atlas(const Experiment& e, std::size_t task, const std::vector<JobResult>& results) {
    SweepSummary out;
    const AtlasMap m = atlas_map(e, task, results);
    if (m.cells.empty()) return out;
    const ExperimentTask& t = e.tasks[task];
    out.files.push_back({"atlas.md", atlas_table(e, t, m, false)});
    out.files.push_back({"atlas.tex", atlas_table(e, t, m, true)});
    if (!m.numeric) return out;
    out.files.push_back({"atlas.dat", atlas_data(m)});
    const double aspect = std::clamp(0.3 + 0.12 * static_cast<double>(m.rows_text.size()), 0.45, 1.2);
    const FigureGeometry g = figure_geometry({}, aspect);
    Figure f;
    f.name = "fig_atlas";
    f.aspect = aspect;
    f.body = atlas_body(m, g, false);
    f.latex_body = atlas_body(m, g, true);
    f.caption = fmt::format("The atlas of the claim \\texttt{{{}}} (task \\texttt{{{}}}): each box a cell of the "
                            "sweep over {}, proved for every model in it (light), disproved (dark, a cross at the "
                            "witness where the claim fails) or not proved (hatched). Every cell has a certificate that "
                            "\\texttt{{rhoflow prove -{{}}-verify}} can re-check.",
                            latex_escape(m.claim), latex_escape(t.name), key_text(m.axis, true));
    out.figures.push_back(f);
    return out;
}

// One threshold cell: its swept values and its bracket (the registered result's JSON).
struct Bracket {
    std::size_t cell = 0;
    bool bracketed = false;
    double lo = 0, hi = 0;
    std::string lo_verdict, hi_verdict, note;
    std::size_t steps = 0;
};

SweepSummary threshold_atlas(const Experiment& e, std::size_t task, const std::vector<JobResult>& results) {
    SweepSummary out;
    const ExperimentTask& t = e.tasks[task];
    std::vector<Bracket> bs;
    std::string axis = "theta", claim;
    for (std::size_t i = 0; i < e.cells.size() && i < results.size(); ++i) {
        const auto* r = e.cells[i].task == task ? std::get_if<RegisteredResult>(&results[i]) : nullptr;
        if (!r || !r->kind || !r->kind->ops.result_json) continue;
        const nlohmann::json j = r->kind->ops.result_json(*r);
        const nlohmann::json p = r->kind->ops.params_json(std::get<RegisteredJob>(e.cells[i].job));
        axis = p.value("axis", axis);
        claim = p.value("claim", claim);
        bs.push_back({i, j.value("bracketed", false), j.value("lo", 0.0), j.value("hi", 0.0),
                      j.value("lo_verdict", ""), j.value("hi_verdict", ""), j.value("note", ""),
                      j.contains("steps") ? j["steps"].size() : 0});
    }
    if (bs.empty() || e.cells[bs.front().cell].swept.empty()) return out;
    std::vector<std::string> keys;
    for (const auto& [k, v] : e.cells[bs.front().cell].swept) keys.push_back(k);
    for (const bool latex : {false, true}) {
        std::vector<std::string> head;
        for (const auto& k : keys) head.push_back(key_text(k, latex));
        for (const char* h : {"lo", "hi", "width", "verdicts", "proofs"})
            head.push_back(latex ? fmt::format("{} {}", key_text(axis, true), h) : fmt::format("{} {}", key_text(axis, false), h));
        head[keys.size() + 2] = "width", head[keys.size() + 3] = "verdicts (lo, hi)", head[keys.size() + 4] = "point proofs";
        std::string body;
        std::vector<std::vector<std::string>> cells;
        for (const auto& b : bs) {
            std::vector<std::string> row;
            for (const auto& k : keys) row.push_back(value_text(swept_value(e.cells[b.cell], k), latex));
            if (b.bracketed) {
                row.insert(row.end(), {format_number(b.lo), format_number(b.hi), fmt::format("{:.2g}", b.hi - b.lo),
                                       b.lo_verdict + ", " + b.hi_verdict});
            } else {
                row.insert(row.end(), {latex ? "---" : "–", latex ? "---" : "–", latex ? "---" : "–",
                                       latex ? latex_escape(b.note) : b.note});
            }
            row.push_back(std::to_string(b.steps));
            cells.push_back(row);
            for (std::size_t i = 0; i < row.size(); ++i)
                body += latex ? (i ? " & " : "") + row[i] : (i ? " " : "| ") + row[i] + " |";
            body += latex ? " \\\\\n" : "\n";
        }
        const std::string cap = fmt::format(
            "Where the claim {} changes along {} across the {} cells of task {}: a rigorous bracket [lo, hi] per cell, "
            "the claim proved at one end and disproved at the other (each end's certificate in the cell's folder, "
            "to be re-checked by {}); nothing is claimed between the ends, nor about how many changes lie there",
            latex ? "\\texttt{" + latex_escape(claim) + "}" : "`" + claim + "`", key_text(axis, latex), bs.size(),
            latex ? "\\texttt{" + latex_escape(t.name) + "}" : "`" + t.name + "`", verify_command(latex));
        if (latex) {
            out.files.push_back({"thresholds.tex", table_float(head, cells, cap + ".", paper_label(sweep_stem(e, t), "thresholds"))});
        } else {
            std::string md = cap + ".\n\n|";
            for (const auto& h : head) md += " " + h + " |";
            md += "\n|";
            for (std::size_t i = 0; i < head.size(); ++i) md += " ---: |";
            out.files.push_back({"thresholds.md", md + "\n" + body});
        }
    }
    return out;
}

// A TOML basic string of `s` (quotes, backslashes and control characters escaped): the claim's
// text reaches the file as data, whatever it holds.
std::string toml_string(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\') out += '\\', out += c;
        else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        else out += c;
    }
    return out + "\"";
}

// A TOML array of numbers.
std::string toml_numbers(const std::vector<double>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + format_number(v[i]);
    return s + "]";
}

// Every value of an integer list in range.
void require_integers(const std::vector<double>& v, const std::string& name, double lo, double hi) {
    if (v.empty() || v.size() > 64) throw InvalidArgument(name, fmt::format("{} takes 1 ... 64 values, not {}", name, v.size()));
    for (double x : v)
        require(std::isfinite(x) && x == std::floor(x) && x >= lo && x <= hi, name, x,
                fmt::format("integers {} <= {} <= {}", format_number(lo), name, format_number(hi)));
}

}  // namespace

void AtlasParams::validate() const {
    ProveParams prove;  // the claim as prove takes it
    prove.claim = parse_claim(claim);
    if (prove.claim.kind == ClaimKind::filtering)
        throw InvalidArgument("claim", "claim = 'filtering' is not proved by prove (accepted: monotone, positive-drift, "
                                       "attractors=N, recovery, hitting-time<=T, filtering<=EPS)");
    require(std::isfinite(theta_lo) && theta_lo >= 0, "theta_lo", theta_lo, "0 <= theta_lo, finite");
    require(std::isfinite(theta_hi) && theta_hi > theta_lo && theta_hi <= 1e6, "theta_hi", theta_hi, "theta_lo < theta_hi <= 1e6");
    require(theta_cells >= 1 && theta_cells <= 64, "theta_cells", theta_cells, "1 <= theta_cells <= 64");
    require_integers(L, "L", 3, 1e9);
    require_integers(d, "d", 2, 1e9);
    if (alpha.empty() || alpha.size() > 64) throw InvalidArgument("alpha", fmt::format("alpha takes 1 ... 64 values, not {}", alpha.size()));
    for (double a : alpha) {
        require(std::isfinite(a) && a > 0 && a <= 1, "alpha", a, "0 < alpha <= 1");
        for (double l : L)
            if (std::abs(a * l - std::round(a * l)) > 1e-9 * l || std::round(a * l) < 1)  // 0.07 x 100 = 7.000000000000001
                throw InvalidArgument("alpha", fmt::format("alpha = {} at L = {} gives R = alpha L = {}, not an integer >= 1 "
                                                           "(choose alpha with alpha L an integer for every L)",
                                                           format_number(a), format_number(l), format_number(a * l)));
    }
    require(std::isfinite(sigma) && sigma > 0, "sigma", sigma, "sigma > 0");
    require(std::isfinite(beta) && beta > 0, "beta", beta, "beta > 0");
    require(sigma * beta >= 1e-3 && sigma * beta <= 4, "beta", beta,
            fmt::format("1e-3 <= beta*sigma <= 4 for the rigorous field (here {})", format_number(sigma * beta)));
    const double cells = static_cast<double>(theta_cells) * static_cast<double>(L.size() * alpha.size() * d.size());
    require(cells + static_cast<double>(L.size() * alpha.size() * d.size()) <= static_cast<double>(max_experiment_cells),
            "theta_cells", theta_cells,
            fmt::format("theta_cells x rows (+ a threshold per row) <= {} cells, an experiment's limit", max_experiment_cells));
    require(std::isfinite(threshold_width) && threshold_width >= 0, "threshold_width", threshold_width,
            "threshold_width >= 0 (0: no threshold task)");
    require(max_cells >= 1 && max_cells <= 10000000, "max_cells", static_cast<double>(max_cells), "1 <= max_cells <= 1e7");
    require(box_depth >= 0 && box_depth <= 20, "box_depth", box_depth, "0 <= box_depth <= 20");
    require(threads >= 0, "threads", threads, "threads >= 0");
}

void to_json(nlohmann::json& j, const AtlasParams& p) {
    j = {{"claim", p.claim}, {"theta_lo", p.theta_lo}, {"theta_hi", p.theta_hi}, {"theta_cells", p.theta_cells},
         {"L", p.L}, {"alpha", p.alpha}, {"d", p.d}, {"sigma", p.sigma}, {"beta", p.beta},
         {"threshold_width", p.threshold_width}, {"max_cells", p.max_cells}, {"box_depth", p.box_depth},
         {"threads", p.threads}};
}

void from_json(const nlohmann::json& j, AtlasParams& p) {
    const nlohmann::json known = AtlasParams{};
    if (!j.is_object()) throw InvalidArgument("atlas", "an atlas's settings are an object of named values");
    for (const auto& [k, v] : j.items())
        if (!known.contains(k)) {
            std::string keys;
            for (const auto& [name, x] : known.items()) keys += (keys.empty() ? "" : ", ") + name;
            throw InvalidArgument(k, fmt::format("'{}' is not a setting of an atlas (accepted: {})", k, keys));
        }
    auto read = [&](const char* key, auto& field) {
        if (!j.contains(key)) return;
        using F = std::decay_t<decltype(field)>;
        if constexpr (std::is_integral_v<F>)  // 2.5 or true is not an integer
            if (!j.at(key).is_number_integer())
                throw InvalidArgument(key, fmt::format("{} = {} is not an integer", key, j.at(key).dump()));
        try {
            j.at(key).get_to(field);
        } catch (const nlohmann::json::exception&) {
            throw InvalidArgument(key, fmt::format("{} = {} has the wrong type (the default is {})", key, j.at(key).dump(),
                                                   known.at(key).dump()));
        }
    };
    read("claim", p.claim), read("theta_lo", p.theta_lo), read("theta_hi", p.theta_hi);
    read("theta_cells", p.theta_cells), read("L", p.L), read("alpha", p.alpha), read("d", p.d);
    read("sigma", p.sigma), read("beta", p.beta), read("threshold_width", p.threshold_width);
    read("max_cells", p.max_cells), read("box_depth", p.box_depth), read("threads", p.threads);
}

std::string atlas_experiment(const AtlasParams& p) {
    p.validate();
    std::vector<double> Ls, Rs;  // every (L, alpha) pair: L and R step together
    for (double a : p.alpha)
        for (double l : p.L) Ls.push_back(l), Rs.push_back(std::round(a * l));
    const bool rows = Ls.size() > 1;
    // The edges, inner ones rounded to 12 digits (0.9, not 0.8999999999999999); each is one text
    // shared by the boxes it separates, so the boxes meet exactly and cover the range.
    std::vector<std::string> edges = {format_number(p.theta_lo)};
    for (int i = 1; i < p.theta_cells; ++i)
        edges.push_back(fmt::format("{:.12g}", p.theta_lo + (p.theta_hi - p.theta_lo) * i / p.theta_cells));
    edges.push_back(format_number(p.theta_hi));
    std::string thetas = "[";
    for (int i = 0; i < p.theta_cells; ++i) thetas += fmt::format("{}\"{}:{}\"", i ? ", " : "", edges[i], edges[i + 1]);
    thetas += "]";
    const std::string model = fmt::format(
        "d = {}\nL = {}\nR = {}\nsigma = {}\nbeta = {}\nclaim = {}\nmax-cells = {}\nthreads = {}\n{}",
        p.d.size() > 1 ? toml_numbers(p.d) : format_number(p.d.front()), rows ? toml_numbers(Ls) : format_number(Ls.front()),
        rows ? toml_numbers(Rs) : format_number(Rs.front()), format_number(p.sigma), format_number(p.beta),
        toml_string(p.claim),
        p.max_cells, p.threads, rows ? "together = [\"L\", \"R\"]\n" : "");
    std::string s = fmt::format("# The atlas of a claim (written by rhoflow atlas; rhoflow run this file to rerun or "
                                "resume it).\ntitle = {}\n\n[[task]]\nname = \"map\"\ncommand = "
                                "\"prove\"\ntheta = {}\nbox-depth = {}\n{}",
                                toml_string("The atlas of " + p.claim), thetas, p.box_depth, model);
    if (p.threshold_width > 0)
        s += fmt::format("\n[[task]]\nname = \"threshold\"\ncommand = \"threshold\"\nlo = {}\nhi = {}\nwidth = {}\n{}",
                         format_number(p.theta_lo), format_number(p.theta_hi), format_number(p.threshold_width), model);
    return s;
}

SweepSummary atlas_summary(const Experiment& e, std::size_t task, const std::vector<JobResult>& results) {
    const ExperimentTask& t = e.tasks[task];
    if (t.command == "prove") return prove_atlas(e, task, results);
    const bool swept = std::any_of(t.settings.begin(), t.settings.end(), [](const TaskSetting& s) { return s.values.size() > 1; });
    if (t.command == "threshold" && swept) return threshold_atlas(e, task, results);
    return {};
}

}  // namespace rhoflow
