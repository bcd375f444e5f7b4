// Experiment files (TOML): the runner behind `rhoflow run`.
//
//   title = "..."                  optional
//   out = "paper-out"              optional output folder (default: <file stem>-out)
//   [defaults]                     settings for every task that has them
//   [[task]]
//   name = "recovery"              optional (task1, task2, ...); letters, digits, '_', '-', '.'
//   command = "compare"            a job of experiment/job_table.hpp (field, ode, ..., check)
//   L = [1000, 3000]               a setting (experiment/settings.hpp); an array sweeps over its
//   theta = [0.25, 1.0]            values, several arrays over all combinations ([[...]] for
//                                  settings that take a list)
//
// read_experiment() turns the file (read_experiment_text() its text) into a typed, validated
// list of cells (one job per combination) before anything runs; every error names the file,
// line and key. run_experiment()
// runs the cells and writes OUT/<task>/<key=value...>/ (compare.json and the comparator's
// tables and figures, or result.json), OUT/<task>/summary.{csv,md,tex} and OUT/run.json.
//
// Whole-run atomicity and resumption: the run is built in the sibling folder .OUT.partial and
// renamed to OUT only when every cell is complete, so OUT is complete or absent. Each cell is
// written whole (to a temporary name, then renamed) and recorded in .OUT.partial/manifest.json
// as it finishes, with its parameters. Rerunning the same file after an interruption or a
// failure resumes from .OUT.partial (or from OUT itself, which is moved back to .OUT.partial
// while the rerun works): cells complete with identical parameters are not recomputed, cells
// whose parameters changed are. A failed cell is recorded as failed and named in the error.
// Cells taken from an earlier run that drew no figures get them drawn from their stored result;
// the folders of cells and tasks the file no longer has are removed (inside the run folder).
//
// One run at a time: run_experiment() holds a FolderLock (io/folder_lock.hpp) on OUT, taken
// before anything is read or moved, so a second run on the same OUT fails at once with
// FolderBusy naming the holder. What it reads back is untrusted (experiment/detail/
// run_folder.hpp): symbolic links, FIFOs and devices in OUT or .OUT.partial are refused, a
// manifest of another shape is an IoError naming it (OUT is not moved), manifest entries that are
// not cell names of the layout above are dropped and nothing is removed for them, and a cell
// document that cannot be read back is recomputed. The output folder is normalised ("o/." is
// "o"); a root directory, the working directory and a folder holding it are refused.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/experiment/settings.hpp"
#include "rhoflow/io/paper_table.hpp"
#include "rhoflow/io/table.hpp"

namespace rhoflow {

/// One setting of a task as the file gives it: one value, or the values it sweeps over.
struct TaskSetting {
    std::string key;                  ///< setting name (experiment/settings.hpp)
    int line = 0;                     ///< line in the file
    std::vector<std::string> values;  ///< value texts (more than one: a sweep): folder names, summaries, dry runs
    std::vector<SettingValue> typed;  ///< the same values as the setting takes them (what build_job sets)
};

/// One [[task]] of the file.
struct ExperimentTask {
    std::string name;                  ///< task name (folder name)
    std::string command;               ///< a job name (experiment/job_table.hpp)
    int line = 0;                      ///< line of its [[task]]
    std::vector<TaskSetting> settings; ///< defaults it takes, then its own keys
    std::vector<std::vector<std::string>> together;  ///< groups of swept keys that step together (`together = [...]`)
};

/// The sweep axes of a task: for each of its settings the axis it steps along (settings in one
/// `together` group share one), and each axis's number of values. Its cells are their product.
struct TaskAxes {
    std::vector<std::size_t> axis_of;  ///< per setting (index into ExperimentTask::settings)
    std::vector<std::size_t> size;     ///< per axis
};
/// The axes of task `t`.
TaskAxes task_axes(const ExperimentTask& t);
/// The keys that sweep together with `key` in task `t` (its `together` group without it; empty if none).
std::vector<std::string> partners_of(const ExperimentTask& t, const std::string& key);

/// One combination of one task: a validated job and where its output goes.
struct ExperimentCell {
    std::size_t task = 0;    ///< index into Experiment::tasks
    std::size_t index = 0;   ///< combination number within its task (0-based)
    std::vector<std::pair<std::string, std::string>> swept;  ///< swept keys and their value texts
    std::string dir;         ///< output folder relative to the run's: <task>/<key=value_...> or <task>/run
    Job job;                 ///< what to run
};

/// A parsed and validated experiment file.
struct Experiment {
    std::string file;                   ///< the file as given
    std::string title;                  ///< its title (may be empty)
    std::filesystem::path out;          ///< the output folder
    std::vector<ExperimentTask> tasks;  ///< its tasks
    std::vector<ExperimentCell> cells;  ///< all combinations, task by task
    std::uint64_t digest = 0;           ///< FNV-1a hash of the file's bytes (MPI ranks compare it)
    std::string sha256;                 ///< SHA-256 of the file's bytes (recorded in every output's provenance)
};

/// Limits of an experiment, so that reading one takes bounded time and memory whatever the file
/// says (20 keys sweeping over 10 values each would be 10^20 cells): read_experiment() refuses a
/// larger one with an InvalidArgument naming the limit.
inline constexpr std::size_t max_experiment_bytes = std::size_t{4} << 20;         ///< size of the file (4 MiB)
inline constexpr std::size_t max_experiment_cells = 10000;                       ///< cells of all tasks together
inline constexpr std::size_t max_experiment_value_bytes = std::size_t{16} << 20;  ///< setting values over all cells (16 MiB)

/// Reads, expands and validates an experiment file; `out`, if not empty, replaces the file's
/// output folder. Throws InvalidArgument with field "file" and a "FILE:LINE: key 'K': ..."
/// message on any error, a file that cannot be read included, and with field "out" when `out`
/// itself is refused (a root directory, the working directory or a folder that holds it).
/// Reads the file whole, then read_experiment_text().
Experiment read_experiment(const std::filesystem::path& file, const std::filesystem::path& out = {});

/// Parses, expands and validates the text of an experiment file named `name` (the name errors
/// give, Experiment::file, and the default output folder `<stem of name>-out`); `out`, if not
/// empty, replaces the output folder. Any text gives an Experiment or throws InvalidArgument with
/// field "file" and a "NAME:LINE: key 'K': ..." message (field "out" for a refused `out`); never
/// another exception.
Experiment read_experiment_text(std::string_view toml, const std::string& name,
                                const std::filesystem::path& out = {});

/// The single command line that reruns cell `c` alone: "rhoflow SUB --flag VALUE ..." with the
/// task's settings at the cell's values (a switch as its flag when true), each argument quoted
/// for a POSIX shell where it would be split or expanded (command_line_of, io/json.hpp). `rhoflow
/// run --dry-run` prints it; every cell's document records it (Provenance::cell_command_line).
std::string cell_command_line(const Experiment& e, const ExperimentCell& c);

/// The cells of a run, done and to do, for a display that polls them from another thread; the
/// totals are set before any cell runs.
struct CellCounter {
    std::atomic<std::int64_t> done{0};   ///< cells computed and written so far
    std::atomic<std::int64_t> total{0};  ///< cells this run computes (not those taken from an earlier run)
    std::atomic<double> work_done{0};    ///< the estimated work (JobPlan::cost) of the cells done
    std::atomic<double> work_total{0};   ///< the estimated work of the cells this run computes
};

/// How a run proceeds and reports.
struct ExperimentOptions {
    bool render_figures = true;                           ///< run gnuplot for compare cells
    std::function<void(const std::string&)> log;          ///< progress lines (none if empty)
    /// Counts the SGA steps of the cells this run computes (sga and compare cells), live: total
    /// set before any cell runs, done as the steps are taken (on other ranks: as units return).
    ProgressCounter* progress = nullptr;
    CellCounter* cells = nullptr;                         ///< counts the cells done (none if null)
    Execution execution = Execution::local;               ///< Execution::team: the cells' units shared by the ranks (collective)
    /// The run's provenance (command line, date); its experiment file and hash are the file's.
    /// Left default (no version), the runner makes one for "run" without command line.
    Provenance provenance;
};

/// What a finished run produced.
struct ExperimentResult {
    std::vector<JobResult> results;       ///< one per cell, in cell order
    std::vector<bool> resumed;            ///< whether each cell was taken from an earlier run
    std::map<std::string, Table> summaries;  ///< per task: swept values and headline numbers
    std::filesystem::path out;            ///< where everything is
};

/// Runs every cell (skipping those complete from an earlier run) and writes all outputs.
/// A failing cell stops the run: the error (NumericalError, ...) names the task and cell; the
/// completed cells stay recorded in .OUT.partial for the next run. FolderBusy if another
/// process runs into OUT; IoError for a run folder refused as described above.
ExperimentResult run_experiment(const Experiment& e, const ExperimentOptions& options = {});

/// The summary table of one task from its cells' results.
Table summary_table(const Experiment& e, std::size_t task, const std::vector<JobResult>& results);

/// The width of a task's paper tables: its jobs' --table-width (column for a job without one).
TableWidth task_table_width(const Experiment& e, std::size_t task);

/// The compact summary for a paper (summary.tex, summary.md), as the tables a paper shows: the
/// final alignment, the hitting times (a compare sweep's are sweep.tex's) and the rest, each
/// table the swept parameters and as many of the part's columns as fit `width`, each number with
/// its error (a column "X_err"/"X_se", or "ci95_lo"/"ci95_hi" after it, is the error of X, or of
/// the column before it when there is no X; standard errors printed as 95% half-widths), short
/// headers and a caption that says what each column is; labels paper_label("<run folder>-<task>",
/// "summary"), then "summary-2", ...
std::vector<PaperTable> summary_paper_tables(const Experiment& e, std::size_t task, const Table& summary,
                                             const TableWidth& width = {});

/// The sibling folder where a run into `out` is built: .NAME.partial next to it.
std::filesystem::path partial_folder(const std::filesystem::path& out);

}  // namespace rhoflow
