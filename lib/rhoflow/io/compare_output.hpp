// The comparator's outputs, made from its typed result (compare/compare.hpp) and nothing else:
// compare.json, the ODE-vs-SGA, gap and step-size-study tables (CSV, Markdown, LaTeX), the text
// the CLI prints, and the figures (data files, gnuplot scripts, PNG/PDF/SVG, cairolatex, captions).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "rhoflow/compare/compare.hpp"
#include "rhoflow/compare/outcomes.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/io/plot.hpp"
#include "rhoflow/io/paper_table.hpp"
#include "rhoflow/io/table.hpp"
#include "rhoflow/io/table_files.hpp"

namespace rhoflow {

/// The provenance lines every table carries: version, model, ensemble, schedule, ODE field.
std::vector<std::string> compare_provenance(const CompareParams& p);

/// The ODE-vs-SGA table.
Table compare_table(const CompareResult& r);
/// D_T statistics per anchor.
Table gap_table(const CompareResult& r);
/// The step-size study (no rows when there was none).
Table study_table(const CompareResult& r);

/// The compact ODE-vs-SGA table for a paper (table.tex, table.md): the columns of
/// CompareParams::table_columns, else those for `width` (column: t, rho_ode, sga, z, z_ode; page:
/// t, rho_ode, rho_eff, pred, sga, z, z_ode; no width: the terminal's t, rho_ode, pred, sga, z),
/// values +- 95% half-widths rounded to their errors, a table* when wider than a column;
/// label paper_label(stem, "compare").
PaperTable compare_paper_table(const CompareResult& r, const std::string& stem, const TableWidth* width = nullptr);
/// The compact D_T table (gap.tex, gap.md) for `width`; label paper_label(stem, "gap").
PaperTable gap_paper_table(const CompareResult& r, const std::string& stem, const TableWidth& width = {});
/// The compact step-size study (study.tex, study.md) for `width`; label paper_label(stem,
/// "study"). Needs r.study.
PaperTable study_paper_table(const CompareResult& r, const std::string& stem, const TableWidth& width = {});
/// The model and ensemble as a sentence for a caption, in LaTeX (`latex`) or Markdown.
std::string compare_parameters_sentence(const CompareParams& p, bool latex);

/// compare.json: the provenance's keys, the model, and every field of the result.
nlohmann::json compare_document(const CompareResult& r, const Provenance& provenance);

/// The effective-dynamics lines of the printed summary: prediction and verdict ("" when off).
std::string effective_markdown(const CompareResult& r);

/// The outcome statistics as lines of text (no line breaks; `rhoflow sga` prints them as they
/// are, `rhoflow compare` as Markdown list items): a heading, one line per basin (count of
/// trials, fraction with its Wilson interval, mean rho_final +- its standard error, sd +- its
/// error, and for a uniform start the exact probability of the basin), the unassigned trials,
/// and the basin of a fixed rho0. No lines for a summary of 0 trials (none was computed).
std::vector<std::string> outcome_lines(const OutcomeSummary& o);

/// What `rhoflow compare` prints: the Markdown table and the headline numbers.
std::string compare_markdown(const CompareResult& r);

/// The figures' data files (name, content) and gnuplot bodies.
struct CompareFigures {
    std::vector<std::pair<std::string, std::string>> data;  ///< data file name and content
    std::vector<Figure> figures;                              ///< figures over those files
};
/// Figure data and scripts (io/compare_figures.cpp) at `size`: the trajectory (rho and, below,
/// 1 - rho on a log axis with the SGA mean's 95% CI), the gap D_T with references through the
/// data, the field with zooms near the ends where equilibria crowd, the study with its fitted
/// slope and band, and the plateau rho*(eta) when the effective dynamics ran.
CompareFigures compare_figures(const CompareResult& r, const FigureParams& size = {});

/// Writes every output into `dir` (each recording `provenance`; CITATION.bib is write_citation's) and renders the
/// figures at `figure`'s size when `render` and gnuplot is available, the tables for `tables`'s width. Returns a line per file
/// group written. `stem` names the output in the tables' and figures' LaTeX labels (the output
/// folder's or the sweep cell's name; "" = the folder's name).
std::vector<std::string> write_compare(const CompareResult& r, const std::filesystem::path& dir, bool render,
                                       const Provenance& provenance, const FigureParams& figure = {},
                                       const std::string& stem = "", const TableParams& tables = {});
}  // namespace rhoflow
