// e^x for x <= 0 over arrays, branch-free so that the compiler vectorises it (SSE2 suffices).
//
// Why not std::exp or Eigen's exp: in the reduced sampler the softmax numerators cost as much
// as 1.5 normal variates per token with either (about 7 ns per element measured on the
// SSE2 baseline, see docs/benchmarks.md); this loop costs a third of that. Being plain
// arithmetic it also gives the same bits with every C library, where std::exp may differ in
// the last place between libms, which helps "same seed, same numbers" across machines.
// Method: x = k ln2 + r with |r| <= ln2/2 (Cody-Waite: ln2 split in a high part with trailing
// zero bits and a low part, so k * ln2_hi is exact), e^r by its Taylor polynomial of degree 13
// (truncation < 5e-18 relative) in Estrin's form, times 2^k built in the exponent bits.
// The AVX2 and baseline variants run arrays of 32 or more on explicit vectors in two interleaved
// stages (detail/exp_vector.hpp: issued as one chain, it fills the FP scheduler); the AVX-512
// variant's loop is vectorised by the compiler, which it does only if it may assume comparisons
// do not trap, so the source is compiled with -fno-trapping-math (rhoflow reads no FP exception
// flags). With GCC on x86-64 it is compiled three times, for AVX-512, AVX2 and the SSE2
// baseline, and chosen at run time
// (detail/simd.hpp); without FMA contraction (-ffp-contract=off for the library) both give the same bits, which
// tests/rhoflow/core/simd_test.cpp checks by forcing each variant. Below -708.39 (where
// e^x would be subnormal) the result is 0, which is what a softmax numerator needs.
// Accuracy: within 4 ulp of std::exp on [-708, 0] (tests/rhoflow/core/detail_exp_test.cpp).
#pragma once

#include <cstddef>

namespace rhoflow::detail {

/// out[i] = e^{in[i]} for in[i] <= 0 (0 below -708.39); `in` may equal `out`.
void exp_nonpositive(const double* in, double* out, std::size_t n) noexcept;
/// out[i] = e^{x} with x = scale (in[i] - shift) rounded as written, for x <= 0: the same bits as
/// computing x into an array and calling exp_nonpositive, in one pass.
void exp_nonpositive_affine(const double* in, double scale, double shift, double* out, std::size_t n) noexcept;

}  // namespace rhoflow::detail
