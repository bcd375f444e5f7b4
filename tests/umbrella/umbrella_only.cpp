// A translation unit that includes only the umbrella header (test "umbrella: ...",
// cmake/check_umbrella.cmake): it must compile alone and must not reach all of nlohmann/json.
#include <rhoflow/rhoflow.hpp>

#ifdef INCLUDE_NLOHMANN_JSON_HPP_
#error "rhoflow/rhoflow.hpp includes <nlohmann/json.hpp>: only <nlohmann/json_fwd.hpp> belongs there"
#endif

// Something of every part it promises, so that a part that drops out is noticed.
static_assert(sizeof(rhoflow::ModelParams) > 0 && sizeof(rhoflow::FieldPoint) > 0 && sizeof(rhoflow::OdeSolution) > 0 &&
              sizeof(rhoflow::EnsembleResult) > 0 && sizeof(rhoflow::CompareResult) > 0 &&
              sizeof(rhoflow::CheckResult) > 0 && sizeof(rhoflow::ProveResult) > 0);
