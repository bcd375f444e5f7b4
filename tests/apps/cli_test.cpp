// The command line in-process: the JSON keys docs/cli.md promises, exit codes, messages
// naming the flag, and no file left behind by a failed run.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "test_util.hpp"

namespace {

struct Run {
    int code = -1;
    std::string out, err;
};

Run rhoflow_cli(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    auto* old_out = std::cout.rdbuf(out.rdbuf());
    auto* old_err = std::cerr.rdbuf(err.rdbuf());
    Run r;
    r.code = rhoflow::cli::dispatch(args);
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

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

TEST_CASE("cli: compare writes its files and prints the Markdown table") {
    const auto dir = fresh_dir("compare");
    const Run r = rhoflow_cli({"compare", "--d", "10", "--L", "40", "--R", "8", "--theta", "1.5", "--steps", "2000",
                               "--trials", "6", "--eta0", "0.02", "--k0", "500", "--horizon", "3", "--no-study",
                               "--no-figures", "--out", dir.string(), "--quiet"});
    REQUIRE(r.code == 0);
    CHECK(r.out.find("| step k | t | rho ODE |") != std::string::npos);
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
    for (const char* f : {"paper.toml", "paper_full_sampler_short.toml", "bistable.toml"}) {
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
