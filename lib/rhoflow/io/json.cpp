#include "rhoflow/io/json.hpp"

#include <cmath>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/version.hpp"

namespace rhoflow {

using nlohmann::json;

json provenance(const std::string& command) {
    return {{"program", "rhoflow"}, {"version", version}, {"command", command}};
}

void ensure_finite(const json& doc, const std::string& path) {
    if (doc.is_number_float()) {
        const double v = doc.get<double>();
        if (!std::isfinite(v))
            throw NumericalError((path.empty() ? std::string("value") : path) + " is not finite (" +
                                 format_number(v) + ")");
    } else if (doc.is_object()) {
        for (auto it = doc.begin(); it != doc.end(); ++it) ensure_finite(it.value(), path + "." + it.key());
    } else if (doc.is_array()) {
        for (std::size_t i = 0; i < doc.size(); ++i) ensure_finite(doc[i], path + "[" + std::to_string(i) + "]");
    }
}

}  // namespace rhoflow
