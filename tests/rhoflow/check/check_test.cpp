// The box: grid and refinement, the box's verdict and witness, integer axes, JSON round trip
// (its document, table and figures: tests/rhoflow/io/check_output_test.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "rhoflow/check/check.hpp"

using namespace rhoflow;

namespace {
CheckParams theta_line(double lo, double hi, int grid, int refine) {
    CheckParams p;
    p.claim = parse_claim("monotone");
    p.box.d = ParamRange(50);
    p.box.L = ParamRange(50);
    p.box.R = ParamRange(25);
    p.box.theta = ParamRange(lo, hi);
    p.grid = grid;
    p.refine = refine;
    return p;
}
}  // namespace

TEST_CASE("check box: positive-drift holds on a small-signal box, with the sampled-not-proved caveat") {
    CheckParams p;
    p.claim = parse_claim("positive-drift");
    p.box.theta = ParamRange(0.05, 0.5);
    p.box.R = ParamRange(20, 200);
    p.grid = 3;
    const CheckResult r = run_check(p);
    CHECK(r.verdict == Verdict::holds);
    CHECK(r.points.size() == 9);
    CHECK(r.holds == 9);
    CHECK_FALSE(r.witness);
    CHECK(r.min_margin > 0);
    REQUIRE_FALSE(r.diagnostics.notes.empty());
    CHECK(r.diagnostics.notes.front().find("sampled, not proved") != std::string::npos);
}

TEST_CASE("check box: the witness is the failing point of largest margin, with a command that reproduces it") {
    const CheckResult r = run_check(theta_line(0.1, 3, 6, 0));
    REQUIRE(r.verdict == Verdict::fails);
    REQUIRE(r.witness);
    double most = 0;
    for (const auto& pt : r.points)
        if (pt.cert.verdict == Verdict::fails) most = std::min(most, pt.cert.margin);
    CHECK(r.witness->margin == most);
    CHECK(r.min_margin == most);
    CHECK(r.witness->command.find("rhoflow phase --d 50 --L 50 --R 25 --theta ") == 0);
    CHECK(r.witness->claim_command.find("rhoflow field --rho -1.000000") == 0);
    // theta = 0.1 ... 3 on 6 log-spaced points: 0.1, 0.197, 0.388 hold, 0.766, 1.51, 3 fail
    // (theta* ~ 0.58).
    CHECK(r.holds == 3);
    CHECK(r.fails == 3);
    CHECK(r.undecided == 0);
}

TEST_CASE("check box: refinement traces the boundary between verdicts") {
    // monotone at d = L = 50, R = 25 holds for small theta and fails beyond theta* ~ 0.58.
    const CheckResult r = run_check(theta_line(0.1, 3, 5, 4));
    REQUIRE(r.verdict == Verdict::fails);
    // Locate theta* independently by bisection on the certified verdict.
    double lo = 0.1, hi = 3;
    CertifyParams cp;
    for (int i = 0; i < 30; ++i) {
        const double mid = std::sqrt(lo * hi);
        const PointCertificate c = certify_point(ModelParams{50, 50, 25, mid, 1.0, 1.0}, parse_claim("monotone"), cp);
        (c.verdict == Verdict::holds ? lo : hi) = mid;
    }
    REQUIRE(r.boundary.size() == 1);
    const double cell = std::pow(3 / 0.1, 1.0 / (4 * 16));  // finest log-cell ratio
    const double centre = r.boundary.front()[3];
    CHECK(centre / lo < cell);
    CHECK(lo / centre < cell);
    // The refinement added points only near the boundary.
    int refined = 0;
    for (const auto& pt : r.points)
        if (pt.level > 0) {
            ++refined;
            CHECK(std::abs(std::log(pt.values[3] / lo)) < std::log(3 / 0.1) / 4 + 1e-12);
        }
    CHECK(refined == 4);
    CHECK(r.diagnostics.levels == 4);
}

TEST_CASE("check box: integer axes stay integers and a model is evaluated once") {
    CheckParams p;
    p.claim = parse_claim("positive-drift");
    p.box.R = ParamRange(1, 12);
    p.box.theta = ParamRange(0.3);
    p.grid = 16;
    p.refine = 0;
    const CheckResult r = run_check(p);
    std::set<double> seen;
    for (const auto& pt : r.points) {
        CHECK(pt.values[2] == std::floor(pt.values[2]));
        CHECK(pt.model.R == static_cast<std::int64_t>(pt.values[2]));
        CHECK(seen.insert(pt.values[2]).second);
    }
    CHECK(r.points.size() < 16);  // rounding merged grid values
    CHECK(*seen.begin() == 1);
    CHECK(*seen.rbegin() == 12);
}

TEST_CASE("check box: JSON round trip of the result") {
    CheckParams p = theta_line(0.3, 2, 3, 1);
    p.claim = parse_claim("attractors=1");
    const CheckResult r = run_check(p);
    const nlohmann::json j = r;
    const CheckResult back = j.get<CheckResult>();
    CHECK(nlohmann::json(back) == j);
    CHECK(back.points.size() == r.points.size());
}
