// The rhoflow command line: a thin layer over the library (see docs/cli.md).
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "rhoflow/io/interrupt.hpp"

int main(int argc, char** argv) {
    // First, before any thread starts: SIGINT/SIGTERM/SIGHUP then remove the partial output
    // (temporary files and folders), say so on stderr and exit with 128 + the signal number.
    try {
        rhoflow::enable_interrupt_cleanup("rhoflow");
    } catch (const std::exception& e) {
        std::cerr << "rhoflow: warning: " << e.what() << "; an interruption may leave temporary files\n";
    }
    std::vector<std::string> args(argv + 1, argv + argc);
    return rhoflow::cli::dispatch(args);
}
