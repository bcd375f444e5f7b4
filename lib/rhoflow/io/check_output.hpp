// What `rhoflow check` writes, made from the check's typed result (check/check.hpp) and nothing
// else: the JSON document (also the certificate file), the per-point table (CSV/Markdown/LaTeX via
// io/table.hpp), the phase-diagram figures (gnuplot scripts and data for io/plot.hpp's
// render_figures), the text summary, and write_check, which writes them into an output folder
// (rendering runs gnuplot without a shell, io/plot.hpp). Figures follow docs/cli.md (rhoflow
// check, Output).
// When it fails: check_document throws NumericalError naming the JSON path of a non-finite
// number (none is ever written); write_check throws what write_file_atomic throws; the others
// do not fail.
#pragma once

#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "rhoflow/check/check.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/io/plot.hpp"
#include "rhoflow/io/paper_table.hpp"
#include "rhoflow/io/table.hpp"

namespace rhoflow {

/// The JSON document of a check: {"program","version","commit","command":"check","command_line",
/// "date",...,"claim","verdict",
/// "witness","points","min_margin","counts","box","grid","params",...}; the keys "claim",
/// "verdict", "witness", "points", "min_margin" are a contract. Checked to be finite.
nlohmann::json check_document(const CheckParams& params, const CheckResult& result, const Provenance& provenance);

/// One row per evaluated point: the six parameters, level, verdict, margin, error, where,
/// table points (and the attractor count or hitting time for those claims).
Table check_table(const CheckParams& params, const CheckResult& result);

/// The compact per-point table for a paper (points.tex, points.md): the ranged parameters,
/// verdict, margin +- error (rounded to the error), where (and attractors or hitting time); a
/// longtable past 40 points; label paper_label(stem, "check").
PaperTable check_paper_table(const CheckParams& params, const CheckResult& result, const std::string& stem,
                             const TableWidth& width = {});

/// Figures of a check and the data files they read.
struct CheckFigures {
    std::vector<std::pair<std::string, std::string>> data_files;  ///< (file name, content)
    std::vector<Figure> figures;  ///< check_map (verdicts) and, for attractors=N, check_attractors
    std::string skipped;          ///< why no figure was made (3 or more ranged axes), else empty
};

/// The phase diagram over the ranged axes: with two, the (x, y) plane with each point coloured
/// by verdict (refined points smaller) and the centres of the finest disagreeing cells in black
/// (the traced boundary); with one, the margin with its error bar against the parameter; none
/// for zero or three or more ranged axes. `x_axis` (an Axis value, or -1 for the first ranged
/// axis) chooses the horizontal axis; `size` the figures' size. Tics are labelled at the box's
/// edges; the parameters go into the caption (NAME.caption.tex), not a title.
CheckFigures check_figures(const CheckParams& params, const CheckResult& result, int x_axis = -1,
                          const FigureParams& size = {});

/// The text report: claim, box, verdict, counts, witness and its command, caveats, timing.
std::string check_text(const CheckParams& params, const CheckResult& result);

/// Writes a check's outputs into `dir`: check.json (the document `certificate`),
/// points.{csv,md,tex} (the table for `tables`'s width) and the phase diagram's data and scripts (check_figures with `x_axis` and
/// `figure`, rendered when `render`), each recording `provenance`; `stem` makes the LaTeX labels
/// unique. Returns a line per file group written (`citation`: the first also names the
/// CITATION.bib the caller wrote).
std::vector<std::string> write_check(const CheckParams& params, const CheckResult& result,
                                     const nlohmann::json& certificate, const std::filesystem::path& dir, bool render,
                                     const Provenance& provenance, int x_axis, const FigureParams& figure,
                                     const std::string& stem, bool citation, const TableParams& tables = {});

}  // namespace rhoflow
