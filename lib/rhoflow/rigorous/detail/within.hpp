// The checker's bisection (internal): an enclosure recomputed over a cell, the cell bisected
// where a piece's enclosure is not inside the recorded one, and the hull of the pieces. Shared by
// the independent exact-field method and the mean-field series method.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <vector>

#include "rhoflow/rigorous/enclosure.hpp"

namespace rhoflow::detail {

/// Whether `in` lies inside `out`.
inline bool inside(Interval in, Interval out) { return out.lo <= in.lo && in.hi <= out.hi; }
/// Whether every enclosure of `e` (j, j', j'', E[A_I]) lies inside `rec`'s.
inline bool inside(const FieldEnclosure& e, const FieldEnclosure& rec) {
    return inside(e.j, rec.j) && inside(e.dj, rec.dj) && inside(e.d2j, rec.d2j) && inside(e.mass, rec.mass);
}
/// The smallest interval holding both.
inline Interval hull(Interval a, Interval b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }

/// A piece of a cell: its models, its rho interval and how often it was bisected.
struct Piece {
    ModelCell cell;  ///< the parameter cell
    Interval rho;    ///< the rho interval
    int depth = 0;   ///< bisections so far
};

/// How a piece is bisected into l and r (false: it cannot be).
using Split = bool (*)(const Piece& p, Piece& l, Piece& r);

/// Bisects the piece along the first axis of positive width from rho, theta, sigma, beta, starting at depth % 4.
inline bool split_in_turn(const Piece& p, Piece& l, Piece& r) {
    l = r = p;
    l.depth = r.depth = p.depth + 1;
    for (int i = 0; i < 4; ++i) {
        const int axis = (p.depth + i) % 4;
        Interval* a[4] = {&l.rho, &l.cell.theta, &l.cell.sigma, &l.cell.beta};
        Interval* b[4] = {&r.rho, &r.cell.theta, &r.cell.sigma, &r.cell.beta};
        const double mid = 0.5 * (a[axis]->lo + a[axis]->hi);
        if (!(a[axis]->lo < mid && mid < a[axis]->hi)) continue;
        a[axis]->hi = mid;
        b[axis]->lo = mid;
        return true;
    }
    return false;
}

/// Bisects the piece along its widest axis: rho by its width, theta, sigma, beta by theirs relative
/// to their upper ends (where a cell's parameter width dominates, it is split first).
inline bool split_widest(const Piece& p, Piece& l, Piece& r) {
    l = r = p;
    l.depth = r.depth = p.depth + 1;
    Interval* a[4] = {&l.rho, &l.cell.theta, &l.cell.sigma, &l.cell.beta};
    Interval* b[4] = {&r.rho, &r.cell.theta, &r.cell.sigma, &r.cell.beta};
    int widest = -1;
    double best = 0;
    for (int i = 0; i < 4; ++i) {
        const double w = a[i]->width() / (i == 0 ? 1.0 : std::max(std::abs(a[i]->hi), 1e-300));
        if (w > best) best = w, widest = i;
    }
    if (widest < 0) return false;
    const double mid = a[widest]->lo + 0.5 * a[widest]->width();
    if (!(a[widest]->lo < mid && mid < a[widest]->hi)) return false;
    a[widest]->hi = mid;
    b[widest]->lo = mid;
    return true;
}

/// `enclose` over the cell, bisected by `split` where a piece's enclosure is not inside `recorded`,
/// at most `max_pieces` enclosures: the hull of the pieces (their outer evaluations summed).
inline FieldEnclosure enclose_within(const ModelCell& cell, Interval rho, const FieldEnclosure& recorded, int max_pieces,
                                     Split split, const std::function<FieldEnclosure(const ModelCell&, Interval)>& enclose) {
    std::vector<Piece> todo{{cell, rho, 0}};
    std::optional<FieldEnclosure> acc;
    int used = 0;
    while (!todo.empty()) {
        const Piece p = todo.back();
        todo.pop_back();
        FieldEnclosure e = enclose(p.cell, p.rho);
        ++used;
        Piece l, r;
        if (!inside(e, recorded) && used + static_cast<int>(todo.size()) + 2 <= max_pieces && split(p, l, r)) {
            todo.push_back(r);
            todo.push_back(l);
            continue;
        }
        if (!acc) acc = e;
        else {
            acc->j = hull(acc->j, e.j);
            acc->dj = hull(acc->dj, e.dj);
            acc->d2j = hull(acc->d2j, e.d2j);
            acc->mass = hull(acc->mass, e.mass);
            acc->budget.outer_nodes += e.budget.outer_nodes;
        }
    }
    acc->rho = rho;
    return *acc;
}

}  // namespace rhoflow::detail
