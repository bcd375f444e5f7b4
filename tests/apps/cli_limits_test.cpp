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
