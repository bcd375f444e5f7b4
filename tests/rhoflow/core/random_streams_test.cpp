// Stream purposes keep the library's uses of randomness apart. Each use is pinned to its
// stream by recomputing the library's output from an explicitly built stream (SGA trial k:
// its random start; Monte Carlo chunk c: its estimate), and the streams of different purposes
// are shown to differ for the indices the library reaches at the extremes of accepted
// parameters. The old bug (Monte Carlo chunk c and SGA trial c with the same seed drew from
// the same stream (seed, c)) fails the checks marked "old bug".
#include "rhoflow/core/random.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <tuple>
#include <vector>

#include "rhoflow/compare/compare.hpp"
#include "rhoflow/core/stats.hpp"
#include "rhoflow/field/montecarlo_field.hpp"
#include "rhoflow/model/sample.hpp"
#include "rhoflow/stochastic/ensemble.hpp"

using namespace rhoflow;

namespace {

const ModelParams kModel{12, 6, 2, 1.5, 1.0, 1.0};
constexpr std::uint64_t kSeed = 20240611;
constexpr std::int64_t kMaxInt64 = std::numeric_limits<std::int64_t>::max();

// The random start of a reduced-sampler trial drawn from `rng`: <q, xi> of q uniform on the
// sphere, Z / sqrt(Z^2 + chi2_{d-1}) (what run_ensemble documents).
double uniform_rho0(RandomStream rng, std::int64_t d) {
    const double z = rng.normal();
    return z / std::sqrt(z * z + rng.chi_squared(d - 1));
}

// The library's rho0 of SGA trial `trial` (stream index) with a random start.
double library_rho0(std::int64_t trial, StreamPurpose purpose = StreamPurpose::sga_trial, std::uint64_t sub = 0) {
    SgaParams p;
    p.steps = 1;
    p.trials = 1;
    p.first_trial = trial;
    p.seed = kSeed;
    p.purpose = purpose;
    p.purpose_sub = sub;
    p.threads = 1;
    const EnsembleResult r = run_ensemble(kModel, p);
    REQUIRE(r.trials.size() == 1);
    CHECK(r.trials[0].trial == trial);
    return r.trials[0].rho0;
}

// The Monte Carlo estimate of j and E[A_I] at rho from 2 samples (one chunk) drawn from `rng`.
std::array<double, 2> two_sample_estimate(RandomStream rng, double rho) {
    SampleDrawer drawer(kModel);
    RunningStats j, mass;
    for (int i = 0; i < 2; ++i) {
        const GradientDraw g = drawer.draw(rho, rng);
        j.add(g.norm_f_sq());
        mass.add(g.mass_informative);
    }
    return {j.mean(), mass.mean()};
}

std::vector<std::uint64_t> first_outputs(const StreamId& id, int n = 8) {
    RandomStream s(id);
    std::vector<std::uint64_t> out;
    for (int i = 0; i < n; ++i) out.push_back(s.next_u64());
    return out;
}

}  // namespace

TEST_CASE("random streams: an SGA trial draws from (seed, sga_trial, trial), also at trial 2^63 - 1") {
    for (std::int64_t trial : {std::int64_t{0}, std::int64_t{1}, std::int64_t{3}, std::int64_t{9999999}, kMaxInt64}) {
        CAPTURE(trial);
        const auto k = static_cast<std::uint64_t>(trial);
        const double rho0 = library_rho0(trial);
        CHECK(rho0 == uniform_rho0(RandomStream({kSeed, StreamPurpose::sga_trial, k, 0}), kModel.d));
        // Old bug: the Monte Carlo chunk with the same number is a different stream.
        CHECK(rho0 != uniform_rho0(RandomStream({kSeed, StreamPurpose::montecarlo_field, k, 0}), kModel.d));
        CHECK(rho0 != uniform_rho0(RandomStream({kSeed, StreamPurpose::step_size_study, k, 0}), kModel.d));
    }
}

TEST_CASE("random streams: the step-size study's trials draw from (seed, step_size_study, trial, run)") {
    for (std::uint64_t run : {0u, 1u, 5u}) {
        for (std::int64_t trial : {std::int64_t{0}, std::int64_t{999999}}) {
            CAPTURE(run);
            CAPTURE(trial);
            const double rho0 = library_rho0(trial, StreamPurpose::step_size_study, run);
            CHECK(rho0 ==
                  uniform_rho0(RandomStream({kSeed, StreamPurpose::step_size_study, static_cast<std::uint64_t>(trial), run}),
                               kModel.d));
            CHECK(rho0 != library_rho0(trial));  // not the main run's trial of the same number
        }
    }
    // The comparator tags each study run with its own sub-stream index, by decreasing eta0.
    CompareParams p = default_compare_params();
    p.model = {8, 20, 4, 1.0, 1.0, 1.0};
    p.field = DriftMethod::meanfield;
    p.sga.steps = 400;
    p.sga.trials = 2;
    p.sga.threads = 1;
    p.sga.schedule = {0.05, 100, 1.0};
    p.horizon = 2;
    p.anchors = 3;
    p.rows = 3;
    p.study_eta0 = {0.02, 0.08, 0.04};
    p.study_trials = 2;
    p.study_horizon = 5;
    const CompareResult r = run_compare(p);
    REQUIRE(r.study.has_value());
    REQUIRE(r.study->rows.size() == 3);
    for (std::size_t m = 0; m < 3; ++m) CHECK(r.study->rows[m].stream_run == m);
    CHECK(r.study->rows[0].eta0 == 0.08);
    CHECK(r.study->rows[2].eta0 == 0.02);
}

TEST_CASE("random streams: Monte Carlo chunk c draws from (seed, montecarlo_field, c), not SGA trial c's stream") {
    const double rho = 0.4;
    MonteCarloParams mc;
    mc.samples = 2;  // one chunk: chunk 0
    mc.seed = kSeed;
    mc.threads = 1;
    const FieldPoint p = montecarlo_field(kModel, rho, mc);
    const auto mine = two_sample_estimate(RandomStream({kSeed, StreamPurpose::montecarlo_field, 0, 0}), rho);
    CHECK(p.j == mine[0]);
    CHECK(p.mass_informative == mine[1]);
    // Old bug: with SGA trial 0's stream the estimate would be this one.
    const auto sga = two_sample_estimate(RandomStream({kSeed, StreamPurpose::sga_trial, 0, 0}), rho);
    CHECK(p.j != sga[0]);

    // Chunk 1 (samples 2048 ... 2049) too: the whole estimate from the two chunks' streams.
    mc.samples = 2050;
    const FieldPoint q = montecarlo_field(kModel, rho, mc);
    SampleDrawer drawer(kModel);
    RunningStats c0, c1;
    RandomStream s0({kSeed, StreamPurpose::montecarlo_field, 0, 0}), s1({kSeed, StreamPurpose::montecarlo_field, 1, 0});
    for (int i = 0; i < 2048; ++i) c0.add(drawer.draw(rho, s0).norm_f_sq());
    for (int i = 0; i < 2; ++i) c1.add(drawer.draw(rho, s1).norm_f_sq());
    c0.merge(c1);
    CHECK(q.j == doctest::Approx(c0.mean()).epsilon(1e-14));
    CHECK(q.j_err == doctest::Approx(c0.standard_error()).epsilon(1e-10));
}

TEST_CASE("random streams: identities (key, counter) of different purposes are distinct at the extremes") {
    // The indices the library reaches: SGA trials first_trial ... first_trial + trials - 1 with
    // first_trial up to 2^63 - 1; Monte Carlo chunks 0 ... 2^40 / 2048 - 1 = 2^29 - 1; study trials
    // 0 ... 1e6 - 1 of runs (sub) 0 ... (number of eta0) - 1.
    const std::uint64_t big = static_cast<std::uint64_t>(kMaxInt64);
    std::vector<StreamId> ids;
    for (std::uint64_t k : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{9999999}, big - 1, big})
        ids.push_back({kSeed, StreamPurpose::sga_trial, k, 0});
    for (std::uint64_t c : {std::uint64_t{0}, std::uint64_t{1}, (std::uint64_t{1} << 29) - 1})
        ids.push_back({kSeed, StreamPurpose::montecarlo_field, c, 0});
    for (std::uint64_t k : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{999999}})
        for (std::uint64_t m : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{5}})
            ids.push_back({kSeed, StreamPurpose::step_size_study, k, m});
    for (std::uint64_t k : {std::uint64_t{0}, big})
        for (StreamPurpose p : {StreamPurpose::one_step_moments, StreamPurpose::effective_sde})
            ids.push_back({kSeed, p, k, 0});

    // Each stream is Philox4x64-10 with key {seed, index} on counters {block, purpose, sub, 0}
    // (checked past the first refill of 64 blocks) ...
    const r123::Philox4x64 ref;
    for (const auto& id : ids) {
        RandomStream s(id);
        for (std::uint64_t block = 0; block < 130; ++block) {
            const auto out = ref(r123::Philox4x64::ctr_type{{block, static_cast<std::uint64_t>(id.purpose), id.sub, 0}},
                                 r123::Philox4x64::key_type{{id.seed, id.index}});
            for (int i = 0; i < 4; ++i) REQUIRE(s.next_u64() == out[i]);
        }
    }
    // ... so the block counter (word 0) never reaches the words that hold purpose and sub: two
    // streams share a block only if key and counter words 1-3 agree. They never do across purposes.
    std::set<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t>> identities;
    for (const auto& id : ids) identities.insert({id.seed, id.index, static_cast<std::uint64_t>(id.purpose), id.sub});
    CHECK(identities.size() == ids.size());
    for (std::size_t a = 0; a < ids.size(); ++a)
        for (std::size_t b = a + 1; b < ids.size(); ++b) {
            CAPTURE(a);
            CAPTURE(b);
            CHECK_FALSE(ids[a] == ids[b]);
            const auto x = first_outputs(ids[a]), y = first_outputs(ids[b]);
            for (std::size_t i = 0; i < x.size(); ++i) CHECK(x[i] != y[i]);
        }
    // Old bug: SGA trial c and Monte Carlo chunk c with the same seed (same Philox key) are apart.
    for (std::uint64_t c : {std::uint64_t{0}, std::uint64_t{7}, (std::uint64_t{1} << 29) - 1}) {
        const StreamId sga{kSeed, StreamPurpose::sga_trial, c, 0}, mc{kSeed, StreamPurpose::montecarlo_field, c, 0};
        CHECK(first_outputs(sga, 64) != first_outputs(mc, 64));
    }
    // The purposes' numbers are fixed forever (published results depend on them).
    CHECK(static_cast<int>(StreamPurpose::sga_trial) == 0);
    CHECK(static_cast<int>(StreamPurpose::montecarlo_field) == 1);
    CHECK(static_cast<int>(StreamPurpose::step_size_study) == 2);
    CHECK(static_cast<int>(StreamPurpose::one_step_moments) == 3);
    CHECK(static_cast<int>(StreamPurpose::effective_sde) == 4);
}
