// rhoflow prove (lib/rhoflow/prove/prove.hpp, verify.hpp; docs/theory.md section 11):
// monotone proved where it holds, the known counterexamples disproved rigorously, the default
// model's two attractors proved, a too-small depth limit gives `not proved` (never a wrong
// verdict), certificates are the same bytes whatever the thread count, and the checker rejects a
// tampered certificate (endpoint moved, cell dropped, claim changed, parameter cell dropped).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/prove/prove.hpp"
#include "rhoflow/prove/verify.hpp"

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
    CHECK(!r.undecided.empty());
    for (const auto& c : r.undecided) CHECK(c.role != "dj>0");
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
    SUBCASE("the certificate records the commit rhoflow was configured from") {
        const std::string c = build_commit();
        CHECK(cert["rhoflow_commit"] == c);
        const bool hex = c.size() >= 7 && c.find_first_not_of("0123456789abcdef") == std::string::npos;
        CHECK((hex || c == "unknown"));
    }
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
