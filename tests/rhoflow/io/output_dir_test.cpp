// StagedDirectory: an output folder is complete or absent under its final name; replacing one
// never mixes old and new files; an exception before commit leaves nothing; nothing but a
// folder rhoflow wrote is replaced.
#include "rhoflow/io/output_dir.hpp"

#include <doctest/doctest.h>

#include <map>

#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/detail/fs.hpp"
#include "rhoflow/io/io_test_util.hpp"

using namespace rhoflow;
using namespace rhoflow::test;

namespace {

const std::string marker = StagedDirectory::marker;

// A run writing `files` (name -> content) into the folder `final_path`.
void run(const fs::path& final_path, const std::map<std::string, std::string>& files) {
    StagedDirectory out(final_path);
    for (const auto& [name, content] : files) write_file_atomic(out.path() / name, content);
    out.commit();
}

}  // namespace

TEST_CASE("staged folder: absent under its final name until commit, then complete") {
    TempDir t("staged_new");
    const fs::path final_path = t / "deep" / "out";
    StagedDirectory out(final_path);
    CHECK(out.path().parent_path() == final_path.parent_path());
    CHECK(out.path().filename().string().rfind(".out.tmp.", 0) == 0);
    write_file_atomic(out.path() / "a.json", "a");
    write_file_atomic(out.path() / "sub" / "b.csv", "b");
    CHECK_FALSE(fs::exists(final_path));
    out.commit();
    CHECK(out.committed());
    CHECK(read_text(final_path / "a.json") == "a");
    CHECK(read_text(final_path / "sub" / "b.csv") == "b");
    CHECK(fs::is_regular_file(final_path / marker));
    CHECK(entries(final_path) == std::set<std::string>{"a.json", "sub", marker});
    CHECK(entries(t / "deep") == std::set<std::string>{"out"});
}

TEST_CASE("staged folder: replacing a folder leaves the old one whole until commit, then only the new one") {
    TempDir t("staged_replace");
    const fs::path final_path = t / "out";
    run(final_path, {{"table.md", "seed 1"}, {"fig.png", "seed 1"}});
    {
        StagedDirectory out(final_path);
        write_file_atomic(out.path() / "table.md", "seed 2");
        CHECK(read_text(final_path / "table.md") == "seed 1");  // a reader still sees run 1, whole
        CHECK(fs::exists(final_path / "fig.png"));
        out.commit();
    }
    CHECK(entries(final_path) == std::set<std::string>{"table.md", marker});  // no seed-1 figure beside it
    CHECK(read_text(final_path / "table.md") == "seed 2");
    CHECK(entries(t.path) == std::set<std::string>{"out"});
}

TEST_CASE("staged folder: an exception before commit leaves nothing new") {
    TempDir t("staged_throw");
    auto failing = [&](const fs::path& p) {
        try {
            StagedDirectory out(p);
            write_file_atomic(out.path() / "table.md", "partial");
            throw std::runtime_error("numerical failure midway");
        } catch (const std::runtime_error&) {
        }
    };
    failing(t / "fresh");
    CHECK(entries(t.path).empty());
    run(t / "old", {{"table.md", "complete"}});
    failing(t / "old");
    CHECK(entries(t.path) == std::set<std::string>{"old"});
    CHECK(entries(t / "old") == std::set<std::string>{"table.md", marker});
    CHECK(read_text(t / "old" / "table.md") == "complete");
}

TEST_CASE("staged folder: a file in the way is an error before any work, and stays") {
    TempDir t("staged_file");
    write_text(t / "afile", "mine");
    for (const fs::path& p : {t / "afile", t / "afile" / "sub"}) {
        CAPTURE(p);
        CHECK(error_of<IoError>([&] { StagedDirectory::check(p); }).find("not a folder") != std::string::npos);
        CHECK(error_of<IoError>([&] { StagedDirectory out(p); }).find("not a folder") != std::string::npos);
    }
    CHECK(read_text(t / "afile") == "mine");
    CHECK(entries(t.path) == std::set<std::string>{"afile"});
    // Appearing after construction: commit refuses too.
    StagedDirectory out(t / "late");
    write_text(t / "late", "appeared");
    CHECK(error_of<IoError>([&] { out.commit(); }).find("not a folder") != std::string::npos);
    CHECK(read_text(t / "late") == "appeared");
}

TEST_CASE("staged folder: a folder rhoflow did not write is replaced only when asked") {
    TempDir t("staged_foreign");
    fs::create_directories(t / "home");
    write_text(t / "home" / "thesis.tex", "years of work");
    CHECK(error_of<IoError>([&] { StagedDirectory out(t / "home"); }).find("will not replace") != std::string::npos);
    CHECK(error_of<IoError>([&] { StagedDirectory::check(t / "home"); }).find("will not replace") != std::string::npos);
    CHECK(read_text(t / "home" / "thesis.tex") == "years of work");
    {
        StagedDirectory out(t / "home", Replace::any);
        out.commit();
    }
    CHECK(entries(t / "home") == std::set<std::string>{marker});
    fs::create_directories(t / "empty");
    run(t / "empty", {{"a", "a"}});  // an empty folder may be replaced
    CHECK(entries(t / "empty") == std::set<std::string>{"a", marker});
}

TEST_CASE("staged folder: a symbolic link to a folder is followed and stays a link") {
    TempDir t("staged_link");
    run(t / "real", {{"a", "1"}});
    fs::create_directory_symlink("real", t / "link");
    run(t / "link", {{"b", "2"}});
    CHECK(fs::is_symlink(t / "link"));
    CHECK(entries(t / "real") == std::set<std::string>{"b", marker});
    CHECK(entries(t.path) == std::set<std::string>{"link", "real"});
}

TEST_CASE("staged folder: leftovers of a killed run are removed by the next run into the same place") {
    TempDir t("staged_stale");
    const std::string mine = detail::temporary_sibling(t / "out").filename().string();
    const std::string own = fmt::format(".{}.", ::getpid());
    std::string stale = mine;
    stale.replace(stale.find(own), own.size(), fmt::format(".{}.", dead_pid()));
    fs::create_directories(t / stale / "sub");
    write_text(t / stale / "table.md", "partial");
    run(t / "out", {{"table.md", "whole"}});
    CHECK(entries(t.path) == std::set<std::string>{"out"});
}

TEST_CASE("staged folder: the working directory, or a folder that holds it, is never replaced") {
    TempDir t("staged_cwd");
    run(t / "cmp", {{"a.json", "1"}});
    const fs::path old = fs::current_path();
    fs::current_path(t / "cmp");
    CHECK(holds_working_directory("."));
    CHECK(holds_working_directory(".."));
    CHECK(holds_working_directory(t / "cmp"));
    CHECK_FALSE(holds_working_directory("sub"));
    CHECK_FALSE(holds_working_directory(t / "cmpx"));
    for (const std::string name : {".", "./", "..", "../cmp"}) {
        CAPTURE(name);
        CHECK(error_of<IoError>([&] { StagedDirectory::check(name); }).find("is the working directory or holds it") != std::string::npos);
        CHECK(error_of<IoError>([&] { StagedDirectory s(name); }).find("is the working directory or holds it") != std::string::npos);
    }
    fs::current_path(old);
    CHECK(read_text(t / "cmp" / "a.json") == "1");
    CHECK(is_within(t / "cmp" / "x" / "y.json", t / "cmp"));
    CHECK(is_within(t / "cmp" / "." / "", t / "cmp"));
    CHECK_FALSE(is_within(t / "cmpx", t / "cmp"));
    CHECK_FALSE(is_within(t.path, t / "cmp"));
}

TEST_CASE("staged folder: with_final_name names the final folder for its temporary, whole components only") {
    const fs::path tmp = "runs/.c2.tmp.1085.4049c22c.0", final_path = "runs/c2";
    CHECK(with_final_name("cannot write runs/.c2.tmp.1085.4049c22c.0/compare.json: No space left on device", tmp,
                          final_path) == "cannot write runs/c2/compare.json: No space left on device");
    CHECK(with_final_name("runs/.c2.tmp.1085.4049c22c.0", tmp, final_path) == "runs/c2");
    CHECK(with_final_name("a runs/.c2.tmp.1085.4049c22c.0 and runs/.c2.tmp.1085.4049c22c.0/x", tmp, final_path) ==
          "a runs/c2 and runs/c2/x");
    // Another temporary that starts with the same characters, or a path that merely ends with them, is kept.
    CHECK(with_final_name("runs/.c2.tmp.1085.4049c22c.01/x", tmp, final_path) == "runs/.c2.tmp.1085.4049c22c.01/x");
    CHECK(with_final_name("old_runs/.c2.tmp.1085.4049c22c.0/x", tmp, final_path) == "old_runs/.c2.tmp.1085.4049c22c.0/x");
}
