// Small statistics toolkit: running moments, confidence intervals, quantiles, the
// Kolmogorov-Smirnov tests and a least-squares line with standard errors.
//
// The Kolmogorov distribution is written here because Boost 1.74 (Debian 12) predates
// boost::math::kolmogorov_smirnov_distribution (1.75). P(sqrt(n) D > x) -> Q(x) =
// 2 sum_{k>=1} (-1)^{k-1} exp(-2 k^2 x^2) (Kolmogorov 1933); for x < 1 the Jacobi-theta dual
// form sqrt(2 pi)/x sum exp(-(2k-1)^2 pi^2 / (8 x^2)) of the CDF converges faster. Finite
// samples use Stephens' (1970) effective-size correction lambda = (sqrt(n) + 0.12 + 0.11/sqrt(n)) D,
// accurate to about 1% in the p-value for n >= 5.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <vector>

namespace rhoflow {

/// Welford's running mean and variance; mergeable (Chan et al.) for parallel reductions.
class RunningStats {
public:
    /// Adds one observation.
    void add(double x) noexcept;
    /// Merges another accumulator as if its observations had been added here.
    void merge(const RunningStats& o) noexcept;
    /// Number of observations.
    std::int64_t count() const noexcept { return n_; }
    /// Sample mean (0 when empty).
    double mean() const noexcept { return mean_; }
    /// Unbiased sample variance (0 with fewer than 2 observations).
    double variance() const noexcept;
    /// Standard error of the mean, sqrt(variance / n).
    double standard_error() const noexcept;

private:
    std::int64_t n_ = 0;
    double mean_ = 0, m2_ = 0;
};

/// A mean with its standard error and a two-sided confidence interval.
struct MeanCI {
    double mean = 0;  ///< sample mean
    double se = 0;    ///< standard error of the mean
    double lo = 0;    ///< lower end of the interval
    double hi = 0;    ///< upper end of the interval
    std::int64_t n = 0;  ///< number of observations
};

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const MeanCI& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, MeanCI& v);

/// Mean with a Student-t confidence interval at `level` (default 95%); n = 1 gives lo = hi = mean.
MeanCI mean_ci(const std::vector<double>& x, double level = 0.95);
/// The same from accumulated moments (the observations added in the same order give the same bits).
MeanCI mean_ci(const RunningStats& s, double level = 0.95);
/// The same for a quantity known to lie in [lower, upper] (|rho| in [0, 1], rho in [-1, 1], a
/// time >= 0): the Student-t interval intersected with that range. Its coverage is at least the
/// t interval's (the true mean lies in the range, so clipping removes only impossible values).
MeanCI mean_ci_within(const std::vector<double>& x, double lower, double upper, double level = 0.95);
/// Intersects the interval of `ci` with [lower, upper] (the mean and se are unchanged).
MeanCI clip_ci(MeanCI ci, double lower, double upper) noexcept;

/// A proportion k / n with a two-sided confidence interval.
struct ProportionCI {
    double fraction = 0;  ///< k / n
    double lo = 0;        ///< lower end of the interval
    double hi = 0;        ///< upper end of the interval
};

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const ProportionCI& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, ProportionCI& v);

/// Wilson's score interval for k successes in n >= 1 trials at `level` (docs/theory.md,
/// "Outcome statistics"): (k + z^2/2 -+ z sqrt(k (n - k)/n + z^2/4)) / (n + z^2), z the normal
/// quantile at (1 + level)/2. Unlike the Wald interval it is not empty at k = 0 or k = n.
/// Throws InvalidArgument unless 0 <= k <= n, n >= 1 and 0 < level < 1.
ProportionCI wilson_ci(std::int64_t k, std::int64_t n, double level = 0.95);

/// Quantile p in [0, 1] by linear interpolation of order statistics (Hyndman-Fan type 7).
double quantile(std::vector<double> x, double p);
/// The same of a sample already in ascending order, without the copy and the sort (non-empty).
double sorted_quantile(const std::vector<double>& sorted, double p);

/// P(K > x) for the Kolmogorov distribution K = sup |Brownian bridge|.
double kolmogorov_survival(double x) noexcept;

/// Result of a Kolmogorov-Smirnov test.
struct KSResult {
    double statistic = 0;  ///< D = sup |F_1 - F_2|
    double p_value = 1;    ///< asymptotic p-value with Stephens' small-sample correction
};

/// Two-sample Kolmogorov-Smirnov test of equal laws.
KSResult ks_two_sample(std::vector<double> x, std::vector<double> y);

/// One-sample Kolmogorov-Smirnov test of x against a continuous CDF.
template <class Cdf>
KSResult ks_one_sample(std::vector<double> x, Cdf cdf);

/// Least-squares line y = intercept + slope x with standard errors (needs >= 3 points).
struct LineFit {
    double slope = 0, intercept = 0;       ///< fitted coefficients
    double slope_se = 0, intercept_se = 0; ///< their standard errors
    std::int64_t n = 0;                    ///< points used
};

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const LineFit& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, LineFit& v);

/// Fits a line by ordinary least squares; throws NumericalError for < 3 points or constant x.
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace rhoflow

#include "rhoflow/core/detail/ks_one_sample.hpp"
