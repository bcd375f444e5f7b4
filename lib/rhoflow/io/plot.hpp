// Figures rendered by gnuplot (a runtime dependency, Debian's gnuplot-nox). For each figure
// rhoflow writes a self-contained script NAME.gp next to its data files, so that
// `gnuplot NAME.gp` in that folder regenerates every image of the figure alone; then, if
// gnuplot is installed, it renders them:
//  - NAME.png (150 dpi) and NAME.svg for screens, NAME.pdf (vector, pdfcairo) for papers, all
//    three from the figure's enhanced-text body (UTF-8 Greek, sub- and superscripts);
//  - NAME-latex.tex with NAME-latex.pdf (gnuplot's cairolatex terminal: the lines in the PDF,
//    every label set by LaTeX in the paper's font, from the figure's LaTeX body), included with
//    \input{NAME-latex.tex} in a document that loads graphicx and color;
//  - NAME.caption.tex: \caption{...}\label{fig:...} describing the figure (parameters in a
//    sentence), for \input inside a figure environment.
// Sizes (FigureParams): column (3.4 in wide, 8 pt text), page (7 in wide, 9 pt text) or W x H
// inches; a figure's height is its aspect ratio times the preset's width.
//
// Guarantees:
//  - no shell is involved: gnuplot is found by searching PATH here (empty entries, meaning the
//    current folder, are skipped) and started with posix_spawn (fork/exec where posix_spawn
//    cannot set the working folder) with an argument vector and its working folder set to the
//    figures' folder, so any folder name works (quotes, spaces, newlines, leading dashes,
//    non-ASCII) and none is interpreted;
//  - images are rendered to temporary names (see atomic_file.hpp) renamed on success: no
//    partial image under a final name; the temporaries are removed on failure and, once the
//    program enabled interrupt.hpp, on SIGINT/SIGTERM (gnuplot is then sent SIGTERM too);
//  - gnuplot runs with an empty signal mask, standard input /dev/null, and its standard output
//    and error captured.
// Failures:
//  - gnuplot not found: not an error; the status line for each figure starts with "warning: "
//    and says how to render later, and the data and scripts are kept;
//  - gnuplot found but failing (or killed): IoError (a std::runtime_error) naming the script,
//    the exit status and gnuplot's own messages; the figures already rendered are kept;
//  - gnuplot hung: after gnuplot_timeout() seconds (60, or the environment variable
//    RHOFLOW_GNUPLOT_TIMEOUT) its process group is killed and IoError names the script and the
//    limit; its temporaries are removed, the data and scripts kept;
//  - a figure name that is not a plain file name (empty, '/', quotes, control characters):
//    std::invalid_argument, before anything is written.
#pragma once

#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rhoflow {

/// The size of the figures: a preset or explicit inches (flag --figure-size).
struct FigureParams {
    /// column (3.4 in wide, one column of a two-column paper) | page (7 in wide) | WxH in inches,
    /// 1 <= W, H <= 20 (e.g. 5x3.5)
    std::string size = "column";
    /// Throws InvalidArgument naming "size" for anything else.
    void validate() const;
};

/// JSON hooks of FigureParams: {"size": ...}.
void to_json(nlohmann::json& j, const FigureParams& p);
/// Reads what to_json wrote.
void from_json(const nlohmann::json& j, FigureParams& p);

/// A resolved figure size.
struct FigureGeometry {
    double width = 3.4;   ///< inches
    double height = 2.55; ///< inches
    double font_pt = 8;   ///< text size of the PNG, PDF and SVG (the LaTeX variant: \footnotesize or \small)
};

/// The geometry of a figure of height/width ratio `aspect` at the size `p` (explicit W x H wins).
FigureGeometry figure_geometry(const FigureParams& p, double aspect = 0.75);

/// A figure: its file stem, the gnuplot commands that draw it (after the terminal is set) and
/// what is written beside it.
struct Figure {
    std::string name;        ///< stem of NAME.gp, NAME.png, ... (a plain file name)
    std::string body;        ///< commands for the enhanced-text terminals (PNG, PDF, SVG), ending in a plot
    std::string latex_body;  ///< the same figure with LaTeX labels for cairolatex ("" = no LaTeX variant)
    std::string caption;     ///< caption text in LaTeX for NAME.caption.tex ("" = none)
    double aspect = 0.75;    ///< height / width at the column and page sizes
};

/// Text for both kinds of body: `enhanced` in gnuplot's enhanced-text syntax (UTF-8) or `latex`.
struct FigureText {
    bool latex = false;  ///< writing the LaTeX body
    /// The label as the body being written needs it, quoted for gnuplot (single quotes; a quote
    /// inside is doubled).
    std::string operator()(const std::string& enhanced, const std::string& latex_text) const;
};

/// `x` for LaTeX math: up to 4 significant digits, "1.5 \times 10^{-7}" instead of a C exponent.
std::string tex_number(double x);

/// A gnuplot `set {axis}range` and `set {axis}tics (...)` covering [lo, hi] (lo < hi; lo > 0 on a
/// log axis), padded by 5%, with about 4-6 labelled round tics: 1, 2, 5 x 10^k on a log axis of
/// at most two decades, decades (10^k) beyond, round steps on a linear one; labels in enhanced
/// text or LaTeX.
std::string axis_tics(char axis, double lo, double hi, bool log, bool latex);

/// The layout of a figure with its key below the plot (measured on the rendered PDFs; the figure
/// test, tests/figures/figure_check.py, holds the band between the x label and the key under 4%).
/// The screen fraction `entries` key entries take in `columns` columns (a row is about 0.95 of
/// the font size high, plus 0.03 in below).
double key_fraction(const FigureGeometry& g, int entries, int columns);
/// The extra screen fraction the LaTeX variant's x labels need (LaTeX sets them taller than
/// gnuplot assumes: 0.9 of a line), 0 for the enhanced-text terminals.
double latex_extra(const FigureGeometry& g, bool latex);
/// The screen fraction the x tics and the x label take below a plot: two text lines (+ latex_extra).
double label_space(const FigureGeometry& g, bool latex);
/// `set key` below the plot at the bottom of the canvas: `entries` in `columns` columns, filled
/// down (a row count, not a width: cairolatex cannot measure LaTeX text).
std::string key_below(int entries, int columns);
/// Left and right margins (screen) leaving room for the y tics and label.
std::string side_margins(const FigureGeometry& g);
/// `set bmargin` and `set tmargin` at the screen fractions given.
std::string vertical(double bottom, double top);
/// Columns of a key below the plot: 2 in a figure narrower than 5 in, 3 otherwise.
int key_columns(const FigureGeometry& g);

/// The label of a figure caption: "fig:" + `stem` (reduced to letters, digits, '-', '.', ':') +
/// "-" + `figure`, so that two outputs' figures included in one document do not collide.
std::string figure_label(const std::string& stem, const std::string& figure);

/// The name an output folder is known by: its file name, without the staging decoration of
/// StagedDirectory (".NAME.tmp.PID.HOST.N") or of a run's cell (".NAME.tmp").
std::string output_stem(const std::filesystem::path& dir);

/// The gnuplot executable found on PATH (absolute), if any.
std::optional<std::filesystem::path> find_gnuplot();

/// True when a gnuplot executable is on the PATH.
bool gnuplot_available();

/// The default limit on one gnuplot run, in seconds.
inline constexpr double kGnuplotTimeout = 60;
/// The limit on one gnuplot run: RHOFLOW_GNUPLOT_TIMEOUT (seconds > 0) if set, else
/// kGnuplotTimeout; std::invalid_argument naming the variable for a value that is not a number > 0.
double gnuplot_timeout();
/// Reads RHOFLOW_GNUPLOT_TIMEOUT as gnuplot_timeout() does, before any work: InvalidArgument with
/// field "RHOFLOW_GNUPLOT_TIMEOUT" (exit 2 on the command line) for a value it would refuse.
void check_gnuplot_timeout();

/// Writes DIR/NAME.gp and DIR/NAME.caption.tex for each figure and, when `render` and gnuplot is
/// available, renders NAME.png, NAME.pdf, NAME.svg and NAME-latex.{tex,pdf} at `size`; the
/// captions' labels are figure_label(`label_stem` or output_stem(dir), NAME without "fig_").
/// Returns one line per figure saying what was written, beginning with "warning: " when gnuplot
/// was wanted but not found. Throws as described above. Each script starts with the `provenance`
/// lines as comments (io/json.hpp, provenance_lines).
std::vector<std::string> render_figures(const std::filesystem::path& dir, const std::vector<Figure>& figures,
                                        bool render = true, const FigureParams& size = {},
                                        const std::string& label_stem = "",
                                        const std::vector<std::string>& provenance = {});

}  // namespace rhoflow
