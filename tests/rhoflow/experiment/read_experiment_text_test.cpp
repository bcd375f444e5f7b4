// Reading experiments from text (read_experiment_text, the one implementation behind
// read_experiment): the same experiment as from the file, errors naming the given name, files
// that cannot be read, and the reproducers of what fuzzing found (tests/fuzz), each asserting
// the clear InvalidArgument that must come instead.
#include "rhoflow/experiment/runner.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/experiment/settings.hpp"
#include "test_util.hpp"

using namespace rhoflow;
namespace fs = std::filesystem;

namespace {

// The message of the InvalidArgument read_experiment_text throws for `text` ("" if none); any
// other exception fails the test.
std::string text_error(const std::string& text, const std::string& name = "t.toml") {
    try {
        read_experiment_text(text, name);
    } catch (const InvalidArgument& e) {
        CHECK(e.field() == "file");
        return e.what();
    }
    return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const std::string kExperiment =
    "title = \"text\"\n"
    "[defaults]\nd = 8\nL = 20\nR = 4\n"
    "[[task]]\nname = \"s\"\ncommand = \"sga\"\nsteps = 200\ntheta = [0.5, 1.5]\n"
    "[[task]]\ncommand = \"field\"\nrho = [[0.5, -0.5], [0.25]]\n";

}  // namespace

TEST_CASE("read_experiment_text: the same experiment as read_experiment from a file of that text") {
    const fs::path dir = test::temp_dir("read_text_same");
    const fs::path file = dir / "e.toml";
    std::ofstream(file) << kExperiment;
    const Experiment a = read_experiment(file);
    const Experiment b = read_experiment_text(kExperiment, file.string());
    CHECK(a.file == b.file);
    CHECK(a.title == b.title);
    CHECK(a.out == b.out);
    CHECK(b.out == fs::path("e-out"));  // <stem of the name>-out
    REQUIRE(a.cells.size() == 4);
    REQUIRE(b.cells.size() == a.cells.size());
    for (std::size_t i = 0; i < a.cells.size(); ++i) {
        CHECK(a.cells[i].dir == b.cells[i].dir);
        CHECK(a.cells[i].swept == b.cells[i].swept);
    }
    CHECK(read_experiment_text(kExperiment, "x.toml", dir / "o").out == dir / "o");
}

TEST_CASE("read_experiment_text: errors name the given name and line") {
    CHECK(contains(text_error("[[task]]\ncommand = \"sga\"\nsteps = \"many\"\n", "mine.toml"),
                   "mine.toml:3: key 'steps'"));
    CHECK(contains(text_error("[[task]\n", "mine.toml"), "mine.toml:1:"));
    CHECK(contains(text_error("", "mine.toml"), "mine.toml: no [[task]] to run"));
}

TEST_CASE("read_experiment: a file that cannot be read is an invalid input naming it") {
    const fs::path dir = test::temp_dir("read_text_unreadable");
    for (const fs::path& p : {dir / "absent.toml", dir}) {
        CAPTURE(p);
        try {
            read_experiment(p);
            FAIL("no exception");
        } catch (const InvalidArgument& e) {
            CHECK(e.field() == "file");
            CHECK(contains(e.what(), p.string() + ": cannot be read"));
        }
    }
}

// Fuzzing found: toml++ 3.3 (Debian 12) reaches __builtin_unreachable() when it asks whether some
// non-ASCII characters (U+00A1 ... U+0499, ...) are whitespace (toml++ issues #190, #295):
// undefined behaviour in the parser. It asks outside strings and comments, while scanning a value
// to its end (past quotes: the second input), and after a line-ending backslash in a multi-line
// string. The reader hides those characters from the parser and gives them back in values and
// messages: files are read as TOML says, and errors show the characters as written.
TEST_CASE("read_experiment_text regression: characters toml++ 3.3 cannot classify are read, and reported, as written") {
    using namespace std::string_view_literals;
    // The fuzzer's inputs: U+0424 at the start of the file; U+044E after a quote in a number.
    CHECK(contains(text_error(std::string("\xd0\xa4sB\0\0\0s\0mmSn\x0f\0\0\0s\0m]\n"sv)),
                   "t.toml:1:1: Error while parsing root table: expected keys, tables, whitespace or comments, saw 'Ф'"));
    CHECK(contains(text_error("[[task]]\ncommand = 0xhm\"tangent.\xd1\x8esigma-per./usigma-pernrmp\"\n"), "t.toml:2:"));
    // Outside strings and comments: an error naming the character, at its line and column.
    CHECK(contains(text_error("[[task]]\ncommand = \"sga\"\ntheta = 1\xc2\xa7\n"),
                   "t.toml:3:10: Error while parsing decimal integer: expected digit, saw '§'"));
    CHECK(contains(text_error("[[task]]\ncommand = \"sga\"\ntheta = 1.5\xce\xb8 # \xce\xb8\n"), "t.toml:3:"));
    CHECK(contains(text_error("[[task]]\ncommand = \"sga\"\n\xce\xb8 = 1\n"), "t.toml:3:1:"));
    CHECK(contains(text_error("[[task]]\ncommand = \"sga\"\n\"\xce\xb8\" = 1\n"), "t.toml:3: key 'θ': 'θ' is not a setting"));
    CHECK(contains(text_error("[[task]]\ncommand = \"sga\"\nsampler = \"\xe3\x80\x80\xe3\x80\x81\"\n"),
                   "t.toml:3: key 'sampler': sga.sampler = '\xe3\x80\x80\xe3\x80\x81' is not"));
    // Valid TOML that toml++ 3.3 could not read: after a line-ending backslash (issue #190).
    const std::string issue190 = "title = \"\"\"\\\n\xc2\xa7 \\\n\n  \xe3\x80\x81\"\"\"\n[[task]]\ncommand = \"sga\"\n";
    CHECK(text_error(issue190).empty());
    CHECK(read_experiment_text(issue190, "t.toml").title == "§ 、");
    // Non-ASCII text in strings and comments is read as before, escapes and quotes included.
    const std::string ok = "\xef\xbb\xbf" R"(# θ = signal " ' """
title = "θ \" § # not a comment ﻾"
out = '§ "'
[[task]] # θ
name = "x"
command = "sga"
[[task]]
command = "sga" # """ θ
)";
    CHECK(text_error(ok).empty());
    CHECK(read_experiment_text(ok, "t.toml").title == "θ \" § # not a comment ﻾");
    const std::string multi = R"(title = """
θ \"""θ ""θ\
  x θ"""""
out = '''θ \
θ ''''
[[task]]
command = "sga"
)";
    CHECK(text_error(multi).empty());
    const Experiment e = read_experiment_text(multi, "t.toml");
    CHECK(e.title == "θ \"\"\"θ \"\"θx θ\"\"");
    CHECK(e.out == std::filesystem::path("θ \\\nθ '"));
    // The private-use characters that stand in for them are refused in a file.
    CHECK(contains(text_error("title = \"\xf3\xb0\x80\x80\"\n[[task]]\ncommand = \"sga\"\n"),
                   "t.toml: the private-use characters U+F0000 ... U+F0BCB are reserved"));
    CHECK(text_error("title = \"\xf3\xb0\xaf\x8c\"\n[[task]]\ncommand = \"sga\"\n").empty());  // U+F0BCC
}

namespace {

// "[a, b, ...]" of n values v0 + k.
std::string values(int n, int v0) {
    std::string s = "[";
    for (int k = 0; k < n; ++k) s += (k ? ", " : "") + std::to_string(v0 + k);
    return s + "]";
}

}  // namespace

// Reading must take bounded time and memory whatever the file says: 19 keys sweeping over 10
// values each are 10^19 cells, which the reader used to start expanding one by one.
TEST_CASE("read_experiment_text regression: an experiment with too many cells is refused naming the limit") {
    std::string huge = "[[task]]\nname = \"huge\"\ncommand = \"sga\"\n";
    const char* keys[] = {"d",     "L",          "R",     "theta", "sigma", "beta",  "steps", "trials", "seed", "eta0",
                          "k0",    "gamma",      "hit",   "first-trial", "records-per-decade", "threads", "rho0",
                          "sampler", "update"};
    for (const char* k : keys) huge += std::string(k) + " = " + values(10, 1) + "\n";
    const std::string msg = text_error(huge);
    CHECK(contains(msg, "t.toml:1: key 'task': task 'huge' sweeps over 1e+19 combinations: more than the limit of "
                        "10000 cells per experiment"));
    // The limit counts every task's cells.
    const std::string two = "[[task]]\nname = \"a\"\ncommand = \"sga\"\nL = " + values(100, 100) + "\nd = " + values(60, 2) +
                            "\n[[task]]\nname = \"b\"\ncommand = \"sga\"\nL = " + values(100, 100) + "\nd = " +
                            values(50, 2) + "\n";
    CHECK(contains(text_error(two), "t.toml:6: key 'task': task 'b' sweeps over 5000 combinations, after 6000 cells of "
                                    "the tasks before it: more than the limit of 10000 cells per experiment"));
    // At the limit, it is read.
    const Experiment e = read_experiment_text("[[task]]\ncommand = \"sga\"\nL = " + values(100, 100) +
                                                  "\ntheta = " + values(100, 1) + "\n",
                                              "t.toml");
    CHECK(e.cells.size() == max_experiment_cells);
}

TEST_CASE("read_experiment_text regression: cells holding too many bytes of values, and too large files, are refused") {
    // 1000 cells, each with its own copy of a 2000-point list: 28 MB of values.
    std::string rho = "[[";
    for (int k = 0; k < 2000; ++k) rho += (k ? ", " : "") + std::string("0.12345678901");
    rho += "]]";
    CHECK(contains(text_error("[[task]]\nname = \"grid\"\ncommand = \"field\"\nmethod = \"meanfield\"\nrho = " + rho +
                              "\nd = " + values(1000, 2) + "\n"),
                   "t.toml:1: key 'task': the cells of the tasks up to 'grid' hold 28010896 bytes of setting values: "
                   "more than the limit of 16777216 (16 MiB) per experiment"));
    // [defaults] are copied into every task: counted too.
    std::string many = "[defaults]\nrho = " + rho + "\n";
    for (int k = 0; k < 1000; ++k) many += "[[task]]\ncommand = \"field\"\nmethod = \"meanfield\"\n";
    CHECK(contains(text_error(many), "bytes of setting values: more than the limit of 16777216"));
    // The text itself.
    const std::string big(max_experiment_bytes + 1, '#');
    CHECK(contains(text_error(big), "t.toml: 4194305 bytes, more than the limit of 4194304 (4 MiB) for an experiment file"));
    try {
        read_experiment("/dev/zero");  // never ends
        FAIL("no exception");
    } catch (const InvalidArgument& e) {
        CHECK(contains(e.what(), "/dev/zero: more than 4194304 bytes (4 MiB), the limit for an experiment file"));
    }
}

TEST_CASE("read_experiment_text regression: [defaults] no task can take are refused before the tasks are read") {
    // 20000 tasks and 20000 unusable defaults: one error, without reading 20000 x 20000 pairs.
    std::string text = "[defaults]\n";
    for (int k = 0; k < 20000; ++k) text += fmt::format("x{} = 1\n", k);  // (fmt: GCC 12 PR 105329)
    for (int k = 0; k < 20000; ++k) text += "[[task]]\ncommand = \"sga\"\n";
    CHECK(contains(text_error(text), "t.toml:2: key 'x0': no task has this setting"));
}

// Each task and each cell is a folder: a name longer than a folder name can be used to be
// accepted, and the run failed when it created the folder, after the cells before it had run.
TEST_CASE("read_experiment_text regression: task and cell folder names longer than 255 bytes are refused") {
    const std::string a255(255, 'a');
    CHECK(text_error("[[task]]\ncommand = \"sga\"\nname = \"" + a255 + "\"\n").empty());
    CHECK(contains(text_error("[[task]]\ncommand = \"sga\"\nname = \"" + a255 + "b\"\n"),
                   "t.toml:3: key 'name': task name '" + std::string(60, 'a') +
                       "...' is 256 bytes long: more than 255, the longest folder name"));
    // A swept list of 30 values names its cells' folders with about 500 bytes.
    std::string rho = "[[0.5], [";
    for (int k = 0; k < 30; ++k) rho += (k ? ", " : "") + std::string("0.0123456789");
    rho += "]]";
    CHECK(contains(text_error("[[task]]\ncommand = \"field\"\nname = \"f\"\nrho = " + rho + "\n"),
                   "t.toml:1: key 'task': task 'f': the folder of combination 2, 'rho=0.0123456789_0.0123456789_0.01234"
                   "56789_0.0123456789_0.01...', would be named with 393 bytes: more than 255, the longest folder name"));
}

TEST_CASE("read_experiment_text: file values are converted to the setting's type, giving the flags' job") {
    // Each file value, and the command-line text that must give the same job.
    struct Case {
        const char* command;
        const char* file;  // key = value lines
        std::vector<std::pair<const char*, const char*>> flags;
    };
    const std::vector<Case> cases = {
        {"sga", "steps = 1e3\nseed = \"18446744073709551615\"\neta0 = 2\nrho0 = \"uniform\"\nrecord = [3, 5]\n",
         {{"steps", "1000"}, {"seed", "18446744073709551615"}, {"eta0", "2"}, {"rho0", "uniform"}, {"record", "3,5"}}},
        {"ode", "rho0 = 0.25\nt = [0, 1, 2.5]\nno-error-estimate = true\n",
         {{"rho0", "0.25"}, {"t", "0,1,2.5"}, {"no-error-estimate", "true"}}},
        {"compare", "table-columns = \"t,sga\"\n", {{"table-columns", "t,sga"}}},
        {"compare", "table-columns = [\"t\", \"sga\"]\n", {{"table-columns", "t,sga"}}},
        {"check", "claim = \"monotone\"\ntheta = \"0.5:2\"\nbeta = 0.5\nd = 20\nscale = \"theta=linear\"\n",
         {{"claim", "monotone"}, {"theta", "0.5:2"}, {"beta", "0.5"}, {"d", "20"}, {"scale", "theta=linear"}}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.file);
        const Experiment e = read_experiment_text(fmt::format("[[task]]\ncommand = \"{}\"\n{}", c.command, c.file), "t.toml");
        REQUIRE(e.cells.size() == 1);
        Job job = make_job(c.command);
        for (const auto& [key, text] : c.flags) find_setting(c.command, key)->set_text(job, text);
        finish_settings(job);
        const auto as_json = [](const Job& j) { return std::visit([](const auto& x) { return nlohmann::json(x); }, j); };
        CHECK(as_json(e.cells[0].job) == as_json(job));
    }
    // A list setting's names must be strings or numbers; a number's text is the name (as on the command line).
    CHECK(contains(text_error("[[task]]\ncommand = \"compare\"\ntable-columns = [true]\n"), "expected a string, got a boolean"));
    CHECK(contains(text_error("[[task]]\ncommand = \"compare\"\ntable-columns = [1]\n"), "table_columns = '1' is not a column"));
}
