// The two projected updates of the query on the sphere (docs/theory.md section 2, (2.2)) and
// their effect on rho = <q, xi> in the reduced frame (docs/theory.md (6.4)). The update rule is
// part of the model: the rho-chain, its one-step moments and both samplers are defined by it.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "rhoflow/model/sample.hpp"

namespace rhoflow {

/// How a gradient step is projected back to the sphere.
enum class UpdateRule {
    normalized,  ///< q' = (q + eta g) / ||q + eta g||                      (default)
    tangent      ///< q' = normalise(q + eta (I - q q^T) g)
};

/// "normalized" or "tangent".
std::string_view to_string(UpdateRule u);
/// Parses an update rule; throws InvalidArgument naming `field` otherwise.
UpdateRule parse_update_rule(std::string_view s, const std::string& field = "update");

/// "normalized" or "tangent".
void to_json(nlohmann::json& j, const UpdateRule& u);
/// Parses an update rule (throws InvalidArgument on anything else).
void from_json(const nlohmann::json& j, UpdateRule& u);

/// rho after the update q' = P(q + eta g) for a gradient with components (g_u, g_v, ||g_w||^2)
/// (docs/theory.md (6.4)); the same formula serves both samplers. Clamped to [-1, 1]; NaN when
/// q + eta g is not representable in double precision (the step overflowed).
double updated_rho(double rho, double eta, const GradientDraw& g, UpdateRule rule) noexcept;

}  // namespace rhoflow
