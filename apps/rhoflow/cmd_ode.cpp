// rhoflow ode: the mean-field ODE d rho/dt = (1 - rho^2) j'(rho) from rho0, with hitting time.
#include <fmt/format.h>

#include "common.hpp"
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/ode/ode.hpp"
#include "rhoflow/io/json.hpp"

namespace rhoflow::cli {

namespace {
struct OdeOptions {
    ModelFlags model;
    OutputFlags out;
    double rho0 = 0.05;
    double t_end = 50;
    double points = 101;
    std::string field = "exact";
    OdeParams ode;
    FieldTableParams table;
};

std::function<void()> prepare(const OdeOptions& o) {
    const ModelParams m = o.model.model();
    validate_rho(o.rho0, "rho0");
    const auto times = linear_grid(o.t_end, static_cast<int>(require_integer("points", o.points, 2, 1e7)));
    o.ode.validate();
    const DriftMethod method = ode_field_method(o.field, m, o.table);
    return [o, m, times, method] {
    const DriftField f = DriftField::make(m, method, o.table);
    const OdeSolution s = solve_ode(f, o.rho0, times, o.ode);
    nlohmann::json doc = provenance("");
    doc["command"] = "ode";
    doc["model"] = m;
    doc["field"] = f.info();
    doc["params"] = {{"rho0", o.rho0}, {"t_end", o.t_end}, {"rtol", o.ode.rtol}, {"atol", o.ode.atol},
                     {"hit", o.ode.hit_eps}};
    doc.update(nlohmann::json(s));
    emit(o.out, doc, [&] {
        std::string r = fmt::format("# rhoflow ode, field {}, {}, rho0 = {}\n", f.name(), describe(m), o.rho0);
        r += fmt::format("# dopri5 rtol {} atol {}: {} steps, {} evaluations; field error bound on j' {:.1e}\n",
                         o.ode.rtol, o.ode.atol, s.steps, s.rhs_evals, f.dj_error());
        if (s.hit_time)
            r += fmt::format("# hit |rho| >= {} at t = {:.12g} +- {:.1e}\n", 1 - o.ode.hit_eps, *s.hit_time, s.hit_time_err);
        else
            r += fmt::format("# |rho| >= {} not reached by t = {}\n", 1 - o.ode.hit_eps, o.t_end);
        r += fmt::format("{:>14} {:>20} {:>9}\n", "t", "rho", "+-");
        for (std::size_t i = 0; i < s.t.size(); ++i)
            r += fmt::format("{:>14.8g} {:>20.15f} {:>9.1e}\n", s.t[i], s.rho[i], s.rho_err[i]);
        return r;
    });
    };
}
}  // namespace

Command add_ode_command(CLI::App& app) {
    auto o = std::make_shared<OdeOptions>();
    auto* sub = app.add_subcommand(
        "ode",
        "Integrates the mean-field ODE d rho/dt = (1 - rho^2) j'(rho) with Dormand-Prince 5(4) and "
        "dense output (Boost.Odeint), reporting rho on an even time grid with error estimates and "
        "the first time |rho| >= 1 - EPS (root of the dense output). The exact field is tabulated "
        "once as a Chebyshev interpolant whose error bound is reported and propagated.");
    o->model.add(*sub);
    o->out.add(*sub);
    sub->add_option("--rho0", o->rho0, "initial alignment in [-1, 1]")->capture_default_str();
    sub->add_option("--t-end", o->t_end, "final time (ODE time t = sum of step sizes)")->capture_default_str();
    sub->add_option("--points", o->points, "output times, evenly spaced on [0, t-end]")->type_name("INT")->capture_default_str();
    sub->add_option("--rtol", o->ode.rtol, "relative tolerance per step")->capture_default_str();
    sub->add_option("--atol", o->ode.atol, "absolute tolerance per step")->capture_default_str();
    sub->add_option("--hit", o->ode.hit_eps, "hitting level EPS: first t with |rho| >= 1 - EPS")->capture_default_str();
    sub->add_flag("!--no-error-estimate", o->ode.error_estimate,
                  "skip the tol/100 and perturbed-field solves that give rho_err");
    add_ode_field_flags(*sub, o->field, o->table);
    return {sub, [o] { return prepare(*o); }};
}

}  // namespace rhoflow::cli
