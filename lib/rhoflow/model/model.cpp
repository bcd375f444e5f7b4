#include "rhoflow/model/model.hpp"

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rhoflow/core/errors.hpp"

namespace rhoflow {

void ModelParams::validate() const {
    require(d >= 2, "d", static_cast<double>(d), "integer d >= 2");
    require(L >= 1, "L", static_cast<double>(L), "integer L >= 1");
    require(R >= 0 && R <= L, "R", static_cast<double>(R), fmt::format("integer 0 <= R <= L = {}", L));
    // Beyond 1e100 the per-sample gradient (of order beta theta^3) overflows double precision.
    require(std::isfinite(theta) && theta >= 0 && theta <= 1e100, "theta", theta, "0 <= theta <= 1e100");
    require(std::isfinite(sigma) && sigma > 0, "sigma", sigma, "finite sigma > 0");
    require(std::isfinite(beta) && beta > 0, "beta", beta, "finite beta > 0");
}

double ModelParams::sigma_input() const noexcept {
    return convention == NoiseConvention::per_norm ? sigma * std::sqrt(static_cast<double>(d)) : sigma;
}

ModelParams ModelParams::with_noise(std::int64_t d, std::int64_t L, std::int64_t R, double theta,
                                    double sigma, double beta, NoiseConvention convention) {
    ModelParams m{d, L, R, theta, sigma, beta, convention};
    if (convention == NoiseConvention::per_norm) {
        require(d >= 2, "d", static_cast<double>(d), "integer d >= 2");
        m.sigma = sigma / std::sqrt(static_cast<double>(d));
    }
    return m;
}

void validate_rho(double rho, const std::string& field) { require_in(field, rho, -1.0, 1.0); }

void validate_hit_eps(double eps, const std::string& field) {
    const std::string name = field.substr(field.rfind('.') == std::string::npos ? 0 : field.rfind('.') + 1);
    require(std::isfinite(eps) && eps > 0 && eps < 1, field, eps, fmt::format("0 < {} < 1", name));
    if (!(1.0 - eps < 1.0))
        throw InvalidArgument(field, fmt::format("{} = {}: the hitting level 1 - {} rounds to 1 in double precision "
                                                 "(accepted: 1e-16 <= {} < 1)",
                                                 name, format_number(eps), name, name));
}

std::string describe(const ModelParams& m) {
    return fmt::format("d = {}, L = {}, R = {}, theta = {}, sigma = {}{}, beta = {}", m.d, m.L, m.R,
                       format_number(m.theta), format_number(m.sigma),
                       m.convention == NoiseConvention::per_norm
                           ? fmt::format(" (per coordinate; given per norm as {})", format_number(m.sigma_input()))
                           : "",
                       format_number(m.beta));
}

const char* to_string(NoiseConvention c) noexcept {
    return c == NoiseConvention::per_norm ? "per_norm" : "per_coordinate";
}

void to_json(nlohmann::json& j, const ModelParams& m) {
    j = {{"d", m.d},         {"L", m.L},         {"R", m.R},
         {"theta", m.theta}, {"sigma", m.sigma}, {"beta", m.beta},
         {"noise_convention", to_string(m.convention)}, {"sigma_input", m.sigma_input()}};
}

void from_json(const nlohmann::json& j, ModelParams& m) {
    j.at("d").get_to(m.d);
    j.at("L").get_to(m.L);
    j.at("R").get_to(m.R);
    j.at("theta").get_to(m.theta);
    j.at("sigma").get_to(m.sigma);
    j.at("beta").get_to(m.beta);
    m.convention = j.value("noise_convention", std::string("per_coordinate")) == "per_norm"
                       ? NoiseConvention::per_norm
                       : NoiseConvention::per_coordinate;
}

}  // namespace rhoflow
