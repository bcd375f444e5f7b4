// The verdict's tests (effective/verdict.hpp) on laws whose answers are known: closed-form
// binomial p-values, Holm's textbook example, and the false-alarm rate and power of the mean and
// spread tests on a strongly skewed law, where a normal p-value is too optimistic.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "rhoflow/core/random.hpp"
#include "rhoflow/core/stats.hpp"
#include "rhoflow/effective/verdict.hpp"

using namespace rhoflow;

namespace {
// P(X <= k) for X ~ Binomial(n, p), summed term by term.
double binomial_cdf(int k, int n, double p) {
    double s = 0, term = std::pow(1 - p, n);
    for (int i = 0; i <= k; ++i) {
        s += term;
        term *= (n - i) / (i + 1.0) * p / (1 - p);
    }
    return s;
}

// A left-skewed, heavy-tailed law like the plateau's per-trial one: -exp(Z), Z standard normal
// (skewness -6.2).
std::vector<double> skewed(std::size_t n, RandomStream& rng) {
    std::vector<double> x(n);
    for (auto& v : x) v = -std::exp(rng.normal());
    return x;
}

// The standard normal law.
std::vector<double> normals(std::size_t n, RandomStream& rng) {
    std::vector<double> x(n);
    for (auto& v : x) v = rng.normal();
    return x;
}

double sd_of(const std::vector<double>& x) {
    double m = 0, s = 0;
    for (double v : x) m += v / static_cast<double>(x.size());
    for (double v : x) s += (v - m) * (v - m);
    return std::sqrt(s / static_cast<double>(x.size() - 1));
}
}  // namespace

TEST_CASE("verdict: the binomial p-value is the exact two-sided one at the chain's interval end nearest k/n") {
    // chain 2000 of 4000: its 99.9% Wilson interval; 3 of 10 lies below it, so p is taken at its lower end.
    const ProportionCI ci = wilson_ci(2000, 4000, 0.999);
    CHECK(proportion_p_value(3, 10, 2000, 4000) == doctest::Approx(2 * binomial_cdf(3, 10, ci.lo)).epsilon(1e-10));
    // inside the interval the p-value is at k/n itself: 1 (both tails hold k)
    CHECK(proportion_p_value(2000, 4000, 2000, 4000) == doctest::Approx(1.0));
    // the chain never hits and neither does SGA: nothing to reject; one SGA hit against a chain
    // with 0 of 4000 is weighed at the interval's upper end, not at 0
    CHECK(proportion_p_value(0, 30, 0, 4000) == 1.0);
    const double hi = wilson_ci(0, 4000, 0.999).hi;
    CHECK(proportion_p_value(1, 30, 0, 4000) == doctest::Approx(2 * (1 - binomial_cdf(0, 30, hi))).epsilon(1e-10));
    // the case of the issue: 0 of 30 against 89% predicted
    CHECK(proportion_p_value(0, 30, 3576, 4000) < 1e-25);
}

TEST_CASE("verdict: Holm's step-down rejects the textbook example's two smallest") {
    std::vector<VerdictTest> t(4);
    const double p[] = {0.01, 0.04, 0.03, 0.005};
    for (int i = 0; i < 4; ++i) t[static_cast<std::size_t>(i)].p_value = p[i];
    holm(t, 0.05);  // 0.005 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2: stop
    CHECK(t[3].rejected);
    CHECK(t[0].rejected);
    CHECK_FALSE(t[2].rejected);
    CHECK_FALSE(t[1].rejected);
}

TEST_CASE("verdict: the Monte Carlo two-sided p-value counts both tails with the (1 + count) / (1 + B) rule") {
    std::vector<double> null;
    for (int i = 0; i < 100; ++i) null.push_back(i);
    CHECK(two_sided_p(null, 95) == doctest::Approx(2 * 6.0 / 101));
    CHECK(two_sided_p(null, -5) == doctest::Approx(2 * 1.0 / 101));
    CHECK(two_sided_p(null, 49.5) == 1.0);
}

TEST_CASE("verdict: the interquartile range is q75 - q25 of the linear quantiles") {
    CHECK(interquartile_range({4, 1, 3, 2, 5}) == doctest::Approx(2.0));  // q25 = 2, q75 = 4
    CHECK(interquartile_range({0, 1}) == doctest::Approx(0.5));           // 0.75 - 0.25
}

namespace {
double mean_of(const std::vector<double>& x) {
    double m = 0;
    for (double v : x) m += v / static_cast<double>(x.size());
    return m;
}
RowObservation observe(const std::vector<double>& x) {
    return {mean_of(x), sd_of(x), interquartile_range(x), static_cast<std::int64_t>(x.size())};
}
}  // namespace

TEST_CASE("verdict: one trial's rare jump doubles the sd but leaves the spread test (IQR) alone") {
    RandomStream rng(11, 1);
    const std::vector<double> chain = normals(4000, rng);
    std::vector<double> sga = normals(30, rng);
    const double sd = sd_of(sga);
    sga[0] = -12;  // a jump beyond anything in the chain's 4000 paths
    CHECK(sd_of(sga) > 2 * sd);
    const ResampledStats null = resample_mean_sd({chain}, 30, 4000, rng);
    CHECK(two_sided_p(null.sds, sd_of(sga)) < 1e-3);  // the sd would cry wolf
    CHECK(row_p_values(observe(sga), {chain}, 0.0, 4000, rng).spread > 0.01);  // the IQR does not
}

TEST_CASE("verdict: on a skewed law the mean test keeps its false-alarm rate where the normal one does not, and has power") {
    RandomStream rng(42, 1);
    const std::vector<double> chain = skewed(4000, rng);
    const std::int64_t n = 30;
    const int reps = 1500, B = 2000;
    const double level = 0.02, se = sd_of(chain) / std::sqrt(30.0), centre = -std::exp(0.5);
    int ours = 0, ours_low = 0, normal_low = 0, shifted = 0, spread = 0;
    for (int r = 0; r < reps; ++r) {
        const std::vector<double> sga = skewed(static_cast<std::size_t>(n), rng);  // the right theory
        const RowObservation o = observe(sga);
        const RowPValues p = row_p_values(o, {chain}, 0.0, B, rng);
        ours += p.mean < level;
        ours_low += p.mean < level && o.mean < centre;           // its lower tail, one-sided level / 2
        normal_low += (o.mean - centre) / se < -2.3263478740408408;  // the normal lower tail at 0.01
        RowObservation moved = o;
        moved.mean += 3 * se;
        shifted += row_p_values(moved, {chain}, 0.0, B, rng).mean < level;
        spread += p.spread < level;
    }
    // Stated false-alarm rates with the right theory: `ours` and `spread` are Binomial(1500,
    // <= 0.02) (mean <= 30, sd 5.4; above 52 with probability < 1e-4); the lower tails are
    // Binomial(1500, <= 0.01) (mean <= 15, sd 3.9; above 31 with probability < 1e-4).
    MESSAGE("p < 0.02 in 1500: ours ", ours, ", spread ", spread, "; lower tail at 0.01: ours ", ours_low, ", normal ",
            normal_low, "; shifted by 3 SE: ", shifted);
    CHECK(ours <= 52);
    CHECK(spread <= 52);
    CHECK(ours_low <= 31);
    CHECK(normal_low > 31);  // skewness -6 at n = 30: the normal lower tail is too thin
    CHECK(shifted > reps / 4);  // the studentized null of a law this skewed has a heavy upper tail: 37% power at 3 SE
}

TEST_CASE("verdict: the spread test catches a spread twice the chain's, and the studentized mean test does not fail") {
    RandomStream rng(7, 1);
    const std::vector<double> chain = normals(4000, rng);
    const std::int64_t n = 30;
    int caught = 0, mean_alarms = 0;
    for (int r = 0; r < 400; ++r) {
        std::vector<double> sga = normals(static_cast<std::size_t>(n), rng);
        for (auto& v : sga) v = 2 * v;  // the same mean (0), twice the spread
        const RowPValues p = row_p_values(observe(sga), {chain}, 0.0, 2000, rng);
        caught += p.spread < 0.02;
        mean_alarms += p.mean < 0.02;
    }
    MESSAGE("spread x 2: spread test p < 0.02 in ", caught, " of 400; mean test in ", mean_alarms);
    CHECK(caught > 200);
    CHECK(mean_alarms <= 8 + 4 * 3);  // Binomial(400, <= 0.02): mean 8, sd 2.8
}

TEST_CASE("verdict: two replicas whose means differ widen the null by their spread (the bank's error)") {
    // Replicas of the same law shifted by -+0.3: the trials' mean 0.25 off the pooled centre is
    // 1.4 of their 30-trial SE (0.18) -- rejected without the bank's error, not with it.
    RandomStream rng(3, 1);
    std::vector<double> a = normals(2000, rng), b = normals(2000, rng), one;
    for (auto& x : a) x -= 0.3;
    for (auto& x : b) x += 0.3;
    one.insert(one.end(), a.begin(), a.end());
    one.insert(one.end(), b.begin(), b.end());
    const double centre = mean_of(one);
    int with = 0, without = 0;
    for (int r = 0; r < 200; ++r) {
        std::vector<double> sga = normals(30, rng);
        for (auto& x : sga) x += centre + 0.5;  // 0.5 off: inside the replicas' spread, 2.7 SE
        with += row_p_values(observe(sga), {a, b}, 0.0, 2000, rng).mean < 0.02;
        without += row_p_values(observe(sga), {one}, 0.0, 2000, rng).mean < 0.02;  // one replica: no bank term
    }
    MESSAGE("0.5 off among replicas 0.6 apart: rejected ", with, " of 200 with the bank's error, ", without, " without");
    CHECK(without > 100);
    CHECK(with < without / 2);
}

TEST_CASE("verdict: the hit-time test's distance steps past ties, and its null is drawn only from replicas with enough hits") {
    RandomStream rng(5, 1);
    const KSResult same = hit_time_test({1, 1, 2, 3}, {{1, 1, 2, 3}}, 2000, rng);
    CHECK(same.statistic == doctest::Approx(0.0));
    CHECK(same.p_value == doctest::Approx(1.0));
    std::vector<double> grid;  // a chain whose hits are 1 ... 10 equally often
    for (int k = 0; k < 400; ++k) grid.push_back(1 + k % 10);
    const KSResult early = hit_time_test({1, 1, 1, 1, 1, 1, 2, 2, 2, 2}, {grid}, 2000, rng);
    CHECK(early.statistic == doctest::Approx(0.8));  // at 1: 0.6 against 0.1; at 2: 1 against 0.2
    CHECK(early.p_value < 0.01);
    CHECK(hit_time_replicas(10, {grid, {1, 2, 3}}) == 1);  // 3 hits cannot make a null
    const KSResult none = hit_time_test({1, 2, 3, 4, 5, 6}, {{1, 2, 3}}, 2000, rng);
    CHECK(none.p_value == 1.0);
}

TEST_CASE("verdict: a replica with half its paths on one value (IQR 0) leaves the spread untested, not failed") {
    RandomStream rng(13, 1);
    std::vector<double> clamped(4000, 1.0);  // a chain clamped at the pole
    for (std::size_t i = 0; i < 500; ++i) clamped[i] = 1 - 1e-3 * rng.uniform();  // q25 = q75 = 1
    const std::vector<double> sga = normals(30, rng);
    const RowPValues p = row_p_values(observe(sga), {clamped, clamped}, 0.0, 2000, rng);
    CHECK(p.spread == 1.0);
}

TEST_CASE("verdict: the null's floor is 2 / (draws + 1), and a field far off is rejected at any floor below alpha/m") {
    RandomStream rng(9, 1);
    const std::vector<double> chain = normals(4000, rng);
    std::vector<double> sga = normals(30, rng);
    for (auto& x : sga) x += 5;  // 27 SE off
    const RowPValues p = row_p_values(observe(sga), {chain}, 0.0, 99999, rng);
    CHECK(p.floor == doctest::Approx(2e-5));
    CHECK(p.mean == doctest::Approx(p.floor));
}

TEST_CASE("verdict: the parts and the sentence say which part failed") {
    std::vector<VerdictTest> t = {{"mean", "mean at t = 1", 0.5, 0.5, 0.4, 1e-4, false},
                                  {"spread", "IQR at t = 1", 0.1, 0.1, 0.3, 1e-4, false},
                                  {"hit_fraction", "hit fraction 0/30 against 0.89 predicted", 0, 0.89, 1e-20, 0.0, false}};
    holm(t, 0.05);
    const std::vector<VerdictPart> parts = verdict_parts(t);
    REQUIRE(parts.size() == 3);
    CHECK(parts[2].rejected == 1);
    CHECK(parts[0].rejected == 0);
    const std::string s = verdict_sentence(parts);
    CHECK(s.find("the field is consistent") != std::string::npos);
    CHECK(s.find("the fluctuations are not (hit fraction 0/30 against 0.89 predicted") != std::string::npos);
}
