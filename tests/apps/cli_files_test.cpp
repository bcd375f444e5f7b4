// The command line's output files in-process: devices are written, never replaced; folder names
// are data for figure rendering; a file where an output folder should go exits 1.
#include <doctest/doctest.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.hpp"
#include "cli_run.hpp"
#include "rhoflow/io/io_test_util.hpp"
#include "rhoflow/io/table.hpp"

using namespace rhoflow::test;

using rhoflow::test::Run;
using rhoflow::test::rhoflow_cli;

namespace {


}  // namespace

TEST_CASE("cli files: --output to /dev/null writes it, to /dev/full exits 1, neither is replaced") {
    TempDir t("cli_devices");
    const fs::path null = device_node(t.path, "null", 1, 3, "/dev/null");
    const fs::path full = device_node(t.path, "full", 1, 7, "/dev/full");
    const Run ok = rhoflow_cli({"field", "--rho", "0.3", "--output", null.string()});
    CHECK(ok.code == 0);
    const Run bad = rhoflow_cli({"field", "--rho", "0.3", "--output", full.string()});
    CHECK(bad.code == 1);
    CHECK(bad.err.find("No space left on device") != std::string::npos);
    CHECK(fs::is_character_file(null));
    CHECK(fs::is_character_file(full));
    CHECK(temporaries(null.parent_path()).empty());
    CHECK(temporaries(full.parent_path()).empty());
}

TEST_CASE("cli files: compare --out takes any folder name, quotes and shell syntax included") {
    TempDir t("cli_compare_names");
    EnvGuard pwned("RHOFLOW_TEST_PWNED", (t / "PWNED").string());
    for (const std::string name : {"x'; touch \"$RHOFLOW_TEST_PWNED\"; echo '", "bob's results"}) {
        CAPTURE(name);
        const fs::path dir = t / name;
        const Run r = rhoflow_cli({"compare", "--d", "10", "--L", "40", "--R", "8", "--steps", "2000", "--trials", "4",
                                   "--no-study", "--horizon", "1", "--out", dir.string()});
        CHECK(r.code == 0);
        CHECK(r.err.find("sh: ") == std::string::npos);
        CHECK(r.err.find("Syntax error") == std::string::npos);
        CHECK(fs::exists(dir / "compare.json"));
        CHECK(fs::exists(dir / "fig_gap.gp"));
    }
    CHECK_FALSE(fs::exists(t / "PWNED"));
    CHECK_FALSE(fs::exists("PWNED"));
}

// A failing output folder is an I/O error (exit 1), not a numerical failure.
TEST_CASE("cli files: run --out onto a regular file exits 1 naming it") {
    TempDir t("cli_run_onto_file");
    write_text(t / "afile", "mine");
    write_text(t / "ok.toml", "[[task]]\ncommand = \"sga\"\nsteps = 100\ntrials = 2\nd = 8\nL = 20\nR = 4\n");
    const Run r = rhoflow_cli({"run", (t / "ok.toml").string(), "--out", (t / "afile").string()});
    CHECK(r.code == 1);
    CHECK(r.err.find("afile") != std::string::npos);
    CHECK(r.err.find("numerical failure") == std::string::npos);
    CHECK(read_text(t / "afile") == "mine");
}

TEST_CASE("cli files: prove --verify reads the certificate bounded: a device, a FIFO, a directory, bad JSON") {
    TempDir t("cli_verify_paths");
    auto verify = [](const fs::path& p) { return rhoflow_cli({"prove", "--verify", p.string()}); };
    const Run zero = verify("/dev/zero");  // was read without bound
    CHECK(zero.code == 2);
    CHECK(zero.err.find("invalid --verify: /dev/zero: more than 1073741824 bytes (1 GiB), the limit for a certificate") !=
          std::string::npos);
    const fs::path fifo = t / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const Run hung = verify(fifo);  // was waited for forever
    CHECK(hung.code == 2);
    CHECK(hung.err.find(fifo.string() + ": cannot be read: it is a FIFO with no writer") != std::string::npos);
    const Run dir = verify(t.path);  // was "unexpected end of input"
    CHECK(dir.code == 2);
    CHECK(dir.err.find(t.path.string() + ": cannot be read: it is a directory") != std::string::npos);
    write_text(t / "bad.json", "{\"claim\": \n}");
    const Run bad = verify(t / "bad.json");
    CHECK(bad.code == 2);
    CHECK(bad.err.find("bad.json is not valid JSON: at line 2, column 1: syntax error") != std::string::npos);
    CHECK(bad.err.find("[json.exception") == std::string::npos);
}

TEST_CASE("cli files: prove --verify lists what fails without nlohmann's prefixes") {
    TempDir t("cli_verify_prefix");
    REQUIRE(rhoflow_cli({"prove", "--claim", "monotone", "--d", "5", "--L", "100", "--R", "50", "--quiet", "--output",
                         (t / "cert.json").string()})
                .code == 0);
    nlohmann::json cert = nlohmann::json::parse(read_text(t / "cert.json"));
    cert["params"].erase("rigorous");
    write_text(t / "c2.json", cert.dump());
    const Run r = rhoflow_cli({"prove", "--verify", (t / "c2.json").string(), "--verify-fast"});
    CHECK(r.code == 2);
    CHECK(r.err.find("params.rigorous: missing") != std::string::npos);
    CHECK(r.err.find("[json.exception") == std::string::npos);
}

namespace {

// Checks every CSV under `dir` against its sidecar: the same column names, in order, each with a
// description and a unit; returns the sidecars read, by file name relative to `dir`.
std::map<std::string, nlohmann::json> described_csvs(const std::filesystem::path& dir) {
    std::map<std::string, nlohmann::json> found;
    for (const auto& f : std::filesystem::recursive_directory_iterator(dir)) {
        if (f.path().extension() != ".csv") continue;
        const std::string name = std::filesystem::relative(f.path(), dir).string();
        CAPTURE(name);
        const std::string csv = read_text(f.path());
        std::vector<std::string> header;
        std::stringstream line(csv.substr(0, csv.find('\n')));
        for (std::string h; std::getline(line, h, ',');) header.push_back(h);
        const auto meta = nlohmann::json::parse(read_text(f.path().string() + ".meta.json"));
        REQUIRE(meta.at("columns").size() == header.size());
        for (std::size_t i = 0; i < header.size(); ++i) {
            const auto& c = meta["columns"][i];
            CAPTURE(header[i]);
            CHECK(c.at("name") == header[i]);
            CHECK_FALSE(c.at("description").get<std::string>().empty());
            CHECK_FALSE(c.at("unit").get<std::string>().empty());
            CHECK(c.at("integer").is_boolean());
        }
        found[name] = meta;
    }
    return found;
}

// The unit the sidecar `meta` gives column `name`.
std::string unit_of(const nlohmann::json& meta, const std::string& name) {
    for (const auto& c : meta.at("columns"))
        if (c.at("name") == name) return c.at("unit").get<std::string>();
    return "(no column " + name + ")";
}

}  // namespace

TEST_CASE("cli files: every column of every CSV has a description and a unit in its sidecar") {
    TempDir t("csv_columns");
    const std::string ode_time = rhoflow::kOdeTime;
    const std::vector<std::string> small = {"--d", "8", "--L", "20", "--R", "4"};
    std::vector<std::string> cmp = {"compare", "--trials", "2", "--horizon", "2", "--k0", "100", "--steps", "1000",
                                    "--no-figures", "--quiet", "--out", (t / "c").string()};
    cmp.insert(cmp.begin() + 1, small.begin(), small.end());
    REQUIRE(rhoflow_cli(cmp).code == 0);
    const auto c = described_csvs(t / "c");
    CHECK(c.size() == 3);  // table, gap, study
    CHECK(unit_of(c.at("table.csv"), "t") == ode_time);
    CHECK(unit_of(c.at("table.csv"), "step") == "steps");
    CHECK(unit_of(c.at("table.csv"), "rho_sga_mean") == "1");
    CHECK(unit_of(c.at("gap.csv"), "eta") == rhoflow::kStepSize);
    CHECK(c.at("table.csv")["columns"][0]["integer"] == true);    // step
    CHECK(c.at("table.csv")["columns"][1]["integer"] == false);   // t
    REQUIRE(rhoflow_cli({"check", "--claim", "hitting-time<=10.5", "--theta", "0.5:2", "--grid", "3", "--no-figures",
                         "--quiet", "--out", (t / "k").string()})
                .code == 0);
    const auto k = described_csvs(t / "k");
    CHECK(k.size() == 1);
    CHECK(unit_of(k.at("points.csv"), "hit_time") == ode_time);
    write_text(t / "e.toml",
               "[defaults]\nd = 8\nL = 20\nR = 4\n"
               "[[task]]\nname = \"c\"\ncommand = \"compare\"\ntrials = 2\nhorizon = 2\nk0 = 100\nno-study = true\n"
               "steps = [1000, 1500]\n"
               "[[task]]\nname = \"s\"\ncommand = \"sga\"\nsteps = 200\ntrials = 3\ntheta = [0.5, 1.5]\n"
               "[[task]]\nname = \"st\"\ncommand = \"stationary\"\nsamples = 200\nnodes = 8\nbootstrap = 10\n"
               "eta = [0.04, 0.05]\n"
               "[[task]]\nname = \"k\"\ncommand = \"check\"\nclaim = \"monotone\"\ntheta = \"0.5:2\"\ngrid = [2, 3]\n"
               "[[task]]\nname = \"o\"\ncommand = \"ode\"\nt-end = [5, 10]\n"
               "[[task]]\nname = \"p\"\ncommand = \"phase\"\ntheta = [0.5, 1]\n"
               "[[task]]\nname = \"f\"\ncommand = \"field\"\nrho = [[0.0, 0.5], [0.25]]\n");
    REQUIRE(rhoflow_cli({"run", (t / "e.toml").string(), "--out", (t / "o").string(), "--no-figures"}).code == 0);
    const auto r = described_csvs(t / "o");
    for (const char* s : {"c/summary.csv", "s/summary.csv", "st/summary.csv", "k/summary.csv", "o/summary.csv",
                          "p/summary.csv", "f/summary.csv", "c/steps=1000/table.csv", "k/grid=2/points.csv"})
        CHECK(r.count(s) == 1);
    CHECK(r.size() == 13);  // 7 summaries, table and gap of 2 compare cells (no study), points of 2 check cells
    CHECK(unit_of(r.at("c/summary.csv"), "steps") == "steps");  // a swept setting
    CHECK(unit_of(r.at("c/summary.csv"), "hit_time_ode") == ode_time);
    CHECK(unit_of(r.at("o/summary.csv"), "t_end") == ode_time);
    CHECK(unit_of(r.at("st/summary.csv"), "eta") == rhoflow::kStepSize);
    CHECK(unit_of(r.at("c/summary.csv"), "verdict") == rhoflow::kText);
}
