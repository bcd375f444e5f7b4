// RAII wrapper of Arb's real balls (arb_t) for the rigorous field: value semantics, the few
// operators the enclosure needs, and outward conversion to doubles. Internal (not installed).
// Every operation is Arb's, so every result contains the exact result of the operation applied
// to any points of the operands (ball arithmetic with outward rounding).
#pragma once

#include <arb.h>
#include <arb_hypgeom.h>
#include <cstdint>
#include <utility>

namespace rhoflow::detail {

/// A real ball m +- r owning its arb_t; every operation uses the precision `prec` given.
class Ball {
public:
    arb_t v;  ///< the ball
    Ball() { arb_init(v); }
    /// The exact double x (radius 0).
    explicit Ball(double x) { arb_init(v); arb_set_d(v, x); }
    ~Ball() { arb_clear(v); }
    Ball(const Ball& o) { arb_init(v); arb_set(v, o.v); }
    Ball(Ball&& o) noexcept { arb_init(v); arb_swap(v, o.v); }
    Ball& operator=(const Ball& o) { if (this != &o) arb_set(v, o.v); return *this; }
    Ball& operator=(Ball&& o) noexcept { arb_swap(v, o.v); return *this; }
};

/// The exact integer n (radius 0).
inline Ball integer_ball(std::int64_t n) {
    Ball r;
    arb_set_si(r.v, static_cast<slong>(n));
    return r;
}

/// Precision (bits) of the operators below; set once per rigorous evaluation (thread_local).
inline thread_local slong ball_prec = 128;

inline Ball operator+(const Ball& a, const Ball& b) { Ball r; arb_add(r.v, a.v, b.v, ball_prec); return r; }
inline Ball operator-(const Ball& a, const Ball& b) { Ball r; arb_sub(r.v, a.v, b.v, ball_prec); return r; }
inline Ball operator*(const Ball& a, const Ball& b) { Ball r; arb_mul(r.v, a.v, b.v, ball_prec); return r; }
inline Ball operator/(const Ball& a, const Ball& b) { Ball r; arb_div(r.v, a.v, b.v, ball_prec); return r; }
inline Ball operator-(const Ball& a) { Ball r; arb_neg(r.v, a.v); return r; }
inline Ball operator+(const Ball& a, double b) { return a + Ball(b); }
inline Ball operator-(const Ball& a, double b) { return a - Ball(b); }
inline Ball operator*(const Ball& a, double b) { return a * Ball(b); }
inline Ball operator*(double a, const Ball& b) { return Ball(a) * b; }
inline Ball operator/(const Ball& a, double b) { return a / Ball(b); }
inline Ball& operator+=(Ball& a, const Ball& b) { arb_add(a.v, a.v, b.v, ball_prec); return a; }
inline Ball& operator*=(Ball& a, const Ball& b) { arb_mul(a.v, a.v, b.v, ball_prec); return a; }

inline Ball exp(const Ball& a) { Ball r; arb_exp(r.v, a.v, ball_prec); return r; }
inline Ball log(const Ball& a) { Ball r; arb_log(r.v, a.v, ball_prec); return r; }
inline Ball sqrt(const Ball& a) { Ball r; arb_sqrt(r.v, a.v, ball_prec); return r; }
inline Ball pow_ui(const Ball& a, ulong e) { Ball r; arb_pow_ui(r.v, a.v, e, ball_prec); return r; }
inline Ball abs(const Ball& a) { Ball r; arb_abs(r.v, a.v); return r; }
inline Ball pi_ball() { Ball r; arb_const_pi(r.v, ball_prec); return r; }
/// Phi(x), the standard normal distribution function: erfc(-x / sqrt 2) / 2.
inline Ball normal_cdf(const Ball& x) {
    Ball r, s = -x / sqrt(Ball(2.0));
    arb_hypgeom_erfc(r.v, s.v, ball_prec);
    return r * 0.5;
}
/// phi(x) = exp(-x^2/2) / sqrt(2 pi).
inline Ball normal_pdf(const Ball& x) { return exp(-(x * x) * 0.5) / sqrt(2.0 * pi_ball()); }

/// Ball [lo, hi] (contains both doubles).
inline Ball interval(double lo, double hi) {
    Ball r;
    arf_t a, b;
    arf_init(a); arf_init(b);
    arf_set_d(a, lo); arf_set_d(b, hi);
    arb_set_interval_arf(r.v, a, b, ball_prec);
    arf_clear(a); arf_clear(b);
    return r;
}
/// Adds |e| (an upper bound of it) to the radius of x.
inline void add_error(Ball& x, const Ball& e) { arb_add_error(x.v, e.v); }
/// The ball 0 +- |e|.
inline Ball error_ball(const Ball& e) { Ball r; arb_add_error(r.v, e.v); return r; }

/// A double <= every point of x (-inf when x is not finite).
inline double lower(const Ball& x) {
    if (!arb_is_finite(x.v)) return -HUGE_VAL;
    arf_t a; arf_init(a);
    arb_get_lbound_arf(a, x.v, 64);
    const double d = arf_get_d(a, ARF_RND_FLOOR);
    arf_clear(a);
    return d;
}
/// A double >= every point of x (+inf when x is not finite).
inline double upper(const Ball& x) {
    if (!arb_is_finite(x.v)) return HUGE_VAL;
    arf_t a; arf_init(a);
    arb_get_ubound_arf(a, x.v, 64);
    const double d = arf_get_d(a, ARF_RND_CEIL);
    arf_clear(a);
    return d;
}
/// A double >= every |point| of x.
inline double abs_upper(const Ball& x) { return upper(abs(x)); }

}  // namespace rhoflow::detail
