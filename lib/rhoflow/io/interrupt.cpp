#include "rhoflow/io/interrupt.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <pthread.h>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <vector>

namespace rhoflow {

namespace {

namespace fs = std::filesystem;

struct Entry {
    std::uint64_t id = 0;
    fs::path path;     // a temporary to remove (empty for a child process)
    fs::path where;    // the same, absolute and normalised: to tell nested temporaries
    std::string name;  // the output it stands for
    pid_t pid = 0;     // a child process to terminate (0 for a temporary)
};

struct Registry {
    std::mutex mutex;
    std::vector<Entry> entries;
    std::uint64_t next_id = 1;
};

// Never destroyed: the handling thread may use it while static destructors run at exit.
Registry& registry() {
    static Registry* r = new Registry;
    return *r;
}

std::uint64_t add(Entry e) {
    if (!e.path.empty()) {
        std::error_code ec;
        e.where = fs::absolute(e.path, ec).lexically_normal();
        if (ec) e.where = e.path.lexically_normal();
    }
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    e.id = r.next_id++;
    r.entries.push_back(std::move(e));
    return r.entries.back().id;
}

void remove_entry(std::uint64_t id) noexcept {
    if (id == 0) return;
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = std::find_if(r.entries.begin(), r.entries.end(), [&](const Entry& e) { return e.id == id; });
    if (it != r.entries.end()) r.entries.erase(it);
}

std::atomic<bool> enabled{false};
std::atomic<bool> work_over{false};  // interrupt_work_done() was called

const char* signal_name(int sig) {
    switch (sig) {
        case SIGINT: return "SIGINT";
        case SIGTERM: return "SIGTERM";
        case SIGHUP: return "SIGHUP";
        default: return "signal";
    }
}

bool inside(const fs::path& p, const fs::path& dir) {
    auto d = dir.begin(), q = p.begin();
    for (; d != dir.end(); ++d, ++q)
        if (q == p.end() || *q != *d) return false;
    return q != p.end();
}

void write_stderr(const std::string& s) noexcept {
    const char* p = s.data();
    std::size_t left = s.size();
    while (left > 0) {
        const ssize_t n = ::write(STDERR_FILENO, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        p += n;
        left -= static_cast<std::size_t>(n);
    }
}

[[noreturn]] void clean_up_and_exit(int sig, const std::string& program) {
    Registry& r = registry();
    r.mutex.lock();  // held until _exit: nothing registers, commits or unregisters meanwhile
    for (const auto& e : r.entries)
        if (e.pid > 0) ::kill(e.pid, SIGTERM);
    // Passes 20 ms apart until one finds nothing: a thread that registered its temporary just
    // before the lock was taken may still be creating it (or its folder); new ones now block.
    std::vector<std::uintmax_t> count(r.entries.size(), 0);
    std::vector<std::error_code> error(r.entries.size());
    for (int pass = 0; pass < 10; ++pass) {
        if (pass > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        std::uintmax_t found = 0;
        for (std::size_t i = r.entries.size(); i-- > 0;) {  // innermost (latest) first
            if (r.entries[i].path.empty()) continue;
            for (int attempt = 0; attempt < 3; ++attempt) {  // a writer may add a file meanwhile
                const std::uintmax_t k = fs::remove_all(r.entries[i].path, error[i]);
                if (k != static_cast<std::uintmax_t>(-1)) {
                    count[i] += k;
                    found += k;
                }
                if (!error[i]) break;
            }
        }
        if (pass > 0 && found == 0) break;
    }
    std::vector<std::string> removed, failed;
    for (std::size_t i = r.entries.size(); i-- > 0;) {
        const Entry& e = r.entries[i];
        if (e.path.empty()) continue;
        const std::error_code& ec = error[i];
        const std::uintmax_t n = count[i];
        const bool nested = std::any_of(r.entries.begin(), r.entries.end(), [&](const Entry& o) {
            return !o.path.empty() && o.id != e.id && inside(e.where, o.where);
        });
        if (ec)
            failed.push_back(e.path.string() + " (" + ec.message() + ")");
        else if (n > 0 && !nested && std::find(removed.begin(), removed.end(), e.name) == removed.end())
            removed.push_back(e.name);
    }
    if (work_over.load() && removed.empty() && failed.empty()) ::_exit(128 + sig);  // nothing was cut short
    std::string msg = program + ": interrupted (" + signal_name(sig) + ")";
    auto list = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
        return s;
    };
    // Oldest first in the message: the order in which the outputs were begun.
    std::reverse(removed.begin(), removed.end());
    if (!removed.empty()) msg += "; removed partial output " + list(removed);
    if (!failed.empty()) msg += "; could not remove " + list(failed);
    write_stderr(msg + "\n");
    ::_exit(128 + sig);
}

}  // namespace

RemoveOnInterrupt::RemoveOnInterrupt(fs::path temporary, std::string name)
    : id_(add(Entry{0, std::move(temporary), {}, std::move(name), 0})) {}

RemoveOnInterrupt::~RemoveOnInterrupt() { release(); }

RemoveOnInterrupt::RemoveOnInterrupt(RemoveOnInterrupt&& other) noexcept : id_(other.id_) { other.id_ = 0; }

RemoveOnInterrupt& RemoveOnInterrupt::operator=(RemoveOnInterrupt&& other) noexcept {
    if (this != &other) {
        release();
        id_ = other.id_;
        other.id_ = 0;
    }
    return *this;
}

void RemoveOnInterrupt::release() noexcept {
    remove_entry(id_);
    id_ = 0;
}

TerminateOnInterrupt::TerminateOnInterrupt(pid_t pid) : id_(add(Entry{0, {}, {}, {}, pid})) {}

TerminateOnInterrupt::~TerminateOnInterrupt() { remove_entry(id_); }

void without_interrupt_cleanup(const std::function<void()>& f) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    f();
}

bool interrupt_cleanup_enabled() noexcept { return enabled.load(); }

void interrupt_work_done() noexcept { work_over.store(true); }

void enable_interrupt_cleanup(const std::string& program) {
    if (enabled.exchange(true)) return;
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction old{};
        if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // nohup, `cmd &`
        sigaddset(&set, sig);
    }
    if (const int err = ::pthread_sigmask(SIG_BLOCK, &set, nullptr); err != 0) {
        enabled = false;
        throw std::runtime_error(std::string("cannot block interrupt signals: ") + std::strerror(err));
    }
    // A program ending normally (main returns, exit()) waits here for a cleanup in progress,
    // which ends the process with 128 + signal; past this point no cleanup starts.
    std::atexit([] { registry().mutex.lock(); });
    try {
        std::thread([set, program] {
            for (;;) {
                int sig = 0;
                if (::sigwait(&set, &sig) == 0) clean_up_and_exit(sig, program);
            }
        }).detach();
    } catch (const std::system_error& e) {
        ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
        enabled = false;
        throw std::runtime_error(std::string("cannot start the interrupt handling thread: ") + e.what());
    }
}

}  // namespace rhoflow
