// The mean-field limit's field enclosed in ball arithmetic (rigorous/meanfield_enclosure.hpp).
#include "rhoflow/rigorous/meanfield_enclosure.hpp"

#include <algorithm>
#include <arb_poly.h>
#include <cmath>
#include <vector>

#include "rhoflow/rigorous/detail/ball.hpp"
#include "rhoflow/rigorous/detail/within.hpp"

namespace rhoflow {

namespace {

using detail::Ball;

// The cell's balls: alpha = R / L (exact up to the precision), theta, sigma, beta, rho.
struct Balls {
    Ball alpha, theta, sigma, beta, rho;
};

Balls balls_of(const ModelCell& c, Interval rho, const RigorousParams& p) {
    c.validate();
    p.validate();
    detail::ball_prec = p.precision;
    return {detail::integer_ball(c.R) / detail::integer_ball(c.L), detail::interval(c.theta.lo, c.theta.hi),
            detail::interval(c.sigma.lo, c.sigma.hi), detail::interval(c.beta.lo, c.beta.hi),
            detail::interval(rho.lo, rho.hi)};
}

Interval interval_of(const Ball& x) { return {detail::lower(x), detail::upper(x)}; }

// An arb_poly owned here, truncated at order n.
struct Series {
    arb_poly_t v;
    Series() { arb_poly_init(v); }
    ~Series() { arb_poly_clear(v); }
    Series(const Series&) = delete;
    Series& operator=(const Series&) = delete;
};

}  // namespace

FieldEnclosure enclose_meanfield(const ModelCell& cell, Interval rho, const RigorousParams& params) {
    const Balls b = balls_of(cell, rho, params);
    const Ball bt = b.beta * b.theta, bs2 = b.beta * b.sigma * b.sigma;
    // w = alpha / (alpha + (1 - alpha) e^{-u}): monotone in u, one occurrence of rho.
    const Ball w = b.alpha / (b.alpha + (Ball(1.0) - b.alpha) * detail::exp(-(bt * b.rho)));
    const Ball w1 = bt * w * (Ball(1.0) - w);
    const Ball w2 = bt * w1 * (Ball(1.0) - 2.0 * w);
    const Ball inner = w * b.theta + bs2 * b.rho;
    FieldEnclosure e;
    e.rho = rho;
    e.precision = params.precision;
    e.j = interval_of(w * w * b.theta * b.theta + 2.0 * w * b.theta * bs2 * b.rho + bs2 * bs2);
    e.dj = interval_of(2.0 * b.theta * (w1 * inner + bs2 * w));
    e.d2j = interval_of(2.0 * b.theta * (w2 * inner + w1 * (w1 * b.theta + 2.0 * bs2)));
    e.mass = interval_of(w);
    return e;
}

FieldEnclosure enclose_meanfield_series(const ModelCell& cell, Interval rho, const RigorousParams& params) {
    const Balls b = balls_of(cell, rho, params);
    const slong n = 3, prec = params.precision;
    const Ball bt = b.beta * b.theta, bs2 = b.beta * b.sigma * b.sigma;
    Series r, u, ex, den, inv, w, t1, t2, j;
    // r(eps) = rho + eps, at the ball of the whole cell: coefficient k of j encloses j^(k)/k!
    // at every point of it.
    arb_poly_set_coeff_arb(r.v, 0, b.rho.v);
    arb_poly_set_coeff_si(r.v, 1, 1);
    arb_poly_scalar_mul(u.v, r.v, bt.v, prec);                           // u = beta theta r
    arb_poly_exp_series(ex.v, u.v, n, prec);                             // e^u
    arb_poly_scalar_mul(den.v, ex.v, b.alpha.v, prec);                   // alpha e^u
    const Ball one_minus = Ball(1.0) - b.alpha;
    {
        Series c;
        arb_poly_set_coeff_arb(c.v, 0, one_minus.v);
        arb_poly_add(t1.v, den.v, c.v, prec);                            // alpha e^u + 1 - alpha
    }
    arb_poly_inv_series(inv.v, t1.v, n, prec);
    arb_poly_mullow(w.v, den.v, inv.v, n, prec);                         // w
    if (cell.R == cell.L || cell.R == 0) arb_poly_set_si(w.v, cell.R == 0 ? 0 : 1);  // exactly (no rounding to fit)
    arb_poly_mullow(t1.v, w.v, w.v, n, prec);
    const Ball th2 = b.theta * b.theta, two_th_bs2 = 2.0 * b.theta * bs2;
    arb_poly_scalar_mul(j.v, t1.v, th2.v, prec);                         // w^2 theta^2
    arb_poly_mullow(t2.v, w.v, r.v, n, prec);
    arb_poly_scalar_mul(t2.v, t2.v, two_th_bs2.v, prec);                 // 2 w theta beta sigma^2 rho
    arb_poly_add(j.v, j.v, t2.v, prec);
    {
        Series c;
        const Ball s4 = bs2 * bs2;
        arb_poly_set_coeff_arb(c.v, 0, s4.v);
        arb_poly_add(j.v, j.v, c.v, prec);                               // + beta^2 sigma^4
    }
    Ball c0, c1, c2, m0;
    arb_poly_get_coeff_arb(c0.v, j.v, 0);
    arb_poly_get_coeff_arb(c1.v, j.v, 1);
    arb_poly_get_coeff_arb(c2.v, j.v, 2);
    arb_poly_get_coeff_arb(m0.v, w.v, 0);
    FieldEnclosure e;
    e.rho = rho;
    e.precision = params.precision;
    e.j = interval_of(c0);
    e.dj = interval_of(c1);
    e.d2j = interval_of(2.0 * c2);
    e.mass = interval_of(m0);
    return e;
}

FieldEnclosure enclose_meanfield_series_within(const ModelCell& cell, Interval rho, const RigorousParams& params,
                                               const FieldEnclosure& recorded, int max_pieces) {
    return detail::enclose_within(cell, rho, recorded, max_pieces, detail::split_widest,
                                  [&](const ModelCell& c, Interval r) {
                                      return enclose_meanfield_series(c, r, params);
                                  });
}

}  // namespace rhoflow
