#include "rhoflow/field/drift_field.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <vector>

#include "rhoflow/core/chebyshev.hpp"
#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/field/meanfield.hpp"
#include "rhoflow/exec/parallel.hpp"

namespace rhoflow {

void FieldTableParams::validate() const {
    require_in("tol", tol, 1e-15, 1e-3);
    require(max_points >= 33 && max_points <= 8193, "max_points", max_points, "33 <= max_points <= 8193");
    require(threads >= 0 && threads <= 1024, "threads", threads, "0 (all cores) <= threads <= 1024");
    validate_member("exact", [&] { exact.validate(); });
}

double DriftField::j(double rho) const {
    if (!j_) throw NumericalError("field '" + name_ + "' does not provide j");
    return j_(rho);
}

double DriftField::mass(double rho) const {
    if (!mass_) throw NumericalError("field '" + name_ + "' does not provide E[A_I]");
    return mass_(rho);
}

DriftField DriftField::exact(const ModelParams& model, const FieldTableParams& params) {
    params.validate();
    // Refuse up front (InvalidArgument) what the exact method cannot do, before any sampling.
    validate_exact_field(model, params.exact);
    enum { kJ, kDj, kMass, kFunctions };
    double dj_sample_err = 0;  // the largest error estimate of an exact sample of j'
    // Samples j, j' and E[A_I] together (one quadrature gives all three), in parallel over rho.
    auto sample = [&](const std::vector<double>& x, std::vector<std::vector<double>>& y, std::vector<double>& err) {
        std::vector<FieldPoint> pts(x.size());
        parallel_for(static_cast<std::int64_t>(x.size()), params.threads, [&](std::int64_t i) {
            pts[static_cast<std::size_t>(i)] = exact_field(model, x[static_cast<std::size_t>(i)], params.exact);
        });
        y.assign(kFunctions, {});
        err.assign(kFunctions, 0.0);
        for (const auto& p : pts) {
            y[kJ].push_back(p.j);
            y[kDj].push_back(p.dj);
            y[kMass].push_back(p.mass_informative);
            err[kJ] = std::max(err[kJ], p.j_err);
            err[kDj] = std::max(err[kDj], p.dj_err);
            dj_sample_err = std::max(dj_sample_err, p.dj_err);
            err[kMass] = std::max(err[kMass], p.mass_err);
        }
    };
    const std::vector<Chebyshev> fits = Chebyshev::fit_jointly(sample, kDj, params.tol, params.max_points);
    const Chebyshev& dj_fit = fits[kDj];
    const double jmax = fits[kJ].sample_max();
    if (dj_fit.error_bound() > 1e-8 * jmax && dj_sample_err > 0.5e-8 * jmax) {
        // The samples themselves are not accurate enough: more points would not help. Their
        // relative accuracy degrades as the signal beta*theta grows (j' ~ beta theta^3 against
        // j ~ theta^2) and as beta*sigma -> 0: name the one that applies.
        const double bt = model.beta * model.theta;
        const std::string why =
            bt > 10 && bt > model.tau()
                ? fmt::format("beta*theta = {}: its quadrature of j' loses relative accuracy as the signal grows; "
                              "reduce theta (or beta)",
                              format_number(bt))
                : fmt::format("beta*sigma = {}: its quadrature of j' degrades as beta*sigma -> 0; raise sigma (or beta)",
                              format_number(model.tau()));
        throw NumericalError(fmt::format(
            "exact field table: j' not resolved: the exact field's own samples of j' are accurate only to {} "
            "relative to max j here ({}), so more Chebyshev points cannot help",
            format_number(dj_sample_err / jmax), why));
    }
    if (dj_fit.error_bound() > 1e-8 * jmax)
        throw NumericalError(fmt::format(
            "exact field table: j' not resolved on {} Chebyshev points (error bound {} relative "
            "to max j); the field varies too sharply in rho (beta*theta = {})",
            dj_fit.samples(), format_number(dj_fit.error_bound() / jmax), format_number(model.beta * model.theta)));
    auto jt = std::make_shared<Chebyshev>(fits[kJ]);
    auto djt = std::make_shared<Chebyshev>(dj_fit);
    auto d2jt = std::make_shared<Chebyshev>(dj_fit.derivative());
    auto mt = std::make_shared<Chebyshev>(fits[kMass]);

    DriftField f;
    f.name_ = "exact";
    f.flat_ = model.R == 0 || model.theta == 0 || model.L == 1;  // L = 1: f = x_1, j is constant
    f.j_ = [jt](double r) { return (*jt)(r); };
    f.dj_ = [djt](double r) { return (*djt)(r); };
    f.d2j_ = [d2jt](double r) { return (*d2jt)(r); };
    f.mass_ = [mt](double r) { return (*mt)(r); };
    f.dj_error_ = djt->error_bound();
    f.d2j_error_ = d2jt->error_bound();
    f.samples_ = dj_fit.samples();
    f.degree_ = djt->degree();
    return f;
}

DriftField DriftField::meanfield(const ModelParams& model) {
    model.validate();
    DriftField f;
    f.name_ = "meanfield";
    f.flat_ = model.R == 0 || model.theta == 0;
    f.j_ = [model](double r) { return meanfield_field(model, std::clamp(r, -1.0, 1.0)).j; };
    f.dj_ = [model](double r) { return meanfield_field(model, std::clamp(r, -1.0, 1.0)).dj; };
    f.d2j_ = [model](double r) { return meanfield_d2j(model, std::clamp(r, -1.0, 1.0)); };
    f.mass_ = [model](double r) { return meanfield_field(model, std::clamp(r, -1.0, 1.0)).mass_informative; };
    double err = 0, err2 = 0;
    for (int k = 0; k <= 64; ++k) {
        const double r = -1.0 + k / 32.0;
        const FieldPoint p = meanfield_field(model, r);
        err = std::max(err, p.dj_err);
        err2 = std::max(err2, 16 * 2.2e-16 * std::abs(meanfield_d2j(model, r)));
    }
    f.dj_error_ = err;
    f.d2j_error_ = err2;
    return f;
}

DriftField DriftField::make(const ModelParams& model, DriftMethod method, const FieldTableParams& params) {
    return method == DriftMethod::exact ? exact(model, params) : meanfield(model);
}

DriftField DriftField::scaled(double s) const {
    DriftField f = *this;
    f.dj_ = [g = dj_, s](double r) { return s * g(r); };
    f.d2j_ = [g = d2j_, s](double r) { return s * g(r); };
    f.dj_error_ = std::abs(s) * dj_error_;
    f.d2j_error_ = std::abs(s) * d2j_error_;
    f.scale_ = s * scale_;
    return f;
}

DriftFieldInfo DriftField::info() const { return {name_, dj_error_, d2j_error_, degree_, samples_, scale_}; }

std::string_view to_string(DriftMethod m) { return m == DriftMethod::exact ? "exact" : "meanfield"; }

DriftMethod parse_drift_method(std::string_view s, const std::string& field) {
    if (s == "exact") return DriftMethod::exact;
    if (s == "meanfield") return DriftMethod::meanfield;
    throw InvalidArgument(field, fmt::format("{} = '{}' is not a field that can drive the ODE (accepted: exact, "
                                             "meanfield)", field, s));
}

RHOFLOW_JSON_HOOKS(FieldTableParams, tol, max_points, threads, exact)
RHOFLOW_JSON_HOOKS(DriftFieldInfo, method, dj_error, d2j_error, table_degree, table_samples, scale)
RHOFLOW_JSON_ENUM_HOOKS(DriftMethod, parse_drift_method)

DriftField DriftField::from_functions(std::function<double(double)> dj, std::function<double(double)> d2j,
                                      double dj_error, std::string name, std::function<double(double)> j,
                                      std::function<double(double)> mass) {
    DriftField f;
    f.dj_ = std::move(dj);
    f.d2j_ = std::move(d2j);
    f.j_ = std::move(j);
    f.mass_ = std::move(mass);
    f.dj_error_ = dj_error;
    f.name_ = std::move(name);
    return f;
}

}  // namespace rhoflow
