// Interrupting the real rhoflow binary while it writes a comparison's folder or runs an
// experiment file: the folder is complete or absent under its name (an earlier complete one
// survives whole), and an interrupted sweep resumes to the same files as an uninterrupted one.
#include <doctest/doctest.h>

#include <cstdlib>

#include <csignal>
#include <map>
#include <nlohmann/json.hpp>

#include "rhoflow/io/io_test_util.hpp"
#include "rhoflow/io/output_dir.hpp"

using namespace rhoflow::test;

namespace {

const char* rhoflow_bin = RHOFLOW_CLI_PATH;

bool has_staged(const fs::path& dir, const std::string& name) {
    for (const auto& n : temporaries(dir))
        if (n.rfind("." + name + ".tmp.", 0) == 0) return true;
    return false;
}

}  // namespace

TEST_CASE("cli interrupt: SIGTERM while compare writes its folder leaves the earlier run whole") {
    TempDir t("cli_interrupt_compare");
    const fs::path out = t / "cmp";
    const std::vector<std::string> args = {rhoflow_bin, "compare", "--d", "8", "--L", "20", "--R", "4", "--steps",
                                           "3000", "--trials", "3", "--eta0", "0.05", "--k0", "200", "--horizon",
                                           "2", "--no-study", "--no-effective", "--out", out.string(), "--quiet"};
    // A complete run with seed 1.
    std::vector<std::string> first = args;
    first.insert(first.end(), {"--seed", "1"});
    REQUIRE(wait_status(spawn(first, t / "1.out", t / "1.err")) == 0);
    const auto before = files_of(out);
    REQUIRE(before.count("compare.json"));
    // Seed 2, interrupted as soon as its staged folder appears (it renders figures, if gnuplot is
    // installed, so the window is not instantaneous; if the run wins the race, it completes).
    std::vector<std::string> second = args;
    second.insert(second.end(), {"--seed", "2"});
    const pid_t pid = spawn(second, t / "2.out", t / "2.err");
    REQUIRE(pid > 0);
    const bool caught = wait_until([&] { return has_staged(t.path, "cmp"); });
    ::kill(pid, SIGTERM);
    const int status = wait_status(pid);
    CHECK_FALSE(has_staged(t.path, "cmp"));  // no temporary left either way
    if (caught && WIFEXITED(status) && WEXITSTATUS(status) == 143) {
        CHECK(read_text(t / "2.err").find("interrupted (SIGTERM)") != std::string::npos);
        CHECK(files_of(out) == before);  // seed 1's folder, whole: no seed-2 table beside seed-1 figures
    } else {
        MESSAGE("the run finished before the signal: its folder must then be seed 2's, whole");
        CHECK(WEXITSTATUS(status) == 0);
        CHECK(read_text(out / "compare.json").find("\"seed\": 2") != std::string::npos);
    }
}

TEST_CASE("cli interrupt: an experiment interrupted after a cell resumes to the files of an uninterrupted run") {
    TempDir t("cli_interrupt_run");
    const FixedDate date;  // one date for both runs: their files are compared byte for byte
    write_text(t / "exp.toml",
               "[[task]]\nname = \"s\"\ncommand = \"sga\"\nd = 8\nL = 20\nR = 4\ntrials = 2\nseed = 3\n"
               "steps = [400000, 400001, 400002]\n");
    // Uninterrupted reference, in its own folder: both runs write "out" relative to their working
    // folder, so that the summaries' "per-run files: out/s" lines are the same.
    fs::create_directories(t / "a");
    fs::create_directories(t / "b");
    const std::string exp = (t / "exp.toml").string();
    REQUIRE(wait_status(spawn({rhoflow_bin, "run", exp, "--out", "out"}, t / "ref.out", t / "ref.err", t / "a")) == 0);
    // Interrupted once the manifest lists a finished cell.
    const fs::path out = t / "b" / "out", partial = t / "b" / ".out.partial";
    const pid_t pid = spawn({rhoflow_bin, "run", exp, "--out", "out"}, t / "a.out", t / "a.err", t / "b");
    const bool started = wait_until(
        [&] {
            return fs::exists(partial / "manifest.json") &&
                   read_text(partial / "manifest.json").find("\"complete\"") != std::string::npos;
        },
        60);
    ::kill(pid, SIGTERM);
    const int status = wait_status(pid);
    REQUIRE(started);
    CHECK(WEXITSTATUS(status) == 143);
    CHECK_FALSE(fs::exists(out));                     // nothing under the final name
    CHECK(fs::exists(partial / "manifest.json"));     // the finished cells are kept for the rerun
    for (const auto& e : fs::recursive_directory_iterator(partial))  // no unfinished cell left
        CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
    // The rerun reuses the finished cells and ends with the reference's files.
    REQUIRE(wait_status(spawn({rhoflow_bin, "run", exp, "--out", "out"}, t / "b.out", t / "b.err", t / "b")) == 0);
    CHECK(read_text(t / "b.err").find("complete from an earlier run") != std::string::npos);
    CHECK_FALSE(fs::exists(partial));
    const auto got = files_of(out), want = files_of(t / "a" / "out");
    for (const auto& [name, text] : want) {
        CAPTURE(name);
        CHECK(got.count(name) == 1);
        if (got.count(name)) CHECK(got.at(name) == text);
    }
    CHECK(got.size() == want.size());
}
