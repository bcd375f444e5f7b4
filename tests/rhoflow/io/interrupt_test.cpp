// Interruption: real processes (a helper program enabling the cleanup like rhoflow's main(),
// and the rhoflow binary) are sent SIGTERM or SIGINT while they write, and must exit 143 or 130
// with a message, leaving neither a partial output under its final name nor a temporary; after
// SIGKILL, the next run into the same place removes the leftovers. The registry itself is
// checked in-process.
#include "rhoflow/io/interrupt.hpp"

#include <doctest/doctest.h>

#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/io_test_util.hpp"
#include "rhoflow/io/output_dir.hpp"

using namespace rhoflow;
using namespace rhoflow::test;

namespace {

const char* helper = RHOFLOW_INTERRUPT_HELPER_PATH;

// True when `dir` holds a temporary of `name` that is a folder with `file` in it.
bool staged_with(const fs::path& dir, const std::string& name, const std::string& file) {
    for (const auto& n : temporaries(dir))
        if (n.rfind("." + name + ".tmp.", 0) == 0 && fs::exists(dir / n / file)) return true;
    return false;
}

bool has_temporary_of(const fs::path& dir, const std::string& name) {
    for (const auto& n : temporaries(dir))
        if (n.rfind("." + name + ".tmp.", 0) == 0) return true;
    return false;
}

const char* signal_name(int sig) { return sig == SIGINT ? "SIGINT" : "SIGTERM"; }

}  // namespace

TEST_CASE("interrupt: SIGTERM and SIGINT remove a staged folder being written, exit 143 and 130, and say so") {
    for (const bool existing : {false, true}) {
        for (const int sig : {SIGTERM, SIGINT}) {
            CAPTURE(existing);
            CAPTURE(sig);
            TempDir t(fmt::format("interrupt_stage_{}_{}", existing, sig));
            const fs::path out = t / "run out";
            if (existing) {  // a complete earlier run: must survive whole
                StagedDirectory old(out);
                write_file_atomic(old.path() / "table.md", "seed 1");
                write_file_atomic(old.path() / "fig.png", "seed 1");
                old.commit();
            }
            const pid_t pid = spawn({helper, "stage", out.string()}, t / "stdout.log", t / "stderr.log");
            REQUIRE(pid > 0);
            const bool started = wait_until([&] { return staged_with(t.path, "run out", "f3"); });
            ::kill(pid, sig);
            const int status = wait_status(pid);
            REQUIRE(started);
            CHECK(WIFEXITED(status));
            CHECK(WEXITSTATUS(status) == 128 + sig);
            const std::string err = read_text(t / "stderr.log");
            CHECK(err == fmt::format("rhoflow-test-helper: interrupted ({}); removed partial output {}\n",
                                     signal_name(sig), out.string()));
            CHECK(entries(t.path) == (existing ? std::set<std::string>{"run out", "stderr.log", "stdout.log"}
                                               : std::set<std::string>{"stderr.log", "stdout.log"}));
            if (existing)
                CHECK(entries(out) == std::set<std::string>{"table.md", "fig.png", StagedDirectory::marker});
        }
    }
}

TEST_CASE("interrupt: the message names a folder given by a relative path once, as given") {
    TempDir t("interrupt_relative");
    const pid_t pid = spawn({helper, "stage", "out"}, t / "stdout.log", t / "stderr.log", t.path);
    REQUIRE(pid > 0);
    const bool started = wait_until([&] { return staged_with(t.path, "out", "f3"); });
    ::kill(pid, SIGTERM);
    const int status = wait_status(pid);
    REQUIRE(started);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 143);
    CHECK(read_text(t / "stderr.log") == "rhoflow-test-helper: interrupted (SIGTERM); removed partial output out\n");
    CHECK(entries(t.path) == std::set<std::string>{"stderr.log", "stdout.log"});
}

TEST_CASE("interrupt: SIGTERM during an atomic file write removes the temporary, the file stays whole") {
    TempDir t("interrupt_atomic");
    const fs::path file = t / "result.json";
    const pid_t pid = spawn({helper, "atomic", file.string()}, t / "stdout.log", t / "stderr.log");
    REQUIRE(pid > 0);
    const bool started = wait_until([&] { return fs::exists(file) && has_temporary_of(t.path, "result.json"); });
    ::kill(pid, SIGTERM);
    const int status = wait_status(pid);
    REQUIRE(started);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 143);
    CHECK(read_text(t / "stderr.log").rfind("rhoflow-test-helper: interrupted (SIGTERM)", 0) == 0);
    CHECK(fs::file_size(file) == (8u << 20));
    CHECK(entries(t.path) == std::set<std::string>{"result.json", "stderr.log", "stdout.log"});
}

TEST_CASE("interrupt: after SIGKILL the leftovers are recognisable and the next run removes them") {
    TempDir t("interrupt_kill");
    const fs::path out = t / "out", file = t / "result.json";
    // Kills the helper in `mode` while it writes `target`; true when a temporary named after the
    // dead process stayed. (The kill may land between two writes: then try again.)
    auto kill_while_writing = [&](const std::string& mode, const fs::path& target, const std::string& file_inside) {
        for (int attempt = 0; attempt < 5; ++attempt) {
            const pid_t pid = spawn({helper, mode, target.string()}, t / "helper.out", t / "helper.err");
            REQUIRE(pid > 0);
            const std::string name = target.filename().string();
            const bool started = wait_until([&] {
                return file_inside.empty() ? has_temporary_of(t.path, name) : staged_with(t.path, name, file_inside);
            });
            ::kill(pid, SIGKILL);
            wait_status(pid);
            REQUIRE(started);
            for (const auto& n : temporaries(t.path))
                if (n.rfind(fmt::format(".{}.tmp.{}.", name, pid), 0) == 0) return true;
        }
        return false;
    };
    CHECK(kill_while_writing("stage", out, "f3"));
    CHECK(kill_while_writing("atomic", file, ""));
    CHECK_FALSE(fs::exists(out));
    {
        StagedDirectory next(out);
        write_file_atomic(next.path() / "table.md", "whole");
        next.commit();
    }
    write_file_atomic(file, "whole");
    CHECK(temporaries(t.path).empty());
    CHECK(read_text(out / "table.md") == "whole");
}

TEST_CASE("interrupt: registrations are scoped and inert without enable_interrupt_cleanup") {
    CHECK_FALSE(interrupt_cleanup_enabled());  // the test suite never enables it
    TempDir t("interrupt_registry");
    write_text(t / "a", "a");
    {
        RemoveOnInterrupt guard(t / "a", "a");
        RemoveOnInterrupt moved(std::move(guard));
        moved.release();
        moved.release();
    }
    bool ran = false;
    without_interrupt_cleanup([&] { ran = true; });
    CHECK(ran);
    CHECK(fs::exists(t / "a"));  // registering never removes anything by itself
}

#ifdef RHOFLOW_CLI_PATH
TEST_CASE("cli: SIGTERM and SIGINT end a long run with 143 and 130, a message, and no output file") {
    for (const int sig : {SIGTERM, SIGINT}) {
        CAPTURE(sig);
        TempDir t(fmt::format("interrupt_cli_{}", sig));
        const fs::path file = t / "sga.json";
        const pid_t pid = spawn({RHOFLOW_CLI_PATH, "sga", "--steps", "1e9", "--trials", "2", "--output", file.string()},
                                t / "stdout.log", t / "stderr.log");
        REQUIRE(pid > 0);
        // Ready once main() has blocked the signal for its handling thread (Linux /proc).
        const bool ready = wait_until([&] { return blocks_signal(pid, sig); });
        if (!ready) MESSAGE("cannot see the signal mask in /proc: interrupting after 1 s");
        if (!ready) std::this_thread::sleep_for(std::chrono::seconds(1));
        ::kill(pid, sig);
        const int status = wait_status(pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 128 + sig);
        CHECK(read_text(t / "stderr.log") == fmt::format("rhoflow: interrupted ({})\n", signal_name(sig)));
        CHECK(entries(t.path) == std::set<std::string>{"stderr.log", "stdout.log"});
    }
}
#endif
