// rhoflow compare: the main job, ODE against the SGA ensemble (see lib/rhoflow/compare.hpp).
#include <fmt/format.h>

#include <cmath>
#include <iostream>

#include "common.hpp"
#include "progress.hpp"
#include "rhoflow/compare/compare.hpp"
#include "rhoflow/io/compare_output.hpp"
#include "rhoflow/core/errors.hpp"

namespace rhoflow::cli {

namespace {
struct CompareOptions {
    ModelFlags model;
    CompareParams params = default_compare_params();
    double steps = static_cast<double>(params.sga.steps), trials = static_cast<double>(params.sga.trials);
    double seed = static_cast<double>(params.sga.seed), study_trials = static_cast<double>(params.study_trials);
    std::string sampler = std::string(to_string(params.sga.sampler)), update = std::string(to_string(params.sga.update));
    std::string field = std::string(to_string(params.field));
    std::string rho0 = params.sga.rho0 ? format_number(*params.sga.rho0) : "uniform";
    std::string out = "rhoflow-compare";
    bool no_figures = false, quiet = false;
};

std::function<void()> prepare(const CompareOptions& o) {
    CompareParams p = o.params;
    p.model = o.model.model();
    p.sga.steps = require_integer("steps", o.steps, 1, 1e12);
    p.sga.trials = require_integer("trials", o.trials, 2, 1e7);
    p.sga.seed = static_cast<std::uint64_t>(require_integer("seed", o.seed, 0, 9007199254740992.0));
    p.study_trials = require_integer("study-trials", o.study_trials, 2, 1e6);
    p.sga.sampler = parse_sampler(o.sampler);
    p.sga.update = parse_update_rule(o.update);
    p.field = parse_drift_method(o.field, "field");
    if (o.rho0 == "uniform") {
        p.sga.rho0.reset();
    } else {
        double r = 0;
        std::size_t used = 0;
        try {
            r = std::stod(o.rho0, &used);
        } catch (...) {
            used = 0;
        }
        if (used != o.rho0.size()) throw InvalidArgument("rho0", "rho0 = '" + o.rho0 + "' is not a number in [-1, 1] or 'uniform'");
        validate_rho(r, "rho0");
        p.sga.rho0 = r;
    }
    p.validate();
    return [o, p] {
    ProgressCounter progress;
    CompareResult r;
    {
        Progress bar(progress, "compare");
        r = run_compare(p, &progress);
    }
    const auto lines = write_compare(r, o.out, !o.no_figures);
    std::cout << compare_markdown(r);
    if (!o.quiet) {
        std::cerr << "rhoflow compare: wrote into " << o.out << "/:\n";
        for (const auto& l : lines) std::cerr << "  " << l << "\n";
    }
    };
}
}  // namespace

Command add_compare_command(CLI::App& app) {
    auto o = std::make_shared<CompareOptions>();
    auto* sub = app.add_subcommand(
        "compare",
        "The main job: runs the SGA ensemble and the mean-field ODE and compares them: the ODE-vs-SGA "
        "table (rho_ODE, SGA mean with 95% CI and quantiles, the asymptotic-pseudotrajectory gap D_T, "
        "attention mass on nuisance tokens), hitting times, D_T(t) across the run with its decay "
        "against eta(t), and a step-size study of the tracking error against eta0. Writes JSON, CSV, "
        "Markdown and LaTeX tables, figure data, gnuplot scripts and PNG/SVG figures into --out, and "
        "prints the Markdown table. With no flags it runs the embedded default experiment (about 20 s "
        "on 2 cores).");
    o->model.add(*sub);
    auto* g = "Ensemble";
    sub->add_option("--steps", o->steps, "SGA steps per trial")->type_name("INT")->capture_default_str()->group(g);
    sub->add_option("--trials", o->trials, "independent trials")->type_name("INT")->capture_default_str()->group(g);
    sub->add_option("--seed", o->seed, "master seed (trial k uses stream (seed, k))")
        ->type_name("INT")
        ->capture_default_str()
        ->group(g);
    sub->add_option("--sampler", o->sampler, "reduced | full")->capture_default_str()->group(g);
    sub->add_option("--eta0", o->params.sga.schedule.eta0, "initial step size")->capture_default_str()->group(g);
    sub->add_option("--k0", o->params.sga.schedule.k0, "decay onset in steps")->capture_default_str()->group(g);
    sub->add_option("--gamma", o->params.sga.schedule.gamma, "decay exponent in [0, 1] (Robbins-Monro: 1/2 < gamma <= 1)")
        ->capture_default_str()
        ->group(g);
    sub->add_option("--update", o->update, "normalized | tangent")->capture_default_str()->group(g);
    sub->add_option("--rho0", o->rho0, "initial alignment in [-1, 1], or 'uniform' (query uniform on the sphere)")
        ->capture_default_str()
        ->group(g);
    sub->add_option("--hit", o->params.sga.hit_eps, "hitting level EPS: |rho| >= 1 - EPS")->capture_default_str()->group(g);
    sub->add_option("--threads", o->params.sga.threads, "worker threads (0 = all cores)")->capture_default_str()->group(g);
    auto* c = "Comparison";
    sub->add_option("--field", o->field, "ODE field: exact | meanfield")->capture_default_str()->group(c);
    sub->add_option("--horizon", o->params.horizon, "T of the gap D_T, in ODE time")->capture_default_str()->group(c);
    sub->add_option("--anchors", o->params.anchors, "anchors of D_T, geometric in t")->capture_default_str()->group(c);
    sub->add_option("--rows", o->params.rows, "rows of the ODE-vs-SGA table")->capture_default_str()->group(c);
    sub->add_option("--study-eta0", o->params.study_eta0, "eta0 values of the step-size study (comma-separated)")
        ->delimiter(',')
        ->capture_default_str()
        ->group(c);
    sub->add_flag("--no-study", [o](std::int64_t) { o->params.study_eta0.clear(); }, "skip the step-size study")->group(c);
    sub->add_option("--study-trials", o->study_trials, "trials per eta0 in the study")
        ->type_name("INT")
        ->capture_default_str()
        ->group(c);
    sub->add_option("--study-horizon", o->params.study_horizon, "ODE time of the study runs (0 = 3 x the ODE hitting time, >= 5)")
        ->capture_default_str()
        ->group(c);
    auto* out = "Output";
    sub->add_option("--out", o->out, "directory for every output file")->capture_default_str()->group(out);
    sub->add_flag("--no-figures", o->no_figures, "write figure data and gnuplot scripts but do not run gnuplot")->group(out);
    sub->add_flag("--quiet", o->quiet, "do not list the files written on stderr")->group(out);
    return {sub, [o] { return prepare(*o); }};
}

}  // namespace rhoflow::cli
