// The library's units of work, one per subcommand of the command line: a job is a params
// struct that says everything a run needs, `run` turns it into a typed result, and
// `document` turns both into the JSON document that `rhoflow SUB --json` prints and that the
// experiment runner writes (provenance, "model", "params": the whole job, then the result's
// keys). The command line and experiment files set jobs' fields by name through
// experiment/settings.hpp; nothing here knows about flags or files.
#pragma once

#include <any>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rhoflow/check/check.hpp"
#include "rhoflow/compare/compare.hpp"
#include "rhoflow/compare/outcomes.hpp"
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/field/field.hpp"
#include "rhoflow/field/montecarlo_field.hpp"
#include "rhoflow/io/paper_table.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/io/plot.hpp"
#include "rhoflow/io/table.hpp"
#include "rhoflow/model/model.hpp"
#include "rhoflow/ode/ode.hpp"
#include "rhoflow/ode/phase.hpp"
#include "rhoflow/effective/stationary.hpp"
#include "rhoflow/prove/prove.hpp"
#include "rhoflow/prove/verify.hpp"
#include "rhoflow/rigorous/enclosure.hpp"
#include "rhoflow/stochastic/ensemble.hpp"

namespace rhoflow {

/// j, j', F and E[A_I] at a list of rho by one method.
struct FieldJob {
    ModelParams model;                           ///< the model
    std::vector<double> rho = {0.0};             ///< alignments in [-1, 1]
    FieldMethod method = FieldMethod::exact;     ///< how the field is computed
    ExactFieldParams exact;                      ///< accuracy of the exact method
    MonteCarloParams montecarlo;                 ///< samples, seed and threads of the Monte Carlo method
    bool rigorous = false;                       ///< guaranteed enclosures of the exact field (ball arithmetic) instead of estimates
    RigorousParams rigorous_params;              ///< with rigorous: the balls' precision and truncation target
    /// Throws InvalidArgument naming the field (path) out of range.
    void validate() const;
};
/// What a field job computes.
struct FieldJobResult {
    FieldMethod method = FieldMethod::exact;     ///< the method used
    std::vector<FieldPoint> points;              ///< one per rho, with error estimates (empty when rigorous)
    std::vector<GradientMoments> gradient;       ///< montecarlo only: E g_u, E g_v, E|g_w|^2 per rho
    std::vector<FieldEnclosure> enclosures;      ///< rigorous only: guaranteed enclosures per rho
};

/// The mean-field ODE from one or several rho0, at output times: an even grid on [0, t_end],
/// a log-spaced one (t_log), or given times.
struct OdeJob {
    ModelParams model;                           ///< the model
    std::vector<double> rho0 = {0.05};           ///< initial alignments, one solution each (1 ... 1000 values)
    double t_end = 50;                           ///< final ODE time (of the even and the log-spaced grid)
    int points = 101;                            ///< output times, evenly spaced on [0, t_end] (unless t_log or times)
    int t_log = 0;                               ///< > 0: t = 0 and t_log times log-spaced on [t_end / 1e4, t_end] instead
    std::vector<double> times;                   ///< given output times (ascending, >= 0) instead of a grid; empty: a grid
    DriftMethod field = DriftMethod::exact;      ///< the field driving the ODE
    FieldTableParams table;                      ///< exact-field table accuracy
    OdeParams ode;                               ///< integrator tolerances and hitting level
    /// Throws InvalidArgument naming the field (path) out of range.
    void validate() const;
    /// The output times: `times`, else the log-spaced grid (t_log > 0), else the even one.
    std::vector<double> output_times() const;
};
/// The solutions with the field that drove them.
struct OdeJobResult {
    DriftFieldInfo field;                        ///< method and error bounds of the field
    OdeSolution solution;                        ///< from rho0[0]: t, rho, rho_err, hit_time, work counts
    std::vector<OdeSolution> others;             ///< from rho0[1], rho0[2], ... (empty for one rho0)
};

/// The phase portrait of the ODE.
struct PhaseJob {
    ModelParams model;                           ///< the model
    DriftMethod field = DriftMethod::exact;      ///< the field
    FieldTableParams table;                      ///< exact-field table accuracy
    PhaseParams phase;                           ///< scan resolution
    /// Throws InvalidArgument naming the field (path) out of range.
    void validate() const;
};
/// The portrait with the field it describes.
struct PhaseJobResult {
    DriftFieldInfo field;                        ///< method and error bounds of the field
    PhasePortrait portrait;                      ///< equilibria, stability, basins
};

/// An ensemble of SGA trials.
struct SgaJob {
    ModelParams model;                           ///< the model
    SgaParams sga;                               ///< trials, steps, schedule, sampler, seed...
    /// Throws InvalidArgument naming the field (path) out of range.
    void validate() const;
};

/// An ensemble with where its trials ended, basin by basin of the mean-field ODE (the exact
/// field's phase portrait, compare/outcomes.hpp).
struct SgaJobResult {
    EnsembleResult ensemble;                  ///< trials, records, summary
    std::optional<DriftFieldInfo> field;      ///< the field whose phase portrait gave the basins (empty: see outcomes_note)
    std::optional<OutcomeSummary> outcomes;   ///< trials per ODE basin (empty when the field or its portrait failed, or on an MPI rank other than 0)
    std::string outcomes_note;                ///< why there are no outcome statistics ("" when there are)
};

/// The comparator (CompareParams is its job; default_compare_params() its defaults).
struct CompareJob {
    CompareParams compare = default_compare_params();  ///< everything the comparison needs
    FigureParams figure;                               ///< size of its figures (outputs only)
    TableParams tables;                                ///< width of its paper tables (outputs only)
    /// Throws InvalidArgument naming the field (path) out of range.
    void validate() const;
};

/// The predicted stationary law of the constant-step chain (effective/stationary.hpp).
struct StationaryJob {
    ModelParams model;                           ///< the model
    double eta = 0.01;                           ///< the constant step, 0 < eta <= 1e100
    UpdateRule update = UpdateRule::normalized;  ///< the update rule
    StationaryParams stationary;                 ///< moment table, field, quadrature, bootstrap
    TableParams tables;                          ///< width of its paper table (outputs only)
    /// Throws InvalidArgument naming the field (path) out of range.
    void validate() const;
};

/// A claim decided over a box of model parameters (check/check.hpp).
struct CheckJob {
    CheckParams check;          ///< claim, box, grid, certification
    BoxScales scale;            ///< spacing of the ranges: log | linear | auto, or per parameter (theta=linear,R=log)
    std::string x_axis;         ///< the phase diagram's horizontal axis ("" = the first ranged parameter)
    FigureParams figure;        ///< size of the phase diagram (outputs only)
    TableParams tables;         ///< width of its paper table (outputs only)
    /// Throws InvalidArgument naming the field (path) out of range.
    void validate() const;
    /// The x_axis as an Axis index, -1 for the first ranged one (InvalidArgument if not ranged).
    int x_axis_index() const;
};

/// A claim proved rigorously over a box of models (prove/prove.hpp), or, with `verify`, a
/// certificate re-checked by the independent checker (prove/verify.hpp).
struct ProveJob {
    ProveParams prove;            ///< claim, box, precision, search limits, threads
    std::string verify;           ///< a certificate file (untrusted) to re-check instead of proving ("" = prove)
    bool verify_fast = false;     ///< with verify: recompute each cell by the prover's own enclosure
    /// Throws InvalidArgument naming the field (path) out of range; with verify, naming a proof
    /// setting given a value other than its default (the certificate says everything).
    void validate() const;
};
/// What a prove job gives: the proof, or the checker's report on a certificate.
struct ProveJobResult {
    std::optional<ProveResult> proof;          ///< the search's result (prove)
    std::optional<VerifyReport> verification;  ///< the checker's report (verify; valid, since an invalid certificate throws)
};

struct JobKind;
/// A job of a kind added to the job table by register_job() (experiment/register_job.hpp): its
/// row and its params struct, whose type only the file that registered it knows.
struct RegisteredJob {
    const JobKind* kind = nullptr;  ///< its row of the job table
    std::any params;                ///< its params struct (the type register_job was given)
    /// Throws InvalidArgument naming the field (path) out of range (the params' own validate()).
    void validate() const;
};
/// What a registered job gives: its result struct, of the type register_job was given.
struct RegisteredResult {
    const JobKind* kind = nullptr;  ///< the row of the job that made it
    std::any value;                 ///< its result struct
};

/// The position of T among the alternatives of the variant V.
template <class T, class V, std::size_t I = 0>
constexpr std::size_t variant_index() {
    if constexpr (std::is_same_v<std::variant_alternative_t<I, V>, T>) return I;
    else return variant_index<T, V, I + 1>();
}

/// Any job, and any job's result (same alternative order).
using Job = std::variant<FieldJob, OdeJob, PhaseJob, SgaJob, CompareJob, StationaryJob, CheckJob, ProveJob,
                         RegisteredJob>;
/// The result of the job in the same position of Job.
using JobResult = std::variant<FieldJobResult, OdeJobResult, PhaseJobResult, SgaJobResult, CompareResult,
                               StationaryLaw, CheckResult, ProveJobResult, RegisteredResult>;

/// The result type of a job type.
template <class J>
using ResultOf = std::variant_alternative_t<variant_index<J, Job>(), JobResult>;

/// Calls f(job, result) with the concrete types of a job and of its result.
template <class F>
decltype(auto) visit_job(const Job& job, const JobResult& result, F&& f) {
    return std::visit([&](const auto& j) -> decltype(auto) {
        return f(j, std::get<ResultOf<std::decay_t<decltype(j)>>>(result));
    }, job);
}

/// The subcommand name of a job (its row of experiment/job_table.hpp).
std::string_view command_of(const Job& job);
/// A default job for a subcommand name; throws InvalidArgument naming "command" (and every
/// job's name) otherwise.
Job make_job(std::string_view command);
/// The names make_job accepts, in the order of the Job alternatives (experiment/job_table.hpp).
const std::vector<std::string>& job_commands();
/// job_commands() joined by `separator` ("field, ode, ..." or "field|ode|..."), for messages and help.
std::string job_command_list(std::string_view separator = ", ");
/// The job's model (nullptr for a check job, which ranges over a box of models).
const ModelParams* model_of(const Job& job);
/// The file a job reads besides its settings ("" for none): a re-checked certificate. A rerun
/// of an experiment recomputes such a cell rather than resume it (the file may have changed).
std::string input_file_of(const Job& job);
/// Validates any job (InvalidArgument naming the field path).
void validate(const Job& job);

/// How much of a result its caller needs.
enum class ResultDetail {
    full,    ///< everything the document holds (documents, experiment cells)
    summary  ///< what the readable text shows: an ensemble keeps its summary and the first 50 trials, without records
};

/// Runs a job in this process: its plan (experiment/job_plan.hpp) in a team of one; `progress`
/// (optional) counts SGA steps for long jobs.
JobResult run(const Job& job, ProgressCounter* progress = nullptr, ResultDetail detail = ResultDetail::full);
/// Runs a job's plan, collective under Execution::team (every rank must call it): its units
/// shared by the ranks (a job that runs whole runs on every rank, spreading its own points);
/// the process that keeps results (rank 0) gets the result, the other ranks nothing.
std::optional<JobResult> run(Execution ex, const Job& job, ProgressCounter* progress = nullptr,
                             ResultDetail detail = ResultDetail::full);
/// Runs one kind of job.
FieldJobResult run(const FieldJob& job);
/// Runs one kind of job.
OdeJobResult run(const OdeJob& job);
/// Runs one kind of job.
PhaseJobResult run(const PhaseJob& job);
/// Runs one kind of job (with ResultDetail::summary: the summary and the first 50 trials, no
/// records), then assigns every trial to its ODE basin.
SgaJobResult run(const SgaJob& job, ProgressCounter* progress = nullptr, ResultDetail detail = ResultDetail::full);
/// The ensemble of `job` with its outcome statistics: the exact field's phase portrait and every
/// trial's basin (the outcomes stay empty, with a note, when the field refuses the model).
SgaJobResult with_outcomes(const SgaJob& job, EnsembleResult ensemble);
/// Runs one kind of job.
CompareResult run(const CompareJob& job, ProgressCounter* progress = nullptr);
/// Runs one kind of job.
StationaryLaw run(const StationaryJob& job);
/// Runs one kind of job.
CheckResult run(const CheckJob& job, Execution ex = Execution::local);
/// Runs one kind of job: the proof search, or the checker on the certificate file (read as
/// untrusted data; InvalidArgument naming "verify", with every error, when it does not check;
/// under Execution::team only the process that keeps results throws it, the others return their report).
ProveJobResult run(const ProveJob& job, Execution ex = Execution::local);

/// The JSON document of a finished job: the provenance's keys (its "command" set to the job's),
/// "model", "params" (the job), the result's keys (a check: its certificate, io/check_output.hpp);
/// checked for non-finite numbers (NumericalError naming the path).
nlohmann::json document(const Job& job, const JobResult& result, const Provenance& provenance);
/// Reads a job's result back from its document (the experiment runner resumes from these); an
/// sga result's ensemble gets its model and sga from the job (the document's "params").
JobResult result_from_document(const Job& job, const nlohmann::json& doc);
/// Reads a job's result back from its JSON hooks (what `nlohmann::json(result)` gives).
JobResult result_from_json(const Job& job, const nlohmann::json& j);
/// The job a document records (its command and "params"; a proof certificate: its "params"),
/// validated; InvalidArgument or a JSON exception when it records none.
Job job_from_document(const nlohmann::json& doc);
/// The provenance a document records (a certificate: under "provenance"); a document without
/// one gives an empty provenance naming only the job's command.
Provenance provenance_of_document(const Job& job, const nlohmann::json& doc);
/// Throws InvalidArgument naming the JSON path where a result read back does not fit its job:
/// an ensemble's trial count, record steps, trial streams and hit steps, and its summary and
/// rho_finals recomputed from its trials; a field's points and an ODE's solutions per rho0.
void check_result_fits(const Job& job, const JobResult& result);

/// The headline numbers of a finished job for a sweep's summary table: one row of (column
/// name, cell) per result (field: one per rho).
std::vector<std::vector<std::pair<std::string, TableCell>>> headline(const Job& job, const JobResult& result);

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const FieldJob& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, FieldJob& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const FieldJobResult& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, FieldJobResult& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const OdeJob& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, OdeJob& v);
/// The solution's keys (t, rho, rho_err, hit_time, ...) and "field".
void to_json(nlohmann::json& j, const OdeJobResult& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, OdeJobResult& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const PhaseJob& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, PhaseJob& v);
/// The portrait's keys (equilibria, basins, monotone, ...) and "field".
void to_json(nlohmann::json& j, const PhaseJobResult& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, PhaseJobResult& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const SgaJob& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, SgaJob& v);
/// The ensemble's keys (trials, summary, ...), "field", "outcomes" and "outcomes_note".
void to_json(nlohmann::json& j, const SgaJobResult& v);
/// Reads what to_json writes (a document without "outcomes", written before them, has none).
void from_json(const nlohmann::json& j, SgaJobResult& v);
/// JSON hooks: the CompareParams' keys.
void to_json(nlohmann::json& j, const CompareJob& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, CompareJob& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const StationaryJob& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, StationaryJob& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const CheckJob& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, CheckJob& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const ProveJob& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, ProveJob& v);
/// JSON hooks: one key per field (null when absent).
void to_json(nlohmann::json& j, const ProveJobResult& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, ProveJobResult& v);

/// JSON hooks: the params' own (its kind's row converts them).
void to_json(nlohmann::json& j, const RegisteredJob& v);
/// Reads what to_json writes into a job of the same kind (v.kind set, as make_job sets it).
void from_json(const nlohmann::json& j, RegisteredJob& v);
/// JSON hooks: the result's own keys.
void to_json(nlohmann::json& j, const RegisteredResult& v);

/// The name of the file holding a job's document in an output folder (its JobKind's): compare.json
/// for a comparison, check.json for a check, certificate.json for a proof, verification.json for
/// a certificate re-checked, result.json otherwise.
std::string document_file(const Job& job);
/// The document as its files hold it: indented by the kind's file_indent (a certificate: 1).
std::string document_text(const Job& job, const nlohmann::json& doc);
/// Writes a finished job's outputs into the folder `dir`: the comparator's or the check's whole
/// output (tables, figures: rendered when `render`), or the document alone; each records
/// `provenance`. `stem` (the output folder's or sweep cell's name) makes the tables' LaTeX labels
/// unique (docs/cli.md, "Tables for papers"; "" = "rhoflow"). With `citation`, also
/// DIR/CITATION.bib. Returns a line per file group written.
std::vector<std::string> write_outputs(const Job& job, const JobResult& result, const std::filesystem::path& dir,
                                       bool render, const Provenance& provenance, const std::string& stem = "",
                                       bool citation = true);
/// The writer of jobs whose output is their document alone (field, ode, phase, sga).
std::vector<std::string> write_document_output(const Job& job, const JobResult& result, const std::filesystem::path& dir,
                                               bool render, const Provenance& provenance, const std::string& stem,
                                               bool citation);
/// The writer of a comparison: compare.json, its tables and figures (io/compare_output.hpp).
std::vector<std::string> write_compare_outputs(const Job& job, const JobResult& result, const std::filesystem::path& dir,
                                               bool render, const Provenance& provenance, const std::string& stem,
                                               bool citation);
/// The writer of a stationary law: result.json and stationary.{md,tex}.
std::vector<std::string> write_stationary_outputs(const Job& job, const JobResult& result,
                                                  const std::filesystem::path& dir, bool render,
                                                  const Provenance& provenance, const std::string& stem, bool citation);
/// The writer of a proof: certificate.json and summary.md (a certificate re-checked: verification.json).
std::vector<std::string> write_prove_outputs(const Job& job, const JobResult& result, const std::filesystem::path& dir,
                                             bool render, const Provenance& provenance, const std::string& stem,
                                             bool citation);
/// The writer of a check: check.json, points.{csv,md,tex} and the phase diagram.
std::vector<std::string> write_check_outputs(const Job& job, const JobResult& result, const std::filesystem::path& dir,
                                             bool render, const Provenance& provenance, const std::string& stem,
                                             bool citation);

}  // namespace rhoflow
