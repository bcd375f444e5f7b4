// The stationary law of the constant-step chain near each effective attractor (docs/theory.md
// section 9, "The stationary law of a constant step" (9.5) and "The resampled chain" (9.4')).
//
// With a constant step eta the chain does not converge to +1: it settles into a plateau near each
// effective attractor rho*(eta) (a root of a(.; eta) with a' < 0), within that attractor's basin
// (between the neighbouring effective repellers, or the ends -1, +1). Two estimates per attractor:
//
// The resampled chain (the headline): the chain (9.4') on bootstrap replicas of a bank of the
// moment table's own gradient draws (resampled_chain.hpp), started at rho*, run for a burn-in
// and then `steps` kept steps on several independent paths per replica (streams of purpose
// effective_chain, index = path, counter word kStationaryChainSub + attractor; the replicas'
// banks on purpose bootstrap, index 2, sub = replica). States outside the basin are not used
// (a path that leaves and comes back contributes its states inside: the law conditioned on the
// basin); how many paths left it and the fraction of time they spent outside are reported. Its
// mean, sd, quantiles and the tail probability P(|rho| >= 1 - hit_eps) each carry two errors:
// the chain's own Monte Carlo error (batch means: each path cut into at most `batches` batches,
// each at least 20 times tau_lin = 2/(eta |a'|) long, their spread within a replica; a note when
// the measured autocorrelation time or a tail quantile's count asks for longer batches) and the
// bank's (the replicas' sd times Student's one-sigma factor for K - 1 degrees of freedom; it also
// holds each replica's own Monte Carlo error), combined in quadrature. A tail no state reached
// gets the error 1.15 tau / N (N kept states, tau the larger of tau_lin and the batch means'
// estimate): the one-sided 68% limit of a Poisson count of zero, the rule of three's one-sigma
// twin. The chain assumes steps independent given rho and the gradient's
// law at rho that of a bracketing node (the nodes' resolution: reported as the nodes inside the
// law's 0.1-99.9% range and the node spacing at rho* against the law's sd).
//
// The diffusion approximation (9.5): d rho = a dt + sqrt(eta v) dW (in ODE time) with the chain's
// own one-step moments a(rho; eta), v(rho; eta) has, on an interval with reflecting ends, the
// stationary density
//     p(rho) proportional to exp( int_{rho_ref}^{rho} 2 a(x) / (eta v(x)) dx ) / v(rho).
// Quadrature: the exponent is accumulated with composite Gauss-Legendre (5 points per cell) on
// a uniform grid and the moments by the same rule, all in log space (exp(Phi - max Phi)), so the
// sharp peak near the attractor (width ~ sqrt(eta)) is resolved once the grid is; the quadrature
// error is |moments(grid) - moments(grid / 2)|. The moment table's Monte Carlo error is propagated
// by a parametric bootstrap: the law is recomputed with a and v drawn from normal laws around
// their node values with their standard errors; the spread of the recomputed means is reported.
// It is right for means and CLT-scale bands but wrong in the tails (the real increments near the
// plateau are left-skewed and bounded above): its quantiles are kept beside the chain's.
// The top-level keys of StationaryLaw (mean, sd, attractor, basin_from, ...) are (9.5) at the
// attractor nearest +1, as before the chain; `attractors` holds every attractor's two laws.
// When it fails: when a has no attractor in (-1, 1] (then the law is not concentrated and the
// result would depend on the ends; NumericalError), or when eta v is so small that exp overflows
// in the exponent's range (the log-space evaluation avoids that for any representable input).
// A chain whose every state left the basin has no statistics there (chain_ran false, a note).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "rhoflow/model/model.hpp"
#include "rhoflow/model/update_rule.hpp"
#include "rhoflow/effective/effective.hpp"
#include "rhoflow/effective/resampled_chain.hpp"
#include "rhoflow/effective/step_moments.hpp"

namespace rhoflow {

/// Moments of the stationary density of a 1-D diffusion on [from, to] (reflecting ends).
struct DiffusionMoments {
    double mean = 0;       ///< mean of |rho|
    double sd = 0;         ///< standard deviation of |rho|
    double mean_rho = 0;   ///< mean of rho
    double quadrature_err = 0;  ///< |moments(grid) - moments(grid/2)|, the larger for mean and sd
};

/// Mean and sd of |rho| under p proportional to exp(int 2 a / (eta v)) / v on [from, to], by
/// composite 5-point Gauss-Legendre on `cells` uniform cells (and on cells/2 for the error).
DiffusionMoments diffusion_stationary_moments(const std::function<double(double)>& a,
                                              const std::function<double(double)>& v, double eta, double from,
                                              double to, int cells = 2000);


/// The stationary law of the diffusion (9.5) on [from, to] with its tails: moments, quantiles of
/// rho and the probability of |rho| >= tail_level.
struct DiffusionLaw {
    DiffusionMoments moments;        ///< mean and sd of |rho|, mean of rho
    double sd_rho = 0;               ///< standard deviation of rho
    std::vector<double> quantiles;   ///< of rho at the levels asked for
    double tail = 0;                 ///< P(|rho| >= tail_level)
};

/// As diffusion_stationary_moments, with the quantiles of rho at `levels` (each in (0, 1), from
/// the cumulative weights of the quadrature nodes, linear between them) and P(|rho| >= tail_level).
DiffusionLaw diffusion_stationary_law(const std::function<double(double)>& a, const std::function<double(double)>& v,
                                      double eta, double from, double to, const std::vector<double>& levels,
                                      double tail_level, int cells = 2000);

/// The counter word of the stationary chain's streams (purpose effective_chain): this plus the
/// attractor's index, apart from the comparator's (sub = bank replica < 2^32).
inline constexpr std::uint64_t kStationaryChainSub = std::uint64_t{1} << 40;

/// Controls of the resampled chain run at the constant step (docs/theory.md section 9, (9.4')).
struct StationaryChainParams {
    bool enabled = true;            ///< run the chain (false: the diffusion approximation (9.5) only)
    int replicas = 8;               ///< bootstrap replicas of the bank (its sampling error), 4 ... 1000
    int paths = 4;                  ///< independent paths per replica and attractor, 1 ... 100000
    std::int64_t burn_in = 2000;    ///< least steps discarded first (at least 10 relaxation times 1/(eta |a'|)), 0 ... 1e9
    std::int64_t steps = 100000;    ///< steps kept per path, 1000 ... 1e9
    int batches = 10;               ///< batches per path for the batch means, 2 ... 1000 (steps / batches >= 100)
    double hit_eps = 0.01;          ///< the tail: P(|rho| >= 1 - hit_eps), 0 < hit_eps < 1
    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// Controls of the stationary-law computation.
struct StationaryParams {
    StepMomentParams moments;   ///< the one-step moment table at the step size (its draws are the chain's bank)
    DriftMethod field = DriftMethod::exact;  ///< the theory's field F (the control variate's mean)
    FieldTableParams table;     ///< its table accuracy
    int cells = 2000;           ///< quadrature cells on the basin, 100 ... 1e6
    int bootstrap = 40;         ///< bootstrap replicas for the Monte Carlo error, 10 ... 10000
    StationaryChainParams chain;  ///< the resampled chain (the headline law; a document without it: the defaults)
    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// One statistic of the chain's stationary law with its errors.
struct ChainEstimate {
    double value = 0;      ///< from all replicas' paths pooled
    double chain_err = 0;  ///< the chain's own Monte Carlo error (batch means within the replicas)
    double bank_err = 0;   ///< the bank's error: the replicas' sd times Student's one-sigma factor (it also holds their own Monte Carlo error)
    double err = 0;        ///< the two combined in quadrature
};

/// The stationary law near one effective attractor, within its basin.
struct AttractorLaw {
    double attractor = 0;           ///< the effective attractor rho*(eta)
    double attractor_err = 0;       ///< its error (from the standard error of a)
    double slope = 0;               ///< a'(rho*) (the restoring rate per unit ODE time)
    double basin_from = -1;         ///< the basin's lower end (an effective repeller, or -1)
    double basin_to = 1;            ///< its upper end (an effective repeller, or +1)
    double plain_ode = 0;           ///< the mean-field ODE's attractor nearest rho* (in the basin), or rho* when none
    std::vector<double> levels;     ///< the quantile levels (0.001 ... 0.999)
    double tail_level = 0.99;       ///< the tail's level 1 - hit_eps: P(|rho| >= tail_level)
    // The resampled chain (9.4'): the headline.
    bool chain_ran = false;         ///< whether the chain's statistics below exist
    ChainEstimate mean;             ///< mean of rho in the basin
    ChainEstimate sd;               ///< standard deviation of rho in the basin
    ChainEstimate mean_abs;         ///< mean of |rho| in the basin
    std::vector<ChainEstimate> quantiles;  ///< quantiles of rho at `levels`
    ChainEstimate tail;             ///< P(|rho| >= tail_level) in the basin
    std::int64_t paths = 0;         ///< paths run (replicas x paths per replica)
    std::int64_t burn_in = 0;       ///< steps discarded per path
    std::int64_t steps = 0;         ///< steps kept per path
    std::int64_t escaped_paths = 0; ///< paths with a kept state outside the basin
    double escaped_time = 0;        ///< fraction of kept states outside the basin (not in the statistics)
    double tau = 0;                 ///< integrated autocorrelation time of rho (steps, from the batch means)
    // The diffusion approximation (9.5) on the basin.
    double diffusion_mean = 0;      ///< mean of rho
    double diffusion_mean_err = 0;  ///< its error: bootstrap of the table and quadrature
    double diffusion_sd = 0;        ///< standard deviation of rho
    double diffusion_sd_err = 0;    ///< its error, likewise
    std::vector<double> diffusion_quantiles;  ///< quantiles of rho at `levels`
    std::vector<double> diffusion_quantile_errs;  ///< their errors (bootstrap and quadrature)
    double diffusion_tail = 0;      ///< P(|rho| >= tail_level)
    double diffusion_tail_err = 0;  ///< its error (bootstrap and quadrature)
    // How well the bank's nodes resolve the law.
    int nodes_in_range = 0;         ///< Lobatto nodes inside the chain's (or (9.5)'s) 0.1%-99.9% range
    double node_spacing = 0;        ///< spacing of the nodes bracketing rho*
    std::string note;               ///< what to know (escapes, a coarse table, a chain not run), or empty
};

/// The predicted stationary law of the constant-step chain.
struct StationaryLaw {
    double eta = 0;                 ///< the constant step
    UpdateRule rule = UpdateRule::normalized;  ///< the update rule
    double mean = 0;                ///< mean of |rho| under (9.5) in the basin of the attractor nearest +1
    double mean_err = 0;            ///< its error: bootstrap (Monte Carlo of the table) + quadrature
    double sd = 0;                  ///< standard deviation of |rho| there, under (9.5)
    double sd_err = 0;              ///< its error, likewise
    double basin_from = -1;         ///< the basin: (basin_from, 1]
    double attractor = 1;           ///< the effective attractor rho*(eta)
    double attractor_err = 0;       ///< its error (from the standard error of a)
    std::vector<EffectiveEquilibrium> equilibria;  ///< all roots of a(.; eta)
    double plain_ode = 1;           ///< what the mean-field ODE predicts (its attractor nearest +1)
    std::string method;             ///< how it was computed (one sentence)
    double quadrature_err = 0;      ///< the quadrature part of the errors
    StepMomentTable table;          ///< the one-step moment table used
    std::vector<AttractorLaw> attractors;  ///< every effective attractor's law, ascending (none in older documents)
    std::string note;               ///< what to know of the whole (an ODE attractor the finite step removes), or empty
};

/// Throws InvalidArgument naming R, theta or L when the model has no signal (R = 0, theta = 0 or
/// L = 1): the field is flat, there is no attractor near +1 and no stationary law to predict.
void require_signal_for_stationary_law(const ModelParams& model);

/// The stationary law at constant step `eta` for `model` and `rule` (InvalidArgument for a flat
/// field): the table at eta, and the chain on a bank of the table's own draws.
StationaryLaw stationary_law(const ModelParams& model, double eta, UpdateRule rule, const StationaryParams& params = {});
/// The same from given tables (the theory's field and a table at `eta`) and, for the chain, the
/// bank of draws (none: the diffusion approximation only, each attractor's note says so);
/// NumericalError for a flat field.
StationaryLaw stationary_law(const DriftField& field, const StepMomentTable& table, const StationaryParams& params = {},
                             const GradientBank* bank = nullptr);

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const DiffusionMoments& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, DiffusionMoments& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const StationaryChainParams& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, StationaryChainParams& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const ChainEstimate& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, ChainEstimate& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const AttractorLaw& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, AttractorLaw& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const StationaryParams& v);
/// Reads what to_json writes (a document without `chain`: the chain's defaults).
void from_json(const nlohmann::json& j, StationaryParams& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const StationaryLaw& v);
/// Reads what to_json writes (a document without `attractors` or `note`, written before the chain: none).
void from_json(const nlohmann::json& j, StationaryLaw& v);

}  // namespace rhoflow
