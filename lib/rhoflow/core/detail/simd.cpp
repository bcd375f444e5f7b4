#include "rhoflow/core/detail/simd.hpp"

#include <atomic>

namespace rhoflow::detail {

namespace {
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
constexpr bool kAvx2Compiled = true;
#else
constexpr bool kAvx2Compiled = false;
#endif
std::atomic<SimdVariant> forced{SimdVariant::automatic};

bool cpu_has_avx2() noexcept {
#if defined(__GNUC__) && defined(__x86_64__)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
#else
    return false;
#endif
}
}  // namespace

bool simd_variant_available(SimdVariant v) noexcept {
    return v != SimdVariant::avx2 || (kAvx2Compiled && cpu_has_avx2());
}

void force_simd_variant(SimdVariant v) noexcept { forced = v; }

SimdVariant active_simd_variant() noexcept {
    const SimdVariant f = forced.load(std::memory_order_relaxed);
    if (f != SimdVariant::automatic) return f;
    static const SimdVariant best = simd_variant_available(SimdVariant::avx2) ? SimdVariant::avx2 : SimdVariant::baseline;
    return best;
}

}  // namespace rhoflow::detail
