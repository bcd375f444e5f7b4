// Counter-based random streams: one independent, reproducible stream per (seed, purpose, index).
//
// Generator: Random123's Philox4x64-10 (Salmon et al., "Parallel random numbers: as easy as
// 1, 2, 3", SC'11), keyed by {seed, index} and run on the counter {block, purpose, sub, 0}.
// Every use of randomness in rhoflow has its own StreamPurpose, and the purpose occupies a
// counter word that the block counter never reaches, so streams of two purposes never coincide
// whatever the seed, the indices and the run length (the list is in docs/cli.md,
// "Reproducibility"). A trial's numbers therefore depend only on (seed, purpose, trial), never
// on which thread or process runs it or on what runs beside it; pure integer arithmetic makes
// the bits the same on every platform.
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
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "rhoflow/core/detail/ziggurat.hpp"

namespace rhoflow {

/// What a stream is used for. Each purpose is a distinct counter word, so two purposes never
/// share a stream. Never renumber: the numbers of published results depend on these values.
enum class StreamPurpose : std::uint64_t {
    sga_trial = 0,         ///< trial `index` of an SGA ensemble (also its random initial query)
    montecarlo_field = 1,  ///< chunk `index` of the Monte Carlo field estimator
    step_size_study = 2,   ///< trial `index` of run `sub` (eta0 rank) of the comparator's step-size study
    one_step_moments = 3,  ///< grid point `index` of the one-step moment table of the rho-chain
    effective_sde = 4,     ///< path block `index` of the effective-dynamics (1-D SDE) ensemble
    bootstrap = 5,         ///< bootstrap replicas: index 0 a Monte Carlo table's, 1 (sub = replica) the effective ODE's tables', 2 (sub = replica) the resampled chain's bank
    effective_chain = 6,   ///< path block `index` of the resampled effective chain (effective/resampled_chain.hpp)
    verdict = 7,           ///< test `index` of the verdict's Monte Carlo null laws (effective/verdict.hpp)
};

/// "sga_trial", "montecarlo_field", ...
std::string_view to_string(StreamPurpose p);
/// Parses a purpose name; throws InvalidArgument naming `field` otherwise.
StreamPurpose parse_stream_purpose(std::string_view s, const std::string& field = "purpose");
/// The purpose's name.
void to_json(nlohmann::json& j, const StreamPurpose& p);
/// Parses a purpose's name.
void from_json(const nlohmann::json& j, StreamPurpose& p);

/// The identity of one stream: master seed, purpose, and indices within the purpose.
struct StreamId {
    std::uint64_t seed = 0;      ///< master seed (the user's --seed)
    StreamPurpose purpose = StreamPurpose::sga_trial;  ///< what the stream is for
    std::uint64_t index = 0;     ///< trial, chunk or grid point (Philox key word 1)
    std::uint64_t sub = 0;       ///< second index within the purpose (counter word 2)
    /// Two ids are equal iff they name the same stream.
    bool operator==(const StreamId&) const = default;
};

/// A reproducible stream of random numbers.
class RandomStream {
public:
    /// The stream of `id`: key {seed, index}, counter {block, purpose, sub, 0}.
    explicit RandomStream(const StreamId& id) noexcept
        : RandomStream(id.seed, id.index, static_cast<std::uint64_t>(id.purpose), id.sub) {}
    /// A raw stream: key {seed, stream}, counter {block, word1, word2, 0} (tests and benchmarks;
    /// library code names its purpose through StreamId).
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
