// Faults of issue 30's third probe in `run`, `compare` and their output folders: a cell that
// cannot be written leaves no temporary (H6), a killed run's figure temporaries are removed on
// resuming (H7), task names that are the run's own files (H8), inputs that could only fail after
// the work (H13), messages that named temporaries (H14).
#include <doctest/doctest.h>

#include <csignal>
#include <fcntl.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <unistd.h>

#include "cli_run.hpp"
#include "rhoflow/io/detail/fs.hpp"
#include "rhoflow/io/io_test_util.hpp"
#include "rhoflow/io/plot.hpp"

using namespace rhoflow::test;
using nlohmann::json;

namespace {

const char* rhoflow_bin = RHOFLOW_CLI_PATH;

}  // namespace

TEST_CASE("cli faults: a task named as one of the run's own files exits 2 at --dry-run, naming it and them (H8)") {
    TempDir t("faults_reserved");
    for (const char* name : {"CITATION.bib", "citation.bib", "manifest.json", "run.json", "Run.JSON"}) {
        CAPTURE(name);
        write_text(t / "e.toml", fmt::format("[[task]]\nname = \"{}\"\ncommand = \"field\"\nrho = 0.5\n", name));
        const Run r = rhoflow_cli({"run", (t / "e.toml").string(), "--out", (t / "o").string(), "--dry-run"});
        CHECK(r.code == 2);
        CHECK(r.err.find(fmt::format("task name '{}' is reserved", name)) != std::string::npos);
        for (const char* own : {"manifest.json", "run.json", "CITATION.bib"}) CHECK(r.err.find(own) != std::string::npos);
        CHECK(r.out.empty());  // no cell listed: refused before the dry run
    }
    CHECK_FALSE(fs::exists(t / "o"));
}
