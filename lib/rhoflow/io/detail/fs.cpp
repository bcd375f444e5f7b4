#include "rhoflow/io/detail/fs.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rhoflow/io/atomic_file.hpp"

namespace rhoflow::detail {

namespace fs = std::filesystem;

namespace {

// 8 hex digits naming this machine (FNV-1a of its host name), so that a directory shared by
// several machines never has one machine remove another's live temporaries.
const std::string& host_tag() {
    static const std::string tag = [] {
        char name[256] = {};
        if (::gethostname(name, sizeof name - 1) != 0) std::strcpy(name, "unknown");
        std::uint32_t h = 2166136261u;
        for (const char* c = name; *c; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 16777619u;
        return fmt::format("{:08x}", h);
    }();
    return tag;
}

bool all_of(const std::string& s, bool (*ok)(char)) {
    if (s.empty()) return false;
    for (char c : s)
        if (!ok(c)) return false;
    return true;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

void throw_io(const std::string& what, int err) { throw IoError(what + ": " + std::strerror(err)); }

fs::path parent_dir(const fs::path& p) { return p.has_parent_path() ? p.parent_path() : fs::path("."); }

fs::path resolve_output_path(const fs::path& given) {
    if (given.empty()) throw IoError("empty output path");
    // "a/b/" -> "a/b"; "x/.." and "." -> the absolute directory they name; the root is refused.
    auto normal = [&](fs::path q) {
        auto strip = [](fs::path& r) {
            while (!r.has_filename() && r.has_relative_path()) r = r.parent_path();
        };
        q = q.lexically_normal();
        strip(q);
        if (q.filename() == "." || q.filename() == "..") {
            std::error_code ec;
            const fs::path a = fs::absolute(q, ec);
            if (ec) throw IoError(fmt::format("cannot resolve {}: {}", given.string(), ec.message()));
            q = a.lexically_normal();
        }
        strip(q);
        if (!q.has_relative_path())
            throw IoError(fmt::format("cannot write to {}: it names a root directory", given.string()));
        return q;
    };
    fs::path p = normal(given);
    for (int hops = 0;; ++hops) {
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
        if (hops == 40) throw_io(given.string(), ELOOP);
        std::error_code ec;
        const fs::path target = fs::read_symlink(p, ec);
        if (ec) throw IoError(fmt::format("cannot read the symbolic link {}: {}", p.string(), ec.message()));
        p = normal(target.is_absolute() ? target : parent_dir(p) / target);
    }
}

fs::path temporary_sibling(const fs::path& target) {
    static std::atomic<unsigned long> counter{0};
    const std::string name =
        fmt::format(".{}.tmp.{}.{}.{}", target.filename().string(), ::getpid(), host_tag(), counter.fetch_add(1));
    return target.has_parent_path() ? target.parent_path() / name : fs::path(name);
}

bool is_stale_temporary(const std::string& file_name, const std::string& name, const std::vector<std::string>& extensions) {
    const std::string prefix = "." + name + ".tmp.";
    if (file_name.size() <= prefix.size() || file_name.compare(0, prefix.size(), prefix) != 0) return false;
    std::string rest = file_name.substr(prefix.size());  // PID.HOST.N, then one of `extensions` if given
    if (!extensions.empty()) {
        bool ends = false;
        for (const auto& x : extensions)
            if (!ends && rest.size() > x.size() && rest.compare(rest.size() - x.size(), x.size(), x) == 0) {
                rest.erase(rest.size() - x.size());
                ends = true;
            }
        if (!ends) return false;
    }
    const auto a = rest.find('.'), b = rest.find('.', a == std::string::npos ? a : a + 1);
    if (a == std::string::npos || b == std::string::npos) return false;
    const std::string pid = rest.substr(0, a), host = rest.substr(a + 1, b - a - 1), n = rest.substr(b + 1);
    if (!all_of(pid, is_digit) || pid.size() > 9 || host != host_tag() || !all_of(n, is_digit)) return false;
    const long p = std::stol(pid);
    if (p <= 0 || p == ::getpid()) return false;
    return ::kill(static_cast<pid_t>(p), 0) != 0 && errno == ESRCH;  // EPERM: alive, another user's
}

int fsync_path(const fs::path& p) noexcept {
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return errno;
    int err = ::fsync(fd) == 0 ? 0 : errno;
    if (err == EINVAL || err == EROFS) err = 0;  // no sync for this kind of file: nothing to wait for
    ::close(fd);
    return err;
}

}  // namespace rhoflow::detail
