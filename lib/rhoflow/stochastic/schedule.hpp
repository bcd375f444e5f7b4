// Step sizes eta_k = eta0 / (1 + k/k0)^gamma of the stochastic recursion and the ODE time
// t_k = sum_{j<k} eta_j at which step k sits (docs/theory.md section 2).
// Robbins-Monro (sum eta = inf, sum eta^2 < inf) holds for 1/2 < gamma <= 1; gamma = 0 is a
// constant step, for which no asymptotic-pseudotrajectory claim holds.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace rhoflow {

/// The step-size schedule.
struct StepSchedule {
    double eta0 = 0.5;   ///< initial step, 0 < eta0 <= 1e100
    double k0 = 100;     ///< decay onset (steps), k0 > 0
    double gamma = 1.0;  ///< decay exponent, 0 <= gamma <= 1

    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
    /// eta_k.
    double eta(std::int64_t k) const noexcept;
    /// True when 1/2 < gamma <= 1 (the Robbins-Monro conditions hold).
    bool robbins_monro() const noexcept { return gamma > 0.5 && gamma <= 1.0; }
    /// Empty when robbins_monro(); otherwise a sentence saying what does not hold and why.
    std::string warning() const;
    /// t_K = sum_{k<K} eta_k (exact summation order: the same as the samplers use).
    double time_at(std::int64_t K) const noexcept;
    /// t_k for each of the ascending steps k, in one pass (same summation order as time_at);
    /// checks the caller's CancelFlag (core/cancel.hpp) every 65536 steps.
    std::vector<double> times_at(const std::vector<std::int64_t>& ascending_steps) const;
    /// For each ascending target time, the first step k <= K with t_k >= target (K if none);
    /// checks the caller's CancelFlag every 65536 steps.
    std::vector<std::int64_t> steps_at(const std::vector<double>& ascending_times, std::int64_t K) const;
};

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const StepSchedule& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, StepSchedule& v);

}  // namespace rhoflow
