#include "rhoflow/field/meanfield.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "test_util.hpp"

using namespace rhoflow;
using rhoflow::test::rel_diff;

TEST_CASE("mean-field: reference columns of the independent implementation") {
    for (const auto& r : test::reference_rows()) {
        CAPTURE(describe(r.model));
        const FieldPoint p = meanfield_field(r.model, r.rho);
        CHECK(rel_diff(p.j, r.j_mf) < 1e-13);
        CHECK(rel_diff(p.dj, r.dj_mf) < 1e-13);
        CHECK(rel_diff(p.mass_informative, r.mass_mf) < 1e-13);
    }
}

TEST_CASE("mean-field: closed form at rho = 0 and the autodiff derivatives") {
    const ModelParams m{10, 1000, 100, 2.0, 0.7, 1.3};
    // At rho = 0, w = alpha and j = alpha^2 theta^2 + beta^2 sigma^4.
    const FieldPoint p0 = meanfield_field(m, 0.0);
    CHECK(rel_diff(p0.j, 0.01 * 4.0 + 1.69 * std::pow(0.49, 2)) < 1e-14);
    CHECK(rel_diff(p0.mass_informative, 0.1) < 1e-14);
    // j'' by autodiff against a central difference of the autodiff j'.
    const double rho = 0.37, h = 1e-5;
    const double fd = (meanfield_field(m, rho + h).dj - meanfield_field(m, rho - h).dj) / (2 * h);
    CHECK(rel_diff(meanfield_d2j(m, rho), fd) < 1e-8);
}

TEST_CASE("mean-field: no overflow for sharp attention and degenerate alpha") {
    const ModelParams sharp{10, 100, 10, 50.0, 1.0, 40.0};  // beta theta = 2000
    for (double rho : {-1.0, -0.01, 0.0, 0.01, 1.0}) {
        const FieldPoint p = meanfield_field(sharp, rho);
        CHECK(std::isfinite(p.j));
        CHECK(std::isfinite(p.dj));
    }
    CHECK(meanfield_field(ModelParams{10, 100, 0, 1.0, 1.0, 1.0}, 0.5).dj == 0.0);
    CHECK(meanfield_field(ModelParams{10, 100, 100, 1.0, 1.0, 1.0}, 0.5).mass_informative == 1.0);
}
