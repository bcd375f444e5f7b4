// StepSchedule: times_at, time_at and steps_at against a brute-force summation of eta_k, and
// the times themselves against closed forms (constant step, harmonic numbers).
#include "rhoflow/stochastic/schedule.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/cancel.hpp"

using namespace rhoflow;

namespace {

// eta_k written out from the header's formula, independently of StepSchedule::eta.
double eta_formula(const StepSchedule& s, std::int64_t k) {
    return s.eta0 / std::pow(1.0 + static_cast<double>(k) / s.k0, s.gamma);
}

// t_0 ... t_K by the same left-to-right summation the header promises.
std::vector<double> brute_times(const StepSchedule& s, std::int64_t K) {
    std::vector<double> t(static_cast<std::size_t>(K) + 1, 0.0);
    for (std::int64_t k = 0; k < K; ++k) t[static_cast<std::size_t>(k) + 1] = t[static_cast<std::size_t>(k)] + eta_formula(s, k);
    return t;
}

// The first k <= K with t_k >= target, K if none, by a linear scan.
std::int64_t brute_step(const std::vector<double>& t, double target) {
    const auto K = static_cast<std::int64_t>(t.size()) - 1;
    for (std::int64_t k = 0; k <= K; ++k)
        if (t[static_cast<std::size_t>(k)] >= target) return k;
    return K;
}

const std::vector<StepSchedule> kSchedules = {
    {0.5, 100, 0.0}, {0.5, 100, 1.0}, {0.3, 7.5, 0.5}, {0.01, 5000, 1.0}, {2.0, 3, 0.75}, {1e-3, 1, 0.3},
};

}  // namespace

TEST_CASE("schedule: eta_k at hand-computed values") {
    // eta0 / (1 + k/k0)^gamma worked by hand, so that eta_formula (the brute-force reference of
    // the sums below, which re-types the formula) is not the only statement of it.
    CHECK(StepSchedule{0.5, 100, 1.0}.eta(100) == 0.25);             // 0.5 / 2
    CHECK(StepSchedule{0.5, 100, 1.0}.eta(300) == 0.125);            // 0.5 / 4
    CHECK(StepSchedule{2.0, 3, 0.5}.eta(9) == doctest::Approx(1.0)); // 2 / sqrt(4)
    CHECK(StepSchedule{0.3, 7.5, 0.0}.eta(1000000) == 0.3);          // gamma = 0: constant
    CHECK(StepSchedule{0.01, 5000, 0.5}.eta(15000) == doctest::Approx(0.005).epsilon(1e-15));  // 0.01 / sqrt(4)
    CHECK(StepSchedule{0.5, 100, 1.0}.eta(0) == 0.5);
}

TEST_CASE("schedule: eta_k, times_at and time_at equal the brute-force sum bit for bit") {
    const std::int64_t K = 3000;
    for (const auto& s : kSchedules) {
        CAPTURE(s.eta0);
        CAPTURE(s.k0);
        CAPTURE(s.gamma);
        const auto t = brute_times(s, K);
        for (std::int64_t k : {0, 1, 2, 99, 100, 101, 2999}) CHECK(s.eta(k) == eta_formula(s, k));
        const std::vector<std::int64_t> steps = {0, 0, 1, 2, 17, 100, 1000, 2999, 3000};
        const auto got = s.times_at(steps);
        REQUIRE(got.size() == steps.size());
        for (std::size_t i = 0; i < steps.size(); ++i) {
            CAPTURE(steps[i]);
            CHECK(got[i] == t[static_cast<std::size_t>(steps[i])]);
            CHECK(s.time_at(steps[i]) == t[static_cast<std::size_t>(steps[i])]);
        }
        CHECK(s.time_at(K) == s.times_at({K}).front());
        CHECK(s.times_at({}).empty());
    }
}

TEST_CASE("schedule: the times against closed forms") {
    // gamma = 0: t_K = K eta0 (exact in binary for eta0 = 0.5).
    const StepSchedule c{0.5, 100, 0.0};
    CHECK(c.time_at(1000) == 500.0);
    // gamma = 1, k0 = 1: eta_k = eta0 / (1 + k), t_K = eta0 H_K.
    const StepSchedule h{0.25, 1, 1.0};
    long double H = 0;
    for (int k = 1; k <= 5000; ++k) H += 1.0L / k;
    CHECK(h.time_at(5000) == doctest::Approx(static_cast<double>(0.25L * H)).epsilon(1e-12));
    // Harmonic growth: H_K = ln K + Euler-Mascheroni + 1/(2K) - 1/(12 K^2) + O(K^-4).
    const double K = 5000;
    CHECK(h.time_at(5000) ==
          doctest::Approx(0.25 * (std::log(K) + 0.57721566490153286 + 1 / (2 * K) - 1 / (12 * K * K))).epsilon(1e-13));
}

TEST_CASE("schedule: steps_at against a linear scan (between, on, before and beyond the t_k)") {
    const std::int64_t K = 2000;
    for (const auto& s : kSchedules) {
        CAPTURE(s.gamma);
        CAPTURE(s.k0);
        const auto t = brute_times(s, K);
        std::vector<double> targets = {-1.0, 0.0};
        for (std::int64_t k : {1, 2, 3, 50, 99, 100, 101, 1500, 1999, 2000}) {
            const double tk = t[static_cast<std::size_t>(k)];
            targets.push_back(std::nextafter(tk, 0.0));                  // just below t_k: k
            targets.push_back(tk);                                       // exactly t_k: k
            targets.push_back(std::nextafter(tk, INFINITY));             // just above: k + 1
            if (k < K) targets.push_back(0.5 * (tk + t[static_cast<std::size_t>(k) + 1]));  // between
        }
        targets.push_back(t.back() * 1.5);  // beyond t_K: K
        targets.push_back(INFINITY);
        std::sort(targets.begin(), targets.end());
        const auto got = s.steps_at(targets, K);
        REQUIRE(got.size() == targets.size());
        for (std::size_t i = 0; i < targets.size(); ++i) {
            CAPTURE(targets[i]);
            CHECK(got[i] == brute_step(t, targets[i]));
            // One call per target agrees with the one-pass call.
            CHECK(s.steps_at({targets[i]}, K).front() == got[i]);
        }
        // Spot checks of the definition: exactly on t_k gives k, just above gives k + 1.
        CHECK(s.steps_at({t[100]}, K).front() == 100);
        CHECK(s.steps_at({std::nextafter(t[100], INFINITY)}, K).front() == 101);
        CHECK(s.steps_at({t.back() + 1}, K).front() == K);
        CHECK(s.steps_at({5.0}, 0).front() == 0);
    }
}

TEST_CASE("schedule: times_at and steps_at stop on a requested CancelFlag, and only then") {
    const StepSchedule s{0.5, 100, 1.0};
    CancelFlag flag;
    CancelScope scope(&flag);
    const std::vector<std::int64_t> steps = {10, 1000000};
    CHECK(s.times_at(steps).size() == 2);
    CHECK(s.steps_at({1.0, 1e9}, 1000000).size() == 2);
    flag.request();
    CHECK_THROWS_AS(s.times_at(steps), Interrupted);
    CHECK_THROWS_AS(s.steps_at({1.0, 1e9}, 1000000), Interrupted);
    CHECK(s.time_at(1000) > 0);  // time_at (noexcept, for validation) is not interruptible
}
