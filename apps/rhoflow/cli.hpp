// The rhoflow command line: a thin layer over the library. Each job subcommand registers one
// flag per setting of its job (experiment/settings.hpp: the one table of flags, file keys and
// params fields), plus the output flags; `run` drives experiment files through the library's
// runner. Errors map to exit codes: 2 invalid input (the message names the flag and its range),
// 3 numerical failure, 1 anything else (files, gnuplot, ...).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rhoflow::cli {

/// The outcome of one command line: exit code (0 ok, 1 other, 2 invalid input, 3 numerical
/// failure), the error message, and the offending flag for code 2 when known.
struct Outcome {
    int code = 0;          ///< exit code
    std::string message;   ///< what failed (empty on success)
    std::string flag;      ///< the flag (without dashes) an invalid input came from
    std::uint64_t input_digest = 0;  ///< hash of the input file prepare read (run: the experiment file), 0 if none
    std::string input_file;          ///< that file's name as given
};

/// Parses `args` (without the program name) and validates them; on success `*work` receives
/// the function that runs the command. Help requests print and return code 0 with no work.
Outcome prepare(const std::vector<std::string>& args, std::function<void()>* work);
/// Runs prepared work, mapping exceptions to exit codes.
Outcome execute(const std::function<void()>& work);
/// prepare + execute, printing any error on stderr; returns the exit code. Under MPI the ranks
/// first check that they were given the same command line, and once prepared the same input
/// file bytes: otherwise every rank exits 2 and rank 0 names the first rank that differs.
int dispatch(const std::vector<std::string>& args);

/// What `rhoflow --version` prints: "rhoflow VERSION" and "commit SHA" (git rev-parse HEAD of
/// the source tree at build time, "unknown" outside git), noting uncommitted changes.
std::string version_text();

/// compare, check and prove: --out and --output checked before the work. A folder that holds the
/// working directory, and an --output inside the --out folder (which is replaced whole, `document`
/// with it), cannot be meant: InvalidArgument naming the flag (exit 2).
void check_out_flags(const std::string& folder, const std::string& output, const std::string& document);

/// Names of all subcommands, in the order of --help.
const std::vector<std::string>& command_names();

}  // namespace rhoflow::cli
