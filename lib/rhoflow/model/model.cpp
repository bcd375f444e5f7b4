#include "rhoflow/model/model.hpp"

#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "rhoflow/core/errors.hpp"

namespace rhoflow {

void ModelParams::validate() const {
    constexpr double inf = std::numeric_limits<double>::infinity();
    require(d >= 2, "d", static_cast<double>(d), "integer d >= 2");
    require(L >= 1, "L", static_cast<double>(L), "integer L >= 1");
    require(R >= 0 && R <= L, "R", static_cast<double>(R),
            fmt::format("integer 0 <= R <= L = {}", L));
    require(std::isfinite(theta) && theta >= 0, "theta", theta, "finite theta >= 0");
    require(std::isfinite(sigma) && sigma > 0 && sigma < inf, "sigma", sigma, "finite sigma > 0");
    require(std::isfinite(beta) && beta > 0, "beta", beta, "finite beta > 0");
}

ModelParams ModelParams::with_noise(std::int64_t d, std::int64_t L, std::int64_t R, double theta,
                                    double sigma, double beta, NoiseConvention convention) {
    ModelParams m{d, L, R, theta, sigma, beta};
    if (convention == NoiseConvention::per_norm) {
        require(d >= 2, "d", static_cast<double>(d), "integer d >= 2");
        m.sigma = sigma / std::sqrt(static_cast<double>(d));
    }
    return m;
}

void validate_rho(double rho, const std::string& name) { require_in(name, rho, -1.0, 1.0); }

std::string describe(const ModelParams& m) {
    return fmt::format("d={} L={} R={} theta={} sigma={} beta={}", m.d, m.L, m.R,
                       format_number(m.theta), format_number(m.sigma), format_number(m.beta));
}

}  // namespace rhoflow
