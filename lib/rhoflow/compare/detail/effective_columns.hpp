// The comparator's effective-dynamics columns (compare.hpp, docs/theory.md section 9): the
// one-step moment tables of a comparison and the gap explanation (effective/explain_gap.hpp)
// copied into the comparison's rows, trajectory, `effective` and `verdict`. Internal to compare.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rhoflow/compare/compare.hpp"

namespace rhoflow::detail {

/// Nodes [first, first + count) of every one-step moment table of the comparison `p`
/// (effective/explain_gap.hpp's measure_gap_table_nodes): a unit of the comparison.
GapTables measure_table_nodes(const CompareParams& p, const DriftField& F, std::size_t first, std::size_t count);

/// From the tables, explains the gap (explain_gap) and fills the rows' prediction columns, the
/// trajectory's, out.effective and out.verdict. `records` are the ensemble's record steps (rows among them).
void explain_gap(const CompareParams& p, const DriftField& F, const std::vector<std::int64_t>& records,
                 const EnsembleResult& ens, GapTables tables, CompareResult& out);

}  // namespace rhoflow::detail
