#include "rhoflow/compare/outcomes.hpp"

#include <algorithm>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"

namespace rhoflow {

void OutcomeParams::validate() const {
    require(std::isfinite(level) && level >= 0.5 && level < 1, "level", level, "0.5 <= level < 1");
}

RHOFLOW_JSON_HOOKS(OutcomeParams, level)
RHOFLOW_JSON_HOOKS(BasinOutcome, attractor, kind, from, to, from_closed, to_closed, count, fraction, fraction_lo,
                   fraction_hi, rho_final, sd, sd_se, uniform_probability, contains_rho0)
RHOFLOW_JSON_HOOKS(OutcomeSummary, trials, unassigned, level, rho0, d, basins)

double uniform_sphere_probability(std::int64_t d, double a, double b) {
    require(d >= 2, "d", static_cast<double>(d), "d >= 2");
    require(a >= -1 && a <= b && b <= 1, "basin", a, "-1 <= a <= b <= 1");
    const double s = 0.5 * static_cast<double>(d - 1);
    // P(rho <= r) = I_{(1+r)/2}(s, s); by symmetry P(rho >= r) = I_{(1-r)/2}(s, s). Each side
    // is taken from the tail it is small in, so neither end's probability is lost to cancellation.
    auto below = [&](double r) { return r <= -1 ? 0.0 : r >= 1 ? 1.0 : boost::math::ibeta(s, s, 0.5 * (1 + r)); };
    auto above = [&](double r) { return r >= 1 ? 0.0 : r <= -1 ? 1.0 : boost::math::ibeta(s, s, 0.5 * (1 - r)); };
    if (a >= 0) return std::max(0.0, above(a) - above(b));
    if (b <= 0) return std::max(0.0, below(b) - below(a));
    return std::max(0.0, 1.0 - below(a) - above(b));  // a < 0 < b: both tails are at most 1/2
}

namespace {

// The kind of the equilibrium at `rho` in the portrait (attractor if it is not listed).
EquilibriumKind kind_at(const PhasePortrait& p, double rho) {
    for (const auto& e : p.equilibria)
        if (e.rho == rho) return e.kind;
    return EquilibriumKind::attractor;
}

// One basin's counts and statistics of the final rho that lie in it.
BasinOutcome summarise_basin(const PhasePortrait& p, const Basin& b, const std::vector<double>& rho_finals,
                             double level) {
    BasinOutcome o;
    o.attractor = b.attractor;
    o.kind = kind_at(p, b.attractor);
    o.from = b.from;
    o.to = b.to;
    o.from_closed = b.from_closed;
    o.to_closed = b.to_closed;
    RunningStats s;
    for (double r : rho_finals)
        if (in_basin(b, r)) s.add(r);
    const auto n = static_cast<std::int64_t>(rho_finals.size());
    o.count = s.count();
    o.fraction = static_cast<double>(o.count) / static_cast<double>(n);
    const ProportionCI w = wilson_ci(o.count, n, level);
    o.fraction_lo = w.lo;
    o.fraction_hi = w.hi;
    o.rho_final = clip_ci(mean_ci(s, level), b.from, b.to);
    if (o.count >= 2) {
        o.sd = std::sqrt(s.variance());
        o.sd_se = o.sd / std::sqrt(2.0 * static_cast<double>(o.count - 1));
    }
    return o;
}

}  // namespace

OutcomeSummary outcome_summary(const PhasePortrait& portrait, const std::vector<double>& rho_finals,
                               std::optional<double> rho0, std::int64_t d, const OutcomeParams& params) {
    params.validate();
    require(!rho_finals.empty(), "trials", 0, "at least one trial");
    require(d >= 2, "d", static_cast<double>(d), "d >= 2");
    OutcomeSummary out;
    out.trials = static_cast<std::int64_t>(rho_finals.size());
    out.level = params.level;
    out.rho0 = rho0;
    out.d = d;
    std::int64_t assigned = 0;
    for (const Basin& b : portrait.basins) {
        BasinOutcome o = summarise_basin(portrait, b, rho_finals, params.level);
        if (rho0) o.contains_rho0 = in_basin(b, *rho0);
        else o.uniform_probability = uniform_sphere_probability(d, b.from, b.to);
        assigned += o.count;
        out.basins.push_back(std::move(o));
    }
    out.unassigned = out.trials - assigned;
    return out;
}

}  // namespace rhoflow
