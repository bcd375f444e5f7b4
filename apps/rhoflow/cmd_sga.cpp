// rhoflow sga: an ensemble of projected SGA runs with the reduced or the full simulator.
#include <fmt/format.h>

#include <cmath>

#include "common.hpp"
#include "progress.hpp"
#include "rhoflow/stochastic/ensemble.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/io/json.hpp"

namespace rhoflow::cli {

namespace {
struct SgaOptions {
    ModelFlags model;
    OutputFlags out;
    SgaParams sga;
    double steps = 10000, trials = 30, seed = 1, first_trial = 0;
    std::string sampler = "reduced", update = "normalized";
    double rho0 = std::nan("");
    std::vector<double> record;
};

std::function<void()> prepare(const SgaOptions& o) {
    const ModelParams m = o.model.model();
    SgaParams p = o.sga;
    p.steps = require_integer("steps", o.steps, 1, 1e12);
    p.trials = require_integer("trials", o.trials, 1, 1e7);
    p.seed = static_cast<std::uint64_t>(require_integer("seed", o.seed, 0, 9007199254740992.0));
    p.first_trial = require_integer("first-trial", o.first_trial, 0, 1e15);
    p.sampler = parse_sampler(o.sampler);
    p.update = parse_update_rule(o.update);
    if (!std::isnan(o.rho0)) p.rho0 = o.rho0;
    for (double r : o.record) p.record_steps.push_back(require_integer("record", r, 0, static_cast<double>(p.steps)));
    p.validate();
    return [o, m, p] {
    ProgressCounter progress;
    progress.total = p.steps * p.trials;
    EnsembleResult res;
    {
        Progress bar(progress, fmt::format("sga {} x {} steps", p.trials, p.steps));
        res = run_ensemble(m, p, &progress);
    }
    const auto& s = res.summary;
    nlohmann::json doc = provenance("");
    doc["command"] = "sga";
    doc["model"] = m;
    doc["params"] = {{"steps", p.steps},         {"trials", p.trials},   {"first_trial", p.first_trial},
                     {"seed", p.seed},           {"sampler", to_string(p.sampler)},
                     {"update", to_string(p.update)}, {"eta0", p.schedule.eta0}, {"k0", p.schedule.k0},
                     {"gamma", p.schedule.gamma}, {"rho0", p.rho0 ? nlohmann::json(*p.rho0) : nlohmann::json("uniform")},
                     {"hit", p.hit_eps}};
    if (!res.warning.empty()) doc["warning"] = res.warning;
    doc["trials"] = nlohmann::json::array();
    for (const auto& t : res.trials)
        doc["trials"].push_back({{"seed", p.seed},
                                 {"trial", t.trial},
                                 {"rho0", t.rho0},
                                 {"rho_final", t.rho_final},
                                 {"t_final", t.t_final},
                                 {"hit_step", t.hit_step ? nlohmann::json(*t.hit_step) : nlohmann::json(nullptr)},
                                 {"nuisance_mass", t.mean_nuisance_mass_last_decile}});
    nlohmann::json q = nlohmann::json::object();
    for (std::size_t i = 0; i < s.quantile_levels.size(); ++i)
        q[fmt::format("{:g}", s.quantile_levels[i])] = s.rho_final_quantiles[i];
    doc["summary"] = {{"mean_abs_rho_final", s.abs_rho_final.mean},
                      {"se", s.abs_rho_final.se},
                      {"ci95", {s.abs_rho_final.lo, s.abs_rho_final.hi}},
                      {"mean_rho_final", s.rho_final.mean},
                      {"mean_rho_final_ci95", {s.rho_final.lo, s.rho_final.hi}},
                      {"rho_final_quantiles", q},
                      {"hits", s.hits},
                      {"hit_step_mean", s.hits ? nlohmann::json(s.hit_step.mean) : nlohmann::json(nullptr)},
                      {"hit_step_ci95", s.hits > 1 ? nlohmann::json({s.hit_step.lo, s.hit_step.hi}) : nlohmann::json(nullptr)},
                      {"hit_step_median", s.hits ? nlohmann::json(s.hit_step_median) : nlohmann::json(nullptr)},
                      {"nuisance_mass_mean", s.nuisance_mass.mean},
                      {"nuisance_mass_ci95", {s.nuisance_mass.lo, s.nuisance_mass.hi}}};
    nlohmann::json rec = {{"steps", res.record_steps}, {"t", res.record_times}, {"rho", nlohmann::json::array()}};
    for (const auto& t : res.trials) rec["rho"].push_back(t.rho);
    doc["records"] = rec;
    emit(o.out, doc, [&] {
        std::string r = fmt::format("# rhoflow sga, {} sampler, {}\n", to_string(p.sampler), describe(m));
        r += fmt::format("# {} trials x {} steps, seed {}, eta_k = {}/(1 + k/{})^{}, {} update, rho0 {}\n", p.trials,
                         p.steps, p.seed, p.schedule.eta0, p.schedule.k0, p.schedule.gamma, to_string(p.update),
                         p.rho0 ? fmt::format("{}", *p.rho0) : "uniform on the sphere");
        if (!res.warning.empty()) r += "# warning: " + res.warning + "\n";
        r += fmt::format("mean |rho_final| = {:.6f} +- {:.6f} (95% CI [{:.6f}, {:.6f}])\n", s.abs_rho_final.mean,
                         s.abs_rho_final.se, s.abs_rho_final.lo, s.abs_rho_final.hi);
        r += fmt::format("rho_final quantiles 5/25/50/75/95%: {:.5f} {:.5f} {:.5f} {:.5f} {:.5f}\n",
                         s.rho_final_quantiles[0], s.rho_final_quantiles[1], s.rho_final_quantiles[2],
                         s.rho_final_quantiles[3], s.rho_final_quantiles[4]);
        if (s.hits)
            r += fmt::format("{} of {} trials reached |rho| >= {}: hit step mean {:.1f} (95% CI [{:.1f}, {:.1f}]), median {:.0f}\n",
                             s.hits, p.trials, 1 - p.hit_eps, s.hit_step.mean, s.hit_step.lo, s.hit_step.hi,
                             s.hit_step_median);
        else
            r += fmt::format("no trial reached |rho| >= {}\n", 1 - p.hit_eps);
        r += fmt::format("attention mass on nuisance tokens (last 10% of steps): {:.5f} (95% CI [{:.5f}, {:.5f}])\n",
                         s.nuisance_mass.mean, s.nuisance_mass.lo, s.nuisance_mass.hi);
        if (p.trials <= 50) {
            r += fmt::format("{:>6} {:>12} {:>12} {:>10} {:>10}\n", "trial", "rho0", "rho_final", "hit_step", "nuisance");
            for (const auto& t : res.trials)
                r += fmt::format("{:>6} {:>12.6f} {:>12.6f} {:>10} {:>10.5f}\n", t.trial, t.rho0, t.rho_final,
                                 t.hit_step ? fmt::format("{}", *t.hit_step) : "-", t.mean_nuisance_mass_last_decile);
        }
        return r;
    });
    };
}
}  // namespace

Command add_sga_command(CLI::App& app) {
    auto o = std::make_shared<SgaOptions>();
    auto* sub = app.add_subcommand(
        "sga",
        "Runs an ensemble of projected stochastic gradient ascent trials, one fresh sample X per step, "
        "with step sizes eta_k = eta0 / (1 + k/k0)^gamma. --sampler reduced simulates the exact law of "
        "rho_k in O(L) per step whatever d is; --sampler full simulates the d-dimensional recursion. "
        "Trial k uses the counter-based stream (seed, k): results do not depend on --threads.");
    o->model.add(*sub);
    o->out.add(*sub);
    sub->add_option("--steps", o->steps, "SGA steps per trial")->type_name("INT")->capture_default_str();
    sub->add_option("--trials", o->trials, "independent trials")->type_name("INT")->capture_default_str();
    sub->add_option("--seed", o->seed, "master seed")->type_name("INT")->capture_default_str();
    sub->add_option("--first-trial", o->first_trial, "stream index of the first trial (rerun trial k alone)")
        ->type_name("INT")
        ->capture_default_str();
    sub->add_option("--sampler", o->sampler, "reduced | full")->capture_default_str();
    sub->add_option("--eta0", o->sga.schedule.eta0, "initial step size, > 0")->capture_default_str();
    sub->add_option("--k0", o->sga.schedule.k0, "decay onset in steps, > 0")->capture_default_str();
    sub->add_option("--gamma", o->sga.schedule.gamma,
                    "decay exponent in [0, 1]; Robbins-Monro needs 1/2 < gamma <= 1 (0 = constant step)")
        ->capture_default_str();
    sub->add_option("--update", o->update, "normalized: q <- (q + eta g)/|.|; tangent: q <- normalise(q + eta (I - qq^T) g)")
        ->capture_default_str();
    sub->add_option("--rho0", o->rho0, "initial alignment in [-1, 1] (default: query uniform on the sphere)");
    sub->add_option("--hit", o->sga.hit_eps, "hit step: first k with |rho_k| >= 1 - EPS")->capture_default_str();
    sub->add_option("--record", o->record, "extra steps at which to record rho (comma-separated)")
        ->type_name("INT")->delimiter(',');
    sub->add_option("--records-per-decade", o->sga.records_per_decade, "log-spaced record steps per decade")
        ->capture_default_str();
    sub->add_option("--threads", o->sga.threads, "worker threads (0 = all cores)")->capture_default_str();
    return {sub, [o] { return prepare(*o); }};
}

}  // namespace rhoflow::cli
