#include "rhoflow/compare/detail/effective_columns.hpp"

#include <algorithm>
#include <cmath>

#include "rhoflow/effective/explain_gap.hpp"

namespace rhoflow::detail {

namespace {
// The prediction columns a table row and a trajectory point share.
template <class Point>
void take_prediction(Point& t, const RowPrediction& e) {
    t.rho_eff_ode = e.rho_eff_ode;
    t.rho_first_order = e.rho_first_order;
    t.pred_mean = e.pred_mean;
    t.pred_q10 = e.pred_q10;
    t.pred_q90 = e.pred_q90;
}

// What the verdict tests besides the rows: hits, hit times and the final rho by ODE basin.
GapOutcomes gap_outcomes(const CompareParams& p, const EnsembleResult& ens, const PhasePortrait& phase) {
    GapOutcomes o;
    o.trials = p.sga.trials;
    for (const auto& tr : ens.trials)
        if (tr.hit_step) {
            ++o.hits;
            o.hit_times.push_back(p.sga.schedule.time_at(*tr.hit_step));
        }
    o.basins = phase.basins;
    for (const Basin& b : o.basins)  // ens.trials holds every trial (compare's check_ensemble)
        o.basin_counts.push_back(static_cast<std::int64_t>(
            std::count_if(ens.trials.begin(), ens.trials.end(), [&](const auto& t) { return in_basin(b, t.rho_final); })));
    return o;
}

// The trials' distinct starts, in the trials' order.
std::vector<double> distinct_starts(const EnsembleResult& ens) {
    std::vector<double> starts;
    for (const auto& tr : ens.trials)
        if (std::find(starts.begin(), starts.end(), tr.rho0) == starts.end()) starts.push_back(tr.rho0);
    return starts;
}

// The comparison's rows as the gap explanation reads them: step, time, the SGA mean, its
// spread (sd) and the interquartile range of the trials at that step.
std::vector<GapRow> gap_rows(const EnsembleResult& ens, const std::vector<CompareRow>& table) {
    std::vector<GapRow> rows;
    for (const auto& r : table) {
        const auto j = static_cast<std::size_t>(
            std::find(ens.record_steps.begin(), ens.record_steps.end(), r.step) - ens.record_steps.begin());
        std::vector<double> rho;
        for (const auto& tr : ens.trials) rho.push_back(tr.rho.at(j));
        rows.push_back({r.step, r.t, r.rho_sga.mean, r.rho_sga.se * std::sqrt(static_cast<double>(r.rho_sga.n)),
                        interquartile_range(std::move(rho))});
    }
    return rows;
}

// What the comparison's run was, for explain_gap.
GapInputs gap_inputs(const CompareParams& p, const DriftField& F, const std::vector<std::int64_t>& records,
                     const EnsembleResult& ens, GapTables tables, const CompareResult& out) {
    std::vector<double> times;
    for (const auto& pt : out.trajectory) times.push_back(pt.t);
    return {.model = p.model,
            .sga = p.sga,
            .effective = p.effective,
            .field_scale = p.field_scale,
            .field = &F,
            .records = records,
            .starts = distinct_starts(ens),
            .rows = gap_rows(ens, out.table),
            .trajectory_times = std::move(times),
            .tables = std::move(tables),
            .outcomes = gap_outcomes(p, ens, out.phase)};
}

}  // namespace

GapTables measure_table_nodes(const CompareParams& p, const DriftField& F, std::size_t first, std::size_t count) {
    return measure_gap_table_nodes(p.model, p.sga, p.effective, F, first, count);
}

void explain_gap(const CompareParams& p, const DriftField& F, const std::vector<std::int64_t>& records,
                 const EnsembleResult& ens, GapTables tables, CompareResult& out) {
    GapExplanation x = rhoflow::explain_gap(gap_inputs(p, F, records, ens, std::move(tables), out));
    for (std::size_t i = 0; i < out.table.size(); ++i) {
        CompareRow& r = out.table[i];
        const RowPrediction& e = x.rows[i];
        take_prediction(r, e);
        r.pred_se = e.pred_se;
        r.residual_z = e.residual_z;
        r.p_value = e.p_value;
    }
    for (std::size_t i = 0; i < out.trajectory.size(); ++i) take_prediction(out.trajectory[i], x.trajectory[i]);
    out.effective = std::move(x.summary);
    out.verdict = x.verdict;
}

}  // namespace rhoflow::detail
