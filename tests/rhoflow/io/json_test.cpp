// ensure_finite: the JSON path of the first NaN or infinity, at any depth; finite documents pass.
#include "rhoflow/io/json.hpp"
#include "rhoflow/version.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "rhoflow/core/errors.hpp"

using namespace rhoflow;
using nlohmann::json;

namespace {
// The message of the NumericalError ensure_finite throws, or "" if none.
std::string finite_error(const json& doc) {
    try {
        ensure_finite(doc);
    } catch (const NumericalError& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST_CASE("json: ensure_finite names the path of a non-finite number in nested objects and arrays") {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    json doc = {{"model", {{"d", 50}, {"theta", 1.0}}},
                {"points", json::array({json{{"j", 1.5}}, json{{"j", 2.5}, {"dj", nan}}})}};
    CHECK(finite_error(doc) == ".points[1].dj is not finite (nan)");
    doc["points"][1]["dj"] = -inf;
    CHECK(finite_error(doc) == ".points[1].dj is not finite (-inf)");
    // Arrays of arrays, and a top-level value.
    CHECK(finite_error(json{{"t", json::array({json::array({1.0, 2.0}), json::array({3.0, inf})})}}) ==
          ".t[1][1] is not finite (inf)");
    CHECK(finite_error(json(nan)) == "value is not finite (nan)");
    CHECK(finite_error(json::array({0.0, inf})) == "[1] is not finite (inf)");
    // The first in document order (nlohmann orders object keys): "a" before "z", [0] before [1].
    CHECK(finite_error(json{{"z", inf}, {"a", json::array({0.0, nan, inf})}}) == ".a[1] is not finite (nan)");
    // A given path prefix is used.
    try {
        ensure_finite(json{{"x", nan}}, "doc");
        FAIL("no exception");
    } catch (const NumericalError& e) {
        CHECK(std::string(e.what()) == "doc.x is not finite (nan)");
    }
}

TEST_CASE("json: ensure_finite accepts finite documents of every type") {
    const json doc = {{"program", "rhoflow"},
                      {"n", 18446744073709551615ull},
                      {"m", -9007199254740993ll},
                      {"x", std::numeric_limits<double>::max()},
                      {"tiny", std::numeric_limits<double>::denorm_min()},
                      {"neg", -0.0},
                      {"ok", true},
                      {"none", nullptr},
                      {"text", "nan"},
                      {"empty", json::object()},
                      {"list", json::array({1, 2.5, json::array(), json{{"deep", {{"deeper", 1e-300}}}}})}};
    CHECK(finite_error(doc).empty());
    CHECK(finite_error(json::array()).empty());
}

TEST_CASE("json: sha256 matches FIPS 180-4's test vectors") {
    CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    // 55, 56 and 64 bytes: the padding's edge cases (one block, two blocks).
    CHECK(sha256_hex(std::string(55, 'a')) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    CHECK(sha256_hex(std::string(56, 'a')) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    CHECK(sha256_hex(std::string(64, 'a')) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST_CASE("json: the command line is quoted for a POSIX shell, control characters kept out of comment lines") {
    CHECK(command_line_of({"compare", "--out", "my results", "--L", "100"}) == "rhoflow compare --out 'my results' --L 100");
    CHECK(command_line_of({"run", "it's.toml"}) == "rhoflow run 'it'\\''s.toml'");
    CHECK(command_line_of({"run", ""}) == "rhoflow run ''");
    Provenance p = make_provenance("run", command_line_of({"run", "a\nb.toml"}));
    p.experiment_file = "a\nb.toml";
    for (const auto& line : provenance_lines(p)) CHECK(line.find('\n') == std::string::npos);
    CHECK(provenance_lines(p).at(1) == "command line: rhoflow run 'a\\nb.toml'");
    // The date: UTC ISO 8601, YYYY-MM-DDTHH:MM:SSZ.
    REQUIRE(p.date.size() == 20);
    CHECK(p.date[4] == '-');
    CHECK(p.date[10] == 'T');
    CHECK(p.date.back() == 'Z');
}

TEST_CASE("json: CITATION.bib names the software with its commit and the seed paper") {
    Provenance p = make_provenance("compare");
    p.commit = "0123abc";
    const std::string bib = citation_bib(p);
    CHECK(bib.find("@misc{rhoflow,") != std::string::npos);  // plain BibTeX knows @misc
    CHECK(bib.find("@software{rhoflow-software,") != std::string::npos);  // biblatex's type beside it
    CHECK(bib.find("Version " + std::string(rhoflow::version) + ", git commit 0123abc") != std::string::npos);
    CHECK(bib.find("@misc{seed-paper-2606.22406,") != std::string::npos);
    CHECK(bib.find("Asymptotic Signal Subspace Recovery in Softmax Attention Models") != std::string::npos);
    CHECK(bib.find("eprint        = {2606.22406}") != std::string::npos);
    CHECK(bib.find("author        = {Lan V. Truong}") != std::string::npos);  // the seed paper's author
    p.commit = "}\n@evil{";  // read back from an untrusted document: no braces or lines reach the BibTeX
    CHECK(citation_bib(p).find("@evil") == std::string::npos);
}

TEST_CASE("json: provenance names program, version and command") {
    const json p = provenance("ode");
    CHECK(p["program"] == "rhoflow");
    CHECK(p["command"] == "ode");
    CHECK(p["version"].is_string());
    CHECK_FALSE(p["version"].get<std::string>().empty());
    CHECK(p["commit"] == git_commit());
    CHECK(p["date"].get<std::string>().size() == 20);
}

TEST_CASE("json: SOURCE_DATE_EPOCH fixes the date (reruns compared byte for byte), anything else is ignored") {
    const char* old = std::getenv("SOURCE_DATE_EPOCH");
    const std::string saved = old ? old : "";
    ::setenv("SOURCE_DATE_EPOCH", "1764547200", 1);
    CHECK(make_provenance("x").date == "2025-12-01T00:00:00Z");
    ::setenv("SOURCE_DATE_EPOCH", "12abc", 1);  // not an integer: the current date
    CHECK(make_provenance("x").date.substr(0, 2) == "20");
    CHECK(make_provenance("x").date != "2025-12-01T00:00:00Z");
    if (old) ::setenv("SOURCE_DATE_EPOCH", saved.c_str(), 1);
    else ::unsetenv("SOURCE_DATE_EPOCH");
}
