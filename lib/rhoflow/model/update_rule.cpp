#include "rhoflow/model/update_rule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"

namespace rhoflow {

std::string_view to_string(UpdateRule u) {
    return u == UpdateRule::normalized ? "normalized" : "tangent";
}

UpdateRule parse_update_rule(std::string_view s, const std::string& field) {
    if (s == "normalized") return UpdateRule::normalized;
    if (s == "tangent") return UpdateRule::tangent;
    throw InvalidArgument(field, field + " = '" + std::string(s) +
                                     "' is not an update rule (accepted: normalized, tangent)");
}

RHOFLOW_JSON_ENUM_HOOKS(UpdateRule, parse_update_rule)

double updated_rho(double rho, double eta, const GradientDraw& g, UpdateRule rule) noexcept {
    const double s = std::sqrt(std::max(0.0, 1.0 - rho * rho));
    const double cq = rule == UpdateRule::normalized ? 1.0 + eta * g.g_u : 1.0;
    const double ev = eta * g.g_v;
    const double den = std::sqrt(cq * cq + ev * ev + eta * eta * g.g_w_sq);
    const double num = rho * cq + s * ev;
    if (!std::isfinite(den) || !std::isfinite(num)) return std::numeric_limits<double>::quiet_NaN();
    if (!(den > 0)) return rho;  // q + eta g = 0 has probability zero; keep q
    return std::clamp(num / den, -1.0, 1.0);
}

}  // namespace rhoflow
