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

bool cpu_has_avx512() noexcept {
#if defined(__GNUC__) && defined(__x86_64__)
    return cpu_has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
#else
    return false;
#endif
}
}  // namespace

bool simd_variant_available(SimdVariant v) noexcept {
    switch (v) {
    case SimdVariant::avx2: return kAvx2Compiled && cpu_has_avx2();
    case SimdVariant::avx512: return kAvx2Compiled && cpu_has_avx512();
    default: return true;
    }
}

void force_simd_variant(SimdVariant v) noexcept { forced = v; }

SimdVariant active_simd_variant() noexcept {
    const SimdVariant f = forced.load(std::memory_order_relaxed);
    if (f != SimdVariant::automatic) return f;
    static const SimdVariant best = simd_variant_available(SimdVariant::avx512) ? SimdVariant::avx512
                                    : simd_variant_available(SimdVariant::avx2) ? SimdVariant::avx2
                                                                                 : SimdVariant::baseline;
    return best;
}

}  // namespace rhoflow::detail
