// Typed units of work and the one executor that runs them, in one process or over the ranks of
// an MPI team (exec/team.hpp).
//
// Every computation that can be spread is a list of units: an ensemble's trial blocks, a
// comparison's trial, study and table blocks and its finish, an experiment's cells, the batches
// of cells of `prove` and of its checker. A client describes its units by a UnitSet<In, Out>:
// plain C++ types in and out, the work any rank does for a unit, and what rank 0 does with its
// output. execute() runs them the same way whatever the team: over several ranks, rank 0 hands
// them out (see exec/team.hpp for the protocol); in a team of one (no mpirun, Execution::local,
// or inside a unit, where work is never spread again) it runs them in turn on the calling
// thread. It is one path: the same sets, the same order, the same hooks. Values stay typed on
// the rank that makes them; a unit handed to another rank, and its output, cross as bytes
// (nlohmann's hooks, CBOR: doubles exactly, NaN included), the only encoding, at the MPI
// boundary. A unit runs its own items on the process's threads (exec/parallel.hpp), so a team
// of one loses nothing.
//
// exec/ knows no client: a set's kind is a name its client gives ("trials", "enclosures").
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "rhoflow/exec/execution.hpp"
#include "rhoflow/exec/parallel.hpp"

namespace rhoflow {

/// Which unit: its set (by number, in the order the sets were given to execute()) and its index there.
struct UnitId {
    std::uint32_t set = 0;   ///< the set it belongs to
    std::int64_t index = 0;  ///< its index in the set
};

/// Whether two ids name the same unit.
inline bool operator==(const UnitId& a, const UnitId& b) noexcept { return a.set == b.set && a.index == b.index; }

/// The input of units that need nothing but their index (everything else is known to every rank).
struct NoInput {};
/// Encodes as null.
inline void to_json(nlohmann::json& j, const NoInput&) { j = nullptr; }
/// Reads null.
inline void from_json(const nlohmann::json&, NoInput&) {}

class UnitQueue;

namespace detail {

/// A typed value the executor holds for a unit; encoded only when it travels between ranks.
struct Held {
    virtual ~Held() = default;
};

/// A Held of type T.
template <class T>
struct HeldAs final : Held {
    explicit HeldAs(T v) : value(std::move(v)) {}
    T value;  ///< the value
};

/// The CBOR bytes of `j` (exec/units.cpp).
std::string encode_bytes(const nlohmann::json& j);
/// The JSON value of CBOR bytes; throws std::runtime_error on bytes that are not CBOR.
nlohmann::json decode_bytes(const std::string& bytes);

/// What the executor needs of a set of units, whatever their types (UnitSet implements it).
class AnySet {
public:
    virtual ~AnySet() = default;
    /// What its units are, for messages.
    virtual const char* kind() const noexcept = 0;
    /// Runs unit `index` on `input` (any rank; the input is the unit's own, moved from).
    virtual std::unique_ptr<Held> run(std::int64_t index, Held& input) const = 0;
    /// An input as bytes.
    virtual std::string encode_input(const Held& input) const = 0;
    /// An input from bytes.
    virtual std::unique_ptr<Held> decode_input(const std::string& bytes) const = 0;
    /// An output as bytes.
    virtual std::string encode_output(const Held& output) const = 0;
    /// An output from bytes.
    virtual std::unique_ptr<Held> decode_output(const std::string& bytes) const = 0;
    /// Rank 0: hands a finished unit's output to the set's hook.
    virtual void done(UnitQueue& queue, std::int64_t index, Held& output, int rank, double seconds) const = 0;
};

}  // namespace detail

/// A set of units with typed inputs and outputs: what any rank computes for a unit, and what
/// rank 0 does with its output. In and Out need nlohmann's JSON hooks (used only to travel).
template <class In, class Out>
class UnitSet final : public detail::AnySet {
public:
    /// What any rank computes for unit `index` from its input (its own: the executor drops it after).
    using Work = std::function<Out(std::int64_t index, In&& input)>;
    /// Rank 0's hook for a finished unit: its output, the rank that computed it and the seconds
    /// it took there. Called one at a time; may queue units.
    using Done = std::function<void(UnitQueue& queue, std::int64_t index, Out&& output, int rank, double seconds)>;

    /// `kind` names the units in messages (a string literal: it is not copied).
    UnitSet(const char* kind, Work work, Done done = {}) : kind_(kind), work_(std::move(work)), done_(std::move(done)) {}

    /// What its units are.
    const char* kind() const noexcept override { return kind_; }
    /// Runs unit `index` on `input` (any rank).
    std::unique_ptr<detail::Held> run(std::int64_t index, detail::Held& input) const override {
        return std::make_unique<detail::HeldAs<Out>>(work_(index, std::move(static_cast<detail::HeldAs<In>&>(input).value)));
    }
    /// An input as bytes.
    std::string encode_input(const detail::Held& input) const override {
        return detail::encode_bytes(nlohmann::json(as<In>(input)));
    }
    /// An input from bytes.
    std::unique_ptr<detail::Held> decode_input(const std::string& bytes) const override {
        return std::make_unique<detail::HeldAs<In>>(detail::decode_bytes(bytes).template get<In>());
    }
    /// An output as bytes.
    std::string encode_output(const detail::Held& output) const override {
        return detail::encode_bytes(nlohmann::json(as<Out>(output)));
    }
    /// An output from bytes.
    std::unique_ptr<detail::Held> decode_output(const std::string& bytes) const override {
        return std::make_unique<detail::HeldAs<Out>>(detail::decode_bytes(bytes).template get<Out>());
    }
    /// Rank 0: hands a finished unit's output to the hook.
    void done(UnitQueue& queue, std::int64_t index, detail::Held& output, int rank, double seconds) const override {
        if (done_) done_(queue, index, std::move(static_cast<detail::HeldAs<Out>&>(output).value), rank, seconds);
    }

private:
    template <class T>
    static const T& as(const detail::Held& h) {
        return static_cast<const detail::HeldAs<T>&>(h).value;
    }
    const char* kind_;
    Work work_;
    Done done_;
};

/// One unit to run (built on rank 0): a unit of a set with its input, or a closure rank 0 runs.
struct Unit {
    const detail::AnySet* set = nullptr;   ///< its set (null for a closure)
    std::int64_t index = 0;                ///< its index in the set
    std::shared_ptr<detail::Held> input;   ///< what the set's work receives, on whichever rank runs it
    double cost = 1;                       ///< estimated cost: among units of the same `order`, larger ones first
    int order = 0;                         ///< units of a smaller order are handed out first
    std::function<void(UnitQueue&)> local; ///< a closure: rank 0 runs it (never sent; may queue units)
};

/// Unit `index` of `set` with its input.
template <class In, class Out>
Unit unit(const UnitSet<In, Out>& set, std::int64_t index, In input = {}, double cost = 1, int order = 0) {
    return {&set, index, std::make_shared<detail::HeldAs<In>>(std::move(input)), cost, order, {}};
}

/// A closure rank 0 runs in turn with the units (finishing a cell, writing files); `index`
/// names it in a UnitError.
inline Unit root_unit(std::function<void(UnitQueue&)> f, int order = 0, std::int64_t index = 0) {
    return {nullptr, index, nullptr, 0, order, std::move(f)};
}

/// Rank 0's queue while units run (handed to the hooks and to closures to add work).
class UnitQueue {
public:
    virtual ~UnitQueue() = default;
    /// Queues a unit (thread-safe); its set must be one given to execute().
    virtual void add(Unit unit) = 0;
};

/// Thrown on rank 0 when a unit failed: which unit, on which rank, and the error itself (same
/// category, message prefixed by "rank K: " when another rank ran it) for rethrow().
class UnitError : public std::runtime_error {
public:
    /// `error` holds the exception to rethrow.
    UnitError(UnitId id, int rank, std::exception_ptr error, const std::string& message)
        : std::runtime_error(message), id_(id), rank_(rank), error_(std::move(error)) {}
    /// The failed unit (a closure's id: {the number of sets, the index given to root_unit}).
    const UnitId& id() const noexcept { return id_; }
    /// The rank it failed on.
    int rank() const noexcept { return rank_; }
    /// Throws the error (InvalidArgument, NumericalError or std::runtime_error).
    [[noreturn]] void rethrow() const { std::rethrow_exception(error_); }

private:
    UnitId id_;
    int rank_;
    std::exception_ptr error_;
};

/// Runs `units` and whatever the hooks and closures queue, until none is left. Under
/// Execution::team collective: every rank calls it with the same `sets` in the same order;
/// `units` are used on rank 0 only. Throws UnitError on rank 0 and TeamAborted on the others if
/// a unit failed (nothing new is handed out after a failure).
void execute(Execution ex, const std::vector<const detail::AnySet*>& sets, std::vector<Unit> units);

/// execute() for one set.
template <class In, class Out>
void execute(Execution ex, const UnitSet<In, Out>& set, std::vector<Unit> units) {
    execute(ex, std::vector<const detail::AnySet*>{&set}, std::move(units));
}

/// Whether this process keeps the results of a collective computation under `ex`: every
/// process under Execution::local or in a team of one, rank 0 alone in a team.
bool keeps_results(Execution ex) noexcept;

/// `f()` where this process keeps results (keeps_results), nothing elsewhere: the result of a
/// collective computation (rank 0's; the other ranks computed their share of it).
template <class T, class F>
std::optional<T> on_keeper(Execution ex, F&& f) {
    if (!keeps_results(ex)) return std::nullopt;
    return std::optional<T>(f());
}

/// Units this process has run since it started (tests use it to see that a computation goes
/// through the executor).
std::int64_t units_run() noexcept;

namespace detail {
/// Collective under Execution::team: rank 0 computes `f`'s bytes, every rank gets them.
std::string root_then_broadcast_bytes(Execution ex, const std::function<std::string()>& f);
}  // namespace detail

/// Collective under Execution::team: rank 0 computes `f` and every rank gets its value (f() in
/// a team of one, never encoded). If `f` throws, rank 0 rethrows it and the other ranks throw
/// TeamAborted. T needs nlohmann's JSON hooks.
template <class T, class F>
T root_then_broadcast(Execution ex, F&& f) {
    if (ranks_for(ex) == 1) return f();
    std::optional<T> mine;  // rank 0's value: kept typed, only the others decode
    const std::string bytes = detail::root_then_broadcast_bytes(ex, [&] {
        mine = f();
        return detail::encode_bytes(nlohmann::json(*mine));
    });
    if (mine) return std::move(*mine);
    return detail::decode_bytes(bytes).template get<T>();
}

/// Computes f(i) for every i in [0, n): the indices cut into blocks_for(n, ranks_for(ex))
/// blocks of consecutive indices, each block one unit of kind `kind` whose indices run on
/// `threads` threads (exec/parallel.hpp); every rank gets every value, in index order.
/// Collective under Execution::team, where every rank must be able to compute f for any index
/// (the same inputs on every rank: SPMD). `Out` needs nlohmann's JSON hooks.
template <class Out, class F>
std::vector<Out> map_indices(Execution ex, const char* kind, std::int64_t n, int threads, F&& f) {
    const std::int64_t blocks = blocks_for(n, ranks_for(ex));
    auto start = [&](std::int64_t b) { return n * b / blocks; };  // block b is [start(b), start(b + 1))
    std::vector<Out> out(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
    const UnitSet<NoInput, std::vector<Out>> set(
        kind,
        [&](std::int64_t b, const NoInput&) {
            const std::int64_t first = start(b);
            std::vector<Out> got(static_cast<std::size_t>(start(b + 1) - first));
            parallel_for(start(b + 1) - first, threads, [&](std::int64_t k) { got[static_cast<std::size_t>(k)] = f(first + k); });
            return got;
        },
        [&](UnitQueue&, std::int64_t b, std::vector<Out>&& got, int, double) {
            const auto first = static_cast<std::size_t>(start(b));
            for (std::size_t k = 0; k < got.size(); ++k) out[first + k] = std::move(got[k]);
        });
    std::vector<Unit> units;
    for (std::int64_t b = 0; n > 0 && b < blocks; ++b)
        units.push_back(unit(set, b, NoInput{}, static_cast<double>(start(b + 1) - start(b))));
    try {
        execute(ex, set, std::move(units));
    } catch (const UnitError& e) {
        e.rethrow();
    }
    return root_then_broadcast<std::vector<Out>>(ex, [&] { return std::move(out); });
}

}  // namespace rhoflow
