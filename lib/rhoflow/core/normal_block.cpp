#include "rhoflow/core/normal_block.hpp"

#include <Random123/philox.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>

#include "rhoflow/core/detail/exp_nonpositive.hpp"
#include "rhoflow/core/detail/simd.hpp"
#include "rhoflow/core/detail/block_ziggurat.hpp"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define RHOFLOW_NORMAL_BLOCK_X86 1
#include <immintrin.h>
#endif

namespace rhoflow {

namespace detail {

BlockZigguratTables::BlockZigguratTables() {
    constexpr double m = 0x1.0p52;
    constexpr int n = layers;
    double dn = r, tn = r;
    const double q = v / std::exp(-0.5 * dn * dn);
    k[0] = static_cast<std::uint64_t>((dn / q) * m);
    k[1] = 0;
    w[0] = q / m;
    w[n - 1] = dn / m;
    f[0] = 1.0;
    f[n - 1] = std::exp(-0.5 * dn * dn);
    for (int i = n - 2; i >= 1; --i) {
        dn = std::sqrt(-2.0 * std::log(v / dn + std::exp(-0.5 * dn * dn)));
        k[i + 1] = static_cast<std::uint64_t>((dn / tn) * m);
        tn = dn;
        f[i] = std::exp(-0.5 * dn * dn);
        w[i] = dn / m;
    }
    top_area = dn * (1.0 - f[1]);
    for (int i = 0; i < n; ++i) {
        const std::uint64_t bits = std::bit_cast<std::uint64_t>(w[i]);
        const bool fits = (bits & ~fast_w_bits) == fast_exponent && k[i] >= (std::uint64_t{1} << 44);
        const std::uint64_t word = fits ? (bits & fast_w_bits) | (((k[i] >> 44) - 1) << 55) : 0;
        fast[static_cast<std::size_t>(i)] = word;
        fast[static_cast<std::size_t>(i + n)] = fits ? word | (std::uint64_t{1} << 63) : 0;
    }
}

const BlockZigguratTables block_ziggurat;

}  // namespace detail

namespace {

constexpr std::uint64_t kMag = (std::uint64_t{1} << 52) - 1;
constexpr std::size_t kChunk = 2048;  // normals per pass of fill_normals: the draws stay in L1
// A draw's bits: layer 0..9, sign 10, magnitude 11..62 (bit 63 unused).
constexpr std::uint64_t kLayer = 0x3ff, kSign = 0x400;
constexpr int kMagShift = 11, kSignToTop = 53;
// Counter word 3 of the key derivation ("normal32"); RandomStream's counters have word 3 = 0.
constexpr std::uint64_t kDerivationTag = 0x6e6f726d616c3332;

// The ziggurat's fast path on one draw: x = m w[i] with the sign of bit 10; true when accepted
// (m < k[i]).
[[gnu::always_inline]] inline bool zig_fast_scalar(std::uint64_t r, double& out) noexcept {
    const auto& z = detail::block_ziggurat;
    const unsigned idx = static_cast<unsigned>(r & kLayer);
    const std::uint64_t mag = (r >> kMagShift) & kMag;
    const double x = static_cast<double>(static_cast<std::int64_t>(mag)) * z.w[idx];
    out = std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) ^ ((r & kSign) << kSignToTop));
    return mag < z.k[idx];
}

#ifdef RHOFLOW_NORMAL_BLOCK_X86
// The vector fast paths' word (detail/block_ziggurat.hpp): its index, and w's bits it keeps
// (0..54 and the sign) and gets back (the exponent's bits 55..62).
constexpr std::uint64_t kLayerSign = kLayer | kSign;
constexpr std::uint64_t kFastKeep = detail::BlockZigguratTables::fast_w_bits | (std::uint64_t{1} << 63);
constexpr std::uint64_t kFastExponent = detail::BlockZigguratTables::fast_exponent;

// Random123's Philox4x32 multipliers and Weyl key increments, for the vector rounds.
constexpr std::uint32_t kPhiloxM0 = PHILOX_M4x32_0, kPhiloxM1 = PHILOX_M4x32_1;
constexpr std::uint32_t kPhiloxW0 = PHILOX_W32_0, kPhiloxW1 = PHILOX_W32_1;

// ---------------------------------------------------------------- x86-64 baseline (SSE2)
namespace sse2 {
struct V {
    using I = __m128i;
    static constexpr int N = 2, U = 4;
    static I set1(std::uint64_t x) noexcept { return _mm_set1_epi64x(static_cast<long long>(x)); }
    static I iota() noexcept { return _mm_set_epi64x(1, 0); }
    static I add(I a, I b) noexcept { return _mm_add_epi64(a, b); }
    static I mul32(I a, I b) noexcept { return _mm_mul_epu32(a, b); }
    static I loadu(const std::uint64_t* p) noexcept { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
    static I srl32(I a) noexcept { return _mm_srli_epi64(a, 32); }
    static I swap32(I a) noexcept { return _mm_shuffle_epi32(a, 0xb1); }
    static I shl32(I a) noexcept { return _mm_slli_epi64(a, 32); }
    static I and_(I a, I b) noexcept { return _mm_and_si128(a, b); }
    static I or_(I a, I b) noexcept { return _mm_or_si128(a, b); }
    static I and_or(I a, I b, I c) noexcept { return or_(and_(a, b), c); }
    static I xor3(I a, I b, I c) noexcept { return _mm_xor_si128(_mm_xor_si128(a, b), c); }
    static void store_interleaved(std::uint64_t* out, I d0, I d1) noexcept {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi64(d0, d1));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2), _mm_unpackhi_epi64(d0, d1));
    }
    // No 64-bit compare nor gather in SSE2: the fast path lane by lane.
    static unsigned zig(const std::uint64_t* r, double* out) noexcept {
        unsigned rej = 0;
        for (int l = 0; l < N; ++l)
            if (!zig_fast_scalar(r[l], out[l])) rej |= 1u << l;
        return rej;
    }
};
#include "rhoflow/core/detail/normal_block_kernels.hpp"
}  // namespace sse2

// ---------------------------------------------------------------- AVX2
#pragma GCC push_options
#pragma GCC target("avx2,bmi2")
namespace avx2 {
struct V {
    using I = __m256i;
    static constexpr int N = 4, U = 4;
    static I set1(std::uint64_t x) noexcept { return _mm256_set1_epi64x(static_cast<long long>(x)); }
    static I iota() noexcept { return _mm256_set_epi64x(3, 2, 1, 0); }
    static I add(I a, I b) noexcept { return _mm256_add_epi64(a, b); }
    static I mul32(I a, I b) noexcept { return _mm256_mul_epu32(a, b); }
    static I loadu(const std::uint64_t* p) noexcept { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
    static I srl32(I a) noexcept { return _mm256_srli_epi64(a, 32); }
    static I swap32(I a) noexcept { return _mm256_shuffle_epi32(a, 0xb1); }
    static I shl32(I a) noexcept { return _mm256_slli_epi64(a, 32); }
    static I and_(I a, I b) noexcept { return _mm256_and_si256(a, b); }
    static I or_(I a, I b) noexcept { return _mm256_or_si256(a, b); }
    static I and_or(I a, I b, I c) noexcept { return or_(and_(a, b), c); }
    static I xor3(I a, I b, I c) noexcept { return _mm256_xor_si256(_mm256_xor_si256(a, b), c); }
    static void store_interleaved(std::uint64_t* out, I d0, I d1) noexcept {
        const I lo = _mm256_unpacklo_epi64(d0, d1), hi = _mm256_unpackhi_epi64(d0, d1);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4), _mm256_permute2x128_si256(lo, hi, 0x31));
    }
    // The fast words (detail/block_ziggurat.hpp) by four scalar loads (vpgatherqq is slow on
    // some cores); the exact conversion of mag < 2^52 is (2^52 + mag) - 2^52.
    static unsigned zig(const std::uint64_t* r, double* out) noexcept {
        const auto& z = detail::block_ziggurat;
        auto word = [&](int l) { return _mm_cvtsi64_si128(static_cast<long long>(z.fast[r[l] & kLayerSign])); };
        const I p = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi64(word(0), word(1))),
                                            _mm_unpacklo_epi64(word(2), word(3)), 1);
        const I y = _mm256_slli_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r)), 1);
        const __m256d w = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(p, set1(kFastKeep)), set1(kFastExponent)));
        const __m256d m = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64(y, 12), set1(0x4330000000000000))),
                                        _mm256_set1_pd(0x1.0p52));
        _mm256_storeu_pd(out, _mm256_mul_pd(m, w));
        // y < p << 1 unsigned, as a signed compare of both with the top bit flipped.
        const I top = set1(std::uint64_t{1} << 63);
        const I accept = _mm256_cmpgt_epi64(_mm256_xor_si256(_mm256_slli_epi64(p, 1), top), _mm256_xor_si256(y, top));
        return ~static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(accept))) & 0xfu;
    }
};
#include "rhoflow/core/detail/normal_block_kernels.hpp"
}  // namespace avx2
#pragma GCC pop_options

// ---------------------------------------------------------------- AVX-512
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,bmi2")
namespace avx512 {
// GCC 12's unmasked AVX-512 intrinsics start from an "undefined" register that
// -Wmaybe-uninitialized flags (GCC bug 105593): the shifts are written as vector operations and
// the rest as their all-lanes masked forms, which compile to the same instructions.
constexpr __mmask8 kAll = 0xff;
struct V {
    using I = __m512i;
    static constexpr int N = 8, U = 4;
    static I set1(std::uint64_t x) noexcept { return _mm512_set1_epi64(static_cast<long long>(x)); }
    static I iota() noexcept { return _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0); }
    static I add(I a, I b) noexcept { return _mm512_add_epi64(a, b); }
    static I mul32(I a, I b) noexcept { return _mm512_maskz_mul_epu32(kAll, a, b); }
    static I loadu(const std::uint64_t* p) noexcept { return _mm512_loadu_si512(p); }
    static I srl32(I a) noexcept { return reinterpret_cast<I>(reinterpret_cast<__v8du>(a) >> 32); }
    static I swap32(I a) noexcept { return _mm512_maskz_shuffle_epi32(0xffff, a, _MM_PERM_CDAB); }
    static I shl32(I a) noexcept { return reinterpret_cast<I>(reinterpret_cast<__v8du>(a) << 32); }
    static I and_(I a, I b) noexcept { return _mm512_and_si512(a, b); }
    static I or_(I a, I b) noexcept { return _mm512_or_si512(a, b); }
    static I and_or(I a, I b, I c) noexcept { return _mm512_ternarylogic_epi64(a, b, c, 0xea); }
    static I xor3(I a, I b, I c) noexcept { return _mm512_ternarylogic_epi64(a, b, c, 0x96); }
    static void store_interleaved(std::uint64_t* out, I d0, I d1) noexcept {
        const I lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
        _mm512_storeu_si512(out, _mm512_permutex2var_epi64(d0, lo, d1));
        _mm512_storeu_si512(out + 8, _mm512_permutex2var_epi64(d0, hi, d1));
    }
    // The fast words (detail/block_ziggurat.hpp) by eight scalar loads, w rebuilt by one ternary
    // op. On the AMD Zen 5 one vpgatherqq of the eight cost 0.51 ns per normal against 0.32 for
    // the loads (docs/benchmarks.md); the rest of the fast path, without any lookup, 0.18.
    static unsigned zig(const std::uint64_t* r, double* out) noexcept {
        const auto& z = detail::block_ziggurat;
        const I x = _mm512_loadu_si512(r);
        auto word = [&](int l) { return _mm_cvtsi64_si128(static_cast<long long>(z.fast[r[l] & kLayerSign])); };
        auto pair = [&](int l) { return _mm_unpacklo_epi64(word(l), word(l + 1)); };
        const __m256i lo = _mm256_inserti128_si256(_mm256_castsi128_si256(pair(0)), pair(2), 1);
        const __m256i hi = _mm256_inserti128_si256(_mm256_castsi128_si256(pair(4)), pair(6), 1);
        const I p = _mm512_mask_inserti64x4(_mm512_castsi256_si512(lo), kAll, _mm512_castsi256_si512(lo), hi, 1);
        return finish(x, p, out);
    }
    // The fast path on the draws x and their fast words p: out written, the rejected lanes' mask.
    static unsigned finish(I x, I p, double* out) noexcept {
        const __m512d w = _mm512_castsi512_pd(_mm512_ternarylogic_epi64(p, set1(kFastKeep), set1(kFastExponent), 0xea));  // A & B | C
        const I y = reinterpret_cast<I>(reinterpret_cast<__v8du>(x) << 1);
        const __m512d m = _mm512_maskz_cvtepi64_pd(kAll, reinterpret_cast<I>(reinterpret_cast<__v8du>(y) >> 12));  // mag < 2^52: exact
        _mm512_storeu_pd(out, _mm512_mul_pd(m, w));
        const __mmask8 accept = _mm512_cmplt_epu64_mask(y, reinterpret_cast<I>(reinterpret_cast<__v8du>(p) << 1));
        return ~static_cast<unsigned>(accept) & 0xffu;
    }
};
// The fast path with one gather of the eight fast words instead of scalar loads: the same bits;
// on Intel's cores, whose 512-bit shuffles (the loads' inserts) share one port, the faster.
struct VGather : V {
    static unsigned zig(const std::uint64_t* r, double* out) noexcept {
        const auto& z = detail::block_ziggurat;
        const I x = _mm512_loadu_si512(r);
        const I p = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), kAll, _mm512_and_si512(x, set1(kLayerSign)),
                                                z.fast.data(), 8);
        return finish(x, p, out);
    }
};
#include "rhoflow/core/detail/normal_block_kernels.hpp"
}  // namespace avx512
#pragma GCC pop_options

#else
// ---------------------------------------------------------------- portable build: plain C++
namespace portable {
void philox_draws(const NormalBlockKey& key, std::uint64_t first_block, std::uint64_t* out, std::size_t blocks) noexcept {
    const r123::Philox4x32 gen;
    const r123::Philox4x32::key_type k = {{key.key[0], key.key[1]}};
    for (std::size_t j = 0; j < blocks; ++j) {
        const std::uint64_t b = first_block + j;
        const auto w = gen(r123::Philox4x32::ctr_type{{static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b >> 32),
                                                      key.ctr_hi[0], key.ctr_hi[1]}}, k);
        out[2 * j] = w[0] | (std::uint64_t{w[1]} << 32);
        out[2 * j + 1] = w[2] | (std::uint64_t{w[3]} << 32);
    }
}
std::size_t zig_fast(const std::uint64_t* r, double* out, std::size_t m, std::uint32_t* rejected) noexcept {
    std::size_t nrej = 0;
    for (std::size_t j = 0; j < m; ++j)
        if (!zig_fast_scalar(r[j], out[j])) rejected[nrej++] = static_cast<std::uint32_t>(j);
    return nrej;
}
void philox_slow_first(const NormalBlockKey& key, const std::uint64_t* idx, std::size_t n, std::uint64_t* out) noexcept {
    const r123::Philox4x32 gen;
    const r123::Philox4x32::key_type k = {{key.slow_key[0], key.slow_key[1]}};
    for (std::size_t j = 0; j < n; ++j) {
        const auto w = gen(r123::Philox4x32::ctr_type{{0, static_cast<std::uint32_t>(idx[j]), static_cast<std::uint32_t>(idx[j] >> 32),
                                                      key.slow_ctr}}, k);
        out[2 * j] = w[0] | (std::uint64_t{w[1]} << 32);
        out[2 * j + 1] = w[2] | (std::uint64_t{w[3]} << 32);
    }
}
}  // namespace portable
#endif

// The kernels of the active variant.
struct Kernels {
    void (*philox)(const NormalBlockKey&, std::uint64_t, std::uint64_t*, std::size_t) noexcept;
    std::size_t (*zig)(const std::uint64_t*, double*, std::size_t, std::uint32_t*) noexcept;
    void (*slow_first)(const NormalBlockKey&, const std::uint64_t*, std::size_t, std::uint64_t*) noexcept;
    std::size_t group;  // slow_first takes a multiple of this many normals
};

Kernels active_kernels() noexcept {
#ifdef RHOFLOW_NORMAL_BLOCK_X86
    switch (detail::active_simd_variant()) {
    case detail::SimdVariant::avx512:
        return {avx512::philox_draws,
                detail::active_ziggurat_lookup() == detail::ZigguratLookup::gather ? avx512::zig_fast<avx512::VGather>
                                                                                   : avx512::zig_fast<avx512::V>,
                avx512::philox_slow_first, avx512::V::N * avx512::V::U};
    case detail::SimdVariant::avx2:
        return {avx2::philox_draws, avx2::zig_fast<avx2::V>, avx2::philox_slow_first, avx2::V::N * avx2::V::U};
    default: return {sse2::philox_draws, sse2::zig_fast<sse2::V>, sse2::philox_slow_first, sse2::V::N * sse2::V::U};
    }
#else
    return {portable::philox_draws, portable::zig_fast, portable::philox_slow_first, 1};
#endif
}

// Uniform on (0, 1) from 53 bits, as RandomStream::uniform.
double to_uniform(std::uint64_t r) noexcept { return (static_cast<double>(r >> 11) + 0.5) * 0x1.0p-53; }

// The slow path's extra draws for normal i: Philox4x32-10 keyed {s0, s1} at {j, lo32(i), hi32(i), s2},
// the block j = 0 computed beforehand (first[0..2), by the vector kernel, for all of a chunk's
// rejected draws at once).
class SlowDraws {
public:
    SlowDraws(const NormalBlockKey& key, std::uint64_t i, const std::uint64_t* first) noexcept
        : key_{{key.slow_key[0], key.slow_key[1]}},
          ctr_{{1, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i >> 32), key.slow_ctr}},
          buf_{first[0], first[1]},
          pos_(0) {}
    std::uint64_t next_u64() noexcept {
        if (pos_ == 2) {
            const auto w = r123::Philox4x32()(ctr_, key_);
            ++ctr_[0];
            buf_[0] = w[0] | (std::uint64_t{w[1]} << 32);
            buf_[1] = w[2] | (std::uint64_t{w[3]} << 32);
            pos_ = 0;
        }
        return buf_[pos_++];
    }
    double uniform() noexcept { return to_uniform(next_u64()); }

private:
    r123::Philox4x32::key_type key_;
    r123::Philox4x32::ctr_type ctr_;
    std::uint64_t buf_[2];
    unsigned pos_;
};

// e^{-x^2/2} of the wedge test: rhoflow's own exp (the same bits with every variant and libm).
double wedge_exp(double x) noexcept {
    const double a = -0.5 * x * x;
    double e;
    detail::exp_nonpositive(&a, &e, 1);
    return e;
}

// The ziggurat's slow path (Marsaglia & Tsang's, on the 1024-layer tables) for the fast path's rejected draw r of
// normal i (one scalar function for every variant), its wedge test with rhoflow's exp.
double slow_normal(const NormalBlockKey& key, std::uint64_t i, std::uint64_t r, const std::uint64_t* first) noexcept {
    const auto& z = detail::block_ziggurat;
    SlowDraws d(key, i, first);
    for (;;) {
        const unsigned idx = static_cast<unsigned>(r & kLayer);
        const std::uint64_t mag = (r >> kMagShift) & kMag;
        const bool negative = (r & kSign) != 0;
        double x = static_cast<double>(static_cast<std::int64_t>(mag)) * z.w[idx];
        if (mag < z.k[idx]) return negative ? -x : x;
        if (idx == 0) {
            // Tail beyond r: Marsaglia's exact method.
            for (;;) {
                const double xx = -std::log(d.uniform()) / detail::BlockZigguratTables::r;
                const double yy = -std::log(d.uniform());
                if (yy + yy > xx * xx) {
                    x = detail::BlockZigguratTables::r + xx;
                    return negative ? -x : x;
                }
            }
        }
        if (z.f[idx] + d.uniform() * (z.f[idx - 1] - z.f[idx]) < wedge_exp(x)) return negative ? -x : x;
        r = d.next_u64();
    }
}

// The slow path of a chunk's rejected draws r[rejected[j]], j < nrej, with their first extra
// blocks in first_blocks[2j, 2j + 2): the wedge test of all at once (its exps in one vector
// call), then slow_normal from scratch for the few it rejects and the tail (layer 0), which
// gives the same bits as slow_normal for all.
void slow_path(const NormalBlockKey& key, std::uint64_t first, const std::uint64_t* r, const std::uint64_t* first_blocks,
               const std::uint32_t* rejected, std::size_t nrej, double* out) noexcept {
    constexpr std::size_t kBatch = 256;
    const auto& z = detail::block_ziggurat;
    double x[kBatch], bound[kBatch], e[kBatch];
    for (std::size_t j0 = 0; j0 < nrej; j0 += kBatch) {
        const std::size_t nb = std::min(kBatch, nrej - j0);
        for (std::size_t j = 0; j < nb; ++j) {
            const std::uint64_t rj = r[rejected[j0 + j]];
            const unsigned idx = static_cast<unsigned>(rj & kLayer);
            x[j] = static_cast<double>(static_cast<std::int64_t>((rj >> kMagShift) & kMag)) * z.w[idx];
            e[j] = -0.5 * x[j] * x[j];
            const double u = to_uniform(first_blocks[2 * (j0 + j)]);
            bound[j] = idx == 0 ? 2.0 : z.f[idx] + u * (z.f[idx - 1] - z.f[idx]);  // layer 0: never here
        }
        detail::exp_nonpositive(e, e, nb);
        for (std::size_t j = 0; j < nb; ++j) {
            const std::uint32_t p = rejected[j0 + j];
            if (bound[j] < e[j]) out[p] = (r[p] & kSign) != 0 ? -x[j] : x[j];
            else out[p] = slow_normal(key, first + p, r[p], first_blocks + 2 * (j0 + j));
        }
    }
}

// The exact test (m < k[i]) on the fast path's rejected draws r[rejected[j]], j < nrej: the
// vector variants' test is conservative (detail/block_ziggurat.hpp), so about half of what they
// reject is accepted here. Keeps the rest in rejected; returns their count. Without a branch
// on the outcome, which is a coin toss.
std::size_t exact_recheck(const std::uint64_t* r, double* out, std::uint32_t* rejected, std::size_t nrej) noexcept {
    std::size_t kept = 0;
    for (std::size_t j = 0; j < nrej; ++j) {
        const std::uint32_t p = rejected[j];
        rejected[kept] = p;
        kept += zig_fast_scalar(r[p], out[p]) ? 0 : 1;
    }
    return kept;
}

}  // namespace

NormalBlockKey normal_block_key(const StreamId& id) noexcept {
    return normal_block_key(id.seed, id.index, static_cast<std::uint64_t>(id.purpose), id.sub);
}

NormalBlockKey normal_block_key(std::uint64_t seed, std::uint64_t stream, std::uint64_t word1, std::uint64_t word2) noexcept {
    const auto w = r123::Philox4x64()(r123::Philox4x64::ctr_type{{word1, word2, 0, kDerivationTag}},
                                      r123::Philox4x64::key_type{{seed, stream}});
    auto lo = [](std::uint64_t x) { return static_cast<std::uint32_t>(x); };
    auto hi = [](std::uint64_t x) { return static_cast<std::uint32_t>(x >> 32); };
    NormalBlockKey k;
    k.key = {lo(w[0]), hi(w[0])};
    k.ctr_hi = {lo(w[1]), hi(w[1])};
    k.slow_key = {lo(w[2]), hi(w[2])};
    k.slow_ctr = lo(w[3]);
    return k;
}

void fill_normals(const StreamId& id, std::uint64_t first, double* out, std::size_t n) noexcept {
    fill_normals(normal_block_key(id), first, out, n);
}

void fill_normals(const NormalBlockKey& key, std::uint64_t first, double* out, std::size_t n) noexcept {
    constexpr std::size_t kMaxGroup = 32;  // the largest variant's U * N (AVX-512: 4 x 8)
#ifdef RHOFLOW_NORMAL_BLOCK_X86
    static_assert(avx512::V::U * avx512::V::N <= kMaxGroup && avx2::V::U * avx2::V::N <= kMaxGroup &&
                  sse2::V::U * sse2::V::N <= kMaxGroup);
#endif
    alignas(64) std::uint64_t draws[kChunk + 2], slow_index[kChunk + kMaxGroup], slow_draws[2 * (kChunk + kMaxGroup)];
    std::uint32_t rejected[kChunk];
    const Kernels kern = active_kernels();
    while (n > 0) {
        const std::size_t off = static_cast<std::size_t>(first & 1), m = std::min(n, kChunk);
        kern.philox(key, first / 2, draws, (off + m + 1) / 2);
        const std::size_t nrej = exact_recheck(draws + off, out, rejected, kern.zig(draws + off, out, m, rejected));
        if (nrej > 0) {
            const std::size_t padded = (nrej + kern.group - 1) / kern.group * kern.group;
            for (std::size_t j = 0; j < padded; ++j) slow_index[j] = first + (j < nrej ? rejected[j] : 0);
            kern.slow_first(key, slow_index, padded, slow_draws);
        }
        slow_path(key, first, draws + off, slow_draws, rejected, nrej, out);
        first += m;
        out += m;
        n -= m;
    }
}

namespace detail {

namespace {
std::atomic<ZigguratLookup> forced_lookup{ZigguratLookup::automatic};
}  // namespace

void force_ziggurat_lookup(ZigguratLookup l) noexcept { forced_lookup = l; }

ZigguratLookup active_ziggurat_lookup() noexcept {
    const ZigguratLookup f = forced_lookup.load(std::memory_order_relaxed);
    if (f != ZigguratLookup::automatic) return f;
#if defined(__GNUC__) && defined(__x86_64__)
    static const ZigguratLookup best = __builtin_cpu_is("amd") ? ZigguratLookup::loads : ZigguratLookup::gather;
#else
    static const ZigguratLookup best = ZigguratLookup::gather;
#endif
    return best;
}

void philox4x32_draws(const NormalBlockKey& key, std::uint64_t first_block, std::uint64_t* out,
                      std::size_t blocks) noexcept {
    active_kernels().philox(key, first_block, out, blocks);
}

std::size_t ziggurat_fast_path(const std::uint64_t* r, double* out, std::size_t m, std::uint32_t* rejected) noexcept {
    const Kernels kern = active_kernels();
    std::size_t nrej = 0;
    for (std::size_t j = 0; j < m; j += kChunk) {
        const std::size_t len = std::min(kChunk, m - j), got = kern.zig(r + j, out + j, len, rejected + nrej);
        for (std::size_t l = 0; l < got; ++l) rejected[nrej + l] += static_cast<std::uint32_t>(j);
        nrej += got;
    }
    return nrej;
}

}  // namespace detail

}  // namespace rhoflow
