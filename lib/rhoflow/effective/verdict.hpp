// The verdict in parts (docs/theory.md section 9.6): the SGA ensemble tested against the
// effective chain's paths, part by part, inside one family-wise false-alarm rate.
//  - mean (the field; at large steps the plateau's level is set by the fluctuations too, so a
//    wrong diffusion can fail it as well): per row, the SGA mean against the chain's. The null
//    law is a studentized bootstrap from the chain's paths at that row: each draw of n paths'
//    deviation from its replica's mean, times the trials' sd over the draw's (so the per-trial
//    skew of the plateau and the joint law of mean and sd are in it, where a normal p-value is
//    2-3x too optimistic in the lower tail, and a mispredicted spread cannot fail the mean), plus
//    the bank's error and the prediction's own as below.
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
// replica first, and the rows' laws add the replicas' spread as a continuous (Student) law, so the
// prediction's own sampling error (of the one-step variance above all) is in them.
// All tests share one family: Holm's step-down at level alpha, valid under any dependence given
// the chain's null laws. The Monte Carlo p-values are (1 + count) / (1 + draws), never below
// their floor 2/(1 + B); the comparator draws enough for the floor to lie below alpha / m and
// says so when it cannot.
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
    double observed = 0;     ///< the SGA's statistic (mean, IQR, fraction, median hit time)
    double predicted = 0;    ///< the chain's
    double p_value = 1;      ///< two-sided p-value under the theory
    double floor = 0;        ///< the smallest p-value the test can give (Monte Carlo: 2 / (draws + 1) or 1 / (draws + 1); exact tests 0)
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

/// q75 - q25 of x (stats.hpp's quantile: linear between order statistics).
double interquartile_range(std::vector<double> x);

/// Two-sided p-value of `observed` against the draws `null` ((1 + count) / (1 + B) per side, doubled, at most 1).
double two_sided_p(const std::vector<double>& null, double observed);

/// Draws of a mean, an sd and an interquartile range of n values taken at random from one replica.
struct ResampledStats {
    std::vector<double> means;    ///< the draws' means, less their replica's mean
    std::vector<double> sds;      ///< the draws' sample sds (n - 1 in the denominator)
    std::vector<double> log_iqrs; ///< the logs of the draws' IQRs, less their replica's
};
/// `draws` times: a replica at random, then the mean, sd and IQR of n >= 2 of its values drawn
/// with replacement, each centred on the replica's own.
ResampledStats resample_mean_sd(const Replicas& values, std::int64_t n, int draws, RandomStream& rng);

/// The SGA's statistics at one row.
struct RowObservation {
    double mean = 0;          ///< the trials' mean
    double sd = 0;            ///< their sample sd
    double iqr = 0;           ///< their interquartile range
    std::int64_t trials = 0;  ///< n
};
/// The p-values of one row's mean and spread.
struct RowPValues {
    double mean = 1;    ///< of the mean (studentized: the draws' deviations scaled by the trials' sd over the draw's)
    double spread = 1;  ///< of the IQR (on the log scale)
    double floor = 1;   ///< the smallest p-value these draws can give, 2 / (draws + 1)
};
/// The row's p-values against the chain's replicas: each null draw is a replica's draw of n
/// values (resample_mean_sd) plus the bank's error as a continuous law, tau sqrt(1 + 1/K) T_{K-1}
/// (tau the replicas' spread of the statistic, T Student's; the predictive law of a new value
/// from K replicas), plus N(0, extra_se^2) on the mean. `draws` >= 1.
RowPValues row_p_values(const RowObservation& obs, const Replicas& values, double extra_se, int draws,
                        RandomStream& rng);

/// Two-sided exact binomial p-value of k in n against a chain that had chain_k[r] of chain_n[r]
/// in replica r: each replica's tail probabilities at the point of its 99.9% Wilson interval
/// nearest k / n, averaged over the replicas (the null is their mixture), then doubled.
double proportion_p_value(std::int64_t k, std::int64_t n, const std::vector<std::int64_t>& chain_k,
                          const std::vector<std::int64_t>& chain_n);
/// The same against one replica.
double proportion_p_value(std::int64_t k, std::int64_t n, std::int64_t chain_k, std::int64_t chain_n);

/// The Kolmogorov-Smirnov distance of the trials' hitting times from all replicas' pooled, and
/// its p-value from `draws` samples of as many times from a replica at random (ties allowed;
/// (1 + count) / (1 + draws)); only replicas with at least max(5, n/2) hits are drawn from
/// (none: p = 1, nothing is tested).
KSResult hit_time_test(const std::vector<double>& sga, const Replicas& chain, int draws, RandomStream& rng);
/// Replicas with enough hits for hit_time_test's null (at least max(5, n / 2) of them).
std::size_t hit_time_replicas(std::size_t n, const Replicas& chain);

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
