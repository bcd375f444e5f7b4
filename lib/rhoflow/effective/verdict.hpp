// The verdict in parts (docs/theory.md section 9.6): the SGA ensemble tested against the
// effective chain's paths, part by part, inside one family-wise false-alarm rate.
//  - mean (the field; at large steps the plateau's level is set by the fluctuations too, so a
//    wrong diffusion can fail it as well): per row, the SGA mean against the chain's. The null law of a mean of n
//    trials is the law of the mean of n paths drawn from the chain's paths at that row (so the
//    per-trial skew of the plateau is in it; a normal p-value there is 2-3x too optimistic in
//    the lower tail), widened by max(1, observed sd / predicted sd) (Welch: a misprediction of
//    the spread cannot make a false alarm of the mean) and convolved with the prediction's own
//    errors (the chain's mean and the tables' systematic error) as a normal.
//  - spread (the effective model's fluctuations): per row, the SGA trials' interquartile range
//    against the law of the IQR of n paths drawn from the chain's paths at that row. Not the sd:
//    the bank's 2000 draws per node cannot hold the real chain's rarest jumps (a trial sees 1e5
//    steps), and one such jump in one trial doubles a 30-trial sd at the plateau; the IQR does not
//    see it, and a wrong diffusion moves it as much as the sd.
//  - hit_fraction: hits among the trials against the chain's hit fraction (exact binomial
//    two-sided p-value at the point of the chain's 99.9% Wilson interval nearest the observed
//    fraction: the chain's own error cannot make a false alarm).
//  - hit_times: the trials' hitting times against the chain's, Kolmogorov-Smirnov distance
//    with a Monte Carlo null (5 hits or more of each): their location follows the mean path, their spread the
//    fluctuations, so this part reports on its own.
//  - basins: trials ending in each basin but the last against the chain's fraction, as
//    hit_fraction.
// The chain runs on bootstrap replicas of its bank (explain_gap.hpp); every null law draws a
// replica first, so the prediction's own sampling error (of the one-step variance above all)
// is in it.
// All tests share one family: Holm's step-down at level alpha, valid under any dependence. The
// Monte Carlo p-values are (1 + count) / (1 + replicas), never below the resolution 2/(1 + B).
// When it fails: the null laws are the chain's; where the chain itself is wrong (its nodes too
// coarse, steps not independent given rho) the parts say so, which is their purpose.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "rhoflow/core/random.hpp"
#include "rhoflow/core/stats.hpp"

namespace rhoflow {

/// One test of the verdict.
struct VerdictTest {
    std::string part;        ///< mean, spread, hit_fraction, hit_times or basins
    std::string what;        ///< what was compared, in words with the numbers
    double observed = 0;     ///< the SGA's statistic (mean, sd, fraction, median hit time)
    double predicted = 0;    ///< the chain's
    double p_value = 1;      ///< two-sided p-value under the theory
    bool rejected = false;   ///< rejected by Holm's step-down at the family-wise level
};

/// One part of the verdict: its tests together.
struct VerdictPart {
    std::string name;            ///< mean, spread, hit_fraction, hit_times or basins
    std::string about;           ///< what of the theory it tests: the field, the fluctuations, the hitting times or the basins
    std::int64_t tests = 0;      ///< tests in the part
    std::int64_t rejected = 0;   ///< of them rejected
    double min_p_value = 1;      ///< smallest p-value
    std::string worst;           ///< the test with the smallest p-value, in words
};

/// The chain's paths: one list per bank replica (their spread is the prediction's own error).
using Replicas = std::vector<std::vector<double>>;

/// Draws of a mean, an sd and an interquartile range of n values taken at random from one replica.
struct ResampledStats {
    std::vector<double> means;  ///< the draws' means
    std::vector<double> sds;    ///< the draws' sample sds (n - 1 in the denominator)
    std::vector<double> iqrs;   ///< the draws' interquartile ranges (stats.hpp's quantile)
};
/// `draws` times: a replica at random, then the mean, sd and IQR of n >= 2 of its values drawn with replacement.
ResampledStats resample_mean_sd(const Replicas& values, std::int64_t n, int draws, RandomStream& rng);

/// q75 - q25 of x (stats.hpp's quantile, linear between order statistics).
double interquartile_range(std::vector<double> x);

/// Two-sided p-value of `observed` against the draws `null` ((1 + count) / (1 + B) per side, doubled, at most 1).
double two_sided_p(const std::vector<double>& null, double observed);

/// The mean's p-value: null = c + widen (m_b - c) + N(0, extra_se^2), c and s the mean and sd of
/// all values, widen = max(1, sga_sd / s).
double mean_p_value(double sga_mean, double sga_sd, const Replicas& values, const ResampledStats& draws,
                    double extra_se, RandomStream& rng);

/// Two-sided exact binomial p-value of k in n against a chain that had chain_k[r] of chain_n[r]
/// in replica r: each replica's tail probabilities at the point of its 99.9% Wilson interval
/// nearest k / n, averaged over the replicas (the null is their mixture), then doubled.
double proportion_p_value(std::int64_t k, std::int64_t n, const std::vector<std::int64_t>& chain_k,
                          const std::vector<std::int64_t>& chain_n);
/// The same against one replica.
double proportion_p_value(std::int64_t k, std::int64_t n, std::int64_t chain_k, std::int64_t chain_n);

/// The Kolmogorov-Smirnov distance of the trials' hitting times from all replicas' pooled, and
/// its p-value from `draws` samples of as many times from a replica at random (ties allowed).
KSResult hit_time_test(const std::vector<double>& sga, const Replicas& chain, int draws, RandomStream& rng);

/// Holm's step-down over all tests at family-wise level alpha: sets `rejected`.
void holm(std::vector<VerdictTest>& tests, double alpha);

/// The parts in the fixed order mean, spread, hit_fraction, hit_times, basins (those with tests).
std::vector<VerdictPart> verdict_parts(const std::vector<VerdictTest>& tests);

/// One sentence saying which part of the theory is consistent and which failed, with the worst test.
std::string verdict_sentence(const std::vector<VerdictPart>& parts);

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const VerdictTest& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, VerdictTest& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const VerdictPart& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, VerdictPart& v);

}  // namespace rhoflow
