#include "rhoflow/field/field.hpp"


#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"

namespace rhoflow {

std::string_view to_string(FieldMethod m) {
    switch (m) {
        case FieldMethod::exact: return "exact";
        case FieldMethod::meanfield: return "meanfield";
        case FieldMethod::montecarlo: return "montecarlo";
    }
    return "?";
}

FieldMethod parse_field_method(std::string_view s, const std::string& field) {
    if (s == "exact") return FieldMethod::exact;
    if (s == "meanfield") return FieldMethod::meanfield;
    if (s == "montecarlo") return FieldMethod::montecarlo;
    throw InvalidArgument(field, field + " = '" + std::string(s) +
                                     "' is not a field method (accepted: exact, meanfield, montecarlo)");
}

RHOFLOW_JSON_HOOKS(FieldPoint, rho, j, dj, drift, mass_informative, j_err, dj_err, drift_err, mass_err)
RHOFLOW_JSON_ENUM_HOOKS(FieldMethod, parse_field_method)

}  // namespace rhoflow
