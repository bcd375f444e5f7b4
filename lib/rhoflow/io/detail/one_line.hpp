// A text on one line whatever it holds, for captions, parameter lines and provenance lines in
// tables, sidecars and scripts: control characters (newline, CR, tab, ...) shown as \n, \r, \t or
// \xHH, so that no text can start a row or a line of its own (docs/cli.md, outputs as data).
#pragma once

#include <fmt/format.h>
#include <string>

namespace rhoflow::detail {

/// `s` with every control character written as \n, \r, \t or \xHH.
inline std::string one_line(const std::string& s) {
    std::string out;
    for (char ch : s) {
        const auto u = static_cast<unsigned char>(ch);
        if (u >= 0x20 && u != 0x7F) out += ch;
        else if (ch == '\n') out += "\\n";
        else if (ch == '\r') out += "\\r";
        else if (ch == '\t') out += "\\t";
        else out += fmt::format("\\x{:02x}", u);
    }
    return out;
}

}  // namespace rhoflow::detail
