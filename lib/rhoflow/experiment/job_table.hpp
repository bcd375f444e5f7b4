// The one table of the kinds of job: for each, its name (the subcommand and the experiment
// file's `command`), its description (the subcommand's --help text), its settings (the table of
// experiment/settings.cpp), how it runs and how it writes its outputs. Everything that lists
// the jobs is derived from it: job_commands(), make_job(), command_of(), settings_for(), the
// command line's subcommands and help texts, the experiment reader's accepted commands and the
// "accepted: ..." lists of error messages. Adding a job: its params and result types
// (jobs.hpp, in Job and JobResult at the same position), their JSON hooks, a headline, a
// settings table, and one row here.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/experiment/settings.hpp"

namespace rhoflow {

/// One kind of job.
struct JobKind {
    std::string_view name;           ///< subcommand and [[task]] command ("field", "ode", ...)
    std::string_view description;    ///< the subcommand's --help text
    std::string_view document_file;  ///< its JSON document's file in an output folder
    Job (*make)();                   ///< a job with every default
    std::vector<Setting> (*settings)();  ///< builds its settings, in --help order (settings_for() keeps them)
    JobResult (*run)(const Job& job, ProgressCounter* progress, ResultDetail detail, Execution ex);  ///< runs a job of this kind (collective under Execution::team)
    /// Writes a finished job's outputs into a folder, as write_outputs() says (which has written
    /// CITATION.bib first when `citation`; `provenance` names the job's command).
    std::vector<std::string> (*write)(const Job& job, const JobResult& result, const std::filesystem::path& dir,
                                      bool render, const Provenance& provenance, const std::string& stem,
                                      bool citation);
};

/// Every kind of job, in the order of Job's alternatives (job_kinds()[job.index()] is the job's).
const std::array<JobKind, std::variant_size_v<Job>>& job_kinds();
/// The kind of a job.
const JobKind& kind_of(const Job& job);
/// The kind named `name`, or nullptr.
const JobKind* find_job_kind(std::string_view name);

}  // namespace rhoflow
