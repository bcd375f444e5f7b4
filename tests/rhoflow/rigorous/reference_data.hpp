// The enclosure tests' reference data (tests/data: how each file was produced is in its comments)
// and the interval checks on them, shared by the fast and the independent enclosure's tests.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "rhoflow/core/number_text.hpp"
#include "rhoflow/rigorous/enclosure.hpp"

namespace rhoflow::test {

/// The rows of tests/data/NAME (CSV: a header line, '#' comment lines skipped), as text fields.
inline std::vector<std::vector<std::string>> read_csv(const std::string& name) {
    std::ifstream in(std::string(RHOFLOW_TEST_DATA_DIR) + "/" + name);
    REQUIRE(in);
    std::vector<std::vector<std::string>> rows;
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;  // comments say how the file was produced
        if (std::exchange(header, false)) continue;
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string x;
        while (std::getline(ss, x, ',')) f.push_back(x);
        rows.push_back(f);
    }
    return rows;
}

/// The decimal text v (30 digits) lies in e: comparing the text rounded both ways would need a
/// decimal library; instead e is widened by one ulp of the double nearest to v, which the
/// 30-digit value cannot reach.
inline bool contains_text(Interval e, const std::string& v) {
    const auto x = parse_number(v);
    REQUIRE(x);
    return e.lo <= std::nextafter(*x, INFINITY) && std::nextafter(*x, -INFINITY) <= e.hi;
}

/// Whether the intervals a and b intersect.
inline bool meets(Interval a, Interval b) { return a.lo <= b.hi && b.lo <= a.hi; }

}  // namespace rhoflow::test
