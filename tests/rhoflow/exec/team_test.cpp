// The work pool in a team of one (the in-process suite never starts MPI; tests/mpi/ runs the
// real thing through mpirun), and the units that the ranks share giving exactly the numbers of
// one process: an ensemble cut into blocks, a comparison cut into trial, study and table blocks,
// run in any order and assembled, serialise to the same JSON as run_ensemble and run_compare.
#include "rhoflow/exec/team.hpp"
#include "rhoflow/exec/units.hpp"

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

TEST_CASE("units: the executor hands out units by order, then largest cost first, and runs what the hook queues") {
    std::vector<std::string> order;
    std::vector<Unit> units;
    for (int i = 0; i < 5; ++i) {
        Unit u;
        u.id = {UnitKind::trials, static_cast<std::uint32_t>(i % 2), i};
        u.input = i * 10;
        u.cost = static_cast<double>(i % 3);
        u.order = i == 4 ? -1 : 0;  // unit 4 first, whatever its cost
        units.push_back(std::move(u));
    }
    int writes = 0;
    std::vector<std::int64_t> done;
    execute(
        Execution::local,
        [&](const UnitId& id, const nlohmann::json& in) {
            order.push_back(std::to_string(id.index));
            return nlohmann::json{{"twice", in.get<int>() * 2}, {"owner", id.owner}};
        },
        units,
        [&](UnitQueue& q, const UnitId& id, nlohmann::json out, int rank, double) {
            CHECK(rank == 0);
            CHECK(out.at("twice") == id.index * 20);  // the output of this unit's own input
            CHECK(out.at("owner") == id.owner);
            done.push_back(id.index);
            if (id.index == 3) {
                Unit w;
                w.id = {UnitKind::write, 7, 0};
                w.local = [&] { ++writes; };
                q.add(std::move(w));
            }
        });
    // Order -1 first (unit 4); then costs 0, 1, 2, 0: the largest first, ties in the order queued.
    CHECK(order == std::vector<std::string>{"4", "2", "1", "0", "3"});
    CHECK(done == std::vector<std::int64_t>{4, 2, 1, 0, 3});
    CHECK(writes == 1);
}

TEST_CASE("units: a failing unit ends the run with UnitError naming its id, rethrowable with its category") {
    std::vector<Unit> units(2);
    units[0].id = {UnitKind::compare_table, 3, 5};
    units[0].cost = 2;
    units[1].id = {UnitKind::compare_trials, 3, 0};
    units[1].cost = 1;
    bool ran_second = false;
    try {
        execute(
            Execution::team,
            [&](const UnitId& id, const nlohmann::json&) -> nlohmann::json {
                if (id.kind == UnitKind::compare_table) throw NumericalError("not resolved");
                ran_second = true;
                return nullptr;
            },
            units, {});
        FAIL("no error");
    } catch (const UnitError& e) {
        CHECK(e.id() == UnitId{UnitKind::compare_table, 3, 5});
        CHECK(e.rank() == 0);
        CHECK(std::string(e.what()) == "not resolved");
        CHECK_THROWS_AS(e.rethrow(), NumericalError);
    }
    CHECK_FALSE(ran_second);  // nothing new is handed out after a failure
}

TEST_CASE("units: map_indices gives f(i) for every index in order, in one block for a team of one") {
    const std::int64_t before = units_run();
    const std::vector<double> got = map_indices<double>(Execution::team, UnitKind::recompute, 1001, 2,
                                                         [](std::int64_t i) { return 0.5 * static_cast<double>(i * i); });
    REQUIRE(got.size() == 1001);
    for (std::int64_t i = 0; i < 1001; ++i) CHECK(got[static_cast<std::size_t>(i)] == 0.5 * static_cast<double>(i * i));
    CHECK(units_run() - before == 1);
    CHECK(blocks_for(1001, 1) == 1);
    CHECK(blocks_for(1001, 3) == 12);
    CHECK(blocks_for(5, 3) == 5);
    CHECK(map_indices<int>(Execution::local, UnitKind::recompute, 0, 1, [](std::int64_t) { return 1; }).empty());
}

TEST_CASE("team: failure_kind gives each error's category, as it travels between ranks") {
    CHECK(failure_kind(InvalidArgument("R", "bad")) == FailureKind::invalid_input);
    CHECK(failure_kind(NumericalError("bad")) == FailureKind::numerical);
    CHECK(failure_kind(std::runtime_error("bad")) == FailureKind::other);
    CHECK(failure_kind(TeamAborted(FailureKind::numerical, "elsewhere")) == FailureKind::numerical);
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
        CHECK(blocks.kind(b) == UnitKind::trials);
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
        const UnitKind k = units.kind(u);
        ++parts[k == UnitKind::compare_trials ? 0 : k == UnitKind::compare_study ? 1 : 2];
        units.accept(u, units.run(u));
    }
    CHECK(parts[0] == 3);              // main trial blocks
    CHECK(parts[1] == 3 * 3);          // 3 study runs x 3 blocks
    CHECK(parts[2] >= 2);              // the tables (every step size), in node blocks
    CHECK(nlohmann::json(units.finish()).dump() == whole.dump());
}

TEST_CASE("units: one path: an ensemble and a comparison run in one process go through the executor's units") {
    // A team of one runs the same units as a team of many (in one block each): were a second,
    // one-process path to appear beside the units, these counts would not move.
    const ModelParams model{8, 20, 4, 1.0, 1.0, 1.0};
    SgaParams p;
    p.steps = 200;
    p.trials = 5;
    p.threads = 1;
    std::int64_t before = units_run();
    const EnsembleResult e = run_ensemble(model, p);
    CHECK(units_run() - before == 1);  // one block of 5 trials
    CHECK(e.trials.size() == 5);
    p.trials = 4096 + 3;  // more than a block may hold: two blocks
    p.steps = 2;
    before = units_run();
    const EnsembleResult big = run_ensemble(model, p, nullptr, EnsembleOutput::summary(2));
    CHECK(units_run() - before == 2);
    CHECK(big.rho_finals.size() == 4099);
    CHECK(big.trials.size() == 2);
    CompareParams c = test::small_compare();
    c.sga.steps = 2000;
    const CompareUnits units(c, nullptr, 1);
    before = units_run();
    const CompareResult r = run_compare(c);
    CHECK(units_run() - before == units.size());
    CHECK(r.table.size() > 2);
}
