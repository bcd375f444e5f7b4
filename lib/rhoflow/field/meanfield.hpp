// The mean-field limit L -> infinity with alpha = R/L and d fixed (docs/theory.md section 5):
//     w(rho)     = alpha e^{beta theta rho} / (alpha e^{beta theta rho} + 1 - alpha)   (-> E[A_I])
//     j_inf(rho) = w^2 theta^2 + 2 w theta beta sigma^2 rho + beta^2 sigma^4
// The (d - 1) sigma^2 E[sum a_i^2] term of the exact field is O(d/L) and vanishes in the limit.
// Derivatives come from Boost.Math forward-mode autodiff of the same expression, so j', j'' are
// exact to rounding with no hand-derived formula to get wrong.
#pragma once

#include "rhoflow/field/field.hpp"
#include "rhoflow/model/model.hpp"

namespace rhoflow {

/// j_inf, j_inf', drift and w at rho; error estimates are rounding-level (closed form).
FieldPoint meanfield_field(const ModelParams& model, double rho);

/// Second derivative j_inf''(rho) (for the stability of interior equilibria).
double meanfield_d2j(const ModelParams& model, double rho);

}  // namespace rhoflow
