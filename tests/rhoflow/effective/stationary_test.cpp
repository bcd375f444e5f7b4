// The stationary law of the constant-step chain: the quadrature against diffusions with a
// closed-form stationary density, and the prediction against a long constant-step SGA run.
#include "rhoflow/effective/stationary.hpp"

#include <boost/math/distributions/normal.hpp>
#include <doctest/doctest.h>

#include <cmath>

#include "rhoflow/core/stats.hpp"
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/stochastic/ensemble.hpp"
#include "test_util.hpp"

using namespace rhoflow;

namespace {

// Mean and sd of a normal N(m, s^2) truncated to [lo, hi] (closed form), for a variable that
// stays positive there (so |rho| = rho).
std::pair<double, double> truncated_normal(double m, double s, double lo, double hi) {
    const boost::math::normal n;
    const double a = (lo - m) / s, b = (hi - m) / s;
    const double Z = boost::math::cdf(n, b) - boost::math::cdf(n, a);
    const double pa = boost::math::pdf(n, a), pb = boost::math::pdf(n, b);
    const double mean = m + s * (pa - pb) / Z;
    const double var = s * s * (1 + (a * pa - b * pb) / Z - (pa - pb) * (pa - pb) / (Z * Z));
    return {mean, std::sqrt(var)};
}

}  // namespace

TEST_CASE("stationary: an Ornstein-Uhlenbeck diffusion gives its (truncated) normal law") {
    // d rho = -kappa (rho - m) dt + sqrt(eta v) dW: stationary N(m, eta v / (2 kappa)), cut at 1.
    const double kappa = 2.0, v = 0.5, eta = 0.04;
    const double s = std::sqrt(eta * v / (2 * kappa));
    for (const double m : {0.3, 0.95}) {
        CAPTURE(m);
        auto a = [&](double r) { return -kappa * (r - m); };
        auto vv = [&](double) { return v; };
        const DiffusionMoments d = diffusion_stationary_moments(a, vv, eta, 0.0, 1.0, 2000);
        const auto [mean, sd] = truncated_normal(m, s, 0.0, 1.0);
        CHECK(d.mean == doctest::Approx(mean).epsilon(1e-9));
        CHECK(d.sd == doctest::Approx(sd).epsilon(1e-8));
        CHECK(d.quadrature_err < 1e-9);
    }
}

TEST_CASE("stationary: a state-dependent variance enters through exp(int 2a/(eta v))/v") {
    // Choose a so that the density is exactly N(m, s^2): d/drho log p = 2a/(eta v) - v'/v must be
    // -(rho - m)/s^2, i.e. a = (eta/2) (v' - v (rho - m)/s^2). A code that forgot the 1/v factor
    // (or used a constant v) would get another law.
    const double m = 0.6, s = 0.08, eta = 0.02;
    auto v = [](double r) { return 0.2 + r * r; };
    auto a = [&](double r) { return 0.5 * eta * (2 * r - v(r) * (r - m) / (s * s)); };
    const DiffusionMoments d = diffusion_stationary_moments(a, v, eta, 0.0, 1.0, 4000);
    const auto [mean, sd] = truncated_normal(m, s, 0.0, 1.0);
    CHECK(d.mean == doctest::Approx(mean).epsilon(1e-8));
    CHECK(d.sd == doctest::Approx(sd).epsilon(1e-7));
}

TEST_CASE("stationary: the predicted plateau agrees with a long constant-step SGA run") {
    // A small model with a large step, so that the plateau is well below 1 and the chain mixes
    // within the run. The run: 24 trials of 6000 steps from rho0 = 0.9; the second half of each
    // trial is averaged (its time average); the trials' averages give a mean with a standard
    // error (independent trials). The two must agree within 4 combined standard errors: a false
    // alarm has probability about 6e-5 for a correct prediction (the prediction's own O(eta)
    // diffusion-approximation error is far below these errors here: checked at eta / 2).
    const ModelParams m{20, 200, 40, 1.0, 1.0, 1.0};
    const double eta = 0.05;
    StationaryParams sp;
    sp.moments.samples = 4000;
    const StationaryLaw law = stationary_law(m, eta, UpdateRule::normalized, sp);

    SgaParams p;
    p.steps = 6000;
    p.trials = 24;
    p.seed = 77;
    p.rho0 = 0.9;
    p.schedule = {eta, 100, 0.0};
    const EnsembleResult r = run_ensemble(m, p);
    const MeanCI run = r.summary.abs_rho_last_half;  // per trial: the time average of |rho| over steps 3000..6000
    CAPTURE(law.mean);
    CAPTURE(law.mean_err);
    CAPTURE(run.mean);
    CAPTURE(run.se);
    CHECK(std::abs(run.mean - law.mean) < 4 * std::hypot(run.se, law.mean_err));
    CHECK(law.mean < 0.97);  // a real plateau, not the ODE's 1
    CHECK(std::abs(run.mean - 1.0) > 10 * run.se);  // and the plain ODE is far off
}
