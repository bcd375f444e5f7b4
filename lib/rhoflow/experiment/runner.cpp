// The execution of an experiment (experiment/runner.hpp): ExperimentRun runs every pending
// cell's JobPlan; reading the file is experiment/read_experiment.cpp, the run folder
// experiment/detail/run_folder.cpp, the summaries experiment/summaries.cpp.
#include "rhoflow/experiment/runner.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <memory>
#include <set>

#include "rhoflow/exec/units.hpp"
#include "rhoflow/experiment/detail/run_folder.hpp"
#include "rhoflow/experiment/job_plan.hpp"
#include "rhoflow/io/folder_lock.hpp"
#include "rhoflow/version.hpp"

namespace rhoflow {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The run folder's steps (experiment/detail/run_folder.hpp).
using detail::draw_missing_figures;
using detail::draws_figures;
using detail::drop_stale;
using detail::earlier_result;
using detail::in_cell;
using detail::prepare_partial;
using detail::record;
using detail::RunFolder;
using detail::write_cell;
using detail::write_index;

// The run's provenance: the caller's (or one made now), with the experiment file and its hash.
Provenance run_provenance(const Experiment& e, const Provenance& given) {
    Provenance p = given.version.empty() ? make_provenance("run") : given;
    p.command = "run";
    p.experiment_file = e.file;
    p.experiment_sha256 = e.sha256;
    return p;
}

// ------------------------------------------------------------------------------- execution

// A cell's provenance: the run's, with the command line that reruns the cell alone.
Provenance cell_provenance(const Experiment& e, const ExperimentCell& c, const Provenance& run) {
    Provenance p = run;
    p.cell_command_line = cell_command_line(e, c);
    return p;
}

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
        // Each plan sets the shared counter's total to its SGA steps (and adds its study's later,
        // as its first unit runs): their sum is the run's.
        ProgressCounter* counter = root_ ? o_.progress : nullptr;
        std::int64_t steps = 0;
        double total = 0;
        for (std::size_t i : pending) total += std::max(JobPlan::whole_job_cost, JobPlan::trial_cost(e_.cells[i].job));
        const double target = total / (8.0 * ranks_);  // a short tail under dynamic balancing
        for (std::size_t i : pending) {
            CellWork w;
            w.cell = i;
            const ExperimentCell& c = e_.cells[i];
            if (counter) counter->total = 0;
            in_cell(e_, c, [&] { w.plan = std::make_unique<JobPlan>(c.job, ranks_, target, counter, ResultDetail::full); });
            if (counter) steps += counter->total.load();
            w.plan->where = where(c);
            w.plan->closure_index = static_cast<std::int64_t>(work_.size());
            w.plan->finish_anywhere = true;  // other cells keep rank 0 busy meanwhile
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
        if (counter) {
            counter->done = 0;
            counter->total = steps;
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
        if (!root_ || !o_.cells) return;
        double work = 0;
        for (const auto& w : work_) work += cost(w);
        o_.cells->done = 0;
        o_.cells->work_done = 0;
        o_.cells->work_total = work;
        o_.cells->total = static_cast<std::int64_t>(work_.size());
    }

    // A cell's estimated work: its units' (at least a whole job's).
    static double cost(const CellWork& w) {
        double c = 0;
        for (std::int64_t u = 0; u < w.plan->size(); ++u) c += w.plan->cost(u);
        return std::max(c, JobPlan::whole_job_cost);
    }

    // Rank 0: one of a cell's units is back (its index among the plan's units; the
    // comparison's finish: their count).
    void seen(std::size_t wi, std::int64_t u, int rank, double secs) {
        CellWork& w = work_[wi];
        w.ranks.insert(rank);
        w.seconds += secs;
        if (u < w.plan->size()) {
            w.unit_seconds[static_cast<std::size_t>(u)] = secs;
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
            write_cell(c, r, partial_, o_.render_figures, cell_provenance(e_, c, o_.provenance));
            out_.results[w.cell] = std::move(r);
        });
        w.write_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        w.seconds += w.write_seconds;
        busy_[0] += w.write_seconds;
        record(manifest_, partial_, c, cell_params(c), "complete", "", draws_figures(o_));
        if (o_.cells) {
            o_.cells->work_done = o_.cells->work_done.load() + cost(w);  // rank 0's thread alone writes it
            ++o_.cells->done;
        }
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
};

}  // namespace

ExperimentResult run_experiment(const Experiment& e, const ExperimentOptions& options) {
    ExperimentOptions o = options;
    o.provenance = run_provenance(e, options.provenance);
    return ExperimentRun(e, o).run();
}

}  // namespace rhoflow
