// The comparator's explanation of the SGA-ODE gap by the effective dynamics (compare.hpp,
// docs/theory.md section 9): internal to compare.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "rhoflow/compare/compare.hpp"

namespace rhoflow::detail {

/// Measures the one-step moment tables, predicts every table row and the hitting time with the
/// effective chain and ODE, and fills the rows' prediction columns, out.effective and
/// out.verdict. `records` are the ensemble's record steps (rows among them).
void explain_gap(const CompareParams& p, const DriftField& F, const std::vector<std::int64_t>& records,
                 const EnsembleResult& ens, CompareResult& out);

}  // namespace rhoflow::detail
