// render_figures: no shell (folder names are data), gnuplot's failures reported with its
// messages, a missing gnuplot only warned about; the library calls no shell anywhere.
#include "rhoflow/io/plot.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <regex>
#include <sstream>

#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/io_test_util.hpp"

using namespace rhoflow;
using namespace rhoflow::test;

namespace {

const std::vector<Figure> figures = {{"fig_line", "set title 'line'\nplot 'fig_line.dat' using 1:2 with lines", "", ""}};

void write_data(const fs::path& dir) { write_file_atomic(dir / "fig_line.dat", "0 0\n1 1\n2 4\n"); }

}  // namespace

TEST_CASE("plot: folder names with quotes, spaces, newlines and shell syntax are data, not code") {
    TempDir t("plot_names");
    EnvGuard pwned("RHOFLOW_TEST_PWNED", (t / "PWNED").string());
    const std::vector<std::string> names = {
        "x'; touch \"$RHOFLOW_TEST_PWNED\"; echo '",
        "it's a dir ;touch \"$RHOFLOW_TEST_PWNED\" $(touch \"$RHOFLOW_TEST_PWNED\") `touch \"$RHOFLOW_TEST_PWNED\"`",
        "bob's",
        "-n leading dash",
        "new\nline \"double\" na\xc3\xafve \xce\xb2",
    };
    const bool have = gnuplot_available();
    if (!have) MESSAGE("gnuplot not installed: scripts checked, rendering not");
    for (const auto& name : names) {
        CAPTURE(name);
        const fs::path dir = t / name;
        write_data(dir);
        std::vector<std::string> lines;
        CHECK(error_of([&] { lines = render_figures(dir, figures, have); }) == "");
        CHECK(fs::exists(dir / "fig_line.gp"));
        if (have) {
            CHECK(fs::file_size(dir / "fig_line.png") > 1000);
            CHECK(fs::file_size(dir / "fig_line.svg") > 1000);
        }
        CHECK(temporaries(dir).empty());
    }
    CHECK_FALSE(fs::exists(t / "PWNED"));
    CHECK_FALSE(fs::exists("PWNED"));
}

TEST_CASE("plot: a failing gnuplot is an error carrying its messages, and leaves no temporary") {
    TempDir t("plot_fake");
    fs::create_directories(t / "bin");
    // A fake gnuplot that reports where it ran and with which arguments, then fails.
    write_text(t / "bin" / "gnuplot",
               "#!/bin/sh\necho \"fake gnuplot in $(pwd) with $#: \\\"$1\\\", line 3: undefined variable: x\" >&2\nexit 1\n");
    fs::permissions(t / "bin" / "gnuplot", static_cast<fs::perms>(0755));
    EnvGuard path("PATH", (t / "bin").string() + ":/usr/bin:/bin");
    const fs::path dir = t / "a 'quoted' dir";
    write_data(dir);
    const std::string error = error_of([&] { render_figures(dir, figures); });
    CAPTURE(error);
    // The script gnuplot ran is a temporary; the message names the figure's own script instead.
    CHECK(error.find("fake gnuplot in " + fs::canonical(dir).string() + " with 1: \"fig_line.gp\", line 3") !=
          std::string::npos);
    CHECK(error.find(".tmp.") == std::string::npos);
    CHECK(error.find("line 3: undefined variable: x") != std::string::npos);
    CHECK(error.find("exit status 1") != std::string::npos);
    CHECK(error.find("fig_line.gp") != std::string::npos);
    CHECK(entries(dir) == std::set<std::string>{"fig_line.dat", "fig_line.gp"});
}

TEST_CASE("plot: gnuplot's own message names the figure's script at the line of the script as written") {
    if (!gnuplot_available()) {
        MESSAGE("gnuplot not installed");
        return;
    }
    TempDir t("plot_line");
    const fs::path dir = t / "figs";
    write_data(dir);
    const std::vector<Figure> bad = {{"fig_bad", "set grid\nplot no_such_function_xyz(x)", "", ""}};
    const std::string error = error_of([&] { render_figures(dir, bad, true, {}, "", {"provenance one", "two"}); });
    CAPTURE(error);
    CHECK(error.find(".tmp") == std::string::npos);
    const std::smatch m = [&] {
        std::smatch r;
        std::regex_search(error, r, std::regex("\"fig_bad.gp\" line ([0-9]+)"));
        return r;
    }();
    REQUIRE(m.size() == 2);
    std::istringstream gp(read_text(dir / "fig_bad.gp"));
    std::string line;
    for (int n = std::stoi(m[1]); n > 0; --n) std::getline(gp, line);
    CHECK(line.find("no_such_function_xyz") != std::string::npos);
}

TEST_CASE("plot: a hung gnuplot is killed after the timeout, naming the figure, and leaves no temporary") {
    TempDir t("plot_hung");
    fs::create_directories(t / "bin");
    // A gnuplot that hangs, with a child of its own (killed with it: the whole process group).
    write_text(t / "bin" / "gnuplot", "#!/bin/sh\n/bin/sleep 60 &\necho $! > \"$0.child\"\nwait\n");
    fs::permissions(t / "bin" / "gnuplot", static_cast<fs::perms>(0755));
    EnvGuard path("PATH", (t / "bin").string() + ":/usr/bin:/bin");
    EnvGuard timeout("RHOFLOW_GNUPLOT_TIMEOUT", "1");
    CHECK(gnuplot_timeout() == 1.0);
    const fs::path dir = t / "figs";
    write_data(dir);
    const auto start = std::chrono::steady_clock::now();
    const std::string error = error_of([&] { render_figures(dir, figures); });
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CAPTURE(error);
    CHECK(took < 20);  // the old code waited for the child's 60 s
    CHECK(error.find("did not finish " + (dir / "fig_line.gp").string() + " within 1 s and was killed") !=
          std::string::npos);
    CHECK(error.find("RHOFLOW_GNUPLOT_TIMEOUT") != std::string::npos);
    CHECK(error.find("kept") == std::string::npos);  // what stays is the caller's to say (compare --out removes it)
    CHECK(entries(dir) == std::set<std::string>{"fig_line.dat", "fig_line.gp"});
    // The child is gone (or a zombie waiting for its reaper).
    const std::string child = read_text(t / "bin" / "gnuplot.child");
    REQUIRE_FALSE(child.empty());
    const pid_t pid = std::stoi(child);
    CHECK(wait_until([&] {
        const std::string stat = read_text(fmt::format("/proc/{}/stat", pid));
        return stat.empty() || stat.find(") Z") != std::string::npos;
    }, 5));
}

TEST_CASE("plot: RHOFLOW_GNUPLOT_TIMEOUT must be a number of seconds > 0") {
    for (const char* bad : {"0", "-1", "x", "1s", "nan"}) {
        CAPTURE(bad);
        EnvGuard timeout("RHOFLOW_GNUPLOT_TIMEOUT", bad);
        CHECK_THROWS_AS(gnuplot_timeout(), std::invalid_argument);
    }
    EnvGuard unset("RHOFLOW_GNUPLOT_TIMEOUT", "");
    CHECK(gnuplot_timeout() == kGnuplotTimeout);
}

TEST_CASE("plot: without gnuplot the data and scripts are kept, with a warning") {
    TempDir t("plot_missing");
    write_data(t.path);
    EnvGuard path("PATH", "");
    CHECK_FALSE(gnuplot_available());
    std::vector<std::string> lines;
    CHECK(error_of([&] { lines = render_figures(t.path, figures); }) == "");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].rfind("warning: ", 0) == 0);
    CHECK(lines[0].find("gnuplot not found") != std::string::npos);
    CHECK(entries(t.path) == std::set<std::string>{"fig_line.dat", "fig_line.gp"});
}

TEST_CASE("plot: a figure name that is not a plain file name is refused before anything is written") {
    TempDir t("plot_badname");
    for (const char* bad : {"", "a/b", "it's", "a\nb", ".."}) {
        CAPTURE(bad);
        CHECK_THROWS_AS(render_figures(t.path, {{bad, "plot x", "", ""}}, false), std::invalid_argument);
    }
    CHECK(entries(t.path).empty());
}

TEST_CASE("plot: nothing in lib calls a shell (system, popen)") {
    // Comments stripped, then any call of system( or popen( is a finding.
    const std::regex call(R"((^|[^A-Za-z0-9_])(system|popen)\s*\()");
    std::vector<std::string> found;
    for (const auto& e : fs::recursive_directory_iterator(fs::path(RHOFLOW_SOURCE_DIR) / "lib")) {
        const auto ext = e.path().extension();
        if (ext != ".cpp" && ext != ".hpp" && ext != ".in") continue;
        std::istringstream in(read_text(e.path()));
        std::string line;
        for (int n = 1; std::getline(in, line); ++n) {
            line = line.substr(0, line.find("//"));
            if (std::regex_search(line, call)) found.push_back(fmt::format("{}:{}: {}", e.path().string(), n, line));
        }
    }
    for (const auto& f : found) MESSAGE(f);
    CHECK(found.empty());
}
