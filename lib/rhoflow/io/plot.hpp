// Figures rendered by gnuplot (a runtime dependency, Debian's gnuplot-nox). For each figure
// rhoflow writes its data files and a self-contained script NAME.gp next to them, so that
// `gnuplot NAME.gp` in that directory regenerates NAME.png and NAME.svg; then, if gnuplot is
// installed, it runs the script, rendering to temporary names that are renamed on success
// (no partial image under the final name). Without gnuplot it says so and keeps the data.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace rhoflow {

/// A figure: its file stem and the gnuplot commands that draw it (after the terminal is set).
struct Figure {
    std::string name;  ///< stem of NAME.gp, NAME.png, NAME.svg
    std::string body;  ///< gnuplot commands ending in one plot command (re-plotted for SVG)
};

/// True when a gnuplot executable is on the PATH.
bool gnuplot_available();

/// Writes DIR/NAME.gp for each figure and, when `render` and gnuplot is available, renders PNG
/// and SVG. Returns one line per figure saying what was written (or why it was not rendered).
std::vector<std::string> render_figures(const std::filesystem::path& dir, const std::vector<Figure>& figures,
                                        bool render = true);

}  // namespace rhoflow
