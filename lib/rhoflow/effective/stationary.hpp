// The stationary law of the constant-step chain near the attractor (docs/theory.md section 9).
//
// With a constant step eta the chain does not converge to +1: it settles into a plateau. The
// diffusion d rho = a dt + sqrt(eta v) dW (in ODE time) with the chain's own one-step moments
// a(rho; eta), v(rho; eta) has, on an interval with reflecting ends, the stationary density
//     p(rho) proportional to exp( int_{rho_ref}^{rho} 2 a(x) / (eta v(x)) dx ) / v(rho),
// and rhoflow reports the mean and standard deviation of |rho| under p restricted to the basin
// of the effective attractor nearest +1 (between the effective repeller below it, or -1, and +1).
// Quadrature: the exponent is accumulated with composite Gauss-Legendre (5 points per cell) on
// a uniform grid and the moments by the same rule, all in log space (exp(Phi - max Phi)), so the
// sharp peak near the attractor (width ~ sqrt(eta)) is resolved once the grid is; the quadrature
// error is |moments(grid) - moments(grid / 2)|. The moment table's Monte Carlo error is propagated
// by a parametric bootstrap: the law is recomputed with a and v drawn from normal laws around
// their node values with their standard errors; the spread of the recomputed means is reported.
// When it fails: when a has no attractor in (-1, 1] (then the law is not concentrated and the
// result would depend on the ends; NumericalError), or when eta v is so small that exp overflows
// in the exponent's range (the log-space evaluation avoids that for any representable input).
#pragma once

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "rhoflow/model/model.hpp"
#include "rhoflow/model/update_rule.hpp"
#include "rhoflow/effective/effective.hpp"
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

/// Controls of the stationary-law computation.
struct StationaryParams {
    StepMomentParams moments;   ///< the one-step moment table at the step size
    DriftMethod field = DriftMethod::exact;  ///< the theory's field F (the control variate's mean)
    FieldTableParams table;     ///< its table accuracy
    int cells = 2000;           ///< quadrature cells on the basin, 100 ... 1e6
    int bootstrap = 40;         ///< bootstrap replicas for the Monte Carlo error, 10 ... 10000
    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// The predicted stationary law of the constant-step chain.
struct StationaryLaw {
    double eta = 0;                 ///< the constant step
    UpdateRule rule = UpdateRule::normalized;  ///< the update rule
    double mean = 0;                ///< mean of |rho| in the basin of the attractor nearest +1
    double mean_err = 0;            ///< its error: bootstrap (Monte Carlo of the table) + quadrature
    double sd = 0;                  ///< standard deviation of |rho| there
    double sd_err = 0;              ///< its error, likewise
    double basin_from = -1;         ///< the basin: (basin_from, 1]
    double attractor = 1;           ///< the effective attractor rho*(eta)
    double attractor_err = 0;       ///< its error (from the standard error of a)
    std::vector<EffectiveEquilibrium> equilibria;  ///< all roots of a(.; eta)
    double plain_ode = 1;           ///< what the mean-field ODE predicts (its attractor nearest +1)
    std::string method;             ///< how it was computed (one sentence)
    double quadrature_err = 0;      ///< the quadrature part of the errors
    StepMomentTable table;          ///< the one-step moment table used
};

/// Throws InvalidArgument naming R, theta or L when the model has no signal (R = 0, theta = 0 or
/// L = 1): the field is flat, there is no attractor near +1 and no stationary law to predict.
void require_signal_for_stationary_law(const ModelParams& model);

/// The stationary law at constant step `eta` for `model` and `rule` (InvalidArgument for a flat field).
StationaryLaw stationary_law(const ModelParams& model, double eta, UpdateRule rule, const StationaryParams& params = {});
/// The same from given tables (the theory's field and a table at `eta`); NumericalError for a flat field.
StationaryLaw stationary_law(const DriftField& field, const StepMomentTable& table, const StationaryParams& params = {});

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const DiffusionMoments& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, DiffusionMoments& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const StationaryParams& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, StationaryParams& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const StationaryLaw& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, StationaryLaw& v);

}  // namespace rhoflow
