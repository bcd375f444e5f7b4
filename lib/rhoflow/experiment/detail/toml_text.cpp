#include "rhoflow/experiment/detail/toml_text.hpp"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>

#include "rhoflow/core/errors.hpp"

namespace rhoflow::detail {

namespace {

// The characters the parser cannot classify, and their stand-ins (detail/toml_text.hpp).
constexpr char32_t kStandIn = 0xF0000;  // the stand-ins are U+F0000 ... U+F0BCB
constexpr char32_t kRanges[3][2] = {{0xA1, 0x499}, {0x2C5E, 0x3057}, {0xFB26, 0xFEFE}};
constexpr char32_t kStandIns = (0x499 - 0xA1 + 1) + (0x3057 - 0x2C5E + 1) + (0xFEFE - 0xFB26 + 1);

void append_utf8(std::string& out, char32_t c) {
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

// Rewrites every well-formed UTF-8 sequence of `text` through `map` (a code point -> its
// replacement, or 0 to keep it); malformed bytes are kept for the parser to report.
template <class Map>
std::string map_code_points(std::string_view text, Map map) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
        const auto cont = [&](std::size_t k) { return i + k < text.size() && (b(k) & 0xC0) == 0x80; };
        std::size_t n = 0;
        char32_t c = 0;
        if (b(0) >= 0xC2 && b(0) <= 0xDF && cont(1)) {
            n = 2;
            c = (char32_t{b(0)} & 0x1F) << 6 | (b(1) & 0x3F);
        } else if (b(0) >= 0xE0 && b(0) <= 0xEF && cont(1) && cont(2)) {
            n = 3;
            c = (char32_t{b(0)} & 0x0F) << 12 | (char32_t{b(1)} & 0x3F) << 6 | (b(2) & 0x3F);
            if (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF)) n = 0;  // overlong, or a surrogate
        } else if (b(0) >= 0xF0 && b(0) <= 0xF4 && cont(1) && cont(2) && cont(3)) {
            n = 4;
            c = (char32_t{b(0)} & 0x07) << 18 | (char32_t{b(1)} & 0x3F) << 12 | (char32_t{b(2)} & 0x3F) << 6 |
                (b(3) & 0x3F);
            if (c < 0x10000 || c > 0x10FFFF) n = 0;
        }
        const char32_t to = n ? map(c) : 0;
        if (to) {
            append_utf8(out, to);
        } else {
            n = std::max<std::size_t>(n, 1);
            out.append(text.substr(i, n));
        }
        i += n;
    }
    return out;
}

}  // namespace

// The text the parser reads: the characters it cannot classify replaced by their stand-ins.
std::string hide_unclassifiable(std::string_view text, const std::string& file) {
    return map_code_points(text, [&](char32_t c) -> char32_t {
        if (c >= kStandIn && c < kStandIn + kStandIns)
            throw InvalidArgument("file", fmt::format("{}: the private-use characters U+F0000 ... U+{:X} are reserved "
                                                      "(they stand in for characters the TOML parser cannot read)",
                                                      file, static_cast<std::uint32_t>(kStandIn + kStandIns - 1)));
        char32_t k = 0;
        for (const auto& [lo, hi] : kRanges) {
            if (c >= lo && c <= hi && c != 0x3000) return kStandIn + k + (c - lo);
            k += hi - lo + 1;
        }
        return 0;
    });
}

// Text from the parsed document (values, keys, error messages) with the original characters back.
std::string restore(std::string_view text) {
    return map_code_points(text, [](char32_t c) -> char32_t {
        if (c < kStandIn || c >= kStandIn + kStandIns) return 0;
        char32_t k = c - kStandIn;
        for (const auto& [lo, hi] : kRanges) {
            if (k <= hi - lo) return lo + k;
            k -= hi - lo + 1;
        }
        return 0;
    });
}

}  // namespace rhoflow::detail
