// The rigorous enclosures (lib/rhoflow/rigorous/enclosure.hpp, docs/theory.md section 11):
// they contain independently computed values (mpmath at 30 digits, tests/data), the
// floating-point exact field's values within its error estimates at 100 random models, each
// other (coarse enclosures whose truncations matter contain fine ones), and the mean value
// theorem links j, j', j'' enclosures; widths are ~1e-14 relative at moderate parameters; the
// two plain error bounds hold against closed forms.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/rigorous/detail/bounds.hpp"
#include "rhoflow/rigorous/enclosure.hpp"
#include "rhoflow/rigorous/reference_data.hpp"

using namespace rhoflow;
using rhoflow::test::contains_text;
using rhoflow::test::meets;
using rhoflow::test::read_csv;

namespace {

ModelParams model(std::int64_t d, std::int64_t L, std::int64_t R, double theta, double sigma = 1, double beta = 1) {
    ModelParams m;
    m.d = d;
    m.L = L;
    m.R = R;
    m.theta = theta;
    m.sigma = sigma;
    m.beta = beta;
    return m;
}

FieldEnclosure at(const ModelParams& m, double rho, RigorousParams p = {}) {
    return enclose_field(ModelCell::of(m), {rho, rho}, p);
}


}  // namespace

TEST_CASE("rigorous: enclosures contain the mpmath 30-digit reference values") {
    const auto rows = read_csv("rigorous_reference.csv");
    REQUIRE(rows.size() >= 3);
    for (const auto& r : rows) {
        const ModelParams m = model(std::stoll(r[0]), std::stoll(r[1]), std::stoll(r[2]), std::stod(r[3]), std::stod(r[4]),
                                    std::stod(r[5]));
        const FieldEnclosure e = at(m, std::stod(r[6]));
        CAPTURE(r[0]); CAPTURE(r[1]); CAPTURE(r[6]);
        CHECK(contains_text(e.j, r[7]));
        CHECK(contains_text(e.dj, r[8]));
        CHECK(contains_text(e.mass, r[9]));
        // ... and are narrow enough for the containment to mean something.
        CHECK(e.j.width() < 1e-12 * std::abs(std::stod(r[7])));
        CHECK(e.dj.width() < 1e-11 * std::max(1.0, std::abs(std::stod(r[8]))));
    }
}

TEST_CASE("rigorous: enclosures meet the independent field_values.csv within its stated accuracy") {
    for (const auto& r : read_csv("field_values.csv")) {
        const ModelParams m = model(std::stoll(r[0]), std::stoll(r[1]), std::stoll(r[2]), std::stod(r[3]), std::stod(r[4]),
                                    std::stod(r[5]));
        if (m.L < 3 || m.tau() > 4) continue;
        const FieldEnclosure e = at(m, std::stod(r[6]));
        const double j = std::stod(r[7]), dj = std::stod(r[8]), dj_err = std::stod(r[14]);
        CAPTURE(m.L); CAPTURE(r[6]);
        CHECK(meets(e.j, {j - 2e-11 * std::abs(j), j + 2e-11 * std::abs(j)}));
        CHECK(meets(e.dj, {dj - 10 * dj_err - 1e-12, dj + 10 * dj_err + 1e-12}));
    }
}

TEST_CASE("rigorous: the floating-point exact field lies inside the enclosure at 100 random models, L from 3 to 10500") {
    std::mt19937_64 gen(20261201);  // fixed seed: the same 100 models every run
    std::uniform_real_distribution<double> u(0, 1);
    int checked = 0;
    double widest = 0;
    for (int i = 0; i < 100; ++i) {
        const auto L = static_cast<std::int64_t>(std::llround(3 * std::pow(3500.0, u(gen))));  // 3 ... 10500, log-uniform
        const std::int64_t R = static_cast<std::int64_t>(u(gen) * static_cast<double>(L + 1)) % (L + 1);
        const ModelParams m = model(2 + static_cast<std::int64_t>(u(gen) * 100), L, R, 2 * u(gen), 0.7 + 0.6 * u(gen),
                                    0.7 + 0.6 * u(gen));
        const double rho = -1 + 2 * u(gen);
        // rel_tol 1e-7 for cost: enclosures about 1e-7 relative wide, far wider than the floating-point
        // errors (~1e-10), so the floating-point values themselves must lie inside
        const FieldEnclosure e = at(m, rho, RigorousParams{128, 1e-7});
        const FieldPoint f = exact_field(m, rho);
        CAPTURE(i); CAPTURE(m.d); CAPTURE(m.L); CAPTURE(m.R); CAPTURE(m.theta); CAPTURE(m.sigma); CAPTURE(m.beta); CAPTURE(rho);
        CHECK(e.j.contains(f.j));
        CHECK(e.dj.contains(f.dj));
        CHECK(e.mass.contains(f.mass_informative));
        widest = std::max(widest, e.j.width() / std::abs(f.j));
        ++checked;
    }
    CHECK(checked == 100);
    MESSAGE("widest relative enclosure of j: " << widest);
    CHECK(widest < 1e-6);
}

TEST_CASE("rigorous: widths are about 1e-14 relative for j and j' at moderate parameters") {
    // The default model and the large model (d = 100, L = 10500, R = 500).
    for (const auto& m : {model(50, 1000, 100, 1), model(100, 10500, 500, 1)})
        for (double rho : {-0.99, 0.7}) {
            const FieldEnclosure e = at(m, rho);
            CAPTURE(m.L); CAPTURE(rho);
            CHECK(e.j.width() <= 1e-13 * std::abs(0.5 * (e.j.lo + e.j.hi)));
            CHECK(e.dj.width() <= 1e-12 * std::max(std::abs(e.dj.lo), std::abs(e.j.lo)));
            CHECK(e.d2j.width() <= 1e-11 * std::max(std::abs(e.d2j.lo), std::abs(e.j.lo)));
        }
}

TEST_CASE("rigorous: coarse enclosures (truncations that matter) contain the fine ones") {
    // rel_tol 1e-5: shorter lambda range, coarser inner rule, fewer nodes; every bound must
    // still hold, so the coarse interval contains the fine one (which is 1e9 times narrower).
    for (const auto& m : {model(50, 50, 25, 1), model(20, 200, 10, 2, 0.7, 1.3), model(5, 12, 3, 1.5, 1, 0.8)})
        for (double rho : {m.L == 50 ? -0.8 : 0.4}) {
            const FieldEnclosure fine = at(m, rho);
            const FieldEnclosure coarse = at(m, rho, RigorousParams{128, 1e-5});
            CAPTURE(m.L); CAPTURE(rho);
            CHECK(coarse.j.lo <= fine.j.lo);
            CHECK(fine.j.hi <= coarse.j.hi);
            CHECK(coarse.dj.lo <= fine.dj.lo);
            CHECK(fine.dj.hi <= coarse.dj.hi);
            CHECK(coarse.d2j.lo <= fine.d2j.lo);
            CHECK(fine.d2j.hi <= coarse.d2j.hi);
            CHECK(coarse.budget.inner_nodes < fine.budget.inner_nodes);  // the coarse run is really coarser
        }
}

TEST_CASE("rigorous: the mean value theorem links the enclosures of j, j' and j'' over a cell") {
    // (j(b) - j(a))/(b - a) = j'(xi) for some xi in [a, b]: the difference quotient of the point
    // enclosures must meet the cell enclosure of j' (and likewise j' and j''). A wrong
    // derivative (e.g. j'' off by 1e-6) fails this with cells of width 1e-3.
    const ModelParams m = model(50, 1000, 100, 1);
    for (double a : {-0.995, 0.6}) {
        const double b = a + 1e-3;
        const FieldEnclosure ea = at(m, a), eb = at(m, b), cell = enclose_field(ModelCell::of(m), {a, b});
        const Interval q1{(eb.j.lo - ea.j.hi) / (b - a), (eb.j.hi - ea.j.lo) / (b - a)};
        const Interval q2{(eb.dj.lo - ea.dj.hi) / (b - a), (eb.dj.hi - ea.dj.lo) / (b - a)};
        CAPTURE(a);
        CHECK(meets(q1, cell.dj));
        CHECK(meets(q2, cell.d2j));
        CHECK(q2.width() < 1e-8);  // narrow: the check has teeth
        // the cell's enclosure contains both end points' enclosures
        CHECK(cell.dj.lo <= ea.dj.lo);
        CHECK(eb.dj.hi <= cell.dj.hi);
    }
}

TEST_CASE("rigorous: the enclosure of dE[A_I]/drho meets the difference quotients of E[A_I]") {
    // As above for E[A_I]: (E(b) - E(a))/(b - a) = E'(xi) on [a, b], so the quotient of the point
    // enclosures meets the cell's slope enclosure (E[A_I]'s enclosures are ~1e-8 wide, its left
    // tail is cut for j: section 11.4, so cells of 0.02); and the slope at a point contains a
    // central difference of the floating-point E[A_I] (an independent computation) within the
    // difference's error: a slope off by 1e-6 relative fails that.
    for (const ModelParams& m : {model(50, 1000, 100, 1), model(100, 10500, 500, 3)}) {
        for (double a : {-0.5, 0.0, 0.6}) {
            const double b = a + 0.02;
            const ModelCell c = ModelCell::of(m);
            const FieldEnclosure ea = at(m, a), eb = at(m, b);
            const Interval slope = enclose_mass_slope(c, {a, b});
            const Interval q{(eb.mass.lo - ea.mass.hi) / (b - a), (eb.mass.hi - ea.mass.lo) / (b - a)};
            CAPTURE(m.L);
            CAPTURE(a);
            CHECK(meets(q, slope));
            CHECK(q.width() < 1e-4 * std::abs(q.lo));
            const Interval point = enclose_mass_slope(c, {a, a});
            CHECK(point.width() < 1e-6 * std::abs(point.lo));
            const double h = 1e-4;
            const double fd = (exact_field(m, a + h).mass_informative - exact_field(m, a - h).mass_informative) / (2 * h);
            CHECK(std::abs(fd - 0.5 * (point.lo + point.hi)) <= 0.5 * point.width() + 1e-7 * std::abs(fd) + 1e-12);
        }
    }
}

TEST_CASE("rigorous: check's derivative table stays within its n^2 eps error estimate of the guaranteed j''") {
    // check and the ODE use j'' = p' of the Chebyshev table of j', with the error n^2 eps
    // (an estimate for p - j', which is not a polynomial: docs/theory.md section 10). Here the
    // estimate meets the guaranteed enclosure of j'' at 9 points of two models (a zero or too
    // small estimate fails: the MESSAGE gives the largest guaranteed |p' - j''| relative to it).
    double worst_ratio = 0;
    for (const auto& m : {model(50, 1000, 100, 1), model(50, 50, 25, 1)}) {
        const DriftField f = DriftField::exact(m);
        const double err = f.d2j_error();
        CHECK(err > 0);
        for (double rho : {-1.0, -0.9928, -0.75, -0.4, 0.0, 0.3, 0.6, 0.9, 1.0}) {
            const FieldEnclosure e = at(m, rho, RigorousParams{128, 1e-12});
            const double p = f.d2j(rho);
            CAPTURE(m.L); CAPTURE(rho); CAPTURE(p); CAPTURE(err); CAPTURE(e.d2j.lo); CAPTURE(e.d2j.hi);
            CHECK(meets(e.d2j, {p - err, p + err}));
            worst_ratio = std::max(worst_ratio, std::max(std::abs(p - e.d2j.lo), std::abs(p - e.d2j.hi)) / err);
        }
    }
    // an upper bound of |p' - j''| (the enclosure's far end) relative to the estimate
    MESSAGE("largest guaranteed |p' - j''| / (n^2 eps): " << worst_ratio);
}

TEST_CASE("rigorous: the nuisance class's cache changes no bit of an enclosure") {
    // Class N's sums are shared by the cells of a model (EnclosureCache); an enclosure must be
    // the same doubles whether its sums come from a cache filled by other cells (other rho,
    // other theta) or are computed afresh, else certificates would depend on the search order.
    const ModelParams m = model(50, 1000, 100, 1);
    ModelCell wide = ModelCell::of(m);
    wide.theta = {0.9, 1.0};
    EnclosureCache cache;
    const RigorousParams p{128, 1e-7};
    (void)enclose_field(ModelCell::of(m), {0.25, 0.5}, p, &cache);
    (void)enclose_field(wide, {-0.5, -0.25}, p, &cache);
    const std::size_t filled = cache.size();
    CHECK(filled > 0);
    for (const auto& [cell, rho] : {std::pair{ModelCell::of(m), Interval{0.5, 0.75}}, std::pair{wide, Interval{-0.25, 0.0}}}) {
        const FieldEnclosure a = enclose_field(cell, rho, p, &cache), b = enclose_field(cell, rho, p);
        CHECK(a.j.lo == b.j.lo);
        CHECK(a.j.hi == b.j.hi);
        CHECK(a.dj.lo == b.dj.lo);
        CHECK(a.dj.hi == b.dj.hi);
        CHECK(a.d2j.lo == b.d2j.lo);
        CHECK(a.d2j.hi == b.d2j.hi);
        CHECK(a.mass.lo == b.mass.lo);
        CHECK(a.mass.hi == b.mass.hi);
    }
    CHECK(cache.size() < 2 * filled);  // the later cells reused most of the stored sums
}

TEST_CASE("rigorous: each outer panel's bound of the integrand holds on its real segment") {
    // The Gauss-Legendre error of a panel rests on M_p >= |integrand| on the panel's ellipse
    // (theory.md section 11.3, capped per panel). On the real segment the integrand is computed:
    // M_p must exceed it at every sample, on the left panels (caps |x e^{-x}| <= |x|), the
    // centre and the right (|M| at the smallest Re x), for a point and a wide cell. A cap with
    // |t| <= e^{lambda_p - 3} instead of e^{lambda_p + 0.9} fails here.
    int capped = 0, samples = 0;
    for (const auto& [m, rho] : {std::pair{model(50, 1000, 100, 1), Interval{-0.99, -0.99}},
                                 std::pair{model(20, 200, 10, 2, 0.7, 1.3), Interval{0.25, 0.5}},
                                 std::pair{model(5, 12, 3, 1.5, 1, 0.8), Interval{-0.4, -0.4}}}) {
        const auto rows = detail::panel_bounds_and_values(ModelCell::of(m), rho, RigorousParams{128, 1e-7}, 5);
        double peak = 0;
        for (const auto& r : rows) peak = std::max(peak, r[1]);
        for (const auto& r : rows) {
            CAPTURE(m.L); CAPTURE(r[0]); CAPTURE(r[1]); CAPTURE(r[2]);
            CHECK(r[2] <= r[1]);
            if (r[1] < 1e-3 * peak) ++capped;  // a panel whose bound the caps brought down
            ++samples;
        }
    }
    CHECK(capped > samples / 4);  // the caps are in force on many panels: the check has teeth
}

TEST_CASE("rigorous: the Gaussian tail bound holds and is tight against closed forms") {
    const double pi = 3.14159265358979323846;
    auto phi = [&](double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * pi); };
    for (double Z : {3.0, 6.0, 11.0}) {
        const double t0 = 0.5 * std::erfc(Z / std::sqrt(2.0));  // int_Z^inf phi
        const double t1 = phi(Z);                               // int_Z^inf z phi
        const double t2 = Z * phi(Z) + t0;                      // int_Z^inf z^2 phi
        CAPTURE(Z);
        CHECK(detail::gaussian_tail_upper(0, 1, 0, Z) >= t0);
        CHECK(detail::gaussian_tail_upper(0, 1, 0, Z) <= 1.2 * t0);
        CHECK(detail::gaussian_tail_upper(0, 1, 1, Z) >= t1);
        CHECK(detail::gaussian_tail_upper(0, 1, 2, Z) >= t2);
        CHECK(detail::gaussian_tail_upper(0, 1, 2, Z) <= 1.5 * t2);
        // (a0 + a1 z)^2 with a0 = 2, a1 = 0.5: 4 t0 + 2 t1 + 0.25 t2
        CHECK(detail::gaussian_tail_upper(2, 0.5, 2, Z) >= 4 * t0 + 2 * t1 + 0.25 * t2);
    }
}

TEST_CASE("rigorous: the trapezoid bound holds for E[1 - exp(-t e^{tau Z})]") {
    // The rule with step h against the same rule with step h/8 (exact to double here), for
    // steps where the error is measurable; |g| <= 2 on the strip |Im z| <= pi/(4 tau).
    const double pi = 3.14159265358979323846;
    auto rule = [&](double t, double tau, double h) {
        double s = 0;
        for (int k = -4000; k <= 4000; ++k) {
            const double z = k * h;
            if (std::abs(z) > 40) continue;
            s += h * std::exp(-0.5 * z * z) / std::sqrt(2 * pi) * -std::expm1(-t * std::exp(tau * z));
        }
        return s;
    };
    for (double tau : {0.5, 1.0, 2.0})
        for (double t : {0.01, 1.0, 30.0}) {
            const double h = 1.2 / tau, b = pi / (4 * tau);
            const double err = std::abs(rule(t, tau, h) - rule(t, tau, h / 8));
            const double bound = detail::trapezoid_error_upper(2, 0, 0, 0, std::min(b, 2 * pi / h), h);
            CAPTURE(tau); CAPTURE(t); CAPTURE(err); CAPTURE(bound);
            CHECK(err <= bound);
            CHECK(bound < 0.5);  // not vacuous
        }
}

TEST_CASE("rigorous: bad cells and parameters are refused naming the field") {
    ModelCell c = ModelCell::of(model(50, 1000, 100, 1));
    c.L = 2;
    c.R = 1;
    CHECK_THROWS_WITH_AS(enclose_field(c, {0, 0}), doctest::Contains("cell.L"), InvalidArgument);
    c = ModelCell::of(model(50, 1000, 100, 1));
    c.theta = {1, 0.5};
    CHECK_THROWS_WITH_AS(enclose_field(c, {0, 0}), doctest::Contains("cell.theta"), InvalidArgument);
    c = ModelCell::of(model(50, 1000, 100, 1, 5));
    CHECK_THROWS_WITH_AS(enclose_field(c, {0, 0}), doctest::Contains("beta*sigma"), InvalidArgument);
    CHECK_THROWS_WITH_AS(enclose_field(ModelCell::of(model(50, 1000, 100, 1)), {0.5, 1.5}), doctest::Contains("rho.hi"),
                         InvalidArgument);
    CHECK_THROWS_WITH_AS(enclose_field(ModelCell::of(model(50, 1000, 100, 1)), {0, 0}, RigorousParams{32, 1e-10}),
                         doctest::Contains("precision"), InvalidArgument);
}

TEST_CASE("rigorous: the token-pair counts R(R-1), N(N-1), 2RN are exact up to L = 1e12 (issue 30, H19)") {
    // As doubles the products round past 2^53: R (R - 1) at R = 999999999999 is off by 5.1e7.
    const std::array<std::string, 3> k = detail::pair_count_texts(999999999999, 999999999998);
    CHECK(k[0] == "999999999997000000000002");
    CHECK(k[1] == "999999999995000000000006");
    CHECK(k[2] == "1999999999994000000000004");
    const double rounded = 999999999999.0 * 999999999998.0;  // what a double product gave
    CHECK(fmt::format("{:.0f}", rounded) != k[0]);
    CHECK(detail::pair_count_texts(1, 0) == std::array<std::string, 3>{"0", "0", "0"});
}
