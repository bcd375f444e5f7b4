// Phase portrait of the reduced ODE on [-1, 1]: all equilibria, their stability, the basin of
// each attractor, and whether the drift has one sign on (-1, 1).
//
// rho = +-1 are always equilibria (F has the factor 1 - rho^2); interior equilibria are the
// zeros of j'. Method (ode/detail/root_scan.hpp, shared with the effective equilibria): j' is
// evaluated on a uniform grid of `scan_cells` cells over [-1, 1]; every sign change is refined
// by Boost.Math's TOMS 748 bracketing solver to full precision. At every grid point where |j'|
// has a local minimum without a sign change, Brent's minimiser
// (boost::math::tools::brent_find_minima) looks for an extremum of j' of the other sign in the
// two adjacent cells; if there is one, the two roots it separates are bracketed and refined too.
// What it can miss: a pair of zeros inside one cell (width 2/scan_cells) next to which |j'|
// shows no local minimum on the grid (impossible when j' is monotone on the neighbouring
// cells), and zeros where |j'| never exceeds the field's error bound (a tangency within error,
// reported in `near_tangencies`, not as an equilibrium).
// Stability: F'(1) = -2 j'(1), F'(-1) = 2 j'(-1), F'(r) = (1 - r^2) j''(r) at interior zeros;
// stable (an attractor) when F' < 0 by more than its error bound, a repeller when F' > 0 by
// more, otherwise degenerate (EquilibriumKind, written as those names).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "rhoflow/field/drift_field.hpp"

namespace rhoflow {

/// Controls of the phase-portrait search.
struct PhaseParams {
    int scan_cells = 4096;  ///< uniform cells of [-1, 1] scanned for sign changes of j'

    /// Throws InvalidArgument naming the field out of range.
    void validate() const;
};

/// The kind of an equilibrium, from its linearised rate and the rate's error bound.
enum class EquilibriumKind {
    attractor,   ///< rate < -error: stable
    repeller,    ///< rate > error: unstable
    degenerate   ///< |rate| <= error: undecided
};

/// "attractor", "repeller" or "degenerate".
std::string_view to_string(EquilibriumKind k);
/// Parses an equilibrium kind; throws InvalidArgument naming `field` otherwise.
EquilibriumKind parse_equilibrium_kind(std::string_view s, const std::string& field = "kind");
/// The kind of an equilibrium whose linearised rate is `rate` with error bound `err` (the one
/// rule of the phase portrait and of the effective equilibria; stable means attractor).
EquilibriumKind equilibrium_kind(double rate, double err) noexcept;
/// The kind as its name (the documents' strings).
void to_json(nlohmann::json& j, const EquilibriumKind& k);
/// Parses what to_json writes (throws InvalidArgument on anything else).
void from_json(const nlohmann::json& j, EquilibriumKind& k);

/// One equilibrium of d rho/dt = F(rho).
struct Equilibrium {
    double rho = 0;          ///< location
    double rho_err = 0;      ///< error bound of the location (0 for rho = +-1)
    double dfdrho = 0;       ///< F'(rho), the linearised rate
    double dfdrho_err = 0;   ///< error bound of F'(rho)
    bool stable = false;     ///< F'(rho) < 0 beyond its error bound (kind == attractor)
    EquilibriumKind kind = EquilibriumKind::degenerate;  ///< attractor, repeller or degenerate (from dfdrho and its error)
};

/// The set of initial conditions that flow to one attractor: an interval of [-1, 1].
struct Basin {
    double from = 0;       ///< left end
    double to = 0;         ///< right end
    double attractor = 0;  ///< the equilibrium reached
    bool from_closed = false;  ///< whether `from` belongs to the basin
    bool to_closed = false;    ///< whether `to` belongs to the basin
};

/// Whether r lies in the basin (its ends with their closedness).
bool in_basin(const Basin& b, double r) noexcept;

/// The phase portrait.
struct PhasePortrait {
    std::vector<Equilibrium> equilibria;  ///< ascending in rho
    std::vector<Basin> basins;            ///< ascending in rho
    bool monotone = false;      ///< F has one strict sign on (-1, 1) (no interior equilibrium)
    bool flat = false;          ///< j' is 0 within its error bound everywhere (R = 0, theta = 0, L = 1): every rho is fixed
    double scan_spacing = 0;    ///< grid spacing of the scan
    std::vector<double> near_tangencies;  ///< points where |j'| dips within its error but no sign change was found
};

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const PhaseParams& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, PhaseParams& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const Equilibrium& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, Equilibrium& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const Basin& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, Basin& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const PhasePortrait& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, PhasePortrait& v);

/// Finds the phase portrait of `field`.
PhasePortrait phase_portrait(const DriftField& field, const PhaseParams& params = {});

}  // namespace rhoflow
