// The asymptotic-pseudotrajectory gap of a stochastic approximation run against the flow of
// its mean ODE (docs/theory.md section 7; Benaim, "Dynamics of stochastic
// approximation algorithms", Seminaire de probabilites XXXIII, 1999):
//     D_T(t) = sup_{0 <= h <= T} | rho_bar(t + h) - Phi_h(rho_bar(t)) |,
// rho_bar the piecewise-linear interpolation of rho_k at times t_k, Phi the flow. The run is an
// asymptotic pseudotrajectory iff D_T(t) -> 0 for every T.
//
// GapTracker watches one run step by step (it is a StepObserver): at each anchor step it
// restarts the flow from the run's own state, advances it alongside the run by dense output,
// and keeps the largest deviation until t_k passes t_anchor + T. The supremum is taken at the
// steps t_k; between two steps rho_bar is linear and Phi smooth, so the continuous supremum
// exceeds it by at most (t_{k+1} - t_k)^2 max|Phi''| / 8 = O(eta_k^2), negligible next to the
// O(sqrt(eta)) gap. It also tracks |rho_k - rho_ODE(t_k)| from the run's own start (the
// tracking error). Memory is O(number of anchors); nothing grows with the step count.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "rhoflow/stochastic/ensemble.hpp"
#include "rhoflow/ode/ode.hpp"

namespace rhoflow {

/// What the tracker computes and how accurately.
struct GapConfig {
    double horizon = 10.0;                 ///< T, in ODE time (sum of step sizes)
    std::vector<std::int64_t> anchors;     ///< anchor steps (ascending)
    std::vector<std::int64_t> record_steps;  ///< steps at which to keep rho_ODE (ascending)
    double rtol = 1e-9;                    ///< flow tolerance
    double atol = 1e-11;                   ///< flow tolerance
};

/// Online D_T at the anchors and tracking error of one run.
class GapTracker : public StepObserver {
public:
    /// `drift` is the ODE's right-hand side F; the flow state is clamped to [-1, 1] when `clamp`.
    GapTracker(std::function<double(double)> drift, GapConfig config, bool clamp = true);
    /// Consumes step k (k = 0 is the initial state at t = 0).
    void on_step(std::int64_t k, double t, double rho, double nuisance_mass) override;
    /// D_T at each anchor; empty for an anchor whose window [t_a, t_a + T] the run did not finish.
    const std::vector<std::optional<double>>& gaps() const noexcept { return gaps_; }
    /// Time of each anchor step (0 until reached).
    const std::vector<double>& anchor_times() const noexcept { return anchor_t_; }
    /// sup_k |rho_k - rho_ODE(t_k)| with the ODE started at the run's rho_0.
    double sup_tracking_error() const noexcept { return sup_track_; }
    /// rho_ODE at the configured record steps (in order; those reached).
    const std::vector<double>& ode_at_records() const noexcept { return ode_records_; }

private:
    struct Window {
        std::size_t anchor;
        double t0, end;
        FlowTracker flow;
        double sup = 0;
    };
    std::function<double(double)> drift_;
    GapConfig cfg_;
    bool clamp_;
    std::vector<std::optional<double>> gaps_;
    std::vector<double> anchor_t_;
    std::vector<Window> open_;
    std::size_t next_anchor_ = 0, next_record_ = 0;
    std::optional<FlowTracker> ode_;
    double sup_track_ = 0;
    std::vector<double> ode_records_;
};

}  // namespace rhoflow
