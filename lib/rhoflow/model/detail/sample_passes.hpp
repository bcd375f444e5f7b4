// The arithmetic passes of SampleDrawer::draw (model/sample.cpp) over the L tokens, written once
// and included once per instruction-set variant, each time inside its own namespace (and, for
// AVX2 and AVX-512, its own `#pragma GCC target` region), so no include guard. The random draws between
// the passes stay in sample.cpp.
//
// Every sum over tokens runs in kLanes interleaved partial sums (token i in lane i mod kLanes),
// added up at the end as (s0 + s1) + (s2 + s3): independent chains in vector registers (V4, a
// GCC/Clang vector of 4 doubles: one AVX2 register, two SSE2 ones), where one running sum would
// wait on the adder's latency at every token. Each lane's operations are the same IEEE
// operations in the same order whatever registers a variant uses (no FMA contraction: the
// library is compiled with -ffp-contract=off), so every variant gives the same bits;
// tests/rhoflow/core/simd_test.cpp pins a trajectory under each. The arrays are padded with
// zeros to a multiple of kLanes (Lp): a padding token has a = 0 and adds exact zeros
// (SampleDrawer::draw resets the padding at every draw).

// x[i] = sigma x[i] + shift for i < n, and the largest into m (max is exact in any order, so
// the lanes need no fixed assignment here: four running maxima, so that the compare and select
// of one register do not wait on the previous one's).
inline void scale_max(double* x, std::size_t n, double sigma, double shift, V4& m) noexcept {
    // (y > acc ? y : acc: one max instruction on x86, whose rule for NaN and zeros is this one.)
    auto keep_larger = [](V4& acc, const V4& y) { acc = y > acc ? y : acc; };
    V4 m1 = m, m2 = m, m3 = m, y0, y1, y2, y3;
    std::size_t i = 0;
    for (; i + 4 * kLanes <= n; i += 4 * kLanes) {
        load4(y0, x + i);
        load4(y1, x + i + kLanes);
        load4(y2, x + i + 2 * kLanes);
        load4(y3, x + i + 3 * kLanes);
        y0 = sigma * y0 + shift;
        y1 = sigma * y1 + shift;
        y2 = sigma * y2 + shift;
        y3 = sigma * y3 + shift;
        store4(x + i, y0);
        store4(x + i + kLanes, y1);
        store4(x + i + 2 * kLanes, y2);
        store4(x + i + 3 * kLanes, y3);
        keep_larger(m, y0);
        keep_larger(m1, y1);
        keep_larger(m2, y2);
        keep_larger(m3, y3);
    }
    for (; i + kLanes <= n; i += kLanes) {
        load4(y0, x + i);
        y0 = sigma * y0 + shift;
        store4(x + i, y0);
        keep_larger(m, y0);
    }
    keep_larger(m, m1);
    keep_larger(m, m2);
    keep_larger(m, m3);
    for (; i < n; ++i) {
        x[i] = sigma * x[i] + shift;
        m[0] = x[i] > m[0] ? x[i] : m[0];
    }
}

// Pass 1: u[i] = sigma u[i] + mean_u (i < R) and v likewise, from standard normals. Returns
// max u (the softmax numerators' exponents beta (u[i] - max u) are taken in pass 2).
inline double pass_scale(double* u, double* v, std::size_t L, std::size_t R, double sigma, double mean_u,
                         double mean_v) noexcept {
    const double inf = std::numeric_limits<double>::infinity();
    V4 m = {-inf, -inf, -inf, -inf};
    scale_max(u, R, sigma, mean_u, m);
    scale_max(u + R, L - R, sigma, 0.0, m);
    const double umax = std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
    for (std::size_t i = 0; i < R; ++i) v[i] = sigma * v[i] + mean_v;
    for (std::size_t i = R; i < L; ++i) v[i] *= sigma;
    return umax;
}

// The sums of pass 3 (and, with W, pass 4: z[i] = sigma z[i] and sum a z) for the tokens
// [0, n) of a part, a's 4 lanes ai: each sum's chain in token order.
template <bool W>
[[gnu::always_inline]] inline void first_step(const V4& ai, const double* u, const double* v, double* z, double sigma,
                                              V4& Z, V4& Su, V4& Sv, V4& S2, V4& S) noexcept {
    V4 ui, vi;
    load4(ui, u);
    load4(vi, v);
    Z += ai;
    Su += ai * ui;
    Sv += ai * vi;
    S2 += ai * ai;
    if constexpr (W) {
        V4 zi;
        load4(zi, z);
        zi *= sigma;
        store4(z, zi);
        S += ai * zi;
    }
}

// Passes 2 to 4 on a part of the tokens, [0, n_sum) (a multiple of kLanes): a[i] = e^{beta (u[i] -
// umax)} for i < n_exp (the softmax numerators, detail/exp_vector.hpp's kernel: the bits of
// detail::exp_nonpositive_affine) and 0 for the padding beyond, then the sums of pass 3 and (W)
// pass 4 on each register as it comes out of the exp, with the next registers' first stage issued
// beside. acc holds the running sums (kFirstAcc doubles).
template <bool W>
inline void exp_first_sums(const double* u, double* a, const double* v, double* z, std::size_t n_exp, std::size_t n_sum,
                           double beta, double umax, double sigma, double* acc) noexcept {
    using VI = long __attribute__((vector_size(kLanes * sizeof(long))));
    using R = detail::expv::Reduced<V4, VI>;
    V4 Z, Su, Sv, S2, S, x, y;
    load4(Z, acc);
    load4(Su, acc + kLanes);
    load4(Sv, acc + 2 * kLanes);
    load4(S2, acc + 3 * kLanes);
    load4(S, acc + 4 * kLanes);
    auto arg = [&](std::size_t i, V4& x0) {
        load4(x0, u + i);
        x0 = beta * (x0 - umax);
    };
    const std::size_t n_full = n_exp / kLanes * kLanes;  // registers whose lanes are all tokens
    std::size_t i = 0;
    if (n_full >= 2 * kLanes) {
        R c0, c1, n0, n1;
        arg(0, x);
        detail::expv::reduce(x, c0);
        arg(kLanes, x);
        detail::expv::reduce(x, c1);
        for (; i + 4 * kLanes <= n_full; i += 2 * kLanes) {
            arg(i + 2 * kLanes, x);
            detail::expv::reduce(x, n0);
            detail::expv::finish(c0, y);
            store4(a + i, y);
            first_step<W>(y, u + i, v + i, z + i, sigma, Z, Su, Sv, S2, S);
            arg(i + 3 * kLanes, x);
            detail::expv::reduce(x, n1);
            detail::expv::finish(c1, y);
            store4(a + i + kLanes, y);
            first_step<W>(y, u + i + kLanes, v + i + kLanes, z + i + kLanes, sigma, Z, Su, Sv, S2, S);
            c0 = n0;
            c1 = n1;
        }
        detail::expv::finish(c0, y);
        store4(a + i, y);
        first_step<W>(y, u + i, v + i, z + i, sigma, Z, Su, Sv, S2, S);
        detail::expv::finish(c1, y);
        store4(a + i + kLanes, y);
        first_step<W>(y, u + i + kLanes, v + i + kLanes, z + i + kLanes, sigma, Z, Su, Sv, S2, S);
        i += 2 * kLanes;
    }
    for (; i < n_sum; i += kLanes) {  // the rest, the last register maybe part padding
        R c;
        arg(i, x);
        detail::expv::reduce(x, c);
        detail::expv::finish(c, y);
        for (std::size_t j = 0; j < kLanes; ++j)
            if (i + j >= n_exp) y[j] = 0.0;
        store4(a + i, y);
        first_step<W>(y, u + i, v + i, z + i, sigma, Z, Su, Sv, S2, S);
    }
    store4(acc, Z);
    store4(acc + kLanes, Su);
    store4(acc + 2 * kLanes, Sv);
    store4(acc + 3 * kLanes, S2);
    store4(acc + 4 * kLanes, S);
}

// The same with the exp of detail::exp_nonpositive_affine first (the AVX-512 variant: its exp has
// eight lanes), then the sums.
template <bool W>
inline void exp_then_first_sums(const double* u, double* a, const double* v, double* z, std::size_t n_exp, std::size_t n_sum,
                                double beta, double umax, double sigma, double* acc) noexcept {
    detail::exp_nonpositive_affine(u, beta, umax, a, n_exp);
    V4 Z, Su, Sv, S2, S, ai;
    load4(Z, acc);
    load4(Su, acc + kLanes);
    load4(Sv, acc + 2 * kLanes);
    load4(S2, acc + 3 * kLanes);
    load4(S, acc + 4 * kLanes);
    for (std::size_t i = 0; i < n_sum; i += kLanes) {
        load4(ai, a + i);
        first_step<W>(ai, u + i, v + i, z + i, sigma, Z, Su, Sv, S2, S);
    }
    store4(acc, Z);
    store4(acc + kLanes, Su);
    store4(acc + 2 * kLanes, Sv);
    store4(acc + 3 * kLanes, S2);
    store4(acc + 4 * kLanes, S);
}

// Pass 5: a normalised (a_i invZ), z -> P zeta (z_i - pz_coef a_i), c_i = 2 beta a_i (f_u u_i +
// f_v v_i + a_i h + r_coef z_i), and the sums of c, c u, c v, c a, c z. Only c is stored: the
// normalised a is recomputed by pass 6 (the same product), P zeta is not needed after.
inline GradientSums pass_gradient(const double* a, const double* u, const double* v, const double* z, double* c,
                                  std::size_t Lp, const GradientCoefficients& k) noexcept {
    V4 C = {}, Cu = {}, Cv = {}, Ca = {}, Cz = {}, ai, ui, vi, zi;
    for (std::size_t i = 0; i < Lp; i += kLanes) {
        load4(ai, a + i);
        load4(ui, u + i);
        load4(vi, v + i);
        load4(zi, z + i);
        ai *= k.inv_z;
        zi -= k.pz_coef * ai;
        const V4 r = ai * k.h + k.r_coef * zi;
        const V4 ci = k.two_beta * ai * (k.f_u * ui + k.f_v * vi + r);
        store4(c + i, ci);
        C += ci;
        Cu += ci * ui;
        Cv += ci * vi;
        Ca += ci * ai;
        Cz += ci * zi;
    }
    return {lane_sum(C), lane_sum(Cu), lane_sum(Cv), lane_sum(Ca), lane_sum(Cz)};
}

// Pass 6: sum (c_i - k a_i invZ)^2, the squared norm of b orthogonal to a (summed directly, so
// without cancellation).
inline double pass_perp(const double* c, const double* a, double inv_z, double k, std::size_t Lp) noexcept {
    V4 S = {}, ci, ai;
    for (std::size_t i = 0; i < Lp; i += kLanes) {
        load4(ci, c + i);
        load4(ai, a + i);
        ai *= inv_z;
        const V4 b = ci - k * ai;
        S += b * b;
    }
    return lane_sum(S);
}
