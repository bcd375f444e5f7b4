// Tables of the 1024-layer normal ziggurat of the block normal generator (core/normal_block.hpp),
// for 52-bit magnitudes: Marsaglia & Tsang's (2000) construction, with 1024 layers instead of
// the usual 256 (rhoflow's generator before issue 20), so that the fast path rejects 0.4% of the
// draws instead of 1.5% (the slow path is what costs). Layer 0 is the base strip with the tail beyond
// r; layers 1..1023 are rectangles of equal area v; r and v solve the closing condition (the
// top layer's area is v too) to 60 digits (scripts/ziggurat_constants.py, mpmath bisection).
// For a draw with layer i and magnitude m (< 2^52): x = m * w[i]; accept at once if m < k[i];
// otherwise the wedge test with f = exp(-x^2/2). Computed once at start-up with libm's exp and
// log (the same on every variant).
#pragma once

#include <array>
#include <cstdint>

namespace rhoflow::detail {

struct BlockZigguratTables {
    static constexpr int layers = 1024;   ///< number of layers (layer 0: the base strip with the tail)
    std::array<std::uint64_t, layers> k;  ///< acceptance thresholds on the magnitude
    std::array<double, layers> w;         ///< magnitude -> x scale of each layer
    std::array<double, layers> f;         ///< exp(-x_i^2/2) at each layer's edge
    static constexpr double r = 4.038849846109504522714423;    ///< start of the tail
    static constexpr double v = 0.001226324646353088072885371; ///< area of each layer
    double top_area = 0;                  ///< x_1 (1 - f(x_1)), the top layer's area as computed (= v)

    /// Computes the tables (Marsaglia & Tsang's zigset recursion for 1024 layers, 2^52 scale).
    BlockZigguratTables();
};

/// The tables, built once at start-up.
extern const BlockZigguratTables block_ziggurat;

}  // namespace rhoflow::detail
