// The SGA-ODE gap explained by the effective dynamics (docs/theory.md section 9): one-step
// moment tables at step sizes spanning the run's (geometric, consecutive ones at most
// level_ratio apart, from the same draws), the effective ODE and the effective chain (by
// default the resampled one, whose steps have the real chain's law: resampled_chain.hpp) predict
// the SGA ensemble's mean, its 10-90% band and its hitting time at the given rows. Each row's
// residual z = (SGA mean - predicted mean) / (standard error of a trials-mean with the larger of
// the observed and predicted spread, combined with the chain's own Monte Carlo error and the
// tables' systematic error from a parametric bootstrap perturbing the levels jointly, as they
// share their draws); its p-value comes from the chain's own law of a trials-mean (skew
// included). The verdict for the whole run tests the means, the spread, the hit fraction, the
// hit times and the basins (verdict.hpp): `consistent` unless Holm's step-down over all their
// tests rejects one, a family-wise false-alarm rate of at most alpha under any dependence. The
// result also says the smallest field error the ensemble would detect and the effective
// attractor rho*(eta) over the run's step sizes.
// The comparator (compare/compare.hpp) fills its rows from this; nothing here knows its types.
// The verdict is in parts (verdict.hpp): the means (the field), the spread per row, the hit
// fraction and hit times (the fluctuations) and the basin fractions, against the chain's paths,
// under one family-wise rate.
// When it fails: as the parts it uses (step_moments.hpp, effective.hpp, verdict.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rhoflow/core/stats.hpp"
#include "rhoflow/effective/effective.hpp"
#include "rhoflow/effective/step_moments.hpp"
#include "rhoflow/effective/verdict.hpp"
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/ode/phase.hpp"
#include "rhoflow/model/model.hpp"
#include "rhoflow/stochastic/ensemble.hpp"

namespace rhoflow {

/// The chain that predicts the ensemble.
enum class EffectiveChain {
    resampled,  ///< the real chain's one-step law, tails included (resampled_chain.hpp, docs/theory.md (9.4'))
    gaussian    ///< Gaussian steps with the one-step mean and variance ((9.4); right means and bands, wrong tails)
};
/// "resampled" or "gaussian".
std::string_view to_string(EffectiveChain c);
/// Parses a chain's name; throws InvalidArgument naming `field` otherwise.
EffectiveChain parse_effective_chain(std::string_view s, const std::string& field = "effective.chain");
/// The chain's name.
void to_json(nlohmann::json& j, const EffectiveChain& c);
/// Parses a chain's name.
void from_json(const nlohmann::json& j, EffectiveChain& c);

/// How the comparator predicts the SGA ensemble from the effective dynamics.
struct EffectiveParams {
    bool enabled = true;          ///< predict and give a verdict (false: the plain ODE comparison only)
    EffectiveChain chain = EffectiveChain::resampled;  ///< the chain that predicts the ensemble (documents without this key: gaussian, what they were computed with)
    double level_ratio = 1.5;     ///< largest ratio of consecutive tabulated step sizes (geometric from eta_0 to the last eta), 1.05 ... 10
    StepMomentParams moments = {32, 2000, 1, 0};  ///< the tables (their seed is the ensemble's)
    PredictionParams prediction = {4000, 1, 0};   ///< the effective chain (its seed is the ensemble's)
    int bootstrap = 20;           ///< replicas of the tables for the prediction's systematic error, 4 ... 1000
    double alpha = 0.05;          ///< family-wise false-alarm rate of the verdict, 1e-6 ... 0.5
    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// The verdict: is the SGA ensemble consistent with the effective dynamics of the theory, and
/// if not, which part of it failed (verdict.hpp)?
struct ConsistencyVerdict {
    bool consistent = true;       ///< no test of any part rejected at family-wise level alpha
    double alpha = 0.05;          ///< family-wise false-alarm rate over all tests of all parts
    std::int64_t rows_tested = 0; ///< rows whose mean was tested
    double threshold_z = 0;       ///< the normal |z| of p = alpha / (all tests): a guide, the p-values decide
    double max_abs_z = 0;         ///< largest |residual_z| of the means
    std::int64_t worst_step = 0;  ///< its row's step
    double min_p_value = 1;       ///< smallest p-value of the means
    double field_scale = 1;       ///< the scale applied to the theory's field
    double diffusion_scale = 1;   ///< the scale applied to the chain's fluctuations
    double detectable_field_error = 0;  ///< smallest relative error of F this ensemble would flag (|S - 1|)
    std::string method;           ///< how the verdict is reached
    std::vector<VerdictPart> parts;  ///< the parts tested (mean, spread, hit_fraction, hit_times, basins)
    std::vector<VerdictTest> tests;  ///< every test with its p-value (documents before the parts: none)
    std::string explanation;         ///< which part of the theory is consistent and which failed, with the worst test
};

/// One step size of the effective dynamics: the effective attractor rho*(eta).
struct PlateauPoint {
    double eta = 0;        ///< step size
    double rho_star = 0;   ///< the effective attractor nearest +1 (NaN-free: 1 if none)
    double rho_star_err = 0;  ///< its error
};

/// What the effective dynamics predicts beyond the table rows.
struct EffectiveSummary {
    EffectiveParams params;                  ///< the parameters as used (seeds: the ensemble's)
    std::vector<StepMomentTable> tables;     ///< one-step moments at each tabulated step size
    MeanCI abs_rho_final;                    ///< predicted mean |rho| after the last step
    double abs_rho_final_err = 0;            ///< its systematic error (table bootstrap)
    std::optional<MeanCI> hit_time;          ///< predicted hitting time of |rho| >= level
    double hit_fraction = 0;                 ///< predicted fraction of trials that hit
    std::vector<double> hit_time_quantiles;  ///< predicted 10, 50 and 90% quantiles of the hitting time (paths that hit; empty: none did)
    std::vector<double> basin_fractions;     ///< predicted fraction of trials ending in each ODE basin (GapOutcomes' order; empty: none given)
    std::vector<PlateauPoint> plateau;       ///< rho*(eta) over the run's step sizes
};

/// A row of the ensemble the prediction is judged at.
struct GapRow {
    std::int64_t step = 0;  ///< step k (one of the record steps)
    double t = 0;           ///< ODE time t_k
    double sga_mean = 0;    ///< the SGA ensemble's mean of rho_k
    double sga_sd = 0;      ///< the SGA trials' sample sd of rho_k
    double sga_iqr = 0;     ///< the SGA trials' interquartile range of rho_k (verdict.hpp's interquartile_range)
};

/// The SGA ensemble's outcomes the verdict tests (besides its rows).
struct GapOutcomes {
    std::int64_t trials = 0;                  ///< trials in all (0: no outcome tests)
    std::int64_t hits = 0;                    ///< trials that hit |rho| >= 1 - hit_eps
    std::vector<double> hit_times;            ///< the ODE hitting times of the trials that hit (empty: not kept, no hit-time test)
    std::vector<Basin> basins;                ///< the ODE basins, ascending
    std::vector<std::int64_t> basin_counts;   ///< trials ending in each basin
};

/// The effective prediction at one row (or trajectory point).
struct RowPrediction {
    double rho_eff_ode = 0;      ///< the effective ODE d rho/dt = a(rho; eta(t)) from the trials' starts, averaged
    double rho_first_order = 0;  ///< the first-order corrected ODE d rho/dt = F + eta(t) B (exact B)
    double pred_mean = 0;        ///< the effective chain's mean of rho_k
    double pred_q10 = 0;         ///< its 10% quantile
    double pred_q90 = 0;         ///< its 90% quantile
    std::optional<double> pred_se;     ///< predicted standard error of the SGA mean (rows only)
    std::optional<double> residual_z;  ///< (SGA mean - predicted mean) / pred_se (rows with pred_se > 0)
    std::optional<double> p_value;     ///< two-sided p-value of the row's mean (verdict.hpp: the chain's studentized null law; normal for fewer than 2 trials)
};

/// The whole explanation.
struct GapExplanation {
    EffectiveSummary summary;               ///< tables, final |rho|, hitting time, plateau
    ConsistencyVerdict verdict;             ///< consistent or not
    std::vector<RowPrediction> rows;        ///< one per GapRow, in order
    std::vector<RowPrediction> trajectory;  ///< one per trajectory point (no pred_se)
};

/// The one-step moment tables of a run and the gradient draws they were measured from.
struct GapTables {
    std::vector<StepMomentTable> tables;       ///< at table_etas, nodes from rho = +1 down
    std::vector<std::vector<BankDraw>> draws;  ///< every draw of each node, in the tables' node order (the resampled chain's bank; empty for the Gaussian chain)
};

/// The step sizes of the one-step moment tables for the run `sga`.
std::vector<double> table_etas(const SgaParams& sga, const EffectiveParams& ep);
/// Nodes [first, first + count) of every table at table_etas (seed: the ensemble's), with their
/// draws when ep.chain is resampled: the unit in which the tables are spread over MPI ranks;
/// the same numbers as measure_gap_tables.
GapTables measure_gap_table_nodes(const ModelParams& model, const SgaParams& sga, const EffectiveParams& ep,
                                  const DriftField& F, std::size_t first, std::size_t count);
/// The one-step moment tables at table_etas, from the same draws (kept for the resampled chain).
GapTables measure_gap_tables(const ModelParams& model, const SgaParams& sga, const EffectiveParams& ep,
                             const DriftField& F);

/// What a run was, for explain_gap: the model, the ensemble's run and record steps, the
/// effective dynamics' settings, the theory's field, what the ensemble gave and the tables.
struct GapInputs {
    ModelParams model;                     ///< the model
    SgaParams sga;                         ///< the ensemble's run (its schedule, steps, trials, seed, update)
    EffectiveParams effective;             ///< the effective dynamics' settings
    double field_scale = 1.0;              ///< the theory's field's scale (only recorded in the verdict)
    const DriftField* field = nullptr;     ///< the theory's field F (not owned; required)
    std::vector<std::int64_t> records;     ///< the ensemble's record steps: from step 0, each trajectory point's step after it
    std::vector<double> starts;            ///< the trials' distinct starts (the effective ODE runs from each)
    std::vector<GapRow> rows;              ///< the rows to predict, among `records`; the last is the run's end
    std::vector<double> trajectory_times;  ///< the trajectory points' times (the record steps after step 0)
    GapTables tables;                      ///< the one-step moment tables, table_etas order (with their draws, if kept)
    GapOutcomes outcomes;                  ///< the hit fraction, hit times and basins, tested beside the rows
};

/// From the tables (the resampled chain's bank from their draws, or drawn afresh with the
/// tables' streams when there are none), predicts the ensemble of `run` at its rows and
/// trajectory times, the effective ODE starting from each of its starts, and judges it against
/// them (rows and outcomes) in the verdict.
GapExplanation explain_gap(GapInputs run);

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const GapTables& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, GapTables& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const EffectiveParams& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, EffectiveParams& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const ConsistencyVerdict& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, ConsistencyVerdict& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const PlateauPoint& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, PlateauPoint& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const EffectiveSummary& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, EffectiveSummary& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const GapOutcomes& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, GapOutcomes& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const GapRow& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, GapRow& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const RowPrediction& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, RowPrediction& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const GapExplanation& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, GapExplanation& v);

}  // namespace rhoflow
