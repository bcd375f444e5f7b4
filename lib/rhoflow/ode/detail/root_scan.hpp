// The root scan of a function on [-1, 1], shared by the phase portrait (zeros of j', phase.hpp)
// and the effective equilibria (zeros of a(.; eta), effective/effective.hpp).
// Method: f on a uniform grid of n cells; every sign change (and every exact zero at an inner
// grid point) is refined by Boost.Math's TOMS 748; at every inner grid point where |f| has a
// local minimum without a sign change, Brent's minimiser looks in the two adjacent cells for an
// extremum of the other sign, and the two roots it separates (a pair closer than the grid
// spacing) are refined too; a minimum within `tangency_tol` of 0 is a near tangency instead.
// What it can miss: a pair of zeros inside one cell next to which |f| shows no local minimum on
// the grid, and zeros where |f| stays within tangency_tol (reported, not counted).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rhoflow::detail {

/// f at the n + 1 points x_k = -1 + 2k/n of [-1, 1].
struct RootGrid {
    std::vector<double> x;  ///< the grid points
    std::vector<double> y;  ///< f at them
};

/// How the roots are refined.
struct RootRefine {
    int bits = 52;                    ///< TOMS 748 tolerance: eps_tolerance<double>(bits)
    std::uintmax_t iterations = 200;  ///< TOMS 748 iteration cap
};

/// Evaluates f on the grid of n cells; throws NumericalError naming `what` where f is not finite.
RootGrid scan_grid(const std::function<double(double)>& f, int n, const std::string& what);

/// The roots where the grid changes sign between neighbours, or is 0 at an inner point, in
/// ascending order.
std::vector<double> sign_change_roots(const std::function<double(double)>& f, const RootGrid& g, RootRefine how);

/// The pairs of roots closer than the grid spacing (see the header comment), appended to
/// `roots`; minima within tangency_tol of 0 appended to `near_tangencies`.
void close_root_pairs(const std::function<double(double)>& f, const RootGrid& g, double tangency_tol, RootRefine how,
                      std::vector<double>& roots, std::vector<double>& near_tangencies);

/// Sorted, with roots within 1e-12 of each other merged.
std::vector<double> sorted_roots(std::vector<double> roots);

}  // namespace rhoflow::detail
