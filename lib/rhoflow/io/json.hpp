// JSON documents: the provenance every output carries and the check that keeps NaN and infinity
// out of them. The documents themselves are built from the nlohmann to_json hooks declared beside
// each params and result struct, so every output records all parameters by construction.
//
// Provenance: one struct, made once per command by its caller (the command line, the experiment
// runner, the Python module) and passed to the output code, which writes it as the top-level keys
// of every JSON document, into every CSV's sidecar (FILE.csv.meta.json), as comment lines at the
// top of every .tex, .md and figure script, and into each output folder's CITATION.bib.
// Documents written before the provenance held commit, command line and date read back all the
// same (from_json: those keys are optional; "program", "version" and "command" are required).
//
// Non-finite numbers are never written: ensure_finite() walks a document and throws
// NumericalError naming the first NaN or infinity by its JSON path (nlohmann::json would
// otherwise silently write null).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace rhoflow {

/// Where an output came from: the build, the command that made it, its input file and when.
struct Provenance {
    std::string program = "rhoflow";  ///< always "rhoflow" (documents are recognised by it)
    std::string version;              ///< the library's version (rhoflow::version)
    std::string commit = "unknown";   ///< git commit of the build ("unknown" outside git; "" if not recorded)
    bool commit_modified = false;     ///< the build had uncommitted changes to tracked files
    std::string command;              ///< the subcommand or job ("compare", "run", ...): documents' contract key
    std::string command_line;         ///< the full command line, quoted for a POSIX shell ("" if not recorded)
    std::string cell_command_line;    ///< a `run` cell's: the single `rhoflow SUB --flag ...` that reruns it alone ("" otherwise)
    std::string experiment_file;      ///< `run`: the experiment file as given ("" otherwise)
    std::string experiment_sha256;    ///< `run`: SHA-256 of that file's bytes, 64 hex digits ("" otherwise)
    std::string date;                 ///< when the command started, UTC ISO 8601 (2026-12-01T13:48:22Z)
};

/// The provenance of a command starting now in this build: version, commit, `command`, the
/// command line and the current UTC date (SOURCE_DATE_EPOCH, seconds since 1970, if set to an
/// integer: the reproducible-builds convention, so that reruns can be compared byte for byte).
Provenance make_provenance(const std::string& command, const std::string& command_line = "");
/// "rhoflow ARG..." with each argument quoted for a POSIX shell where needed ('...', with ' as '\'').
std::string command_line_of(const std::vector<std::string>& args, const std::string& program = "rhoflow");
/// The provenance as text lines ("rhoflow 0.1.0, commit ...", "command line: ...", a cell's "this
/// cell alone: ...", "experiment file: ... (sha256 ...)", "date: ..."), control characters shown as \n, \xHH: comment lines.
std::vector<std::string> provenance_lines(const Provenance& p);
/// BibTeX for an output folder's CITATION.bib: the software (version, commit) and the paper it
/// implements (docs/citing.md).
std::string citation_bib(const Provenance& p);
/// SHA-256 of bytes, as 64 lowercase hex digits (FIPS 180-4).
std::string sha256_hex(std::string_view bytes);

/// The keys of the struct, at the top level of a document (cell_command_line only when not empty,
/// so that a document outside a run is as before).
void to_json(nlohmann::json& j, const Provenance& p);
/// Reads what to_json writes; commit, command lines, experiment file and date may be missing
/// (older documents): they read as "".
void from_json(const nlohmann::json& j, Provenance& p);

/// The header of an output document: the provenance of `command` made now, without command line.
nlohmann::json provenance(const std::string& command);

/// Throws NumericalError naming the JSON path of the first non-finite number in `doc`.
void ensure_finite(const nlohmann::json& doc, const std::string& path = "");

}  // namespace rhoflow
