// The comparator's outputs, made from its typed result (compare/compare.hpp) and nothing else:
// compare.json, the ODE-vs-SGA, gap and step-size-study tables (CSV, Markdown, LaTeX), the text
// the CLI prints, and the figures (data files, gnuplot scripts, PNG/SVG).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "rhoflow/compare/compare.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/io/plot.hpp"
#include "rhoflow/io/table.hpp"

namespace rhoflow {

/// The provenance lines every table carries: version, model, ensemble, schedule, ODE field.
std::vector<std::string> compare_provenance(const CompareParams& p);

/// The ODE-vs-SGA table.
Table compare_table(const CompareResult& r);
/// D_T statistics per anchor.
Table gap_table(const CompareResult& r);
/// The step-size study (no rows when there was none).
Table study_table(const CompareResult& r);

/// compare.json: the provenance's keys, the model, and every field of the result.
nlohmann::json compare_document(const CompareResult& r, const Provenance& provenance);

/// The effective-dynamics lines of the printed summary: prediction and verdict ("" when off).
std::string effective_markdown(const CompareResult& r);

/// What `rhoflow compare` prints: the Markdown table and the headline numbers.
std::string compare_markdown(const CompareResult& r);

/// The figures' data files (name, content) and gnuplot bodies.
struct CompareFigures {
    std::vector<std::pair<std::string, std::string>> data;  ///< data file name and content
    std::vector<Figure> figures;                              ///< figures over those files
};
/// Figure data and scripts for the trajectory, the gap, the field and the study.
CompareFigures compare_figures(const CompareResult& r);

/// Writes every output into `dir` (each recording `provenance`, and CITATION.bib) and renders the
/// figures when `render` and gnuplot is available. Returns a line per file group written.
std::vector<std::string> write_compare(const CompareResult& r, const std::filesystem::path& dir, bool render,
                                       const Provenance& provenance);
/// The CSV's sidecar STEM.csv.meta.json: the provenance's keys, "caption", "meta" (the
/// parameters), "rows" (the document array the rows come from, if any) and "columns" (name,
/// header, and "json": the value's path within a row of that array).
std::string csv_sidecar(const Table& t, const Provenance& provenance);
/// Sets each column's JSON path (its key, or `renamed`'s entry) and the table's json_rows.
void set_json_paths(Table& t, const std::string& rows, const std::vector<std::pair<std::string, std::string>>& renamed);
/// Writes a table as STEM.csv (+ STEM.csv.meta.json), STEM.md and STEM.tex in `dir`, carrying `provenance`.
void write_table_files(Table t, const std::filesystem::path& dir, const std::string& stem, const Provenance& provenance);
/// Writes DIR/CITATION.bib (io/json.hpp, citation_bib).
void write_citation(const std::filesystem::path& dir, const Provenance& provenance);

}  // namespace rhoflow
