#include "rhoflow/experiment/settings.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "rhoflow/check/box.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/number_text.hpp"
#include "rhoflow/experiment/detail/settings_tables.hpp"
#include "rhoflow/experiment/job_table.hpp"

namespace rhoflow {

// ------------------------------------------------------------------------------- parsing

namespace {

[[noreturn]] void bad_value(std::string_view text, const std::string& field, const std::string& expected) {
    const std::string name = field.substr(field.rfind('.') == std::string::npos ? 0 : field.rfind('.') + 1);
    if (text.find(':') != std::string_view::npos)  // a range where one value is expected
        throw InvalidArgument(field, fmt::format("{} = '{}' is a range, but {} takes a single value (accepted: {})", name,
                                                 text, name, expected));
    throw InvalidArgument(field, fmt::format("{} = '{}' is not {}", name, text, expected));
}

bool plain(std::string_view t) {
    return !t.empty() && t.front() != '+' && !std::isspace(static_cast<unsigned char>(t.front())) &&
           !std::isspace(static_cast<unsigned char>(t.back()));
}

bool all_digits(std::string_view t) {
    return !t.empty() && t.find_first_not_of("0123456789") == std::string_view::npos;
}

// The magnitude of a number in scientific or decimal notation ([-]digits[.digits][e[+-]digits],
// already checked by from_chars) when its exact decimal value is an integer of at most 2^53;
// nothing otherwise. Exact: "9.007199254740993e15" is not 2^53, "3.0000000000000001" is not 3.
std::optional<std::uint64_t> exact_integer(std::string_view t) {
    if (!t.empty() && t.front() == '-') t.remove_prefix(1);
    std::string digits;
    std::int64_t exponent = 0;
    std::size_t i = 0;
    for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) digits += t[i];
    if (i < t.size() && t[i] == '.')
        for (++i; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i, --exponent) digits += t[i];
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        const bool negative = i < t.size() && t[i] == '-';
        if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
        if (i == t.size()) return std::nullopt;
        std::int64_t e = 0;
        for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) e = std::min<std::int64_t>(e * 10 + (t[i] - '0'), 100000);
        exponent += negative ? -e : e;
    }
    if (i != t.size() || digits.empty()) return std::nullopt;
    digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
    if (digits.empty()) return 0;
    while (digits.back() == '0') {
        digits.pop_back();
        ++exponent;
    }
    if (exponent < 0 || static_cast<std::int64_t>(digits.size()) + exponent > 16) return std::nullopt;  // 2^53 < 1e16
    std::uint64_t v = 0;
    for (char c : digits) v = v * 10 + static_cast<std::uint64_t>(c - '0');
    for (std::int64_t k = 0; k < exponent; ++k) v *= 10;
    if (v > (std::uint64_t{1} << 53)) return std::nullopt;
    return v;
}

// An integer beyond what a setting takes (64 bits in digits, 2^53 otherwise): out of range, not
// "not an integer".
[[noreturn]] void integer_out_of_range(std::string_view text, const std::string& field) {
    const std::string name = field.substr(field.rfind('.') == std::string::npos ? 0 : field.rfind('.') + 1);
    throw InvalidArgument(field, fmt::format("{} = '{}' is out of range (accepted: an integer of magnitude at most "
                                             "9223372036854775807 in digits, 2^53 in scientific notation, within the "
                                             "range of {})",
                                             name, text, name));
}

constexpr const char* kInteger = "an integer (digits, or e.g. 1e6; exact, at most 2^53 in scientific notation)";
constexpr const char* kSeed = "a seed: an integer in 0 ... 18446744073709551615 (digits; scientific notation up to 2^53)";
constexpr double kTwo53 = 9007199254740992.0;

}  // namespace

double parse_real(std::string_view text, const std::string& field) {
    // Out of range: overflow gives +-inf, underflow +-0 or a subnormal (as strtod rounds it).
    if (plain(text))
        if (const auto v = parse_number(text); v && !std::isnan(*v)) return *v;
    bad_value(text, field, "a number (e.g. 0.5, -2, 1e-3)");
}

std::int64_t parse_integer(std::string_view text, const std::string& field) {
    std::int64_t i = 0;
    if (plain(text)) {
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
        if (ec == std::errc() && end == text.data() + text.size()) return i;
        double v = 0;
        const auto [end2, ec2] = std::from_chars(text.data(), text.data() + text.size(), v);
        const bool number = end2 == text.data() + text.size() &&
                            (ec2 == std::errc() || ec2 == std::errc::result_out_of_range);
        if (number && ec2 == std::errc())
            if (const auto u = exact_integer(text))
                return text.front() == '-' ? -static_cast<std::int64_t>(*u) : static_cast<std::int64_t>(*u);
        // An integer too large for 64 bits (digits), or past 2^53 in scientific notation: out of
        // range, not "not an integer".
        if (number) {
            const bool overflow = ec2 != std::errc() && std::isinf(parse_number(text).value_or(0));
            const bool digits = all_digits(text.front() == '-' ? text.substr(1) : text);
            if (digits || overflow || (std::isfinite(v) && v == std::floor(v) && std::abs(v) > kTwo53))
                integer_out_of_range(text, field);
        }
    }
    bad_value(text, field, kInteger);
}

std::uint64_t parse_seed(std::string_view text, const std::string& field) {
    if (all_digits(text)) {
        std::uint64_t u = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), u);
        if (ec == std::errc() && end == text.data() + text.size()) return u;
        bad_value(text, field, "a seed in 0 ... 18446744073709551615");
    }
    if (plain(text) && text.front() != '-') {
        double v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec == std::errc() && end == text.data() + text.size())
            if (const auto u = exact_integer(text)) return *u;
    }
    bad_value(text, field, kSeed);
}

std::vector<double> parse_real_list(std::string_view text, const std::string& field) {
    std::vector<double> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = text.find(',', start);
        out.push_back(parse_real(text.substr(start, comma - start), field));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

// ------------------------------------------------------------------------------- values

namespace {

// The setting's last field component, as messages name it ("seed" for "sga.seed").
std::string short_name(const std::string& field) {
    return field.substr(field.rfind('.') == std::string::npos ? 0 : field.rfind('.') + 1);
}

// A value of the wrong alternative (a caller that skipped parse_setting_text or the reader).
[[noreturn]] void wrong_kind(const std::string& field, const char* expected) {
    throw InvalidArgument(field, fmt::format("{} takes {}", short_name(field), expected));
}

}  // namespace

// A number: a double (not NaN: no setting takes one), or an integer (rounded to the nearest
// double, as a flag's digits are).
double number_of(const SettingValue& v, const std::string& field) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
    if (const auto* u = std::get_if<std::uint64_t>(&v)) return static_cast<double>(*u);
    const auto* d = std::get_if<double>(&v);
    if (!d) wrong_kind(field, "a number");
    if (std::isnan(*d)) bad_value(format_number(*d), field, "a number (e.g. 0.5, -2, 1e-3)");
    return *d;
}

// An integer: int64; uint64 past 2^63 is out of range; a double must be an exact integer of at
// most 2^53 (as a flag's scientific notation), refused with the messages of parse_integer.
std::int64_t integer_of(const SettingValue& v, const std::string& field) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
    if (const auto* u = std::get_if<std::uint64_t>(&v)) {
        if (*u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            integer_out_of_range(std::to_string(*u), field);
        return static_cast<std::int64_t>(*u);
    }
    const auto* d = std::get_if<double>(&v);
    if (!d) wrong_kind(field, "an integer");
    if (std::isfinite(*d) && *d == std::floor(*d)) {
        if (std::abs(*d) > kTwo53) integer_out_of_range(format_number(*d), field);
        return static_cast<std::int64_t>(*d);
    }
    bad_value(format_number(*d), field, kInteger);
}

// A seed: unsigned, a non-negative integer, an exact non-negative double of at most 2^53, or a
// string of digits (a file's seed past 2^63).
std::uint64_t seed_of(const SettingValue& v, const std::string& field) {
    if (const auto* u = std::get_if<std::uint64_t>(&v)) return *u;
    if (const auto* t = std::get_if<std::string>(&v)) return parse_seed(*t, field);
    if (const auto* d = std::get_if<double>(&v)) {
        if (*d == std::floor(*d) && !std::signbit(*d) && *d <= kTwo53) return static_cast<std::uint64_t>(*d);
        bad_value(format_number(*d), field, kSeed);
    }
    const auto* i = std::get_if<std::int64_t>(&v);
    if (!i) wrong_kind(field, "a seed");
    if (*i < 0) bad_value(std::to_string(*i), field, kSeed);
    return static_cast<std::uint64_t>(*i);
}

// A list of numbers (empty: none), or one number as a list of one (as a flag's "0.5").
std::vector<double> numbers_of(const SettingValue& v, const std::string& field) {
    const auto* l = std::get_if<std::vector<double>>(&v);
    if (!l) {
        const bool number = std::holds_alternative<double>(v) || std::holds_alternative<std::int64_t>(v) ||
                            std::holds_alternative<std::uint64_t>(v);
        if (!number) wrong_kind(field, "a list of numbers");
        return {number_of(v, field)};
    }
    for (double x : *l) number_of(x, field);  // refuses NaN
    return *l;
}

const std::string& text_of_value(const SettingValue& v, const std::string& field) {
    const auto* t = std::get_if<std::string>(&v);
    if (!t) wrong_kind(field, "a text");
    return *t;
}

bool switch_of(const SettingValue& v, const std::string& field) {
    const auto* b = std::get_if<bool>(&v);
    if (!b) wrong_kind(field, "true or false");
    return *b;
}

namespace {

// A list of names, no name empty (the message shows them comma-separated, as a flag gives
// them); an empty list is none (the default).
std::vector<std::string> names_of(const SettingValue& v, const std::string& field) {
    const auto* l = std::get_if<std::vector<std::string>>(&v);
    if (!l) wrong_kind(field, "a list of names");
    std::string joined;
    bool empty = false;
    for (std::size_t i = 0; i < l->size(); ++i) {
        joined += (i ? "," : "") + (*l)[i];
        empty = empty || (*l)[i].empty();
    }
    if (empty)
        throw InvalidArgument(field, fmt::format("{} = '{}' has an empty entry (accepted: comma-separated column names)",
                                                 short_name(field), joined));
    return *l;
}

}  // namespace

// A typed value as a flag writes it: numbers in their shortest round-trip form, lists
// comma-separated, an off switch and none "".
std::string text_of_setting(const SettingValue& v) {
    auto join = [](const auto& items, auto&& text) {
        std::string out;
        for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + text(items[i]);
        return out;
    };
    if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "";
    if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
    if (const auto* u = std::get_if<std::uint64_t>(&v)) return std::to_string(*u);
    if (const auto* d = std::get_if<double>(&v)) return format_number(*d);
    if (const auto* t = std::get_if<std::string>(&v)) return *t;
    if (const auto* l = std::get_if<std::vector<double>>(&v)) return join(*l, format_number);
    if (const auto* n = std::get_if<std::vector<std::string>>(&v)) return join(*n, [](const std::string& x) { return x; });
    return "";
}

namespace {

// "a,,b" as {"a", "", "b"} (names_of refuses the empty entries).
std::vector<std::string> split_names(std::string_view t) {
    std::vector<std::string> out;
    for (std::size_t from = 0; from <= t.size();) {
        const std::size_t comma = std::min(t.find(',', from), t.size());
        out.emplace_back(t.substr(from, comma - from));
        from = comma + 1;
    }
    return out;
}

}  // namespace

SettingValue parse_setting_text(const Setting& s, std::string_view text) {
    switch (s.type) {
        case SettingType::toggle:
            if (text == "true") return true;
            if (text == "false") return false;
            throw InvalidArgument(s.field, fmt::format("{} = '{}' is not true or false", s.key, text));
        case SettingType::number: return parse_real(text, s.field);
        case SettingType::integer: return parse_integer(text, s.field);
        case SettingType::seed: return parse_seed(text, s.field);
        case SettingType::numbers: return parse_real_list(text, s.field);
        case SettingType::names: return split_names(text);
        case SettingType::text:
        case SettingType::number_or_text: break;
    }
    return std::string(text);
}

void Setting::set_text(Job& job, std::string_view text) const { set_value(job, parse_setting_text(*this, text)); }

// ------------------------------------------------------------------------------- builders

namespace {

// Settings reach into a concrete job type J through accessors returning a reference.
template <class J, class T>
using Ref = std::function<T&(J&)>;

template <class J>
J& as(const Job& job) {
    return const_cast<J&>(std::get<J>(job));  // getters only read
}

ModelParams& model_ref(Job& job) { return const_cast<ModelParams&>(*model_of(job)); }

Setting make(std::string key, std::string field, std::string help, std::string group, std::string type_name,
             SettingType type) {
    Setting s;
    s.key = std::move(key);
    s.field = std::move(field);
    s.help = std::move(help);
    s.type_name = std::move(type_name);
    s.group = std::move(group);
    s.type = type;
    return s;
}

// Gives a setting its typed getter, and its text getter as a flag writes that value.
void read_by(Setting& s, std::function<SettingValue(const Job&)> value) {
    s.get = [value](const Job& j) { return text_of_setting(value(j)); };
    s.value = std::move(value);
}

template <class J>
Setting real(std::string key, std::string field, std::string help, std::string group, Ref<J, double> ref) {
    Setting s = make(std::move(key), field, std::move(help), std::move(group), "NUMBER", SettingType::number);
    s.set = [ref, field](Job& j, const SettingValue& v) { ref(as<J>(j)) = number_of(v, field); };
    read_by(s, [ref](const Job& j) { return SettingValue(ref(as<J>(j))); });
    return s;
}

// An integer field of type T (int or int64), range-checked into T (the message gives the exact
// integer, past 2^53 too).
template <class J, class T>
Setting integer(std::string key, std::string field, std::string help, std::string group, Ref<J, T> ref) {
    Setting s = make(std::move(key), field, std::move(help), std::move(group), "INT", SettingType::integer);
    s.set = [ref, field](Job& j, const SettingValue& value) {
        const std::int64_t v = integer_of(value, field);
        if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
            throw InvalidArgument(field, fmt::format("{} = {} is out of range (accepted: an integer in {} ... {})", field, v,
                                                     std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
        ref(as<J>(j)) = static_cast<T>(v);
    };
    read_by(s, [ref](const Job& j) { return SettingValue(static_cast<std::int64_t>(ref(as<J>(j)))); });
    return s;
}

template <class J>
Setting seed(std::string key, std::string field, std::string help, std::string group, Ref<J, std::uint64_t> ref) {
    Setting s = make(std::move(key), field, std::move(help), std::move(group), "SEED", SettingType::seed);
    s.set = [ref, field](Job& j, const SettingValue& v) { ref(as<J>(j)) = seed_of(v, field); };
    read_by(s, [ref](const Job& j) { return SettingValue(ref(as<J>(j))); });
    return s;
}

template <class J>
Setting real_list(std::string key, std::string field, std::string help, std::string group,
                  Ref<J, std::vector<double>> ref) {
    Setting s = make(std::move(key), field, std::move(help), std::move(group), "LIST", SettingType::numbers);
    s.set = [ref, field](Job& j, const SettingValue& v) { ref(as<J>(j)) = numbers_of(v, field); };
    read_by(s, [ref](const Job& j) { return SettingValue(ref(as<J>(j))); });
    return s;
}

// A field of another type, with its own setter and typed getter.
template <class J>
Setting custom(std::string key, std::string field, std::string help, std::string group, std::string type_name,
               SettingType type, std::function<void(J&, const SettingValue&)> set, std::function<SettingValue(J&)> value) {
    Setting s = make(std::move(key), std::move(field), std::move(help), std::move(group), std::move(type_name), type);
    s.set = [set](Job& j, const SettingValue& v) { set(as<J>(j), v); };
    read_by(s, [value](const Job& j) { return value(as<J>(j)); });
    return s;
}

// A text field with its own parser and printer (enumerations, claims, sizes).
template <class J>
Setting text_setting(std::string key, std::string field, std::string help, std::string group, std::string type_name,
             std::function<void(J&, const std::string&)> set, std::function<std::string(J&)> get) {
    return custom<J>(std::move(key), field, std::move(help), std::move(group), std::move(type_name), SettingType::text,
                     [set, field](J& j, const SettingValue& v) { set(j, text_of_value(v, field)); },
                     [get](J& j) { return SettingValue(get(j)); });
}

// A switch: present (or `true` in a file) turns it on; `false` leaves the default.
template <class J>
Setting toggle(std::string key, std::string field, std::string help, std::string group, std::function<void(J&)> on,
               std::function<bool(J&)> is_on) {
    Setting s = make(std::move(key), std::move(field), std::move(help), std::move(group), "", SettingType::toggle);
    s.set = [on, f = s.field](Job& j, const SettingValue& v) {
        if (switch_of(v, f)) on(as<J>(j));
    };
    read_by(s, [is_on](const Job& j) { return SettingValue(is_on(as<J>(j))); });
    return s;
}

// ------------------------------------------------------------------------------- the tables

constexpr const char* kModel = "Model (defaults: the embedded default experiment)";

// The model settings, shared by every job.
std::vector<Setting> model_settings() {
    std::vector<Setting> s;
    auto add_int = [&](const char* key, const char* help, std::int64_t ModelParams::*member) {
        Setting x = make(key, fmt::format("model.{}", key), help, kModel, "INT", SettingType::integer);
        x.set = [member, f = x.field](Job& j, const SettingValue& v) { model_ref(j).*member = integer_of(v, f); };
        read_by(x, [member](const Job& j) { return SettingValue(model_of(j)->*member); });
        s.push_back(x);
    };
    auto add_real = [&](const char* key, const char* help, double ModelParams::*member) {
        Setting x = make(key, fmt::format("model.{}", key), help, kModel, "NUMBER", SettingType::number);
        x.set = [member, f = x.field](Job& j, const SettingValue& v) { model_ref(j).*member = number_of(v, f); };
        read_by(x, [member](const Job& j) { return SettingValue(model_of(j)->*member); });
        s.push_back(x);
    };
    add_int("d", "ambient dimension, integer >= 2", &ModelParams::d);
    add_int("L", "number of tokens, integer >= 1 (1e6 accepted)", &ModelParams::L);
    add_int("R", "informative tokens, integer 0 <= R <= L", &ModelParams::R);
    add_real("theta", "signal strength, 0 <= theta <= 1e100", &ModelParams::theta);
    add_real("sigma", "noise standard deviation per coordinate (see --sigma-per-norm), > 0", &ModelParams::sigma);
    add_real("beta", "inverse temperature of the softmax, > 0", &ModelParams::beta);
    Setting pn = make("sigma-per-norm", "model.convention",
                      "read --sigma as the noise norm: per-coordinate deviation sigma/sqrt(d), E||z||^2 = sigma^2",
                      kModel, "", SettingType::toggle);
    pn.set = [](Job& j, const SettingValue& v) {
        if (switch_of(v, "model.convention")) model_ref(j).convention = NoiseConvention::per_norm;
    };
    read_by(pn, [](const Job& j) { return SettingValue(model_of(j)->convention == NoiseConvention::per_norm); });
    s.push_back(pn);
    return s;
}

// The settings of the field that drives the ODE and of its table; `at` prefixes their paths
// ("" or "stationary.").
template <class J>
void add_drift_settings(std::vector<Setting>& s, const char* g, Ref<J, DriftMethod> method, Ref<J, FieldTableParams> table,
                        const std::string& at = "") {
    s.push_back(text_setting<J>("field", at + "field", "the field driving the ODE: exact | meanfield", g, "TEXT",
                          [method, at](J& j, const std::string& t) { method(j) = parse_drift_method(t, at + "field"); },
                          [method](J& j) { return std::string(to_string(method(j))); }));
    s.push_back(real<J>("table-tol", at + "table.tol", "Chebyshev table target relative to max |j'|, 1e-15 ... 1e-3", g,
                        [table](J& j) -> double& { return table(j).tol; }));
    s.push_back(integer<J, int>("table-points", at + "table.max_points",
                                "largest Chebyshev grid for the exact field, 33 ... 8193", g,
                                [table](J& j) -> int& { return table(j).max_points; }));
}

std::vector<Setting> field_settings() {
    using J = FieldJob;
    const char* g = "Field";
    std::vector<Setting> s = model_settings();
    s.push_back(real_list<J>("rho", "rho", "comma-separated alignments rho = <q, xi> in [-1, 1]", g,
                             [](J& j) -> std::vector<double>& { return j.rho; }));
    s.push_back(text_setting<J>("method", "method", "exact | meanfield | montecarlo", g, "TEXT",
                          [](J& j, const std::string& t) { j.method = parse_field_method(t, "method"); },
                          [](J& j) { return std::string(to_string(j.method)); }));
    s.push_back(integer<J, std::int64_t>("samples", "montecarlo.samples", "montecarlo: number of samples X, 2 ... 2^40",
                                         g, [](J& j) -> std::int64_t& { return j.montecarlo.samples; }));
    s.push_back(seed<J>("seed", "montecarlo.seed",
                        "montecarlo: master seed; chunk c draws from the stream (seed, montecarlo_field, c)", g,
                        [](J& j) -> std::uint64_t& { return j.montecarlo.seed; }));
    s.push_back(integer<J, int>("threads", "montecarlo.threads",
                                "montecarlo: threads (0 = all cores); results do not depend on it", g,
                                [](J& j) -> int& { return j.montecarlo.threads; }));
    s.push_back(real<J>("rel-tol", "exact.rel_tol",
                        "exact: target error relative to each integral's L1 norm, 1e-15 ... 1e-2", g,
                        [](J& j) -> double& { return j.exact.rel_tol; }));
    s.push_back(real<J>("inner-resolution", "exact.inner_resolution",
                        "exact: inner trapezoid step is min(0.25, this / (beta sigma)), 0.01 ... 0.5", g,
                        [](J& j) -> double& { return j.exact.inner_resolution; }));
    const char* r = "Guaranteed enclosures";
    s.push_back(toggle<J>("rigorous", "rigorous",
                          "guaranteed enclosures [lo, hi] of j, j', j'', E[A_I] in ball arithmetic (exact field; "
                          "docs/theory.md section 11) instead of estimates",
                          r, [](J& j) { j.rigorous = true; }, [](J& j) { return j.rigorous; }));
    s.push_back(integer<J, int>("precision", "rigorous_params.precision",
                                "with --rigorous: working precision of the balls in bits, 64 ... 1024 (raise it when an "
                                "enclosure comes out wider than the field: large beta theta)",
                                r, [](J& j) -> int& { return j.rigorous_params.precision; }));
    s.back().needs = "rigorous";
    return s;
}

std::vector<Setting> ode_settings() {
    using J = OdeJob;
    const char* g = "ODE";
    std::vector<Setting> s = model_settings();
    s.push_back(real_list<J>("rho0", "rho0", "initial alignments in [-1, 1], comma-separated: one solution each (1 ... 1000)",
                             g, [](J& j) -> std::vector<double>& { return j.rho0; }));
    s.push_back(real<J>("t-end", "t_end", "final time (ODE time t = sum of step sizes), > 0", g,
                        [](J& j) -> double& { return j.t_end; }));
    s.push_back(integer<J, int>("points", "points", "output times, evenly spaced on [0, t-end], 2 ... 1e7", g,
                                [](J& j) -> int& { return j.points; }));
    s.push_back(integer<J, int>("t-log", "t_log",
                                "N > 0: output at t = 0 and N times log-spaced on [t-end/1e4, t-end] instead of --points", g,
                                [](J& j) -> int& { return j.t_log; }));
    s.push_back(real_list<J>("t", "times", "output at these times (comma-separated, ascending, >= 0) instead of a grid",
                             g, [](J& j) -> std::vector<double>& { return j.times; }));
    s.push_back(real<J>("rtol", "ode.rtol", "relative tolerance per step, 1e-14 ... 0.1", g,
                        [](J& j) -> double& { return j.ode.rtol; }));
    s.push_back(real<J>("atol", "ode.atol", "absolute tolerance per step, 1e-16 ... 0.1", g,
                        [](J& j) -> double& { return j.ode.atol; }));
    s.push_back(real<J>("hit", "ode.hit_eps", "hitting level EPS, 1e-16 <= EPS < 1 - |rho0|: first t with |rho| >= 1 - EPS", g,
                        [](J& j) -> double& { return j.ode.hit_eps; }));
    s.push_back(toggle<J>("no-error-estimate", "ode.error_estimate",
                          "skip the tol/100 and perturbed-field solves that give rho_err", g,
                          [](J& j) { j.ode.error_estimate = false; }, [](J& j) { return !j.ode.error_estimate; }));
    add_drift_settings<J>(s, g, [](J& j) -> DriftMethod& { return j.field; },
                          [](J& j) -> FieldTableParams& { return j.table; });
    s.push_back(integer<J, int>("threads", "table.threads", "threads tabulating the exact field (0 = all cores)", g,
                                [](J& j) -> int& { return j.table.threads; }));
    return s;
}

std::vector<Setting> phase_settings() {
    using J = PhaseJob;
    const char* g = "Phase portrait";
    std::vector<Setting> s = model_settings();
    s.push_back(integer<J, int>("scan", "phase.scan_cells", "cells of the uniform scan of [-1, 1], 16 ... 1e7", g,
                                [](J& j) -> int& { return j.phase.scan_cells; }));
    add_drift_settings<J>(s, g, [](J& j) -> DriftMethod& { return j.field; },
                          [](J& j) -> FieldTableParams& { return j.table; });
    s.push_back(integer<J, int>("threads", "table.threads", "threads tabulating the exact field (0 = all cores)", g,
                                [](J& j) -> int& { return j.table.threads; }));
    return s;
}

// The ensemble settings of a job type J whose SgaParams `sga` returns.
template <class J>
void add_ensemble_settings(std::vector<Setting>& s, const char* g, Ref<J, SgaParams> sga, std::int64_t min_trials) {
    s.push_back(integer<J, std::int64_t>("steps", "sga.steps", "SGA steps per trial, 1 ... 2^40", g,
                                         [sga](J& j) -> std::int64_t& { return sga(j).steps; }));
    s.push_back(integer<J, std::int64_t>("trials", "sga.trials", fmt::format("independent trials, {} ... 1e7", min_trials),
                                         g, [sga](J& j) -> std::int64_t& { return sga(j).trials; }));
    s.push_back(seed<J>("seed", "sga.seed", "master seed: trial k draws from the stream (seed, sga_trial, k)", g,
                        [sga](J& j) -> std::uint64_t& { return sga(j).seed; }));
    s.push_back(text_setting<J>("sampler", "sga.sampler", "reduced (exact O(L) law of rho) | full (d-dimensional)", g, "TEXT",
                          [sga](J& j, const std::string& t) { sga(j).sampler = parse_sampler(t, "sga.sampler"); },
                          [sga](J& j) { return std::string(to_string(sga(j).sampler)); }));
    s.push_back(real<J>("eta0", "sga.schedule.eta0", "initial step size, 0 < eta0 <= 1e100", g,
                        [sga](J& j) -> double& { return sga(j).schedule.eta0; }));
    s.push_back(real<J>("k0", "sga.schedule.k0", "decay onset in steps, > 0", g,
                        [sga](J& j) -> double& { return sga(j).schedule.k0; }));
    s.push_back(real<J>("gamma", "sga.schedule.gamma",
                        "decay exponent in [0, 1]; Robbins-Monro needs 1/2 < gamma <= 1 (0 = constant step)", g,
                        [sga](J& j) -> double& { return sga(j).schedule.gamma; }));
    s.push_back(text_setting<J>("update", "sga.update",
                          "normalized: q <- (q + eta g)/|.|; tangent: q <- normalise(q + eta (I - qq^T) g)", g, "TEXT",
                          [sga](J& j, const std::string& t) { sga(j).update = parse_update_rule(t, "sga.update"); },
                          [sga](J& j) { return std::string(to_string(sga(j).update)); }));
    s.push_back(custom<J>("rho0", "sga.rho0",
                          "initial alignment in [-1, 1], or 'uniform' (query uniform on the sphere)", g,
                          "NUMBER|uniform", SettingType::number_or_text,
                          [sga](J& j, const SettingValue& v) {  // none (Python's None) is uniform
                              const auto* t = std::get_if<std::string>(&v);
                              if ((t && *t == "uniform") || std::holds_alternative<std::monostate>(v)) sga(j).rho0.reset();
                              else sga(j).rho0 = t ? parse_real(*t, "sga.rho0") : number_of(v, "sga.rho0");
                          },
                          [sga](J& j) { return sga(j).rho0 ? SettingValue(*sga(j).rho0) : SettingValue(std::monostate()); }));
    s.back().get = [sga](const Job& j) {
        const auto& rho0 = sga(as<J>(j)).rho0;
        return rho0 ? format_number(*rho0) : std::string("uniform");
    };
    s.push_back(real<J>("hit", "sga.hit_eps", "hitting level EPS, 1e-16 <= EPS < 1: |rho| >= 1 - EPS", g,
                        [sga](J& j) -> double& { return sga(j).hit_eps; }));
    s.push_back(integer<J, int>("threads", "sga.threads", "worker threads (0 = all cores); results do not depend on it",
                                g, [sga](J& j) -> int& { return sga(j).threads; }));
}

std::vector<Setting> sga_settings() {
    using J = SgaJob;
    const char* g = "Ensemble";
    std::vector<Setting> s = model_settings();
    add_ensemble_settings<J>(s, g, [](J& j) -> SgaParams& { return j.sga; }, 1);
    s.push_back(integer<J, std::int64_t>("first-trial", "sga.first_trial",
                                         "stream index of the first trial (rerun trial k alone), >= 0", g,
                                         [](J& j) -> std::int64_t& { return j.sga.first_trial; }));
    Setting rec = custom<J>(
        "record", "sga.record_steps", "extra steps at which to record rho (comma-separated)", g, "LIST",
        SettingType::numbers,
        [](J& j, const SettingValue& v) {
            j.sga.record_steps.clear();
            for (double k : numbers_of(v, "sga.record_steps")) {
                require(k == std::floor(k) && std::abs(k) <= 9007199254740992.0, "sga.record_steps", k, "integers");
                j.sga.record_steps.push_back(static_cast<std::int64_t>(k));
            }
        },
        [](J& j) {  // integers of at most 2^53 (the setter's range): exact as doubles
            return SettingValue(std::vector<double>(j.sga.record_steps.begin(), j.sga.record_steps.end()));
        });
    s.push_back(rec);
    s.push_back(integer<J, int>("records-per-decade", "sga.records_per_decade",
                                "log-spaced record steps per decade, 1 ... 1000", g,
                                [](J& j) -> int& { return j.sga.records_per_decade; }));
    return s;
}

// --figure-size of a job type J with a FigureParams member `figure`.
template <class J>
Setting figure_size_setting() {
    return text_setting<J>("figure-size", "figure.size",
                     "figure size: column (3.4 in wide, 8 pt text) | page (7 in wide, 9 pt) | WxH in inches (e.g. 5x3.5)",
                     "Output", "TEXT", [](J& j, const std::string& t) { j.figure.size = t; },
                     [](J& j) { return j.figure.size; });
}

// --table-width of a job type J with a TableParams member `tables`.
template <class J>
Setting table_width_setting() {
    return text_setting<J>("table-width", "tables.width",
                           "width of the LaTeX tables: column (one column of a two-column paper) | page (a table* "
                           "across both) | LENGTH with its unit, 2 ... 10 in (e.g. 3.33in)",
                           "Output", "TEXT", [](J& j, const std::string& t) { j.tables.width = t; },
                           [](J& j) { return j.tables.width; });
}

std::vector<Setting> compare_settings() {
    using J = CompareJob;
    std::vector<Setting> s = model_settings();
    add_ensemble_settings<J>(s, "Ensemble", [](J& j) -> SgaParams& { return j.compare.sga; }, 2);
    const char* c = "Comparison";
    add_drift_settings<J>(s, c, [](J& j) -> DriftMethod& { return j.compare.field; },
                          [](J& j) -> FieldTableParams& { return j.compare.table; });
    s.push_back(real<J>("horizon", "horizon", "T of the gap D_T, in ODE time, 0 < T < the run's t_final", c,
                        [](J& j) -> double& { return j.compare.horizon; }));
    s.push_back(integer<J, int>("anchors", "anchors", "anchors of D_T, geometric in t, 3 ... 10000", c,
                                [](J& j) -> int& { return j.compare.anchors; }));
    s.push_back(integer<J, int>("rows", "rows", "rows of the ODE-vs-SGA table, 3 ... 1000", c,
                                [](J& j) -> int& { return j.compare.rows; }));
    Setting columns = custom<J>(
        "table-columns", "table_columns",
        "columns of table.tex and table.md, comma-separated, from step, t, rho_ode, rho_eff, pred, sga, median, z, "
        "z_ode, gap_mean, nuisance (default: chosen by --table-width, t,rho_ode,sga,z,z_ode in a column and "
        "t,rho_ode,rho_eff,pred,sga,z,z_ode across the page; the terminal shows t,rho_ode,pred,sga,z; table.csv "
        "keeps every column)",
        c, "NAMES", SettingType::names,
        [](J& j, const SettingValue& v) { j.compare.table_columns = names_of(v, "table_columns"); },
        [](J& j) { return SettingValue(j.compare.table_columns); });
    s.push_back(columns);
    s.push_back(real_list<J>("study-eta0", "study_eta0", "eta0 values of the step-size study (comma-separated, >= 3)", c,
                             [](J& j) -> std::vector<double>& { return j.compare.study_eta0; }));
    s.push_back(toggle<J>("no-study", "study_eta0", "skip the step-size study", c,
                          [](J& j) { j.compare.study_eta0.clear(); }, [](J& j) { return j.compare.study_eta0.empty(); }));
    s.push_back(integer<J, std::int64_t>("study-trials", "study_trials", "trials per eta0 in the study, 2 ... 1e6", c,
                                         [](J& j) -> std::int64_t& { return j.compare.study_trials; }));
    s.push_back(real<J>("study-horizon", "study_horizon",
                        "ODE time of the study runs (0 = 3 x the ODE hitting time, >= 5)", c,
                        [](J& j) -> double& { return j.compare.study_horizon; }));
    const char* e = "Effective dynamics and verdict";
    s.push_back(real<J>("field-scale", "field_scale",
                        "multiply the theory's field F by this (a deliberately wrong theory: the verdict must catch it), "
                        "0 < S <= 1000", e, [](J& j) -> double& { return j.compare.field_scale; }));
    s.push_back(real<J>("diffusion-scale", "effective.prediction.diffusion_scale",
                        "multiply the effective chain's fluctuations about its one-step mean by this (a deliberately "
                        "wrong diffusion: the verdict's spread and outcome parts must catch it), 0 < D <= 10", e,
                        [](J& j) -> double& { return j.compare.effective.prediction.diffusion_scale; }));
    s.push_back(toggle<J>("no-effective", "effective.enabled",
                          "skip the effective-dynamics prediction and the verdict (plain ODE comparison only)", e,
                          [](J& j) { j.compare.effective.enabled = false; },
                          [](J& j) { return !j.compare.effective.enabled; }));
    s.push_back(text_setting<J>("effective-chain", "effective.chain",
                                "the chain that predicts the ensemble: resampled (the real chain's one-step law, tails "
                                "included) | gaussian (one-step mean and variance only)", e, "TEXT",
                                [](J& j, const std::string& t) {
                                    j.compare.effective.chain = parse_effective_chain(t, "effective.chain");
                                },
                                [](J& j) { return std::string(to_string(j.compare.effective.chain)); }));
    s.push_back(real<J>("effective-ratio", "effective.level_ratio",
                        "largest ratio of consecutive tabulated step sizes (geometric from eta_0 to the last eta), "
                        "1.05 ... 10", e, [](J& j) -> double& { return j.compare.effective.level_ratio; }));
    s.push_back(integer<J, std::int64_t>("effective-samples", "effective.moments.samples",
                                         "Monte Carlo samples per node of each one-step moment table, 40 ... 1e8", e,
                                         [](J& j) -> std::int64_t& { return j.compare.effective.moments.samples; }));
    s.push_back(integer<J, std::int64_t>("effective-paths", "effective.prediction.paths",
                                         "paths of the effective chain, 100 ... 1e7", e,
                                         [](J& j) -> std::int64_t& { return j.compare.effective.prediction.paths; }));
    s.push_back(real<J>("alpha", "effective.alpha",
                        "family-wise false-alarm rate of the verdict, 1e-6 ... 0.5", e,
                        [](J& j) -> double& { return j.compare.effective.alpha; }));
    s.push_back(figure_size_setting<J>());
    s.push_back(table_width_setting<J>());
    return s;
}

std::vector<Setting> stationary_settings() {
    using J = StationaryJob;
    const char* g = "Stationary law";
    std::vector<Setting> s = model_settings();
    s.push_back(real<J>("eta", "eta", "the constant step size, 0 < eta <= 1e100", g, [](J& j) -> double& { return j.eta; }));
    s.push_back(text_setting<J>("update", "update", "normalized | tangent", g, "TEXT",
                          [](J& j, const std::string& t) { j.update = parse_update_rule(t, "update"); },
                          [](J& j) { return std::string(to_string(j.update)); }));
    s.push_back(integer<J, int>("nodes", "stationary.moments.nodes",
                                "Chebyshev-Lobatto degree of the one-step moment table (nodes + 1 points), 8 ... 256", g,
                                [](J& j) -> int& { return j.stationary.moments.nodes; }));
    s.push_back(integer<J, std::int64_t>("samples", "stationary.moments.samples",
                                         "Monte Carlo samples per node, 40 ... 1e8", g,
                                         [](J& j) -> std::int64_t& { return j.stationary.moments.samples; }));
    s.push_back(seed<J>("seed", "stationary.moments.seed",
                        "master seed: node i draws from the stream (seed, one_step_moments, i)", g,
                        [](J& j) -> std::uint64_t& { return j.stationary.moments.seed; }));
    s.push_back(integer<J, int>("threads", "stationary.moments.threads",
                                "threads (0 = all cores); results do not depend on it", g,
                                [](J& j) -> int& { return j.stationary.moments.threads; }));
    s.push_back(integer<J, int>("cells", "stationary.cells", "quadrature cells on the basin, 100 ... 1e6", g,
                                [](J& j) -> int& { return j.stationary.cells; }));
    s.push_back(integer<J, int>("bootstrap", "stationary.bootstrap",
                                "bootstrap replicas for the Monte Carlo error, 10 ... 10000", g,
                                [](J& j) -> int& { return j.stationary.bootstrap; }));
    s.push_back(toggle<J>("no-chain", "stationary.chain.enabled",
                          "skip the resampled chain: the diffusion approximation (9.5) only", g,
                          [](J& j) { j.stationary.chain.enabled = false; },
                          [](J& j) { return !j.stationary.chain.enabled; }));
    s.push_back(integer<J, int>("chain-replicas", "stationary.chain.replicas",
                                "bootstrap replicas of the bank the chain runs on (its error), 4 ... 1000", g,
                                [](J& j) -> int& { return j.stationary.chain.replicas; }));
    s.push_back(integer<J, int>("chain-paths", "stationary.chain.paths",
                                "independent chain paths per replica and attractor, 1 ... 100000", g,
                                [](J& j) -> int& { return j.stationary.chain.paths; }));
    s.push_back(integer<J, std::int64_t>("chain-steps", "stationary.chain.steps",
                                         "chain steps kept per path after the burn-in, 1000 ... 1e9", g,
                                         [](J& j) -> std::int64_t& { return j.stationary.chain.steps; }));
    s.push_back(integer<J, std::int64_t>("chain-burn-in", "stationary.chain.burn_in",
                                         "least steps discarded per path (at least 10 relaxation times), 0 ... 1e9", g,
                                         [](J& j) -> std::int64_t& { return j.stationary.chain.burn_in; }));
    s.push_back(integer<J, int>("chain-batches", "stationary.chain.batches",
                                "most batches per path for the chain's batch-means error (fewer when a batch would be shorter than 20 autocorrelation times), 2 ... 1000", g,
                                [](J& j) -> int& { return j.stationary.chain.batches; }));
    s.push_back(real<J>("hit", "stationary.chain.hit_eps",
                        "tail level EPS, 0 < EPS < 1: the law's P(|rho| >= 1 - EPS)", g,
                        [](J& j) -> double& { return j.stationary.chain.hit_eps; }));
    add_drift_settings<J>(s, g, [](J& j) -> DriftMethod& { return j.stationary.field; },
                          [](J& j) -> FieldTableParams& { return j.stationary.table; }, "stationary.");
    s.push_back(table_width_setting<J>());
    return s;
}

// A box's range from a pair {LO, HI}, as parse_range reads "LO:HI" (validate checks LO <= HI).
ParamRange range_of_pair(const std::vector<double>& pair, const std::string& range_name) {
    if (pair.size() != 2)
        throw InvalidArgument(range_name, fmt::format("{} = '{}' is not a number or a range (accepted: X, LO:HI or a "
                                                      "pair LO, HI)",
                                                      short_name(range_name), text_of_setting(pair)));
    return ParamRange(pair[0], pair[1]);
}

// A box's range, typed: a pair {LO, HI}, or its value (an integer on the integer axes d, L, R).
SettingValue value_of_range(const ParamRange& r, bool integer_axis) {
    if (r.ranged()) return std::vector<double>{r.lo, r.hi};
    if (integer_axis && r.lo == std::floor(r.lo) && std::abs(r.lo) <= kTwo53) return static_cast<std::int64_t>(r.lo);
    return r.lo;
}

// A model parameter of a box (a check's or a proof's, `box` reaches it): a value or a range
// LO:HI (a pair {LO, HI} typed). A range's text is parsed naming `range_name` (the field, or the flag).
template <class J>
Setting range_setting(const char* key, const std::string& field, const std::string& range_name, const char* group,
                      const char* type_name, const char* help, ParamBox& (*box)(J&), ParamRange ParamBox::*member) {
    const bool integer_axis = member == &ParamBox::d || member == &ParamBox::L || member == &ParamBox::R;
    Setting s = custom<J>(
        key, field, help, group, type_name, SettingType::number_or_text,
        [box, member, field, range_name](J& j, const SettingValue& v) {
            if (const auto* t = std::get_if<std::string>(&v)) box(j).*member = parse_range(*t, range_name);
            else if (const auto* p = std::get_if<std::vector<double>>(&v)) box(j).*member = range_of_pair(*p, range_name);
            else box(j).*member = ParamRange(number_of(v, field));
        },
        [box, member, integer_axis](J& j) { return value_of_range(box(j).*member, integer_axis); });
    s.get = [box, member](const Job& j) { return (box(as<J>(j)).*member).text(); };
    return s;
}

// A model parameter of a check box.
Setting box_setting(const char* key, const char* help, ParamRange ParamBox::*member) {
    const std::string field = fmt::format("check.box.{}", key);
    return range_setting<CheckJob>(key, field, field, "Model (each a value or a range LO:HI)", "VALUE|LO:HI", help,
                                   [](CheckJob& j) -> ParamBox& { return j.check.box; }, member);
}

std::vector<Setting> check_settings() {
    using J = CheckJob;
    std::vector<Setting> s;
    s.push_back(text_setting<J>("claim", "check.claim", "monotone | positive-drift | attractors=N | filtering | hitting-time<=T",
                          "Claim", "TEXT", [](J& j, const std::string& t) { j.check.claim = parse_claim(t, "check.claim"); },
                          [](J& j) { return to_string(j.check.claim); }));
    s.back().required = true;
    s.push_back(box_setting("d", "ambient dimension, integers >= 2", &ParamBox::d));
    s.push_back(box_setting("L", "number of tokens, integers >= 1", &ParamBox::L));
    s.push_back(box_setting("R", "informative tokens, integers 0 <= R <= L (R's HI <= L's LO)", &ParamBox::R));
    s.push_back(box_setting("theta", "signal strength, >= 0", &ParamBox::theta));
    s.push_back(box_setting("sigma", "noise per coordinate (see --sigma-per-norm), > 0", &ParamBox::sigma));
    s.push_back(box_setting("beta", "inverse temperature, > 0", &ParamBox::beta));
    s.push_back(toggle<J>("sigma-per-norm", "check.noise", "read --sigma as the noise norm (sigma/sqrt(d) per coordinate)",
                          "Model (each a value or a range LO:HI)", [](J& j) { j.check.noise = NoiseConvention::per_norm; },
                          [](J& j) { return j.check.noise == NoiseConvention::per_norm; }));
    const char* b = "Box sampling";
    s.push_back(text_setting<J>("scale", "scale", "log | linear | auto (every range), or a list like theta=linear,R=log", b,
                          "TEXT", [](J& j, const std::string& t) { j.scale = parse_box_scales(t, "scale"); },
                          [](J& j) { return to_string(j.scale); }));
    for (int a = 0; a < axis_count; ++a)  // a range's scale is --scale's (ParamBox::validate names it)
        s.back().routes.push_back(fmt::format("check.box.{}.scale", axis_name(a)));
    s.push_back(integer<J, int>("grid", "check.grid", "points per ranged parameter, 2 ... 4097", b,
                                [](J& j) -> int& { return j.check.grid; }));
    s.push_back(integer<J, int>("refine", "check.refine", "bisections of cells whose corners disagree, 0 ... 12", b,
                                [](J& j) -> int& { return j.check.refine; }));
    s.push_back(integer<J, std::int64_t>("max-points", "check.max_points", "cap on points evaluated, 1 ... 1e7", b,
                                         [](J& j) -> std::int64_t& { return j.check.max_points; }));
    s.push_back(integer<J, int>("threads", "check.threads", "threads over parameter points (0 = all cores)", b,
                                [](J& j) -> int& { return j.check.threads; }));
    const char* c = "Verdict accuracy (estimated errors)";
    s.push_back(real<J>("tol", "check.certify.tol", "largest relative error of the field table accepted for a verdict, 0 < tol <= 1", c,
                        [](J& j) -> double& { return j.check.certify.tol; }));
    s.push_back(real<J>("rho0", "check.certify.rho0", "start of the ODE (hitting-time claims), -1 < rho0 < 1", c,
                        [](J& j) -> double& { return j.check.certify.rho0; }));
    s.push_back(real<J>("hit", "check.certify.hit_eps", "hitting level |rho| >= 1 - HIT (hitting-time claims), 1e-16 <= HIT < 1", c,
                        [](J& j) -> double& { return j.check.certify.hit_eps; }));
    s.push_back(text_setting<J>("field", "check.certify.field", "exact | meanfield", c, "TEXT",
                          [](J& j, const std::string& t) {
                              j.check.certify.field = parse_field_method(t, "check.certify.field");
                          },
                          [](J& j) { return std::string(to_string(j.check.certify.field)); }));
    s.push_back(text_setting<J>("derivative", "check.certify.derivative",
                          "enclosure | estimate: sign of j'' on a root's run (attractors) and of dE[A_I]/drho (filtering) "
                          "from guaranteed enclosures (exact field, 1e-3 <= beta sigma <= 4) or the n^2 eps estimate", c, "TEXT",
                          [](J& j, const std::string& t) {
                              j.check.certify.derivative = parse_derivative_bound(t, "check.certify.derivative");
                          },
                          [](J& j) { return std::string(to_string(j.check.certify.derivative)); }));
    s.push_back(integer<J, int>("min-points", "check.certify.min_points",
                                "first Chebyshev grid of each point's table, 2^k + 1 with 9 <= min-points <= --table-points", c,
                                [](J& j) -> int& { return j.check.certify.min_points; }));
    s.push_back(integer<J, int>("table-points", "check.certify.table.max_points",
                                "largest Chebyshev grid before a point is undecided, 33 ... 8193", c,
                                [](J& j) -> int& { return j.check.certify.table.max_points; }));
    s.push_back(real<J>("table-tol", "check.certify.table.tol", "Chebyshev tail target (the table's noise floor), 1e-15 ... 1e-3", c,
                        [](J& j) -> double& { return j.check.certify.table.tol; }));
    s.push_back(real<J>("rel-tol", "check.certify.table.exact.rel_tol", "accuracy of each exact-field sample, 1e-15 ... 1e-2", c,
                        [](J& j) -> double& { return j.check.certify.table.exact.rel_tol; }));
    s.push_back(real<J>("inner-resolution", "check.certify.table.exact.inner_resolution",
                        "inner trapezoid step of the exact field, times tau, 0.01 ... 0.5", c,
                        [](J& j) -> double& { return j.check.certify.table.exact.inner_resolution; }));
    s.push_back(text_setting<J>("x-axis", "x_axis", "ranged parameter on the phase diagram's horizontal axis", "Output",
                          "TEXT", [](J& j, const std::string& t) { j.x_axis = t; }, [](J& j) { return j.x_axis; }));
    s.push_back(figure_size_setting<J>());
    s.push_back(table_width_setting<J>());
    return s;
}

// A model parameter of a proof's box: a value or a range LO:HI (an interval, every point covered).
Setting prove_box_setting(const char* key, const char* type_name, const char* help, ParamRange ParamBox::*member) {
    return range_setting<ProveJob>(key, fmt::format("prove.box.{}", key), key, "Claim, box and search", type_name, help,
                                   [](ProveJob& j) -> ParamBox& { return j.prove.box; }, member);
}

std::vector<Setting> prove_settings() {
    using J = ProveJob;
    const char* g = "Claim, box and search";
    std::vector<Setting> s;
    s.push_back(text_setting<J>("claim", "prove.claim", "monotone | positive-drift | attractors=N | recovery | hitting-time<=T | filtering<=EPS", g,
                                "TEXT", [](J& j, const std::string& t) { j.prove.claim = parse_claim(t, "claim"); },
                                [](J& j) { return to_string(j.prove.claim); }));
    s.back().required = true;
    s.back().unless = "verify";
    s.push_back(prove_box_setting("d", "INT|LO:HI", "ambient dimension (integers; a range is enumerated)", &ParamBox::d));
    s.push_back(prove_box_setting("L", "INT|LO:HI", "tokens, >= 3 (integers; a range is enumerated)", &ParamBox::L));
    s.push_back(prove_box_setting("R", "INT|LO:HI", "informative tokens (integers; a range is enumerated)", &ParamBox::R));
    s.push_back(prove_box_setting("theta", "X|LO:HI", "signal strength: a value or an interval, every point covered",
                                  &ParamBox::theta));
    s.push_back(prove_box_setting("sigma", "X|LO:HI", "noise per coordinate: a value or an interval", &ParamBox::sigma));
    s.push_back(prove_box_setting("beta", "X|LO:HI", "inverse temperature: a value or an interval (1e-3 <= beta*sigma <= 4)",
                                  &ParamBox::beta));
    s.push_back(integer<J, int>("precision", "prove.rigorous.precision", "ball precision in bits, 64 ... 1024", g,
                                [](J& j) -> int& { return j.prove.rigorous.precision; }));
    s.push_back(real<J>("rel-tol", "prove.rigorous.rel_tol", "target of each truncation error relative to |j|, 1e-30 ... 1e-3",
                        g, [](J& j) -> double& { return j.prove.rigorous.rel_tol; }));
    s.push_back(integer<J, int>("cells", "prove.initial_cells", "rho cells at the start, 2 ... 4096", g,
                                [](J& j) -> int& { return j.prove.initial_cells; }));
    s.push_back(integer<J, int>("max-depth", "prove.max_depth", "bisections of a rho cell, 0 ... 40", g,
                                [](J& j) -> int& { return j.prove.max_depth; }));
    s.push_back(integer<J, int>("box-depth", "prove.max_box_depth", "bisections of a parameter cell, 0 ... 20", g,
                                [](J& j) -> int& { return j.prove.max_box_depth; }));
    s.push_back(integer<J, std::int64_t>("max-cells", "prove.max_cells", "cap on enclosures computed, 1 ... 1e7", g,
                                         [](J& j) -> std::int64_t& { return j.prove.max_cells; }));
    s.push_back(real<J>("rho0", "prove.rho0", "hitting-time: start of the ODE", g, [](J& j) -> double& { return j.prove.rho0; }));
    s.push_back(real<J>("hit", "prove.hit_eps", "hitting-time: level 1 - HIT, 1e-12 ... 0.5", g,
                        [](J& j) -> double& { return j.prove.hit_eps; }));
    s.push_back(integer<J, int>("threads", "prove.threads", "threads over cells (0 = all cores); results do not depend on it",
                                g, [](J& j) -> int& { return j.prove.threads; }));
    s.push_back(toggle<J>("meanfield", "prove.meanfield",
                          "prove the claim for the mean-field limit L -> infinity at alpha = R/L (theory.md (5.1); d "
                          "plays no part), not for the exact field",
                          g, [](J& j) { j.prove.meanfield = true; }, [](J& j) { return j.prove.meanfield; }));
    const char* c = "Re-checking a certificate";
    s.push_back(text_setting<J>("verify", "verify",
                                "re-check this certificate file (untrusted input) instead of proving (exit 2 if it does "
                                "not check; only --threads combines with it)",
                                c, "FILE",
                                [](J& j, const std::string& t) {
                                    if (t.empty()) throw InvalidArgument("verify", "verify = '' is empty (accepted: a certificate file)");
                                    j.verify = t;
                                },
                                [](J& j) { return j.verify; }));
    s.back().alone = true;
    s.back().alone_with = {"threads", "verify-fast"};
    s.push_back(toggle<J>("verify-fast", "verify_fast",
                          "with --verify: recompute with the prover's own enclosure (faster, not independent of it)", c,
                          [](J& j) { j.verify_fast = true; }, [](J& j) { return j.verify_fast; }));
    s.back().needs = "verify";
    return s;
}

}  // namespace

std::vector<Setting> shared_model_settings() { return model_settings(); }

// The tables, for the job table (experiment/job_table.cpp).
std::vector<Setting> detail::field_settings() { return rhoflow::field_settings(); }
std::vector<Setting> detail::ode_settings() { return rhoflow::ode_settings(); }
std::vector<Setting> detail::phase_settings() { return rhoflow::phase_settings(); }
std::vector<Setting> detail::sga_settings() { return rhoflow::sga_settings(); }
std::vector<Setting> detail::compare_settings() { return rhoflow::compare_settings(); }
std::vector<Setting> detail::stationary_settings() { return rhoflow::stationary_settings(); }
std::vector<Setting> detail::check_settings() { return rhoflow::check_settings(); }
std::vector<Setting> detail::prove_settings() { return rhoflow::prove_settings(); }

const std::vector<Setting>& settings_for(std::string_view command) {
    static const std::vector<std::vector<Setting>> tables = [] {  // built once the job table is closed
        std::vector<std::vector<Setting>> t;
        for (const JobKind& k : job_kinds()) t.push_back(k.settings());
        return t;
    }();
    const JobKind* k = find_job_kind(command);
    if (!k) make_job(command);  // throws naming the command
    return tables[static_cast<std::size_t>(k - job_kinds().data())];
}

const Setting* find_setting(std::string_view command, std::string_view key) {
    for (const auto& s : settings_for(command))
        if (s.key == key) return &s;
    return nullptr;
}

std::string key_for_field(std::string_view command, const std::string& field) {
    const Setting* best = nullptr;
    for (const auto& s : settings_for(command)) {
        if (s.field == field || std::find(s.routes.begin(), s.routes.end(), field) != s.routes.end()) return s.key;
        // The nearest enclosing field ("sga.rho0" for "sga.rho0.x").
        if (field.size() > s.field.size() && field.compare(0, s.field.size(), s.field) == 0 &&
            field[s.field.size()] == '.' && (!best || s.field.size() > best->field.size()))
            best = &s;
    }
    if (best) return best->key;
    std::string key = short_name(field);
    std::replace(key.begin(), key.end(), '_', '-');
    return key;
}

std::string spelled(const std::string& key, SettingSpelling spelling) {
    if (spelling == SettingSpelling::flag) return "--" + key;
    std::string s = key;
    if (spelling == SettingSpelling::keyword) std::replace(s.begin(), s.end(), '-', '_');
    return s;
}

void check_given(std::string_view command, const std::function<bool(const std::string&)>& given,
                 SettingSpelling spelling) {
    const auto name = [spelling](const std::string& k) { return spelled(k, spelling); };
    const auto& table = settings_for(command);
    for (const Setting& s : table)
        if (!s.needs.empty() && given(s.key) && !given(s.needs))
            throw InvalidArgument(s.key, fmt::format("{} needs {} ({})", name(s.key), name(s.needs), s.help));
    for (const Setting& s : table) {
        if (!s.alone || !given(s.key)) continue;
        for (const Setting& o : table)
            if (&o != &s && given(o.key) &&
                std::find(s.alone_with.begin(), s.alone_with.end(), o.key) == s.alone_with.end())
                throw InvalidArgument(o.key, fmt::format("{} cannot be combined with {} (the certificate says "
                                                         "everything; only {} may come with it)",
                                                         name(o.key), name(s.key), [&] {
                                                             std::string l;
                                                             for (const auto& k : s.alone_with)
                                                                 l += (l.empty() ? "" : ", ") + name(k);
                                                             return l;
                                                         }()));
    }
    for (const Setting& s : table)
        if (s.required && !given(s.key) && !(!s.unless.empty() && given(s.unless)))
            throw InvalidArgument(s.key, fmt::format("{} is required (accepted: {}){}", name(s.key), s.help,
                                                     s.unless.empty() ? "" : "; or give " + name(s.unless)));
}

void finish_settings(Job& job) {
    if (auto* c = std::get_if<CheckJob>(&job)) {  // the box's noise convention is applied per point
        apply_scales(c->check.box, c->scale);
        return;
    }
    if (!model_of(job)) return;  // prove: a box of per-coordinate sigmas; or a job without a model
    ModelParams& m = model_ref(job);
    if (m.convention == NoiseConvention::per_norm && m.d >= 1) m.sigma /= std::sqrt(static_cast<double>(m.d));
}

}  // namespace rhoflow
