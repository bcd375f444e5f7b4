// Figures rendered by gnuplot (a runtime dependency, Debian's gnuplot-nox). For each figure
// rhoflow writes a self-contained script NAME.gp next to its data files, so that
// `gnuplot NAME.gp` in that folder regenerates NAME.png and NAME.svg; then, if gnuplot is
// installed, it renders both.
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
#include <optional>
#include <string>
#include <vector>

namespace rhoflow {

/// A figure: its file stem and the gnuplot commands that draw it (after the terminal is set).
struct Figure {
    std::string name;  ///< stem of NAME.gp, NAME.png, NAME.svg (a plain file name)
    std::string body;  ///< gnuplot commands ending in one plot command (re-plotted for SVG)
};

/// The gnuplot executable found on PATH (absolute), if any.
std::optional<std::filesystem::path> find_gnuplot();

/// True when a gnuplot executable is on the PATH.
bool gnuplot_available();

/// The default limit on one gnuplot run, in seconds.
inline constexpr double kGnuplotTimeout = 60;
/// The limit on one gnuplot run: RHOFLOW_GNUPLOT_TIMEOUT (seconds > 0) if set, else
/// kGnuplotTimeout; std::invalid_argument naming the variable for a value that is not a number > 0.
double gnuplot_timeout();

/// Writes DIR/NAME.gp for each figure and, when `render` and gnuplot is available, renders
/// NAME.png and NAME.svg. Returns one line per figure saying what was written, beginning with
/// "warning: " when gnuplot was wanted but not found. Throws as described above. Each script
/// starts with the `provenance` lines as comments (io/json.hpp, provenance_lines).
std::vector<std::string> render_figures(const std::filesystem::path& dir, const std::vector<Figure>& figures,
                                        bool render = true, const std::vector<std::string>& provenance = {});

}  // namespace rhoflow
