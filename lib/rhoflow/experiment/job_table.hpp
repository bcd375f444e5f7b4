// The one table of the kinds of job: for each, its name (the subcommand and the experiment
// file's `command`), its description (the subcommand's --help text), its settings (the table of
// experiment/settings.cpp), how it runs and how it writes its outputs. Everything that lists
// the jobs is derived from it: job_commands(), make_job(), command_of(), settings_for(), the
// command line's subcommands and help texts, the experiment reader's accepted commands and the
// "accepted: ..." lists of error messages, the Python module's functions. The built-in kinds
// are rows of job_table.cpp; a file may add a kind of its own with register_job()
// (experiment/register_job.hpp), which then runs from all of these without another edit.
// Adding a job: lib/rhoflow/README.md, "Adding a job".
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/experiment/settings.hpp"
#include "rhoflow/io/result_output.hpp"

namespace rhoflow {

/// What a kind added by register_job() does with its params and result, whose types only the
/// registering file knows (empty for the built-in kinds, which the variants Job and JobResult name).
struct JobOps {
    std::function<nlohmann::json(const RegisteredJob&)> params_json;                   ///< the params' JSON
    std::function<void(const nlohmann::json&, RegisteredJob&)> params_from_json;       ///< reads them back
    std::function<void(const RegisteredJob&)> validate;                                ///< the params' validate()
    std::function<nlohmann::json(const RegisteredResult&)> result_json;                ///< the result's JSON keys
    std::function<RegisteredResult(const nlohmann::json&)> result_from_json;           ///< reads them back
    std::function<const ModelParams*(const RegisteredJob&)> model;                     ///< its model (nullptr: none)
    std::function<std::string(const RegisteredJob&, const RegisteredResult&)> text;    ///< what the terminal shows
    std::function<std::vector<HeadlineRow>(const RegisteredJob&, const RegisteredResult&)> headline;  ///< summary rows
};

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
    std::string (*document_file)(const Job& job) = nullptr;  ///< its JSON document's file in an output folder
    std::function<Job()> make;       ///< a job with every default
    std::vector<Setting> (*settings)() = nullptr;  ///< builds its settings, in --help order (settings_for() keeps them)
    /// Runs a job of this kind (collective under Execution::team).
    std::function<JobResult(const Job& job, ProgressCounter* progress, ResultDetail detail, Execution ex)> run;
    /// Writes a finished job's outputs into a folder, as write_outputs() says (which has written
    /// CITATION.bib first when `citation`; `provenance` names the job's command).
    std::vector<std::string> (*write)(const Job& job, const JobResult& result, const std::filesystem::path& dir,
                                      bool render, const Provenance& provenance, const std::string& stem,
                                      bool citation) = nullptr;
    JobOps ops;                      ///< a registered kind's typed functions (empty for the built-in kinds)
};

/// Every kind of job: the built-in ones in the order of Job's alternatives (job_kinds()[job.index()]
/// is a built-in job's), then the registered ones in the order they were registered. Reading it
/// closes the table: register_job() throws std::logic_error afterwards.
const std::vector<JobKind>& job_kinds();
/// Adds a kind to the job table (register_job() fills `kind`'s make, run and ops from its types);
/// throws std::logic_error when the name is taken or the table was read already (register at
/// static initialisation). Returns true, for `static const bool registered = ...`.
bool register_job_kind(JobKind kind);
/// The kind of a job.
const JobKind& kind_of(const Job& job);
/// The kind named `name`, or nullptr.
const JobKind* find_job_kind(std::string_view name);

}  // namespace rhoflow
