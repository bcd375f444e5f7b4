#include "rhoflow/io/folder_lock.hpp"

#include <cerrno>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rhoflow/io/detail/fs.hpp"

namespace rhoflow {

namespace fs = std::filesystem;

namespace {

// "PID HOST" of the holder as its lock file says (empty if it wrote nothing yet).
std::string holder(int fd) {
    char buffer[300] = {};
    const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
    std::string s(buffer, n > 0 ? static_cast<std::size_t>(n) : 0);
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

std::string host_name() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
    return name;
}

// Opens (creating) the lock file without following a symbolic link; a regular file only.
int open_lock_file(const fs::path& p, const fs::path& folder) {
    const int fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0) {
        const int err = errno;
        if (err == ELOOP)
            throw IoError(fmt::format("cannot lock the output folder {}: its lock file {} is a symbolic link, which "
                                      "rhoflow never creates; remove it",
                                      folder.string(), p.string()));
        detail::throw_io(fmt::format("cannot create the lock file {} of the output folder {}", p.string(), folder.string()),
                         err);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw IoError(fmt::format("cannot lock the output folder {}: {} is not a regular file; remove it",
                                  folder.string(), p.string()));
    }
    return fd;
}

// Whether the name `p` still leads to the file open as `fd` (not removed or replaced meanwhile).
bool still_named(int fd, const fs::path& p) {
    struct stat a {}, b {};
    return ::fstat(fd, &a) == 0 && ::lstat(p.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

fs::path FolderLock::lock_file(const fs::path& folder) {
    const std::string name = fmt::format(".{}.lock", folder.filename().string());
    return folder.has_parent_path() ? folder.parent_path() / name : fs::path(name);
}

FolderLock::FolderLock(const fs::path& folder) : path_(lock_file(folder)) {
    std::error_code ec;
    fs::create_directories(detail::parent_dir(folder), ec);
    if (ec)
        throw IoError(fmt::format("cannot create the folder {} for {}: {}", detail::parent_dir(folder).string(),
                                  folder.string(), ec.message()));
    for (int attempt = 0; attempt < 100; ++attempt) {
        const int fd = open_lock_file(path_, folder);
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int err = errno;
            if (err != EWOULDBLOCK) {
                ::close(fd);
                detail::throw_io(fmt::format("cannot lock the output folder {} (lock file {})", folder.string(),
                                             path_.string()), err);
            }
            std::string who = holder(fd);
            for (int i = 0; i < 20 && who.empty(); ++i) {  // the holder writes it just after locking
                ::usleep(5000);
                who = holder(fd);
            }
            ::close(fd);
            const auto space = who.find(' ');
            const std::string shown = who.empty() ? "a process that has not said its pid yet"
                                      : space == std::string::npos
                                          ? "pid " + who
                                          : fmt::format("pid {} on host {}", who.substr(0, space), who.substr(space + 1));
            throw FolderBusy(fmt::format("the output folder {} is in use by another rhoflow run ({}; lock file {}): "
                                         "wait for it to end, or choose another output folder",
                                         folder.string(), shown, path_.string()));
        }
        if (!still_named(fd, path_)) {  // its holder removed it as we opened it: lock the new one
            ::close(fd);
            continue;
        }
        const std::string me = fmt::format("{} {}\n", ::getpid(), host_name());
        if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
            const int err = errno;
            ::unlink(path_.c_str());
            ::close(fd);
            detail::throw_io("cannot write the lock file " + path_.string(), err);
        }
        fd_ = fd;
        return;
    }
    throw IoError(fmt::format("cannot lock the output folder {}: its lock file {} keeps being replaced",
                              folder.string(), path_.string()));
}

FolderLock::~FolderLock() {
    if (fd_ < 0) return;
    if (still_named(fd_, path_)) ::unlink(path_.c_str());
    ::close(fd_);
}

}  // namespace rhoflow
