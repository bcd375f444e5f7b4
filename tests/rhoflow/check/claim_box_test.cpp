// Claims, boxes and parameters of `rhoflow check`: parsing, validation naming the field, and the
// JSON hooks' round trips.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "rhoflow/check/box.hpp"
#include "rhoflow/check/check.hpp"
#include "rhoflow/check/claim.hpp"
#include "rhoflow/core/errors.hpp"

using namespace rhoflow;

namespace {
template <class F>
std::string field_of(F&& f) {
    try {
        f();
    } catch (const InvalidArgument& e) {
        return e.field();
    }
    return "";
}
}  // namespace

TEST_CASE("check claims: canonical text round-trips, bad claims name the field") {
    for (const char* text : {"monotone", "positive-drift", "attractors=2", "filtering", "hitting-time<=12.5"})
        CHECK(to_string(parse_claim(text)) == text);
    CHECK(parse_claim("attractors=0").attractors == 0);
    CHECK(parse_claim("hitting-time<=3").t_max == 3.0);
    for (const char* bad : {"", "monotonic", "attractors=", "attractors=x", "attractors=-1", "attractors=1001",
                            "hitting-time<=0", "hitting-time<=inf", "hitting-time<=1s"})
        CHECK(field_of([&] { parse_claim(bad); }) == "claim");
    CHECK(field_of([&] { parse_verdict("maybe"); }) == "verdict");
}

TEST_CASE("check box: values and ranges, integer rounding, log and linear spacing") {
    const ParamRange v = parse_range("50", "box.d");
    CHECK_FALSE(v.ranged());
    CHECK(v.at(0.7, true) == 50);
    const ParamRange r = parse_range("1:1e3", "box.R");
    CHECK(r.ranged());
    CHECK(r.effective_scale() == AxisScale::log);
    CHECK(r.at(0.0, true) == 1);
    CHECK(r.at(1.0, true) == 1000);
    CHECK(r.at(0.5, false) == doctest::Approx(std::sqrt(1000.0)));
    CHECK(r.at(0.5, true) == 32);  // integers stay integers
    ParamRange lin(0, 10);
    CHECK(lin.effective_scale() == AxisScale::linear);  // LO = 0: log is impossible
    CHECK(lin.at(0.25, false) == 2.5);
    CHECK(field_of([] { parse_range("1:x", "box.theta"); }) == "box.theta");
    CHECK(field_of([] { parse_range("abc", "box.L"); }) == "box.L");
    CHECK(field_of([] { parse_single("0:0.5", "certify.rho0"); }) == "certify.rho0");
    CHECK(parse_single("0.25", "certify.rho0") == 0.25);
    // A subnormal is a number here as in every other flag (it was "not a number": std::stod's
    // ERANGE); the model's validation decides whether it is in range.
    CHECK(parse_range("1e-308:1", "box.theta").lo == 1e-308);
}

TEST_CASE("check box: validation names the parameter and its accepted range") {
    ParamBox b;
    b.theta = ParamRange(3, 1);  // LO > HI
    CHECK(field_of([&] { b.validate(); }) == "box.theta");
    b = ParamBox{};
    b.R = ParamRange(10, 2000);  // above L = 1000
    try {
        b.validate();
        FAIL("no error");
    } catch (const InvalidArgument& e) {
        CHECK(e.field() == "box.R");
        CHECK(std::string(e.what()).find("R <= L = 1000") != std::string::npos);
    }
    b = ParamBox{};
    b.d = ParamRange(2.5);
    CHECK(field_of([&] { b.validate(); }) == "box.d");
    b = ParamBox{};
    b.R = ParamRange(0, 100, AxisScale::log);
    CHECK(field_of([&] { b.validate(); }) == "box.R.scale");
    b = ParamBox{};
    b.sigma = ParamRange(0, 1);
    CHECK(field_of([&] { b.validate(); }) == "box.sigma");
    b = ParamBox{};
    CHECK(field_of([&] { apply_scales(b, "theta=linear,R=log"); }).empty());
    CHECK(b.theta.scale == AxisScale::linear);
    CHECK(b.R.scale == AxisScale::log);
    CHECK(field_of([&] { apply_scales(b, "gamma=log"); }) == "box.scale");
    CHECK(field_of([&] { apply_scales(b, "cubic"); }) == "box.scale");
}

TEST_CASE("check params: validation names nested fields, the exact field's limit, and the grid cap") {
    CheckParams p;
    CHECK(field_of([&] { p.validate(); }).empty());
    p.grid = 1;
    CHECK(field_of([&] { p.validate(); }) == "grid");
    p = CheckParams{};
    p.certify.tol = 0;
    CHECK(field_of([&] { p.validate(); }) == "certify.tol");
    p = CheckParams{};
    p.certify.table.exact.rel_tol = 1;
    CHECK(field_of([&] { p.validate(); }) == "certify.table.exact.rel_tol");
    p = CheckParams{};
    p.box.beta = ParamRange(1, 20);  // beta * sigma reaches 20 > 12
    CHECK(field_of([&] { p.validate(); }) == "box.beta");
    p.certify.field = FieldMethod::meanfield;  // the mean-field limit has no such limit
    CHECK(field_of([&] { p.validate(); }).empty());
    p = CheckParams{};
    p.box.theta = ParamRange(0.1, 1);
    p.box.beta = ParamRange(0.5, 2);
    p.box.sigma = ParamRange(0.5, 1);
    p.grid = 100;
    p.max_points = 10000;  // 100^3 points
    CHECK(field_of([&] { p.validate(); }) == "grid");
    p = CheckParams{};
    p.certify.min_points = 12;  // not 2^k + 1
    CHECK(field_of([&] { p.validate(); }) == "certify.min_points");
}

TEST_CASE("check JSON hooks round-trip the params") {
    CheckParams p;
    p.claim = parse_claim("hitting-time<=7.5");
    p.box.theta = ParamRange(0.25, 4, AxisScale::linear);
    p.box.R = ParamRange(50, 500);
    p.noise = NoiseConvention::per_norm;
    p.grid = 17;
    p.refine = 3;
    p.max_points = 1234;
    p.threads = 2;
    p.certify.tol = 1e-6;
    p.certify.rho0 = -0.3;
    p.certify.hit_eps = 0.02;
    p.certify.field = FieldMethod::meanfield;
    p.certify.table.max_points = 257;
    p.certify.table.exact.rel_tol = 1e-11;
    const nlohmann::json j = p;
    const CheckParams q = j.get<CheckParams>();
    CHECK(nlohmann::json(q) == j);
    CHECK(q.claim.t_max == 7.5);
    CHECK(q.box.theta.scale == AxisScale::linear);
    CHECK(q.noise == NoiseConvention::per_norm);
    CHECK(q.certify.table.exact.rel_tol == 1e-11);
    CHECK(q.certify.field == FieldMethod::meanfield);
}
