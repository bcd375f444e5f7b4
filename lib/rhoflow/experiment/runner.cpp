#include "rhoflow/experiment/runner.hpp"
#include "rhoflow/experiment/job_table.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/digest.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/number_text.hpp"
#include "rhoflow/exec/units.hpp"
#include "rhoflow/experiment/detail/run_folder.hpp"
#include "rhoflow/experiment/detail/strings.hpp"
#include "rhoflow/experiment/job_plan.hpp"
#include "rhoflow/experiment/settings.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/compare_output.hpp"
#include "rhoflow/io/folder_lock.hpp"
#include "rhoflow/io/interrupt.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/io/output_dir.hpp"
#include "rhoflow/experiment/sweep.hpp"
#include "rhoflow/io/plot.hpp"
#include "rhoflow/io/read_back.hpp"
#include "rhoflow/version.hpp"

namespace rhoflow {

namespace fs = std::filesystem;
using nlohmann::json;

// ------------------------------------------------------------------------------- running

fs::path partial_folder(const fs::path& out) {
    const fs::path norm = out.lexically_normal();
    const fs::path name = norm.filename().empty() ? norm.parent_path().filename() : norm.filename();
    const fs::path base = norm.filename().empty() ? norm.parent_path() : norm;
    return base.parent_path() / fmt::format(".{}.partial", name.string());  // (fmt: GCC 12 PR 105329)
}

namespace {

using detail::ends_with;

const char* const kManifest = detail::kManifestFile;

// The folder a run is built in, its manifest, and the lock that keeps other runs out of it.
struct RunFolder {
    std::unique_ptr<FolderLock> lock;
    fs::path partial;
    json manifest;
};

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

// Whether a job's outputs include figures (gnuplot images).
bool has_figures(const Job& job) { return kind_of(job).figures; }

// Whether the cells written now get their figures drawn: wanted, and gnuplot found.
bool draws_figures(const ExperimentOptions& o) { return o.render_figures && gnuplot_available(); }

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

// The manifest entry of a cell, if any.
const json* entry_of(const json& manifest, const ExperimentCell& c) {
    const auto& cells = manifest.at("cells");
    const auto it = cells.find(c.dir);
    return it == cells.end() ? nullptr : &*it;
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

// Whether a cell taken from an earlier run lacks the figures this run draws (an earlier
// --no-figures run, or one without gnuplot).
bool lacks_figures(const json& manifest, const ExperimentCell& c, const ExperimentOptions& o) {
    const json* entry = entry_of(manifest, c);
    return has_figures(c.job) && draws_figures(o) && !(entry && entry->value("figures", false));
}

// Runs f, rethrowing a failure with the task and cell named (same exit-code category).
template <class F>
auto in_cell(const Experiment& e, const ExperimentCell& c, F&& f) -> decltype(f()) {
    return with_context(fmt::format("task '{}' cell {}", e.tasks[c.task].name, c.dir), std::forward<F>(f));
}

// The manifest holds what a rerun needs and nothing that depends on the machine (no timing), so
// that it is byte-identical between runs of the same file (figures: whether gnuplot drew them).
void record(json& manifest, const fs::path& partial, const ExperimentCell& c, const json& params,
            const std::string& status, const std::string& error = "", bool figures = false) {
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
    in_cell(e, c, [&] { write_cell(c, r, partial, true, made); });
    record(manifest, partial, c, params, "complete", "", true);
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
        const PaperTable paper = summary_paper_table(e, t, table);
        write_table_files(table, dir, "summary", provenance, &paper);
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

// The run's provenance: the caller's (or one made now), with the experiment file and its hash.
Provenance run_provenance(const Experiment& e, const Provenance& given) {
    Provenance p = given.version.empty() ? make_provenance("run") : given;
    p.command = "run";
    p.experiment_file = e.file;
    p.experiment_sha256 = e.sha256;
    return p;
}

}  // namespace

// ------------------------------------------------------------------------------- execution

namespace {

// A pending cell: its job's plan (the same on every rank, the one the command line runs) and
// rank 0's bookkeeping for run.json.
struct CellWork {
    std::size_t cell = 0;
    std::unique_ptr<JobPlan> plan;
    int order = 0;  // the executor's hand-out order (a team of one: cell by cell)
    std::set<int> ranks;
    double seconds = 0, finish_seconds = 0, write_seconds = 0;
    std::vector<double> unit_seconds;  // per unit, where it ran
};

// One run of an experiment: its pending cells' plans run by the executor (exec/units.hpp) in
// one execution, in one process (a team of one, cell by cell) or over the ranks of a team. Rank
// 0 alone reads and writes files; every rank computes units. Rank 0 keeps the bookkeeping (which
// ranks, how many seconds) for run.json.
class ExperimentRun {
public:
    ExperimentRun(const Experiment& e, const ExperimentOptions& o)
        : e_(e), o_(o), ranks_(ranks_for(o.execution)), root_(keeps_results(o.execution)) {
        out_.out = e.out;
        out_.results.resize(e.cells.size());
        out_.resumed.assign(e.cells.size(), false);
        read_seconds_.assign(e.cells.size(), 0.0);
    }

    ExperimentResult run() {
        plan(find_pending());
        const auto start = std::chrono::steady_clock::now();
        busy_.assign(static_cast<std::size_t>(ranks_), 0.0);
        start_progress();
        std::vector<const detail::AnySet*> sets;
        for (std::size_t wi = 0; wi < work_.size(); ++wi)
            for (const detail::AnySet* set : work_[wi].plan->sets()) {
                sets.push_back(set);
                owner_.push_back(wi);
            }
        try {
            execute(o_.execution, sets, root_ ? units() : std::vector<Unit>{});
        } catch (const UnitError& err) {
            on_failure(err);
        }
        if (!root_) return {};
        write_index(e_, partial_, execution(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()),
                    out_, o_.provenance, o_.render_figures);
        return std::move(out_);
    }

private:
    void log(const std::string& s) const {
        if (root_ && o_.log) o_.log(s);
    }

    // Rank 0 finds the completed cells (reading them back) and tells every rank the rest.
    std::vector<std::size_t> find_pending() {
        return root_then_broadcast<std::vector<std::size_t>>(o_.execution, [&] {
            RunFolder folder = prepare_partial(e_, o_);
            lock_ = std::move(folder.lock);  // until this object ends, after the run
            partial_ = folder.partial;
            manifest_ = std::move(folder.manifest);
            drop_stale(manifest_, partial_, e_, o_.log);
            std::vector<std::size_t> todo;
            for (std::size_t i = 0; i < e_.cells.size(); ++i) {
                const ExperimentCell& c = e_.cells[i];
                const auto start = std::chrono::steady_clock::now();
                auto earlier = earlier_result(manifest_, c, cell_params(c), partial_, o_);
                if (!earlier) {
                    todo.push_back(i);
                    continue;
                }
                out_.results[i] = std::move(*earlier);
                out_.resumed[i] = true;
                log(fmt::format("{}: complete from an earlier run, not recomputed", c.dir));
                draw_missing_figures(manifest_, partial_, e_, c, out_.results[i], cell_params(c), o_);
                read_seconds_[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            }
            return todo;
        });
    }

    static json cell_params(const ExperimentCell& c) {
        return std::visit([](const auto& j) { return json(j); }, c.job);
    }

    std::string where(const ExperimentCell& c) const { return fmt::format("task '{}' cell {}", e_.tasks[c.task].name, c.dir); }

    // Over several ranks, cuts every pending cell into units of about 1/8 of (the pending work
    // / ranks), all handed out largest first; in a team of one, a cell is one unit of trials
    // (which runs on all threads) and the cells run in file order.
    void plan(const std::vector<std::size_t>& pending) {
        double total = 0;
        for (std::size_t i : pending) total += std::max(JobPlan::whole_job_cost, JobPlan::trial_cost(e_.cells[i].job));
        const double target = total / (8.0 * ranks_);  // a short tail under dynamic balancing
        for (std::size_t i : pending) {
            CellWork w;
            w.cell = i;
            const ExperimentCell& c = e_.cells[i];
            in_cell(e_, c, [&] { w.plan = std::make_unique<JobPlan>(c.job, ranks_, target, nullptr, ResultDetail::full); });
            w.plan->where = where(c);
            w.order = ranks_ == 1 ? static_cast<int>(work_.size()) : 0;
            w.unit_seconds.assign(static_cast<std::size_t>(w.plan->size()), 0.0);
            unit_count_ += w.plan->size();
            const std::size_t wi = work_.size();
            w.plan->seen = [this, wi](std::int64_t u, int rank, double secs) { seen(wi, u, rank, secs); };
            w.plan->finished = [this, wi](UnitQueue& q, JobResult done) {
                auto result = std::make_shared<JobResult>(std::move(done));
                q.add(root_unit([this, wi, result](UnitQueue&) { write(work_[wi], std::move(*result)); }, work_[wi].order,
                                static_cast<std::int64_t>(wi)));
            };
            work_.push_back(std::move(w));
        }
        if (ranks_ > 1)
            log(fmt::format("spreading {} cells ({} units) over {} ranks", work_.size(), unit_count_, ranks_));
    }

    std::vector<Unit> units() const {
        std::vector<Unit> t;
        for (const CellWork& w : work_)
            for (Unit& u : w.plan->units(w.order)) t.push_back(std::move(u));
        return t;
    }

    void start_progress() {
        progress_ = root_ ? o_.progress : nullptr;
        if (!progress_) return;
        progress_->done = 0;
        double sum = 0;
        for (const auto& w : work_)
            for (std::int64_t u = 0; u < w.plan->size(); ++u) sum += w.plan->cost(u);
        progress_->total = static_cast<std::int64_t>(sum / 1e6) + 1;
    }

    // Rank 0: one of a cell's units is back (its index among the plan's units; the
    // comparison's finish: their count).
    void seen(std::size_t wi, std::int64_t u, int rank, double secs) {
        CellWork& w = work_[wi];
        w.ranks.insert(rank);
        w.seconds += secs;
        if (u < w.plan->size()) {
            w.unit_seconds[static_cast<std::size_t>(u)] = secs;
            if (progress_) progress_->done += static_cast<std::int64_t>(w.plan->cost(u) / 1e6);
        } else {
            w.finish_seconds = secs;
        }
        busy_[static_cast<std::size_t>(rank)] += secs;
    }

    // Rank 0, once a cell's result is complete: its files and its manifest entry.
    void write(CellWork& w, JobResult r) {
        const ExperimentCell& c = e_.cells[w.cell];
        const auto start = std::chrono::steady_clock::now();
        in_cell(e_, c, [&] {
            write_cell(c, r, partial_, o_.render_figures, o_.provenance);
            out_.results[w.cell] = std::move(r);
        });
        w.write_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        w.seconds += w.write_seconds;
        busy_[0] += w.write_seconds;
        record(manifest_, partial_, c, cell_params(c), "complete", "", draws_figures(o_));
        std::string who;
        for (int rank : w.ranks) who += fmt::format("{}{}", who.empty() ? "" : ",", rank);
        log(fmt::format("[{}/{}] {} (ranks {}; {:.1f} s of work)", ++finished_, work_.size(), c.dir, who, w.seconds));
    }

    [[noreturn]] void on_failure(const UnitError& err) {
        // A unit's set names its cell; a closure (a cell's files) carries the cell's index.
        const std::size_t wi = err.id().set < owner_.size() ? owner_[err.id().set] : static_cast<std::size_t>(err.id().index);
        const ExperimentCell& c = e_.cells[work_.at(wi).cell];
        record(manifest_, partial_, c, cell_params(c), "failed", err.what());
        log(fmt::format("completed cells are kept in {}; rerun the same file to resume", partial_.string()));
        err.rethrow();
    }

    // run.json's "execution": which ranks computed each cell and the seconds they spent.
    json execution(double wall) const {
        json ex = {{"ranks", ranks_}, {"cells", json::array()}, {"busy_seconds", busy_}, {"wall_seconds", wall}};
        std::vector<const CellWork*> by_cell(e_.cells.size(), nullptr);
        for (const auto& w : work_) by_cell[w.cell] = &w;
        for (std::size_t i = 0; i < e_.cells.size(); ++i) {
            const CellWork* w = by_cell[i];
            json cell = {{"name", e_.cells[i].dir},
                         {"ranks", w ? std::vector<int>(w->ranks.begin(), w->ranks.end()) : std::vector<int>{0}},
                         {"seconds", w ? w->seconds : read_seconds_[i]}};
            if (w) {
                cell["units"] = w->plan->size();
                if (std::holds_alternative<CompareJob>(e_.cells[i].job))
                    cell["finish_seconds"] = w->finish_seconds;  // the comparison's finish, on one rank
                cell["write_seconds"] = w->write_seconds;  // rank 0's serial part: assembly and files
                cell["unit_seconds"] = w->unit_seconds;
                if (w->plan->table_units() > 0) cell["table_units"] = w->plan->table_units();  // the last ones
            }
            ex["cells"].push_back(cell);
        }
        return ex;
    }

    const Experiment& e_;
    const ExperimentOptions& o_;
    const int ranks_;
    const bool root_;
    std::unique_ptr<FolderLock> lock_;  // rank 0: the output folder's
    ExperimentResult out_;
    fs::path partial_;
    json manifest_;
    std::vector<double> read_seconds_;
    std::vector<CellWork> work_;
    std::vector<std::size_t> owner_;  // by set number: the cell work it belongs to
    std::int64_t unit_count_ = 0;
    std::vector<double> busy_;         // seconds each rank spent on units (rank 0: and writes)
    std::size_t finished_ = 0;
    ProgressCounter* progress_ = nullptr;
};

}  // namespace

ExperimentResult run_experiment(const Experiment& e, const ExperimentOptions& options) {
    ExperimentOptions o = options;
    o.provenance = run_provenance(e, options.provenance);
    return ExperimentRun(e, o).run();
}

}  // namespace rhoflow
