// Compact tables for papers, made from a full Table (io/table.hpp, which keeps every column for
// machines in CSV): a few chosen columns, every value with its error rounded by the rule of
// io/uncertain.hpp ("$x \pm e$"), exact values with a stated number of digits, human headers, a
// caption that says what the table shows with the parameters in a sentence, a label unique per
// output (made from the output folder's name), and the provenance as comment lines.
// LaTeX: a header comment "% rhoflow table; packages: booktabs, graphicx[, longtable]" names every
// package the table needs (longtable, one of LaTeX's required "tools", when the table has more
// than PaperTable::long_rows rows and so is split over pages in a one-column document); nothing
// else is used (math is plain LaTeX: \pm, \times, ^{}). Width (TableParams, --table-width): each
// table is made for one column of a two-column paper or for the page (a table*); its columns
// are chosen for that width by an estimate of each cell's width (latex_width, calibrated
// against pdflatex at \small), and the float is plain LaTeX: a table too wide shows as an
// Overfull \hbox, never silently scaled. Markdown: the same cells with
// Unicode minus signs and "±" (docs/cli.md, "Tables for papers").
// Fails: a column naming no column of the full table is a logic error (std::logic_error); a
// non-finite value or error throws NumericalError (io/uncertain.hpp).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "rhoflow/io/table.hpp"

namespace rhoflow {

/// The width paper tables are made for (flag --table-width, params field tables.width).
struct TableParams {
    /// column (one column of a two-column paper: 229.5 pt, LaTeX's two-column article, within
    /// ICML's 3.25 in and ACM's 3.33 in) | page (across both columns, a table*: 469 pt) | LENGTH,
    /// a number and a unit pt, bp, in, cm or mm, 2 ... 10 in (e.g. 3.33in): a table up to 3.5 in,
    /// a table* beyond
    std::string width = "column";
    /// Throws InvalidArgument naming "width" for anything else.
    void validate() const;
};
/// JSON hooks of TableParams: {"width": ...}.
void to_json(nlohmann::json& j, const TableParams& p);
/// Reads what to_json wrote.
void from_json(const nlohmann::json& j, TableParams& p);

/// A resolved table width.
struct TableWidth {
    double pt = 229.5;  ///< the width a table must fit, in TeX points
    bool page = false;  ///< across both columns of a two-column document (table*)
};
/// The width of `p` (validated).
TableWidth table_width(const TableParams& p);

/// One column of a paper table, taken from a full Table's columns by key.
struct PaperColumn {
    std::string key;     ///< the name a user selects it by (e.g. "sga")
    std::string header;  ///< Markdown header (plain text, Unicode allowed)
    std::string latex;   ///< LaTeX header (math allowed)
    std::string value;   ///< the full table's column holding the value
    std::string error;   ///< the column holding its error (a 95% half-width or a standard error); "" if none
    std::string lo;      ///< with `hi`: a CI whose larger half-width max(hi - v, v - lo) is the error
    std::string hi;      ///< upper end of that CI
    int digits = 4;      ///< significant digits of a value without error
    int decimals = -1;   ///< >= 0: a value without error printed with this many decimals instead (z scores)
    bool statistic = false;  ///< a value without error keeps `digits` digits, zeros too (0.0610); else trimmed (0.01, 1000)
    int max_digits = 0;      ///< > 0: a value whose error is below its max_digits-th significant digit prints to that digit, alone
};

/// A compact table ready to print: cells already formatted for LaTeX and for Markdown.
struct PaperTable {
    std::string caption_latex;              ///< caption, LaTeX source: what is shown, with the parameters
    std::string caption_markdown;           ///< the same sentence for Markdown
    std::string label;                      ///< LaTeX label, e.g. "tab:run-sweep-L=100-compare"
    std::vector<std::string> provenance;    ///< comment lines (version, seed, every parameter)
    std::vector<std::string> headers_latex;     ///< column headers, LaTeX
    std::vector<std::string> headers_markdown;  ///< column headers, Markdown
    std::vector<std::vector<std::string>> latex;     ///< rows of LaTeX cells
    std::vector<std::vector<std::string>> markdown;  ///< rows of Markdown cells
    std::size_t long_rows = 40;             ///< more rows: a longtable (one column), floats of 30 rows (two)
    bool page = false;                      ///< a table* across both columns (TableWidth::page)
};

/// The paper table of `full` with `columns` (each value and error looked up by key; a missing
/// value prints as an em dash). Caption texts and label as given; provenance from full.meta.
PaperTable paper_table(const Table& full, const std::vector<PaperColumn>& columns, std::string caption_latex,
                       std::string caption_markdown, std::string label);

/// The estimated natural width in TeX points of LaTeX text `s` (a cell or header) at \small: a
/// width per glyph measured with pdflatex (Computer Modern 9 pt; math spacing of \pm, =, \ge
/// included; sub- and superscripts at 78%); within about 3% on rhoflow's cells, 2% on tables.
double latex_width(const std::string& s);
/// The estimated natural width of `t`'s tabular (4 pt between columns, as to_latex sets it).
double latex_table_width(const PaperTable& t);
/// Whether `t` fits `w` (its estimate within 98% of it: the model's error on whole tables).
bool fits(const PaperTable& t, const TableWidth& w);

/// Splits off the columns of `columns` that print the same value, with no error, in every row
/// of `full` (more than one row): an ODE that ends at 1.0000 in every cell, which a caption says
/// once. Returns the columns kept and those taken out with their one LaTeX cell.
struct ConstantSplit {
    std::vector<PaperColumn> kept;                              ///< columns that vary
    std::vector<std::pair<PaperColumn, std::string>> constant;  ///< the others, with their value
};
/// (above)
ConstantSplit constant_columns(const Table& full, const std::vector<PaperColumn>& columns);

/// The columns of the first of `lists` (lists of keys of `available`, widest first) whose table
/// made from `source` fits `width`; the last list when none does.
std::vector<PaperColumn> fitting_columns(const std::vector<PaperColumn>& available,
                                         const std::vector<std::vector<std::string>>& lists, const Table& source,
                                         const TableWidth& width);

/// The columns of `available` named in `keys`, in that order (empty keys: `defaults`, a list of
/// keys). Throws InvalidArgument naming `field` and the accepted keys on an unknown or repeated key.
std::vector<PaperColumn> select_columns(const std::vector<PaperColumn>& available, const std::vector<std::string>& keys,
                                        const std::vector<std::string>& defaults, const std::string& field);

/// A caption's LaTeX as Markdown: the constructs rhoflow's captions use (math symbols, \pm,
/// \%, \texttt, dashes) in Unicode, other braces, dollars and backslashes dropped.
std::string latex_to_markdown(std::string s);

/// A LaTeX label "tab:<stem>-<what>" from any text (an output folder's name): letters, digits
/// and ".-=" kept, every other run of characters one '-'.
std::string paper_label(const std::string& stem, const std::string& what);

/// LaTeX: "% rhoflow table; packages: ..." header, provenance comments, table (or longtable).
std::string to_latex(const PaperTable& t);
/// Markdown: italic caption paragraph, pipe table, provenance as one "Source:" line.
std::string to_markdown(const PaperTable& t);
/// Several tables in one LaTeX file: the first line names the packages of all of them, the
/// provenance comes once, then each float.
std::string to_latex(const std::vector<PaperTable>& tables);
/// Several tables in one Markdown file, one after the other (the provenance once, at the end).
std::string to_markdown(const std::vector<PaperTable>& tables);

/// The packages a paper table needs, in the order its header comment names them.
std::vector<std::string> paper_packages(const PaperTable& t);

/// A float holding `tabular` (a whole tabular environment) set at \small with 4 pt column
/// separation: a `table`, or with `page` a `table*` across both columns. `caption` is LaTeX
/// source; the label appears once in the source.
std::string table_float(const std::string& tabular, const std::string& caption, const std::string& label, bool page);

}  // namespace rhoflow
