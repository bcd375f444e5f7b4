// JSON round trips of every params and result struct: to_json -> text -> from_json -> to_json
// gives the same document and the same text (doubles exact), with non-default values and with
// real results of small runs. A hook that forgot a member fails in two ways: its keys are
// compared with a hand-written list of the members, and with the members declared in the
// struct's header (parsed from the source, so a member added later without a key fails too).
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "rhoflow/compare/compare.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/field/meanfield.hpp"
#include "rhoflow/field/montecarlo_field.hpp"
#include "rhoflow/ode/ode.hpp"
#include "rhoflow/ode/phase.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/prove/prove.hpp"
#include "rhoflow/version.hpp"
#include "rhoflow/stochastic/ensemble.hpp"

#include "test_util.hpp"

using namespace rhoflow;
using rhoflow::test::small_compare;
using nlohmann::json;

namespace {

using Keys = std::set<std::string>;

// to_json -> dump -> parse -> from_json -> to_json: identical document and identical text.
template <class T>
json round_trip(const T& value) {
    const json a = value;
    const std::string text = a.dump();
    const json parsed = json::parse(text);
    CHECK(parsed == a);
    const T back = parsed.get<T>();
    const json b = back;
    CHECK(b == a);
    CHECK(b.dump() == text);
    return a;
}

template <class T>
void check_round_trip(const T& value, const Keys& keys) {
    const json a = round_trip(value);
    REQUIRE(a.is_object());
    Keys got;
    for (const auto& [k, v] : a.items()) got.insert(k);
    CHECK(got == keys);
}

// The data members declared in `struct NAME {` (or `struct NAME : BASE {`, without the base's)
// of a library header: declarations at depth 1 that are not functions, types or static;
// "double a = 0, b = 0;" declares a and b.
Keys header_members(const std::string& header, const std::string& name) {
    std::ifstream in(std::string(RHOFLOW_SOURCE_DIR) + "/lib/rhoflow/" + header);
    REQUIRE(in);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string src = ss.str();
    std::string open = "struct " + name + " {";
    if (src.find(open) == std::string::npos) {  // a derived struct: from its name to its brace
        const auto derived = src.find("struct " + name + " : ");
        REQUIRE(derived != std::string::npos);
        open = src.substr(derived, src.find('{', derived) + 1 - derived);
    }
    const auto start = src.find(open);
    REQUIRE(start != std::string::npos);
    // Strip comments; keep the text at depth 1, with '(' marking a parameter list and ';'
    // ending a braced initializer or an inline function body.
    std::string body;
    int depth = 1;
    for (std::size_t i = start + open.size(); i < src.size(); ++i) {
        if (src.compare(i, 2, "//") == 0) {
            i = src.find('\n', i);
            body += '\n';
            continue;
        }
        const char c = src[i];
        if (c == '{' || c == '(') {
            if (++depth == 2 && c == '(') body += '(';
            continue;
        }
        if (c == '}' || c == ')') {
            if (--depth == 0) break;
            if (depth == 1 && c == '}') body += ';';
            continue;
        }
        if (depth == 1) body += c;
    }
    Keys members;
    std::string decl;
    for (char c : body) {
        if (c != ';') {
            decl += c;
            continue;
        }
        std::string d = decl;
        decl.clear();
        const auto paren = d.find('('), eq = d.find('=');
        if (d.find("operator") != std::string::npos) continue;
        if (paren != std::string::npos && (eq == std::string::npos || paren < eq)) continue;  // a function
        std::istringstream words(d);
        std::string first;
        words >> first;
        if (first.empty() || first == "static" || first == "using" || first == "struct" || first == "enum" ||
            first == "friend" || first == "public:" || first == "private:")
            continue;
        // Declarators: split at commas outside <...>, keep the identifier before any '='.
        int angle = 0;
        std::string part;
        std::vector<std::string> parts;
        for (char x : d) {
            if (x == '<') ++angle;
            if (x == '>') --angle;
            if (x == ',' && angle == 0) {
                parts.push_back(part);
                part.clear();
            } else {
                part += x;
            }
        }
        parts.push_back(part);
        for (auto p : parts) {
            p = p.substr(0, p.find('='));
            while (!p.empty() && std::isspace(static_cast<unsigned char>(p.back()))) p.pop_back();
            std::size_t b = p.size();
            while (b > 0 && (std::isalnum(static_cast<unsigned char>(p[b - 1])) || p[b - 1] == '_')) --b;
            if (b < p.size()) members.insert(p.substr(b));
        }
    }
    return members;
}

// Every member declared in the header has a key (`renamed` maps members to other key names),
// but those the header documents as not serialised (`unserialised`), which have none.
template <class T>
void check_header_members(const T& value, const std::string& header, const std::string& name,
                          const std::map<std::string, std::string>& renamed = {}, const Keys& unserialised = {}) {
    CAPTURE(name);
    const json a = value;
    const Keys members = header_members(header, name);
    CHECK(!members.empty());
    for (const auto& m : members) {
        CAPTURE(m);
        const auto it = renamed.find(m);
        CHECK(a.contains(it == renamed.end() ? m : it->second) != (unserialised.count(m) > 0));
    }
    for (const auto& m : unserialised) CHECK(members.count(m) == 1);
}

const Keys kModelKeys = {"d", "L", "R", "theta", "sigma", "beta", "noise_convention", "sigma_input"};
const Keys kExactKeys = {"rel_tol", "inner_resolution", "z_range", "max_segments"};
const Keys kTableKeys = {"tol", "max_points", "threads", "exact"};
const Keys kSgaKeys = {"steps",    "trials", "first_trial", "seed",    "purpose",           "purpose_sub", "sampler",
                       "schedule", "update", "rho0",        "hit_eps", "records_per_decade", "threads",     "record_steps"};
const Keys kMeanCIKeys = {"mean", "se", "lo", "hi", "n"};
const Keys kLineFitKeys = {"slope", "intercept", "slope_se", "intercept_se", "n"};
const Keys kFieldPointKeys = {"rho", "j", "dj", "drift", "mass_informative", "j_err", "dj_err", "drift_err", "mass_err"};
const Keys kDriftInfoKeys = {"method", "dj_error", "d2j_error", "table_degree", "table_samples", "scale"};
const Keys kSolutionKeys = {"t", "rho", "rho_err", "hit_time", "hit_time_err", "steps", "rhs_evals"};
const Keys kPortraitKeys = {"equilibria", "basins", "monotone", "flat", "scan_spacing", "near_tangencies"};
const Keys kTrialKeys = {"seed", "trial", "rho0", "rho_final", "t_final", "hit_step", "rho", "nuisance_mass",
                         "mean_nuisance_mass_last_decile", "mean_abs_rho_last_half"};
const Keys kSummaryKeys = {"abs_rho_final", "rho_final", "quantile_levels", "rho_final_quantiles",
                           "abs_rho_final_quantiles", "hits", "hit_step", "hit_step_median", "nuisance_mass",
                           "abs_rho_last_half", "mean_abs_rho_final", "ci95"};
const Keys kEnsembleKeys = {"record_steps", "record_times", "trials", "rho_finals", "summary", "warning"};
const Keys kBasinOutcomeKeys = {"attractor", "kind", "from", "to", "from_closed", "to_closed", "count", "fraction",
                                "fraction_lo", "fraction_hi", "rho_final", "sd", "sd_se", "uniform_probability",
                                "contains_rho0"};
const Keys kOutcomeKeys = {"trials", "unassigned", "level", "rho0", "d", "basins"};
const Keys kCompareParamsKeys = {"model", "sga", "field", "table", "horizon", "anchors", "rows", "study_eta0",
                                 "study_trials", "study_horizon", "field_scale", "effective", "table_columns"};
const Keys kCompareResultKeys = {"params", "field", "phase", "t_final", "table", "gap", "gap_fit", "tracking_error",
                                 "tracking_error_max", "every_step", "hitting_time", "summary", "outcomes", "rho_ode_final", "abs_rho_ode_final", "study",
                                 "trajectory", "field_curve", "warning", "effective", "verdict", "ode"};

Keys with(Keys a, const Keys& b) {
    a.insert(b.begin(), b.end());
    return a;
}

// Parameters with every field away from its default.
ModelParams odd_model() { return ModelParams::with_noise(16, 40, 7, 1.25, 2.0, 0.75, NoiseConvention::per_norm); }
ExactFieldParams odd_exact() { return {3e-11, 0.2, 9.0, 300}; }
FieldTableParams odd_table() { return {1e-11, 513, 2, odd_exact()}; }
SgaParams odd_sga() {
    SgaParams p;
    p.steps = 777;
    p.trials = 5;
    p.first_trial = 9007199254740993;  // past 2^53: must stay exact
    p.seed = 18446744073709551615ull;  // 2^64 - 1
    p.purpose = StreamPurpose::step_size_study;
    p.purpose_sub = 3;
    p.sampler = SamplerKind::full;
    p.schedule = {0.1 + 0.2, 123.5, 0.75};
    p.update = UpdateRule::tangent;
    p.rho0 = -0.125;
    p.hit_eps = 0.05;
    p.threads = 3;
    p.records_per_decade = 7;
    p.record_steps = {5, 17, 700};
    return p;
}

}  // namespace

TEST_CASE("json round trip: model (both noise conventions), accuracy and Monte Carlo params") {
    const ModelParams pn = odd_model();
    check_round_trip(pn, kModelKeys);
    const json j = pn;
    CHECK(j["noise_convention"] == "per_norm");
    CHECK(j["sigma"].get<double>() == 0.5);      // per coordinate: 2 / sqrt(16)
    CHECK(j["sigma_input"].get<double>() == 2.0);  // as given
    CHECK(json(pn).get<ModelParams>().convention == NoiseConvention::per_norm);
    const ModelParams pc{3, 2, 1, 0.1 + 0.2, 1e-300, 11.5};
    check_round_trip(pc, kModelKeys);
    CHECK(json(pc)["noise_convention"] == "per_coordinate");
    check_header_members(pn, "model/model.hpp", "ModelParams", {{"convention", "noise_convention"}});

    check_round_trip(odd_exact(), kExactKeys);
    check_header_members(odd_exact(), "field/exact_field.hpp", "ExactFieldParams");
    check_round_trip(MonteCarloParams{123457, 9007199254740993ull, 3}, {"samples", "seed", "threads"});
    CHECK(json(MonteCarloParams{2, 9007199254740993ull, 0})["seed"].get<std::uint64_t>() == 9007199254740993ull);
    check_header_members(MonteCarloParams{}, "field/montecarlo_field.hpp", "MonteCarloParams");
    check_round_trip(odd_table(), kTableKeys);
    check_header_members(odd_table(), "field/drift_field.hpp", "FieldTableParams");
    check_round_trip(OdeParams{1e-9, 1e-11, 0.02, false}, {"rtol", "atol", "hit_eps", "error_estimate"});
    check_header_members(OdeParams{}, "ode/ode.hpp", "OdeParams");
    check_round_trip(PhaseParams{999}, {"scan_cells"});
    check_header_members(PhaseParams{}, "ode/phase.hpp", "PhaseParams");
    check_round_trip(StepSchedule{0.1 + 0.2, 7.25, 0.6}, {"eta0", "k0", "gamma"});
    check_header_members(StepSchedule{}, "stochastic/schedule.hpp", "StepSchedule");
}

TEST_CASE("json round trip: SGA params with rho0 set and unset, every purpose, sampler and update") {
    SgaParams p = odd_sga();
    check_round_trip(p, kSgaKeys);
    check_header_members(p, "stochastic/ensemble.hpp", "SgaParams");
    CHECK(json(p)["first_trial"].get<std::int64_t>() == 9007199254740993);
    CHECK(json::parse(json(p).dump())["seed"].get<std::uint64_t>() == 18446744073709551615ull);
    p.rho0.reset();
    check_round_trip(p, kSgaKeys);
    CHECK(json(p)["rho0"].is_null());
    CHECK_FALSE(json(p).get<SgaParams>().rho0.has_value());
    p.rho0 = 0.0;  // set to zero is not unset
    CHECK(json(p).get<SgaParams>().rho0 == std::optional<double>(0.0));
    for (StreamPurpose s : {StreamPurpose::sga_trial, StreamPurpose::montecarlo_field, StreamPurpose::step_size_study,
                            StreamPurpose::one_step_moments, StreamPurpose::effective_sde}) {
        p.purpose = s;
        CHECK(json(p).get<SgaParams>().purpose == s);
        CHECK(json(s).get<std::string>() == to_string(s));
        round_trip(s);
    }
    for (SamplerKind s : {SamplerKind::reduced, SamplerKind::full}) CHECK(json(s).get<SamplerKind>() == s);
    for (UpdateRule u : {UpdateRule::normalized, UpdateRule::tangent}) CHECK(json(u).get<UpdateRule>() == u);
    for (FieldMethod m : {FieldMethod::exact, FieldMethod::meanfield, FieldMethod::montecarlo})
        CHECK(json(m).get<FieldMethod>() == m);
    for (DriftMethod m : {DriftMethod::exact, DriftMethod::meanfield}) CHECK(json(m).get<DriftMethod>() == m);
    CHECK(json(FieldMethod::montecarlo) == "montecarlo");
    CHECK(json(DriftMethod::meanfield) == "meanfield");
    CHECK(json(SamplerKind::full) == "full");
    CHECK(json(UpdateRule::tangent) == "tangent");
    // Unknown names are refused, not defaulted.
    CHECK_THROWS_AS(json("sideways").get<SamplerKind>(), InvalidArgument);
    CHECK_THROWS_AS(json("montecarlo").get<DriftMethod>(), InvalidArgument);
    CHECK_THROWS_AS(json("sga").get<StreamPurpose>(), InvalidArgument);
}

TEST_CASE("json round trip: statistics types") {
    check_round_trip(MeanCI{0.1 + 0.2, 1e-17, -3.5, 7.25, 9007199254740993}, kMeanCIKeys);
    check_header_members(MeanCI{}, "core/stats.hpp", "MeanCI");
    check_round_trip(LineFit{0.5000000000000001, -2.25, 1e-3, 4e-300, 12}, kLineFitKeys);
    check_header_members(LineFit{}, "core/stats.hpp", "LineFit");
    check_round_trip(ProportionCI{0.1 + 0.2, 1e-17, 0.75}, {"fraction", "lo", "hi"});
    check_header_members(ProportionCI{}, "core/stats.hpp", "ProportionCI");
}

TEST_CASE("json round trip: outcome statistics (uniform and fixed start)") {
    PhasePortrait p;
    p.equilibria = {{-1, 0, -0.5, 1e-9, true, EquilibriumKind::attractor}, {0.25, 1e-12, 0.1, 1e-9, false, EquilibriumKind::repeller},
                    {1, 0, -0.5, 1e-9, true, EquilibriumKind::attractor}};
    p.basins = {{-1, 0.25, -1, true, false}, {0.25, 1, 1, false, true}};
    const std::vector<double> finals = {-0.9, -0.8 + 1e-17, 0.3, 0.1 + 0.2};
    const OutcomeSummary uniform = outcome_summary(p, finals, std::nullopt, 7, {0.9});
    check_round_trip(uniform, kOutcomeKeys);
    check_header_members(uniform, "compare/outcomes.hpp", "OutcomeSummary");
    check_round_trip(uniform.basins[0], kBasinOutcomeKeys);
    check_header_members(uniform.basins[0], "compare/outcomes.hpp", "BasinOutcome");
    const OutcomeSummary fixed = outcome_summary(p, finals, 0.5, 7);
    CHECK(json(fixed.basins[0])["uniform_probability"].is_null());
    check_round_trip(fixed, kOutcomeKeys);
    check_round_trip(OutcomeParams{0.99}, {"level"});
    check_header_members(OutcomeParams{}, "compare/outcomes.hpp", "OutcomeParams");
}

TEST_CASE("json round trip: field results from real runs (exact with stats, Monte Carlo with moments, table info)") {
    const ModelParams m{10, 30, 5, 1.5, 1.0, 1.0};
    ExactFieldStats stats;
    const FieldPoint e = exact_field(m, 0.3, {}, &stats);
    check_round_trip(e, kFieldPointKeys);
    check_header_members(e, "field/field.hpp", "FieldPoint");
    check_round_trip(stats, {"segments", "outer_nodes", "inner_nodes", "inner_err_j", "outer_err_j", "tail_err_j"});
    check_header_members(stats, "field/exact_field.hpp", "ExactFieldStats");
    CHECK(stats.segments > 0);
    GradientMoments g;
    MonteCarloParams mc{3000, 5, 1};
    const FieldPoint p = montecarlo_field(m, -0.2, mc, &g);
    check_round_trip(p, kFieldPointKeys);
    check_round_trip(g, {"g_u", "g_u_err", "g_v", "g_v_err", "g_w_sq", "g_w_sq_err"});
    check_header_members(g, "field/montecarlo_field.hpp", "GradientMoments");
    CHECK(g.g_w_sq_err > 0);
    FieldTableParams t;
    t.threads = 2;
    t.max_points = 129;
    const DriftFieldInfo info = DriftField::exact(m, t).info();
    check_round_trip(info, kDriftInfoKeys);
    check_header_members(info, "field/drift_field.hpp", "DriftFieldInfo");
    CHECK(info.table_degree > 0);
    check_round_trip(DriftFieldInfo{"custom", 1e-9, 2e-7, 0, 0, 1.5}, kDriftInfoKeys);
}

TEST_CASE("json round trip: ODE solutions with and without a hitting time, phase portraits") {
    const ModelParams m{10, 30, 5, 2.0, 1.0, 1.0};
    const DriftField f = DriftField::meanfield(m);
    const OdeSolution hit = solve_ode(f, 0.2, linear_grid(60, 7), {});
    REQUIRE(hit.hit_time.has_value());
    check_round_trip(hit, kSolutionKeys);
    // The dense solution and the status are the caller's, not the document's.
    check_header_members(hit, "ode/ode.hpp", "OdeSolution", {}, {"sol", "status", "message"});
    const OdeSolution none = solve_ode(f, 0.2, linear_grid(0.01, 3), {});
    REQUIRE_FALSE(none.hit_time.has_value());
    check_round_trip(none, kSolutionKeys);
    CHECK(json(none)["hit_time"].is_null());
    CHECK_FALSE(json(none).get<OdeSolution>().hit_time.has_value());

    const PhasePortrait bistable = phase_portrait(DriftField::meanfield({100, 10500, 500, 3.0, 1.0, 1.0}));
    REQUIRE(bistable.equilibria.size() >= 3);
    REQUIRE(bistable.basins.size() >= 2);
    check_round_trip(bistable, kPortraitKeys);
    check_header_members(bistable, "ode/phase.hpp", "PhasePortrait");
    for (const auto& e : bistable.equilibria)
        check_round_trip(e, {"rho", "rho_err", "dfdrho", "dfdrho_err", "stable", "kind"});
    check_header_members(bistable.equilibria[0], "ode/phase.hpp", "Equilibrium");
    for (const auto& b : bistable.basins) check_round_trip(b, {"from", "to", "attractor", "from_closed", "to_closed"});
    check_header_members(bistable.basins[0], "ode/phase.hpp", "Basin");
    PhasePortrait made;
    made.equilibria = {{-1, 0, -0.5, 1e-9, true, EquilibriumKind::attractor}, {0.25, 1e-12, 0.1, 1e-9, false, EquilibriumKind::repeller}};
    made.basins = {{-1, 0.25, -1, true, false}};
    made.monotone = true;
    made.flat = true;
    made.scan_spacing = 1.0 / 3;
    made.near_tangencies = {0.125, -0.5};
    check_round_trip(made, kPortraitKeys);
}

TEST_CASE("json round trip: ensembles (trials with and without hits, summary, warning)") {
    const ModelParams m{10, 30, 6, 3.0, 1.0, 1.0};
    SgaParams p;
    p.steps = 3000;
    p.trials = 16;  // some trials hit and some do not (3 of 16 with these streams)
    p.threads = 1;
    p.rho0 = 0.3;
    p.record_steps = {1234};
    p.schedule = {0.3, 50, 0.0};  // constant step: a warning
    const EnsembleResult r = run_ensemble(m, p);
    REQUIRE_FALSE(r.warning.empty());
    bool some_hit = false;
    for (const auto& t : r.trials) some_hit = some_hit || t.hit_step.has_value();
    CHECK(some_hit);
    check_round_trip(r, kEnsembleKeys);
    // The run's parameters travel with the ensemble but not in its JSON (sga.json's bytes: the
    // job's document records them as "params").
    check_header_members(r, "stochastic/ensemble.hpp", "EnsembleResult", {}, {"model", "sga"});
    CHECK(json(r.model) == json(m));
    CHECK(json(r.sga) == json(p));
    for (const auto& t : r.trials) check_round_trip(t, kTrialKeys);
    check_header_members(r.trials[0], "stochastic/ensemble.hpp", "TrialResult");
    TrialResult none = r.trials[0];
    none.hit_step.reset();
    check_round_trip(none, kTrialKeys);
    CHECK(json(none)["hit_step"].is_null());
    check_round_trip(r.summary, kSummaryKeys);
    check_header_members(r.summary, "stochastic/ensemble.hpp", "EnsembleSummary");
    const json s = r.summary;
    CHECK(s["mean_abs_rho_final"] == s["abs_rho_final"]["mean"]);
    CHECK(s["ci95"] == json::array({s["abs_rho_final"]["lo"], s["abs_rho_final"]["hi"]}));
}

TEST_CASE("json round trip: comparator params and every result struct of a real comparison") {
    CompareParams p = small_compare();
    p.sga = odd_sga();
    p.table = odd_table();
    p.model = odd_model();
    p.field = DriftMethod::meanfield;
    p.study_horizon = 7.5;
    check_round_trip(p, kCompareParamsKeys);
    check_header_members(p, "compare/compare.hpp", "CompareParams");
    check_header_members(p, "compare/compare.hpp", "CompareSettings");  // its base: compare()'s settings
    check_round_trip(default_compare_params(), kCompareParamsKeys);

    const CompareResult r = run_compare(small_compare());
    REQUIRE(r.study.has_value());
    REQUIRE(r.gap_fit.has_value());
    REQUIRE_FALSE(r.table.empty());
    REQUIRE_FALSE(r.gap.empty());
    check_round_trip(r, kCompareResultKeys);
    check_header_members(r, "compare/compare.hpp", "CompareResult");
    const ComparePlan plan = compare_plan(small_compare());
    check_round_trip(plan, {"t_final", "rows", "anchors", "records"});
    check_header_members(plan, "compare/compare.hpp", "ComparePlan");
    const TrialTracking tracking{{0.25, std::nullopt}, 0.125, {0.1, 0.2}};
    check_round_trip(tracking, {"gaps", "sup_tracking", "ode_records"});
    check_header_members(tracking, "compare/compare.hpp", "TrialTracking");
    CHECK(r.outcomes.trials == small_compare().sga.trials);
    json older = r;  // a compare.json written before the outcome statistics reads back with none
    older.erase("outcomes");
    CHECK(older.get<CompareResult>().outcomes.trials == 0);
    for (const auto& row : r.table)
        check_round_trip(row, {"step", "t", "rho_ode", "rho_sga", "rho_sga_q10", "rho_sga_median", "rho_sga_q90",
                               "gap_mean", "gap_q90", "nuisance_mass_sga", "nuisance_mass_population", "rho_eff_ode", "rho_first_order",
                               "pred_mean", "pred_q10", "pred_q90", "pred_se", "residual_z", "p_value", "ode_z"});
    check_header_members(r.table[0], "compare/compare.hpp", "CompareRow");
    check_round_trip(r.ode, {"rows", "outside", "first_outside_t", "max_abs_z", "explanation"});
    check_header_members(r.ode, "compare/compare.hpp", "OdeAgreement");
    for (const auto& g : r.gap) check_round_trip(g, {"step", "t", "eta", "mean", "median", "q90", "max"});
    check_header_members(r.gap[0], "compare/compare.hpp", "GapAnchor");
    check_round_trip(*r.gap_fit, {"fit", "from_t"});
    check_header_members(*r.gap_fit, "compare/compare.hpp", "GapFit");
    check_round_trip(r.hitting_time, {"level", "ode", "sga", "sga_hits", "trials", "sga_plateau", "sga_plateau_after"});
    check_header_members(r.hitting_time, "compare/compare.hpp", "HittingTimes");
    HittingTimes none = r.hitting_time;
    none.ode.reset();
    none.sga.reset();
    check_round_trip(none, {"level", "ode", "sga", "sga_hits", "trials", "sga_plateau", "sga_plateau_after"});
    check_round_trip(*r.study, {"horizon", "rho0", "trials", "rows", "fit", "fit_small_eta0"});
    check_header_members(*r.study, "compare/compare.hpp", "StepSizeStudy");
    for (const auto& row : r.study->rows)
        check_round_trip(row, {"eta0", "k0", "steps", "sup_err", "sup_err_median", "stream_run"});
    check_header_members(r.study->rows[0], "compare/compare.hpp", "StudyRow");
    for (const auto& t : r.trajectory)
        check_round_trip(t, {"t", "rho_ode", "sga_mean", "sga_q10", "sga_q90", "trials", "rho_eff_ode", "rho_first_order", "pred_mean",
                             "pred_q10", "pred_q90"});
    check_header_members(r.trajectory[0], "compare/compare.hpp", "TrajectoryPoint");
    for (const auto& c : r.field_curve) check_round_trip(c, {"rho", "drift", "dj"});
    check_header_members(r.field_curve[0], "compare/compare.hpp", "FieldCurvePoint");
    REQUIRE(r.verdict.has_value());
    REQUIRE(r.effective.has_value());
    check_round_trip(*r.verdict, {"consistent", "alpha", "rows_tested", "threshold_z", "max_abs_z", "worst_step",
                                  "min_p_value", "field_scale", "diffusion_scale", "detectable_field_error", "method",
                                  "parts", "tests", "explanation"});
    check_header_members(*r.verdict, "effective/explain_gap.hpp", "ConsistencyVerdict");
    REQUIRE_FALSE(r.verdict->parts.empty());
    check_round_trip(r.verdict->parts[0], {"name", "about", "tests", "rejected", "min_p_value", "worst"});
    check_header_members(r.verdict->parts[0], "effective/verdict.hpp", "VerdictPart");
    check_round_trip(r.verdict->tests[0], {"part", "what", "observed", "predicted", "p_value", "floor", "rejected"});
    check_header_members(r.verdict->tests[0], "effective/verdict.hpp", "VerdictTest");
    {  // a verdict from before the parts reads back with none, its diffusion as measured
        json old = *r.verdict;
        for (const char* k : {"parts", "tests", "explanation", "diffusion_scale"}) old.erase(k);
        const auto back = old.get<ConsistencyVerdict>();
        CHECK(back.parts.empty());
        CHECK(back.diffusion_scale == 1.0);
        CHECK(back.max_abs_z == r.verdict->max_abs_z);
    }
    check_round_trip(*r.effective, {"params", "tables", "abs_rho_final", "abs_rho_final_err", "hit_time",
                                    "hit_fraction", "hit_time_quantiles", "basin_fractions", "plateau"});
    CHECK(r.effective->basin_fractions.size() == r.phase.basins.size());
    check_header_members(*r.effective, "effective/explain_gap.hpp", "EffectiveSummary");
    check_round_trip(r.effective->params, {"enabled", "chain", "level_ratio", "moments", "prediction", "bootstrap", "alpha"});
    check_round_trip(r.effective->params.prediction, {"paths", "seed", "threads", "diffusion_scale"});
    check_header_members(r.effective->params.prediction, "effective/effective.hpp", "PredictionParams");
    check_header_members(r.effective->params, "effective/explain_gap.hpp", "EffectiveParams");
    for (const auto& pl : r.effective->plateau) check_round_trip(pl, {"eta", "rho_star", "rho_star_err"});
    check_header_members(r.effective->plateau[0], "effective/explain_gap.hpp", "PlateauPoint");
    // The gap explanation's own result (what compare/ copies into its rows), from this run's numbers.
    GapExplanation x;
    x.summary = *r.effective;
    x.verdict = *r.verdict;
    const CompareRow& last = r.table.back();
    REQUIRE(last.pred_se.has_value());
    x.rows.push_back({*last.rho_eff_ode, *last.rho_first_order, *last.pred_mean, *last.pred_q10, *last.pred_q90,
                      last.pred_se, last.residual_z, last.p_value});
    x.trajectory.push_back({*last.rho_eff_ode, *last.rho_first_order, *last.pred_mean, *last.pred_q10, *last.pred_q90,
                            std::nullopt, std::nullopt, std::nullopt});
    check_round_trip(x, {"summary", "verdict", "rows", "trajectory"});
    check_header_members(x, "effective/explain_gap.hpp", "GapExplanation");
    const Keys prediction_keys = {"rho_eff_ode", "rho_first_order", "pred_mean", "pred_q10", "pred_q90",
                                  "pred_se", "residual_z", "p_value"};
    for (const auto& row : x.rows) check_round_trip(row, prediction_keys);
    for (const auto& row : x.trajectory) check_round_trip(row, prediction_keys);
    check_header_members(x.rows[0], "effective/explain_gap.hpp", "RowPrediction");
    const GapRow gr{last.step, last.t, last.rho_sga.mean, 0.01, 0.012};
    check_round_trip(gr, {"step", "t", "sga_mean", "sga_sd", "sga_iqr"});
    const GapOutcomes go{30, 2, {9.5, 10.25}, r.phase.basins, {0, 30}};
    check_round_trip(go, {"trials", "hits", "hit_times", "basins", "basin_counts"});
    check_header_members(go, "effective/explain_gap.hpp", "GapOutcomes");
    check_header_members(gr, "effective/explain_gap.hpp", "GapRow");
    for (const auto& t : r.effective->tables) check_round_trip(t, {"eta", "rule", "nodes"});
    check_header_members(r.effective->tables[0], "effective/step_moments.hpp", "StepMomentTable");
    check_round_trip(r.effective->tables[0].nodes[0], {"rho", "F", "a", "a_err", "v", "v_err"});
    check_header_members(r.effective->tables[0].nodes[0], "effective/step_moments.hpp", "StepMomentNode");
    CompareRow blank = r.table[0];
    blank.gap_mean.reset();
    blank.gap_q90.reset();
    round_trip(blank);

    // Without a study and with a constant step: no study, no gap fit, a warning.
    CompareParams q = small_compare();
    q.study_eta0.clear();
    q.sga.schedule.gamma = 0;
    const CompareResult c = run_compare(q);
    CHECK_FALSE(c.study.has_value());
    CHECK_FALSE(c.gap_fit.has_value());
    CHECK_FALSE(c.warning.empty());
    check_round_trip(c, kCompareResultKeys);
    CHECK(json(c)["study"].is_null());
}

TEST_CASE("json round trip: jobs and job results, and a result read back from its document") {
    FieldJob f;
    f.model = odd_model();
    f.rho = {-1, 0.1 + 0.2, 1};
    f.method = FieldMethod::montecarlo;
    f.exact = odd_exact();
    f.montecarlo = {4096, 77, 2};
    f.rigorous_params = {192, 1e-9};
    check_round_trip(f, {"model", "rho", "method", "exact", "montecarlo", "rigorous", "rigorous_params"});
    check_header_members(f, "experiment/jobs.hpp", "FieldJob");
    OdeJob o;
    o.model = odd_model();
    o.rho0 = {-0.3, 0.5};
    o.t_end = 12.5;
    o.points = 9;
    o.t_log = 7;
    o.times = {0.5, 2};
    o.field = DriftMethod::meanfield;
    o.table = odd_table();
    o.ode = {1e-9, 1e-11, 0.02, false};
    check_round_trip(o, {"model", "rho0", "t_end", "points", "t_log", "times", "field", "table", "ode"});
    check_header_members(o, "experiment/jobs.hpp", "OdeJob");
    PhaseJob ph;
    ph.model = odd_model();
    ph.field = DriftMethod::meanfield;
    ph.table = odd_table();
    ph.phase = {300};
    check_round_trip(ph, {"model", "field", "table", "phase"});
    check_header_members(ph, "experiment/jobs.hpp", "PhaseJob");
    SgaJob s;
    s.model = odd_model();
    s.sga = odd_sga();
    check_round_trip(s, {"model", "sga"});
    check_header_members(s, "experiment/jobs.hpp", "SgaJob");
    CompareJob c;
    c.compare = small_compare();
    c.compare.sga = odd_sga();
    c.figure.size = "5x3.5";
    c.tables.width = "3.33in";
    check_round_trip(c, with(kCompareParamsKeys, {"figure", "tables"}));
    FigureParams fp{"page"};
    check_round_trip(fp, {"size"});
    check_header_members(fp, "io/plot.hpp", "FigureParams");
    TableParams tp{"page"};
    check_round_trip(tp, {"width"});
    check_header_members(tp, "io/paper_table.hpp", "TableParams");

    // Real results of small jobs; document -> result_from_document -> document is identical.
    FieldJob fe;
    fe.model = {8, 20, 4, 1.0, 1.0, 1.0};
    fe.rho = {-0.5, 0.5};
    FieldJob fm = fe;
    fm.method = FieldMethod::montecarlo;
    fm.montecarlo = {3000, 3, 1};
    OdeJob oj;
    oj.model = fe.model;
    oj.field = DriftMethod::meanfield;
    oj.points = 5;
    oj.rho0 = {0.05, -0.2};  // a second solution in "others"
    PhaseJob pj;
    pj.model = {100, 10500, 500, 3.0, 1.0, 1.0};
    pj.field = DriftMethod::meanfield;
    SgaJob sj;
    sj.model = fe.model;
    sj.sga.steps = 500;
    sj.sga.trials = 3;
    sj.sga.threads = 1;
    CompareJob cj;
    cj.compare = small_compare();
    StationaryJob tj;
    tj.model = {8, 200, 40, 1.0, 1.0, 1.0};
    tj.eta = 0.05;
    tj.stationary.moments = {8, 400, 5, 1};
    tj.stationary.cells = 200;
    tj.stationary.bootstrap = 10;
    tj.stationary.chain.steps = 2000;
    tj.stationary.chain.replicas = 4;
    tj.tables.width = "page";
    check_round_trip(tj, {"model", "eta", "update", "stationary", "tables"});
    check_header_members(tj, "experiment/jobs.hpp", "StationaryJob");
    CheckJob kj;
    kj.check.box.theta = ParamRange{0.25, 1.0};
    kj.check.grid = 3;
    kj.check.refine = 0;
    kj.x_axis = "theta";
    kj.figure.size = "page";
    kj.tables.width = "page";
    check_round_trip(kj, {"check", "scale", "x_axis", "figure", "tables"});
    check_header_members(kj, "experiment/jobs.hpp", "CheckJob");
    ProveJob vj;
    vj.prove.claim = parse_claim("attractors=3");
    vj.prove.box.theta = ParamRange{0.5, 0.75};
    vj.prove.threads = 3;
    vj.verify = "a/certificate.json";
    vj.verify_fast = true;
    check_round_trip(vj, {"prove", "verify", "verify_fast"});
    check_header_members(vj, "experiment/jobs.hpp", "ProveJob");
    FieldJob fg = fe;  // guaranteed enclosures: the document keeps them, and the job
    fg.model = {5, 100, 50, 1.0, 1.0, 1.0};
    fg.rigorous = true;
    const std::vector<std::pair<Job, Keys>> jobs = {
        {fe, {"method", "points", "gradient"}},
        {fg, {"method", "points", "gradient", "enclosures"}},
        {fm, {"method", "points", "gradient"}},
        {oj, with(kSolutionKeys, {"field", "others"})},
        {pj, with(kPortraitKeys, {"field"})},
        {sj, with(kEnsembleKeys, {"field", "outcomes", "outcomes_note"})},
        {cj, kCompareResultKeys},
        {tj, {"eta", "rule", "mean", "mean_err", "sd", "sd_err", "basin_from", "attractor", "attractor_err",
              "equilibria", "plain_ode", "method", "quadrature_err", "table", "attractors", "note"}},
        {kj, {}},  // the check's result has its own JSON layout (check/check.hpp); keys not listed here
    };
    const Provenance prov = make_provenance("job", "rhoflow job --flag 'a b'");
    for (const auto& [job, keys] : jobs) {
        CAPTURE(command_of(job));
        const JobResult r = run(job);
        const json doc = document(job, r, prov);
        CHECK(doc["command"] == command_of(job));  // the job's, whatever the provenance said
        CHECK(doc["command_line"] == "rhoflow job --flag 'a b'");
        CHECK(doc["commit"] == git_commit());
        CHECK(doc["date"] == prov.date);
        CHECK(doc["params"] == std::visit([](const auto& j) { return json(j); }, job));
        if (model_of(job)) CHECK(doc["model"] == json(*model_of(job)));
        const JobResult back = result_from_document(job, json::parse(doc.dump()));
        CHECK(document(job, back, prov).dump() == doc.dump());
        if (!keys.empty())
            std::visit(
                [&](const auto& x) {  // a registered job's result reads back through its kind (tests/jobs/)
                    if constexpr (!std::is_same_v<std::decay_t<decltype(x)>, RegisteredResult>) check_round_trip(x, keys);
                },
                r);
        if (const auto* st = std::get_if<StationaryLaw>(&r)) {
            // Every attractor's law has a key per member; a document written before the chain
            // (no `attractors`, params without `chain`) reads back with none and the defaults.
            REQUIRE(!st->attractors.empty());
            check_header_members(*st, "effective/stationary.hpp", "StationaryLaw");
            check_header_members(st->attractors.back(), "effective/stationary.hpp", "AttractorLaw");
            check_header_members(st->attractors.back().mean, "effective/stationary.hpp", "ChainEstimate");
            check_header_members(std::get<StationaryJob>(job).stationary.chain, "effective/stationary.hpp",
                                 "StationaryChainParams");
            CHECK(st->attractors.back().chain_ran);
            json old = doc;
            old.erase("attractors");
            old["params"]["stationary"].erase("chain");
            const auto back_old = std::get<StationaryLaw>(result_from_document(job, old));
            CHECK(back_old.attractors.empty());
            CHECK(back_old.mean == st->mean);
            CHECK(old["params"]["stationary"].get<StationaryParams>().chain.steps == StationaryChainParams{}.steps);
        }
        if (const auto* sr = std::get_if<SgaJobResult>(&r)) {
            // The ensemble's keys are at the top level (its trials among them).
            check_header_members(*sr, "experiment/jobs.hpp", "SgaJobResult", {{"ensemble", "trials"}});
            REQUIRE(sr->outcomes);
            // A document written before the outcome statistics reads back with none, and its
            // rho_finals from its trials.
            json old = doc;
            for (const char* k : {"field", "outcomes", "outcomes_note", "rho_finals"}) old.erase(k);
            const auto back_old = std::get<SgaJobResult>(result_from_document(job, old));
            CHECK(!back_old.outcomes);
            CHECK(back_old.ensemble.rho_finals == sr->ensemble.rho_finals);
            // The ensemble knows its run, when run and when read back (from the document's "params").
            const SgaJob& ran = std::get<SgaJob>(job);
            const auto& read = std::get<SgaJobResult>(back).ensemble;
            for (const EnsembleResult* e : {&sr->ensemble, &read, &back_old.ensemble}) {
                CHECK(json(e->model) == json(ran.model));
                CHECK(json(e->sga) == json(ran.sga));
            }
            CHECK(json(ran.sga) != json(SgaParams{}));  // a default ensemble would not pass
        }
    }
    const FieldJobResult fr = run(fm);
    CHECK(fr.gradient.size() == 2);
    CHECK(json(fr)["method"] == "montecarlo");
}

TEST_CASE("json round trip: a proof's document is its certificate, read back as the job and result that made it") {
    ProveJob pj;
    pj.prove = test::small_proof();
    const ProveJobResult r = run(pj);
    REQUIRE(r.proof);
    CHECK(r.proof->verdict == ProofVerdict::proved);
    const Provenance prov = make_provenance("prove", "rhoflow prove --claim monotone");
    const json doc = document(pj, r, prov);
    CHECK(doc == [&] {  // the certificate the checker reads, with the provenance under its own key
        json c = certificate(pj.prove, *r.proof);
        c["provenance"] = prov;
        return c;
    }());
    CHECK(doc["provenance"]["command_line"] == "rhoflow prove --claim monotone");
    CHECK(document_text(pj, doc) == doc.dump(1) + "\n");  // certificates: one space per level
    // Read back: the job from the certificate's params, the result from its cells and summary.
    const Job back_job = job_from_document(json::parse(doc.dump()));
    REQUIRE(std::holds_alternative<ProveJob>(back_job));
    CHECK(json(std::get<ProveJob>(back_job)) == json(pj));
    const JobResult back = result_from_document(back_job, json::parse(doc.dump()));
    CHECK(document(back_job, back, provenance_of_document(back_job, doc)).dump() == doc.dump());
    check_round_trip(r, {"proof", "verification"});
    check_header_members(r, "experiment/jobs.hpp", "ProveJobResult");
    // The checker's report, as `prove --verify --json` prints it and a runner cell keeps it.
    ProveJobResult v;
    v.verification = VerifyReport{true, ProofVerdict::disproved, 12, {}};
    ProveJob vj;
    vj.verify = "c.json";
    const json vdoc = document(vj, v, prov);
    CHECK(vdoc == json{{"valid", true}, {"verdict", "disproved"}, {"cells", 12}});
    const auto vback = std::get<ProveJobResult>(result_from_document(vj, vdoc));
    REQUIRE(vback.verification);
    CHECK(vback.verification->verdict == ProofVerdict::disproved);
    CHECK(vback.verification->cells == 12);
    check_round_trip(*v.verification, {"valid", "verdict", "cells", "errors"});
}

TEST_CASE("json round trip: provenance carries every member, older documents read with the new keys empty") {
    Provenance p = make_provenance("run", "rhoflow run 'my file.toml'");
    p.experiment_file = "my file.toml";
    p.experiment_sha256 = sha256_hex("x");
    p.commit_modified = true;
    p.cell_command_line = "rhoflow check --claim 'hitting-time<=10.5'";
    check_header_members(p, "io/json.hpp", "Provenance");
    const Provenance back = json(p).get<Provenance>();
    CHECK(back.command_line == p.command_line);
    CHECK(back.cell_command_line == p.cell_command_line);
    p.cell_command_line.clear();  // outside a run's cells: no key, documents as before
    CHECK_FALSE(json(p).contains("cell_command_line"));
    CHECK(back.experiment_sha256 == p.experiment_sha256);
    // A document written by rhoflow 0.1.0 before this provenance: program, version, command only.
    const json old = {{"program", "rhoflow"}, {"version", "0.1.0"}, {"command", "ode"}};
    const Provenance o = old.get<Provenance>();
    CHECK(o.command == "ode");
    CHECK(o.commit.empty());
    CHECK(o.command_line.empty());
    CHECK(o.cell_command_line.empty());
    CHECK(o.date.empty());
    CHECK_FALSE(o.commit_modified);
    CHECK_THROWS_AS(json({{"version", "0.1.0"}}).get<Provenance>(), json::exception);  // not a rhoflow document
}

TEST_CASE("json round trip: the rigorous field's and prove's structs carry every member") {
    ModelCell c;
    c.d = 7;
    c.L = 33;
    c.R = 4;
    c.theta = {0.5, 0.75};
    check_header_members(c, "rigorous/enclosure.hpp", "ModelCell");
    CHECK(json(c).get<ModelCell>().theta.hi == 0.75);
    check_header_members(Interval{-0.25, 0.5}, "rigorous/enclosure.hpp", "Interval");
    check_header_members(RigorousParams{96, 1e-9}, "rigorous/enclosure.hpp", "RigorousParams");
    CHECK(json(RigorousParams{96, 1e-9}).get<RigorousParams>().precision == 96);
    check_header_members(EnclosureBudget{}, "rigorous/enclosure.hpp", "EnclosureBudget");
    FieldEnclosure e;
    e.dj = {1, 2};
    check_header_members(e, "rigorous/enclosure.hpp", "FieldEnclosure");
    CHECK(json(json(e).get<FieldEnclosure>()) == json(e));
    ProveParams p;
    p.claim = parse_claim("attractors=3");
    p.max_depth = 9;
    p.meanfield = true;  // written only when true (an exact-field certificate keeps its bytes)
    check_header_members(p, "prove/prove.hpp", "ProveParams");
    CHECK(json(json(p).get<ProveParams>()) == json(p));
    p.meanfield = false;
    CHECK(!json(p).contains("meanfield"));
    CHECK(!json(json(p).get<ProveParams>()).contains("meanfield"));
    ProofCell pc;
    pc.role = "d2j<0";
    check_header_members(pc, "prove/prove.hpp", "ProofCell");
    check_header_members(ParamCellResult{}, "prove/prove.hpp", "ParamCellResult");
    check_header_members(ProveDiagnostics{}, "prove/prove.hpp", "ProveDiagnostics");
    ProveResult r;
    r.counterexample = pc;
    r.cells = {pc};
    check_header_members(r, "prove/prove.hpp", "ProveResult");
    CHECK(json(json(r).get<ProveResult>()) == json(r));
}
