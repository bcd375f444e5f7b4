// Outcome statistics of an SGA ensemble (docs/theory.md, "Outcome statistics"): which ODE basin
// each trial's final rho lies in, per attractor the count, the fraction with a Wilson interval,
// the mean (with its standard error and Student-t interval) and the standard deviation of
// rho_final within the basin; for a query uniform on the sphere S^{d-1}, beside each observed
// fraction the exact probability that the start lies in that basin; for a fixed rho0, the
// basin rho0 lies in.
//
// Method: the basins are the phase portrait's (ode/phase.hpp): intervals between neighbouring
// repellers, each with the closedness the portrait gives it; a final rho on no basin (exactly at
// a repeller, or any rho of a flat portrait) is counted as unassigned. The uniform law: rho =
// <q, xi> has density proportional to (1 - rho^2)^{(d-3)/2}, so P(rho <= r) = I_{(1+r)/2}(a, a),
// a = (d - 1)/2, the regularized incomplete beta function (boost::math::ibeta; upper tails by
// ibetac, so a small probability near +1 keeps its digits).
// When it misleads: the basin is that of the mean-field ODE; a trial with a large step can sit
// near one attractor and still be in another's basin at the last step (or cross a repeller
// later). At small steps the ODE basin of rho0 predicts where SGA ends (theory.md section 7).
// The Wilson interval's coverage is close to nominal also for 0 or n successes (unlike the
// Wald interval, which is then empty).
//
// Layering: this lives in compare/ because it joins the two sides: the phase portrait (ode/)
// and the trials' final rho (stochastic/). stochastic/ may not include ode/ (lib/rhoflow/README.md),
// and io/ only writes result types; compare/ may use both.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rhoflow/core/stats.hpp"
#include "rhoflow/ode/phase.hpp"

namespace rhoflow {

/// Controls of the outcome statistics.
struct OutcomeParams {
    double level = 0.95;  ///< confidence level of the Wilson and Student-t intervals, 0.5 <= level < 1

    /// Throws InvalidArgument naming the field out of range.
    void validate() const;
};

/// The trials that ended in one attractor's basin.
struct BasinOutcome {
    double attractor = 0;       ///< the equilibrium whose basin this is
    EquilibriumKind kind = EquilibriumKind::attractor;  ///< the equilibrium's kind: attractor (or degenerate, a one-sided basin)
    double from = 0;            ///< left end of the basin
    double to = 0;              ///< right end of the basin
    bool from_closed = false;   ///< whether `from` belongs to the basin
    bool to_closed = false;     ///< whether `to` belongs to the basin
    std::int64_t count = 0;     ///< trials whose final rho lies in the basin
    double fraction = 0;        ///< count / trials
    double fraction_lo = 0;     ///< lower end of the Wilson interval of the fraction
    double fraction_hi = 0;     ///< upper end of the Wilson interval of the fraction
    MeanCI rho_final;           ///< mean rho_final within the basin, its standard error and t interval (clipped to the basin); n = count
    double sd = 0;              ///< standard deviation of rho_final within the basin (0 for count < 2)
    double sd_se = 0;           ///< its standard error sd / sqrt(2 (count - 1)) (normal approximation; 0 for count < 2)
    std::optional<double> uniform_probability;  ///< uniform start: exact P(rho0 in the basin) for q uniform on S^{d-1}
    bool contains_rho0 = false;  ///< fixed start: rho0 lies in this basin
};

/// Where the trials of an ensemble ended, basin by basin.
struct OutcomeSummary {
    std::int64_t trials = 0;          ///< trials assigned (the ensemble's size)
    std::int64_t unassigned = 0;      ///< trials whose final rho lies in no basin (at a repeller; every trial of a flat portrait)
    double level = 0.95;              ///< confidence level of the intervals
    std::optional<double> rho0;       ///< the fixed start; empty: query uniform on the sphere
    std::int64_t d = 0;               ///< dimension of the sphere of the uniform start
    std::vector<BasinOutcome> basins;  ///< one per basin of the phase portrait, ascending in rho
};

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const OutcomeParams& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, OutcomeParams& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const BasinOutcome& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, BasinOutcome& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const OutcomeSummary& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, OutcomeSummary& v);

/// P(a < rho < b) for rho = <q, xi>, q uniform on S^{d-1} (d >= 2, -1 <= a <= b <= 1): the
/// difference of I_{(1+r)/2}((d-1)/2, (d-1)/2) at the ends (its upper tails when a > 0).
double uniform_sphere_probability(std::int64_t d, double a, double b);

/// Assigns every final rho to the basin of `portrait` it lies in and summarises each basin;
/// `rho0` is the fixed start (empty: uniform on S^{d-1}, whose basin probabilities are given).
/// Throws InvalidArgument when rho_finals is empty or d < 2.
OutcomeSummary outcome_summary(const PhasePortrait& portrait, const std::vector<double>& rho_finals,
                               std::optional<double> rho0, std::int64_t d, const OutcomeParams& params = {});

}  // namespace rhoflow
