#include "rhoflow/rigorous/enclosure.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <flint/flint.h>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <numbers>
#include <vector>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/field/detail/laplace_quadrature.hpp"
#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/rigorous/detail/ball.hpp"
#include "rhoflow/rigorous/detail/bounds.hpp"

namespace rhoflow {

using detail::Ball;

RHOFLOW_JSON_HOOKS(Interval, lo, hi)
RHOFLOW_JSON_HOOKS(ModelCell, d, L, R, theta, sigma, beta)
RHOFLOW_JSON_HOOKS(RigorousParams, precision, rel_tol)
RHOFLOW_JSON_HOOKS(EnclosureBudget, inner, outer, tail_left, tail_right, lambda_lo, lambda_hi, inner_nodes,
                   outer_nodes)
RHOFLOW_JSON_HOOKS(FieldEnclosure, rho, j, dj, d2j, mass, precision, budget)

std::string arb_version_text() { return fmt::format("Arb {}, FLINT {}", arb_version, FLINT_VERSION); }

ModelCell ModelCell::of(const ModelParams& m) {
    ModelCell c;
    c.d = m.d;
    c.L = m.L;
    c.R = m.R;
    c.theta = {m.theta, m.theta};
    c.sigma = {m.sigma, m.sigma};
    c.beta = {m.beta, m.beta};
    return c;
}

ModelParams ModelCell::mid() const {
    ModelParams m;
    m.d = d;
    m.L = L;
    m.R = R;
    m.theta = 0.5 * (theta.lo + theta.hi);
    m.sigma = 0.5 * (sigma.lo + sigma.hi);
    m.beta = 0.5 * (beta.lo + beta.hi);
    return m;
}

namespace {
void require_interval(const std::string& name, Interval v, double lo, double hi) {
    require(std::isfinite(v.lo) && std::isfinite(v.hi) && v.lo <= v.hi, name, v.lo,
            fmt::format("a finite interval with lo <= hi (here [{}, {}])", format_number(v.lo), format_number(v.hi)));
    require_in(name + ".lo", v.lo, lo, hi);
    require_in(name + ".hi", v.hi, lo, hi);
}
}  // namespace

void ModelCell::validate() const {
    require(d >= 2 && d <= 1000000000, "cell.d", static_cast<double>(d), "2 <= d <= 1e9");
    require(L >= 3 && L <= 1000000000000, "cell.L", static_cast<double>(L), "3 <= L <= 1e12 (the rigorous tails need L >= 3)");
    require(R >= 0 && R <= L, "cell.R", static_cast<double>(R), "0 <= R <= L");
    require_interval("cell.theta", theta, 0.0, 100.0);
    require_interval("cell.sigma", sigma, 1e-300, 1e6);
    require_interval("cell.beta", beta, 1e-300, 1e6);
    const double tlo = sigma.lo * beta.lo, thi = sigma.hi * beta.hi;
    require(tlo >= 1e-3 && thi <= 4.0, "cell.beta", beta.hi,
            fmt::format("1e-3 <= beta*sigma <= 4 for the rigorous field (here beta*sigma in [{}, {}])",
                        format_number(tlo), format_number(thi)));
}

void RigorousParams::validate() const {
    require(precision >= 64 && precision <= 1024, "precision", precision, "64 <= precision <= 1024 (bits)");
    require_in("rel_tol", rel_tol, 1e-30, 1e-3);
}

namespace {

// ------------------------------------------------------------------ truncated Taylor series
// A quantity and its first two rho-derivatives: c[0] + c[1] eps + c[2] eps^2.
struct Jet {
    Ball c[3];
};
Jet operator+(const Jet& a, const Jet& b) { return {{a.c[0] + b.c[0], a.c[1] + b.c[1], a.c[2] + b.c[2]}}; }
Jet operator*(const Jet& a, const Jet& b) {
    return {{a.c[0] * b.c[0], a.c[0] * b.c[1] + a.c[1] * b.c[0], a.c[0] * b.c[2] + a.c[1] * b.c[1] + a.c[2] * b.c[0]}};
}
Jet operator*(const Ball& s, const Jet& a) { return {{s * a.c[0], s * a.c[1], s * a.c[2]}}; }
Jet constant(const Ball& x) { return {{x, Ball(0.0), Ball(0.0)}}; }
void add_scaled(Jet& acc, const Ball& w, const Jet& a) {
    for (int i = 0; i < 3; ++i) arb_addmul(acc.c[i].v, w.v, a.c[i].v, detail::ball_prec);
}
Jet pow(const Jet& x, std::uint64_t e) {
    Jet r = constant(Ball(1.0)), b = x;
    while (e) {
        if (e & 1) r = r * b;
        e >>= 1;
        if (e) b = b * b;
    }
    return r;
}

// An upper bound F of |f| (for the exact and the discretised f alike) and an upper bound D of
// |f_exact - f_discretised|; both nonnegative balls. Products and powers follow
// |fg - f'g'| <= |f - f'| |g| + |f'| |g - g'|.
struct Maj {
    Ball F, D;
};
Maj operator+(const Maj& a, const Maj& b) { return {a.F + b.F, a.D + b.D}; }
Maj operator*(const Maj& a, const Maj& b) { return {a.F * b.F, a.D * b.F + a.F * b.D}; }
Maj operator*(const Ball& s, const Maj& a) { return {abs(s) * a.F, abs(s) * a.D}; }
Maj pow(const Maj& x, std::uint64_t e) {
    if (e == 0) return {Ball(1.0), Ball(0.0)};
    const Ball Fm = pow_ui(x.F, e - 1);
    return {Fm * x.F, Ball(static_cast<double>(e)) * Fm * x.D};
}
Maj constant_maj(const Ball& x) { return {abs(x), Ball(0.0)}; }

// The inner moments of one class at one outer node (x = t e^{s - c}):
// m = 1 - M, A1 = E[x e^-x], B1 = E[x^2 e^-x], Au = E[u x e^-x], Bu = E[u^2 x^2 e^-x]; M = 1 - m.
template <class T>
struct Mom {
    T M, A1, B1, Au, Bu;
};

// The token counts of (4.3) as exact balls: R, N, R (R - 1), N (N - 1), 2 R N (past 2^53, as
// they are for L above about 1e8, a double product would round).
struct PairCounts {
    Ball R, N, RR, NN, RN;
};
PairCounts pair_counts(std::int64_t R, std::int64_t N) {
    PairCounts k{detail::integer_ball(R), detail::integer_ball(N), {}, {}, {}};
    k.RR = k.R * detail::integer_ball(R - 1);
    k.NN = k.N * detail::integer_ball(N - 1);
    k.RN = detail::integer_ball(2) * k.R * k.N;
    return k;
}

// The outer integrand (theory.md (4.3)) from both classes' moments: j and E[A_I].
// Terms with a zero coefficient are skipped (their exponent may be negative).
template <class T>
void combine(const Mom<T>& I, const Mom<T>& N, std::int64_t R, std::int64_t Nn, const T& c2, const T& c3, T& j,
             T& mass) {
    const T one = [] {
        if constexpr (std::is_same_v<T, Jet>) return constant(Ball(1.0));
        else return constant_maj(Ball(1.0));
    }();
    // Powers M^{n-2}, M^{n-1}, M^n of a class of n tokens (only those with n - k >= 0).
    auto powers = [&](const T& M, std::int64_t n, T (&p)[3]) {
        if (n >= 2) {
            p[2] = pow(M, static_cast<std::uint64_t>(n - 2));
            p[1] = p[2] * M;
            p[0] = p[1] * M;
        } else if (n == 1) {
            p[1] = one;
            p[0] = M;
            p[2] = one;  // unused: its coefficient n (n - 1) is 0
        } else {
            p[0] = p[1] = p[2] = one;
        }
    };
    T pI[3], pN[3];  // pI[k] = M_I^{R-k}
    powers(I.M, R, pI);
    powers(N.M, Nn, pN);
    const PairCounts k = pair_counts(R, Nn);
    const Ball &Rb = k.R, &Nb = k.N, &RR = k.RR, &NN = k.NN, &RN = k.RN;
    T t1 = Ball(0.0) * one, t2 = t1, t3 = t1;
    mass = t1;
    if (R >= 1) {
        const T P10 = pI[1] * pN[0];
        t1 = t1 + Rb * (I.Bu * P10);
        t2 = t2 + Rb * (I.B1 * P10);
        t3 = t3 + Rb * (I.B1 * P10);
        mass = Rb * (I.A1 * P10);
    }
    if (Nn >= 1) {
        const T P01 = pI[0] * pN[1];
        t1 = t1 + Nb * (N.Bu * P01);
        t3 = t3 + Nb * (N.B1 * P01);
    }
    if (R >= 2) {
        const T P20 = pI[2] * pN[0];
        t1 = t1 + RR * (I.Au * I.Au * P20);
        t2 = t2 + RR * (I.A1 * I.A1 * P20);
    }
    if (Nn >= 2) t1 = t1 + NN * (N.Au * N.Au * (pI[0] * pN[2]));
    if (R >= 1 && Nn >= 1) t1 = t1 + RN * (I.Au * N.Au * (pI[1] * pN[1]));
    j = t1 + c2 * t2 + c3 * t3;
}

// Gauss-Legendre nodes and weights on [-1, 1] at a precision, computed once (Arb's rigorous roots).
struct GLRule {
    std::vector<Ball> x, w;
};
const GLRule& gauss_legendre(int n, slong prec) {
    static std::mutex mu;
    static std::map<std::pair<int, slong>, GLRule> cache;
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find({n, prec});
    if (it != cache.end()) return it->second;
    GLRule r;
    r.x.resize(static_cast<std::size_t>(n));
    r.w.resize(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k)
        arb_hypgeom_legendre_p_ui_root(r.x[static_cast<std::size_t>(k)].v, r.w[static_cast<std::size_t>(k)].v,
                                       static_cast<ulong>(n), static_cast<ulong>(k), prec);
    return cache.emplace(std::make_pair(n, prec), std::move(r)).first->second;
}

// The trapezoid nodes of one class: E_k = e^{mu + tau z_k - c}, w_k = h phi(z_k), u_k = s_k / beta,
// with the class's own step h, range K h and strip half-width bz (class N's grid depends on the
// model only, so its sums can be shared across rho cells: EnclosureCache).
struct ClassNodes {
    bool present = false;
    bool jets = false;          // class I: depends on rho
    double h = 0, bz = 0;       // step and strip half-width of the trapezoid rule
    int K = 0;                  // nodes z = k h, |k| <= K
    double mu_abs = 0;          // |mu| on the Cauchy disc (0 for class N)
    std::vector<Ball> E, w, u;
};

constexpr double kPi = std::numbers::pi;

// E[(a0 + a1 |Z|)^p] for p <= 2, Z standard normal.
Ball abs_moment(const Ball& a0, const Ball& a1, int p) {
    const Ball s = sqrt(Ball(2.0) / detail::pi_ball());  // E|Z|
    if (p == 0) return Ball(1.0);
    if (p == 1) return a0 + a1 * s;
    return a0 * a0 + 2.0 * a0 * a1 * s + a1 * a1;
}
// int_Z^inf (a0 + a1 z)^p phi(z) dz <= (a0/Z + a1)^p Z^p phi(Z) / (Z - p/Z)   (Z^2 > p).
Ball gauss_tail(const Ball& a0, const Ball& a1, int p, double Z) {
    const Ball Zb(Z);
    const Ball f = pow_ui(a0 / Zb + a1, static_cast<ulong>(p)) * pow_ui(Zb, static_cast<ulong>(p));
    return f * detail::normal_pdf(Zb) / (Zb - Ball(static_cast<double>(p)) / Zb);
}

// Bounds of one class's moments: uniform on the strip (F: magnitudes, D: inner errors) and the
// sums that give the panel-local bounds |x| <= |t| e^{Re s - c} (theory.md section 11.3).
struct ClassMaj {
    Mom<Maj> uni;             // uniform in lambda
    Ball S1, S2, SU1, SU2;    // >= E|e^{s-c}|, E|e^{s-c}|^2, E|u e^{s-c}|, E|u e^{s-c}|^2 (both rules, disc in rho)
};

struct Setup {
    std::int64_t R = 0, N = 0;
    Ball Th, Sg, Be, tau, P, mu0, b, c2j[3], c3;
    double c = 0, r = 1, mu_abs = 0, mu_min = 0, tau_max = 0, beta_min = 0, bt_max = 0;
    ClassNodes I, Nc;
    ClassMaj majI, majN;
};

}  // namespace

// Class N's trapezoid sums at the outer nodes, shared by the enclosures of one model.
struct EnclosureCache::Impl {
    std::mutex mu;
    std::map<std::vector<double>, std::array<Ball, 5>> sums;  // key: nuisance_key
};

EnclosureCache::EnclosureCache() : impl_(std::make_unique<Impl>()) {}
EnclosureCache::~EnclosureCache() = default;
std::size_t EnclosureCache::size() const {
    std::lock_guard<std::mutex> lock(impl_->mu);
    return impl_->sums.size();
}

namespace {

// Everything class N's sums at an outer node depend on (they do not depend on theta or rho).
std::vector<double> nuisance_key(const ModelCell& cell, const Setup& s, double centre, int n, int i) {
    return {static_cast<double>(detail::ball_prec), s.c, s.Nc.h, static_cast<double>(s.Nc.K), cell.sigma.lo,
            cell.sigma.hi, cell.beta.lo, cell.beta.hi, centre, static_cast<double>(n), static_cast<double>(i)};
}

// Sums the trapezoid rule of one class at one real (ball) lambda, with rho-jets when cls.jets.
// With x(eps) = y e^{b eps} and D = x d/dx, the jet of g(x) is (g, b Dg, b^2 D^2 g / 2):
// for m = 1 - e^{-x}: Dm = x e^{-x}, D^2 m = (1 - y) y e^{-y}; for x^q e^{-x}:
// D g = (q - y) g, D^2 g = ((q - y)^2 - y) g. The factors b, b^2/2 and theta (du/drho) are
// common to all nodes and applied after the sums.
void class_moments(const ClassNodes& cls, const Ball& t, const Ball& b, const Ball& theta, Mom<Jet>& out) {
    const slong prec = detail::ball_prec;
    enum { m0, g1, g1o, g1q, g2, g2o, g2q, ug1, ug1o, ug1q, ug2, ug2o, uug2, uug2o, uug2q, count };
    Ball S[count];
    for (auto& x : S) arb_zero(x.v);
    Ball y, ex, om, wg1, wg2, o1, o2, P, Q, tmp, uw;
    for (std::size_t k = 0; k < cls.E.size(); ++k) {
        const arb_struct* w = cls.w[k].v;
        const arb_struct* u = cls.u[k].v;
        arb_mul(y.v, t.v, cls.E[k].v, prec);
        arb_neg(tmp.v, y.v);
        arb_expm1(om.v, tmp.v, prec);      // e^{-y} - 1
        arb_add_ui(ex.v, om.v, 1, prec);   // e^{-y}
        arb_neg(om.v, om.v);               // 1 - e^{-y}, no cancellation for tiny y
        arb_addmul(S[m0].v, w, om.v, prec);
        arb_mul(wg1.v, y.v, ex.v, prec);
        arb_mul(wg1.v, wg1.v, w, prec);    // w y e^{-y}
        arb_mul(wg2.v, wg1.v, y.v, prec);  // w y^2 e^{-y}
        arb_add(S[g1].v, S[g1].v, wg1.v, prec);
        arb_add(S[g2].v, S[g2].v, wg2.v, prec);
        arb_mul(tmp.v, u, wg1.v, prec);
        arb_add(S[ug1].v, S[ug1].v, tmp.v, prec);
        arb_mul(tmp.v, u, wg2.v, prec);
        arb_add(S[ug2].v, S[ug2].v, tmp.v, prec);
        arb_addmul(S[uug2].v, u, tmp.v, prec);
        if (!cls.jets) continue;
        arb_sub_ui(o1.v, y.v, 1, prec);
        arb_neg(o1.v, o1.v);               // 1 - y
        arb_sub_ui(o2.v, y.v, 2, prec);
        arb_neg(o2.v, o2.v);               // 2 - y
        arb_mul(P.v, o1.v, wg1.v, prec);
        arb_add(S[g1o].v, S[g1o].v, P.v, prec);
        arb_addmul(S[ug1o].v, u, P.v, prec);
        arb_mul(Q.v, o1.v, o1.v, prec);
        arb_sub(Q.v, Q.v, y.v, prec);
        arb_mul(Q.v, Q.v, wg1.v, prec);
        arb_add(S[g1q].v, S[g1q].v, Q.v, prec);
        arb_addmul(S[ug1q].v, u, Q.v, prec);
        arb_mul(P.v, o2.v, wg2.v, prec);
        arb_add(S[g2o].v, S[g2o].v, P.v, prec);
        arb_mul(uw.v, u, P.v, prec);
        arb_add(S[ug2o].v, S[ug2o].v, uw.v, prec);
        arb_addmul(S[uug2o].v, u, uw.v, prec);
        arb_mul(Q.v, o2.v, o2.v, prec);
        arb_sub(Q.v, Q.v, y.v, prec);
        arb_mul(Q.v, Q.v, wg2.v, prec);
        arb_mul(uw.v, u, Q.v, prec);
        arb_addmul(S[uug2q].v, u, uw.v, prec);
        arb_add(S[g2q].v, S[g2q].v, Q.v, prec);
    }
    const Ball zero(0.0);
    out.M = {{Ball(1.0) - S[m0], zero, zero}};
    out.A1 = {{S[g1], zero, zero}};
    out.B1 = {{S[g2], zero, zero}};
    out.Au = {{S[ug1], zero, zero}};
    out.Bu = {{S[uug2], zero, zero}};
    if (!cls.jets) return;
    const Ball b2h = b * b * 0.5;
    out.M.c[1] = -(b * S[g1]);
    out.M.c[2] = -(b2h * S[g1o]);
    out.A1.c[1] = b * S[g1o];
    out.A1.c[2] = b2h * S[g1q];
    out.B1.c[1] = b * S[g2o];
    out.B1.c[2] = b2h * S[g2q];
    // u = u_k + theta eps.
    out.Au.c[1] = b * S[ug1o] + theta * S[g1];
    out.Au.c[2] = b2h * S[ug1q] + theta * b * S[g1o];
    out.Bu.c[1] = b * S[uug2o] + 2.0 * theta * S[ug2];
    out.Bu.c[2] = b2h * S[uug2q] + 2.0 * theta * b * S[ug2o] + theta * theta * S[g2];
}

Mom<Jet> absent_class() {
    Mom<Jet> m;
    m.M = constant(Ball(1.0));
    m.A1 = m.B1 = m.Au = m.Bu = constant(Ball(0.0));
    return m;
}

// The discretised outer integrand at lambda: jets of j and E[A_I]; class N's moments from
// `nuis` when given (the cache), else computed.
void integrand(const Setup& s, const Ball& lambda, const Mom<Jet>* nuis, Jet& j, Jet& mass) {
    const Ball t = exp(lambda);
    Mom<Jet> I = absent_class(), N = absent_class();
    if (s.I.present) class_moments(s.I, t, s.b, s.Th, I);
    if (nuis) N = *nuis;
    else if (s.Nc.present) class_moments(s.Nc, t, s.b, s.Th, N);
    const Jet c2{{s.c2j[0], s.c2j[1], s.c2j[2]}};
    combine(I, N, s.R, s.N, c2, constant(s.c3), j, mass);
}

// Magnitude bounds (F) and inner errors (D) of one class's moments, uniform on the strip, and
// the sums of the panel-local bounds; see theory.md sections 11.2-11.3.
ClassMaj class_majorants(const ClassNodes& cls, const Setup& s) {
    ClassMaj out;
    const Ball e = exp(Ball(1.0));
    const Ball C0(2.0), C1 = Ball(2.0) / e, C2 = (Ball(4.0) / e) * (Ball(4.0) / e);
    const Ball a0 = Ball(cls.mu_abs) / Ball(s.beta_min), a1 = Ball(s.tau_max) / Ball(s.beta_min);
    // A complex rho' within r moves Re mu by at most b r: |e^{s - c}| <= E_k e^{b r}.
    const Ball ebr = cls.jets ? exp(Ball(s.bt_max) * Ball(s.r)) : Ball(1.0);
    Ball W(0.0), U1(0.0), U2(0.0), S1(0.0), S2(0.0), SU1(0.0), SU2(0.0);
    const double Z = cls.K * cls.h;
    for (std::size_t k = 0; k < cls.w.size(); ++k) {
        const double z = std::abs((static_cast<double>(k) - cls.K) * cls.h);
        const Ball uk = a0 + a1 * Ball(z);
        const Ball& wk = cls.w[k];
        const Ball Ek = abs(cls.E[k]) * ebr, wE = wk * Ek, wE2 = wE * Ek;
        W += wk;
        U1 += wk * uk;
        U2 += wk * uk * uk;
        S1 += wE;
        S2 += wE2;
        SU1 += wE * uk;
        SU2 += wE2 * uk * uk;
    }
    const Ball Wm = Ball(std::max(1.0, upper(W)));
    const Ball U1m = Ball(std::max(upper(U1), upper(abs_moment(a0, a1, 1))));
    const Ball U2m = Ball(std::max(upper(U2), upper(abs_moment(a0, a1, 2))));
    // Trapezoid error of the infinite rule: 2 N_b / (e^{2 pi b / h} - 1), N_b <= e^{b^2/2} C E[(a0' + a1 |Z|)^p]
    // with a0' = a0 + a1 b (|Im z| <= b); dropped nodes: twice the Gaussian tail beyond Z = K h.
    const Ball bb(cls.bz), hb(cls.h);
    const Ball denom = exp(2.0 * detail::pi_ball() * bb / hb) - Ball(1.0);
    const Ball eb = exp(bb * bb * 0.5);
    const Ball a0b = a0 + a1 * bb;
    auto delta = [&](const Ball& C, int p) {
        return C * (2.0 * eb * abs_moment(a0b, a1, p) / denom + 2.0 * gauss_tail(a0, a1, p, Z));
    };
    const Ball Mabs = abs(Ball(1.0) - W) + W;
    out.uni.M = {Ball(std::max(1.0, upper(Mabs))), delta(C0, 0)};
    out.uni.A1 = {C1 * Wm, delta(C1, 0)};
    out.uni.B1 = {C2 * Wm, delta(C2, 0)};
    out.uni.Au = {C1 * U1m, delta(C1, 1)};
    out.uni.Bu = {C2 * U2m, delta(C2, 2)};
    // The same moments of the exact rule (closed-form Gaussian moments of e^{s - c}, e^{2(s - c)}).
    const Ball tm(s.tau_max);
    const Ball e1 = exp(Ball(cls.mu_abs) - Ball(s.c) + tm * tm * 0.5);
    const Ball e2 = exp(2.0 * (Ball(cls.mu_abs) - Ball(s.c)) + 2.0 * tm * tm);
    out.S1 = Ball(std::max(upper(S1), upper(e1)));
    out.S2 = Ball(std::max(upper(S2), upper(e2)));
    out.SU1 = Ball(std::max(upper(SU1), upper(e1 * abs_moment(a0 + a1 * tm, a1, 1))));
    out.SU2 = Ball(std::max(upper(SU2), upper(e2 * abs_moment(a0 + 2.0 * a1 * tm, a1, 2))));
    return out;
}

ClassMaj absent_maj() {
    ClassMaj m;
    m.uni.M = {Ball(1.0), Ball(0.0)};
    m.uni.A1 = m.uni.B1 = m.uni.Au = m.uni.Bu = {Ball(0.0), Ball(0.0)};
    m.S1 = m.S2 = m.SU1 = m.SU2 = Ball(0.0);
    return m;
}

// log cos of the largest |arg x|: real lambda (rho' within r moves arg x by at most pi/12), and
// a panel's Bernstein ellipse (|Im lambda| <= 0.7466 more): cos(1.0081) = 0.5344.
constexpr double kLogCosReal = -0.035;   // log cos(pi/12) = -0.03466
constexpr double kLogCosPanel = -0.63;   // log 0.5344 = -0.6266
constexpr double kSemiMajor = 0.9;       // the ellipse's half-length 0.5 (3.29 + 1/3.29)/2 = 0.8985

// Upper bound of |M_c(t)| for every rho' within r of the cell and |t| >= e^lambda with
// |arg x| as `logcos` allows: Re x >= |t| cos(arg x) e^{Re s - c} and the rule is decreasing in
// Re x, so |M| <= |1 - W| + sum w e^{-Re x} at the smallest Re x, plus the rule's error.
double M_upper(const ClassNodes& cls, double lambda, double mu_shift, double logcos, const Ball& delta) {
    if (!cls.present) return 0.0;
    const Ball t = exp(Ball(lambda + logcos + mu_shift));
    Ball msum(0.0), y, tmp, om;
    for (std::size_t k = 0; k < cls.E.size(); ++k) {
        arb_mul(y.v, t.v, cls.E[k].v, detail::ball_prec);
        arb_neg(tmp.v, y.v);
        arb_exp(om.v, tmp.v, detail::ball_prec);
        arb_addmul(msum.v, cls.w[k].v, om.v, detail::ball_prec);
    }
    Ball W(0.0);
    for (const auto& w : cls.w) W += w;
    Ball M = abs(Ball(1.0) - W) + msum;
    add_error(M, delta);
    return std::min(1.0, upper(M));
}

// The crude bound Phi((c - lambda'/2 - mu')/tau) + exp(-e^{lambda/2}) at lambda' (upper, as a ball).
Ball crude_M(const Setup& s, double lambda, double mu_min) {
    const double lp = lambda + kLogCosReal;
    const Ball w = (Ball(s.c) - Ball(lp) * 0.5 - Ball(mu_min)) / s.tau;
    return detail::normal_cdf(w) + exp(-exp(Ball(lp) * 0.5));
}

// Class I's t-shift to its smallest Re mu (M decreases in mu).
double mu_shift_I(const Setup& s) { return s.mu_min - upper(s.mu0); }

// Bounds of one class's moments on the Bernstein ellipse of the panel centred at lambda_c:
// |x e^{-x}| <= |x| (Re x >= 0) and |M| from M_upper where the panel is right of 0.
Mom<Maj> panel_majorants(const ClassNodes& cls, const ClassMaj& m, const Setup& s, double centre) {
    Mom<Maj> out = m.uni;
    if (!cls.present) return out;
    const Ball T = exp(Ball(centre + kSemiMajor)), T2 = T * T;
    auto cap = [](Maj& x, const Ball& b) {
        if (upper(b) < upper(x.F)) x.F = Ball(upper(b));
    };
    cap(out.A1, T * m.S1);
    cap(out.B1, T2 * m.S2);
    cap(out.Au, T * m.SU1);
    cap(out.Bu, T2 * m.SU2);
    if (centre - kSemiMajor > -2.0) {
        const double mb = M_upper(cls, centre - kSemiMajor, cls.jets ? mu_shift_I(s) : 0.0, kLogCosPanel, m.uni.M.D);
        if (mb < upper(out.M.F)) out.M.F = Ball(mb);
    }
    return out;
}

// Step h and range K h of one class's trapezoid rule for a target delta_t of its errors (only
// the cost depends on these choices, never the rigour: the bounds are computed for the h, K chosen).
void choose_grid(ClassNodes& cls, double delta_t, const Setup& s) {
    const double a = 1 + cls.mu_abs + 3 * s.tau_max;
    const double Cmax = 16.0 / (std::numbers::e * std::numbers::e) * a * a / (s.beta_min * s.beta_min);
    const double bmax = 0.999 * kPi / (4 * s.tau_max);
    double bz = bmax, h = 0.1;
    for (int it = 0; it < 3; ++it) {
        const double b = std::min(bz, 2 * kPi / h);
        h = 2 * kPi * b / (std::log(2 * std::exp(0.5 * b * b) * Cmax / delta_t + 1) + b * b / 2);
        bz = std::min(bmax, 2 * kPi / h);
    }
    cls.h = std::max(1.0, std::floor(h * 4096)) / 4096;  // dyadic: every node k h is exact
    cls.bz = std::min(bmax, 2 * kPi / cls.h);
    double Z = 3.0;
    while (Z < 60 && Cmax * std::pow(Z + 1, 2) * std::exp(-0.5 * Z * Z) > 0.1 * delta_t) Z += 0.25;
    cls.K = static_cast<int>(std::ceil(Z / cls.h));
}

void make_nodes(ClassNodes& cls, const Setup& s, const Ball& mu) {
    const auto n = static_cast<std::size_t>(2 * cls.K + 1);
    cls.E.resize(n);
    cls.w.resize(n);
    cls.u.resize(n);
    const Ball hb(cls.h);
    for (std::size_t k = 0; k < n; ++k) {
        const Ball z((static_cast<double>(k) - cls.K) * cls.h);  // exact: h is a multiple of 2^-12
        const Ball sk = mu + s.tau * z;
        cls.E[k] = exp(sk - Ball(s.c));
        cls.w[k] = hb * detail::normal_pdf(z);
        cls.u[k] = sk / s.Be;
    }
}

// Both classes' nodes and bounds for the inner target delta_t.
void build_classes(Setup& s, double delta_t) {
    if (s.I.present) {
        choose_grid(s.I, delta_t, s);
        make_nodes(s.I, s, s.mu0);
        s.majI = class_majorants(s.I, s);
    }
    if (s.Nc.present) {
        choose_grid(s.Nc, delta_t, s);
        make_nodes(s.Nc, s, Ball(0.0));
        s.majN = class_majorants(s.Nc, s);
    }
}

// The lambda range [lo, hi] and the bounds of the dropped tails of j and E[A_I] (section 11.4).
struct Tails {
    double lo = 0, hi = 0;
    Ball left_j, left_m, right_j, right_m;
};

// Bounds with M <= 1 and no inner errors: the constants C_X of the tails.
Mom<Maj> without_M(const ClassMaj& m) {
    Mom<Maj> z = m.uni;
    z.M = {Ball(1.0), Ball(0.0)};
    for (auto* x : {&z.A1, &z.B1, &z.Au, &z.Bu}) x->D = Ball(0.0);
    return z;
}

// Left tail: |moment| <= t^k (Gaussian moment); |M| <= 1. The integrand is O(e^{2 lambda}).
Mom<Maj> left_moments(const ClassNodes& cls, const ClassMaj& m) {
    Mom<Maj> out = without_M(m);
    if (!cls.present) return out;
    out.A1.F = m.S1;
    out.B1.F = m.S2;
    out.Au.F = m.SU1;
    out.Bu.F = m.SU2;
    return out;
}

Tails tails(const Setup& s, std::int64_t L, const Maj& c2m, const Maj& c3m, double target, double rinv2) {
    Tails tl;
    Maj cx, cxm, cl, clm;
    combine(without_M(s.majI), without_M(s.majN), s.R, s.N, c2m, c3m, cx, cxm);
    combine(left_moments(s.I, s.majI), left_moments(s.Nc, s.majN), s.R, s.N, c2m, c3m, cl, clm);
    const double Cl = upper(cl.F);
    tl.lo = std::floor(0.5 * std::log(std::max(1e-300, 2 * target / 4 / (std::max(Cl, 1e-300) * rinv2))));
    // E[A_I]'s integrand decays only like e^{lambda}: its left tail is left at what lambda_- gives
    // for j (about 1e-7 relative), rather than doubling the panels (theory.md section 11.4).
    tl.lo = std::clamp(tl.lo, -400.0, -1.0);
    tl.left_j = cl.F * exp(Ball(2.0 * tl.lo)) * 0.5;
    tl.left_m = clm.F * exp(Ball(tl.lo));

    // Right tail: |integrand| <= C_X Mb(lambda)^{L-2}, Mb decreasing; beyond lambda* the crude bound.
    const std::uint64_t Lm2 = static_cast<std::uint64_t>(L - 2);
    auto right_bound = [&](double lp) {
        const double mb = std::min(1.0, std::max(M_upper(s.I, lp, mu_shift_I(s), kLogCosReal, s.majI.uni.M.D),
                                                  M_upper(s.Nc, lp, 0.0, kLogCosReal, s.majN.uni.M.D)));
        double ls = lp;
        const double mumin = std::min(s.mu_min, 0.0);
        while (ls < 400 && upper(crude_M(s, ls, mumin)) > 0.5) ls += 1;
        const Ball q = crude_M(s, ls, mumin);
        const double lsp = ls + kLogCosReal;
        const Ball w = (Ball(s.c) - Ball(lsp) * 0.5 - Ball(mumin)) / s.tau;
        const Ball v = exp(Ball(lsp) * 0.5);
        // int_{l*}^inf Phi(w(l)) dl = 2 tau (w* Phi(w*) + phi(w*)); int e^{-e^{l'/2}} <= 2 e^{-v*}/v*
        // (the shift lambda' = lambda - 0.035 only moves the range, the integrals are over lambda').
        const Ball far = s.tau * 2.0 * (w * detail::normal_cdf(w) + detail::normal_pdf(w)) + 2.0 * exp(-v) / v;
        const Ball qpow = Lm2 >= 1 ? pow_ui(q, Lm2 - 1) : Ball(1.0);
        return pow_ui(Ball(mb), Lm2) * Ball(ls - lp) + qpow * far;
    };
    tl.hi = 1.0;
    Ball rb = right_bound(tl.hi);
    while (tl.hi < 300 && upper(cx.F * rb) * rinv2 > target / 4) {
        tl.hi += 1.0;
        rb = right_bound(tl.hi);
    }
    tl.right_j = cx.F * rb;
    tl.right_m = cxm.F * rb;
    return tl;
}

// Outer Gauss-Legendre panels of width 1: each with its own order n from bounds of the
// integrand on its Bernstein ellipse (rho_e = 3.29, semi-minor axis 0.7466 < pi/4).
constexpr double kRhoE = 3.29;
struct Panel {
    double centre = 0;
    int n = 0;
    Ball outer_j, outer_m, inner_j, inner_m;  // GL error bounds and integrated inner errors
    double Fj = 0;                            // the bound of j's integrand on the ellipse (tests)
};

Ball gl_factor(int n) {
    const Ball re(kRhoE);
    return Ball(0.5) * Ball(64.0) / Ball(15.0) / ((re * re - Ball(1.0)) * pow_ui(re, static_cast<ulong>(2 * n)));
}

std::vector<Panel> plan_panels(const Setup& s, const Tails& tl, const Maj& c2m, const Maj& c3m, double target,
                               double rinv2) {
    const int count = static_cast<int>(tl.hi - tl.lo);
    const double per_panel = target / 4 / count;
    std::vector<Panel> out(static_cast<std::size_t>(count));
    for (int p = 0; p < count; ++p) {
        Panel& P = out[static_cast<std::size_t>(p)];
        P.centre = tl.lo + p + 0.5;
        Maj jm, mm;
        combine(panel_majorants(s.I, s.majI, s, P.centre), panel_majorants(s.Nc, s.majN, s, P.centre), s.R, s.N, c2m,
                c3m, jm, mm);
        const double M = std::max(upper(jm.F) * rinv2, upper(mm.F));
        int n = 4;
        while (n < 400 && 0.5 * 64.0 / 15.0 * M / ((kRhoE * kRhoE - 1) * std::pow(kRhoE, 2 * n)) > per_panel) n += 2;
        P.n = n;
        P.Fj = upper(jm.F);
        const Ball g = gl_factor(n);
        P.outer_j = g * jm.F;
        P.outer_m = g * mm.F;
        P.inner_j = jm.D;  // panel width 1
        P.inner_m = mm.D;
    }
    return out;
}

// Class N's moments at node i of a panel: from the cache, or computed and stored.
Mom<Jet> nuisance_moments(const ModelCell& cell, const Setup& s, const Panel& P, int i, const Ball& lam,
                          EnclosureCache::Impl* cache) {
    Mom<Jet> N = absent_class();
    if (!s.Nc.present) return N;
    std::vector<double> key;
    if (cache) {
        key = nuisance_key(cell, s, P.centre, P.n, i);
        std::lock_guard<std::mutex> lock(cache->mu);
        if (auto it = cache->sums.find(key); it != cache->sums.end()) {
            const auto& v = it->second;
            N.M = constant(v[0]);
            N.A1 = constant(v[1]);
            N.B1 = constant(v[2]);
            N.Au = constant(v[3]);
            N.Bu = constant(v[4]);
            return N;
        }
    }
    class_moments(s.Nc, exp(lam), s.b, s.Th, N);
    if (cache) {
        std::lock_guard<std::mutex> lock(cache->mu);
        cache->sums.emplace(std::move(key), std::array<Ball, 5>{N.M.c[0], N.A1.c[0], N.B1.c[0], N.Au.c[0], N.Bu.c[0]});
    }
    return N;
}

}  // namespace

double detail::gaussian_tail_upper(double a0, double a1, int p, double Z) {
    detail::ball_prec = 128;
    return upper(gauss_tail(Ball(a0), Ball(a1), p, Z));
}

double detail::trapezoid_error_upper(double C, double a0, double a1, int p, double b, double h) {
    detail::ball_prec = 128;
    const Ball bb(b), a1b(a1);
    const Ball denom = exp(2.0 * detail::pi_ball() * bb / Ball(h)) - Ball(1.0);
    return upper(Ball(C) * 2.0 * exp(bb * bb * 0.5) * abs_moment(Ball(a0) + a1b * bb, a1b, p) / denom);
}

// FLINT and Arb keep per-thread caches (constants such as pi, GMP limbs) that only
// flint_cleanup() frees: a thread-local guard frees them when a thread that computed an
// enclosure ends (LeakSanitizer reported them for the worker threads of every prove run).
namespace {
struct FlintThreadCleanup {
    ~FlintThreadCleanup() { flint_cleanup(); }
};
void flint_cleanup_at_thread_exit() {
    thread_local FlintThreadCleanup guard;
    (void)guard;
}
}  // namespace

namespace {

// The cell's balls and the floating-point choices that only steer the cost.
Setup make_setup(const ModelCell& cell, Interval rho) {
    Setup s;
    s.R = cell.R;
    s.N = cell.L - cell.R;
    s.Th = detail::interval(cell.theta.lo, cell.theta.hi);
    s.Sg = detail::interval(cell.sigma.lo, cell.sigma.hi);
    s.Be = detail::interval(cell.beta.lo, cell.beta.hi);
    s.tau = s.Be * s.Sg;
    s.P = detail::interval(rho.lo, rho.hi);
    s.b = s.Be * s.Th;
    s.mu0 = s.b * s.P;
    // c2 = theta^2 (1 - rho^2) as a jet in eps: theta^2 ((1 - rho0^2), -2 rho0, -1).
    const Ball th2 = s.Th * s.Th;
    s.c2j[0] = th2 * (Ball(1.0) - s.P * s.P);
    s.c2j[1] = th2 * s.P * (-2.0);
    s.c2j[2] = -th2;
    s.c3 = Ball(static_cast<double>(cell.d - 1)) * s.Sg * s.Sg;
    const ModelParams mid = cell.mid();
    // The Laplace shift at mu rounded to a multiple of 2: the same for most cells of a model,
    // so that class N's sums can be shared (it only centres the lambda range).
    const double mu_q = 2 * std::round(0.5 * mid.beta * mid.theta * 0.5 * (rho.lo + rho.hi));
    s.c = detail::laplace_shift(s.R, s.N, mu_q, mid.tau());
    s.tau_max = upper(s.tau);
    s.beta_min = cell.beta.lo;
    s.bt_max = upper(s.b);
    s.r = s.bt_max > 0 ? 0.999 * kPi / (12 * s.bt_max) : 1.0;
    const double rho_abs = std::max(std::abs(rho.lo), std::abs(rho.hi));
    const Ball reach = Ball(rho_abs) + Ball(s.r);  // |rho'| on the Cauchy disc, in balls: no rounding inwards
    s.mu_abs = upper(s.b * reach);
    s.mu_min = lower(s.b * s.P - Ball(s.bt_max) * Ball(s.r));  // smallest Re mu on the Cauchy disc
    s.mu_min = std::min(s.mu_min, lower((Ball(rho.lo) - Ball(s.r)) * s.b));
    s.I.present = s.R > 0;
    s.I.jets = true;
    s.I.mu_abs = s.mu_abs;
    s.Nc.present = s.N > 0;
    s.majI = s.majN = absent_maj();
    return s;
}

// The scale of j (a floating-point estimate, only to set the targets; rigour does not rest on
// it), as a power of two: the choices (and so the enclosure's bits) do not move with the last
// digits of the estimate, whatever the machine.
double j_scale(const ModelCell& cell, Interval rho) {
    try {
        const double rho_mid = 0.5 * (rho.lo + rho.hi);
        const double j = std::max(1e-300, std::abs(exact_field(cell.mid(), std::clamp(rho_mid, -1.0, 1.0)).j));
        return std::ldexp(1.0, static_cast<int>(std::floor(std::log2(j))));
    } catch (const std::exception&) {
        return 1.0;
    }
}

}  // namespace

namespace {

// Everything an enclosure integrates: the cell's balls and grids, the lambda range and tails,
// and the outer panels with their orders and error bounds.
struct Plan {
    Setup s;
    Tails tl;
    std::vector<Panel> panels;
};

Plan make_plan(const ModelCell& cell, Interval rho, const RigorousParams& params) {
    cell.validate();
    params.validate();
    require(std::isfinite(rho.lo) && std::isfinite(rho.hi) && rho.lo <= rho.hi, "rho", rho.lo,
            "a finite interval with lo <= hi");
    require_in("rho.lo", rho.lo, -1.0, 1.0);
    require_in("rho.hi", rho.hi, -1.0, 1.0);
    detail::ball_prec = params.precision;
    Plan pl;
    Setup& s = pl.s;
    s = make_setup(cell, rho);
    const double target = params.rel_tol * j_scale(cell, rho);
    const double rinv2 = std::max(1.0, 1.0 / (s.r * s.r));
    // c2 magnitude on the disc: theta^2 (1 + (|rho| + r)^2).
    const double rho_abs = std::max(std::abs(rho.lo), std::abs(rho.hi));
    const Ball th2 = s.Th * s.Th;
    const Ball reach = Ball(rho_abs) + Ball(s.r);
    const Maj c2m{Ball(upper(th2 * (Ball(1.0) + reach * reach))), Ball(0.0)};
    const Maj c3m = constant_maj(s.c3);

    // Inner target delta_t: first guessed, then rescaled once by the measured sensitivity of j
    // to the inner errors over the panels, and rounded down to a power of 16 (so that class N's
    // grid is the same for most cells of a model).
    double delta_t = target * 1e-6;
    build_classes(s, delta_t);
    {
        const Tails tl = tails(s, cell.L, c2m, c3m, target, rinv2);
        Ball dsum(0.0);
        for (const Panel& P : plan_panels(s, tl, c2m, c3m, target, rinv2)) dsum += P.inner_j;
        const double sens = upper(dsum) / delta_t * rinv2;
        if (sens > 0 && std::isfinite(sens)) delta_t = std::clamp(target / 8 / sens, 1e-300, 1e-3);
        delta_t = std::ldexp(1.0, 4 * static_cast<int>(std::floor(std::log2(delta_t) / 4)));
        build_classes(s, delta_t);
    }
    pl.tl = tails(s, cell.L, c2m, c3m, target, rinv2);
    pl.panels = plan_panels(s, pl.tl, c2m, c3m, target, rinv2);
    return pl;
}

}  // namespace

std::array<std::string, 3> detail::pair_count_texts(std::int64_t R, std::int64_t N) {
    detail::ball_prec = 128;
    const PairCounts k = pair_counts(R, N);
    std::array<std::string, 3> out;
    const Ball* balls[3] = {&k.RR, &k.NN, &k.RN};
    for (int i = 0; i < 3; ++i) {
        fmpz_t z;
        fmpz_init(z);
        if (arb_get_unique_fmpz(z, balls[i]->v)) {
            char* text = fmpz_get_str(nullptr, 10, z);
            out[static_cast<std::size_t>(i)] = text;
            flint_free(text);
        }
        fmpz_clear(z);
    }
    return out;
}

std::vector<std::array<double, 3>> detail::panel_bounds_and_values(const ModelCell& cell, Interval rho,
                                                                  const RigorousParams& params, int per_panel) {
    const Plan pl = make_plan(cell, rho, params);
    std::vector<std::array<double, 3>> out;
    for (const Panel& P : pl.panels)
        for (int i = 0; i < per_panel; ++i) {
            const double lam = P.centre - 0.5 + (i + 0.5) / per_panel;
            Jet jj, mm;
            integrand(pl.s, Ball(lam), nullptr, jj, mm);
            out.push_back({lam, P.Fj, abs_upper(jj.c[0])});
        }
    return out;
}

namespace {
// The enclosure and dE[A_I]/drho (both from one pass over the outer nodes).
std::pair<FieldEnclosure, Interval> enclose_all(const ModelCell& cell, Interval rho, const RigorousParams& params,
                                                EnclosureCache* cache) {
    flint_cleanup_at_thread_exit();
    const Plan pl = make_plan(cell, rho, params);
    const Setup& s = pl.s;
    const Tails& tl = pl.tl;
    const std::vector<Panel>& panels = pl.panels;
    const slong prec = params.precision;
    Jet jsum = constant(Ball(0.0)), msum = constant(Ball(0.0));
    Ball outer_j(0.0), outer_m(0.0), inner_j(0.0), inner_m(0.0);
    int evals = 0;
    for (const Panel& P : panels) {
        const GLRule& gl = gauss_legendre(P.n, prec);
        const Ball centre(P.centre);
        for (int i = 0; i < P.n; ++i) {
            const Ball lam = centre + Ball(0.5) * gl.x[static_cast<std::size_t>(i)];
            const Mom<Jet> N = nuisance_moments(cell, s, P, i, lam, cache ? &cache->impl() : nullptr);
            Jet jj, mm;
            integrand(s, lam, &N, jj, mm);
            ++evals;
            const Ball w = Ball(0.5) * gl.w[static_cast<std::size_t>(i)];
            add_scaled(jsum, w, jj);
            add_scaled(msum, w, mm);
        }
        outer_j += P.outer_j;
        outer_m += P.outer_m;
        inner_j += P.inner_j;
        inner_m += P.inner_m;
    }
    // Errors of jet coefficient k (= f^{(k)}/k!): Cauchy's factor r^{-k}.
    Ball rpow(1.0);
    const Ball rinv = Ball(1.0) / Ball(s.r);
    FieldEnclosure out;
    out.rho = rho;
    out.precision = params.precision;
    Interval* dst[3] = {&out.j, &out.dj, &out.d2j};
    for (int k = 0; k < 3; ++k) {
        Ball v = jsum.c[k];
        add_error(v, rpow * (outer_j + inner_j + tl.left_j + tl.right_j));
        if (k == 2) v = v * 2.0;  // j'' = 2 x (coefficient of eps^2)
        if (!arb_is_finite(v.v)) throw NumericalError(fmt::format("rigorous field: the enclosure of {} is not finite", k == 0 ? "j" : k == 1 ? "j'" : "j''"));
        *dst[k] = {lower(v), upper(v)};
        rpow = rpow * rinv;
    }
    const Ball mass_err = outer_m + inner_m + tl.left_m + tl.right_m;
    Ball mv = msum.c[0];
    add_error(mv, mass_err);
    out.mass = {lower(mv), upper(mv)};
    Ball ms = msum.c[1];
    add_error(ms, rinv * mass_err);
    if (!arb_is_finite(ms.v)) throw NumericalError("rigorous field: the enclosure of dE[A_I]/drho is not finite");
    Interval slope{lower(ms), upper(ms)};
    if (s.R == 0 || upper(s.b) == 0) out.dj = out.d2j = slope = {0.0, 0.0};  // exactly: nothing depends on rho
    out.budget = {upper(inner_j), upper(outer_j), upper(tl.left_j), upper(tl.right_j), tl.lo, tl.hi,
                  s.I.present ? 2 * s.I.K + 1 : 2 * s.Nc.K + 1, evals};
    return {out, slope};
}
}  // namespace

FieldEnclosure enclose_field(const ModelCell& cell, Interval rho, const RigorousParams& params, EnclosureCache* cache) {
    return enclose_all(cell, rho, params, cache).first;
}

Interval enclose_mass_slope(const ModelCell& cell, Interval rho, const RigorousParams& params, EnclosureCache* cache) {
    return enclose_all(cell, rho, params, cache).second;
}

}  // namespace rhoflow
