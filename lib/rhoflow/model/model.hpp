// The data model (docs/theory.md section 1): L tokens in R^d, the first R of which carry the
// hidden direction xi with strength theta, all with N(0, sigma^2 I_d) noise; softmax attention
// at inverse temperature beta.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace rhoflow {

/// How the `sigma` a user gives is to be read.
enum class NoiseConvention {
    per_coordinate,  ///< sigma is the per-coordinate standard deviation (E||z||^2 = d sigma^2)
    per_norm         ///< sigma/sqrt(d) is the per-coordinate deviation (E||z||^2 = sigma^2)
};

/// Model parameters; `sigma` is always the per-coordinate noise standard deviation.
/// Defaults are the embedded default experiment (recovery with R/L = 0.1 at d = 50).
struct ModelParams {
    std::int64_t d = 50;     ///< ambient dimension, d >= 2
    std::int64_t L = 1000;   ///< number of tokens, L >= 1
    std::int64_t R = 100;    ///< informative tokens, 0 <= R <= L
    double theta = 1.0;      ///< signal strength, 0 <= theta <= 1e100
    double sigma = 1.0;      ///< per-coordinate noise standard deviation, finite, sigma > 0
    double beta = 1.0;       ///< inverse temperature, finite, beta > 0
    NoiseConvention convention = NoiseConvention::per_coordinate;  ///< how the user gave sigma (provenance only)

    /// Number of nuisance tokens N = L - R.
    std::int64_t N() const noexcept { return L - R; }
    /// Score noise scale tau = beta * sigma (scores s_i = beta <q, x_i> have this deviation).
    double tau() const noexcept { return beta * sigma; }
    /// Fraction of informative tokens alpha = R / L (the mean-field parameter).
    double alpha() const noexcept { return static_cast<double>(R) / static_cast<double>(L); }
    /// sigma as the user gave it: sigma sqrt(d) under the per-norm convention.
    double sigma_input() const noexcept;

    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;

    /// Builds parameters from a user's sigma under `convention` (per_norm divides by sqrt(d)).
    static ModelParams with_noise(std::int64_t d, std::int64_t L, std::int64_t R, double theta,
                                  double sigma, double beta, NoiseConvention convention);
};

/// Throws InvalidArgument unless rho is finite and -1 <= rho <= 1.
void validate_rho(double rho, const std::string& field = "rho");
/// Throws InvalidArgument naming `field` unless 0 < eps < 1 and the hitting level 1 - eps is
/// below 1 in double precision (eps > 2^-54; the message asks for eps >= 1e-16).
void validate_hit_eps(double eps, const std::string& field = "hit_eps");

/// One line "d = 50, L = 1000, R = 100, theta = 1, sigma = 1, beta = 1" for captions and logs
/// (notes the per-norm convention when it was used).
std::string describe(const ModelParams& m);

/// "per_coordinate" or "per_norm".
const char* to_string(NoiseConvention c) noexcept;

/// {"d","L","R","theta","sigma","beta","noise_convention","sigma_input"}; sigma per coordinate.
void to_json(nlohmann::json& j, const ModelParams& m);
/// Reads what to_json writes (sigma per coordinate; sigma_input is ignored).
void from_json(const nlohmann::json& j, ModelParams& m);

}  // namespace rhoflow
