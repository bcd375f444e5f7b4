// Integration of the reduced mean-field ODE d rho/dt = F(rho) = (1 - rho^2) j'(rho)
// (docs/theory.md (3.3)) with Boost.Odeint.
//
// Method: Dormand-Prince 5(4) with error control (|err| <= atol + rtol |rho|) and its dense
// output (Hairer, Norsett & Wanner, "Solving ODEs I", II.6), via odeint's make_dense_output. The
// solution is reported on any requested times by dense output, never by stepping onto them;
// the hitting time of |rho| >= 1 - eps is a root of the dense output found by Boost.Math's
// TOMS 748 bracketing solver inside the step where it happens (rho(t) is monotone for a 1-D
// autonomous ODE, so there is at most one crossing of each level).
// Error estimate (when requested): the same problem is solved again at tolerances / 100; the
// pointwise difference plus a tenth of its maximum estimates the integration error (the tenth
// bounds the tighter solve's own error when errors scale at least like tol^(1/2)). By the
// comparison principle for scalar
// ODEs, with F +- (1 - rho^2) delta where delta bounds the field's error in j': the true
// solution lies between those two, so half their spread bounds the effect of the field error.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "rhoflow/field/drift_field.hpp"

namespace rhoflow {

/// Integrator controls.
struct OdeParams {
    double rtol = 1e-10;        ///< relative tolerance per step
    double atol = 1e-12;        ///< absolute tolerance per step
    double hit_eps = 0.01;      ///< hitting level: first t with |rho| >= 1 - hit_eps
    bool error_estimate = true; ///< also solve at tol/100 and with the field perturbed by its error

    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// The solution on the requested times, with error estimates and work counts.
struct OdeSolution {
    std::vector<double> t;        ///< requested times
    std::vector<double> rho;      ///< rho(t)
    std::vector<double> rho_err;  ///< error estimate of rho(t) (integration + field), 0 if not requested
    std::optional<double> hit_time;  ///< first t <= max(t) with |rho| >= 1 - hit_eps, if any
    double hit_time_err = 0;      ///< error estimate of hit_time
    std::int64_t steps = 0;       ///< accepted steps of the main solve
    std::int64_t rhs_evals = 0;   ///< evaluations of F by the main solve
};

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const OdeParams& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, OdeParams& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const OdeSolution& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, OdeSolution& v);

/// Integrates from rho(0) = rho0 and reports rho at `times` (ascending, >= 0).
OdeSolution solve_ode(const DriftField& field, double rho0, const std::vector<double>& times,
                      const OdeParams& params = {});

/// `points` equally spaced times from 0 to t_end inclusive (points >= 2).
std::vector<double> linear_grid(double t_end, int points);

/// The solution of x' = F(x), x(0) = x0, queried at non-decreasing times: the Dormand-Prince
/// stepper advances only as far as the queries need, and each answer comes from its dense
/// output. Serves the comparator, which restarts the flow at many anchors along a run.
class FlowTracker {
public:
    /// Starts at x(0) = x0. The state passed to F is clamped to [-1, 1] when `clamp` is set.
    FlowTracker(std::function<double(double)> F, double x0, double rtol = 1e-10, double atol = 1e-12,
                bool clamp = true);
    ~FlowTracker();
    FlowTracker(FlowTracker&&) noexcept;
    FlowTracker& operator=(FlowTracker&&) noexcept;
    /// x(t); t must not decrease between calls (throws std::logic_error otherwise).
    double at(double t);
    /// Accepted steps so far.
    std::int64_t steps() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace rhoflow
