#include "rhoflow/core/random.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/detail/simd.hpp"
#include "rhoflow/core/errors.hpp"

namespace rhoflow {

namespace {
constexpr std::array<std::pair<StreamPurpose, std::string_view>, 8> kPurposes = {{
    {StreamPurpose::sga_trial, "sga_trial"},
    {StreamPurpose::montecarlo_field, "montecarlo_field"},
    {StreamPurpose::step_size_study, "step_size_study"},
    {StreamPurpose::one_step_moments, "one_step_moments"},
    {StreamPurpose::effective_sde, "effective_sde"},
    {StreamPurpose::bootstrap, "bootstrap"},
    {StreamPurpose::effective_chain, "effective_chain"},
    {StreamPurpose::verdict, "verdict"},
}};
}  // namespace

std::string_view to_string(StreamPurpose p) {
    for (const auto& [v, name] : kPurposes)
        if (v == p) return name;
    return "unknown";
}

StreamPurpose parse_stream_purpose(std::string_view s, const std::string& field) {
    for (const auto& [v, name] : kPurposes)
        if (name == s) return v;
    throw InvalidArgument(field, field + " = '" + std::string(s) + "' is not a stream purpose");
}

RHOFLOW_JSON_ENUM_HOOKS(StreamPurpose, parse_stream_purpose)

RandomStream::RandomStream(std::uint64_t seed, std::uint64_t stream, std::uint64_t word1,
                           std::uint64_t word2) noexcept {
    ctr_ = {{0, word1, word2, 0}};
    key_ = {{seed, stream}};
    nkey_ = normal_block_key(seed, stream, word1, word2);
}

namespace {

// Philox blocks for counters {c0 + b, c1, c2, c3}, b < blocks, inlined into one function per
// instruction-set variant (detail/simd.hpp): integer code, so every variant gives the same bits.
using Philox = r123::Philox4x64;
[[gnu::always_inline]] inline void philox_blocks(const Philox::ctr_type& ctr, const Philox::key_type& key,
                                                 std::uint64_t* out, unsigned blocks) noexcept {
    const Philox gen;
    for (unsigned b = 0; b < blocks; ++b) {
        Philox::ctr_type c = ctr;
        c[0] += b;
        const auto r = gen(c, key);
        for (unsigned i = 0; i < 4; ++i) out[4 * b + i] = r[i];
    }
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define RHOFLOW_HAVE_HASWELL_VARIANT 1
__attribute__((target("avx2,bmi2"))) void philox_haswell(const Philox::ctr_type& ctr, const Philox::key_type& key,
                                                            std::uint64_t* out, unsigned blocks) noexcept {
    philox_blocks(ctr, key, out, blocks);
}
#endif

void philox_baseline(const Philox::ctr_type& ctr, const Philox::key_type& key, std::uint64_t* out,
                     unsigned blocks) noexcept {
    philox_blocks(ctr, key, out, blocks);
}

}  // namespace

void RandomStream::refill() noexcept {
#ifdef RHOFLOW_HAVE_HASWELL_VARIANT
    if (detail::simd_uses_avx2(detail::active_simd_variant()))
        philox_haswell(ctr_, key_, buf_.data(), kBlocks);
    else
#endif
        philox_baseline(ctr_, key_, buf_.data(), kBlocks);
    ctr_[0] += kBlocks;
    blocks_ += kBlocks;
    pos_ = 0;
}

void RandomStream::refill_normals() noexcept {
    fill_normals(nkey_, nnext_, nbuf_.data(), kNormals);
    nnext_ += kNormals;
    npos_ = 0;
}

void RandomStream::fill_normal(double* out, std::size_t n) noexcept {
    // The buffered normals first, then the rest straight from the generator: normal number i
    // of the stream is the same whichever call returns it.
    const std::size_t buffered = std::min<std::size_t>(n, kNormals - npos_);
    std::copy_n(nbuf_.data() + npos_, buffered, out);
    npos_ += static_cast<unsigned>(buffered);
    if (buffered == n) return;
    fill_normals(nkey_, nnext_, out + buffered, n - buffered);
    nnext_ += n - buffered;
}

double RandomStream::gamma(double shape) noexcept {
    if (shape < 1.0) {
        // Gamma(a) = Gamma(a + 1) U^{1/a}.
        const double g = gamma(shape + 1.0);
        return g * std::pow(uniform(), 1.0 / shape);
    }
    const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = normal();
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        const double u = uniform();
        const double x2 = x * x;
        if (u < 1.0 - 0.0331 * x2 * x2) return d * v;
        if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return d * v;
    }
}

double RandomStream::chi_squared(std::int64_t k) noexcept {
    if (k <= 0) return 0.0;
    if (k <= 4) {
        double s = 0;
        for (std::int64_t i = 0; i < k; ++i) {
            const double z = normal();
            s += z * z;
        }
        return s;
    }
    return 2.0 * gamma(0.5 * static_cast<double>(k));
}

}  // namespace rhoflow
