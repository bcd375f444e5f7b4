#include "rhoflow/io/atomic_file.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pthread.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "rhoflow/io/detail/fs.hpp"
#include "rhoflow/io/interrupt.hpp"

namespace rhoflow {

namespace {

namespace fs = std::filesystem;
using detail::Fd;

// Removes the temporary file on every exit but the successful rename.
struct Unlink {
    fs::path path;
    bool armed = true;
    ~Unlink() {
        if (armed) ::unlink(path.c_str());
    }
};

// Writes all of `content`; returns 0 or the errno. A reader that has gone (FIFO, pipe) gives
// EPIPE instead of killing the process: SIGPIPE is blocked in this thread meanwhile, and the one
// the write raised is consumed.
int write_all(int fd, const std::string& content) noexcept {
    sigset_t pipe_set, old_mask, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);
    sigemptyset(&pending);
    ::sigpending(&pending);
    const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
    const char* p = content.data();
    std::size_t left = content.size();
    int err = 0;
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            err = errno;
            break;
        }
        if (n == 0) {
            err = EIO;
            break;
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    if (err == EPIPE && !was_pending) {
        const timespec zero{0, 0};
        ::sigtimedwait(&pipe_set, nullptr, &zero);
    }
    ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
    return err;
}

// Opens a FIFO for writing without blocking forever: with no reader, open(2) with O_NONBLOCK
// fails at once with ENXIO; that is retried every 20 ms for kFifoReaderWait seconds, then
// refused naming the FIFO. Once open, the descriptor blocks again (writes wait for the reader).
int open_fifo(const fs::path& path) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kFifoReaderWait);
    for (;;) {
        const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
        if (fd >= 0) {
            const int flags = ::fcntl(fd, F_GETFL);
            if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
                const int err = errno;
                ::close(fd);
                detail::throw_io("cannot write " + path.string(), err);
            }
            return fd;
        }
        const int err = errno;
        if (err == EINTR) continue;
        if (err != ENXIO) detail::throw_io("cannot open " + path.string() + " for writing", err);
        if (std::chrono::steady_clock::now() >= deadline)
            throw IoError(fmt::format("cannot write {}: it is a FIFO with no reader (waited {} s for a process to open "
                                      "it for reading)",
                                      path.string(), kFifoReaderWait));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

// A character device or a FIFO: written in place, never replaced.
void write_stream(const fs::path& path, const std::string& content) {
    Fd fd;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode)) {
        fd.fd = open_fifo(path);
    } else {
        do fd.fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
        while (fd.fd < 0 && errno == EINTR);
    }
    if (fd.fd < 0) {
        const int err = errno;
        detail::throw_io("cannot open " + path.string() + " for writing", err);
    }
    if (const int err = write_all(fd.fd, content)) detail::throw_io("cannot write " + path.string(), err);
    if (const int err = fd.close()) detail::throw_io("cannot write " + path.string(), err);
}

}  // namespace

std::string plain_message(const std::exception& e) {
    if (const auto* f = dynamic_cast<const fs::filesystem_error*>(&e)) {
        std::string paths = f->path1().string();
        if (!f->path2().empty()) paths += " and " + f->path2().string();
        return paths.empty() ? f->code().message() : paths + ": " + f->code().message();
    }
    std::string s = e.what();
    if (dynamic_cast<const nlohmann::json::exception*>(&e) && s.rfind("[json.exception.", 0) == 0)
        if (const auto close = s.find("] "); close != std::string::npos) s.erase(0, close + 2);
    return s;
}

void check_file_writable(const fs::path& path) {
    if (path.empty()) throw IoError("cannot write a file with an empty name");
    if (!path.has_filename()) throw IoError(fmt::format("cannot write {}: it names a directory", path.string()));
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return;  // streamed into, as write_file_atomic does
        if (!S_ISREG(st.st_mode))
            throw IoError(fmt::format("cannot write {}: it is {}", path.string(),
                                      S_ISDIR(st.st_mode) ? "a directory" : "not a regular file"));
        if (::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0) {
            const int err = errno;
            detail::throw_io("will not replace " + path.string(), err);
        }
    }
    // The nearest existing ancestor must be a folder we may create entries in.
    fs::path dir = detail::parent_dir(fs::absolute(path));
    while (::stat(dir.c_str(), &st) != 0 && dir.has_parent_path() && dir.parent_path() != dir) dir = dir.parent_path();
    if (!S_ISDIR(st.st_mode))
        throw IoError(fmt::format("cannot write {}: {} is not a directory", path.string(), dir.string()));
    if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
        const int err = errno;
        detail::throw_io(fmt::format("cannot write {}: cannot create files in {}", path.string(), dir.string()), err);
    }
}

void write_file_atomic(const fs::path& path, const std::string& content) {
    if (path.empty()) throw IoError("cannot write a file with an empty name");
    if (!path.has_filename()) throw IoError(fmt::format("cannot write {}: it names a directory", path.string()));
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {  // follows symbolic links
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return write_stream(path, content);
        throw IoError(fmt::format("cannot write {}: it is {}", path.string(),
                                  S_ISDIR(st.st_mode)   ? "a directory"
                                  : S_ISBLK(st.st_mode) ? "a block device (refused: rhoflow writes files, not disks)"
                                                        : "neither a regular file, a character device nor a FIFO"));
    }
    const fs::path target = detail::resolve_output_path(path);
    const fs::path dir = detail::parent_dir(target);
    const fs::path tmp = detail::temporary_sibling(target);
    // Registered before anything is created: once an interruption's cleanup has begun, this
    // blocks until the process exits instead of recreating a folder the cleanup removed.
    RemoveOnInterrupt guard(tmp, path.string());
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw IoError(fmt::format("cannot create the directory {} for {}: {}", dir.string(), path.string(), ec.message()));
    remove_stale_temporaries(target);

    struct stat old {};
    const bool existing = ::lstat(target.c_str(), &old) == 0;
    if (existing) {
        if (!S_ISREG(old.st_mode)) throw IoError(fmt::format("cannot write {}: it is not a regular file", path.string()));
        if (::faccessat(AT_FDCWD, target.c_str(), W_OK, AT_EACCESS) != 0) {
            const int err = errno;
            detail::throw_io("will not replace " + path.string(), err);
        }
    }
    Unlink unlink{tmp};  // declared before the descriptor: closed first, then removed
    Fd fd;
    fd.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, existing ? 0600 : 0666);
    if (fd.fd < 0) {
        const int err = errno;
        unlink.armed = false;
        detail::throw_io(fmt::format("cannot write {}: cannot create a temporary file in {}", path.string(), dir.string()),
                         err);
    }
    if (const int err = write_all(fd.fd, content)) detail::throw_io("cannot write " + path.string(), err);
    if (existing) {
        if (old.st_uid != ::geteuid() || old.st_gid != ::getegid()) {
            if (::fchown(fd.fd, old.st_uid, old.st_gid) != 0) {
                // best effort: only root may give a file away
            }
        }
        if (::fchmod(fd.fd, old.st_mode & 0777) != 0) {
            const int err = errno;
            detail::throw_io("cannot give " + tmp.string() + " the permissions of " + path.string(), err);
        }
    }
    if (::fsync(fd.fd) != 0) {
        const int err = errno;
        detail::throw_io("cannot write " + path.string() + " to disk", err);
    }
    if (const int err = fd.close()) detail::throw_io("cannot write " + path.string(), err);
    struct stat now {};  // something other than a file may have appeared meanwhile: never replace it
    if (::lstat(target.c_str(), &now) == 0 && !S_ISREG(now.st_mode))
        throw IoError(fmt::format("cannot write {}: it is no longer a regular file", path.string()));
    if (::rename(tmp.c_str(), target.c_str()) != 0) {
        const int err = errno;
        detail::throw_io(fmt::format("cannot rename {} to {}", tmp.string(), target.string()), err);
    }
    unlink.armed = false;
    guard.release();
    detail::fsync_path(dir);  // best effort: the new file is in place either way
}

int remove_stale_temporaries(const fs::path& target, const std::vector<std::string>& extensions) noexcept {
    try {
        const std::string name = target.filename().string();
        if (name.empty()) return 0;
        int removed = 0;
        std::error_code ec;
        for (fs::directory_iterator it(detail::parent_dir(target), ec), end; !ec && it != end; it.increment(ec)) {
            if (!detail::is_stale_temporary(it->path().filename().string(), name, extensions)) continue;
            std::error_code ec2;
            if (fs::remove_all(it->path(), ec2) > 0 && !ec2) ++removed;
        }
        return removed;
    } catch (...) {
        return 0;
    }
}

}  // namespace rhoflow
