// The independent enclosure of the exact field (docs/theory.md section 11.7): nested
// acb_calc_integrate on (4.3), rho as acb_poly series, explicit tails. Written from the theory
// alone; it shares with enclosure.cpp only ModelCell/RigorousParams and the ball helpers.
#include "rhoflow/rigorous/independent_enclosure.hpp"

#include <acb.h>
#include <acb_calc.h>
#include <acb_poly.h>
#include <algorithm>
#include <cmath>
#include <flint/flint.h>
#include <fmt/format.h>
#include <numbers>
#include <optional>
#include <vector>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/rigorous/detail/ball.hpp"
#include "rhoflow/rigorous/detail/within.hpp"

namespace rhoflow {
namespace {

using detail::Ball;
using detail::lower;
using detail::upper;

constexpr slong kLen = 3;               // eps series: j, j', j''/2
constexpr double kImMax = 0.25 * std::numbers::pi;  // |Im lambda| allowed on the outer ellipses

// Up to kLen complex balls, owned (inline: no allocation per integrand call).
class CVec {
public:
    explicit CVec(slong n = kLen) : n_(n) {
        for (auto& x : v_) acb_init(&x);
    }
    ~CVec() {
        for (auto& x : v_) acb_clear(&x);
    }
    CVec(const CVec&) = delete;
    CVec& operator=(const CVec&) = delete;
    acb_ptr operator[](slong i) { return v_ + i; }
    acb_ptr p() { return v_; }
    slong size() const { return n_; }

private:
    slong n_;
    acb_struct v_[kLen];
};

// The cell as balls, and the constants of the tail bounds (doubles: outward bounds of balls).
struct Model {
    std::int64_t R = 0, N = 0;
    Ball theta, sigma, beta, tau, b, P, mu0, c, inv_sqrt_2pi;
    Ball c2[kLen], c3;             // theta^2 (1 - (P + eps)^2) and (d - 1) sigma^2
    double r = 1;                  // Cauchy radius in rho (b r <= pi/8)
    double bmax = 0, tau_max = 0, tau_min = 0, beta_min = 0;
    double mu_abs = 0, mu_re_max = 0, mu_re_min = 0, rho_abs = 0;  // over the discs |rho' - rho| <= r
    double Z = 8;                  // inner range [-Z, Z]
    slong goal = 40, prec = 128;   // bits: outer goal, working precision
    double perturb = 0;            // test hook
    long evals = 0;                // outer integrand evaluations
};

enum Moment { kQ, kA1, kB1, kAu, kBu, kMoments };  // 1 - M, E[x e^-x], E[x^2 e^-x], E[u x e^-x], E[u^2 x^2 e^-x]

void mullow(acb_ptr res, acb_srcptr a, acb_srcptr b, slong n, slong prec) { _acb_poly_mullow(res, a, n, b, n, n, prec); }

// One or two (moment, coefficient) pairs of a class at lambda; two are packed as re + i im
// (valid at real lambda only, where both integrals are real).
struct InnerParam {
    const Model* m;
    const acb_struct* lam;
    bool informative;
    int count;
    int moment[2], coef[2];
};

// g (series, n terms) of one moment from x, e^{-x}, u and -x (t1).
void moment_series(acb_ptr g, int moment, CVec& x, CVec& e, CVec& u, CVec& t1, slong n, slong prec) {
    CVec a(n), b(n);
    switch (moment) {
        case kQ:
            _acb_vec_neg(g, e.p(), n);
            acb_expm1(g, t1[0], prec);  // 1 - e^{-x} = -expm1(-x): no cancellation for small x
            acb_neg(g, g);
            break;
        case kA1: mullow(g, x.p(), e.p(), n, prec); break;
        case kB1:
            mullow(a.p(), x.p(), x.p(), n, prec);
            mullow(g, a.p(), e.p(), n, prec);
            break;
        case kAu:
            mullow(a.p(), x.p(), e.p(), n, prec);
            mullow(g, u.p(), a.p(), n, prec);
            break;
        default:
            mullow(a.p(), x.p(), u.p(), n, prec);
            mullow(b.p(), a.p(), a.p(), n, prec);
            mullow(g, b.p(), e.p(), n, prec);
            break;
    }
}

// g(x(eps)) u(eps)^p phi(z), the coefficients asked, with x = e^{lambda - c + s}, s = beta theta
// (P + eps) + tau z (class N: tau z), u = theta (P + eps) + sigma z (class N: sigma z).
// Entire in z for each lambda, so the holomorphy flag needs no check.
int inner_integrand(acb_ptr out, const acb_t z, void* param, slong, slong prec) {
    const auto& q = *static_cast<const InnerParam*>(param);
    const Model& m = *q.m;
    const slong n = std::max(q.coef[0], q.count > 1 ? q.coef[1] : 0) + 1;
    CVec arg(n), x(n), e(n), u(n), t1(n), g(n);
    acb_mul_arb(arg[0], z, m.tau.v, prec);
    acb_add(arg[0], arg[0], q.lam, prec);
    acb_sub_arb(arg[0], arg[0], m.c.v, prec);
    acb_mul_arb(u[0], z, m.sigma.v, prec);
    if (q.informative) {
        acb_add_arb(arg[0], arg[0], m.mu0.v, prec);
        arb_addmul(acb_realref(u[0]), m.theta.v, m.P.v, prec);
        if (n > 1) {
            acb_set_arb(arg[1], m.b.v);
            acb_set_arb(u[1], m.theta.v);
        }
    }
    _acb_poly_exp_series(x.p(), arg.p(), n, n, prec);
    _acb_vec_neg(t1.p(), x.p(), n);
    _acb_poly_exp_series(e.p(), t1.p(), n, n, prec);
    acb_t w, v;
    acb_init(w);
    acb_init(v);
    acb_mul(w, z, z, prec);
    acb_mul_2exp_si(w, w, -1);
    acb_neg(w, w);
    acb_exp(w, w, prec);
    acb_mul_arb(w, w, m.inv_sqrt_2pi.v, prec);
    moment_series(g.p(), q.moment[0], x, e, u, t1, n, prec);
    acb_set(v, g[q.coef[0]]);
    if (q.count > 1) {
        moment_series(g.p(), q.moment[1], x, e, u, t1, n, prec);
        acb_mul_onei(g[q.coef[1]], g[q.coef[1]]);
        acb_add(v, v, g[q.coef[1]], prec);
    }
    acb_mul(out, v, w, prec);
    acb_clear(w);
    acb_clear(v);
    return 0;
}

// int_Y^inf (alpha + a1 w)^p phi(w) dw exactly (p <= 2): Q(Y), phi(Y), Y phi(Y) + Q(Y) for w^0, w^1, w^2.
Ball gauss_poly_tail(const Ball& alpha, const Ball& a1, int p, const Ball& Y) {
    const Ball Q = detail::normal_cdf(-Y), ph = detail::normal_pdf(Y);
    if (p == 0) return Q;
    if (p == 1) return alpha * Q + a1 * ph;
    return alpha * alpha * Q + 2.0 * alpha * a1 * ph + a1 * a1 * (Y * ph + Q);
}

Ball min_upper(const Ball& a, const Ball& b) { return Ball(std::min(upper(a), upper(b))); }

// An upper bound of |int_{|z| > Z} g(x) u^p phi(z) dz| for every rho' within r of the cell (and
// so, divided by r^k, of its k-th eps coefficient: Cauchy). With psi = |Im lambda| + b r < pi/2,
// Re x >= |x| cos psi >= 0, so |1 - e^{-x}| <= min(2, |x|), |x^k e^{-x}| <= min((k/(e cos psi))^k,
// |x|^k); |x| = e^{Re lambda + Re mu' - c + tau z}, |u| <= (|mu'| + tau |z|)/beta. The Gaussian
// integrals of these are closed forms: e^{k tau z} phi(z) = e^{k^2 tau^2/2} phi(z - k tau).
Ball inner_tail(const Model& m, const acb_t lam, bool informative, int moment) {
    const int k = (moment == kB1 || moment == kBu) ? 2 : 1;
    const int p = moment == kAu ? 1 : moment == kBu ? 2 : 0;
    Ball re, im;
    arb_set(re.v, acb_realref(lam));
    arb_abs(im.v, acb_imagref(lam));
    const double psi = upper(im) + (informative ? m.bmax * m.r : 0.0);
    const Ball cospsi(lower(Ball(std::cos(std::min(psi, 1.5)))) * (1 - 1e-15));
    const Ball kb(static_cast<double>(k)), Zb(m.Z);
    const Ball a0 = Ball(informative ? m.mu_abs : 0.0) / Ball(m.beta_min), a1 = Ball(m.tau_max) / Ball(m.beta_min);
    const Ball Ck = moment == kQ ? Ball(2.0) : pow_ui(kb / (exp(Ball(1.0)) * cospsi), static_cast<ulong>(k));
    const Ball right_c = Ck * gauss_poly_tail(a0, a1, p, Zb);
    const Ball X = exp(kb * (Ball(upper(re)) + Ball(informative ? m.mu_re_max : 0.0) - m.c));
    const Ball kt = kb * Ball(m.tau_max), ktm = kb * Ball(m.tau_min);
    const Ball right_x = X * exp(kt * kt * 0.5) * gauss_poly_tail(a0 + a1 * kt, a1, p, Zb - kt);
    const Ball left = X * exp(ktm * ktm * 0.5) * gauss_poly_tail(a0 - a1 * ktm, a1, p, Zb + ktm);
    return left + min_upper(right_c, right_x);
}

// Inner moments at lambda (count 1, or 2 packed at real lambda): acb_calc_integrate on [-Z, Z]
// plus each one's tail (its k-th eps coefficient: the bound / r^k, Cauchy).
void inner_moments(acb_ptr res[2], const Model& m, const acb_t lam, bool informative, int count, const int moment[2],
                   const int coef[2], slong goal) {
    InnerParam q{&m, lam, informative, count, {moment[0], count > 1 ? moment[1] : 0}, {coef[0], count > 1 ? coef[1] : 0}};
    acb_t a, b, v;
    acb_init(a);
    acb_init(b);
    acb_init(v);
    acb_set_d(a, -m.Z);
    acb_set_d(b, m.Z);
    // Absolute floor of the tolerance (cost only): the moments' size, about min(1, |t|^2).
    const double scale = std::exp(std::min(0.0, arf_get_d(arb_midref(acb_realref(lam)), ARF_RND_NEAR)));
    mag_t tol;
    mag_init(tol);
    mag_set_d(tol, std::ldexp(std::max(scale * scale, 1e-300), -static_cast<int>(goal)));
    acb_calc_integrate_opt_t opt;
    acb_calc_integrate_opt_init(opt);
    opt->eval_limit = 20000;
    acb_calc_integrate(v, inner_integrand, &q, a, b, goal, tol, opt, m.prec);
    for (int i = 0; i < count; ++i) {
        Ball t = inner_tail(m, lam, informative, moment[i]);
        for (int k = 0; k < coef[i]; ++k) t = t / Ball(m.r);
        if (count == 1) {
            acb_set(res[0], v);
            acb_add_error_arb(res[0], t.v);
        } else {
            acb_set_arb(res[i], i == 0 ? acb_realref(v) : acb_imagref(v));
            arb_add_error(acb_realref(res[i]), t.v);
        }
    }
    mag_clear(tol);
    acb_clear(a);
    acb_clear(b);
    acb_clear(v);
}

// res = a * (integer k), each coefficient (exact integers, no int64 product).
void scale_int(acb_ptr res, acb_srcptr a, slong n, std::int64_t k, slong prec) {
    for (slong i = 0; i < n; ++i) acb_mul_si(res + i, a + i, static_cast<slong>(k), prec);
}
// acc += f * g * h (series)
void add_product(acb_ptr acc, acb_srcptr f, acb_srcptr g, acb_srcptr h, slong n, slong prec) {
    CVec t(n), u(n);
    mullow(t.p(), f, g, n, prec);
    mullow(u.p(), t.p(), h, n, prec);
    _acb_vec_add(acc, acc, u.p(), n, prec);
}

struct Moments {
    CVec v[kMoments];  // each a series of length kLen
};

// The outer integrand's quantities: re (and im, when >= 0) among 0, 1, 2 (eps coefficients of
// j's integrand) and 3 (E[A_I]'s); two are packed as re + i im (both integrals are real).
struct OuterParam {
    Model* m;
    int re, im;
};

// The integrand of (4.3) over lambda from the inner moments: j's as a series, E[A_I]'s value.
void combine(const Model& m, Moments& I, Moments& Nm, slong n, acb_ptr j, acb_ptr mass, slong prec) {
    const std::int64_t R = m.R, N = m.N;
    CVec MI(n), MN(n), PI[3] = {CVec(n), CVec(n), CVec(n)}, PN[3] = {CVec(n), CVec(n), CVec(n)};
    _acb_vec_neg(MI.p(), I.v[kQ].p(), n);
    acb_add_ui(MI[0], MI[0], 1, prec);
    acb_neg(MN[0], Nm.v[kQ][0]);
    acb_add_ui(MN[0], MN[0], 1, prec);  // class N does not depend on rho: a constant series
    for (int k = 0; k < 3; ++k) {
        if (R >= k) _acb_poly_pow_ui_trunc_binexp(PI[k].p(), MI.p(), n, static_cast<ulong>(R - k), n, prec);
        if (N >= k) _acb_poly_pow_ui_trunc_binexp(PN[k].p(), MN.p(), n, static_cast<ulong>(N - k), n, prec);
    }
    CVec TU(n), TA(n), TS(n), c(n), t(n);
    _acb_vec_zero(mass, n);
    if (R >= 1) {
        scale_int(c.p(), I.v[kBu].p(), n, R, prec);
        add_product(TU.p(), c.p(), PI[1].p(), PN[0].p(), n, prec);
        scale_int(c.p(), I.v[kB1].p(), n, R, prec);
        add_product(TA.p(), c.p(), PI[1].p(), PN[0].p(), n, prec);
        add_product(TS.p(), c.p(), PI[1].p(), PN[0].p(), n, prec);
        scale_int(c.p(), I.v[kA1].p(), n, R, prec);
        add_product(mass, c.p(), PI[1].p(), PN[0].p(), n, prec);
    }
    if (N >= 1) {
        scale_int(c.p(), Nm.v[kBu].p(), n, N, prec);
        add_product(TU.p(), c.p(), PI[0].p(), PN[1].p(), n, prec);
        scale_int(c.p(), Nm.v[kB1].p(), n, N, prec);
        add_product(TS.p(), c.p(), PI[0].p(), PN[1].p(), n, prec);
    }
    if (R >= 2) {
        mullow(t.p(), I.v[kAu].p(), I.v[kAu].p(), n, prec);
        scale_int(c.p(), t.p(), n, R, prec);
        scale_int(c.p(), c.p(), n, R - 1, prec);
        add_product(TU.p(), c.p(), PI[2].p(), PN[0].p(), n, prec);
        mullow(t.p(), I.v[kA1].p(), I.v[kA1].p(), n, prec);
        scale_int(c.p(), t.p(), n, R, prec);
        scale_int(c.p(), c.p(), n, R - 1, prec);
        add_product(TA.p(), c.p(), PI[2].p(), PN[0].p(), n, prec);
    }
    if (N >= 2) {
        mullow(t.p(), Nm.v[kAu].p(), Nm.v[kAu].p(), n, prec);
        scale_int(c.p(), t.p(), n, N, prec);
        scale_int(c.p(), c.p(), n, N - 1, prec);
        add_product(TU.p(), c.p(), PI[0].p(), PN[2].p(), n, prec);
    }
    if (R >= 1 && N >= 1) {
        mullow(t.p(), I.v[kAu].p(), Nm.v[kAu].p(), n, prec);
        scale_int(c.p(), t.p(), n, R, prec);
        scale_int(c.p(), c.p(), n, 2 * N, prec);
        add_product(TU.p(), c.p(), PI[1].p(), PN[1].p(), n, prec);
    }
    // j = TU + theta^2 (1 - rho^2) TA + (d - 1) sigma^2 TS
    CVec c2(n);
    for (slong i = 0; i < n; ++i) acb_set_arb(c2[i], m.c2[i].v);
    mullow(t.p(), c2.p(), TA.p(), n, prec);
    _acb_vec_add(j, TU.p(), t.p(), n, prec);
    _acb_vec_scalar_mul_arb(t.p(), TS.p(), n, m.c3.v, prec);
    _acb_vec_add(j, j, t.p(), n, prec);
}

// The moments a class needs (class N's are constants in eps: coefficients >= 1 are zero), in
// pairs at real lambda.
void class_moments(const Model& m, const acb_t lam, bool informative, slong n, bool need_j, slong goal, Moments& out) {
    std::vector<std::pair<int, int>> want;
    for (int mo = 0; mo < kMoments; ++mo) {
        const bool needed = need_j ? (informative || mo != kA1) : (mo == kQ || (informative && mo == kA1));
        if (needed)
            for (slong k = 0; k < (informative ? n : 1); ++k) want.emplace_back(mo, static_cast<int>(k));
    }
    const int step = acb_is_real(lam) ? 2 : 1;
    for (std::size_t i = 0; i < want.size(); i += static_cast<std::size_t>(step)) {
        const int count = i + 1 < want.size() ? step : 1;
        const int mo[2] = {want[i].first, count > 1 ? want[i + 1].first : 0};
        const int co[2] = {want[i].second, count > 1 ? want[i + 1].second : 0};
        acb_ptr res[2] = {out.v[mo[0]][co[0]], count > 1 ? out.v[mo[1]][co[1]] : nullptr};
        inner_moments(res, m, lam, informative, count, mo, co, goal);
    }
}

// The outer integrand at lambda. It is holomorphic for |Im lambda| < pi/2 (Re t > 0); the inner
// tails need |Im lambda| + b r < pi/2, so boxes beyond kImMax are refused (non-finite).
int outer_integrand(acb_ptr out, const acb_t lam, void* param, slong order, slong prec) {
    auto& q = *static_cast<OuterParam*>(param);
    Model& m = *q.m;
    Ball im;
    arb_abs(im.v, acb_imagref(lam));
    if (!(upper(im) <= kImMax)) {
        acb_indeterminate(out);
        return 0;
    }
    ++m.evals;
    int top = -1;  // highest eps coefficient of j needed
    for (int w : {q.re, q.im})
        if (w >= 0 && w < 3) top = std::max(top, w);
    const bool need_j = top >= 0;
    const slong n = need_j ? top + 1 : 1;
    // On the ellipses (order 1) only a bound is needed: the inner integrals to fewer bits.
    const slong goal = order == 1 ? std::min<slong>(16, m.goal) : m.goal + 6;
    Moments I, Nm;
    if (m.R > 0) class_moments(m, lam, true, n, need_j, goal, I);
    if (m.N > 0) class_moments(m, lam, false, n, need_j, goal, Nm);
    CVec j(n), mass(n);
    combine(m, I, Nm, n, j.p(), mass.p(), prec);
    _acb_vec_scalar_mul_arb(j.p(), j.p(), n, Ball(1.0 + m.perturb).v, prec);
    auto pick = [&](int w) { return w == 3 ? mass[0] : j[w]; };
    acb_set(out, pick(q.re));
    if (q.im >= 0) {
        acb_t t;
        acb_init(t);
        acb_mul_onei(t, pick(q.im));
        acb_add(out, out, t, prec);
        acb_clear(t);
    }
    return 0;
}

// The cell's balls and the floating-point choices that steer only the cost (shift c, Z, goal).
Model make_model(const ModelCell& cell, Interval rho, const RigorousParams& params, double perturb) {
    Model m;
    m.R = cell.R;
    m.N = cell.L - cell.R;
    m.prec = params.precision;
    m.perturb = perturb;
    m.theta = detail::interval(cell.theta.lo, cell.theta.hi);
    m.sigma = detail::interval(cell.sigma.lo, cell.sigma.hi);
    m.beta = detail::interval(cell.beta.lo, cell.beta.hi);
    m.tau = m.beta * m.sigma;
    m.b = m.beta * m.theta;
    m.P = detail::interval(rho.lo, rho.hi);
    m.mu0 = m.b * m.P;
    m.inv_sqrt_2pi = Ball(1.0) / sqrt(2.0 * detail::pi_ball());
    const Ball th2 = m.theta * m.theta;
    m.c2[0] = th2 * (Ball(1.0) - m.P * m.P);
    m.c2[1] = th2 * m.P * (-2.0);
    m.c2[2] = -th2;
    m.c3 = Ball(static_cast<double>(cell.d - 1)) * m.sigma * m.sigma;
    m.bmax = upper(m.b);
    m.tau_max = upper(m.tau);
    m.tau_min = lower(m.tau);
    m.beta_min = cell.beta.lo;
    m.r = m.bmax > 0 ? std::min(1.0, std::numbers::pi / (8 * m.bmax)) : 1.0;
    m.rho_abs = std::max(std::abs(rho.lo), std::abs(rho.hi));
    m.mu_abs = upper(m.b * (Ball(m.rho_abs) + Ball(m.r)));
    m.mu_re_max = upper(m.b * (Ball(rho.hi) + Ball(m.r)));
    m.mu_re_min = lower(m.b * (Ball(rho.lo) - Ball(m.r)));
    // Any constant shift is exact (softmax is shift invariant): log E[S] at the midpoint.
    const ModelParams mid = cell.mid();
    const double mu = mid.beta * mid.theta * 0.5 * (rho.lo + rho.hi), tau = mid.beta * mid.sigma;
    const double c = std::log(static_cast<double>(m.R) * std::exp(mu) + static_cast<double>(m.N)) + 0.5 * tau * tau;
    m.c = Ball(std::round(16 * c) / 16);
    const int bits = static_cast<int>(std::ceil(-std::log2(params.rel_tol))) + 12;
    m.goal = std::clamp<slong>(bits, 24, params.precision - 24);
    m.Z = std::sqrt(2 * std::log(2.0) * static_cast<double>(m.goal + 24)) + 2 * m.tau_max;
    return m;
}

// The lambda range and the bounds of the dropped outer tails (upper bounds for every rho' within
// r of the cell, so divided by r^k for the k-th eps coefficient), theory.md section 11.7:
//  left, by Minkowski: integrand <= t^2 (sum_i ||phi_i e^{s_i - c}||_2)^2 with closed-form
//  Gaussian moments, so the tail is <= K e^{2 lambda_-}/2 (E[A_I]: K' e^{lambda_-});
//  right: |M_c| <= E[e^{-Re x}] <= E[1/(e Re x)] = q(lambda), q decreasing like e^{-lambda}, and
//  every term carries M^{L-2} or more, so the tail is <= C_X q(lambda_+)^{L-2}/(L-2).
struct Range {
    double lo = 0, hi = 0;
    Ball left_j, right_j, left_m, right_m;
};

Range outer_range(const Model& m, double tgt_j, double tgt_m) {
    const Ball e1 = exp(Ball(1.0)), cosr(lower(Ball(std::cos(std::min(m.bmax * m.r, 1.5)))) * (1 - 1e-15));
    const Ball a0 = Ball(m.mu_abs) / Ball(m.beta_min), a1 = Ball(m.tau_max) / Ball(m.beta_min);
    const Ball sq = sqrt(Ball(2.0) / detail::pi_ball()), tm(m.tau_max);
    const Ball C1 = Ball(1.0) / (e1 * cosr), C2 = (Ball(2.0) / (e1 * cosr)) * (Ball(2.0) / (e1 * cosr));
    const Ball EAuI = C1 * (a0 + a1 * sq), EAuN = C1 * a1 * sq;
    const Ball EBuI = C2 * (a0 * a0 + 2.0 * a0 * a1 * sq + a1 * a1), EBuN = C2 * a1 * a1;
    const Ball R(static_cast<double>(m.R)), N(static_cast<double>(m.N));
    const Ball RR = R * (R - 1.0), NN = N * (N - 1.0);
    const Ball rr = Ball(m.rho_abs) + Ball(m.r);
    const Ball c2max = Ball(upper(m.theta * m.theta)) * (Ball(1.0) + rr * rr), c3(upper(m.c3));
    const Ball CXj = R * EBuI + N * EBuN + RR * EAuI * EAuI + NN * EAuN * EAuN + 2.0 * R * N * EAuI * EAuN +
                     c2max * (R * C2 + RR * C1 * C1) + c3 * (R + N) * C2;
    const Ball CXm = R * C1;
    const Ball T2 = 2.0 * tm * tm, poly = 2.0 * a1 * a1 * (Ball(1.0) + 4.0 * tm * tm);
    const Ball KI1 = exp(2.0 * (Ball(m.mu_re_max) - m.c) + T2), KN1 = exp(-2.0 * m.c + T2);
    const Ball KIu = KI1 * (2.0 * a0 * a0 + poly), KNu = KN1 * poly;
    const Ball sj = R * sqrt(KIu) + N * sqrt(KNu);
    const Ball Kj = sj * sj + c2max * R * R * KI1 + c3 * (R * KI1 + N * KN1);
    const Ball Km = R * exp(Ball(m.mu_re_max) - m.c + tm * tm * 0.5);
    const double rinv2 = std::max(1.0, 1.0 / (m.r * m.r));
    Range rg;
    double lo = 0.5 * std::log(2 * tgt_j / (std::max(upper(Kj), 1e-300) * rinv2));
    if (m.R > 0) lo = std::min(lo, std::log(tgt_m / std::max(upper(Km), 1e-300)));
    rg.lo = std::clamp(std::floor(lo), -700.0, -1.0);
    rg.left_j = Kj * exp(Ball(2 * rg.lo)) * 0.5;
    rg.left_m = Km * exp(Ball(rg.lo));
    const Ball Lm2(static_cast<double>(m.R + m.N - 2));
    const double mu_min = std::min(m.mu_re_min, 0.0);
    auto q_at = [&](double l) { return exp(Ball(-1.0 - l) + m.c - Ball(mu_min) + tm * tm * 0.5) / cosr; };
    auto tail = [&](const Ball& C, double l) {
        return C * pow_ui(q_at(l), static_cast<ulong>(m.R + m.N - 2)) / Lm2;
    };
    rg.hi = 1;
    while (rg.hi < 700 && (upper(q_at(rg.hi)) > 0.5 || upper(tail(CXj, rg.hi)) * rinv2 > tgt_j ||
                           upper(tail(CXm, rg.hi)) > tgt_m))
        rg.hi += 1;
    if (upper(q_at(rg.hi)) > 1) throw NumericalError("independent enclosure: no right end of the lambda range found");
    rg.right_j = tail(CXj, rg.hi);
    rg.right_m = tail(CXm, rg.hi);
    return rg;
}

// The outer integral of the quantities re (+ i im): {its real part, its imaginary part}.
std::pair<Ball, Ball> integrate_outer(Model& m, int re, int im, const Range& rg, double tol_abs) {
    OuterParam q{&m, re, im};
    acb_t a, b, res;
    acb_init(a);
    acb_init(b);
    acb_init(res);
    acb_set_d(a, rg.lo);
    acb_set_d(b, rg.hi);
    mag_t tol;
    mag_init(tol);
    mag_set_d(tol, std::max(tol_abs, 1e-300));
    acb_calc_integrate_opt_t opt;
    acb_calc_integrate_opt_init(opt);
    opt->eval_limit = 4000;
    acb_calc_integrate(res, outer_integrand, &q, a, b, m.goal, tol, opt, m.prec);
    std::pair<Ball, Ball> out;
    arb_set(out.first.v, acb_realref(res));  // both true values are real
    arb_set(out.second.v, acb_imagref(res));
    mag_clear(tol);
    acb_clear(a);
    acb_clear(b);
    acb_clear(res);
    return out;
}

// FLINT's per-thread caches are freed when a thread that computed an enclosure ends (LeakSanitizer).
struct FlintThreadCleanup {
    ~FlintThreadCleanup() { flint_cleanup(); }
};
void flint_cleanup_at_thread_exit() {
    thread_local FlintThreadCleanup guard;
    (void)guard;
}

Interval to_interval(const Ball& v, const char* what) {
    if (!arb_is_finite(v.v)) throw NumericalError(fmt::format("independent enclosure: the enclosure of {} is not finite", what));
    return {lower(v), upper(v)};
}

FieldEnclosure enclose_impl(const ModelCell& cell, Interval rho, const RigorousParams& params, double perturb) {
    flint_cleanup_at_thread_exit();
    cell.validate();
    params.validate();
    require(std::isfinite(rho.lo) && std::isfinite(rho.hi) && rho.lo <= rho.hi, "rho", rho.lo,
            "a finite interval with lo <= hi");
    require_in("rho.lo", rho.lo, -1.0, 1.0);
    require_in("rho.hi", rho.hi, -1.0, 1.0);
    detail::ball_prec = params.precision;
    Model m = make_model(cell, rho, params, perturb);
    const double eps = std::ldexp(1.0, -static_cast<int>(m.goal));
    // j >= (d - 1) sigma^2 E[sum a^2] >= (d - 1) sigma^2 / L: a floor of the targets.
    const double jfloor = static_cast<double>(cell.d - 1) * cell.sigma.lo * cell.sigma.lo / static_cast<double>(cell.L);
    const ModelParams mid = cell.mid();
    const double w = static_cast<double>(cell.R) * std::exp(mid.beta * mid.theta * rho.lo);
    const double mscale = w / (w + static_cast<double>(m.N)) * 1e-3 + 1e-300;
    const Range rg = outer_range(m, eps * jfloor, eps * mscale);
    FieldEnclosure out;
    out.rho = rho;
    out.precision = params.precision;
    const bool slopes = m.R > 0 && cell.theta.hi > 0;  // else nothing depends on rho
    const double tol = eps * jfloor;
    // Two packed integrals: j + i j' (or j + i E[A_I]), then j''/2 + i E[A_I].
    auto [j0, second] = integrate_outer(m, 0, slopes ? 1 : (m.R > 0 ? 3 : -1), rg, tol);
    add_error(j0, rg.left_j + rg.right_j);
    out.j = to_interval(j0, "j");
    Ball ms = second;
    if (slopes) {
        add_error(second, (rg.left_j + rg.right_j) / Ball(m.r));
        out.dj = to_interval(second, "j'");
        auto [j2, mass] = integrate_outer(m, 2, 3, rg, tol);
        add_error(j2, (rg.left_j + rg.right_j) / (Ball(m.r) * Ball(m.r)));
        out.d2j = to_interval(2.0 * j2, "j''");
        ms = mass;
    }
    if (m.R > 0) {
        add_error(ms, rg.left_m + rg.right_m);
        out.mass = to_interval(ms, "E[A_I]");
    }
    out.budget.tail_left = upper(rg.left_j);
    out.budget.tail_right = upper(rg.right_j);
    out.budget.lambda_lo = rg.lo;
    out.budget.lambda_hi = rg.hi;
    out.budget.outer_nodes = static_cast<int>(std::min<long>(m.evals, 1L << 30));
    return out;
}

}  // namespace

FieldEnclosure enclose_field_independent(const ModelCell& cell, Interval rho, const RigorousParams& params) {
    return enclose_impl(cell, rho, params, 0.0);
}

FieldEnclosure detail::enclose_field_independent_perturbed(const ModelCell& cell, Interval rho,
                                                           const RigorousParams& params, double perturb) {
    return enclose_impl(cell, rho, params, perturb);
}

FieldEnclosure enclose_field_independent_within(const ModelCell& cell, Interval rho, const RigorousParams& params,
                                                const FieldEnclosure& recorded, int max_pieces) {
    return detail::enclose_within(cell, rho, recorded, max_pieces, detail::split_in_turn,
                                  [&](const ModelCell& c, Interval r) {
                                      return enclose_impl(c, r, params, 0.0);
                                  });
}

}  // namespace rhoflow
