// Runs a set of units (EnsembleBlocks, CompareUnits: size, kind, cost, steps, run, accept)
// through the executor (exec/units.hpp): every unit by its typed id, largest cost first over the
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
    std::vector<Unit> list;
    for (std::int64_t u = 0; u < units.size(); ++u) {
        Unit unit;
        unit.id = {units.kind(u), 0, u};
        unit.cost = units.cost(u);
        list.push_back(std::move(unit));
    }
    try {
        execute(
            ex, [&](const UnitId& id, const nlohmann::json&) { return units.run(id.index, progress); }, std::move(list),
            [&](UnitQueue&, const UnitId& id, nlohmann::json out, int rank, double) {
                units.accept(id.index, out);
                if (progress && rank != 0) progress->done += units.steps(id.index);
            });
    } catch (const UnitError& e) {
        e.rethrow();
    }
}

}  // namespace rhoflow::detail
