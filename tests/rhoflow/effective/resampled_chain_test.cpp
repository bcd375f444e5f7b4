// The resampled effective chain (effective/resampled_chain.hpp) against the real chain (the
// exact reduced sampler, run long) where the Gaussian chain of effective.hpp is wrong: the
// upper tail of the plateau at a constant step, and the hits of a large-step schedule.
#include "rhoflow/effective/resampled_chain.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/stats.hpp"
#include "rhoflow/effective/step_moments.hpp"
#include "rhoflow/stochastic/ensemble.hpp"
#include "rhoflow/stochastic/reduced_sampler.hpp"
#include "test_util.hpp"

using namespace rhoflow;

namespace {
const ModelParams kDefault{50, 1000, 100, 1.0, 1.0, 1.0};  // the embedded default experiment's model

// Fraction of the states of a chain at or above `level` and its 99.9% quantile, after a burn-in.
struct Tail {
    double above = 0, q999 = 0;
};
template <class Step>
Tail long_run(double rho0, std::int64_t burn, std::int64_t n, double level, Step&& step) {
    double r = rho0;
    for (std::int64_t k = 0; k < burn; ++k) r = step(r);
    std::vector<double> xs;
    xs.reserve(static_cast<std::size_t>(n));
    std::int64_t above = 0;
    for (std::int64_t k = 0; k < n; ++k) {
        r = step(r);
        xs.push_back(r);
        above += r >= level;
    }
    return {static_cast<double>(above) / static_cast<double>(n), quantile(xs, 0.999)};
}
}  // namespace

TEST_CASE("resampled chain: the bank holds the moment tables' draws, and one step has the tables' mean and variance") {
    const ModelParams m{10, 400, 60, 1.5, 1.0, 1.0};
    const DriftField F = DriftField::make(m, DriftMethod::exact);
    const double eta = 0.02;
    const StepMomentTable table = measure_step_moments(m, F, eta, UpdateRule::normalized, {16, 2000, 7, 0}, 3);
    const GradientBank bank = sample_gradient_bank(m, {16, 2000, 7, 3, 0});
    REQUIRE(bank.rho.size() == 17);
    CHECK(bank.rho.front() == -1.0);
    CHECK(bank.rho.back() == 1.0);
    CHECK(std::is_sorted(bank.rho.begin(), bank.rho.end()));
    // The same streams: the bank's draws are the ones the table's a and v were measured from, so
    // the bank's plain mean step equals the table's up to the control variate's correction.
    const ResampledChain chain(bank, F, UpdateRule::normalized);
    for (const auto& node : table.nodes) {
        if (std::abs(node.rho) > 0.999) continue;  // the ends: s = 0, no drift to compare
        CAPTURE(node.rho);
        RandomStream rng(11, static_cast<std::uint64_t>(std::llround(1e6 * (node.rho + 1))));
        RunningStats x;
        for (int i = 0; i < 40000; ++i) x.add((chain.step(node.rho, eta, rng) - node.rho) / eta);
        // a: the chain resamples 2000 stored draws, so its mean carries the bank's own error
        // (about the plain estimate's, sd/sqrt(2000)) beside its 40000 draws' error.
        const double sd = std::sqrt(x.variance());
        CHECK(std::abs(x.mean() - node.a) < 4 * (sd / std::sqrt(2000.0) + sd / std::sqrt(40000.0)) + 4 * node.a_err);
        CHECK(std::abs(x.variance() - node.v) < 5 * node.v_err + 0.05 * node.v);
    }
}

TEST_CASE("resampled chain: the plateau's upper tail at constant eta = 0.03 is the real chain's, not the Gaussian chain's") {
    const double eta = 0.03, level = 0.98;
    const DriftField F = DriftField::make(kDefault, DriftMethod::exact);
    // The real chain: the exact reduced sampler, 1e5 steps after 3000 of burn-in (about 4 s).
    ReducedSampler sampler(kDefault);
    RandomStream real_rng(1, 0, 77);
    const Tail real = long_run(0.95, 3000, 100000, level, [&](double r) {
        return sampler.step(r, eta, UpdateRule::normalized, real_rng);
    });
    // The resampled chain, 1e6 steps.
    const ResampledChain chain(sample_gradient_bank(kDefault, {32, 2000, 1, 0, 0}), F, UpdateRule::normalized);
    RandomStream chain_rng(1, 0, 78);
    const Tail resampled = long_run(0.95, 3000, 1000000, level, [&](double r) { return chain.step(r, eta, chain_rng); });
    // The Gaussian chain with the same step's mean and variance (effective.hpp).
    const EffectiveDrift drift(F, {measure_step_moments(kDefault, F, eta, UpdateRule::normalized, {32, 2000, 1, 0}, 0)});
    RandomStream gauss_rng(1, 0, 79);
    const Tail gaussian = long_run(0.95, 3000, 1000000, level, [&](double r) {
        return std::clamp(r + eta * drift.a(r, eta) + eta * std::sqrt(drift.v(r, eta)) * gauss_rng.normal(), -1.0, 1.0);
    });
    MESSAGE("P(rho >= 0.98): real ", real.above, ", resampled ", resampled.above, ", Gaussian ", gaussian.above);
    MESSAGE("99.9% quantile: real ", real.q999, ", resampled ", resampled.q999, ", Gaussian ", gaussian.q999);
    // The 99.9% quantile of 1e5 correlated states: its sampling error is a few 1e-4 (the chain
    // decorrelates in about 1/(eta |a'|) ~ 100 steps, so about 1000 independent states).
    // Measured (seed as here): real 0.97785, resampled 0.97806, Gaussian 0.98621; P(rho >= 0.98)
    // 2.2e-4, 2.4e-4 and 7.2e-3.
    CHECK(std::abs(resampled.q999 - real.q999) < 1e-3);
    CHECK(gaussian.q999 - real.q999 > 5e-3);  // the defect the resampled chain removes
    CHECK(resampled.above < 3 * real.above + 1e-4);
    CHECK(gaussian.above > 3 * real.above + 1e-4);
}
