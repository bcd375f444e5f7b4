// rhoflow field: j, j', drift and E[A_I] at a list of rho, by one of three methods.
#include <fmt/format.h>

#include "common.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/field/meanfield.hpp"
#include "rhoflow/field/montecarlo_field.hpp"
#include "rhoflow/io/json.hpp"

namespace rhoflow::cli {

namespace {
struct FieldOptions;
void work(const FieldOptions& o, const ModelParams& m, FieldMethod method, const MonteCarloParams& mc);

struct FieldOptions {
    ModelFlags model;
    OutputFlags out;
    std::vector<double> rho;
    std::string method = "exact";
    ExactFieldParams exact;
    MonteCarloParams mc;
    double samples = 100000;
    double seed = 1;
};

std::function<void()> prepare(const FieldOptions& o) {
    const ModelParams m = o.model.model();
    const FieldMethod method = parse_field_method(o.method);
    for (double r : o.rho) validate_rho(r);
    MonteCarloParams mc = o.mc;
    mc.samples = require_integer("samples", o.samples, 2, 1e12);
    mc.seed = static_cast<std::uint64_t>(require_integer("seed", o.seed, 0, 9007199254740992.0));
    if (method == FieldMethod::exact) validate_exact_field(m, o.exact);
    if (method == FieldMethod::montecarlo) mc.validate();
    return [o, m, method, mc] { work(o, m, method, mc); };
}

void work(const FieldOptions& o, const ModelParams& m, FieldMethod method, const MonteCarloParams& mc) {
    std::vector<FieldPoint> pts;
    std::vector<GradientMoments> moments;
    for (double r : o.rho) {
        switch (method) {
            case FieldMethod::exact: pts.push_back(exact_field(m, r, o.exact)); break;
            case FieldMethod::meanfield: pts.push_back(meanfield_field(m, r)); break;
            case FieldMethod::montecarlo:
                moments.emplace_back();
                pts.push_back(montecarlo_field(m, r, mc, &moments.back()));
                break;
        }
    }
    nlohmann::json doc = provenance("");
    doc["command"] = "field";
    doc["model"] = m;
    doc["method"] = std::string(to_string(method));
    if (method == FieldMethod::exact) doc["exact"] = {{"rel_tol", o.exact.rel_tol}, {"inner_resolution", o.exact.inner_resolution}};
    if (method == FieldMethod::montecarlo) doc["montecarlo"] = {{"samples", mc.samples}, {"seed", mc.seed}};
    doc["points"] = nlohmann::json::array();
    for (std::size_t i = 0; i < pts.size(); ++i) {
        nlohmann::json pj = pts[i];
        if (!moments.empty())
            pj["gradient"] = {{"g_u", moments[i].g_u},       {"g_u_err", moments[i].g_u_err},
                              {"g_v", moments[i].g_v},       {"g_v_err", moments[i].g_v_err},
                              {"g_w_sq", moments[i].g_w_sq}, {"g_w_sq_err", moments[i].g_w_sq_err}};
        doc["points"].push_back(pj);
    }
    emit(o.out, doc, [&] {
        std::string s = fmt::format("# rhoflow field, method {}, {}\n", to_string(method), describe(m));
        if (method == FieldMethod::montecarlo)
            s += fmt::format("# {} samples, seed {}; errors are standard errors\n", mc.samples, mc.seed);
        else if (method == FieldMethod::exact)
            s += "# errors are the quadrature's error estimates\n";
        else
            s += "# mean-field limit L -> inf at alpha = R/L (closed form; the O(d/L) term is dropped)\n";
        s += fmt::format("{:>8} {:>19} {:>8} {:>19} {:>8} {:>19} {:>15} {:>8}\n", "rho", "j", "+-", "dj", "+-",
                         "drift", "E[A_I]", "+-");
        for (const auto& p : pts)
            s += fmt::format("{:>8.4g} {:>19.14g} {:>8.1e} {:>19.14g} {:>8.1e} {:>19.14g} {:>15.10g} {:>8.1e}\n", p.rho,
                             p.j, p.j_err, p.dj, p.dj_err, p.drift, p.mass_informative, p.mass_err);
        if (!moments.empty()) {
            s += "# per-sample gradient in the frame (q, e, rest): means and standard errors\n";
            s += fmt::format("{:>8} {:>12} {:>8} {:>12} {:>8} {:>12} {:>8}\n", "rho", "E g_u", "+-", "E g_v", "+-",
                             "E|g_w|^2", "+-");
            for (std::size_t i = 0; i < pts.size(); ++i)
                s += fmt::format("{:>8.4g} {:>12.6g} {:>8.1e} {:>12.6g} {:>8.1e} {:>12.6g} {:>8.1e}\n", pts[i].rho,
                                 moments[i].g_u, moments[i].g_u_err, moments[i].g_v, moments[i].g_v_err,
                                 moments[i].g_w_sq, moments[i].g_w_sq_err);
        }
        return s;
    });
}
}  // namespace

Command add_field_command(CLI::App& app) {
    auto o = std::make_shared<FieldOptions>();
    auto* sub = app.add_subcommand(
        "field",
        "The population objective j(rho) = E||f_q(X)||^2, its derivative j'(rho), the ODE drift "
        "(1 - rho^2) j'(rho) and the expected attention mass on informative tokens E[A_I], each with "
        "its error estimate.\n  exact: Laplace-transform quadrature, cost independent of L;\n  meanfield: "
        "the L -> infinity limit at alpha = R/L;\n  montecarlo: sampling with standard errors (j from "
        "||f||^2, drift from E<g, xi - rho q>, dj pathwise).");
    o->model.add(*sub);
    o->out.add(*sub);
    sub->add_option("--rho", o->rho, "comma-separated alignments rho = <q, xi> in [-1, 1]")
        ->required()
        ->delimiter(',');
    sub->add_option("--method", o->method, "exact | meanfield | montecarlo")->capture_default_str();
    sub->add_option("--samples", o->samples, "montecarlo: number of samples X")->type_name("INT")->capture_default_str();
    sub->add_option("--seed", o->seed, "montecarlo: master seed (same seed, same numbers)")
        ->type_name("INT")
        ->capture_default_str();
    sub->add_option("--threads", o->mc.threads, "montecarlo: threads (0 = all cores); results do not depend on it")
        ->capture_default_str();
    sub->add_option("--rel-tol", o->exact.rel_tol, "exact: target error relative to each integral's L1 norm")
        ->capture_default_str();
    sub->add_option("--inner-resolution", o->exact.inner_resolution,
                    "exact: inner trapezoid step is min(0.25, this / (beta sigma))")
        ->capture_default_str();
    return {sub, [o] { return prepare(*o); }};
}

}  // namespace rhoflow::cli
