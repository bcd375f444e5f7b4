#include "rhoflow/io/read_back.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rhoflow/core/cancel.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/detail/fs.hpp"

namespace rhoflow {

namespace {

namespace fs = std::filesystem;

// A name for messages: a NUL shown as \0.
std::string shown(const fs::path& p) {
    std::string s;
    for (char c : p.native()) s += c == '\0' ? std::string("\\0") : std::string(1, c);
    return s;
}

// "4 MiB", "1 GiB", or the bytes.
std::string size_text(std::size_t n) {
    constexpr std::size_t MiB = std::size_t{1} << 20, GiB = std::size_t{1} << 30;
    if (n % GiB == 0) return fmt::format("{} GiB", n / GiB);
    if (n % MiB == 0) return fmt::format("{} MiB", n / MiB);
    return fmt::format("{} bytes", n);
}

class Reader {
public:
    Reader(const fs::path& path, const ReadLimits& limits) : path_(path), limits_(limits) {}

    [[noreturn]] void fail(const std::string& reason) const {
        throw IoError(fmt::format("{}: cannot be read: {}", shown(path_), reason));
    }
    [[noreturn]] void too_large() const {
        throw IoError(fmt::format("{}: more than {} bytes ({}), the limit for {}", shown(path_), limits_.max_bytes,
                                  size_text(limits_.max_bytes), limits_.what));
    }

    void open() {
        if (path_.native().find('\0') != std::string::npos) fail("the name holds a NUL character (no file name can)");
        const int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (limits_.regular_only ? O_NOFOLLOW : 0);
        do fd_.fd = ::open(path_.c_str(), flags);
        while (fd_.fd < 0 && errno == EINTR);
        if (fd_.fd < 0) {
            const int err = errno;
            fail(err == ELOOP && limits_.regular_only ? "it is a symbolic link" : std::strerror(err));
        }
        struct stat st {};
        if (::fstat(fd_.fd, &st) != 0) fail(std::strerror(errno));
        if (S_ISDIR(st.st_mode)) fail("it is a directory");
        if (limits_.regular_only && !S_ISREG(st.st_mode)) fail("not a regular file");
        regular_ = S_ISREG(st.st_mode);
        fifo_ = S_ISFIFO(st.st_mode);
        if (regular_ && static_cast<std::uintmax_t>(st.st_size) > limits_.max_bytes) too_large();
    }

    std::string read_all() {
        std::string text;
        char buffer[65536];
        for (;;) {
            if (!regular_) wait_readable(text.empty());
            const ssize_t n = ::read(fd_.fd, buffer, sizeof buffer);
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (n < 0) fail(std::strerror(errno));
            if (n == 0) return text;
            text.append(buffer, static_cast<std::size_t>(n));
            if (text.size() > limits_.max_bytes) too_large();  // a device such as /dev/zero never ends
        }
    }

private:
    // Waits until the stream has data or its writer left, for at most kFifoWriterWait seconds,
    // in slices that let a cancellation through. A FIFO nobody opened for writing reads as empty,
    // so it is polled first: poll(2) reports it only once a writer came.
    void wait_readable(bool nothing_yet) const {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kFifoWriterWait);
        for (;;) {
            throw_if_cancelled();
            pollfd p{fd_.fd, POLLIN, 0};
            const int r = ::poll(&p, 1, 100);
            if (r > 0) return;
            if (r < 0 && errno != EINTR) fail(std::strerror(errno));
            if (std::chrono::steady_clock::now() < deadline) continue;
            if (fifo_ && nothing_yet)
                fail(fmt::format("it is a FIFO with no writer (waited {} s for a process to write into it)",
                                 kFifoWriterWait));
            fail(fmt::format("no more data came for {} s", kFifoWriterWait));
        }
    }

    const fs::path& path_;
    const ReadLimits& limits_;
    detail::Fd fd_;
    bool regular_ = false, fifo_ = false;
};

// Throws when `text` nests arrays and objects deeper than max_json_depth (strings skipped).
void check_depth(std::string_view text, const std::string& where, const std::string& field) {
    int depth = 0, line = 1, column = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        ++column;
        if (c == '\n') {
            ++line;
            column = 0;
        }
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max_json_depth)
                throw InvalidArgument(field, fmt::format("{} is not a rhoflow document: at line {}, column {}: arrays "
                                                         "and objects nested deeper than {} levels (the limit)",
                                                         where, line, column, max_json_depth));
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
}

}  // namespace

std::string read_untrusted_file(const fs::path& path, const ReadLimits& limits) {
    Reader r(path, limits);
    r.open();
    return r.read_all();
}

nlohmann::json parse_untrusted_json(std::string_view text, const std::string& where, const std::string& field) {
    check_depth(text, where, field);
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        std::string reason = plain_message(e);  // "parse error at line 1, column 2: syntax error ..."
        if (reason.rfind("parse error ", 0) == 0) reason.erase(0, 12);
        else if (reason.rfind("parse error: ", 0) == 0) reason.erase(0, 13);
        throw InvalidArgument(field, fmt::format("{} is not valid JSON: {}", where, reason));
    }
}

std::string without_json_prefixes(std::string message) {
    for (std::size_t at = message.find("[json.exception."); at != std::string::npos;
         at = message.find("[json.exception.", at)) {
        const std::size_t end = message.find("] ", at);
        if (end == std::string::npos) break;
        message.erase(at, end + 2 - at);
    }
    return message;
}

}  // namespace rhoflow
