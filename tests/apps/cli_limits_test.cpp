// Regression tests from the second bad-input probe (issue 15, part B), in-process: limits checked
// up front from the sizes (memory), hints that name the parameter at fault, levels and fields that
// carry no information refused, confidence intervals inside the range of their quantity, help
// texts and error lists generated from the one list of jobs, figure data without NaN columns.
// Each case failed on the code before its fix (said in the commit that fixed it).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/experiment/memory.hpp"
#include "rhoflow/io/io_test_util.hpp"

using namespace rhoflow::test;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("cli regression: an integer past 64 bits is out of range, not 'not an integer'") {
    const Run r = rhoflow_cli({"sga", "--L", "18446744073709551615"});
    CHECK(r.code == 2);
    CHECK(has(r.err, "invalid --L: L = '18446744073709551615' is out of range"));
    CHECK_FALSE(has(r.err, "is not an integer"));
    const Run s = rhoflow_cli({"sga", "--steps", "1e300"});
    CHECK(s.code == 2);
    CHECK(has(s.err, "invalid --steps: steps = '1e300' is out of range"));
}

TEST_CASE("cli regression: an overflow's hint names the parameter that overflowed") {
    // sigma = 1e300: the per-sample gradient is NaN; the old hint said "reduce eta0 or theta".
    const Run s = rhoflow_cli({"sga", "--sigma", "1e300", "--steps", "10", "--trials", "2", "--threads", "1"});
    CHECK(s.code == 3);
    CHECK(has(s.err, "reduce sigma"));
    CHECK_FALSE(has(s.err, "eta0 or theta"));
    const Run t = rhoflow_cli({"sga", "--theta", "1e100", "--steps", "200", "--trials", "2", "--threads", "1"});
    CHECK(t.code == 3);
    CHECK(has(t.err, "theta = 1e+100 is too large; reduce theta"));
    // theta = 1e100 in the ODE: the old message blamed "beta*sigma -> 0" (beta*sigma was 1).
    const Run o = rhoflow_cli({"ode", "--theta", "1e100", "--points", "3"});
    CHECK(o.code == 3);
    CHECK(has(o.err, "beta*theta = 1e+100"));
    CHECK(has(o.err, "reduce theta"));
    CHECK_FALSE(has(o.err, "beta*sigma -> 0"));
}

TEST_CASE("cli regression: field refuses (exit 3) a point whose error swamps its value, as ode does") {
    const Run f = rhoflow_cli({"field", "--theta", "1e100", "--rho", "0.5", "--json"});
    CHECK(f.code == 3);
    CHECK(f.out.empty());
    CHECK(has(f.err, "field at rho = 0.5: j' = "));
    CHECK(has(f.err, "the error exceeds the value"));
    // Near a zero of j' a large relative error is expected and still reported (error < j).
    const Run z = rhoflow_cli({"field", "--rho", "0,1,-1", "--json"});
    CHECK(z.code == 0);
}

TEST_CASE("cli regression: a hitting level that rounds to 1, or that rho0 already reaches, is refused naming --hit") {
    const Run r = rhoflow_cli({"ode", "--rho0", "0.9999999999999999", "--hit", "1e-17"});
    CHECK(r.code == 2);
    CHECK(has(r.err, "invalid --hit: "));
    CHECK(has(r.err, "rounds to 1 in double precision"));
    const Run a = rhoflow_cli({"ode", "--rho0", "0.9999999999999999", "--hit", "1e-15"});
    CHECK(a.code == 2);
    CHECK(has(a.err, "invalid --hit: "));
    CHECK(has(a.err, "already at the hitting level"));
    for (const char* sub : {"sga", "compare"}) {
        CAPTURE(sub);
        const Run s = rhoflow_cli({sub, "--hit", "1e-17"});
        CHECK(s.code == 2);
        CHECK(has(s.err, "invalid --hit: "));
    }
    const Run c = rhoflow_cli({"check", "--claim", "hitting-time<=10", "--hit", "1e-17"});
    CHECK(c.code == 2);
    CHECK(has(c.err, "invalid --hit: "));
    // The equilibrium +1 itself is a start, not a mistake: hit_time 0 with error 0, exactly.
    const Run e = rhoflow_cli({"ode", "--rho0", "1", "--field", "meanfield", "--points", "3", "--json"});
    REQUIRE(e.code == 0);
    const auto doc = nlohmann::json::parse(e.out);
    CHECK(doc["hit_time"] == 0.0);
    // --no-error-estimate: the text does not claim an error of 0.
    const Run n = rhoflow_cli({"ode", "--field", "meanfield", "--no-error-estimate", "--points", "3"});
    REQUIRE(n.code == 0);
    CHECK(has(n.out, "(error not estimated)"));
    CHECK_FALSE(has(n.out, "+- 0.0e+00\n# "));
}

TEST_CASE("cli regression: stationary refuses a flat field (theta = 0, R = 0) naming the flag") {
    for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{{"theta", "0"}, {"R", "0"}}) {
        CAPTURE(flag);
        const Run r = rhoflow_cli({"stationary", "--" + flag, value, "--json"});
        CHECK(r.code == 2);
        CHECK(r.out.empty());
        CHECK(has(r.err, "invalid --" + flag + ": "));
        CHECK(has(r.err, "no attractor near +1"));
        CHECK_FALSE(has(r.out, "plain_ode"));
    }
}

TEST_CASE("cli regression: run --help and the experiment file's command error list every job") {
    const std::string all = rhoflow::job_command_list("|");
    CHECK(all == "field|ode|phase|sga|compare|stationary|check|prove|threshold");  // threshold: registered by the library
    const Run h = rhoflow_cli({"run", "--help"});
    CHECK(h.code == 0);
    std::string flat = h.out;  // CLI11 wraps the description: compare without line breaks
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    CHECK(has(flat, "command = " + all));
    TempDir t("cli_commands");
    write_text(t / "bad.toml", "[[task]]\ncommand = \"nope\"\n");
    const Run r = rhoflow_cli({"run", (t / "bad.toml").string()});
    CHECK(r.code == 2);
    CHECK(has(r.err, "(accepted: field, ode, phase, sga, compare, stationary, check, prove, threshold)"));
    write_text(t / "none.toml", "[[task]]\nsteps = 5\n");
    const Run n = rhoflow_cli({"run", (t / "none.toml").string()});
    CHECK(n.code == 2);
    CHECK(has(n.err, all));
}

TEST_CASE("cli regression: compare names the sga flags it does not take, and its help says which") {
    for (const char* flag : {"first-trial", "record", "records-per-decade"}) {
        CAPTURE(flag);
        const Run r = rhoflow_cli({"compare", std::string("--") + flag, "3"});
        CHECK(r.code == 2);
        CHECK(r.err.rfind(fmt::format("rhoflow: error: invalid --{0}: compare does not take --{0}", flag), 0) == 0);
        const Run e = rhoflow_cli({"compare", std::string("--") + flag + "=3"});
        CHECK(e.code == 2);
        CHECK(has(e.err, std::string("invalid --") + flag));
    }
    const Run h = rhoflow_cli({"compare", "--help"});
    std::string flat = h.out;
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    std::string squeezed;  // CLI11 indents wrapped lines
    for (char c : flat)
        if (c != ' ' || squeezed.empty() || squeezed.back() != ' ') squeezed += c;
    CHECK(has(squeezed, "except --first-trial, --record and --records-per-decade"));
}

TEST_CASE("cli regression: check --help shows no default for the required --claim, and the --tol range") {
    const Run h = rhoflow_cli({"check", "--help"});
    REQUIRE(h.code == 0);
    CHECK_FALSE(has(h.out, "=monotone"));
    CHECK(has(h.out, "--claim TEXT REQUIRED"));
    CHECK(has(h.out, "0 < tol <= 1"));
}

namespace {

std::vector<std::string> plus(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// A fast comparison: meanfield field, small model, no study, no figures.
std::vector<std::string> small_compare(const fs::path& out, const std::string& trials) {
    return {"compare", "--d", "10", "--L", "40", "--R", "8", "--theta", "1.5", "--steps", "2000", "--trials", trials,
            "--eta0", "0.02", "--k0", "500", "--horizon", "3", "--field", "meanfield", "--no-study", "--no-figures",
            "--out", out.string(), "--quiet", "--threads", "1"};
}

std::vector<std::string> split(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> w;
    for (std::string s; in >> s;) w.push_back(s);
    return w;
}

}  // namespace

TEST_CASE("cli regression: fig_trajectory.dat has one column per trial and no NaN, with and without the effective dynamics") {
    TempDir dir("cli_traj");
    struct Case {
        std::vector<std::string> extra;
        std::string trials;
        std::size_t columns;
    };
    // 3 trials without the effective dynamics: t, 4 ensemble columns, 3 trials; 7 trials with
    // it: 5 more columns, and at most 5 trials shown.
    for (const Case& c : {Case{{"--no-effective"}, "3", 8},
                          Case{{"--effective-samples", "40", "--effective-paths", "100"}, "7", 15}}) {
        CAPTURE(c.trials);
        const fs::path out = dir / ("out" + c.trials);
        const Run r = rhoflow_cli(plus(small_compare(out, c.trials), c.extra));
        REQUIRE(r.code == 0);
        const std::string dat = read_text(out / "fig_trajectory.dat");
        CHECK_FALSE(has(dat, "NaN"));
        CHECK_FALSE(has(dat, "nan"));
        std::istringstream in(dat);
        std::string line;
        REQUIRE(std::getline(in, line));
        const auto header = split(line);
        CHECK(header.size() == c.columns + 1);  // "#" and the names
        CHECK(header.back() == fmt::format("trial{}", std::min(5, std::stoi(c.trials)) - 1));
        while (std::getline(in, line)) CHECK(split(line).size() == c.columns);
        // The script plots only columns that exist.
        const std::string gp = read_text(out / "fig_trajectory.gp");
        for (std::size_t col = c.columns + 1; col <= 15; ++col) CHECK_FALSE(has(gp, fmt::format("1:{} ", col)));
        CHECK(has(gp, fmt::format("1:{} ", c.columns)));
    }
}

TEST_CASE("cli regression: memory is checked up front from the sizes, naming the flag and the limit") {
    struct Case {
        std::vector<std::string> args;
        std::string flag;
    };
    const std::vector<Case> cases = {
        {{"sga", "--L", "1e9", "--steps", "10", "--trials", "2"}, "L"},
        {{"sga", "--sampler", "full", "--d", "1e9", "--L", "1e6", "--steps", "10", "--trials", "2"}, "d"},
        {{"sga", "--trials", "1e7", "--json"}, "trials"},
        {{"sga", "--trials", "1e5", "--steps", "100", "--json", "--max-memory", "100M"}, "trials"},
        {{"compare", "--effective-paths", "1e7", "--max-memory", "1G"}, "effective-paths"},
        {{"ode", "--points", "1e7", "--max-memory", "1G"}, "points"},
        {{"check", "--claim", "monotone", "--theta", "1:2", "--max-points", "1e7", "--max-memory", "4G"}, "max-points"},
        {{"stationary", "--L", "1e9", "--max-memory", "8G"}, "L"},
        {{"field", "--method", "montecarlo", "--L", "1e9", "--max-memory", "8G"}, "L"},
        {{"sga", "--max-memory", "0"}, "max-memory"},
        {{"sga", "--max-memory", "12X"}, "max-memory"},
        {{"sga", "--max-memory", "-1G"}, "max-memory"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.args[1]);
        CAPTURE(c.flag);
        const Run r = rhoflow_cli(c.args);
        CHECK(r.code == 2);
        CHECK(r.out.empty());
        CHECK(r.err.rfind("rhoflow: error: invalid --" + c.flag + ": ", 0) == 0);
        if (c.flag != "max-memory") {
            CHECK(has(r.err, "the job needs about "));
            CHECK(has(r.err, "more than the "));
            CHECK(has(r.err, "--max-memory"));
        }
        CHECK_FALSE(has(r.err, "bad_alloc"));
    }
    // The text of sga keeps no per-trial records: 1e5 trials fit in 64 MiB.
    const Run t = rhoflow_cli({"sga", "--trials", "1e5", "--steps", "2", "--d", "8", "--L", "20", "--R", "4",
                               "--max-memory", "64M"});
    CHECK(t.code == 0);
    CHECK(has(t.out, "100000 trials x 2 steps"));
    // An experiment file's cell is checked before anything runs, naming file, cell and key.
    TempDir dir("cli_memory_run");
    write_text(dir / "big.toml", "[[task]]\nname = \"s\"\ncommand = \"sga\"\nsteps = 10\ntrials = [2, 10000000]\n");
    const Run e = rhoflow_cli({"run", (dir / "big.toml").string(), "--out", (dir / "out").string()});
    CHECK(e.code == 2);
    CHECK(has(e.err, "big.toml: task 's', cell s/trials=10000000: key 'trials': the job needs about"));
    CHECK_FALSE(fs::exists(dir / "out"));
    CHECK_FALSE(fs::exists(dir / ".out.partial"));
}

TEST_CASE("memory: estimates grow with the sizes that the output needs, and sizes parse with binary units") {
    using namespace rhoflow;
    SgaJob s;
    s.sga.trials = 100000;
    const MemoryEstimate full = estimate_memory(s, ResultDetail::full), summary = estimate_memory(s, ResultDetail::summary);
    CHECK(full.field == "sga.trials");
    CHECK(full.bytes > 100 * summary.bytes / 10);  // records of every trial against 24 bytes each
    CHECK(summary.bytes < 64.0 * (1 << 20));
    s.model.L = 1000000000;
    CHECK(estimate_memory(s, ResultDetail::summary).field == "model.L");
    CHECK(parse_memory_size("512M", "max-memory") == 512.0 * (1 << 20));
    CHECK(parse_memory_size("8G", "max-memory") == 8.0 * (1 << 30));
    CHECK(parse_memory_size("1.5e9", "max-memory") == 1.5e9);
    CHECK(parse_memory_size("2KiB", "max-memory") == 2048);
    for (const char* bad : {"", "0", "-1", "+1", " 1G", "1Q", "G", "inf", "nan", "1e400"}) {
        CAPTURE(bad);
        CHECK_THROWS_AS(parse_memory_size(bad, "max-memory"), InvalidArgument);
    }
    const MemoryLimit m = machine_memory_limit();
    CHECK(m.bytes > 64.0 * (1 << 20));
    CHECK_FALSE(m.source.empty());
}

TEST_CASE("cli regression: a 95% CI of a bounded quantity stays in its range, and 2 trials say so") {
    // Seed 2 with 2 trials gave mean |rho_final| 0.66 with the CI [-0.94, 2.27].
    const std::vector<std::string> a = {"sga", "--steps", "20", "--trials", "2", "--d", "8", "--L", "20", "--R", "4",
                                        "--seed", "2", "--threads", "1"};
    const Run j = rhoflow_cli(plus(a, {"--json"}));
    REQUIRE(j.code == 0);
    const auto s = nlohmann::json::parse(j.out)["summary"];
    CHECK(s["ci95"][0].get<double>() >= 0);
    CHECK(s["ci95"][1].get<double>() <= 1);
    CHECK(s["ci95"][0].get<double>() < s["mean_abs_rho_final"].get<double>());
    for (const char* k : {"abs_rho_final", "nuisance_mass", "abs_rho_last_half"}) {
        CAPTURE(k);
        CHECK(s[k]["lo"].get<double>() >= 0);
        CHECK(s[k]["hi"].get<double>() <= 1);
    }
    CHECK(s["rho_final"]["lo"].get<double>() >= -1);
    CHECK(s["rho_final"]["hi"].get<double>() <= 1);
    const Run t = rhoflow_cli(a);
    REQUIRE(t.code == 0);
    CHECK(has(t.out, "clipped to [0, 1]"));
    CHECK(has(t.out, "# note: 2 trials"));
    // The comparator's rows: rho in [-1, 1], masses in [0, 1].
    TempDir dir("cli_ci_compare");
    const Run c = rhoflow_cli(plus(small_compare(dir / "out", "2"), {"--no-effective", "--json"}));
    REQUIRE(c.code == 0);
    const auto doc = nlohmann::json::parse(c.out);
    for (const auto& row : doc["table"]) {
        CHECK(row["rho_sga"]["lo"].get<double>() >= -1);
        CHECK(row["rho_sga"]["hi"].get<double>() <= 1);
        CHECK(row["nuisance_mass_sga"]["lo"].get<double>() >= 0);
        CHECK(row["nuisance_mass_sga"]["hi"].get<double>() <= 1);
    }
    CHECK(doc["tracking_error"]["lo"].get<double>() >= 0);
}
