// A second, independent enclosure of the exact field j, j', j'', E[A_I] (docs/theory.md sections 4
// and 11.7), for `prove --verify`: the same inputs and result as enclose_field, computed by
// another method that shares none of enclosure.cpp's quadrature, series or error bounds, so that
// a bug there cannot confirm itself.
//
// Method (theory.md section 11.7). Both integrals of (4.3) -- the inner Gaussian expectations
// over z and the outer one over lambda = log t -- are Arb's rigorous adaptive integrator
// acb_calc_integrate (Gauss-Legendre with error bounds from the integrand on complex ellipses,
// Johansson 2018); rho enters as Arb's own truncated power series (acb_poly) in eps = rho - rho0.
// The truncated ranges carry explicit tail bounds (closed-form Gaussian moments), their
// rho-derivatives by Cauchy's estimate. Slower than enclose_field (theory.md 11.7 gives the ratio).
// When it fails: InvalidArgument as enclose_field; NumericalError if an enclosure is not finite.
#pragma once

#include "rhoflow/rigorous/enclosure.hpp"

namespace rhoflow {

/// Encloses j, j', j'', E[A_I] over the cell by the independent method; budget: the tails, the
/// lambda range and the outer evaluations only. Throws as enclose_field.
FieldEnclosure enclose_field_independent(const ModelCell& cell, Interval rho, const RigorousParams& params = {});

/// The independent enclosure, with the cell bisected (rho, then theta, sigma, beta) where a
/// piece's enclosure is not inside `recorded` (j, j', j'', E[A_I]), at most `max_pieces`
/// enclosures: the hull of the pieces, inside `recorded` when every piece fits.
FieldEnclosure enclose_field_independent_within(const ModelCell& cell, Interval rho, const RigorousParams& params,
                                                const FieldEnclosure& recorded, int max_pieces = 16);

namespace detail {
/// Test hook: the independent enclosure of an integrand of j multiplied by 1 + perturb (a wrong field).
FieldEnclosure enclose_field_independent_perturbed(const ModelCell& cell, Interval rho, const RigorousParams& params,
                                                   double perturb);
}  // namespace detail

}  // namespace rhoflow
