// The arithmetic passes of SampleDrawer::draw (model/sample.cpp) over the L tokens, written once
// and included once per instruction-set variant, each time inside its own namespace (and, for
// AVX2, its own `#pragma GCC target` region), so no include guard. The random draws between
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
// the lanes need no fixed assignment here).
inline void scale_max(double* x, std::size_t n, double sigma, double shift, V4& m) noexcept {
    using M = long __attribute__((vector_size(kLanes * sizeof(long))));
    V4 y;
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        load4(y, x + i);
        y = sigma * y + shift;
        store4(x + i, y);
        const M gt = y > m;  // all ones where y is larger
        m = reinterpret_cast<V4>((reinterpret_cast<M>(y) & gt) | (reinterpret_cast<M>(m) & ~gt));
    }
    for (; i < n; ++i) {
        x[i] = sigma * x[i] + shift;
        m[0] = x[i] > m[0] ? x[i] : m[0];
    }
}

// Pass 1: u[i] = sigma u[i] + mean_u (i < R) and v likewise, from standard normals; then
// a[i] = beta (u[i] - max u), the exponents of the softmax numerators. Returns max u.
inline double pass_scale(double* u, double* v, double* a, std::size_t L, std::size_t R, double sigma, double beta,
                         double mean_u, double mean_v) noexcept {
    const double inf = std::numeric_limits<double>::infinity();
    V4 m = {-inf, -inf, -inf, -inf};
    scale_max(u, R, sigma, mean_u, m);
    scale_max(u + R, L - R, sigma, 0.0, m);
    const double umax = std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
    for (std::size_t i = 0; i < R; ++i) v[i] = sigma * v[i] + mean_v;
    for (std::size_t i = R; i < L; ++i) v[i] *= sigma;
    for (std::size_t i = 0; i < L; ++i) a[i] = beta * (u[i] - umax);
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

// Pass 4: z[i] = sigma z[i] (standard normals in), returns sum a z.
inline double pass_zeta(double* z, const double* a, double sigma, std::size_t Lp) noexcept {
    V4 S = {}, zi, ai;
    for (std::size_t i = 0; i < Lp; i += kLanes) {
        load4(zi, z + i);
        load4(ai, a + i);
        zi *= sigma;
        store4(z + i, zi);
        S += ai * zi;
    }
    return lane_sum(S);
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
