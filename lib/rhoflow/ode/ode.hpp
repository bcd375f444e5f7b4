// Integration of the reduced mean-field ODE d rho/dt = F(rho) = (1 - rho^2) j'(rho)
// (docs/theory.md (3.3)) with Boost.Odeint, shaped like its anchors: scipy's solve_ivp (samples,
// a dense solution `sol`, a status with a message) and odeint's integrate_times (an observer).
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
//
// Dense solution (OdeDenseSolution, like solve_ivp's `sol`): each solve keeps the dense output
// of every accepted step. Dopri5's continuous extension is a polynomial of degree 5 in the step
// fraction (Hairer et al. II.6; odeint's runge_kutta_dopri5::calc_state), so its values at the
// 6 Chebyshev-Lobatto nodes of the step hold it exactly; it is evaluated by the barycentric
// formula (Berrut & Trefethen, SIAM Review 46 (2004)), agreeing with the samples to rounding.
// Its error estimate at t reads the samples' rule at t, the other solves by their own dense
// outputs: d(t) = |rho(t) - tight(t)|, plus 0.2 max(d at the nodes of the steps so far, d(t)),
// plus 0.5 |upper(t) - lower(t)|. Order: the interpolant is of order 4 (error O(h^5) inside a
// step); the tighter solve's steps are ~100^(1/5) = 2.5 times shorter, so it interpolates ~100
// times better and d covers the interpolation error too. Where its step is not markedly shorter
// (over 0.7 of the main one: the first steps, whose growth limit, not the tolerance, sets their
// length) d says nothing of it, and |rho(t) - H(t)| is added, H the cubic Hermite interpolant
// of the step's ends (one order lower, so a loose bound). The running maximum over the nodes
// covers the tighter solve's own error where the main error changes sign.
// When it fails: the estimate is asymptotic (tolerance proportionality, Stetter 1973); at
// tolerances so loose that the error is not ~ proportional to the tolerance (rtol >~ 1e-5) or
// where rounding dominates (rtol <~ 1e-13) it may miss; with error_estimate = false it is 0.
// The dense solution is not serialised (neither are `status` and `message`): the JSON
// documents are what they were.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
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

/// How a solve ended (solve_ivp's `status`): success, or the solver failure that stopped it.
enum class OdeStatus {
    success,          ///< every requested time reached
    step_failed,      ///< odeint's step-size controller rejected 500 steps in a row
    step_underflow,   ///< the step no longer advanced t (step size below t's resolution)
    too_many_steps,   ///< OdeOptions::max_steps accepted steps before the last requested time
    non_finite,       ///< the solution became non-finite (the field gave NaN or infinity)
};

/// One solve's dense output: per accepted step, its Dopri5 interpolant (degree 5) held by its
/// values at the step's 6 Chebyshev-Lobatto nodes (theta_j = (1 - cos(j pi / 5)) / 2).
struct OdeInterpolant {
    std::vector<double> t;  ///< step ends: t[0] = 0, step k is [t[k], t[k+1]]; empty if not recorded
    std::vector<double> x;  ///< 5 per step after x[0] = x(0): node j of step k at x[5k + j] (unclamped)

    /// The interpolant at `time`, t[0] <= time <= t.back() (clamped into that range).
    double at(double time) const;
    /// The step holding `time` (the last one for a time at or beyond its end).
    std::size_t step_of(double time) const;
};

/// The dense solution at one time.
struct OdePoint {
    double rho = 0;  ///< rho(t), clamped to [-1, 1] as the samples are
    double err = 0;  ///< error estimate of rho(t) (integration + field), 0 without an error estimate
};

/// The dense solution (solve_ivp's `sol`): rho and its error estimate at any t in [0, t_end].
/// Method, order and failure modes: the top of this header. Not serialised.
struct OdeDenseSolution {
    double t_end = 0;                 ///< last time covered: the last requested time, or where a failed solve stopped
    OdeInterpolant rho;               ///< the main solve's dense output
    OdeInterpolant tight;             ///< the solve at tolerances / 100 (empty without an error estimate)
    OdeInterpolant upper;             ///< the solve with j' + delta (empty without an error estimate)
    OdeInterpolant lower;             ///< the solve with j' - delta (empty without an error estimate)
    std::vector<double> running_gap;  ///< per step k of `rho`: max |rho - tight| over the nodes of steps 0..k

    /// rho(t) and its error estimate; throws InvalidArgument("t") outside [0, t_end] or if empty().
    OdePoint operator()(double t) const;
    /// Whether nothing was recorded (a solution read back from JSON).
    bool empty() const noexcept { return rho.x.empty(); }
};

/// The solution on the requested times, with error estimates and work counts; the dense
/// solution and the status ride along but are not serialised (the JSON holds what it always did).
struct OdeSolution {
    std::vector<double> t;        ///< requested times (those reached, if the solve failed)
    std::vector<double> rho;      ///< rho(t)
    std::vector<double> rho_err;  ///< error estimate of rho(t) (integration + field), 0 if not requested or failed
    std::optional<double> hit_time;  ///< first t <= max(t) with |rho| >= 1 - hit_eps, if any
    double hit_time_err = 0;      ///< error estimate of hit_time
    std::int64_t steps = 0;       ///< accepted steps of the main solve
    std::int64_t rhs_evals = 0;   ///< evaluations of F by the main solve
    OdeDenseSolution sol;         ///< rho(t) and its error at any t in [0, sol.t_end] (not in the JSON)
    OdeStatus status = OdeStatus::success;  ///< success, or the failure that stopped a solve (not in the JSON)
    std::string message;          ///< what failed and where, empty on success (not in the JSON)
};

/// Options of one call, not of the problem (not serialised).
struct OdeOptions {
    std::function<void(double, double)> observer;  ///< called with (t, rho(t)) at each requested time the main solve reaches, in order
    std::int64_t max_steps = 0;   ///< accepted steps allowed per solve, 0 for no limit
};

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const OdeParams& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, OdeParams& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const OdeSolution& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, OdeSolution& v);

/// Integrates from rho(0) = rho0 and reports rho at `times` (ascending, >= 0); a solver failure
/// is reported in `status` and `message` with the samples reached before it, never thrown
/// (invalid input throws InvalidArgument; exceptions from the field pass through).
OdeSolution try_solve_ode(const DriftField& field, double rho0, const std::vector<double>& times,
                          const OdeParams& params = {}, const OdeOptions& options = {});

/// try_solve_ode, then throw_if_failed: a solver failure throws as it always has.
OdeSolution solve_ode(const DriftField& field, double rho0, const std::vector<double>& times,
                      const OdeParams& params = {}, const OdeOptions& options = {});

/// Throws the failure `s` reports (step_failed: std::runtime_error with odeint's message, the
/// others NumericalError with `message`); returns `s` on success.
const OdeSolution& throw_if_failed(const OdeSolution& s);

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
