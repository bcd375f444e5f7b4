// A job as the executor runs it (exec/units.hpp): the one plan that the command line
// (run(Execution::team, job)), the experiment runner (every pending cell's plan in one execution)
// and the Python module (run(job)) all run, in one process or over the ranks of a team.
//
// A job either spreads or runs whole. sga spreads into its trial blocks, then assigns the trials
// to their ODE basins; compare into its trial, study and moment-table blocks, then its finish
// (statistics, phase portrait, effective prediction): in an experiment one more unit that any
// rank may run, on the command line rank 0's. A job that runs whole (field, ode, phase, stationary, check, prove) is one unit in an
// experiment, on whichever rank is free; alone (the command line) it runs on every rank, where
// check's points and prove's cells spread themselves.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/exec/units.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/experiment/jobs.hpp"

namespace rhoflow {

/// f(), its errors named by `where` ("where: message", same category; empty: as they are).
template <class F>
auto with_context(const std::string& where, F&& f) -> decltype(f()) {
    if (where.empty()) return f();
    try {
        return f();
    } catch (const NumericalError& err) {
        throw NumericalError(where + ": " + err.what());
    } catch (const InvalidArgument& err) {
        throw InvalidArgument(err.field(), where + ": " + err.what());
    } catch (const std::exception& err) {
        throw std::runtime_error(where + ": " + plain_message(err));
    }
}

/// A job cut into typed units, and what rank 0 does when they are back.
class JobPlan {
public:
    /// Rank 0: told of each of the plan's units as it finishes: its index among units() (a
    /// comparison's finish: size()), the rank that ran it and its seconds there.
    using UnitSeen = std::function<void(std::int64_t unit, int rank, double seconds)>;
    /// The estimated cost of a job that runs whole (token-steps: typically well under a second).
    static constexpr double whole_job_cost = 1e8;
    /// Rank 0: the job's result, once made (may queue units).
    using Finished = std::function<void(UnitQueue& queue, JobResult result)>;

    /// The plan of `job` for `ranks` ranks: a spreading job's trials cut into blocks of about
    /// `block_cost` token-steps when it is > 0 and ranks > 1, else into blocks_for(trials,
    /// ranks); `progress` (rank 0's, optional) counts SGA steps; `detail` as for run(). Every
    /// rank builds the same plan. Validates the job.
    JobPlan(const Job& job, int ranks, double block_cost, ProgressCounter* progress, ResultDetail detail);
    ~JobPlan();
    JobPlan(const JobPlan&) = delete;
    JobPlan& operator=(const JobPlan&) = delete;

    /// Whether the job is cut into units (sga, compare) or runs whole.
    bool spreads() const noexcept;
    /// Its unit sets, the same on every rank (for execute()).
    std::vector<const detail::AnySet*> sets() const;
    /// Rank 0: the units to start with, handed out at `order`.
    std::vector<Unit> units(int order) const;
    /// The units it starts with.
    std::int64_t size() const noexcept;
    /// Estimated cost of unit u of units() (token-steps).
    double cost(std::int64_t u) const;
    /// How many of them are moment-table blocks (compare's last units; else 0).
    std::int64_t table_units() const noexcept;
    /// Estimated cost of a job's trials (token-steps; 0 for a job without trials).
    static double trial_cost(const Job& job);

    UnitSeen seen;       ///< rank 0: each finished unit (set before execute())
    Finished finished;   ///< rank 0: the result (set before execute()); the plan's state is released after it
    std::string where;   ///< names the job in its units' errors (with_context; every rank, before execute())
    std::int64_t closure_index = 0;  ///< names the plan's rank-0 closures in a UnitError (the runner: its cell)
    /// Whether a comparison's finish may go to any rank (an experiment, where other cells keep
    /// rank 0 busy) or stays on rank 0 (the command line: its trials need not travel again).
    bool finish_anywhere = false;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace rhoflow
