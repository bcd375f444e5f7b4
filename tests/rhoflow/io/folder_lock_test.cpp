// FolderLock: a second holder is refused at once naming the first one's pid; the lock file goes
// with its holder; a holder killed outright (SIGKILL) leaves nothing that blocks the next one;
// a symbolic link or a FIFO in the lock file's place is refused, its target untouched.
#include "rhoflow/io/folder_lock.hpp"

#include <doctest/doctest.h>

#include <csignal>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rhoflow/io/io_test_util.hpp"

using namespace rhoflow;
using namespace rhoflow::test;

namespace {

std::string busy_message(const fs::path& folder) {
    try {
        FolderLock second(folder);
    } catch (const FolderBusy& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("folder lock: a second holder is refused at once, naming the first's pid, and once released it can be taken") {
    TempDir t("lock_second");
    const fs::path out = t / "sub" / "o";
    {
        FolderLock first(out);
        CHECK(first.path() == t / "sub" / ".o.lock");
        CHECK(fs::is_regular_file(first.path()));
        CHECK(read_text(first.path()).rfind(fmt::format("{} ", ::getpid()), 0) == 0);
        const std::string m = busy_message(out);  // another open file: flock refuses it, in this process too
        CHECK(m.find(fmt::format("in use by another rhoflow run (pid {} on host", ::getpid())) != std::string::npos);
        CHECK(m.find(out.string()) != std::string::npos);
        CHECK(fs::exists(first.path()));  // the refused one removed nothing
        CHECK_FALSE(fs::exists(out));     // and created nothing
    }
    CHECK_FALSE(fs::exists(t / "sub" / ".o.lock"));
    CHECK(busy_message(out).empty());
}

TEST_CASE("folder lock: a holder killed with SIGKILL blocks nobody, its lock file is taken over") {
    TempDir t("lock_kill");
    const fs::path out = t / "o";
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(ready[0]);
        try {
            FolderLock held(out);
            (void)!::write(ready[1], "x", 1);
            ::pause();
        } catch (...) {
        }
        ::_exit(1);
    }
    ::close(ready[1]);
    char c = 0;
    REQUIRE(::read(ready[0], &c, 1) == 1);
    ::close(ready[0]);
    CHECK(busy_message(out).find(fmt::format("pid {}", child)) != std::string::npos);
    ::kill(child, SIGKILL);
    wait_status(child);
    CHECK(fs::exists(t / ".o.lock"));  // no code ran: the file stays, the lock does not
    {
        FolderLock next(out);
        CHECK(read_text(next.path()).rfind(fmt::format("{} ", ::getpid()), 0) == 0);
    }
    CHECK_FALSE(fs::exists(t / ".o.lock"));
}

TEST_CASE("folder lock: a symbolic link or a FIFO in the lock file's place is refused, not followed") {
    TempDir t("lock_link");
    write_text(t / "target", "precious");
    fs::create_symlink(t / "target", t / ".o.lock");
    try {
        FolderLock l(t / "o");
        FAIL("a symbolic link was followed");
    } catch (const IoError& e) {
        CHECK(std::string(e.what()).find("is a symbolic link") != std::string::npos);
    }
    CHECK(read_text(t / "target") == "precious");
    CHECK(fs::is_symlink(t / ".o.lock"));
    REQUIRE(::mkfifo((t / ".p.lock").c_str(), 0600) == 0);
    try {
        FolderLock l(t / "p");
        FAIL("a FIFO was taken as a lock file");
    } catch (const IoError& e) {
        CHECK(std::string(e.what()).find("not a regular file") != std::string::npos);
    }
    CHECK(fs::is_fifo(t / ".p.lock"));
}
