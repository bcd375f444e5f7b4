#include "rhoflow/ode/phase.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/ode/detail/root_scan.hpp"

namespace rhoflow {

void PhaseParams::validate() const {
    require(scan_cells >= 16 && scan_cells <= 10000000, "scan_cells", scan_cells, "16 <= scan_cells <= 1e7");
}

bool in_basin(const Basin& b, double r) noexcept {
    const bool after = b.from_closed ? r >= b.from : r > b.from;
    const bool before = b.to_closed ? r <= b.to : r < b.to;
    return after && before;
}

std::string_view to_string(EquilibriumKind k) {
    switch (k) {
        case EquilibriumKind::attractor: return "attractor";
        case EquilibriumKind::repeller: return "repeller";
        case EquilibriumKind::degenerate: break;
    }
    return "degenerate";
}

EquilibriumKind parse_equilibrium_kind(std::string_view s, const std::string& field) {
    for (EquilibriumKind k : {EquilibriumKind::attractor, EquilibriumKind::repeller, EquilibriumKind::degenerate})
        if (s == to_string(k)) return k;
    throw InvalidArgument(field, field + " = '" + std::string(s) +
                                     "' is not an equilibrium kind (accepted: attractor, repeller, degenerate)");
}

EquilibriumKind equilibrium_kind(double rate, double err) noexcept {
    if (rate < -err) return EquilibriumKind::attractor;
    if (rate > err) return EquilibriumKind::repeller;
    return EquilibriumKind::degenerate;
}

RHOFLOW_JSON_ENUM_HOOKS(EquilibriumKind, parse_equilibrium_kind)
RHOFLOW_JSON_HOOKS(PhaseParams, scan_cells)
RHOFLOW_JSON_HOOKS(Equilibrium, rho, rho_err, dfdrho, dfdrho_err, stable, kind)
RHOFLOW_JSON_HOOKS(Basin, from, to, attractor, from_closed, to_closed)
RHOFLOW_JSON_HOOKS(PhasePortrait, equilibria, basins, monotone, flat, scan_spacing, near_tangencies)

namespace {

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
    e.kind = equilibrium_kind(e.dfdrho, e.dfdrho_err);
    e.stable = e.kind == EquilibriumKind::attractor;
    return e;
}

// The equilibria in order: rho = -1, the roots strictly inside (sorted, those within 1e-12 of
// each other merged), rho = 1, each classified.
std::vector<Equilibrium> classify_equilibria(const DriftField& field, std::vector<double> roots) {
    roots = detail::sorted_roots(std::move(roots));
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
    const std::function<double(double)> dj = [&](double r) { return field.dj(r); };
    const detail::RootGrid grid = detail::scan_grid(dj, n, "phase portrait: j'");
    const double tol = field.dj_error();
    // j' within its error bound everywhere (e.g. L = 1, where j is constant): nothing can be said
    // about a sign, so no equilibrium, stability or basin is claimed.
    double largest = 0;
    for (double v : grid.y) largest = std::max(largest, std::abs(v));
    if (largest <= tol) {
        p.flat = true;
        return p;
    }
    const detail::RootRefine refine{52, 200};
    std::vector<double> roots = detail::sign_change_roots(dj, grid, refine);
    detail::close_root_pairs(dj, grid, tol, refine, roots, p.near_tangencies);
    p.equilibria = classify_equilibria(field, std::move(roots));
    p.monotone = p.equilibria.size() == 2;
    p.basins = basins_of(field, p.equilibria);
    return p;
}

}  // namespace rhoflow
