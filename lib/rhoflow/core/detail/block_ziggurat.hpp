// Tables of the 1024-layer normal ziggurat of the block normal generator (core/normal_block.hpp),
// for 52-bit magnitudes: Marsaglia & Tsang's (2000) construction, with 1024 layers instead of
// the usual 256 (rhoflow's generator before issue 20), so that the fast path rejects 0.4% of the
// draws instead of 1.5% (the slow path is what costs). Layer 0 is the base strip with the tail beyond
// r; layers 1..1023 are rectangles of equal area v; r and v solve the closing condition (the
// top layer's area is v too) to 60 digits (scripts/ziggurat_constants.py, mpmath bisection).
// For a draw with layer i and magnitude m (< 2^52): x = m * w[i]; accept at once if m < k[i];
// otherwise the wedge test with f = exp(-x^2/2). Computed once at start-up with libm's exp and
// log (the same on every variant).
//
// The vector fast paths (AVX2, AVX-512) read one 64-bit word per draw instead of k and w, `fast`
// indexed by the draw's layer and sign bits (0..10): w's bits 0..54, the sign in bit 63 and a
// threshold K = floor(k / 2^44) - 1 in bits 55..62 (w's exponent bits 55..62 are 0x79 for every
// layer and are put back by an OR). With y = draw << 1 (bits 56..63: the magnitude's top 8 bits)
// the test y < (fast << 1) (unsigned) implies mag < (K + 1) 2^44 <= k: it accepts only draws the
// exact test accepts and rejects about 0.5% more, which the caller gives back by the exact test.
// A layer whose K would be negative (layer 1, k = 0) or whose w does not fit gets 0: always
// rejected.
#pragma once

#include <array>
#include <cstdint>

namespace rhoflow::detail {

struct BlockZigguratTables {
    static constexpr int layers = 1024;   ///< number of layers (layer 0: the base strip with the tail)
    std::array<std::uint64_t, layers> k;  ///< acceptance thresholds on the magnitude
    std::array<double, layers> w;         ///< magnitude -> x scale of each layer
    std::array<double, layers> f;         ///< exp(-x_i^2/2) at each layer's edge
    std::array<std::uint64_t, 2 * layers> fast;  ///< the vector fast path's word for layer | sign << 10 (above)
    static constexpr std::uint64_t fast_w_bits = (std::uint64_t{1} << 55) - 1;  ///< bits of w kept in a fast word
    static constexpr std::uint64_t fast_exponent = std::uint64_t{0x79} << 55;  ///< w's exponent bits 55..62, put back
    static constexpr double r = 4.038849846109504522714423;    ///< start of the tail
    static constexpr double v = 0.001226324646353088072885371; ///< area of each layer
    double top_area = 0;                  ///< x_1 (1 - f(x_1)), the top layer's area as computed (= v)

    /// Computes the tables (Marsaglia & Tsang's zigset recursion for 1024 layers, 2^52 scale).
    BlockZigguratTables();
};

/// The tables, built once at start-up.
extern const BlockZigguratTables block_ziggurat;

}  // namespace rhoflow::detail
