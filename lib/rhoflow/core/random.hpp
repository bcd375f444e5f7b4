// Counter-based random streams: one independent, reproducible stream per (seed, stream id).
//
// Generator: Random123's Philox4x64-10 (Salmon et al., "Parallel random numbers: as easy as
// 1, 2, 3", SC'11), keyed by {seed, stream id} and run on the counter {block, substream, 0, 0}.
// A trial's numbers therefore depend only on (seed, trial), never on which thread runs it or
// on what runs beside it; pure integer arithmetic makes the bits the same on every platform.
// Normals: a 256-layer ziggurat (Marsaglia & Tsang, J. Stat. Softw. 5(8), 2000) on one 64-bit
// draw per variate (8 bits layer, 1 bit sign, 52 bits magnitude), with the exact tail of
// Marsaglia (1964); about 99% of variates cost one draw and no transcendental call. Its tables
// are computed once at start-up (see detail/ziggurat.hpp). Gamma: Marsaglia & Tsang (2000).
#pragma once

#include <Random123/philox.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "rhoflow/core/detail/ziggurat.hpp"

namespace rhoflow {

/// A reproducible stream of random numbers identified by (seed, stream, substream).
class RandomStream {
public:
    /// The stream `stream` of master seed `seed`; `substream` separates uses inside one stream.
    RandomStream(std::uint64_t seed, std::uint64_t stream, std::uint64_t substream = 0) noexcept;

    /// Next 64 uniformly random bits.
    std::uint64_t next_u64() noexcept {
        if (pos_ == kBuffer) refill();
        return buf_[pos_++];
    }
    /// Uniform on the open interval (0, 1) with 53 random bits.
    double uniform() noexcept {
        return (static_cast<double>(next_u64() >> 11) + 0.5) * 0x1.0p-53;
    }
    /// Standard normal variate (ziggurat).
    double normal() noexcept {
        const std::uint64_t r = next_u64();
        const unsigned idx = static_cast<unsigned>(r & 0xff);
        const std::uint64_t mag = (r >> 9) & ((std::uint64_t{1} << 52) - 1);
        const auto& z = detail::ziggurat;
        if (mag < z.k[idx]) [[likely]] {
            // Sign from bit 8, applied without a (50% mispredicted) branch.
            // mag < 2^52: converting it as signed avoids the unsigned-to-double branch.
            const double x = static_cast<double>(static_cast<std::int64_t>(mag)) * z.w[idx];
            return std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) ^ ((r & 0x100) << 55));
        }
        return normal_slow(r);
    }
    /// Fills out[0..n) with standard normals.
    void fill_normal(double* out, std::size_t n) noexcept;
    /// Gamma(shape, 1) variate, shape > 0 (Marsaglia-Tsang, with the U^{1/a} boost below 1).
    double gamma(double shape) noexcept;
    /// Chi-square variate with k >= 0 degrees of freedom (chi2_0 = 0).
    double chi_squared(std::int64_t k) noexcept;
    /// Number of 64-bit draws consumed so far (for throughput accounting).
    std::uint64_t draws() const noexcept { return blocks_ * 4 - (kBuffer - pos_); }

private:
    // Philox blocks are generated 64 at a time: independent blocks overlap in the pipeline.
    static constexpr unsigned kBlocks = 64, kBuffer = 4 * kBlocks;
    void refill() noexcept;
    double normal_slow(std::uint64_t r) noexcept;

    using Philox = r123::Philox4x64;
    Philox::ctr_type ctr_;
    Philox::key_type key_;
    std::array<std::uint64_t, kBuffer> buf_{};
    unsigned pos_ = kBuffer;
    std::uint64_t blocks_ = 0;
};

}  // namespace rhoflow
