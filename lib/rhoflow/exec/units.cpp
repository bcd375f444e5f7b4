#include "rhoflow/exec/units.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/exec/team.hpp"

namespace rhoflow {

int ranks_for(Execution ex) noexcept { return ex == Execution::team && team_spread() ? team_size() : 1; }

std::int64_t blocks_for(std::int64_t n, int ranks) noexcept {
    if (ranks <= 1) return 1;
    return std::max<std::int64_t>(1, std::min<std::int64_t>(n, 4 * std::int64_t{ranks}));
}

std::string detail::encode_bytes(const nlohmann::json& j) { return detail::to_cbor_bytes(j); }

nlohmann::json detail::decode_bytes(const std::string& bytes) { return detail::from_cbor_bytes(bytes); }

namespace {

std::atomic<std::int64_t> run_count{0};

// A unit as it travels: its set's number and its index (fixed width), then its input's bytes.
constexpr std::size_t kHeader = sizeof(std::uint32_t) + sizeof(std::int64_t);

std::string frame(std::uint32_t set, std::int64_t index, const std::string& input) {
    std::string b(kHeader, '\0');
    std::memcpy(b.data(), &set, sizeof set);
    std::memcpy(b.data() + sizeof set, &index, sizeof index);
    return b + input;
}

class Executor;

// The pool's queue seen as a queue of units.
class QueueOfUnits final : public UnitQueue {
public:
    QueueOfUnits(detail::PoolQueue& q, Executor& x) : q_(q), x_(x) {}
    void add(Unit unit) override;

private:
    detail::PoolQueue& q_;
    Executor& x_;
};

// The executor as the pool sees it: rank 0's units by pool tag (tags are indices into units_),
// run in place or sent; every rank's sets by number.
class Executor final : public detail::PoolWork {
public:
    explicit Executor(const std::vector<const detail::AnySet*>& sets) : sets_(sets) {}

    detail::PoolTask task_of(Unit u) {
        detail::PoolTask t;
        t.cost = u.cost;
        t.order = u.order;
        std::lock_guard<std::mutex> lock(mutex_);
        t.tag = units_.size();
        if (u.local) {
            t.root_only = true;
            t.local = [this, f = std::move(u.local)](detail::PoolQueue& q) {
                QueueOfUnits queue(q, *this);
                f(queue);
            };
            units_.push_back({static_cast<std::uint32_t>(sets_.size()), u.index, nullptr, nullptr});
        } else {
            if (!u.input) throw std::logic_error("execute: a unit without its input");
            units_.push_back({number_of(u.set), u.index, std::move(u.input), nullptr});
        }
        return t;
    }

    void run_here(std::uint64_t tag) override {
        const Entry e = entry(tag);
        ++run_count;
        std::unique_ptr<detail::Held> out = sets_[e.set]->run(e.index, *e.input);
        std::lock_guard<std::mutex> lock(mutex_);
        units_[tag].input.reset();
        units_[tag].output = std::move(out);
    }

    std::string send(std::uint64_t tag) override {
        const Entry e = entry(tag);
        std::string bytes = frame(e.set, e.index, sets_[e.set]->encode_input(*e.input));
        std::lock_guard<std::mutex> lock(mutex_);
        units_[tag].input.reset();
        return bytes;
    }

    std::string run_arrived(const std::string& task) override {
        std::uint32_t set = 0;
        std::int64_t index = 0;
        if (task.size() < kHeader) throw std::runtime_error("rhoflow: a truncated unit between ranks");
        std::memcpy(&set, task.data(), sizeof set);
        std::memcpy(&index, task.data() + sizeof set, sizeof index);
        if (set >= sets_.size()) throw std::runtime_error("rhoflow: a unit of an unknown set between ranks");
        const detail::AnySet& s = *sets_[set];
        ++run_count;
        const std::unique_ptr<detail::Held> input = s.decode_input(task.substr(kHeader));
        return s.encode_output(*s.run(index, *input));
    }

    // Rank 0: a finished unit's output (sent back as bytes, or kept by run_here) to its set's hook.
    void finished(UnitQueue& queue, std::uint64_t tag, const std::string* sent_back, int rank, double seconds) {
        Entry e = entry(tag);
        std::unique_ptr<detail::Held> out;
        if (sent_back) {
            out = sets_[e.set]->decode_output(*sent_back);
        } else {
            std::lock_guard<std::mutex> lock(mutex_);
            out = std::move(units_[tag].output);
        }
        sets_[e.set]->done(queue, e.index, *out, rank, seconds);
    }

    UnitId id_of(std::uint64_t tag) {
        const Entry e = entry(tag);
        return {e.set, e.index};
    }

private:
    struct Entry {
        std::uint32_t set = 0;
        std::int64_t index = 0;
        std::shared_ptr<detail::Held> input;   // until run or sent
        std::unique_ptr<detail::Held> output;  // run here, until the hook takes it
    };

    std::uint32_t number_of(const detail::AnySet* set) const {
        const auto it = std::find(sets_.begin(), sets_.end(), set);
        if (it == sets_.end()) throw std::logic_error("execute: a unit of a set not given to execute()");
        return static_cast<std::uint32_t>(it - sets_.begin());
    }

    Entry entry(std::uint64_t tag) {
        std::lock_guard<std::mutex> lock(mutex_);
        const Entry& e = units_.at(static_cast<std::size_t>(tag));
        return {e.set, e.index, e.input, nullptr};
    }

    const std::vector<const detail::AnySet*>& sets_;
    std::mutex mutex_;
    std::deque<Entry> units_;
};

void QueueOfUnits::add(Unit unit) { q_.add(x_.task_of(std::move(unit))); }

}  // namespace

void execute(Execution ex, const std::vector<const detail::AnySet*>& sets, std::vector<Unit> units) {
    Executor x(sets);
    std::vector<detail::PoolTask> tasks;
    tasks.reserve(units.size());
    for (Unit& u : units) tasks.push_back(x.task_of(std::move(u)));
    auto hook = [&](detail::PoolQueue& q, const detail::PoolTask& t, const std::string* sent_back, int rank,
                    double seconds) {
        QueueOfUnits queue(q, x);
        x.finished(queue, t.tag, sent_back, rank, seconds);
    };
    try {
        detail::run_pool(x, std::move(tasks), hook, ex == Execution::team);
    } catch (const detail::PoolError& e) {
        throw UnitError(x.id_of(e.tag()), e.rank(), e.error(), e.what());
    }
}

std::int64_t units_run() noexcept { return run_count.load(); }

bool keeps_results(Execution ex) noexcept { return ranks_for(ex) == 1 || team_root(); }

std::string detail::root_then_broadcast_bytes(Execution ex, const std::function<std::string()>& f) {
    if (ex == Execution::local || !team_spread()) return f();
    return team_root_then_broadcast(f);
}

}  // namespace rhoflow
