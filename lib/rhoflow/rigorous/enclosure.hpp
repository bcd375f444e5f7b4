// Guaranteed enclosures of the exact field j, j', j'' and E[A_I] (docs/theory.md sections 4
// and 11) for a cell of models: d, L, R integers, theta, sigma, beta and rho intervals. Every
// returned interval contains the true value of (4.3) at every point of the cell.
//
// Method (theory.md section 11). All arithmetic is Arb's ball arithmetic (outward rounding).
// rho enters as a truncated Taylor series rho = rho0 + eps (rho0 the cell's ball), so one
// evaluation yields j, j' and j''/2 at once; every quantity is differentiated pathwise
// (d x / d mu = x for x = t e^{s - c}).
//  - Inner Gaussian expectations (4.2): trapezoidal rule on z = k h, |k| <= K, with the error of
//    the infinite rule bounded by Trefethen-Weideman (2014, Thm 5.1) in the strip
//    |Im z| < b = min(pi/(4 tau), 2 pi/h), and the dropped nodes by a Gaussian tail bound.
//  - Outer integral over lambda = log t: Gauss-Legendre panels of half-width 1/2 whose error
//    is bounded by the Bernstein-ellipse estimate (64/15) M rho_e^{-2n}/(rho_e^2 - 1) with M an
//    explicit bound of the discretised integrand on the panel's ellipse (|Im lambda| <= 0.75):
//    uniform bounds capped by |x e^{-x}| <= |x| on the left and |M_c| decaying on the right, so
//    each panel gets its own order n.
//  - Tails: below lambda_- by C e^{2 lambda_-}/2 (closed-form Gaussian moments), above
//    lambda_+ by the monotone bound M_c(t) <= M_c(t_+) and, further out,
//    M_c <= Phi((c - lambda/2 - mu)/tau) + exp(-e^{lambda/2}).
//  - Derivatives of every error bound by Cauchy's estimate on the disc |rho' - rho| <= r with
//    beta theta r = pi/12 (the field is entire in rho).
// When it fails: InvalidArgument (naming the field) for L < 3, tau = beta sigma outside
// [1e-3, 4], bad intervals or params; NumericalError if an enclosure is not finite. Wide cells
// give wide (still valid) enclosures.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "rhoflow/model/model.hpp"

namespace rhoflow {

/// A closed interval [lo, hi] of doubles (endpoints rounded outward when it is an enclosure).
struct Interval {
    double lo = 0;  ///< lower end
    double hi = 0;  ///< upper end (>= lo)
    /// hi - lo.
    double width() const noexcept { return hi - lo; }
    /// Whether x lies in [lo, hi].
    bool contains(double x) const noexcept { return lo <= x && x <= hi; }
};

/// A cell of models: integers d, L, R, and intervals of theta, sigma (per coordinate), beta.
struct ModelCell {
    std::int64_t d = 50;         ///< ambient dimension, >= 2
    std::int64_t L = 1000;       ///< tokens, >= 3
    std::int64_t R = 100;        ///< informative tokens, 0 <= R <= L
    Interval theta{1, 1};        ///< signal strength, 0 <= lo <= hi
    Interval sigma{1, 1};        ///< noise per coordinate, 0 < lo <= hi
    Interval beta{1, 1};         ///< inverse temperature, 0 < lo <= hi
    /// The cell of one model.
    static ModelCell of(const ModelParams& m);
    /// The model at the cell's midpoint.
    ModelParams mid() const;
    /// Throws InvalidArgument naming "cell.<field>" when out of range.
    void validate() const;
};

/// Accuracy controls of the enclosure.
struct RigorousParams {
    int precision = 128;       ///< working precision of the balls, bits (64 ... 1024)
    double rel_tol = 1e-13;    ///< target of each truncation/quadrature error relative to |j| (1e-30 ... 1e-3)
    /// Throws InvalidArgument naming the field out of range.
    void validate() const;
};

/// Where the error of an enclosure of j comes from (upper bounds, absolute).
struct EnclosureBudget {
    double inner = 0;     ///< inner trapezoid rule and its truncation, integrated over lambda
    double outer = 0;     ///< Gauss-Legendre error bounds of the outer panels
    double tail_left = 0; ///< lambda < lambda_-
    double tail_right = 0;///< lambda > lambda_+
    double lambda_lo = 0; ///< lambda_-
    double lambda_hi = 0; ///< lambda_+
    int inner_nodes = 0;  ///< trapezoid nodes per class
    int outer_nodes = 0;  ///< outer integrand evaluations
};

/// Guaranteed enclosures over a cell (rho in `rho`, models in the ModelCell).
struct FieldEnclosure {
    Interval rho;         ///< the rho interval enclosed
    Interval j;           ///< contains j(rho) for every model and rho of the cell
    Interval dj;          ///< contains j'(rho)
    Interval d2j;         ///< contains j''(rho)
    Interval mass;        ///< contains E[A_I](rho)
    int precision = 128;  ///< bits used
    EnclosureBudget budget;  ///< error parts of j (diagnostics)
};

/// The nuisance class's trapezoid sums at the outer nodes, shared by the enclosures of one model
/// (they depend on neither rho nor theta). Thread-safe; an enclosure is the same bits with or
/// without a cache, whatever was computed before.
class EnclosureCache {
public:
    EnclosureCache();
    ~EnclosureCache();
    EnclosureCache(const EnclosureCache&) = delete;
    EnclosureCache& operator=(const EnclosureCache&) = delete;
    /// Outer nodes whose sums are stored.
    std::size_t size() const;
    struct Impl;
    /// Internal state (enclosure.cpp).
    Impl& impl() { return *impl_; }

private:
    std::unique_ptr<Impl> impl_;
};

/// Encloses j, j', j'', E[A_I] over the cell. Throws InvalidArgument / NumericalError (header).
/// `cache` (optional) shares the nuisance class's sums between calls; it changes no bit.
FieldEnclosure enclose_field(const ModelCell& cell, Interval rho, const RigorousParams& params = {},
                             EnclosureCache* cache = nullptr);

/// Encloses dE[A_I]/drho over the cell (the next jet coefficient of E[A_I], its error by Cauchy's
/// estimate as for j'); the rest as enclose_field.
Interval enclose_mass_slope(const ModelCell& cell, Interval rho, const RigorousParams& params = {},
                            EnclosureCache* cache = nullptr);

/// "Arb 2.23.0, FLINT 2.9.0": the libraries the enclosures come from (for certificates).
std::string arb_version_text();

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const Interval& v);
/// Reads what to_json writes ([lo, hi]).
void from_json(const nlohmann::json& j, Interval& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const ModelCell& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, ModelCell& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const RigorousParams& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, RigorousParams& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const EnclosureBudget& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, EnclosureBudget& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const FieldEnclosure& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, FieldEnclosure& v);

}  // namespace rhoflow
