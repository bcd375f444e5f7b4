// Faults of issue 30's third probe in `run`, `compare` and their output folders: a cell that
// cannot be written leaves no temporary (H6), a killed run's figure temporaries are removed on
// resuming (H7), task names that are the run's own files (H8), inputs that could only fail after
// the work (H13), messages that named temporaries (H14).
#include <doctest/doctest.h>

#include <charconv>
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

// The entries under `dir`, at any depth, whose name holds ".tmp" (a cell's or a file's temporary).
std::vector<std::string> temporaries_under(const fs::path& dir) {
    std::vector<std::string> t;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.path().filename().string().find(".tmp") != std::string::npos) t.push_back(e.path().string());
    return t;
}

// Runs rhoflow `args` in `cwd` with every file it writes limited to `bytes` (RLIMIT_FSIZE, SIGXFSZ
// ignored): a longer write fails with EFBIG, as a write to a full disk fails with ENOSPC, without
// root or a small file system. Returns the exit code (-1 if killed); stderr goes to `err`.
int run_with_file_limit(const std::vector<std::string>& args, rlim_t bytes, const fs::path& cwd, const fs::path& err) {
    std::vector<std::string> argv = {rhoflow_bin};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c;
    for (auto& a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {  // only async-signal-safe calls until exec
        const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), n = ::open("/dev/null", O_RDWR);
        if (e < 0 || n < 0 || ::chdir(cwd.c_str()) != 0) ::_exit(126);
        ::dup2(n, 0);
        ::dup2(n, 1);
        ::dup2(e, 2);
        const rlimit limit{bytes, bytes};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        ::signal(SIGXFSZ, SIG_IGN);  // kept across exec
        ::execv(c[0], c.data());
        ::_exit(127);
    }
    REQUIRE(pid > 0);
    const int status = wait_status(pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

const std::string kTwoCompareCells =
    "[[task]]\nname = \"c\"\ncommand = \"compare\"\nd = 8\nL = 20\nR = 4\ntrials = 2\nhorizon = 2\nk0 = 100\n"
    "no-study = true\nno-effective = true\nsteps = [1000, 2000]\n";

}  // namespace

TEST_CASE("cli faults: a cell that cannot be written removes its temporary folder, and the error is the cell's (H6)") {
    TempDir t("faults_full");
    write_text(t / "e.toml", kTwoCompareCells);
    // compare.json of these cells is > 100 kB, the manifest a few kB: the first cell's write fails.
    const int code = run_with_file_limit({"run", "e.toml", "--out", "o", "--no-figures"}, 64 * 1024, t.path, t / "err");
    const std::string err = read_text(t / "err");
    CAPTURE(err);
    CHECK(code == 1);
    CHECK(err.find("File too large") != std::string::npos);
    CHECK(err.find("compare.json") != std::string::npos);   // the cell's file, not the manifest
    CHECK(err.find("manifest.json") == std::string::npos);
    CHECK(err.find(".tmp") == std::string::npos);           // named as the cell's folder, not its temporary
    CHECK(err.find("c/steps=1000/compare.json") != std::string::npos);
    const fs::path partial = t / ".o.partial";
    REQUIRE(fs::exists(partial / "manifest.json"));
    CHECK(temporaries_under(partial).empty());
    CHECK(json::parse(read_text(partial / "manifest.json"))["cells"]["c/steps=1000"]["status"] == "failed");
    // With room again, the rerun completes.
    CHECK(run_with_file_limit({"run", "e.toml", "--out", "o", "--no-figures"}, RLIM_INFINITY, t.path, t / "err2") == 0);
    CHECK(fs::exists(t / "o" / "c" / "steps=2000" / "compare.json"));
    CHECK_FALSE(fs::exists(partial));
}

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

TEST_CASE("cli faults: compare --out whose gnuplot times out names the folder, not its temporary, and what is kept (H14)") {
    TempDir t("faults_timeout");
    fs::create_directories(t / "bin");
    write_text(t / "bin" / "gnuplot", "#!/bin/sh\nexec /bin/sleep 60\n");  // hangs until killed
    fs::permissions(t / "bin" / "gnuplot", static_cast<fs::perms>(0755));
    const fs::path out = t / "c";
    std::vector<std::string> args = {"compare", "--d", "8", "--L", "20", "--R", "4", "--trials", "2", "--steps", "300",
                                     "--k0", "100", "--horizon", "1", "--no-study", "--no-effective", "--quiet",
                                     "--out", out.string()};
    std::vector<std::string> first = args;
    first.push_back("--no-figures");
    REQUIRE(rhoflow_cli(first).code == 0);
    const auto before = files_of(out);
    EnvGuard path("PATH", (t / "bin").string() + ":/usr/bin:/bin");
    EnvGuard timeout("RHOFLOW_GNUPLOT_TIMEOUT", "0.5");
    const Run r = rhoflow_cli(args);
    CAPTURE(r.err);
    CHECK(r.code == 1);
    CHECK(r.err.find("did not finish " + (out / "fig_trajectory.gp").string()) != std::string::npos);
    CHECK(r.err.find(".tmp") == std::string::npos);
    CHECK(r.err.find("kept") == std::string::npos);  // nothing is: the staged folder is removed
    CHECK(r.err.find("nothing was written: " + out.string() + " is as it was") != std::string::npos);
    CHECK(files_of(out) == before);
    CHECK(temporaries(t.path).empty());
}

TEST_CASE("cli faults: a step-size study with repeated eta0 values exits 2 before the work, naming --study-eta0 (H13)") {
    TempDir t("faults_study");
    for (const char* list : {"0.01,0.01,0.01", "0.02,0.01,0.01", "0.04,0.02,0.01,0.01"}) {
        CAPTURE(list);
        const Run r = rhoflow_cli({"compare", "--study-eta0", list, "--out", (t / "c").string(), "--quiet"});
        CHECK(r.code == 2);
        CHECK(r.err.find("invalid --study-eta0") != std::string::npos);
        CHECK(r.err.find("distinct") != std::string::npos);
        CHECK_FALSE(fs::exists(t / "c"));
    }
}

TEST_CASE("cli faults: RHOFLOW_GNUPLOT_TIMEOUT that is not a number of seconds exits 2 before any work (H13)") {
    TempDir t("faults_timeout_env");
    EnvGuard bad("RHOFLOW_GNUPLOT_TIMEOUT", "abc");
    // The default comparison takes seconds of compute: refused before it, not after.
    const Run c = rhoflow_cli({"compare", "--out", (t / "c").string(), "--quiet"});
    CHECK(c.code == 2);
    CHECK(c.err.find("RHOFLOW_GNUPLOT_TIMEOUT = 'abc'") != std::string::npos);
    CHECK(c.err.find("seconds > 0") != std::string::npos);
    CHECK_FALSE(fs::exists(t / "c"));
    write_text(t / "e.toml", "[[task]]\nname = \"s\"\ncommand = \"sga\"\nd = 8\nL = 20\nR = 4\ntrials = 2\n"
                             "steps = [200, 300]\n");
    const Run r = rhoflow_cli({"run", (t / "e.toml").string(), "--out", (t / "o").string()});
    CHECK(r.code == 2);
    CHECK(r.err.find("RHOFLOW_GNUPLOT_TIMEOUT = 'abc'") != std::string::npos);
    CHECK_FALSE(fs::exists(t / ".o.partial"));
    // Without figures the variable is not used.
    CHECK(rhoflow_cli({"run", (t / "e.toml").string(), "--out", (t / "o").string(), "--no-figures"}).code == 0);
}

TEST_CASE("cli faults: a comparison of one step, its horizon shorter than the step, draws valid figures (H13)") {
    TempDir t("faults_one_step");
    const fs::path out = t / "c";
    const Run r = rhoflow_cli({"compare", "--d", "8", "--L", "20", "--R", "4", "--trials", "2", "--steps", "1",
                               "--horizon", "0.001", "--no-study", "--out", out.string(), "--quiet"});
    CAPTURE(r.err);
    REQUIRE(r.code == 0);
    // Every x range of every script is a range, not a point.
    for (const auto& e : fs::directory_iterator(out)) {
        if (e.path().extension() != ".gp") continue;
        const std::string gp = read_text(e.path());
        for (std::size_t at = gp.find("set xrange ["); at != std::string::npos; at = gp.find("set xrange [", at + 1)) {
            const std::size_t colon = gp.find(':', at), close = gp.find(']', at);
            double lo = 0, hi = 0;
            std::from_chars(gp.data() + at + 12, gp.data() + colon, lo);
            std::from_chars(gp.data() + colon + 1, gp.data() + close, hi);
            CAPTURE(e.path().filename());
            CHECK(lo < hi);
        }
    }
    if (rhoflow::gnuplot_available()) CHECK(fs::file_size(out / "fig_trajectory.png") > 1000);
}
