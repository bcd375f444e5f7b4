// A digest of bytes: to tell accidental differences apart (inputs the ranks of a team must
// share, the experiment file a run folder was made from); no cryptographic hash.
#pragma once

#include <cstdint>
#include <string_view>

namespace rhoflow {

/// The 64-bit FNV-1a hash of `bytes`, continuing from `h`.
inline std::uint64_t fnv1a_64(std::string_view bytes, std::uint64_t h = 14695981039346656037ull) noexcept {
    for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return h;
}

}  // namespace rhoflow
