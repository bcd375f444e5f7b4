// Compact tables for papers, made from a full Table (io/table.hpp, which keeps every column for
// machines in CSV): a few chosen columns, every value with its error rounded by the rule of
// io/uncertain.hpp ("$x \pm e$"), exact values with a stated number of digits, human headers, a
// caption that says what the table shows with the parameters in a sentence, a label unique per
// output (made from the output folder's name), and the provenance as comment lines.
// LaTeX: a header comment "% rhoflow table; packages: booktabs[, longtable]" names every package
// the table needs (booktabs always; longtable, one of LaTeX's required "tools", when the table
// has more than PaperTable::long_rows rows and so is split over pages instead of one float);
// nothing else is used (math is plain LaTeX: \pm, \times, ^{}). Markdown: the same cells with
// Unicode minus signs and "±" (docs/cli.md, "Tables for papers").
// Fails: a column naming no column of the full table is a logic error (std::logic_error); a
// non-finite value or error throws NumericalError (io/uncertain.hpp).
#pragma once

#include <string>
#include <vector>

#include "rhoflow/io/table.hpp"

namespace rhoflow {

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
    std::size_t long_rows = 40;             ///< more rows than this: a longtable instead of a float
};

/// The paper table of `full` with `columns` (each value and error looked up by key; a missing
/// value prints as an em dash). Caption texts and label as given; provenance from full.meta.
PaperTable paper_table(const Table& full, const std::vector<PaperColumn>& columns, std::string caption_latex,
                       std::string caption_markdown, std::string label);

/// The columns of `available` named in `keys`, in that order (empty keys: `defaults`, a list of
/// keys). Throws InvalidArgument naming `field` and the accepted keys on an unknown or repeated key.
std::vector<PaperColumn> select_columns(const std::vector<PaperColumn>& available, const std::vector<std::string>& keys,
                                        const std::vector<std::string>& defaults, const std::string& field);

/// A LaTeX label "tab:<stem>-<what>" from any text (an output folder's name): letters, digits
/// and ".-=" kept, every other run of characters one '-'.
std::string paper_label(const std::string& stem, const std::string& what);

/// LaTeX: "% rhoflow table; packages: ..." header, provenance comments, table (or longtable).
std::string to_latex(const PaperTable& t);
/// Markdown: italic caption paragraph, pipe table, provenance as one "Source:" line.
std::string to_markdown(const PaperTable& t);

/// The packages a paper table needs, in the order its header comment names them.
std::vector<std::string> paper_packages(const PaperTable& t);

/// A float holding `tabular` (a whole tabular environment) that fits the document it is input
/// into: set at \small with 4pt column separation; in a `table` when that fits \columnwidth,
/// else in a `table*` across both columns of a two-column document, scaled down to \textwidth
/// only when even that is too narrow (with a \typeout saying so); needs graphicx. `caption` is
/// LaTeX source; the label appears once in the source.
std::string fitted_table_float(const std::string& tabular, const std::string& caption, const std::string& label);

}  // namespace rhoflow
