#include "rhoflow/io/paper_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <optional>
#include <stdexcept>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/number_text.hpp"
#include "rhoflow/io/uncertain.hpp"

namespace rhoflow {

namespace {

// Control characters become spaces: a caption, comment or cell stays on its line.
std::string flat(const std::string& s) {
    std::string out = s;
    for (char& ch : out)
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F) ch = ' ';
    return out;
}

std::size_t column_index(const Table& full, const std::string& key) {
    for (std::size_t c = 0; c < full.columns.size(); ++c)
        if (full.columns[c].key == key) return c;
    throw std::logic_error("paper table: the full table has no column '" + key + "'");
}

const double* number(const std::vector<TableCell>& row, const Table& full, const std::string& key) {
    return key.empty() ? nullptr : std::get_if<double>(&row[column_index(full, key)]);
}

// A value printed with `decimals` fixed decimals (z scores), minus sign in `style`.
std::string fixed(double v, int decimals, UncertainStyle style) {
    const std::string digits = fmt::format("{:.{}f}", std::fabs(v), decimals);
    const bool negative = v < 0 && digits.find_first_of("123456789") != std::string::npos;  // not -0.00
    if (style == UncertainStyle::latex) return fmt::format("${}{}$", negative ? "-" : "", digits);
    return fmt::format("{}{}", negative ? "\u2212" : "", digits);
}

// The cell of column `c` in one style.
std::string cell(const std::vector<TableCell>& row, const Table& full, const PaperColumn& c, UncertainStyle style) {
    const TableCell& v = row[column_index(full, c.value)];
    if (const std::string* s = std::get_if<std::string>(&v))
        return style == UncertainStyle::latex ? latex_escape(flat(*s)) : flat(*s);
    const double* x = std::get_if<double>(&v);
    if (!x) return style == UncertainStyle::latex ? "---" : "\u2014";
    if (!std::isfinite(*x))
        throw NumericalError(fmt::format("paper table: column '{}' holds {}", c.key, format_number(*x)));
    double err = 0;
    bool has_error = false;
    if (const double* e = number(row, full, c.error)) {
        err = *e;
        has_error = true;
    } else if (const double* lo = number(row, full, c.lo)) {
        if (const double* hi = number(row, full, c.hi)) {
            err = std::max(*hi - *x, *x - *lo);
            has_error = true;
        }
    }
    if (has_error && err > 0 && c.max_digits > 0 && err < std::fabs(*x) * std::pow(10.0, 1 - c.max_digits)) {
        UncertainOptions o;  // its error is below its last digit: 1.00000
        o.trailing_zeros = true;
        return format_exact(*x, c.max_digits, style, o);
    }
    if (has_error && err > 0) return format_uncertain(*x, err, style);
    if (c.decimals >= 0) return fixed(*x, c.decimals, style);
    UncertainOptions o;
    o.trailing_zeros = c.statistic && !(std::floor(*x) == *x && std::fabs(*x) < 9007199254740992.0);  // counts stay "5"
    return format_exact(*x, c.digits, style, o);
}

std::string markdown_escape(const std::string& s) {
    std::string out;
    for (char ch : flat(s)) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
    return out;
}

std::string row_text(const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t c = 0; c < cells.size(); ++c) s += fmt::format("{}{}", c ? " & " : "", cells[c]);
    return s + " \\\\\n";
}

}  // namespace

namespace {

constexpr double kColumnPt = 229.5;  // one column of LaTeX's two-column article (10 pt, letter paper)
constexpr double kPagePt = 469.0;    // its text width, across both columns
constexpr double kPtPerIn = 72.27;

// A LENGTH ("3.33in") in TeX points; nullopt unless a number and a known unit.
std::optional<double> length_pt(const std::string& text) {
    static const std::pair<const char*, double> units[] = {
        {"pt", 1.0}, {"bp", kPtPerIn / 72}, {"in", kPtPerIn}, {"cm", kPtPerIn / 2.54}, {"mm", kPtPerIn / 25.4}};
    for (const auto& [unit, scale] : units) {
        const std::string u(unit);
        if (text.size() <= u.size() || text.compare(text.size() - u.size(), u.size(), u) != 0) continue;
        const auto x = parse_number(text.substr(0, text.size() - u.size()));
        if (x && std::isfinite(*x)) return *x * scale;
    }
    return std::nullopt;
}

}  // namespace

void TableParams::validate() const {
    if (width == "column" || width == "page") return;
    const auto pt = length_pt(width);
    if (!pt || !(*pt >= 2 * kPtPerIn && *pt <= 10 * kPtPerIn))
        throw InvalidArgument("width", fmt::format("width = '{}' is not column, page or a length of 2 ... 10 in with its "
                                                   "unit pt, bp, in, cm or mm (e.g. 3.33in)",
                                                   width));
}

RHOFLOW_JSON_HOOKS(TableParams, width)

TableWidth table_width(const TableParams& p) {
    p.validate();
    if (p.width == "column") return {kColumnPt, false};
    if (p.width == "page") return {kPagePt, true};
    const double pt = *length_pt(p.width);
    return {pt, pt > 3.5 * kPtPerIn};
}

namespace {

// Widths at \small (9 pt Computer Modern), measured with pdflatex.
constexpr double kDigit = 4.625, kDot = 2.569, kLower = 4.54, kUpper = 6.62, kSpace = 3.083;
constexpr double kMathLower = 4.78, kMathUpper = 7.2, kBinary = 11.3, kRelation = 12.33, kUnary = 7.19;
constexpr double kScript = 0.78;  // a sub- or superscript's glyphs (6 pt fonts are relatively wider)

// The width of one command's glyph (\pm, \rho, ...) in math or text; -1: a command that sets no glyph.
double command_width(const std::string& name, bool math) {
    static const char* const binary[] = {"pm", "times", "mp", "cdot"};
    static const char* const relation[] = {"ge", "le", "geq", "leq", "approx", "in", "to", "sim"};
    static const char* const silent[] = {"mathrm", "mathit", "mathbf", "text", "textit", "texttt", "bar", "hat",
                                         "tilde", "left", "right", "small", "emph", "textbf", "ensuremath"};
    for (const char* b : binary)
        if (name == b) return kBinary;
    for (const char* r : relation)
        if (name == r) return kRelation;
    for (const char* q : silent)
        if (name == q) return -1;
    if (name == ",") return 1.54;
    if (name == "!") return -1.54;
    if (name == "%" || name == "quad") return name == "%" ? 7.71 : 9.25;
    if (name == "sum") return 9.6;
    if (name == "sup" || name == "max" || name == "min") return 13.0;
    if (name == "infty") return 9.25;
    if (name == "dots" || name == "ldots") return 12.3;
    if (name == "_" || name == "&" || name == "#") return math ? 5.0 : 6.9;
    if (name.size() == 1) return kSpace;  // "\ ", "\{", ...
    return kMathLower;                    // a Greek letter or another symbol
}

// Width model of latex_width: a walk over the text, tracking math mode, upright groups and the
// size of sub- and superscripts.
struct WidthWalk {
    const std::string& s;
    std::size_t i = 0;
    bool math = false;
    bool operand = false;  // the last thing set in math was an operand: a '-' after it is binary

    double glyph(char c, bool upright) {
        const bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
        const bool alpha = std::isalpha(static_cast<unsigned char>(c)) != 0;
        if (digit) return kDigit;
        if (alpha) {
            const bool upper = std::isupper(static_cast<unsigned char>(c)) != 0;
            if (!math || upright) return upper ? kUpper : kLower;
            return upper ? kMathUpper : kMathLower;
        }
        switch (c) {
            case '.': case ',': case ':': case ';': case '|': case '\'': return kDot;
            case '(': case ')': case '[': case ']': return 3.6;
            case ' ': case '~': return math ? 0 : kSpace;
            case '=': case '<': case '>': return math ? kRelation : kDigit * 1.55;
            case '+': return math ? (operand ? kBinary : kUnary) : kUnary;
            default: return kDigit;  // '*', '/', '!' and the rest: about a digit
        }
    }

    // A text dash run: --- em, -- en, - hyphen; in math a minus, binary after an operand.
    double dash() {
        if (math) {
            ++i;
            return operand ? kBinary : kUnary;
        }
        std::size_t n = 0;
        while (i < s.size() && s[i] == '-' && n < 3) ++i, ++n;
        return n == 3 ? 2 * kDigit : n == 2 ? kDigit : kSpace;
    }

    // Up to the end of the text or of the current group (a '}' at depth 0).
    double run(double scale, bool upright) {
        double w = 0;
        while (i < s.size()) {
            const char c = s[i];
            if (c == '}') {
                ++i;
                return w;
            }
            if (c == '{') {
                ++i;
                w += run(scale, upright);
            } else if (c == '$') {
                ++i;
                math = !math;
                operand = false;
            } else if (c == '\\') {
                w += command(scale, upright);
            } else if (c == '^' || c == '_') {
                ++i;
                w += script(std::max(0.6, scale * kScript), upright) + 0.5 * scale;
                operand = true;
            } else if (c == '-') {
                w += scale * dash();
                operand = false;
            } else {
                ++i;
                w += scale * glyph(c, upright);
                if (c != ' ') operand = c != '(' && c != '=' && c != '<' && c != '>' && c != '+';
            }
        }
        return w;
    }

    // A sub- or superscript: a group, a command or one character.
    double script(double scale, bool upright) {
        if (i >= s.size()) return 0;
        operand = false;  // a minus opening a script is unary: 10^{-4}
        if (s[i] == '{') {
            ++i;
            return run(scale, upright);
        }
        if (s[i] == '\\') return command(scale, upright);
        return scale * glyph(s[i++], upright);
    }

    // A command at s[i] == '\\': its glyph, or the group it takes (\mathrm{...} upright).
    double command(double scale, bool upright) {
        std::size_t j = i + 1;
        while (j < s.size() && std::isalpha(static_cast<unsigned char>(s[j]))) ++j;
        if (j == i + 1 && j < s.size()) ++j;  // a one-character command
        const std::string name = s.substr(i + 1, j - i - 1);
        i = j;
        while (name.size() > 1 && i < s.size() && s[i] == ' ') ++i;  // spaces after a control word
        const double w = command_width(name, math);
        const bool roman = name == "mathrm" || name == "text" || name == "texttt" || name == "textbf";
        if (w < 0) {  // takes its argument (or nothing, \small)
            if (i < s.size() && s[i] == '{') {
                ++i;
                return run(scale, upright || roman);
            }
            return 0;
        }
        operand = w != kBinary && w != kRelation;
        return scale * w;
    }
};

}  // namespace

double latex_width(const std::string& s) {
    WidthWalk walk{s};
    double w = 0;
    while (walk.i < s.size()) w += walk.run(1, false);  // a stray '}' ends a run: go on after it
    return w;
}

double latex_table_width(const PaperTable& t) {
    double total = 0;
    for (std::size_t c = 0; c < t.headers_latex.size(); ++c) {
        double widest = latex_width(t.headers_latex[c]);
        for (const auto& row : t.latex)
            if (c < row.size()) widest = std::max(widest, latex_width(row[c]));
        total += widest + 8;  // \tabcolsep (4 pt) on both sides
    }
    return total;
}

bool fits(const PaperTable& t, const TableWidth& w) { return latex_table_width(t) <= 0.98 * w.pt; }

PaperTable paper_table(const Table& full, const std::vector<PaperColumn>& columns, std::string caption_latex,
                       std::string caption_markdown, std::string label) {
    PaperTable t;
    t.caption_latex = flat(caption_latex);
    t.caption_markdown = flat(caption_markdown);
    t.label = std::move(label);
    for (const auto& m : full.meta) t.provenance.push_back(flat(m));
    for (const auto& c : columns) {
        t.headers_latex.push_back(c.latex);
        t.headers_markdown.push_back(c.header);
    }
    for (const auto& row : full.rows) {
        if (row.size() != full.columns.size()) throw std::logic_error("paper table: a row of the full table is short");
        std::vector<std::string> tex, md;
        for (const auto& c : columns) {
            tex.push_back(cell(row, full, c, UncertainStyle::latex));
            md.push_back(cell(row, full, c, UncertainStyle::markdown));
        }
        t.latex.push_back(std::move(tex));
        t.markdown.push_back(std::move(md));
    }
    return t;
}

ConstantSplit constant_columns(const Table& full, const std::vector<PaperColumn>& columns) {
    ConstantSplit out;
    for (const auto& c : columns) {
        bool constant = full.rows.size() > 1 && c.error.empty() && c.lo.empty();
        std::string first;
        for (std::size_t r = 0; constant && r < full.rows.size(); ++r) {
            if (!std::holds_alternative<double>(full.rows[r][column_index(full, c.value)])) constant = false;
            const std::string t = constant ? cell(full.rows[r], full, c, UncertainStyle::latex) : "";
            if (r == 0) first = t;
            else if (t != first) constant = false;
        }
        if (constant) out.constant.push_back({c, first});
        else out.kept.push_back(c);
    }
    return out;
}

std::vector<PaperColumn> select_columns(const std::vector<PaperColumn>& available, const std::vector<std::string>& keys,
                                        const std::vector<std::string>& defaults, const std::string& field) {
    std::string accepted;
    for (const auto& c : available) accepted += fmt::format("{}{}", accepted.empty() ? "" : ", ", c.key);
    std::vector<PaperColumn> out;
    for (const auto& k : keys.empty() ? defaults : keys) {
        const auto it = std::find_if(available.begin(), available.end(), [&](const PaperColumn& c) { return c.key == k; });
        if (it == available.end())
            throw InvalidArgument(field, fmt::format("{} = '{}' is not a column of this table (accepted: {})", field, k,
                                                     accepted));
        if (std::any_of(out.begin(), out.end(), [&](const PaperColumn& c) { return c.key == k; }))
            throw InvalidArgument(field, fmt::format("{} names '{}' twice (accepted: each of {} at most once)", field,
                                                     k, accepted));
        out.push_back(*it);
    }
    return out;
}

std::vector<PaperColumn> fitting_columns(const std::vector<PaperColumn>& available,
                                         const std::vector<std::vector<std::string>>& lists, const Table& source,
                                         const TableWidth& width) {
    std::vector<PaperColumn> cols;
    for (const auto& keys : lists) {
        cols = select_columns(available, keys, keys, "columns");
        if (fits(paper_table(source, cols, "", "", ""), width)) break;
    }
    return cols;
}

std::string latex_to_markdown(std::string s) {
    static const std::pair<const char*, const char*> words[] = {
        {"$\\pm$", "±"}, {"\\pm", "±"}, {"\\%", "%"}, {"\\texttt{", ""}, {"\\_", "_"}, {"\\theta", "θ"},
        {"\\sigma", "σ"}, {"\\beta", "β"}, {"\\eta", "η"}, {"\\rho", "ρ"}, {"\\varepsilon", "ε"},
        {"\\mathrm{E}\\,", "E "}, {"\\max ", "max "}, {"\\mathrm{", ""}, {"\\ge", "≥"}, {"---", "—"},
        {" - ", " − "}, {"\\,", ""}, {"$", ""}, {"}", ""}, {"{", ""}, {"\\", ""}};
    for (const auto& [from, to] : words) {
        const std::string f(from), t(to);
        for (auto at = s.find(f); at != std::string::npos; at = s.find(f, at + t.size())) s.replace(at, f.size(), t);
    }
    return s;
}

std::string paper_label(const std::string& stem, const std::string& what) {
    std::string s;
    for (char ch : stem) {
        const bool keep = std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == '=';
        if (keep) s += ch;
        else if (!s.empty() && s.back() != '-') s += '-';
    }
    while (!s.empty() && (s.back() == '-' || s.back() == '.')) s.pop_back();
    if (s.empty()) s = "rhoflow";
    return fmt::format("tab:{}-{}", s, what);
}

std::vector<std::string> paper_packages(const PaperTable& t) {
    std::vector<std::string> p = {"booktabs", "graphicx"};
    if (t.latex.size() > t.long_rows) p.push_back("longtable");
    return p;
}

namespace {
// \begingroup and the caption macro: the caption and label written once for a float and a longtable.
std::string caption_macro(const std::string& caption, const std::string& label) {
    return fmt::format("\\begingroup\n\\def\\rhoflowtablecaption{{\\caption{{{}}}\\label{{{}}}}}%\n", caption, label);
}
// The float around `tabular`, its caption from \rhoflowtablecaption.
std::string float_body(const std::string& tabular, bool page) {
    const char* env = page ? "table*" : "table";
    return fmt::format("\\begin{{{0}}}[htbp]\n\\centering\n\\small\\setlength{{\\tabcolsep}}{{4pt}}%\n"
                       "\\rhoflowtablecaption\n{1}\\end{{{0}}}\n",
                       env, tabular);
}
}  // namespace

std::string table_float(const std::string& tabular, const std::string& caption, const std::string& label, bool page) {
    return caption_macro(caption, label) + float_body(tabular, page) + "\\endgroup\n";
}

std::string to_latex(const PaperTable& t) {
    std::string packages;
    for (const auto& p : paper_packages(t)) packages += fmt::format("{}{}", packages.empty() ? "" : ", ", p);
    std::string s = fmt::format("% rhoflow table; packages: {}\n", packages);
    for (const auto& m : t.provenance) s += fmt::format("% {}\n", m);
    const std::string spec(t.headers_latex.size(), 'r');
    const std::string head = fmt::format("\\toprule\n{}\\midrule\n", row_text(t.headers_latex));
    // The tabular of rows [from, to).
    auto tabular = [&](std::size_t from, std::size_t to) {
        std::string tab = fmt::format("\\begin{{tabular}}{{{}}}\n{}", spec, head);
        for (std::size_t i = from; i < to; ++i) tab += row_text(t.latex[i]);
        return tab + "\\bottomrule\n\\end{tabular}\n";
    };
    if (t.latex.size() > t.long_rows) {
        // A longtable breaks across pages, in one-column documents only; in two columns no float
        // may, so the table is floats of 30 rows each, the later ones marked "continued".
        std::string lt = fmt::format("\\begin{{longtable}}{{{}}}\n\\rhoflowtablecaption\\\\\n{}\\endfirsthead\n", spec, head);
        lt += fmt::format("\\multicolumn{{{}}}{{l}}{{Table~\\ref{{{}}}, continued}}\\\\\n{}\\endhead\n"
                          "\\bottomrule\n\\endfoot\n",
                          t.headers_latex.size(), t.label, head);
        for (const auto& r : t.latex) lt += row_text(r);
        lt += "\\end{longtable}\n";
        const std::size_t part = 30;  // rows per float: with the caption, within a column's height
        std::string floats = float_body(tabular(0, part), t.page);
        const std::string more = fmt::format("\\def\\rhoflowtablecaption{{Table~\\ref{{{}}}, continued.\\par\\smallskip}}%\n", t.label);
        for (std::size_t from = part; from < t.latex.size(); from += part)
            floats += more + float_body(tabular(from, std::min(t.latex.size(), from + part)), t.page);
        return s + caption_macro(t.caption_latex, t.label) + "\\ifdim\\columnwidth<\\textwidth\n" + floats +
               "\\else\n\\small\\setlength{\\tabcolsep}{4pt}%\n" + lt + "\\fi\n\\endgroup\n";
    }
    return s + table_float(tabular(0, t.latex.size()), t.caption_latex, t.label, t.page);
}

std::string to_latex(const std::vector<PaperTable>& tables) {
    std::vector<std::string> packages;
    for (const auto& t : tables)
        for (const auto& p : paper_packages(t))
            if (std::find(packages.begin(), packages.end(), p) == packages.end()) packages.push_back(p);
    std::string s = "% rhoflow table; packages: ";
    for (std::size_t i = 0; i < packages.size(); ++i) s += fmt::format("{}{}", i ? ", " : "", packages[i]);
    s += "\n";
    for (std::size_t i = 0; i < tables.size(); ++i) {
        PaperTable t = tables[i];
        if (i) t.provenance.clear();  // once, with the first
        const std::string one = to_latex(t);
        s += one.substr(one.find('\n') + 1);  // without its own packages line
    }
    return s;
}

std::string to_markdown(const std::vector<PaperTable>& tables) {
    std::string s;
    for (std::size_t i = 0; i < tables.size(); ++i) {
        PaperTable t = tables[i];
        if (i + 1 < tables.size()) t.provenance.clear();  // once, at the end
        if (i) s += "\n";
        s += to_markdown(t);
    }
    return s;
}

std::string to_markdown(const PaperTable& t) {
    std::string s = fmt::format("*{}*\n\n|", markdown_escape(t.caption_markdown));
    for (const auto& h : t.headers_markdown) s += fmt::format(" {} |", markdown_escape(h));
    s += "\n|";
    for (std::size_t c = 0; c < t.headers_markdown.size(); ++c) s += "---:|";
    s += "\n";
    for (const auto& r : t.markdown) {
        s += "|";
        for (const auto& c : r) s += fmt::format(" {} |", markdown_escape(c));
        s += "\n";
    }
    if (!t.provenance.empty()) {
        s += "\nSource: ";
        for (std::size_t i = 0; i < t.provenance.size(); ++i)
            s += fmt::format("{}{}", i ? "; " : "", markdown_escape(t.provenance[i]));
        s += "\n";
    }
    return s;
}

}  // namespace rhoflow
