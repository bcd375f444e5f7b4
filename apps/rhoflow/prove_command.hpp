// `rhoflow prove` and `rhoflow field --rigorous`: the command-line side of the rigorous
// enclosures (lib/rhoflow/rigorous/, docs/cli.md "prove"). Kept apart from cli.cpp: the flags of
// `prove` map one to one onto ProveParams fields here (the model flags take ranges as `check`'s
// do); a bad flag throws InvalidArgument whose field is the flag, exit 2.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <string>

#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/rigorous/enclosure.hpp"

namespace rhoflow::cli {

/// What `rhoflow prove` collected from the command line.
struct ProveCommand {
    CLI::App* app = nullptr;                   ///< the subcommand
    std::map<std::string, std::string> texts;  ///< flag -> value text
    bool json = false;                         ///< --json
    bool quiet = false;                        ///< --quiet
    std::string output;                        ///< --output FILE (the certificate)
    std::string out;                           ///< --out DIR
    std::string verify;                        ///< --verify CERT
    bool verify_fast = false;                  ///< --verify-fast: recompute with the prover's own enclosure
    std::string command_line;                  ///< the whole command line (recorded in the certificate's provenance)
};

/// Registers `prove` and its flags.
void add_prove_command(CLI::App& app, ProveCommand& p);
/// Validates the flags (InvalidArgument naming the flag) and returns the work.
std::function<void()> prove_work(const ProveCommand& p);
/// The work of `rhoflow field --rigorous` for a validated field job (printing with --json or text);
/// NumericalError (exit 3) when an enclosure is wider than the field's size (raise the precision).
std::function<void()> rigorous_field_work(const FieldJob& job, const RigorousParams& rigorous, bool json,
                                          const std::string& command_line);

}  // namespace rhoflow::cli
