#include "rhoflow/check/box.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/number_text.hpp"

namespace rhoflow {

std::string_view to_string(AxisScale s) {
    switch (s) {
        case AxisScale::automatic: return "auto";
        case AxisScale::log: return "log";
        case AxisScale::linear: return "linear";
    }
    return "?";
}

AxisScale parse_axis_scale(std::string_view text, const std::string& field) {
    if (text == "auto") return AxisScale::automatic;
    if (text == "log") return AxisScale::log;
    if (text == "linear") return AxisScale::linear;
    throw InvalidArgument(field, fmt::format("scale = '{}' is not a scale (accepted: log, linear, auto, or a list "
                                             "like theta=linear,R=log)",
                                             text));
}

AxisScale ParamRange::effective_scale() const noexcept {
    if (scale == AxisScale::automatic) return lo > 0 ? AxisScale::log : AxisScale::linear;
    return scale;
}

double ParamRange::at(double u, bool integer) const {
    if (!ranged() || u <= 0) return lo;
    if (u >= 1) return hi;
    double v = effective_scale() == AxisScale::log ? lo * std::pow(hi / lo, u) : lo + u * (hi - lo);
    if (integer) v = std::round(v);
    return std::clamp(v, lo, hi);
}

std::string ParamRange::text() const {
    return ranged() ? format_number(lo) + ":" + format_number(hi) : format_number(lo);
}

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
}

bool to_number(std::string_view s, double& out) {
    const auto v = parse_number(trim(s));
    if (!v) return false;
    out = *v;
    return true;
}

// The parameter's name for messages: the last component of the field path.
std::string short_name(const std::string& field) {
    const auto dot = field.rfind('.');
    return dot == std::string::npos ? field : field.substr(dot + 1);
}

}  // namespace

ParamRange parse_range(std::string_view text, const std::string& field) {
    const std::string name = short_name(field);
    const auto colon = text.find(':');
    double lo = 0, hi = 0;
    if (colon == std::string_view::npos) {
        if (!to_number(text, lo))
            throw InvalidArgument(field, fmt::format("{} = '{}' is not a number or a range (accepted: X or LO:HI)",
                                                     name, text));
        return ParamRange(lo);
    }
    if (!to_number(text.substr(0, colon), lo) || !to_number(text.substr(colon + 1), hi))
        throw InvalidArgument(field, fmt::format("{} = '{}' is not a number or a range (accepted: X or LO:HI with "
                                                 "numbers LO <= HI)",
                                                 name, text));
    return ParamRange(lo, hi);
}

double parse_single(std::string_view text, const std::string& field) {
    const std::string name = short_name(field);
    if (text.find(':') != std::string_view::npos)
        throw InvalidArgument(field, fmt::format("{} = '{}' takes no range (accepted: a single number; ranges "
                                                 "LO:HI are for the model parameters d, L, R, theta, sigma, beta)",
                                                 name, text));
    double v = 0;
    if (!to_number(text, v))
        throw InvalidArgument(field, fmt::format("{} = '{}' is not a number (accepted: a single number)", name, text));
    return v;
}

std::string_view axis_name(int axis) {
    static constexpr std::string_view names[axis_count] = {"d", "L", "R", "theta", "sigma", "beta"};
    return names[axis];
}

bool axis_is_integer(int axis) { return axis <= static_cast<int>(Axis::R); }

std::int64_t saturating_product(std::int64_t a, std::int64_t b) {
    if (a <= 0 || b <= 0) return 0;
    if (a > count_cap / b) return count_cap;
    return std::min(a * b, count_cap);
}

std::int64_t integer_values(const ParamRange& r) {
    const double n = std::floor(r.hi) - std::ceil(r.lo) + 1;
    if (!(n >= 1)) return 0;
    return n >= static_cast<double>(count_cap) ? count_cap : static_cast<std::int64_t>(n);
}

std::int64_t integer_combinations(const ParamBox& box) {
    return saturating_product(saturating_product(integer_values(box.d), integer_values(box.L)), integer_values(box.R));
}

std::string count_text(std::int64_t n, double approx) {
    return n < count_cap ? fmt::format("{}", n) : fmt::format("about {:.3g}", approx);
}

std::string combinations_text(const ParamBox& box) {
    const std::int64_t d = integer_values(box.d), L = integer_values(box.L), R = integer_values(box.R);
    return fmt::format("d x L x R = {} x {} x {} = {}", d, L, R,
                       count_text(integer_combinations(box),
                                  static_cast<double>(d) * static_cast<double>(L) * static_cast<double>(R)));
}

int ParamBox::ranged_count() const {
    int n = 0;
    for (const auto* r : axes()) n += r->ranged();
    return n;
}

namespace {

void check_range(const ParamRange& r, int axis, double min, double max, bool min_open, const std::string& accepted) {
    const std::string name(axis_name(axis));
    const std::string field = "box." + name;
    const bool integer = axis_is_integer(axis);
    auto ok_end = [&](double v) {
        if (!std::isfinite(v) || v > max) return false;
        if (min_open ? v <= min : v < min) return false;
        return !integer || v == std::floor(v);
    };
    if (!ok_end(r.lo) || !ok_end(r.hi) || r.lo > r.hi)
        throw InvalidArgument(field, fmt::format("{} = {} is out of range (accepted: {}{})", name, r.text(), accepted,
                                                 r.ranged() || r.lo > r.hi ? ", as X or LO:HI with LO <= HI" : ""));
    if (r.ranged() && r.scale == AxisScale::log && r.lo <= 0)
        throw InvalidArgument(field + ".scale", fmt::format("scale = log for {} = {} needs LO > 0 (accepted: linear "
                                                            "for this range)",
                                                            name, r.text()));
}

}  // namespace

void ParamBox::validate() const {
    check_range(d, 0, 2, 1e9, false, "integers 2 <= d <= 1e9");
    check_range(L, 1, 1, 1e12, false, "integers 1 <= L <= 1e12");
    check_range(R, 2, 0, L.lo, false,
                L.ranged() ? fmt::format("integers 0 <= R <= {} (the lower end of L's range)", format_number(L.lo))
                           : fmt::format("integers 0 <= R <= L = {}", format_number(L.lo)));
    check_range(theta, 3, 0, 1e300, false, "finite theta >= 0");
    check_range(sigma, 4, 0, 1e300, true, "finite sigma > 0");
    check_range(beta, 5, 0, 1e300, true, "finite beta > 0");
}

BoxScales parse_box_scales(std::string_view spec, const std::string& field) {
    BoxScales out;
    if (spec.find('=') == std::string_view::npos) {
        out.items = {{-1, parse_axis_scale(trim(spec), field)}};
        return out;
    }
    out.items.clear();
    std::size_t start = 0;
    while (start <= spec.size()) {
        const auto comma = spec.find(',', start);
        const std::string_view item = trim(spec.substr(start, comma == std::string_view::npos ? spec.npos : comma - start));
        const auto eq = item.find('=');
        if (eq == std::string_view::npos)
            throw InvalidArgument(field, fmt::format("scale = '{}': '{}' is not PARAM=SCALE (accepted: log, linear, "
                                                     "auto, or a list like theta=linear,R=log)",
                                                     spec, item));
        const std::string_view name = trim(item.substr(0, eq));
        int axis = -1;
        for (int a = 0; a < axis_count; ++a)
            if (axis_name(a) == name) axis = a;
        if (axis < 0)
            throw InvalidArgument(field, fmt::format("scale = '{}': '{}' is not a model parameter (accepted: d, L, R, "
                                                     "theta, sigma, beta)",
                                                     spec, name));
        out.items.emplace_back(axis, parse_axis_scale(trim(item.substr(eq + 1)), field));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

std::string to_string(const BoxScales& s) {
    std::string out;
    for (const auto& [axis, scale] : s.items) {
        if (!out.empty()) out += ",";
        if (axis >= 0) out += fmt::format("{}=", axis_name(axis));
        out += to_string(scale);
    }
    return out;
}

void apply_scales(ParamBox& box, const BoxScales& s) {
    for (const auto& [axis, scale] : s.items) {
        if (axis < 0)
            for (auto* r : box.axes()) r->scale = scale;
        else
            box.axes()[static_cast<std::size_t>(axis)]->scale = scale;
    }
}

void apply_scales(ParamBox& box, std::string_view spec) { apply_scales(box, parse_box_scales(spec, "box.scale")); }

void to_json(nlohmann::json& j, const ParamRange& r) {
    j = {{"lo", r.lo}, {"hi", r.hi}, {"scale", std::string(to_string(r.scale))}};
}

void from_json(const nlohmann::json& j, ParamRange& r) {
    if (j.is_number()) {
        r = ParamRange(j.get<double>());
        return;
    }
    r.lo = j.at("lo").get<double>();
    r.hi = j.at("hi").get<double>();
    r.scale = parse_axis_scale(j.value("scale", std::string("auto")), "scale");
}

void to_json(nlohmann::json& j, const ParamBox& b) {
    j = nlohmann::json::object();
    const auto ax = b.axes();
    for (int a = 0; a < axis_count; ++a) j[std::string(axis_name(a))] = *ax[static_cast<std::size_t>(a)];
}

void from_json(const nlohmann::json& j, ParamBox& b) {
    auto ax = b.axes();
    for (int a = 0; a < axis_count; ++a) {
        const std::string k(axis_name(a));
        if (j.contains(k)) j.at(k).get_to(*ax[static_cast<std::size_t>(a)]);
    }
}

}  // namespace rhoflow
