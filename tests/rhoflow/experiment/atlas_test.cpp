// Sweeps that step together (`together`) and the atlas of a swept prove or threshold task
// (experiment/atlas.cpp): the map's entries are its cells' own verdicts, in the right row and
// column, with the witnesses of the certificates; the thresholds table is the cells' brackets.
#include "rhoflow/experiment/runner.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <string>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/prove/verify.hpp"
#include "rhoflow/io/io_test_util.hpp"
#include "test_util.hpp"

using namespace rhoflow;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using test::read_text;

fs::path write(const fs::path& dir, const std::string& name, const std::string& text) {
    test::write_text(dir / name, text);
    return dir / name;
}

std::string file_error(const fs::path& dir, const std::string& text) {
    try {
        read_experiment(write(dir, "bad.toml", text), dir / "never");
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return "";
}

ExperimentResult run_quiet(const fs::path& file, const fs::path& out) {
    ExperimentOptions o;
    o.render_figures = false;
    o.provenance = make_provenance("run", "rhoflow run atlas.toml");
    o.provenance.date = "2026-12-01T00:00:00Z";
    return run_experiment(read_experiment(file, out), o);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("together: keys that step together make one axis of the sweep, and bad groups are refused naming the key") {
    const fs::path dir = test::temp_dir("together");
    const Experiment e = read_experiment(
        write(dir, "e.toml",
              "[[task]]\ncommand = \"field\"\nd = 5\nL = [20, 40, 80]\nR = [2, 4, 8]\ntogether = [\"L\", \"R\"]\n"
              "theta = [0.5, 1]\n"),
        dir / "out");
    REQUIRE(e.cells.size() == 6);  // 3 (L with R) x 2 theta, not 3 x 3 x 2
    for (const auto& c : e.cells) {
        const ModelParams* m = model_of(c.job);
        CHECK(m->R * 10 == m->L);  // R = L / 10 in every cell
    }
    CHECK(e.cells[0].dir == "task1/L=20_R=2_theta=0.5");
    CHECK(e.cells[1].dir == "task1/L=40_R=4_theta=0.5");  // the first key (L, with R) is the fastest
    CHECK(e.cells[3].dir == "task1/L=20_R=2_theta=1");
    CHECK(partners_of(e.tasks[0], "R") == std::vector<std::string>{"L"});
    CHECK(partners_of(e.tasks[0], "theta").empty());
    const std::string base = "[[task]]\ncommand = \"field\"\nd = 5\nL = [20, 40]\ntheta = [0.5, 1]\n";
    CHECK(contains(file_error(dir, base + "R = [2, 4, 8]\ntogether = [\"L\", \"R\"]\n"),
                   "key 'together': 'L' sweeps 2 values and 'R' 3"));
    CHECK(contains(file_error(dir, base + "R = 2\ntogether = [\"L\", \"R\"]\n"), "'R' is not a key this task sweeps"));
    CHECK(contains(file_error(dir, base + "together = [\"L\"]\n"), "a group names two keys or more"));
    CHECK(contains(file_error(dir, base + "together = [[\"L\", \"theta\"], [\"theta\", \"L\"]]\n"), "is in two groups"));
    CHECK(contains(file_error(dir, base + "together = \"L\"\n"), "bad.toml:6: key 'together'"));
    CHECK(file_error(dir, base + "R = 2\ntogether = [\"L\", \"theta\"]\n").empty());
}

TEST_CASE("atlas: a prove task over theta boxes and models is a map of its cells' own verdicts and witnesses") {
    // d = 5, L = 20, R = 2: monotone (+1 the only attractor) below theta* in [0.89, 0.93]
    // (rhoflow threshold --d 5 --L 20 --R 2), so the box [0.6, 0.62] and 0.8 hold and 1.2 fails.
    const fs::path dir = test::temp_dir("atlas_map");
    const fs::path out = dir / "out";
    run_quiet(write(dir, "atlas.toml",
                    "[[task]]\nname = \"sign\"\ncommand = \"prove\"\nclaim = \"monotone\"\nd = 5\nL = [20, 40]\n"
                    "R = [2, 4]\ntogether = [\"L\", \"R\"]\ntheta = [\"0.6:0.62\", \"0.8\", \"1.2\"]\nthreads = 1\n"),
              out);
    const std::string md = read_text(out / "sign/atlas.md");
    const std::string dat = read_text(out / "sign/atlas.dat");
    CAPTURE(md);
    CHECK(contains(md, "| θ | [0.6, 0.62] | 0.8 | 1.2 | reading |"));  // the corner names the columns' key
    // Each entry is the certificate's verdict of the cell in its row and column.
    const char* rows[] = {"L = 20, R = 2", "L = 40, R = 4"};
    const char* folders[] = {"L=20_R=2", "L=40_R=4"};
    const char* thetas[] = {"0.6_0.62", "0.8", "1.2"};
    for (int r = 0; r < 2; ++r) {
        std::string line = std::string("| ") + rows[r] + " |";
        for (const char* t : thetas) {
            const json cert = json::parse(read_text(out / "sign" / (std::string(folders[r]) + "_theta=" + t) / "certificate.json"));
            const std::string v = cert.at("verdict");
            line += std::string(" ") + (v == "proved" ? "holds" : v == "disproved" ? "fails" : "?") + " |";
            // The cell's certificate checks (by the prover's enclosure: quick).
            CHECK(verify_certificate(cert, 1, Execution::local, VerifyMethod::fast).valid);
        }
        CAPTURE(line);
        CHECK(contains(md, line));
    }
    CHECK(contains(md, "| L = 20, R = 2 | holds | holds | fails | holds on [0.6, 0.62]; fails at θ = 1.2 |"));
    // atlas.dat: span, row, verdict and the witness (the disproving parameter cell of the certificate).
    CHECK(contains(dat, "\n0.59999999999999998 0.62 0 1 ? ?\n"));
    CHECK(contains(dat, "\n1.2 1.2 1 -1 1.2 1.2\n"));
    CHECK(contains(read_text(out / "sign/atlas.tex"), "\\texttt{monotone}"));
    CHECK(fs::is_regular_file(out / "sign/fig_atlas.gp"));
}

TEST_CASE("atlas: a threshold task swept over models tabulates its cells' brackets") {
    const fs::path dir = test::temp_dir("atlas_thresholds");
    const fs::path out = dir / "out";
    run_quiet(write(dir, "t.toml",
                    "[[task]]\nname = \"th\"\ncommand = \"threshold\"\nd = 5\nL = [20, 40]\nR = [2, 4]\n"
                    "together = [\"L\", \"R\"]\nlo = 0.5\nhi = 1.5\nwidth = 0.2\nthreads = 1\n"),
              out);
    const std::string md = read_text(out / "th/thresholds.md");
    CAPTURE(md);
    for (const char* cell : {"L=20_R=2", "L=40_R=4"}) {
        const json r = json::parse(read_text(out / "th" / cell / "result.json"));
        REQUIRE(r.at("bracketed") == true);
        CHECK(r.at("hi").get<double>() - r.at("lo").get<double>() <= 0.2);
        const std::string L = std::string(cell).substr(2, 2), R = std::string(cell).substr(7, 1);
        CHECK(contains(md, fmt::format("| {} | {} | {} | {} |", L, R, format_number(r.at("lo").get<double>()),
                                       format_number(r.at("hi").get<double>()))));
    }
    CHECK(contains(md, "proved, disproved"));
}
