// The arithmetic of detail/exp_nonpositive (e^x for x <= 0, see there for the method and its
// accuracy) on one GCC/Clang vector of doubles at a time, in two stages, so that a loop can run
// the first stage of one register while the second stage of the previous one waits on its
// inputs: the whole kernel is one chain about 16 operations deep (some 50 cycles), and issued in
// program order its operations fill the FP scheduler, which then runs at about half its ports'
// rate (llvm-mca -mcpu=znver3: "Scheduler full" 97% of dispatch stalls; on the AMD EPYC
// development machine 4.4 against 3.05 cycles per element pipelined, docs/benchmarks.md).
// Every operation is the scalar kernel's, lane by lane and in the same order, so every width
// and every variant gives the same bits. The callers (exp_nonpositive.cpp, model/detail/sample_passes.hpp) are
// compiled once per instruction-set variant; these always-inline templates take the caller's.
// Vectors pass by reference: no vector type crosses a call boundary (its ABI differs between the
// variants).
#pragma once

#include <cstring>

namespace rhoflow::detail::expv {

/// A vector's first stage: the reduced argument r, the exponent k and the lanes below -708.39.
template <class V, class VI>
struct Reduced {
    V r;
    VI ki, below;
};

/// Stage 1 for the lanes x0: k = round(x0 / ln 2), r = x0 - k ln 2 (Cody-Waite), and the lanes below.
template <class V, class VI>
[[gnu::always_inline]] inline void reduce(const V& x0, Reduced<V, VI>& d) noexcept {
    constexpr double log2e = 1.4426950408889634;
    constexpr double ln2_hi = 6.93145751953125e-1;  // 22 significant bits: k * ln2_hi is exact
    constexpr double ln2_lo = 1.42860682030941723212e-6;
    constexpr double shifter = 0x1.8p52;  // adding it rounds to an integer
    constexpr double lowest = -708.39;
    const V sh = V{} + shifter;
    // The scalar kernel clamps x to lowest below it; those lanes end as 0 whatever x is (finish
    // masks them), so x0 itself serves, one operation less.
    d.below = x0 < lowest;
    const V x = x0;
    const V t = x * log2e + sh;
    const V k = t - sh;
    d.ki = reinterpret_cast<VI>(t) - reinterpret_cast<VI>(sh);
    d.r = (x - k * ln2_hi) - k * ln2_lo;
}

/// Stage 2: out = e^r 2^k (the degree-13 Taylor polynomial by Estrin's scheme), 0 where below.
template <class V, class VI>
[[gnu::always_inline]] inline void finish(const Reduced<V, VI>& d, V& out) noexcept {
    const V r = d.r;
    const V r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
    const V q01 = 1.0 + r, q23 = 0.5 + r * (1.0 / 6.0), q45 = 1.0 / 24.0 + r * (1.0 / 120.0);
    const V q67 = 1.0 / 720.0 + r * (1.0 / 5040.0), q89 = 1.0 / 40320.0 + r * (1.0 / 362880.0);
    const V q1011 = 1.0 / 3628800.0 + r * (1.0 / 39916800.0);
    const V q1213 = 1.0 / 479001600.0 + r * (1.0 / 6227020800.0);
    const V s03 = q01 + r2 * q23, s47 = q45 + r2 * q67, s811 = q89 + r2 * q1011;
    const V t07 = s03 + r4 * s47, t813 = s811 + r4 * q1213;
    const V p = t07 + r8 * t813;
    const VI scale_bits = (d.ki + 1023) << 52;
    const V y = p * reinterpret_cast<V>(scale_bits);
    const VI y_bits = reinterpret_cast<VI>(y) & ~d.below;
    out = reinterpret_cast<V>(y_bits);
}

template <class V>
[[gnu::always_inline]] inline void load(V& x, const double* p) noexcept {
    std::memcpy(&x, p, sizeof x);
}
template <class V>
[[gnu::always_inline]] inline void store(double* p, const V& x) noexcept {
    std::memcpy(p, &x, sizeof x);
}

/// out[i] = e^{x_i} for i < n, x_i = in[i] (Affine false) or factor (in[i] - shift) (Affine true),
/// two registers a step, each step's first stage run beside the previous step's second.
template <class V, class VI, bool Affine>
[[gnu::always_inline]] inline void exp_array(const double* in, double* out, std::size_t n, double factor,
                                             double shift) noexcept {
    constexpr std::size_t W = sizeof(V) / sizeof(double);
    auto arg = [&](const double* p, V& x) {
        load(x, p);
        if constexpr (Affine) x = factor * (x - shift);
    };
    std::size_t i = 0;
    if (n >= 2 * W) {
        V x, y;
        Reduced<V, VI> c0, c1, n0, n1;
        arg(in, x);
        reduce(x, c0);
        arg(in + W, x);
        reduce(x, c1);
        for (; i + 4 * W <= n; i += 2 * W) {
            arg(in + i + 2 * W, x);
            reduce(x, n0);
            finish(c0, y);
            store(out + i, y);
            arg(in + i + 3 * W, x);
            reduce(x, n1);
            finish(c1, y);
            store(out + i + W, y);
            c0 = n0;
            c1 = n1;
        }
        finish(c0, y);
        store(out + i, y);
        finish(c1, y);
        store(out + i + W, y);
        i += 2 * W;
    }
    // The rest, a register at a time; the last one's missing lanes are zeros (their values unused).
    for (; i < n; i += W) {
        V x, y;
        Reduced<V, VI> c;
        if (i + W <= n) {
            arg(in + i, x);
        } else {
            x = V{};
            for (std::size_t j = 0; i + j < n; ++j) x[j] = in[i + j];
            if constexpr (Affine) x = factor * (x - shift);
        }
        reduce(x, c);
        finish(c, y);
        if (i + W <= n)
            store(out + i, y);
        else
            for (std::size_t j = 0; i + j < n; ++j) out[i + j] = y[j];
    }
}

}  // namespace rhoflow::detail::expv
