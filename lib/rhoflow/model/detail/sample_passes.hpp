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
    using M = long __attribute__((vector_size(kLanes * sizeof(long))));
    auto keep_larger = [](V4& acc, const V4& y) {
        const M gt = y > acc;  // all ones where y is larger
        acc = reinterpret_cast<V4>((reinterpret_cast<M>(y) & gt) | (reinterpret_cast<M>(acc) & ~gt));
    };
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

// Pass 3: the sums of a, a u, a v and a^2 over the Lp tokens (a the softmax numerators).
inline FirstSums pass_first_sums(const double* a, const double* u, const double* v, std::size_t Lp) noexcept {
    V4 Z = {}, Su = {}, Sv = {}, S2 = {}, ai, ui, vi;
    for (std::size_t i = 0; i < Lp; i += kLanes) {
        load4(ai, a + i);
        load4(ui, u + i);
        load4(vi, v + i);
        Z += ai;
        Su += ai * ui;
        Sv += ai * vi;
        S2 += ai * ai;
    }
    return {lane_sum(Z), lane_sum(Su), lane_sum(Sv), lane_sum(S2)};
}

// Passes 3 and 4 in one loop (d >= 3): the sums of pass 3, and z[i] = sigma z[i] with sum a z
// into Sz. Each sum is the same chain as in the separate passes (the same bits); together the
// five chains run side by side where each alone waits on the adder's latency.
inline FirstSums pass_first_sums_zeta(const double* a, const double* u, const double* v, double* z, double sigma,
                                      std::size_t Lp, double& Sz) noexcept {
    V4 Z = {}, Su = {}, Sv = {}, S2 = {}, S = {}, ai, ui, vi, zi;
    for (std::size_t i = 0; i < Lp; i += kLanes) {
        load4(ai, a + i);
        load4(ui, u + i);
        load4(vi, v + i);
        load4(zi, z + i);
        Z += ai;
        Su += ai * ui;
        Sv += ai * vi;
        S2 += ai * ai;
        zi *= sigma;
        store4(z + i, zi);
        S += ai * zi;
    }
    Sz = lane_sum(S);
    return {lane_sum(Z), lane_sum(Su), lane_sum(Sv), lane_sum(S2)};
}

// Pass 5: a normalised (a *= invZ), z -> P zeta (z -= pz_coef a), c_i = 2 beta a_i (f_u u_i +
// f_v v_i + a_i h + r_coef z_i), and the sums of c, c u, c v, c a, c z.
inline GradientSums pass_gradient(double* a, const double* u, const double* v, double* z, double* c, std::size_t Lp,
                                  const GradientCoefficients& k) noexcept {
    V4 C = {}, Cu = {}, Cv = {}, Ca = {}, Cz = {}, ai, ui, vi, zi;
    for (std::size_t i = 0; i < Lp; i += kLanes) {
        load4(ai, a + i);
        load4(ui, u + i);
        load4(vi, v + i);
        load4(zi, z + i);
        ai *= k.inv_z;
        store4(a + i, ai);
        zi -= k.pz_coef * ai;
        store4(z + i, zi);
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

// Pass 6: sum (c_i - k a_i)^2, the squared norm of b orthogonal to a (summed directly, so
// without cancellation).
inline double pass_perp(const double* c, const double* a, double k, std::size_t Lp) noexcept {
    V4 S = {}, ci, ai;
    for (std::size_t i = 0; i < Lp; i += kLanes) {
        load4(ci, c + i);
        load4(ai, a + i);
        const V4 b = ci - k * ai;
        S += b * b;
    }
    return lane_sum(S);
}
