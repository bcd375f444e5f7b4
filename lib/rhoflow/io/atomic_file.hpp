// Output files that appear whole or not at all.
//
// write_file_atomic(path, content) guarantees, for a regular file (or a name not yet taken):
//  - the content goes to a temporary file beside the target, is flushed to disk (fsync), and
//    is then renamed over the target, and the directory is synced: a reader sees the old file
//    or the new one, never a part of either, even if the process dies at any point;
//  - an existing file keeps its permission bits (rwx for user, group, other) and, best effort,
//    its owner; a new file gets 0666 & ~umask, like a file the shell creates;
//  - a symbolic link is followed: the file it points to is replaced and the link stays a link
//    (a dangling link gets its target created);
//  - a file the caller may not write (e.g. chmod a-w) is not replaced: IoError;
//  - on any error the temporary file is removed and IoError names the path and the reason.
// Anything else is never replaced by a regular file:
//  - a character device (/dev/null, /dev/full, a terminal) or a FIFO is opened and written
//    directly, streaming; a FIFO is opened without blocking and, while no process has it open
//    for reading, retried for kFifoReaderWait (5) seconds, then refused (IoError "it is a FIFO
//    with no reader"), never waited for forever; a failed write (/dev/full: "No space left on
//    device"; a FIFO whose reader left: "Broken pipe", with no SIGPIPE raised) is an IoError;
//  - a directory, a block device or a socket is refused with IoError.
// Missing parent directories are created. A file with several hard links is replaced under
// this name only (the other links keep the old content); ACLs and extended attributes are not
// copied.
//
// Temporaries are named `.NAME.tmp.PID.HOST.N` (NAME the target's name, PID the writing
// process, HOST 8 hex digits identifying the machine, N a counter). While they exist they are
// registered with interrupt.hpp, so SIGINT/SIGTERM remove them once the program enabled that.
// A process killed outright (SIGKILL, power loss) cannot remove them: the next write of the
// same target (or StagedDirectory of the same folder) removes those of its NAME whose process
// is no longer running on this machine (remove_stale_temporaries).
#pragma once

#include <exception>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace rhoflow {

/// A failure to read or write files (the CLI maps it, like any std::runtime_error, to exit 1).
class IoError : public std::runtime_error {
public:
    /// `message` names the path and the reason.
    explicit IoError(const std::string& message) : std::runtime_error(message) {}
};

/// The message of an exception without a library's own wording: a std::filesystem error as
/// "PATH[ and PATH2]: reason", a nlohmann JSON error without its "[json.exception.KIND.N] "
/// prefix, any other exception's what(). For messages that must name the file, not the library.
std::string plain_message(const std::exception& e);

/// How long (seconds) writing to a FIFO waits for a reader to open it.
inline constexpr int kFifoReaderWait = 5;

/// Writes `content` to `path` as described above; throws IoError naming the path on failure.
void write_file_atomic(const std::filesystem::path& path, const std::string& content);

/// Checks, before any work, that write_file_atomic(path, ...) could succeed as far as can be told
/// now: the name is not empty and not a directory, block device or socket, an existing file is
/// writable, and the nearest existing folder on the way is a folder this process may write.
/// Throws IoError naming the path and the reason; creates nothing.
void check_file_writable(const std::filesystem::path& path);

/// Removes the temporaries `.NAME.tmp.PID.HOST.N` beside `target` (NAME its file name) left by
/// processes of this machine that are no longer running; returns how many it removed. Never throws.
/// With `extensions`, those named `.NAME.tmp.PID.HOST.N` + one of them instead (a stem that a
/// program such as gnuplot's cairolatex completes into several files).
int remove_stale_temporaries(const std::filesystem::path& target, const std::vector<std::string>& extensions = {}) noexcept;

}  // namespace rhoflow
