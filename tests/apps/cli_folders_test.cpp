// Experiment output folders as untrusted data, through the command line in-process (issue 15,
// part A): a manifest cannot remove anything outside OUT, symbolic links rhoflow did not create
// are refused, a second run on a busy OUT is refused naming the holder, stale tasks leave, figures
// skipped once are drawn later, damaged files are named (or recomputed) without moving OUT aside,
// odd spellings of --out, titles with control characters, seeds past 2^63, output folders that
// hold the working directory, compare/check --out checked before the work.
#include <doctest/doctest.h>

#include <chrono>
#include <fcntl.h>
#include <functional>
#include <linux/fs.h>
#include <nlohmann/json.hpp>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.hpp"
#include "cli_run.hpp"
#include "rhoflow/io/io_test_util.hpp"
#include "rhoflow/io/plot.hpp"

using namespace rhoflow::test;
using nlohmann::json;

namespace {

const char* rhoflow_bin = RHOFLOW_CLI_PATH;

// A two-task experiment of instant cells (sga s: two cells; field f: one) into OUT "o".
std::string small_experiment(const std::string& title_line = "") {
    return title_line + (title_line.empty() ? "" : "\n") +
           "out = \"o\"\n[defaults]\nd = 8\nL = 20\nR = 4\n"
           "[[task]]\nname = \"s\"\ncommand = \"sga\"\nsteps = 200\ntrials = 3\nthreads = 1\ntheta = [0.5, 1.5]\n"
           "[[task]]\nname = \"f\"\ncommand = \"field\"\nrho = [0.0, 0.5]\n";
}

// Runs the experiment `file` into `out` (in-process).
Run run_into(const fs::path& file, const fs::path& out, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> a = {"run", file.string(), "--out", out.string()};
    a.insert(a.end(), extra.begin(), extra.end());
    return rhoflow_cli(a);
}

// True when the text holds a library's own exception wording.
bool raw_library_text(const std::string& s) {
    for (const char* w : {"filesystem error", "json.exception", "type_error", "parse_error", "std::"})
        if (s.find(w) != std::string::npos) return true;
    return false;
}

// Adds `entries` (JSON object members) to the manifest `file`'s cells.
void plant(const fs::path& file, const json& entries) {
    json m = json::parse(read_text(file));
    for (const auto& [k, v] : entries.items()) m["cells"][k] = v;
    write_text(file, m.dump(2));
}


// Sets or clears the immutable attribute of `p` (chattr +i); false when the file system or the
// process's capabilities do not allow it.
bool set_immutable(const fs::path& p, bool on) {
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    int flags = 0;
    bool ok = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
    if (ok) {
        flags = on ? (flags | FS_IMMUTABLE_FL) : (flags & ~FS_IMMUTABLE_FL);
        ok = ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
    }
    ::close(fd);
    return ok;
}

}  // namespace

TEST_CASE("cli folders: manifest entries naming paths outside OUT remove nothing and are dropped (D7)") {
    TempDir t("cli_d7");
    const fs::path e = t / "e.toml";
    write_text(e, small_experiment());
    REQUIRE(run_into(e, t / "o").code == 0);
    for (const bool partial : {false, true}) {
        CAPTURE(partial);
        fs::create_directories(t / "victim" / "abs");
        fs::create_directories(t / "victim" / "rel");
        write_text(t / "victim" / "abs" / "keep", "mine");
        write_text(t / "victim" / "rel" / "keep", "mine");
        if (partial) fs::rename(t / "o", t / ".o.partial");
        const fs::path manifest = (partial ? t / ".o.partial" : t / "o") / "manifest.json";
        const std::string abs = (t / "victim" / "abs").string();
        plant(manifest, {{abs, {{"status", "complete"}}},
                         {"../victim/rel", {{"status", "complete"}}},
                         {"s/../../victim/rel", {{"status", "complete"}}},
                         {"s/a/b", {{"status", "complete"}}}});
        const Run r = run_into(e, t / "o");
        CHECK(r.code == 0);
        CHECK(read_text(t / "victim" / "abs" / "keep") == "mine");
        CHECK(read_text(t / "victim" / "rel" / "keep") == "mine");
        CHECK(r.err.find("ignored the entry '" + abs + "'") != std::string::npos);
        CHECK(r.err.find("ignored the entry '../victim/rel'") != std::string::npos);
        CHECK(r.err.find("removed " + abs) == std::string::npos);
        const json m = json::parse(read_text(t / "o" / "manifest.json"));
        CHECK(m["cells"].size() == 3);  // the experiment's own cells only
        CHECK_FALSE(fs::exists(t / ".o.partial"));
    }
}

TEST_CASE("cli folders: symbolic links rhoflow did not create are refused, never followed (D8)") {
    TempDir t("cli_d8");
    const fs::path e = t / "e.toml";
    write_text(e, small_experiment());
    REQUIRE(run_into(e, t / "elsewhere").code == 0);
    auto listing = [&] {  // every entry of the links' target with its content
        std::string all;
        for (const auto& f : fs::recursive_directory_iterator(t / "elsewhere"))
            all += f.path().string() + "\n" + (f.is_regular_file() ? read_text(f.path()) : "") + "\n";
        return all;
    };
    const std::string before = listing();

    SUBCASE("a planted .OUT.partial") {
        fs::create_directory_symlink("elsewhere", t / ".o.partial");
        const Run r = run_into(e, t / "o");
        CHECK(r.code == 1);
        CHECK(r.err.find(".o.partial is a symbolic link") != std::string::npos);
        CHECK(fs::is_symlink(t / ".o.partial"));
        CHECK_FALSE(fs::exists(fs::symlink_status(t / "o")));
    }
    SUBCASE("OUT itself") {
        fs::create_directory_symlink("elsewhere", t / "o");
        const Run r = run_into(e, t / "o");
        CHECK(r.code == 1);
        CHECK(r.err.find("o is a symbolic link") != std::string::npos);
        CHECK(fs::is_symlink(t / "o"));
        CHECK_FALSE(fs::exists(fs::symlink_status(t / ".o.partial")));
    }
    SUBCASE("a cell folder, a task folder, the manifest") {
        for (const std::string inside : {"s/theta=0.5", "f", "manifest.json"}) {
            CAPTURE(inside);
            fs::remove_all(t / "o");
            REQUIRE(run_into(e, t / "o").code == 0);
            fs::remove_all(t / "o" / inside);
            fs::create_symlink(inside == "manifest.json" ? t / "elsewhere" / "manifest.json" : t / "elsewhere" / "s",
                               t / "o" / inside);
            const Run r = run_into(e, t / "o");
            CHECK(r.code == 1);
            CHECK(r.err.find(inside + " is a symbolic link") != std::string::npos);
            CHECK(fs::is_directory(fs::symlink_status(t / "o")));  // OUT is not left moved aside
            CHECK_FALSE(fs::exists(fs::symlink_status(t / ".o.partial")));
            CHECK_FALSE(raw_library_text(r.err));
        }
    }
    CHECK(listing() == before);
}

TEST_CASE("cli folders: a second run on a busy OUT exits 1 at once naming the holder's pid, and the first ends whole (D1)") {
    TempDir t("cli_d1");
    auto slow = [&](const std::string& name, int steps) {
        write_text(t / name, fmt::format("out = \"o\"\n[defaults]\nd = 8\nL = 200\nR = 4\n[[task]]\nname = \"s\"\n"
                                         "command = \"sga\"\nsteps = {}\ntrials = 8\nthreads = 1\nseed = [1, 2]\n",
                                         steps));
    };
    slow("a.toml", 10000);  // two cells of about a second each
    slow("b.toml", 5000);
    const pid_t first = spawn({rhoflow_bin, "run", "a.toml"}, t / "a.out", t / "a.err", t.path);
    REQUIRE(first > 0);
    REQUIRE(wait_until([&] { return fs::exists(t / ".o.partial" / "manifest.json"); }));
    // Refused at once, not after waiting for the lock: a run that waited would get it when the
    // first ends and succeed, so exit 1 naming the holder shows it (no clock: CI machines are busy).
    const Run second = run_into(t / "b.toml", t / "o");
    CHECK(second.code == 1);
    CHECK(second.err.find(fmt::format("in use by another rhoflow run (pid {}", first)) != std::string::npos);
    CHECK_FALSE(raw_library_text(second.err));
    const int status = wait_status(first);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK_FALSE(fs::exists(t / ".o.partial"));
    CHECK_FALSE(fs::exists(t / ".o.lock"));
    for (int seed = 1; seed <= 2; ++seed) {
        const json doc = json::parse(read_text(t / "o" / "s" / fmt::format("seed={}", seed) / "result.json"));
        CHECK(doc["params"]["sga"]["steps"] == 10000);
    }
}

TEST_CASE("cli folders: a removed or a renamed task leaves no folder and no summary behind (D4)") {
    TempDir t("cli_d4");
    write_text(t / "e.toml", small_experiment());
    REQUIRE(run_into(t / "e.toml", t / "o").code == 0);
    REQUIRE(fs::exists(t / "o" / "f" / "summary.md"));
    std::string text = small_experiment();
    text = text.substr(0, text.find("[[task]]\nname = \"f\""));           // task f removed
    text.replace(text.find("name = \"s\""), 10, "name = \"s2\"");         // task s renamed
    write_text(t / "e2.toml", text);
    const Run r = run_into(t / "e2.toml", t / "o");
    CHECK(r.code == 0);
    CHECK_FALSE(fs::exists(t / "o" / "f"));
    CHECK_FALSE(fs::exists(t / "o" / "s"));
    CHECK(fs::exists(t / "o" / "s2" / "summary.md"));
    CHECK(entries(t / "o") == std::set<std::string>{"CITATION.bib", "manifest.json", "run.json", "s2"});
}

TEST_CASE("cli folders: a cell written with --no-figures gets its figures on the next run, its other files unchanged (D6)") {
    if (!rhoflow::gnuplot_available()) {
        MESSAGE("gnuplot not installed: skipped");
        return;
    }
    TempDir t("cli_d6");
    write_text(t / "c.toml", "[[task]]\nname = \"c\"\ncommand = \"compare\"\nd = 10\nL = 40\nR = 8\nsteps = 2000\n"
                             "trials = 4\nno-study = true\nhorizon = 1\n");
    REQUIRE(run_into(t / "c.toml", t / "o", {"--no-figures"}).code == 0);
    const fs::path cell = t / "o" / "c" / "run";
    auto images = [&] {
        int n = 0;
        for (const auto& f : entries(cell)) n += f.size() > 4 && f.substr(f.size() - 4) == ".png";
        return n;
    };
    REQUIRE(images() == 0);
    const std::string document = read_text(cell / "compare.json");
    const Run r = run_into(t / "c.toml", t / "o");
    CHECK(r.code == 0);
    CHECK(r.err.find("drew no figures: drawing them") != std::string::npos);
    CHECK(images() > 0);
    CHECK(read_text(cell / "compare.json") == document);
    CHECK(json::parse(read_text(t / "o" / "manifest.json"))["cells"]["c/run"]["figures"] == true);
    const Run again = run_into(t / "c.toml", t / "o");  // now complete with figures: nothing redrawn
    CHECK(again.code == 0);
    CHECK(again.err.find("drawing them") == std::string::npos);
}

TEST_CASE("cli folders: a truncated cell is recomputed, a malformed manifest exits 1 naming it, OUT stays (D11)") {
    TempDir t("cli_d11");
    const FixedDate date;  // the recomputed document is compared byte for byte
    write_text(t / "e.toml", small_experiment());
    REQUIRE(run_into(t / "e.toml", t / "o").code == 0);
    const fs::path doc = t / "o" / "s" / "theta=0.5" / "result.json";
    const std::string good = read_text(doc);
    write_text(doc, good.substr(0, 100));
    const Run r = run_into(t / "e.toml", t / "o");
    CHECK(r.code == 0);
    CHECK(r.err.find("theta=0.5/result.json is not valid JSON") != std::string::npos);
    CHECK(r.err.find("recomputing the cell") != std::string::npos);
    CHECK_FALSE(raw_library_text(r.err));
    CHECK(read_text(doc) == good);  // the same seed gives the same document
    for (const std::string bad : {"{\"cells\": 5}", "[1, 2]", "{\"cells\": {\"s/theta=0.5\": 7}}",
                                  "{\"cells\": {\"s/theta=0.5\": {\"status\": 1}}}", "{\"cells\"", ""}) {
        CAPTURE(bad);
        write_text(t / "o" / "manifest.json", bad);
        const Run m = run_into(t / "e.toml", t / "o");
        CHECK(m.code == 1);
        CHECK(m.err.find((t / "o" / "manifest.json").string()) != std::string::npos);
        CHECK_FALSE(raw_library_text(m.err));
        CHECK(fs::is_directory(t / "o"));
        CHECK_FALSE(fs::exists(t / ".o.partial"));
    }
}

TEST_CASE("cli folders: odd spellings of run --out are normalised, or refused naming --out (D14)") {
    TempDir t("cli_d14");
    write_text(t / "e.toml", small_experiment());
    REQUIRE(run_into(t / "e.toml", t / "done-out").code == 0);
    fs::create_directories(t / "sub");
    for (const std::string spelling : {"/done-out/.", "/done-out/", "/done-out//", "/sub/../done-out", "/./done-out/./"}) {
        CAPTURE(spelling);
        const Run r = rhoflow_cli({"run", (t / "e.toml").string(), "--out", t.path.string() + spelling});
        CHECK(r.code == 0);
        CHECK_FALSE(raw_library_text(r.err));
        CHECK(fs::exists(t / "done-out" / "run.json"));
        CHECK_FALSE(fs::exists(t / ".done-out.partial"));
    }
    InDir here(t.path);
    for (const std::string spelling : {".", "..", "/", "./", "../.", "sub/.."}) {
        CAPTURE(spelling);
        const Run r = rhoflow_cli({"run", "e.toml", "--out", spelling});
        CHECK(r.code == 2);
        CHECK(r.err.find("invalid --out") != std::string::npos);
        CHECK_FALSE(raw_library_text(r.err));
    }
    write_text(t / "dot.toml", "out = \".\"\n" + small_experiment().substr(10));
    const Run f = rhoflow_cli({"run", "dot.toml"});
    CHECK(f.code == 2);
    CHECK(f.err.find("dot.toml:1: key 'out'") != std::string::npos);
    CHECK(fs::exists(t / "e.toml"));
}

TEST_CASE("cli folders: compare and check --out that is or holds the working directory exit 2, removing nothing") {
    TempDir t("cli_cwd");
    const std::vector<std::string> small = {"compare", "--d", "10", "--L", "40", "--R", "8", "--steps", "2000",
                                            "--trials", "4", "--no-study", "--horizon", "1", "--no-figures", "--quiet"};
    std::vector<std::string> first = small;
    first.insert(first.end(), {"--out", (t / "cf").string()});
    REQUIRE(rhoflow_cli(first).code == 0);
    InDir here(t / "cf");
    for (const std::string& spelling : std::vector<std::string>{".", "./", "../cf", "..", (t / "cf").string()}) {
        CAPTURE(spelling);
        std::vector<std::string> a = small;
        a.insert(a.end(), {"--out", spelling});
        const Run r = rhoflow_cli(a);
        CHECK(r.code == 2);
        CHECK(r.err.find("invalid --out") != std::string::npos);
        CHECK(fs::exists(t / "cf" / "compare.json"));
        const Run k = rhoflow_cli({"check", "--claim", "monotone", "--theta", "0.5:2", "--grid", "3", "--out", spelling});
        CHECK(k.code == 2);
        CHECK(k.err.find("invalid --out") != std::string::npos);
    }
    CHECK(fs::equivalent(fs::current_path(), t / "cf"));
}

TEST_CASE("cli folders: a title with control characters exits 2 naming it, and separators in a title add no rows (D16)") {
    TempDir t("cli_d16");
    write_text(t / "nl.toml", small_experiment("title = \"T\\n1,2,3\\n| fake | row |\""));
    const Run r = run_into(t / "nl.toml", t / "o");
    CHECK(r.code == 2);
    CHECK(r.err.find("nl.toml:1: key 'title'") != std::string::npos);
    CHECK_FALSE(fs::exists(t / "o"));
    for (const std::string c : {"\\t", "\\r", "\\u0085", "\\u2028", "\\u007f"}) {
        CAPTURE(c);
        write_text(t / "c.toml", small_experiment("title = \"a" + c + "b\""));
        CHECK(run_into(t / "c.toml", t / "o").code == 2);
    }
    write_text(t / "sep.toml", small_experiment("title = \"a, b | c; \\\"d\\\" # e\""));
    REQUIRE(run_into(t / "sep.toml", t / "o").code == 0);
    int csv_rows = 0, md_rows = 0;
    std::istringstream csv(read_text(t / "o" / "s" / "summary.csv")), md(read_text(t / "o" / "s" / "summary.md"));
    for (std::string line; std::getline(csv, line);) csv_rows += !line.empty() && line[0] != '#';
    for (std::string line; std::getline(md, line);) md_rows += !line.empty() && line[0] == '|';
    CHECK(csv_rows == 3);  // header and two cells
    CHECK(md_rows == 8);   // two tables (alignment, the rest), each a header, a rule and two cells
}

TEST_CASE("cli folders: a seed may be a string of digits up to 2^64 - 1, and a float seed that was rounded is refused (D19)") {
    TempDir t("cli_d19");
    const std::string head = "[[task]]\nname = \"s\"\ncommand = \"sga\"\nd = 8\nL = 20\nR = 4\n";
    const std::string task = head + "steps = 100\ntrials = 2\n";
    write_text(t / "big.toml", task + "seed = \"18446744073709551615\"\n");
    const Run r = run_into(t / "big.toml", t / "o");
    CHECK(r.code == 0);
    const std::string doc = read_text(t / "o" / "s" / "run" / "result.json");
    CHECK(doc.find("\"seed\": 18446744073709551615") != std::string::npos);
    for (const std::string bad : {"9007199254740993.0", "1.8446744073709552e19", "\"18446744073709551616\"", "\"12abc\"",
                                  "\"\"", "-1", "3.5"}) {
        CAPTURE(bad);
        write_text(t / "bad.toml", task + "seed = " + bad + "\n");
        const Run b = run_into(t / "bad.toml", t / "o2");
        CHECK(b.code == 2);
        CHECK(b.err.find("bad.toml:9: key 'seed'") != std::string::npos);
        CHECK_FALSE(fs::exists(t / "o2"));
    }
    write_text(t / "sci.toml", head + "trials = 2\nseed = 1e6\nsteps = 1_000.0\n");  // exact floats stay accepted
    CHECK(run_into(t / "sci.toml", t / "o3").code == 0);
    CHECK(read_text(t / "o3" / "s" / "run" / "result.json").find("\"seed\": 1000000") != std::string::npos);
}

TEST_CASE("cli folders: compare and check --out into a folder that cannot be written fail before the work (D12)") {
    TempDir t("cli_d12");
    write_text(t / "afile", "x");
    fs::create_directories(t / "locked");
    const std::vector<std::string> slow = {"compare", "--d", "10", "--L", "400", "--R", "8", "--steps", "3000000",
                                           "--trials", "8", "--no-study", "--no-figures", "--quiet"};
    auto prepared = [&](std::vector<std::string> args, const std::string& out) {
        args.insert(args.end(), {"--out", out});
        std::function<void()> work;
        const rhoflow::cli::Outcome o = rhoflow::cli::prepare(args, &work);
        CHECK_FALSE(work);  // refused before the computation
        return o;
    };
    const rhoflow::cli::Outcome through_file = prepared(slow, (t / "afile" / "c").string());
    CHECK(through_file.code == 1);
    const bool immutable = set_immutable(t / "locked", true);
    if (!immutable && ::geteuid() != 0) fs::permissions(t / "locked", fs::perms::owner_write, fs::perm_options::remove);
    if (immutable || ::geteuid() != 0) {
        const rhoflow::cli::Outcome c = prepared(slow, (t / "locked" / "c").string());
        CHECK(c.code == 1);
        CHECK(c.message.find((t / "locked").string()) != std::string::npos);
        const rhoflow::cli::Outcome k =
            prepared({"check", "--claim", "monotone", "--theta", "0.5:2", "--grid", "3"}, (t / "locked" / "k").string());
        CHECK(k.code == 1);
    } else {
        MESSAGE("root without chattr +i: only the file-in-the-way case ran");
    }
    set_immutable(t / "locked", false);
    fs::permissions(t / "locked", fs::perms::owner_all, fs::perm_options::add);
    fs::create_directories(t / "locked" / "c");
    if (set_immutable(t / "locked" / "c", true)) {  // an existing --out folder whose old files could not be removed
        const rhoflow::cli::Outcome c = prepared(slow, (t / "locked" / "c").string());
        CHECK(c.code == 1);
        set_immutable(t / "locked" / "c", false);
    }
}

TEST_CASE("cli folders: compare --out X with --output X or inside X exits 2 naming both flags, writing nothing (D13)") {
    TempDir t("cli_d13");
    const std::vector<std::string> slow = {"compare", "--d", "10", "--L", "400", "--R", "8", "--steps", "3000000",
                                           "--trials", "8", "--no-study", "--no-figures", "--quiet"};
    for (const std::string output : {"X", "X/compare.json", "X/sub/doc.json", "./X/"}) {
        CAPTURE(output);
        std::vector<std::string> a = slow;
        a.insert(a.end(), {"--out", (t / "X").string(), "--output", (t.path / output).string()});
        std::function<void()> work;
        const rhoflow::cli::Outcome o = rhoflow::cli::prepare(a, &work);
        CHECK(o.code == 2);
        CHECK_FALSE(work);
        CHECK(o.message.find("--output") != std::string::npos);
        CHECK(o.message.find("--out ") != std::string::npos);
    }
    const Run r = rhoflow_cli({"compare", "--out", (t / "X").string(), "--output", (t / "X").string()});
    CHECK(r.code == 2);
    CHECK_FALSE(fs::exists(t / "X"));
}
