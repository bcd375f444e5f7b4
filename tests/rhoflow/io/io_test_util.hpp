// Helpers of the file-handling tests: a temporary folder unique to the process and test,
// child processes with their output in files, polling, listings.
#pragma once

#include <chrono>
#include <clocale>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace rhoflow::test {

namespace fs = std::filesystem;

/// The message of the exception of type E that f() throws ("" if it throws none).
template <class E = std::runtime_error, class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "";
}

/// A fresh folder TMP/rhoflow_io_PID_NAME, removed when the test ends: two suites running at
/// once never share one.
/// SOURCE_DATE_EPOCH set for a scope (io/json.hpp): outputs of two runs compared byte for byte
/// then carry the same date; children started meanwhile inherit it.
struct FixedDate {
    bool had;
    std::string value;
    FixedDate() : had(std::getenv("SOURCE_DATE_EPOCH") != nullptr), value(had ? std::getenv("SOURCE_DATE_EPOCH") : "") {
        ::setenv("SOURCE_DATE_EPOCH", "1764547200", 1);
    }
    ~FixedDate() {
        if (had) ::setenv("SOURCE_DATE_EPOCH", value.c_str(), 1);
        else ::unsetenv("SOURCE_DATE_EPOCH");
    }
};

struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name)
        : path(fs::temp_directory_path() / fmt::format("rhoflow_io_{}_{}", ::getpid(), name)) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    fs::path operator/(const std::string& name) const { return path / name; }
};

inline std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void write_text(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

/// The names in folder `dir` (hidden ones included).
inline std::set<std::string> entries(const fs::path& dir) {
    std::set<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        names.insert(it->path().filename().string());
    return names;
}

/// The names in `dir` that contain ".tmp." (rhoflow's temporaries).
inline std::set<std::string> temporaries(const fs::path& dir) {
    std::set<std::string> t;
    for (const auto& n : entries(dir))
        if (n.find(".tmp.") != std::string::npos) t.insert(n);
    return t;
}

/// Every regular file under `dir` with its content, by relative path; run.json's "execution" field
/// (timings: the one place for what may differ between two runs) is dropped.
inline std::map<std::string, std::string> files_of(const fs::path& dir) {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        std::string text = read_text(e.path());
        const std::string rel = fs::relative(e.path(), dir).string();
        if (rel == "run.json") {
            auto doc = nlohmann::json::parse(text);
            doc.erase("execution");
            text = doc.dump();
        }
        out[rel] = text;
    }
    return out;
}

/// Polls `ok` every millisecond for up to `seconds`.
inline bool wait_until(const std::function<bool()>& ok, double seconds = 20) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
        if (ok()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return ok();
}

/// Starts `argv` with stdin /dev/null, stdout and stderr into the given files (an empty `out`:
/// stdout closed), in folder `cwd` (default: this process's); returns its pid.
inline pid_t spawn(const std::vector<std::string>& argv, const fs::path& out, const fs::path& err,
                   const fs::path& cwd = {}) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (out.empty())
        posix_spawn_file_actions_addclose(&fa, 1);
    else
        posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
    // Default signal handling in the child, whatever the test runner ignores or blocks.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&defaults, sig);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, args[0], &fa, &attr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return rc == 0 ? pid : -1;
}

/// Waits for `pid`; returns its raw wait status.
inline int wait_status(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

/// A process id that belonged to a process that has ended (a child that exited at once).
inline pid_t dead_pid() {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    wait_status(pid);
    return pid;
}

/// True when process `pid` blocks signal `sig` (Linux /proc); false when that cannot be read.
inline bool blocks_signal(pid_t pid, int sig) {
    std::ifstream in(fmt::format("/proc/{}/status", pid));
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("SigBlk:", 0) == 0) {
            const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
            return (mask >> (sig - 1)) & 1ull;
        }
    return false;
}

/// A character device node (major, minor) in `dir` made with mknod when allowed (root), so that a
/// test never touches the real /dev/null or /dev/full; otherwise `fallback` (the real device).
inline fs::path device_node(const fs::path& dir, const std::string& name, unsigned major_no, unsigned minor_no,
                            const fs::path& fallback) {
    const fs::path p = dir / name;
    if (::mknod(p.c_str(), S_IFCHR | 0666, makedev(major_no, minor_no)) == 0) {
        const int fd = ::open(p.c_str(), O_WRONLY);  // a "nodev" mount refuses to open it
        if (fd >= 0) {
            ::close(fd);
            return p;
        }
        ::unlink(p.c_str());
    }
    return fallback;
}

/// Makes the working directory `dir` for the scope.
struct InDir {
    fs::path old = fs::current_path();
    explicit InDir(const fs::path& dir) { fs::current_path(dir); }
    ~InDir() {
        std::error_code ec;
        fs::current_path(old, ec);
    }
};

/// Sets an environment variable for the scope, restoring the old value.
struct EnvGuard {
    std::string name;
    bool had = false;
    std::string old;
    EnvGuard(std::string n, const std::string& value) : name(std::move(n)) {
        if (const char* v = std::getenv(name.c_str())) {
            had = true;
            old = v;
        }
        ::setenv(name.c_str(), value.c_str(), 1);
    }
    ~EnvGuard() {
        if (had)
            ::setenv(name.c_str(), old.c_str(), 1);
        else
            ::unsetenv(name.c_str());
    }
};

/// A private folder holding de_DE.UTF-8 compiled by localedef (Debian's `locales` has the sources,
/// scripts/setup.sh installs it), made once per test process and removed at its exit; empty if
/// localedef failed.
inline std::optional<fs::path> comma_locale_path() {
    struct Folder {
        std::optional<fs::path> dir;
        ~Folder() {
            std::error_code ec;
            if (dir) fs::remove_all(*dir, ec);
        }
    };
    static const Folder folder = [] {
        Folder f;
        const fs::path dir = fs::temp_directory_path() / fmt::format("rhoflow_locale_{}", ::getpid());
        fs::create_directories(dir);
        f.dir = dir;
        const fs::path log = dir / "localedef.log";
        const pid_t pid = spawn({"/usr/bin/localedef", "-i", "de_DE", "-f", "UTF-8", (dir / "de_DE.UTF-8").string()},
                                log, log);
        if (pid > 0) wait_status(pid);
        return f;
    }();
    if (!folder.dir || !fs::exists(*folder.dir / "de_DE.UTF-8" / "LC_NUMERIC")) return std::nullopt;
    return folder.dir;
}

/// The comma-decimal locale for the scope: setlocale in this process (as Python's
/// locale.setlocale does) and LC_ALL/LOCPATH in the environment (as an exported LC_ALL).
struct CommaLocale {
    EnvGuard locpath, lc_all;
    explicit CommaLocale(const fs::path& dir) : locpath("LOCPATH", dir.string()), lc_all("LC_ALL", "de_DE.UTF-8") {
        if (!std::setlocale(LC_ALL, "de_DE.UTF-8") || std::string(std::localeconv()->decimal_point) != ",")
            throw std::runtime_error("cannot set the comma-decimal locale de_DE.UTF-8");
    }
    ~CommaLocale() { std::setlocale(LC_ALL, "C"); }
};

}  // namespace rhoflow::test
