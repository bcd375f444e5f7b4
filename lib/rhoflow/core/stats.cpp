#include "rhoflow/core/stats.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <numbers>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"

namespace rhoflow {

RHOFLOW_JSON_HOOKS(MeanCI, mean, se, lo, hi, n)
RHOFLOW_JSON_HOOKS(ProportionCI, fraction, lo, hi)

ProportionCI wilson_ci(std::int64_t k, std::int64_t n, double level) {
    require(n >= 1, "n", static_cast<double>(n), "n >= 1 trials");
    require(k >= 0 && k <= n, "k", static_cast<double>(k), "0 <= k <= n");
    require(level > 0 && level < 1, "level", level, "0 < level < 1");
    const double z = boost::math::quantile(boost::math::normal(), 0.5 + 0.5 * level);
    const double kk = static_cast<double>(k), nn = static_cast<double>(n), z2 = z * z;
    const double centre = (kk + 0.5 * z2) / (nn + z2);
    const double half = z * std::sqrt(kk * (nn - kk) / nn + 0.25 * z2) / (nn + z2);
    ProportionCI r;
    r.fraction = kk / nn;
    // At k = 0 (k = n) the lower (upper) end is exactly 0 (1); rounding must not move it.
    r.lo = k == 0 ? 0.0 : std::max(0.0, centre - half);
    r.hi = k == n ? 1.0 : std::min(1.0, centre + half);
    return r;
}
RHOFLOW_JSON_HOOKS(LineFit, slope, intercept, slope_se, intercept_se, n)

void RunningStats::add(double x) noexcept {
    ++n_;
    const double d = x - mean_;
    mean_ += d / static_cast<double>(n_);
    m2_ += d * (x - mean_);
}

void RunningStats::merge(const RunningStats& o) noexcept {
    if (o.n_ == 0) return;
    if (n_ == 0) {
        *this = o;
        return;
    }
    const double na = static_cast<double>(n_), nb = static_cast<double>(o.n_), n = na + nb;
    const double d = o.mean_ - mean_;
    mean_ += d * nb / n;
    m2_ += o.m2_ + d * d * na * nb / n;
    n_ += o.n_;
}

double RunningStats::variance() const noexcept {
    return n_ > 1 ? m2_ / static_cast<double>(n_ - 1) : 0.0;
}

double RunningStats::standard_error() const noexcept {
    return n_ > 0 ? std::sqrt(variance() / static_cast<double>(n_)) : 0.0;
}

MeanCI mean_ci(const std::vector<double>& x, double level) {
    RunningStats s;
    for (double v : x) s.add(v);
    return mean_ci(s, level);
}

MeanCI mean_ci_within(const std::vector<double>& x, double lower, double upper, double level) {
    return clip_ci(mean_ci(x, level), lower, upper);
}

MeanCI clip_ci(MeanCI ci, double lower, double upper) noexcept {
    ci.lo = std::clamp(ci.lo, lower, upper);
    ci.hi = std::clamp(ci.hi, lower, upper);
    return ci;
}

MeanCI mean_ci(const RunningStats& s, double level) {
    MeanCI r;
    r.n = s.count();
    r.mean = s.mean();
    r.se = s.standard_error();
    if (r.n < 2) {
        r.lo = r.hi = r.mean;
        return r;
    }
    const boost::math::students_t t(static_cast<double>(r.n - 1));
    const double q = boost::math::quantile(t, 0.5 + 0.5 * level);
    r.lo = r.mean - q * r.se;
    r.hi = r.mean + q * r.se;
    return r;
}

double quantile(std::vector<double> x, double p) {
    if (x.empty()) throw NumericalError("quantile of an empty sample");
    std::sort(x.begin(), x.end());
    return sorted_quantile(x, p);
}

double sorted_quantile(const std::vector<double>& x, double p) {
    if (x.empty()) throw NumericalError("quantile of an empty sample");
    const double h = (static_cast<double>(x.size()) - 1) * std::clamp(p, 0.0, 1.0);
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, x.size() - 1);
    return x[lo] + (h - static_cast<double>(lo)) * (x[hi] - x[lo]);
}

double kolmogorov_survival(double x) noexcept {
    if (!(x > 0)) return 1.0;
    if (x < 1.0) {
        // CDF = sqrt(2 pi)/x sum_{k>=1} exp(-(2k-1)^2 pi^2 / (8 x^2)).
        const double pi = std::numbers::pi;
        double cdf = 0;
        for (int k = 1; k <= 20; ++k) {
            const double m = 2.0 * k - 1.0;
            cdf += std::exp(-m * m * pi * pi / (8 * x * x));
        }
        return std::clamp(1.0 - std::sqrt(2 * pi) / x * cdf, 0.0, 1.0);
    }
    double s = 0;
    for (int k = 1; k <= 100; ++k) {
        const double term = std::exp(-2.0 * k * k * x * x);
        s += (k % 2 ? 1.0 : -1.0) * term;
        if (term < 1e-18) break;
    }
    return std::clamp(2.0 * s, 0.0, 1.0);
}

KSResult ks_two_sample(std::vector<double> x, std::vector<double> y) {
    if (x.empty() || y.empty()) throw NumericalError("Kolmogorov-Smirnov test of an empty sample");
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    const double n = static_cast<double>(x.size()), m = static_cast<double>(y.size());
    std::size_t i = 0, j = 0;
    double D = 0;
    while (i < x.size() && j < y.size()) {
        const double v = std::min(x[i], y[j]);
        while (i < x.size() && x[i] <= v) ++i;
        while (j < y.size() && y[j] <= v) ++j;
        D = std::max(D, std::abs(static_cast<double>(i) / n - static_cast<double>(j) / m));
    }
    const double ne = n * m / (n + m), sn = std::sqrt(ne);
    return {D, kolmogorov_survival((sn + 0.12 + 0.11 / sn) * D)};
}

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() != y.size() || x.size() < 3)
        throw NumericalError("line fit needs at least 3 points of (x, y)");
    const double n = static_cast<double>(x.size());
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    double sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (!(sxx > 0)) throw NumericalError("line fit: all x values are equal");
    LineFit f;
    f.n = static_cast<std::int64_t>(x.size());
    f.slope = sxy / sxx;
    f.intercept = my - f.slope * mx;
    double rss = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double r = y[i] - f.intercept - f.slope * x[i];
        rss += r * r;
    }
    const double s2 = rss / (n - 2);
    f.slope_se = std::sqrt(s2 / sxx);
    f.intercept_se = std::sqrt(s2 * (1.0 / n + mx * mx / sxx));
    return f;
}

}  // namespace rhoflow
