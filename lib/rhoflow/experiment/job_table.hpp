// The one table of the kinds of job: for each, its name (the subcommand and the experiment
// file's `command`), its description (the subcommand's --help text), its settings (the table of
// experiment/settings.cpp), how it runs and how it writes its outputs. Everything that lists
// the jobs is derived from it: job_commands(), make_job(), command_of(), settings_for(), the
// command line's subcommands and help texts, the experiment reader's accepted commands and the
// "accepted: ..." lists of error messages, the Python module's functions. Adding a job:
// lib/rhoflow/README.md, "Adding a job".
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
    std::string_view summary;        ///< one paragraph for the Python function's docstring
    std::string_view params_type;    ///< the struct the settings' fields are paths in (for their `///<` docs)
    std::string_view positional;     ///< setting keys Python takes by position, comma-separated ("rho0,t-end")
    bool progress = false;           ///< counts SGA steps as it runs (a progress bar is worth showing)
    bool figures = false;            ///< its outputs include figures (--no-figures; the runner redraws missing ones)
    std::string_view out_help;       ///< the --out flag's help ("" = the subcommand writes no folder)
    std::string_view default_out;    ///< the folder --out writes when not given ("" = none unless given)
    int file_indent = 2;             ///< indentation of its document in files (a certificate: 1)
    std::string (*document_file)(const Job& job);  ///< its JSON document's file in an output folder
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
