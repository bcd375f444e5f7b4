// JSON documents: the header every output carries and the check that keeps NaN and infinity out
// of them. The documents themselves are built from the nlohmann to_json hooks declared beside
// each params and result struct, so every output records all parameters by construction.
//
// Non-finite numbers are never written: ensure_finite() walks a document and throws
// NumericalError naming the first NaN or infinity by its JSON path (nlohmann::json would
// otherwise silently write null).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace rhoflow {

/// The header of every output document: {"program":"rhoflow","version":...,"command":command}.
nlohmann::json provenance(const std::string& command);

/// Throws NumericalError naming the JSON path of the first non-finite number in `doc`.
void ensure_finite(const nlohmann::json& doc, const std::string& path = "");

}  // namespace rhoflow
