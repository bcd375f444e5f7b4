// The command line's output files in-process: devices are written, never replaced; folder names
// are data for figure rendering; a file where an output folder should go exits 1.
#include <doctest/doctest.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.hpp"
#include "cli_run.hpp"
#include "rhoflow/io/io_test_util.hpp"

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
