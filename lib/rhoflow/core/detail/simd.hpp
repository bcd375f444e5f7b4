// The instruction-set variants of rhoflow's hot kernels (the Philox refill of core/random.hpp,
// the softmax exponential of core/detail/exp_nonpositive.hpp, and the block normal generator of
// core/normal_block.hpp): each is compiled for the x86-64 baseline and, with GCC on x86-64, for
// AVX2 (Haswell), and the variant is chosen at run time from the CPU. The block normal generator
// has an AVX-512 variant too; the other two kernels run their AVX2 code under it. Every variant
// is plain integer or IEEE arithmetic without FMA contraction, so they give the same bits; the
// test suite forces each variant in turn (force_simd_variant) and pins the same golden values
// for all of them.
#pragma once

namespace rhoflow::detail {

/// A compiled variant of the hot kernels.
enum class SimdVariant {
    automatic,  ///< chosen from the CPU at run time (the default)
    baseline,   ///< x86-64 baseline (SSE2) or the portable build
    avx2,       ///< AVX2/BMI2 (Haswell and later), GCC on x86-64 only
    avx512      ///< AVX-512 F/DQ/BW/VL with AVX2/BMI2 (Skylake-X and later), GCC on x86-64 only
};

/// Whether the kernels with an AVX2 variant use it under `v` (avx2 and avx512).
constexpr bool simd_uses_avx2(SimdVariant v) noexcept { return v == SimdVariant::avx2 || v == SimdVariant::avx512; }

/// Whether `v` is compiled in and the CPU can run it.
bool simd_variant_available(SimdVariant v) noexcept;
/// Uses `v` for every kernel call from now on (automatic: back to the CPU's choice). Tests only;
/// not thread-safe with kernels running.
void force_simd_variant(SimdVariant v) noexcept;
/// The variant the kernels use now (never automatic).
SimdVariant active_simd_variant() noexcept;

}  // namespace rhoflow::detail
