// Uses the installed library through its umbrella headers (the numerics, then the output code for
// compare_document): the exact and mean-field field at a reference point, an ODE solve, a small
// SGA ensemble, a small comparison and one composed from that ensemble. Exits 0 if every number is what it must be.
#include <rhoflow/rhoflow.hpp>
#include <rhoflow/rhoflow_all.hpp>

#include <cmath>
#include <cstdio>

int main() {
    using namespace rhoflow;
    const ModelParams m{20, 50, 10, 2.0, 1.0, 1.0};
    const FieldPoint p = exact_field(m, 0.7);
    const FieldPoint q = meanfield_field(m, 0.7);
    std::printf("rhoflow %s: j = %.15g (reference 4.59605431196181), j_inf = %.15g\n", version, p.j, q.j);
    bool ok = std::abs(p.j - 4.59605431196181) < 1e-10 && q.j > 0;

    const DriftField f = DriftField::exact(m);
    const OdeSolution s = solve_ode(f, 0.1, {0.0, 50.0});
    std::printf("ODE from 0.1: rho(50) = %.12f, hit time %.6g\n", s.rho.back(), s.hit_time.value_or(-1));
    ok = ok && s.hit_time && s.rho.back() > 0.99;

    const ModelParams small{10, 400, 60, 1.5, 1.0, 1.0};
    SgaParams sp;
    sp.steps = 3000;
    sp.trials = 4;
    sp.rho0 = 0.2;
    sp.schedule = {0.02, 500, 1.0};
    const EnsembleResult e = run_ensemble(small, sp);
    std::printf("SGA: mean |rho_final| = %.4f\n", e.summary.abs_rho_final.mean);
    ok = ok && e.trials.size() == 4 && e.summary.abs_rho_final.mean > 0.9;

    CompareParams cp = default_compare_params();
    cp.model = small;
    cp.sga.steps = 3000;
    cp.sga.trials = 4;
    cp.sga.schedule = {0.02, 500, 1.0};
    cp.horizon = 2;
    cp.study_eta0.clear();
    const CompareResult c = run_compare(cp);
    std::printf("compare: %zu table rows, tracking error %.3g\n", c.table.size(), c.tracking_error.mean);
    ok = ok && c.table.size() >= 3 && c.tracking_error.mean < 0.15 && compare_document(c, make_provenance("compare"))["command"] == "compare";

    // The comparison composed from an ensemble one already has: the ensemble above (which knows
    // its model and sga), with the comparison's settings, against the field of the comparison.
    CompareResult own = compare(e, DriftField::make(small, DriftMethod::exact), cp.settings());
    std::printf("compare(ensemble): %zu table rows, every step %d\n", own.table.size(), own.every_step ? 1 : 0);
    ok = ok && !own.every_step && std::abs(own.table.front().rho_sga.mean - 0.2) < 1e-15 &&
         own.summary.abs_rho_final.mean == e.summary.abs_rho_final.mean;
    return ok ? 0 : 1;
}
