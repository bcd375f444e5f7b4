#include "rhoflow/io/json.hpp"

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fmt/format.h>

#include "rhoflow/io/detail/one_line.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/version.hpp"

namespace rhoflow {

using nlohmann::json;

namespace {

// Now, or SOURCE_DATE_EPOCH (seconds since 1970, the reproducible-builds convention) when set to
// a plain non-negative integer: reruns compared byte for byte set it.
std::string utc_now() {
    std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    if (const char* e = std::getenv("SOURCE_DATE_EPOCH"); e && *e && std::strlen(e) <= 12 &&
                                                         std::strspn(e, "0123456789") == std::strlen(e))
        now = static_cast<std::time_t>(std::strtoll(e, nullptr, 10));
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

using detail::one_line;

std::string shell_quote(const std::string& a) {
    if (!a.empty() && a.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+=.,:/@%") ==
                          std::string::npos)
        return a;
    std::string q = "'";
    for (char ch : a) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return q + "'";
}

std::string optional_string(const json& j, const char* key) {
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? std::string() : it->get<std::string>();
}

}  // namespace

Provenance make_provenance(const std::string& command, const std::string& command_line) {
    Provenance p;
    p.version = version;
    p.commit = git_commit();
    p.commit_modified = git_tree_modified();
    p.command = command;
    p.command_line = command_line;
    p.date = utc_now();
    return p;
}

std::string command_line_of(const std::vector<std::string>& args, const std::string& program) {
    std::string s = program;
    for (const auto& a : args) {  // (not " " + std::string: GCC 12 warns falsely there, PR 105329)
        s += ' ';
        s += shell_quote(a);
    }
    return s;
}

std::vector<std::string> provenance_lines(const Provenance& p) {
    std::vector<std::string> lines = {
        one_line(fmt::format("{} {}, commit {}{}", p.program, p.version, p.commit.empty() ? "not recorded" : p.commit,
                             p.commit_modified ? " (with uncommitted changes)" : ""))};
    if (!p.command_line.empty()) lines.push_back(fmt::format("command line: {}", one_line(p.command_line)));
    if (!p.cell_command_line.empty())
        lines.push_back(fmt::format("this cell alone: {}", one_line(p.cell_command_line)));
    if (!p.experiment_file.empty())
        lines.push_back(one_line(fmt::format("experiment file: {} (sha256 {})", p.experiment_file, p.experiment_sha256)));
    if (!p.date.empty()) lines.push_back(fmt::format("date: {}", one_line(p.date)));
    return lines;
}

std::string citation_bib(const Provenance& p) {
    // BibTeX text must not carry braces or control characters from the commit (it is hex or
    // "unknown", but documents read back are untrusted).
    std::string commit;
    for (char ch : p.commit)
        if (std::isalnum(static_cast<unsigned char>(ch))) commit += ch;
    std::string version_text;
    for (char ch : p.version)
        if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-') version_text += ch;
    const std::string year = p.date.size() >= 4 ? p.date.substr(0, 4) : "2026";
    return fmt::format(
        "% Cite these if the results in this folder go into a paper (docs/citing.md).\n"
        "% Made by rhoflow {0}, commit {1}{2}. The misc entries render with plain BibTeX styles;\n"
        "% biblatex users may cite rhoflow-software instead (of type software, the same data).\n"
        "@misc{{rhoflow,\n"
        "  title        = {{rhoflow: exact population field, mean-field {{ODE}} and stochastic gradient ascent for "
        "softmax-attention signal recovery}},\n"
        "  author       = {{{{The rhoflow developers}}}},\n"
        "  howpublished = {{Software, version {0}}},\n"
        "  note         = {{Version {0}, git commit {1}; Apache-2.0 licence}},\n"
        "  year         = {{{3}}}\n"
        "}}\n\n"
        "@software{{rhoflow-software,\n"
        "  title   = {{rhoflow: exact population field, mean-field {{ODE}} and stochastic gradient ascent for "
        "softmax-attention signal recovery}},\n"
        "  author  = {{{{The rhoflow developers}}}},\n"
        "  version = {{{0}}},\n"
        "  note    = {{git commit {1}}},\n"
        "  year    = {{{3}}},\n"
        "  license = {{Apache-2.0}}\n"
        "}}\n\n"
        "@misc{{seed-paper-2606.22406,\n"
        "  author        = {{Lan V. Truong}},\n"
        "  title         = {{{{Asymptotic Signal Subspace Recovery in Softmax Attention Models}}}},\n"
        "  howpublished  = {{arXiv preprint arXiv:2606.22406}},\n"
        "  eprint        = {{2606.22406}},\n"
        "  archivePrefix = {{arXiv}},\n"
        "  month         = jun,\n"
        "  year          = {{2026}},\n"
        "  note          = {{Submitted 21 June 2026, version 2 of 23 June 2026}}\n"
        "}}\n",
        version_text, commit.empty() ? "unknown" : commit, p.commit_modified ? " (with uncommitted changes)" : "", year);
}

std::string sha256_hex(std::string_view bytes) {
    static constexpr std::array<std::uint32_t, 64> k = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    std::array<std::uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    auto rotr = [](std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
    std::string msg(bytes);
    const std::uint64_t bits = static_cast<std::uint64_t>(bytes.size()) * 8;
    msg += static_cast<char>(0x80);
    while (msg.size() % 64 != 56) msg += '\0';
    for (int i = 7; i >= 0; --i) msg += static_cast<char>((bits >> (8 * i)) & 0xff);
    for (std::size_t block = 0; block < msg.size(); block += 64) {
        std::array<std::uint32_t, 64> w{};
        for (std::size_t i = 0; i < 16; ++i)
            for (std::size_t b = 0; b < 4; ++b)
                w[i] = (w[i] << 8) | static_cast<unsigned char>(msg[block + 4 * i + b]);
        for (std::size_t i = 16; i < 64; ++i) {
            const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        std::array<std::uint32_t, 8> v = h;
        for (std::size_t i = 0; i < 64; ++i) {
            const std::uint32_t S1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
            const std::uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
            const std::uint32_t t1 = v[7] + S1 + ch + k[i] + w[i];
            const std::uint32_t S0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
            const std::uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            const std::uint32_t t2 = S0 + maj;
            v = {t1 + t2, v[0], v[1], v[2], v[3] + t1, v[4], v[5], v[6]};
        }
        for (std::size_t i = 0; i < 8; ++i) h[i] += v[i];
    }
    std::string hex;
    for (std::uint32_t x : h) hex += fmt::format("{:08x}", x);
    return hex;
}

void to_json(json& j, const Provenance& p) {
    j = {{"program", p.program},
         {"version", p.version},
         {"commit", p.commit},
         {"commit_modified", p.commit_modified},
         {"command", p.command},
         {"command_line", p.command_line},
         {"experiment_file", p.experiment_file},
         {"experiment_sha256", p.experiment_sha256},
         {"date", p.date}};
    if (!p.cell_command_line.empty()) j["cell_command_line"] = p.cell_command_line;
}

void from_json(const json& j, Provenance& p) {
    j.at("program").get_to(p.program);
    j.at("version").get_to(p.version);
    j.at("command").get_to(p.command);
    p.commit = optional_string(j, "commit");
    const auto m = j.find("commit_modified");
    p.commit_modified = m != j.end() && !m->is_null() && m->get<bool>();
    p.command_line = optional_string(j, "command_line");
    p.cell_command_line = optional_string(j, "cell_command_line");
    p.experiment_file = optional_string(j, "experiment_file");
    p.experiment_sha256 = optional_string(j, "experiment_sha256");
    p.date = optional_string(j, "date");
}

json provenance(const std::string& command) { return make_provenance(command); }

void ensure_finite(const json& doc, const std::string& path) {
    if (doc.is_number_float()) {
        const double v = doc.get<double>();
        if (!std::isfinite(v))
            throw NumericalError((path.empty() ? std::string("value") : path) + " is not finite (" +
                                 format_number(v) + ")");
    } else if (doc.is_object()) {
        for (auto it = doc.begin(); it != doc.end(); ++it) ensure_finite(it.value(), path + "." + it.key());
    } else if (doc.is_array()) {
        for (std::size_t i = 0; i < doc.size(); ++i) ensure_finite(doc[i], path + "[" + std::to_string(i) + "]");
    }
}

}  // namespace rhoflow
