// rhoflow prove (lib/rhoflow/prove/prove.hpp, verify.hpp; docs/theory.md section 11):
// monotone proved where it holds, the known counterexamples disproved rigorously, the default
// model's two attractors proved, a too-small depth limit gives `not proved` (never a wrong
// verdict), certificates are the same bytes whatever the thread count, and the checker rejects a
// tampered certificate (endpoint moved, cell dropped, claim changed, parameter cell dropped).
#include <doctest/doctest.h>

#include <functional>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rhoflow/check/check.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/io/prove_output.hpp"
#include "rhoflow/prove/prove.hpp"
#include "rhoflow/prove/verify.hpp"
#include "rhoflow/rigorous/independent_enclosure.hpp"

using namespace rhoflow;

namespace {

// The checker with the prover's own enclosure (--verify-fast): these cases are about the schema,
// roles, tilings and covers, not the recomputation method (the independent one: its own case).
VerifyReport verify_fast(const nlohmann::json& cert) {
    return verify_certificate(cert, 0, Execution::local, VerifyMethod::fast);
}

ProveParams params(const std::string& claim, double d, double L, double R, ParamRange theta = ParamRange(1.0)) {
    ProveParams p;
    p.claim = parse_claim(claim);
    p.box.d = ParamRange(d);
    p.box.L = ParamRange(L);
    p.box.R = ParamRange(R);
    p.box.theta = theta;
    p.rigorous.rel_tol = 1e-7;  // cell widths, not truncations, limit the decisions
    return p;
}

bool has_error(const VerifyReport& r, const std::string& what) {
    for (const auto& e : r.errors)
        if (e.find(what) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("prove: monotone is proved where j' > 0 on [-1, 1] (d=5, L=100, R=50) and the certificate checks") {
    const ProveParams p = params("monotone", 5, 100, 50);
    const ProveResult r = run_prove(p);
    REQUIRE(r.verdict == ProofVerdict::proved);
    // the cells tile [-1, 1] and each has a certified positive j'
    REQUIRE(!r.cells.empty());
    CHECK(r.cells.front().enc.rho.lo == -1.0);
    CHECK(r.cells.back().enc.rho.hi == 1.0);
    for (const auto& c : r.cells) CHECK(c.enc.dj.lo > 0);
    const VerifyReport v = verify_fast(certificate(p, r));
    CHECK(v.valid);
    CHECK(v.verdict == ProofVerdict::proved);
}

TEST_CASE("prove: the checker's default, the independent enclosure, confirms a certificate the fast one confirms") {
    // 4 cells (about 45 s on one core: the independent method is slow, docs/theory.md 11.7).
    ProveParams p = params("positive-drift", 10, 20, 10, ParamRange(0.5));
    p.box.beta = ParamRange(0.5);
    p.initial_cells = 2;
    const ProveResult r = run_prove(p);
    REQUIRE(r.verdict == ProofVerdict::proved);
    REQUIRE(r.cells.size() <= 6);
    const nlohmann::json cert = certificate(p, r);
    CHECK(verify_fast(cert).valid);
    const VerifyReport v = verify_certificate(cert);  // VerifyMethod::independent
    CHECK(v.valid);
    CHECK(v.verdict == ProofVerdict::proved);
    CHECK(v.cells == r.cells.size());
}

TEST_CASE("prove: monotone is disproved for d = L = 50, R = 25, theta = 1 with a rigorous counterexample near -1") {
    const ProveParams p = params("monotone", 50, 50, 25);
    const ProveResult r = run_prove(p);
    REQUIRE(r.verdict == ProofVerdict::disproved);
    REQUIRE(r.counterexample.has_value());
    CHECK(r.counterexample->enc.dj.hi < 0);
    CHECK(r.counterexample->enc.rho.lo == -1.0);  // j'(-1) < 0 (theory.md section 3)
    CHECK(r.counterexample->model.L == 50);
    const VerifyReport v = verify_fast(certificate(p, r));
    CHECK(v.valid);
    CHECK(v.verdict == ProofVerdict::disproved);
}

TEST_CASE("prove: the default model has exactly two attractors (proved) and is not monotone (disproved)") {
    ProveParams p = params("attractors=2", 50, 1000, 100);
    const ProveResult r = run_prove(p);
    REQUIRE(r.verdict == ProofVerdict::proved);
    REQUIRE(r.param_cells.size() == 1);
    CHECK(r.param_cells[0].attractors == 2);
    // the repeller near rho = -0.9928 sits in a monotone run of cells inside [-0.9935, -0.992]
    bool seen = false;
    for (const auto& c : r.cells)
        if ((c.role == "d2j>0") && c.enc.rho.lo > -0.9975 && c.enc.rho.hi < -0.985) seen = true;
    CHECK(seen);
    // the count is exact, so the same cells disprove attractors=1
    CHECK(decide_cells(parse_claim("attractors=1"), r.cells, p.rho0, p.hit_eps).verdict == ProofVerdict::disproved);
    // the recorded count is re-derived by the checker
    nlohmann::json cert = certificate(p, r);
    cert["param_cells"][0]["attractors"] = 3;
    CHECK(has_error(verify_fast(cert), "param_cells[0].attractors"));

    const ProveParams m = params("monotone", 50, 1000, 100);
    const ProveResult rm = run_prove(m);
    REQUIRE(rm.verdict == ProofVerdict::disproved);
    REQUIRE(rm.counterexample.has_value());
    CHECK(rm.counterexample->enc.rho.hi < -0.9928);
}

TEST_CASE("prove: a too-small depth limit gives not proved, with the undecided cells, never a verdict") {
    ProveParams p = params("attractors=2", 50, 1000, 100);
    p.max_depth = 2;
    const ProveResult r = run_prove(p);
    CHECK(r.verdict == ProofVerdict::not_proved);
    REQUIRE(!r.undecided.empty());
    // the parameter cell's whole last tiling of [-1, 1], which its cells do not decide
    CHECK(decide_cells(p.claim, r.undecided, p.rho0, p.hit_eps).verdict == ProofVerdict::not_proved);
    CHECK(r.undecided.front().enc.rho.lo == -1.0);
    CHECK(r.undecided.back().enc.rho.hi == 1.0);
    CHECK(verify_fast(certificate(p, r)).valid);
    // the budget cap behaves alike
    p.max_depth = 16;
    p.max_cells = 10;
    CHECK(run_prove(p).verdict == ProofVerdict::not_proved);
}

TEST_CASE("prove: over a theta interval every point is covered and the certificate does not depend on threads") {
    // Computed once: doctest re-runs the body for every SUBCASE.
    struct Runs {
        ProveParams p;
        ProveResult r1, r2;
    };
    static const Runs runs = [] {
        Runs x{params("positive-drift", 5, 100, 50, ParamRange(0.98, 1.0)), {}, {}};
        x.p.initial_cells = 4;
        x.p.max_box_depth = 2;
        x.p.max_depth = 6;
        x.p.threads = 2;
        x.r2 = run_prove(x.p);
        x.p.threads = 1;
        x.r1 = run_prove(x.p);
        return x;
    }();
    const ProveParams& p = runs.p;
    const ProveResult& r1 = runs.r1;
    REQUIRE(r1.verdict == ProofVerdict::proved);
    CHECK(certificate(p, r1).dump() == certificate(p, runs.r2).dump());
    // the parameter cells' theta intervals tile [0.98, 1]
    double lo = 0.98;
    for (const auto& pc : r1.param_cells) {
        CHECK(pc.model.theta.lo == lo);
        lo = pc.model.theta.hi;
    }
    CHECK(lo == 1.0);

    static const nlohmann::json cert = certificate(p, r1);
    static const bool ok = verify_fast(cert).valid;
    REQUIRE(ok);

    SUBCASE("an endpoint moved inwards") {
        nlohmann::json t = cert;
        t["cells"][0]["enc"]["dj"]["hi"] = t["cells"][0]["enc"]["dj"]["hi"].get<double>() - 1e-9;
        const VerifyReport v = verify_fast(t);
        CHECK(!v.valid);
        CHECK(has_error(v, "cells[0].enc.dj"));
    }
    SUBCASE("an endpoint moved to fake a sign") {
        nlohmann::json t = cert;
        t["cells"][0]["enc"]["dj"]["lo"] = -1.0;
        const VerifyReport v = verify_fast(t);
        CHECK(!v.valid);
        CHECK(has_error(v, "cells[0].role"));
    }
    SUBCASE("a rho cell dropped") {
        nlohmann::json t = cert;
        t["cells"].erase(0);
        const VerifyReport v = verify_fast(t);
        CHECK(!v.valid);
        CHECK(has_error(v, "do not tile"));
    }
    SUBCASE("a parameter cell dropped (all its rho cells)") {
        nlohmann::json t = cert;
        const nlohmann::json model0 = t["cells"][0]["model"];
        nlohmann::json kept = nlohmann::json::array();
        for (const auto& c : t["cells"])
            if (c["model"] != model0) kept.push_back(c);
        t["cells"] = kept;
        const VerifyReport v = verify_fast(t);
        CHECK(!v.valid);
        CHECK(has_error(v, "not covered"));
    }
    SUBCASE("a parameter cell's recorded verdict changed, or its entry dropped") {
        nlohmann::json t = cert;
        t["param_cells"][0]["verdict"] = "disproved";
        CHECK(has_error(verify_fast(t), "param_cells[0].verdict"));
        t = cert;
        t["param_cells"].erase(0);
        CHECK(has_error(verify_fast(t), "decided entries (must be 1)"));
    }
    SUBCASE("the claim changed") {
        nlohmann::json t = cert;
        t["params"]["claim"] = "monotone";  // needs [-1, 1], the cells cover [0, 1]
        const VerifyReport v = verify_fast(t);
        CHECK(!v.valid);
    }
    SUBCASE("the box widened") {
        nlohmann::json t = cert;
        t["params"]["box"]["theta"]["hi"] = 1.01;
        CHECK(!verify_fast(t).valid);
    }
    SUBCASE("malformed fields are named") {
        nlohmann::json t = cert;
        t["cells"][1]["enc"]["j"]["lo"] = "0.5";
        CHECK(has_error(verify_fast(t), "cells[1].enc.j.lo"));
        t = cert;
        t["extra"] = 1;
        CHECK(has_error(verify_fast(t), "extra: unknown key"));
        t = cert;
        t["verdict"] = "true";
        CHECK(!verify_fast(t).valid);
        t = cert;
        t["rhoflow_commit"] = 42;
        CHECK(has_error(verify_fast(t), "rhoflow_commit: must be a string"));
        t = cert;
        t.erase("rhoflow_commit");
        CHECK(has_error(verify_fast(t), "rhoflow_commit: missing"));
    }
    SUBCASE("an E[A_I] enclosure edited (issue 30, H17)") {
        nlohmann::json t = cert;
        t["cells"][0]["enc"]["mass"] = {{"lo", 5.0}, {"hi", 6.0}};
        CHECK(has_error(verify_fast(t), "cells[0].enc.mass: does not contain the recomputed enclosure"));
    }
    SUBCASE("wrong types and unknown keys in the proof-carrying parts are named (issue 30, H10)") {
        const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> edits = {
            {[](nlohmann::json& t) { t["undecided"] = 5; }, "undecided: must be an array"},
            {[](nlohmann::json& t) { t["undecided"] = {{{"a", "b"}}}; }, "undecided[0].a: unknown key"},
            {[](nlohmann::json& t) { t["cells"][0]["enc"]["budget"] = "x"; }, "cells[0].enc.budget: must be an object"},
            {[](nlohmann::json& t) { t["cells"][1]["enc"]["precision"] = "many"; }, "cells[1].enc.precision: must be an integer"},
            {[](nlohmann::json& t) { t["cells"][1]["enc"]["budget"]["outer_nodes"] = 2.5; },
             "cells[1].enc.budget.outer_nodes: must be an integer"},
            {[](nlohmann::json& t) { t["params"]["seed"] = 1; }, "params.seed: unknown key"},
            {[](nlohmann::json& t) { t["params"]["max_cells"] = 2.5; }, "params.max_cells: must be an integer"},
            {[](nlohmann::json& t) { t["params"]["box"]["theta"]["step"] = 1; }, "params.box.theta.step: unknown key"},
            {[](nlohmann::json& t) { t["params"]["rigorous"]["precision"] = "128"; }, "params.rigorous.precision: must be an integer"},
            {[](nlohmann::json& t) { t["param_cells"][0]["extra"] = true; }, "param_cells[0].extra: unknown key"},
            {[](nlohmann::json& t) { t["param_cells"][0]["attractors"] = "none"; }, "param_cells[0].attractors: must be an integer"},
        };
        for (const auto& [edit, error] : edits) {
            CAPTURE(error);
            nlohmann::json t = cert;
            edit(t);
            CHECK(has_error(verify_fast(t), error));
        }
    }
    SUBCASE("a box of more integer combinations than int64 holds is refused, not enumerated (issue 30, H3)") {
        nlohmann::json t = cert;
        t["params"]["box"]["d"] = {{"lo", 2}, {"hi", 536870913}, {"scale", "auto"}};
        t["params"]["box"]["L"] = {{"lo", 100}, {"hi", 34359738467}, {"scale", "auto"}};
        CHECK(has_error(verify_fast(t), "536870912 x 34359738368 x 1 = about 1.84e+19 integer combinations, more than 4096"));
    }
    SUBCASE("the certificate records the commit rhoflow was configured from") {
        const std::string c = build_commit();
        CHECK(cert["rhoflow_commit"] == c);
        const bool hex = c.size() >= 7 && c.find_first_not_of("0123456789abcdef") == std::string::npos;
        CHECK((hex || c == "unknown"));
    }
}

TEST_CASE("prove: a half of a parameter cell keeps its parent's decided initial cells, and the checker accepts them") {
    // monotone over theta in [0.9, 1] (d = 5, L = 100, R = 50) needs its theta cell split. A
    // half inherits its parent's decided cells of the initial width with their enclosures (the
    // parent's, wider than its own): fewer enclosures, the same tiling, and a certificate whose
    // every cell the checker recomputes on the half inside the recorded enclosure.
    const ProveParams p = params("monotone", 5, 100, 50, ParamRange(0.9, 1.0));
    const ProveResult r = run_prove(p);
    REQUIRE(r.verdict == ProofVerdict::proved);
    REQUIRE(r.param_cells.size() >= 2);
    CHECK(r.diagnostics.enclosures == 400);  // 414 when every half started afresh (4 theta cells, 116 rho cells either way)
    CHECK(r.cells.size() == 116);
    int inherited = 0, checked = 0;
    for (const ProofCell& c : r.cells) {
        const FieldEnclosure own = enclose_field(c.model, c.enc.rho, p.rigorous);
        if (own.dj.lo == c.enc.dj.lo && own.dj.hi == c.enc.dj.hi) continue;  // computed on this cell
        ++inherited;
        CHECK(c.enc.rho.width() == doctest::Approx(0.125));  // only initial cells (16 on [-1, 1]) are inherited
        CHECK(c.enc.dj.lo <= own.dj.lo);                     // and their enclosure holds the half's own
        CHECK(own.dj.hi <= c.enc.dj.hi);
        if (checked++ < 1) {  // the independent checker's recomputation fits in it
            const FieldEnclosure ind = enclose_field_independent_within(c.model, c.enc.rho, p.rigorous, c.enc);
            CHECK(c.enc.dj.lo <= ind.dj.lo);
            CHECK(ind.dj.hi <= c.enc.dj.hi);
        }
    }
    CHECK(inherited > 0);
    const nlohmann::json cert = certificate(p, r);
    CHECK(verify_fast(cert).valid);
}

TEST_CASE("prove: a box whose claim fails at an end is disproved at a witness corner, in a few dozen enclosures") {
    // The default model (d=50, L=1000, R=100) is monotone up to theta* ~ 0.99225, where j'(-1)
    // changes sign (an independent 40-digit evaluation gives a margin of +3.7e-6 at 0.9922): the
    // box theta in [0.9, 1] fails at its upper end. Searched cell by cell it ran for over 300 s
    // without a verdict; its corner theta = 1 disproves it at once.
    ProveParams p = params("monotone", 50, 1000, 100, ParamRange(0.9, 1.0));
    const ProveResult r = run_prove(p);
    REQUIRE(r.verdict == ProofVerdict::disproved);
    REQUIRE(r.param_cells.size() == 1);  // the witness alone
    const ModelCell& w = r.param_cells[0].model;
    CHECK(w.theta.lo == 1.0);
    CHECK(w.theta.hi == 1.0);
    REQUIRE(r.counterexample.has_value());
    CHECK(r.counterexample->enc.dj.hi < 0);
    CHECK(r.counterexample->enc.rho.lo == -1.0);  // the sign of j'(-1)
    CHECK(r.diagnostics.enclosures < 200);
    const nlohmann::json cert = certificate(p, r);
    const VerifyReport v = verify_fast(cert);
    CHECK(v.valid);
    CHECK(v.verdict == ProofVerdict::disproved);
    // A witness outside the box proves nothing about it: the same cells against theta in [0.9, 0.99].
    nlohmann::json t = cert;
    t["params"]["box"]["theta"]["hi"] = 0.99;
    const VerifyReport bad = verify_fast(t);
    CHECK_FALSE(bad.valid);
    CHECK(has_error(bad, "model: outside params.box"));
    // Below theta*, no corner is a witness and the box is proved (p's box narrowed to [0.9, 0.95]).
    p.box.theta = ParamRange(0.9, 0.95);
    p.max_box_depth = 0;
    p.max_cells = 400;
    const ProveResult below = run_prove(p);
    CHECK(below.verdict != ProofVerdict::disproved);
}

TEST_CASE("prove: filtering<=EPS brackets the noise mass at the attractors, and the checker follows it") {
    // d=50, L=1000, R=100, theta=0.9: -1 repels (the field is monotone below theta* ~ 0.99225)
    // and the exact field's estimate (the field job, an independent quadrature) of the noise mass
    // at rho = 1 is 1 - E[A_I](1) = 0.785730 +- 3e-15: EPS = 0.786 is proved, 0.785 disproved.
    FieldJob f;
    f.model.theta = 0.9;
    f.rho = {1.0};
    const double noise = 1 - run(f).points.at(0).mass_informative;
    REQUIRE(noise > 0.785);
    REQUIRE(noise < 0.786);
    ProveParams p = params("filtering<=0.786", 50, 1000, 100, ParamRange(0.9));
    const ProveResult held = run_prove(p);
    REQUIRE(held.verdict == ProofVerdict::proved);
    CHECK(held.cells.back().enc.mass.lo <= 1 - noise);  // the end cell's enclosure holds the estimate
    CHECK(1 - noise <= held.cells.back().enc.mass.hi);
    CHECK(held.cells.front().role == "dj>0");            // -1 repels: its noise mass (0.957) does not count
    const nlohmann::json cert = certificate(p, held);
    CHECK(verify_fast(cert).valid);
    // The same cells do not prove a smaller EPS: the checker re-decides, it does not trust the verdict.
    nlohmann::json t = cert;
    t["params"]["claim"] = "filtering<=0.785";
    const VerifyReport edited = verify_fast(t);
    CHECK_FALSE(edited.valid);
    CHECK(has_error(edited, "does not prove the claim"));

    p.claim = parse_claim("filtering<=0.785");
    const ProveResult failed = run_prove(p);
    REQUIRE(failed.verdict == ProofVerdict::disproved);
    CHECK(1 - failed.cells.back().enc.mass.hi > 0.785);
    CHECK(verify_fast(certificate(p, failed)).valid);

    // At theta = 1, -1 attracts (a basin [-1, -0.9928)) with a noise mass of 0.96 there: disproved
    // for EPS = 0.78 although rho = 1's is 0.7685.
    p = params("filtering<=0.78", 50, 1000, 100);
    const ProveResult minus = run_prove(p);
    REQUIRE(minus.verdict == ProofVerdict::disproved);
    CHECK(minus.param_cells.at(0).note.find("-1 attracts") != std::string::npos);
    CHECK(minus.cells.front().role == "dj<0");
    // check decides filtering (monotone noise mass), not filtering<=EPS: it says who does.
    CheckParams c;
    c.claim = parse_claim("filtering<=0.78");
    CHECK_THROWS_WITH(c.validate(), doctest::Contains("decided by rhoflow prove"));
    CHECK(to_string(parse_claim("filtering<=0.78")) == "filtering<=0.78");
    CHECK_THROWS_WITH(parse_claim("filtering<=1.5"), doctest::Contains("0 <= EPS <= 1"));
}

TEST_CASE("prove: recovery holds where every interior equilibrium repels, and fails at an interior attractor") {
    // The default model has a repeller near -0.9928 between its two attractors +-1 (docs/verification.md).
    const ProveParams p = params("recovery", 50, 1000, 100);
    const ProveResult r = run_prove(p);
    REQUIRE(r.verdict == ProofVerdict::proved);
    CHECK(r.param_cells.at(0).attractors == 2);
    const nlohmann::json cert = certificate(p, r);
    CHECK(verify_fast(cert).valid);
    nlohmann::json t = cert;  // the count the certificate states is the cells' count
    t["param_cells"][0]["attractors"] = 1;
    CHECK(has_error(verify_fast(t), "param_cells[0]"));
    // The decision itself on hand-made cells tiling [-1, 1] (roles as enclosures would give them):
    // + | j'' < 0 | - : a zero of j' where j'' < 0, an attractor inside; - | j'' > 0 | + : a repeller.
    auto tiling = [](std::vector<std::string> roles) {
        std::vector<ProofCell> cells;
        for (std::size_t i = 0; i < roles.size(); ++i) {
            ProofCell c;
            c.enc.rho = {-1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(roles.size()),
                         i + 1 == roles.size() ? 1.0 : -1.0 + 2.0 * static_cast<double>(i + 1) / static_cast<double>(roles.size())};
            c.role = roles[i];
            cells.push_back(c);
        }
        return cells;
    };
    const Claim recovery = parse_claim("recovery");
    const CellsDecision inside = decide_cells(recovery, tiling({"dj>0", "d2j<0", "dj<0", "d2j>0", "dj>0"}), 0.05, 1e-3);
    CHECK(inside.verdict == ProofVerdict::disproved);
    CHECK(inside.attractors == 2);  // the interior one and +1 (-1 repels: j'(-1) > 0)
    CHECK(inside.note.find("1 attractor(s) in (-1, 1)") != std::string::npos);
    const CellsDecision repeller = decide_cells(recovery, tiling({"dj<0", "d2j>0", "dj>0"}), 0.05, 1e-3);
    CHECK(repeller.verdict == ProofVerdict::proved);
    CHECK(repeller.attractors == 2);
    // At theta*, where the repeller meets -1, j'(-1) has no sign on any cell over a theta box
    // containing it; j'' > 0 on the end run is enough: j' increases there, so a zero repels.
    const CellsDecision open_end = decide_cells(recovery, tiling({"d2j>0", "dj>0"}), 0.05, 1e-3);
    CHECK(open_end.verdict == ProofVerdict::proved);
    CHECK(open_end.attractors == -1);
    CHECK(open_end.note.find("not decided") != std::string::npos);
    // j'' < 0 at an end is not enough (j' decreasing from an unknown sign may cross 0 downwards,
    // an attractor), and attractors=N still needs both end signs.
    CHECK(decide_cells(recovery, tiling({"d2j<0", "dj<0"}), 0.05, 1e-3).verdict == ProofVerdict::not_proved);
    CHECK(decide_cells(recovery, tiling({"dj>0", "d2j>0", "dj<0"}), 0.05, 1e-3).verdict == ProofVerdict::not_proved);
    CHECK(decide_cells(parse_claim("attractors=1"), tiling({"d2j>0", "dj>0"}), 0.05, 1e-3).verdict ==
          ProofVerdict::not_proved);
    CheckParams c;
    c.claim = recovery;
    CHECK_THROWS_WITH(c.validate(), doctest::Contains("decided by rhoflow prove"));
}

TEST_CASE("prove: recovery over a theta box across theta*, where -1 changes from repeller to attractor") {
    // d = 50, L = 100, R = 10: theta* in [0.5620804, 0.5620880] (docs/verification.md section 11).
    // Over [0.56, 0.565] no cell can give j'(-1) a sign; j'' > 0 at -1 proves recovery for every
    // theta of the box (before this rule, 20000 enclosures left 9 of 11 theta cells not proved).
    const ProveParams p = params("recovery", 50, 100, 10, ParamRange(0.56, 0.565));
    const ProveResult r = run_prove(p);
    REQUIRE(r.verdict == ProofVerdict::proved);
    CHECK(r.diagnostics.enclosures < 1000);
    CHECK(r.param_cells.back().attractors == -1);
    CHECK(r.cells.front().role == "d2j>0");
    const nlohmann::json cert = certificate(p, r);
    CHECK(verify_fast(cert).valid);
    // A count the cells do not give, or a first cell that says j'' < 0 (j' decreasing from an
    // unknown sign: an attractor may sit inside it), is rejected.
    nlohmann::json t = cert;
    t["param_cells"].back()["attractors"] = 2;
    CHECK(has_error(verify_fast(t), "attractors"));
    t = cert;
    t["cells"][0]["role"] = "d2j<0";
    CHECK_FALSE(verify_fast(t).valid);
    // At a single theta away from theta* the end's sign is settled and the count given.
    const ProveResult above = run_prove(params("recovery", 50, 100, 10, ParamRange(0.6)));
    REQUIRE(above.verdict == ProofVerdict::proved);
    CHECK(above.param_cells.at(0).attractors == 2);
}

TEST_CASE("prove: bad parameters are refused naming the field") {
    ProveParams p = params("filtering", 5, 100, 50);
    CHECK_THROWS_WITH_AS(run_prove(p), doctest::Contains("filtering"), InvalidArgument);
    p = params("monotone", 5, 100, 50);
    p.box.sigma = ParamRange(1.0, 10.0);
    CHECK_THROWS_WITH_AS(p.validate(), doctest::Contains("beta*sigma"), InvalidArgument);
    p = params("monotone", 5, 100, 50);
    p.max_depth = 41;
    CHECK_THROWS_WITH_AS(p.validate(), doctest::Contains("max_depth"), InvalidArgument);
    p = params("hitting-time<=5", 5, 100, 50);
    p.rho0 = 0.9995;
    CHECK_THROWS_WITH_AS(p.validate(), doctest::Contains("rho0"), InvalidArgument);
}

TEST_CASE("prove: hitting-time is bracketed by the enclosures and decides both ways") {
    ProveParams p = params("hitting-time<=100", 5, 100, 50);
    p.hit_eps = 0.01;
    const ProveResult r = run_prove(p);
    REQUIRE(r.verdict == ProofVerdict::proved);
    const Interval T = r.param_cells.at(0).hitting_time;
    CHECK(T.lo > 0);
    CHECK(T.hi <= 100);
    // The bracket a reader cites is re-derived by the checker: a changed one is rejected.
    nlohmann::json cert = certificate(p, r);
    REQUIRE(verify_fast(cert).valid);
    cert["param_cells"][0]["hitting_time"] = {{"lo", 0.001}, {"hi", 0.002}};
    CHECK(has_error(verify_fast(cert), "param_cells[0].hitting_time"));
    p.claim = parse_claim("hitting-time<=" + std::to_string(0.5 * T.lo));
    CHECK(run_prove(p).verdict == ProofVerdict::disproved);
}

TEST_CASE("prove: a flat field (R = 0: j' = 0 exactly) is not proved at once, without a search") {
    // No enclosure of j' = 0 can have a sign, so bisecting would only burn --max-cells.
    const ProveResult r = run_prove(params("monotone", 5, 10, 0));
    CHECK(r.verdict == ProofVerdict::not_proved);
    CHECK(r.diagnostics.enclosures == 0);
    REQUIRE(r.param_cells.size() == 1);
    CHECK(r.param_cells[0].note.find("j' = 0 exactly") != std::string::npos);
}

TEST_CASE("prove: --max-cells ends a parameter cell at its last enclosed tiling, keeps its T_hit bracket, and --verify checks it (issue 30, H16)") {
    ProveParams p = params("hitting-time<=1000", 5, 100, 50);
    p.hit_eps = 0.01;
    p.max_cells = 16;  // the first tiling only (16 cells): decided at once
    const ProveResult first = run_prove(p);
    REQUIRE(first.verdict == ProofVerdict::proved);
    const Interval B = first.param_cells.at(0).hitting_time;
    REQUIRE(B.lo < B.hi);
    p.claim = parse_claim(fmt::format("hitting-time<={}", 0.5 * (B.lo + B.hi)));  // inside the bracket: refine
    p.max_cells = 17;                                                             // but no room for it
    const ProveResult r = run_prove(p);
    REQUIRE(r.verdict == ProofVerdict::not_proved);
    REQUIRE(r.param_cells.size() == 1);
    CHECK(r.param_cells[0].hitting_time.lo == B.lo);  // the bracket reached, not {0, 0}
    CHECK(r.param_cells[0].hitting_time.hi == B.hi);
    CHECK(r.param_cells[0].note.find("not computed") != std::string::npos);
    REQUIRE(r.undecided.size() == 16);  // the 16 enclosed cells, no fabricated [0, 0] child
    for (const auto& c : r.undecided) {
        CHECK(c.role == "dj>0");
        CHECK(c.enc.dj.lo > 0);
    }
    const nlohmann::json cert = certificate(p, r);
    REQUIRE(verify_fast(cert).valid);
    nlohmann::json t = cert;
    t["undecided"][1]["enc"]["dj"] = {{"lo", 0.0}, {"hi", 0.0}};
    CHECK(has_error(verify_fast(t), "undecided[1].enc.dj: does not contain the recomputed enclosure"));
    t = cert;
    t["param_cells"][0]["hitting_time"] = {{"lo", 0.0}, {"hi", 0.0}};
    CHECK(has_error(verify_fast(t), "param_cells[0].hitting_time"));
    t = cert;
    t["undecided"].erase(0);
    CHECK(has_error(verify_fast(t), "param_cells[0].hitting_time"));  // no longer a tiling: no bracket
}

TEST_CASE("prove: duplicate keys of a certificate are found with their JSON path (issue 30, H10)") {
    CHECK(duplicate_keys(R"({"verdict": "disproved", "verdict": "proved"})") == std::vector<std::string>{"verdict: duplicate key"});
    CHECK(duplicate_keys(R"({"cells": [{"role": 1}, {"enc": {"dj": {"lo": 1, "lo": 2}}}]})") ==
          std::vector<std::string>{"cells[1].enc.dj.lo: duplicate key"});
    CHECK(duplicate_keys(R"({"a": {"x": 1}, "b": {"x": 1}, "c": [[1, 2], {"x": 3}]})").empty());
    CHECK(duplicate_keys("not json").empty());
}

TEST_CASE("prove: a box of more integer combinations than int64 holds is refused naming the count and the cap (issue 30, H3)") {
    ProveParams p = params("monotone", 5, 100, 50);
    p.box.d = ParamRange(2, 536870913);
    p.box.L = ParamRange(100, 34359738467.0);
    CHECK_THROWS_WITH_AS(p.validate(), doctest::Contains("536870912 x 34359738368 x 1 = about 1.84e+19 integer combinations, more than 4096"),
                         InvalidArgument);
    p.box.d = ParamRange(2, 4098);
    p.box.L = ParamRange(100);
    CHECK_THROWS_WITH_AS(p.validate(), doctest::Contains("4097 x 1 x 1 = 4097"), InvalidArgument);
}

TEST_CASE("prove: the summary names the exact doubles a proof covers where they are not the decimals given (issue 30, H18)") {
    ProveParams p = params("hitting-time<=5.24", 5, 100, 50, ParamRange(0.1, 0.5));
    p.rho0 = 0.05;
    p.hit_eps = 1e-3;
    ProveResult r;  // the numbers line needs no search
    r.claim = p.claim;
    r.box = p.box;
    const std::string s = proof_summary(p, r);
    CHECK(s.find("the proof covers exactly those doubles") != std::string::npos);
    CHECK(s.find("theta lo = 0.1 (the double 0.1000000000000000055511151231257827021181583404541015625)") != std::string::npos);
    CHECK(s.find("theta hi") == std::string::npos);  // 0.5 is exact
    CHECK(s.find("rho0 = 0.05 (the double 0.05000000000000000277555756156289135105907917022705078125)") != std::string::npos);
    CHECK(s.find("the level 1 - hit = 0.999 (the double 0.99899999999999999911182158029987476766109466552734375)") !=
          std::string::npos);
    CHECK(s.find("T = 5.24 (the double 5.2400000000000002131628207280300557613372802734375)") != std::string::npos);
    p = params("monotone", 5, 100, 50, ParamRange(0.5, 2));
    CHECK(proof_summary(p, r).find("here each is the decimal itself") != std::string::npos);

    CHECK(exact_decimal(1e21) == "1000000000000000000000");
    CHECK(exact_decimal(-2.5) == "-2.5");
    const std::string tiny = exact_decimal(5e-324);
    CHECK(tiny.size() == 1076);  // "0." and 1074 digits
    CHECK(tiny.rfind("0.000", 0) == 0);
    CHECK(tiny.substr(tiny.size() - 10) == "3447265625");
}
