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

/// compare.json: provenance, the model, and every field of the result.
nlohmann::json compare_document(const CompareResult& r);

/// The effective-dynamics lines of the printed summary: prediction and verdict ("" when off).
std::string effective_markdown(const CompareResult& r);

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

/// Writes every output into `dir` and renders the figures (at `figure`'s size; caption labels
/// from `label_stem`, else the folder's name) when `render` and gnuplot is available. Returns a
/// line per file group written.
std::vector<std::string> write_compare(const CompareResult& r, const std::filesystem::path& dir, bool render = true,
                                       const FigureParams& figure = {}, const std::string& label_stem = "");

}  // namespace rhoflow
