#include "rhoflow/ode/ode.hpp"

#include <algorithm>
#include <array>
#include <boost/math/tools/toms748_solve.hpp>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>

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
    // first time of interest); returns the step's interval. Throws odeint's
    // step_adjustment_error when 500 tries in a row are rejected; check finite() after it.
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
        return interval;
    }
    // x(t) by dense output, for t inside the last step.
    double at(double t) const {
        if (!started_ || t <= 0) return x0_;
        State x;
        stepper_.calc_state(t, x);
        return clamp_ ? std::clamp(x[0], -1.0, 1.0) : x[0];
    }
    // x at the end of the last step, unclamped (the step's own value, not its interpolant's).
    double current_state() const { return started_ ? stepper_.current_state()[0] : x0_; }
    // The dense output at t inside the last step, unclamped.
    double raw_at(double t) const {
        State x;
        stepper_.calc_state(t, x);
        return x[0];
    }
    bool finite() const { return std::isfinite(current_state()); }
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

// The Chebyshev-Lobatto nodes theta_j = (1 - cos(j pi / 5)) / 2 of one step, j = 0..5.
constexpr int kNodes = 6;
const std::array<double, kNodes>& lobatto() {
    static const std::array<double, kNodes> theta = [] {
        std::array<double, kNodes> t{};
        for (int j = 0; j < kNodes; ++j) t[j] = 0.5 * (1 - std::cos(j * std::acos(-1.0) / (kNodes - 1)));
        t[0] = 0, t[kNodes - 1] = 1;
        return t;
    }();
    return theta;
}

// Appends the step [t0, t1] just taken to `out`: the dense output at the interior nodes, then
// the step's own end value.
void record_step(const DenseSolver& solver, double t0, double t1, OdeInterpolant& out) {
    for (int j = 1; j < kNodes - 1; ++j) out.x.push_back(solver.raw_at(t0 + lobatto()[j] * (t1 - t0)));
    out.x.push_back(solver.current_state());
    out.t.push_back(t1);
}

struct Run {
    std::vector<double> rho;  // at the times reached
    std::optional<double> hit;
    std::int64_t steps = 0, evals = 0;
    OdeInterpolant dense;
    double t_reached = 0;     // end of the last good step (or the last time, if no step was needed)
    OdeStatus status = OdeStatus::success;
    std::string message;
};

// The solver failure after a step, if any (none: success).
OdeStatus step_failure(const DenseSolver& solver, double t0, double t1, std::int64_t max_steps,
                       double t_end, std::string& message) {
    if (!solver.finite()) {
        message = "ODE: the solution became non-finite";
        return OdeStatus::non_finite;
    }
    if (!(t1 > t0)) {
        message = "ODE: the step size underflowed at t = " + format_number(t0);
        return OdeStatus::step_underflow;
    }
    if (max_steps > 0 && solver.steps() >= max_steps && t1 < t_end) {
        message = "ODE: " + std::to_string(max_steps) + " steps (max_steps) reached at t = " + format_number(t1) +
                  " before t = " + format_number(t_end);
        return OdeStatus::too_many_steps;
    }
    return OdeStatus::success;
}

// The first crossing of |rho| = level inside the step [t0, t1], where it ends at or beyond it.
double crossing(const DenseSolver& solver, double t0, double t1, double level) {
    // rho(t) is monotone, so |rho| crosses the level once, inside this step.
    auto g = [&](double t) { return std::abs(solver.at(t)) - level; };
    std::uintmax_t iters = 100;
    const auto r = boost::math::tools::toms748_solve(g, t0, t1, g(t0), g(t1),
                                                     boost::math::tools::eps_tolerance<double>(50), iters);
    return 0.5 * (r.first + r.second);
}

// Reports rho at the requested times inside the step ending at t1 (and to the observer).
void sample_step(const DenseSolver& solver, const std::vector<double>& times, double t1,
                 const OdeOptions& options, Run& run) {
    while (run.rho.size() < times.size() && times[run.rho.size()] <= t1) {
        const double t = times[run.rho.size()];
        run.rho.push_back(solver.at(t));
        if (options.observer) options.observer(t, run.rho.back());
    }
}

// One dense-output solve of rho' = F(rho) reporting rho at `times` and the first crossing of
// |rho| = level (if level > 0). A solver failure ends it with the samples reached so far.
Run integrate(const std::function<double(double)>& F, double rho0, const std::vector<double>& times,
              double rtol, double atol, double level, const OdeOptions& options) {
    Run run;
    const double t_end = times.back();
    run.dense.t = {0.0};
    run.dense.x = {rho0};
    DenseSolver solver(F, rho0, rtol, atol, true);
    sample_step(solver, times, 0.0, options, run);  // the times <= 0: rho0
    if (level > 0 && std::abs(rho0) >= level) run.hit = 0.0;
    while (run.rho.size() < times.size()) {
        std::pair<double, double> step;
        try {
            step = solver.step(t_end);
        } catch (const boost::numeric::odeint::step_adjustment_error& e) {
            run.status = OdeStatus::step_failed;
            run.message = e.what();
            break;
        }
        const auto [t0, t1] = step;
        run.status = step_failure(solver, t0, t1, options.max_steps, t_end, run.message);
        if (run.status != OdeStatus::success && run.status != OdeStatus::too_many_steps) break;
        record_step(solver, t0, t1, run.dense);
        run.t_reached = t1;
        sample_step(solver, times, t1, options, run);
        if (level > 0 && !run.hit && t0 < t_end && std::abs(solver.at(t1)) >= level) {
            const double th = crossing(solver, t0, t1, level);
            if (th <= t_end) run.hit = th;
        }
        if (run.status != OdeStatus::success) break;
    }
    run.t_reached = run.status == OdeStatus::success ? t_end : std::min(run.t_reached, t_end);
    run.steps = solver.steps();
    run.evals = solver.evals();
    return run;
}

// |a(t) - b(t)| at the nodes of a's steps, as a running maximum over the steps (clamped as
// the samples are): the dense solution's margin.
std::vector<double> running_gap(const OdeInterpolant& a, const OdeInterpolant& b) {
    const std::size_t steps = a.t.size() > 1 ? a.t.size() - 1 : 1;
    std::vector<double> gap(steps, 0.0);
    for (std::size_t k = 0; k + 1 < a.t.size(); ++k) {
        double g = k > 0 ? gap[k - 1] : 0.0;
        for (int j = 1; j < kNodes; ++j) {
            const double t = a.t[k] + lobatto()[j] * (a.t[k + 1] - a.t[k]);
            g = std::max(g, std::abs(std::clamp(a.x[5 * k + j], -1.0, 1.0) - std::clamp(b.at(t), -1.0, 1.0)));
        }
        gap[k] = g;
    }
    return gap;
}

void validate_times(const std::vector<double>& times) {
    require(!times.empty(), "times", 0, "at least one output time");
    for (std::size_t i = 0; i < times.size(); ++i) {
        require(std::isfinite(times[i]) && times[i] >= 0, "times", times[i], "finite times >= 0");
        if (i > 0) require(times[i] >= times[i - 1], "times", times[i], "ascending output times");
    }
}

// The main solve's samples, counts and dense output; rho_err 0.
OdeSolution from_main(Run&& main, const std::vector<double>& times) {
    OdeSolution sol;
    sol.t.assign(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(main.rho.size()));
    sol.rho = std::move(main.rho);
    sol.rho_err.assign(sol.t.size(), 0.0);
    sol.hit_time = main.hit;
    sol.steps = main.steps;
    sol.rhs_evals = main.evals;
    sol.sol.t_end = main.t_reached;
    sol.sol.rho = std::move(main.dense);
    sol.status = main.status;
    sol.message = std::move(main.message);
    return sol;
}

// rho_err, hit_time_err and the dense solution's error from the three error-estimate solves.
void add_error_estimate(OdeSolution& sol, const Run& tight, const Run& up, const Run& dn) {
    const std::vector<double>& times = sol.t;
    // |main - tight| estimates the main solve's error wherever the tighter solve is much better.
    // Pointwise it is not always (the main error can cancel where the tight one does not), but
    // in the sup norm the tighter solve is better by 100^k, k >= 1/2 for dopri5 and its dense
    // output; so a tenth of the largest difference bounds the tighter solve's error everywhere.
    double sup = 0;
    for (std::size_t i = 0; i < times.size(); ++i) sup = std::max(sup, std::abs(sol.rho[i] - tight.rho[i]));
    for (std::size_t i = 0; i < times.size(); ++i)
        if (times[i] > 0)  // rho(0) = rho0 exactly
            sol.rho_err[i] = std::abs(sol.rho[i] - tight.rho[i]) + 0.1 * sup + 0.5 * std::abs(up.rho[i] - dn.rho[i]);
    if (sol.hit_time) {
        // A solve (the tighter one, or a perturbed field) that does not hit within the horizon
        // leaves the hit time uncertain at least up to the horizon: report that, never 0.
        const double horizon = times.back();
        double e = 1.1 * std::abs(*sol.hit_time - tight.hit.value_or(horizon));
        const double hu = up.hit.value_or(horizon), hd = dn.hit.value_or(horizon);
        e += 0.5 * std::abs(hu - hd);
        sol.hit_time_err = e;
    }
    sol.sol.tight = tight.dense;
    sol.sol.upper = up.dense;
    sol.sol.lower = dn.dense;
}

// The first failed run among the error-estimate solves, if any.
const Run* first_failure(std::initializer_list<const Run*> runs) {
    for (const Run* r : runs)
        if (r->status != OdeStatus::success) return r;
    return nullptr;
}

// d/dtheta of the interpolant at the step's ends, from its nodes (the barycentric
// differentiation matrix's first and last rows: D_ij = (w_j / w_i) / (theta_i - theta_j)).
std::pair<double, double> end_slopes(const OdeInterpolant& p, std::size_t k) {
    auto weight = [](int j) { return ((j % 2) ? -1.0 : 1.0) * ((j == 0 || j == kNodes - 1) ? 0.5 : 1.0); };
    double s0 = 0, s1 = 0;
    const double x0 = p.x[5 * k], x1 = p.x[5 * k + 5];
    for (int j = 1; j < kNodes; ++j)
        s0 += weight(j) / weight(0) / (0.0 - lobatto()[j]) * (p.x[5 * k + j] - x0);
    for (int j = 0; j < kNodes - 1; ++j)
        s1 += weight(j) / weight(kNodes - 1) / (1.0 - lobatto()[j]) * (p.x[5 * k + j] - x1);
    return {s0, s1};
}

// |p(t) - H(t)| with H the cubic Hermite interpolant of p's values and slopes at the ends of
// the step holding t: one order below p, so it bounds p's interpolation error (loosely).
double hermite_gap(const OdeInterpolant& p, double t) {
    const std::size_t k = p.step_of(t);
    const double s = std::clamp((t - p.t[k]) / (p.t[k + 1] - p.t[k]), 0.0, 1.0);
    const auto [d0, d1] = end_slopes(p, k);
    const double x0 = p.x[5 * k], x1 = p.x[5 * k + 5];
    const double h = (2 * s - 3) * s * s + 1, g = ((s - 2) * s + 1) * s, hh = (3 - 2 * s) * s * s, gg = (s - 1) * s * s;
    return std::abs(p.at(t) - (h * x0 + g * d0 + hh * x1 + gg * d1));
}

// Whether the tighter solve's step holding t is not markedly shorter than the main one's (as
// in the first steps, whose length the growth limit sets, not the tolerance).
bool similar_steps(const OdeInterpolant& main, const OdeInterpolant& tight, double t) {
    if (tight.t.size() < 2) return true;
    const std::size_t k = main.step_of(t), q = tight.step_of(t);
    return tight.t[q + 1] - tight.t[q] > 0.7 * (main.t[k + 1] - main.t[k]);
}

}  // namespace

double OdeInterpolant::at(double time) const {
    if (t.size() < 2) return x.front();
    const std::size_t k = step_of(time);
    const double theta = std::clamp((time - t[k]) / (t[k + 1] - t[k]), 0.0, 1.0);
    // Barycentric formula on Chebyshev-Lobatto nodes: weights (-1)^j, halved at both ends.
    double num = 0, den = 0;
    for (int j = 0; j < kNodes; ++j) {
        const double xj = x[5 * k + static_cast<std::size_t>(j)];
        if (theta == lobatto()[j]) return xj;
        const double w = ((j % 2) ? -1.0 : 1.0) * ((j == 0 || j == kNodes - 1) ? 0.5 : 1.0) / (theta - lobatto()[j]);
        num += w * xj;
        den += w;
    }
    return num / den;
}

std::size_t OdeInterpolant::step_of(double time) const {
    if (t.size() < 2) return 0;
    const auto it = std::upper_bound(t.begin() + 1, t.end() - 1, time);
    return static_cast<std::size_t>(it - t.begin()) - 1;
}

OdePoint OdeDenseSolution::operator()(double t) const {
    require(!empty(), "t", t, "a dense solution (none is kept in a JSON document)");
    require(t >= 0 && t <= t_end, "t", t, "0 <= t <= t_end = " + format_number(t_end));
    auto clamped = [t](const OdeInterpolant& i) { return std::clamp(i.at(t), -1.0, 1.0); };
    OdePoint p{clamped(rho), 0.0};
    if (tight.x.empty() || t == 0) return p;  // rho(0) = rho0 exactly
    const double d = std::abs(p.rho - clamped(tight));
    p.err = d + 0.2 * std::max(running_gap[rho.step_of(t)], d) + 0.5 * std::abs(clamped(upper) - clamped(lower));
    if (rho.t.size() > 1 && similar_steps(rho, tight, t)) p.err += hermite_gap(rho, t);
    return p;
}

OdeSolution try_solve_ode(const DriftField& field, double rho0, const std::vector<double>& times,
                          const OdeParams& params, const OdeOptions& options) {
    validate_rho(rho0, "rho0");
    params.validate();
    validate_times(times);
    require(options.max_steps >= 0, "max_steps", static_cast<double>(options.max_steps), "max_steps >= 0");
    const double level = 1.0 - params.hit_eps;
    auto F = [&](double r) { return field.drift(r); };
    OdeSolution sol = from_main(integrate(F, rho0, times, params.rtol, params.atol, level, options), times);
    if (!params.error_estimate || sol.status != OdeStatus::success) return sol;

    OdeOptions quiet;
    quiet.max_steps = options.max_steps;
    const double rt = std::max(params.rtol / 100, 1e-14), at = std::max(params.atol / 100, 1e-16);
    const Run tight = integrate(F, rho0, times, rt, at, level, quiet);
    const double delta = field.dj_error();
    auto Fp = [&](double r) { return (1 - r * r) * (field.dj(r) + delta); };
    auto Fm = [&](double r) { return (1 - r * r) * (field.dj(r) - delta); };
    const Run up = integrate(Fp, rho0, times, rt, at, level, quiet);
    const Run dn = integrate(Fm, rho0, times, rt, at, level, quiet);
    if (const Run* bad = first_failure({&tight, &up, &dn})) {  // no error estimate then
        sol.status = bad->status;
        sol.message = bad->message;
        if (bad->status == OdeStatus::too_many_steps) sol.message += " (in a solve for the error estimate)";
        return sol;
    }
    add_error_estimate(sol, tight, up, dn);
    sol.sol.running_gap = running_gap(sol.sol.rho, sol.sol.tight);
    return sol;
}

OdeSolution solve_ode(const DriftField& field, double rho0, const std::vector<double>& times,
                      const OdeParams& params, const OdeOptions& options) {
    OdeSolution sol = try_solve_ode(field, rho0, times, params, options);
    throw_if_failed(sol);
    return sol;
}

const OdeSolution& throw_if_failed(const OdeSolution& s) {
    if (s.status == OdeStatus::step_failed) throw std::runtime_error(s.message);
    if (s.status != OdeStatus::success) throw NumericalError(s.message);
    return s;
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
    while (m.solver.current_time() < t) {
        m.solver.step(t);
        if (!m.solver.finite()) throw NumericalError("ODE: the solution became non-finite");
    }
    return m.solver.at(t);
}

std::int64_t FlowTracker::steps() const noexcept { return impl_->solver.steps(); }

}  // namespace rhoflow
