#include "rhoflow/ode/detail/root_scan.hpp"

#include <algorithm>
#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>

#include "rhoflow/core/errors.hpp"

namespace rhoflow::detail {

namespace {

// The root of f in [a, b] (fa, fb: f at the ends, of opposite signs or 0) by TOMS 748.
double refine_root(const std::function<double(double)>& f, double a, double b, double fa, double fb, RootRefine how) {
    if (fa == 0) return a;
    if (fb == 0) return b;
    std::uintmax_t iters = how.iterations;
    const auto r = boost::math::tools::toms748_solve(f, a, b, fa, fb, boost::math::tools::eps_tolerance<double>(how.bits),
                                                     iters);
    return 0.5 * (r.first + r.second);
}

// The sign of v: +1, -1 or 0.
int sign_of(double v) { return (v > 0) - (v < 0); }

}  // namespace

RootGrid scan_grid(const std::function<double(double)>& f, int n, const std::string& what) {
    RootGrid g;
    g.x.assign(static_cast<std::size_t>(n) + 1, 0.0);
    g.y.assign(g.x.size(), 0.0);
    for (int k = 0; k <= n; ++k) {
        const auto i = static_cast<std::size_t>(k);
        g.x[i] = -1.0 + 2.0 * k / n;
        g.y[i] = f(g.x[i]);
        if (!std::isfinite(g.y[i])) throw NumericalError(what + " is not finite at rho = " + format_number(g.x[i]));
    }
    return g;
}

std::vector<double> sign_change_roots(const std::function<double(double)>& f, const RootGrid& g, RootRefine how) {
    const auto& x = g.x;
    const auto& y = g.y;
    std::vector<double> roots;
    for (std::size_t k = 0; k + 1 < x.size(); ++k) {
        const int s0 = sign_of(y[k]), s1 = sign_of(y[k + 1]);
        if (s0 != 0 && s1 != 0 && s0 != s1) roots.push_back(refine_root(f, x[k], x[k + 1], y[k], y[k + 1], how));
        if (s1 == 0 && k + 2 < x.size()) roots.push_back(x[k + 1]);
    }
    return roots;
}

void close_root_pairs(const std::function<double(double)>& f, const RootGrid& g, double tangency_tol, RootRefine how,
                      std::vector<double>& roots, std::vector<double>& near_tangencies) {
    const auto& x = g.x;
    const auto& y = g.y;
    for (std::size_t k = 1; k + 1 < x.size(); ++k) {
        const double a = std::abs(y[k]);
        if (!(a <= std::abs(y[k - 1]) && a <= std::abs(y[k + 1]))) continue;
        if (sign_of(y[k - 1]) != sign_of(y[k]) || sign_of(y[k + 1]) != sign_of(y[k]) || y[k] == 0) continue;
        const double s = sign_of(y[k]);
        auto h = [&](double r) { return s * f(r); };
        const auto m = boost::math::tools::brent_find_minima(h, x[k - 1], x[k + 1], 52);
        if (m.second < 0) {
            // Two sign changes around the minimiser m.first.
            const double xm = m.first, ym = f(xm);
            roots.push_back(refine_root(f, x[k - 1], xm, y[k - 1], ym, how));
            roots.push_back(refine_root(f, xm, x[k + 1], ym, y[k + 1], how));
        } else if (m.second <= tangency_tol) {
            near_tangencies.push_back(m.first);
        }
    }
}

std::vector<double> sorted_roots(std::vector<double> roots) {
    std::sort(roots.begin(), roots.end());
    roots.erase(std::unique(roots.begin(), roots.end(), [](double a, double b) { return std::abs(a - b) < 1e-12; }),
                roots.end());
    return roots;
}

}  // namespace rhoflow::detail
