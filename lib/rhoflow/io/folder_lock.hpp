// An advisory lock on an output folder, so that two processes never build the same folder at
// once (two `rhoflow run` of one experiment: each would take the other's cells for its own).
//
// The lock is flock(LOCK_EX | LOCK_NB) on a lock file `.NAME.lock` beside the folder FINAL
// (NAME its name), created with O_NOFOLLOW (a symbolic link in its place is refused, never
// followed) and checked to be a regular file. The holder writes "PID HOST" into it; a process
// that finds the lock held fails at once with FolderBusy naming that pid and host, and changes
// nothing. The kernel releases the lock when its holder exits in any way (SIGKILL and crashes
// included), so a lock file left behind never blocks anyone: the next run takes it over. The
// destructor removes the lock file, then releases the lock; a lock taken meanwhile on the old
// file is noticed (the name no longer leads to the file locked) and retried.
//
// Limits: advisory (a process that does not take it is not stopped); on network file systems
// flock is as reliable as the server's locks (NFS emulates it with fcntl locks).
#pragma once

#include <filesystem>
#include <string>

#include "rhoflow/io/atomic_file.hpp"

namespace rhoflow {

/// Another process holds the lock of an output folder (an IoError: the CLI's exit 1).
class FolderBusy : public IoError {
public:
    /// `message` names the folder and the holder.
    explicit FolderBusy(const std::string& message) : IoError(message) {}
};

/// The lock of one output folder, held while alive (see above).
class FolderLock {
public:
    /// Takes the lock of `folder` (creating missing parent folders and the lock file); throws
    /// FolderBusy if another process holds it, IoError if the lock file cannot be made or locked.
    explicit FolderLock(const std::filesystem::path& folder);
    /// Removes the lock file and releases the lock; never throws.
    ~FolderLock();
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

    /// The lock file, `.NAME.lock` beside the folder.
    const std::filesystem::path& path() const noexcept { return path_; }
    /// The lock file of `folder`: `.NAME.lock` in its parent.
    static std::filesystem::path lock_file(const std::filesystem::path& folder);

private:
    std::filesystem::path path_;
    int fd_ = -1;
};

}  // namespace rhoflow
