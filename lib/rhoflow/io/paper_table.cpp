#include "rhoflow/io/paper_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

#include "rhoflow/core/errors.hpp"
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
// The body of fitted_table_float, with \rhoflowtablecaption already defined.
std::string fitted_float_body(const std::string& tabular, const std::string& label) {
    return fmt::format(R"(\ifdefined\rhoflowtablebox\else\newsavebox{{\rhoflowtablebox}}\fi
\small\setlength{{\tabcolsep}}{{4pt}}%
\sbox{{\rhoflowtablebox}}{{%
{0}}}%
\ifdim\wd\rhoflowtablebox>\columnwidth
\begin{{table*}}[htbp]
\centering
\rhoflowtablecaption
\ifdim\wd\rhoflowtablebox>\textwidth
\typeout{{rhoflow: table {1} scaled down to the text width (fewer columns: --table-columns)}}%
\resizebox{{\textwidth}}{{!}}{{\usebox{{\rhoflowtablebox}}}}
\else
\usebox{{\rhoflowtablebox}}
\fi
\end{{table*}}
\else
\begin{{table}}[htbp]
\centering
\rhoflowtablecaption
\usebox{{\rhoflowtablebox}}
\end{{table}}
\fi
)",
                       tabular, label);
}

// \begingroup and the caption macro: the caption and label written once for both branches.
std::string caption_macro(const std::string& caption, const std::string& label) {
    return fmt::format("\\begingroup\n\\def\\rhoflowtablecaption{{\\caption{{{}}}\\label{{{}}}}}%\n", caption, label);
}
}  // namespace

std::string fitted_table_float(const std::string& tabular, const std::string& caption, const std::string& label) {
    // One savebox for every rhoflow table of a document, allocated by the first.
    return caption_macro(caption, label) + fitted_float_body(tabular, label) + "\\endgroup\n";
}

std::string to_latex(const PaperTable& t) {
    std::string packages;
    for (const auto& p : paper_packages(t)) packages += fmt::format("{}{}", packages.empty() ? "" : ", ", p);
    std::string s = fmt::format("% rhoflow table; packages: {}\n", packages);
    for (const auto& m : t.provenance) s += fmt::format("% {}\n", m);
    const std::string spec(t.headers_latex.size(), 'r');
    const std::string head = fmt::format("\\toprule\n{}\\midrule\n", row_text(t.headers_latex));
    std::string tabular = fmt::format("\\begin{{tabular}}{{{}}}\n{}", spec, head);
    for (const auto& r : t.latex) tabular += row_text(r);
    tabular += "\\bottomrule\n\\end{tabular}\n";
    if (t.latex.size() > t.long_rows) {
        // A longtable breaks across pages, in one-column documents only; in two columns the
        // table is a float across both (as wide as it must be, like the others).
        std::string lt = fmt::format("\\begin{{longtable}}{{{}}}\n\\rhoflowtablecaption\\\\\n{}\\endfirsthead\n", spec, head);
        lt += fmt::format("\\multicolumn{{{}}}{{l}}{{Table~\\ref{{{}}}, continued}}\\\\\n{}\\endhead\n"
                          "\\bottomrule\n\\endfoot\n",
                          t.headers_latex.size(), t.label, head);
        for (const auto& r : t.latex) lt += row_text(r);
        lt += "\\end{longtable}\n";
        return s + caption_macro(t.caption_latex, t.label) + "\\ifdim\\columnwidth<\\textwidth\n" +
               fitted_float_body(tabular, t.label) + "\\else\n" + lt + "\\fi\n\\endgroup\n";
    }
    return s + fitted_table_float(tabular, t.caption_latex, t.label);
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
