// Effective (finite-step) dynamics of the rho-chain (docs/theory.md section 9): what the
// mean-field ODE becomes when the step is not infinitesimal.
//  - EffectiveDrift: a(rho; eta) = F(rho) + eta c(rho; eta) and v(rho; eta), built from one-step
//    moment tables (step_moments.hpp) at one or more step sizes; between tabulated step sizes c
//    and v are interpolated linearly in eta, outside they are held at the nearest table (c tends
//    to B(rho) as eta -> 0, so holding the smallest table's c costs O(eta eta_min) in a).
//    In rho: Chebyshev interpolants of c and of log v on the tables' Lobatto nodes.
//  - The effective ODE d rho/dt = a(rho; eta(t)), eta(t) the schedule's step at ODE time t
//    (Dormand-Prince with dense output, Boost.Odeint).
//  - The effective chain: rho_{k+1} = rho_k + eta_k a(rho_k; eta_k) + eta_k sqrt(v(rho_k; eta_k)) Z_k,
//    Z_k standard normal, clamped to [-1, 1]: a 1-D ensemble that has the one-step mean and
//    variance of the real chain at every step. It predicts the mean path with its standard
//    error, the 10-90% band and the hitting-time distribution. Why an ensemble and not the
//    Fokker-Planck equation: it runs on the SGA's own steps (no continuous-time approximation at
//    large eta), the band and hitting times come out directly, the density near the attractor is
//    narrow (width ~ sqrt(eta)) where a Fokker-Planck grid would need refinement, and its own
//    error is a plain standard error; its cost, paths x steps lookups, is small next to SGA.
//  - Effective equilibria: the roots of a(.; eta) and their stability (a' < 0: attracting).
#pragma once

#include <cstdint>
#include <string>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <cstddef>
#include <vector>

#include "rhoflow/core/chebyshev.hpp"
#include "rhoflow/core/stats.hpp"
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/ode/phase.hpp"
#include "rhoflow/effective/step_moments.hpp"
#include "rhoflow/stochastic/schedule.hpp"

namespace rhoflow {

/// The effective drift and variance at any (rho, eta).
/// The two levels of an ascending list of step sizes around eta, and the weight of the upper
/// one: eta = (1 - w) etas[lo] + w etas[hi]; lo = hi and w = 0 outside the list's range (the
/// nearest level). The one bracketing rule of the effective drift and of the chain's step plan.
struct EtaBracket {
    std::size_t lo = 0;  ///< the level at or below eta
    std::size_t hi = 0;  ///< the level above eta (lo when clamped)
    double w = 0;        ///< weight of hi, in [0, 1)
};
/// Brackets eta in `etas` (ascending, not empty).
EtaBracket bracket_eta(const std::vector<double>& etas, double eta);

class EffectiveDrift {
public:
    /// From the theory's field and tables at one or more step sizes (any order, distinct eta).
    EffectiveDrift(const DriftField& field, std::vector<StepMomentTable> tables);
    /// a(rho; eta) = E[rho' - rho]/eta.
    double a(double rho, double eta) const;
    /// v(rho; eta) = Var[rho' - rho]/eta^2.
    double v(double rho, double eta) const;
    /// Standard error of a(rho; eta) (interpolated from the tables' node errors).
    double a_err(double rho, double eta) const;
    /// The theory's drift F(rho).
    double F(double rho) const { return field_.drift(rho); }
    /// The tables, ascending in eta.
    const std::vector<StepMomentTable>& tables() const noexcept { return tables_; }

private:
    struct Level {
        double eta;
        Chebyshev c, log_v, err;
    };
    // The two levels around eta and the weight of the upper one (bracket_eta).
    void bracket(double eta, std::size_t& lo, std::size_t& hi, double& w) const;
    DriftField field_;
    std::vector<StepMomentTable> tables_;
    std::vector<Level> levels_;
    std::vector<double> etas_;  // levels_' step sizes, ascending
};

/// An equilibrium of the effective drift at one step size.
struct EffectiveEquilibrium {
    double rho = 0;        ///< root of a(.; eta)
    double rho_err = 0;    ///< its error from the standard error of a: a_err / |a'|
    double slope = 0;      ///< a'(rho) (per unit rho)
    bool stable = false;   ///< a' < 0 beyond its error (kind == attractor)
    EquilibriumKind kind = EquilibriumKind::degenerate;  ///< attractor, repeller or degenerate (from a' and its error)
};

/// The roots of a(.; eta) in [-1, 1], ascending, found by the phase portrait's scan of `cells`
/// cells (ode/detail/root_scan.hpp: sign changes and close pairs, refined by TOMS 748); throws
/// NumericalError where a is not finite.
std::vector<EffectiveEquilibrium> effective_equilibria(const EffectiveDrift& drift, double eta, int cells = 4000);

/// The effective ODE d rho/dt = a(rho; eta(t)) from rho0, reported at `times` (ascending);
/// eta(t) is the schedule's step eta_k for t_k <= t < t_{k+1}, t_k = sum_{j<k} eta_j, k < steps.
std::vector<double> solve_effective_ode(const EffectiveDrift& drift, const StepSchedule& schedule, std::int64_t steps,
                                        double rho0, const std::vector<double>& times, double rtol = 1e-8);

/// Controls of the effective-chain ensemble.
struct PredictionParams {
    std::int64_t paths = 4000;  ///< independent paths, 100 ... 1e7
    std::uint64_t seed = 1;     ///< master seed (stream purpose effective_sde, index = block of 256 paths)
    int threads = 0;            ///< worker threads (0 = all cores); results do not depend on it
    double diffusion_scale = 1; ///< the chain's fluctuations about its one-step mean are multiplied by this (1: as measured; a deliberately wrong diffusion), 0 < D <= 10
    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// Every path's values, for tests of the prediction's law (not written to JSON).
struct PathSamples {
    std::vector<std::vector<double>> at_records;  ///< at_records[r][i]: path i at record step r
    std::vector<double> rho_final;                ///< each path's rho after the last step
    std::vector<double> hit_times;                ///< the ODE times of the paths that hit, in path order
};

/// The prediction at one record step.
struct PredictionRecord {
    std::int64_t step = 0;   ///< step k
    double t = 0;            ///< ODE time t_k
    MeanCI rho;              ///< mean of rho_k over paths with its standard error and 95% CI
    double q10 = 0;          ///< 10% quantile of rho_k
    double q90 = 0;          ///< 90% quantile of rho_k
};

/// What the effective chain predicts for an ensemble.
struct EffectivePrediction {
    std::vector<PredictionRecord> records;  ///< at the requested steps
    MeanCI abs_rho_final;                   ///< mean |rho| after the last step
    std::optional<MeanCI> hit_time;         ///< ODE time of the first |rho| >= 1 - hit_eps, over paths that hit
    double hit_fraction = 0;                ///< fraction of paths that hit within the run
    std::vector<double> hit_time_quantiles; ///< 10, 50, 90% quantiles of the hitting time (paths that hit)
};

/// The prediction's statistics from every path's values: t[k] the ODE time of step k,
/// record_steps those of samples.at_records (the hit fraction is over samples.rho_final's paths).
EffectivePrediction summarise_paths(const std::vector<double>& t, const std::vector<std::int64_t>& record_steps,
                                    const PathSamples& samples);
/// The paths of several runs as one ensemble (the same record steps), in the order given.
PathSamples pool_paths(const std::vector<PathSamples>& runs);

/// Runs the effective chain for `steps` steps of the schedule's sizes from rho0 (or, when empty,
/// from the law of <q, xi> for q uniform on the sphere in dimension d, uniform_sphere_rho),
/// recording at `record_steps`; every path's values go to `samples` when given. A diffusion_scale
/// D multiplies the step's noise: v becomes D^2 v.
EffectivePrediction predict_ensemble(const EffectiveDrift& drift, const StepSchedule& schedule, std::int64_t steps,
                                     const std::vector<std::int64_t>& record_steps, std::optional<double> rho0,
                                     std::int64_t d, double hit_eps, const PredictionParams& params = {},
                                     PathSamples* samples = nullptr);

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const EffectiveEquilibrium& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, EffectiveEquilibrium& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const PredictionParams& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, PredictionParams& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const PredictionRecord& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, PredictionRecord& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const EffectivePrediction& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, EffectivePrediction& v);

}  // namespace rhoflow
