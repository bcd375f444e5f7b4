// Runs a set of units (EnsembleBlocks, CompareUnits: Output, kind, size, cost, run, accept,
// steps) through the executor (exec/units.hpp) as one typed UnitSet: largest cost first over the
// ranks; rank 0 accepts every output, and `progress` counts the steps of the units that other
// ranks computed (rank 0's own units count theirs as they run). Collective under
// Execution::team. A unit's failure is rethrown as itself (same category, "rank K: " in front
// of its message when another rank ran it).
#pragma once

#include <vector>

#include "rhoflow/exec/units.hpp"
#include "rhoflow/stochastic/ensemble.hpp"

namespace rhoflow::detail {

template <class Units>
void execute_units(Execution ex, Units& units, ProgressCounter* progress) {
    using Out = typename Units::Output;
    const UnitSet<NoInput, Out> set(
        Units::kind(), [&](std::int64_t u, const NoInput&) { return units.run(u, progress); },
        [&](UnitQueue&, std::int64_t u, Out&& out, int rank, double) {
            units.accept(u, std::move(out));
            if (progress && rank != 0) progress->done += units.steps(u);
        });
    std::vector<Unit> list;
    for (std::int64_t u = 0; u < units.size(); ++u) list.push_back(unit(set, u, NoInput{}, units.cost(u)));
    try {
        execute(ex, set, std::move(list));
    } catch (const UnitError& e) {
        e.rethrow();
    }
}

}  // namespace rhoflow::detail
