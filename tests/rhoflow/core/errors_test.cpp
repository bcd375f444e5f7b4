// InvalidArgument's field path: within() and validate_member() prefix the member's name, so a
// field nested anywhere is named by its full path; the message stays the one thrown.
#include "rhoflow/core/errors.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "rhoflow/compare/compare.hpp"
#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/stochastic/ensemble.hpp"
#include "test_util.hpp"

using namespace rhoflow;

TEST_CASE("errors: within() prefixes the member to the field path and keeps the message") {
    const InvalidArgument e("eta0", "eta0 = 0 is out of range (accepted: 0 < eta0)");
    const InvalidArgument w = e.within("schedule");
    CHECK(w.field() == "schedule.eta0");
    CHECK(std::string(w.what()) == "eta0 = 0 is out of range (accepted: 0 < eta0)");
    CHECK(w.within("sga").field() == "sga.schedule.eta0");
    CHECK(e.field() == "eta0");  // the original is unchanged
}

TEST_CASE("errors: validate_member prefixes nested members, passes other exceptions through") {
    auto inner = [] { throw InvalidArgument("k0", "k0 = -1 is out of range"); };
    try {
        validate_member("sga", [&] { validate_member("schedule", inner); });
        FAIL("no exception");
    } catch (const InvalidArgument& e) {
        CHECK(e.field() == "sga.schedule.k0");
        CHECK(std::string(e.what()) == "k0 = -1 is out of range");
    }
    // Not an InvalidArgument: unchanged, not converted.
    CHECK_THROWS_AS(validate_member("sga", [] { throw NumericalError("diverged"); }), NumericalError);
    try {
        validate_member("sga", [] { throw std::runtime_error("io"); });
    } catch (const InvalidArgument&) {
        FAIL("converted to InvalidArgument");
    } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()) == "io");
    }
    int calls = 0;
    validate_member("x", [&] { ++calls; });
    CHECK(calls == 1);
}

TEST_CASE("errors: the real params structs name the full path of a nested field") {
    SgaParams s;
    s.schedule.eta0 = 0;
    CHECK(test::invalid_param([&] { s.validate(); }) == "schedule.eta0");
    SgaJob job;
    job.sga.schedule.gamma = 2;
    CHECK(test::invalid_param([&] { job.validate(); }) == "sga.schedule.gamma");
    job = {};
    job.model.R = job.model.L + 1;
    CHECK(test::invalid_param([&] { job.validate(); }) == "model.R");
    CompareJob c;
    c.compare.sga.schedule.k0 = -1;
    CHECK(test::invalid_param([&] { c.validate(); }) == "sga.schedule.k0");
    OdeJob o;
    o.table.exact.rel_tol = 0;
    CHECK(test::invalid_param([&] { o.validate(); }) == "table.exact.rel_tol");
    FieldJob f;
    f.montecarlo.samples = 1;
    CHECK(test::invalid_param([&] { f.validate(); }) == "montecarlo.samples");
}

TEST_CASE("errors: require and require_in write 'name = value is out of range (accepted: range)'") {
    try {
        require(false, "R", 600, "0 <= R <= L = 500");
        FAIL("no exception");
    } catch (const InvalidArgument& e) {
        CHECK(e.field() == "R");
        CHECK(std::string(e.what()) == "R = 600 is out of range (accepted: 0 <= R <= L = 500)");
    }
    CHECK_NOTHROW(require(true, "R", 600, "anything"));
    CHECK_NOTHROW(require_in("x", 1.0, 1.0, 2.0));
    CHECK_NOTHROW(require_in("x", 2.0, 1.0, 2.0));
    CHECK(test::invalid_param([] { require_in("x", std::nan(""), 1.0, 2.0); }) == "x");
    CHECK(test::invalid_param([] { require_in("x", INFINITY, 1.0, INFINITY); }) == "x");
    CHECK(test::invalid_param([] { require_in("x", 0.5, 1.0, 2.0); }) == "x");
    CHECK(format_number(0.1) == "0.1");
    CHECK(format_number(-INFINITY) == "-inf");
    CHECK(format_number(std::nan("")) == "nan");
    CHECK(std::stod(format_number(0.30000000000000004)) == 0.30000000000000004);
    CHECK_THROWS_AS(require_finite_result(INFINITY, "j"), NumericalError);
    CHECK(require_finite_result(2.5, "j") == 2.5);
}
