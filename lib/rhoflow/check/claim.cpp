#include "rhoflow/check/claim.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/number_text.hpp"

namespace rhoflow {

namespace {

constexpr const char* kAccepted =
    "accepted: monotone, positive-drift, attractors=N (integer 0 <= N <= 1000), filtering, "
    "hitting-time<=T (finite T > 0), filtering<=EPS (0 <= EPS <= 1), recovery";

[[noreturn]] void bad_claim(std::string_view text, const std::string& field) {
    throw InvalidArgument(field, fmt::format("{} = '{}' is not a claim ({})", field, text, kAccepted));
}

}  // namespace

void Claim::validate() const {
    if (kind == ClaimKind::attractors && (attractors < 0 || attractors > 1000))
        throw InvalidArgument("claim", fmt::format("claim = '{}' is out of range ({})", to_string(*this), kAccepted));
    if (kind == ClaimKind::hitting_time && !(std::isfinite(t_max) && t_max > 0))
        throw InvalidArgument("claim", fmt::format("claim = 'hitting-time<={}' is out of range ({})",
                                                   format_number(t_max), kAccepted));
    if (kind == ClaimKind::noise_mass && !(noise_max >= 0 && noise_max <= 1))
        throw InvalidArgument("claim", fmt::format("claim = 'filtering<={}' is out of range ({})",
                                                   format_number(noise_max), kAccepted));
}

std::string to_string(const Claim& c) {
    switch (c.kind) {
        case ClaimKind::monotone: return "monotone";
        case ClaimKind::positive_drift: return "positive-drift";
        case ClaimKind::attractors: return fmt::format("attractors={}", c.attractors);
        case ClaimKind::filtering: return "filtering";
        case ClaimKind::hitting_time: return "hitting-time<=" + format_number(c.t_max);
        case ClaimKind::noise_mass: return "filtering<=" + format_number(c.noise_max);
        case ClaimKind::recovery: return "recovery";
    }
    return "?";
}

Claim parse_claim(std::string_view text, const std::string& field) {
    Claim c;
    if (text == "monotone") {
        c.kind = ClaimKind::monotone;
    } else if (text == "positive-drift") {
        c.kind = ClaimKind::positive_drift;
    } else if (text == "recovery") {
        c.kind = ClaimKind::recovery;
    } else if (text == "filtering") {
        c.kind = ClaimKind::filtering;
    } else if (text.starts_with("filtering<=")) {
        c.kind = ClaimKind::noise_mass;
        const auto e = parse_number(text.substr(11));
        if (!e) bad_claim(text, field);
        c.noise_max = *e;
    } else if (text.starts_with("attractors=")) {
        c.kind = ClaimKind::attractors;
        const std::string_view n = text.substr(11);
        const auto r = std::from_chars(n.data(), n.data() + n.size(), c.attractors);
        if (n.empty() || r.ec != std::errc() || r.ptr != n.data() + n.size()) bad_claim(text, field);
    } else if (text.starts_with("hitting-time<=")) {
        c.kind = ClaimKind::hitting_time;
        const auto t = parse_number(text.substr(14));
        if (!t) bad_claim(text, field);
        c.t_max = *t;
    } else {
        bad_claim(text, field);
    }
    try {
        c.validate();
    } catch (const InvalidArgument& e) {
        throw InvalidArgument(field, e.what());
    }
    return c;
}

std::string_view to_string(Verdict v) {
    switch (v) {
        case Verdict::holds: return "holds";
        case Verdict::fails: return "fails";
        case Verdict::undecided: return "undecided";
    }
    return "?";
}

Verdict parse_verdict(std::string_view text, const std::string& field) {
    if (text == "holds") return Verdict::holds;
    if (text == "fails") return Verdict::fails;
    if (text == "undecided") return Verdict::undecided;
    throw InvalidArgument(field, fmt::format("{} = '{}' is not a verdict (accepted: holds, fails, undecided)", field, text));
}

void to_json(nlohmann::json& j, const Claim& c) { j = to_string(c); }
void from_json(const nlohmann::json& j, Claim& c) { c = parse_claim(j.get<std::string>()); }
void to_json(nlohmann::json& j, const Verdict& v) { j = std::string(to_string(v)); }
void from_json(const nlohmann::json& j, Verdict& v) { v = parse_verdict(j.get<std::string>()); }

}  // namespace rhoflow
