// The comparison composed from its parts (compare.hpp): an ensemble (which knows its model and
// sga) and a field one already has, compare(), add_effective_prediction(). compare() on a plain
// ensemble and a theory with a closed-form flow gives that flow; run_compare is these calls on
// the ensemble it runs against the field times field_scale, so composing them by hand must give
// its bits; from the record steps alone the gap statistics are lower bounds and every other
// statistic is unchanged.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <type_traits>

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

// A theory with a closed-form flow: j' = c, so F = c (1 - rho^2) and rho(t) = tanh(c t + atanh(rho0));
// E[A_I] = 1/4 at every rho.
DriftField tanh_theory(double c) {
    return DriftField::from_functions([c](double) { return c; }, [](double) { return 0.0; }, 0.0, "tanh",
                                      [c](double r) { return c * r; }, [](double) { return 0.25; });
}
double tanh_flow(double c, double rho0, double t) { return std::tanh(c * t + std::atanh(rho0)); }

// compare() accepts the settings with an ensemble and refuses a CompareParams (whose model and
// sga would restate, or contradict, the ensemble's) at compile time.
template <class S, class = void>
struct compare_takes : std::false_type {};
template <class S>
struct compare_takes<S, std::void_t<decltype(compare(std::declval<const EnsembleResult&>(),
                                                     std::declval<const DriftField&>(), std::declval<const S&>()))>>
    : std::true_type {};
static_assert(compare_takes<CompareSettings>::value && !compare_takes<CompareParams>::value);
}  // namespace

// What this catches, from outside compare(): the ODE column, the population mass, the ODE's
// hitting time and the field curve computed from another field than the one given (a scale
// applied inside compare(), as before issue 31, or forgotten or applied twice by run_compare),
// or params taken from anywhere but the ensemble.
TEST_CASE("compare composed: a plain ensemble against a closed-form theory gives its flow, with the field as given") {
    CompareParams p = small();
    p.effective.enabled = false;
    const EnsembleResult ens = plain_ensemble(p);  // run_ensemble: no tracking, no comparison
    const double c = 0.5, rho0 = *p.sga.rho0, level = 1 - p.sga.hit_eps;
    REQUIRE(nlohmann::json(ens.sga) != nlohmann::json(p.sga));  // recorded at the plan's rows: the ensemble's sga, not p's
    for (const double scale : {1.0, 2.0}) {  // recorded only: compare() uses the field it is given
        CAPTURE(scale);
        CompareSettings s = p.settings();
        s.field_scale = scale;
        const CompareResult r = compare(ens, tanh_theory(c), s);
        CHECK(r.params.field_scale == scale);
        CHECK(r.field.scale == 1.0);
        CHECK(nlohmann::json(r.params.sga) == nlohmann::json(ens.sga));  // the run is the ensemble's
        CHECK(nlohmann::json(r.params.model) == nlohmann::json(ens.model));
        REQUIRE(r.table.size() >= 5);
        for (const CompareRow& row : r.table) {
            CAPTURE(row.t);
            CHECK(row.rho_ode == doctest::Approx(tanh_flow(c, rho0, row.t)).epsilon(1e-7));
            CHECK(row.nuisance_mass_population == 0.75);
        }
        REQUIRE(r.hitting_time.ode.has_value());
        CHECK(r.hitting_time.ode->mean == doctest::Approx((std::atanh(level) - std::atanh(rho0)) / c).epsilon(1e-6));
        for (const FieldCurvePoint& f : r.field_curve) CHECK(f.drift == doctest::Approx(c * (1 - f.rho * f.rho)));
    }
    // run_compare takes the scale as its own step: its ODE is the flow of c x field_scale, once.
    p.field_scale = 2.0;
    p.study_eta0.clear();
    const DriftField theory = tanh_theory(c);
    const CompareResult r = run_compare(p, nullptr, &theory);
    CHECK(r.field.scale == 2.0);
    double apart = 0;
    for (const CompareRow& row : r.table) {
        CAPTURE(row.t);
        CHECK(row.rho_ode == doctest::Approx(tanh_flow(2 * c, rho0, row.t)).epsilon(1e-7));
        apart = std::max(apart, std::abs(tanh_flow(c, rho0, row.t) - tanh_flow(4 * c, rho0, row.t)));
    }
    CHECK(apart > 0.1);  // unscaled or scaled twice would be far off
    CHECK(r.hitting_time.ode->mean == doctest::Approx((std::atanh(level) - std::atanh(rho0)) / (2 * c)).epsilon(1e-6));
}

// What this catches: run_compare composing otherwise than documented (another ensemble, field or
// tracking than the hand-made ones, the scale applied other than once), and, with the unscaled
// field, that the scale is the caller's step (compare() applying it again would agree there).
TEST_CASE("compare composed: the ensemble with its tracking, compare() and the prediction give run_compare's bits") {
    for (const double scale : {1.0, 1.25}) {  // the theory's field as computed, and scaled by the caller
        CAPTURE(scale);
        CompareParams p = small();
        p.field_scale = scale;
        const DriftField F = theory_field(DriftField::make(p.model, p.field, p.table), scale);
        std::vector<TrialTracking> tracking;
        const EnsembleResult ens = tracked_ensemble(p, F, tracking);
        CompareResult c = compare(ens, F, p.settings(), tracking);
        CHECK(c.every_step);
        CHECK_FALSE(c.verdict.has_value());  // the prediction is its own call
        add_effective_prediction(c, ens, F);
        const CompareResult r = run_compare(p);
        REQUIRE(r.verdict.has_value());
        c.params = p;  // run_compare records the run as asked (its sga without the plan's record steps)
        CHECK(nlohmann::json(c) == nlohmann::json(r));
        if (scale != 1.0) {  // the unscaled field with the same settings: another ODE
            const CompareResult u = compare(ens, DriftField::make(p.model, p.field, p.table), p.settings());
            CHECK(u.params.field_scale == scale);
            double apart = 0;
            for (std::size_t i = 0; i < u.table.size(); ++i)
                apart = std::max(apart, std::abs(u.table[i].rho_ode - r.table[i].rho_ode));
            CHECK(apart > 1e-3);
        }
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
    CompareResult c = compare(ens, F, p.settings());
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

// No fingerprints: the ensemble says how it was run. What is refused is an ensemble that does not
// hold what a comparison reads (every trial, its records from step 0 to its last step at its
// schedule's times, numbers in range: a file is untrusted), tracking of another shape, and a
// result of another ensemble given to add_effective_prediction.
TEST_CASE("compare composed: an ensemble that lacks what a comparison reads is refused, naming what is wrong") {
    const CompareParams p = small();
    const CompareSettings& s = p.settings();
    const DriftField F = DriftField::make(p.model, p.field, p.table);
    const EnsembleResult ens = plain_ensemble(p);
    auto refused = [&](const EnsembleResult& e, const std::vector<TrialTracking>& t = {}) {
        return test::invalid_param([&] { compare(e, F, s, t); });
    };
    SgaParams recorded = p.sga;
    recorded.record_steps = compare_plan(p).rows;
    const EnsembleResult summary_only = run_ensemble(p.model, recorded, nullptr, EnsembleOutput::summary(5));
    CHECK(refused(summary_only) == "ensemble.trials");  // not every trial kept
    EnsembleResult cut = ens;
    cut.trials.pop_back();
    CHECK(refused(cut) == "ensemble.trials");
    EnsembleResult other = ens;  // a file whose params and records disagree
    other.sga.schedule.eta0 = 0.021;
    CHECK(refused(other) == "ensemble.record_times");
    other = ens;
    other.sga.steps = 5000;  // the records end at step 4000
    CHECK(refused(other) == "ensemble.record_steps");
    EnsembleResult unrecorded = ens;
    unrecorded.record_steps.erase(unrecorded.record_steps.begin());  // no record of step 0
    CHECK(refused(unrecorded) == "ensemble.record_steps");
    EnsembleResult shapeless = ens;
    shapeless.trials[3].rho.pop_back();
    CHECK(refused(shapeless) == "ensemble.trials");
    EnsembleResult crafted = ens;  // read back from a file: untrusted
    crafted.trials[2].rho[5] = 1.5;
    CHECK(refused(crafted) == "ensemble.trials");
    crafted = ens;
    crafted.trials[0].nuisance_mass[1] = -0.1;
    CHECK(refused(crafted) == "ensemble.trials");
    crafted = ens;
    crafted.trials[1].rho0 = 0.2;  // reports another start than it records
    CHECK(refused(crafted) == "ensemble.trials");
    crafted = ens;  // the ensemble's own sga out of range: named as the params' field
    crafted.sga.trials = 1;
    CHECK(refused(crafted) == "sga.trials");
    crafted = ens;  // a summary that does not describe the trials is recomputed, not copied
    crafted.summary.hits = 999;
    crafted.summary.abs_rho_final.mean = 7;
    const CompareResult honest = compare(crafted, F, s);
    CHECK(nlohmann::json(honest.summary) == nlohmann::json(summarise(ens.trials)));
    std::vector<TrialTracking> short_tracking(ens.trials.size() - 1);
    CHECK(refused(ens, short_tracking) == "tracking");
    std::vector<TrialTracking> untracked(ens.trials.size());
    CHECK(refused(ens, untracked) == "tracking");
    std::vector<TrialTracking> tracked;
    const EnsembleResult with_tracking = tracked_ensemble(p, F, tracked);
    tracked[2].ode_records[1] = 5;  // out of [-1, 1]
    CHECK(refused(with_tracking, tracked) == "tracking");
    std::vector<TrialTracking> one_short(ens.trials.size() - 1);
    CHECK(test::invalid_param([&] { tracking_observers(F, p, one_short); }) == "tracking");
    CompareResult c = compare(ens, F, s);
    CHECK(test::invalid_param([&] { add_effective_prediction(c, ens, F, {}); }) == "tables");
    CompareResult fewer = c;
    fewer.trajectory.pop_back();
    CHECK(test::invalid_param([&] { add_effective_prediction(fewer, ens, F); }) == "result");
    // Another seed's ensemble has the same shape: its params say it is not the one compared.
    SgaParams seed2 = recorded;
    seed2.seed = 2;
    const EnsembleResult another = run_ensemble(p.model, seed2);
    CHECK(test::invalid_param([&] { add_effective_prediction(c, another, F); }) == "result");
    // It compares as itself: its params and its own trials.
    const CompareResult c2 = compare(another, F, s);
    CHECK(c2.params.sga.seed == 2);
    CHECK(c2.table.back().rho_sga.mean != c.table.back().rho_sga.mean);
}

TEST_CASE("compare composed: an ensemble recorded only where sga puts its records is compared at the nearest records") {
    const CompareParams p = small();
    const DriftField F = DriftField::make(p.model, p.field, p.table);
    const EnsembleResult ens = run_ensemble(p.model, p.sga);  // 20 records a decade, not the plan's rows
    const std::vector<std::int64_t> rows = compare_plan(p).rows;
    const CompareResult c = compare(ens, F, p.settings());
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
