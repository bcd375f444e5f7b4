// Tables as CSV, Markdown and LaTeX (booktabs), each carrying its provenance: every parameter,
// the seed and the version, as '#' comment lines in CSV, a caption paragraph in Markdown and
// the \caption in LaTeX. Values are never NaN or infinite (NumericalError names the cell);
// a missing value is an empty CSV field and an em dash elsewhere. No text can add a row: the
// caption and provenance stay on their line (control characters shown as \n, \r, \t, \xHH),
// CSV text fields holding ',', '"', CR or LF are quoted, and Markdown cells escape '|'.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace rhoflow {

/// One column: CSV key, Markdown header, LaTeX header (LaTeX source) and number format.
struct TableColumn {
    std::string key;       ///< CSV header, identifier-like (e.g. "rho_ode")
    std::string header;    ///< Markdown header (plain text)
    std::string latex;     ///< LaTeX header (math allowed, e.g. "$\\rho_{\\mathrm{ODE}}$")
    std::string format = "{:.6g}";  ///< fmt format of the value in Markdown and LaTeX
};

/// A cell: a number, a text, or missing.
using TableCell = std::variant<std::monostate, double, std::string>;

/// A table with its caption and provenance.
struct Table {
    std::string caption;              ///< one sentence: what the table shows
    std::vector<std::string> meta;    ///< provenance lines "key = value" (parameters, seed, version)
    std::vector<TableColumn> columns; ///< the columns
    std::vector<std::vector<TableCell>> rows;  ///< rows of cells, one per column
    std::string label = "tab:rhoflow";  ///< LaTeX label
};

/// CSV: '#'-prefixed caption and provenance lines, a header of column keys, numbers with 17
/// significant digits (round-trip exact), texts quoted when needed.
std::string to_csv(const Table& t);
/// Markdown: caption and provenance as an italic paragraph, then a pipe table.
std::string to_markdown(const Table& t);
/// LaTeX: a table environment with booktabs rules, caption with provenance, label.
std::string to_latex(const Table& t);
/// Escapes LaTeX's special characters in plain text.
std::string latex_escape(const std::string& s);

}  // namespace rhoflow
