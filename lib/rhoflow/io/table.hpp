// Tables as CSV, Markdown and LaTeX (booktabs), each carrying its provenance: every parameter,
// the seed and the version, in the CSV's sidecar FILE.csv.meta.json (csv_sidecar in
// io/compare_output.hpp; the CSV itself is a header line and rows, which pandas.read_csv and
// numpy.genfromtxt(names=True) both read), a caption paragraph in Markdown and the \caption in
// LaTeX. Values are never NaN or infinite (NumericalError names the cell);
// a missing value is an empty CSV field and an em dash elsewhere. No text can add a row: the
// caption and provenance stay on their line (control characters shown as \n, \r, \t, \xHH),
// CSV text fields holding ',', '"', CR or LF are quoted, and Markdown cells escape '|'.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace rhoflow {

/// The unit of a dimensionless number (rho, masses, z, counts) in a column's `unit`.
inline constexpr const char* kUnitless = "1";
/// The unit of an ODE time (docs/theory.md section 1: t_k = eta_0 + ... + eta_{k-1}).
inline constexpr const char* kOdeTime = "t (ODE time: the sum of the step sizes eta_j before the step)";
/// The unit of a step size eta: ODE time per SGA step.
inline constexpr const char* kStepSize = "t per step (ODE time per SGA step)";
/// The unit of a step count or step index.
inline constexpr const char* kSteps = "steps";
/// The "unit" of a column of words (a verdict, a list as text).
inline constexpr const char* kText = "text (no unit)";

/// One column: CSV key, Markdown header, LaTeX header (LaTeX source), number format, and what it
/// holds (the CSV sidecar's description and unit; whether its values are integers).
struct TableColumn {
    std::string key;          ///< CSV header, identifier-like (e.g. "rho_ode")
    std::string header;       ///< Markdown header (plain text)
    std::string latex;        ///< LaTeX header (math allowed, e.g. "$\\rho_{\\mathrm{ODE}}$")
    std::string format;       ///< fmt format of the value in Markdown and LaTeX
    std::string description;  ///< what a value is, one phrase (the sidecar's "description")
    std::string unit;         ///< its unit: kUnitless, kOdeTime, kSteps, kText, ...
    bool integer = false;     ///< every value is an integer (a count, a step): Python gives int64

    /// A column; description and unit go to the CSV sidecar, `integer` to Python's arrays.
    TableColumn(std::string key_ = "", std::string header_ = "", std::string latex_ = "",
                std::string format_ = "{:.6g}", std::string description_ = "", std::string unit_ = "",
                bool integer_ = false)
        : key(std::move(key_)), header(std::move(header_)), latex(std::move(latex_)), format(std::move(format_)),
          description(std::move(description_)), unit(std::move(unit_)), integer(integer_) {}
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
    std::vector<std::string> provenance;  ///< build, command line, date (io/json.hpp): comment lines, not in the caption
    std::string json_rows;  ///< the array of the JSON document whose elements are the rows ("table", "study.rows"; "" = none)
    std::vector<std::string> json_paths;  ///< per column, its value's path within a row of json_rows ("rho_sga.mean"), or empty
};

/// CSV: a header of column keys, then the rows: numbers in the shortest form that reads back to
/// the same double (std::to_chars), a missing value as an empty field, texts quoted when they
/// hold ',', '"', CR or LF (the writers' texts never do: numpy.genfromtxt does not read quotes).
/// No comment lines: caption and provenance go to the sidecar.
std::string to_csv(const Table& t);
/// A number as to_csv writes it: the shortest decimal that reads back to the same double.
std::string shortest(double v);
/// Markdown: caption and provenance as an italic paragraph, then a pipe table.
std::string to_markdown(const Table& t);
/// LaTeX: '%' lines with the provenance, a table environment with booktabs rules, caption with
/// the parameters, label.
std::string to_latex(const Table& t);
/// Escapes LaTeX's special characters in plain text.
std::string latex_escape(const std::string& s);

}  // namespace rhoflow
