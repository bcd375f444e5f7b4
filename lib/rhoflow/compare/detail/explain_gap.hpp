// The comparator's explanation of the SGA-ODE gap by the effective dynamics (compare.hpp,
// docs/theory.md section 9): internal to compare.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "rhoflow/compare/compare.hpp"

namespace rhoflow::detail {

/// The step sizes of the one-step moment tables.
std::vector<double> table_etas(const CompareParams& p);
/// The one-step moment tables at table_etas(p), from the same draws.
std::vector<StepMomentTable> measure_tables(const CompareParams& p, const DriftField& F);
/// Nodes [first, first + count) of every table measure_tables gives (the same numbers): the
/// unit in which the tables are spread over MPI ranks.
std::vector<StepMomentTable> measure_table_nodes(const CompareParams& p, const DriftField& F, std::size_t first,
                                                 std::size_t count);

/// From the one-step moment tables (table_etas order), predicts every table row and the
/// hitting time with the effective chain and ODE, and fills the rows' prediction columns,
/// out.effective and out.verdict. `records` are the ensemble's record steps (rows among them).
void explain_gap(const CompareParams& p, const DriftField& F, const std::vector<std::int64_t>& records,
                 const EnsembleResult& ens, std::vector<StepMomentTable> tables, CompareResult& out);

}  // namespace rhoflow::detail
