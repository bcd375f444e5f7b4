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
// Internal to the experiment folder; not installed.
#pragma once

#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

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

}  // namespace rhoflow::detail
