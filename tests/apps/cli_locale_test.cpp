// Issue 30, H1: every number rhoflow reads or writes is the same bytes whatever the C locale. A
// Python user may call locale.setlocale(LC_ALL, "de_DE.UTF-8") in the process that runs rhoflow,
// and a shell user may export LC_ALL (which the children, gnuplot, inherit). Each case runs the
// command line in-process twice, under "C" and under a comma-decimal locale set both ways, and
// compares every file of the two output folders byte for byte. Before the fix the comma locale
// dropped the minus sign of z in (-1, 0) in table.md/.tex (std::stod("-0,12") read -0), refused
// "--theta 0.5:2" and "hitting-time<=10.5" as "not a number" (std::stod), wrote a sweep's values
// as text and dropped its figure (std::strtod).
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "rhoflow/io/io_test_util.hpp"

using namespace rhoflow::test;

namespace {

// Runs `args` with "{OUT}" replaced by `out`; REQUIREs exit 0.
void run_into(std::vector<std::string> args, const fs::path& out) {
    for (auto& a : args) {
        if (a.starts_with("{OUT}/")) fs::create_directories(out);  // a file inside: the folder is ours
        if (const auto at = a.find("{OUT}"); at != std::string::npos) a.replace(at, 5, out.string());
    }
    const Run r = rhoflow_cli(args);
    INFO(r.err);
    REQUIRE(r.code == 0);
}

// Runs `args` under "C" and under the comma locale into dir/out (the same path: it is recorded in
// the files), moved to dir/c and dir/de; the two trees must be equal.
void same_bytes_in_both_locales(const std::vector<std::string>& args, const TempDir& t) {
    const auto loc = comma_locale_path();
    REQUIRE_MESSAGE(loc, "localedef could not build de_DE.UTF-8 (Debian package `locales`)");
    FixedDate date;
    run_into(args, t / "out");
    fs::rename(t / "out", t / "c");
    {
        CommaLocale comma(*loc);
        run_into(args, t / "out");
    }
    fs::rename(t / "out", t / "de");
    const auto c = files_of(t / "c"), de = files_of(t / "de");
    REQUIRE(c.size() == de.size());
    for (const auto& [name, bytes] : c) {
        CAPTURE(name);
        REQUIRE(de.count(name) == 1);
        CHECK(de.at(name) == bytes);
    }
}

}  // namespace

TEST_CASE("locale: compare writes the same bytes (tables, JSON, figures) under a comma-decimal locale") {
    TempDir t("locale_compare");
    same_bytes_in_both_locales({"compare", "--d", "10", "--L", "100", "--R", "20", "--trials", "4", "--steps", "3000",
                                "--horizon", "2", "--no-study", "--seed", "5", "--quiet", "--out", "{OUT}"},
                               t);
    // The case has a z in (-1, 0): the minus sign that the comma locale used to drop.
    CHECK(read_text(t / "c" / "table.md").find("\u22120.") != std::string::npos);
}

TEST_CASE("locale: check reads --theta ranges and decimal claims the same under a comma-decimal locale") {
    TempDir t("locale_check");
    same_bytes_in_both_locales({"check", "--claim", "hitting-time<=10.5", "--theta", "0.5:2", "--grid", "3", "--quiet",
                                "--out", "{OUT}"},
                               t);
}

TEST_CASE("locale: stationary and prove write the same bytes under a comma-decimal locale") {
    TempDir t("locale_stationary_prove");
    same_bytes_in_both_locales({"stationary", "--eta", "0.04", "--samples", "200", "--nodes", "8", "--bootstrap", "10",
                                "--output", "{OUT}/stationary.json"},
                               t);
    TempDir p("locale_prove");
    same_bytes_in_both_locales({"prove", "--claim", "monotone", "--d", "5", "--L", "100", "--R", "50", "--theta",
                                "0.5", "--quiet", "--out", "{OUT}"},
                               p);
}

TEST_CASE("locale: run's sweep keeps its numbers and its figure under a comma-decimal locale") {
    TempDir t("locale_run");
    fs::create_directories(t / "in");
    write_text(t / "in" / "e.toml", "[defaults]\nd = 8\nL = 20\nR = 4\n"
                             "[[task]]\nname = \"s\"\ncommand = \"sga\"\nsteps = 50\ntrials = 2\nthreads = 1\n"
                             "theta = [0.5, 1.5]\n");
    same_bytes_in_both_locales({"run", (t / "in" / "e.toml").string(), "--out", "{OUT}"}, t);
    CHECK(fs::exists(t / "c" / "s" / "fig_final_theta.png"));
}
