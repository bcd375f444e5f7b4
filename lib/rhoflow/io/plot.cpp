#include "rhoflow/io/plot.hpp"

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

#include "rhoflow/io/atomic_file.hpp"

namespace rhoflow {

namespace {

std::string script(const Figure& f, const std::string& png, const std::string& svg) {
    return fmt::format(
        "set terminal pngcairo size 1000,700 enhanced font \",11\"\n"
        "set output '{}'\n{}\n"
        "set terminal svg size 1000,700 enhanced font \",11\" background rgb 'white'\n"
        "set output '{}'\nreplot\nunset output\n",
        png, f.body, svg);
}

}  // namespace

bool gnuplot_available() { return std::system("command -v gnuplot > /dev/null 2>&1") == 0; }

std::vector<std::string> render_figures(const std::filesystem::path& dir, const std::vector<Figure>& figures,
                                        bool render) {
    namespace fs = std::filesystem;
    std::vector<std::string> status;
    const bool have = render && gnuplot_available();
    for (const auto& f : figures) {
        const std::string user = fmt::format("# {0}: regenerate with `gnuplot {0}.gp` in this directory.\n", f.name) +
                                 script(f, f.name + ".png", f.name + ".svg");
        write_file_atomic(dir / (f.name + ".gp"), user);
        if (!have) {
            status.push_back(render ? fmt::format("{}: data and {}.gp written; gnuplot not found, figure not rendered "
                                                  "(apt-get install gnuplot-nox, then run gnuplot {}.gp)",
                                                  f.name, f.name, f.name)
                                    : fmt::format("{}: data and {}.gp written (not rendered)", f.name, f.name));
            continue;
        }
        const std::string png_tmp = "." + f.name + ".png.tmp", svg_tmp = "." + f.name + ".svg.tmp";
        const fs::path run = dir / ("." + f.name + ".run.gp");
        write_file_atomic(run, script(f, png_tmp, svg_tmp));
        const std::string cmd = fmt::format("cd '{}' && gnuplot '{}' 2> '.{}.log'", dir.string(),
                                            run.filename().string(), f.name);
        const int rc = std::system(cmd.c_str());
        std::error_code ec;
        fs::remove(run, ec);
        if (rc == 0 && fs::exists(dir / png_tmp) && fs::exists(dir / svg_tmp)) {
            fs::rename(dir / png_tmp, dir / (f.name + ".png"));
            fs::rename(dir / svg_tmp, dir / (f.name + ".svg"));
            fs::remove(dir / ("." + f.name + ".log"), ec);
            status.push_back(fmt::format("{}: {}.png and {}.svg", f.name, f.name, f.name));
        } else {
            fs::remove(dir / png_tmp, ec);
            fs::remove(dir / svg_tmp, ec);
            status.push_back(fmt::format("{}: gnuplot failed (see .{}.log); data and {}.gp kept", f.name, f.name, f.name));
        }
    }
    return status;
}

}  // namespace rhoflow
