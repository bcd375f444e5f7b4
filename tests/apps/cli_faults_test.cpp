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

// Every regular file under `dir` with its content, by relative path (run.json's "execution",
// the one place for what may differ between runs, dropped).
std::map<std::string, std::string> files_of(const fs::path& dir) {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        std::string text = read_text(e.path());
        const std::string rel = fs::relative(e.path(), dir).string();
        if (rel == "run.json") {
            auto doc = json::parse(text);
            doc.erase("execution");
            text = doc.dump();
        }
        out[rel] = text;
    }
    return out;
}

// The entries under `dir`, at any depth, whose name holds ".tmp" (a cell's or a file's temporary).
std::vector<std::string> temporaries_under(const fs::path& dir) {
    std::vector<std::string> t;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.path().filename().string().find(".tmp") != std::string::npos) t.push_back(e.path().string());
    return t;
}

}  // namespace

TEST_CASE("cli faults: figure temporaries of a killed run (cairolatex's .tex and .pdf) are gone after resuming (H7)") {
    if (!rhoflow::gnuplot_available()) {
        MESSAGE("gnuplot not installed: no figures are rendered, nothing to leave behind");
        return;
    }
    TempDir t("faults_latex");
    const FixedDate date;  // the rerun's files are compared byte for byte
    write_text(t / "e.toml", "[[task]]\nname = \"s\"\ncommand = \"sga\"\nd = 8\nL = 20\nR = 4\ntrials = 2\n"
                             "threads = 1\nsteps = [200, 300]\n");
    REQUIRE(rhoflow_cli({"run", (t / "e.toml").string(), "--out", (t / "o").string()}).code == 0);
    const auto uninterrupted = files_of(t / "o");
    REQUIRE(uninterrupted.count("s/fig_final_steps-latex.tex"));
    // What SIGKILL during the sweep figure's cairolatex pass leaves: its picture and graphics under
    // the temporary stem of a process that has ended (this one's name with a dead pid).
    const std::string mine = rhoflow::detail::temporary_sibling(t / "o" / "s" / "fig_final_steps-latex").filename().string();
    const std::string own = fmt::format(".{}.", ::getpid());
    std::string stem = mine;
    stem.replace(stem.find(own), own.size(), fmt::format(".{}.", dead_pid()));
    write_text(t / "o" / "s" / (stem + ".tex"), "\\begin{picture}");
    write_text(t / "o" / "s" / (stem + ".pdf"), "%PDF-1.5");
    const Run again = rhoflow_cli({"run", (t / "e.toml").string(), "--out", (t / "o").string()});
    CHECK(again.code == 0);
    CHECK(temporaries_under(t / "o").empty());
    CHECK(files_of(t / "o") == uninterrupted);
}

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
