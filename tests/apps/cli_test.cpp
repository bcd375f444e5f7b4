// The command line in-process: the JSON keys docs/cli.md promises, exit codes, messages
// naming the flag, and no file left behind by a failed run.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <fmt/format.h>
#include <fstream>
#include <future>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cli.hpp"
#include "cli_run.hpp"
#include "progress.hpp"
#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/experiment/settings.hpp"
#include "rhoflow/version.hpp"
#include "test_util.hpp"

using rhoflow::test::Run;
using rhoflow::test::rhoflow_cli;

namespace {


std::filesystem::path fresh_dir(const std::string& name) {
    auto d = rhoflow::test::temp_dir("cli_" + name);
    std::filesystem::remove_all(d);  // the tests check that failed runs do not create it
    return d;
}

}  // namespace

TEST_CASE("cli: field --json follows the contract") {
    const Run r = rhoflow_cli({"field", "--rho", "-1,0.25,1", "--json", "--d", "20", "--L", "50", "--R", "10",
                               "--theta", "2"});
    REQUIRE(r.code == 0);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc["method"] == "exact");
    CHECK(doc["model"]["L"] == 50);
    CHECK(doc["version"].is_string());
    REQUIRE(doc["points"].size() == 3);
    for (const char* key : {"rho", "j", "dj", "drift", "mass_informative", "j_err", "dj_err"})
        CHECK(doc["points"][1].contains(key));
    CHECK(doc["points"][0]["drift"] == 0.0);
}

TEST_CASE("cli: montecarlo records its seed and samples, mean-field works") {
    const Run r = rhoflow_cli({"field", "--rho", "0.3", "--method", "montecarlo", "--samples", "2000", "--seed",
                               "9", "--json", "--L", "20", "--R", "4"});
    REQUIRE(r.code == 0);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc["params"]["montecarlo"]["seed"] == 9);
    CHECK(doc["params"]["montecarlo"]["samples"] == 2000);
    CHECK(rhoflow_cli({"field", "--rho", "0.3", "--method", "meanfield"}).code == 0);
}

TEST_CASE("cli: ode and phase JSON") {
    const Run o = rhoflow_cli({"ode", "--rho0", "0.05", "--t-end", "30", "--points", "4", "--json"});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out);
    CHECK(doc["t"].size() == 4);
    CHECK(doc["rho"].size() == 4);
    CHECK(doc["hit_time"].is_number());
    CHECK(doc["steps"].get<int>() > 0);
    CHECK(doc["rhs_evals"].get<int>() > 0);
    const Run n = rhoflow_cli({"ode", "--rho0", "0.05", "--t-end", "0.1", "--points", "2", "--json"});
    CHECK(nlohmann::json::parse(n.out)["hit_time"].is_null());
    const Run p = rhoflow_cli({"phase", "--d", "100", "--L", "10500", "--R", "500", "--theta", "3", "--json"});
    REQUIRE(p.code == 0);
    const auto ph = nlohmann::json::parse(p.out);
    CHECK(ph["equilibria"].size() == 3);
    CHECK(ph["basins"].size() == 2);
    CHECK(ph["monotone"] == false);
    CHECK(ph["equilibria"][1]["stable"] == false);
}

TEST_CASE("cli: sga --json follows the contract and is reproducible") {
    const std::vector<std::string> args = {"sga", "--steps", "200", "--trials", "4", "--seed", "5", "--L", "30",
                                           "--R", "6", "--d", "10", "--json", "--threads", "2"};
    const Run r = rhoflow_cli(args);
    REQUIRE(r.code == 0);
    const auto doc = nlohmann::json::parse(r.out);
    REQUIRE(doc["trials"].size() == 4);
    for (const char* key : {"seed", "rho0", "rho_final", "t_final", "hit_step"}) CHECK(doc["trials"][0].contains(key));
    CHECK(doc["summary"].contains("mean_abs_rho_final"));
    CHECK(doc["summary"]["ci95"].size() == 2);
    CHECK(doc["params"]["sga"]["seed"] == 5);
    std::vector<std::string> one = args;
    one.back() = "1";
    CHECK(nlohmann::json::parse(rhoflow_cli(one).out)["trials"] == doc["trials"]);
    const Run c = rhoflow_cli({"sga", "--steps", "10", "--trials", "2", "--gamma", "0", "--json"});
    CHECK(nlohmann::json::parse(c.out)["warning"].get<std::string>().find("constant step") != std::string::npos);
}

TEST_CASE("cli: sga prints and records the trials per ODE basin (issue 19)") {
    // Repeller at -0.2608: rho0 = -0.45 is in the basin [-1, -0.2608) of -1, and 200 steps of
    // size <= 0.001 (ODE time 0.2) leave every trial there.
    const std::vector<std::string> args = {"sga", "--d", "100", "--L", "300", "--R", "15", "--theta", "3", "--rho0",
                                           "-0.45", "--trials", "4", "--steps", "200", "--eta0", "0.001", "--threads", "1"};
    const Run t = rhoflow_cli(args);
    REQUIRE(t.code == 0);
    CHECK(t.out.find("outcomes by ODE basin of rho_final (4 trials") != std::string::npos);
    CHECK(t.out.find("basin of -1 [-1, -0.260837): 4 of 4 trials, fraction 1.0000 [0.5101, 1.0000]") != std::string::npos);
    CHECK(t.out.find("basin of 1 (-0.260837, 1]: 0 of 4 trials, fraction 0.0000 [0.0000, 0.4899]") != std::string::npos);
    CHECK(t.out.find("rho0 = -0.45 lies in the ODE basin of -1") != std::string::npos);
    std::vector<std::string> json_args = args;
    json_args.push_back("--json");
    const Run j = rhoflow_cli(json_args);
    REQUIRE(j.code == 0);
    const auto doc = nlohmann::json::parse(j.out);
    const auto& o = doc["outcomes"];
    CHECK(o["trials"] == 4);
    CHECK(o["rho0"] == -0.45);
    REQUIRE(o["basins"].size() == 2);
    CHECK(o["basins"][0]["attractor"] == -1.0);
    CHECK(o["basins"][0]["count"] == 4);
    CHECK(o["basins"][0]["contains_rho0"] == true);
    CHECK(o["basins"][0]["fraction_lo"].get<double>() == doctest::Approx(4 / (4 + 3.841458821)).epsilon(1e-8));
    CHECK(o["basins"][1]["count"] == 0);
    CHECK(doc["rho_finals"].size() == 4);
    CHECK(doc["field"]["method"] == "exact");
    // A uniform start shows the exact probability of each basin.
    const Run u = rhoflow_cli({"sga", "--d", "100", "--L", "300", "--R", "15", "--theta", "3", "--trials", "2",
                               "--steps", "20", "--threads", "1", "--json"});
    REQUIRE(u.code == 0);
    const auto ub = nlohmann::json::parse(u.out)["outcomes"]["basins"];
    CHECK(ub[0]["uniform_probability"].get<double>() + ub[1]["uniform_probability"].get<double>() ==
          doctest::Approx(1.0));
}

TEST_CASE("cli: every invalid parameter exits 2 naming it, and leaves no file") {
    const auto dir = fresh_dir("invalid");
    const std::string out = (dir / "result.json").string();
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"field", "--rho", "1.5"}, "--rho"},
        {{"field", "--rho", "0.1", "--d", "1"}, "--d"},
        {{"field", "--rho", "0.1", "--d", "2.5"}, "--d"},
        {{"field", "--rho", "0.1", "--L", "0"}, "--L"},
        {{"field", "--rho", "0.1", "--R", "1001"}, "--R"},
        {{"field", "--rho", "0.1", "--theta", "-1"}, "--theta"},
        {{"field", "--rho", "0.1", "--theta", "inf"}, "--theta"},
        {{"field", "--rho", "0.1", "--sigma", "0"}, "--sigma"},
        {{"field", "--rho", "0.1", "--beta", "-2"}, "--beta"},
        {{"field", "--rho", "0.1", "--beta", "20"}, "--beta"},
        {{"field", "--rho", "0.1", "--method", "quadrature"}, "--method"},
        {{"field", "--rho", "0.1", "--method", "montecarlo", "--samples", "1"}, "--samples"},
        {{"field", "--rho", "0.1", "--rel-tol", "0"}, "--rel-tol"},
        {{"field", "--rho", "abc"}, "--rho"},
        {{"ode", "--rho0", "-2"}, "--rho0"},
        {{"ode", "--t-end", "0"}, "--t-end"},
        {{"ode", "--points", "1"}, "--points"},
        {{"ode", "--rtol", "0"}, "--rtol"},
        {{"ode", "--atol", "-1"}, "--atol"},
        {{"ode", "--hit", "1.5"}, "--hit"},
        {{"ode", "--field", "montecarlo"}, "--field"},
        {{"phase", "--scan", "3"}, "--scan"},
        {{"phase", "--field", "nope"}, "--field"},
        {{"sga", "--steps", "0"}, "--steps"},
        {{"sga", "--trials", "-1"}, "--trials"},
        {{"sga", "--eta0", "0"}, "--eta0"},
        {{"sga", "--k0", "0"}, "--k0"},
        {{"sga", "--gamma", "1.2"}, "--gamma"},
        {{"sga", "--rho0", "1.01"}, "--rho0"},
        {{"sga", "--sampler", "half"}, "--sampler"},
        {{"sga", "--update", "projected"}, "--update"},
        {{"sga", "--record", "20000"}, "--record"},
        {{"sga", "--seed", "-3"}, "--seed"},
    };
    for (const auto& [args, flag] : cases) {
        std::vector<std::string> a = args;
        a.insert(a.end(), {"--output", out});
        CAPTURE(a[1]);
        CAPTURE(flag);
        const Run r = rhoflow_cli(a);
        CHECK(r.code == 2);
        CHECK(r.err.find(flag) != std::string::npos);
        CHECK(r.out.empty());
        CHECK_FALSE(std::filesystem::exists(out));
    }
    const Run u = rhoflow_cli({"fields"});
    CHECK(u.code == 2);
    CHECK(u.err.find("unknown subcommand 'fields'") != std::string::npos);
    CHECK(rhoflow_cli({"field", "--rho", "0.1", "--no-such-flag"}).code == 2);
}

TEST_CASE("cli: a numerical failure exits 3 and leaves no file") {
    const auto dir = fresh_dir("numerical");
    const std::string out = (dir / "phase.json").string();
    // beta theta = 60 makes j' far too sharp for a 33-point Chebyshev table.
    const Run r = rhoflow_cli({"phase", "--theta", "60", "--table-points", "33", "--output", out});
    CHECK(r.code == 3);
    CHECK(r.err.find("not resolved") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("cli: --output writes the JSON document atomically, leaving no temporary files") {
    const auto dir = fresh_dir("output");
    const std::string out = (dir / "sub" / "ode.json").string();
    const Run r = rhoflow_cli({"ode", "--t-end", "5", "--points", "3", "--output", out});
    REQUIRE(r.code == 0);
    std::ifstream in(out);
    const auto doc = nlohmann::json::parse(in);
    CHECK(doc["command"] == "ode");
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir / "sub")) {
        (void)e;
        ++files;
    }
    CHECK(files == 1);
}

TEST_CASE("cli: --help documents every flag with its default and exits 0") {
    const Run r = rhoflow_cli({"field", "--help"});
    CHECK(r.code == 0);
    for (const char* s : {"--rho", "--method", "--samples", "--seed", "--d", "--L", "--R", "--theta", "--sigma",
                          "--beta", "--sigma-per-norm", "--json", "--output", "100000"})
        CHECK(r.out.find(s) != std::string::npos);
    CHECK(rhoflow_cli({"--help"}).code == 0);
}

TEST_CASE("cli: --version prints the version and the build's commit, and exits 0") {
    const Run r = rhoflow_cli({"--version"});
    CHECK(r.code == 0);
    CHECK(r.out == rhoflow::cli::version_text() + "\n");
    CHECK(r.out.rfind(std::string("rhoflow ") + rhoflow::version + "\ncommit " + rhoflow::git_commit(), 0) == 0);
    const std::string commit = rhoflow::git_commit();  // 40 hex digits in a checkout, else "unknown"
    CHECK((commit == "unknown" || (commit.size() == 40 && commit.find_first_not_of("0123456789abcdef") == std::string::npos)));
    CHECK(r.err.empty());
}

TEST_CASE("cli: compare writes its files and prints the Markdown table") {
    const auto dir = fresh_dir("compare");
    const Run r = rhoflow_cli({"compare", "--d", "10", "--L", "40", "--R", "8", "--theta", "1.5", "--steps", "2000",
                               "--trials", "6", "--eta0", "0.02", "--k0", "500", "--horizon", "3", "--no-study",
                               "--no-figures", "--out", dir.string(), "--quiet"});
    REQUIRE(r.code == 0);
    CHECK(r.out.find("| t_k | ρ ODE | predicted mean | SGA mean | z |") != std::string::npos);  // the compact table, not the CSV's 19 columns
    CHECK(r.out.find("| q10 |") == std::string::npos);
    CHECK(std::filesystem::exists(dir / "compare.json"));
    CHECK(std::filesystem::exists(dir / "table.tex"));
    CHECK(std::filesystem::exists(dir / "fig_gap.gp"));
    const Run bad = rhoflow_cli({"compare", "--horizon", "1e6", "--out", (dir / "bad").string()});
    CHECK(bad.code == 2);
    CHECK(bad.err.find("--horizon") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "bad"));
}

TEST_CASE("cli: run validates the whole experiment file first, naming key and line") {
    const auto dir = fresh_dir("run");
    std::filesystem::create_directories(dir);
    auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream(dir / name) << text;
        return (dir / name).string();
    };
    const std::string out = (dir / "out").string();
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"[[task]]\ncommand = \"sga\"\nsteps = 50\ntheta = [1.0, -2.0]\n", ":4: key 'theta'"},
        {"[[task]]\ncommand = \"sga\"\n\nthetaa = 1\n", ":4: key 'thetaa'"},
        {"[[task]]\ncommand = \"sgd\"\n", ":2: key 'command'"},
        {"[[task]]\ncommand = \"sga\"\ntheta = 1 +\n", ":3:"},
        {"title = \"x\"\nbogus = 3\n[[task]]\ncommand = \"sga\"\n", ":2: key 'bogus'"},
        {"[[task]]\ncommand = \"phase\"\nscan = [4096, 2]\n", ":3: key 'scan'"},
        {"[[task]]\ncommand = \"sga\"\nrecord = [[5, 999999]]\nsteps = 100\n", ":3: key 'record'"},
    };
    int i = 0;
    for (const auto& [text, expected] : bad) {
        CAPTURE(text);
        const Run r = rhoflow_cli({"run", write(fmt::format("bad{}.toml", i++), text), "--out", out});
        CHECK(r.code == 2);
        CHECK(r.err.find(expected) != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(out));  // nothing ran, nothing written
    }
    const std::string good = write("good.toml",
                                   "title = \"t\"\n[defaults]\nd = 8\nL = 20\nR = 4\n[[task]]\nname = \"s\"\ncommand = "
                                   "\"sga\"\nsteps = 200\ntrials = 3\ntheta = [0.5, 1.5]\n[[task]]\nname = \"f\"\n"
                                   "command = \"field\"\nrho = [[0.0, 0.5]]\n");
    const Run ok = rhoflow_cli({"run", good, "--out", out});
    REQUIRE(ok.code == 0);
    for (const char* f : {"s/summary.csv", "s/summary.md", "s/summary.tex", "s/theta=0.5/result.json",
                          "s/theta=1.5/result.json", "f/summary.csv", "run.json"})
        CHECK(std::filesystem::exists(std::filesystem::path(out) / f));
    CHECK(ok.out.find("## s") != std::string::npos);
}

TEST_CASE("cli: the shipped experiment files are valid") {
    // Every experiment file shipped in experiments/ (listed, so that a new one is not forgotten).
    std::set<std::string> shipped;
    for (const auto& e : std::filesystem::directory_iterator(std::string(RHOFLOW_SOURCE_DIR) + "/experiments"))
        if (e.path().extension() == ".toml") shipped.insert(e.path().filename().string());
    for (const auto& f : shipped) {
        CAPTURE(f);
        const Run r = rhoflow_cli({"run", std::string(RHOFLOW_SOURCE_DIR) + "/experiments/" + f, "--dry-run"});
        CHECK(r.code == 0);
        CHECK(r.out.find("rhoflow ") != std::string::npos);
    }
}

TEST_CASE("cli: no progress-bar characters when stderr is not a terminal") {
    // The bar writes to file descriptor 2 directly, so run the real binary with stderr in a file.
    const auto dir = fresh_dir("progress");
    std::filesystem::create_directories(dir);
    const auto log = dir / "stderr.log";
    const std::string cmd = std::string(RHOFLOW_CLI_PATH) +
                            " sga --steps 20000 --trials 2 --L 200 --R 20 --d 10 --json > /dev/null 2> '" +
                            log.string() + "'";
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::ifstream in(log);
    const std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(err.find('\r') == std::string::npos);
    CHECK(err.find("[==") == std::string::npos);
}

TEST_CASE("cli progress: run's time left is the rate so far, and its line says cells, share and time") {
    using namespace rhoflow::cli;
    CHECK(seconds_left(10, 0.25).value() == doctest::Approx(30));  // a quarter in 10 s: 30 s more
    CHECK(seconds_left(12, 1).value() == 0);
    CHECK_FALSE(seconds_left(5, 0).has_value());  // nothing done yet: no estimate
    CHECK(duration_text(42) == "42 s");
    CHECK(duration_text(185) == "3 min 05 s");
    CHECK(duration_text(7440) == "2 h 04 min");
    TimeLeft left;  // a quarter of the work done at 10 s: 30 s left, counted down until the next cell
    CHECK_FALSE(left.at(3, 0).has_value());
    CHECK(left.at(10, 0.25).value() == doctest::Approx(30));
    CHECK(left.at(25, 0.25).value() == doctest::Approx(15));
    CHECK(left.at(48, 0.25).value() == doctest::Approx(144));  // overdue: the rate so far, 48 s a quarter
    CHECK(left.at(50, 0.5).value() == doctest::Approx(50));
    CHECK(run_progress_line(3, 8, 0.5, 30.0) == "rhoflow run: 3/8 cells, SGA steps 50%, 30 s left");
    CHECK(run_progress_line(0, 8, 0.07, std::nullopt) ==
          "rhoflow run: 0/8 cells, SGA steps 7%, time left after the first cell");
    CHECK(run_progress_line(1, 2, std::nullopt, 20.0) == "rhoflow run: 1/2 cells, 20 s left");  // no SGA steps
    rhoflow::ProgressCounter steps;
    CHECK_FALSE(steps_fraction(steps).has_value());  // a run without SGA steps
    steps.total = 200;
    steps.done = 50;
    CHECK(steps_fraction(steps).value() == 0.25);
    CHECK(work_fraction(3e8, 1.2e9) == 0.25);
    CHECK(work_fraction(0, 0) == 0);
}

TEST_CASE("cli progress: drawn at once when wanted, cleared at the end, and nothing but notes otherwise") {
    using rhoflow::cli::Progress;
    std::vector<std::string> drawn;
    std::promise<void> first;
    {
        Progress p([](double) { return std::string("rhoflow run: 0/2 cells"); }, true, [&](const std::string& b) {
            if (drawn.empty()) first.set_value();
            drawn.push_back(b);
        });
        first.get_future().wait();  // the first line comes at once, before any work is done
        p.note("task/cell done");
    }
    REQUIRE(drawn.size() >= 4);
    CHECK(drawn.front() == "\rrhoflow run: 0/2 cells");
    CHECK(std::find(drawn.begin(), drawn.end(), "task/cell done\n") != drawn.end());
    CHECK(drawn.back() == "\r" + std::string(22, ' ') + "\r");  // cleared
    std::vector<std::string> quiet;
    {
        Progress p([](double) { return std::string("never"); }, false, [&](const std::string& b) { quiet.push_back(b); });
        p.note("a log line");
    }
    CHECK(quiet == std::vector<std::string>{"a log line\n"});
}

TEST_CASE("cli: run draws no progress line when stderr is not a terminal, and keeps its log lines") {
    const auto dir = fresh_dir("run_progress");
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "e.toml") << "[[task]]\nname = \"s\"\ncommand = \"sga\"\nd = 8\nL = 20\nR = 4\nsteps = 2000\n"
                                     "trials = 2\ntheta = [0.5, 1.5]\n";
    const auto log = dir / "stderr.log";
    const std::string cmd = std::string(RHOFLOW_CLI_PATH) + " run '" + (dir / "e.toml").string() + "' --out '" +
                            (dir / "o").string() + "' > /dev/null 2> '" + log.string() + "'";
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::ifstream in(log);
    const std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(err.find('\r') == std::string::npos);
    CHECK(err.find("of the work") == std::string::npos);
    CHECK(err.find("[2/2] s/theta=1.5") != std::string::npos);
}

// ------------------------------------------------------------------------------------------
// Regression tests from a bad-input probe: each asserts the exit code and the message.

namespace {

std::string write_file(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
    std::filesystem::create_directories(dir);
    std::ofstream(dir / name) << text;
    return (dir / name).string();
}

std::string slurp_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A fast comparison: meanfield field, small model, no study, no figures.
std::vector<std::string> small_compare(const std::filesystem::path& out) {
    return {"compare", "--d", "10", "--L", "40", "--R", "8", "--theta", "1.5", "--steps", "2000", "--trials", "3",
            "--eta0", "0.02", "--k0", "500", "--horizon", "3", "--field", "meanfield", "--no-study", "--no-figures",
            "--out", out.string(), "--quiet", "--threads", "1"};
}

std::vector<std::string> plus(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

}  // namespace

TEST_CASE("cli regression: empty values exit 2 naming the flag, saying the value is not a number") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"field", "--rho", ""}, "invalid --rho: rho = '' is not a number (e.g. 0.5, -2, 1e-3)"},
        {{"field", "--theta", ""}, "invalid --theta: theta = '' is not a number (e.g. 0.5, -2, 1e-3)"},
        {{"compare", "--rho0", ""}, "invalid --rho0: rho0 = '' is not a number (e.g. 0.5, -2, 1e-3)"},
        {{"ode", "--rho0", ""}, "invalid --rho0: rho0 = '' is not a number (e.g. 0.5, -2, 1e-3)"},
        {{"field", "--d", ""},
         "invalid --d: d = '' is not an integer (digits, or e.g. 1e6; exact, at most 2^53 in scientific notation)"},
        {{"sga", "--steps", ""},
         "invalid --steps: steps = '' is not an integer (digits, or e.g. 1e6; exact, at most 2^53 in scientific "
         "notation)"},
    };
    for (const auto& [args, message] : cases) {
        CAPTURE(args[1]);
        const Run r = rhoflow_cli(args);
        CHECK(r.code == 2);
        CHECK(r.err == "rhoflow: error: " + message + "\n");
        CHECK(r.err.find("out of range") == std::string::npos);  // not "d = 0 is out of range"
        CHECK(r.out.empty());
    }
}

TEST_CASE("cli regression: empty --output and compare --out exit 2 and write nothing") {
    const auto dir = fresh_dir("empty_paths");
    std::filesystem::create_directories(dir);
    const auto cwd = std::filesystem::current_path();
    std::filesystem::current_path(dir);  // a default output folder would appear here
    const Run o = rhoflow_cli({"field", "--rho", "0.1", "--output", ""});
    const Run c = rhoflow_cli({"compare", "--out", "", "--steps", "100", "--trials", "2", "--no-study"});
    const Run co = rhoflow_cli({"compare", "--output", "", "--no-study"});
    const bool empty = std::filesystem::is_empty(dir);
    std::filesystem::current_path(cwd);
    CHECK(o.code == 2);
    CHECK(o.err == "rhoflow: error: invalid --output: output = '' is empty (accepted: a file or folder name)\n");
    CHECK(o.out.empty());
    CHECK(c.code == 2);
    CHECK(c.err == "rhoflow: error: invalid --out: out = '' is empty (accepted: a file or folder name)\n");
    CHECK(c.out.empty());
    CHECK(co.code == 2);
    CHECK(co.err == "rhoflow: error: invalid --output: output = '' is empty (accepted: a file or folder name)\n");
    CHECK(empty);
}

TEST_CASE("cli regression: hexadecimal, blank-padded and '+' numbers are refused") {
    const std::string real = "is not a number (e.g. 0.5, -2, 1e-3)";
    const std::string integer = "is not an integer (digits, or e.g. 1e6; exact, at most 2^53 in scientific notation)";
    const std::string seed = "is not a seed: an integer in 0 ... 18446744073709551615 (digits; scientific notation up "
                             "to 2^53)";
    const std::vector<std::tuple<std::vector<std::string>, std::string, std::string>> cases = {
        {{"field", "--rho", "0x10"}, "rho", "rho = '0x10' " + real},
        {{"field", "--theta", " 5"}, "theta", "theta = ' 5' " + real},
        {{"field", "--theta", "5 "}, "theta", "theta = '5 ' " + real},
        {{"field", "--beta", "+1000"}, "beta", "beta = '+1000' " + real},
        {{"field", "--d", "0x10"}, "d", "d = '0x10' " + integer},
        {{"field", "--d", " 5"}, "d", "d = ' 5' " + integer},
        {{"field", "--L", "+1000"}, "L", "L = '+1000' " + integer},
        {{"sga", "--trials", "1.5"}, "trials", "trials = '1.5' " + integer},
        {{"sga", "--seed", "+5"}, "seed", "seed = '+5' " + seed},
        {{"sga", "--seed", "0x10"}, "seed", "seed = '0x10' " + seed},
        {{"ode", "--rho0", "nan"}, "rho0", "rho0 = 'nan' " + real},
    };
    for (const auto& [args, flag, message] : cases) {
        CAPTURE(args[2]);
        const Run r = rhoflow_cli(args);
        CHECK(r.code == 2);
        CHECK(r.err == "rhoflow: error: invalid --" + flag + ": " + message + "\n");
    }
}

TEST_CASE("cli regression: beta*sigma > 12 names --sigma or --beta, whichever moved, never suggests montecarlo") {
    const std::string range = "is out of range (accepted: beta*sigma <= 12 for the exact field (here beta*sigma = ";
    for (const char* cmd : {"field", "ode", "phase", "compare"}) {
        CAPTURE(cmd);
        const Run s = rhoflow_cli({cmd, "--sigma", "1e300"});
        CHECK(s.code == 2);
        CHECK(s.err == "rhoflow: error: invalid --sigma: sigma = 1e+300 " + range + "1e+300))\n");
        const Run b = rhoflow_cli({cmd, "--beta", "20"});
        CHECK(b.code == 2);
        CHECK(b.err == "rhoflow: error: invalid --beta: beta = 20 " + range + "20))\n");
        CHECK(b.err.find("montecarlo") == std::string::npos);
    }
    // In an experiment file: the sigma line.
    const auto dir = fresh_dir("sigma_file");
    const Run f = rhoflow_cli({"run", write_file(dir, "s.toml", "[[task]]\ncommand = \"ode\"\n\nsigma = 1e300\n"),
                               "--out", (dir / "out").string()});
    CHECK(f.code == 2);
    CHECK(f.err.find("s.toml:4: key 'sigma': sigma = 1e+300 " + range) != std::string::npos);
    CHECK(f.err.find("beta =") == std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
}

TEST_CASE("cli regression: a tiny sigma is computed, not blamed on beta*theta") {
    // sigma = 1e-20 once made the exact field's j' noise (Stein's weights z/tau) and the table
    // failed naming beta*theta; the pathwise derivative computes it: the same ODE as sigma = 1e-9.
    const Run r = rhoflow_cli({"ode", "--sigma", "1e-20", "--points", "3", "--json"});
    REQUIRE(r.code == 0);
    const Run q = rhoflow_cli({"ode", "--sigma", "1e-9", "--points", "3", "--json"});
    REQUIRE(q.code == 0);
    const auto a = nlohmann::json::parse(r.out), b = nlohmann::json::parse(q.out);
    CHECK(a["hit_time"].get<double>() == doctest::Approx(b["hit_time"].get<double>()).epsilon(1e-8));
    // The sharp-field case keeps its explanation.
    const Run s = rhoflow_cli({"phase", "--theta", "60", "--table-points", "33"});
    CHECK(s.code == 3);
    CHECK(s.err.find("beta*theta = 60") != std::string::npos);
}

TEST_CASE("cli regression: compare --field accepts only exact and meanfield") {
    for (const char* f : {"foo", "montecarlo"}) {
        CAPTURE(f);
        const Run r = rhoflow_cli({"compare", "--field", f});
        CHECK(r.code == 2);
        CHECK(r.err == fmt::format("rhoflow: error: invalid --field: field = '{}' is not a field that can drive the ODE "
                                   "(accepted: exact, meanfield)\n",
                                   f));
    }
}

TEST_CASE("cli regression: TOML type errors and meta keys of the wrong type name the key and its line") {
    const auto dir = fresh_dir("toml_types");
    const std::string out = (dir / "out").string();
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"[[task]]\ncommand = \"field\"\n\nd = \"fifty\"\n", ":4: key 'd': expected a number, got a string"},
        {"[[task]]\ncommand = \"field\"\n\nd = true\n", ":4: key 'd': expected a number, got a boolean"},
        {"[[task]]\ncommand = \"field\"\n\nd = [10, \"x\"]\n", ":4: key 'd': expected a number, got a string"},
        {"out = [\"a\"]\n[[task]]\ncommand = \"field\"\n", ":1: key 'out': expected a string, got an array"},
        {"title = [1]\n[[task]]\ncommand = \"field\"\n", ":1: key 'title': expected a string, got an array"},
        {"[[task]]\ncommand = \"field\"\nname = [\"a\"]\n", ":3: key 'name': expected a string, got an array"},
        {"[[task]]\ncommand = \"field\"\noutput = \"x.json\"\n",
         ":3: key 'output': 'output' is not a setting of 'field' tasks (see rhoflow field --help)"},
    };
    int i = 0;
    for (const auto& [text, expected] : cases) {
        CAPTURE(text);
        const std::string file = write_file(dir, fmt::format("t{}.toml", i++), text);
        const Run r = rhoflow_cli({"run", file, "--out", out});
        CHECK(r.code == 2);
        CHECK(r.err == "rhoflow: error: " + file + expected + "\n");
        CHECK_FALSE(std::filesystem::exists(out));
    }
}

TEST_CASE("cli regression: run --out onto a regular file exits 1 and leaves the file intact") {
    const auto dir = fresh_dir("out_file");
    const std::string ok = write_file(dir, "ok.toml", "[[task]]\ncommand = \"sga\"\nsteps = 10\ntrials = 1\n");
    const std::string afile = write_file(dir, "afile", "someone's data\n");
    const Run r = rhoflow_cli({"run", ok, "--out", afile});
    CHECK(r.code == 1);
    CHECK(r.err.find("rhoflow: error: " + afile +
                     " exists and is not a rhoflow run folder (no manifest.json); choose another output folder or "
                     "remove it\n") != std::string::npos);
    CHECK(slurp_file(afile) == "someone's data\n");
    CHECK_FALSE(std::filesystem::exists(dir / ".afile.partial"));
}

TEST_CASE("cli regression: seeds past 2^53 are recorded exactly, past 2^64 refused") {
    const Run r = rhoflow_cli({"sga", "--seed", "9007199254740993", "--json", "--steps", "10", "--trials", "2",
                               "--threads", "1"});
    REQUIRE(r.code == 0);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc["params"]["sga"]["seed"].get<std::uint64_t>() == 9007199254740993ull);
    CHECK(doc["trials"][1]["seed"].get<std::uint64_t>() == 9007199254740993ull);
    CHECK(r.out.find("\"seed\": 9007199254740993") != std::string::npos);
    // A different stream from 2^53 (the double nearest 9007199254740993).
    const Run near = rhoflow_cli({"sga", "--seed", "9007199254740992", "--json", "--steps", "10", "--trials", "2",
                                  "--threads", "1"});
    CHECK(nlohmann::json::parse(near.out)["trials"][0]["rho0"] != doc["trials"][0]["rho0"]);
    const Run max = rhoflow_cli({"sga", "--seed", "18446744073709551615", "--json", "--steps", "10", "--trials", "1"});
    REQUIRE(max.code == 0);
    CHECK(nlohmann::json::parse(max.out)["params"]["sga"]["seed"].get<std::uint64_t>() == 18446744073709551615ull);
    const Run over = rhoflow_cli({"sga", "--seed", "18446744073709551616"});
    CHECK(over.code == 2);
    CHECK(over.err == "rhoflow: error: invalid --seed: seed = '18446744073709551616' is not a seed in 0 ... "
                      "18446744073709551615\n");
    const Run rounded = rhoflow_cli({"sga", "--seed", "9.007199254740993e15"});
    CHECK(rounded.code == 2);
    CHECK(rounded.err.find("invalid --seed") != std::string::npos);
}

TEST_CASE("cli regression: every integer flag accepts exact scientific notation, and the value takes effect") {
    const Run p = rhoflow_cli({"phase", "--table-points", "1.29e2", "--scan", "1e3", "--threads", "1e0", "--json",
                               "--d", "20", "--L", "50", "--R", "10"});
    REQUIRE(p.code == 0);
    const auto pd = nlohmann::json::parse(p.out);
    CHECK(pd["params"]["table"]["max_points"] == 129);
    CHECK(pd["params"]["phase"]["scan_cells"] == 1000);
    CHECK(pd["params"]["table"]["threads"] == 1);
    const Run s = rhoflow_cli({"sga", "--records-per-decade", "2e1", "--threads", "1e0", "--steps", "1e2", "--trials",
                               "2e0", "--first-trial", "3e0", "--json"});
    REQUIRE(s.code == 0);
    const auto sd = nlohmann::json::parse(s.out);
    CHECK(sd["params"]["sga"]["records_per_decade"] == 20);
    CHECK(sd["params"]["sga"]["threads"] == 1);
    CHECK(sd["params"]["sga"]["steps"] == 100);
    CHECK(sd["params"]["sga"]["first_trial"] == 3);
    CHECK(sd["trials"][1]["trial"] == 4);
    const auto dir = fresh_dir("sci_ints");
    const Run c = rhoflow_cli(plus(small_compare(dir / "c"), {"--rows", "1e1", "--anchors", "1e1", "--json"}));
    REQUIRE(c.code == 0);
    const auto cd = nlohmann::json::parse(c.out);
    CHECK(cd["params"]["rows"] == 10);
    CHECK(cd["params"]["anchors"] == 10);
    CHECK(cd["table"].size() == 10);
    const Run f = rhoflow_cli({"field", "--rho", "0.2", "--method", "montecarlo", "--samples", "2.5e3", "--L", "1e1",
                               "--R", "2e0", "--d", "1e1", "--json"});
    REQUIRE(f.code == 0);
    const auto fd = nlohmann::json::parse(f.out);
    CHECK(fd["params"]["montecarlo"]["samples"] == 2500);
    CHECK(fd["model"]["L"] == 10);
    const Run o = rhoflow_cli({"ode", "--points", "5e0", "--t-end", "1", "--field", "meanfield", "--json"});
    REQUIRE(o.code == 0);
    CHECK(nlohmann::json::parse(o.out)["t"].size() == 5);
}

TEST_CASE("cli regression: compare --json prints compare.json and --output writes it") {
    const auto dir = fresh_dir("compare_json");
    const Run j = rhoflow_cli(plus(small_compare(dir / "a"), {"--json"}));
    REQUIRE(j.code == 0);
    const auto doc = nlohmann::json::parse(j.out);
    CHECK(doc["command"] == "compare");
    CHECK(doc["program"] == "rhoflow");
    CHECK(doc["params"]["model"]["L"] == 40);
    CHECK(doc.contains("table"));
    // The same document as the folder's compare.json.
    CHECK(nlohmann::json::parse(slurp_file(dir / "a" / "compare.json")) == doc);
    const std::string file = (dir / "doc" / "compare.json").string();
    const Run o = rhoflow_cli(plus(small_compare(dir / "b"), {"--output", file}));
    REQUIRE(o.code == 0);
    const auto written = nlohmann::json::parse(slurp_file(file));
    CHECK(written["command"] == "compare");
    CHECK(written["params"] == doc["params"]);
    CHECK(written["table"] == doc["table"]);  // same seed, same numbers
}

TEST_CASE("cli regression: huge steps and signals: invalid input exits 2, an overflow mid-run exits 3 naming trial and step") {
    const Run e = rhoflow_cli({"sga", "--steps", "200", "--trials", "3", "--eta0", "1e155"});
    CHECK(e.code == 2);
    CHECK(e.err == "rhoflow: error: invalid --eta0: eta0 = 1e+155 is out of range (accepted: 0 < eta0 <= 1e100)\n");
    const Run c = rhoflow_cli({"compare", "--eta0", "1e200"});
    CHECK(c.code == 2);
    CHECK(c.err == "rhoflow: error: invalid --eta0: eta0 = 1e+200 is out of range (accepted: 0 < eta0 <= 1e100)\n");
    // theta = 1e100 is a valid input; the overflow shows only once the trajectory gets there
    // (a few steps in), so it is a numerical failure, reported with its trial and step.
    for (const char* sampler : {"reduced", "full"}) {
        CAPTURE(sampler);
        const Run t = rhoflow_cli({"sga", "--theta", "1e100", "--steps", "200", "--trials", "3", "--sampler", sampler,
                                   "--threads", "1"});
        CHECK(t.code == 3);
        CHECK(t.err.find("rhoflow: numerical failure: trial 0 step ") == 0);
        CHECK(t.err.find("the SGA step is not representable in double precision") != std::string::npos);
    }
}

TEST_CASE("cli regression: SUB --help lists every setting of the subcommand as a flag with its default") {
    for (const auto& command : rhoflow::job_commands()) {
        CAPTURE(command);
        const Run r = rhoflow_cli({command, "--help"});
        CHECK(r.code == 0);
        const rhoflow::Job defaults = rhoflow::make_job(command);
        for (const auto& s : rhoflow::settings_for(command)) {
            CAPTURE(s.key);
            std::string expected = "--" + s.key;
            if (!s.is_switch()) {
                expected += " " + s.type_name;
                const std::string value = s.get(defaults);
                if (!value.empty() && !s.required) expected += "=" + value;  // a required flag shows no default
            }
            const auto at = r.out.find("  " + expected);
            REQUIRE(at != std::string::npos);
            const char after = r.out[at + 2 + expected.size()];
            CHECK((after == ' ' || after == '\n'));  // the whole default, not a prefix of it
            if (!s.help.empty()) CHECK(r.out.find(s.help.substr(0, 30)) != std::string::npos);
        }
        for (const char* f : {"--json", "--output"}) CHECK(r.out.find(f) != std::string::npos);
    }
}

TEST_CASE("cli regression: --sigma-per-norm divides sigma by sqrt(d) once, whatever the flag order") {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"field", "--sigma-per-norm", "--sigma", "2", "--d", "16", "--rho", "0.1", "--json"},
             {"field", "--d", "16", "--rho", "0.1", "--sigma", "2", "--sigma-per-norm", "--json"}}) {
        const Run r = rhoflow_cli(args);
        REQUIRE(r.code == 0);
        const auto doc = nlohmann::json::parse(r.out);
        CHECK(doc["model"]["sigma"].get<double>() == 0.5);
        CHECK(doc["model"]["sigma_input"].get<double>() == 2.0);
        CHECK(doc["model"]["noise_convention"] == "per_norm");
    }
}

TEST_CASE("cli regression: an --output that cannot be written is refused before the work (exit 1)") {
    const auto dir = fresh_dir("output_unwritable");
    const std::string afile = write_file(dir, "afile", "someone's data\n");
    // 10^9 steps would run for minutes: an immediate answer shows the check comes first.
    const std::vector<std::string> work{"sga", "--steps", "1000000000", "--trials", "1", "--threads", "1"};
    auto with = [&](const std::string& out) {
        auto a = work;
        a.insert(a.end(), {"--output", out});
        return rhoflow_cli(a);
    };
    const Run d = with(dir.string());
    CHECK(d.code == 1);
    CHECK(d.err == "rhoflow: error: cannot write " + dir.string() + ": it is a directory\n");
    const Run root = with("/");
    CHECK(root.code == 1);
    CHECK(root.err == "rhoflow: error: cannot write /: it names a directory\n");
    const Run under = with(afile + "/x.json");
    CHECK(under.code == 1);
    CHECK(under.err == "rhoflow: error: cannot write " + afile + "/x.json: " + afile + " is not a directory\n");
    CHECK(slurp_file(afile) == "someone's data\n");
    CHECK(d.out.empty());
}

TEST_CASE("cli: field --rigorous takes --precision, and refuses (exit 3) an enclosure wider than the field") {
    // At beta = 4, theta = 20, rho = 0.9 the 128-bit balls lose every digit of j'' to rounding
    // ([-47, 4.3e7] around a true j'' of about 0): valid, but useless, so exit 3 naming --precision
    // (256 bits give a width of 3e-11; not run here, 9 s).
    const Run r = rhoflow_cli({"field", "--rigorous", "--beta", "4", "--theta", "20", "--rho", "0.9"});
    CHECK(r.code == 3);
    CHECK(r.err.find("wider than the field") != std::string::npos);
    CHECK(r.err.find("--precision") != std::string::npos);
    const Run s = rhoflow_cli({"field", "--rigorous", "--precision", "64", "--d", "5", "--L", "20", "--R", "4", "--rho", "0.5"});
    CHECK(s.code == 0);
    CHECK(s.out.find("64 bits") != std::string::npos);
    for (const std::vector<std::string>& bad :
         {std::vector<std::string>{"field", "--rigorous", "--precision", "32"}, {"field", "--precision", "256"}}) {
        const Run b = rhoflow_cli(bad);
        CHECK(b.code == 2);
        CHECK(b.err.find("invalid --precision") != std::string::npos);
    }
}
