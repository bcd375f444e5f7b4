#include "rhoflow/io/table.hpp"

#include "rhoflow/io/paper_table.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "rhoflow/io/detail/one_line.hpp"
#include "rhoflow/core/errors.hpp"

namespace rhoflow {

namespace {

void check(const Table& t) {
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
        if (t.rows[r].size() != t.columns.size())
            throw std::logic_error(fmt::format("table row {} has {} cells for {} columns", r, t.rows[r].size(),
                                               t.columns.size()));
        for (std::size_t c = 0; c < t.columns.size(); ++c)
            if (const double* v = std::get_if<double>(&t.rows[r][c]); v && !std::isfinite(*v))
                throw NumericalError(fmt::format("table '{}': row {} column '{}' is not finite ({})", t.caption, r,
                                                 t.columns[c].key, format_number(*v)));
    }
}

using detail::one_line;

// A Markdown cell: one line, '|' escaped so that it cannot split the cell.
std::string markdown_cell(const std::string& s) {
    std::string out;
    for (char ch : one_line(s)) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
    return out;
}

std::string csv_quote(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
}

std::string formatted(const TableCell& cell, const std::string& format, const std::string& missing) {
    if (const double* v = std::get_if<double>(&cell)) return fmt::format(fmt::runtime(format), *v);
    if (const std::string* s = std::get_if<std::string>(&cell)) return *s;
    return missing;
}

}  // namespace

std::string latex_escape(const std::string& s) {
    std::string out;
    for (char ch : s) {
        switch (ch) {
            case '\\': out += "\\textbackslash{}"; break;
            case '_': out += "\\_"; break;
            case '%': out += "\\%"; break;
            case '&': out += "\\&"; break;
            case '#': out += "\\#"; break;
            case '$': out += "\\$"; break;
            case '{': out += "\\{"; break;
            case '}': out += "\\}"; break;
            case '~': out += "\\textasciitilde{}"; break;
            case '^': out += "\\textasciicircum{}"; break;
            default: out += ch;
        }
    }
    return out;
}

std::string shortest(double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string to_csv(const Table& t) {
    check(t);
    // (fmt rather than "literal" + std::string: GCC 12 warns falsely there, PR 105329)
    std::string s;
    for (std::size_t c = 0; c < t.columns.size(); ++c) s += fmt::format("{}{}", c ? "," : "", csv_quote(t.columns[c].key));
    s += "\n";
    for (const auto& row : t.rows) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (c) s += ",";
            if (const double* v = std::get_if<double>(&row[c])) s += shortest(*v);
            else if (const std::string* str = std::get_if<std::string>(&row[c])) s += csv_quote(*str);
        }
        s += "\n";
    }
    return s;
}

std::string to_markdown(const Table& t) {
    check(t);
    std::string s = fmt::format("*{}", one_line(t.caption));
    if (!t.meta.empty()) {
        s += " (";
        for (std::size_t i = 0; i < t.meta.size(); ++i) s += fmt::format("{}{}", i ? "; " : "", one_line(t.meta[i]));
        s += ")";
    }
    s += "*\n\n|";
    for (const auto& c : t.columns) s += fmt::format(" {} |", markdown_cell(c.header));
    s += "\n|";
    for (std::size_t c = 0; c < t.columns.size(); ++c) s += "---:|";
    s += "\n";
    for (const auto& row : t.rows) {
        s += "|";
        for (std::size_t c = 0; c < row.size(); ++c)
            s += fmt::format(" {} |", markdown_cell(formatted(row[c], t.columns[c].format, "—")));
        s += "\n";
    }
    return s;
}

std::string to_latex(const Table& t) {
    check(t);
    std::string caption = latex_escape(one_line(t.caption));
    if (!t.meta.empty()) {
        caption += " (";
        for (std::size_t i = 0; i < t.meta.size(); ++i)
            caption += fmt::format("{}{}", i ? "; " : "", latex_escape(one_line(t.meta[i])));
        caption += ")";
    }
    std::string s = "% rhoflow table; packages: booktabs, graphicx\n";
    for (const auto& line : t.provenance) s += fmt::format("% {}\n", one_line(line));
    std::string tab = fmt::format("\\begin{{tabular}}{{{}}}\n\\toprule\n", std::string(t.columns.size(), 'r'));
    for (std::size_t c = 0; c < t.columns.size(); ++c) tab += fmt::format("{}{}", c ? " & " : "", t.columns[c].latex);
    tab += " \\\\\n\\midrule\n";
    for (const auto& row : t.rows) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            std::string cell = formatted(row[c], t.columns[c].format, "---");
            if (std::holds_alternative<std::string>(row[c])) cell = latex_escape(one_line(cell));
            tab += fmt::format("{}{}", c ? " & " : "", cell);
        }
        tab += " \\\\\n";
    }
    tab += "\\bottomrule\n\\end{tabular}\n";
    return s + table_float(tab, caption, t.label, true);  // every column of a full table: across the page
}

}  // namespace rhoflow
