// The work pool in a team of one (the in-process suite never starts MPI; tests/mpi/ runs the
// real thing through mpirun), and the units that the ranks share giving exactly the numbers of
// one process: an ensemble cut into blocks, a comparison cut into trial, study and table blocks,
// run in any order and assembled, serialise to the same JSON as run_ensemble and run_compare.
#include "rhoflow/exec/team.hpp"
#include "rhoflow/exec/units.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
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

namespace {

// A value that counts its encodings: units in a team of one must never encode.
struct Counted {
    int value = 0;
    static inline int encoded = 0;
};
void to_json(nlohmann::json& j, const Counted& c) {
    ++Counted::encoded;
    j = c.value;
}
void from_json(const nlohmann::json& j, Counted& c) { c.value = j.get<int>(); }

}  // namespace

TEST_CASE("units: the executor hands out units by order, then largest cost first, and runs what the hooks queue") {
    std::vector<std::string> order;
    int writes = 0;
    std::vector<std::int64_t> done;
    std::vector<std::string> second;
    const UnitSet<std::string, std::size_t> lengths(
        "lengths", [&](std::int64_t, const std::string& in) { return in.size(); },
        [&](UnitQueue&, std::int64_t i, std::size_t&& n, int, double) { second.push_back(std::to_string(i) + ":" + std::to_string(n)); });
    const UnitSet<int, Counted> twice(
        "twice",
        [&](std::int64_t i, const int& in) {
            order.push_back(std::to_string(i));
            return Counted{in * 2};
        },
        [&](UnitQueue& q, std::int64_t i, Counted&& out, int rank, double) {
            CHECK(rank == 0);
            CHECK(out.value == i * 20);  // the output of this unit's own input
            done.push_back(i);
            if (i == 3) {
                q.add(root_unit([&](UnitQueue& q2) {
                    ++writes;
                    q2.add(unit(lengths, 9, std::string("abcd")));  // a closure queues a unit of another set
                }));
            }
        });
    std::vector<Unit> units;
    for (int i = 0; i < 5; ++i) units.push_back(unit(twice, i, i * 10, static_cast<double>(i % 3), i == 4 ? -1 : 0));
    Counted::encoded = 0;
    execute(Execution::local, {&twice, &lengths}, std::move(units));
    // Order -1 first (unit 4); then costs 0, 1, 2, 0: the largest first, ties in the order queued.
    CHECK(order == std::vector<std::string>{"4", "2", "1", "0", "3"});
    CHECK(done == std::vector<std::int64_t>{4, 2, 1, 0, 3});
    CHECK(writes == 1);
    CHECK(second == std::vector<std::string>{"9:4"});
    CHECK(Counted::encoded == 0);  // typed all the way: nothing encoded in a team of one
}

TEST_CASE("units: what crosses to another rank is the unit's value, encoded and decoded exactly") {
    // The bytes path of the MPI boundary, in one process: an input encoded, decoded, run, and its
    // output encoded and decoded give what the typed path gives (doubles bit for bit, NaN too).
    const UnitSet<std::vector<double>, std::vector<double>> halves(
        "halves", [](std::int64_t, const std::vector<double>& in) {
            std::vector<double> out;
            for (double x : in) out.push_back(0.5 * x);
            return out;
        });
    const std::vector<double> in = {0.1, -3e-300, 1.0 / 3.0, std::numeric_limits<double>::quiet_NaN()};
    detail::HeldAs<std::vector<double>> held(in);
    const auto arrived = halves.decode_input(halves.encode_input(held));
    const auto back = halves.decode_output(halves.encode_output(*halves.run(0, *arrived)));
    const auto here = halves.run(0, held);
    const auto& a = static_cast<const detail::HeldAs<std::vector<double>>&>(*back).value;
    const auto& b = static_cast<const detail::HeldAs<std::vector<double>>&>(*here).value;
    REQUIRE(a.size() == 4);
    for (std::size_t i = 0; i < 3; ++i) CHECK(a[i] == b[i]);
    CHECK(std::isnan(a[3]));
    CHECK_THROWS_AS(halves.decode_output("\xff\x00"), std::exception);  // bytes that are no value
}

TEST_CASE("units: a failing unit ends the run with UnitError naming its set and index, rethrowable with its category") {
    bool ran_second = false;
    const UnitSet<NoInput, int> first("first", [&](std::int64_t, const NoInput&) -> int { ran_second = true; return 0; });
    const UnitSet<NoInput, int> failing("failing", [&](std::int64_t, const NoInput&) -> int {
        throw NumericalError("not resolved");
    });
    std::vector<Unit> units;
    units.push_back(unit(failing, 5, NoInput{}, 2));
    units.push_back(unit(first, 0, NoInput{}, 1));
    try {
        execute(Execution::team, {&first, &failing}, std::move(units));
        FAIL("no error");
    } catch (const UnitError& e) {
        CHECK(e.id() == UnitId{1, 5});  // the second set given, unit 5
        CHECK(e.rank() == 0);
        CHECK(std::string(e.what()) == "not resolved");
        CHECK_THROWS_AS(e.rethrow(), NumericalError);
    }
    CHECK_FALSE(ran_second);  // nothing new is handed out after a failure
}

TEST_CASE("units: a unit of a set the executor was not given is refused before anything runs") {
    const UnitSet<NoInput, int> known("known", [](std::int64_t, const NoInput&) { return 1; });
    const UnitSet<NoInput, int> stranger("stranger", [](std::int64_t, const NoInput&) { return 2; });
    std::vector<Unit> units;
    units.push_back(unit(stranger, 0));
    CHECK_THROWS_AS(execute(Execution::local, known, std::move(units)), std::logic_error);
}

TEST_CASE("units: map_indices gives f(i) for every index in order, in one block for a team of one") {
    const std::int64_t before = units_run();
    const std::vector<double> got = map_indices<double>(Execution::team, "squares", 1001, 2,
                                                         [](std::int64_t i) { return 0.5 * static_cast<double>(i * i); });
    REQUIRE(got.size() == 1001);
    for (std::int64_t i = 0; i < 1001; ++i) CHECK(got[static_cast<std::size_t>(i)] == 0.5 * static_cast<double>(i * i));
    CHECK(units_run() - before == 1);
    CHECK(blocks_for(1001, 1) == 1);
    CHECK(blocks_for(1001, 3) == 12);
    CHECK(blocks_for(5, 3) == 5);
    CHECK(map_indices<int>(Execution::local, "none", 0, 1, [](std::int64_t) { return 1; }).empty());
}

TEST_CASE("units: a collective's result is kept where results are kept: every process in a team of one") {
    CHECK(keeps_results(Execution::local));
    CHECK(keeps_results(Execution::team));  // no mpirun: a team of one
    CHECK(on_keeper<int>(Execution::team, [] { return 7; }) == std::optional<int>(7));
    CHECK(root_then_broadcast<std::vector<int>>(Execution::team, [] { return std::vector<int>{1, 2}; }) ==
          std::vector<int>{1, 2});
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
    CHECK(std::string(EnsembleBlocks::kind()) == "trials");
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
    std::vector<TrialResult> main_trials(static_cast<std::size_t>(p.sga.trials));
    for (std::int64_t u : order) {
        CompareBlock out = units.run(u);
        ++parts[!out.trials.empty() ? 0 : !out.sups.empty() ? 1 : 2];
        for (const TrialResult& t : out.trials) main_trials.at(static_cast<std::size_t>(t.trial - p.sga.first_trial)) = t;
        units.accept(u, std::move(out));
    }
    CHECK(parts[0] == 3);              // main trial blocks
    CHECK(parts[1] == 3 * 3);          // 3 study runs x 3 blocks
    CHECK(parts[2] >= 2);              // the tables (every step size), in node blocks
    CHECK(parts[2] == units.table_units());
    CHECK(nlohmann::json(units.finish()).dump() == whole.dump());
    // The main blocks' trials are the ensemble's own, by an independent path (run_ensemble with
    // the comparison's record steps): the same streams, starts and ends.
    SgaParams sp = p.sga;
    sp.record_steps = compare_plan(p).rows;
    const EnsembleResult alone = run_ensemble(p.model, sp);
    REQUIRE(alone.trials.size() == main_trials.size());
    for (std::size_t i = 0; i < main_trials.size(); ++i) {
        CHECK(main_trials[i].rho_final == alone.trials[i].rho_final);
        CHECK(main_trials[i].rho0 == alone.trials[i].rho0);
    }
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
    CompareUnits units(c, nullptr, 1);
    before = units_run();
    const CompareResult r = run_compare(c);
    CHECK(units_run() - before == units.size());
    CHECK(r.table.size() > 2);
}
