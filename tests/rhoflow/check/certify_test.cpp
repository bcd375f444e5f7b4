// Certified verdicts at one point: known holds and fails, undecided when the tolerance is below
// the field's error, signs between nodes, isolated roots and their stability, hitting times.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "rhoflow/check/certify.hpp"
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/ode/ode.hpp"
#include "rhoflow/ode/phase.hpp"

using namespace rhoflow;

namespace {
DriftField poly_field(std::function<double(double)> dj, std::function<double(double)> d2j, double err = 1e-15) {
    return DriftField::from_functions(std::move(dj), std::move(d2j), err, "test");
}

// A deliberately wrong derivative enclosure: the true one negated.
DerivativeEnclosure negated(DerivativeEnclosure right) {
    return [right = std::move(right)](double a, double b) -> std::optional<Interval> {
        const auto q = right(a, b);
        if (!q) return std::nullopt;
        return Interval{-q->hi, -q->lo};
    };
}

// An enclosure that can never tell the sign: [-1, 1] everywhere.
DerivativeEnclosure signless() {
    return [](double, double) -> std::optional<Interval> { return Interval{-1, 1}; };
}
}  // namespace

TEST_CASE("certify: monotone fails for d = L = 50, R = 25, theta = 1 with j'(-1) = -0.46, the mean-field limit holds") {
    const ModelParams m{50, 50, 25, 1.0, 1.0, 1.0};
    CertifyParams p;
    const PointCertificate c = certify_point(m, parse_claim("monotone"), p);
    REQUIRE(c.verdict == Verdict::fails);
    CHECK(c.where == -1.0);
    CHECK(c.margin * c.scale == doctest::Approx(-0.4592).epsilon(1e-3));  // j'(-1)
    CHECK(c.margin * c.scale == doctest::Approx(exact_field(m, -1.0).dj).epsilon(1e-6));
    CHECK(c.margin < -c.error);
    p.field = FieldMethod::meanfield;
    const PointCertificate mf = certify_point(m, parse_claim("monotone"), p);
    CHECK(mf.verdict == Verdict::holds);
    CHECK(mf.where == -1.0);
    CHECK(mf.margin * mf.scale == doctest::Approx(0.25).epsilon(0.01));  // j_inf'(-1) = +0.25
}

TEST_CASE("certify: d=100 L=10500 R=500 theta=3 has two attractors and a repeller inside (-1, 0)") {
    const ModelParams m{100, 10500, 500, 3.0, 1.0, 1.0};
    const PointCertificate c = certify_point(m, parse_claim("attractors=1"), CertifyParams{});
    REQUIRE(c.verdict == Verdict::fails);
    CHECK(c.attractors == 2);
    REQUIRE(c.equilibria.size() == 3);
    CHECK(c.equilibria[0].stable);
    CHECK_FALSE(c.equilibria[1].stable);
    CHECK(c.equilibria[2].stable);
    const double r = c.equilibria[1].rho;
    CHECK(r == doctest::Approx(-0.380047).epsilon(1e-5));
    // The repeller is a zero of the exact (untabulated) field within the certified distance.
    const FieldPoint at = exact_field(m, r);
    CHECK(std::abs(at.dj) <= 1e-6);
    CHECK(certify_point(m, parse_claim("attractors=2"), CertifyParams{}).verdict == Verdict::holds);
    CHECK(certify_point(m, parse_claim("monotone"), CertifyParams{}).verdict == Verdict::fails);
}

TEST_CASE("certify: positive-drift and monotone hold for a small signal") {
    for (double theta : {0.05, 0.2, 0.5}) {
        const ModelParams m{50, 1000, 100, theta, 1.0, 1.0};
        const PointCertificate c = certify_point(m, parse_claim("positive-drift"), CertifyParams{});
        CHECK(c.verdict == Verdict::holds);
        CHECK(c.margin > 0.1);
        CHECK(c.error < 1e-3 * c.margin);  // the search pins the minimum to 0.1%
    }
    const PointCertificate mono =
        certify_point(ModelParams{100, 10500, 500, 0.25, 1.0, 1.0}, parse_claim("monotone"), CertifyParams{});
    CHECK(mono.verdict == Verdict::holds);
    CHECK(mono.samples <= 20);  // a smooth field is decided on the first table
}

TEST_CASE("certify: a tolerance tighter than the field's error leaves the point undecided") {
    const ModelParams m{50, 50, 25, 1.0, 1.0, 1.0};
    CertifyParams p;
    p.tol = 1e-18;
    const PointCertificate c = certify_point(m, parse_claim("monotone"), p);
    CHECK(c.verdict == Verdict::undecided);
    CHECK(c.table_error > p.tol);
    CHECK(c.note.find("exceeds tol") != std::string::npos);
    const PointCertificate a = certify_point(ModelParams{100, 10500, 500, 3.0, 1.0, 1.0}, parse_claim("attractors=2"), p);
    CHECK(a.verdict == Verdict::undecided);
}

TEST_CASE("certify: a root pair between sampling nodes is never reported as holds") {
    // j' = (rho - 0.3)(rho - 0.3004): negative only on (0.3, 0.3004), which contains no node of
    // the table's Lobatto grids nor of the search's first uniform cells.
    const DriftField f = poly_field([](double r) { return (r - 0.3) * (r - 0.3004); }, [](double r) { return 2 * r - 0.6004; });
    CertifyParams p;
    // Naive sampling on the nodes would see j' > 0 everywhere.
    double naive = 1;
    for (int n : {8, 16, 32, 64, 128})
        for (int k = 0; k <= n; ++k) {
            naive = std::min(naive, f.dj(std::cos(M_PI * k / n)));
            naive = std::min(naive, f.dj(-1.0 + 2.0 * k / n));
        }
    REQUIRE(naive > 0);
    const PointCertificate mono = certify_point(f, parse_claim("monotone"), p);
    CHECK(mono.verdict == Verdict::fails);
    CHECK(mono.where > 0.3);
    CHECK(mono.where < 0.3004);
    CHECK(certify_point(f, parse_claim("positive-drift"), p).verdict == Verdict::fails);
    // Both roots are isolated and classified: 0.3 attracts (j'' < 0), 0.3004 repels, +1 attracts.
    const PointCertificate a = certify_point(f, parse_claim("attractors=2"), p);
    REQUIRE(a.verdict == Verdict::holds);
    REQUIRE(a.equilibria.size() == 4);
    CHECK(a.equilibria[1].rho == doctest::Approx(0.3).epsilon(1e-12));
    CHECK(a.equilibria[1].stable);
    CHECK(a.equilibria[2].rho == doctest::Approx(0.3004).epsilon(1e-12));
    CHECK_FALSE(a.equilibria[2].stable);
    CHECK_FALSE(a.equilibria[0].stable);  // j'(-1) > 0: -1 repels
}

TEST_CASE("certify: a tangency within the error bound is undecided, not guessed") {
    // j' = (rho - 0.3)^2 + 1e-14 > 0, but by less than the declared error 1e-12.
    const DriftField f = poly_field([](double r) { return (r - 0.3) * (r - 0.3) + 1e-14; },
                                    [](double r) { return 2 * (r - 0.3); }, 1e-12);
    for (const char* claim : {"monotone", "positive-drift", "attractors=1"}) {
        CAPTURE(claim);
        CHECK(certify_point(f, parse_claim(claim), CertifyParams{}).verdict == Verdict::undecided);
    }
    // The same shape lifted clear of its error holds.
    const DriftField g = poly_field([](double r) { return (r - 0.3) * (r - 0.3) + 1e-6; },
                                    [](double r) { return 2 * (r - 0.3); }, 1e-12);
    CHECK(certify_point(g, parse_claim("monotone"), CertifyParams{}).verdict == Verdict::holds);
    CHECK(certify_point(g, parse_claim("attractors=1"), CertifyParams{}).verdict == Verdict::holds);
}

TEST_CASE("certify: a feature the table cannot resolve is never reported as holds") {
    // j' = 1 - 1.5 exp(-((rho - 0.3)/0.02)^2): negative on a narrow interval; its Chebyshev
    // table needs hundreds of points. With at most 33 the point must stay undecided or fail.
    const DriftField f = poly_field([](double r) { return 1 - 1.5 * std::exp(-std::pow((r - 0.3) / 0.02, 2)); },
                                    [](double r) { return 1.5 * 2 * (r - 0.3) / 4e-4 * std::exp(-std::pow((r - 0.3) / 0.02, 2)); });
    CertifyParams p;
    p.table.max_points = 33;
    CHECK(certify_point(f, parse_claim("monotone"), p).verdict != Verdict::holds);
    p.table.max_points = 1025;
    CHECK(certify_point(f, parse_claim("monotone"), p).verdict == Verdict::fails);
}

TEST_CASE("certify: attractors of a field with known equilibria") {
    // j' = (rho + 0.5)(rho - 0.2): -1 repels (j'(-1) > 0), -0.5 attracts, 0.2 repels, +1 attracts.
    const DriftField f = poly_field([](double r) { return (r + 0.5) * (r - 0.2); }, [](double r) { return 2 * r + 0.3; });
    const PointCertificate c = certify_point(f, parse_claim("attractors=2"), CertifyParams{});
    REQUIRE(c.verdict == Verdict::holds);
    REQUIRE(c.equilibria.size() == 4);
    CHECK(c.equilibria[1].rho == doctest::Approx(-0.5));
    CHECK(c.equilibria[1].stable);
    CHECK(c.equilibria[1].dfdrho == doctest::Approx((1 - 0.25) * (-0.7)));
    CHECK(c.equilibria[2].rho == doctest::Approx(0.2));
    CHECK(certify_point(f, parse_claim("attractors=1"), CertifyParams{}).verdict == Verdict::fails);
    // Flat fields are decided exactly: nothing attracts.
    const ModelParams flat{50, 1000, 0, 1.0, 1.0, 1.0};
    CHECK(certify_point(flat, parse_claim("attractors=0"), CertifyParams{}).verdict == Verdict::holds);
    CHECK(certify_point(flat, parse_claim("monotone"), CertifyParams{}).verdict == Verdict::fails);
}

TEST_CASE("certify: the hitting time agrees with the ODE solver, never reaching the level fails") {
    const ModelParams m{50, 1000, 100, 1.0, 1.0, 1.0};
    CertifyParams p;
    p.rho0 = 0.05;
    const PointCertificate c = certify_point(m, parse_claim("hitting-time<=10"), p);
    REQUIRE(c.verdict == Verdict::holds);
    const OdeSolution ode = solve_ode(DriftField::exact(m), 0.05, {1000.0});
    REQUIRE(ode.hit_time);
    CHECK(std::abs(c.hit_time - *ode.hit_time) <= c.hit_time_err + ode.hit_time_err + 1e-9);
    CHECK(c.hit_time == doctest::Approx(4.03728795).epsilon(1e-8));
    CHECK(certify_point(m, parse_claim("hitting-time<=4"), p).verdict == Verdict::fails);
    // From inside the basin of -1 for d = L = 50, R = 25 (repeller at -0.644) the flow goes to
    // -1 and reaches -0.99; from just above the repeller it goes up.
    const ModelParams b{50, 50, 25, 1.0, 1.0, 1.0};
    p.rho0 = -0.8;
    const PointCertificate down = certify_point(b, parse_claim("hitting-time<=1000"), p);
    CHECK(down.verdict == Verdict::holds);
    // A field with an attracting zero between rho0 and the level never reaches it.
    const DriftField stop = poly_field([](double r) { return 0.5 - r; }, [](double) { return -1.0; });
    p.rho0 = 0.1;
    const PointCertificate never = certify_point(stop, parse_claim("hitting-time<=1000"), p);
    CHECK(never.verdict == Verdict::fails);
    CHECK(never.margin == -1.0);
    CHECK(never.hit_time == -1.0);
}

TEST_CASE("certify: filtering holds for the default model and fails when E[A_I] decreases") {
    const PointCertificate c = certify_point(ModelParams{}, parse_claim("filtering"), CertifyParams{});
    CHECK(c.verdict == Verdict::holds);
    const DriftField f = DriftField::from_functions([](double) { return 1.0; }, [](double) { return 0.0; }, 1e-15, "test",
                                                    {}, [](double r) { return 0.5 + 0.1 * r - 0.2 * r * r; });
    const PointCertificate bad = certify_point(f, parse_claim("filtering"), CertifyParams{});
    CHECK(bad.verdict == Verdict::fails);
    CHECK(bad.where > 0.25);  // d/drho = 0.1 - 0.4 rho < 0 beyond 0.25
}

TEST_CASE("certify: JSON hooks round-trip a certificate") {
    const PointCertificate c =
        certify_point(ModelParams{100, 10500, 500, 3.0, 1.0, 1.0}, parse_claim("attractors=2"), CertifyParams{});
    const nlohmann::json j = c;
    const PointCertificate d = j.get<PointCertificate>();
    CHECK(nlohmann::json(d) == j);
    CHECK(d.equilibria.size() == 3);
    CertifyParams p;
    p.rho0 = 0.3;
    p.table.exact.z_range = 11;
    CHECK(nlohmann::json(nlohmann::json(p).get<CertifyParams>()) == nlohmann::json(p));
}

TEST_CASE("certify: the certified portrait agrees with rhoflow phase across the bistability threshold") {
    for (double theta : {0.5, 0.95, 1.0, 1.05, 1.5, 2.5}) {
        CAPTURE(theta);
        const ModelParams m{100, 10500, 500, theta, 1.0, 1.0};
        const PointCertificate c = certify_point(m, parse_claim("attractors=1"), CertifyParams{});
        REQUIRE(c.verdict != Verdict::undecided);
        const PhasePortrait p = phase_portrait(DriftField::exact(m));
        REQUIRE(c.equilibria.size() == p.equilibria.size());
        for (std::size_t i = 0; i < p.equilibria.size(); ++i) {
            CHECK(c.equilibria[i].stable == p.equilibria[i].stable);
            CHECK(std::abs(c.equilibria[i].rho - p.equilibria[i].rho) <= c.equilibria[i].rho_err + 1e-9);
            CHECK(std::abs(c.equilibria[i].dfdrho - p.equilibria[i].dfdrho) <=
                  c.equilibria[i].dfdrho_err + p.equilibria[i].dfdrho_err + 1e-9);
        }
    }
}

TEST_CASE("certify: the sign of j'' on a root's run is guaranteed by an enclosure for the exact field") {
    const ModelParams m;  // the default model: attractors at -1 and +1, a repeller near -0.9928
    const PointCertificate c = certify_point(m, parse_claim("attractors=2"), CertifyParams{});
    REQUIRE(c.verdict == Verdict::holds);
    CHECK(c.derivative == "enclosure");
    REQUIRE(c.equilibria.size() == 3);
    const CertifiedEquilibrium& rep = c.equilibria[1];
    CHECK_FALSE(rep.stable);
    CHECK(rep.rho == doctest::Approx(-0.99280).epsilon(1e-4));
    // F'(rho*) = (1 - rho*^2) j''(rho*) from a central difference of the floating-point j' (an
    // independent computation) lies within the certified error plus the difference's own error
    // (h^2 j''''/6 and 1e-10 |j'| / h: below 2e-9 here).
    const double h = 1e-4;
    const double d2 = (exact_field(m, rep.rho + h).dj - exact_field(m, rep.rho - h).dj) / (2 * h);
    const double fd = (1 - rep.rho * rep.rho) * d2;
    CHECK(std::abs(fd - rep.dfdrho) <= rep.dfdrho_err + 2e-9);
    CHECK(rep.dfdrho_err < 1e-3 * std::abs(rep.dfdrho));  // the quick enclosure: ~3e-4 relative
    // The estimate instead: the same portrait, and the certificate says what it rests on.
    CertifyParams est;
    est.derivative = DerivativeBound::estimate;
    const PointCertificate e = certify_point(m, parse_claim("attractors=2"), est);
    CHECK(e.verdict == Verdict::holds);
    CHECK(e.derivative == "estimate");
    est = CertifyParams{};
    est.field = FieldMethod::meanfield;  // no enclosure of the mean-field limit
    const PointCertificate mf =
        certify_point(ModelParams{100, 10500, 500, 3.0, 1.0, 1.0}, parse_claim("attractors=2"), est);
    CHECK(mf.derivative == "estimate");
    // Outside the enclosures' range (beta sigma > 4) the oracle declines instead of guessing.
    CHECK_FALSE(exact_derivative(ModelParams{50, 1000, 100, 1.0, 1.0, 5.0})(-0.5, -0.4).has_value());
    const auto q = exact_derivative(m)(rep.rho - 1e-6, rep.rho + 1e-6);
    REQUIRE(q.has_value());
    CHECK(q->lo > 0);  // j'' > 0 at a repeller of F = (1 - rho^2) j'
}

TEST_CASE("certify: the verdict follows the enclosure of j'': a wrong or a wide one leaves it undecided") {
    const ModelParams m;
    const Claim two = parse_claim("attractors=2");
    const FieldSampler s = model_sampler(m, FieldMethod::exact, CertifyParams::default_table().exact);
    // The true j'' negated: it says the repeller attracts, which contradicts the table's signs of
    // j' on either side (- to +): the point is undecided, no longer holds. A check that took j''
    // from the table alone would still say holds.
    const PointCertificate w = certify_point(s, two, CertifyParams{}, false, negated(exact_derivative(m)));
    CHECK(w.verdict == Verdict::undecided);
    CHECK(w.note.find("contradict the guaranteed sign of j''") != std::string::npos);
    // An enclosure that cannot tell the sign of j'' (here always [-1, 1]): undecided, never guessed.
    const PointCertificate u = certify_point(s, two, CertifyParams{}, false, signless());
    CHECK(u.verdict == Verdict::undecided);
    CHECK(u.note.find("near-tangency") != std::string::npos);
    // No enclosure available: the estimate decides, and the certificate says so.
    const DerivativeEnclosure none = [](double, double) -> std::optional<Interval> { return std::nullopt; };
    const PointCertificate n = certify_point(s, two, CertifyParams{}, false, none);
    CHECK(n.verdict == Verdict::holds);
    CHECK(n.derivative == "estimate");
}

TEST_CASE("certify: filtering's sign of dE[A_I]/drho is guaranteed by enclosures, a wrong one withholds the verdict") {
    const ModelParams m;
    const Claim filtering = parse_claim("filtering");
    const PointCertificate c = certify_point(m, filtering, CertifyParams{});
    CHECK(c.verdict == Verdict::holds);
    CHECK(c.derivative == "enclosure");
    CHECK(c.note.find("guaranteed: dE[A_I]/drho > 0 on [0, 1]") != std::string::npos);
    CertifyParams est;
    est.derivative = DerivativeBound::estimate;
    const PointCertificate e = certify_point(m, filtering, est);
    CHECK(e.verdict == Verdict::holds);
    CHECK(e.derivative == "estimate");
    CHECK(e.margin == c.margin);  // the margin is the table's either way
    // The enclosures decide: negated, they contradict the table (undecided, never holds); wide,
    // they cannot tell the sign (undecided).
    const FieldSampler s = model_sampler(m, FieldMethod::exact, CertifyParams::default_table().exact);
    const PointCertificate w = certify_point(s, filtering, CertifyParams{}, false, negated(exact_derivative(m, true)));
    CHECK(w.verdict == Verdict::undecided);
    CHECK(w.note.find("the enclosures fails") != std::string::npos);
    const PointCertificate u = certify_point(s, filtering, CertifyParams{}, false, signless());
    CHECK(u.verdict == Verdict::undecided);
    CHECK(u.note.find("contain 0") != std::string::npos);
}
