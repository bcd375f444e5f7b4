#include "rhoflow/io/plot.hpp"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/detail/fs.hpp"
#include "rhoflow/io/interrupt.hpp"

extern char** environ;

namespace rhoflow {

namespace {

namespace fs = std::filesystem;

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
#define RHOFLOW_SPAWN_CHDIR 1
#endif

struct Finished {
    int status = 0;      // as from waitpid
    std::string output;  // standard output and error, interleaved (at most 64 KiB kept)
    bool timed_out = false;  // killed after `timeout` seconds
};

// Runs `exe` with `args` (args[0] included) in folder `cwd`, without a shell, in a process group
// of its own; after `timeout` seconds the group is killed (SIGKILL) and `timed_out` set.
Finished run_captured(const fs::path& exe, const std::vector<std::string>& args, const fs::path& cwd, double timeout) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    int pipefd[2];
    if (::pipe2(pipefd, O_CLOEXEC) != 0) {
        const int err = errno;
        detail::throw_io("cannot create a pipe for gnuplot", err);
    }
    sigset_t empty;
    sigemptyset(&empty);
    pid_t pid = -1;
    int spawn_err = 0;
#ifdef RHOFLOW_SPAWN_CHDIR
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipefd[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, pipefd[1], STDERR_FILENO);
    posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
    posix_spawnattr_setsigmask(&attr, &empty);  // interrupt.hpp blocks signals in the parent
    posix_spawnattr_setpgroup(&attr, 0);        // its own group: a timeout kills whatever it started
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
    spawn_err = ::posix_spawn(&pid, exe.c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
#else
    int errpipe[2];  // the child reports a failed chdir/exec here; closed by a successful exec
    if (::pipe2(errpipe, O_CLOEXEC) != 0) {
        spawn_err = errno;
    } else {
        pid = ::fork();
        if (pid == 0) {  // only async-signal-safe calls from here on
            ::sigprocmask(SIG_SETMASK, &empty, nullptr);
            ::setpgid(0, 0);
            const int in = ::open("/dev/null", O_RDONLY);
            int e = 0;
            if (in < 0 || ::dup2(in, STDIN_FILENO) < 0 || ::dup2(pipefd[1], STDOUT_FILENO) < 0 ||
                ::dup2(pipefd[1], STDERR_FILENO) < 0 || ::chdir(cwd.c_str()) != 0)
                e = errno;
            else
                ::execv(exe.c_str(), argv.data());
            if (e == 0) e = errno;
            [[maybe_unused]] const ssize_t w = ::write(errpipe[1], &e, sizeof e);
            ::_exit(127);
        }
        if (pid < 0) spawn_err = errno;
        ::close(errpipe[1]);
        int e = 0;
        if (pid > 0 && ::read(errpipe[0], &e, sizeof e) == static_cast<ssize_t>(sizeof e)) {
            spawn_err = e;
            ::waitpid(pid, nullptr, 0);
        }
        ::close(errpipe[0]);
    }
#endif
    ::close(pipefd[1]);
    if (spawn_err != 0) {
        ::close(pipefd[0]);
        throw IoError(fmt::format("cannot run {} in {}: {}", exe.string(), cwd.string(), std::strerror(spawn_err)));
    }
    TerminateOnInterrupt stop(pid);
    Finished r;
    char buf[4096];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd p{pipefd[0], POLLIN, 0};
        const int ready = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000))) : 0;
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) {
            if (std::chrono::steady_clock::now() < deadline) continue;
            r.timed_out = true;  // hung: kill its group (gnuplot and anything it started)
            ::kill(-pid, SIGKILL);
            ::kill(pid, SIGKILL);
            break;
        }
        const ssize_t n = ::read(pipefd[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (r.output.size() < 65536) r.output.append(buf, static_cast<std::size_t>(n));
    }
    ::close(pipefd[0]);
    while (::waitpid(pid, &r.status, 0) < 0) {
        if (errno != EINTR) {
            r.status = -1;
            break;
        }
    }
    return r;
}

std::string describe(int status) {
    if (status == -1) return "status unknown";
    if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
    return "stopped";
}

void check_name(const std::string& name) {
    bool ok = !name.empty() && name != "." && name != "..";
    for (unsigned char c : name) ok = ok && c >= 0x20 && c != 0x7f && c != '/' && c != '\'' && c != '"' && c != '\\';
    if (!ok) throw std::invalid_argument(fmt::format("figure name '{}' is not a plain file name", name));
}

std::string script(const Figure& f, const std::string& png, const std::string& svg) {
    return fmt::format(
        "set terminal pngcairo size 1000,700 enhanced font \",11\"\n"
        "set output '{}'\n{}\n"
        "set terminal svg size 1000,700 enhanced font \",11\" background rgb 'white'\n"
        "set output '{}'\nreplot\nunset output\n",
        png, f.body, svg);
}

std::string format_seconds(double t) { return fmt::format("{:g}", t); }

bool non_empty_file(const fs::path& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

}  // namespace

std::optional<fs::path> find_gnuplot() {
    const char* env = std::getenv("PATH");
    const std::string path = env ? env : "/usr/local/bin:/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find(':', start);
        if (end == std::string::npos) end = path.size();
        const std::string dir = path.substr(start, end - start);
        start = end + 1;
        if (dir.empty()) continue;  // "the current folder": never run a gnuplot found there
        const fs::path candidate = fs::path(dir) / "gnuplot";
        struct stat st {};
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
            std::error_code ec;
            const fs::path abs = fs::absolute(candidate, ec);  // the child changes folder before exec
            return ec ? candidate : abs;
        }
    }
    return std::nullopt;
}

bool gnuplot_available() { return find_gnuplot().has_value(); }

double gnuplot_timeout() {
    const char* env = std::getenv("RHOFLOW_GNUPLOT_TIMEOUT");
    if (!env || !*env) return kGnuplotTimeout;
    char* end = nullptr;
    const double t = std::strtod(env, &end);
    if (end == env || *end != '\0' || !(t > 0) || !std::isfinite(t))
        throw std::invalid_argument(fmt::format("RHOFLOW_GNUPLOT_TIMEOUT = '{}' is not a number of seconds > 0", env));
    return t;
}

std::vector<std::string> render_figures(const fs::path& dir, const std::vector<Figure>& figures, bool render,
                                        const std::vector<std::string>& provenance) {
    for (const auto& f : figures) check_name(f.name);
    std::vector<std::string> status;
    const std::optional<fs::path> gnuplot = render ? find_gnuplot() : std::nullopt;
    const double timeout = gnuplot ? gnuplot_timeout() : 0.0;
    for (const auto& f : figures) {
        std::string user = fmt::format("# {0}: regenerate with `gnuplot {0}.gp` in this directory.\n", f.name);
        for (const auto& line : provenance) user += fmt::format("# {}\n", line);  // one line each (provenance_lines)
        user += script(f, f.name + ".png", f.name + ".svg");
        write_file_atomic(dir / (f.name + ".gp"), user);
        if (!gnuplot) {
            status.push_back(render ? fmt::format("warning: {0}: gnuplot not found on the PATH, figure not rendered; data "
                                                  "and {0}.gp written (apt-get install gnuplot-nox, then run gnuplot "
                                                  "{0}.gp in {1})",
                                                  f.name, dir.string())
                                    : fmt::format("{}: data and {}.gp written (not rendered)", f.name, f.name));
            continue;
        }
        const fs::path png = dir / (f.name + ".png"), svg = dir / (f.name + ".svg");
        remove_stale_temporaries(png);  // images of a killed run (the script's are removed by its write)
        remove_stale_temporaries(svg);
        const fs::path png_tmp = detail::temporary_sibling(png), svg_tmp = detail::temporary_sibling(svg);
        const fs::path run = detail::temporary_sibling(dir / (f.name + ".gp"));
        RemoveOnInterrupt g1(png_tmp, png.string()), g2(svg_tmp, svg.string()), g3(run, png.string());
        auto remove_temporaries = [&] {
            std::error_code ec;
            for (const auto* p : {&png_tmp, &svg_tmp, &run}) fs::remove(*p, ec);
        };
        Finished done;
        try {
            write_file_atomic(run, script(f, png_tmp.filename().string(), svg_tmp.filename().string()));
            done = run_captured(*gnuplot, {"gnuplot", run.filename().string()}, dir, timeout);
        } catch (...) {
            remove_temporaries();
            throw;
        }
        std::error_code ec;
        fs::remove(run, ec);
        if (done.timed_out) {
            remove_temporaries();
            throw IoError(fmt::format("gnuplot ({}) did not finish {} within {} s and was killed (the data and the "
                                      "script are kept: run gnuplot {}.gp in that folder; RHOFLOW_GNUPLOT_TIMEOUT sets "
                                      "the limit)",
                                      gnuplot->string(), (dir / (f.name + ".gp")).string(), format_seconds(timeout),
                                      f.name));
        }
        const bool ok = done.status != -1 && WIFEXITED(done.status) && WEXITSTATUS(done.status) == 0;
        if (!ok || !non_empty_file(png_tmp) || !non_empty_file(svg_tmp)) {
            remove_temporaries();
            std::string msg = done.output;
            while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
            throw IoError(fmt::format("gnuplot ({}) failed on {} ({}){}{}", gnuplot->string(),
                                      (dir / (f.name + ".gp")).string(), describe(done.status),
                                      ok ? ": it wrote no image" : "", msg.empty() ? "" : ":\n" + msg));
        }
        if (::rename(png_tmp.c_str(), png.c_str()) != 0 || ::rename(svg_tmp.c_str(), svg.c_str()) != 0) {
            const int err = errno;
            remove_temporaries();
            detail::throw_io("cannot rename the rendered images into " + png.string() + " and " + svg.string(), err);
        }
        status.push_back(fmt::format("{}: {}.png and {}.svg", f.name, f.name, f.name));
    }
    return status;
}

}  // namespace rhoflow
