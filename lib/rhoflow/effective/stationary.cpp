#include "rhoflow/effective/stationary.hpp"

#include <algorithm>
#include <array>
#include <boost/math/quadrature/gauss.hpp>
#include <cmath>
#include <fmt/format.h>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/random.hpp"
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

// The moments on one grid: log-density at every quadrature node, then weighted sums.
DiffusionMoments moments_on(const std::function<double(double)>& a, const std::function<double(double)>& v, double eta,
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
    double Z = 0, s1 = 0, s2 = 0, r1 = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
        const double p = w[k] * std::exp(lp[k] - m);
        Z += p;
        s1 += p * std::abs(x[k]);
        s2 += p * x[k] * x[k];
        r1 += p * x[k];
    }
    DiffusionMoments d;
    d.mean = s1 / Z;
    d.sd = std::sqrt(std::max(0.0, s2 / Z - d.mean * d.mean));
    d.mean_rho = r1 / Z;
    return d;
}

}  // namespace

DiffusionMoments diffusion_stationary_moments(const std::function<double(double)>& a,
                                              const std::function<double(double)>& v, double eta, double from,
                                              double to, int cells) {
    require(std::isfinite(eta) && eta > 0, "eta", eta, "eta > 0");
    require(from < to, "from", from, "from < to");
    require(cells >= 100 && cells <= 1000000, "cells", cells, "100 <= cells <= 1e6");
    DiffusionMoments fine = moments_on(a, v, eta, from, to, cells);
    const DiffusionMoments coarse = moments_on(a, v, eta, from, to, cells / 2);
    fine.quadrature_err = std::max(std::abs(fine.mean - coarse.mean), std::abs(fine.sd - coarse.sd));
    return fine;
}

void StationaryParams::validate() const {
    validate_member("moments", [&] { moments.validate(); });
    validate_member("table", [&] { table.validate(); });
    require(cells >= 100 && cells <= 1000000, "cells", cells, "100 <= cells <= 1e6");
    require(bootstrap >= 10 && bootstrap <= 10000, "bootstrap", bootstrap, "10 <= bootstrap <= 10000");
}

namespace {

double ode_attractor_nearest_one(const DriftField& field) {
    const PhasePortrait p = phase_portrait(field);
    double best = -2;
    for (const auto& e : p.equilibria)
        if (e.stable) best = std::max(best, e.rho);
    if (p.flat || best < -1)
        throw NumericalError("stationary law: the mean-field ODE has no attractor (the field is flat within its error "
                             "bound): nothing near +1 to compare with");
    return best;
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

StationaryLaw stationary_law(const DriftField& field, const StepMomentTable& table, const StationaryParams& params) {
    params.validate();
    if (field.flat())
        throw NumericalError("stationary law: the field is flat (no signal), so there is no attractor near +1");
    StationaryLaw law;
    law.eta = table.eta;
    law.rule = table.rule;
    law.table = table;
    const EffectiveDrift drift(field, {table});
    law.equilibria = effective_equilibria(drift, table.eta);
    const EffectiveEquilibrium* att = nullptr;
    for (const auto& e : law.equilibria)
        if (e.stable) att = &e;  // ascending: the last stable one is nearest +1
    if (!att)
        throw NumericalError(fmt::format("stationary law at eta = {}: the effective drift has no attractor in "
                                         "(-1, 1); the chain is not confined near +1", format_number(table.eta)));
    law.attractor = att->rho;
    law.attractor_err = att->rho_err;
    for (const auto& e : law.equilibria)
        if (!e.stable && e.rho < att->rho) law.basin_from = e.rho;
    const double eta = table.eta;
    auto moments = [&](const EffectiveDrift& d) {
        return diffusion_stationary_moments([&](double r) { return d.a(r, eta); }, [&](double r) { return d.v(r, eta); },
                                            eta, law.basin_from, 1.0, params.cells);
    };
    const DiffusionMoments m = moments(drift);
    RandomStream rng({params.moments.seed, StreamPurpose::bootstrap, 0});
    RunningStats means, sds;  // the laws of the perturbed tables
    for (int b = 0; b < params.bootstrap; ++b) {
        const DiffusionMoments mb = moments(EffectiveDrift(field, {perturbed_within_errors(table, rng)}));
        means.add(mb.mean);
        sds.add(mb.sd);
    }
    const double boot_mean = std::sqrt(means.variance()), boot_sd = std::sqrt(sds.variance());
    law.mean = m.mean;
    law.sd = m.sd;
    law.quadrature_err = m.quadrature_err;
    law.mean_err = std::hypot(boot_mean, m.quadrature_err);
    law.sd_err = std::hypot(boot_sd, m.quadrature_err);
    law.plain_ode = ode_attractor_nearest_one(field);
    law.method = fmt::format(
        "stationary density exp(int 2a/(eta v))/v of the diffusion with the chain's one-step moments (Monte Carlo, "
        "{} nodes x {} samples, control variate s g_v), on the basin ({:.6g}, 1]; errors: parametric bootstrap ({} "
        "replicas) and quadrature",
        table.nodes.size(), params.moments.samples, law.basin_from, params.bootstrap);
    return law;
}

StationaryLaw stationary_law(const ModelParams& model, double eta, UpdateRule rule, const StationaryParams& params) {
    model.validate();
    require_signal_for_stationary_law(model);
    params.validate();
    const DriftField field = DriftField::make(model, params.field, params.table);
    return stationary_law(field, measure_step_moments(model, field, eta, rule, params.moments), params);
}

RHOFLOW_JSON_HOOKS(DiffusionMoments, mean, sd, mean_rho, quadrature_err)
RHOFLOW_JSON_HOOKS(StationaryParams, moments, field, table, cells, bootstrap)
RHOFLOW_JSON_HOOKS(StationaryLaw, eta, rule, mean, mean_err, sd, sd_err, basin_from, attractor, attractor_err,
                   equilibria, plain_ode, method, quadrature_err, table)

}  // namespace rhoflow
