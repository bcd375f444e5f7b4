#include "rhoflow/stochastic/ensemble.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <nlohmann/json.hpp>
#include <memory>
#include <vector>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/cancel.hpp"
#include "test_util.hpp"

using namespace rhoflow;

TEST_CASE("ensemble: same seed gives bit-identical trials on 1 and 2 threads, other seeds differ") {
    const ModelParams m{20, 50, 8, 1.0, 1.0, 1.0};
    for (SamplerKind k : {SamplerKind::reduced, SamplerKind::full}) {
        CAPTURE(to_string(k));
        SgaParams p;
        p.sampler = k;
        p.steps = 300;
        p.trials = 7;
        p.seed = 2024;
        p.threads = 1;
        const EnsembleResult a = run_ensemble(m, p);
        p.threads = 2;
        const EnsembleResult b = run_ensemble(m, p);
        for (std::size_t i = 0; i < a.trials.size(); ++i) {
            CHECK(a.trials[i].rho0 == b.trials[i].rho0);
            CHECK(a.trials[i].rho_final == b.trials[i].rho_final);
            CHECK(a.trials[i].rho == b.trials[i].rho);
            CHECK(a.trials[i].hit_step == b.trials[i].hit_step);
        }
        // A trial does not depend on what runs beside it: trial 3 alone reproduces it.
        p.first_trial = 3;
        p.trials = 1;
        const EnsembleResult c = run_ensemble(m, p);
        CHECK(c.trials[0].rho_final == a.trials[3].rho_final);
        p.first_trial = 0;
        p.trials = 7;
        p.seed = 2025;
        const EnsembleResult d = run_ensemble(m, p);
        CHECK(d.trials[0].rho_final != a.trials[0].rho_final);
    }
}

TEST_CASE("ensemble: recovery at theta = 1, d = 50, L = 1000, R = 100 (all 10 trials above 0.95)") {
    // An independent implementation gives |rho| between 0.977 and 0.993 here.
    const ModelParams m{50, 1000, 100, 1.0, 1.0, 1.0};
    SgaParams p;
    p.steps = 10000;
    p.trials = 10;
    p.schedule = {0.5, 100, 1.0};
    p.seed = 7;
    const EnsembleResult r = run_ensemble(m, p);
    for (const auto& t : r.trials) {
        CAPTURE(t.trial);
        CHECK(std::abs(t.rho_final) > 0.95);
        CHECK(std::abs(t.rho_final) < 0.999);
        CHECK(t.hit_step.has_value() == (std::abs(t.rho_final) >= 0.99 || t.hit_step.has_value()));
    }
    CHECK(r.summary.abs_rho_final.mean > 0.95);
    // The summary recomputed from the trials' values: two-pass mean and standard deviation,
    // Student-t interval with t_{0.975, 9} = 2.2621571627409915 (10 trials), type-7 quantiles.
    auto ci_of = [](const std::vector<double>& x) {
        const double n = static_cast<double>(x.size());
        double mean = 0, ss = 0;
        for (double v : x) mean += v / n;
        for (double v : x) ss += (v - mean) * (v - mean);
        const double se = std::sqrt(ss / (n - 1) / n);
        return MeanCI{mean, se, mean - 2.2621571627409915 * se, mean + 2.2621571627409915 * se,
                      static_cast<std::int64_t>(x.size())};
    };
    auto same = [](const MeanCI& got, const MeanCI& want) {
        CHECK(got.n == want.n);
        CHECK(got.mean == doctest::Approx(want.mean).epsilon(1e-13));
        CHECK(got.se == doctest::Approx(want.se).epsilon(1e-9));
        CHECK(got.lo == doctest::Approx(want.lo).epsilon(1e-12));
        CHECK(got.hi == doctest::Approx(want.hi).epsilon(1e-12));
    };
    std::vector<double> abs_final, final_, decile;
    for (const auto& t : r.trials) {
        abs_final.push_back(std::abs(t.rho_final));
        final_.push_back(t.rho_final);
        decile.push_back(t.mean_nuisance_mass_last_decile);
    }
    REQUIRE(abs_final.size() == 10);
    same(r.summary.abs_rho_final, ci_of(abs_final));
    same(r.summary.rho_final, ci_of(final_));
    same(r.summary.nuisance_mass, ci_of(decile));
    CHECK(r.summary.abs_rho_final.hi - r.summary.abs_rho_final.lo > 0);  // the trials differ
    // Quantiles (Hyndman-Fan type 7: x_(floor(h)) + (h - floor(h)) (x_(floor(h)+1) - x_(floor(h))),
    // h = (n - 1) p, 0-based) at 0.05, 0.25, 0.5, 0.75, 0.95.
    std::vector<double> sorted = abs_final;
    std::sort(sorted.begin(), sorted.end());
    REQUIRE(r.summary.quantile_levels == std::vector<double>{0.05, 0.25, 0.5, 0.75, 0.95});
    for (std::size_t i = 0; i < 5; ++i) {
        const double h = 9 * r.summary.quantile_levels[i];
        const auto lo = static_cast<std::size_t>(std::floor(h));
        const double q = sorted[lo] + (h - std::floor(h)) * (sorted[std::min<std::size_t>(lo + 1, 9)] - sorted[lo]);
        CHECK(r.summary.abs_rho_final_quantiles[i] == doctest::Approx(q).epsilon(1e-15));
    }
    std::int64_t hits = 0;
    for (const auto& t : r.trials) hits += t.hit_step.has_value();
    CHECK(r.summary.hits == hits);
    CHECK(r.summary.hit_step.n == hits);
    CHECK(r.trials[0].t_final == doctest::Approx(p.schedule.time_at(p.steps)).epsilon(1e-12));
    // Nuisance tokens hold most of the attention (R/L = 0.1) but less than 1 - alpha.
    CHECK(r.summary.nuisance_mass.mean < 0.9);
    CHECK(r.summary.nuisance_mass.mean > 0.5);
}

TEST_CASE("ensemble: records are log-spaced plus requested, and their number does not grow with steps") {
    SgaParams p;
    p.steps = 100000;
    p.records_per_decade = 10;
    p.record_steps = {12345};
    const auto rec = record_steps_for(p);
    CHECK(rec.front() == 0);
    CHECK(rec.back() == 100000);
    CHECK(std::find(rec.begin(), rec.end(), 12345) != rec.end());
    CHECK(rec.size() < 60);
    const ModelParams m{10, 20, 5, 1.0, 1.0, 1.0};
    p.steps = 2000;
    p.trials = 2;
    p.record_steps = {};
    const EnsembleResult r = run_ensemble(m, p);
    CHECK(r.trials[0].rho.size() == r.record_steps.size());
    CHECK(r.trials[0].nuisance_mass.size() == r.record_steps.size());
    CHECK(r.record_times.size() == r.record_steps.size());
    CHECK(r.trials[0].rho.front() == r.trials[0].rho0);
    CHECK(r.trials[0].rho.back() == r.trials[0].rho_final);
}

TEST_CASE("ensemble: random initial queries follow the uniform-sphere law of rho0") {
    // E[rho0] = 0 and E[rho0^2] = 1/d for q uniform on the sphere.
    const ModelParams m{25, 10, 2, 1.0, 1.0, 1.0};
    SgaParams p;
    p.steps = 1;
    p.trials = 20000;
    const EnsembleResult r = run_ensemble(m, p);
    RunningStats s, s2;
    for (const auto& t : r.trials) {
        s.add(t.rho0);
        s2.add(t.rho0 * t.rho0);
    }
    CHECK(std::abs(s.mean()) < 4 * s.standard_error());
    CHECK(std::abs(s2.mean() - 1.0 / 25) < 4 * s2.standard_error());
}

TEST_CASE("ensemble: a schedule without Robbins-Monro carries a warning, bad params are named") {
    SgaParams p;
    p.schedule.gamma = 0.0;
    CHECK(p.schedule.warning().find("constant step") != std::string::npos);
    p.schedule.gamma = 0.4;
    CHECK(p.schedule.warning().find("Robbins-Monro") != std::string::npos);
    p.schedule.gamma = 0.75;
    CHECK(p.schedule.warning().empty());
    auto param_of = [](SgaParams q) { return test::invalid_param([&] { q.validate(); }); };
    SgaParams q;
    q.steps = 0;
    CHECK(param_of(q) == "steps");
    q = {};
    q.schedule.eta0 = 0;
    CHECK(param_of(q) == "schedule.eta0");
    q = {};
    q.schedule.k0 = -1;
    CHECK(param_of(q) == "schedule.k0");
    q = {};
    q.schedule.gamma = 1.5;
    CHECK(param_of(q) == "schedule.gamma");
    q = {};
    q.rho0 = 2.0;
    CHECK(param_of(q) == "rho0");
    q = {};
    q.trials = 0;
    CHECK(param_of(q) == "trials");
}

TEST_CASE("ensemble: the summary streamed over chunks equals the summary of every trial kept") {
    // 9000 trials run in three chunks; keeping only the summary (and the first 3 trials, without
    // records) gives the same summary bits as summarising all trials, on 1 and 2 threads, and the
    // kept trials are the full run's first ones.
    const ModelParams m{8, 20, 4, 1.0, 1.0, 1.0};
    SgaParams p;
    p.steps = 30;
    p.trials = 9000;
    p.seed = 11;
    p.threads = 2;
    const EnsembleResult all = run_ensemble(m, p);
    REQUIRE(all.trials.size() == 9000);
    CHECK(nlohmann::json(summarise(all.trials)).dump() == nlohmann::json(all.summary).dump());
    for (int threads : {1, 2}) {
        CAPTURE(threads);
        p.threads = threads;
        const EnsembleResult s = run_ensemble(m, p, nullptr, EnsembleOutput::summary(3));
        CHECK(nlohmann::json(s.summary).dump() == nlohmann::json(all.summary).dump());
        REQUIRE(s.trials.size() == 3);
        for (std::size_t i = 0; i < 3; ++i) {
            CHECK(s.trials[i].trial == all.trials[i].trial);
            CHECK(s.trials[i].rho_final == all.trials[i].rho_final);
            CHECK(s.trials[i].rho.empty());
            CHECK(s.trials[i].nuisance_mass.empty());
        }
        CHECK(s.record_steps == all.record_steps);
    }
    // The same through blocks (the ranks' units), accepted in any order.
    EnsembleBlocks blocks(m, p, 4, EnsembleOutput::summary(3));
    for (std::int64_t b = blocks.size(); b-- > 0;) blocks.accept(b, blocks.run(b));
    const EnsembleResult r = blocks.result();
    CHECK(nlohmann::json(r.summary).dump() == nlohmann::json(all.summary).dump());
    CHECK(r.trials.size() == 3);
}

TEST_CASE("ensemble: every 95% CI of the summary lies in the range of its quantity") {
    // Two trials: the Student t interval is the mean +- 12.7 standard errors, far outside [0, 1]
    // unless clipped (seed 2 gave [-0.94, 2.27] for mean |rho_final| before the fix).
    const ModelParams m{8, 20, 4, 1.0, 1.0, 1.0};
    SgaParams p;
    p.steps = 20;
    p.trials = 2;
    p.seed = 2;
    const EnsembleSummary s = run_ensemble(m, p).summary;
    CHECK(s.abs_rho_final.lo == 0.0);
    CHECK(s.abs_rho_final.hi <= 1.0);
    CHECK(s.abs_rho_final.mean > 0.0);
    CHECK(s.rho_final.lo >= -1.0);
    CHECK(s.rho_final.hi <= 1.0);
    for (const MeanCI& c : {s.nuisance_mass, s.abs_rho_last_half}) {
        CHECK(c.lo >= 0.0);
        CHECK(c.hi <= 1.0);
    }
    // Clipping changes only the interval: the mean and its standard error are the t interval's.
    const double q = 12.706204736174707;  // Student t, 1 degree of freedom, 97.5%
    CHECK(s.abs_rho_final.se > 0);
    CHECK(s.abs_rho_final.mean - q * s.abs_rho_final.se < 0);  // the raw interval leaves [0, 1]: clipping is exercised
    CHECK(mean_ci_within({0.2, 0.9}, 0, 1).lo == 0.0);
    CHECK(mean_ci_within({0.2, 0.9}, 0, 1).hi == 1.0);
    CHECK(mean_ci_within({0.2, 0.9}, 0, 1).mean == mean_ci({0.2, 0.9}).mean);
    CHECK(mean_ci_within({0.5, 0.5001, 0.4999}, 0, 1).lo == mean_ci({0.5, 0.5001, 0.4999}).lo);  // inside: unchanged
}

TEST_CASE("ensemble: a CancelFlag requested mid-trial stops every trial within 1000 steps, with Interrupted") {
    // Trials of 10^6 steps; the observer of each requests the stop at step 2500. The trial loop
    // checks every 1000 steps, so no trial goes past step 3000 (the next check) and the call
    // ends with Interrupted, not a result. Without the check each trial would run to 10^6.
    const ModelParams m{20, 50, 8, 1.0, 1.0, 1.0};
    for (int threads : {1, 2}) {
        CAPTURE(threads);
        struct Stopper : StepObserver {
            CancelFlag* flag;
            std::atomic<std::int64_t>* last;
            Stopper(CancelFlag* f, std::atomic<std::int64_t>* l) : flag(f), last(l) {}
            void on_step(std::int64_t k, double, double, double) override {
                if (k > last->load()) last->store(k);
                if (k == 2500) flag->request();
            }
        };
        CancelFlag flag;
        CancelScope scope(&flag);
        std::atomic<std::int64_t> last{0};
        SgaParams p;
        p.steps = 1000000;
        p.trials = 2;
        p.threads = threads;
        ProgressCounter progress;
        CHECK_THROWS_AS(run_trials_here(m, p, &progress,
                                     [&](std::int64_t) { return std::make_unique<Stopper>(&flag, &last); }),
                        Interrupted);
        CHECK(last.load() >= 2500);
        CHECK(last.load() <= 3000);
        CHECK(progress.done.load() <= 2 * 3000);  // the steps counted before the stop, no more
    }
}
