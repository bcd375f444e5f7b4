// The two projected updates of the query on the sphere (../shared/spec/model.md section 2).
#pragma once

#include <string>
#include <string_view>

namespace rhoflow {

/// How a gradient step is projected back to the sphere.
enum class UpdateRule {
    normalized,  ///< q' = (q + eta g) / ||q + eta g||                      (default)
    tangent      ///< q' = normalise(q + eta (I - q q^T) g)
};

/// "normalized" or "tangent".
std::string_view to_string(UpdateRule u);
/// Parses an update rule; throws InvalidArgument naming `param` otherwise.
UpdateRule parse_update_rule(std::string_view s, const std::string& param = "update");

}  // namespace rhoflow
