// Tables of the 256-layer normal ziggurat (Marsaglia & Tsang 2000) for 52-bit magnitudes.
// Layer 0 is the base strip with the tail beyond r; layers 1..255 are rectangles of equal area
// v. For a draw with layer i and magnitude m (< 2^52): x = m * w[i]; accept at once if m < k[i]
// (x inside the rectangle's core); otherwise test the wedge with f = exp(-x^2/2).
#pragma once

#include <array>
#include <cstdint>

namespace rhoflow::detail {

struct ZigguratTables {
    std::array<std::uint64_t, 256> k;  ///< acceptance thresholds on the magnitude
    std::array<double, 256> w;         ///< magnitude -> x scale of each layer
    std::array<double, 256> f;         ///< exp(-x_i^2/2) at each layer's edge
    static constexpr double r = 3.6541528853610088;  ///< start of the tail
    static constexpr double v = 0.00492867323399;    ///< area of each layer

    /// Computes the tables (Marsaglia & Tsang's zigset, adapted to 256 layers, 2^52 scale).
    ZigguratTables();
};

/// The tables, built once at start-up (before main; nothing random runs earlier).
extern const ZigguratTables ziggurat;

}  // namespace rhoflow::detail
