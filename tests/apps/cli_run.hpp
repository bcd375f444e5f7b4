// Runs the rhoflow command line in-process (rhoflow::cli::dispatch) and captures what it prints.
#pragma once

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"

namespace rhoflow::test {

/// The exit code and the captured standard output and error of one command line.
struct Run {
    int code = -1;       ///< exit code
    std::string out;     ///< what it printed on stdout
    std::string err;     ///< what it printed on stderr
};

/// Runs `args` (without the program name) through the command line's dispatch().
inline Run rhoflow_cli(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    auto* old_out = std::cout.rdbuf(out.rdbuf());
    auto* old_err = std::cerr.rdbuf(err.rdbuf());
    Run r;
    r.code = rhoflow::cli::dispatch(args);
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

}  // namespace rhoflow::test
