#include "rhoflow/io/atomic_file.hpp"

#include <atomic>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

namespace rhoflow {

void write_file_atomic(const std::filesystem::path& path, const std::string& content) {
    namespace fs = std::filesystem;
    static std::atomic<unsigned> counter{0};
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create directory " + dir.string() + ": " + ec.message());
    // (fmt rather than std::string operator+: GCC 12 warns falsely there, PR 105329)
    const fs::path tmp = dir / fmt::format(".{}.tmp.{}.{}", path.filename().string(), ::getpid(), counter.fetch_add(1));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error("cannot write " + tmp.string());
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        out.flush();
        if (!out) {
            out.close();
            fs::remove(tmp, ec);
            throw std::runtime_error("cannot write " + tmp.string());
        }
    }
    if (FILE* f = std::fopen(tmp.c_str(), "rb")) {  // make the bytes durable before the rename
        ::fsync(fileno(f));
        std::fclose(f);
    }
    fs::rename(tmp, path, ec);
    if (ec) {
        std::error_code ignore;
        fs::remove(tmp, ignore);
        throw std::runtime_error("cannot rename " + tmp.string() + " to " + path.string() + ": " + ec.message());
    }
}

}  // namespace rhoflow
