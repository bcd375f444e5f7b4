#include "rhoflow/core/stats.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/random.hpp"

using namespace rhoflow;

TEST_CASE("stats: Kolmogorov distribution at tabulated points") {
    // Critical values of sqrt(n) D (Smirnov 1948): 1.2238 -> 0.10, 1.3581 -> 0.05, 1.6276 -> 0.01.
    CHECK(kolmogorov_survival(1.2238) == doctest::Approx(0.10).epsilon(1e-3));
    CHECK(kolmogorov_survival(1.3581) == doctest::Approx(0.05).epsilon(1e-3));
    CHECK(kolmogorov_survival(1.6276) == doctest::Approx(0.01).epsilon(2e-3));
    // The two series agree where they meet.
    CHECK(kolmogorov_survival(0.999999) == doctest::Approx(kolmogorov_survival(1.000001)).epsilon(1e-5));
    CHECK(kolmogorov_survival(0.3) == doctest::Approx(0.99999).epsilon(1e-4));
    CHECK(kolmogorov_survival(0.0) == 1.0);
}

TEST_CASE("stats: two-sample KS accepts equal laws and rejects a shift") {
    RandomStream r(3, 0);
    std::vector<double> a(4000), b(4000), c(4000);
    for (auto& v : a) v = r.normal();
    for (auto& v : b) v = r.normal();
    for (auto& v : c) v = r.normal() + 0.15;
    CHECK(ks_two_sample(a, b).p_value > 1e-3);
    CHECK(ks_two_sample(a, c).p_value < 1e-6);
    // Known statistic: disjoint samples have D = 1.
    CHECK(ks_two_sample({1, 2, 3}, {4, 5, 6, 7}).statistic == 1.0);
    CHECK(ks_two_sample({1, 2, 3, 4}, {1, 2, 3, 4}).statistic == 0.0);
}

TEST_CASE("stats: KS p-values are uniform under the null (false-alarm rate as stated)") {
    // 400 independent two-sample tests of equal laws: about 5% should fall below 0.05.
    int below = 0;
    for (int t = 0; t < 400; ++t) {
        RandomStream r(99, static_cast<std::uint64_t>(t));
        std::vector<double> a(300), b(200);
        for (auto& v : a) v = r.normal();
        for (auto& v : b) v = r.normal();
        below += ks_two_sample(a, b).p_value < 0.05;
    }
    // Binomial(400, 0.05): mean 20, sd 4.4; accept 6..36 (beyond 3.5 sd).
    CHECK(below >= 6);
    CHECK(below <= 36);
}

TEST_CASE("stats: mean, Student-t interval, quantiles, merge") {
    const std::vector<double> x = {1, 2, 3, 4, 5};
    const MeanCI ci = mean_ci(x);
    CHECK(ci.mean == 3.0);
    CHECK(ci.se == doctest::Approx(std::sqrt(2.5 / 5)));
    CHECK(ci.hi - ci.mean == doctest::Approx(2.7764451 * ci.se).epsilon(1e-6));  // t_{0.975,4}
    CHECK(quantile(x, 0.5) == 3.0);
    CHECK(quantile(x, 0.9) == doctest::Approx(4.6));
    CHECK(quantile({7.0}, 0.3) == 7.0);
    RunningStats a, b, all;
    for (int i = 0; i < 10; ++i) {
        (i < 4 ? a : b).add(i * 1.5);
        all.add(i * 1.5);
    }
    a.merge(b);
    CHECK(a.mean() == doctest::Approx(all.mean()));
    CHECK(a.variance() == doctest::Approx(all.variance()));
}

TEST_CASE("stats: least-squares line with standard errors") {
    const std::vector<double> x = {0, 1, 2, 3, 4};
    const std::vector<double> y = {1, 3, 5, 7, 9};
    const LineFit f = fit_line(x, y);
    CHECK(f.slope == doctest::Approx(2.0));
    CHECK(f.intercept == doctest::Approx(1.0));
    CHECK(f.slope_se == doctest::Approx(0.0).epsilon(1e-12));
    const LineFit g = fit_line({0, 1, 2, 3}, {0, 1.1, 1.9, 3.0});
    // By hand: sxx = 5, sxy = 4.9, slope 0.98, intercept 0.03, residuals -0.03, 0.09, -0.09,
    // 0.03, rss = 0.018, slope se = sqrt(rss / (n - 2) / sxx).
    CHECK(g.slope == doctest::Approx(0.98));
    CHECK(g.intercept == doctest::Approx(0.03));
    CHECK(g.slope_se == doctest::Approx(std::sqrt(0.018 / 2 / 5)).epsilon(1e-6));
    CHECK_THROWS_AS(fit_line({1, 1, 1}, {1, 2, 3}), NumericalError);
}
