// The outputs of the smaller results (field, ODE, phase portrait, SGA ensemble, stationary law),
// made from their typed results and the parameters that produced them, and nothing else: the
// text `rhoflow SUB` prints, the headline row of a sweep's summary table (for these and for the
// comparison and the check), the layout of a result's JSON document, and the stationary law's
// compact table for papers and its output files. The experiment's jobs (experiment/jobs.hpp)
// call these with their fields; nothing here knows a job, a flag or a file format beyond io's.
// When it fails: result_document and write_stationary throw what nlohmann and write_file_atomic
// throw; the others do not fail.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rhoflow/check/check.hpp"
#include "rhoflow/compare/compare.hpp"
#include "rhoflow/compare/outcomes.hpp"
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/field/field.hpp"
#include "rhoflow/field/montecarlo_field.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/io/paper_table.hpp"
#include "rhoflow/io/table.hpp"
#include "rhoflow/model/model.hpp"
#include "rhoflow/model/update_rule.hpp"
#include "rhoflow/ode/ode.hpp"
#include "rhoflow/ode/phase.hpp"
#include "rhoflow/effective/stationary.hpp"
#include "rhoflow/stochastic/ensemble.hpp"

namespace rhoflow {

// ------------------------------------------------------------------------- printed text

/// What `rhoflow field` prints: a header naming the method and model, then rho, j, j', F and
/// E[A_I] with their errors per point, and (Monte Carlo) the per-sample gradient's moments.
std::string field_text(const ModelParams& model, FieldMethod method, const MonteCarloParams& montecarlo,
                       const std::vector<FieldPoint>& points, const std::vector<GradientMoments>& gradient);
/// What `rhoflow ode` prints: the field, the integrator's work, the hitting time of each solution
/// (from rho0[0], rho0[1], ...: `solution` then `others`) and the table t, rho +- error.
std::string ode_text(const ModelParams& model, const std::vector<double>& rho0, double t_end, const OdeParams& ode,
                     const DriftFieldInfo& field, const OdeSolution& solution, const std::vector<OdeSolution>& others);
/// What `rhoflow phase` prints: monotone or not, the equilibria with F'(rho), the basins.
std::string phase_text(const ModelParams& model, const DriftFieldInfo& field, const PhasePortrait& portrait);
/// What `rhoflow sga` prints: the ensemble's summary, its outcomes per ODE basin (or why there
/// are none: `outcomes_note`) and, for 50 trials or fewer, one line per trial.
std::string sga_text(const ModelParams& model, const SgaParams& sga, const EnsembleResult& ensemble,
                     const std::optional<OutcomeSummary>& outcomes, const std::string& outcomes_note);
/// What `rhoflow stationary` prints: per effective attractor the chain's law (mean, sd, tail,
/// quantiles, escapes) beside the diffusion approximation's, the top-level (9.5) law near +1,
/// the equilibria of the effective drift, and the method.
std::string stationary_text(const ModelParams& model, double eta, UpdateRule update, const StationaryLaw& law);

// ------------------------------------------------------------------------- headline rows

/// One row of a sweep's summary table: (column name, cell) pairs.
using HeadlineRow = std::vector<std::pair<std::string, TableCell>>;

/// One row per point: at_rho, j, j_err, dj, dj_err, mass_informative.
std::vector<HeadlineRow> field_headline(const std::vector<FieldPoint>& points);
/// hit_time, rho_end, rho_end_err of a solution.
HeadlineRow ode_headline(const OdeSolution& solution);
/// monotone, equilibria, attractors (the stable equilibria, space-separated).
HeadlineRow phase_headline(const PhasePortrait& portrait);
/// The summary's mean |rho_final| with its CI, time average, nuisance mass, hits and the
/// outcomes per basin as one comma-free cell ("" without outcomes).
HeadlineRow sga_headline(const EnsembleSummary& summary, const std::optional<OutcomeSummary>& outcomes);
/// The measured and ODE numbers, hitting times, outcomes and (with the effective dynamics and
/// its verdict) the prediction beside them.
HeadlineRow compare_headline(const CompareResult& r);
/// mean_abs_rho, sd, rho_star with their errors and the plain ODE's attractor ((9.5) near +1),
/// then the chain's mean |rho|, 99.9% quantile and tail there with their errors, and the number of attractors.
HeadlineRow stationary_headline(const StationaryLaw& law);
/// verdict, points, holds, fails, undecided, min_margin and the witness (comma-free).
HeadlineRow check_headline(const CheckResult& r);

// ------------------------------------------------------------------------- documents and files

/// A result's JSON document: the provenance's keys, "model", "params" (the whole job), then the
/// result's own keys (which may replace any of those). Not yet checked for non-finite numbers.
nlohmann::json result_document(const Provenance& provenance, const ModelParams& model, const nlohmann::json& params,
                               const nlohmann::json& result);

/// The compact table of a stationary law for a paper (stationary.tex, stationary.md): one row per
/// effective attractor with the chain's mean, sd, 0.1% and 99.9% quantiles and tail, (9.5)'s mean
/// and the plain ODE's attractor; without the chain (--no-chain, older documents) E|rho| and its sd
/// by (9.5) near +1 as before; the columns that fit `width`, errors as 95% half-widths (1.96 x
/// the law's errors); label paper_label(stem, "stationary").
PaperTable stationary_paper_table(const ModelParams& model, const StationaryLaw& law, const std::string& stem,
                                  const TableWidth& width = {});
/// Writes DIR/FILE (the document `doc`), DIR/stationary.md and DIR/stationary.tex (each
/// recording `provenance`; the table for `tables`'s width).
void write_stationary(const ModelParams& model, const StationaryLaw& law, const nlohmann::json& doc,
                      const std::filesystem::path& dir, const std::string& file, const Provenance& provenance,
                      const std::string& stem, const TableParams& tables = {});

}  // namespace rhoflow
