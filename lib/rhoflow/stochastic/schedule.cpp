#include "rhoflow/stochastic/schedule.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/cancel.hpp"

namespace rhoflow {

RHOFLOW_JSON_HOOKS(StepSchedule, eta0, k0, gamma)

void StepSchedule::validate() const {
    // Beyond 1e100, (1 + eta g_u)^2 in the normalisation overflows for any gradient of order 1e54.
    require(std::isfinite(eta0) && eta0 > 0 && eta0 <= 1e100, "eta0", eta0, "0 < eta0 <= 1e100");
    require(std::isfinite(k0) && k0 > 0, "k0", k0, "finite k0 > 0");
    require_in("gamma", gamma, 0.0, 1.0);
}

double StepSchedule::eta(std::int64_t k) const noexcept {
    if (gamma == 0.0) return eta0;
    if (gamma == 1.0) return eta0 / (1.0 + static_cast<double>(k) / k0);
    return eta0 / std::pow(1.0 + static_cast<double>(k) / k0, gamma);
}

std::string StepSchedule::warning() const {
    if (robbins_monro()) return "";
    if (gamma == 0.0)
        return fmt::format("constant step eta = {}: the Robbins-Monro conditions fail (sum eta^2 "
                           "diverges); the iterates are not an asymptotic pseudotrajectory of the ODE, "
                           "the gap stays of order sqrt(eta)",
                           format_number(eta0));
    return fmt::format("gamma = {} <= 1/2: sum eta^2 diverges, the Robbins-Monro conditions fail and "
                       "no asymptotic-pseudotrajectory claim holds",
                       format_number(gamma));
}

double StepSchedule::time_at(std::int64_t K) const noexcept {
    double t = 0;
    for (std::int64_t k = 0; k < K; ++k) t += eta(k);
    return t;
}

std::vector<double> StepSchedule::times_at(const std::vector<std::int64_t>& ascending_steps) const {
    std::vector<double> out;
    out.reserve(ascending_steps.size());
    double t = 0;
    std::int64_t k = 0;
    for (auto target : ascending_steps) {
        while (k < target) {
            if ((k & 0xffff) == 0) throw_if_cancelled();  // 10^8 steps take a second: stop on request
            t += eta(k++);
        }
        out.push_back(t);
    }
    return out;
}

std::vector<std::int64_t> StepSchedule::steps_at(const std::vector<double>& ascending_times, std::int64_t K) const {
    std::vector<std::int64_t> out;
    out.reserve(ascending_times.size());
    double t = 0;
    std::int64_t k = 0;
    for (double target : ascending_times) {
        while (k < K && t < target) {
            if ((k & 0xffff) == 0) throw_if_cancelled();
            t += eta(k++);
        }
        out.push_back(k);
    }
    return out;
}

}  // namespace rhoflow
