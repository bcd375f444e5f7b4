#include "rhoflow/check/certify.hpp"

#include <algorithm>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <numbers>
#include <optional>
#include <queue>
#include <string>

#include "rhoflow/core/chebyshev.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/field/meanfield.hpp"

namespace rhoflow {

FieldTableParams CertifyParams::default_table() {
    FieldTableParams t;
    t.tol = 1e-12;
    t.max_points = 129;
    t.exact.rel_tol = 1e-10;
    t.exact.inner_resolution = 0.25;
    return t;
}

namespace {
bool power_of_two_plus_one(int n) {
    const int m = n - 1;
    return m >= 8 && (m & (m - 1)) == 0;
}
}  // namespace

void CertifyParams::validate() const {
    require(std::isfinite(tol) && tol > 0 && tol <= 1, "tol", tol, "0 < tol <= 1");
    require(std::isfinite(rho0) && rho0 > -1 && rho0 < 1, "rho0", rho0, "-1 < rho0 < 1");
    validate_hit_eps(hit_eps, "hit_eps");
    require(max_cells >= 100 && max_cells <= 10000000, "max_cells", max_cells, "100 <= max_cells <= 1e7");
    if (field == FieldMethod::montecarlo)
        throw InvalidArgument("field", "field = 'montecarlo' cannot be certified (accepted: exact, meanfield)");
    validate_member("table", [&] { table.validate(); });
    require(power_of_two_plus_one(min_points) && min_points <= table.max_points, "min_points", min_points,
            fmt::format("2^k + 1 points with 9 <= min_points <= table points = {}", table.max_points));
}

FieldSampler model_sampler(const ModelParams& model, FieldMethod method, const ExactFieldParams& exact) {
    if (method == FieldMethod::montecarlo)
        throw InvalidArgument("field", "field = 'montecarlo' cannot be certified (accepted: exact, meanfield)");
    if (method == FieldMethod::exact)
        validate_exact_field(model, exact);
    else
        model.validate();
    return [model, method, exact](const std::vector<double>& rho) {
        std::vector<FieldSample> out;
        out.reserve(rho.size());
        for (double r : rho) {
            const FieldPoint p = method == FieldMethod::exact ? exact_field(model, r, exact) : meanfield_field(model, r);
            out.push_back({p.dj, p.dj_err, p.mass_informative, p.mass_err});
        }
        return out;
    };
}

FieldSampler drift_field_sampler(const DriftField& field) {
    bool has_mass = true;
    try {
        (void)field.mass(0.0);
    } catch (const NumericalError&) {
        has_mass = false;
    }
    return [field, has_mass](const std::vector<double>& rho) {
        std::vector<FieldSample> out;
        out.reserve(rho.size());
        for (double r : rho)
            out.push_back({field.dj(r), field.dj_error(), has_mass ? field.mass(r) : 0.0, has_mass ? 1e-15 : 0.0});
        return out;
    };
}

namespace {

constexpr double kUnit = std::numeric_limits<double>::epsilon();
constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------------
// The table: samples on nested Lobatto grids plus three check samples off the grid.

class Table {
public:
    Table(const FieldSampler& s, int n) : sampler_(s), n_(n) {
        y_ = sample(Chebyshev::lobatto_points(n_));
    }
    int n() const { return n_; }
    int samples() const { return samples_; }
    const std::vector<FieldSample>& values() const { return y_; }

    // The check points of grid n: three nodes of its refinement (odd nodes k of grid 2n), spread
    // over [-1, 1].
    std::vector<int> check_indices() const { return {2 * (n_ / 8) + 1, n_ + 1, 2 * n_ - 2 * (n_ / 8) - 1}; }
    // (x, sample) at the check points, sampling the missing ones.
    std::vector<std::pair<double, FieldSample>> checks() {
        const std::vector<double> x2 = Chebyshev::lobatto_refinement(n_);  // x2[k / 2] is odd node k of grid 2n
        std::vector<double> need;
        std::vector<int> ks;
        for (int k : check_indices())
            if (!extra_.count(k)) {
                need.push_back(x2[static_cast<std::size_t>(k / 2)]);
                ks.push_back(k);
            }
        if (!need.empty()) {
            const auto s = sample(need);
            for (std::size_t i = 0; i < ks.size(); ++i) extra_[ks[i]] = s[i];
        }
        std::vector<std::pair<double, FieldSample>> out;
        for (int k : check_indices()) out.push_back({x2[static_cast<std::size_t>(k / 2)], extra_.at(k)});
        return out;
    }
    // Doubles the grid (core/chebyshev.hpp's refinement), reusing the check samples (they are
    // nodes of the refined grid).
    void refine() {
        const std::vector<double> x2 = Chebyshev::lobatto_refinement(n_);
        std::vector<double> need;
        std::vector<int> ks;
        for (int k = 1; k < 2 * n_; k += 2)
            if (!extra_.count(k)) {
                need.push_back(x2[static_cast<std::size_t>(k / 2)]);
                ks.push_back(k);
            }
        const auto s = sample(need);
        for (std::size_t i = 0; i < ks.size(); ++i) extra_[ks[i]] = s[i];
        std::vector<FieldSample> added;
        added.reserve(x2.size());
        for (int k = 1; k < 2 * n_; k += 2) added.push_back(extra_.at(k));
        y_ = Chebyshev::merge_refinement(y_, added);
        extra_.clear();
        n_ *= 2;
    }

private:
    std::vector<FieldSample> sample(const std::vector<double>& x) {
        samples_ += static_cast<int>(x.size());
        std::vector<FieldSample> s = sampler_(x);
        for (std::size_t i = 0; i < s.size(); ++i)
            if (!std::isfinite(s[i].dj) || !std::isfinite(s[i].dj_err) || !std::isfinite(s[i].mass) ||
                !std::isfinite(s[i].mass_err))
                throw NumericalError(fmt::format("check: the field is not finite at rho = {}", format_number(x[i])));
        return s;
    }

    const FieldSampler& sampler_;
    int n_;
    std::vector<FieldSample> y_;
    std::map<int, FieldSample> extra_;
    int samples_ = 0;
};

// A polynomial p with |p - g| <= eps on [-1, 1].
struct Enclosure {
    Chebyshev p;
    double eps = 0;
    bool converged = false;   // tail at the noise floor: refining would not lower eps much
    bool resolved = false;    // converged, or the coefficients visibly decay (tail < 1% of the head)
    bool validated = true;    // the check samples agree with p within eps
};

Enclosure enclose(const std::vector<double>& y, double sample_err, double table_tol,
                  const std::vector<std::pair<double, double>>& checks, double check_err) {
    Enclosure e;
    e.p = Chebyshev::from_lobatto(y, table_tol, 0.0, sample_err);
    const auto& c = e.p.coefficients();
    const std::size_t n = y.size() - 1;
    double tail4 = 0, tail8 = 0, tail_max = 0, head_max = 0;
    for (std::size_t k = 0; k < c.size(); ++k) {
        if (k >= n - n / 4) {
            tail4 += std::abs(c[k]);
            tail_max = std::max(tail_max, std::abs(c[k]));
        } else if (k >= 1) {
            head_max = std::max(head_max, std::abs(c[k]));
        }
        if (k >= n - n / 8) tail8 += std::abs(c[k]);
    }
    const double lebesgue = 1 + 2 / std::numbers::pi * std::log(static_cast<double>(n));
    e.eps = e.p.error_bound() + 2 * (tail4 - tail8) + (lebesgue - 1) * sample_err;
    e.converged = e.p.converged();
    // A flat spectrum above the noise floor means the grid has not resolved the function (a
    // feature between the nodes shows only as a trace in a few samples): the tail estimate
    // then means nothing, and no verdict is taken from this table.
    e.resolved = e.converged || tail_max <= 0.01 * head_max;
    double worst = 0;
    for (const auto& [x, v] : checks) worst = std::max(worst, std::abs(e.p(x) - v));
    if (worst > e.eps + check_err) {
        e.validated = false;
        e.eps = 2 * (worst + check_err);
    }
    return e;
}

// p and its first three derivatives, with S_k = sum |Chebyshev coefficients of p^(k)| >= max |p^(k)|
// on [-1, 1] and R_k bounding the rounding of evaluating p^(k) by Clenshaw's recurrence.
class Poly {
public:
    explicit Poly(const Chebyshev& p) {
        d_[0] = p;
        for (int k = 1; k < 4; ++k) d_[k] = d_[k - 1].derivative();
        for (int k = 0; k < 4; ++k) {
            const auto& c = d_[k].coefficients();
            double s = 0;
            for (std::size_t i = 0; i < c.size(); ++i) s += (i == 0 ? 0.5 : 1.0) * std::abs(c[i]);
            s_[k] = s;
            r_[k] = 4.0 * (static_cast<double>(c.size()) + 1) * kUnit * s;
        }
    }
    double v(int k, double x) const { return d_[k](x); }
    double S(int k) const { return s_[k]; }
    double R(int k) const { return r_[k]; }
    int degree() const { return d_[0].degree(); }
    // Bound on |p^(k)| over [a, b] (k = 1..3).
    double abs_bound(int k, double a, double b) const {
        if (k >= 3) return s_[3];
        const double local = std::abs(d_[k](0.5 * (a + b))) + r_[k] + 0.5 * (b - a) * abs_bound(k + 1, a, b);
        return std::min(s_[k], local);
    }
    const Chebyshev& cheb(int k) const { return d_[k]; }

private:
    Chebyshev d_[4];
    double s_[4] = {0, 0, 0, 0}, r_[4] = {0, 0, 0, 0};
};

// Branch and bound for min over [a, b] of sgn * p^(k): `hi` is the smallest value sampled (at
// `at`), `lo` a certified lower bound of the minimum (rounding included).
struct MinBound {
    double lo = 0, hi = 0, at = 0;
    bool complete = true;
    int cells = 0;
};

MinBound bound_min(const Poly& P, int k, double sgn, double a, double b, double thr, int budget) {
    struct Cell {
        double a, b, va, vb, lo;
    };
    auto cmp = [](const Cell& x, const Cell& y) { return x.lo > y.lo; };
    std::priority_queue<Cell, std::vector<Cell>, decltype(cmp)> heap(cmp);
    auto value = [&](double x) { return sgn * P.v(k, x); };
    auto lower = [&](double ca, double cb, double va, double vb) {
        return 0.5 * (va + vb) - 0.5 * (cb - ca) * P.abs_bound(k + 1, ca, cb) - P.R(k);
    };
    const int per_unit = std::max(8, P.degree() + 1);
    const int K = std::max(2, static_cast<int>(std::ceil((b - a) * per_unit)));
    MinBound m;
    m.hi = kInf;
    std::vector<double> x(static_cast<std::size_t>(K) + 1), v(x.size());
    for (int i = 0; i <= K; ++i) {
        x[static_cast<std::size_t>(i)] = i == K ? b : a + (b - a) * i / K;
        v[static_cast<std::size_t>(i)] = value(x[static_cast<std::size_t>(i)]);
        if (v[static_cast<std::size_t>(i)] < m.hi) {
            m.hi = v[static_cast<std::size_t>(i)];
            m.at = x[static_cast<std::size_t>(i)];
        }
    }
    for (std::size_t i = 0; i + 1 < x.size(); ++i) heap.push({x[i], x[i + 1], v[i], v[i + 1], lower(x[i], x[i + 1], v[i], v[i + 1])});
    m.cells = K;
    double settled = kInf;  // lower bounds of cells too narrow to split
    for (;;) {
        const double lo = std::min(heap.empty() ? kInf : heap.top().lo, settled);
        const double gap = m.hi - std::min(lo, m.hi);
        const bool pos = lo > thr, neg = m.hi + thr + gap < 0;
        if ((pos || neg) && gap <= 1e-3 * std::abs(m.hi)) break;  // decided, margin to 0.1%
        if (gap <= 0.01 * thr || heap.empty()) break;
        if (m.cells >= budget) {
            m.complete = false;
            break;
        }
        const Cell c = heap.top();
        heap.pop();
        const double mid = 0.5 * (c.a + c.b);
        if (!(mid > c.a && mid < c.b) || c.b - c.a < 1e-13) {
            settled = std::min(settled, c.lo);
            continue;
        }
        const double vm = value(mid);
        if (vm < m.hi) {
            m.hi = vm;
            m.at = mid;
        }
        heap.push({c.a, mid, c.va, vm, lower(c.a, mid, c.va, vm)});
        heap.push({mid, c.b, vm, c.vb, lower(mid, c.b, vm, c.vb)});
        ++m.cells;
    }
    m.lo = std::min({heap.empty() ? kInf : heap.top().lo, settled, m.hi});
    return m;
}

Verdict by_margin(double margin, double error) {
    if (margin > error) return Verdict::holds;
    if (margin < -error) return Verdict::fails;
    return Verdict::undecided;
}

// "g > 0 on [a, b]" for g = p^(0) of P within thr.
PointCertificate decide_positive(const Poly& P, double a, double b, double thr, double scale, int budget,
                                 const char* what) {
    PointCertificate c;
    const MinBound mb = bound_min(P, 0, 1.0, a, b, thr, budget);
    c.scale = scale;
    c.margin = mb.hi / scale;
    c.error = (thr + (mb.hi - mb.lo)) / scale;
    c.where = mb.at;
    c.table_error = thr / scale;
    c.verdict = by_margin(c.margin, c.error);
    if (c.verdict == Verdict::holds)
        c.note = fmt::format("{} > 0 on [{}, {}]: certified minimum >= {:.3e} (relative), at rho = {:.6f}", what,
                             format_number(a), format_number(b), (mb.lo - thr) / scale, mb.at);
    else if (c.verdict == Verdict::fails)
        c.note = fmt::format("{} = {:.6g} (relative {:.3e}) < 0 at rho = {:.10g}", what, mb.hi, c.margin, mb.at);
    else
        c.note = fmt::format("min of {} on [{}, {}] is within its error bound ({:.3e} +- {:.3e} relative){}", what,
                             format_number(a), format_number(b), c.margin, c.error,
                             mb.complete ? "" : "; the search ran out of cells");
    return c;
}

// The sign of a derivative on [a, b] from guaranteed enclosures on cells covering it: 8 cells,
// each halved while its enclosure contains 0 (to width 2^-10 of [a, b], at most 256 enclosures).
// +1: positive on every cell; -1: negative on `cell` (a guaranteed counterexample); 0: undecided
// at `cell`; nullopt when no enclosure is available.
struct CoverSign {
    int sign = 0;
    Interval cell;
    int cells = 0;
};
std::optional<CoverSign> cover_sign(const DerivativeEnclosure& enc, double a, double b) {
    std::vector<std::pair<double, double>> todo;
    for (int i = 7; i >= 0; --i) todo.push_back({a + (b - a) * i / 8, i == 7 ? b : a + (b - a) * (i + 1) / 8});
    const double finest = (b - a) / 1024;
    CoverSign out;
    std::optional<Interval> undecided;
    while (!todo.empty()) {
        const auto [x, y] = todo.back();
        todo.pop_back();
        const std::optional<Interval> q = enc(x, y);
        if (!q) return std::nullopt;
        ++out.cells;
        if (q->hi < 0) return CoverSign{-1, {x, y}, out.cells};
        if (q->lo > 0) continue;
        if (y - x > finest * 1.5 && out.cells + static_cast<int>(todo.size()) + 2 <= 256) {
            todo.push_back({0.5 * (x + y), y});
            todo.push_back({x, 0.5 * (x + y)});
        } else if (!undecided) {
            undecided = Interval{x, y};
        }
    }
    if (undecided) return CoverSign{0, *undecided, out.cells};
    out.sign = 1;
    return out;
}

// filtering: the table's verdict (margin, error) stands only when the enclosures of dE[A_I]/drho
// agree: holds needs them positive on all of [0, 1], fails needs a cell where they are negative.
PointCertificate decide_filtering(const Poly& G, double thr, double scale, int budget, const DerivativeEnclosure& enc) {
    PointCertificate c = decide_positive(G, 0.0, 1.0, thr, scale, budget, "dE[A_I]/drho");
    const std::optional<CoverSign> cover = enc ? cover_sign(enc, 0.0, 1.0) : std::nullopt;
    if (!cover) {
        c.derivative = "estimate";
        return c;
    }
    c.derivative = "enclosure";
    const Verdict table = c.verdict;
    const Verdict guaranteed = cover->sign > 0 ? Verdict::holds : cover->sign < 0 ? Verdict::fails : Verdict::undecided;
    if (guaranteed == Verdict::fails)
        c.note += fmt::format("; guaranteed: dE[A_I]/drho < 0 on [{:.6g}, {:.6g}]", cover->cell.lo, cover->cell.hi);
    else if (guaranteed == Verdict::holds)
        c.note += fmt::format("; guaranteed: dE[A_I]/drho > 0 on [0, 1] ({} enclosures)", cover->cells);
    if (table == guaranteed) return c;
    c.verdict = Verdict::undecided;
    c.note += guaranteed == Verdict::undecided
                  ? fmt::format("; undecided: the enclosures of dE[A_I]/drho contain 0 on [{:.6g}, {:.6g}]",
                                cover->cell.lo, cover->cell.hi)
                  : fmt::format("; undecided: the table's estimate says {}, the enclosures {}", to_string(table),
                                to_string(guaranteed));
    return c;
}

// ---------------------------------------------------------------------------------------------
// attractors=N

enum class Label { pos, neg, inc, dec, unresolved };
struct LabeledCell {
    double a, b;
    Label label;
    double qmin;  // certified lower bound of |j''| on the cell (inc/dec)
};

// Labels [a, b] (va, vb: j' at the ends; qa, qb: j'') pos or neg (j' of one sign beyond thr0) or
// inc or dec (j'' of one sign beyond thr1, on cells no wider than inc_width), bisecting while the
// budget lasts; else unresolved. A small inc_width keeps the runs around roots narrow, so that
// one enclosure of j'' over a run is narrow too.
void classify(const Poly& P, double a, double b, double va, double vb, double qa, double qb, double thr0, double thr1,
              double inc_width, int& budget, std::vector<LabeledCell>& out) {
    const double h = b - a;
    const double M1 = P.abs_bound(1, a, b);
    const double mid0 = 0.5 * (va + vb);
    if (mid0 - 0.5 * h * M1 - P.R(0) > thr0) return out.push_back({a, b, Label::pos, 0});
    if (mid0 + 0.5 * h * M1 + P.R(0) < -thr0) return out.push_back({a, b, Label::neg, 0});
    const double M2 = P.abs_bound(2, a, b);
    const double mid1 = 0.5 * (qa + qb);
    const double qlo = mid1 - 0.5 * h * M2 - P.R(1), qhi = mid1 + 0.5 * h * M2 + P.R(1);
    const double m = 0.5 * (a + b);
    const bool can_split = h >= 1e-12 && budget > 0 && m > a && m < b;
    if (h <= inc_width || !can_split) {
        if (qlo > thr1) return out.push_back({a, b, Label::inc, qlo - thr1});
        if (qhi < -thr1) return out.push_back({a, b, Label::dec, -qhi - thr1});
    }
    if (!can_split) return out.push_back({a, b, Label::unresolved, 0});
    --budget;
    const double vm = P.v(0, m), qm = P.v(1, m);
    classify(P, a, m, va, vm, qa, qm, thr0, thr1, inc_width, budget, out);
    classify(P, m, b, vm, vb, qm, qb, thr0, thr1, inc_width, budget, out);
}

// Labels [-1, 1] by cells: K equal cells, each classified (and split where needed) by classify.
std::vector<LabeledCell> label_cells(const Poly& P, double thr0, double thr1, double inc_width, int budget) {
    const int K = std::max(16, 2 * (P.degree() + 1));
    std::vector<LabeledCell> cells;
    int left = budget;
    for (int i = 0; i < K; ++i) {
        const double a = i == 0 ? -1.0 : -1.0 + 2.0 * i / K, b = i + 1 == K ? 1.0 : -1.0 + 2.0 * (i + 1) / K;
        classify(P, a, b, P.v(0, a), P.v(0, b), P.v(1, a), P.v(1, b), thr0, thr1, inc_width, left, cells);
    }
    return cells;
}

// The certified sign of j' at x: +1 or -1 beyond its error, 0 within it.
int endpoint_sign(const Poly& P, double thr0, double x) {
    const double v = P.v(0, x);
    return v > thr0 + P.R(0) ? 1 : v < -thr0 - P.R(0) ? -1 : 0;
}

// The sign of j' on a cell labelled pos or neg.
int label_sign(Label l) { return l == Label::pos ? 1 : -1; }

// c made undecided (zero margin, error thr0 / scale) for the reason `why`.
PointCertificate undecided_certificate(PointCertificate c, double thr0, double scale, std::string why) {
    c.verdict = Verdict::undecided;
    c.margin = 0;
    c.error = thr0 / scale;
    c.note = std::move(why);
    return c;
}

// The zero of p in [ra, rb] (where p changes sign), by TOMS 748.
double table_root(const Poly& P, double ra, double rb) {
    std::uintmax_t iters = 200;
    auto f = [&](double x) { return P.v(0, x); };
    const auto br = boost::math::tools::toms748_solve(f, ra, rb, f(ra), f(rb),
                                                      boost::math::tools::eps_tolerance<double>(52), iters);
    return 0.5 * (br.first + br.second);
}

// The interior equilibrium in [ra, rb], where j' changes sign and |j''| >= qmin (the estimate
// |p'| > thr1): the root of p and its F' (stable when j'' < 0, `dec`).
CertifiedEquilibrium interior_equilibrium(const Poly& P, double ra, double rb, double qmin, bool dec, double thr0,
                                          double thr1) {
    const double r = table_root(P, ra, rb);
    const double rho_err = thr0 / qmin;
    const double d1 = P.v(1, r), w = 1 - r * r;
    const double err = w * thr1 + (2 * std::abs(r) * std::abs(d1) + w * P.S(2)) * rho_err;
    return {r, rho_err, w * d1, err, dec};
}

// The same with j'' in the guaranteed interval q (one sign) over the run: the field's zero lies
// in [a, b] = [r - rho_err, r + rho_err] within the run, and F' = (1 - rho^2) j'' there is
// enclosed by the product of the ranges of 1 - rho^2 and of j'' on [a, b] (a second, narrow
// enclosure; q itself when that is not available).
CertifiedEquilibrium enclosed_equilibrium(const Poly& P, double ra, double rb, Interval q, double thr0,
                                          const DerivativeEnclosure& curv) {
    const double r = table_root(P, ra, rb);
    const double rho_err = thr0 / std::min(std::abs(q.lo), std::abs(q.hi));
    const double a = std::max(ra, r - rho_err), b = std::min(rb, r + rho_err);
    if (b - a < 0.25 * (rb - ra))  // a narrower enclosure pays only when [a, b] is much narrower than the run
        if (const std::optional<Interval> near = curv(a, b); near && std::max(near->lo, q.lo) <= std::min(near->hi, q.hi))
            q = {std::max(near->lo, q.lo), std::min(near->hi, q.hi)};  // both hold on [a, b]
    const double wmax = a <= 0 && b >= 0 ? 1.0 : 1 - std::min(a * a, b * b), wmin = 1 - std::max(a * a, b * b);
    const double p[4] = {wmin * q.lo, wmin * q.hi, wmax * q.lo, wmax * q.hi};
    const double lo = *std::min_element(p, p + 4), hi = *std::max_element(p, p + 4);
    const double pad = 4 * kUnit * std::max(std::abs(lo), std::abs(hi));  // rounding of the products
    return {r, rho_err, 0.5 * (lo + hi), 0.5 * (hi - lo) + pad, q.hi < 0};
}

// j'' over [a, b] from guaranteed enclosures: the run split in halves (at most 16 pieces) until
// every piece's enclosure excludes 0; their hull when all have one sign. nullopt when an
// enclosure is unavailable (why = ""), or j'' has no certified sign on some piece (why says so).
std::optional<Interval> run_curvature(const DerivativeEnclosure& curv, double a, double b, std::string& why) {
    std::vector<std::pair<double, double>> todo = {{a, b}};
    std::optional<Interval> hull;
    int pieces = 1;
    while (!todo.empty()) {
        const auto [x, y] = todo.back();
        todo.pop_back();
        const std::optional<Interval> q = curv(x, y);
        if (!q) return std::nullopt;
        const double m = 0.5 * (x + y);
        if (q->lo <= 0 && q->hi >= 0 && pieces < 16 && m > x && m < y) {
            todo.push_back({m, y});
            todo.push_back({x, m});
            ++pieces;
            continue;
        }
        if ((q->lo <= 0 && q->hi >= 0) || (hull && (hull->hi < 0) != (q->hi < 0))) {
            why = fmt::format("near rho in [{:.6g}, {:.6g}] the guaranteed j'' in [{:.3e}, {:.3e}] on [{:.6g}, {:.6g}] "
                              "has no sign common to the run: a near-tangency, roots not isolated",
                              a, b, q->lo, q->hi, x, y);
            return std::nullopt;
        }
        hull = hull ? Interval{std::min(hull->lo, q->lo), std::max(hull->hi, q->hi)} : *q;
    }
    return hull;
}

// Appends to eq the interior equilibria: one per run of inc/dec cells between cells of opposite
// sign (s_lo, s_hi: the signs at -1 and 1). Returns why the roots are not isolated, if they are not.
std::optional<std::string> interior_equilibria(const Poly& P, const std::vector<LabeledCell>& cells, int s_lo,
                                               int s_hi, double thr0, double thr1, const DerivativeEnclosure& curv,
                                               std::vector<CertifiedEquilibrium>& eq, std::string& derivative) {
    for (std::size_t i = 0; i < cells.size();) {
        if (cells[i].label == Label::pos || cells[i].label == Label::neg) {
            ++i;
            continue;
        }
        std::size_t j = i;
        bool inc = false, dec = false, unres = false;
        double qmin = kInf;
        for (; j < cells.size() && cells[j].label != Label::pos && cells[j].label != Label::neg; ++j) {
            inc = inc || cells[j].label == Label::inc;
            dec = dec || cells[j].label == Label::dec;
            unres = unres || cells[j].label == Label::unresolved;
            qmin = std::min(qmin, cells[j].qmin);
        }
        const double ra = cells[i].a, rb = cells[j - 1].b;
        const int before = i == 0 ? s_lo : label_sign(cells[i - 1].label);
        const int after = j == cells.size() ? s_hi : label_sign(cells[j].label);
        std::string why;
        const std::optional<Interval> q = curv ? run_curvature(curv, ra, rb, why) : std::nullopt;
        if (!why.empty()) return why;
        if (q) {
            if (derivative.empty()) derivative = "enclosure";
            // j' strictly monotone on the run: its end signs must follow j''s sign (+ to - needs
            // j'' < 0); otherwise the table's signs contradict the enclosure.
            if (before != after && (before < after) != (q->lo > 0))
                return fmt::format("near rho in [{:.6g}, {:.6g}] the table's signs of j' ({} to {}) contradict the "
                                   "guaranteed sign of j'' ([{:.3e}, {:.3e}]): not certified",
                                   ra, rb, before > 0 ? "+" : "-", after > 0 ? "+" : "-", q->lo, q->hi);
            if (before != after) eq.push_back(enclosed_equilibrium(P, ra, rb, *q, thr0, curv));
            i = j;
            continue;
        }
        derivative = "estimate";
        if (unres || (inc && dec))
            return fmt::format("near rho in [{:.6g}, {:.6g}] j' and j'' are both within their error "
                               "bounds ({:.1e}, {:.1e}): a near-tangency, roots not isolated",
                               ra, rb, thr0, thr1);
        if (before != after) eq.push_back(interior_equilibrium(P, ra, rb, qmin, dec, thr0, thr1));
        i = j;
    }
    return std::nullopt;
}

// The index of the equilibrium of least certified |F'| (the first on ties).
std::size_t weakest_equilibrium(const std::vector<CertifiedEquilibrium>& eq) {
    std::size_t weakest = 0;
    for (std::size_t i = 0; i < eq.size(); ++i)
        if (std::abs(eq[i].dfdrho) - eq[i].dfdrho_err < std::abs(eq[weakest].dfdrho) - eq[weakest].dfdrho_err)
            weakest = i;
    return weakest;
}

// "N attractors; equilibria: rho (attractor), ..." for the certificate's note.
std::string equilibria_note(const std::vector<CertifiedEquilibrium>& eq, int count) {
    std::string list;
    for (const auto& e : eq)
        list += fmt::format("{}{:.6g} ({})", list.empty() ? "" : ", ", e.rho, e.stable ? "attractor" : "repeller");
    return fmt::format("{} attractor{}; equilibria: {}", count, count == 1 ? "" : "s", list);
}

// "attractors=N": the equilibria of F on [-1, 1] with certified stability; holds iff exactly N
// attract, and the weakest equilibrium sets the margin.
PointCertificate decide_attractors(const Poly& P, double thr0, double thr1, double scale, int wanted, int budget,
                                   const DerivativeEnclosure& curv) {
    PointCertificate c;
    c.scale = scale;
    c.table_error = thr0 / scale;
    // With enclosures, runs are cut to cells of 2^-20 around the roots (about 20 bisections each).
    const std::vector<LabeledCell> cells = label_cells(P, thr0, thr1, curv ? 0x1p-20 : kInf, budget);
    const int s_lo = endpoint_sign(P, thr0, -1.0), s_hi = endpoint_sign(P, thr0, 1.0);
    if (s_lo == 0)
        return undecided_certificate(c, thr0, scale,
                                     fmt::format("j'(-1) = {:.3e} is within its error {:.1e}: the stability of rho = -1 "
                                                 "is not certified", P.v(0, -1.0), thr0));
    if (s_hi == 0)
        return undecided_certificate(c, thr0, scale,
                                     fmt::format("j'(1) = {:.3e} is within its error {:.1e}: the stability of rho = 1 "
                                                 "is not certified", P.v(0, 1.0), thr0));
    std::vector<CertifiedEquilibrium> eq;
    eq.push_back({-1.0, 0.0, 2 * P.v(0, -1.0), 2 * (thr0 + P.R(0)), s_lo < 0});
    if (auto why = interior_equilibria(P, cells, s_lo, s_hi, thr0, thr1, curv, eq, c.derivative))
        return undecided_certificate(c, thr0, scale, std::move(*why));
    eq.push_back({1.0, 0.0, -2 * P.v(0, 1.0), 2 * (thr0 + P.R(0)), s_hi > 0});
    int count = 0;
    for (const auto& e : eq) count += e.stable;
    const std::size_t weakest = weakest_equilibrium(eq);
    // Every stability above is certified by construction (a sign beyond its error); the weakest
    // equilibrium sets the margin.
    if (std::abs(eq[weakest].dfdrho) <= eq[weakest].dfdrho_err)
        return undecided_certificate(c, thr0, scale,
                                     fmt::format("F'({:.6g}) = {:.3e} is within its error {:.1e}", eq[weakest].rho,
                                                 eq[weakest].dfdrho, eq[weakest].dfdrho_err));
    c.attractors = count;
    c.equilibria = eq;
    const double m = std::abs(eq[weakest].dfdrho) / (2 * scale);
    c.margin = count == wanted ? m : -m;
    c.error = eq[weakest].dfdrho_err / (2 * scale);
    c.where = eq[weakest].rho;
    c.verdict = count == wanted ? Verdict::holds : Verdict::fails;
    c.note = equilibria_note(eq, count);
    return c;
}

// ---------------------------------------------------------------------------------------------
// hitting-time<=T

PointCertificate decide_hitting(const Poly& P, double thr, double scale, const Claim& claim, const CertifyParams& params) {
    PointCertificate c;
    c.scale = scale;
    c.table_error = thr / scale;
    c.where = params.rho0;
    const double T = claim.t_max, level = 1 - params.hit_eps, r0 = params.rho0;
    auto margin_of = [&](double th) { return (T - th) / (T + th); };
    if (std::abs(r0) >= level) {
        c.verdict = Verdict::holds;
        c.margin = 1;
        c.hit_time = 0;
        c.note = "|rho0| is already at the level";
        return c;
    }
    const double v0 = P.v(0, r0);
    if (std::abs(v0) <= thr + P.R(0)) {
        c.verdict = Verdict::undecided;
        c.error = 1;
        c.note = fmt::format("j'(rho0) = {:.3e} is within its error {:.1e}: the direction of the flow is not certified",
                             v0, thr);
        return c;
    }
    const double dir = v0 > 0 ? 1.0 : -1.0;
    const double a = dir > 0 ? r0 : -level, b = dir > 0 ? level : r0;
    const MinBound mb = bound_min(P, 0, dir, a, b, thr, params.max_cells);
    if (mb.hi + thr + (mb.hi - mb.lo) < 0) {
        c.verdict = Verdict::fails;
        c.margin = -1;
        c.error = 0;
        c.hit_time = -1;
        c.note = fmt::format("never reaches |rho| = {}: j' changes sign at rho ~ {:.6g}, between rho0 and the level "
                             "(an equilibrium stops the flow)", format_number(level), mb.at);
        return c;
    }
    if (!(mb.lo > thr)) {
        c.verdict = Verdict::undecided;
        c.error = 1;
        c.note = fmt::format("j' comes within its error of 0 at rho ~ {:.6g} between rho0 and the level", mb.at);
        return c;
    }
    using GK = boost::math::quadrature::gauss_kronrod<double, 61>;
    auto time_with = [&](double shift, double* qerr) {
        auto f = [&](double r) { return 1.0 / ((1 - r * r) * (dir * P.v(0, r) + shift)); };
        return GK::integrate(f, a, b, 15, 1e-12, qerr);
    };
    double e_mid = 0, e_fast = 0, e_slow = 0;
    const double t_mid = time_with(0.0, &e_mid);
    const double t_fast = time_with(thr + P.R(0), &e_fast) - e_fast;
    const double t_slow = time_with(-(thr + P.R(0)), &e_slow) + e_slow;
    c.hit_time = t_mid;
    c.hit_time_err = std::max(t_mid - t_fast, t_slow - t_mid) + e_mid;
    c.margin = margin_of(t_mid);
    c.error = std::max(std::abs(margin_of(t_fast) - c.margin), std::abs(margin_of(t_slow) - c.margin));
    c.verdict = by_margin(c.margin, c.error);
    c.note = fmt::format("T_hit = {:.10g} +- {:.2e} (to {} = {}) against T = {}", t_mid, c.hit_time_err,
                         dir > 0 ? "rho" : "-rho", format_number(level), format_number(T));
    return c;
}

PointCertificate flat_certificate(const Claim& claim, const CertifyParams& params) {
    PointCertificate c;
    const std::string why = "j' = 0 identically (R = 0 or theta = 0, decided exactly): ";
    switch (claim.kind) {
        case ClaimKind::monotone:
        case ClaimKind::positive_drift:
            c.verdict = Verdict::fails;
            c.note = why + "F = 0, not > 0";
            break;
        case ClaimKind::attractors:
            c.attractors = 0;
            c.verdict = claim.attractors == 0 ? Verdict::holds : Verdict::fails;
            c.note = why + "every rho is an equilibrium, none attracts";
            break;
        case ClaimKind::filtering:
            c.verdict = Verdict::fails;
            c.note = "the field is flat (R = 0 or theta = 0): E[A_I] does not depend on rho";
            break;
        case ClaimKind::noise_mass:  // refused by CheckParams::validate (prove decides them)
        case ClaimKind::recovery:
            c.note = "decided by rhoflow prove";
            break;
        case ClaimKind::hitting_time: {
            const bool at = std::abs(params.rho0) >= 1 - params.hit_eps;
            c.verdict = at ? Verdict::holds : Verdict::fails;
            c.margin = at ? 1 : -1;
            c.hit_time = at ? 0 : -1;
            c.where = params.rho0;
            c.note = why + (at ? "rho0 is already at the level" : "rho stays at rho0 forever");
            break;
        }
    }
    return c;
}

double max_abs(const std::vector<double>& v) {
    double m = 0;
    for (double x : v) m = std::max(m, std::abs(x));
    return m;
}

// The claim's quantity (j', or E[A_I] for `filtering`) on the table's grid, enclosed by a polynomial.
struct TableEnclosure {
    Enclosure enc;
    std::vector<double> y;  ///< the sampled values on the grid
};

TableEnclosure enclose_table(Table& table, bool mass, double tol) {
    const auto checks = table.checks();  // samples off the grid (computed on first use)
    TableEnclosure t;
    double serr = 0, cerr = 0;
    std::vector<std::pair<double, double>> cv;
    for (const auto& s : table.values()) {
        t.y.push_back(mass ? s.mass : s.dj);
        serr = std::max(serr, mass ? s.mass_err : s.dj_err);
    }
    for (const auto& [x, s] : checks) {
        cv.push_back({x, mass ? s.mass : s.dj});
        cerr = std::max(cerr, mass ? s.mass_err : s.dj_err);
    }
    t.enc = enclose(t.y, serr, tol, cv, cerr);
    return t;
}

// The verdict of the claim on the enclosure, before asking whether the table can be trusted.
PointCertificate decide_claim(const Claim& claim, const CertifyParams& params, const TableEnclosure& t, int n,
                              const DerivativeEnclosure& curv) {
    const Enclosure& enc = t.enc;
    const double deg = enc.p.degree();
    const DerivativeEnclosure& guaranteed = params.derivative == DerivativeBound::enclosure ? curv : DerivativeEnclosure{};
    if (claim.kind == ClaimKind::filtering) {
        const Poly G(enc.p.derivative());
        double scale = 0;
        for (double x : Chebyshev::lobatto_points(n)) scale = std::max(scale, std::abs(G.v(0, x)));
        return decide_filtering(G, std::max(deg * deg, 1.0) * enc.eps, scale == 0 ? 1 : scale, params.max_cells,
                                guaranteed);
    }
    const Poly P(enc.p);
    double scale = max_abs(t.y);
    if (scale == 0) scale = 1;
    switch (claim.kind) {
        case ClaimKind::monotone:
            return decide_positive(P, -1.0, 1.0, enc.eps, scale, params.max_cells, "j'");
        case ClaimKind::positive_drift:
            return decide_positive(P, 0.0, 1.0, enc.eps, scale, params.max_cells, "j'");
        case ClaimKind::attractors:
            return decide_attractors(P, enc.eps, std::max(deg * deg, 1.0) * enc.eps, scale, claim.attractors,
                                     params.max_cells, guaranteed);
        case ClaimKind::hitting_time:
            return decide_hitting(P, enc.eps, scale, claim, params);
        case ClaimKind::filtering:
        case ClaimKind::noise_mass:
        case ClaimKind::recovery:
            break;
    }
    return {};
}

// A verdict the final table cannot back (untrusted, or less accurate than tol) becomes undecided,
// with the reason in the note.
void withhold_if_unbacked(PointCertificate& c, const Enclosure& enc, int n, const CertifyParams& params) {
    const bool trusted = enc.validated && enc.resolved;
    if (c.verdict != Verdict::undecided) {
        if (!trusted)
            c.note = fmt::format("{} ({}), but the table on {} points is not {}: undecided", to_string(c.verdict),
                                 c.note, n + 1,
                                 enc.validated ? "resolved (its Chebyshev coefficients do not decay)"
                                               : "confirmed by its check samples");
        else
            c.note = fmt::format("{} ({}), but the field's relative error {:.2e} exceeds tol = {}: undecided",
                                 to_string(c.verdict), c.note, c.table_error, format_number(params.tol));
        c.verdict = Verdict::undecided;
    } else if (!enc.converged) {
        c.note += fmt::format("; the table did not converge on {} points (raise --table-points)", n + 1);
    }
}

}  // namespace

PointCertificate certify_point(const FieldSampler& sampler, const Claim& claim, const CertifyParams& params,
                               bool flat, const DerivativeEnclosure& derivative) {
    claim.validate();
    params.validate();
    if (flat) return flat_certificate(claim, params);
    Table table(sampler, params.min_points - 1);
    for (;;) {
        const TableEnclosure t = enclose_table(table, claim.kind == ClaimKind::filtering, params.table.tol);
        PointCertificate c = decide_claim(claim, params, t, table.n(), derivative);
        c.samples = table.samples();
        c.table_points = table.n() + 1;
        const bool trusted = t.enc.validated && t.enc.resolved;
        if (c.verdict != Verdict::undecided && c.table_error <= params.tol && trusted) return c;
        const bool can_refine = 2 * table.n() + 1 <= params.table.max_points;
        const bool at_floor = t.enc.converged && t.enc.validated;  // more points lower neither error nor doubt
        if (can_refine && !at_floor) {
            table.refine();
            continue;
        }
        withhold_if_unbacked(c, t.enc, table.n(), params);
        return c;
    }
}

PointCertificate certify_point(const ModelParams& model, const Claim& claim, const CertifyParams& params) {
    params.validate();
    const bool flat = model.R == 0 || model.theta == 0;
    const bool mass = claim.kind == ClaimKind::filtering;
    const bool enclose = (claim.kind == ClaimKind::attractors || mass) && params.field == FieldMethod::exact &&
                         params.derivative == DerivativeBound::enclosure && !flat;
    return certify_point(model_sampler(model, params.field, params.table.exact), claim, params, flat,
                         enclose ? exact_derivative(model, mass) : DerivativeEnclosure{});
}

DerivativeEnclosure exact_derivative(const ModelParams& model, bool mass) {
    const ModelCell cell = ModelCell::of(model);
    // Two passes: a quick enclosure (64 bits, truncations below 1e-4 |j|: about half the cost,
    // widths ~1e-4 relative) decides nearly every cell; only where it contains 0 the fine one
    // (128 bits, 1e-7) is computed. Both are guaranteed.
    auto quick = std::make_shared<EnclosureCache>(), fine = std::make_shared<EnclosureCache>();
    return [cell, mass, quick, fine](double a, double b) -> std::optional<Interval> {
        auto once = [&](const RigorousParams& rp, EnclosureCache* cache) {
            return mass ? enclose_mass_slope(cell, {a, b}, rp, cache) : enclose_field(cell, {a, b}, rp, cache).d2j;
        };
        try {
            const Interval q = once({64, 1e-4}, quick.get());
            if (q.lo > 0 || q.hi < 0) return q;
            return once({128, 1e-7}, fine.get());
        } catch (const InvalidArgument&) {  // outside the enclosures' range (L < 3, beta sigma outside [1e-3, 4])
            return std::nullopt;
        } catch (const NumericalError&) {
            return std::nullopt;
        }
    };
}

const char* to_string(DerivativeBound b) { return b == DerivativeBound::enclosure ? "enclosure" : "estimate"; }

DerivativeBound parse_derivative_bound(const std::string& text, const std::string& field) {
    if (text == "enclosure") return DerivativeBound::enclosure;
    if (text == "estimate") return DerivativeBound::estimate;
    throw InvalidArgument(field, fmt::format("{} = '{}' is not a derivative bound (accepted: enclosure, estimate)", field, text));
}

PointCertificate certify_point(const DriftField& field, const Claim& claim, const CertifyParams& params) {
    return certify_point(drift_field_sampler(field), claim, params, field.flat());
}

// ---------------------------------------------------------------------------------------------
// JSON

void to_json(nlohmann::json& j, const CertifyParams& p) {
    j = {{"tol", p.tol},
         {"min_points", p.min_points},
         {"rho0", p.rho0},
         {"hit_eps", p.hit_eps},
         {"max_cells", p.max_cells},
         {"field", std::string(to_string(p.field))},
         {"derivative", std::string(to_string(p.derivative))},
         {"table",
          {{"tol", p.table.tol},
           {"max_points", p.table.max_points},
           {"exact",
            {{"rel_tol", p.table.exact.rel_tol},
             {"inner_resolution", p.table.exact.inner_resolution},
             {"z_range", p.table.exact.z_range},
             {"max_segments", p.table.exact.max_segments}}}}}};
}

void from_json(const nlohmann::json& j, CertifyParams& p) {
    p.tol = j.value("tol", p.tol);
    p.min_points = j.value("min_points", p.min_points);
    p.rho0 = j.value("rho0", p.rho0);
    p.hit_eps = j.value("hit_eps", p.hit_eps);
    p.max_cells = j.value("max_cells", p.max_cells);
    if (j.contains("field")) p.field = parse_field_method(j.at("field").get<std::string>(), "field");
    if (j.contains("derivative")) p.derivative = parse_derivative_bound(j.at("derivative").get<std::string>(), "derivative");
    if (j.contains("table")) {
        const auto& t = j.at("table");
        p.table.tol = t.value("tol", p.table.tol);
        p.table.max_points = t.value("max_points", p.table.max_points);
        if (t.contains("exact")) {
            const auto& e = t.at("exact");
            p.table.exact.rel_tol = e.value("rel_tol", p.table.exact.rel_tol);
            p.table.exact.inner_resolution = e.value("inner_resolution", p.table.exact.inner_resolution);
            p.table.exact.z_range = e.value("z_range", p.table.exact.z_range);
            p.table.exact.max_segments = e.value("max_segments", p.table.exact.max_segments);
        }
    }
}

void to_json(nlohmann::json& j, const CertifiedEquilibrium& e) {
    j = {{"rho", e.rho}, {"rho_err", e.rho_err}, {"dfdrho", e.dfdrho}, {"dfdrho_err", e.dfdrho_err}, {"stable", e.stable}};
}

void from_json(const nlohmann::json& j, CertifiedEquilibrium& e) {
    e.rho = j.at("rho").get<double>();
    e.rho_err = j.at("rho_err").get<double>();
    e.dfdrho = j.at("dfdrho").get<double>();
    e.dfdrho_err = j.at("dfdrho_err").get<double>();
    e.stable = j.at("stable").get<bool>();
}

void to_json(nlohmann::json& j, const PointCertificate& c) {
    j = {{"verdict", c.verdict},   {"margin", c.margin},           {"error", c.error},
         {"where", c.where},       {"scale", c.scale},             {"table_error", c.table_error},
         {"samples", c.samples},   {"table_points", c.table_points}, {"note", c.note}};
    if (c.attractors >= 0) j["attractors"] = c.attractors;
    if (!c.equilibria.empty()) j["equilibria"] = c.equilibria;
    if (!c.derivative.empty()) j["derivative"] = c.derivative;
    if (c.hit_time != -1 || c.hit_time_err != 0) {
        j["hit_time"] = c.hit_time;
        j["hit_time_err"] = c.hit_time_err;
    }
}

void from_json(const nlohmann::json& j, PointCertificate& c) {
    c = PointCertificate{};
    c.verdict = j.at("verdict").get<Verdict>();
    c.margin = j.at("margin").get<double>();
    c.error = j.at("error").get<double>();
    c.where = j.value("where", 0.0);
    c.scale = j.value("scale", 0.0);
    c.table_error = j.value("table_error", 0.0);
    c.samples = j.value("samples", 0);
    c.table_points = j.value("table_points", 0);
    c.note = j.value("note", std::string());
    c.attractors = j.value("attractors", -1);
    if (j.contains("equilibria")) c.equilibria = j.at("equilibria").get<std::vector<CertifiedEquilibrium>>();
    c.derivative = j.value("derivative", std::string());
    c.hit_time = j.value("hit_time", -1.0);
    c.hit_time_err = j.value("hit_time_err", 0.0);
}

}  // namespace rhoflow
