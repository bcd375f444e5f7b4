// The reduced ODE's right-hand side F(rho) = (1 - rho^2) j'(rho) as a function on [-1, 1], with
// a uniform bound on its error: what the ODE integrator and the phase portrait consume.
//
// The exact field costs about a millisecond per evaluation, too slow for an integrator that
// asks for it thousands of times; DriftField::exact therefore tabulates j, j' and E[A_I] once
// as Chebyshev interpolants (chebyshev.hpp) on nested Lobatto grids, sampling the exact field
// in parallel, until the interpolation error is near the exact field's own error (~1e-14).
// The reported bound dj_error() = interpolation error + quadrature error of the samples. The
// mean-field limit is evaluated directly (closed form with autodiff derivatives).
// Used by the ODE, the phase portrait and the comparator; it knows nothing of SGA.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/field/field.hpp"
#include "rhoflow/model/model.hpp"

namespace rhoflow {

/// Which field drives the ODE: the Monte Carlo estimator cannot (it has no smooth j'), so it is
/// not representable here.
enum class DriftMethod {
    exact,     ///< the exact finite-(d, L, R) field, tabulated (exact_field.hpp)
    meanfield  ///< the mean-field limit, evaluated directly (meanfield.hpp)
};
/// "exact" or "meanfield".
std::string_view to_string(DriftMethod m);
/// Parses "exact" or "meanfield"; throws InvalidArgument naming `field` otherwise.
DriftMethod parse_drift_method(std::string_view s, const std::string& field = "field");

/// Controls of the exact-field table.
struct FieldTableParams {
    double tol = 1e-12;      ///< Chebyshev tail target relative to the largest coefficient of j'
    int max_points = 1025;   ///< largest Lobatto grid (points) before giving up on the target
    int threads = 0;         ///< threads sampling the exact field (0 = all cores)
    ExactFieldParams exact;  ///< accuracy of each exact sample

    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// What a DriftField is and how accurate: recorded in every output that used one.
struct DriftFieldInfo {
    std::string method;      ///< "exact", "meanfield" or the name given to from_functions
    double dj_error = 0;     ///< uniform bound on the error of j'
    double d2j_error = 0;    ///< uniform bound on the error of j''
    int table_degree = 0;    ///< degree of the Chebyshev table of j' (0: evaluated directly)
    int table_samples = 0;   ///< exact-field samples behind the table (0: evaluated directly)
    double scale = 1;        ///< factor applied to j' (1 unless scaled on purpose, see scaled())
};

/// j, j', j'', E[A_I] and the drift on [-1, 1], with error bounds.
class DriftField {
public:
    /// The exact finite-(d, L, R) field, tabulated (throws NumericalError if the table's error
    /// bound on j' exceeds 1e-8 of the field's scale).
    static DriftField exact(const ModelParams& model, const FieldTableParams& params = {});
    /// The mean-field limit, evaluated directly.
    static DriftField meanfield(const ModelParams& model);
    /// Either of the above by method.
    static DriftField make(const ModelParams& model, DriftMethod method, const FieldTableParams& params = {});
    /// A field given by functions (tests, closed-form examples); j and mass may be empty.
    static DriftField from_functions(std::function<double(double)> dj, std::function<double(double)> d2j,
                                     double dj_error, std::string name,
                                     std::function<double(double)> j = {},
                                     std::function<double(double)> mass = {});

    /// j(rho) (NaN-free; throws NumericalError if this field has no j).
    double j(double rho) const;
    /// j'(rho).
    double dj(double rho) const { return dj_(rho); }
    /// j''(rho).
    double d2j(double rho) const { return d2j_(rho); }
    /// E[A_I] at rho (throws NumericalError if this field has no mass).
    double mass(double rho) const;
    /// F(rho) = (1 - rho^2) j'(rho).
    double drift(double rho) const { return drift_of(rho, dj_(rho)); }
    /// F'(rho) = -2 rho j'(rho) + (1 - rho^2) j''(rho).
    double drift_derivative(double rho) const { return -2 * rho * dj_(rho) + (1 - rho * rho) * d2j_(rho); }
    /// Uniform bound on |j'_used - j'_true| over [-1, 1].
    double dj_error() const noexcept { return dj_error_; }
    /// Uniform bound on |j''_used - j''_true| over [-1, 1].
    double d2j_error() const noexcept { return d2j_error_; }
    /// True when j' is identically zero (R = 0, theta = 0 or L = 1): every rho is an equilibrium.
    bool flat() const noexcept { return flat_; }
    /// "exact", "meanfield" or the name given to from_functions.
    const std::string& name() const noexcept { return name_; }
    /// Exact-field samples used for the table (0 for direct evaluation).
    int samples() const noexcept { return samples_; }
    /// Degree of the Chebyshev table of j' (0 for direct evaluation).
    int degree() const noexcept { return degree_; }
    /// The field with j' (hence F) multiplied by `s`, j and E[A_I] unchanged: a deliberately
    /// wrong theory, to show that a comparison can detect it.
    DriftField scaled(double s) const;
    /// Method, error bounds and table size.
    DriftFieldInfo info() const;

private:
    std::function<double(double)> j_, dj_, d2j_, mass_;
    double dj_error_ = 0, d2j_error_ = 0;
    bool flat_ = false;
    std::string name_;
    int samples_ = 0, degree_ = 0;
    double scale_ = 1;
};

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const FieldTableParams& p);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, FieldTableParams& p);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const DriftFieldInfo& i);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, DriftFieldInfo& i);
/// "exact" or "meanfield".
void to_json(nlohmann::json& j, const DriftMethod& m);
/// Parses "exact" or "meanfield".
void from_json(const nlohmann::json& j, DriftMethod& m);

}  // namespace rhoflow
