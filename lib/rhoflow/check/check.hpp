// `rhoflow check`: a claim about the field (claim.hpp) decided over a box of model parameters
// (box.hpp), with a certified verdict per point (certify.hpp) and a verdict for the box.
//
// Method. The ranged axes are sampled on `grid` points each (log or linear spacing; integers
// rounded). Every point gets a certified verdict (holds / fails / undecided). A cell of the grid
// whose 2^k corners do not all have the same verdict is bisected along every ranged axis, its
// new corners evaluated, and so on `refine` times: the boundary between verdicts is traced at
// resolution (grid - 1) 2^refine per axis while uniform regions keep the coarse grid. Points
// are evaluated in parallel (exec/parallel.hpp), each with its own serial table; a point whose
// parameters round to an already evaluated model is not evaluated again.
// The box's verdict: fails if any point fails (the witness is the failing point of largest
// |margin|), else undecided if any point is undecided, else holds. Between the evaluated points
// the result is SAMPLED, NOT PROVED: no Lipschitz bound in the model parameters is used, so
// `holds` over a box means "holds at every point evaluated" (the result says so in `notes`).
// When it fails: InvalidArgument (naming the field) for a bad box or parameter, before any work;
// a NumericalError at one point makes that point undecided (counted in
// diagnostics.numerical_failures); if every point fails so, run_check throws NumericalError.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rhoflow/check/box.hpp"
#include "rhoflow/check/certify.hpp"
#include "rhoflow/check/claim.hpp"
#include "rhoflow/exec/execution.hpp"
#include "rhoflow/model/model.hpp"

namespace rhoflow {

/// Everything `rhoflow check` needs; each field maps to a flag (CLI: docs/cli.md).
struct CheckParams {
    Claim claim;                ///< the property checked at every point (default: monotone)
    ParamBox box;               ///< d, L, R, theta, sigma, beta: a value or a range each
    NoiseConvention noise = NoiseConvention::per_coordinate;  ///< per_norm: sigma/sqrt(d) per coordinate
    int grid = 9;               ///< points per ranged axis (2 <= grid <= 4097)
    int refine = 2;             ///< bisection depth for cells whose corners disagree (0 <= refine <= 12)
    std::int64_t max_points = 200000;  ///< cap on points evaluated (grid^k first; refinement stops at it)
    int threads = 0;            ///< threads over parameter points (0 = all cores)
    CertifyParams certify;      ///< per-point certification (tolerance, table, rho0, field method)

    /// Throws InvalidArgument naming the first field out of range ("box.R", "grid",
    /// "certify.tol", ...), including any point of the box the field method refuses
    /// (beta*sigma > 12 for the exact field) and grid^k > max_points.
    void validate() const;
    /// The model at parameter values v (Axis order; sigma as given, converted by `noise`).
    ModelParams model_at(const std::array<double, axis_count>& v) const;
};

/// One evaluated point of the box.
struct CheckPoint {
    std::array<double, axis_count> values{};  ///< d, L, R, theta, sigma (as given), beta
    ModelParams model;       ///< the model evaluated (sigma per coordinate)
    int level = 0;           ///< refinement level that added it (0: the grid)
    PointCertificate cert;   ///< verdict, margin, error at this point
};

/// The counterexample reported when the box fails.
struct CheckWitness {
    std::array<double, axis_count> values{};  ///< d, L, R, theta, sigma (as given), beta
    ModelParams model;       ///< the model (sigma per coordinate)
    double margin = 0;       ///< its (negative) margin
    double error = 0;        ///< error bound of margin
    double where = 0;        ///< rho where the claim fails (hitting-time: rho0)
    std::string note;        ///< what fails there
    std::string command;     ///< `rhoflow phase ...` reproducing the phase portrait at this point
    std::string claim_command;  ///< a command showing the failure directly (ode / field), or empty
};

/// Work and caveats of a run.
struct CheckDiagnostics {
    double seconds = 0;             ///< wall-clock time of run_check (text report only; not in the JSON)
    std::int64_t field_samples = 0; ///< field evaluations over all points
    int threads = 1;                ///< threads used (text report only; not in the JSON)
    int max_table_points = 0;       ///< largest Chebyshev grid any point needed
    int levels = 0;                 ///< refinement levels carried out
    int numerical_failures = 0;     ///< points made undecided by a NumericalError
    std::vector<std::string> notes; ///< caveats, in plain words (sampled-not-proved, budget stops)
};

/// The result over the box.
struct CheckResult {
    Claim claim;                            ///< the claim checked
    Verdict verdict = Verdict::undecided;   ///< holds only if every point holds; fails if any fails
    std::optional<CheckWitness> witness;    ///< the failing point of largest |margin| (fails only)
    std::vector<CheckPoint> points;         ///< every point evaluated (distinct models), grid first
    double min_margin = 0;                  ///< smallest margin over the points
    int holds = 0;                          ///< points that hold
    int fails = 0;                          ///< points that fail
    int undecided = 0;                      ///< points left undecided
    std::vector<int> ranged_axes;           ///< the ranged axes (Axis values), in Axis order
    std::vector<std::array<double, axis_count>> boundary;  ///< centres of the finest cells whose corners disagree
    CheckDiagnostics diagnostics;           ///< work and caveats
};

/// Runs the check (validates first). `progress`, when given, is called after each batch with
/// (points done, points scheduled so far). `ex`: each batch's points are units of the executor
/// (exec/units.hpp), shared by the ranks of the team under Execution::team (collective).
CheckResult run_check(const CheckParams& params, const std::function<void(std::int64_t, std::int64_t)>& progress = {},
                      Execution ex = Execution::local);

/// The command line `rhoflow phase ...` (or `ode`, `field`) for a model, with exact numbers.
std::string model_flags(const ModelParams& m);

/// JSON: every member by name (claim as text, box, noise, grid, ...).
void to_json(nlohmann::json& j, const CheckParams& p);
/// JSON: reads the members present (others keep their defaults).
void from_json(const nlohmann::json& j, CheckParams& p);
/// JSON: {"d","L","R","theta","sigma","beta","sigma_input","level", + the certificate's keys}.
void to_json(nlohmann::json& j, const CheckPoint& p);
/// JSON: reads what to_json writes.
void from_json(const nlohmann::json& j, CheckPoint& p);
/// JSON: {"d","L","R","theta","sigma","beta","sigma_input","margin","error","where","note","command","claim_command"}.
void to_json(nlohmann::json& j, const CheckWitness& w);
/// JSON: reads what to_json writes.
void from_json(const nlohmann::json& j, CheckWitness& w);
/// JSON: every member by name.
void to_json(nlohmann::json& j, const CheckDiagnostics& d);
/// JSON: reads what to_json writes.
void from_json(const nlohmann::json& j, CheckDiagnostics& d);
/// JSON: {"claim","verdict","witness" (object or null),"points":[...],"min_margin","counts":{...},
/// "ranged_axes","boundary","diagnostics"}.
void to_json(nlohmann::json& j, const CheckResult& r);
/// JSON: reads what to_json writes.
void from_json(const nlohmann::json& j, CheckResult& r);

}  // namespace rhoflow
