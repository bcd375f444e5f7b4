// JSON forms of the library's results, shared by the command line, experiment files and the
// comparator's output files. Key names follow ../shared/spec/cli.md; every document carries
// the version and all parameters that produced it.
//
// Non-finite numbers are never written: ensure_finite() walks a document and throws
// NumericalError naming the first NaN or infinity by its JSON path (nlohmann::json would
// otherwise silently write null).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/field/field.hpp"
#include "rhoflow/model/model.hpp"
#include "rhoflow/ode/ode.hpp"
#include "rhoflow/ode/phase.hpp"

namespace rhoflow {

/// {"d","L","R","theta","sigma","beta","noise_convention","sigma_input"}; sigma is per coordinate.
nlohmann::json to_json(const ModelParams& m, NoiseConvention convention = NoiseConvention::per_coordinate);
/// {"rho","j","dj","drift","mass_informative","j_err","dj_err","drift_err","mass_err"}.
nlohmann::json to_json(const FieldPoint& p);
/// {"t","rho","rho_err","hit_time" (number or null),"hit_time_err","steps","rhs_evals"}.
nlohmann::json to_json(const OdeSolution& s);
/// {"equilibria":[...],"basins":[...],"monotone","flat","near_tangencies","scan_spacing"}.
nlohmann::json to_json(const PhasePortrait& p);
/// {"method","dj_error","d2j_error","table_degree","table_samples"}.
nlohmann::json to_json(const DriftField& f);

/// The header every output carries: {"program":"rhoflow","version":...}.
nlohmann::json provenance();

/// Throws NumericalError naming the JSON path of the first non-finite number in `doc`.
void ensure_finite(const nlohmann::json& doc, const std::string& path = "");

}  // namespace rhoflow
