// libFuzzer target: the experiment-file reader. The input is the text of an experiment file;
// read_experiment_text() must give a valid Experiment or throw InvalidArgument naming "file",
// never another exception, a crash, a sanitizer report, a hang or unbounded memory.
//
//   build-fuzz/fuzz/rhoflow_fuzz_toml -dict=tests/fuzz/toml.dict tests/fuzz/corpus/toml
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <set>
#include <string>
#include <string_view>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/experiment/runner.hpp"

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail) {
    std::fprintf(stderr, "rhoflow_fuzz_toml: %s: %s\n", what, detail.c_str());
    std::abort();
}

// What every Experiment read_experiment_text() returns must satisfy.
void check(const rhoflow::Experiment& e) {
    if (e.file != "fuzz.toml") finding("Experiment::file", e.file);
    if (e.out.empty()) finding("empty output folder", "");
    if (e.tasks.empty() || e.cells.empty()) finding("an experiment without tasks or cells", "");
    if (e.cells.size() > rhoflow::max_experiment_cells) finding("more cells than the limit", std::to_string(e.cells.size()));
    std::set<std::string> dirs;
    for (const auto& c : e.cells) {
        if (c.task >= e.tasks.size()) finding("cell of no task", c.dir);
        const auto& t = e.tasks[c.task];
        if (c.dir.rfind(t.name + "/", 0) != 0) finding("cell folder outside its task's", c.dir);
        if (!dirs.insert(c.dir).second) finding("two cells share a folder", c.dir);
        if (rhoflow::command_of(c.job) != t.command) finding("cell job of another command", c.dir);
        try {
            rhoflow::validate(c.job);
        } catch (const std::exception& x) {
            finding("a cell that does not validate", c.dir + ": " + x.what());
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        check(rhoflow::read_experiment_text(text, "fuzz.toml", {}));
    } catch (const rhoflow::InvalidArgument& e) {
        const std::string message = e.what();
        if (e.field() != "file") finding("InvalidArgument not naming 'file'", e.field() + ": " + message);
        if (message.rfind("fuzz.toml", 0) != 0) finding("error not naming the file first", message);
    } catch (const std::exception& e) {
        finding("an exception other than InvalidArgument", e.what());
    } catch (...) {
        finding("a non-standard exception", "");
    }
    return 0;
}
