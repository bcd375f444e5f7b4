// Untrusted files read back (io/read_back.hpp, issue 30 H4, H14): bounded, never hung by a
// FIFO, a directory named as one, JSON errors in rhoflow's words with their position.
#include <doctest/doctest.h>

#include <thread>

#include "rhoflow/core/cancel.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/read_back.hpp"
#include "rhoflow/io/io_test_util.hpp"

using namespace rhoflow;
using namespace rhoflow::test;

namespace {
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("read_back: a regular file is read whole, and over the limit refused from its size") {
    TempDir t("read_back_regular");
    write_text(t / "a.json", "{\"a\": 1}");
    CHECK(read_untrusted_file(t / "a.json") == "{\"a\": 1}");
    const std::string e = error_of<IoError>([&] { read_untrusted_file(t / "a.json", {4, "a test file"}); });
    CHECK(e == (t / "a.json").string() + ": more than 4 bytes (4 bytes), the limit for a test file");
}

TEST_CASE("read_back: /dev/zero is refused at the limit, not read without bound") {
    const std::string e = error_of<IoError>([] { read_untrusted_file("/dev/zero", {std::size_t{1} << 20, "a certificate"}); });
    CHECK(e == "/dev/zero: more than 1048576 bytes (1 MiB), the limit for a certificate");
}

TEST_CASE("read_back: a directory, a missing file and a name with a NUL say what they are") {
    TempDir t("read_back_names");
    CHECK(error_of<IoError>([&] { read_untrusted_file(t.path); }) == t.path.string() + ": cannot be read: it is a directory");
    CHECK(has(error_of<IoError>([&] { read_untrusted_file(t / "none"); }), "none: cannot be read: No such file or directory"));
    const fs::path nul(std::string("a\0b", 3));
    CHECK(error_of<IoError>([&] { read_untrusted_file(nul); }) ==
          "a\\0b: cannot be read: the name holds a NUL character (no file name can)");
    fs::create_symlink(t / "none", t / "link");
    CHECK(has(error_of<IoError>([&] { read_untrusted_file(t / "link", {16, "x", true}); }), "it is a symbolic link"));
}

TEST_CASE("read_back: a FIFO without a writer is refused after the wait, with one it is read whole") {
    TempDir t("read_back_fifo");
    const fs::path fifo = t / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const auto start = std::chrono::steady_clock::now();
    const std::string e = error_of<IoError>([&] { read_untrusted_file(fifo); });
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(e == fifo.string() + ": cannot be read: it is a FIFO with no writer (waited 5 s for a process to write into it)");
    CHECK(waited >= kFifoWriterWait - 0.5);  // a lower bound: it did wait, and did return
    std::thread writer([&] {
        const int fd = ::open(fifo.c_str(), O_WRONLY);  // blocks until the reader opened it
        for (int i = 0; i < 100; ++i) CHECK(::write(fd, "0123456789", 10) == 10);
        ::close(fd);
    });
    const std::string got = read_untrusted_file(fifo);
    writer.join();
    CHECK(got.size() == 1000);
    CHECK(got.substr(0, 10) == "0123456789");
}

TEST_CASE("read_back: a cancelled thread stops waiting for a FIFO's writer") {
    TempDir t("read_back_cancel");
    const fs::path fifo = t / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CancelFlag flag;
    flag.request();
    CancelScope scope(&flag);
    CHECK_THROWS_AS(read_untrusted_file(fifo), Interrupted);
}

TEST_CASE("read_back: JSON errors name the file and the position, without nlohmann's prefix") {
    const std::string e = error_of<InvalidArgument>([] { parse_untrusted_json("{\"a\":\n ]", "c.json", "verify"); });
    CHECK(has(e, "c.json is not valid JSON: at line 2, column 2: syntax error"));
    CHECK_FALSE(has(e, "[json.exception"));
    CHECK(parse_untrusted_json("{\"s\": \"[[[[\"}", "s", "f") == nlohmann::json{{"s", "[[[["}});  // brackets in strings
    const std::string deep(std::string(64, '[') + std::string(64, ']'));
    CHECK(parse_untrusted_json(deep, "d", "f").is_array());
    const std::string deeper = "[" + deep + "]";
    CHECK(error_of<InvalidArgument>([&] { parse_untrusted_json(deeper, "d.json", "f"); }) ==
          "d.json is not a rhoflow document: at line 1, column 65: arrays and objects nested deeper than 64 levels (the limit)");
    const std::string huge(std::string(1000000, '[') + std::string(1000000, ']'));
    CHECK(has(error_of<InvalidArgument>([&] { parse_untrusted_json(huge, "h", "f"); }), "deeper than 64 levels"));
}

TEST_CASE("read_back: nlohmann's prefixes are removed wherever they stand in a collected message") {
    CHECK(without_json_prefixes("params: [json.exception.out_of_range.403] key 'rigorous' not found") ==
          "params: key 'rigorous' not found");
    CHECK(without_json_prefixes("[json.exception.type_error.302] a; b: [json.exception.x.1] c") == "a; b: c");
    CHECK(without_json_prefixes("no prefix [json.exception.") == "no prefix [json.exception.");
}
