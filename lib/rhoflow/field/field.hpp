// The population field (docs/theory.md sections 3-5): j(rho) = E||f_q(X)||^2 at <q, xi> = rho,
// its derivative, the ODE drift F(rho) = (1 - rho^2) j'(rho) and the expected attention mass on
// informative tokens, each with an error estimate. Three methods compute it: exact_field.hpp,
// meanfield.hpp, montecarlo_field.hpp.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace rhoflow {

/// The field at one rho, every value with the method's error estimate (standard error for Monte
/// Carlo, a conservative bound for the exact quadrature, rounding for the closed-form mean-field
/// limit).
struct FieldPoint {
    double rho = 0;               ///< alignment <q, xi>
    double j = 0;                 ///< objective j(rho) = E||f_q(X)||^2
    double dj = 0;                ///< j'(rho)
    double drift = 0;             ///< F(rho) = (1 - rho^2) j'(rho), the mean-field ODE drift
    double mass_informative = 0;  ///< E[A_I], expected attention mass on the R informative tokens
    double j_err = 0;             ///< error estimate of j
    double dj_err = 0;            ///< error estimate of dj
    double drift_err = 0;         ///< error estimate of drift
    double mass_err = 0;          ///< error estimate of mass_informative
};

/// The ODE drift F(rho) = (1 - rho^2) j'(rho); 0 (never -0) at rho = +-1.
inline double drift_of(double rho, double dj) noexcept { return (1 - rho * rho) * dj + 0.0; }

/// How the field at a point is computed.
enum class FieldMethod {
    exact,       ///< Laplace-transform quadrature for finite d, L, R (exact_field.hpp)
    meanfield,   ///< closed-form L -> infinity limit at alpha = R/L (meanfield.hpp)
    montecarlo   ///< sampling with standard errors (montecarlo_field.hpp)
};

/// "exact", "meanfield" or "montecarlo".
std::string_view to_string(FieldMethod m);
/// Parses a method name; throws InvalidArgument naming `field` on anything else.
FieldMethod parse_field_method(std::string_view s, const std::string& field = "method");

/// {"rho","j","dj","drift","mass_informative","j_err","dj_err","drift_err","mass_err"}.
void to_json(nlohmann::json& j, const FieldPoint& p);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, FieldPoint& p);
/// "exact", "meanfield" or "montecarlo".
void to_json(nlohmann::json& j, const FieldMethod& m);
/// Parses a method name (throws InvalidArgument on anything else).
void from_json(const nlohmann::json& j, FieldMethod& m);

}  // namespace rhoflow
