// The output of a check (io/check_output.hpp): the document's contract keys, the table and the figures.
#include "rhoflow/io/check_output.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "rhoflow/check/check.hpp"

using namespace rhoflow;

TEST_CASE("check output: the document's contract keys, one table row and one figure per point set") {
    CheckParams p;
    p.claim = parse_claim("attractors=1");
    p.box.d = ParamRange(50);
    p.box.L = ParamRange(50);
    p.box.R = ParamRange(25);
    p.box.theta = ParamRange(0.3, 2);
    p.grid = 3;
    p.refine = 1;
    const CheckResult r = run_check(p);
    const nlohmann::json doc = check_document(p, r, make_provenance("check"));
    for (const char* key : {"claim", "verdict", "witness", "points", "min_margin", "counts", "box", "grid", "params",
                            "version"})
        CHECK(doc.contains(key));
    CHECK(doc["claim"] == "attractors=1");
    CHECK(doc["points"].size() == r.points.size());
    for (const char* key : {"d", "L", "R", "theta", "sigma", "beta", "verdict", "margin", "error"})
        CHECK(doc["points"][0].contains(key));
    const Table t = check_table(p, r);
    CHECK(t.rows.size() == r.points.size());
    const CheckFigures f = check_figures(p, r);
    CHECK(f.figures.size() == 1);
    CHECK(f.skipped.empty());
}
