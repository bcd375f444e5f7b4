#include "rhoflow/ode/phase.hpp"

#include <algorithm>
#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"

namespace rhoflow {

void PhaseParams::validate() const {
    require(scan_cells >= 16 && scan_cells <= 10000000, "scan_cells", scan_cells, "16 <= scan_cells <= 1e7");
}

RHOFLOW_JSON_HOOKS(PhaseParams, scan_cells)
RHOFLOW_JSON_HOOKS(Equilibrium, rho, rho_err, dfdrho, dfdrho_err, stable, kind)
RHOFLOW_JSON_HOOKS(Basin, from, to, attractor, from_closed, to_closed)
RHOFLOW_JSON_HOOKS(PhasePortrait, equilibria, basins, monotone, flat, scan_spacing, near_tangencies)

namespace {

// The root of j' in [a, b] (fa, fb: j' at the ends, of opposite signs or 0) by TOMS 748.
double refine_root(const DriftField& f, double a, double b, double fa, double fb) {
    if (fa == 0) return a;
    if (fb == 0) return b;
    std::uintmax_t iters = 200;
    auto g = [&](double x) { return f.dj(x); };
    const auto r = boost::math::tools::toms748_solve(g, a, b, fa, fb,
                                                     boost::math::tools::eps_tolerance<double>(52), iters);
    return 0.5 * (r.first + r.second);
}

// The equilibrium at rho (an end of [-1, 1] when `endpoint`): F' with its error, and its kind.
Equilibrium classify(const DriftField& f, double rho, bool endpoint) {
    Equilibrium e;
    e.rho = rho;
    if (endpoint) {
        e.dfdrho = (rho > 0 ? -2.0 : 2.0) * f.dj(rho);
        e.dfdrho_err = 2.0 * f.dj_error();
    } else {
        const double d2 = f.d2j(rho);
        e.dfdrho = (1 - rho * rho) * d2;
        e.dfdrho_err = (1 - rho * rho) * f.d2j_error() + 2 * std::abs(rho) * f.dj_error();
        e.rho_err = std::abs(d2) > 0 ? f.dj_error() / std::abs(d2) : 1.0;
    }
    if (e.dfdrho < -e.dfdrho_err) {
        e.stable = true;
        e.kind = "attractor";
    } else if (e.dfdrho > e.dfdrho_err) {
        e.kind = "repeller";
    } else {
        e.kind = "degenerate";
    }
    return e;
}

// The sign of v: +1, -1 or 0.
int sign_of(double v) { return (v > 0) - (v < 0); }

// j' at the n + 1 equally spaced points x of [-1, 1] (y); throws NumericalError where it is not finite.
void scan_field(const DriftField& field, int n, std::vector<double>& x, std::vector<double>& y) {
    x.assign(static_cast<std::size_t>(n) + 1, 0.0);
    y.assign(x.size(), 0.0);
    for (int k = 0; k <= n; ++k) {
        x[static_cast<std::size_t>(k)] = -1.0 + 2.0 * k / n;
        y[static_cast<std::size_t>(k)] = field.dj(x[static_cast<std::size_t>(k)]);
        if (!std::isfinite(y[static_cast<std::size_t>(k)]))
            throw NumericalError("phase portrait: j' is not finite at rho = " + format_number(x[static_cast<std::size_t>(k)]));
    }
}

// The roots of j' where the scan changes sign between neighbours, or is 0 at an inner point.
std::vector<double> sign_change_roots(const DriftField& field, const std::vector<double>& x,
                                      const std::vector<double>& y) {
    std::vector<double> roots;
    for (std::size_t k = 0; k + 1 < x.size(); ++k) {
        const int s0 = sign_of(y[k]), s1 = sign_of(y[k + 1]);
        if (s0 != 0 && s1 != 0 && s0 != s1) roots.push_back(refine_root(field, x[k], x[k + 1], y[k], y[k + 1]));
        if (s1 == 0 && k + 2 < x.size()) roots.push_back(x[k + 1]);
    }
    return roots;
}

// Local minima of |j'| with no sign change: look inside the two adjacent cells for an
// extremum of the other sign (a pair of roots closer than the grid spacing), appended to roots;
// a minimum within tol of 0 is appended to near_tangencies.
void close_root_pairs(const DriftField& field, const std::vector<double>& x, const std::vector<double>& y, double tol,
                      std::vector<double>& roots, std::vector<double>& near_tangencies) {
    for (std::size_t k = 1; k + 1 < x.size(); ++k) {
        const double a = std::abs(y[k]);
        if (!(a <= std::abs(y[k - 1]) && a <= std::abs(y[k + 1]))) continue;
        if (sign_of(y[k - 1]) != sign_of(y[k]) || sign_of(y[k + 1]) != sign_of(y[k]) || y[k] == 0) continue;
        const double s = sign_of(y[k]);
        auto g = [&](double r) { return s * field.dj(r); };
        const auto m = boost::math::tools::brent_find_minima(g, x[k - 1], x[k + 1], 52);
        if (m.second < 0) {
            // Two sign changes around the minimiser m.first.
            const double xm = m.first, ym = field.dj(xm);
            roots.push_back(refine_root(field, x[k - 1], xm, y[k - 1], ym));
            roots.push_back(refine_root(field, xm, x[k + 1], ym, y[k + 1]));
        } else if (m.second <= tol) {
            near_tangencies.push_back(m.first);
        }
    }
}

// The equilibria in order: rho = -1, the roots strictly inside (sorted, those within 1e-12 of
// each other merged), rho = 1, each classified.
std::vector<Equilibrium> classify_equilibria(const DriftField& field, std::vector<double> roots) {
    std::sort(roots.begin(), roots.end());
    roots.erase(std::unique(roots.begin(), roots.end(),
                            [](double a, double b) { return std::abs(a - b) < 1e-12; }),
                roots.end());
    std::vector<Equilibrium> eq;
    eq.push_back(classify(field, -1.0, true));
    for (double r : roots)
        if (r > -1.0 + 1e-12 && r < 1.0 - 1e-12) eq.push_back(classify(field, r, false));
    eq.push_back(classify(field, 1.0, true));
    return eq;
}

// The basins: each equilibrium that receives flow from at least one side (or is stable), with
// the adjacent intervals that flow into it.
std::vector<Basin> basins_of(const DriftField& field, const std::vector<Equilibrium>& eq) {
    // Flow direction on each open interval between consecutive equilibria.
    const std::size_t E = eq.size();
    std::vector<int> dir(E - 1);  // +1: flows right (to the upper end), -1: flows left
    for (std::size_t i = 0; i + 1 < E; ++i) {
        const double mid = 0.5 * (eq[i].rho + eq[i + 1].rho);
        dir[i] = field.drift(mid) > 0 ? 1 : -1;
    }
    std::vector<Basin> basins;
    for (std::size_t i = 0; i < E; ++i) {
        const bool from_left = i > 0 && dir[i - 1] == 1;
        const bool from_right = i + 1 < E && dir[i] == -1;
        if (!from_left && !from_right && !eq[i].stable) continue;
        Basin b;
        b.attractor = eq[i].rho;
        b.from = from_left ? eq[i - 1].rho : eq[i].rho;
        b.to = from_right ? eq[i + 1].rho : eq[i].rho;
        b.from_closed = !from_left;
        b.to_closed = !from_right;
        basins.push_back(b);
    }
    return basins;
}

}  // namespace

PhasePortrait phase_portrait(const DriftField& field, const PhaseParams& params) {
    params.validate();
    PhasePortrait p;
    const int n = params.scan_cells;
    p.scan_spacing = 2.0 / n;
    if (field.flat()) {
        // Every point is an equilibrium; nothing flows anywhere.
        p.flat = true;
        p.monotone = false;
        return p;
    }
    std::vector<double> x, y;
    scan_field(field, n, x, y);
    const double tol = field.dj_error();
    // j' within its error bound everywhere (e.g. L = 1, where j is constant): nothing can be said
    // about a sign, so no equilibrium, stability or basin is claimed.
    double largest = 0;
    for (double v : y) largest = std::max(largest, std::abs(v));
    if (largest <= tol) {
        p.flat = true;
        return p;
    }
    std::vector<double> roots = sign_change_roots(field, x, y);
    close_root_pairs(field, x, y, tol, roots, p.near_tangencies);
    p.equilibria = classify_equilibria(field, std::move(roots));
    p.monotone = p.equilibria.size() == 2;
    p.basins = basins_of(field, p.equilibria);
    return p;
}

}  // namespace rhoflow
