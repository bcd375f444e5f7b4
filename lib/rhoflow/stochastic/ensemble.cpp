#include "rhoflow/stochastic/ensemble.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>

#include "rhoflow/core/detail/json_hooks.hpp"

#include "rhoflow/core/errors.hpp"
#include "rhoflow/stochastic/full_sampler.hpp"
#include "rhoflow/exec/parallel.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/stochastic/detail/execute_units.hpp"
#include "rhoflow/stochastic/reduced_sampler.hpp"

namespace rhoflow {

std::string_view to_string(SamplerKind s) { return s == SamplerKind::reduced ? "reduced" : "full"; }

SamplerKind parse_sampler(std::string_view s, const std::string& param) {
    if (s == "reduced") return SamplerKind::reduced;
    if (s == "full") return SamplerKind::full;
    throw InvalidArgument(param, param + " = '" + std::string(s) + "' is not a sampler (accepted: reduced, full)");
}

RHOFLOW_JSON_ENUM_HOOKS(SamplerKind, parse_sampler)
RHOFLOW_JSON_HOOKS(SgaParams, steps, trials, first_trial, seed, purpose, purpose_sub, sampler, schedule, update, rho0,
                   hit_eps, threads, records_per_decade, record_steps)
RHOFLOW_JSON_HOOKS(TrialResult, seed, trial, rho0, rho_final, t_final, hit_step, rho, nuisance_mass,
                   mean_nuisance_mass_last_decile, mean_abs_rho_last_half)
namespace {
RHOFLOW_JSON_HOOKS_NAMED(to_json_members, from_json_members, EnsembleSummary, abs_rho_final, rho_final, quantile_levels, rho_final_quantiles,
                   abs_rho_final_quantiles, hits, hit_step, hit_step_median, nuisance_mass, abs_rho_last_half)
}  // namespace
void to_json(nlohmann::json& j, const EnsembleSummary& v) {
    to_json_members(j, v);
    j["mean_abs_rho_final"] = v.abs_rho_final.mean;  // the command-line contract's headline keys
    j["ci95"] = {v.abs_rho_final.lo, v.abs_rho_final.hi};
}
void from_json(const nlohmann::json& j, EnsembleSummary& v) { from_json_members(j, v); }
namespace {
RHOFLOW_JSON_HOOKS_NAMED(to_json_members, from_json_members, EnsembleResult, record_steps, record_times, trials,
                         rho_finals, summary, warning)
}  // namespace
void to_json(nlohmann::json& j, const EnsembleResult& v) { to_json_members(j, v); }
void from_json(const nlohmann::json& j, EnsembleResult& v) {
    if (j.contains("rho_finals")) return from_json_members(j, v);
    nlohmann::json with = j;  // an older document: every trial is in "trials"
    with["rho_finals"] = nlohmann::json::array();
    for (const auto& t : j.at("trials")) with["rho_finals"].push_back(t.at("rho_final"));
    from_json_members(with, v);
}

void SgaParams::validate() const {
    require(steps >= 1 && steps <= (std::int64_t{1} << 40), "steps", static_cast<double>(steps), "1 <= steps <= 2^40");
    require(trials >= 1 && trials <= 10000000, "trials", static_cast<double>(trials), "1 <= trials <= 1e7");
    require(first_trial >= 0, "first_trial", static_cast<double>(first_trial), "first_trial >= 0");
    validate_member("schedule", [&] { schedule.validate(); });
    if (rho0) validate_rho(*rho0, "rho0");
    validate_hit_eps(hit_eps, "hit_eps");
    require(threads >= 0 && threads <= 1024, "threads", threads, "0 (all cores) <= threads <= 1024");
    require(records_per_decade >= 1 && records_per_decade <= 1000, "records_per_decade", records_per_decade,
            "1 <= records_per_decade <= 1000");
    for (auto k : record_steps)
        require(k >= 0 && k <= steps, "record_steps", static_cast<double>(k), "0 <= record_steps <= steps");
}

std::vector<std::int64_t> record_steps_for(const SgaParams& p) {
    std::set<std::int64_t> s = {0, p.steps};
    const double decades = std::log10(static_cast<double>(p.steps));
    for (int j = 0; j <= static_cast<int>(std::ceil(decades * p.records_per_decade)); ++j) {
        const auto k = static_cast<std::int64_t>(std::llround(std::pow(10.0, static_cast<double>(j) / p.records_per_decade)));
        if (k <= p.steps) s.insert(k);
    }
    for (auto k : p.record_steps) s.insert(k);
    return {s.begin(), s.end()};
}

namespace {

// Runs one trial with either sampler through the common loop. `step(rho, eta, g)` returns
// rho_{k+1} and sets g to the sample drawn at state k (whose 1 - A_I is the nuisance mass).
// Record j holds rho at step records[j] and the nuisance mass of the draw made in that state
// (for the final step, which makes no draw, that of the last draw).
// What to change when a step overflows: the step size when the sample's gradient was finite
// (eta |g| overflowed), else the largest factor of the gradient's scale beta s^3, s the tokens'
// scale max(theta, sigma sqrt(d)) (the per-sample gradient itself overflowed).
std::string overflow_hint(const ModelParams& m, double eta, double g_norm) {
    if (std::isfinite(g_norm))
        return fmt::format("eta |g| = {} overflows: reduce eta0", format_number(eta * g_norm));
    const double noise = m.sigma * std::sqrt(static_cast<double>(m.d));
    const bool signal = m.theta > noise;
    const double s = signal ? m.theta : noise;
    const std::string culprit =
        std::log(m.beta) > 3 * std::log(s)
            ? fmt::format("beta = {}", format_number(m.beta))
            : signal ? fmt::format("theta = {}", format_number(m.theta))
                     : fmt::format("sigma = {} (noise norm sigma sqrt(d) = {})", format_number(m.sigma), format_number(noise));
    const std::string flag = culprit.substr(0, culprit.find(' '));
    return fmt::format("the per-sample gradient (of order beta s^3, s = max(theta, sigma sqrt(d)) the tokens' scale) "
                       "overflowed: {} is too large; reduce {}",
                       culprit, flag);
}

template <class StepFn>
TrialResult run_trial(std::int64_t trial, double rho0, const ModelParams& model, const SgaParams& p,
                      const std::vector<std::int64_t>& all_records, bool keep_records,
                      StepFn&& step, StepObserver* obs, std::atomic<std::int64_t>* steps_done) {
    static const std::vector<std::int64_t> none;
    const std::vector<std::int64_t>& records = keep_records ? all_records : none;
    TrialResult r;
    r.seed = p.seed;
    r.trial = trial;
    r.rho0 = rho0;
    r.rho.reserve(records.size());
    r.nuisance_mass.reserve(records.size());
    const double level = 1.0 - p.hit_eps;
    double rho = rho0, t = 0, mass_sum = 0, nuisance = 0, abs_sum = 0;
    std::int64_t mass_n = 0, abs_n = 0, done = 0;
    const std::int64_t decile_start = p.steps - std::max<std::int64_t>(1, p.steps / 10);
    const std::int64_t half_start = p.steps / 2;
    std::size_t next = 0;
    if (std::abs(rho) >= level) r.hit_step = 0;
    if (obs) obs->on_step(0, 0.0, rho, 0.0);
    for (std::int64_t k = 0; k < p.steps; ++k) {
        const double eta = p.schedule.eta(k);
        GradientDraw g;
        const double rho_next = step(rho, eta, g);
        if (!std::isfinite(rho_next)) {
            const double g_norm = std::sqrt(g.g_u * g.g_u + g.g_v * g.g_v + g.g_w_sq);
            throw NumericalError(fmt::format(
                "trial {} step {}: the SGA step is not representable in double precision (eta = {}, |g| = {}); {}",
                trial, k, format_number(eta), format_number(g_norm), overflow_hint(model, eta, g_norm)));
        }
        nuisance = 1.0 - g.mass_informative;
        if (next < records.size() && records[next] == k) {
            r.rho.push_back(rho);
            r.nuisance_mass.push_back(nuisance);
            ++next;
        }
        rho = rho_next;
        t += eta;
        if (k >= decile_start) {
            mass_sum += nuisance;
            ++mass_n;
        }
        if (k + 1 > half_start) {  // rho_{k+1} is in the second half
            abs_sum += std::abs(rho);
            ++abs_n;
        }
        if (!r.hit_step && std::abs(rho) >= level) r.hit_step = k + 1;
        if (obs) obs->on_step(k + 1, t, rho, nuisance);
        if (++done == 1000) {  // a block of steps: count it, and stop here if asked to (exec/parallel.hpp)
            if (steps_done) steps_done->fetch_add(done, std::memory_order_relaxed);
            done = 0;
            throw_if_cancelled();
        }
    }
    if (next < records.size() && records[next] == p.steps) {
        r.rho.push_back(rho);
        r.nuisance_mass.push_back(nuisance);
    }
    if (steps_done) steps_done->fetch_add(done, std::memory_order_relaxed);
    if (obs) obs->finish();
    r.rho_final = rho;
    r.t_final = t;
    r.mean_nuisance_mass_last_decile = mass_n ? mass_sum / static_cast<double>(mass_n) : 0.0;
    r.mean_abs_rho_last_half = abs_n ? abs_sum / static_cast<double>(abs_n) : std::abs(rho);
    return r;
}

}  // namespace

// Trials per chunk of run_trials_here and at most per block of EnsembleBlocks: each chunk runs
// in parallel, then is folded into the summary in trial order (memory stays that of a chunk).
constexpr std::int64_t kChunk = 4096;

double step_cost(const ModelParams& model, SamplerKind sampler) noexcept {
    const double tokens = static_cast<double>(model.L);
    return (sampler == SamplerKind::full ? tokens * static_cast<double>(model.d) : tokens) + 50.0;
}

EnsembleBlocks::EnsembleBlocks(const ModelParams& model, const SgaParams& params, std::int64_t blocks,
                               const EnsembleOutput& keep)
    : model_(model), params_(params), keep_(keep) {
    model.validate();
    params.validate();
    const std::int64_t at_least = (params.trials + kChunk - 1) / kChunk;
    const std::int64_t n = std::clamp<std::int64_t>(std::max(blocks, at_least), 1, params.trials);
    for (std::int64_t b = 0; b < n; ++b) first_.push_back(params.trials * b / n);
    waiting_.resize(first_.size());
    out_.model = model;
    out_.sga = params;
    out_.record_steps = record_steps_for(params_);
    out_.record_times = params_.schedule.times_at(out_.record_steps);
    out_.warning = params_.schedule.warning();
    out_.trials.reserve(static_cast<std::size_t>(std::min(params.trials, std::max<std::int64_t>(0, keep.trials))));
    out_.rho_finals.reserve(static_cast<std::size_t>(params.trials));
}

std::int64_t EnsembleBlocks::trials(std::int64_t b) const {
    const auto i = static_cast<std::size_t>(b);
    return (i + 1 < first_.size() ? first_[i + 1] : params_.trials) - first_.at(i);
}

double EnsembleBlocks::cost(std::int64_t b) const {
    return static_cast<double>(steps(b)) * step_cost(model_, params_.sampler);
}

EnsembleBlocks::Output EnsembleBlocks::run(std::int64_t b, ProgressCounter* progress) const {
    SgaParams q = params_;
    q.first_trial = params_.first_trial + first_.at(static_cast<std::size_t>(b));
    q.trials = trials(b);
    // Every trial of the block travels (rank 0 folds them all into the summary), with its
    // records only when they are kept.
    const EnsembleOutput block_keep{keep_.records, std::numeric_limits<std::int64_t>::max()};
    return run_trials_here(model_, q, progress, {}, block_keep).trials;
}

void EnsembleBlocks::accept(std::int64_t b, Output trials_in) {
    const auto i = static_cast<std::size_t>(b);
    if (static_cast<std::int64_t>(trials_in.size()) != trials(b)) throw std::runtime_error("an ensemble block came back incomplete");
    waiting_.at(i) = std::move(trials_in);
    fold();
}

void EnsembleBlocks::fold() {
    for (; folded_ < waiting_.size() && waiting_[folded_]; ++folded_) {
        std::vector<TrialResult>& block = *waiting_[folded_];
        for (std::size_t k = 0; k < block.size(); ++k) {
            summary_.add(block[k]);
            out_.rho_finals.push_back(block[k].rho_final);
            if (first_[folded_] + static_cast<std::int64_t>(k) < keep_.trials) out_.trials.push_back(std::move(block[k]));
        }
        waiting_[folded_].reset();
        waiting_[folded_].emplace();  // folded: present (and empty)
    }
}

EnsembleResult EnsembleBlocks::result() {
    if (folded_ != waiting_.size()) throw std::runtime_error("an ensemble block is missing");
    out_.summary = summary_.finish();
    return std::move(out_);
}

std::optional<EnsembleResult> run_ensemble(Execution ex, const ModelParams& model, const SgaParams& p,
                                           ProgressCounter* progress, const EnsembleOutput& keep) {
    EnsembleBlocks blocks(model, p, blocks_for(p.trials, ranks_for(ex)), keep);
    detail::execute_units(ex, blocks, progress);
    return on_keeper<EnsembleResult>(ex, [&] { return blocks.result(); });
}

EnsembleResult run_ensemble(const ModelParams& model, const SgaParams& p, ProgressCounter* progress,
                            const EnsembleOutput& keep) {
    return *run_ensemble(Execution::local, model, p, progress, keep);
}

namespace {

// Runs trials first ... first + n - 1 (indices into the ensemble) into `slots`.
void run_trials(const ModelParams& model, const SgaParams& p, std::int64_t first, std::int64_t n,
                const std::vector<std::int64_t>& record_steps, const EnsembleOutput& keep,
                const ObserverFactory& observers, std::atomic<std::int64_t>* steps_done, std::vector<TrialResult>& slots) {
    parallel_for(n, p.threads, [&](std::int64_t j) {
        const std::int64_t i = first + j;
        const std::int64_t trial = p.first_trial + i;
        RandomStream rng({p.seed, p.purpose, static_cast<std::uint64_t>(trial), p.purpose_sub});
        std::unique_ptr<StepObserver> obs = observers ? observers(trial) : nullptr;
        TrialResult r;
        if (p.sampler == SamplerKind::reduced) {
            ReducedSampler sampler(model);
            const double rho0 = p.rho0 ? *p.rho0 : uniform_sphere_rho(model.d, rng);
            auto step = [&](double rho, double eta, GradientDraw& g) { return sampler.step(rho, eta, p.update, rng, &g); };
            r = run_trial(trial, rho0, model, p, record_steps, keep.records, step, obs.get(), steps_done);
        } else {
            FullSampler sampler(model);
            Eigen::VectorXd q = p.rho0 ? FullSampler::query_with_alignment(model.d, *p.rho0)
                                       : FullSampler::random_query(model.d, rng);
            auto step = [&](double, double eta, GradientDraw& g) { return sampler.step(q, eta, p.update, rng, &g); };
            r = run_trial(trial, q[0], model, p, record_steps, keep.records, step, obs.get(), steps_done);
        }
        slots[static_cast<std::size_t>(j)] = std::move(r);
    });
}

}  // namespace

EnsembleResult run_trials_here(const ModelParams& model, const SgaParams& p, ProgressCounter* progress,
                                 const ObserverFactory& observers, const EnsembleOutput& keep) {
    std::atomic<std::int64_t>* steps_done = progress ? &progress->done : nullptr;
    model.validate();
    p.validate();
    EnsembleResult out;
    out.model = model;
    out.sga = p;
    out.record_steps = record_steps_for(p);
    out.record_times = p.schedule.times_at(out.record_steps);
    out.warning = p.schedule.warning();
    const std::int64_t kept = std::min(p.trials, std::max<std::int64_t>(0, keep.trials));
    out.trials.reserve(static_cast<std::size_t>(kept));
    out.rho_finals.reserve(static_cast<std::size_t>(p.trials));
    SummaryBuilder summary;
    std::vector<TrialResult> chunk;
    for (std::int64_t start = 0; start < p.trials; start += kChunk) {
        const std::int64_t n = std::min(kChunk, p.trials - start);
        chunk.assign(static_cast<std::size_t>(n), TrialResult{});
        run_trials(model, p, start, n, out.record_steps, keep, observers, steps_done, chunk);
        for (std::int64_t i = 0; i < n; ++i) {
            TrialResult& t = chunk[static_cast<std::size_t>(i)];
            summary.add(t);
            out.rho_finals.push_back(t.rho_final);
            if (start + i < kept) out.trials.push_back(std::move(t));
        }
    }
    out.summary = summary.finish();
    return out;
}


void SummaryBuilder::add(const TrialResult& t) {
    add(t.rho_final, t.hit_step, t.mean_nuisance_mass_last_decile, t.mean_abs_rho_last_half);
}

void SummaryBuilder::add(double rho_final, std::optional<std::int64_t> hit_step, double nuisance_mass,
                         double abs_rho_last_half) {
    rho_finals_.push_back(rho_final);
    abs_rho_final_.add(std::abs(rho_final));
    rho_final_.add(rho_final);
    mass_.add(nuisance_mass);
    half_.add(abs_rho_last_half);
    if (hit_step) {
        hit_steps_.push_back(static_cast<double>(*hit_step));
        hits_.add(static_cast<double>(*hit_step));
    }
}

EnsembleSummary SummaryBuilder::finish() {
    if (rho_finals_.empty()) throw NumericalError("summary of an ensemble without trials");
    EnsembleSummary s;
    // 95% Student-t intervals, intersected with the range of each quantity (|rho| and the
    // masses in [0, 1], rho in [-1, 1], steps >= 0): see docs/theory.md, "Confidence intervals".
    s.abs_rho_final = clip_ci(mean_ci(abs_rho_final_), 0, 1);
    s.rho_final = clip_ci(mean_ci(rho_final_), -1, 1);
    s.quantile_levels = {0.05, 0.25, 0.5, 0.75, 0.95};
    std::vector<double>& rf = rho_finals_;
    std::sort(rf.begin(), rf.end());
    for (double q : s.quantile_levels) s.rho_final_quantiles.push_back(sorted_quantile(rf, q));
    for (double& x : rf) x = std::abs(x);
    std::sort(rf.begin(), rf.end());
    for (double q : s.quantile_levels) s.abs_rho_final_quantiles.push_back(sorted_quantile(rf, q));
    s.hits = static_cast<std::int64_t>(hit_steps_.size());
    if (!hit_steps_.empty()) {
        s.hit_step = clip_ci(mean_ci(hits_), 0, std::numeric_limits<double>::infinity());
        std::sort(hit_steps_.begin(), hit_steps_.end());
        s.hit_step_median = sorted_quantile(hit_steps_, 0.5);
    }
    s.nuisance_mass = clip_ci(mean_ci(mass_), 0, 1);
    s.abs_rho_last_half = clip_ci(mean_ci(half_), 0, 1);
    *this = SummaryBuilder();
    return s;
}

EnsembleSummary summarise(const std::vector<TrialResult>& trials) {
    SummaryBuilder b;
    for (const auto& t : trials) b.add(t);
    return b.finish();
}

}  // namespace rhoflow
