// The block normal generator (core/normal_block.hpp): its vector Philox4x32-10 against
// Random123's scalar one, every variant's bits (AVX-512 with each of its table lookups) against
// a scalar reference written here from the header's definition and against pinned golden
// values, and its law. Every statistical test uses
// a fixed seed, so it is deterministic; its stated false-alarm rate is the probability that it
// would reject the exact normal law with a fresh seed.
#include "rhoflow/core/normal_block.hpp"

#include <Random123/philox.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <boost/math/distributions/poisson.hpp>
#include <cmath>
#include <vector>

#include "rhoflow/core/detail/exp_nonpositive.hpp"
#include "rhoflow/core/detail/simd.hpp"
#include "rhoflow/core/detail/block_ziggurat.hpp"
#include "rhoflow/core/stats.hpp"
#include "test_util.hpp"

using namespace rhoflow;
using detail::SimdVariant;

namespace {

using test::ForceSimdVariant;
using test::available_simd_variants;

// Every variant the CPU runs, and AVX-512 with each of its table lookups (gather, loads): what
// the generator computes under each, forced in turn.
struct Kernel {
    SimdVariant variant;
    detail::ZigguratLookup lookup;
};
std::vector<Kernel> available_kernels() {
    std::vector<Kernel> out;
    for (const SimdVariant v : available_simd_variants()) {
        if (v != SimdVariant::avx512) out.push_back({v, detail::ZigguratLookup::automatic});
        else
            for (const auto l : {detail::ZigguratLookup::gather, detail::ZigguratLookup::loads}) out.push_back({v, l});
    }
    return out;
}
// Forces a kernel for a scope.
struct ForceKernel {
    ForceSimdVariant variant;
    explicit ForceKernel(const Kernel& k) : variant(k.variant) { detail::force_ziggurat_lookup(k.lookup); }
    ~ForceKernel() { detail::force_ziggurat_lookup(detail::ZigguratLookup::automatic); }
    ForceKernel(const ForceKernel&) = delete;
    ForceKernel& operator=(const ForceKernel&) = delete;
};

std::uint64_t join(std::uint32_t lo, std::uint32_t hi) { return lo | (std::uint64_t{hi} << 32); }

// The header's definition, scalar and independent of the library's kernels: the stream words,
// the draw of normal i, the ziggurat with its slow path on the extra draws.
NormalBlockKey reference_key(const StreamId& id) {
    const auto w = r123::Philox4x64()(
        r123::Philox4x64::ctr_type{{static_cast<std::uint64_t>(id.purpose), id.sub, 0, 0x6e6f726d616c3332}},
        r123::Philox4x64::key_type{{id.seed, id.index}});
    NormalBlockKey k;
    k.key = {static_cast<std::uint32_t>(w[0]), static_cast<std::uint32_t>(w[0] >> 32)};
    k.ctr_hi = {static_cast<std::uint32_t>(w[1]), static_cast<std::uint32_t>(w[1] >> 32)};
    k.slow_key = {static_cast<std::uint32_t>(w[2]), static_cast<std::uint32_t>(w[2] >> 32)};
    k.slow_ctr = static_cast<std::uint32_t>(w[3]);
    return k;
}

std::uint64_t reference_draw(const NormalBlockKey& k, std::uint64_t i) {
    const std::uint64_t b = i / 2;
    const auto w = r123::Philox4x32()(
        r123::Philox4x32::ctr_type{{static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b >> 32), k.ctr_hi[0], k.ctr_hi[1]}},
        r123::Philox4x32::key_type{{k.key[0], k.key[1]}});
    return i % 2 == 0 ? join(w[0], w[1]) : join(w[2], w[3]);
}

double reference_normal(const NormalBlockKey& k, std::uint64_t i) {
    const auto& z = detail::block_ziggurat;
    std::uint32_t j = 0;
    std::vector<std::uint64_t> extra;
    auto next = [&]() {
        if (extra.empty()) {
            const auto w = r123::Philox4x32()(
                r123::Philox4x32::ctr_type{{j++, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i >> 32), k.slow_ctr}},
                r123::Philox4x32::key_type{{k.slow_key[0], k.slow_key[1]}});
            extra = {join(w[2], w[3]), join(w[0], w[1])};  // popped from the back: w0|w1 first
        }
        const std::uint64_t r = extra.back();
        extra.pop_back();
        return r;
    };
    auto uniform = [&]() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; };
    std::uint64_t r = reference_draw(k, i);
    for (;;) {
        const unsigned layer = static_cast<unsigned>(r & 0x3ff);  // bits 0-9 layer, 10 sign, 11-62 magnitude
        const std::uint64_t mag = (r >> 11) & ((std::uint64_t{1} << 52) - 1);
        const double sign = (r & 0x400) != 0 ? -1.0 : 1.0;
        const double x = static_cast<double>(mag) * z.w[layer];
        if (mag < z.k[layer]) return sign * x;
        if (layer == 0) {
            for (;;) {
                const double xx = -std::log(uniform()) / detail::BlockZigguratTables::r, yy = -std::log(uniform());
                if (yy + yy > xx * xx) return sign * (detail::BlockZigguratTables::r + xx);
            }
        }
        const double a = -0.5 * x * x;
        double e;
        detail::exp_nonpositive(&a, &e, 1);  // the wedge test's exp is rhoflow's own
        if (z.f[layer] + uniform() * (z.f[layer - 1] - z.f[layer]) < e) return sign * x;
        r = next();
    }
}

// FNV-1a over the doubles' bit patterns: one number pins a whole vector.
std::uint64_t fingerprint(const std::vector<double>& x) {
    std::uint64_t h = 0xcbf29ce484222325;
    for (const double v : x) h = (h ^ std::bit_cast<std::uint64_t>(v)) * 0x100000001b3;
    return h;
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

}  // namespace

TEST_CASE("normal_block: the 1024-layer ziggurat closes: its top layer has the area v of the others") {
    // r and v solve the closing condition; the tables' recursion in double must reproduce it
    // (an r or v off in the 10th digit moves the top area by far more than 1e-9).
    const auto& z = detail::block_ziggurat;
    CHECK(std::abs(z.top_area / detail::BlockZigguratTables::v - 1.0) < 1e-9);
    // Each rectangle layer i >= 2 has area v: x_i (f(x_{i-1}) - f(x_i)), with x_i = w[i] 2^52.
    for (int i = 2; i < detail::BlockZigguratTables::layers; ++i)
        REQUIRE(std::abs(z.w[i] * 0x1.0p52 * (z.f[i - 1] - z.f[i]) / detail::BlockZigguratTables::v - 1.0) < 1e-9);
}

TEST_CASE("normal_block: every variant's vector Philox4x32-10 is Random123's philox4x32, bit for bit") {
    const NormalBlockKey key = normal_block_key({7, StreamPurpose::montecarlo_field, 3, 2});
    // 301 blocks (not a multiple of any variant's group) from just below 2^32: the block
    // counter's carry into counter word 1 is crossed.
    const std::uint64_t first = (std::uint64_t{1} << 32) - 150;
    const std::size_t blocks = 301;
    for (const SimdVariant v : available_simd_variants()) {
        ForceSimdVariant force(v);
        CAPTURE(static_cast<int>(v));
        std::vector<std::uint64_t> out(2 * blocks);
        detail::philox4x32_draws(key, first, out.data(), blocks);
        for (std::size_t j = 0; j < blocks; ++j) {
            const std::uint64_t b = first + j;
            const auto w = r123::Philox4x32()(
                r123::Philox4x32::ctr_type{{static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b >> 32), key.ctr_hi[0], key.ctr_hi[1]}},
                r123::Philox4x32::key_type{{key.key[0], key.key[1]}});
            REQUIRE(out[2 * j] == join(w[0], w[1]));
            REQUIRE(out[2 * j + 1] == join(w[2], w[3]));
        }
        // An answer known from outside Random123: C++26's std::philox4x32 (the same rounds and
        // constants), default-seeded (key {20111115, 0}, counter from 0), must give 1955073260 as
        // its 10000th value, word 3 of block 2499 ([rand.predef]).
        NormalBlockKey standard;
        standard.key = {20111115, 0};
        std::uint64_t kat[2];
        detail::philox4x32_draws(standard, 2499, kat, 1);
        CHECK(static_cast<std::uint32_t>(kat[1] >> 32) == 1955073260u);
    }
}

TEST_CASE("normal_block: every variant gives the header's definition (scalar reference) and the pinned golden values") {
    const StreamId id{2026, StreamPurpose::sga_trial, 0, 0};
    const NormalBlockKey key = normal_block_key(id);
    REQUIRE(key == reference_key(id));
    const std::size_t n = 100000;
    std::vector<double> ref(n);
    for (std::size_t i = 0; i < n; ++i) ref[i] = reference_normal(key, i);
    // The values of this stream, produced by this code on x86-64: they must not change with the
    // instruction set (nor, without a documented reason, ever).
    CHECK(ref[0] == -0x1.1db5f3604486bp-3);
    CHECK(ref[1] == -0x1.07314987a3b9ap-3);
    CHECK(ref[99999] == -0x1.fb0acbbb1e3c4p-1);
    CHECK(fingerprint(ref) == 17483548146674086879u);
    for (const Kernel kernel : available_kernels()) {
        ForceKernel force(kernel);
        CAPTURE(static_cast<int>(kernel.variant));
        CAPTURE(static_cast<int>(kernel.lookup));
        std::vector<double> x(n);
        fill_normals(id, 0, x.data(), n);
        CHECK(fingerprint(x) == fingerprint(ref));
        std::size_t differ = 0;
        for (std::size_t i = 0; i < n; ++i) differ += std::bit_cast<std::uint64_t>(x[i]) != std::bit_cast<std::uint64_t>(ref[i]);
        CHECK(differ == 0);
    }
}

TEST_CASE("normal_block: every variant's fast path accepts only what the exact test m < k accepts, at its edges") {
    // Draws built by hand at the edges of each layer's acceptance (m = k - 1, k, and around the
    // vector variants' coarse threshold (floor(k / 2^44)) 2^44), both signs, with bit 63 (unused)
    // set and clear: draws the 1e5 random normals above almost never reach. A fast path that
    // accepted one m >= k, or gave another value than m w[i] with its sign, would change the
    // stream's law or bits; one that rejected nearly everything would be slow, so it must also
    // accept m = 0 and m = (floor(k / 2^44) - 1) 2^44 - 1 (below its threshold's last step)
    // in every layer but 1 (k = 0).
    const auto& z = detail::block_ziggurat;
    constexpr std::uint64_t one = 1, mag_max = (one << 52) - 1;
    std::vector<std::uint64_t> draws;
    std::vector<std::uint64_t> easy;  // draws every fast path must accept
    for (std::uint64_t layer = 0; layer < 1024; ++layer) {
        const std::uint64_t k = z.k[layer], coarse = (k >> 44) << 44;
        const std::uint64_t below = coarse - (one << 44) - 1;
        for (std::uint64_t m : {std::uint64_t{0}, k - 2, k - 1, k, k + 1, coarse - 1, coarse, coarse + 1, below, mag_max}) {
            if (m > mag_max) continue;  // k - 2 etc. below 0 wrapped round
            for (std::uint64_t sign = 0; sign < 2; ++sign)
                for (std::uint64_t top = 0; top < 2; ++top) {
                    draws.push_back(layer | sign << 10 | m << 11 | top << 63);
                    if (layer != 1 && (m == 0 || (coarse > (one << 45) && m == below))) easy.push_back(draws.back());
                }
        }
    }
    REQUIRE(easy.size() > 4 * 1023);
    for (const Kernel kernel : available_kernels()) {
        ForceKernel force(kernel);
        CAPTURE(static_cast<int>(kernel.variant));
        CAPTURE(static_cast<int>(kernel.lookup));
        std::vector<double> out(draws.size());
        std::vector<std::uint32_t> rejected(draws.size());
        const std::size_t nrej = detail::ziggurat_fast_path(draws.data(), out.data(), draws.size(), rejected.data());
        std::vector<char> is_rejected(draws.size(), 0);
        for (std::size_t j = 0; j < nrej; ++j) is_rejected.at(rejected[j]) = 1;
        std::size_t wrong = 0;
        for (std::size_t j = 0; j < draws.size(); ++j) {
            if (is_rejected[j]) continue;
            const std::uint64_t r = draws[j], layer = r & 0x3ff, m = (r >> 11) & mag_max;
            const double x = static_cast<double>(m) * z.w[layer], want = (r & 0x400) != 0 ? -x : x;
            wrong += !(m < z.k[layer]) || std::bit_cast<std::uint64_t>(out[j]) != std::bit_cast<std::uint64_t>(want);
        }
        CHECK(wrong == 0);
        std::vector<double> easy_out(easy.size());
        std::vector<std::uint32_t> easy_rej(easy.size());
        CHECK(detail::ziggurat_fast_path(easy.data(), easy_out.data(), easy.size(), easy_rej.data()) == 0);
    }
}

TEST_CASE("normal_block: normal i does not depend on where a fill starts or how long it is") {
    const StreamId id{11, StreamPurpose::effective_sde, 5, 1};
    std::vector<double> whole(5000);
    fill_normals(id, 0, whole.data(), whole.size());
    // Odd and even starts, pieces shorter and longer than the generator's chunk.
    NormalBlockStream s(id);
    std::vector<double> pieces(whole.size());
    std::size_t at = 0;
    for (const std::size_t len : {1u, 2u, 3u, 1023u, 1u, 1500u, 7u}) {
        s.fill(pieces.data() + at, len);
        at += len;
    }
    CHECK(s.position() == at);
    s.fill(pieces.data() + at, whole.size() - at);
    CHECK(pieces == whole);
    std::vector<double> tail(100);
    fill_normals(id, 4321, tail.data(), tail.size());
    CHECK(std::equal(tail.begin(), tail.end(), whole.begin() + 4321));
}

TEST_CASE("normal_block: moments and KS on 1e7 draws, and the KS test flips on a 0.5% scale error") {
    // Each moment's z-score against its standard error under N(0,1) (n = 1e7): mean 1/sqrt(n),
    // variance sqrt(2/n), skewness sqrt(6/n), excess kurtosis sqrt(24/n); |z| < 4 each
    // (false alarm 6.3e-5 each, 2.5e-4 for the four). KS: p > 1e-3 (false alarm 1e-3).
    const std::size_t n = 10000000;
    std::vector<double> x(n);
    fill_normals({20261201, StreamPurpose::sga_trial, 1, 0}, 0, x.data(), n);
    double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
    for (const double v : x) {
        const double v2 = v * v;
        s1 += v;
        s2 += v2;
        s3 += v2 * v;
        s4 += v2 * v2;
    }
    const double dn = static_cast<double>(n), mean = s1 / dn, var = s2 / dn - mean * mean;
    const double skew = (s3 / dn - 3 * mean * var - mean * mean * mean) / std::pow(var, 1.5);
    const double kurt = (s4 / dn) / (var * var) - 3.0;  // mean ~ 3e-4: its terms are below 1e-6
    CAPTURE(mean);
    CAPTURE(var);
    CAPTURE(skew);
    CAPTURE(kurt);
    MESSAGE("n = 1e7: mean " << mean << ", variance " << var << ", skewness " << skew << ", excess kurtosis " << kurt);
    CHECK(std::abs(mean) * std::sqrt(dn) < 4.0);
    CHECK(std::abs(var - 1.0) / std::sqrt(2.0 / dn) < 4.0);
    CHECK(std::abs(skew) / std::sqrt(6.0 / dn) < 4.0);
    CHECK(std::abs(kurt) / std::sqrt(24.0 / dn) < 4.0);
    std::sort(x.begin(), x.end());  // once: ks_one_sample's own sorts then find it sorted, also after the scaling
    const KSResult ks = ks_one_sample(x, normal_cdf);
    MESSAGE("KS on 1e7 draws: D = " << ks.statistic << ", p = " << ks.p_value);
    CHECK(ks.p_value > 1e-3);
    // The same draws scaled by 1.005 (a transform off by half a percent): the test must reject.
    for (double& v : x) v *= 1.005;
    CHECK(ks_one_sample(std::move(x), normal_cdf).p_value < 1e-6);
}

TEST_CASE("normal_block: tail frequencies beyond 4, 5 and 6 sigma match the exact normal tail (4e8 draws)") {
    // Counts of |x| > t against Poisson(n P(|Z| > t)) (binomial with p < 1e-4: Poisson to
    // better than 1e-4 relative); two-sided p > 1e-4 for each threshold (false alarm 3e-4 for
    // the three). The tails beyond r = 4.0388 come from the slow path alone (Marsaglia's tail).
#ifdef RHOFLOW_SANITIZED
    const std::uint64_t n = 40000000;  // the instrumented build is 10-30 times slower: 23 expected beyond 5 sigma
#else
    const std::uint64_t n = 400000000;  // about 2 s
#endif
    const NormalBlockKey key = normal_block_key({99, StreamPurpose::bootstrap, 0, 0});
    const double t[3] = {4.0, 5.0, 6.0};
    std::uint64_t count[3] = {0, 0, 0};
    std::vector<double> x(1 << 20);
    for (std::uint64_t first = 0; first < n; first += x.size()) {
        fill_normals(key, first, x.data(), x.size());
        for (const double v : x)
            for (int j = 0; j < 3; ++j) count[j] += std::abs(v) > t[j];
    }
    for (int j = 0; j < 3; ++j) {
        const double lambda = static_cast<double>(n) * std::erfc(t[j] / std::sqrt(2.0));
        const boost::math::poisson_distribution<double> law(lambda);
        const double c = static_cast<double>(count[j]);
        const double p = std::min(1.0, 2.0 * std::min(boost::math::cdf(law, c), c > 0 ? boost::math::cdf(boost::math::complement(law, c - 1)) : 1.0));
        MESSAGE("|x| > " << t[j] << ": " << count[j] << " of " << n << " draws, expected " << lambda << ", two-sided p " << p);
        CHECK(p > 1e-4);
    }
}

TEST_CASE("normal_block: streams of different ids are uncorrelated, the same id the same stream") {
    // Pearson correlation of 1e6 pairs: sqrt(n) r ~ N(0, 1) for independent streams; |.| < 4.5
    // for each of the 5 pairs (false alarm 3.4e-5 in all). Lag-1 autocorrelation likewise.
    const std::size_t n = 1000000;
    const StreamId base{5, StreamPurpose::sga_trial, 10, 0};
    std::vector<StreamId> others = {{6, StreamPurpose::sga_trial, 10, 0},
                                    {5, StreamPurpose::montecarlo_field, 10, 0},
                                    {5, StreamPurpose::sga_trial, 11, 0},
                                    {5, StreamPurpose::sga_trial, 10, 1},
                                    {10, StreamPurpose::sga_trial, 5, 0}};
    std::vector<double> a(n), b(n), c(n);
    fill_normals(base, 0, a.data(), n);
    fill_normals(base, 0, c.data(), n);
    CHECK(a == c);
    auto corr = [](const double* u, const double* v, std::size_t m) {
        double s = 0;
        for (std::size_t i = 0; i < m; ++i) s += u[i] * v[i];
        return s / static_cast<double>(m);  // both have mean 0, variance 1
    };
    for (const StreamId& o : others) {
        fill_normals(o, 0, b.data(), n);
        CAPTURE(o.seed);
        CAPTURE(static_cast<int>(o.purpose));
        CAPTURE(o.index);
        CAPTURE(o.sub);
        CHECK(normal_block_key(o) != normal_block_key(base));
        CHECK(std::abs(corr(a.data(), b.data(), n)) * std::sqrt(static_cast<double>(n)) < 4.5);
    }
    CHECK(std::abs(corr(a.data(), a.data() + 1, n - 1)) * std::sqrt(static_cast<double>(n - 1)) < 4.5);
}
