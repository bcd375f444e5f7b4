#include "rhoflow/update_rule.hpp"

#include "rhoflow/errors.hpp"

namespace rhoflow {

std::string_view to_string(UpdateRule u) {
    return u == UpdateRule::normalized ? "normalized" : "tangent";
}

UpdateRule parse_update_rule(std::string_view s, const std::string& param) {
    if (s == "normalized") return UpdateRule::normalized;
    if (s == "tangent") return UpdateRule::tangent;
    throw InvalidArgument(param, param + " = '" + std::string(s) +
                                     "' is not an update rule (accepted: normalized, tangent)");
}

}  // namespace rhoflow
