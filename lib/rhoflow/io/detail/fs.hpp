// Internal helpers of the io folder's file handling (atomic files, staged folders, figures):
// temporary names, path resolution, fsync, errno messages. Not installed.
#pragma once

#include <cerrno>
#include <filesystem>
#include <unistd.h>
#include <string>
#include <vector>

namespace rhoflow::detail {

/// Throws IoError "<what>: <strerror(err)>".
[[noreturn]] void throw_io(const std::string& what, int err);

/// `p` with trailing separators, "." and ".." resolved lexically (made absolute only when its
/// last component is "." or ".."), then symbolic links of its last component followed (up to
/// 40; ELOOP beyond). Throws IoError for an empty path or the root.
std::filesystem::path resolve_output_path(const std::filesystem::path& p);

/// A fresh name `.NAME.tmp.PID.HOST.N` in the directory of `target` (NAME its file name).
std::filesystem::path temporary_sibling(const std::filesystem::path& target);

/// True when `file_name` is a temporary of `name` (see temporary_sibling) made by a process of
/// this machine that is no longer running; with `extensions`, one of them must follow the counter
/// (`.NAME.tmp.PID.HOST.N.tex`: what cairolatex makes of a temporary stem), and nothing else may.
bool is_stale_temporary(const std::string& file_name, const std::string& name,
                        const std::vector<std::string>& extensions = {});

/// fsync of a file or directory opened read-only; returns 0 or the errno.
int fsync_path(const std::filesystem::path& p) noexcept;

/// The parent directory of `p`, "." when it has none.
std::filesystem::path parent_dir(const std::filesystem::path& p);

/// A file descriptor closed when it goes out of scope.
struct Fd {
    int fd = -1;  ///< the descriptor, -1 when none
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
    /// Closes it now: 0 or the errno of close (NFS reports write errors there).
    int close() noexcept {
        const int f = fd;
        fd = -1;
        return ::close(f) == 0 ? 0 : errno;
    }
};

}  // namespace rhoflow::detail
