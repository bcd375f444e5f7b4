// Provenance and citation (issue 17, "Citable"): every subcommand's JSON document carries the
// build's commit, the full command line (for `run`: also the experiment file and its SHA-256)
// and the date; tables (.tex, the CSV's sidecar) and figure scripts carry the same; every output
// folder gets a CITATION.bib.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/version.hpp"
#include "rhoflow/io/io_test_util.hpp"

using nlohmann::json;
using rhoflow::test::Run;
using rhoflow::test::rhoflow_cli;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    REQUIRE(in);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// The provenance keys of a document made by `args` (the whole command line) at a recent date.
void check_provenance(const json& doc, const std::vector<std::string>& args, const std::string& command) {
    CHECK(doc["program"] == "rhoflow");
    CHECK(doc["version"] == rhoflow::version);
    CHECK(doc["commit"] == rhoflow::git_commit());
    CHECK(doc["commit_modified"] == rhoflow::git_tree_modified());
    CHECK(doc["command"] == command);
    CHECK(doc["command_line"] == rhoflow::command_line_of(args));
    const std::string date = doc["date"].get<std::string>();
    CHECK(date.size() == 20);
    CHECK(date.substr(0, 2) == "20");
    CHECK(date.back() == 'Z');
}

}  // namespace

TEST_CASE("cli provenance: every job subcommand's JSON carries commit, command line and date") {
    const std::vector<std::vector<std::string>> lines = {
        {"field", "--rho", "0,0.5", "--L", "50", "--R", "10", "--json"},
        {"ode", "--rho0", "0.05", "--t-end", "5", "--points", "3", "--json"},
        {"phase", "--d", "100", "--L", "10500", "--R", "500", "--theta", "3", "--json"},
        {"sga", "--steps", "10", "--trials", "2", "--d", "8", "--L", "20", "--R", "4", "--json"},
        {"stationary", "--eta", "0.04", "--samples", "200", "--nodes", "8", "--bootstrap", "10", "--json"},
        {"check", "--claim", "monotone", "--theta", "0.5:2", "--grid", "3", "--json"},
        {"field", "--rigorous", "--rho", "0.5", "--d", "5", "--L", "20", "--R", "4", "--json"},
    };
    for (const auto& args : lines) {
        CAPTURE(args[0]);
        const Run r = rhoflow_cli(args);
        REQUIRE(r.code == 0);
        check_provenance(json::parse(r.out), args, args[0]);
    }
}

TEST_CASE("cli provenance: compare --out and check --out record it in every file kind, with CITATION.bib") {
    rhoflow::test::TempDir t("cli_provenance_out");
    const std::vector<std::string> cmp = {"compare", "--d", "10", "--L", "40", "--R", "8", "--steps", "600",
                                          "--trials", "4", "--eta0", "0.02", "--k0", "200", "--horizon", "2",
                                          "--no-study", "--no-figures", "--quiet", "--out", (t / "my cmp").string()};
    REQUIRE(rhoflow_cli(cmp).code == 0);
    const fs::path c = t / "my cmp";
    check_provenance(json::parse(slurp(c / "compare.json")), cmp, "compare");
    const json side = json::parse(slurp(c / "table.csv.meta.json"));
    check_provenance(side, cmp, "compare");
    CHECK(side["rows"] == "table");
    std::string line = "command line: ";  // (not "literal" + std::string: GCC 12 warns falsely, PR 105329)
    line += rhoflow::command_line_of(cmp);
    CHECK(has(line, fmt::format("'{}'", (t / "my cmp").string())));  // quoted: it has a space
    for (const char* f : {"table.tex", "gap.tex"}) CHECK(has(slurp(c / f), "% " + line + "\n"));
    CHECK(has(slurp(c / "fig_trajectory.gp"), "# " + line + "\n"));
    CHECK(has(slurp(c / "fig_trajectory.gp"), std::string("commit ") + rhoflow::git_commit()));
    const std::string bib = slurp(c / "CITATION.bib");
    CHECK(has(bib, "@misc{rhoflow,"));
    CHECK(has(bib, std::string("git commit ") + rhoflow::git_commit()));
    CHECK(has(bib, "2606.22406"));

    const std::vector<std::string> chk = {"check", "--claim", "monotone", "--theta", "0.5:2", "--grid", "3",
                                          "--no-figures", "--quiet", "--out", (t / "chk").string()};
    REQUIRE(rhoflow_cli(chk).code == 0);
    check_provenance(json::parse(slurp(t / "chk" / "check.json")), chk, "check");
    check_provenance(json::parse(slurp(t / "chk" / "points.csv.meta.json")), chk, "check");
    CHECK(has(slurp(t / "chk" / "points.tex"), "% command line: "));
    CHECK(fs::exists(t / "chk" / "CITATION.bib"));
}

TEST_CASE("cli provenance: run records the experiment file and its SHA-256 in run.json, each cell and each summary") {
    rhoflow::test::TempDir t("cli_provenance_run");
    const std::string text =
        "[defaults]\nd = 8\nL = 20\nR = 4\n"
        "[[task]]\nname = \"s\"\ncommand = \"sga\"\nsteps = 50\ntrials = 2\nthreads = 1\ntheta = [0.5, 1.5]\n";
    {
        std::ofstream f(t / "e.toml", std::ios::binary);
        f << text;
    }
    const std::vector<std::string> args = {"run", (t / "e.toml").string(), "--out", (t / "o").string()};
    REQUIRE(rhoflow_cli(args).code == 0);
    const std::string sha = rhoflow::sha256_hex(text);
    const json index = json::parse(slurp(t / "o" / "run.json"));
    check_provenance(index, args, "run");
    CHECK(index["experiment_file"] == (t / "e.toml").string());
    CHECK(index["experiment_sha256"] == sha);
    const json cell = json::parse(slurp(t / "o" / "s" / "theta=1.5" / "result.json"));
    check_provenance(cell, args, "sga");  // a cell's command is its job's (the document is read back by it)
    CHECK(cell["experiment_sha256"] == sha);
    CHECK(json::parse(slurp(t / "o" / "s" / "summary.csv.meta.json"))["experiment_sha256"] == sha);
    CHECK(has(slurp(t / "o" / "s" / "summary.tex"), "(sha256 " + sha + ")"));
    CHECK(fs::exists(t / "o" / "CITATION.bib"));
    CHECK_FALSE(fs::exists(t / "o" / "s" / "theta=1.5" / "CITATION.bib"));  // one per output folder
}

TEST_CASE("cli provenance: prove's certificate carries it, still verifies, and --out gets CITATION.bib") {
    rhoflow::test::TempDir t("cli_provenance_prove");
    const std::vector<std::string> args = {"prove", "--claim", "monotone", "--d", "5", "--L", "100", "--R", "50",
                                           "--quiet", "--out", (t / "proof").string()};
    REQUIRE(rhoflow_cli(args).code == 0);
    const json cert = json::parse(slurp(t / "proof" / "certificate.json"));
    check_provenance(cert["provenance"], args, "prove");
    CHECK(fs::exists(t / "proof" / "CITATION.bib"));
    const Run v = rhoflow_cli({"prove", "--verify", (t / "proof" / "certificate.json").string(), "--verify-fast"});
    CHECK(v.code == 0);
    CHECK(has(v.out, "certificate valid"));
    // A certificate written before the provenance (no such key) verifies the same.
    json old = cert;
    old.erase("provenance");
    {
        std::ofstream f(t / "old.json");
        f << old.dump(1);
    }
    CHECK(rhoflow_cli({"prove", "--verify", (t / "old.json").string(), "--verify-fast"}).code == 0);
    // --verify-fast alone is refused naming itself (issue 30 H20).
    const Run f = rhoflow_cli({"prove", "--claim", "monotone", "--verify-fast"});
    CHECK(f.code == 2);
    CHECK(has(f.err, "invalid --verify-fast"));
}

// ------------------------------------------------------------------------ defaults and messages (issue 17)

namespace {
std::string flat(std::string s) {  // CLI11 wraps and indents help texts: compare without line breaks
    std::replace(s.begin(), s.end(), '\n', ' ');
    std::string squeezed;
    for (char c : s)
        if (c != ' ' || squeezed.empty() || squeezed.back() != ' ') squeezed += c;
    return squeezed;
}
}  // namespace

TEST_CASE("cli messages: sga and compare help texts say which defaults each uses") {
    const std::string sga = flat(rhoflow_cli({"sga", "--help"}).out);
    const std::string cmp = flat(rhoflow_cli({"compare", "--help"}).out);
    CHECK(has(sga, "Defaults of sga (shown beside each flag): steps 10000, trials 30, eta0 0.5, k0 100, gamma 1, rho0 uniform"));
    CHECK(has(sga, "compare has other defaults (the embedded default experiment): steps 20000, trials 30, eta0 0.01, k0 5000, gamma 1, rho0 0.1"));
    CHECK(has(cmp, "Defaults of compare (shown beside each flag; the embedded default experiment): steps 20000, trials 30, eta0 0.01"));
    CHECK(has(cmp, "sga has other defaults: steps 10000"));
}

TEST_CASE("cli messages: compare refuses --trials 1 (flag, TOML key and range), sga takes it") {
    const Run r = rhoflow_cli({"compare", "--trials", "1"});
    CHECK(r.code == 2);
    CHECK(has(r.err, "invalid --trials: trials = 1 is out of range (accepted: 2 <= trials <= 1e7"));
    CHECK(rhoflow_cli({"sga", "--trials", "1", "--steps", "10", "--d", "8", "--L", "20", "--R", "4"}).code == 0);
    rhoflow::test::TempDir t("cli_trials_toml");
    {
        std::ofstream f(t / "e.toml");
        f << "[[task]]\ncommand = \"compare\"\ntrials = 1\n";
    }
    const Run e = rhoflow_cli({"run", (t / "e.toml").string(), "--out", (t / "o").string()});
    CHECK(e.code == 2);
    CHECK(has(e.err, "key 'trials'"));
    CHECK(has(e.err, "2 <= trials <= 1e7"));
}

TEST_CASE("cli messages: an unknown flag close to one gets 'did you mean', study-eta0 counts values") {
    const Run r = rhoflow_cli({"sga", "--eta", "0.1"});
    CHECK(r.code == 2);
    CHECK(has(r.err, "--eta is not a flag of sga; did you mean --eta0?"));
    const Run k = rhoflow_cli({"compare", "--trails", "5"});
    CHECK(has(k.err, "did you mean --trials?"));
    const Run far = rhoflow_cli({"sga", "--zzzzzz", "1"});
    CHECK(far.code == 2);
    CHECK_FALSE(has(far.err, "did you mean"));
    const Run s = rhoflow_cli({"compare", "--study-eta0", "0.1,0.2"});
    CHECK(s.code == 2);
    CHECK(has(s.err, "invalid --study-eta0: study_eta0 has 2 values, too few to fit a slope (accepted: a list of at least 3 values, or none)"));
}

// ------------------------------------------------------------------------ ode output control (issue 17)

TEST_CASE("cli ode: --t gives exactly those times, --t-log N log-spaced ones, and they cannot be combined") {
    const Run r = rhoflow_cli({"ode", "--rho0", "0.05", "--t", "0,0.1,1,10", "--json"});
    REQUIRE(r.code == 0);
    const json d = json::parse(r.out);
    CHECK(d["t"] == json::array({0.0, 0.1, 1.0, 10.0}));
    CHECK(d["params"]["times"] == json::array({0.0, 0.1, 1.0, 10.0}));
    const Run g = rhoflow_cli({"ode", "--rho0", "0.05", "--t-end", "1000", "--t-log", "41", "--json"});
    REQUIRE(g.code == 0);
    const auto t = json::parse(g.out)["t"].get<std::vector<double>>();
    REQUIRE(t.size() == 42);
    CHECK(t[0] == 0.0);
    CHECK(t[1] == doctest::Approx(0.1).epsilon(1e-12));
    CHECK(t.back() == 1000.0);
    for (std::size_t i = 2; i < t.size(); ++i) CHECK(t[i] / t[i - 1] == doctest::Approx(std::pow(10.0, 0.1)).epsilon(1e-12));
    // Ten rows per decade: the transient around the hitting time 4.04 has rows, an even grid of 101 on [0, 1000] has none.
    int in_transient = 0;
    for (double x : t) in_transient += x > 1.05 && x < 9.5;  // 10^0.1 ... 10^0.9
    CHECK(in_transient == 9);
    const Run both = rhoflow_cli({"ode", "--t", "0,1", "--t-log", "5"});
    CHECK(both.code == 2);
    CHECK(has(both.err, "invalid --t: t = a list of times and t-log = N both choose the output times: give one"));
    const Run down = rhoflow_cli({"ode", "--t", "0,2,1"});
    CHECK(down.code == 2);
    CHECK(has(down.err, "invalid --t: t = 1 after 2: the times must increase"));
    CHECK(rhoflow_cli({"ode", "--t", "-1,2"}).code == 2);
    CHECK(rhoflow_cli({"ode", "--t-log", "-3"}).code == 2);
}

TEST_CASE("cli ode: several --rho0 solve each at the same times, each as its own run would") {
    const std::vector<std::string> common = {"--t-end", "20", "--points", "5", "--json"};
    auto run_with = [&](const std::string& rho0) {
        std::vector<std::string> a = {"ode", "--rho0", rho0};
        a.insert(a.end(), common.begin(), common.end());
        const Run r = rhoflow_cli(a);
        REQUIRE(r.code == 0);
        return json::parse(r.out);
    };
    const json all = run_with("0.05,0.3,-0.2");
    const json a = run_with("0.05"), b = run_with("0.3"), c = run_with("-0.2");
    CHECK(all["rho"] == a["rho"]);  // the top level is the first start's, as with one start
    CHECK(all["hit_time"] == a["hit_time"]);
    REQUIRE(all["others"].size() == 2);
    CHECK(all["others"][0]["rho"] == b["rho"]);
    CHECK(all["others"][1]["rho"] == c["rho"]);
    CHECK(all["others"][1]["rho_err"] == c["rho_err"]);
    CHECK(a["others"].empty());
    CHECK(all["params"]["rho0"] == json::array({0.05, 0.3, -0.2}));
    const Run text = rhoflow_cli({"ode", "--rho0", "0.05,0.3", "--t-end", "20", "--points", "3"});
    CHECK(has(text.out, "rho(0.05)"));
    CHECK(has(text.out, "rho(0.3)"));
    CHECK(has(text.out, "from rho0 = 0.3 at t = "));
}

namespace {

// The words a POSIX shell makes of `command` (which starts with "rhoflow"): sh runs it with
// rhoflow defined as a function that prints its arguments, each ended by a NUL byte.
std::vector<std::string> shell_words(const std::string& command) {
    const std::string script = "rhoflow() { for a in \"$@\"; do printf '%s\\0' \"$a\"; done; }; " + command;
    FILE* sh = ::popen(script.c_str(), "r");
    REQUIRE(sh != nullptr);
    std::string bytes;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, sh)) > 0;) bytes.append(buf, n);
    REQUIRE(::pclose(sh) == 0);
    std::vector<std::string> words;
    for (std::size_t at = 0, end; (end = bytes.find('\0', at)) != std::string::npos; at = end + 1)
        words.push_back(bytes.substr(at, end - at));
    return words;
}

}  // namespace

TEST_CASE("cli provenance: each run cell records the command that reruns it alone, and it does (same params)") {
    rhoflow::test::TempDir t("cli_provenance_cell_command");
    // A negative number, a claim a shell would split at '<' (a redirection) and a switch.
    rhoflow::test::write_text(t / "e.toml",
                              "[[task]]\nname = \"c\"\ncommand = \"compare\"\nd = 8\nL = 20\nR = 4\ntrials = 2\n"
                              "horizon = 2\nk0 = 100\nsteps = 1000\nno-study = true\nno-effective = true\nrho0 = -0.3\n"
                              "theta = [0.5, 1.5]\n"
                              "[[task]]\nname = \"k\"\ncommand = \"check\"\nclaim = \"hitting-time<=10.5\"\n"
                              "theta = \"0.5:2\"\ngrid = [2, 3]\n");
    const Run dry = rhoflow_cli({"run", (t / "e.toml").string(), "--dry-run"});
    REQUIRE(dry.code == 0);
    CHECK(has(dry.out, "--claim 'hitting-time<=10.5'"));
    REQUIRE(rhoflow_cli({"run", (t / "e.toml").string(), "--out", (t / "o").string(), "--no-figures"}).code == 0);
    int n = 0;
    for (const char* cell : {"c/theta=0.5/compare.json", "c/theta=1.5/compare.json", "k/grid=2/check.json",
                             "k/grid=3/check.json"}) {
        CAPTURE(cell);
        const json doc = json::parse(slurp(t / "o" / cell));
        const std::string command = doc.at("cell_command_line").get<std::string>();
        CHECK(has(dry.out, command + "\n"));                      // the line --dry-run prints for it
        CHECK(has(doc.at("command_line").get<std::string>(), "rhoflow run "));  // beside the run's own
        std::vector<std::string> args = shell_words(command);
        REQUIRE(args.size() > 1);
        const fs::path out = t / fmt::format("alone{}", n++);
        for (const char* a : {"--no-figures", "--quiet", "--out"}) args.emplace_back(a);
        args.push_back(out.string());
        const Run alone = rhoflow_cli(args);
        CAPTURE(alone.err);
        REQUIRE(alone.code == 0);
        const json again = json::parse(slurp(out / fs::path(cell).filename()));
        CHECK(again.at("params") == doc.at("params"));
        CHECK_FALSE(again.contains("cell_command_line"));  // a command of its own is no cell
    }
    const std::string md = slurp(t / "o" / "c" / "theta=0.5" / "table.md");
    CHECK(has(md, "this cell alone: rhoflow compare "));
}
