#include "rhoflow/experiment/detail/run_folder.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/experiment/detail/strings.hpp"
#include "rhoflow/experiment/job_table.hpp"
#include "rhoflow/experiment/sweep.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/compare_output.hpp"
#include "rhoflow/io/interrupt.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/io/output_dir.hpp"
#include "rhoflow/io/plot.hpp"
#include "rhoflow/io/read_back.hpp"
#include "rhoflow/version.hpp"

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

// ------------------------------------------------------------------------------- the run's folder

namespace rhoflow {

namespace fs = std::filesystem;

fs::path partial_folder(const fs::path& out) {
    const fs::path norm = out.lexically_normal();
    const fs::path name = norm.filename().empty() ? norm.parent_path().filename() : norm.filename();
    const fs::path base = norm.filename().empty() ? norm.parent_path() : norm;
    return base.parent_path() / fmt::format(".{}.partial", name.string());  // (fmt: GCC 12 PR 105329)
}

namespace detail {

namespace {

const char* const kManifest = detail::kManifestFile;

[[noreturn]] void fail_io(const std::string& what, int err) { throw IoError(what + ": " + std::strerror(err)); }

[[noreturn]] void refuse_link(const fs::path& p) {
    throw IoError(fmt::format("{} is a symbolic link: rhoflow never makes one for a run and does not follow one it did "
                              "not create; remove it, or give the folder it points to as the output folder",
                              p.string()));
}

// The type bits of `p` (not following a link), 0 if there is nothing.
mode_t type_of_entry(const fs::path& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

// A .OUT.partial without a manifest is refused, unless it is empty (a run killed as it began):
// then it is removed, and the run starts afresh.
void remove_empty_partial(const fs::path& partial) {
    std::error_code ec;
    if (!fs::is_empty(partial, ec) || ec || ::rmdir(partial.c_str()) != 0)
        throw IoError(fmt::format("{} exists but has no {}, so it is not an interrupted run that can be resumed; "
                                  "remove it", partial.string(), kManifest));
}

// Whether a job's outputs include figures (gnuplot images).
bool has_figures(const Job& job) { return rhoflow::kind_of(job).figures; }

// The run folder's final name from its partial folder's (".NAME.partial"): the tables' labels.
std::string e_out_name(const fs::path& partial) {
    std::string n = partial.filename().string();
    if (!n.empty() && n.front() == '.') n.erase(0, 1);
    if (ends_with(n, ".partial")) n.erase(n.size() - 8);
    return n;
}

// Removes a cell's temporary folder when the cell fails: on a full disk its files would keep
// the disk full, and every rerun would then fail writing the manifest.
struct RemoveUnlessKept {
    fs::path folder;
    bool kept = false;
    ~RemoveUnlessKept() {
        std::error_code ec;
        if (!kept) fs::remove_all(folder, ec);
    }
};

// The manifest entry of a cell, if any.
const json* entry_of(const json& manifest, const ExperimentCell& c) {
    const auto& cells = manifest.at("cells");
    const auto it = cells.find(c.dir);
    return it == cells.end() ? nullptr : &*it;
}

// Whether a cell taken from an earlier run lacks the figures this run draws (an earlier
// --no-figures run, or one without gnuplot).
bool lacks_figures(const json& manifest, const ExperimentCell& c, const ExperimentOptions& o) {
    const json* entry = entry_of(manifest, c);
    return has_figures(c.job) && draws_figures(o) && !(entry && entry->value("figures", false));
}

// A name from the manifest as a message shows it: at most 60 bytes, control characters escaped.
std::string printable(const std::string& name) {
    std::string s;
    for (char ch : name.substr(0, 60)) {
        const auto u = static_cast<unsigned char>(ch);
        s += u < 0x20 || u == 0x7F ? fmt::format("\\x{:02x}", u) : std::string(1, ch);
    }
    return name.size() > 60 ? s + "..." : s;
}

}  // namespace

// Locks OUT, then finds where to build the run: .OUT.partial (resumed), OUT moved back there
// (resumed), or a new folder. Everything read back is checked first (only folders and regular
// files, a manifest of the runner's shape), so a refused folder is left exactly as it was.
RunFolder prepare_partial(const Experiment& e, const ExperimentOptions& o) {
    auto log = [&](const std::string& s) { if (o.log) o.log(s); };
    RunFolder f;
    f.lock = std::make_unique<FolderLock>(e.out);
    f.partial = partial_folder(e.out);
    if (const mode_t t = type_of_entry(f.partial); t != 0) {
        if (t == S_IFLNK) refuse_link(f.partial);
        if (t == S_IFDIR && type_of_entry(f.partial / kManifest) == 0) remove_empty_partial(f.partial);
        if (type_of_entry(f.partial) != 0) {
            detail::check_run_tree(f.partial);
            f.manifest = detail::read_manifest(f.partial / kManifest);
            log(fmt::format("resuming the interrupted run in {}", f.partial.string()));
            return f;
        }
    }
    if (const mode_t t = type_of_entry(e.out); t != 0) {
        if (t == S_IFLNK) refuse_link(e.out);
        if (t != S_IFDIR || type_of_entry(e.out / kManifest) == 0)
            throw IoError(fmt::format("{} exists and is not a rhoflow run folder (no {}); choose another output folder "
                                      "or remove it", e.out.string(), kManifest));
        detail::check_run_tree(e.out);
        f.manifest = detail::read_manifest(e.out / kManifest);
        if (::rename(e.out.c_str(), f.partial.c_str()) != 0)  // OUT stays complete or absent: back when the rerun ends
            fail_io(fmt::format("cannot move {} to {} for the rerun", e.out.string(), f.partial.string()), errno);
        log(fmt::format("rerunning into {}: cells complete with the same parameters are reused", e.out.string()));
        return f;
    }
    if (::mkdir(f.partial.c_str(), 0777) != 0)
        fail_io(fmt::format("cannot create the folder {}", f.partial.string()), errno);
    f.manifest = json({{"program", "rhoflow"}, {"version", version}, {"cells", json::object()}});
    write_file_atomic(f.partial / kManifest, f.manifest.dump(2) + "\n");
    return f;
}

// Whether the cells written now get their figures drawn: wanted, and gnuplot found.
bool draws_figures(const ExperimentOptions& o) { return o.render_figures && gnuplot_available(); }

// Writes one cell's outputs whole: into a temporary folder, renamed into place at the end. A
// failure leaves no temporary and names the cell's folder, not its temporary.
void write_cell(const ExperimentCell& c, const JobResult& r, const fs::path& partial, bool render,
                const Provenance& provenance) {
    const fs::path dir = partial / c.dir;
    const fs::path tmp = dir.parent_path() / fmt::format(".{}.tmp", dir.filename().string());
    std::error_code ec;
    fs::remove_all(tmp, ec);  // left by a killed run
    RemoveUnlessKept removal{tmp};
    fs::create_directories(tmp, ec);
    if (ec) throw IoError(fmt::format("cannot create a folder for {}: {}", dir.string(), ec.message()));
    RemoveOnInterrupt guard(tmp, c.dir);  // an interruption removes the unfinished cell, keeps the finished ones
    try {
        write_outputs(c.job, r, tmp, render, provenance, fmt::format("{}-{}", e_out_name(partial), c.dir),
                      false);  // one CITATION.bib, in OUT
    } catch (const IoError& e) {
        throw IoError(with_final_name(e.what(), tmp, dir));
    }
    int err = 0;
    without_interrupt_cleanup([&] {
        fs::remove_all(dir, ec);
        if (!ec && ::rename(tmp.c_str(), dir.c_str()) != 0) err = errno;
    });
    if (ec) throw IoError(fmt::format("cannot remove the old folder {}: {}", dir.string(), ec.message()));
    if (err) fail_io(fmt::format("cannot move {} into place as {}", tmp.string(), dir.string()), err);
    removal.kept = true;
    guard.release();
}

// The result of a cell that an earlier run completed with the same parameters, read back from
// its document; none if there is no such cell, or if its document cannot be read back (edited,
// truncated: then the cell is recomputed, and the log says why).
std::optional<JobResult> earlier_result(const json& manifest, const ExperimentCell& c, const json& params,
                                        const fs::path& partial, const ExperimentOptions& o) {
    const json* entry = entry_of(manifest, c);
    if (!entry || entry->at("status") != "complete" || !entry->contains("params") || entry->at("params") != params)
        return std::nullopt;
    if (const std::string f = input_file_of(c.job); !f.empty()) {  // its result is the file's, which may have changed
        if (o.log) o.log(fmt::format("{}: reads {}: recomputed, not taken from the earlier run", c.dir, f));
        return std::nullopt;
    }
    const fs::path doc = partial / c.dir / document_file(c.job);
    try {
        return result_from_document(c.job, detail::read_json_file(doc));
    } catch (const std::exception& err) {
        const std::string why = dynamic_cast<const IoError*>(&err)
                                    ? err.what()
                                    : fmt::format("{} is not a {} document ({})", doc.string(), command_of(c.job),
                                                  plain_message(err));
        if (o.log) o.log(fmt::format("{}: cannot be read back ({}): recomputing the cell", c.dir, why));
        return std::nullopt;
    }
}

// The manifest holds what a rerun needs and nothing that depends on the machine (no timing), so
// that it is byte-identical between runs of the same file (figures: whether gnuplot drew them).
void record(json& manifest, const fs::path& partial, const ExperimentCell& c, const json& params,
            const std::string& status, const std::string& error, bool figures) {
    json entry = {{"task", c.dir.substr(0, c.dir.find('/'))}, {"params", params}, {"status", status}};
    if (!error.empty()) entry["error"] = error;
    if (has_figures(c.job) && status == "complete") entry["figures"] = figures;
    manifest["cells"][c.dir] = entry;
    write_file_atomic(partial / kManifest, manifest.dump(2) + "\n");
}

// A cell taken from an earlier run that lacks its figures gets them now, from the result read
// back (the cell is rewritten whole, like a computed one).
void draw_missing_figures(json& manifest, const fs::path& partial, const Experiment& e, const ExperimentCell& c,
                          const JobResult& r, const json& params, const ExperimentOptions& o) {
    if (!lacks_figures(manifest, c, o)) return;
    if (o.log) o.log(fmt::format("{}: taken from an earlier run that drew no figures: drawing them", c.dir));
    // The cell keeps the provenance of the run that computed it: only its figures are new.
    Provenance made = o.provenance;
    try {
        made = detail::read_json_file(partial / c.dir / document_file(c.job)).get<Provenance>();
    } catch (const std::exception&) {
        // read back a moment ago (earlier_result); if it went since, this run's provenance
    }
    if (made.cell_command_line.empty()) made.cell_command_line = cell_command_line(e, c);  // written before cells had one
    in_cell(e, c, [&] { write_cell(c, r, partial, true, made); });
    record(manifest, partial, c, params, "complete", "", true);
}

// Removes what an earlier run recorded that this experiment does not have: the folders of cells
// it lost and of tasks it lost (their summaries too), inside the run folder only. A manifest
// entry that is not a cell name of the runner's layout (an absolute path, "..", more
// separators) is dropped from the manifest and nothing is removed for it.
void drop_stale(json& manifest, const fs::path& partial, const Experiment& e, const std::function<void(const std::string&)>& log) {
    std::set<std::string> current, tasks, former_tasks;
    for (const auto& c : e.cells) current.insert(c.dir);
    for (const auto& t : e.tasks) tasks.insert(t.name);
    std::vector<std::string> stale;
    for (const auto& [dir, entry] : manifest["cells"].items())
        if (!current.count(dir)) stale.push_back(dir);
    std::error_code ec;
    for (const auto& dir : stale) {
        if (!detail::is_cell_name(dir)) {
            if (log) log(fmt::format("{}: ignored the entry '{}': not a cell folder name (TASK/KEY=VALUE...); nothing "
                                     "removed for it", (partial / kManifest).string(), printable(dir)));
            continue;
        }
        const std::string task = dir.substr(0, dir.find('/'));
        if (!tasks.count(task)) {
            former_tasks.insert(task);
            continue;
        }
        fs::remove_all(partial / dir, ec);  // the tree was checked: no symbolic link on the way
        if (ec) throw IoError(fmt::format("cannot remove {}: {}", (partial / dir).string(), ec.message()));
        if (log) log(fmt::format("removed {}: not a cell of this experiment", dir));
    }
    for (const auto& task : former_tasks) {
        fs::remove_all(partial / task, ec);
        if (ec) throw IoError(fmt::format("cannot remove {}: {}", (partial / task).string(), ec.message()));
        if (log) log(fmt::format("removed {}/: not a task of this experiment", task));
    }
    for (const auto& dir : stale) manifest["cells"].erase(dir);
    if (!stale.empty()) write_file_atomic(partial / kManifest, manifest.dump(2) + "\n");
}

// The run index (run.json) and the summaries, written once every cell has its result; then the
// run folder becomes OUT.
void write_index(const Experiment& e, const fs::path& partial, const json& execution, ExperimentResult& out,
                 const Provenance& provenance, bool render) {
    json index = provenance;
    index["file"] = e.file;
    index["title"] = e.title;
    index["runs"] = json::array();
    for (const auto& c : e.cells) {
        json swept = json::object();
        for (const auto& [k, v] : c.swept) swept[k] = v;
        index["runs"].push_back({{"task", e.tasks[c.task].name}, {"dir", c.dir}, {"swept", swept},
                                 {"params", std::visit([](const auto& j) { return json(j); }, c.job)}});
    }
    index["execution"] = execution;
    for (std::size_t t = 0; t < e.tasks.size(); ++t) {
        const fs::path dir = partial / e.tasks[t].name;
        const Table table = summary_table(e, t, out.results);
        write_table_files(table, dir, "summary", provenance, summary_paper_tables(e, t, table, task_table_width(e, t)));
        out.summaries[e.tasks[t].name] = table;
        // Across the cells: figures and compact tables of a sweep (experiment/sweep.hpp).
        const SweepSummary sweep = sweep_summary(e, t, out.results);
        for (const auto& [name, content] : sweep.files) write_file_atomic(dir / name, content);
        if (!sweep.figures.empty()) {
            FigureParams size;
            for (const auto& c : e.cells)
                if (const auto* j = std::get_if<CompareJob>(&c.job); j && c.task == t) {
                    size = j->figure;
                    break;
                }
            render_figures(dir, sweep.figures, render, size, sweep_stem(e, e.tasks[t]), provenance_lines(provenance));
        }
    }
    write_file_atomic(partial / detail::kIndexFile, index.dump(2) + "\n");
    write_citation(partial, provenance);  // kCitationFile, one of detail::kRunFiles
    int err = 0;
    without_interrupt_cleanup([&] {
        if (::rename(partial.c_str(), e.out.c_str()) != 0) err = errno;
    });
    if (err) fail_io(fmt::format("cannot move the finished run {} into place as {}", partial.string(), e.out.string()), err);
}

}  // namespace detail

}  // namespace rhoflow
