// Guaranteed enclosures of the mean-field limit's field (docs/theory.md section 5, (5.1)),
// L -> infinity with alpha = R/L fixed, over a cell of models (alpha = R/L of the cell, exact;
// theta, sigma, beta and rho intervals; d plays no part):
//     w(rho) = alpha e^{u} / (alpha e^{u} + 1 - alpha),   u = beta theta rho   (-> E[A_I])
//     j(rho) = w^2 theta^2 + 2 w theta beta sigma^2 rho + beta^2 sigma^4.
// Two methods, both Arb's ball arithmetic (outward rounding, so every returned interval contains
// the value at every point of the cell):
//  - enclose_meanfield: the closed-form derivatives, w' = beta theta w (1 - w),
//    w'' = beta theta w' (1 - 2 w), j' = 2 theta [w' (w theta + beta sigma^2 rho) + beta sigma^2 w],
//    j'' = 2 theta [w'' (w theta + beta sigma^2 rho) + w' (w' theta + 2 beta sigma^2)];
//  - enclose_meanfield_series: no derivative written by hand: the Taylor series of (5.1) in
//    rho at the ball of the whole cell (Arb's arb_poly series exp and inverse), whose
//    coefficients enclose j, j', j''/2 at every point of the ball (the checker's second method).
// Nothing is truncated: the enclosures are wide only by the cell's width (interval dependency),
// which bisection shrinks. When it fails: InvalidArgument (naming "cell.<field>") for a cell out
// of range (ModelCell::validate), never a NumericalError for finite inputs.
#pragma once

#include "rhoflow/rigorous/enclosure.hpp"

namespace rhoflow {

/// Encloses j_inf, j_inf', j_inf'' and w (as `mass`) over the cell by the closed-form derivatives.
FieldEnclosure enclose_meanfield(const ModelCell& cell, Interval rho, const RigorousParams& params = {});

/// The same by Taylor series arithmetic (independent of the closed-form derivatives).
FieldEnclosure enclose_meanfield_series(const ModelCell& cell, Interval rho, const RigorousParams& params = {});

/// The series enclosure with the cell bisected along its widest axis (rho, or theta, sigma, beta
/// relative to their size; rigorous/detail/within.hpp) where a piece's enclosure is not inside
/// `recorded`, at most `max_pieces` enclosures: their hull.
FieldEnclosure enclose_meanfield_series_within(const ModelCell& cell, Interval rho, const RigorousParams& params,
                                               const FieldEnclosure& recorded, int max_pieces = 4096);

}  // namespace rhoflow
