// Three of the rigorous field's error bounds as plain functions, for their tests
// (docs/theory.md section 11.2). Internal (not installed).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "rhoflow/rigorous/enclosure.hpp"

namespace rhoflow::detail {

/// An upper bound of int_Z^inf (a0 + a1 z)^p phi(z) dz (p <= 2, Z^2 > p, a0, a1 >= 0):
/// (a0/Z + a1)^p Z^p phi(Z) / (Z - p/Z).
double gaussian_tail_upper(double a0, double a1, int p, double Z);

/// An upper bound of |T_h - I| for the infinite trapezoidal rule of E[g(Z)] when
/// |g(x + iy) phi(x + iy)| <= C (a0 + a1 |x| + a1 |y|)^p e^{y^2/2} phi(x) for |y| <= b:
/// 2 e^{b^2/2} C E[(a0 + a1 b + a1 |Z|)^p] / (e^{2 pi b/h} - 1) (Trefethen-Weideman 2014, Thm 5.1).
double trapezoid_error_upper(double C, double a0, double a1, int p, double b, double h);

/// The coefficients R (R - 1), N (N - 1), 2 R N of (4.3) as the enclosure uses them, each as the
/// decimal text of the one integer its ball holds ("" if it holds none or several).
std::array<std::string, 3> pair_count_texts(std::int64_t R, std::int64_t N);

/// For the test of the panel bounds (theory.md section 11.3): at `per_panel` real points lambda of
/// every outer panel of the enclosure of (cell, rho), {lambda, the panel's bound M_p of j's
/// discretised integrand, an upper bound of |that integrand at lambda|}; M_p must exceed it.
std::vector<std::array<double, 3>> panel_bounds_and_values(const ModelCell& cell, Interval rho,
                                                           const RigorousParams& params, int per_panel);

}  // namespace rhoflow::detail
