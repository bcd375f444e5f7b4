// Same seed, same numbers, whatever the instruction set: every compiled variant of the hot
// kernels (detail/simd.hpp) is forced in turn and must reproduce the same pinned bits.
#include "rhoflow/core/detail/simd.hpp"

#include <Random123/philox.h>
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "rhoflow/core/detail/exp_nonpositive.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/stochastic/full_sampler.hpp"
#include "rhoflow/stochastic/reduced_sampler.hpp"
#include "test_util.hpp"

using namespace rhoflow;
using detail::SimdVariant;

// Each variant runs its own code (avx512: the block normal generator, the exp and the samplers'
// passes have AVX-512 code): forced, every one must give the pinned bits.
using test::ForceSimdVariant;
using test::available_simd_variants;

TEST_CASE("simd: every compiled variant gives the pinned golden reduced-sampler trajectory") {
    // 300 normalized steps of eta = 0.01 from rho = 0.1 on the default model, stream
    // (2026, sga_trial, 0). The pinned value was produced by this code on x86-64 and must not
    // change with the instruction set (nor, without a documented reason, ever: it changed once,
    // with issue 20's block normal generator and the sampler's lane sums, docs/cli.md).
    for (const SimdVariant v : available_simd_variants()) {
        ForceSimdVariant force(v);
        CAPTURE(static_cast<int>(v));
        REQUIRE(detail::active_simd_variant() == v);
        ReducedSampler s(ModelParams{50, 1000, 100, 1.0, 1.0, 1.0});
        RandomStream rng({2026, StreamPurpose::sga_trial, 0});
        double rho = 0.1;
        for (int k = 0; k < 300; ++k) rho = s.step(rho, 0.01, UpdateRule::normalized, rng);
        CHECK(rho == 0x1.d104e237ee3a6p-1);
    }
}

TEST_CASE("simd: the sampler's lanes give the same bits at d = 2 and 3 with L not a multiple of 4") {
    // L = 7, R = 2: the vector passes' scalar tails and the zero padding (one padding token);
    // d = 2 draws no zeta, d = 3 draws it and a chi2_0. 100 normalized steps of eta = 0.1 from
    // rho = 0.3, stream (5, 5); every variant must give the pinned bits.
    for (const SimdVariant v : available_simd_variants()) {
        ForceSimdVariant force(v);
        CAPTURE(static_cast<int>(v));
        for (const std::int64_t d : {2, 3}) {
            CAPTURE(d);
            ReducedSampler s(ModelParams{d, 7, 2, 1.0, 1.0, 1.0});
            RandomStream rng(5, 5);
            double rho = 0.3;
            for (int k = 0; k < 100; ++k) rho = s.step(rho, 0.1, UpdateRule::normalized, rng);
            CHECK(rho == (d == 2 ? 0x1.e44ea1c69eac7p-1 : 0x1.30e1ab85048b5p-1));
        }
    }
}

TEST_CASE("simd: every variant gives the pinned full-sampler trajectory (row sums in 16 lanes, their tails)") {
    // d = 37 = 2 x 16 + 4 + 1: the row loops' 16-lane part, a group of 4 and one scalar tail;
    // L = 301: three blocks of 110 rows, so the running maximum moves between blocks and the
    // partial sums are rescaled; sigma != 1 (the rows scaled), R = 5 tokens shifted by theta;
    // 30 normalized steps of eta = 0.05 from rho = 0.2. The pinned value was produced by this code on x86-64 (it changed,
    // with issue 34's row loops, from the Eigen expressions before); every variant must give it.
    for (const SimdVariant v : available_simd_variants()) {
        ForceSimdVariant force(v);
        CAPTURE(static_cast<int>(v));
        FullSampler s(ModelParams{37, 301, 5, 1.3, 0.7, 1.1});
        RandomStream rng({77, StreamPurpose::sga_trial, 3});
        Eigen::VectorXd q = FullSampler::query_with_alignment(37, 0.2);
        double rho = 0.2;
        for (int k = 0; k < 30; ++k) rho = s.step(q, 0.05, UpdateRule::normalized, rng);
        CHECK(rho == 0x1.e0e70f1474ab3p-3);
    }
}

TEST_CASE("simd: the exp of scale (x - shift) is the exp of the rounded argument, on every variant") {
    // The samplers take e^{beta (u - umax)} in one pass (beta != 1 here, so the product is not
    // trivial); it must be the two-step computation's bits, and the same on every variant.
    std::vector<double> x(1003), two(1003), one(1003), first;
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = 3.0 - 0.37 * static_cast<double>(i);
    const double beta = 1.7, shift = 3.25;
    for (const SimdVariant v : available_simd_variants()) {
        ForceSimdVariant force(v);
        CAPTURE(static_cast<int>(v));
        for (std::size_t i = 0; i < x.size(); ++i) two[i] = beta * (x[i] - shift);
        detail::exp_nonpositive(two.data(), two.data(), two.size());
        detail::exp_nonpositive_affine(x.data(), beta, shift, one.data(), one.size());
        CHECK(std::memcmp(one.data(), two.data(), one.size() * sizeof(double)) == 0);
        if (first.empty()) first = one;
        CHECK(std::memcmp(one.data(), first.data(), one.size() * sizeof(double)) == 0);
    }
    CHECK(first[0] == doctest::Approx(std::exp(beta * (3.0 - shift))).epsilon(1e-15));  // e^{-0.425}
}

TEST_CASE("simd: every variant's Philox refill is Random123's generator, and its exp the same bits") {
    std::vector<double> x(4099), baseline;
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = -750.0 * static_cast<double>(i) / 4098.0;
    for (const SimdVariant v : available_simd_variants()) {
        ForceSimdVariant force(v);
        RandomStream s(42, 3, 5);
        const r123::Philox4x64 ref;
        for (std::uint64_t block = 0; block < 130; ++block) {  // crosses two refills
            const auto out = ref(r123::Philox4x64::ctr_type{{block, 5, 0, 0}}, r123::Philox4x64::key_type{{42, 3}});
            for (int i = 0; i < 4; ++i) REQUIRE(s.next_u64() == out[i]);
        }
        std::vector<double> y(x.size());
        detail::exp_nonpositive(x.data(), y.data(), x.size());
        if (baseline.empty()) baseline = y;
        else CHECK(y == baseline);
    }
}
