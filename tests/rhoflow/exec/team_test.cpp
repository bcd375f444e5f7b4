// The work pool in a team of one (the in-process suite never starts MPI; tests/mpi/ runs the
// real thing through mpirun), and the units that the ranks share giving exactly the numbers of
// one process: an ensemble cut into blocks, a comparison cut into trial, study and table blocks,
// run in any order and assembled, serialise to the same JSON as run_ensemble and run_compare.
#include "rhoflow/exec/team.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "rhoflow/compare/compare.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/stochastic/ensemble.hpp"
#include "test_util.hpp"

using namespace rhoflow;

TEST_CASE("team: without mpirun a process is a team of one that never spreads work") {
    CHECK(team_rank() == 0);
    CHECK(team_size() == 1);
    CHECK(team_root());
    CHECK_FALSE(team_spread());
    CHECK(team_root_then_broadcast([] { return std::string("x"); }) == "x");
}

TEST_CASE("team: a pool runs every task largest first, gives outputs to the hook, and runs what the hook queues") {
    std::vector<std::string> order;
    std::vector<PoolTask> tasks;
    for (int i = 0; i < 4; ++i) tasks.push_back({std::to_string(i), static_cast<double>(i % 3), static_cast<std::uint64_t>(i), false, {}});
    int finishes = 0;
    run_pool([&](const std::string& in) { order.push_back(in); return "out" + in; }, tasks,
             [&](PoolQueue& q, const PoolTask& t, std::string out, int, double) {
                 CHECK(out == "out" + t.input);
                 if (t.tag == 3) q.add({"", 0, 99, true, [&] { ++finishes; }});
             });
    // Costs 0, 1, 2, 0: the largest first, ties in the order queued.
    CHECK(order == std::vector<std::string>{"2", "1", "0", "3"});
    CHECK(finishes == 1);
}

TEST_CASE("team: a failing task ends the pool with PoolError naming its tag, rethrowable with its category") {
    std::vector<PoolTask> tasks = {{"a", 2, 7, false, {}}, {"b", 1, 8, false, {}}};
    bool ran_b = false;
    try {
        run_pool(
            [&](const std::string& in) -> std::string {
                if (in == "a") throw NumericalError("not resolved");
                ran_b = true;
                return "";
            },
            tasks, {});
        FAIL("no error");
    } catch (const PoolError& e) {
        CHECK(e.tag() == 7);
        CHECK(e.rank() == 0);
        CHECK_THROWS_AS(e.rethrow(), NumericalError);
    }
    CHECK_FALSE(ran_b);  // nothing new is handed out after a failure
}

TEST_CASE("team: exit_kind maps errors to the command line's exit codes") {
    CHECK(exit_kind(InvalidArgument("R", "bad")) == 2);
    CHECK(exit_kind(NumericalError("bad")) == 3);
    CHECK(exit_kind(std::runtime_error("bad")) == 1);
    CHECK(exit_kind(TeamAborted(3, "elsewhere")) == 3);
}

TEST_CASE("team: an ensemble cut into blocks and run in any order is the ensemble of one process, bit for bit") {
    const ModelParams model{8, 20, 4, 1.0, 1.0, 1.0};
    SgaParams p;
    p.steps = 500;
    p.trials = 7;
    p.threads = 1;
    const nlohmann::json whole = run_ensemble(model, p);
    EnsembleBlocks blocks(model, p, 3);
    REQUIRE(blocks.size() == 3);
    std::vector<std::int64_t> sizes;
    for (std::int64_t b = blocks.size(); b-- > 0;) {  // backwards: order must not matter
        sizes.push_back(blocks.trials(b));
        blocks.accept(b, blocks.run(b));
    }
    // 7 trials in 3 blocks: balanced, 3 + 2 + 2 (in some order), none empty.
    std::sort(sizes.begin(), sizes.end());
    CHECK(sizes == std::vector<std::int64_t>{2, 2, 3});
    CHECK(nlohmann::json(blocks.result()).dump() == whole.dump());
}

TEST_CASE("team: a comparison cut into units and run in any order is the comparison of one process, bit for bit") {
    CompareParams p = test::small_compare();
    p.sga.steps = 2000;
    p.sga.trials = 5;      // 3 main blocks
    p.study_trials = 4;    // 3 blocks per study run
    const nlohmann::json whole = run_compare(p);
    CompareUnits units(p, nullptr, 3);
    std::vector<std::int64_t> order(static_cast<std::size_t>(units.size()));
    std::iota(order.begin(), order.end(), 0);
    std::reverse(order.begin(), order.end());
    int parts[3] = {0, 0, 0};
    for (std::int64_t u : order) {
        ++parts[units.part(u)];
        units.accept(u, units.run(u));
    }
    CHECK(parts[0] == 3);              // main trial blocks
    CHECK(parts[1] == 3 * 3);          // 3 study runs x 3 blocks
    CHECK(parts[2] >= 2);              // the tables (every step size), in node blocks
    CHECK(nlohmann::json(units.finish()).dump() == whole.dump());
}
