// write_file_atomic: whole or nothing for files; devices and FIFOs written in place, never
// replaced; permission bits kept; no temporary left on any failure; leftovers of killed runs
// removed by the next write.
#include "rhoflow/io/atomic_file.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cerrno>
#include <poll.h>
#include <sys/resource.h>
#include <thread>

#include "rhoflow/io/detail/fs.hpp"
#include "rhoflow/io/io_test_util.hpp"

using namespace rhoflow;
using namespace rhoflow::test;

namespace {

mode_t mode_of(const fs::path& p) {
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    return st.st_mode;
}

}  // namespace

TEST_CASE("atomic file: a new file appears whole with mode 0666 minus umask, and no temporary stays") {
    TempDir t("atomic_new");
    const mode_t old = ::umask(027);
    write_file_atomic(t / "sub" / "a.json", "{}\n");
    ::umask(old);
    CHECK(read_text(t / "sub" / "a.json") == "{}\n");
    CHECK((mode_of(t / "sub" / "a.json") & 0777) == 0640);
    CHECK(entries(t / "sub") == std::set<std::string>{"a.json"});
}

TEST_CASE("atomic file: an existing file keeps its permission bits") {
    TempDir t("atomic_mode");
    write_text(t / "a.txt", "old");
    fs::permissions(t / "a.txt", static_cast<fs::perms>(0604));
    write_file_atomic(t / "a.txt", "new content");
    CHECK(read_text(t / "a.txt") == "new content");
    CHECK((mode_of(t / "a.txt") & 07777) == 0604);
    CHECK(entries(t.path) == std::set<std::string>{"a.txt"});
}

TEST_CASE("atomic file: a FIFO is written in place by streaming, not replaced") {
    TempDir t("atomic_fifo");
    const fs::path fifo = t / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    // Opened read-write (Linux) so the writer never blocks on open; more than a pipe buffer is
    // written, so the reader thread must drain it while the writer streams.
    const int fd = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
    REQUIRE(fd >= 0);
    std::string content(1 << 20, 'x');
    for (std::size_t i = 0; i < content.size(); i += 997) content[i] = static_cast<char>('a' + i % 26);
    // The reader drains until it has everything or the writer has returned and nothing is left:
    // it waits for events (data, the writer's return), not for a clock.
    std::string got;
    std::atomic<bool> written{false};
    std::thread reader([&] {
        char buf[65536];
        while (got.size() < content.size()) {
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) {
                if (written.load()) break;  // the writer is done and the pipe is empty
                continue;
            }
            const ssize_t n = ::read(fd, buf, sizeof buf);
            if (n > 0) got.append(buf, static_cast<std::size_t>(n));
        }
    });
    const std::string error = error_of([&] { write_file_atomic(fifo, content); });
    written = true;
    reader.join();
    ::close(fd);
    CHECK(error == "");
    CHECK(fs::is_fifo(fifo));
    CHECK(got.size() == content.size());
    CHECK(got == content);
    CHECK(entries(t.path) == std::set<std::string>{"fifo"});
}

TEST_CASE("atomic file: a FIFO with no reader is refused after a bounded wait, one whose reader comes is written") {
    TempDir t("atomic_fifo_noreader");
    const fs::path fifo = t / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    // No reader: the write gives up after kFifoReaderWait seconds (the old code blocked in
    // open(2) forever; a reader is then opened below so that this test ends either way).
    std::atomic<bool> done{false};
    std::string error;
    const auto start = std::chrono::steady_clock::now();
    std::thread writer([&] {
        error = error_of([&] { write_file_atomic(fifo, "data\n"); });
        done = true;
    });
    const bool finished = wait_until([&] { return done.load(); }, kFifoReaderWait + 10);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!finished) {
        const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
        wait_until([&] { return done.load(); }, 10);
        ::close(fd);
    }
    writer.join();
    CHECK(finished);
    CHECK(waited >= kFifoReaderWait - 0.5);
    CHECK(error.find("it is a FIFO with no reader") != std::string::npos);
    CHECK(error.find(fifo.string()) != std::string::npos);
    CHECK(fs::is_fifo(fifo));
    // A reader that opens it while the writer waits receives everything.
    std::string got;
    done = false;
    std::thread late([&] {
        error = error_of([&] { write_file_atomic(fifo, "late reader\n"); });
        done = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const int fd = ::open(fifo.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    char buf[256];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    late.join();
    CHECK(error == "");
    CHECK(got == "late reader\n");
    CHECK(entries(t.path) == std::set<std::string>{"fifo"});
}

TEST_CASE("atomic file: /dev/null is written to, not replaced by a regular file") {
    TempDir t("atomic_null");
    const fs::path null = device_node(t.path, "null", 1, 3, "/dev/null");
    CAPTURE(null);
    struct stat before {}, after {};
    REQUIRE(::stat(null.c_str(), &before) == 0);
    CHECK(error_of([&] { write_file_atomic(null, "{\"a\": 1}\n"); }) == "");
    REQUIRE(::stat(null.c_str(), &after) == 0);
    CHECK(S_ISCHR(after.st_mode));
    CHECK(after.st_ino == before.st_ino);
    CHECK(after.st_rdev == before.st_rdev);
    CHECK(temporaries(null.parent_path()).empty());
}

TEST_CASE("atomic file: /dev/full fails with a clear error, stays a device and leaves no temporary") {
    TempDir t("atomic_full");
    const fs::path full = device_node(t.path, "full", 1, 7, "/dev/full");
    CAPTURE(full);
    const std::string error = error_of([&] { write_file_atomic(full, "{\"a\": 1}\n"); });
    CHECK(error.find(full.string()) != std::string::npos);
    CHECK(error.find("No space left on device") != std::string::npos);
    struct stat st {};
    REQUIRE(::stat(full.c_str(), &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
    CHECK(temporaries(full.parent_path()).empty());
}

TEST_CASE("atomic file: a directory in the way, or a write failing midway, leaves everything as it was") {
    TempDir t("atomic_fail");
    fs::create_directories(t / "dir" / "inner");
    CHECK(error_of([&] { write_file_atomic(t / "dir", "x"); }).find("is a directory") != std::string::npos);
    CHECK(fs::is_directory(t / "dir" / "inner"));
    CHECK(!error_of([&] { write_file_atomic(t / "dir/", "x"); }).empty());

    // A write failing midway: the file size limit (EFBIG) stops it after 4 KiB.
    write_text(t / "big", "old");
    rlimit old_limit{};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = old_limit;
    small.rlim_cur = 4096;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    const std::string error = error_of([&] { write_file_atomic(t / "big", std::string(100000, 'y')); });
    ::setrlimit(RLIMIT_FSIZE, &old_limit);
    std::signal(SIGXFSZ, old_handler);
    CHECK(error.find("big") != std::string::npos);
    CHECK(read_text(t / "big") == "old");
    CHECK(entries(t.path) == std::set<std::string>{"big", "dir"});
}

TEST_CASE("atomic file: a symbolic link is followed and stays a link") {
    TempDir t("atomic_link");
    write_text(t / "real.json", "old");
    fs::create_symlink("real.json", t / "link.json");
    write_file_atomic(t / "link.json", "new");
    CHECK(fs::is_symlink(t / "link.json"));
    CHECK(read_text(t / "real.json") == "new");
    fs::create_symlink("sub/target.json", t / "dangling.json");  // a dangling link gets its target
    write_file_atomic(t / "dangling.json", "made");
    CHECK(fs::is_symlink(t / "dangling.json"));
    CHECK(read_text(t / "sub" / "target.json") == "made");
    CHECK(temporaries(t.path).empty());
    CHECK(temporaries(t / "sub").empty());
}

TEST_CASE("atomic file: a file the caller may not write is not replaced") {
    if (::geteuid() == 0) {
        MESSAGE("running as root, which may write any file: not checked");
        return;
    }
    TempDir t("atomic_readonly");
    write_text(t / "a.txt", "keep");
    fs::permissions(t / "a.txt", static_cast<fs::perms>(0444));
    CHECK(error_of([&] { write_file_atomic(t / "a.txt", "new"); }).find("Permission denied") != std::string::npos);
    CHECK(read_text(t / "a.txt") == "keep");
    CHECK(entries(t.path) == std::set<std::string>{"a.txt"});
}

TEST_CASE("atomic file: temporaries of dead processes are removed by the next write, live ones kept") {
    TempDir t("atomic_stale");
    // A temporary name of this process, with its pid replaced by a dead one and by 1 (alive).
    const std::string mine = detail::temporary_sibling(t / "a.json").filename().string();
    const std::string own_pid = fmt::format(".{}.", ::getpid());
    const auto with_pid = [&](pid_t pid) {
        std::string n = mine;
        n.replace(n.find(own_pid), own_pid.size(), fmt::format(".{}.", pid));
        return n;
    };
    const pid_t dead = dead_pid();
    const std::string stale_file = with_pid(dead), live = with_pid(1);
    write_text(t / stale_file, "partial");
    write_text(t / live, "being written");
    fs::create_directories(t / (with_pid(dead) + "7") / "inner");  // a stale folder (StagedDirectory)
    write_text(t / (with_pid(dead) + "7") / "inner" / "x", "x");
    std::string other = with_pid(dead);  // another name's temporary: not this write's business
    other.replace(0, 7, ".b.json");
    write_text(t / other, "other");
    REQUIRE(detail::is_stale_temporary(stale_file, "a.json"));
    REQUIRE_FALSE(detail::is_stale_temporary(live, "a.json"));
    write_file_atomic(t / "a.json", "whole");
    CHECK(entries(t.path) == std::set<std::string>{"a.json", live, other});
}

TEST_CASE("atomic file: a temporary whose given extension follows the counter (cairolatex's) is stale only with it") {
    TempDir t("atomic_stale_ext");
    // `.fig-latex.tmp.PID.HOST.N.tex` and `.pdf`: gnuplot's cairolatex names its picture and graphics so.
    const std::string mine = detail::temporary_sibling(t / "fig-latex").filename().string();
    const std::string own_pid = fmt::format(".{}.", ::getpid());
    const auto with_pid = [&](pid_t pid) {
        std::string n = mine;
        n.replace(n.find(own_pid), own_pid.size(), fmt::format(".{}.", pid));
        return n;
    };
    const std::string dead = with_pid(dead_pid()), live = with_pid(1);
    const std::vector<std::string> ext = {".tex", ".pdf"};
    CHECK(detail::is_stale_temporary(dead + ".tex", "fig-latex", ext));
    CHECK(detail::is_stale_temporary(dead + ".pdf", "fig-latex", ext));
    CHECK_FALSE(detail::is_stale_temporary(dead + ".tex", "fig-latex"));  // not without the extension given
    CHECK_FALSE(detail::is_stale_temporary(live + ".tex", "fig-latex", ext));
    // Names a user might give: another extension, one after the other, or none after a dot.
    for (const std::string& kept : {dead + ".txt", dead + ".tex.bak", dead + ".tex~", dead + ".", dead + ".pdf.tex",
                                    dead + "tex", dead + "..tex"}) {
        CAPTURE(kept);
        CHECK_FALSE(detail::is_stale_temporary(kept, "fig-latex", ext));
    }
    for (const std::string& n : {dead + ".tex", dead + ".pdf", dead + ".txt", dead + ".tex.bak", live + ".tex"})
        write_text(t / n, "x");
    CHECK(remove_stale_temporaries(t / "fig-latex", ext) == 2);
    CHECK(entries(t.path) == std::set<std::string>{dead + ".txt", dead + ".tex.bak", live + ".tex"});
}
