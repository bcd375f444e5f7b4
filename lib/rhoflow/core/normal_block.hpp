// Block normal generator: standard normals filled a block at a time with every SIMD lane busy,
// one reproducible stream per StreamId. Every normal rhoflow draws comes from here, through
// RandomStream::normal() and fill_normal() (core/random.hpp), since issue 20.
//
// Method. Normal number i (i = 0, 1, 2, ...) of a stream is a pure function of (id, i):
// - Bits: Random123's Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
//   3", SC'11), whose rounds are 32x32 -> 64-bit multiplies and so vectorise (8 counters per
//   AVX-512 register, 4 per AVX2, 2 per SSE2). Block b = i / 2 runs on the counter
//   {lo32(b), hi32(b), h0, h1} under the key {k0, k1}; its words w0..w3 give the 64-bit draws
//   w0 | w1 << 32 (normal 2b) and w2 | w3 << 32 (normal 2b + 1).
// - Stream keys: (k0, k1, h0, h1) and the slow path's (s0, s1, s2) are the words of
//   Philox4x64-10 keyed {seed, index} at the counter {purpose, sub, 0, "normal32"}, a counter
//   RandomStream never uses (its word 3 is 0). Philox4x64 is a bijection of the counter, so two
//   purposes or subs of one (seed, index) never get the same 256 bits; two streams share their
//   main draws only if their 128 bits (k0, k1, h0, h1) coincide, probability 2^-128 per pair.
// - Transform: a 1024-layer ziggurat (Marsaglia & Tsang, J. Stat. Softw. 5(8), 2000; tables in
//   detail/block_ziggurat.hpp, Marsaglia and Tsang's construction with 1024 layers)
//   on one 64-bit draw: bits 0-9 layer, bit 10 sign, bits 11-62 magnitude m. Its fast path
//   (99.57% of draws: m < k[layer], then x = m w[layer]) is integer compares, an exact
//   integer-to-double conversion and one IEEE multiply, vectorised, its table lookups as scalar
//   loads on AVX2 (19% faster than AVX2's gathers on an AMD EPYC) and on AVX-512 on AMD CPUs (a
//   Zen 5's gather: 0.51 against 0.30 ns per normal), as gathers on AVX-512 elsewhere
//   (docs/benchmarks.md; ZigguratLookup below). A rejected draw goes to the slow path: the wedge test (its exp is rhoflow's
//   detail/exp_nonpositive, the same bits everywhere) and Marsaglia's (1964) exact tail beyond
//   r = 4.0388, with extra draws from Philox4x32-10 keyed {s0, s1} at the counter
//   {j, lo32(i), hi32(i), s2}, j = 0, 1, ...; the wedge tests of a chunk run together, the rest
//   is one scalar function for every variant.
// - Variants: the Philox rounds and the fast path are compiled for the x86-64 baseline (SSE2),
//   AVX2 and AVX-512 (F, DQ, BW, VL) and chosen at run time (detail/simd.hpp); integer
//   arithmetic and exact double operations without FMA contraction (the file is compiled with
//   -ffp-contract=off) give the same bits on every variant (tests force each variant against a
//   scalar reference and pinned golden values).
// When it fails: the law is the ziggurat's, exact up to the 52-bit magnitude grid (|x| is a
//   multiple of w[layer], about 2^-52 of the layer's edge) and the tail's 53-bit uniforms (so
//   |x| < r + 37.5 / r, about 13.3). The tail uses libm's log, and the tables are computed at
//   start-up with libm's exp and log (as RandomStream's): the bits could differ between C
//   libraries, never between variants. A stream has 2^64 normals; indices wrap beyond.
//   Statistical quality is Philox4x32-10's: Crush-resistant, it passes TestU01's BigCrush
//   (Salmon et al. 2011); TestU01 is not packaged by Debian 12, so docs/cli.md, "Reproducibility",
//   says why that suffices and what the tests check.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "rhoflow/core/stream_id.hpp"

namespace rhoflow {

/// The Philox4x32 words of one block-normal stream, derived from its StreamId (see above).
struct NormalBlockKey {
    std::array<std::uint32_t, 2> key{};       ///< Philox4x32 key {k0, k1} of the main draws
    std::array<std::uint32_t, 2> ctr_hi{};    ///< counter words 2 and 3 {h0, h1} of the main draws
    std::array<std::uint32_t, 2> slow_key{};  ///< key {s0, s1} of the slow path's extra draws
    std::uint32_t slow_ctr = 0;               ///< counter word 3 (s2) of the slow path's draws
    /// Two keys are equal iff they name the same stream.
    bool operator==(const NormalBlockKey&) const = default;
};

/// The words of id's stream: Philox4x64-10 keyed {seed, index} at counter {purpose, sub, 0, "normal32"}.
NormalBlockKey normal_block_key(const StreamId& id) noexcept;
/// The same for a raw stream: keyed {seed, stream} at counter {word1, word2, 0, "normal32"}
/// (RandomStream's raw constructor).
NormalBlockKey normal_block_key(std::uint64_t seed, std::uint64_t stream, std::uint64_t word1, std::uint64_t word2) noexcept;

/// out[j] = normal number first + j of id's stream, for j < n (any first, any n).
void fill_normals(const StreamId& id, std::uint64_t first, double* out, std::size_t n) noexcept;
/// The same with the stream's words already derived (saves the derivation per call).
void fill_normals(const NormalBlockKey& key, std::uint64_t first, double* out, std::size_t n) noexcept;

/// A block-normal stream read in order: fill() continues where the previous call stopped.
class NormalBlockStream {
public:
    /// The stream of `id`, positioned at its normal number `first`.
    explicit NormalBlockStream(const StreamId& id, std::uint64_t first = 0) noexcept
        : key_(normal_block_key(id)), next_(first) {}
    /// Fills out[0..n) with the stream's next n normals.
    void fill(double* out, std::size_t n) noexcept {
        fill_normals(key_, next_, out, n);
        next_ += n;
    }
    /// The index of the next normal fill() returns.
    std::uint64_t position() const noexcept { return next_; }
    /// The stream's derived words.
    const NormalBlockKey& key() const noexcept { return key_; }

private:
    NormalBlockKey key_;
    std::uint64_t next_;
};

namespace detail {

/// Philox4x32-10 draws of blocks b = first_block .. first_block + blocks - 1 on counter
/// {lo32(b), hi32(b), h0, h1}: out[2k] = w0 | w1 << 32, out[2k + 1] = w2 | w3 << 32 of block
/// first_block + k (the active SIMD variant; exposed for the tests and the benchmark).
void philox4x32_draws(const NormalBlockKey& key, std::uint64_t first_block, std::uint64_t* out,
                      std::size_t blocks) noexcept;

/// How the AVX-512 fast path reads its table: one gather of eight words, or eight scalar loads.
/// The same bits; automatic: the loads on AMD CPUs (a Zen 5 gathers slowly), the gather elsewhere.
enum class ZigguratLookup {
    automatic,  ///< chosen from the CPU's vendor (the default)
    gather,     ///< vpgatherqq
    loads       ///< scalar loads and inserts
};
/// Uses `l` from now on (automatic: back to the CPU's choice). Tests and the benchmark only; not
/// thread-safe with kernels running.
void force_ziggurat_lookup(ZigguratLookup l) noexcept;
/// The lookup the AVX-512 fast path uses now (never automatic).
ZigguratLookup active_ziggurat_lookup() noexcept;

/// The active variant's ziggurat fast path on the draws r[0..m) (bits as in normal_block.cpp):
/// out[j] = its value of draw j, and the positions it rejects in rejected[0..returned) (room
/// for m); exposed for the tests, which check it accepts only what the exact test accepts.
std::size_t ziggurat_fast_path(const std::uint64_t* r, double* out, std::size_t m, std::uint32_t* rejected) noexcept;

}  // namespace detail

}  // namespace rhoflow
