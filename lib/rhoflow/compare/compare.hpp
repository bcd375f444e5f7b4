// The comparator, rhoflow's main job: the SGA ensemble against the mean-field ODE
// (docs/theory.md section 7).
//  - Per trial (GapTracker): D_T at anchors spread geometrically in t over the run (the flow
//    restarted from the trial's own state at each anchor) and the tracking error
//    |rho_k - rho_ODE(t_k)| from the trial's own start.
//  - Across the ensemble: D_T mean, median, 90% quantile and max per anchor, and the fitted
//    log-log slope of mean D_T against eta(t) after the ODE has reached |rho| >= 1 - hit.
//  - The ODE-vs-SGA table on log-spaced steps: rho_ODE, SGA mean with 95% CI and quantiles,
//    D_T, sample and population attention mass on nuisance tokens; hitting times of both.
//  - The step-size study: for each eta0 (k0 scaled so that eta(t) keeps its shape, eta0 k0
//    fixed) the sup over [0, t_study] of the tracking error from a shared start, and the
//    fitted slope of log(mean sup) against log(eta0), over all eta0 and over the smaller half
//    (about 1/2 for small eta0; larger eta0 add the O(eta) bias of the projection). Its trials
//    draw from their own streams (StreamPurpose::step_size_study), apart from the main run's.
//  - The gap explained (docs/theory.md section 9): one-step moment tables at a few step sizes
//    spanning the run's, the effective ODE and the effective chain (effective/explain_gap.hpp) predict
//    the SGA mean, its spread (the 10-90% band) and the hitting time, and a verdict in parts
//    (effective/verdict.hpp): each row's mean (the field) and interquartile range, the hit
//    fraction, the hitting times and the basin fractions against the chain's own paths, under
//    Holm's step-down over all the tests (a family-wise false-alarm rate of at most alpha under any
//    dependence); the report says which part failed. field_scale multiplies the theory's field and
//    effective.prediction.diffusion_scale the chain's fluctuations, to show a wrong theory is
//    caught; the result also says the smallest field error this ensemble would detect.
// Composable: run_compare(params) runs everything (its units through the executor). An embedder
// who already has an ensemble (which carries its model and sga) and a field calls
// compare(ensemble, field, settings) for the statistics and figure data, and
// add_effective_prediction for the effective dynamics' columns and the verdict. run_compare is
// exactly these calls on the ensemble it runs (with every step's tracking), against the field
// it builds multiplied by field_scale (an explicit step of its own: compare() uses the field it
// is given and records field_scale), plus the step-size study.
// The result is typed (CompareResult); io/compare_output.hpp turns it into JSON, tables and
// figures. Nothing here writes files.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rhoflow/core/stats.hpp"
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/model/model.hpp"
#include "rhoflow/effective/explain_gap.hpp"
#include "rhoflow/ode/phase.hpp"
#include "rhoflow/compare/outcomes.hpp"
#include "rhoflow/stochastic/ensemble.hpp"

namespace rhoflow {

/// A comparison's own settings: what it needs beyond the run it compares (the model and the
/// ensemble's controls, which an EnsembleResult carries); compare() takes these with an ensemble.
struct CompareSettings {
    DriftMethod field = DriftMethod::exact;            ///< the field driving the ODE
    FieldTableParams table;                            ///< exact-field table accuracy
    double horizon = 10.0;                             ///< T of D_T, in ODE time
    int anchors = 24;                                  ///< anchors, geometric in t over [eta0, t_final - T]
    int rows = 14;                                     ///< rows of the ODE-vs-SGA table
    std::vector<double> study_eta0 = {0.08, 0.04, 0.02, 0.01, 0.005, 0.0025};  ///< step-size study (empty: none)
    std::int64_t study_trials = 100;                   ///< trials per eta0 in the study
    double study_horizon = 0.0;                        ///< t_study; 0 = 3 x the ODE hitting time, at least 5
    double field_scale = 1.0;                          ///< the theory's field is multiplied by this (1: as computed)
    EffectiveParams effective;                         ///< the effective-dynamics prediction and verdict
    std::vector<std::string> table_columns;            ///< output only: columns of table.tex/.md (empty: t, rho_ode, pred, sga, z)
};

/// Everything a comparison needs: the run (model and ensemble) and the comparison's settings.
struct CompareParams : CompareSettings {
    ModelParams model;                                 ///< the model
    /// The comparator's ensemble defaults: 30 trials of 2 10^4 steps, eta_k = 0.01/(1 + k/5000), rho0 = 0.1, seed 1.
    static SgaParams default_sga();
    SgaParams sga = default_sga();                     ///< the ensemble (sampler, schedule, seed...)

    /// The comparison's settings alone (what compare() takes with an ensemble that knows its run).
    const CompareSettings& settings() const noexcept { return *this; }
    /// Throws InvalidArgument naming the first field out of range (path, e.g. "sga.steps").
    void validate() const;
};

/// The keys CompareParams::table_columns accepts, in the order docs/cli.md lists them.
const std::vector<std::string>& compare_table_column_keys();

/// The embedded default experiment, the same as CompareParams{}: d=50, L=1000, R=100,
/// theta=sigma=beta=1; 30 trials of 2 10^4 steps with eta_k = 0.01/(1 + k/5000) (ODE time 80),
/// rho0 = 0.1, seed 1, exact field, T = 10; step-size study over eta0 = 0.08 ... 0.0025 with 100
/// trials each.
CompareParams default_compare_params();

/// The theory's field: `field` multiplied by `field_scale` (`field` itself at 1), the explicit
/// step by which run_compare makes the field it compares with (field_scale of CompareSettings).
DriftField theory_field(const DriftField& field, double field_scale);

/// One row of the ODE-vs-SGA table (a log-spaced step k).
struct CompareRow {
    std::int64_t step = 0;             ///< step k
    double t = 0;                      ///< ODE time t_k
    double rho_ode = 0;                ///< the ODE from each trial's start, averaged over trials
    MeanCI rho_sga;                    ///< SGA mean of rho_k with its 95% CI
    double rho_sga_q10 = 0;            ///< 10% quantile of rho_k over trials
    double rho_sga_median = 0;         ///< median of rho_k over trials
    double rho_sga_q90 = 0;            ///< 90% quantile of rho_k over trials
    std::optional<double> gap_mean;    ///< mean D_T anchored at this step (empty if its window did not fit)
    std::optional<double> gap_q90;     ///< 90% quantile of D_T anchored at this step
    MeanCI nuisance_mass_sga;          ///< sample attention mass on nuisance tokens, mean over trials
    double nuisance_mass_population = 0;  ///< 1 - E[A_I] at rho_ODE (exact field), averaged over trials
    std::optional<double> rho_eff_ode;    ///< the effective ODE d rho/dt = a(rho; eta(t)) from the trials' start
    std::optional<double> rho_first_order;  ///< the first-order corrected ODE d rho/dt = F + eta(t) B (exact B)
    std::optional<double> pred_mean;      ///< the effective chain's mean of rho_k
    std::optional<double> pred_q10;       ///< its 10% quantile
    std::optional<double> pred_q90;       ///< its 90% quantile
    std::optional<double> pred_se;        ///< predicted standard error of the SGA mean (spread/sqrt(trials) with the prediction's own errors)
    std::optional<double> residual_z;     ///< (SGA mean - predicted mean) / pred_se
    std::optional<double> p_value;        ///< two-sided normal p-value of residual_z
    std::optional<double> ode_z;          ///< (SGA mean - rho_ODE) / the SGA mean's standard error: the mean-field ODE's residual (empty where that error is 0)
};

/// D_T across trials at one anchor.
struct GapAnchor {
    std::int64_t step = 0;  ///< anchor step
    double t = 0;           ///< its ODE time
    double eta = 0;         ///< eta at the anchor
    double mean = 0;        ///< mean D_T over trials
    double median = 0;      ///< median D_T
    double q90 = 0;         ///< 90% quantile of D_T
    double max = 0;         ///< largest D_T
};

/// The fitted log-log slope of mean D_T against eta(t).
struct GapFit {
    LineFit fit;         ///< log mean D_T = intercept + slope log eta
    double from_t = 0;   ///< anchors with t >= from_t were used
};

/// Hitting times of |rho| >= level: the ODE from each trial's start and the SGA trials.
struct HittingTimes {
    double level = 0.99;            ///< the level 1 - hit_eps
    std::optional<MeanCI> ode;      ///< over trials whose ODE reaches the level within the run
    std::optional<MeanCI> sga;      ///< over trials that reached it
    std::int64_t sga_hits = 0;      ///< trials that reached it
    std::int64_t trials = 0;        ///< trials in all
    /// First record time at which the SGA mean |rho| has risen 90% of the way from its start to its
    /// final value: when the ensemble reaches its plateau, the recovery speed a hitting time of
    /// 0.99 hides where a finite step keeps the plateau near the level; empty if it never rises
    std::optional<double> sga_plateau;
    std::optional<double> sga_plateau_after;  ///< the record time before it: reached within (after, sga_plateau]
};

/// One eta0 of the step-size study.
struct StudyRow {
    double eta0 = 0;             ///< initial step
    double k0 = 0;               ///< decay onset (eta0 k0 fixed across rows)
    std::int64_t steps = 0;      ///< steps to reach t_study
    MeanCI sup_err;              ///< mean over trials of sup_k |rho_k - rho_ODE(t_k)|, 95% CI
    double sup_err_median = 0;   ///< median of the sup
    std::uint64_t stream_run = 0;  ///< stream index `sub` of its trials (purpose step_size_study)
};

/// The step-size study.
struct StepSizeStudy {
    double horizon = 0;            ///< t_study
    double rho0 = 0;               ///< shared start
    std::int64_t trials = 0;       ///< trials per eta0
    std::vector<StudyRow> rows;    ///< by decreasing eta0
    LineFit fit;                   ///< log mean sup against log eta0, all rows
    LineFit fit_small_eta0;        ///< the same over the smaller half of eta0 (at least 3)
};

/// Trials a trajectory point keeps (the seed paper's figure draws each of its 30).
inline constexpr std::size_t kTrajectoryTrials = 100;

/// One record step of the trajectory figure.
struct TrajectoryPoint {
    double t = 0;                 ///< ODE time
    double rho_ode = 0;           ///< ODE (mean over trials' starts)
    double sga_mean = 0;          ///< SGA mean
    double sga_q10 = 0;           ///< SGA 10% quantile
    double sga_q90 = 0;           ///< SGA 90% quantile
    std::vector<double> trials;   ///< the first (up to kTrajectoryTrials) trials
    std::optional<double> rho_eff_ode;  ///< the effective ODE (when the prediction is enabled)
    std::optional<double> rho_first_order;  ///< the first-order corrected ODE F + eta(t) B
    std::optional<double> pred_mean;    ///< the effective chain's mean
    std::optional<double> pred_q10;     ///< its 10% quantile
    std::optional<double> pred_q90;     ///< its 90% quantile
};

/// F and j' sampled on [-1, 1] (the field figure).
struct FieldCurvePoint {
    double rho = 0;    ///< alignment
    double drift = 0;  ///< F(rho)
    double dj = 0;     ///< j'(rho)
};

/// What the comparator's GapTracker (compare/pseudotrajectory.hpp) keeps of one trial, watched
/// at every step: what the record steps of an EnsembleResult cannot give.
struct TrialTracking {
    std::vector<std::optional<double>> gaps;  ///< D_T at each of the plan's anchors (empty: its window did not fit)
    double sup_tracking = 0;                  ///< sup_k |rho_k - rho_ODE(t_k)|, the ODE from the trial's start
    std::vector<double> ode_records;          ///< rho_ODE from the trial's start at the ensemble's record steps
};

/// Where a comparison observes its run.
struct ComparePlan {
    double t_final = 0;                  ///< ODE time of the run's last step
    std::vector<std::int64_t> rows;      ///< table rows: step 0, then rows - 1 steps geometric in k
    std::vector<std::int64_t> anchors;   ///< D_T anchors: geometric in t, plus every row whose window fits
    std::vector<std::int64_t> records;   ///< the ensemble's record steps (record_steps_for with the rows)
};

/// The plan of `p`. To compare an ensemble of one's own at the plan's rows, run it with
/// sga = p.sga and sga.record_steps = plan.rows (its record steps are then plan.records).
ComparePlan compare_plan(const CompareParams& p);

/// Observers for run_trials_here that track every trial of the ensemble `p.sga` against the
/// theory's field `field` (as compare() takes it: already multiplied by p.field_scale) at every
/// step, as run_compare does: trial n's tracking goes to out[n - p.sga.first_trial], which must
/// hold p.sga.trials entries and outlive the run.
ObserverFactory tracking_observers(const DriftField& field, const CompareParams& p, std::vector<TrialTracking>& out);

/// The SGA mean against the mean-field ODE (the paper's theory) over the table's rows; the
/// verdict tests the effective (finite-step) dynamics instead, so a consistent verdict does not
/// say that SGA follows the ODE: this does.
struct OdeAgreement {
    std::int64_t rows = 0;                  ///< rows with an ode_z (an SGA mean with a positive standard error)
    std::int64_t outside = 0;               ///< of them, rows where rho_ODE lies outside the SGA mean's 95% CI
    std::optional<double> first_outside_t;  ///< ODE time of the first such row
    double max_abs_z = 0;                   ///< largest |ode_z|
    std::string explanation;                ///< the above in one or two sentences, with what the bias is
};

/// A finished comparison.
struct CompareResult {
    CompareParams params;                   ///< what was run
    DriftFieldInfo field;                   ///< the ODE's field and its error bounds
    PhasePortrait phase;                    ///< equilibria and basins of that field
    double t_final = 0;                     ///< ODE time of the run's last step
    std::vector<CompareRow> table;          ///< ODE against SGA on log-spaced steps
    std::vector<GapAnchor> gap;             ///< D_T statistics per anchor
    std::optional<GapFit> gap_fit;          ///< slope of mean D_T against eta(t) (none for a constant step)
    MeanCI tracking_error;                  ///< sup_k |rho_k - rho_ODE(t_k)| over trials, 95% CI
    double tracking_error_max = 0;          ///< the largest such sup
    bool every_step = true;                 ///< D_T and the tracking error taken at every step; false: at the record steps only (compare() without tracking), lower bounds of both
    HittingTimes hitting_time;              ///< ODE against SGA
    EnsembleSummary summary;                ///< the ensemble's final state
    OutcomeSummary outcomes;                ///< the trials by ODE basin of their final rho (compare/outcomes.hpp; 0 trials: read from a document older than them)
    double rho_ode_final = 0;               ///< the ODE at t_final, averaged over the trials' starts (signed: beside the SGA mean of rho)
    double abs_rho_ode_final = 0;           ///< mean over the trials' starts of |rho_ODE(t_final)|: what mean |rho_final| is compared with (starts in two basins: not |rho_ode_final|)
    std::optional<StepSizeStudy> study;     ///< the step-size study, if requested
    std::vector<TrajectoryPoint> trajectory;  ///< the statistics at every record step (the writers draw the trajectory figure from them)
    std::vector<FieldCurvePoint> field_curve;  ///< the theory's F sampled on [-1, 1] (kept here because io/ evaluates no field; with it compare.json alone redraws the field figure)
    std::string warning;                    ///< the schedule's Robbins-Monro warning, if any
    std::optional<EffectiveSummary> effective;  ///< the effective-dynamics prediction (when enabled)
    std::optional<ConsistencyVerdict> verdict;         ///< consistent or not (when enabled)
    OdeAgreement ode;                       ///< the SGA mean against the mean-field ODE, row by row
};

/// The ODE's agreement with the SGA mean over r.table, explained with r's verdict and step-size
/// study (compare() and run_compare fill CompareResult::ode with it).
OdeAgreement ode_agreement(const CompareResult& r);

/// The comparison of an ensemble already run against the theory's field `field`, used as given
/// (run_compare passes the computed field times settings.field_scale; the result records
/// settings.field_scale and field.info()): every statistic and the figure data, without the
/// step-size study (it needs ensembles of its own; `study` stays empty) and without the
/// effective prediction (add_effective_prediction). The model and the ensemble's controls are
/// the ensemble's own (ensemble.model, ensemble.sga; the result's params are those with
/// `settings`); the ensemble must keep every trial with its records, each number in its range
/// (an ensemble read back from a file is untrusted); otherwise InvalidArgument names what is
/// wrong. The table's rows are the record steps nearest to the plan's rows (compare_plan; the
/// rows themselves for an ensemble run with sga.record_steps = plan.rows). With `tracking` (one
/// per trial, in trial order, from tracking_observers) the result has the same bits as
/// run_compare's; without it D_T and the tracking error are taken at the record steps only
/// (every_step = false): lower bounds, at the anchors that are record steps.
CompareResult compare(const EnsembleResult& ensemble, const DriftField& field, const CompareSettings& settings,
                      const std::vector<TrialTracking>& tracking = {});
/// Refused at compile time: the model and sga are the ensemble's; pass `params.settings()`.
CompareResult compare(const EnsembleResult& ensemble, const DriftField& field, const CompareParams& params,
                      const std::vector<TrialTracking>& tracking = {}) = delete;

/// Adds the effective dynamics' prediction (docs/theory.md section 9) to compare()'s result
/// for `ensemble` against `field` (both as given to compare(): the theory's field, used as
/// given): measures the one-step moment tables from the ensemble's seed (on this process's
/// threads), explains the gap, and fills the rows' and the trajectory's prediction columns,
/// `effective` and `verdict`, with result.params.effective's settings (and records
/// effective.enabled = true). InvalidArgument ("result") if result.params' model or sga are not
/// the ensemble's.
void add_effective_prediction(CompareResult& result, const EnsembleResult& ensemble, const DriftField& field);
/// The same from tables already measured (effective/explain_gap.hpp's measure_gap_tables, in
/// table_etas order, against the same field; their draws, if kept, are the resampled chain's
/// bank).
void add_effective_prediction(CompareResult& result, const EnsembleResult& ensemble, const DriftField& field,
                              GapTables tables);

/// Runs the comparison: its units (CompareUnits) through the executor (exec/units.hpp), then
/// compare() with every trial's tracking, the step-size study and add_effective_prediction, all
/// against the theory's field: the ODE's field multiplied by p.field_scale. `field`, if given,
/// replaces the ODE's field before that scaling (tests pass a wrong one); `progress`, if given,
/// receives the total number of SGA steps and counts them. Runs in this process.
CompareResult run_compare(const CompareParams& p, ProgressCounter* progress = nullptr,
                          const DriftField* field = nullptr);

/// The same, collective under Execution::team (every rank must call it): the units are spread
/// over the ranks; the process that keeps results (rank 0) gets the comparison, the same bits
/// as one process, the other ranks nothing.
std::optional<CompareResult> run_compare(Execution ex, const CompareParams& p, ProgressCounter* progress = nullptr,
                                         const DriftField* field = nullptr);

/// What one unit of a comparison gives: a main block's trials with their gap records, a study
/// block's sup tracking errors, or a block of the moment tables' nodes.
struct CompareBlock {
    std::vector<TrialResult> trials;      ///< a main block's trials
    std::vector<TrialTracking> tracking;  ///< their gap records
    std::vector<double> sups;             ///< a study block's sup tracking error per trial
    std::optional<GapTables> tables;      ///< a table block's nodes (every step size's table)
    std::int64_t steps = 0;               ///< the SGA steps the unit took
};

/// The comparator cut into independent units, the work the ranks share: blocks of the main
/// ensemble's trials (each trial with its GapTracker), blocks of each step-size-study run's
/// trials, and blocks of the nodes of the effective dynamics' one-step moment tables (one block
/// serves every step size: the tables share their draws). Every rank builds the same
/// CompareUnits; the field, the plan and the study's horizon are prepared on each rank by its
/// first run() (the same bits everywhere; a failure there is that unit's failure). Rank 0
/// accepts every unit's output and finish() does the rest (statistics, phase portrait, the
/// effective prediction and verdict).
class CompareUnits {
public:
    /// What a unit gives.
    using Output = CompareBlock;
    /// What its units are called in messages.
    static const char* kind() noexcept { return "compare"; }
    /// Validates; each trial ensemble is cut into at most `blocks` blocks.
    CompareUnits(const CompareParams& p, const DriftField* field, std::int64_t blocks);
    ~CompareUnits();
    CompareUnits(const CompareUnits&) = delete;
    CompareUnits& operator=(const CompareUnits&) = delete;
    /// Number of units.
    std::int64_t size() const noexcept;
    /// Estimated cost of unit u (token-steps; known without the field).
    double cost(std::int64_t u) const;
    /// How many of the units are moment-table blocks (the last ones).
    std::int64_t table_units() const noexcept;
    /// SGA steps unit u took (rank 0, once accepted; 0 for a table).
    std::int64_t steps(std::int64_t u) const;
    /// Sets `progress`'s total: the main trials' steps now, the study's once the field is prepared.
    void count_steps(ProgressCounter* progress);
    /// Runs unit u (preparing the field, plan and study on this rank's first unit); its output.
    Output run(std::int64_t u, ProgressCounter* progress = nullptr);
    /// Stores unit u's output (rank 0).
    void accept(std::int64_t u, Output output);
    /// The comparison from every unit's output.
    CompareResult finish();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const CompareParams& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, CompareParams& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const CompareRow& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, CompareRow& v);
/// One key per member.
void to_json(nlohmann::json& j, const OdeAgreement& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, OdeAgreement& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const GapAnchor& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, GapAnchor& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const GapFit& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, GapFit& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const HittingTimes& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, HittingTimes& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const StudyRow& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, StudyRow& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const StepSizeStudy& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, StepSizeStudy& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const TrajectoryPoint& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, TrajectoryPoint& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const FieldCurvePoint& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, FieldCurvePoint& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const TrialTracking& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, TrialTracking& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const ComparePlan& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, ComparePlan& v);
/// JSON hooks: one key per field (compare.json is {provenance..., this}).
void to_json(nlohmann::json& j, const CompareResult& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, CompareResult& v);
/// JSON hooks: one key per member (a unit's output between ranks).
void to_json(nlohmann::json& j, const CompareBlock& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, CompareBlock& v);

}  // namespace rhoflow
