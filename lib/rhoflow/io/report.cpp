#include "rhoflow/io/report.hpp"

#include <cmath>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/version.hpp"

namespace rhoflow {

using nlohmann::json;

json to_json(const ModelParams& m, NoiseConvention convention) {
    const bool per_norm = convention == NoiseConvention::per_norm;
    return {{"d", m.d},
            {"L", m.L},
            {"R", m.R},
            {"theta", m.theta},
            {"sigma", m.sigma},
            {"beta", m.beta},
            {"noise_convention", per_norm ? "per_norm" : "per_coordinate"},
            {"sigma_input", per_norm ? m.sigma * std::sqrt(static_cast<double>(m.d)) : m.sigma}};
}

json to_json(const FieldPoint& p) {
    return {{"rho", p.rho},         {"j", p.j},         {"dj", p.dj},
            {"drift", p.drift},     {"mass_informative", p.mass_informative},
            {"j_err", p.j_err},     {"dj_err", p.dj_err}, {"drift_err", p.drift_err},
            {"mass_err", p.mass_err}};
}

json to_json(const OdeSolution& s) {
    return {{"t", s.t},
            {"rho", s.rho},
            {"rho_err", s.rho_err},
            {"hit_time", s.hit_time ? json(*s.hit_time) : json(nullptr)},
            {"hit_time_err", s.hit_time ? json(s.hit_time_err) : json(nullptr)},
            {"steps", s.steps},
            {"rhs_evals", s.rhs_evals}};
}

json to_json(const PhasePortrait& p) {
    json eq = json::array(), basins = json::array();
    for (const auto& e : p.equilibria)
        eq.push_back({{"rho", e.rho},
                      {"rho_err", e.rho_err},
                      {"stable", e.stable},
                      {"kind", e.kind},
                      {"dfdrho", e.dfdrho},
                      {"dfdrho_err", e.dfdrho_err}});
    for (const auto& b : p.basins)
        basins.push_back({{"from", b.from},
                          {"to", b.to},
                          {"attractor", b.attractor},
                          {"from_closed", b.from_closed},
                          {"to_closed", b.to_closed}});
    return {{"equilibria", eq},
            {"basins", basins},
            {"monotone", p.monotone},
            {"flat", p.flat},
            {"near_tangencies", p.near_tangencies},
            {"scan_spacing", p.scan_spacing}};
}

json to_json(const DriftField& f) {
    return {{"method", f.name()},
            {"dj_error", f.dj_error()},
            {"d2j_error", f.d2j_error()},
            {"table_degree", f.degree()},
            {"table_samples", f.samples()}};
}

json provenance() { return {{"program", "rhoflow"}, {"version", version}}; }

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
