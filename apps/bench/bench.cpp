// rhoflow-bench: speed measurements behind docs/benchmarks.md. Every ratio is measured within
// one run (times are the best of several repetitions, the machine's noise being one-sided),
// and every accuracy claim is checked in the same run. Nothing here is asserted by the tests.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/stochastic/ensemble.hpp"
#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/field/gradient_moments.hpp"
#include "rhoflow/stochastic/full_sampler.hpp"
#include "rhoflow/ode/ode.hpp"
#include "rhoflow/core/detail/simd.hpp"
#include "rhoflow/core/normal_block.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/stochastic/reduced_sampler.hpp"
#include "rhoflow/version.hpp"

using namespace rhoflow;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The CPU's brand string (CPUID leaves 0x80000002-4), "unknown" where there is none.
std::string cpu_model() {
#if defined(__x86_64__) && defined(__GNUC__)
    unsigned regs[12] = {};
    for (unsigned leaf = 0; leaf < 3; ++leaf)
        if (!__get_cpuid(0x80000002u + leaf, &regs[4 * leaf], &regs[4 * leaf + 1], &regs[4 * leaf + 2], &regs[4 * leaf + 3]))
            return "unknown";
    std::string s(reinterpret_cast<const char*>(regs), sizeof regs);
    s = s.substr(0, s.find('\0'));
    const auto b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
    return b == std::string::npos ? "unknown" : s.substr(b, e - b + 1);
#else
    return "unknown";
#endif
}

const char* variant_name(detail::SimdVariant v) {
    switch (v) {
    case detail::SimdVariant::avx512: return "avx512";
    case detail::SimdVariant::avx2: return "avx2";
    default: return "baseline";
    }
}

// Best and median of `reps` timings of f (seconds).
std::pair<double, double> timed(int reps, const std::function<void()>& f) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = Clock::now();
        f();
        t.push_back(seconds_since(t0));
    }
    std::sort(t.begin(), t.end());
    return {t.front(), t[t.size() / 2]};
}

// Best times of several functions measured in interleaved rounds, so that a slow phase of the
// machine affects all of them alike and their ratios stay meaningful.
std::vector<double> timed_interleaved(int rounds, const std::vector<std::function<void()>>& fs) {
    std::vector<double> best(fs.size(), 1e300);
    for (int r = 0; r < rounds; ++r)
        for (std::size_t i = 0; i < fs.size(); ++i) {
            const auto t0 = Clock::now();
            fs[i]();
            best[i] = std::min(best[i], seconds_since(t0));
        }
    return best;
}

volatile double sink = 0;

void bench_field(bool quick) {
    fmt::print("\n== exact field: one evaluation of (j, j') at 1e-10 relative accuracy, 1 core\n");
    ExactFieldParams fast;
    fast.rel_tol = 1e-10;
    fast.inner_resolution = 0.25;
    ExactFieldParams ref;
    ref.rel_tol = 1e-14;
    ref.inner_resolution = 0.08;
    const int reps = quick ? 20 : 300;
    const std::vector<double> Ls = {1e2, 1e4, 1e6};
    std::vector<ModelParams> models;
    std::vector<std::function<void()>> fast_runs, default_runs;
    for (double L : Ls) models.push_back({100, static_cast<std::int64_t>(L), static_cast<std::int64_t>(L / 20), 1.0, 1.0, 1.0});
    for (const auto& m : models) {
        fast_runs.push_back([&m, &fast] { sink = exact_field(m, 0.3, fast).j; });
        default_runs.push_back([&m] { sink = exact_field(m, 0.3).j; });
    }
    const auto best = timed_interleaved(reps, fast_runs);
    const auto best_def = timed_interleaved(reps, default_runs);
    for (std::size_t i = 0; i < models.size(); ++i) {
        const FieldPoint r = exact_field(models[i], 0.3, ref);
        ExactFieldStats st;
        const FieldPoint p = exact_field(models[i], 0.3, fast, &st);
        fmt::print("L = {:>8g}: {:.3f} ms; error estimate j {:.1e} dj {:.1e} relative; actual j {:.1e} dj {:.1e}; "
                   "{} outer x {} inner nodes | default rel-tol 1e-12: {:.3f} ms\n",
                   Ls[i], best[i] * 1e3, p.j_err / p.j, p.dj_err / std::abs(p.dj), std::abs(p.j - r.j) / r.j,
                   std::abs(p.dj - r.dj) / std::abs(r.dj), st.outer_nodes, st.inner_nodes, best_def[i] * 1e3);
    }
    fmt::print("ratio cost(L = 1e6) / cost(L = 1e2) = {:.2f} (default settings: {:.2f})\n", best[2] / best[0],
               best_def[2] / best_def[0]);
}

void bench_ode(bool quick) {
    fmt::print("\n== ODE: rho0 = 0.05 to t = 1000, exact field, rtol 1e-10 (default model), all cores\n");
    const ModelParams m;
    const int reps = quick ? 2 : 10;
    DriftField f;
    const auto [tb, tbm] = timed(reps, [&] { f = DriftField::exact(m); });
    OdeParams p;
    p.rtol = 1e-10;
    p.error_estimate = false;
    OdeSolution s;
    const auto [ts, tsm] = timed(reps, [&] { s = solve_ode(f, 0.05, linear_grid(1000, 101), p); });
    p.error_estimate = true;
    const auto [te, tem] = timed(reps, [&] { s = solve_ode(f, 0.05, linear_grid(1000, 101), p); });
    fmt::print("table of the exact field: {:.1f} ms ({} samples, degree {}, error bound on j' {:.1e})\n", tb * 1e3,
               f.samples(), f.degree(), f.dj_error());
    fmt::print("solve: {:.2f} ms ({} steps, {} evaluations); with error estimate: {:.2f} ms\n", ts * 1e3, s.steps,
               s.rhs_evals, te * 1e3);
    fmt::print("table + solve + error estimate: {:.1f} ms; hit time {:.10g} +- {:.1e}\n", (tb + te) * 1e3,
               s.hit_time.value_or(-1), s.hit_time_err);
}

void bench_moments(bool quick) {
    fmt::print("\n== one-step moments B, Sigma at one rho (exact, Laplace quadrature), 1 core\n");
    const int reps = quick ? 3 : 20;
    const ModelParams def;
    (void)exact_gradient_moments(def, 0.5);  // the expansion's one-time set-up
    for (double rho : {0.1, 0.5, 0.9, 0.99}) {
        ExactGradientMoments g;
        const auto [best, median] = timed(reps, [&] { g = exact_gradient_moments(def, rho); });
        const OneStepExpansion n = one_step_expansion(g, UpdateRule::normalized);
        fmt::print("default model, rho = {:<4}: {:.2f} ms (median {:.2f}); B = {:.10f} +- {:.1e}, Sigma = {:.10f} +- {:.1e}\n",
                   rho, best * 1e3, median * 1e3, n.B, n.B_err, n.Sigma, n.Sigma_err);
    }
    // Flat in L and in d: the same quadrature whatever the number of tokens and the dimension.
    std::vector<ModelParams> models = {{50, 1000, 100, 1.0, 1.0, 1.0}, {50, 1000000, 100000, 1.0, 1.0, 1.0},
                                       {5000, 1000, 100, 1.0, 1.0, 1.0}};
    std::vector<std::function<void()>> runs;
    for (const auto& m : models) {
        (void)exact_gradient_moments(m, 0.5);
        runs.push_back([&m] { sink = exact_gradient_moments(m, 0.5).outer_nodes; });
    }
    const auto best = timed_interleaved(reps, runs);
    fmt::print("rho = 0.5: d = 50, L = 1e3: {:.2f} ms; L = 1e6: {:.2f} ms (ratio {:.2f}); d = 5000: {:.2f} ms (ratio {:.2f})\n",
               best[0] * 1e3, best[1] * 1e3, best[1] / best[0], best[2] * 1e3, best[2] / best[0]);
}

// The normal generator rhoflow used before issue 20, kept here only as the reference of the
// "3x today's generator" figure: Philox4x64-10 (RandomStream's uniform bits) and a 256-layer
// ziggurat on one 64-bit draw per normal (8 bits layer, 1 sign, 52 magnitude), the fast path
// inline and the rare rest (1.5% of draws) by the wedge test and Marsaglia's (1964) tail.
class OldNormals {
public:
    explicit OldNormals(std::uint64_t seed) : bits_(seed, 1) {
        const double r = kR, v = 0.00492867323399, m = 0x1.0p52;
        double dn = r, tn = r;
        const double q = v / std::exp(-0.5 * dn * dn);
        k_[0] = static_cast<std::uint64_t>((dn / q) * m);
        k_[1] = 0;
        w_[0] = q / m;
        w_[255] = dn / m;
        f_[0] = 1.0;
        f_[255] = std::exp(-0.5 * dn * dn);
        for (int i = 254; i >= 1; --i) {
            dn = std::sqrt(-2.0 * std::log(v / dn + std::exp(-0.5 * dn * dn)));
            k_[i + 1] = static_cast<std::uint64_t>((dn / tn) * m);
            tn = dn;
            f_[i] = std::exp(-0.5 * dn * dn);
            w_[i] = dn / m;
        }
    }
    void fill(double* out, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) out[i] = normal();
    }

private:
    // The fast path exactly as it was (sign without a branch, the exact signed conversion).
    double normal() {
        const std::uint64_t r = bits_.next_u64();
        const unsigned idx = static_cast<unsigned>(r & 0xff);
        const std::uint64_t mag = (r >> 9) & ((std::uint64_t{1} << 52) - 1);
        if (mag < k_[idx]) [[likely]] {
            const double x = static_cast<double>(static_cast<std::int64_t>(mag)) * w_[idx];
            return std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) ^ ((r & 0x100) << 55));
        }
        return slow(r);
    }
    [[gnu::noinline]] double slow(std::uint64_t r) {
        for (;;) {
            const unsigned idx = static_cast<unsigned>(r & 0xff);
            const std::uint64_t mag = (r >> 9) & ((std::uint64_t{1} << 52) - 1);
            const bool negative = (r & 0x100) != 0;
            const double x = static_cast<double>(mag) * w_[idx];
            if (mag < k_[idx]) return negative ? -x : x;
            if (idx == 0) {
                for (;;) {
                    const double xx = -std::log(bits_.uniform()) / kR, yy = -std::log(bits_.uniform());
                    if (yy + yy > xx * xx) return negative ? -(kR + xx) : kR + xx;
                }
            }
            if (f_[idx] + bits_.uniform() * (f_[idx - 1] - f_[idx]) < std::exp(-0.5 * x * x)) return negative ? -x : x;
            r = bits_.next_u64();
        }
    }
    static constexpr double kR = 3.6541528853610088;
    RandomStream bits_;
    std::array<std::uint64_t, 256> k_{};
    std::array<double, 256> w_{}, f_{};
};

// The block normal generator (core/normal_block.hpp, what RandomStream::fill_normal runs) under
// each variant the CPU runs, against the generator before issue 20 in the same run: both fill
// the same 4096-double buffer (in cache, as the samplers' blocks are, so neither is timed on
// memory bandwidth), the runs interleaved round by round (a shared machine's load falls on all
// alike), each after 2 ms of scalar work, and the best round kept.
void bench_rng(bool quick) {
    using detail::SimdVariant;
    fmt::print("\n== normal generators, 1 core, fills of 4096: the block generator (Philox4x32-10 + 1024-layer\n"
               "   ziggurat, core/normal_block.hpp) per SIMD variant against the one before issue 20\n");
    // Short runs (1M normals, a few ms) and many rounds: the best round is a quiet one.
    const std::size_t chunk = 4096, chunks = quick ? 50 : 250;
    const int rounds = quick ? 3 : 41;
    const double count = static_cast<double>(chunk * chunks);
    std::vector<double> x(chunk);
    std::vector<std::uint64_t> bits(chunk), fast_draws(chunk);
    std::vector<std::uint32_t> rejected(chunk);
    OldNormals old(1);
    RandomStream rng(1, 1);
    const NormalBlockKey key = normal_block_key({1, StreamPurpose::sga_trial, 0, 0});
    detail::philox4x32_draws(key, 0, fast_draws.data(), chunk / 2);
    std::vector<std::function<void()>> runs = {[&] {
        for (std::size_t c = 0; c < chunks; ++c) old.fill(x.data(), chunk);
        sink = x[0];
    }, [&] {
        std::uint64_t acc = 0;
        for (std::size_t c = 0; c < chunks; ++c)
            for (std::size_t i = 0; i < chunk; ++i) acc += rng.next_u64();
        sink = static_cast<double>(acc);
    }};
    std::vector<std::pair<SimdVariant, const char*>> variants;
    for (const auto& [v, name] : {std::pair{SimdVariant::baseline, "baseline"}, std::pair{SimdVariant::avx2, "avx2"},
                                  std::pair{SimdVariant::avx512, "avx512"}}) {
        if (!detail::simd_variant_available(v)) {
            fmt::print("{:>8}: not available on this CPU\n", name);
            continue;
        }
        variants.emplace_back(v, name);
        runs.push_back([&, v = v] {
            detail::force_simd_variant(v);
            for (std::size_t c = 0; c < chunks; ++c) rng.fill_normal(x.data(), chunk);
            sink = x[0];
        });
        runs.push_back([&, v = v] {
            detail::force_simd_variant(v);
            for (std::size_t c = 0; c < chunks; ++c) detail::philox4x32_draws(key, c * chunk / 2, bits.data(), chunk / 2);
            sink = static_cast<double>(bits[0]);
        });
        // The ziggurat's fast path alone on the same draws over and over (in L1): no Philox and
        // no slow path, the transform's least cost.
        runs.push_back([&, v = v] {
            detail::force_simd_variant(v);
            std::size_t n = 0;
            for (std::size_t c = 0; c < chunks; ++c) n += detail::ziggurat_fast_path(fast_draws.data(), x.data(), chunk, rejected.data());
            sink = static_cast<double>(n);
        });
    }
    // AVX-512's fast path with each of its table lookups (detail::ZigguratLookup), the same bits.
    const std::size_t lookup_runs = runs.size();
    const bool has512 = detail::simd_variant_available(SimdVariant::avx512);
    for (const auto l : {detail::ZigguratLookup::gather, detail::ZigguratLookup::loads})
        if (has512)
            runs.push_back([&, l] {
                detail::force_simd_variant(SimdVariant::avx512);
                detail::force_ziggurat_lookup(l);
                std::size_t n = 0;
                for (std::size_t c = 0; c < chunks; ++c) n += detail::ziggurat_fast_path(fast_draws.data(), x.data(), chunk, rejected.data());
                sink = static_cast<double>(n);
                detail::force_ziggurat_lookup(detail::ZigguratLookup::automatic);
            });
    // Before each timed run, 2 ms of scalar work: a core that has just run AVX-512 code may run
    // slower for a while, which would bill one variant's clock to the next run.
    std::vector<double> best(runs.size(), 1e300);
    for (int r = 0; r < rounds; ++r)
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const auto settle = Clock::now();
            std::uint64_t spin = 1;
            while (seconds_since(settle) < 2e-3) spin = spin * 6364136223846793005u + 1442695040888963407u;
            sink = static_cast<double>(spin);
            const auto t0 = Clock::now();
            runs[i]();
            best[i] = std::min(best[i], seconds_since(t0));
        }
    detail::force_simd_variant(SimdVariant::automatic);
    const double old_rate = count / best[0];
    fmt::print("before issue 20 (Philox4x64-10 + 256-layer ziggurat, one draw per normal): {:.0f} M normals/s\n",
               old_rate / 1e6);
    fmt::print("RandomStream uniform bits (Philox4x64-10): {:.0f} M 64-bit draws/s\n", count / best[1] / 1e6);
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const double rate = count / best[2 + 3 * i], bits_rate = count / best[3 + 3 * i];
        const double fast_ns = best[4 + 3 * i] / count * 1e9, ceiling = 1.0 / (1.0 + fast_ns * 1e-9 * bits_rate);
        fmt::print("{:>8}: {:.0f} M normals/s = {:.2f} of its Philox4x32 alone ({:.0f} M 64-bit draws/s); {:.2f} x the "
                   "generator before issue 20\n",
                   variants[i].second, rate / 1e6, rate / bits_rate, bits_rate / 1e6, rate / old_rate);
        fmt::print("          its fast path alone {:.3f} ns/normal: with no slow path the normals could reach {:.2f} of "
                   "its Philox rate\n",
                   fast_ns, ceiling);
    }
    if (has512)
        fmt::print("  avx512 fast path by its table lookup: one gather {:.3f}, eight loads {:.3f} ns/normal; this CPU "
                   "uses the {}\n",
                   best[lookup_runs] / count * 1e9, best[lookup_runs + 1] / count * 1e9,
                   detail::active_ziggurat_lookup() == detail::ZigguratLookup::gather ? "gather" : "loads");
    fmt::print("automatic choice on this CPU: {}\n", variants.back().second);
}

// The generator's own rate, as the samplers use it: RandomStream::fill_normal into a buffer of
// `n` doubles, `reps` times (the limit every sampler figure is divided by).
std::function<void()> generator_run(RandomStream& rng, std::vector<double>& buf, int reps) {
    return [&rng, &buf, reps] {
        for (int k = 0; k < reps; ++k) rng.fill_normal(buf.data(), buf.size());
        sink = buf[0];
    };
}

void bench_reduced(bool quick) {
    fmt::print("\n== reduced sampler: one SGA step at L = 1e4 (R = 500), 1 core, against its limit: the generator's\n"
               "   normals/s / 3 (u, v and zeta per token), measured in the same rounds\n");
    const int steps = quick ? 20 : 200;
    const ModelParams m10{10, 10000, 500, 1.0, 1.0, 1.0}, m1e4{10000, 10000, 500, 1.0, 1.0, 1.0};
    ReducedSampler s10(m10), s1e4(m1e4);
    RandomStream rng(3, 3), gen(3, 4);
    std::vector<double> buf(3 * 10000);
    auto run = [&](ReducedSampler& s) {
        double rho = 0.1;
        for (int k = 0; k < steps; ++k) rho = s.step(rho, 0.01, UpdateRule::normalized, rng);
        sink = rho;
    };
    const auto best = timed_interleaved(quick ? 3 : 15, {[&] { run(s10); }, [&] { run(s1e4); }, generator_run(gen, buf, steps)});
    const double limit = steps * 1e4 / best[2];  // token-steps/s if the step cost only its normals
    fmt::print("generator: {:.0f} M normals/s, so the limit is {:.1f} M token-steps/s\n", 3 * limit / 1e6, limit / 1e6);
    for (int i = 0; i < 2; ++i) {
        const double rate = steps * 1e4 / best[static_cast<std::size_t>(i)];
        fmt::print("d = {:>6}: {:.1f} M token-steps/s ({:.1f} us per step) = {:.2f} of the limit\n", i == 0 ? 10 : 10000,
                   rate / 1e6, best[static_cast<std::size_t>(i)] / steps * 1e6, rate / limit);
    }
    fmt::print("ratio cost(d = 1e4) / cost(d = 10) = {:.3f}\n", best[1] / best[0]);
}

void bench_full(bool quick) {
    fmt::print("\n== full vs reduced sampler at L = 10500 (R = 500), 1 core; the full one against its limit, the\n"
               "   generator's normals/s / (L d), measured in the same rounds\n");
    for (std::int64_t d : {100, 1000}) {
        const ModelParams m{d, 10500, 500, 1.0, 1.0, 1.0};
        FullSampler full(m);
        ReducedSampler red(m);
        RandomStream rng(4, 4), gen(4, 5);
        Eigen::VectorXd q = FullSampler::query_with_alignment(d, 0.1);
        const int fsteps = quick ? 2 : (d == 100 ? 10 : 2);
        const int rsteps = quick ? 20 : 200;
        std::vector<double> x(static_cast<std::size_t>(d) * 10500);
        const auto best = timed_interleaved(quick ? 2 : 5, {
            [&] { for (int k = 0; k < fsteps; ++k) full.step(q, 0.001, UpdateRule::normalized, rng); },
            [&] {
                double rho = 0.1;
                for (int k = 0; k < rsteps; ++k) rho = red.step(rho, 0.001, UpdateRule::normalized, rng);
                sink = rho;
            },
            generator_run(gen, x, fsteps)});
        const double tf = best[0], tr = best[1], tg = best[2];
        const double normals_per_s = fsteps * static_cast<double>(x.size()) / tg;
        const double per_full = tf / fsteps, per_red = tr / rsteps;
        const double full_normals = static_cast<double>(d) * 10500 / per_full;
        fmt::print("d = {:>5}: full {:.2f} ms/step, reduced {:.3f} ms/step, ratio full/reduced = {:.0f}; full "
                   "simulator {:.0f} M normals/s = {:.2f} of the limit ({:.0f} M normals/s)\n",
                   d, per_full * 1e3, per_red * 1e3, per_full / per_red, full_normals / 1e6,
                   full_normals / normals_per_s, normals_per_s / 1e6);
    }
}

// Runs `script` (under scripts/) with Debian's python3 and returns the seconds per step it
// prints, or -1. Only the benchmark runs a program; the library never does.
double numpy_seconds_per_step(const std::string& script, const std::string& args) {
    const std::string cmd = "OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 /usr/bin/python3 " + std::string(RHOFLOW_SOURCE_DIR) + "/scripts/" + script + " " + args;
    FILE* pipe = popen(cmd.c_str(), "r");
    double seconds = -1;
    if (pipe) {
        if (std::fscanf(pipe, "%lf", &seconds) != 1) seconds = -1;
        pclose(pipe);
    }
    return seconds;
}

void bench_numpy(bool quick) {
    fmt::print("\n== NumPy (Debian's python3-numpy) against rhoflow, 1 core each\n");
    if (std::system("/usr/bin/python3 -c 'import numpy' > /dev/null 2>&1") != 0) {
        fmt::print("python3-numpy not installed: skipped (apt-get install python3-numpy)\n");
        return;
    }
    // The reduced chain: NumPy vectorised over 30 trials (scripts/numpy_reduced_chain.py), rhoflow
    // one trial after another, both at d = 10, L = 1e4, R = 500, eta = 0.01.
    const int trials = 30, rsteps = quick ? 2 : 10;
    const double np_reduced = numpy_seconds_per_step("numpy_reduced_chain.py", fmt::format("{} {}", rsteps, trials));
    ReducedSampler red(ModelParams{10, 10000, 500, 1.0, 1.0, 1.0});
    RandomStream rr(6, 6);
    const auto [tr, trm] = timed(3, [&] {
        for (int t = 0; t < trials; ++t) {
            double rho = 0.1;
            for (int k = 0; k < rsteps; ++k) rho = red.step(rho, 0.01, UpdateRule::normalized, rr);
            sink = rho;
        }
    });
    if (np_reduced > 0)
        fmt::print("reduced chain, 30 trials: NumPy {:.1f} M token-steps/s, rhoflow {:.1f} M: ratio rhoflow/NumPy = {:.1f}\n",
                   trials * 1e4 / np_reduced / 1e6, trials * rsteps * 1e4 / tr / 1e6, np_reduced / (tr / rsteps));
    else
        fmt::print("reduced chain: the NumPy script failed: skipped\n");
    // The full step (scripts/numpy_full_step.py), d = 100, L = 10500.
    const ModelParams m{100, 10500, 500, 1.0, 1.0, 1.0};
    FullSampler full(m);
    RandomStream rng(5, 5);
    Eigen::VectorXd q = FullSampler::query_with_alignment(100, 0.1);
    const int steps = quick ? 2 : 20;
    const auto [tf, tfm] = timed(3, [&] {
        for (int k = 0; k < steps; ++k) full.step(q, 0.001, UpdateRule::normalized, rng);
    });
    const double numpy_per_step = numpy_seconds_per_step("numpy_full_step.py", std::to_string(steps));
    if (numpy_per_step <= 0) {
        fmt::print("full step: the NumPy script failed: skipped\n");
        return;
    }
    fmt::print("full step, d = 100, L = 10500: NumPy {:.2f} ms/step, rhoflow {:.2f} ms/step: ratio NumPy/rhoflow = {:.2f}\n",
               numpy_per_step * 1e3, tf / steps * 1e3, numpy_per_step / (tf / steps));
}

// The two jobs of docs/benchmarks.md "Python module" through the C++ API, as the module runs
// them (experiment/jobs.hpp): the exact field at 1000 rho and the default sga. The Python side
// is python/tools/bench.py, which runs this section between its own rounds.
void bench_jobs(bool quick) {
    fmt::print("\n== jobs through the C++ API: field at 1000 rho (exact), default sga (30 x 10^4 steps)\n");
    FieldJob field;
    field.rho.clear();
    for (int i = 0; i < 1000; ++i) field.rho.push_back(-1.0 + 2.0 * i / 999.0);
    const SgaJob sga;
    const int reps = quick ? 1 : 5;
    const auto [f_best, f_median] = timed(reps, [&] { sink = run(field).points.back().j; });
    const auto [s_best, s_median] = timed(reps, [&] { sink = run(sga).ensemble.summary.abs_rho_final.mean; });
    fmt::print("jobs field_1000: best {:.4f} s, median {:.4f} s\n", f_best, f_median);
    fmt::print("jobs sga_default: best {:.4f} s, median {:.4f} s\n", s_best, s_median);
    // Tiny jobs: what a call costs beyond its work (the Python side times the same calls).
    FieldJob field1;
    field1.rho = {0.3};
    SgaJob sga1;
    sga1.sga.steps = 1;
    sga1.sga.trials = 1;
    const auto [f1, f1m] = timed(50, [&] { sink = run(field1).points.back().j; });
    const auto [s1, s1m] = timed(50, [&] { sink = run(sga1).ensemble.summary.abs_rho_final.mean; });
    fmt::print("jobs field_1: best {:.6f} s, median {:.6f} s\n", f1, f1m);
    fmt::print("jobs sga_1: best {:.6f} s, median {:.6f} s\n", s1, s1m);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"rhoflow-bench: the speed figures of docs/benchmarks.md (ratios measured within one run)"};
    bool quick = false;
    std::vector<std::string> sections;
    app.add_flag("--quick", quick, "fewer repetitions (smoke test)");
    app.add_option("sections", sections, "field moments ode rng reduced full numpy (default: all), jobs (only when named)");
    CLI11_PARSE(app, argc, argv);
    auto want = [&](const std::string& s) {
        return sections.empty() || std::find(sections.begin(), sections.end(), s) != sections.end();
    };
    fmt::print("rhoflow-bench {} (best of several runs; see docs/benchmarks.md)\n", rhoflow::version);
    fmt::print("CPU: {}; SIMD variant chosen: {}\n", cpu_model(), variant_name(detail::active_simd_variant()));
    if (want("field")) bench_field(quick);
    if (want("moments")) bench_moments(quick);
    if (want("ode")) bench_ode(quick);
    if (want("rng")) bench_rng(quick);
    if (want("reduced")) bench_reduced(quick);
    if (want("full")) bench_full(quick);
    if (want("numpy")) bench_numpy(quick);
    if (std::find(sections.begin(), sections.end(), "jobs") != sections.end()) bench_jobs(quick);
    return 0;
}
