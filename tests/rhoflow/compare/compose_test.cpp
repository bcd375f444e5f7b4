// The comparison composed from its parts (compare.hpp): an ensemble and a field one already
// has, compare(), add_effective_prediction(). run_compare is these calls on the ensemble it
// runs, so composing them by hand must give its bits; from the record steps alone the gap
// statistics are lower bounds and every other statistic is unchanged.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "rhoflow/compare/compare.hpp"
#include "rhoflow/core/errors.hpp"
#include "test_util.hpp"

using namespace rhoflow;

namespace {
// The comparator's test model with fewer trials, no study and smaller moment tables.
CompareParams small() {
    CompareParams p = test::small_comparison();
    p.sga.trials = 12;
    p.study_eta0.clear();
    p.effective.moments.nodes = 16;
    p.effective.moments.samples = 4000;
    return p;
}

// The ensemble of `p` recorded where its comparison reads it, with every step's tracking.
EnsembleResult tracked_ensemble(const CompareParams& p, const DriftField& F, std::vector<TrialTracking>& tracking) {
    tracking.assign(static_cast<std::size_t>(p.sga.trials), TrialTracking{});
    SgaParams s = p.sga;
    s.record_steps = compare_plan(p).rows;
    return run_trials_here(p.model, s, nullptr, tracking_observers(F, p, tracking));
}

EnsembleResult plain_ensemble(const CompareParams& p) {
    SgaParams s = p.sga;
    s.record_steps = compare_plan(p).rows;
    return run_ensemble(p.model, s);
}

nlohmann::json without_every_step(const CompareResult& r) {
    nlohmann::json j = r;
    j.erase("every_step");
    return j;
}
}  // namespace

TEST_CASE("compare composed: the ensemble with its tracking, compare() and the prediction give run_compare's bits") {
    for (const double scale : {1.0, 1.25}) {  // the theory's field as computed, and scaled by compare()
        CAPTURE(scale);
        CompareParams p = small();
        p.field_scale = scale;
        const DriftField F = DriftField::make(p.model, p.field, p.table);
        std::vector<TrialTracking> tracking;
        const EnsembleResult ens = tracked_ensemble(p, F, tracking);
        CompareResult c = compare(ens, F, p, tracking);
        CHECK(c.every_step);
        CHECK_FALSE(c.verdict.has_value());  // the prediction is its own call
        add_effective_prediction(c, ens, F);
        const CompareResult r = run_compare(p);
        REQUIRE(r.verdict.has_value());
        CHECK(nlohmann::json(c) == nlohmann::json(r));
        // The fit says which anchors it used: those at or after from_t.
        REQUIRE(r.gap_fit.has_value());
        const auto used = std::count_if(r.gap.begin(), r.gap.end(),
                                        [&](const GapAnchor& a) { return a.t >= r.gap_fit->from_t && a.mean > 0; });
        CHECK(r.gap_fit->fit.n == used);
    }
}

TEST_CASE("compare composed: from the record steps alone, the gaps are lower bounds and the rest is unchanged") {
    const CompareParams p = small();
    const DriftField F = DriftField::make(p.model, p.field, p.table);
    const EnsembleResult ens = plain_ensemble(p);
    CompareResult c = compare(ens, F, p);
    add_effective_prediction(c, ens, F);
    const CompareResult r = run_compare(p);
    CHECK_FALSE(c.every_step);
    // The same trials (the same streams): the SGA columns and everything that needs no tracking agree bit for bit.
    REQUIRE(c.table.size() == r.table.size());
    for (std::size_t i = 0; i < c.table.size(); ++i) {
        CAPTURE(i);
        CHECK(nlohmann::json(c.table[i].rho_sga) == nlohmann::json(r.table[i].rho_sga));
        CHECK(c.table[i].rho_sga_q90 == r.table[i].rho_sga_q90);
        CHECK(nlohmann::json(c.table[i].nuisance_mass_sga) == nlohmann::json(r.table[i].nuisance_mass_sga));
        // The ODE from each trial's start, advanced between records instead of between steps:
        // the same flow to its tolerance (rtol 1e-9).
        CHECK(std::abs(c.table[i].rho_ode - r.table[i].rho_ode) < 1e-7);
        // The prediction does not use the tracking at all.
        CHECK(c.table[i].pred_mean == r.table[i].pred_mean);
        CHECK(c.table[i].residual_z == r.table[i].residual_z);
    }
    CHECK(nlohmann::json(c.summary) == nlohmann::json(r.summary));
    CHECK(nlohmann::json(c.outcomes) == nlohmann::json(r.outcomes));
    CHECK(nlohmann::json(c.hitting_time) == nlohmann::json(r.hitting_time));
    CHECK(nlohmann::json(*c.verdict) == nlohmann::json(*r.verdict));
    // D_T and the tracking error: suprema over the record steps, a subset of every step.
    CHECK(c.tracking_error.mean <= r.tracking_error.mean + 1e-9);
    CHECK(c.tracking_error.mean > 0.2 * r.tracking_error.mean);  // not empty either
    CHECK(c.tracking_error_max <= r.tracking_error_max + 1e-9);
    REQUIRE_FALSE(c.gap.empty());
    CHECK_FALSE(c.gap_fit.has_value());  // windows sampled at record steps would bias the slope
    REQUIRE(r.gap_fit.has_value());
    const auto& rec = ens.record_steps;
    int same = 0;
    for (const auto& g : c.gap) {  // at the record steps nearest to the plan's anchors
        CAPTURE(g.step);
        CHECK(std::binary_search(rec.begin(), rec.end(), g.step));
        CHECK(g.mean > 0);
        const auto it = std::find_if(r.gap.begin(), r.gap.end(), [&](const GapAnchor& a) { return a.step == g.step; });
        if (it == r.gap.end()) continue;
        CHECK(g.max <= it->max + 1e-7);
        ++same;
    }
    CHECK(same >= 5);
    for (std::size_t i = 0; i < c.table.size(); ++i)  // every row whose window fits has its D_T
        CHECK(c.table[i].gap_mean.has_value() == r.table[i].gap_mean.has_value());
    CHECK(c.params.study_eta0.empty());  // no study in a composed comparison, and its params say so
    // The result says how it was computed, also after a round trip through its JSON.
    const nlohmann::json doc = c;
    CHECK(doc.at("every_step") == false);
    CHECK_FALSE(doc.get<CompareResult>().every_step);
    nlohmann::json older = r;  // a compare.json written before compare() existed: every step
    older.erase("every_step");
    CHECK(older.get<CompareResult>().every_step);
    CHECK(without_every_step(older.get<CompareResult>()) == without_every_step(r));
}

TEST_CASE("compare composed: an ensemble that is not the options' is refused, naming what differs") {
    const CompareParams p = small();
    const DriftField F = DriftField::make(p.model, p.field, p.table);
    const EnsembleResult ens = plain_ensemble(p);
    auto refused = [&](const EnsembleResult& e, const CompareParams& q, const std::vector<TrialTracking>& t = {}) {
        return test::invalid_param([&] { compare(e, F, q, t); });
    };
    CompareParams q = p;
    q.sga.trials = 13;
    CHECK(refused(ens, q) == "sga.trials");
    q = p;
    q.sga.schedule.eta0 = 0.021;  // another schedule: the records sit at other times
    CHECK(refused(ens, q) == "sga.schedule");
    q = p;
    q.sga.steps = 3000;  // the ensemble ran longer
    CHECK(refused(ens, q) == "sga.steps");
    EnsembleResult unrecorded = ens;
    unrecorded.record_steps.erase(unrecorded.record_steps.begin());  // no record of step 0
    CHECK(refused(unrecorded, p) == "sga.record_steps");
    EnsembleResult cut = ens;
    cut.trials[3].rho.pop_back();
    CHECK(refused(cut, p) == "ensemble.trials");
    EnsembleResult crafted = ens;  // read back from a file: untrusted
    crafted.trials[2].rho[5] = 1.5;
    CHECK(refused(crafted, p) == "ensemble.trials");
    crafted = ens;
    crafted.trials[0].nuisance_mass[1] = -0.1;
    CHECK(refused(crafted, p) == "ensemble.trials");
    crafted = ens;  // another seed's trials
    for (auto& tr : crafted.trials) tr.seed = 2;
    CHECK(refused(crafted, p) == "sga.seed");
    crafted = ens;  // trials out of order
    std::swap(crafted.trials[0], crafted.trials[1]);
    CHECK(refused(crafted, p) == "sga.seed");
    q = p;
    q.sga.rho0 = 0.2;  // the options say another start
    CHECK(refused(ens, q) == "sga.rho0");
    crafted = ens;  // a summary that does not describe the trials is recomputed, not copied
    crafted.summary.hits = 999;
    crafted.summary.abs_rho_final.mean = 7;
    const CompareResult honest = compare(crafted, F, p);
    CHECK(nlohmann::json(honest.summary) == nlohmann::json(summarise(ens.trials)));
    std::vector<TrialTracking> short_tracking(ens.trials.size() - 1);
    CHECK(refused(ens, p, short_tracking) == "tracking");
    std::vector<TrialTracking> shapeless(ens.trials.size());
    CHECK(refused(ens, p, shapeless) == "tracking");
    std::vector<TrialTracking> tracked;
    const EnsembleResult with_tracking = tracked_ensemble(p, F, tracked);
    tracked[2].ode_records[1] = 5;  // out of [-1, 1]
    CHECK(refused(with_tracking, p, tracked) == "tracking");
    std::vector<TrialTracking> one_short(ens.trials.size() - 1);
    CHECK(test::invalid_param([&] { tracking_observers(F, p, one_short); }) == "tracking");
    CompareResult c = compare(ens, F, p);
    CHECK(test::invalid_param([&] { add_effective_prediction(c, ens, F, {}); }) == "tables");
    CompareResult other = c;
    other.trajectory.pop_back();
    CHECK(test::invalid_param([&] { add_effective_prediction(other, ens, F); }) == "result");
}

TEST_CASE("compare composed: an ensemble recorded only where sga puts its records is compared at the nearest records") {
    const CompareParams p = small();
    const DriftField F = DriftField::make(p.model, p.field, p.table);
    const EnsembleResult ens = run_ensemble(p.model, p.sga);  // 20 records a decade, not the plan's rows
    const std::vector<std::int64_t> rows = compare_plan(p).rows;
    const CompareResult c = compare(ens, F, p);
    REQUIRE(c.table.size() >= 3);
    CHECK(c.table.front().step == 0);
    CHECK(c.table.back().step == p.sga.steps);
    for (const auto& row : c.table) {
        CAPTURE(row.step);
        CHECK(std::binary_search(ens.record_steps.begin(), ens.record_steps.end(), row.step));
        // the nearest record to one of the plan's rows: within a factor 10^(1/20) of it in 1 + k
        const auto near = std::find_if(rows.begin(), rows.end(), [&](std::int64_t k) {
            return std::abs(std::log1p(static_cast<double>(k)) - std::log1p(static_cast<double>(row.step))) <=
                   std::log(10.0) / 20 + 1e-12;
        });
        CHECK(near != rows.end());
        // its SGA mean is the mean of the trials' records at that step
        const auto j = static_cast<std::size_t>(
            std::lower_bound(ens.record_steps.begin(), ens.record_steps.end(), row.step) - ens.record_steps.begin());
        double sum = 0;
        for (const auto& tr : ens.trials) sum += tr.rho[j];
        CHECK(row.rho_sga.mean == doctest::Approx(sum / static_cast<double>(ens.trials.size())).epsilon(1e-14));
    }
    CHECK(c.trajectory.size() + 1 == ens.record_steps.size());
}
