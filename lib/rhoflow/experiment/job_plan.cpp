#include "rhoflow/experiment/job_plan.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>
#include <variant>

#include "rhoflow/compare/compare.hpp"
#include "rhoflow/experiment/job_table.hpp"
#include "rhoflow/stochastic/ensemble.hpp"

namespace rhoflow {

namespace {

// A whole job's result as a unit's output: any alternative of JobResult, told apart between
// ranks by its index.
struct WholeResult {
    JobResult value;
};

template <std::size_t... I>
JobResult alternative(std::size_t index, const nlohmann::json& j, std::index_sequence<I...>) {
    JobResult out;
    const bool found = ((index == I ? (out = j.get<std::variant_alternative_t<I, JobResult>>(), true) : false) || ...);
    if (!found) throw std::runtime_error("rhoflow: a job result of an unknown kind between ranks");
    return out;
}

// A registered job's result also names its kind (its type is the kind's).
void to_json(nlohmann::json& j, const WholeResult& r) {
    j = nlohmann::json::array({r.value.index(), std::visit([](const auto& v) { return nlohmann::json(v); }, r.value)});
    if (const auto* g = std::get_if<RegisteredResult>(&r.value)) j.push_back(std::string(g->kind->name));
}

void from_json(const nlohmann::json& j, WholeResult& r) {
    constexpr std::size_t registered = variant_index<RegisteredResult, JobResult>();
    const auto index = j.at(0).get<std::size_t>();
    if (index != registered) {
        r.value = alternative(index, j.at(1), std::make_index_sequence<registered>{});
        return;
    }
    const JobKind* kind = find_job_kind(j.at(2).get<std::string>());
    if (!kind || !kind->ops.result_from_json) throw std::runtime_error("rhoflow: a job result of an unknown kind between ranks");
    r.value = kind->ops.result_from_json(j.at(1));
}

constexpr double kCompareFinishCost = 1e300;  // the finish goes out before any other unit

}  // namespace

struct JobPlan::Impl {
    Impl(JobPlan& s, const Job& j, ResultDetail d, ProgressCounter* p) : self(s), job(j), detail(d), progress(p) {}
    JobPlan& self;
    Job job;
    ResultDetail detail = ResultDetail::full;
    ProgressCounter* progress = nullptr;
    std::int64_t blocks = 1;
    std::int64_t left = 0;   // rank 0: units not yet back
    std::int64_t units = 0;  // the units it starts with
    std::vector<double> costs;  // their estimated costs
    std::int64_t table_units = 0;

    std::unique_ptr<EnsembleBlocks> sga;
    std::unique_ptr<UnitSet<NoInput, EnsembleBlocks::Output>> sga_set;

    std::unique_ptr<CompareUnits> compare;
    std::vector<CompareBlock> compare_out;  // rank 0: by unit, sent to the rank that finishes
    std::unique_ptr<UnitSet<NoInput, CompareBlock>> compare_set;
    std::unique_ptr<UnitSet<std::vector<CompareBlock>, CompareResult>> finish_set;

    std::unique_ptr<UnitSet<NoInput, WholeResult>> whole_set;
    int order = 0;

    void seen(std::int64_t u, int rank, double seconds) const {
        if (self.seen) self.seen(u, rank, seconds);
    }
    // Rank 0: hands the result on and drops what made it (a run's cells finish one by one).
    void finish(UnitQueue& q, JobResult r) {
        sga.reset();
        compare.reset();
        compare_out = {};
        if (self.finished) self.finished(q, std::move(r));
    }
    template <class F>
    auto named(F&& f) const -> decltype(f()) {  // f's errors name the job (where)
        return with_context(self.where, std::forward<F>(f));
    }

    void plan_sga(const SgaJob& s) {
        const EnsembleOutput keep = detail == ResultDetail::full ? EnsembleOutput::all() : EnsembleOutput::summary(50);
        sga = std::make_unique<EnsembleBlocks>(s.model, s.sga, blocks, keep);
        if (progress) progress->total = s.sga.steps * s.sga.trials;
        sga_set = std::make_unique<UnitSet<NoInput, EnsembleBlocks::Output>>(
            EnsembleBlocks::kind(),
            [this](std::int64_t b, const NoInput&) { return named([&] { return sga->run(b, progress); }); },
            [this](UnitQueue& q, std::int64_t b, EnsembleBlocks::Output&& out, int rank, double secs) {
                named([&] { sga->accept(b, std::move(out)); });
                if (progress && rank != 0) progress->done += sga->steps(b);
                seen(b, rank, secs);
                if (--left == 0)  // the basins take a phase portrait: rank 0's main thread, not the hook
                    q.add(root_unit([this](UnitQueue& q2) { finish(q2, named([&] { return outcomes(); })); }, order,
                                    self.closure_index));
            });
    }

    // The comparison from its units' outputs (on the rank that finishes; its state dropped there).
    CompareResult finish_here(std::vector<CompareBlock> outs) {
        for (std::size_t u = 0; u < outs.size(); ++u) compare->accept(static_cast<std::int64_t>(u), std::move(outs[u]));
        outs = {};
        CompareResult r = compare->finish();
        compare.reset();
        return r;
    }

    // The ensemble with every trial in its ODE basin (a phase portrait: rank 0's main thread).
    JobResult outcomes() { return with_outcomes(std::get<SgaJob>(job), sga->result()); }

    void plan_compare(const CompareJob& c) {
        compare = std::make_unique<CompareUnits>(c.compare, nullptr, blocks);
        if (progress) compare->count_steps(progress);
        compare_out.resize(static_cast<std::size_t>(compare->size()));
        compare_set = std::make_unique<UnitSet<NoInput, CompareBlock>>(
            CompareUnits::kind(),
            [this](std::int64_t u, const NoInput&) { return named([&] { return compare->run(u, progress); }); },
            [this](UnitQueue& q, std::int64_t u, CompareBlock&& out, int rank, double secs) {
                if (progress && rank != 0) progress->done += out.steps;
                compare_out[static_cast<std::size_t>(u)] = std::move(out);
                seen(u, rank, secs);
                if (--left > 0) return;
                if (self.finish_anywhere)
                    return q.add(unit(*finish_set, 0, std::move(compare_out), kCompareFinishCost, order));
                q.add(root_unit([this](UnitQueue& q2) { finish(q2, named([&] { return finish_here(std::move(compare_out)); })); },
                                order, self.closure_index));
            });
        finish_set = std::make_unique<UnitSet<std::vector<CompareBlock>, CompareResult>>(
            "compare_finish",
            [this](std::int64_t, std::vector<CompareBlock>&& outs) {
                return named([&] { return finish_here(std::move(outs)); });
            },
            [this](UnitQueue& q, std::int64_t, CompareResult&& r, int rank, double secs) {
                seen(units, rank, secs);
                finish(q, std::move(r));
            });
    }

    void plan_whole() {
        whole_set = std::make_unique<UnitSet<NoInput, WholeResult>>(
            "job",
            [this](std::int64_t, const NoInput&) {
                return WholeResult{named([&] { return kind_of(job).run(job, nullptr, detail, Execution::local); })};
            },
            [this](UnitQueue& q, std::int64_t, WholeResult&& r, int rank, double secs) {
                seen(0, rank, secs);
                finish(q, std::move(r.value));
            });
    }
};

double JobPlan::trial_cost(const Job& job) {
    auto sga_cost = [](const ModelParams& m, const SgaParams& s) {
        return step_cost(m, s.sampler) * static_cast<double>(s.steps) * static_cast<double>(s.trials);
    };
    if (const auto* s = std::get_if<SgaJob>(&job)) return sga_cost(s->model, s->sga);
    if (const auto* c = std::get_if<CompareJob>(&job)) return sga_cost(c->compare.model, c->compare.sga);
    return 0;
}

JobPlan::JobPlan(const Job& job, int ranks, double block_cost, ProgressCounter* progress, ResultDetail detail)
    : impl_(std::make_unique<Impl>(*this, job, detail, progress)) {
    validate(job);
    Impl& m = *impl_;
    const auto* s = std::get_if<SgaJob>(&job);
    const auto* c = std::get_if<CompareJob>(&job);
    const std::int64_t trials = s ? s->sga.trials : c ? c->compare.sga.trials : 1;
    const bool by_cost = ranks > 1 && block_cost > 0;
    m.blocks = by_cost ? static_cast<std::int64_t>(std::ceil(trial_cost(job) / std::max(block_cost, 1.0)))
                       : blocks_for(trials, ranks);
    if (s)
        m.plan_sga(*s);
    else if (c)
        m.plan_compare(*c);
    else
        m.plan_whole();
    m.units = m.sga ? m.sga->size() : m.compare ? m.compare->size() : 1;
    m.left = m.units;
    for (std::int64_t u = 0; u < m.units; ++u)  // kept: the state that knows them is dropped when finished
        m.costs.push_back(m.sga ? m.sga->cost(u) : m.compare ? m.compare->cost(u) : whole_job_cost);
    m.table_units = m.compare ? m.compare->table_units() : 0;
}

JobPlan::~JobPlan() = default;

bool JobPlan::spreads() const noexcept { return !impl_->whole_set; }

std::vector<const detail::AnySet*> JobPlan::sets() const {
    const Impl& m = *impl_;
    if (m.sga_set) return {m.sga_set.get()};
    if (m.compare_set) return {m.compare_set.get(), m.finish_set.get()};
    return {m.whole_set.get()};
}

std::int64_t JobPlan::size() const noexcept { return impl_->units; }

double JobPlan::cost(std::int64_t u) const { return impl_->costs.at(static_cast<std::size_t>(u)); }

std::int64_t JobPlan::table_units() const noexcept { return impl_->table_units; }

std::vector<Unit> JobPlan::units(int order) const {
    Impl& m = *impl_;
    m.order = order;
    std::vector<Unit> out;
    for (std::int64_t u = 0; u < size(); ++u) {
        if (m.sga_set)
            out.push_back(unit(*m.sga_set, u, NoInput{}, cost(u), order));
        else if (m.compare_set)
            out.push_back(unit(*m.compare_set, u, NoInput{}, cost(u), order));
        else
            out.push_back(unit(*m.whole_set, u, NoInput{}, cost(u), order));
    }
    return out;
}

}  // namespace rhoflow
