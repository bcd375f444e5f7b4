#include "rhoflow/experiment/detail/run_folder.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/read_back.hpp"

namespace rhoflow::detail {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxName = 255;  // NAME_MAX

bool only(const std::string& s, const char* allowed) { return s.find_first_not_of(allowed) == std::string::npos; }

constexpr const char* kAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

bool is_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

// What kind of entry a stat mode is, for messages.
const char* kind_of(mode_t m) {
    if (S_ISLNK(m)) return "a symbolic link";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

[[noreturn]] void refuse_entry(const fs::path& p, mode_t m) {
    throw IoError(fmt::format("{} is {}: rhoflow writes only folders and regular files into a run folder and will not "
                              "follow or read anything else there; remove it (or choose another output folder)",
                              p.string(), kind_of(m)));
}

[[noreturn]] void bad_manifest(const fs::path& file, const std::string& what) {
    throw IoError(fmt::format("{} is not a rhoflow manifest ({}); it was edited or damaged: remove the run folder to "
                              "start afresh, or restore the file",
                              file.string(), what));
}

}  // namespace

std::string run_file_list() {
    std::string s;
    for (std::size_t i = 0; i < kRunFiles.size(); ++i)
        s += fmt::format("{}{}", i == 0 ? "" : i + 1 == kRunFiles.size() ? " and " : ", ", kRunFiles[i]);
    return s;
}

bool is_task_name(const std::string& name) {
    const auto lower = [](std::string s) {
        for (char& c : s) c = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
        return s;
    };
    for (const char* own : kRunFiles)
        if (lower(name) == lower(own)) return false;
    return !name.empty() && name.size() <= kMaxName && name.front() != '.' &&
           only(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.");
}

bool is_cell_name(const std::string& name) {
    const auto slash = name.find('/');
    if (slash == std::string::npos) return false;
    const std::string task = name.substr(0, slash), cell = name.substr(slash + 1);
    return is_task_name(task) && !cell.empty() && cell.size() <= kMaxName && is_letter(cell.front()) &&
           only(cell, (std::string(kAlnum) + ".+-_=").c_str());
}

void check_run_tree(const fs::path& root) {
    struct stat st {};
    if (::lstat(root.c_str(), &st) != 0) {
        const int err = errno;
        throw IoError(fmt::format("cannot examine {}: {}", root.string(), std::strerror(err)));
    }
    if (S_ISREG(st.st_mode))
        throw IoError(fmt::format("{} is a file, not a run folder; remove it or choose another output folder", root.string()));
    if (!S_ISDIR(st.st_mode)) refuse_entry(root, st.st_mode);
    std::error_code ec;
    fs::recursive_directory_iterator it(root, ec), end;  // never follows a symbolic link
    for (; !ec && it != end; it.increment(ec)) {
        if (::lstat(it->path().c_str(), &st) != 0) continue;  // removed meanwhile
        if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) refuse_entry(it->path(), st.st_mode);
    }
    if (ec) throw IoError(fmt::format("cannot list the run folder {}: {}", root.string(), ec.message()));
}

json read_json_file(const fs::path& file) {
    const std::string text = read_untrusted_file(file, {max_document_bytes, "a document of a run folder", true});
    try {
        return parse_untrusted_json(text, file.string(), "file");
    } catch (const InvalidArgument& e) {
        throw IoError(e.what());
    }
}

json read_manifest(const fs::path& file) {
    json m = read_json_file(file);
    if (!m.is_object()) bad_manifest(file, "not a JSON object");
    const auto cells = m.find("cells");
    if (cells == m.end() || !cells->is_object()) bad_manifest(file, "its \"cells\" is not an object");
    for (const auto& [name, entry] : cells->items()) {
        const std::string shown = name.size() > 60 ? name.substr(0, 60) + "..." : name;
        if (!entry.is_object()) bad_manifest(file, fmt::format("the entry of '{}' is not an object", shown));
        const auto status = entry.find("status");
        if (status == entry.end() || !status->is_string())
            bad_manifest(file, fmt::format("the entry of '{}' has no string \"status\"", shown));
        const auto figures = entry.find("figures");
        if (figures != entry.end() && !figures->is_boolean())
            bad_manifest(file, fmt::format("the entry of '{}' has a \"figures\" that is not true or false", shown));
    }
    return m;
}

}  // namespace rhoflow::detail
