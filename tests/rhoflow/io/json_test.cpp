// ensure_finite: the JSON path of the first NaN or infinity, at any depth; finite documents pass.
#include "rhoflow/io/json.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "rhoflow/core/errors.hpp"

using namespace rhoflow;
using nlohmann::json;

namespace {
// The message of the NumericalError ensure_finite throws, or "" if none.
std::string finite_error(const json& doc) {
    try {
        ensure_finite(doc);
    } catch (const NumericalError& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST_CASE("json: ensure_finite names the path of a non-finite number in nested objects and arrays") {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    json doc = {{"model", {{"d", 50}, {"theta", 1.0}}},
                {"points", json::array({json{{"j", 1.5}}, json{{"j", 2.5}, {"dj", nan}}})}};
    CHECK(finite_error(doc) == ".points[1].dj is not finite (nan)");
    doc["points"][1]["dj"] = -inf;
    CHECK(finite_error(doc) == ".points[1].dj is not finite (-inf)");
    // Arrays of arrays, and a top-level value.
    CHECK(finite_error(json{{"t", json::array({json::array({1.0, 2.0}), json::array({3.0, inf})})}}) ==
          ".t[1][1] is not finite (inf)");
    CHECK(finite_error(json(nan)) == "value is not finite (nan)");
    CHECK(finite_error(json::array({0.0, inf})) == "[1] is not finite (inf)");
    // The first in document order (nlohmann orders object keys): "a" before "z", [0] before [1].
    CHECK(finite_error(json{{"z", inf}, {"a", json::array({0.0, nan, inf})}}) == ".a[1] is not finite (nan)");
    // A given path prefix is used.
    try {
        ensure_finite(json{{"x", nan}}, "doc");
        FAIL("no exception");
    } catch (const NumericalError& e) {
        CHECK(std::string(e.what()) == "doc.x is not finite (nan)");
    }
}

TEST_CASE("json: ensure_finite accepts finite documents of every type") {
    const json doc = {{"program", "rhoflow"},
                      {"n", 18446744073709551615ull},
                      {"m", -9007199254740993ll},
                      {"x", std::numeric_limits<double>::max()},
                      {"tiny", std::numeric_limits<double>::denorm_min()},
                      {"neg", -0.0},
                      {"ok", true},
                      {"none", nullptr},
                      {"text", "nan"},
                      {"empty", json::object()},
                      {"list", json::array({1, 2.5, json::array(), json{{"deep", {{"deeper", 1e-300}}}}})}};
    CHECK(finite_error(doc).empty());
    CHECK(finite_error(json::array()).empty());
}

TEST_CASE("json: provenance names program, version and command") {
    const json p = provenance("ode");
    CHECK(p["program"] == "rhoflow");
    CHECK(p["command"] == "ode");
    CHECK(p["version"].is_string());
    CHECK_FALSE(p["version"].get<std::string>().empty());
}
