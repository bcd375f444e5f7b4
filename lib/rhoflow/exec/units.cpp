#include "rhoflow/exec/units.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/exec/team.hpp"

namespace rhoflow {

int ranks_for(Execution ex) noexcept { return ex == Execution::team && team_spread() ? team_size() : 1; }

std::int64_t blocks_for(std::int64_t n, int ranks) noexcept {
    if (ranks <= 1) return 1;
    return std::max<std::int64_t>(1, std::min<std::int64_t>(n, 4 * std::int64_t{ranks}));
}

const char* unit_kind_name(UnitKind kind) noexcept {
    switch (kind) {
        case UnitKind::trials: return "trials";
        case UnitKind::compare_trials: return "compare_trials";
        case UnitKind::compare_study: return "compare_study";
        case UnitKind::compare_table: return "compare_table";
        case UnitKind::compare_finish: return "compare_finish";
        case UnitKind::job: return "job";
        case UnitKind::write: return "write";
        case UnitKind::enclosures: return "enclosures";
        case UnitKind::recompute: return "recompute";
        case UnitKind::check_points: return "check_points";
    }
    return "unknown";
}

namespace {

std::atomic<std::int64_t> run_count{0};

// A unit as it travels: {"k": kind, "o": owner, "i": index, "in": input} in CBOR.
std::string encode(const Unit& u) {
    return detail::to_cbor_bytes(
        {{"k", static_cast<int>(u.id.kind)}, {"o", u.id.owner}, {"i", u.id.index}, {"in", u.input}});
}

std::pair<UnitId, nlohmann::json> decode(const std::string& bytes) {
    nlohmann::json j = detail::from_cbor_bytes(bytes);
    UnitId id{static_cast<UnitKind>(j.at("k").get<int>()), j.at("o").get<std::uint32_t>(), j.at("i").get<std::int64_t>()};
    return {id, std::move(j.at("in"))};
}

// Rank 0's units by pool tag (tags are indices here), shared by the hook and local units.
class Ids {
public:
    std::uint64_t add(const UnitId& id) {
        std::lock_guard<std::mutex> lock(mutex_);
        ids_.push_back(id);
        return ids_.size() - 1;
    }
    UnitId at(std::uint64_t tag) const {
        std::lock_guard<std::mutex> lock(mutex_);
        return ids_.at(static_cast<std::size_t>(tag));
    }

private:
    mutable std::mutex mutex_;
    std::vector<UnitId> ids_;
};

detail::PoolTask task_of(Unit u, Ids& ids) {
    detail::PoolTask t;
    t.tag = ids.add(u.id);
    t.cost = u.cost;
    t.order = u.order;
    if (u.local) {
        t.root_only = true;
        t.local = std::move(u.local);
    } else {
        t.input = encode(u);
    }
    return t;
}

// The pool's queue seen as a queue of units.
class QueueOfUnits final : public UnitQueue {
public:
    QueueOfUnits(detail::PoolQueue& q, Ids& ids) : q_(q), ids_(ids) {}
    void add(Unit unit) override { q_.add(task_of(std::move(unit), ids_)); }

private:
    detail::PoolQueue& q_;
    Ids& ids_;
};

}  // namespace

void execute(Execution ex, const UnitWork& work, std::vector<Unit> units, const UnitDone& done) {
    Ids ids;
    std::vector<detail::PoolTask> tasks;
    tasks.reserve(units.size());
    for (Unit& u : units) tasks.push_back(task_of(std::move(u), ids));
    auto run = [&](const std::string& in) {
        auto [id, input] = decode(in);
        ++run_count;
        return detail::to_cbor_bytes(work(id, input));
    };
    auto hook = [&](detail::PoolQueue& q, const detail::PoolTask& t, std::string out, int rank, double seconds) {
        QueueOfUnits queue(q, ids);
        if (done) done(queue, ids.at(t.tag), detail::from_cbor_bytes(out), rank, seconds);
    };
    try {
        detail::run_pool(run, std::move(tasks), hook, ex == Execution::team);
    } catch (const detail::PoolError& e) {
        throw UnitError(ids.at(e.tag()), e.rank(), e.error(), e.what());
    }
}

std::int64_t units_run() noexcept { return run_count.load(); }

nlohmann::json root_then_broadcast(Execution ex, const std::function<nlohmann::json()>& f) {
    if (ex == Execution::local || !team_spread()) return f();
    return detail::from_cbor_bytes(team_root_then_broadcast([&] { return detail::to_cbor_bytes(f()); }));
}

}  // namespace rhoflow
