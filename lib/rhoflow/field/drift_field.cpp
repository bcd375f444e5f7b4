#include "rhoflow/field/drift_field.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <vector>

#include "rhoflow/core/chebyshev.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/field/meanfield.hpp"
#include "rhoflow/core/parallel.hpp"

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

    struct Samples {
        std::vector<double> j, dj, mass;
        double dj_err = 0, j_err = 0, mass_err = 0;
    };
    auto sample = [&](const std::vector<double>& x) {
        std::vector<FieldPoint> pts(x.size());
        parallel_for(static_cast<std::int64_t>(x.size()), params.threads, [&](std::int64_t i) {
            pts[static_cast<std::size_t>(i)] = exact_field(model, x[static_cast<std::size_t>(i)], params.exact);
        });
        Samples s;
        for (const auto& p : pts) {
            s.j.push_back(p.j);
            s.dj.push_back(p.dj);
            s.mass.push_back(p.mass_informative);
            s.dj_err = std::max(s.dj_err, p.dj_err);
            s.j_err = std::max(s.j_err, p.j_err);
            s.mass_err = std::max(s.mass_err, p.mass_err);
        }
        return s;
    };

    int n = 16;
    Samples s = sample(Chebyshev::lobatto_points(n));
    Chebyshev dj_fit;
    for (;;) {
        dj_fit = Chebyshev::from_lobatto(s.dj, params.tol, 0.0, s.dj_err);
        if (dj_fit.converged() || 2 * n + 1 > params.max_points) break;
        Samples add = sample(Chebyshev::lobatto_refinement(n));
        s.j = Chebyshev::merge_refinement(s.j, add.j);
        s.dj = Chebyshev::merge_refinement(s.dj, add.dj);
        s.mass = Chebyshev::merge_refinement(s.mass, add.mass);
        s.dj_err = std::max(s.dj_err, add.dj_err);
        s.j_err = std::max(s.j_err, add.j_err);
        s.mass_err = std::max(s.mass_err, add.mass_err);
        n *= 2;
    }
    const double jmax = *std::max_element(s.j.begin(), s.j.end());
    if (dj_fit.error_bound() > 1e-8 * jmax)
        throw NumericalError(fmt::format(
            "exact field table: j' not resolved on {} Chebyshev points (error bound {} relative "
            "to max j); the field varies too sharply in rho (beta*theta = {})",
            n + 1, format_number(dj_fit.error_bound() / jmax), format_number(model.beta * model.theta)));
    auto jt = std::make_shared<Chebyshev>(Chebyshev::from_lobatto(s.j, params.tol, 0.0, s.j_err));
    auto djt = std::make_shared<Chebyshev>(dj_fit);
    auto d2jt = std::make_shared<Chebyshev>(dj_fit.derivative());
    auto mt = std::make_shared<Chebyshev>(Chebyshev::from_lobatto(s.mass, params.tol, 0.0, s.mass_err));

    DriftField f;
    f.name_ = "exact";
    f.flat_ = model.R == 0 || model.theta == 0;
    f.j_ = [jt](double r) { return (*jt)(r); };
    f.dj_ = [djt](double r) { return (*djt)(r); };
    f.d2j_ = [d2jt](double r) { return (*d2jt)(r); };
    f.mass_ = [mt](double r) { return (*mt)(r); };
    f.dj_error_ = djt->error_bound();
    f.d2j_error_ = d2jt->error_bound();
    f.samples_ = n + 1;
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

DriftField DriftField::make(const ModelParams& model, FieldMethod method, const FieldTableParams& params) {
    switch (method) {
        case FieldMethod::exact: return exact(model, params);
        case FieldMethod::meanfield: return meanfield(model);
        case FieldMethod::montecarlo: break;
    }
    throw InvalidArgument("field", "field = 'montecarlo' cannot drive the ODE (accepted: exact, meanfield)");
}

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
