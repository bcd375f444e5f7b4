// Reading experiments from text (read_experiment_text, the one implementation behind
// read_experiment): the same experiment as from the file, errors naming the given name, files
// that cannot be read, and the reproducers of what fuzzing found (tests/fuzz), each asserting
// the clear InvalidArgument that must come instead.
#include "rhoflow/experiment/runner.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "rhoflow/core/errors.hpp"
#include "test_util.hpp"

using namespace rhoflow;
namespace fs = std::filesystem;

namespace {

// The message of the InvalidArgument read_experiment_text throws for `text` ("" if none); any
// other exception fails the test.
std::string text_error(const std::string& text, const std::string& name = "t.toml") {
    try {
        read_experiment_text(text, name);
    } catch (const InvalidArgument& e) {
        CHECK(e.field() == "file");
        return e.what();
    }
    return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const std::string kExperiment =
    "title = \"text\"\n"
    "[defaults]\nd = 8\nL = 20\nR = 4\n"
    "[[task]]\nname = \"s\"\ncommand = \"sga\"\nsteps = 200\ntheta = [0.5, 1.5]\n"
    "[[task]]\ncommand = \"field\"\nrho = [[0.5, -0.5], [0.25]]\n";

}  // namespace

TEST_CASE("read_experiment_text: the same experiment as read_experiment from a file of that text") {
    const fs::path dir = test::temp_dir("read_text_same");
    const fs::path file = dir / "e.toml";
    std::ofstream(file) << kExperiment;
    const Experiment a = read_experiment(file);
    const Experiment b = read_experiment_text(kExperiment, file.string());
    CHECK(a.file == b.file);
    CHECK(a.title == b.title);
    CHECK(a.out == b.out);
    CHECK(b.out == fs::path("e-out"));  // <stem of the name>-out
    REQUIRE(a.cells.size() == 4);
    REQUIRE(b.cells.size() == a.cells.size());
    for (std::size_t i = 0; i < a.cells.size(); ++i) {
        CHECK(a.cells[i].dir == b.cells[i].dir);
        CHECK(a.cells[i].swept == b.cells[i].swept);
    }
    CHECK(read_experiment_text(kExperiment, "x.toml", dir / "o").out == dir / "o");
}

TEST_CASE("read_experiment_text: errors name the given name and line") {
    CHECK(contains(text_error("[[task]]\ncommand = \"sga\"\nsteps = \"many\"\n", "mine.toml"),
                   "mine.toml:3: key 'steps'"));
    CHECK(contains(text_error("[[task]\n", "mine.toml"), "mine.toml:1:"));
    CHECK(contains(text_error("", "mine.toml"), "mine.toml: no [[task]] to run"));
}

TEST_CASE("read_experiment: a file that cannot be read is an invalid input naming it") {
    const fs::path dir = test::temp_dir("read_text_unreadable");
    for (const fs::path& p : {dir / "absent.toml", dir}) {
        CAPTURE(p);
        try {
            read_experiment(p);
            FAIL("no exception");
        } catch (const InvalidArgument& e) {
            CHECK(e.field() == "file");
            CHECK(contains(e.what(), p.string() + ": cannot be read"));
        }
    }
}
