#include "rhoflow/io/output_dir.hpp"

#include <cerrno>
#include <cstdio>  // renameat2
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/detail/fs.hpp"
#include "rhoflow/version.hpp"

namespace rhoflow {

namespace {

namespace fs = std::filesystem;

// Throws IoError unless this process may create and remove entries in the nearest existing
// folder on the way to `target` (and, if `target` exists, in it: its old files go on commit).
void check_writable(const fs::path& given, const fs::path& target) {
    auto refuse = [&](const fs::path& dir, int err) {
        detail::throw_io(fmt::format("cannot write the folder {}: {} may not be written", given.string(), dir.string()),
                         err);
    };
    struct stat st {};
    if (::lstat(target.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
        ::faccessat(AT_FDCWD, target.c_str(), W_OK | X_OK, AT_EACCESS) != 0)
        refuse(target, errno);
    fs::path dir = detail::parent_dir(target);
    while (::stat(dir.c_str(), &st) != 0 && detail::parent_dir(dir) != dir) dir = detail::parent_dir(dir);
    if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0) refuse(dir, errno);
}

// Throws IoError unless a folder may be put at `target` (resolved) now.
void check_replaceable(const fs::path& given, const fs::path& target, Replace replace) {
    if (holds_working_directory(target))
        throw IoError(fmt::format("will not replace the folder {}: it is the working directory or holds it, and "
                                  "replacing it would remove the folder you are in; name another folder",
                                  given.string()));
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0) {
        const int err = errno;
        if (err == ENOENT) return;
        if (err == ENOTDIR)
            throw IoError(fmt::format("cannot write the folder {}: a file that is not a folder is in its path",
                                      given.string()));
        detail::throw_io("cannot examine " + given.string(), err);
    }
    if (!S_ISDIR(st.st_mode))
        throw IoError(fmt::format("cannot write the folder {}: a file that is not a folder has that name (remove it "
                                  "or choose another name)",
                                  given.string()));
    if (replace == Replace::any) return;
    struct stat m {};
    if (::lstat((target / StagedDirectory::marker).c_str(), &m) == 0 && S_ISREG(m.st_mode)) return;
    std::error_code ec;
    if (fs::is_empty(target, ec) && !ec) return;
    throw IoError(fmt::format("will not replace the folder {}: it is not empty and has no {} file, so rhoflow did not "
                              "write it and replacing it would delete its files; remove it or choose another name",
                              given.string(), StagedDirectory::marker));
}

// Writes every file and folder under `root` (and `root`) to disk.
void sync_tree(const fs::path& root) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        const auto type = it->symlink_status(ec).type();
        if (ec) break;
        if (type != fs::file_type::regular && type != fs::file_type::directory) continue;
        if (const int err = detail::fsync_path(it->path())) detail::throw_io("cannot write " + it->path().string() + " to disk", err);
    }
    if (ec) throw IoError(fmt::format("cannot list {}: {}", root.string(), ec.message()));
    if (const int err = detail::fsync_path(root)) detail::throw_io("cannot write " + root.string() + " to disk", err);
}

}  // namespace

std::string with_final_name(std::string message, const fs::path& tmp, const fs::path& final_path) {
    const std::string from = tmp.string(), to = final_path.string();
    const auto continues_name = [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '.' || c == '_' || c == '-';
    };
    for (std::size_t at = from.empty() ? std::string::npos : message.find(from); at != std::string::npos;
         at = message.find(from, at)) {
        const std::size_t end = at + from.size();
        const bool starts = at == 0 || !continues_name(message[at - 1]);
        if (starts && (end == message.size() || !continues_name(message[end]))) {
            message.replace(at, from.size(), to);
            at += to.size();
        } else {
            at = end;
        }
    }
    return message;
}

bool is_within(const fs::path& p, const fs::path& folder) {
    std::error_code ec;
    auto resolved = [&](const fs::path& q) {
        fs::path r = fs::weakly_canonical(fs::absolute(q, ec), ec);
        while (!r.has_filename() && r.has_relative_path()) r = r.parent_path();
        return r;
    };
    const fs::path inner = resolved(p);
    if (ec) return false;
    const fs::path outer = resolved(folder);
    if (ec) return false;
    auto i = inner.begin();
    for (const auto& part : outer) {
        if (i == inner.end() || *i != part) return false;
        ++i;
    }
    return true;
}

bool holds_working_directory(const fs::path& p) {
    std::error_code ec;
    const fs::path cwd = fs::current_path(ec);
    return !ec && is_within(cwd, p);
}

void StagedDirectory::check(const fs::path& final_path, Replace replace) {
    const fs::path target = detail::resolve_output_path(final_path);
    check_replaceable(final_path, target, replace);
    check_writable(final_path, target);
}

StagedDirectory::StagedDirectory(const fs::path& final_path, Replace replace)
    : given_(final_path), final_(detail::resolve_output_path(final_path)), replace_(replace) {
    check_replaceable(given_, final_, replace_);
    check_writable(given_, final_);
    tmp_ = detail::temporary_sibling(final_);
    // Registered before anything is created: nothing escapes the cleanup, and once an
    // interruption's cleanup has begun this blocks until the process exits.
    guard_ = RemoveOnInterrupt(tmp_, given_.string());
    const fs::path dir = detail::parent_dir(final_);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw IoError(fmt::format("cannot create the folder {} for {}: {}", dir.string(), given_.string(), ec.message()));
    remove_stale_temporaries(final_);
    if (::mkdir(tmp_.c_str(), 0777) != 0) {
        const int err = errno;
        detail::throw_io("cannot create the temporary folder " + tmp_.string(), err);
    }
    try {
        const std::string text = fmt::format(
            "This folder was written by rhoflow {}. A new run into it replaces it whole (rhoflow only replaces "
            "folders that hold this file).\n",
            version);
        const fs::path m = tmp_ / marker;
        const int fd = ::open(m.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0) {
            const int err = errno;
            detail::throw_io("cannot create " + m.string(), err);
        }
        const ssize_t n = ::write(fd, text.data(), text.size());
        const int err = n < 0 ? errno : EIO;
        if ((::close(fd) != 0) | (n != static_cast<ssize_t>(text.size()))) detail::throw_io("cannot write " + m.string(), err);
    } catch (...) {
        fs::remove_all(tmp_, ec);
        throw;
    }
}

StagedDirectory::~StagedDirectory() {
    if (committed_) return;
    std::error_code ec;
    fs::remove_all(tmp_, ec);
}

void StagedDirectory::commit() {
    if (committed_) return;
    sync_tree(tmp_);
    check_replaceable(given_, final_, replace_);
    const fs::path aside = detail::temporary_sibling(final_);  // the old folder, where no exchange exists
    RemoveOnInterrupt aside_guard(aside, given_.string());
    int err = 0;
    bool exchanged = false, moved_aside = false;
    without_interrupt_cleanup([&] {
        struct stat st {};
        if (::lstat(final_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
            if (::renameat2(AT_FDCWD, tmp_.c_str(), AT_FDCWD, final_.c_str(), RENAME_EXCHANGE) == 0) {
                exchanged = true;
                return;
            }
            if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) {
                err = errno;
                return;
            }
#endif
            if (::rename(final_.c_str(), aside.c_str()) != 0) {
                err = errno;
                return;
            }
            if (::rename(tmp_.c_str(), final_.c_str()) != 0) {
                err = errno;
                ::rename(aside.c_str(), final_.c_str());  // put the old folder back
                return;
            }
            moved_aside = true;
        } else if (::rename(tmp_.c_str(), final_.c_str()) != 0) {
            err = errno;
        }
    });
    if (err != 0) detail::throw_io(fmt::format("cannot move {} into place as {}", tmp_.string(), given_.string()), err);
    committed_ = true;
    detail::fsync_path(detail::parent_dir(final_));  // best effort: the folder is in place either way
    std::error_code ec;  // the old folder, now under a temporary name: removed (else by a later run)
    if (exchanged) fs::remove_all(tmp_, ec);
    if (moved_aside) fs::remove_all(aside, ec);
    guard_.release();
}

}  // namespace rhoflow
