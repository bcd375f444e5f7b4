#include "rhoflow/core/errors.hpp"

#include <cmath>
#include <fmt/format.h>

namespace rhoflow {

std::string format_number(double x) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    return fmt::format("{}", x);
}

void require(bool ok, const std::string& name, double value, const std::string& range) {
    if (!ok)
        throw InvalidArgument(name, fmt::format("{} = {} is out of range (accepted: {})", name,
                                                format_number(value), range));
}

void require_in(const std::string& name, double value, double lo, double hi) {
    require(std::isfinite(value) && value >= lo && value <= hi, name, value,
            fmt::format("{} <= {} <= {}", format_number(lo), name, format_number(hi)));
}

double require_finite_result(double value, const std::string& what) {
    if (!std::isfinite(value))
        throw NumericalError(fmt::format("{} is not finite ({})", what, format_number(value)));
    return value;
}

}  // namespace rhoflow
