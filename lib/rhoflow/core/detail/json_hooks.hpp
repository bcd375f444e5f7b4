// Helpers for the library's own .cpp files that define nlohmann to_json/from_json hooks:
// RHOFLOW_JSON_HOOKS(Type, members...) defines both hooks with one key per member, named as the
// member (so a struct and its JSON cannot drift apart), and std::optional<T> is written as the
// value or null. Not installed: the hooks themselves are declared in the public headers.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace nlohmann {
/// std::optional<T>: the value, or null when empty.
template <class T>
struct adl_serializer<std::optional<T>> {
    static void to_json(json& j, const std::optional<T>& v) {
        if (v)
            j = *v;
        else
            j = nullptr;
    }
    static void from_json(const json& j, std::optional<T>& v) {
        if (j.is_null())
            v.reset();
        else
            v = j.get<T>();
    }
};
}  // namespace nlohmann

namespace rhoflow::detail {
/// A JSON value as CBOR bytes (what travels between MPI ranks: doubles exactly, NaN included).
inline std::string to_cbor_bytes(const nlohmann::json& j) {
    const std::vector<std::uint8_t> v = nlohmann::json::to_cbor(j);
    return std::string(v.begin(), v.end());
}
/// Reads what to_cbor_bytes writes.
inline nlohmann::json from_cbor_bytes(const std::string& s) { return nlohmann::json::from_cbor(s); }
}  // namespace rhoflow::detail

/// Defines `void ToName(nlohmann::json&, const Type&)` and `void FromName(const nlohmann::json&,
/// Type&)` with one key per listed member.
#define RHOFLOW_JSON_HOOKS_NAMED(ToName, FromName, Type, ...)                                     \
    void ToName(nlohmann::json& nlohmann_json_j, const Type& nlohmann_json_t) {                    \
        nlohmann_json_j = nlohmann::json::object();                                                \
        NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))                   \
    }                                                                                              \
    void FromName(const nlohmann::json& nlohmann_json_j, Type& nlohmann_json_t) {                  \
        NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM, __VA_ARGS__))                 \
    }

/// Defines `void to_json(nlohmann::json&, const Type&)` and `void from_json(const nlohmann::json&,
/// Type&)` (declared in the type's header) with one key per listed member.
#define RHOFLOW_JSON_HOOKS(Type, ...) RHOFLOW_JSON_HOOKS_NAMED(to_json, from_json, Type, __VA_ARGS__)

/// RHOFLOW_JSON_HOOKS with one more bool member `Flag` written as `"Flag": true` only when true
/// and read as false when absent: a switch added after documents were written, which keep their
/// bytes and read back.
#define RHOFLOW_JSON_HOOKS_WITH_FLAG(Type, Flag, ...)                                              \
    namespace {                                                                                    \
    RHOFLOW_JSON_HOOKS_NAMED(Type##_members_to_json, Type##_members_from_json, Type, __VA_ARGS__)  \
    }                                                                                              \
    void to_json(nlohmann::json& j, const Type& v) {                                               \
        Type##_members_to_json(j, v);                                                              \
        if (v.Flag) j[#Flag] = true;                                                               \
    }                                                                                              \
    void from_json(const nlohmann::json& j, Type& v) {                                             \
        Type##_members_from_json(j, v);                                                            \
        v.Flag = j.contains(#Flag) && j.at(#Flag).get<bool>();                                     \
    }

/// Defines the hooks of an enum from its `to_string` and a parser `Parse(std::string_view)`.
#define RHOFLOW_JSON_ENUM_HOOKS(Enum, Parse)                                                       \
    void to_json(nlohmann::json& j, const Enum& e) { j = std::string(to_string(e)); }              \
    void from_json(const nlohmann::json& j, Enum& e) { e = Parse(j.get<std::string>()); }
