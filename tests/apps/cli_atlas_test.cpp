// rhoflow atlas on the command line: the experiment it writes (theta boxes that cover the range
// edge to edge, rows of L with R = alpha L stepping together), a run whose map shows the
// cells' verdicts and reruns to the same bytes, and bad flags named with their ranges.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "cli_run.hpp"
#include "rhoflow/check/box.hpp"
#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/experiment/runner.hpp"
#include "rhoflow/io/io_test_util.hpp"
#include "test_util.hpp"

using namespace rhoflow;
using rhoflow::test::rhoflow_cli;
namespace fs = std::filesystem;

namespace {
bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }
}  // namespace

TEST_CASE("cli atlas: --dry-run prints an experiment whose theta boxes tile the range and whose rows pair L with alpha L") {
    const auto r = rhoflow_cli({"atlas", "--d", "5", "--L", "20,40", "--alpha", "0.1,0.25", "--theta-lo", "0.3",
                                "--theta-hi", "1.1", "--theta-cells", "3", "--dry-run"});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const std::string text = r.out.substr(0, r.out.find("# its cells:"));
    const Experiment e = read_experiment_text(text, "atlas.toml");
    REQUIRE(e.tasks.size() == 2);
    CHECK(e.tasks[0].command == "prove");
    CHECK(e.tasks[1].command == "threshold");
    REQUIRE(e.cells.size() == 3 * 4 + 4);  // 3 boxes x 4 rows, then one threshold per row
    double edge = 0.3;
    for (std::size_t i = 0; i < 12; ++i) {
        const auto& box = std::get<ProveJob>(e.cells[i].job).prove.box;
        CHECK((box.R.lo == box.L.lo / 10 || box.R.lo == box.L.lo / 4));  // alpha = 0.1 or 0.25
        if (i % 4 == 0) {  // a new box starts where the last ended: every theta in [0.3, 1.1] is covered
            CHECK(box.theta.lo == edge);
            edge = box.theta.hi;
        }
    }
    CHECK(edge == 1.1);
    CHECK(has(r.out, "rhoflow threshold --L 40 --R 10 "));
}

TEST_CASE("cli atlas: a run maps the cells' verdicts, and a rerun resumes to the same bytes") {
    const fs::path dir = test::temp_dir("cli_atlas");
    const std::string out = (dir / "a").string();
    // d = 5, L = 20, R = 2 is monotone below theta* in [0.89, 0.93] and not at 1.2 (a corner witness).
    const std::vector<std::string> args = {"atlas", "--d", "5", "--L", "20", "--theta-lo", "1.1", "--theta-hi", "1.2",
                                           "--theta-cells", "1", "--threshold-width", "0", "--threads", "1",
                                           "--no-figures", "--out", out};
    const auto r = rhoflow_cli(args);
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const std::string md = test::read_text(dir / "a/map/atlas.md");
    CAPTURE(md);
    CHECK(has(md, "| all | fails | fails at θ = 1.2 |"));
    CHECK(!fs::exists(dir / "a/threshold"));
    const std::string certificate = test::read_text(dir / "a/map/run/certificate.json");
    const auto again = rhoflow_cli(args);
    REQUIRE_MESSAGE(again.code == 0, again.err);
    CHECK(test::read_text(dir / "a/map/run/certificate.json") == certificate);
    CHECK(test::read_text(dir / "a/map/atlas.md") == md);
}

TEST_CASE("cli atlas: alpha L is an integer up to rounding, and one theta box over two rows is still a theta map") {
    auto r = rhoflow_cli({"atlas", "--L", "100", "--alpha", "0.07", "--dry-run"});  // 0.07 x 100 = 7.000000000000001
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(has(r.out, "R = 7\n"));
    const fs::path dir = test::temp_dir("cli_atlas_one_box");
    r = rhoflow_cli({"atlas", "--d", "5", "--L", "20,40", "--theta-lo", "1.1", "--theta-hi", "1.2", "--theta-cells", "1",
                     "--threshold-width", "0", "--threads", "1", "--no-figures", "--out", (dir / "a").string()});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const std::string md = test::read_text(dir / "a/map/atlas.md");
    CAPTURE(md);
    CHECK(has(md, "| θ | [1.1, 1.2] | reading |"));
    CHECK(has(md, "| L = 20, R = 2 | fails |"));
    CHECK(has(md, "| L = 40, R = 4 | fails |"));
}

TEST_CASE("cli atlas: bad flags exit 2 naming the flag and its range") {
    auto r = rhoflow_cli({"atlas", "--L", "21", "--alpha", "0.1"});
    CHECK(r.code == 2);
    CHECK(has(r.err, "invalid --alpha: alpha = 0.1 at L = 21 gives R = alpha L = 2.1"));
    r = rhoflow_cli({"atlas", "--theta-lo", "1", "--theta-hi", "0.5"});
    CHECK(r.code == 2);
    CHECK(has(r.err, "invalid --theta-hi: theta-hi = 0.5 is out of range (accepted: theta-lo < theta-hi <= 1e6)"));
    r = rhoflow_cli({"atlas", "--L", "2.5"});
    CHECK(r.code == 2);
    CHECK(has(r.err, "invalid --L"));
    r = rhoflow_cli({"atlas", "--claim", "filtering"});
    CHECK(r.code == 2);
    CHECK(has(r.err, "--claim"));
    r = rhoflow_cli({"atlas", "--sigma", "10"});  // beta sigma = 10: named before the file is written
    CHECK(r.code == 2);
    CHECK(has(r.err, "invalid --beta: "));
    CHECK(has(r.err, "beta*sigma <= 4"));
    r = rhoflow_cli({"atlas", "--claim", "monotone\"\n[[task]]", "--dry-run"});  // data, never TOML
    CHECK(r.code == 2);
    CHECK(has(r.err, "invalid --claim"));
}
