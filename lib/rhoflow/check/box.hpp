// The box of model parameters `rhoflow check` covers: each of d, L, R, theta, sigma, beta is a
// single value or a range LO:HI, sampled on `grid` points per ranged axis, on a log scale (the
// default for positive ranges) or a linear one. Integer parameters (d, L, R) stay integers: a
// grid value is rounded to the nearest integer, and points that round to the same model are
// evaluated once (docs/theory.md section 10, "Over a box").
// When it fails: parse_range / parse_single / apply_scales / validate throw InvalidArgument
// naming the field ("box.R", "box.theta.scale", ...) with the accepted forms or range.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rhoflow/model/model.hpp"

namespace rhoflow {

/// How a range is sampled.
enum class AxisScale {
    automatic,  ///< log when LO > 0, linear otherwise
    log,        ///< geometric spacing (needs LO > 0)
    linear      ///< arithmetic spacing
};

/// "auto", "log" or "linear".
std::string_view to_string(AxisScale s);
/// Parses "auto" | "log" | "linear"; throws InvalidArgument naming `field` otherwise.
AxisScale parse_axis_scale(std::string_view text, const std::string& field);

/// A parameter's value (lo == hi) or range [lo, hi].
struct ParamRange {
    double lo = 0;                          ///< lower end (the value when not ranged)
    double hi = 0;                          ///< upper end (== lo when not ranged)
    AxisScale scale = AxisScale::automatic; ///< spacing of the grid over the range

    ParamRange() = default;
    /// A single value.
    explicit ParamRange(double v) : lo(v), hi(v) {}
    /// A range (lo may equal hi, which is a single value).
    ParamRange(double l, double h, AxisScale s = AxisScale::automatic) : lo(l), hi(h), scale(s) {}

    /// Whether this is a proper range (lo < hi).
    bool ranged() const noexcept { return lo != hi; }
    /// The scale actually used: log or linear.
    AxisScale effective_scale() const noexcept;
    /// The value at fraction u in [0, 1] of the range (u = 0: lo, u = 1: hi), rounded to the
    /// nearest integer when `integer`.
    double at(double u, bool integer) const;
    /// "50" or "10:1000".
    std::string text() const;
};

/// Parses "X" or "LO:HI" (numbers; "1e6" accepted); throws InvalidArgument naming `field` with
/// the accepted forms. Range checks are left to ParamBox::validate.
ParamRange parse_range(std::string_view text, const std::string& field);
/// Parses a single number; "LO:HI" is refused with InvalidArgument naming `field` ("takes a
/// single value, not a range").
double parse_single(std::string_view text, const std::string& field);

/// Index of each model parameter in ParamBox::axes().
enum class Axis { d = 0, L = 1, R = 2, theta = 3, sigma = 4, beta = 5 };
/// Number of model parameters.
inline constexpr int axis_count = 6;
/// "d", "L", "R", "theta", "sigma", "beta".
std::string_view axis_name(int axis);
/// Whether the parameter is an integer (d, L, R).
bool axis_is_integer(int axis);

/// The box of model parameters (defaults: the embedded default experiment, no ranges).
struct ParamBox {
    ParamRange d{50};       ///< ambient dimension: integers 2 <= LO <= HI <= 1e9
    ParamRange L{1000};     ///< tokens: integers 1 <= LO <= HI <= 1e12
    ParamRange R{100};      ///< informative tokens: integers 0 <= LO <= HI <= L's LO
    ParamRange theta{1};    ///< signal strength: 0 <= LO <= HI, finite
    ParamRange sigma{1};    ///< noise per coordinate (or per norm, see CheckParams::noise): 0 < LO <= HI
    ParamRange beta{1};     ///< inverse temperature: 0 < LO <= HI, finite

    /// The ranges in Axis order.
    std::array<const ParamRange*, axis_count> axes() const { return {&d, &L, &R, &theta, &sigma, &beta}; }
    /// Mutable ranges in Axis order.
    std::array<ParamRange*, axis_count> axes() { return {&d, &L, &R, &theta, &sigma, &beta}; }
    /// Number of ranged axes.
    int ranged_count() const;

    /// Throws InvalidArgument naming "box.<param>" (or "box.<param>.scale") with the accepted
    /// range when a range is empty, reversed, out of the model's domain, or log-scaled with
    /// LO <= 0. Whether the exact field accepts every point (beta*sigma <= 12) is checked by
    /// CheckParams::validate, which knows the noise convention.
    void validate() const;
};

/// Counts of points, cells and combinations saturate here (2^62): no product of counts overflows.
inline constexpr std::int64_t count_cap = std::int64_t(1) << 62;
/// a * b for counts a, b >= 0, saturating at count_cap.
std::int64_t saturating_product(std::int64_t a, std::int64_t b);
/// The integer values hi - lo + 1 of an integer range (at most count_cap).
std::int64_t integer_values(const ParamRange& r);
/// The integer combinations of the box's d, L and R (saturating at count_cap).
std::int64_t integer_combinations(const ParamBox& box);
/// A count for messages: the integer below count_cap, else "about 1.14e+19" from `approx`.
std::string count_text(std::int64_t n, double approx);
/// "d x L x R = 536870912 x 34359738368 x 1 = about 1.84e+19": the box's integer combinations.
std::string combinations_text(const ParamBox& box);

/// The scales of a box's ranges as they were asked for: one for every range ("log"), or one per
/// named parameter, in the order given ("theta=linear,R=log").
struct BoxScales {
    /// (axis, scale) in the order given; axis -1: every range.
    std::vector<std::pair<int, AxisScale>> items = {{-1, AxisScale::automatic}};
};
/// Parses "log", "linear", "auto" (every range) or a list "theta=linear,R=log" (blanks around
/// items ignored); throws InvalidArgument naming `field` on anything else.
BoxScales parse_box_scales(std::string_view spec, const std::string& field);
/// "auto", "log", "linear" or "theta=linear,R=log" (what parse_box_scales reads).
std::string to_string(const BoxScales& s);
/// Sets the scale of the box's ranges, item by item.
void apply_scales(ParamBox& box, const BoxScales& s);
/// apply_scales(box, parse_box_scales(spec, "box.scale")).
void apply_scales(ParamBox& box, std::string_view spec);

/// JSON: {"lo","hi","scale"}.
void to_json(nlohmann::json& j, const ParamRange& r);
/// JSON: reads {"lo","hi","scale"} (a bare number is a single value).
void from_json(const nlohmann::json& j, ParamRange& r);
/// JSON: {"d":{...},"L":{...},...}.
void to_json(nlohmann::json& j, const ParamBox& b);
/// JSON: reads the six ranges (missing ones keep their defaults).
void from_json(const nlohmann::json& j, ParamBox& b);

}  // namespace rhoflow
