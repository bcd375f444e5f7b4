// Pieces shared by the subcommands: model flags, output flags, the registry of subcommands.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/field/field.hpp"
#include "rhoflow/model/model.hpp"

namespace rhoflow::cli {

/// --d --L --R --theta --sigma --beta --sigma-per-norm (defaults: the embedded default experiment).
struct ModelFlags {
    double d = 50, L = 1000, R = 100;  // taken as numbers so that 1e6 works; checked to be integers
    double theta = 1, sigma = 1, beta = 1;
    bool sigma_per_norm = false;

    /// Registers the flags on `app` with their defaults and meaning.
    void add(CLI::App& app);
    /// The validated model (throws InvalidArgument naming the flag).
    ModelParams model() const;
    /// The noise convention chosen.
    NoiseConvention convention() const;
};

/// --json and --output FILE.
struct OutputFlags {
    bool json = false;
    std::string output;

    /// Registers the flags on `app`.
    void add(CLI::App& app);
};

/// Checks `doc` for non-finite numbers (NumericalError), then writes it: to --output FILE
/// atomically, or to stdout as JSON (--json) or as the text `text()` renders.
void emit(const OutputFlags& out, const nlohmann::json& doc, const std::function<std::string()>& text);

/// --field, --threads, --table-tol, --table-points: the field the ODE uses and its Chebyshev table.
void add_ode_field_flags(CLI::App& app, std::string& field, FieldTableParams& table);

/// The ODE's field method from --field, validated for `model` and the table parameters (throws
/// InvalidArgument naming --field, or the parameter the exact method cannot take).
FieldMethod ode_field_method(const std::string& field, const ModelParams& model, const FieldTableParams& table);

/// Throws InvalidArgument unless `value` is an integer in [lo, hi]; returns it. `range` replaces
/// the default description of the accepted range in the message.
std::int64_t require_integer(const std::string& name, double value, double lo, double hi,
                             const std::string& range = "");

/// A subcommand: `prepare` validates the parsed flags (throwing InvalidArgument, doing no work)
/// and returns the function that does the work. Validation apart from work lets `rhoflow run`
/// check a whole experiment file before it runs any of it.
struct Command {
    CLI::App* app = nullptr;
    std::function<std::function<void()>()> prepare;
};

/// Registers each subcommand (one function per file cmd_*.cpp).
Command add_field_command(CLI::App& app);
Command add_ode_command(CLI::App& app);
Command add_phase_command(CLI::App& app);
Command add_sga_command(CLI::App& app);
Command add_compare_command(CLI::App& app);
Command add_check_command(CLI::App& app);

/// The command-line flag (without dashes) of a params-struct field path from InvalidArgument:
/// the one place where the library's field names meet the CLI's flag names.
std::string flag_for_field(const std::string& path);

/// Names of all subcommands, in the order of --help.
const std::vector<std::string>& command_names();

/// The outcome of one command line: exit code (0 ok, 1 other, 2 invalid input, 3 numerical
/// failure), the error message, and the offending parameter for code 2 when known.
struct Outcome {
    int code = 0;
    std::string message;
    std::string param;
};

/// Parses `args` (without the program name) and validates them; on success `*work` receives
/// the function that runs the command. Help requests print and return code 0 with no work.
Outcome prepare(const std::vector<std::string>& args, std::function<void()>* work);
/// Runs prepared work, mapping exceptions to exit codes.
Outcome execute(const std::function<void()>& work);
/// prepare + execute, printing any error on stderr; returns the exit code.
int dispatch(const std::vector<std::string>& args);
/// Registers the experiment-file subcommand (cmd_run.cpp).
Command add_run_command(CLI::App& app);

}  // namespace rhoflow::cli
