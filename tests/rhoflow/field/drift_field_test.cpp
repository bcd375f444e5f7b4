#include "rhoflow/field/drift_field.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/field/meanfield.hpp"

using namespace rhoflow;

TEST_CASE("drift field: the exact table reproduces direct exact evaluations within its bound") {
    for (const ModelParams& m : {ModelParams{100, 10500, 500, 3.0, 1.0, 1.0}, ModelParams{64, 300, 1, 3.0, 0.5, 2.0},
                                 ModelParams{2, 12, 3, 1.5, 1.0, 1.0}}) {
        CAPTURE(describe(m));
        const DriftField f = DriftField::exact(m);
        CHECK(f.dj_error() < 1e-10 * f.j(1.0));
        for (double rho : {-0.987, -0.5, 0.013, 0.31, 0.999}) {
            CAPTURE(rho);
            const FieldPoint p = exact_field(m, rho);
            CHECK(std::abs(f.dj(rho) - p.dj) <= f.dj_error() + p.dj_err);
            CHECK(std::abs(f.j(rho) - p.j) <= 1e-11 * p.j);
            CHECK(std::abs(f.mass(rho) - p.mass_informative) <= 1e-10 * p.mass_informative + 1e-14);
            CHECK(f.drift(rho) == doctest::Approx((1 - rho * rho) * f.dj(rho)));
            // j'' against a central difference of the exact j' (error ~h^2 j'''' + 2 err/h).
            const double h = 1e-4;
            const double fd = (exact_field(m, rho + h).dj - exact_field(m, rho - h).dj) / (2 * h);
            CHECK(std::abs(f.d2j(rho) - fd) <= f.d2j_error() + 1e-6 * (1 + std::abs(fd)));
        }
    }
}

TEST_CASE("drift field: mean-field is the closed form, flat fields are flagged") {
    const ModelParams m{10, 1000, 100, 2.0, 1.0, 1.0};
    const DriftField f = DriftField::meanfield(m);
    CHECK(f.dj(0.3) == meanfield_field(m, 0.3).dj);
    CHECK(f.d2j(0.3) == meanfield_d2j(m, 0.3));
    CHECK_FALSE(f.flat());
    CHECK(DriftField::meanfield(ModelParams{10, 1000, 0, 2.0, 1.0, 1.0}).flat());
    CHECK(DriftField::exact(ModelParams{10, 100, 5, 0.0, 1.0, 1.0}).flat());
}

TEST_CASE("drift field: only exact and meanfield can drive the ODE, and the message says so") {
    CHECK(parse_drift_method("meanfield") == DriftMethod::meanfield);
    try {
        parse_drift_method("montecarlo");
        FAIL("no exception");
    } catch (const InvalidArgument& e) {
        CHECK(e.field() == "field");
        CHECK(std::string(e.what()).find("accepted: exact, meanfield)") != std::string::npos);
    }
}

TEST_CASE("drift field: scaled() multiplies j' and F and records the factor, leaving j alone") {
    const ModelParams m{10, 100, 20, 1.0, 1.0, 1.0};
    const DriftField f = DriftField::meanfield(m), g = f.scaled(1.3);
    for (double r : {-0.7, 0.0, 0.4, 0.9}) {
        CHECK(g.dj(r) == doctest::Approx(1.3 * f.dj(r)).epsilon(1e-15));
        CHECK(g.drift(r) == doctest::Approx(1.3 * f.drift(r)).epsilon(1e-15));
        CHECK(g.j(r) == f.j(r));
    }
    CHECK(g.info().scale == 1.3);
    CHECK(f.info().scale == 1.0);
}