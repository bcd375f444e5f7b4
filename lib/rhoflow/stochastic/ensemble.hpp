// Ensembles of independent SGA trials (docs/theory.md sections 2 and 6) on all cores.
//
// Reproducibility: trial k of master seed S draws every random number from the stream
// (S, sga_trial, k) (core/random.hpp), so its path is bit-identical whatever the thread count and whatever
// other trials run; results are stored per trial index and summarised in index order.
// Memory: per trial, rho and the sample nuisance attention mass are kept only at the record
// steps (log-spaced, `records_per_decade` per decade, plus user-requested steps), so it does
// not grow with the number of steps. Trials run in chunks of consecutive indices and are folded
// into the summary in index order as each chunk ends (the same bits as summarising them all at
// once); a caller that needs only the summary (EnsembleOutput) keeps no per-trial records, and
// the ensemble then holds one double per trial (for the exact quantiles) plus one per hit. A
// StepObserver can watch every step (the comparator computes the pseudotrajectory gap that way).
// Cancellation: every trial checks the caller's CancelFlag every 1000 steps (core/cancel.hpp)
// and stops with Interrupted once it is requested.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rhoflow/core/random.hpp"
#include "rhoflow/model/model.hpp"
#include "rhoflow/stochastic/schedule.hpp"
#include "rhoflow/core/stats.hpp"
#include "rhoflow/exec/execution.hpp"
#include "rhoflow/model/update_rule.hpp"

namespace rhoflow {

/// Which simulator runs the trials.
enum class SamplerKind {
    reduced,  ///< exact O(L) sampler of the rho-chain (reduced_sampler.hpp)
    full      ///< full d-dimensional simulation (full_sampler.hpp)
};
/// "reduced" or "full".
std::string_view to_string(SamplerKind s);
/// Parses a sampler name; throws InvalidArgument naming `param` otherwise.
SamplerKind parse_sampler(std::string_view s, const std::string& param = "sampler");

/// Controls of an ensemble.
struct SgaParams {
    std::int64_t steps = 10000;          ///< SGA steps per trial, >= 1
    std::int64_t trials = 30;            ///< independent trials, >= 1
    std::int64_t first_trial = 0;        ///< stream index of the first trial (rerun one trial alone)
    std::uint64_t seed = 1;              ///< master seed
    StreamPurpose purpose = StreamPurpose::sga_trial;  ///< stream purpose of the trials (the comparator's study uses its own)
    std::uint64_t purpose_sub = 0;       ///< second stream index within the purpose (the study's run)
    SamplerKind sampler = SamplerKind::reduced;  ///< simulator
    StepSchedule schedule;               ///< step sizes eta_k
    UpdateRule update = UpdateRule::normalized;  ///< projection to the sphere
    std::optional<double> rho0;          ///< initial alignment; empty: query uniform on the sphere
    double hit_eps = 0.01;               ///< hit: first step with |rho| >= 1 - hit_eps
    int threads = 0;                     ///< worker threads (0 = all cores)
    int records_per_decade = 20;         ///< log-spaced record steps per decade of k
    std::vector<std::int64_t> record_steps;  ///< extra steps at which to record rho

    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// Progress of long runs: steps done out of a total that the runner sets before starting.
struct ProgressCounter {
    std::atomic<std::int64_t> done{0};   ///< SGA steps completed so far
    std::atomic<std::int64_t> total{0};  ///< SGA steps the whole run will take (0 = not yet known)
};

/// Watches every step of one trial (created per trial by the caller's factory).
class StepObserver {
public:
    virtual ~StepObserver() = default;
    /// Called for k = 0 (the initial state, t = 0) and after every step k >= 1.
    virtual void on_step(std::int64_t k, double t, double rho, double nuisance_mass) = 0;
    /// Called once after the trial's last step.
    virtual void finish() {}
};
/// Makes the observer of trial `trial` (stream index), or nullptr.
using ObserverFactory = std::function<std::unique_ptr<StepObserver>(std::int64_t trial)>;

/// What one trial leaves behind.
struct TrialResult {
    std::uint64_t seed = 0;       ///< master seed of its stream
    std::int64_t trial = 0;       ///< stream index (the trial's stream is (seed, purpose, trial))
    double rho0 = 0;              ///< initial alignment
    double rho_final = 0;         ///< alignment after the last step
    double t_final = 0;           ///< ODE time sum eta_k at the end
    std::optional<std::int64_t> hit_step;  ///< first k with |rho_k| >= 1 - hit_eps
    std::vector<double> rho;      ///< rho at the ensemble's record steps
    std::vector<double> nuisance_mass;  ///< sample attention mass 1 - A_I on nuisance tokens of the draw made at each record step (the last draw for the final step)
    double mean_nuisance_mass_last_decile = 0;  ///< average sample nuisance mass over the last 10% of steps
    double mean_abs_rho_last_half = 0;  ///< time average of |rho_k| over the second half of the steps (a constant step's plateau)
};

/// Summary statistics of an ensemble.
struct EnsembleSummary {
    MeanCI abs_rho_final;         ///< mean |rho_final| with 95% CI
    MeanCI rho_final;             ///< mean rho_final with 95% CI
    std::vector<double> quantile_levels;  ///< 0.05, 0.25, 0.5, 0.75, 0.95
    std::vector<double> rho_final_quantiles;      ///< quantiles of rho_final
    std::vector<double> abs_rho_final_quantiles;  ///< quantiles of |rho_final|
    std::int64_t hits = 0;        ///< trials that reached |rho| >= 1 - hit_eps
    MeanCI hit_step;              ///< hit step among trials that hit (n = hits)
    double hit_step_median = 0;   ///< median hit step among trials that hit (0 if none)
    MeanCI nuisance_mass;         ///< mean over trials of the last-decile nuisance mass, 95% CI
    MeanCI abs_rho_last_half;     ///< mean over trials of the time-averaged |rho| of the second half, 95% CI
};

/// An ensemble's records and summary, with the parameters it was run with.
struct EnsembleResult {
    ModelParams model;                       ///< the model the trials ran on (not in its JSON: the document's "params" hold it)
    SgaParams sga;                           ///< the controls they ran with (not in its JSON: the document's "params" hold them)
    std::vector<std::int64_t> record_steps;  ///< steps at which rho was recorded (ascending)
    std::vector<double> record_times;        ///< their ODE times t_k
    std::vector<TrialResult> trials;         ///< by trial index
    std::vector<double> rho_finals;          ///< rho_final of every trial in trial order, also of those `trials` does not keep (what compare/outcomes.hpp assigns to basins)
    EnsembleSummary summary;                 ///< statistics across trials
    std::string warning;                     ///< the schedule's Robbins-Monro warning, if any
};

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const SgaParams& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, SgaParams& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const TrialResult& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, TrialResult& v);
/// JSON hooks: one key per field, plus "mean_abs_rho_final" and "ci95" (its 95% CI) at the top.
void to_json(nlohmann::json& j, const EnsembleSummary& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, EnsembleSummary& v);
/// JSON hooks: one key per field but `model` and `sga`, which the job's document records as its
/// "params" (sga.json's bytes predate them); whoever reads an ensemble back sets them from there
/// (experiment/jobs.hpp's result_from_document).
void to_json(nlohmann::json& j, const EnsembleResult& v);
/// Reads what to_json writes (a document without "rho_finals", written before it existed,
/// takes them from its trials); leaves `model` and `sga` as they were.
void from_json(const nlohmann::json& j, EnsembleResult& v);
/// "reduced" or "full".
void to_json(nlohmann::json& j, const SamplerKind& s);
/// Parses a sampler name.
void from_json(const nlohmann::json& j, SamplerKind& s);

/// What an ensemble keeps beyond its summary (which is always computed from every trial).
struct EnsembleOutput {
    bool records = true;  ///< each kept trial's rho and nuisance mass at the record steps
    std::int64_t trials = std::numeric_limits<std::int64_t>::max();  ///< keep the first this-many trials' results
    /// Everything: every trial with its records (documents, experiment cells, the comparator).
    static EnsembleOutput all() { return {}; }
    /// The summary and the first `n` trials without records (a readable table).
    static EnsembleOutput summary(std::int64_t n) { return {false, n}; }
};

/// Folds trials into an EnsembleSummary in trial order, keeping only what the quantiles need
/// (rho_final, and the hit step of trials that hit).
class SummaryBuilder {
public:
    /// Adds the next trial (in trial order).
    void add(const TrialResult& t);
    /// Adds the next trial's summary numbers (in trial order).
    void add(double rho_final, std::optional<std::int64_t> hit_step, double nuisance_mass, double abs_rho_last_half);
    /// The summary of everything added (the builder is left empty).
    EnsembleSummary finish();

private:
    RunningStats abs_rho_final_, rho_final_, hits_, mass_, half_;
    std::vector<double> rho_finals_, hit_steps_;
};

/// The record steps for `params`: 0, the log-spaced steps, the user's steps and `steps`.
std::vector<std::int64_t> record_steps_for(const SgaParams& params);

/// Runs the ensemble in this process: its trials cut into blocks (EnsembleBlocks), the units the
/// executor runs (exec/units.hpp). `progress`, if given, has its `done` incremented as steps
/// complete (its total is the caller's business). `keep` says which trials' results the result
/// holds (default: all, with their records).
EnsembleResult run_ensemble(const ModelParams& model, const SgaParams& params, ProgressCounter* progress = nullptr,
                            const EnsembleOutput& keep = {});

/// The same, collective under Execution::team (every rank must call it): the blocks are spread
/// over the ranks; the process that keeps results (rank 0; exec/units.hpp keeps_results) gets
/// the ensemble, the same bits as one process, the other ranks nothing.
std::optional<EnsembleResult> run_ensemble(Execution ex, const ModelParams& model, const SgaParams& params,
                                           ProgressCounter* progress = nullptr, const EnsembleOutput& keep = {});

/// The trials of `params` on this process's threads, each watched by the observer `observers`
/// makes for it (if given): the body of a unit (an EnsembleBlocks block, a comparison's trial
/// block), never spread.
EnsembleResult run_trials_here(const ModelParams& model, const SgaParams& params, ProgressCounter* progress,
                               const ObserverFactory& observers, const EnsembleOutput& keep = {});

/// The estimated cost of one SGA step, in token-steps: L for the reduced sampler, L d for the
/// full one, plus a fixed 50 for the step's own work. The one cost model of every unit that runs
/// trials (the executor hands out the largest units first).
double step_cost(const ModelParams& model, SamplerKind sampler) noexcept;

/// An ensemble cut into blocks of consecutive trials: the units of run_ensemble. A block's
/// trials are those of the whole ensemble (same streams); rank 0 accepts the blocks in any
/// order and folds them into the summary in trial order as soon as they are contiguous, so that
/// memory stays that of the trials not yet folded.
class EnsembleBlocks {
public:
    /// Validates and cuts into `blocks` blocks (clamped to 1 ... trials), and further so that no
    /// block holds more than 4096 trials; `keep` as for run_ensemble (a block then carries its
    /// trials without records, and rank 0 keeps their summary numbers only).
    EnsembleBlocks(const ModelParams& model, const SgaParams& params, std::int64_t blocks,
                   const EnsembleOutput& keep = {});
    /// Number of blocks.
    std::int64_t size() const noexcept { return static_cast<std::int64_t>(first_.size()); }
    /// What a block gives: its trials.
    using Output = std::vector<TrialResult>;
    /// What its units are called in messages.
    static const char* kind() noexcept { return "trials"; }
    /// Trials in block b.
    std::int64_t trials(std::int64_t b) const;
    /// SGA steps of block b (trials x steps).
    std::int64_t steps(std::int64_t b) const { return trials(b) * params_.steps; }
    /// Estimated cost of block b (token-steps).
    double cost(std::int64_t b) const;
    /// Runs block b; its trials.
    Output run(std::int64_t b, ProgressCounter* progress = nullptr) const;
    /// Takes block b's output (rank 0).
    void accept(std::int64_t b, Output output);
    /// The ensemble from every block's trials, summarised in trial order.
    EnsembleResult result();

private:
    void fold();  // folds the accepted blocks that follow the folded ones
    ModelParams model_;
    SgaParams params_;
    EnsembleOutput keep_;
    std::vector<std::int64_t> first_;
    std::vector<std::optional<std::vector<TrialResult>>> waiting_;  // accepted, not yet folded
    std::size_t folded_ = 0;  // blocks folded so far
    EnsembleResult out_;      // the folded blocks' kept trials and rho_finals
    SummaryBuilder summary_;
};

/// Summarises trials (used by run_ensemble; public for tests and for the comparator).
EnsembleSummary summarise(const std::vector<TrialResult>& trials);

}  // namespace rhoflow
