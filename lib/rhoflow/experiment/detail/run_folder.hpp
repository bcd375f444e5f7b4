// A run's output folder read back as untrusted data (experiment/runner.hpp; docs/cli.md, "rhoflow
// run"): the folder and everything in it may have come from someone else, or been edited.
//  - cell names in a manifest are only acted on when they have the layout the runner writes,
//    TASK/KEY=VALUE_... or TASK/run (no absolute path, no "..", no other separator), with TASK a
//    task name that is not one of the run's own files;
//  - the folder holds only folders and regular files: a symbolic link (which rhoflow never
//    creates there), a FIFO or a device is refused, so nothing is followed out of the folder and
//    no read blocks;
//  - a manifest that is not the runner's shape, and a document that is not JSON, are IoErrors
//    naming the file, with the parser's description but not its exception text.
// And the run's folder as the runner builds it (experiment/runner.cpp runs the cells): where it
// is built (.OUT.partial, resumed or new), each cell written whole and recorded in the manifest,
// the results of an earlier run taken back, what the experiment no longer has removed, and the
// index and summaries written before the folder becomes OUT.
// Internal to the experiment folder; not installed.
#pragma once

#include <array>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "rhoflow/experiment/job_plan.hpp"
#include "rhoflow/experiment/runner.hpp"
#include "rhoflow/io/folder_lock.hpp"
#include "rhoflow/io/table_files.hpp"

namespace rhoflow::detail {

/// The run's manifest, at the top of the run's folder.
inline constexpr const char* kManifestFile = "manifest.json";
/// The run index, at the top of the run's folder.
inline constexpr const char* kIndexFile = "run.json";
/// Every file the runner writes at the top of the run's folder (the rest is in task folders),
/// which no task may be named: the manifest, the index and CITATION.bib (io/table_files.hpp).
inline constexpr std::array<const char*, 3> kRunFiles = {kManifestFile, kIndexFile, kCitationFile};

/// The run's own files as a message lists them: "manifest.json, run.json and CITATION.bib".
std::string run_file_list();

/// Whether `name` may name a task (its folder): 1 to 255 letters, digits, '_', '-', '.', not
/// starting with '.', and none of kRunFiles in any case (a case-insensitive file system would
/// take CITATION.BIB for it).
bool is_task_name(const std::string& name);

/// Whether `name` has the layout of a cell's folder: TASK/run or TASK/KEY=VALUE[_KEY=VALUE...]
/// (the second part starting with a letter, of letters, digits and ".+-_=", at most 255 bytes).
bool is_cell_name(const std::string& name);

/// Throws IoError unless `root` is a folder (not a symbolic link to one) holding only folders
/// and regular files, at any depth; the message names the offending entry.
void check_run_tree(const std::filesystem::path& root);

/// Reads a JSON document from the regular file `file` (no symbolic link followed); throws
/// IoError naming the file if it cannot be read or is not JSON.
nlohmann::json read_json_file(const std::filesystem::path& file);

/// Reads `file` as a run manifest: an object whose "cells" is an object of objects, each with
/// a string "status" and, where present, a boolean "figures". Throws IoError naming the file
/// and what is wrong otherwise.
nlohmann::json read_manifest(const std::filesystem::path& file);

/// The folder a run is built in, its manifest, and the lock that keeps other runs out of it.
struct RunFolder {
    std::unique_ptr<FolderLock> lock;  ///< the lock on OUT, held while the run lasts
    std::filesystem::path partial;     ///< .OUT.partial, where the run is built
    nlohmann::json manifest;           ///< the manifest, as read back or new
};

/// Locks OUT, then finds where to build the run: .OUT.partial, OUT moved back there, or a new folder.
RunFolder prepare_partial(const Experiment& e, const ExperimentOptions& o);

/// Whether the cells written now get their figures drawn: wanted, and gnuplot found.
bool draws_figures(const ExperimentOptions& o);

/// Writes one cell's outputs whole (a temporary folder renamed into place) into `partial`.
void write_cell(const ExperimentCell& c, const JobResult& r, const std::filesystem::path& partial, bool render,
                const Provenance& provenance);

/// The result of `c` that an earlier run completed with the same `params`, read back; none if none or unreadable.
std::optional<JobResult> earlier_result(const nlohmann::json& manifest, const ExperimentCell& c,
                                        const nlohmann::json& params, const std::filesystem::path& partial,
                                        const ExperimentOptions& o);

/// Records a cell's parameters and status (its error, whether figures were drawn) and rewrites the manifest.
void record(nlohmann::json& manifest, const std::filesystem::path& partial, const ExperimentCell& c,
            const nlohmann::json& params, const std::string& status, const std::string& error = "",
            bool figures = false);

/// Draws the figures of a cell taken from an earlier run that drew none, from its result `r`.
void draw_missing_figures(nlohmann::json& manifest, const std::filesystem::path& partial, const Experiment& e,
                          const ExperimentCell& c, const JobResult& r, const nlohmann::json& params,
                          const ExperimentOptions& o);

/// Removes the cells and tasks an earlier run recorded that `e` no longer has, inside `partial` only.
void drop_stale(nlohmann::json& manifest, const std::filesystem::path& partial, const Experiment& e,
                const std::function<void(const std::string&)>& log);

/// Writes run.json (with `execution`), the summaries and CITATION.bib, then renames `partial` to OUT.
void write_index(const Experiment& e, const std::filesystem::path& partial, const nlohmann::json& execution,
                 ExperimentResult& out, const Provenance& provenance, bool render);

/// Runs f, rethrowing a failure with the task and cell named (same exit-code category).
template <class F>
auto in_cell(const Experiment& e, const ExperimentCell& c, F&& f) -> decltype(f()) {
    return with_context(fmt::format("task '{}' cell {}", e.tasks[c.task].name, c.dir), std::forward<F>(f));
}

}  // namespace rhoflow::detail
