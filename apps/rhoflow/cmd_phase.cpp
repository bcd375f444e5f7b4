// rhoflow phase: equilibria, stability, basins and monotonicity of the reduced ODE.
#include <fmt/format.h>

#include "common.hpp"
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/ode/phase.hpp"
#include "rhoflow/io/json.hpp"

namespace rhoflow::cli {

namespace {
struct PhaseOptions {
    ModelFlags model;
    OutputFlags out;
    std::string field = "exact";
    PhaseParams phase;
    FieldTableParams table;
};

std::string interval(const Basin& b) {
    return fmt::format("{}{:.10g}, {:.10g}{}", b.from_closed ? "[" : "(", b.from, b.to, b.to_closed ? "]" : ")");
}

std::function<void()> prepare(const PhaseOptions& o) {
    const ModelParams m = o.model.model();
    o.phase.validate();
    const DriftMethod method = ode_field_method(o.field, m, o.table);
    return [o, m, method] {
    const DriftField f = DriftField::make(m, method, o.table);
    const PhasePortrait p = phase_portrait(f, o.phase);
    nlohmann::json doc = provenance("");
    doc["command"] = "phase";
    doc["model"] = m;
    doc["field"] = f.info();
    doc.update(nlohmann::json(p));
    emit(o.out, doc, [&] {
        std::string r = fmt::format("# rhoflow phase, field {}, {}\n", f.name(), describe(m));
        if (p.flat) return r + "j' is identically 0 (no signal: R = 0 or theta = 0): every rho is an equilibrium.\n";
        r += p.monotone ? "F = (1 - rho^2) j' has one sign on (-1, 1): monotone.\n"
                        : "F = (1 - rho^2) j' is NOT monotone: it changes sign inside (-1, 1).\n";
        r += fmt::format("{:>20} {:>9} {:>11} {:>16} {:>9}\n", "rho", "+-", "kind", "F'(rho)", "+-");
        for (const auto& e : p.equilibria)
            r += fmt::format("{:>20.15f} {:>9.1e} {:>11} {:>16.10g} {:>9.1e}\n", e.rho, e.rho_err, e.kind, e.dfdrho,
                             e.dfdrho_err);
        for (const auto& b : p.basins) r += fmt::format("basin of {:g}: {}\n", b.attractor, interval(b));
        for (double t : p.near_tangencies)
            r += fmt::format("warning: |j'| dips within its error bound near rho = {:.6g} without a sign change\n", t);
        r += fmt::format("(scan spacing {:.2e}; field error bound on j' {:.1e})\n", p.scan_spacing, f.dj_error());
        return r;
    });
    };
}
}  // namespace

Command add_phase_command(CLI::App& app) {
    auto o = std::make_shared<PhaseOptions>();
    auto* sub = app.add_subcommand(
        "phase",
        "Phase portrait of d rho/dt = (1 - rho^2) j'(rho) on [-1, 1]: every equilibrium (rho = +-1 and "
        "each zero of j', found by TOMS 748 after a scan of --scan cells and a Brent search at local "
        "minima of |j'|), its stability from F'(rho) with error bound, the basin of each attractor, "
        "and whether F has one sign on (-1, 1). Nothing assumes monotonicity.");
    o->model.add(*sub);
    o->out.add(*sub);
    sub->add_option("--scan", o->phase.scan_cells, "cells of the uniform scan of [-1, 1]")->capture_default_str();
    add_ode_field_flags(*sub, o->field, o->table);
    return {sub, [o] { return prepare(*o); }};
}

}  // namespace rhoflow::cli
