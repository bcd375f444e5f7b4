// rhoflow prove, --verify, field --rigorous and check on the command line (issue 30, third
// hardening pass): counts that overflowed int64 refused with the count and the cap, an --output
// inside --out and an --out holding the working directory refused as compare's, --claim required,
// --verify's --threads checked, duplicate keys named, messages naming the flag.
#include <doctest/doctest.h>

#include <functional>

#include "cli.hpp"
#include "cli_run.hpp"
#include "rhoflow/io/io_test_util.hpp"

using namespace rhoflow::test;

namespace {

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// prepare() alone: the outcome of validation, and whether work was returned.
rhoflow::cli::Outcome prepared(const std::vector<std::string>& args, bool* has_work = nullptr) {
    std::function<void()> work;
    const rhoflow::cli::Outcome o = rhoflow::cli::prepare(args, &work);
    if (has_work) *has_work = static_cast<bool>(work);
    return o;
}


}  // namespace

TEST_CASE("cli prove: d x L x R past int64 exits 2 with the count and the cap, at once (H3)") {
    const Run r = rhoflow_cli({"prove", "--claim", "monotone", "--d", "2:536870913", "--L", "100:34359738467", "--R", "50"});
    CHECK(r.code == 2);
    CHECK(has(r.err, "invalid --L: the box has d x L x R = 536870912 x 34359738368 x 1 = about 1.84e+19 integer "
                     "combinations, more than 4096"));
}

TEST_CASE("cli check: a grid past int64 points prints the count, not a saturated one (H14)") {
    const Run r = rhoflow_cli({"check", "--claim", "monotone", "--d", "2:100", "--L", "100:1000", "--R", "1:50", "--theta",
                               "1:2", "--sigma", "1:2", "--beta", "0.1:1", "--grid", "1500"});
    CHECK(r.code == 2);
    CHECK(has(r.err, "1500^6 = about 1.14e+19 points"));
    CHECK_FALSE(has(r.err, "7593750000000000"));
}

TEST_CASE("cli prove: --output inside --out, and an --out holding the working directory, exit 2 before the work (H9, H14)") {
    TempDir t("cli_prove_out");
    const std::vector<std::string> base = {"prove", "--claim", "monotone", "--d", "5", "--L", "100", "--R", "50"};
    for (const std::string output : {"pdir/cert.json", "pdir", "./pdir/sub/c.json"}) {
        CAPTURE(output);
        std::vector<std::string> a = base;
        a.insert(a.end(), {"--out", (t / "pdir").string(), "--output", (t.path / output).string()});
        bool work = true;
        const rhoflow::cli::Outcome o = prepared(a, &work);
        CHECK(o.code == 2);
        CHECK_FALSE(work);
        CHECK(o.flag == "output");
        CHECK(has(o.message, "lies inside it"));
    }
    fs::create_directories(t / "here");
    InDir here(t / "here");
    for (const std::string spelling : {".", "./", "../here"}) {
        CAPTURE(spelling);
        std::vector<std::string> a = base;
        a.insert(a.end(), {"--out", spelling});
        const rhoflow::cli::Outcome o = prepared(a);
        CHECK(o.code == 2);
        CHECK(o.flag == "out");
        CHECK(has(o.message, "invalid --out"));
    }
}

TEST_CASE("cli prove: --claim is required, and --verify's --threads is range-checked (H14)") {
    const Run r = rhoflow_cli({"prove", "--d", "5", "--L", "100", "--R", "50"});
    CHECK(r.code == 2);
    CHECK(has(r.err, "invalid --claim: --claim is required"));
    CHECK(r.out.empty());
    for (const std::string n : {"-5", "5000"}) {
        CAPTURE(n);
        const rhoflow::cli::Outcome o = prepared({"prove", "--verify", "cert.json", "--threads", n});
        CHECK(o.code == 2);
        CHECK(has(o.message, "invalid --threads"));
        CHECK(has(o.message, "0 <= threads <= 4096"));
    }
}

TEST_CASE("cli field --rigorous: a cell out of the enclosures' range names the flag before the work (H14)") {
    bool work = true;
    const rhoflow::cli::Outcome o = prepared({"field", "--rigorous", "--beta", "5"}, &work);
    CHECK(o.code == 2);
    CHECK_FALSE(work);
    CHECK(o.flag == "beta");
    CHECK(has(o.message, "invalid --beta: beta = 5 is out of range"));
    CHECK_FALSE(has(o.message, "cell."));
}

TEST_CASE("cli prove --verify: duplicate keys are named with their path and refused (H10)") {
    TempDir t("cli_prove_dup");
    write_text(t / "dup.json", R"({"verdict": "disproved", "verdict": "proved", "cells": [{"role": 1, "role": 2}]})");
    const Run r = rhoflow_cli({"prove", "--verify", (t / "dup.json").string()});
    CHECK(r.code == 2);
    CHECK(has(r.err, "\n  verdict: duplicate key"));
    CHECK(has(r.err, "\n  cells[0].role: duplicate key"));
}

TEST_CASE("cli check: --help groups the accuracy flags as estimated errors, not as certification (H21)") {
    const Run r = rhoflow_cli({"check", "--help"});
    CHECK(r.code == 0);
    CHECK(has(r.out, "Verdict accuracy (estimated errors)"));
    CHECK_FALSE(has(r.out, "Certification"));
    CHECK(has(r.out, "folder for check.json"));
}
