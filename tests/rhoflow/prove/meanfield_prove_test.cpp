// The mean-field limit proved (rigorous/meanfield_enclosure.hpp, prove's `meanfield`): the two
// enclosures contain the autodiff evaluation of (5.1) (field/meanfield.cpp, a third
// implementation) at every sample of a cell; the limit's sign threshold theta*_inf is bracketed
// around the root of the closed-form sign of j'_inf(-1); a certificate checks by the series
// method and fails when read as a proof about the exact field.
#include <doctest/doctest.h>

#include <algorithm>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "rhoflow/field/meanfield.hpp"
#include "rhoflow/prove/prove.hpp"
#include "rhoflow/prove/verify.hpp"
#include "rhoflow/rigorous/meanfield_enclosure.hpp"

using namespace rhoflow;

namespace {

ModelParams model_at(const ModelCell& c, double theta, double sigma, double beta) {
    ModelParams m;
    m.d = c.d;
    m.L = c.L;
    m.R = c.R;
    m.theta = theta;
    m.sigma = sigma;
    m.beta = beta;
    return m;
}

// The sign of j'_inf(-1) at alpha, sigma = beta = 1: theta^2 w (1 - w) + 1 - theta (1 - w), w = w(-1)
// (j'_inf(-1) = 2 theta beta w times it; docs/theory.md section 5), written out here alone.
double sign_at_minus_one(double alpha, double theta) {
    const double e = alpha * std::exp(-theta), w = e / (e + 1 - alpha);
    return theta * theta * w * (1 - w) + 1 - theta * (1 - w);
}

}  // namespace

TEST_CASE("meanfield enclosures: both methods contain the autodiff values of (5.1) everywhere in a cell") {
    ModelCell c;
    c.d = 50, c.L = 1000, c.R = 100;
    c.theta = {0.7, 0.8};
    c.sigma = {0.9, 1.1};
    c.beta = {0.5, 0.6};
    const Interval rho{-0.9, -0.7};
    const FieldEnclosure a = enclose_meanfield(c, rho), b = enclose_meanfield_series(c, rho);
    int samples = 0;
    for (double t : {0.7, 0.75, 0.8})
        for (double s : {0.9, 1.1})
            for (double be : {0.5, 0.6})
                for (double r : {-0.9, -0.8, -0.7}) {
                    const ModelParams m = model_at(c, t, s, be);
                    const FieldPoint f = meanfield_field(m, r);
                    const double d2 = meanfield_d2j(m, r);
                    for (const FieldEnclosure* e : {&a, &b}) {
                        CHECK(e->j.contains(f.j));
                        CHECK(e->dj.contains(f.dj));
                        CHECK(e->d2j.contains(d2));
                        CHECK(e->mass.contains(f.mass_informative));
                    }
                    ++samples;
                }
    CHECK(samples == 36);
    // At a point the enclosures are tight (rounding only) and agree.
    ModelCell p = c;
    p.theta = {0.75, 0.75}, p.sigma = {1, 1}, p.beta = {0.5, 0.5};
    const FieldEnclosure x = enclose_meanfield(p, {-0.8, -0.8}), y = enclose_meanfield_series(p, {-0.8, -0.8});
    const FieldPoint f = meanfield_field(model_at(p, 0.75, 1, 0.5), -0.8);
    CHECK(x.dj.width() < 1e-14);
    CHECK(y.dj.width() < 1e-14);
    CHECK(x.dj.lo == doctest::Approx(f.dj).epsilon(1e-13));
    CHECK(y.d2j.lo == doctest::Approx(x.d2j.lo).epsilon(1e-13));
}

TEST_CASE("meanfield prove: theta*_inf at alpha = 0.1 is bracketed around the root of the sign of j'_inf(-1)") {
    // The root by TOMS 748 on the closed-form sign (about 1.0801441, docs/verification.md section 11).
    std::uintmax_t iters = 100;
    const auto root = boost::math::tools::toms748_solve([](double t) { return sign_at_minus_one(0.1, t); }, 1.0, 1.2,
                                                        boost::math::tools::eps_tolerance<double>(50), iters);
    const double theta_star = 0.5 * (root.first + root.second);
    CHECK(theta_star == doctest::Approx(1.0801441).epsilon(1e-7));
    ProveParams p;
    p.claim = parse_claim("monotone");
    p.meanfield = true;
    p.box.d = ParamRange(50), p.box.L = ParamRange(1000), p.box.R = ParamRange(100);
    p.max_depth = 30;
    p.threads = 1;
    p.box.theta = ParamRange(theta_star - 1e-6);
    const ProveResult below = run_prove(p);
    CHECK(below.verdict == ProofVerdict::proved);
    p.box.theta = ParamRange(theta_star + 1e-6);
    CHECK(run_prove(p).verdict == ProofVerdict::disproved);
    // The exact field at L = 1000 is not monotone there (its theta* is 0.99224): the flag matters.
    p.meanfield = false;
    p.box.theta = ParamRange(theta_star - 1e-6);
    p.max_depth = 16;
    CHECK(run_prove(p).verdict == ProofVerdict::disproved);
    // The limit depends on alpha alone: L = 10, R = 1 proves the same.
    p.meanfield = true;
    p.max_depth = 30;
    p.box.L = ParamRange(10), p.box.R = ParamRange(1);
    CHECK(run_prove(p).verdict == ProofVerdict::proved);
}

TEST_CASE("meanfield prove: a certificate checks by the series method, and not as one about the exact field") {
    ProveParams p;
    p.claim = parse_claim("attractors=2");
    p.meanfield = true;
    p.box.theta = ParamRange(1.2, 1.4);  // above theta*_inf: -1 attracts too
    p.threads = 1;
    const ProveResult r = run_prove(p);
    REQUIRE(r.verdict == ProofVerdict::proved);
    nlohmann::json cert = certificate(p, r);
    CHECK(cert.at("params").at("meanfield") == true);
    const VerifyReport v = verify_certificate(cert, 1, Execution::local, VerifyMethod::independent);
    CHECK(v.valid);
    CHECK(v.verdict == ProofVerdict::proved);
    // Read as a proof about the exact field (the key removed), its enclosures do not check.
    cert["params"].erase("meanfield");
    CHECK(!verify_certificate(cert, 1, Execution::local, VerifyMethod::fast).valid);
    // The params round-trip, and an exact-field proof writes no "meanfield" key (its bytes as before).
    CHECK(nlohmann::json(p).at("meanfield") == true);
    CHECK(nlohmann::json(p).get<ProveParams>().meanfield);
    p.meanfield = false;
    CHECK(!nlohmann::json(p).contains("meanfield"));
}

TEST_CASE("meanfield prove: alpha = 1 (R = L) checks by the series method too, and the report says which field") {
    ProveParams p;
    p.claim = parse_claim("monotone");
    p.meanfield = true;
    p.box.L = ParamRange(10), p.box.R = ParamRange(10);  // w = 1 exactly: no rounding may keep it from fitting
    p.box.theta = ParamRange(1.0);
    p.threads = 1;
    const ProveResult r = run_prove(p);
    const nlohmann::json cert = certificate(p, r);
    const VerifyReport v = verify_certificate(cert, 1, Execution::local, VerifyMethod::independent);
    CHECK(v.valid);
    CHECK(v.meanfield);
    CHECK(nlohmann::json(v).at("meanfield") == true);
    // A tampered enclosure does not check by the series method either.
    nlohmann::json bad = cert;
    bad["cells"][0]["enc"]["dj"] = nlohmann::json::array({5.0, 6.0});
    CHECK(!verify_certificate(bad, 1, Execution::local, VerifyMethod::independent).valid);
    // "meanfield": false is not a certificate's spelling (only true, or absent).
    bad = cert;
    bad["params"]["meanfield"] = false;
    CHECK(!verify_certificate(bad, 1, Execution::local, VerifyMethod::independent).valid);
}

TEST_CASE("meanfield prove: a proof over a theta x beta box that splits checks cell by cell (no inherited cells)") {
    // The limit's enclosures are tight to rounding at a corner the halves of a parameter cell
    // share, so a half's recomputation of a cell inherited from its parent ended a rounding beyond
    // the parent's bound: this box's certificate failed the checker (3 cells) while halves inherited.
    ProveParams p;
    p.claim = parse_claim("recovery");
    p.meanfield = true;
    p.box.L = ParamRange(1000), p.box.R = ParamRange(500);
    p.box.theta = ParamRange(1.4, 1.6);
    p.box.beta = ParamRange(1.8, 1.9);
    p.max_box_depth = 20;
    p.max_cells = 2000000;
    p.threads = 1;
    const ProveResult r = run_prove(p);
    REQUIRE(r.verdict == ProofVerdict::proved);
    CHECK(r.param_cells.size() > 1);  // the box was split
    const VerifyReport v = verify_certificate(certificate(p, r), 1, Execution::local, VerifyMethod::fast);
    CHECK(v.valid);
    CHECK(v.verdict == ProofVerdict::proved);
}

TEST_CASE("meanfield prove: filtering<=EPS over a theta box holds exactly beyond the closed-form contour") {
    // The limit's noise mass at rho = 1 is 1 - w(1) = (1 - alpha) / (alpha e^{beta theta} + 1 - alpha)
    // (docs/theory.md (5.1)): it equals EPS at theta_EPS = ln((1 - alpha)(1 - EPS) / (alpha EPS)) / beta,
    // 0.46262 at alpha = 0.1, EPS = 0.85. Below theta*_inf = 1.0801, -1 repels and only rho = 1 counts.
    const double alpha = 0.1, eps = 0.85;
    const double t_eps = std::log((1 - alpha) * (1 - eps) / (alpha * eps));
    CHECK(t_eps == doctest::Approx(0.462624).epsilon(1e-5));
    ProveParams p;
    p.claim = parse_claim("filtering<=0.85");
    p.meanfield = true;
    p.max_depth = 30;
    p.max_box_depth = 20;
    p.threads = 1;
    p.box.theta = ParamRange(t_eps + 1e-4, 1.0);  // every theta in the box, the contour just outside
    const ProveResult in = run_prove(p);
    CHECK(in.verdict == ProofVerdict::proved);
    const VerifyReport v = verify_certificate(certificate(p, in), 1, Execution::local, VerifyMethod::independent);
    CHECK(v.valid);
    CHECK(v.verdict == ProofVerdict::proved);
    // The box reaching 1e-4 below the contour is disproved, by a witness below it.
    p.box.theta = ParamRange(t_eps - 1e-4, 1.0);
    const ProveResult out = run_prove(p);
    REQUIRE(out.verdict == ProofVerdict::disproved);
    const auto bad = std::find_if(out.param_cells.begin(), out.param_cells.end(),
                                  [](const ParamCellResult& c) { return c.verdict == ProofVerdict::disproved; });
    REQUIRE(bad != out.param_cells.end());
    CHECK(bad->model.theta.hi < t_eps);  // every theta of the witness lies below the contour
    // Above theta*_inf, -1 attracts with a noise mass near 1 - w(-1) = 0.97: the claim fails there.
    p.box.theta = ParamRange(1.1, 1.2);
    CHECK(run_prove(p).verdict == ProofVerdict::disproved);
}
