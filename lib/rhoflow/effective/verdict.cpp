#include "rhoflow/effective/verdict.hpp"

#include <algorithm>
#include <array>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/stats.hpp"

namespace rhoflow {

double interquartile_range(std::vector<double> x) {
    // stats.hpp's quantile (linear between order statistics) with two partial sorts
    if (x.empty()) return 0;
    auto at = [&](double p) {
        const double h = (static_cast<double>(x.size()) - 1) * p;
        const auto lo = static_cast<std::size_t>(std::floor(h));
        std::nth_element(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(lo), x.end());
        const double xlo = x[lo];
        if (lo + 1 >= x.size()) return xlo;
        const double xhi = *std::min_element(x.begin() + static_cast<std::ptrdiff_t>(lo) + 1, x.end());
        return xlo + (h - static_cast<double>(lo)) * (xhi - xlo);
    };
    const double q75 = at(0.75);
    return q75 - at(0.25);
}

double two_sided_p(const std::vector<double>& null, double observed) {
    const auto B = static_cast<double>(null.size());
    double below = 0, above = 0;
    for (double x : null) {
        below += x <= observed;
        above += x >= observed;
    }
    return std::min(1.0, 2 * std::min(below + 1, above + 1) / (B + 1));
}

namespace {
double mean_of(const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(std::max<std::size_t>(1, v.size()));
}
double sd_of(const std::vector<double>& v) {
    RunningStats s;
    for (double x : v) s.add(x);
    return v.size() > 1 ? std::sqrt(s.variance()) : 0.0;
}
double log_iqr(const std::vector<double>& v) { return std::log(interquartile_range(v)); }
// tau sqrt(1 + 1/K) T_{K-1}: a new value's deviation from the mean of K replicas spread tau.
double predictive(double tau, std::size_t K, RandomStream& rng) {
    if (K < 2 || !(tau > 0)) return 0;
    const auto dof = static_cast<std::int64_t>(K - 1);
    const double t = rng.normal() / std::sqrt(rng.chi_squared(dof) / static_cast<double>(dof));
    return tau * std::sqrt(1 + 1.0 / static_cast<double>(K)) * t;
}
}  // namespace

ResampledStats resample_mean_sd(const Replicas& values, std::int64_t n, int draws, RandomStream& rng) {
    ResampledStats out;
    if (values.empty() || n < 2) return out;
    std::vector<double> centre, log_centre;
    for (const auto& v : values) {
        centre.push_back(mean_of(v));
        log_centre.push_back(log_iqr(v));
    }
    const auto N = static_cast<double>(n);
    const auto K = static_cast<double>(values.size());
    std::vector<double> x(static_cast<std::size_t>(n));
    for (int b = 0; b < draws; ++b) {
        const auto r = std::min(values.size() - 1, static_cast<std::size_t>(rng.uniform() * K));
        const std::vector<double>& v = values[r];
        const auto P = static_cast<double>(v.size());
        double s = 0, s2 = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {  // hot loop: one uniform and one lookup per draw
            x[i] = v[std::min(v.size() - 1, static_cast<std::size_t>(rng.uniform() * P))];
            s += x[i];
            s2 += x[i] * x[i];
        }
        const double m = s / N;
        out.means.push_back(m - centre[r]);
        out.sds.push_back(std::sqrt(std::max(0.0, (s2 - N * m * m) / (N - 1))));
        out.log_iqrs.push_back(std::log(interquartile_range(x)) - log_centre[r]);
    }
    return out;
}

RowPValues row_p_values(const RowObservation& obs, const Replicas& values, double extra_se, int draws,
                        RandomStream& rng) {
    RowPValues out;
    out.floor = 2.0 / (draws + 1.0);
    if (values.empty() || obs.trials < 2) return out;
    std::vector<double> all, means, logs;
    for (const auto& v : values) {
        all.insert(all.end(), v.begin(), v.end());
        means.push_back(mean_of(v));
        logs.push_back(log_iqr(v));
    }
    const double centre = mean_of(all), log_centre = log_iqr(all);
    const double tau_mean = sd_of(means);
    const bool finite_logs = std::all_of(logs.begin(), logs.end(), [](double l) { return std::isfinite(l); });
    const double tau_log = finite_logs ? sd_of(logs) : 0.0;
    const ResampledStats r = resample_mean_sd(values, obs.trials, draws, rng);
    std::vector<double> d_mean, d_log;
    for (std::size_t b = 0; b < r.means.size(); ++b) {
        const double scale = r.sds[b] > 0 ? obs.sd / r.sds[b] : 1.0;  // studentized
        d_mean.push_back(scale * r.means[b] + predictive(tau_mean, values.size(), rng) + extra_se * rng.normal());
        d_log.push_back(log_centre + r.log_iqrs[b] + predictive(tau_log, values.size(), rng));
    }
    out.mean = two_sided_p(d_mean, obs.mean - centre);
    // A replica whose IQR is 0 (half its paths on one value, e.g. clamped at rho = 1) has no log
    // scale: the spread is then not tested (p = 1) rather than compared with NaN draws.
    out.spread = finite_logs && std::isfinite(log_centre) ? two_sided_p(d_log, std::log(obs.iqr)) : 1.0;
    return out;
}

double proportion_p_value(std::int64_t k, std::int64_t n, const std::vector<std::int64_t>& chain_k,
                          const std::vector<std::int64_t>& chain_n) {
    double lower = 0, upper = 0;
    const auto kd = static_cast<double>(k);
    for (std::size_t r = 0; r < chain_k.size(); ++r) {
        const ProportionCI ci = wilson_ci(chain_k[r], chain_n[r], 0.999);
        const double p = std::clamp(kd / static_cast<double>(n), ci.lo, ci.hi);
        if (p <= 0 || p >= 1) {  // a degenerate binomial: all its mass at 0 or n
            const double at = p <= 0 ? 0.0 : static_cast<double>(n);
            lower += kd >= at;
            upper += kd <= at;
            continue;
        }
        const boost::math::binomial_distribution<double> B(static_cast<double>(n), p);
        lower += boost::math::cdf(B, kd);
        upper += k == 0 ? 1.0 : boost::math::cdf(boost::math::complement(B, kd - 1));
    }
    const auto K = static_cast<double>(chain_k.size());
    return std::min(1.0, 2 * std::min(lower, upper) / K);
}

double proportion_p_value(std::int64_t k, std::int64_t n, std::int64_t chain_k, std::int64_t chain_n) {
    return proportion_p_value(k, n, std::vector<std::int64_t>{chain_k}, std::vector<std::int64_t>{chain_n});
}

namespace {
// sup |F_x - F_y| of two sorted samples, ties handled by stepping past equal values together.
double ks_distance(const std::vector<double>& x, const std::vector<double>& y) {
    const auto nx = static_cast<double>(x.size()), ny = static_cast<double>(y.size());
    std::size_t i = 0, j = 0;
    double d = 0;
    while (i < x.size() && j < y.size()) {
        const double v = std::min(x[i], y[j]);
        while (i < x.size() && x[i] == v) ++i;
        while (j < y.size() && y[j] == v) ++j;
        d = std::max(d, std::abs(static_cast<double>(i) / nx - static_cast<double>(j) / ny));
    }
    return d;
}
}  // namespace

std::size_t hit_time_replicas(std::size_t n, const Replicas& chain) {
    return static_cast<std::size_t>(std::count_if(chain.begin(), chain.end(), [&](const auto& v) {
        return v.size() >= std::max<std::size_t>(5, n / 2);
    }));
}

KSResult hit_time_test(const std::vector<double>& sga, const Replicas& chain, int draws, RandomStream& rng) {
    std::vector<double> pooled;
    for (const auto& v : chain) pooled.insert(pooled.end(), v.begin(), v.end());
    std::sort(pooled.begin(), pooled.end());
    std::vector<double> x = sga;
    std::sort(x.begin(), x.end());
    KSResult out{ks_distance(x, pooled), 1.0};
    std::vector<const std::vector<double>*> usable;
    for (const auto& v : chain)
        if (v.size() >= std::max<std::size_t>(5, x.size() / 2)) usable.push_back(&v);
    if (usable.empty() || x.empty()) return out;
    const auto K = static_cast<double>(usable.size());
    double above = 0;
    for (int b = 0; b < draws; ++b) {
        const std::vector<double>& v = *usable[std::min(usable.size() - 1, static_cast<std::size_t>(rng.uniform() * K))];
        const auto P = static_cast<double>(v.size());
        for (auto& s : x) s = v[std::min(v.size() - 1, static_cast<std::size_t>(rng.uniform() * P))];
        std::sort(x.begin(), x.end());
        above += ks_distance(x, pooled) >= out.statistic;
    }
    out.p_value = std::min(1.0, (above + 1) / (draws + 1.0));
    return out;
}

void holm(std::vector<VerdictTest>& tests, double alpha) {
    std::vector<std::size_t> order(tests.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return tests[a].p_value < tests[b].p_value; });
    const auto m = static_cast<double>(tests.size());
    for (auto& t : tests) t.rejected = false;
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (tests[order[i]].p_value > alpha / (m - static_cast<double>(i))) break;
        tests[order[i]].rejected = true;
    }
}

namespace {
constexpr std::array<std::pair<const char*, const char*>, 5> kParts = {{
    {"mean", "the field"},
    {"spread", "the fluctuations"},
    {"hit_fraction", "the fluctuations"},
    {"hit_times", "the hitting times"},
    {"basins", "the basins"},
}};

// "the field is consistent" / "the fluctuations are not (worst)" for one group of parts.
std::string group_sentence(const std::vector<VerdictPart>& parts, const std::string& about) {
    const VerdictPart* worst = nullptr;
    bool any = false;
    for (const auto& p : parts) {
        if (p.about != about) continue;
        any = true;
        if (p.rejected > 0 && (!worst || p.min_p_value < worst->min_p_value)) worst = &p;
    }
    if (!any) return "";
    const char* verb = about == "the field" ? "is" : "are";
    if (!worst) return fmt::format("{} {} consistent", about, verb);
    return fmt::format("{} {} not ({}, p = {:.2g})", about, verb, worst->worst, worst->min_p_value);
}
}  // namespace

std::vector<VerdictPart> verdict_parts(const std::vector<VerdictTest>& tests) {
    std::vector<VerdictPart> out;
    for (const auto& [name, about] : kParts) {
        VerdictPart p{name, about, 0, 0, 1.0, ""};
        for (const auto& t : tests) {
            if (t.part != name) continue;
            ++p.tests;
            p.rejected += t.rejected;
            if (p.worst.empty() || t.p_value < p.min_p_value) {
                p.min_p_value = t.p_value;
                p.worst = t.what;
            }
        }
        if (p.tests > 0) out.push_back(p);
    }
    return out;
}

std::string verdict_sentence(const std::vector<VerdictPart>& parts) {
    std::string s;
    for (const char* about : {"the field", "the fluctuations", "the hitting times", "the basins"}) {
        const std::string g = group_sentence(parts, about);
        if (!g.empty()) s += (s.empty() ? "" : "; ") + g;
    }
    return s.empty() ? "nothing was tested" : s;
}

RHOFLOW_JSON_HOOKS(VerdictTest, part, what, observed, predicted, p_value, floor, rejected)
RHOFLOW_JSON_HOOKS(VerdictPart, name, about, tests, rejected, min_p_value, worst)

}  // namespace rhoflow
