#include "rhoflow/effective/stationary.hpp"

#include <algorithm>
#include <array>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/quadrature/gauss.hpp>
#include <cmath>
#include <fmt/format.h>
#include <tuple>

#include "rhoflow/core/cancel.hpp"
#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/core/stats.hpp"
#include "rhoflow/exec/parallel.hpp"
#include "rhoflow/ode/phase.hpp"

namespace rhoflow {

namespace {

// 5-point Gauss-Legendre (Boost's nodes). Boost stores the nonnegative half of the symmetric
// rule, {0, x1, x2} with their weights; the full rule on [-1, 1] is unfolded from it once.
using Gauss5 = boost::math::quadrature::gauss<double, 5>;

struct FullRule {
    std::array<double, 5> x{}, w{};
    FullRule() {
        const auto& h = Gauss5::abscissa();
        const auto& hw = Gauss5::weights();
        x = {-h[2], -h[1], h[0], h[1], h[2]};
        w = {hw[2], hw[1], hw[0], hw[1], hw[2]};
    }
};
const FullRule kRule;

double gauss5(const std::function<double(double)>& f, double lo, double hi) { return Gauss5::integrate(f, lo, hi); }

// The density on one grid: the quadrature nodes (ascending) and their normalised weights
// w_k p(x_k) / Z, from the log-density at every node (then exp(lp - max lp)).
struct Weighted {
    std::vector<double> x, p;
};
Weighted density_on(const std::function<double(double)>& a, const std::function<double(double)>& v, double eta,
                    double from, double to, int cells) {
    auto g = [&](double x) { return 2 * a(x) / (eta * v(x)); };
    const double h = (to - from) / cells;
    std::vector<double> x, w, lp;
    double phi = 0;  // Phi at the left end of the current cell (Phi(from) = 0)
    for (int i = 0; i < cells; ++i) {
        const double left = from + i * h;
        for (int q = 0; q < 5; ++q) {
            const double xq = left + 0.5 * h * (1 + kRule.x[q]);
            x.push_back(xq);
            w.push_back(0.5 * h * kRule.w[q]);
            lp.push_back(phi + gauss5(g, left, xq) - std::log(v(xq)));
        }
        phi += gauss5(g, left, left + h);
    }
    const double m = *std::max_element(lp.begin(), lp.end());
    if (!std::isfinite(m)) throw NumericalError("stationary law: the log-density is not finite");
    Weighted out{std::move(x), {}};
    double Z = 0;
    for (std::size_t k = 0; k < w.size(); ++k) {
        out.p.push_back(w[k] * std::exp(lp[k] - m));
        Z += out.p.back();
    }
    for (double& p : out.p) p /= Z;
    return out;
}

DiffusionMoments moments_of(const Weighted& d) {
    double s1 = 0, s2 = 0, r1 = 0;
    for (std::size_t k = 0; k < d.x.size(); ++k) {
        s1 += d.p[k] * std::abs(d.x[k]);
        s2 += d.p[k] * d.x[k] * d.x[k];
        r1 += d.p[k] * d.x[k];
    }
    DiffusionMoments m;
    m.mean = s1;
    m.sd = std::sqrt(std::max(0.0, s2 - s1 * s1));
    m.mean_rho = r1;
    return m;
}

// The quantile at `level` of the weighted nodes: the cumulative weight at node k taken as the
// sum below it plus half its own, linear between nodes.
double weighted_quantile(const Weighted& d, double level) {
    double below = 0, prev_c = 0, prev_x = d.x.front();
    for (std::size_t k = 0; k < d.x.size(); ++k) {
        const double c = below + 0.5 * d.p[k];
        if (c >= level)
            return k == 0 || c <= prev_c ? d.x[k] : prev_x + (level - prev_c) / (c - prev_c) * (d.x[k] - prev_x);
        below += d.p[k];
        prev_c = c;
        prev_x = d.x[k];
    }
    return d.x.back();
}

DiffusionLaw law_of(const Weighted& d, const std::vector<double>& levels, double tail_level) {
    DiffusionLaw law;
    law.moments = moments_of(d);
    double s2 = 0;
    for (std::size_t k = 0; k < d.x.size(); ++k) {
        s2 += d.p[k] * d.x[k] * d.x[k];
        if (std::abs(d.x[k]) >= tail_level) law.tail += d.p[k];
    }
    law.sd_rho = std::sqrt(std::max(0.0, s2 - law.moments.mean_rho * law.moments.mean_rho));
    for (double l : levels) law.quantiles.push_back(weighted_quantile(d, l));
    return law;
}

}  // namespace

DiffusionMoments diffusion_stationary_moments(const std::function<double(double)>& a,
                                              const std::function<double(double)>& v, double eta, double from,
                                              double to, int cells) {
    require(std::isfinite(eta) && eta > 0, "eta", eta, "eta > 0");
    require(from < to, "from", from, "from < to");
    require(cells >= 100 && cells <= 1000000, "cells", cells, "100 <= cells <= 1e6");
    DiffusionMoments fine = moments_of(density_on(a, v, eta, from, to, cells));
    const DiffusionMoments coarse = moments_of(density_on(a, v, eta, from, to, cells / 2));
    fine.quadrature_err = std::max(std::abs(fine.mean - coarse.mean), std::abs(fine.sd - coarse.sd));
    return fine;
}

DiffusionLaw diffusion_stationary_law(const std::function<double(double)>& a, const std::function<double(double)>& v,
                                      double eta, double from, double to, const std::vector<double>& levels,
                                      double tail_level, int cells) {
    require(std::isfinite(eta) && eta > 0, "eta", eta, "eta > 0");
    require(from < to, "from", from, "from < to");
    require(cells >= 100 && cells <= 1000000, "cells", cells, "100 <= cells <= 1e6");
    for (double l : levels) require(l > 0 && l < 1, "levels", l, "0 < level < 1");
    DiffusionLaw fine = law_of(density_on(a, v, eta, from, to, cells), levels, tail_level);
    const DiffusionMoments coarse = moments_of(density_on(a, v, eta, from, to, cells / 2));
    fine.moments.quadrature_err = std::max(std::abs(fine.moments.mean - coarse.mean), std::abs(fine.moments.sd - coarse.sd));
    return fine;
}

void StationaryChainParams::validate() const {
    require(replicas >= 4 && replicas <= 1000, "replicas", replicas, "4 <= replicas <= 1000");
    require(paths >= 1 && paths <= 100000, "paths", paths, "1 <= paths <= 100000");
    require(burn_in >= 0 && burn_in <= 1000000000, "burn_in", static_cast<double>(burn_in), "0 <= burn_in <= 1e9");
    require(steps >= 1000 && steps <= 1000000000, "steps", static_cast<double>(steps), "1000 <= steps <= 1e9");
    require(batches >= 2 && batches <= 1000, "batches", batches, "2 <= batches <= 1000");
    require(steps / batches >= 100, "batches", batches, "steps / batches >= 100");
    require(std::isfinite(hit_eps) && hit_eps > 0 && hit_eps < 1, "hit_eps", hit_eps, "0 < hit_eps < 1");
}

void StationaryParams::validate() const {
    validate_member("moments", [&] { moments.validate(); });
    validate_member("table", [&] { table.validate(); });
    require(cells >= 100 && cells <= 1000000, "cells", cells, "100 <= cells <= 1e6");
    require(bootstrap >= 10 && bootstrap <= 10000, "bootstrap", bootstrap, "10 <= bootstrap <= 10000");
    validate_member("chain", [&] { chain.validate(); });
}

namespace {

const std::vector<double> kLevels = {0.001, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999};

double ode_attractor_nearest_one(const PhasePortrait& p) {
    double best = -2;
    for (const auto& e : p.equilibria)
        if (e.stable) best = std::max(best, e.rho);
    if (p.flat || best < -1)
        throw NumericalError("stationary law: the mean-field ODE has no attractor (the field is flat within its error "
                             "bound): nothing near +1 to compare with");
    return best;
}

// The basin of attractor i among the ascending equilibria: up to the nearest non-attractor on
// each side (or the end), or halfway to a neighbouring attractor with none between.
std::pair<double, double> basin_of(const std::vector<EffectiveEquilibrium>& eq, std::size_t i) {
    auto end = [&](std::size_t k) { return eq[k].stable ? 0.5 * (eq[k].rho + eq[i].rho) : eq[k].rho; };
    return {i > 0 ? end(i - 1) : -1.0, i + 1 < eq.size() ? end(i + 1) : 1.0};
}

// The statistics of a set of states in the basin, in a fixed order: mean, sd, mean |rho|, the
// tail fraction, then the quantiles at kLevels. Empty for no state.
constexpr std::size_t kMean = 0, kSd = 1, kMeanAbs = 2, kTail = 3, kQuantiles = 4;
std::vector<double> stats_of(std::vector<double> x, double tail_level) {
    if (x.empty()) return {};
    RunningStats r, ra;
    double tail = 0;
    for (double y : x) {
        r.add(y);
        ra.add(std::abs(y));
        tail += std::abs(y) >= tail_level;
    }
    std::vector<double> out = {r.mean(), std::sqrt(r.variance()), ra.mean(), tail / static_cast<double>(x.size())};
    std::sort(x.begin(), x.end());
    for (double l : kLevels) out.push_back(sorted_quantile(x, l));
    return out;
}

// One attractor's chain: K replicas x P paths from rho*, the kept states of each path.
struct ChainRun {
    std::vector<std::vector<double>> states;  // [replica * P + path]
    std::int64_t burn_in = 0;
};

ChainRun run_chain(const std::vector<ResampledChain>& chains, double eta, double start, std::int64_t burn_in,
                   const StationaryParams& params, std::size_t attractor) {
    const StationaryChainParams& c = params.chain;
    const auto P = static_cast<std::int64_t>(c.paths);
    ChainRun run;
    run.burn_in = burn_in;
    run.states.resize(chains.size() * static_cast<std::size_t>(P));
    parallel_for(static_cast<std::int64_t>(run.states.size()), params.moments.threads, [&](std::int64_t idx) {
        const ResampledChain& chain = chains[static_cast<std::size_t>(idx / P)];
        RandomStream rng({params.moments.seed, StreamPurpose::effective_chain, static_cast<std::uint64_t>(idx),
                          kStationaryChainSub + attractor});
        std::vector<double>& out = run.states[static_cast<std::size_t>(idx)];
        out.reserve(static_cast<std::size_t>(c.steps));
        double r = start;
        for (std::int64_t k = 0; k < burn_in + c.steps; ++k) {
            if ((k & 4095) == 0) throw_if_cancelled();
            r = chain.step(r, eta, rng);
            if (k >= burn_in) out.push_back(r);
        }
    });
    return run;
}

// Whether r lies in the attractor's basin (an end at -1 or +1 is closed, an interior one open).
bool in_attractor_basin(const AttractorLaw& law, double r) {
    return (law.basin_from <= -1 ? r >= -1 : r > law.basin_from) && (law.basin_to >= 1 ? r <= 1 : r < law.basin_to);
}

// The chain's states in the basin, sorted into replicas and batches (per_path batches of `batch`
// steps per path), with the counts of the states and paths that left it.
struct BasinStates {
    std::vector<double> pooled;                           // every state in the basin
    std::vector<std::vector<double>> per_replica;         // the replicas' statistics
    std::vector<std::vector<std::vector<double>>> batches;  // each replica's batches' statistics
    std::int64_t kept = 0, outside = 0, escaped_paths = 0;
};

BasinStates basin_states(const ChainRun& run, std::size_t K, std::size_t paths, std::int64_t per_path,
                         std::int64_t batch, const AttractorLaw& law) {
    BasinStates s;
    s.per_replica.resize(K);
    s.batches.resize(K);
    for (std::size_t r = 0; r < K; ++r) {
        std::vector<double> in_replica;
        for (std::size_t p = 0; p < paths; ++p) {
            const std::vector<double>& x = run.states[r * paths + p];
            bool escaped = false;
            for (std::int64_t b = 0; b < per_path; ++b) {
                std::vector<double> in_batch;
                for (std::int64_t k = b * batch; k < (b + 1) * batch; ++k) {
                    const double y = x[static_cast<std::size_t>(k)];
                    ++s.kept;
                    if (in_attractor_basin(law, y)) {
                        in_batch.push_back(y);
                    } else {
                        ++s.outside;
                        escaped = true;
                    }
                }
                in_replica.insert(in_replica.end(), in_batch.begin(), in_batch.end());
                if (auto st = stats_of(std::move(in_batch), law.tail_level); !st.empty()) s.batches[r].push_back(st);
            }
            s.escaped_paths += escaped;
        }
        s.pooled.insert(s.pooled.end(), in_replica.begin(), in_replica.end());
        s.per_replica[r] = stats_of(std::move(in_replica), law.tail_level);
    }
    return s;
}

// The errors of each statistic: the chain's (the batches' spread about their replica's mean,
// pooled over replicas) and the bank's (the replicas' spread); nb counts the batches.
struct StatErrors {
    std::vector<double> chain, bank;
    std::size_t nb = 0;
};

StatErrors stat_errors(const BasinStates& s, std::size_t count) {
    StatErrors e{std::vector<double>(count, 0.0), std::vector<double>(count, 0.0), 0};
    for (const auto& br : s.batches) e.nb += br.size();
    for (std::size_t k = 0; k < count; ++k) {
        double ss = 0;
        std::size_t dof = 0;
        for (const auto& br : s.batches) {
            if (br.empty()) continue;
            RunningStats m;
            for (const auto& st : br) m.add(st[k]);
            for (const auto& st : br) ss += (st[k] - m.mean()) * (st[k] - m.mean());
            dof += br.size() - 1;
        }
        if (dof > 0 && e.nb > 0) e.chain[k] = std::sqrt(ss / static_cast<double>(dof) / static_cast<double>(e.nb));
        RunningStats rep;
        for (const auto& st : s.per_replica)
            if (!st.empty()) rep.add(st[k]);
        // The replicas' sd, widened by Student's factor for its K - 1 degrees of freedom (the
        // one-sigma quantile of t_{K-1}): an sd from few replicas is itself uncertain.
        if (rep.count() > 1) {
            const boost::math::students_t t(static_cast<double>(rep.count() - 1));
            e.bank[k] = std::sqrt(rep.variance()) * boost::math::quantile(t, 0.8413447460685429);
        }
    }
    return e;
}

// The notes on batches too short for the autocorrelation time tau (steps) or the tail quantiles.
void batch_notes(AttractorLaw& law, std::size_t nb, std::size_t K, std::int64_t batch, double tau) {
    auto add_note = [&](const std::string& n) { law.note += (law.note.empty() ? "" : "; ") + n; };
    if (nb <= K)
        add_note("one batch per replica: no batch spread, the errors are the replicas' spread alone");
    else if (static_cast<double>(batch) < 20 * tau)
        add_note(fmt::format("the chain's errors may be too small: batches of {} steps against an autocorrelation time "
                             "of {:.0f} steps (want 20 times as many); raise --chain-steps",
                             batch, tau));
    if (static_cast<double>(batch) * kLevels.front() / tau < 10)
        add_note(fmt::format("the {}% and {}% quantiles have fewer than 10 independent states per batch beyond them: "
                             "their batch errors are rough, and their errors rest on the replicas' spread",
                             100 * kLevels.front(), 100 * kLevels.back()));
}

// The chain's estimates: the statistics `all` (stats_of's order) with their errors.
void take_estimates(AttractorLaw& law, const std::vector<double>& all, const StatErrors& e) {
    auto estimate = [&](std::size_t s) {
        return ChainEstimate{all[s], e.chain[s], e.bank[s], std::hypot(e.chain[s], e.bank[s])};
    };
    law.chain_ran = true;
    law.mean = estimate(kMean);
    law.sd = estimate(kSd);
    law.mean_abs = estimate(kMeanAbs);
    law.tail = estimate(kTail);
    for (std::size_t q = 0; q < kLevels.size(); ++q) law.quantiles.push_back(estimate(kQuantiles + q));
}

// The chain's statistics at one attractor with their errors (batch means within the replicas
// for the chain's own error, the replicas' spread for the bank's). Batch means are honest only
// for batches much longer than the autocorrelation time, which they cannot measure beyond their
// own length: the batches are made at least 20 times tau_lin = 2 / (eta |a'|) (the integrated
// autocorrelation time of the chain linearised at rho*; fewer batches per path, down to one, the
// paths then being the batches), and a note says when the measured tau still exceeds 1/20 of a
// batch or a tail quantile has fewer than 10 independent states per batch beyond it.
void chain_statistics(const ChainRun& run, double eta, const StationaryParams& params, AttractorLaw& law) {
    const StationaryChainParams& c = params.chain;
    const std::size_t K = run.states.size() / static_cast<std::size_t>(c.paths);
    const double tau_lin = 2.0 / (eta * std::max(std::abs(law.slope), 1e-300));
    const auto per_path = static_cast<std::int64_t>(
        std::clamp(std::floor(static_cast<double>(c.steps) / (20.0 * tau_lin)), 1.0, static_cast<double>(c.batches)));
    const std::int64_t batch = c.steps / per_path;
    BasinStates s = basin_states(run, K, static_cast<std::size_t>(c.paths), per_path, batch, law);
    law.escaped_paths += s.escaped_paths;
    law.paths = static_cast<std::int64_t>(run.states.size());
    law.burn_in = run.burn_in;
    law.steps = per_path * batch;  // the rest of c.steps (fewer than per_path steps) is dropped
    law.escaped_time = s.kept > 0 ? static_cast<double>(s.outside) / static_cast<double>(s.kept) : 0.0;
    const auto n_in = static_cast<double>(s.pooled.size());
    const std::vector<double> all = stats_of(std::move(s.pooled), law.tail_level);
    if (all.empty()) {
        law.note = "every kept state of the chain left the basin: no chain statistics here";
        return;
    }
    StatErrors e = stat_errors(s, all.size());
    // tau from the batch means: batch length x Var(batch mean) / Var(state).
    const double var_state = all[kSd] * all[kSd];
    const double var_bm = e.chain[kMean] * e.chain[kMean] * static_cast<double>(e.nb);
    law.tau = var_state > 0 ? std::max(1.0, static_cast<double>(batch) * var_bm / var_state) : 1.0;
    const double tau = std::max(law.tau, tau_lin);
    // None seen: the one-sided 68% upper limit of a Poisson count of 0, -ln(0.3173) = 1.15
    // independent states, over N / tau of them (the rule of three's one-sigma twin).
    if (all[kTail] == 0) e.chain[kTail] = 1.1479 * tau / n_in;
    batch_notes(law, e.nb, K, batch, tau);
    take_estimates(law, all, e);
}

}  // namespace

void require_signal_for_stationary_law(const ModelParams& m) {
    auto refuse = [](const std::string& field, const std::string& value, const std::string& accepted) {
        throw InvalidArgument(field, fmt::format("{} = {}: the field is flat (no signal: R = 0, theta = 0 or L = 1), so "
                                                 "there is no attractor near +1 and no stationary law to predict "
                                                 "(accepted: {})",
                                                 field, value, accepted));
    };
    if (m.R == 0) refuse("R", "0", "1 <= R <= L");
    if (m.theta == 0) refuse("theta", "0", "0 < theta <= 1e100");
    if (m.L == 1) refuse("L", "1", "L >= 2");
}

namespace {

// The attractors' indices among the ascending equilibria; none throws (no law near +1).
std::vector<std::size_t> attractor_indices(const std::vector<EffectiveEquilibrium>& eq, double eta) {
    std::vector<std::size_t> atts;
    for (std::size_t i = 0; i < eq.size(); ++i)
        if (eq[i].stable) atts.push_back(i);
    if (atts.empty())
        throw NumericalError(fmt::format("stationary law at eta = {}: the effective drift has no attractor in "
                                         "(-1, 1); the chain is not confined near +1", format_number(eta)));
    return atts;
}

// Attractor i's law before any statistics: where it is, its basin, the mean-field ODE's
// attractor nearest it.
AttractorLaw attractor_law(const std::vector<EffectiveEquilibrium>& eq, std::size_t i, const PhasePortrait& portrait,
                           double tail_level) {
    const EffectiveEquilibrium& e = eq[i];
    AttractorLaw a;
    a.attractor = e.rho;
    a.attractor_err = e.rho_err;
    a.slope = e.slope;
    std::tie(a.basin_from, a.basin_to) = basin_of(eq, i);
    a.levels = kLevels;
    a.tail_level = tail_level;
    a.plain_ode = e.rho;
    double gap = 3;
    for (const auto& o : portrait.equilibria)
        if (o.stable && std::abs(o.rho - e.rho) < gap) {
            gap = std::abs(o.rho - e.rho);
            a.plain_ode = o.rho;
        }
    return a;
}

// (9.5) on every attractor's basin, for the drift d, on `cells` cells.
std::vector<DiffusionLaw> diffusion_laws(const EffectiveDrift& d, const std::vector<AttractorLaw>& attractors,
                                         double eta, int cells, double tail_level) {
    std::vector<DiffusionLaw> out;
    for (const auto& a : attractors)
        out.push_back(law_of(density_on([&](double r) { return d.a(r, eta); }, [&](double r) { return d.v(r, eta); },
                                        eta, a.basin_from, a.basin_to, cells),
                             kLevels, tail_level));
    return out;
}

// The bootstrap's spread of (9.5): per attractor its mean, sd, tail and quantiles (in that
// order); and the old keys, |rho|'s mean and sd at the attractor nearest +1.
struct BootstrapSpread {
    std::vector<std::vector<RunningStats>> stats;
    RunningStats top_means, top_sds;
};

// (9.5) on tables perturbed within their errors (the table's error), params.bootstrap times.
BootstrapSpread bootstrap_laws(const DriftField& field, const StepMomentTable& table, const StationaryParams& params,
                               const std::vector<AttractorLaw>& attractors, double tail_level) {
    const std::size_t A = attractors.size(), Q = kLevels.size();
    BootstrapSpread b{std::vector<std::vector<RunningStats>>(A, std::vector<RunningStats>(3 + Q)), {}, {}};
    RandomStream rng({params.moments.seed, StreamPurpose::bootstrap, 0});
    for (int r = 0; r < params.bootstrap; ++r) {
        const std::vector<DiffusionLaw> lb = diffusion_laws(EffectiveDrift(field, {perturbed_within_errors(table, rng)}),
                                                            attractors, table.eta, params.cells, tail_level);
        for (std::size_t k = 0; k < A; ++k) {
            b.stats[k][0].add(lb[k].moments.mean_rho);
            b.stats[k][1].add(lb[k].sd_rho);
            b.stats[k][2].add(lb[k].tail);
            for (std::size_t q = 0; q < Q; ++q) b.stats[k][3 + q].add(lb[k].quantiles[q]);
        }
        b.top_means.add(lb.back().moments.mean);
        b.top_sds.add(lb.back().moments.sd);
    }
    return b;
}

double spread(const RunningStats& s) { return std::sqrt(s.variance()); }

// One attractor's (9.5) law from the fine and coarse quadratures and its bootstrap spread.
void take_diffusion(AttractorLaw& a, const DiffusionLaw& f, const DiffusionLaw& c, const std::vector<RunningStats>& boot) {
    a.diffusion_mean = f.moments.mean_rho;
    a.diffusion_mean_err = std::hypot(spread(boot[0]), f.moments.mean_rho - c.moments.mean_rho);
    a.diffusion_sd = f.sd_rho;
    a.diffusion_sd_err = std::hypot(spread(boot[1]), f.sd_rho - c.sd_rho);
    a.diffusion_tail = f.tail;
    a.diffusion_tail_err = std::hypot(spread(boot[2]), f.tail - c.tail);
    a.diffusion_quantiles = f.quantiles;
    for (std::size_t q = 0; q < kLevels.size(); ++q)
        a.diffusion_quantile_errs.push_back(std::hypot(spread(boot[3 + q]), f.quantiles[q] - c.quantiles[q]));
}

// The old keys: (9.5) for |rho| at the attractor nearest +1 (the last).
void take_top(StationaryLaw& law, const DiffusionMoments& m, const DiffusionMoments& mc, const BootstrapSpread& b) {
    const AttractorLaw& top = law.attractors.back();
    law.attractor = top.attractor;
    law.attractor_err = top.attractor_err;
    law.basin_from = top.basin_from;
    law.mean = m.mean;
    law.sd = m.sd;
    law.quadrature_err = std::max(std::abs(m.mean - mc.mean), std::abs(m.sd - mc.sd));
    law.mean_err = std::hypot(spread(b.top_means), law.quadrature_err);
    law.sd_err = std::hypot(spread(b.top_sds), law.quadrature_err);
}

// The resampled chain on bootstrap replicas of the bank (none when it is off or has no bank).
std::vector<ResampledChain> resampled_chains(const DriftField& field, const StepMomentTable& table,
                                             const StationaryParams& params, const GradientBank* bank) {
    const StationaryChainParams& cp = params.chain;
    std::vector<ResampledChain> chains;
    if (cp.enabled && bank)
        for (int r = 0; r < cp.replicas; ++r) {
            RandomStream brng({params.moments.seed, StreamPurpose::bootstrap, 2, static_cast<std::uint64_t>(r)});
            chains.emplace_back(bootstrap_bank(*bank, brng), field, table.rule);
        }
    return chains;
}

// Attractor k's chain statistics, or a note saying why the chain did not run.
void run_attractor_chain(AttractorLaw& a, std::size_t k, const std::vector<ResampledChain>& chains, double eta,
                         const StationaryParams& params) {
    const StationaryChainParams& cp = params.chain;
    if (!chains.empty()) {
        // at least 10 relaxation times 1/(eta |a'|) of burn-in, capped at 1e7 steps
        const double relax = 10.0 / (eta * std::max(std::abs(a.slope), 1e-12));
        const auto burn = std::max<std::int64_t>(cp.burn_in, static_cast<std::int64_t>(std::min(relax, 1e7)));
        chain_statistics(run_chain(chains, eta, a.attractor, burn, params, k), eta, params, a);
    } else {
        a.note = cp.enabled ? "no bank of draws was given: the diffusion approximation (9.5) only"
                            : "the chain was not run (chain.enabled = false): the diffusion approximation (9.5) only";
    }
}

// How well the table's nodes (ascending) resolve the attractor's law, with the notes on escapes
// and coarse nodes.
void resolution_of(AttractorLaw& a, const std::vector<double>& nodes) {
    const double lo = a.chain_ran ? a.quantiles.front().value : a.diffusion_quantiles.front();
    const double hi = a.chain_ran ? a.quantiles.back().value : a.diffusion_quantiles.back();
    a.nodes_in_range = static_cast<int>(std::count_if(nodes.begin(), nodes.end(),
                                                      [&](double x) { return x >= lo && x <= hi; }));
    const auto up = std::upper_bound(nodes.begin() + 1, nodes.end() - 1, a.attractor);
    a.node_spacing = *up - *(up - 1);
    const double sd = a.chain_ran ? a.sd.value : a.diffusion_sd;
    auto add_note = [&](const std::string& n) { a.note += (a.note.empty() ? "" : "; ") + n; };
    if (a.chain_ran && a.escaped_paths > 0)
        add_note(fmt::format("{} of {} paths left the basin ({:.2g}% of the kept states, not in the statistics)",
                             a.escaped_paths, a.paths, 100 * a.escaped_time));
    if (a.node_spacing > sd)
        add_note(fmt::format("the table's nodes are coarse here (spacing {:.2g} at rho*, sd {:.2g}, {} nodes in "
                             "the 0.1-99.9% range): the law is interpolated between nodes; more nodes resolve it",
                             a.node_spacing, sd, a.nodes_in_range));
}

// The mean-field ODE's attractors that no effective attractor continues at this step (each
// matched to the nearest effective attractor and back), noted in law.note.
void note_lost_attractors(StationaryLaw& law, const PhasePortrait& portrait, double eta) {
    for (const auto& o : portrait.equilibria) {
        if (!o.stable) continue;
        const auto near = std::min_element(law.attractors.begin(), law.attractors.end(), [&](const auto& x, const auto& y) {
            return std::abs(x.attractor - o.rho) < std::abs(y.attractor - o.rho);
        });
        if (near->plain_ode != o.rho)
            law.note += fmt::format("{}the mean-field ODE's attractor at {} has no effective attractor at eta = {} "
                                    "(the finite step removes it: its basin joins that of {:.6g})",
                                    law.note.empty() ? "" : "; ", format_number(o.rho), format_number(eta),
                                    near->attractor);
    }
}

// The law's method in a sentence.
std::string method_of(const StationaryLaw& law, bool chains_ran, const StepMomentTable& table,
                      const StationaryParams& params) {
    const StationaryChainParams& cp = params.chain;
    const std::string chain_method =
        !chains_ran ? std::string("the resampled chain not run; ")
                    : fmt::format("the resampled chain (9.4') on {} bootstrap replicas of the table's own draws, {} "
                                  "paths each, {} steps kept after a burn-in (errors: batch means and the "
                                  "replicas' spread); beside it ",
                                  cp.replicas, cp.paths, cp.steps);
    return fmt::format(
        "per effective attractor: {}the stationary density exp(int 2a/(eta v))/v of the diffusion with the chain's "
        "one-step moments (Monte Carlo, {} nodes x {} samples, control variate s g_v), on each basin (the top-level "
        "mean and sd: |rho| on ({:.6g}, 1]; errors: parametric bootstrap ({} replicas) and quadrature)",
        chain_method, table.nodes.size(), params.moments.samples, law.basin_from, params.bootstrap);
}

}  // namespace

StationaryLaw stationary_law(const DriftField& field, const StepMomentTable& table, const StationaryParams& params,
                             const GradientBank* bank) {
    params.validate();
    if (field.flat())
        throw NumericalError("stationary law: the field is flat (no signal), so there is no attractor near +1");
    StationaryLaw law;
    law.eta = table.eta;
    law.rule = table.rule;
    law.table = table;
    const double eta = table.eta;
    const EffectiveDrift drift(field, {table});
    law.equilibria = effective_equilibria(drift, eta);
    const std::vector<std::size_t> atts = attractor_indices(law.equilibria, eta);  // ascending
    const PhasePortrait portrait = phase_portrait(field);
    const double tail_level = 1 - params.chain.hit_eps;
    for (const std::size_t i : atts) law.attractors.push_back(attractor_law(law.equilibria, i, portrait, tail_level));
    // (9.5) on every basin, for the table and for its bootstrap replicas (the table's error).
    const std::vector<DiffusionLaw> fine = diffusion_laws(drift, law.attractors, eta, params.cells, tail_level),
                                    coarse = diffusion_laws(drift, law.attractors, eta, params.cells / 2, tail_level);
    const BootstrapSpread boot = bootstrap_laws(field, table, params, law.attractors, tail_level);
    for (std::size_t k = 0; k < law.attractors.size(); ++k)
        take_diffusion(law.attractors[k], fine[k], coarse[k], boot.stats[k]);
    take_top(law, fine.back().moments, coarse.back().moments, boot);
    law.plain_ode = ode_attractor_nearest_one(portrait);
    // The resampled chain on bootstrap replicas of the bank, at every attractor.
    const std::vector<ResampledChain> chains = resampled_chains(field, table, params, bank);
    std::vector<double> nodes;
    for (const auto& n : table.nodes) nodes.push_back(n.rho);
    std::sort(nodes.begin(), nodes.end());
    for (std::size_t k = 0; k < law.attractors.size(); ++k) {
        run_attractor_chain(law.attractors[k], k, chains, eta, params);
        resolution_of(law.attractors[k], nodes);
    }
    note_lost_attractors(law, portrait, eta);
    law.method = method_of(law, !chains.empty(), table, params);
    return law;
}

StationaryLaw stationary_law(const ModelParams& model, double eta, UpdateRule rule, const StationaryParams& params) {
    model.validate();
    require_signal_for_stationary_law(model);
    params.validate();
    const DriftField field = DriftField::make(model, params.field, params.table);
    if (!params.chain.enabled) return stationary_law(field, measure_step_moments(model, field, eta, rule, params.moments), params);
    // The bank: the table's own draws (at most 1e6 per node are kept; beyond, the first 1e6 of the
    // same streams).
    const std::size_t n = static_cast<std::size_t>(params.moments.nodes) + 1;
    std::vector<std::vector<BankDraw>> draws;
    const bool keep = params.moments.samples <= 1000000;
    const StepMomentTable table =
        measure_step_moment_nodes(model, field, {eta}, rule, params.moments, 0, 0, n, keep ? &draws : nullptr).front();
    GradientBank bank;
    if (keep) {
        std::vector<double> rho;
        for (const auto& node : table.nodes) rho.push_back(node.rho);
        bank = bank_from_draws(rho, std::move(draws));
    } else {
        bank = sample_gradient_bank(model, {params.moments.nodes, 1000000, params.moments.seed, 0, params.moments.threads});
    }
    return stationary_law(field, table, params, &bank);
}

RHOFLOW_JSON_HOOKS(DiffusionMoments, mean, sd, mean_rho, quadrature_err)
RHOFLOW_JSON_HOOKS(StationaryChainParams, enabled, replicas, paths, burn_in, steps, batches, hit_eps)
RHOFLOW_JSON_HOOKS(ChainEstimate, value, chain_err, bank_err, err)
RHOFLOW_JSON_HOOKS(AttractorLaw, attractor, attractor_err, slope, basin_from, basin_to, plain_ode, levels, tail_level,
                   chain_ran, mean, sd, mean_abs, quantiles, tail, paths, burn_in, steps, escaped_paths, escaped_time,
                   tau, diffusion_mean, diffusion_mean_err, diffusion_sd, diffusion_sd_err, diffusion_quantiles,
                   diffusion_quantile_errs, diffusion_tail, diffusion_tail_err, nodes_in_range, node_spacing, note)
namespace {
RHOFLOW_JSON_HOOKS_NAMED(params_to_json, params_from_json, StationaryParams, moments, field, table, cells, bootstrap,
                         chain)
RHOFLOW_JSON_HOOKS_NAMED(law_to_json, law_from_json, StationaryLaw, eta, rule, mean, mean_err, sd, sd_err, basin_from,
                         attractor, attractor_err, equilibria, plain_ode, method, quadrature_err, table, attractors,
                         note)
}  // namespace
void to_json(nlohmann::json& j, const StationaryParams& v) { params_to_json(j, v); }
void from_json(const nlohmann::json& j, StationaryParams& v) {
    nlohmann::json with = j;  // written before the chain: its defaults
    if (!with.contains("chain")) with["chain"] = StationaryChainParams{};
    params_from_json(with, v);
}
void to_json(nlohmann::json& j, const StationaryLaw& v) { law_to_json(j, v); }
void from_json(const nlohmann::json& j, StationaryLaw& v) {
    nlohmann::json with = j;  // written before the per-attractor laws: none
    if (!with.contains("attractors")) with["attractors"] = nlohmann::json::array();
    if (!with.contains("note")) with["note"] = "";
    law_from_json(with, v);
}

}  // namespace rhoflow
