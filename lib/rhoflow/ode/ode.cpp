#include "rhoflow/ode/ode.hpp"

#include <algorithm>
#include <array>
#include <boost/math/tools/toms748_solve.hpp>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"

namespace rhoflow {

void OdeParams::validate() const {
    require_in("rtol", rtol, 1e-14, 0.1);
    require_in("atol", atol, 1e-16, 0.1);
    validate_hit_eps(hit_eps, "hit_eps");
}

RHOFLOW_JSON_HOOKS(OdeParams, rtol, atol, hit_eps, error_estimate)
RHOFLOW_JSON_HOOKS(OdeSolution, t, rho, rho_err, hit_time, hit_time_err, steps, rhs_evals)

std::vector<double> linear_grid(double t_end, int points) {
    require(std::isfinite(t_end) && t_end > 0, "t_end", t_end, "finite t_end > 0");
    require(points >= 2 && points <= 10000000, "points", points, "2 <= points <= 1e7");
    std::vector<double> t(static_cast<std::size_t>(points));
    for (int i = 0; i < points; ++i) t[static_cast<std::size_t>(i)] = t_end * i / (points - 1);
    t.back() = t_end;
    return t;
}

namespace {

using State = std::array<double, 1>;

// Dormand-Prince 5(4) with dense output (odeint) for x' = F(x) from x(0) = x0: the one stepping
// loop behind solve_ode and FlowTracker. The state passed to F is clamped to [-1, 1]
// when `clamp` is set (the drift is defined there).
class DenseSolver {
public:
    DenseSolver(std::function<double(double)> F, double x0, double rtol, double atol, bool clamp)
        : F_(std::move(F)), x0_(x0), clamp_(clamp),
          stepper_(boost::numeric::odeint::make_dense_output(atol, rtol,
                                                             boost::numeric::odeint::runge_kutta_dopri5<State>())) {}

    // Advances one accepted step (the first call sets the initial step from |F(x0)| and the
    // first time of interest); returns the step's interval.
    std::pair<double, double> step(double t_first) {
        if (!started_) {
            const double f0 = std::abs(F_(x0_));
            const double dt0 = std::min(t_first, f0 > 0 ? 1e-3 / f0 : t_first) * 1e-2 + 1e-12;
            stepper_.initialize(State{x0_}, 0.0, dt0);
            started_ = true;
        }
        auto sys = [this](const State& x, State& dxdt, double) {
            ++evals_;
            dxdt[0] = F_(clamp_ ? std::clamp(x[0], -1.0, 1.0) : x[0]);
        };
        const auto interval = stepper_.do_step(sys);
        ++steps_;
        if (!std::isfinite(stepper_.current_state()[0]))
            throw NumericalError("ODE: the solution became non-finite");
        return interval;
    }
    // x(t) by dense output, for t inside the last step.
    double at(double t) const {
        if (!started_ || t <= 0) return x0_;
        State x;
        stepper_.calc_state(t, x);
        return clamp_ ? std::clamp(x[0], -1.0, 1.0) : x[0];
    }
    double current_time() const { return started_ ? stepper_.current_time() : 0.0; }
    bool at_rest() const { return F_(x0_) == 0.0; }
    std::int64_t steps() const { return steps_; }
    std::int64_t evals() const { return evals_; }

private:
    using Stepper = decltype(boost::numeric::odeint::make_dense_output(
        1.0, 1.0, boost::numeric::odeint::runge_kutta_dopri5<State>()));
    std::function<double(double)> F_;
    double x0_;
    bool clamp_;
    mutable Stepper stepper_;
    bool started_ = false;
    std::int64_t steps_ = 0, evals_ = 0;
};

struct Run {
    std::vector<double> rho;
    std::optional<double> hit;
    std::int64_t steps = 0, evals = 0;
};

// One dense-output solve of rho' = F(rho) reporting rho at `times` and the first crossing of
// |rho| = level (if level > 0).
Run integrate(const std::function<double(double)>& F, double rho0, const std::vector<double>& times,
              double rtol, double atol, double level) {
    Run run;
    run.rho.resize(times.size());
    const double t_end = times.empty() ? 0.0 : times.back();
    std::size_t next = 0;
    while (next < times.size() && times[next] <= 0.0) run.rho[next++] = rho0;
    if (level > 0 && std::abs(rho0) >= level) run.hit = 0.0;
    if (next == times.size()) return run;

    DenseSolver solver(F, rho0, rtol, atol, true);
    while (next < times.size()) {
        const auto [t0, t1] = solver.step(t_end);
        while (next < times.size() && times[next] <= t1) {
            run.rho[next] = solver.at(times[next]);
            ++next;
        }
        if (level > 0 && !run.hit && t0 < t_end && std::abs(solver.at(t1)) >= level) {
            // rho(t) is monotone, so |rho| crosses the level once, inside this step.
            auto g = [&](double t) { return std::abs(solver.at(t)) - level; };
            std::uintmax_t iters = 100;
            const auto r = boost::math::tools::toms748_solve(g, t0, t1, g(t0), g(t1),
                                                             boost::math::tools::eps_tolerance<double>(50), iters);
            const double th = 0.5 * (r.first + r.second);
            if (th <= t_end) run.hit = th;
        }
    }
    run.steps = solver.steps();
    run.evals = solver.evals();
    return run;
}

}  // namespace

OdeSolution solve_ode(const DriftField& field, double rho0, const std::vector<double>& times,
                      const OdeParams& params) {
    validate_rho(rho0, "rho0");
    params.validate();
    require(!times.empty(), "times", 0, "at least one output time");
    for (std::size_t i = 0; i < times.size(); ++i) {
        require(std::isfinite(times[i]) && times[i] >= 0, "times", times[i], "finite times >= 0");
        if (i > 0) require(times[i] >= times[i - 1], "times", times[i], "ascending output times");
    }
    const double level = 1.0 - params.hit_eps;
    auto F = [&](double r) { return field.drift(r); };
    Run main = integrate(F, rho0, times, params.rtol, params.atol, level);

    OdeSolution sol;
    sol.t = times;
    sol.rho = main.rho;
    sol.hit_time = main.hit;
    sol.steps = main.steps;
    sol.rhs_evals = main.evals;
    sol.rho_err.assign(times.size(), 0.0);
    if (!params.error_estimate) return sol;

    const double rt = std::max(params.rtol / 100, 1e-14), at = std::max(params.atol / 100, 1e-16);
    const Run tight = integrate(F, rho0, times, rt, at, level);
    const double delta = field.dj_error();
    auto Fp = [&](double r) { return (1 - r * r) * (field.dj(r) + delta); };
    auto Fm = [&](double r) { return (1 - r * r) * (field.dj(r) - delta); };
    const Run up = integrate(Fp, rho0, times, rt, at, level);
    const Run dn = integrate(Fm, rho0, times, rt, at, level);
    // |main - tight| estimates the main solve's error wherever the tighter solve is much better.
    // Pointwise it is not always (the main error can cancel where the tight one does not), but
    // in the sup norm the tighter solve is better by 100^k, k >= 1/2 for dopri5 and its dense
    // output; so a tenth of the largest difference bounds the tighter solve's error everywhere.
    double sup = 0;
    for (std::size_t i = 0; i < times.size(); ++i) sup = std::max(sup, std::abs(main.rho[i] - tight.rho[i]));
    for (std::size_t i = 0; i < times.size(); ++i)
        if (times[i] > 0)  // rho(0) = rho0 exactly
            sol.rho_err[i] = std::abs(main.rho[i] - tight.rho[i]) + 0.1 * sup + 0.5 * std::abs(up.rho[i] - dn.rho[i]);
    if (main.hit) {
        // A solve (the tighter one, or a perturbed field) that does not hit within the horizon
        // leaves the hit time uncertain at least up to the horizon: report that, never 0.
        const double horizon = times.back();
        double e = 1.1 * std::abs(*main.hit - tight.hit.value_or(horizon));
        const double hu = up.hit.value_or(horizon), hd = dn.hit.value_or(horizon);
        e += 0.5 * std::abs(hu - hd);
        sol.hit_time_err = e;
    }
    return sol;
}

struct FlowTracker::Impl {
    DenseSolver solver;
    double last = 0;
};

FlowTracker::FlowTracker(std::function<double(double)> F, double x0, double rtol, double atol, bool clamp)
    : impl_(std::make_unique<Impl>(Impl{DenseSolver(std::move(F), x0, rtol, atol, clamp)})) {}

FlowTracker::~FlowTracker() = default;
FlowTracker::FlowTracker(FlowTracker&&) noexcept = default;
FlowTracker& FlowTracker::operator=(FlowTracker&&) noexcept = default;

double FlowTracker::at(double t) {
    Impl& m = *impl_;
    if (t < m.last) throw std::logic_error("FlowTracker::at: times must not decrease");
    m.last = t;
    if (t <= 0 || m.solver.at_rest()) return m.solver.at(0.0);
    while (m.solver.current_time() < t) m.solver.step(t);
    return m.solver.at(t);
}

std::int64_t FlowTracker::steps() const noexcept { return impl_->solver.steps(); }

}  // namespace rhoflow
