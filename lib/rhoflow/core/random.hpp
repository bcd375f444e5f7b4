// Counter-based random streams: one independent, reproducible stream per (seed, purpose, index).
//
// Uniform bits: Random123's Philox4x64-10 (Salmon et al., "Parallel random numbers: as easy as
// 1, 2, 3", SC'11), keyed by {seed, index} and run on the counter {block, purpose, sub, 0}.
// Normals: the stream's block-normal substream (core/normal_block.hpp: Philox4x32-10 under words
// derived from the same (seed, index, purpose, sub), a 1024-layer ziggurat, vectorised), read in
// order: normal() takes the next one from a buffer, fill_normal() writes the next n straight into
// the caller's array. Normal number i of a stream is a pure function of (id, i), however the
// calls are split, and uniforms and normals never share bits.
// Every use of randomness in rhoflow has its own StreamPurpose, and the purpose occupies a
// counter word that the block counter never reaches, so streams of two purposes never coincide
// whatever the seed, the indices and the run length (the list is in docs/cli.md,
// "Reproducibility"). A trial's numbers therefore depend only on (seed, purpose, trial), never
// on which thread or process runs it or on what runs beside it; integer arithmetic and exact
// IEEE operations make the bits the same on every platform and instruction set.
// Gamma: Marsaglia & Tsang (2000), on this stream's normals and uniforms.
// History: before issue 20 the normals were a 256-layer ziggurat on the Philox4x64 bits, one
// draw each; every published number changed once when the block generator replaced it.
#pragma once

#include <Random123/philox.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "rhoflow/core/normal_block.hpp"
#include "rhoflow/core/stream_id.hpp"

namespace rhoflow {

/// A reproducible stream of random numbers.
class RandomStream {
public:
    /// The stream of `id`: uniforms from key {seed, index}, counter {block, purpose, sub, 0};
    /// normals from the block-normal stream of `id` (normal_block_key).
    explicit RandomStream(const StreamId& id) noexcept
        : RandomStream(id.seed, id.index, static_cast<std::uint64_t>(id.purpose), id.sub) {}
    /// A raw stream: key {seed, stream}, counter {block, word1, word2, 0}, normals likewise
    /// (tests and benchmarks; library code names its purpose through StreamId).
    RandomStream(std::uint64_t seed, std::uint64_t stream, std::uint64_t word1 = 0, std::uint64_t word2 = 0) noexcept;

    /// Next 64 uniformly random bits.
    std::uint64_t next_u64() noexcept {
        if (pos_ == kBuffer) refill();
        return buf_[pos_++];
    }
    /// Uniform on the open interval (0, 1) with 53 random bits.
    double uniform() noexcept {
        return (static_cast<double>(next_u64() >> 11) + 0.5) * 0x1.0p-53;
    }
    /// Standard normal variate: the next normal of the stream's block-normal substream.
    double normal() noexcept {
        if (npos_ == kNormals) refill_normals();
        return nbuf_[npos_++];
    }
    /// Fills out[0..n) with the stream's next n standard normals (those normal() would return).
    void fill_normal(double* out, std::size_t n) noexcept;
    /// Gamma(shape, 1) variate, shape > 0 (Marsaglia-Tsang, with the U^{1/a} boost below 1).
    double gamma(double shape) noexcept;
    /// Chi-square variate with k >= 0 degrees of freedom (chi2_0 = 0).
    double chi_squared(std::int64_t k) noexcept;
    /// Number of 64-bit uniform draws consumed so far (for throughput accounting).
    std::uint64_t draws() const noexcept { return blocks_ * 4 - (kBuffer - pos_); }
    /// Number of normals consumed so far (the index of the next one).
    std::uint64_t normals() const noexcept { return nnext_ - (kNormals - npos_); }

private:
    // Philox blocks are generated 64 at a time: independent blocks overlap in the pipeline.
    static constexpr unsigned kBlocks = 64, kBuffer = 4 * kBlocks;
    // Normals are made kNormals at a time for normal(); fill_normal() bypasses the buffer.
    static constexpr unsigned kNormals = 256;
    void refill() noexcept;
    void refill_normals() noexcept;

    using Philox = r123::Philox4x64;
    Philox::ctr_type ctr_;
    Philox::key_type key_;
    std::array<std::uint64_t, kBuffer> buf_{};
    unsigned pos_ = kBuffer;
    std::uint64_t blocks_ = 0;
    NormalBlockKey nkey_;
    std::uint64_t nnext_ = 0;  // index of the first normal not yet in nbuf_
    std::array<double, kNormals> nbuf_{};
    unsigned npos_ = kNormals;
};

}  // namespace rhoflow
