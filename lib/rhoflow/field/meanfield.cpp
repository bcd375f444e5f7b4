#include "rhoflow/field/meanfield.hpp"

#include <boost/math/differentiation/autodiff.hpp>
#include <cmath>

#include "rhoflow/core/errors.hpp"

namespace rhoflow {
namespace {

using boost::math::differentiation::make_fvar;

// w = logistic(beta theta rho + log(alpha / (1 - alpha))), evaluated without overflow.
template <class T>
T attention_weight(const ModelParams& m, const T& rho) {
    using std::exp;
    if (m.R == 0) return T(0.0);
    if (m.R == m.L) return T(1.0);
    const double logit = std::log(m.alpha()) - std::log1p(-m.alpha());
    const T z = m.beta * m.theta * rho + logit;
    if (static_cast<double>(z) >= 0) return 1.0 / (1.0 + exp(-z));
    const T ez = exp(z);
    return ez / (1.0 + ez);
}

template <class T>
T j_inf(const ModelParams& m, const T& rho) {
    const T w = attention_weight(m, rho);
    const double s2 = m.sigma * m.sigma;
    return w * w * (m.theta * m.theta) + 2.0 * m.theta * m.beta * s2 * w * rho +
           m.beta * m.beta * s2 * s2;
}

}  // namespace

FieldPoint meanfield_field(const ModelParams& model, double rho) {
    model.validate();
    validate_rho(rho);
    const auto x = make_fvar<double, 1>(rho);
    const auto y = j_inf(model, x);
    FieldPoint p;
    p.rho = rho;
    p.j = require_finite_result(y.derivative(0), "j (mean-field)");
    p.dj = require_finite_result(y.derivative(1), "dj (mean-field)");
    p.drift = drift_of(rho, p.dj);
    p.mass_informative = attention_weight(model, rho);
    // Closed form: only rounding, a few ulps of the largest term.
    constexpr double ulp = 2.220446049250313e-16;
    p.j_err = 8 * ulp * std::abs(p.j);
    p.dj_err = 8 * ulp * (std::abs(p.dj) + model.beta * model.theta * std::abs(p.j));
    p.drift_err = (1 - rho * rho) * p.dj_err;
    p.mass_err = 4 * ulp * p.mass_informative;
    return p;
}

double meanfield_d2j(const ModelParams& model, double rho) {
    model.validate();
    validate_rho(rho);
    const auto x = make_fvar<double, 2>(rho);
    return require_finite_result(j_inf(model, x).derivative(2), "d2j (mean-field)");
}

}  // namespace rhoflow
