#include "stdout.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <streambuf>
#include <unistd.h>

#include "rhoflow/io/atomic_file.hpp"

namespace rhoflow::cli {

namespace {

// A buffer writing to descriptor 1; after the first failed write every later one fails too (the
// stream's badbit is then set) and error() keeps the errno of the first.
class CheckedBuffer : public std::streambuf {
public:
    CheckedBuffer() { setp(buf_, buf_ + sizeof buf_); }
    int error() const noexcept { return error_; }
    void set_error(int e) noexcept {
        if (!error_) error_ = e;
    }

protected:
    int_type overflow(int_type c) override {
        if (drain() != 0) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return drain(); }

private:
    int drain() noexcept {
        const char* p = pbase();
        std::size_t left = static_cast<std::size_t>(pptr() - pbase());
        setp(buf_, buf_ + sizeof buf_);
        if (error_) return -1;
        while (left > 0) {
            const ssize_t n = ::write(STDOUT_FILENO, p, left);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                set_error(n < 0 ? errno : EIO);
                return -1;
            }
            p += n;
            left -= static_cast<std::size_t>(n);
        }
        return 0;
    }

    char buf_[1 << 16];
    int error_ = 0;
};

CheckedBuffer* g_buffer = nullptr;
bool g_closed = false;

bool is_open(int fd) noexcept { return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

}  // namespace

void install_checked_stdout() {
    for (int fd = 0; fd <= 2; ++fd) {
        if (is_open(fd)) continue;
        if (fd == STDOUT_FILENO) g_closed = true;
        const int null = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (null >= 0 && null != fd) {
            ::dup2(null, fd);
            ::close(null);
        }
    }
    // Never destroyed: std::cout is flushed by the runtime's own static destructors, after every
    // function-local static of ours is gone (a static buffer here was used after its destruction
    // at exit: AddressSanitizer's SEGV in std::ios_base::Init::~Init). Reachable through
    // g_buffer, so not a leak.
    static CheckedBuffer* const buffer = new CheckedBuffer;
    g_buffer = buffer;
    if (g_closed) buffer->set_error(EBADF);
    std::cout.rdbuf(buffer);
}

bool stdout_closed() noexcept { return g_closed; }

std::string flush_stdout() {
    std::cout.flush();
    if (g_buffer && std::cout.rdbuf() == g_buffer && g_buffer->error())
        return std::string("writing standard output: ") + std::strerror(g_buffer->error()) +
               (g_closed ? " (standard output is closed)" : "");
    if (!std::cout) return "writing standard output failed";
    return "";
}

void check_stdout() {
    const std::string e = flush_stdout();
    if (!e.empty()) throw IoError(e);
}

}  // namespace rhoflow::cli
