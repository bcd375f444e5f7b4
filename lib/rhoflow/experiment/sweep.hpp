// Summaries across the cells of a sweep (`rhoflow run`): for a task whose settings range over
// several values, what a paper shows of it, with the cells paired by the runner instead of by
// hand. For compare and sga tasks, per ranged key K:
//  - sweep_K.dat: one block per combination of the other ranged keys (gnuplot `index`), one row
//    per value of K: the SGA mean of |rho_final| with its 95% CI, the ODE's |rho| at the end,
//    the effective dynamics' prediction with its error, and the hitting times (SGA mean and CI,
//    ODE, prediction; '?' where not reached);
//  - fig_final_K: final alignment against K, one curve per value of the others (SGA with CI,
//    prediction dashed); fig_hit_K (compare tasks): hitting time against K likewise;
//  - for step-size sweeps (eta0, k0 or gamma ranged, compare tasks): fig_plateau_eta_final, the
//    final alignment against the last step size eta_final with the effective attractor
//    rho*(eta_final) (the plateau), from sweep_eta_final.dat;
//  - sweep.tex and sweep.md: one row per cell, every value as value +- error rounded to its error
//    (io/uncertain.hpp), the ranged keys first.
// The values are the cells' own results (nothing recomputed). Tasks without ranged keys, or of
// other commands, get nothing (an empty summary).
// Reference: docs/cli.md, "rhoflow run", Across a sweep.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "rhoflow/experiment/runner.hpp"
#include "rhoflow/io/plot.hpp"

namespace rhoflow {

/// What a task's sweep summary writes: data and table files, and figures over the data.
struct SweepSummary {
    std::vector<std::pair<std::string, std::string>> files;  ///< (file name, content): .dat, sweep.tex, sweep.md
    std::vector<Figure> figures;                               ///< fig_final_K, fig_hit_K, fig_plateau_eta_final
};

/// The sweep summary of task `task` from its cells' results (`results` in cell order); for a
/// prove or threshold task, its atlas_summary().
SweepSummary sweep_summary(const Experiment& e, std::size_t task, const std::vector<JobResult>& results);

/// The atlas of a swept prove task (atlas.{md,tex,dat}, fig_atlas: the map of verdicts) or
/// threshold task (thresholds.{md,tex}: the brackets side by side); empty for other tasks
/// (experiment/atlas.cpp).
SweepSummary atlas_summary(const Experiment& e, std::size_t task, const std::vector<JobResult>& results);

/// The name that labels a task's sweep table and figures in LaTeX: "<run folder>-<task>", so
/// that two runs' summaries in one paper do not share a label.
std::string sweep_stem(const Experiment& e, const ExperimentTask& t);

}  // namespace rhoflow
