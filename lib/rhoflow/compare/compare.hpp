// The comparator, rhoflow's main job: the SGA ensemble against the mean-field ODE
// (../shared/spec/model.md section 7).
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
//    (about 1/2 for small eta0; larger eta0 add the O(eta) bias of the projection).
// Outputs: compare.json, tables (CSV, Markdown, LaTeX), figure data, gnuplot scripts, figures.
#pragma once

#include <atomic>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/stochastic/ensemble.hpp"
#include "rhoflow/field/field.hpp"
#include "rhoflow/model/model.hpp"
#include "rhoflow/io/plot.hpp"
#include "rhoflow/io/table.hpp"

namespace rhoflow {

/// Everything a comparison needs; fields map to `rhoflow compare` flags.
struct CompareParams {
    ModelParams model;                                 ///< the model
    NoiseConvention convention = NoiseConvention::per_coordinate;  ///< how sigma was given
    SgaParams sga;                                     ///< the ensemble (sampler, schedule, seed...)
    FieldMethod field = FieldMethod::exact;            ///< ODE field: exact or meanfield
    FieldTableParams table;                            ///< exact-field table accuracy
    double horizon = 10.0;                             ///< T of D_T, in ODE time
    int anchors = 24;                                  ///< anchors, geometric in t over [eta0, t_final - T]
    int rows = 14;                                     ///< rows of the ODE-vs-SGA table
    std::vector<double> study_eta0 = {0.08, 0.04, 0.02, 0.01, 0.005, 0.0025};  ///< step-size study (empty: none)
    std::int64_t study_trials = 100;                   ///< trials per eta0 in the study
    double study_horizon = 0.0;                        ///< t_study; 0 = 3 x the ODE hitting time, at least 5

    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// The embedded default experiment: d=50, L=1000, R=100, theta=sigma=beta=1; 30 trials of
/// 2 10^4 steps with eta_k = 0.01/(1 + k/5000) (ODE time 80), rho0 = 0.1, seed 1, exact field,
/// T = 10; step-size study over eta0 = 0.08 ... 0.0025 with 100 trials each.
CompareParams default_compare_params();

/// A finished comparison, ready to be written.
struct CompareResult {
    nlohmann::json doc;               ///< all numbers and parameters (compare.json)
    Table table;                      ///< ODE vs SGA on a time grid
    Table gap_table;                  ///< D_T statistics per anchor
    Table study_table;                ///< step-size study (empty when no study)
    std::string markdown;             ///< what the CLI prints: the table and the headline numbers
    std::vector<std::pair<std::string, std::string>> data_files;  ///< figure data: name, content
    std::vector<Figure> figures;      ///< gnuplot figures over those data files
};

/// Runs the comparison. `field`, if given, replaces the ODE's field (tests use a wrong one);
/// `progress`, if given, receives the total number of SGA steps and counts them.
CompareResult run_compare(const CompareParams& p, ProgressCounter* progress = nullptr,
                          const DriftField* field = nullptr);

/// Writes every output into `dir` (atomically, file by file) and renders the figures when
/// `render` and gnuplot is available. Returns a line per file group written.
std::vector<std::string> write_compare(const CompareResult& r, const std::filesystem::path& dir, bool render = true);

}  // namespace rhoflow
