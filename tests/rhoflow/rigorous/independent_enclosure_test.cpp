// The independent enclosure (lib/rhoflow/rigorous/independent_enclosure.hpp, docs/theory.md
// section 11.7) against the fast one (enclosure.hpp) and the mpmath reference values: each
// contains the other's midpoints and the reference, on small and large L and near theta* of the
// default model, where j'(-1) is small; a perturbed integrand is caught.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "rhoflow/rigorous/enclosure.hpp"
#include "rhoflow/rigorous/independent_enclosure.hpp"
#include "rhoflow/rigorous/reference_data.hpp"

using namespace rhoflow;
using rhoflow::test::contains_text;
using rhoflow::test::meets;
using rhoflow::test::read_csv;

namespace {

ModelCell cell_of(std::int64_t d, std::int64_t L, std::int64_t R, double theta, double sigma = 1, double beta = 1) {
    ModelCell c;
    c.d = d;
    c.L = L;
    c.R = R;
    c.theta = {theta, theta};
    c.sigma = {sigma, sigma};
    c.beta = {beta, beta};
    return c;
}

double mid(Interval v) { return 0.5 * (v.lo + v.hi); }

// The two enclosures overlap and the wider contains the narrower's midpoint (j, j', j'', E[A_I]);
// the independent one is narrow (rel x |j|). At moderate L it is the narrower (the fast one adds
// its error budget as a radius); at large L the wider.
void check_agree(const FieldEnclosure& fast, const FieldEnclosure& ind, double rel) {
    const Interval f[4] = {fast.j, fast.dj, fast.d2j, fast.mass}, g[4] = {ind.j, ind.dj, ind.d2j, ind.mass};
    const char* name[4] = {"j", "j'", "j''", "E[A_I]"};
    for (int k = 0; k < 4; ++k) {
        const std::string what = fmt::format("{}: fast [{:.17g}, {:.17g}], independent [{:.17g}, {:.17g}]", name[k],
                                             f[k].lo, f[k].hi, g[k].lo, g[k].hi);
        CAPTURE(what);
        CHECK(meets(f[k], g[k]));
        CHECK((f[k].width() >= g[k].width() ? f[k].contains(mid(g[k])) : g[k].contains(mid(f[k]))));
        CHECK(g[k].width() <= rel * std::max(std::abs(mid(fast.j)), std::abs(mid(f[k]))));
    }
}

}  // namespace

TEST_CASE("rigorous independent: both enclosures contain the mpmath 30-digit reference values") {
    const auto rows = read_csv("rigorous_reference.csv");
    REQUIRE(rows.size() >= 3);
    for (const auto& r : rows) {
        const ModelCell c = cell_of(std::stoll(r[0]), std::stoll(r[1]), std::stoll(r[2]), std::stod(r[3]), std::stod(r[4]),
                                    std::stod(r[5]));
        const double rho = std::stod(r[6]);
        const FieldEnclosure ind = enclose_field_independent(c, {rho, rho});
        const FieldEnclosure fast = enclose_field(c, {rho, rho});
        CAPTURE(r[0]); CAPTURE(r[1]); CAPTURE(r[6]);
        for (const FieldEnclosure* e : {&ind, &fast}) {
            CHECK(contains_text(e->j, r[7]));
            CHECK(contains_text(e->dj, r[8]));
            CHECK(contains_text(e->mass, r[9]));
        }
        // narrow enough for the containment to mean something
        CHECK(ind.j.width() < 1e-11 * std::abs(std::stod(r[7])));
        CHECK(ind.dj.width() < 1e-10 * std::max(1.0, std::abs(std::stod(r[8]))));
        check_agree(fast, ind, 1e-10);
    }
}

TEST_CASE("rigorous independent: agrees with the fast enclosure at large L and near theta* of the default model") {
    // theta = 0.99225 at rho = -1: j'(-1) of the default model changes sign near there (small j').
    struct Case {
        ModelCell cell;
        double rho;
    };
    for (const Case& k : {Case{cell_of(50, 1000, 100, 0.99225), -1.0}, Case{cell_of(50, 1000, 100, 1), 0.6},
                          Case{cell_of(100, 1000000, 50000, 1), 0.5}, Case{cell_of(20, 200, 10, 2, 0.7, 1.3), -0.4}}) {
        const FieldEnclosure fast = enclose_field(k.cell, {k.rho, k.rho}, {128, 1e-10});
        const FieldEnclosure ind = enclose_field_independent(k.cell, {k.rho, k.rho}, {128, 1e-10});
        CAPTURE(k.cell.L); CAPTURE(k.cell.theta.lo); CAPTURE(k.rho);
        check_agree(fast, ind, 1e-8);
    }
    // j' near theta* is small: the enclosure still decides its sign
    const FieldEnclosure e = enclose_field_independent(cell_of(50, 1000, 100, 0.99225), {-1, -1}, {128, 1e-10});
    MESSAGE(fmt::format("j'(-1) at theta = 0.99225: [{:.17g}, {:.17g}]", e.dj.lo, e.dj.hi));
    CHECK(std::abs(mid(e.dj)) < 1e-2);
    CHECK((e.dj.hi < 0 || e.dj.lo > 0));  // the sign is decided
    CHECK(e.dj.width() < 1e-3 * std::abs(mid(e.dj)));
}

TEST_CASE("rigorous independent: over a cell it contains the point enclosures and fits the fast cell enclosure") {
    ModelCell c = cell_of(50, 1000, 100, 1);
    c.theta = {0.95, 1.05};
    const Interval rho{-0.6, -0.55};
    const FieldEnclosure ind = enclose_field_independent(c, rho, {128, 1e-7});
    const FieldEnclosure fast = enclose_field(c, rho, {128, 1e-7});
    for (double t : {0.95, 1.05})
        for (double r : {rho.lo, rho.hi}) {
            const FieldEnclosure p = enclose_field(cell_of(50, 1000, 100, t), {r, r}, {128, 1e-7});
            CHECK(ind.j.contains(mid(p.j)));
            CHECK(ind.dj.contains(mid(p.dj)));
            CHECK(ind.d2j.contains(mid(p.d2j)));
        }
    const FieldEnclosure in = enclose_field_independent_within(c, rho, {128, 1e-7}, fast);
    CHECK(fast.j.lo <= in.j.lo);
    CHECK(in.j.hi <= fast.j.hi);
    CHECK(fast.dj.lo <= in.dj.lo);
    CHECK(in.dj.hi <= fast.dj.hi);
    CHECK(fast.d2j.lo <= in.d2j.lo);
    CHECK(in.d2j.hi <= fast.d2j.hi);
}

TEST_CASE("rigorous independent: a perturbed integrand fails the containment") {
    // j's integrand times 1 + 1e-6: the enclosure no longer contains the reference j, nor fits
    // inside the fast enclosure, which the checker requires.
    const ModelCell c = cell_of(50, 50, 25, 1);
    const FieldEnclosure fast = enclose_field(c, {0.3, 0.3});
    const FieldEnclosure good = detail::enclose_field_independent_perturbed(c, {0.3, 0.3}, {}, 0.0);
    const FieldEnclosure bad = detail::enclose_field_independent_perturbed(c, {0.3, 0.3}, {}, 1e-6);
    CHECK(contains_text(good.j, "4.07680979597290545939777306761816"));
    CHECK_FALSE(contains_text(bad.j, "4.07680979597290545939777306761816"));
    CHECK_FALSE(meets(bad.j, fast.j));
    const FieldEnclosure within = enclose_field_independent_within(c, {0.3, 0.3}, {}, fast);
    CHECK(fast.j.lo <= within.j.lo);
    CHECK(within.j.hi <= fast.j.hi);
}
