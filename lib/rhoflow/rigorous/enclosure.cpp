#include "rhoflow/rigorous/enclosure.hpp"

#include <algorithm>
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
    const Ball Rb(static_cast<double>(R)), Nb(static_cast<double>(Nn));
    const Ball RR(static_cast<double>(R) * static_cast<double>(R - 1));
    const Ball NN(static_cast<double>(Nn) * static_cast<double>(Nn - 1));
    const Ball RN(2.0 * static_cast<double>(R) * static_cast<double>(Nn));
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

// The trapezoid nodes of one class: E_k = e^{mu + tau z_k - c}, w_k = h phi(z_k), u_k = s_k / beta.
struct ClassNodes {
    bool present = false;
    bool jets = false;          // class I: depends on rho
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

struct Setup {
    std::int64_t R = 0, N = 0;
    Ball Th, Sg, Be, tau, P, mu0, b, c2j[3], c3;
    double c = 0, r = 1, mu_abs = 0, mu_min = 0, tau_max = 0, beta_min = 0, h = 0, bz = 0;
    int K = 0;
    ClassNodes I, Nc;
    Mom<Maj> majI, majN;   // F: magnitude bounds on the strip; D: inner errors
};

}  // namespace

namespace {

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

// The discretised outer integrand at lambda: jets of j and E[A_I].
void integrand(const Setup& s, const Ball& lambda, Jet& j, Jet& mass) {
    const Ball t = exp(lambda);
    Mom<Jet> I = absent_class(), N = absent_class();
    if (s.I.present) class_moments(s.I, t, s.b, s.Th, I);
    if (s.Nc.present) class_moments(s.Nc, t, s.b, s.Th, N);
    const Jet c2{{s.c2j[0], s.c2j[1], s.c2j[2]}};
    combine(I, N, s.R, s.N, c2, constant(s.c3), j, mass);
}

// Magnitude bounds (F) and inner errors (D) of one class's moments; see theory.md section 11.2.
Mom<Maj> class_majorants(const ClassNodes& cls, double mu_abs, const Setup& s) {
    Mom<Maj> out;
    const Ball e = exp(Ball(1.0));
    const Ball C0(2.0), C1 = Ball(2.0) / e, C2 = (Ball(4.0) / e) * (Ball(4.0) / e);
    const Ball a0 = Ball(mu_abs) / Ball(s.beta_min), a1 = Ball(s.tau_max) / Ball(s.beta_min);
    Ball W(0.0), U1(0.0), U2(0.0);
    const double Z = s.K * s.h;
    for (std::size_t k = 0; k < cls.w.size(); ++k) {
        const double z = std::abs((static_cast<double>(k) - s.K) * s.h);
        const Ball uk = a0 + a1 * Ball(z);
        W += cls.w[k];
        U1 += cls.w[k] * uk;
        U2 += cls.w[k] * uk * uk;
    }
    const Ball Wm = Ball(std::max(1.0, upper(W)));
    const Ball U1m = Ball(std::max(upper(U1), upper(abs_moment(a0, a1, 1))));
    const Ball U2m = Ball(std::max(upper(U2), upper(abs_moment(a0, a1, 2))));
    // Trapezoid error of the infinite rule: 2 N_b / (e^{2 pi b / h} - 1), N_b <= e^{b^2/2} C E[(a0' + a1 |Z|)^p]
    // with a0' = a0 + a1 b (|Im z| <= b); dropped nodes: twice the Gaussian tail beyond Z = K h.
    const Ball bb(s.bz), hb(s.h);
    const Ball denom = exp(2.0 * detail::pi_ball() * bb / hb) - Ball(1.0);
    const Ball eb = exp(bb * bb * 0.5);
    const Ball a0b = a0 + a1 * bb;
    auto delta = [&](const Ball& C, int p) {
        return C * (2.0 * eb * abs_moment(a0b, a1, p) / denom + 2.0 * gauss_tail(a0, a1, p, Z));
    };
    const Ball Mabs = abs(Ball(1.0) - W) + W;
    out.M = {Ball(std::max(1.0, upper(Mabs))), delta(C0, 0)};
    out.A1 = {C1 * Wm, delta(C1, 0)};
    out.B1 = {C2 * Wm, delta(C2, 0)};
    out.Au = {C1 * U1m, delta(C1, 1)};
    out.Bu = {C2 * U2m, delta(C2, 2)};
    return out;
}

Mom<Maj> absent_maj() {
    Mom<Maj> m;
    m.M = {Ball(1.0), Ball(0.0)};
    m.A1 = m.B1 = m.Au = m.Bu = {Ball(0.0), Ball(0.0)};
    return m;
}

// Upper bound of |M_c(e^lambda)| for every rho' within r of the cell (real lambda):
// M at lambda + log cos(pi/12) and the smallest Re mu, by the discretised rule plus its error.
double M_upper(const ClassNodes& cls, const Setup&, double lambda, double mu_shift, const Ball& delta) {
    if (!cls.present) return 0.0;
    const Ball t = exp(Ball(lambda - 0.035 + mu_shift));  // log cos(pi/12) = -0.03466 > -0.035
    Ball msum(0.0), y, tmp, om;
    for (std::size_t k = 0; k < cls.E.size(); ++k) {
        arb_mul(y.v, t.v, cls.E[k].v, detail::ball_prec);
        arb_neg(tmp.v, y.v);
        arb_exp(om.v, tmp.v, detail::ball_prec);
        arb_addmul(msum.v, cls.w[k].v, om.v, detail::ball_prec);
    }
    // M_disc = 1 - sum w (1 - e^{-x}) = (1 - W) + sum w e^{-x}
    Ball W(0.0);
    for (const auto& w : cls.w) W += w;
    Ball M = Ball(1.0) - W + msum;
    add_error(M, delta);
    return std::min(1.0, upper(M));
}

// The crude bound Phi((c - lambda'/2 - mu')/tau) + exp(-e^{lambda'/2}) at lambda' (upper, as a ball).
Ball crude_M(const Setup& s, double lambda, double mu_min) {
    const double lp = lambda - 0.035;
    const Ball w = (Ball(s.c) - Ball(lp) * 0.5 - Ball(mu_min)) / s.tau;
    return detail::normal_cdf(w) + exp(-exp(Ball(lp) * 0.5));
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

FieldEnclosure enclose_field(const ModelCell& cell, Interval rho, const RigorousParams& params) {
    flint_cleanup_at_thread_exit();
    cell.validate();
    params.validate();
    require(std::isfinite(rho.lo) && std::isfinite(rho.hi) && rho.lo <= rho.hi, "rho", rho.lo,
            "a finite interval with lo <= hi");
    require_in("rho.lo", rho.lo, -1.0, 1.0);
    require_in("rho.hi", rho.hi, -1.0, 1.0);
    detail::ball_prec = params.precision;
    const slong prec = params.precision;

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
    const double rho_mid = 0.5 * (rho.lo + rho.hi);
    s.c = detail::laplace_shift(s.R, s.N, mid.beta * mid.theta * rho_mid, mid.tau());
    s.tau_max = upper(s.tau);
    s.beta_min = cell.beta.lo;
    const double bt_max = upper(s.b);
    s.r = bt_max > 0 ? 0.999 * kPi / (12 * bt_max) : 1.0;
    const double rho_abs = std::max(std::abs(rho.lo), std::abs(rho.hi));
    s.mu_abs = upper(s.b * Ball(rho_abs + s.r));
    s.mu_min = lower(s.b * s.P) - bt_max * s.r - 1e-300;  // smallest Re mu on the Cauchy disc
    s.mu_min = std::min(s.mu_min, lower(Ball(rho.lo - s.r) * s.b));

    // The scale of j (a floating-point estimate, only to set the targets; rigour does not rest on it).
    double jscale = 1.0;
    try {
        jscale = std::max(1e-300, std::abs(exact_field(mid, std::clamp(rho_mid, -1.0, 1.0)).j));
        // A power of two: the choices below (and so the enclosure's bits) do not move with the
        // last digits of the floating-point estimate, whatever the machine.
        jscale = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(jscale))));
    } catch (const std::exception&) {
    }
    const double target = params.rel_tol * jscale;
    const double rinv2 = std::max(1.0, 1.0 / (s.r * s.r));

    // Inner step h and range K h: the Trefethen-Weideman bound and the dropped nodes below
    // delta_t each; delta_t is first guessed, then rescaled once by the measured sensitivity
    // of j to the inner errors (only the cost depends on these choices, never the rigour).
    const double Cmax = 16.0 / (std::numbers::e * std::numbers::e) * (1 + s.mu_abs + 3 * s.tau_max) *
                        (1 + s.mu_abs + 3 * s.tau_max) / (s.beta_min * s.beta_min);
    auto make_nodes = [&](ClassNodes& cls, bool informative) {
        cls.present = true;
        cls.jets = informative;
        const int n = 2 * s.K + 1;
        cls.E.resize(static_cast<std::size_t>(n));
        cls.w.resize(static_cast<std::size_t>(n));
        cls.u.resize(static_cast<std::size_t>(n));
        const Ball mu = informative ? s.mu0 : Ball(0.0);
        const Ball hb(s.h);
        for (int k = 0; k < n; ++k) {
            const Ball z(static_cast<double>(k - s.K) * s.h);  // exact: h is a multiple of 2^-12
            const Ball sk = mu + s.tau * z;
            cls.E[static_cast<std::size_t>(k)] = exp(sk - Ball(s.c));
            cls.w[static_cast<std::size_t>(k)] = hb * detail::normal_pdf(z);
            cls.u[static_cast<std::size_t>(k)] = sk / s.Be;
        }
    };
    // c2 magnitude on the disc: theta^2 (1 + (|rho| + r)^2).
    const Maj c2m{Ball(upper(th2 * (Ball(1.0) + Ball(rho_abs + s.r) * Ball(rho_abs + s.r)))), Ball(0.0)};
    const Maj c3m = constant_maj(s.c3);
    Maj jmaj, mmaj;
    auto build = [&](double delta_t) {
        s.bz = 0.999 * kPi / (4 * s.tau_max);
        double h = 0.1;
        for (int it = 0; it < 3; ++it) {
            const double bz = std::min(s.bz, 2 * kPi / h);
            h = 2 * kPi * bz / (std::log(2 * std::exp(0.5 * bz * bz) * Cmax / delta_t + 1) + bz * bz / 2);
            s.bz = std::min(0.999 * kPi / (4 * s.tau_max), 2 * kPi / h);
        }
        s.h = std::max(1.0, std::floor(h * 4096)) / 4096;  // dyadic: every node k h is exact
        s.bz = std::min(0.999 * kPi / (4 * s.tau_max), 2 * kPi / s.h);
        double Z = 3.0;
        while (Z < 60 && Cmax * std::pow(Z + 1, 2) * std::exp(-0.5 * Z * Z) > 0.1 * delta_t) Z += 0.25;
        s.K = static_cast<int>(std::ceil(Z / s.h));
        if (s.R > 0) make_nodes(s.I, true);
        if (s.N > 0) make_nodes(s.Nc, false);
        s.majI = s.I.present ? class_majorants(s.I, s.mu_abs, s) : absent_maj();
        s.majN = s.Nc.present ? class_majorants(s.Nc, 0.0, s) : absent_maj();
        combine(s.majI, s.majN, s.R, s.N, c2m, c3m, jmaj, mmaj);
    };
    double delta_t = target * 1e-6;
    build(delta_t);
    const double sens = upper(jmaj.D) / delta_t * 30.0 * rinv2;  // inner error of j per unit delta, ~30 panels
    if (sens > 0 && std::isfinite(sens)) {
        delta_t = std::clamp(target / 8 / sens, 1e-300, 1e-3);
        build(delta_t);
    }
    // Same bounds with M <= 1 and no error: the constant of the right tail.
    Mom<Maj> zI = s.majI, zN = s.majN;
    for (auto* m : {&zI, &zN}) {
        m->M = {Ball(1.0), Ball(0.0)};
        for (auto* x : {&m->A1, &m->B1, &m->Au, &m->Bu}) x->D = Ball(0.0);
    }
    Maj cx, cxm;
    combine(zI, zN, s.R, s.N, c2m, c3m, cx, cxm);

    // Left tail: |moment| <= t^k (Gaussian moment); |M| <= 1. The integrand is O(e^{2 lambda}).
    auto left_moments = [&](double mu_abs, bool present) {
        Mom<Maj> m = absent_maj();
        if (!present) return m;
        const Ball tm(s.tau_max), a0 = Ball(mu_abs) / Ball(s.beta_min), a1 = tm / Ball(s.beta_min);
        const Ball e1 = exp(Ball(mu_abs) - Ball(s.c) + tm * tm * 0.5);
        const Ball e2 = exp(2.0 * (Ball(mu_abs) - Ball(s.c)) + 2.0 * tm * tm);
        m.M = {Ball(1.0), Ball(0.0)};
        m.A1 = {e1, Ball(0.0)};
        m.B1 = {e2, Ball(0.0)};
        m.Au = {e1 * abs_moment(a0 + a1 * tm, a1, 1), Ball(0.0)};
        m.Bu = {e2 * abs_moment(a0 + 2.0 * a1 * tm, a1, 2), Ball(0.0)};
        return m;
    };
    Maj cl, clm;
    combine(left_moments(s.mu_abs, s.I.present), left_moments(0.0, s.Nc.present), s.R, s.N, c2m, c3m, cl, clm);
    const double Cl = upper(cl.F), Clm = upper(clm.F);
    double lam_lo = std::floor(0.5 * std::log(std::max(1e-300, 2 * target / 4 / (std::max(Cl, 1e-300) * rinv2))));
    // E[A_I]'s integrand decays only like e^{lambda}: its left tail is left at what lambda_- gives
    // for j (about 1e-7 relative), rather than doubling the panels (theory.md section 11.4).
    (void)Clm;
    lam_lo = std::clamp(lam_lo, -400.0, -1.0);
    const Ball left_j = cl.F * exp(Ball(2.0 * lam_lo)) * 0.5, left_m = clm.F * exp(Ball(lam_lo));

    // Right tail: |integrand| <= C_X Mb(lambda)^{L-2}, Mb decreasing; beyond lambda* the crude bound.
    const std::uint64_t Lm2 = static_cast<std::uint64_t>(cell.L - 2);
    auto right_bound = [&](double lp, double& lstar_out) {
        // Class I at the smallest Re mu: shift t by e^{mu_min - max mu0} (M decreases in mu).
        const double mb = std::max(M_upper(s.I, s, lp, s.mu_min - upper(s.mu0), s.majI.M.D),
                                   M_upper(s.Nc, s, lp, 0.0, s.majN.M.D));
        double ls = lp;
        const double mumin = std::min(s.mu_min, 0.0);
        while (ls < 400 && upper(crude_M(s, ls, mumin)) > 0.5) ls += 1;
        lstar_out = ls;
        const Ball q = crude_M(s, ls, mumin);
        const double lsp = ls - 0.035;
        const Ball w = (Ball(s.c) - Ball(lsp) * 0.5 - Ball(mumin)) / s.tau;
        const Ball v = exp(Ball(lsp) * 0.5);
        // int_{l*}^inf Phi(w(l)) dl = 2 tau (w* Phi(w*) + phi(w*)); int e^{-e^{l'/2}} <= 2 e^{-v*}/v*
        // (the shift lambda' = lambda - 0.035 only moves the range, the integrals are over lambda').
        const Ball far = s.tau * 2.0 * (w * detail::normal_cdf(w) + detail::normal_pdf(w)) + 2.0 * exp(-v) / v;
        const Ball qpow = Lm2 >= 1 ? pow_ui(q, Lm2 - 1) : Ball(1.0);
        return pow_ui(Ball(mb), Lm2) * Ball(ls - lp) + qpow * far;
    };
    double lam_hi = 1.0, lstar = 0;
    Ball rb = right_bound(lam_hi, lstar);
    while (lam_hi < 300 && upper(cx.F * rb) * rinv2 > target / 4) {
        lam_hi += 1.0;
        rb = right_bound(lam_hi, lstar);
    }
    const Ball right_j = cx.F * rb, right_m = cxm.F * rb;

    // Outer Gauss-Legendre panels of width 1 on [lam_lo, lam_hi].
    const int panels = static_cast<int>(lam_hi - lam_lo);
    const double rho_e = 3.29;  // ellipse of half-width 0.5 (3.29 - 1/3.29)/2 = 0.745 < pi/4
    const double Mj = upper(jmaj.F), Mm = upper(mmaj.F);
    const double per_panel = target / 4 / panels;
    int n = 8;
    while (n < 400 && 0.5 * 64.0 / 15.0 * std::max(Mj * rinv2, Mm) / ((rho_e * rho_e - 1) * std::pow(rho_e, 2 * n)) >
                          per_panel)
        n += 2;
    const GLRule& gl = gauss_legendre(n, prec);
    const Ball re(rho_e);
    const Ball gl_fac = Ball(0.5) * Ball(64.0) / Ball(15.0) / ((re * re - Ball(1.0)) * pow_ui(re, static_cast<ulong>(2 * n)));
    Jet jsum = constant(Ball(0.0)), msum = constant(Ball(0.0));
    int evals = 0;
    for (int p = 0; p < panels; ++p) {
        const Ball centre(lam_lo + p + 0.5);
        for (int i = 0; i < n; ++i) {
            const Ball lam = centre + Ball(0.5) * gl.x[static_cast<std::size_t>(i)];
            Jet jj, mm;
            integrand(s, lam, jj, mm);
            ++evals;
            const Ball w = Ball(0.5) * gl.w[static_cast<std::size_t>(i)];
            add_scaled(jsum, w, jj);
            add_scaled(msum, w, mm);
        }
    }
    const Ball len(static_cast<double>(panels));
    // Errors of jet coefficient k (= f^{(k)}/k!): Cauchy's factor r^{-k}.
    const Ball outer_j = gl_fac * len * jmaj.F, outer_m = gl_fac * len * mmaj.F;
    const Ball inner_j = len * jmaj.D, inner_m = len * mmaj.D;
    Ball rpow(1.0);
    const Ball rinv = Ball(1.0) / Ball(s.r);
    FieldEnclosure out;
    out.rho = rho;
    out.precision = params.precision;
    Interval* dst[3] = {&out.j, &out.dj, &out.d2j};
    for (int k = 0; k < 3; ++k) {
        Ball v = jsum.c[k];
        add_error(v, rpow * (outer_j + inner_j + left_j + right_j));
        if (k == 2) v = v * 2.0;  // j'' = 2 x (coefficient of eps^2)
        if (!arb_is_finite(v.v)) throw NumericalError(fmt::format("rigorous field: the enclosure of {} is not finite", k == 0 ? "j" : k == 1 ? "j'" : "j''"));
        *dst[k] = {lower(v), upper(v)};
        rpow = rpow * rinv;
    }
    Ball mv = msum.c[0];
    add_error(mv, outer_m + inner_m + left_m + right_m);
    out.mass = {lower(mv), upper(mv)};
    if (s.R == 0 || upper(s.b) == 0) out.dj = out.d2j = {0.0, 0.0};  // exactly: j does not depend on rho
    out.budget = {upper(inner_j), upper(outer_j), upper(left_j), upper(right_j), lam_lo, lam_hi, 2 * s.K + 1, evals};
    return out;
}

}  // namespace rhoflow
