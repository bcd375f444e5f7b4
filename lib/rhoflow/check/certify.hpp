// Certified verdict of one claim at one parameter point (docs/theory.md section 10).
//
// Method.
//  1. Table. j'(rho) (and, for `filtering`, E[A_I](rho)) is sampled on nested Chebyshev-Lobatto
//     grids of 9, 17, 33, ..., max_points points and interpolated (core/chebyshev.hpp): a polynomial
//     p with |p - j'| <= eps on [-1, 1]. eps is the larger of the library's bound (twice the last
//     eighth of the coefficients + the samples' own error) and twice the sum of the last QUARTER
//     of the coefficients + the samples' error times the Lebesgue constant 1 + (2/pi) log n, and
//     it is checked against three extra samples off the grid (points of the next grid, so they
//     are reused if the grid is refined): a discrepancy above eps raises eps and forces the next
//     grid. A table whose coefficients do not decay (the largest of the last quarter above 1% of
//     the largest before it) and are not at the noise floor is "unresolved": it has seen a
//     feature only as a trace in a few samples, and no verdict is taken from it. The grid is
//     refined only while the claim is undecided, eps exceeds `tol`, or the table is not trusted.
//  2. Signs between nodes. p is a polynomial with known Chebyshev coefficients, so its
//     derivatives are too, and max |p^(k)| on [-1, 1] <= S_k, the sum of the absolute Chebyshev
//     coefficients of p^(k) (|T_m| <= 1). On a cell [a, b] of width h,
//         |p^(k)| <= M_k(a, b) = min(S_k, |p^(k)(mid)| + (h/2) S_(k+1)),
//         min_[a,b] p >= (p(a) + p(b))/2 - M_1(a, b) h/2   (p is M_1-Lipschitz on the cell),
//     plus the rounding of Clenshaw's recurrence, 4 (n + 1) u S_0. A branch-and-bound search
//     bisects the cell with the lowest bound; near a smooth minimum M_1 ~ (h/2) S_2, so the gap
//     between the smallest sampled value and the certified lower bound shrinks like h^2.
//     j' > 0 on an interval is certified when the lower bound of min p exceeds eps; j' < 0
//     somewhere when a sampled p(x) < -eps. Once decided, the search goes on until the gap is
//     below 0.1% of the margin (so the margin is reported to that accuracy).
//  3. Roots (attractors=N). Cells of [-1, 1] are bisected until each is sign-definite for j'
//     (|p| > eps on it) or monotone (|p'| > eps2 on it, eps2 = n^2 eps). A maximal run of
//     non-sign-definite cells on which j'' has one sign holds exactly one zero of j' when the
//     signs at its two ends differ and none otherwise; its stability is the sign of j'' on the
//     run (F' = (1 - rho^2) j''). The sign of j'' on the run is taken from a guaranteed
//     enclosure of j'' over the run (DerivativeBound::enclosure, the default for the exact field:
//     rigorous/enclosure.hpp, ball arithmetic, the run split into up to 16 pieces until each
//     has one sign), so that step is a bound, not an estimate. Without an enclosure (the
//     mean-field limit, a DriftField, beta sigma outside [1e-3, 4], or
//     DerivativeBound::estimate) it is |p'| > eps2 on every cell of the run, where eps2 = n^2 eps
//     is an estimate: Markov's inequality bounds the derivative of the polynomial part only,
//     and p - j' is not a polynomial (theory.md section 10). Endpoints: +1 attracts iff
//     j'(1) > 0, -1 iff j'(-1) < 0, each certified when |p(+-1)| > eps. A run on which j'' is
//     not of one sign (a near-tangency) leaves the count undecided.
//  4. Hitting time. When j' has a certified sign on [rho0, level] (or [-level, rho0]), rho(t) is
//     monotone and T_hit = int drho / ((1 - rho^2) j'(rho)); with j' in [p - eps, p + eps] the
//     integral of 1/((1 - rho^2)(p -+ eps)) (Gauss-Kronrod, plus its error estimate) brackets it.
//     A certified zero of j' in between means the level is never reached.
//  5. Filtering. dE[A_I]/drho > 0 on [0, 1]: the margin is min of the mass table's derivative,
//     and the sign is decided by enclosures of dE[A_I]/drho on cells covering [0, 1] (8 cells,
//     halved to width 2^-10, at most 256): holds when every cell's lower end is > 0, fails
//     when one cell's upper end is < 0 (a guaranteed counterexample), else undecided. Without
//     enclosures, by the table's derivative with the estimate n^2 eps_mass.
// Margins are relative (dimensionless) so that points of a box compare: see PointCertificate.
// What "certified" means: verified to estimated tolerances. The field's errors are conservative
// quadrature estimates (docs/theory.md section 4) and the table's the Chebyshev tail estimate;
// only the derivative steps are guaranteed by enclosures (the sign of j'' on a root's run, and
// of dE[A_I]/drho for `filtering`: step 5). For guaranteed verdicts use prove/prove.hpp. A field whose features are narrower than the
// finest grid can resolve is not seen by any sampling method: its table does not converge, and
// the point is undecided unless the extra samples happen to catch the feature.
// When it fails: a table that does not converge by max_points leaves the point undecided; a
// NumericalError from the field propagates to the caller.
#pragma once

#include <functional>
#include <optional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "rhoflow/check/claim.hpp"
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/field/field.hpp"
#include "rhoflow/model/model.hpp"
#include "rhoflow/rigorous/enclosure.hpp"

namespace rhoflow {

/// One sample of the field: j' and E[A_I] at some rho, each with its error bound.
struct FieldSample {
    double dj = 0;        ///< j'(rho)
    double dj_err = 0;    ///< error bound of dj
    double mass = 0;      ///< E[A_I](rho) (0 when the field has none)
    double mass_err = 0;  ///< error bound of mass
};

/// Samples a field at every rho of a list (serially; the caller parallelises over points).
using FieldSampler = std::function<std::vector<FieldSample>(const std::vector<double>& rho)>;

/// Guaranteed bounds of a derivative (j'' or dE[A_I]/drho) over every rho of [a, b], or nullopt
/// when none can be computed there.
using DerivativeEnclosure = std::function<std::optional<Interval>(double a, double b)>;

/// Where the sign of a derivative comes from: j'' on a root's run (`attractors=N`), dE[A_I]/drho
/// on [0, 1] (`filtering`).
enum class DerivativeBound {
    enclosure,  ///< guaranteed enclosures (exact field, 1e-3 <= beta sigma <= 4)
    estimate,   ///< the derivative of the table with error n^2 eps (an estimate, theory.md section 10)
};
/// "enclosure" or "estimate".
const char* to_string(DerivativeBound b);
/// Parses "enclosure" / "estimate"; InvalidArgument naming `field` otherwise.
DerivativeBound parse_derivative_bound(const std::string& text, const std::string& field);

/// Guaranteed enclosures of the model's exact j'' (or, with `mass`, dE[A_I]/drho) from
/// rigorous/enclosure.hpp: at 64 bits and rel_tol 1e-4, then at 128 bits and 1e-7 where the
/// first contains 0; each call returns nullopt when the model is outside the enclosures' range
/// (L < 3, beta sigma outside [1e-3, 4]). Thread-safe.
DerivativeEnclosure exact_derivative(const ModelParams& model, bool mass = false);

/// Sampler of the exact field (`exact_field` with `exact`) or the mean-field limit at `model`.
/// Throws InvalidArgument for montecarlo or a model the method refuses.
FieldSampler model_sampler(const ModelParams& model, FieldMethod method, const ExactFieldParams& exact = {});
/// Sampler of a DriftField: its j' with error dj_error(), and E[A_I] when it has one.
FieldSampler drift_field_sampler(const DriftField& field);

/// Controls of the certification at one point; each maps to a flag of `rhoflow check`.
struct CertifyParams {
    double tol = 1e-4;          ///< largest relative error of the field table (eps / scale) accepted for a verdict
    int min_points = 9;         ///< first Chebyshev-Lobatto grid (2^k + 1 points, 9..table points)
    double rho0 = 0.05;         ///< start of the ODE for hitting-time claims (-1 < rho0 < 1)
    double hit_eps = 0.01;      ///< hitting level |rho| >= 1 - hit_eps (0 < hit_eps < 1)
    int max_cells = 20000;      ///< budget of cells of [-1, 1] for each sign or root search
    FieldMethod field = FieldMethod::exact;  ///< exact or meanfield (montecarlo is refused)
    DerivativeBound derivative = DerivativeBound::enclosure;  ///< j'' on roots' runs (attractors), dE[A_I]/drho (filtering): guaranteed enclosures (exact field) or the n^2 eps estimate
    /// Table controls: tol = tail target (stop refining at the noise floor), max_points = largest
    /// grid (2^k + 1), exact = accuracy of each exact sample. threads is not used here.
    FieldTableParams table = default_table();

    /// The table defaults for certification: tol 1e-12, max_points 129, exact rel_tol 1e-10
    /// and inner_resolution 0.25 (measured: same errors as 0.165 on the reference points, 35%
    /// faster).
    static FieldTableParams default_table();
    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// An equilibrium of F found and certified at one point.
struct CertifiedEquilibrium {
    double rho = 0;         ///< location (a zero of the table; the field's zero is within rho_err)
    double rho_err = 0;     ///< bound on the distance to the field's zero (0 at rho = +-1)
    double dfdrho = 0;      ///< F'(rho), the linear rate
    double dfdrho_err = 0;  ///< error bound of F'(rho)
    bool stable = false;    ///< F'(rho) < -dfdrho_err
};

/// The verdict at one point with its margin. `margin` is signed (> 0 supports the claim) and
/// relative, hence dimensionless:
///  - monotone, positive-drift: min of j' over [-1, 1] (resp. [0, 1]) / scale, scale = max |j'|;
///  - filtering: min of dE[A_I]/drho over [0, 1] / scale, scale = max |dE[A_I]/drho|;
///  - attractors=N: +-min over the equilibria of |F'| / (2 scale) (+ when the count is N): how
///    far the portrait is from a bifurcation, in units of the field's largest |F'(+-1)|;
///  - hitting-time<=T: (T - T_hit) / (T + T_hit), in [-1, 1] (-1: never reached).
/// holds iff margin > error, fails iff margin < -error, and a verdict needs the table's
/// relative error <= tol.
struct PointCertificate {
    Verdict verdict = Verdict::undecided;  ///< holds, fails or undecided
    double margin = 0;       ///< signed relative margin (see above)
    double error = 0;        ///< error bound of margin (field error + search gap)
    double where = 0;        ///< rho where the margin is attained (hitting-time: rho0)
    double scale = 0;        ///< the field's scale the margin is relative to (0 when flat)
    double table_error = 0;  ///< eps / scale: relative error bound of the table (compared with tol)
    int attractors = -1;     ///< stable equilibria counted (attractors claim; -1 if not certified)
    std::vector<CertifiedEquilibrium> equilibria;  ///< (attractors claim) ascending in rho
    double hit_time = -1;     ///< (hitting-time) certified hitting time, -1 when never reached
    double hit_time_err = 0;  ///< (hitting-time) error bound of hit_time
    int samples = 0;          ///< field evaluations used (table + checks)
    int table_points = 0;     ///< Chebyshev-Lobatto grid size of the table used
    std::string derivative;   ///< (attractors with interior roots, filtering) "enclosure": the derivative's sign is guaranteed; "estimate": it rests on n^2 eps
    std::string note;         ///< why undecided, or what decided it
};

/// Certifies `claim` for the field sampled by `sampler`. `flat` says j' = 0 identically (R = 0
/// or theta = 0), which is decided exactly (documented in docs/theory.md section 10).
/// `derivative` (optional) encloses the claim's derivative: j'' (attractors) or dE[A_I]/drho (filtering).
PointCertificate certify_point(const FieldSampler& sampler, const Claim& claim, const CertifyParams& params,
                               bool flat = false, const DerivativeEnclosure& derivative = {});
/// The same for the model's exact or mean-field field (params.field), with exact_derivative for
/// attractors and filtering claims when params.derivative is enclosure and the field exact.
PointCertificate certify_point(const ModelParams& model, const Claim& claim, const CertifyParams& params);
/// The same for a DriftField (e.g. DriftField::from_functions in tests).
PointCertificate certify_point(const DriftField& field, const Claim& claim, const CertifyParams& params);

/// JSON: every member by name.
void to_json(nlohmann::json& j, const CertifyParams& p);
/// JSON: reads the members present (others keep their defaults).
void from_json(const nlohmann::json& j, CertifyParams& p);
/// JSON: {"rho","rho_err","dfdrho","dfdrho_err","stable"}.
void to_json(nlohmann::json& j, const CertifiedEquilibrium& e);
/// JSON: reads the five members.
void from_json(const nlohmann::json& j, CertifiedEquilibrium& e);
/// JSON: every member by name (equilibria only when not empty, hit_time only for hitting-time).
void to_json(nlohmann::json& j, const PointCertificate& c);
/// JSON: reads the members present.
void from_json(const nlohmann::json& j, PointCertificate& c);

}  // namespace rhoflow
