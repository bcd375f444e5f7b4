// The rhoflow command line: a thin layer over the library (see docs/cli.md).
#include <string>
#include <vector>

#include "cli.hpp"

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    return rhoflow::cli::dispatch(args);
}
