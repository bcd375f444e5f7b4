// The claims `rhoflow check` decides at one parameter point, and the three-valued verdict.
//
// Every claim is a property of the exact population field of docs/theory.md (sections 3-4) at
// one model: F(rho) = (1 - rho^2) j'(rho) and the informative attention mass E[A_I](rho).
//  - monotone:          F > 0 on (-1, 1): +xi is the only attractor;
//  - positive-drift:    F > 0 on (0, 1);
//  - attractors=N:      exactly N stable equilibria in [-1, 1];
//  - filtering:         1 - E[A_I] decreasing on (0, 1), i.e. d E[A_I]/d rho > 0 there;
//  - recovery:          every equilibrium in (-1, 1) is a repeller (prove only): every start
//                       but the repellers reaches +-1, the paper's global convergence;
//  - filtering<=EPS:    the noise mass 1 - E[A_I] is at most EPS at rho = +1 (always), and at
//                       rho = -1 when -1 attracts (j'(-1) < 0); interior equilibria are not
//                       considered (prove only);
//  - hitting-time<=T:   the ODE from rho0 reaches |rho| >= 1 - hit_eps by time T.
// How each is certified: certify.hpp and docs/theory.md section 10.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace rhoflow {

/// Which property of the field is checked.
enum class ClaimKind {
    monotone,       ///< F > 0 on (-1, 1)
    positive_drift, ///< F > 0 on (0, 1)
    attractors,     ///< exactly `attractors` stable equilibria in [-1, 1]
    filtering,      ///< nuisance attention mass 1 - E[A_I] decreasing on (0, 1)
    hitting_time,   ///< the ODE from rho0 reaches |rho| >= 1 - hit_eps by time `t_max`
    noise_mass,     ///< 1 - E[A_I] <= `noise_max` at +1, and at -1 where it attracts
    recovery        ///< no attractor in (-1, 1): every interior equilibrium repels
};

/// A claim with its argument (N for attractors, T for hitting-time).
struct Claim {
    ClaimKind kind = ClaimKind::monotone;  ///< the property
    int attractors = 1;                    ///< N of attractors=N (0 <= N <= 1000)
    double t_max = 10.0;                   ///< T of hitting-time<=T (finite, > 0)
    double noise_max = 1.0;                ///< EPS of filtering<=EPS (0 <= EPS <= 1)

    /// Throws InvalidArgument naming "claim" when the argument is out of range.
    void validate() const;
};

/// Canonical text of a claim: "monotone", "positive-drift", "attractors=2", "filtering",
/// "hitting-time<=10", "filtering<=0.78", "recovery".
std::string to_string(const Claim& c);
/// Parses the canonical text; throws InvalidArgument naming `field` (listing the accepted forms).
Claim parse_claim(std::string_view text, const std::string& field = "claim");

/// The verdict at one point or over a box.
enum class Verdict {
    holds,     ///< certified true: the margin exceeds its error bound
    fails,     ///< certified false: the margin is below minus its error bound
    undecided  ///< the margin is within its error bound (or the error exceeds the tolerance)
};

/// "holds", "fails" or "undecided".
std::string_view to_string(Verdict v);
/// Parses "holds" / "fails" / "undecided"; throws InvalidArgument naming `field` otherwise.
Verdict parse_verdict(std::string_view text, const std::string& field = "verdict");

/// JSON: the canonical text (a string).
void to_json(nlohmann::json& j, const Claim& c);
/// JSON: parses the canonical text.
void from_json(const nlohmann::json& j, Claim& c);
/// JSON: "holds" | "fails" | "undecided".
void to_json(nlohmann::json& j, const Verdict& v);
/// JSON: parses the verdict's text.
void from_json(const nlohmann::json& j, Verdict& v);

}  // namespace rhoflow
