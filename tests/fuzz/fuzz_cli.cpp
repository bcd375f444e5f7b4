// libFuzzer target: the command-line parser. The input is an argument vector, arguments
// separated by NUL bytes (without the program name); rhoflow::cli::prepare() must return exit
// code 0 (help or valid), 2 (invalid input, with a message) or 1 (a file problem, e.g. an output
// folder in the way), never throw, crash or trip a sanitizer. The work it prepares is never run.
//
// stdin comes from /dev/null and stdout (help texts) goes to /dev/null. prepare only reads and
// examines paths (run's experiment file, compare's --out), relative to the working folder; it
// writes nothing.
//
//   build-fuzz/fuzz/rhoflow_fuzz_cli -dict=tests/fuzz/cli.dict tests/fuzz/corpus/cli
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fcntl.h>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

#include "cli.hpp"

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail) {
    std::fprintf(stderr, "rhoflow_fuzz_cli: %s: %s\n", what, detail.c_str());
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    const int null = ::open("/dev/null", O_RDWR);
    if (null < 0 || ::dup2(null, 0) < 0 || ::dup2(null, 1) < 0) finding("cannot redirect stdin/stdout", "/dev/null");
    ::close(null);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args;
    if (size > 0) {
        args.emplace_back();
        for (std::size_t i = 0; i < size; ++i) {
            if (data[i] == 0)
                args.emplace_back();
            else
                args.back() += static_cast<char>(data[i]);
        }
    }
    std::string line;
    for (const auto& a : args) line += "[" + a + "] ";
    std::function<void()> work;
    rhoflow::cli::Outcome o;
    try {
        o = rhoflow::cli::prepare(args, &work);
    } catch (const std::exception& e) {
        finding("prepare threw", line + ": " + e.what());
    } catch (...) {
        finding("prepare threw a non-standard exception", line);
    }
    if (o.code != 0 && o.code != 1 && o.code != 2) finding("exit code not 0, 1 or 2", std::to_string(o.code) + ": " + line + o.message);
    if (o.code != 0 && o.message.empty()) finding("an error without a message", line);
    if (o.code != 0 && work) finding("work prepared for a failed command line", line);
    // The work is never run: it would compute for seconds and write files.
    return 0;
}
