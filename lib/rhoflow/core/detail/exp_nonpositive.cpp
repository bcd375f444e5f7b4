#include "rhoflow/core/detail/exp_nonpositive.hpp"

#include <bit>
#include <cstdint>

#include "rhoflow/core/detail/exp_vector.hpp"
#include "rhoflow/core/detail/simd.hpp"

namespace rhoflow::detail {

namespace {

// The kernel, inlined into one function per instruction-set variant (see detail/simd.hpp); with
// Affine, of factor (in[i] - shift).
template <bool Affine>
[[gnu::always_inline]] inline void exp_kernel(const double* in, double* out, std::size_t n, double factor,
                                              double shift) noexcept {
    constexpr double log2e = 1.4426950408889634;
    constexpr double ln2_hi = 6.93145751953125e-1;  // 22 significant bits: k * ln2_hi is exact
    constexpr double ln2_lo = 1.42860682030941723212e-6;
    constexpr double shifter = 0x1.8p52;             // adding it rounds to an integer
    constexpr double lowest = -708.39;
    for (std::size_t i = 0; i < n; ++i) {
        const double x0 = Affine ? factor * (in[i] - shift) : in[i];
        const double x = x0 < lowest ? lowest : x0;
        const double t = x * log2e + shifter;
        const double k = t - shifter;
        const std::int64_t ki = std::bit_cast<std::int64_t>(t) - std::bit_cast<std::int64_t>(shifter);
        const double r = (x - k * ln2_hi) - k * ln2_lo;
        // Degree-13 Taylor polynomial by Estrin's scheme (dependency depth 8 instead of 26).
        const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
        const double q01 = 1.0 + r, q23 = 0.5 + r * (1.0 / 6.0), q45 = 1.0 / 24.0 + r * (1.0 / 120.0);
        const double q67 = 1.0 / 720.0 + r * (1.0 / 5040.0), q89 = 1.0 / 40320.0 + r * (1.0 / 362880.0);
        const double q1011 = 1.0 / 3628800.0 + r * (1.0 / 39916800.0);
        const double q1213 = 1.0 / 479001600.0 + r * (1.0 / 6227020800.0);
        const double s03 = q01 + r2 * q23, s47 = q45 + r2 * q67, s811 = q89 + r2 * q1011;
        const double t07 = s03 + r4 * s47, t813 = s811 + r4 * q1213;
        const double p = t07 + r8 * t813;
        const double scale = std::bit_cast<double>(static_cast<std::uint64_t>(ki + 1023) << 52);
        out[i] = x0 < lowest ? 0.0 : p * scale;
    }
}

constexpr std::size_t kShort = 32;

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define RHOFLOW_HAVE_AVX2_VARIANT 1
// Explicit vectors, two stages interleaved (detail/exp_vector.hpp): the same bits as exp_kernel.
// Short arrays (the normal generator's wedge tests, a few per call) by exp_kernel's loop, which
// measured faster there (26 against 52 cycles for 9 elements).
using V4 = double __attribute__((vector_size(32)));
using VI4 = long __attribute__((vector_size(32)));
template <bool Affine>
__attribute__((target("avx2"))) void exp_avx2(const double* in, double* out, std::size_t n, double f, double c) noexcept {
    if (n < kShort) return exp_kernel<Affine>(in, out, n, f, c);
    expv::exp_array<V4, VI4, Affine>(in, out, n, f, c);
}
// Eight lanes a register; the same IEEE operations lane by lane, so the same bits.
template <bool Affine>
__attribute__((target("avx512f,avx512dq,avx512vl,avx2"))) void exp_avx512(const double* in, double* out, std::size_t n, double f,
                                                                         double c) noexcept {
    exp_kernel<Affine>(in, out, n, f, c);
}
#endif

using V2 = double __attribute__((vector_size(16)));
using VI2 = long __attribute__((vector_size(16)));
template <bool Affine>
void exp_baseline(const double* in, double* out, std::size_t n, double f, double c) noexcept {
    if (n < kShort) return exp_kernel<Affine>(in, out, n, f, c);
    expv::exp_array<V2, VI2, Affine>(in, out, n, f, c);
}

// The variant in force (detail/simd.hpp).
template <bool Affine>
void exp_dispatch(const double* in, double* out, std::size_t n, double f, double c) noexcept {
#ifdef RHOFLOW_HAVE_AVX2_VARIANT
    const SimdVariant v = active_simd_variant();
    if (v == SimdVariant::avx512) return exp_avx512<Affine>(in, out, n, f, c);
    if (simd_uses_avx2(v)) return exp_avx2<Affine>(in, out, n, f, c);
#endif
    exp_baseline<Affine>(in, out, n, f, c);
}

}  // namespace

void exp_nonpositive(const double* in, double* out, std::size_t n) noexcept { exp_dispatch<false>(in, out, n, 1, 0); }

void exp_nonpositive_affine(const double* in, double scale, double shift, double* out, std::size_t n) noexcept {
    exp_dispatch<true>(in, out, n, scale, shift);
}

}  // namespace rhoflow::detail
