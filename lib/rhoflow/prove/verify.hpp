// The trusted part of `rhoflow prove`: what a cell's enclosure decides, how the cells of one
// parameter cell decide a claim, and the independent checker of a certificate
// (`rhoflow prove --verify CERT`, docs/theory.md section 11.6). The search (prove.hpp) calls
// decide_cells too, but nothing here depends on the search: the checker recomputes every
// cell's enclosure from its recorded parameters, checks that the recorded intervals contain the
// recomputed ones, that the roles follow from the intervals, that the parameter cells cover the
// box (every integer value, the real axes without gaps) and that each parameter cell's rho cells
// tile its interval and decide the claim.
// When it fails: verify_certificate never throws for a bad certificate; it returns the errors,
// each naming the JSON path of the offending field ("cells[3].dj.lo", "box.theta", ...).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "rhoflow/check/claim.hpp"
#include "rhoflow/prove/prove.hpp"

namespace rhoflow {

/// The role an enclosure earns for a claim: "dj>0", "dj<0", "d2j>0", "d2j<0" (attractors
/// only, when j' has no certified sign) or "undecided".
std::string role_of(const Claim& claim, const FieldEnclosure& e);

/// How the rho cells of one parameter cell decide a claim.
struct CellsDecision {
    ProofVerdict verdict = ProofVerdict::not_proved;  ///< proved / disproved / not proved
    int attractors = -1;             ///< attractors=N: the exact count when every cell is classified
    Interval hitting_time{0, 0};     ///< hitting-time: enclosure of T_hit when every cell is dj>0
    std::vector<std::size_t> refine; ///< cells whose bisection could decide (for the search)
    std::vector<std::size_t> settle; ///< recovery, decided: end cells whose bisection could still give the count at +-1
    std::string note;                ///< the reason, in words
};

/// The rho interval a claim needs: [-1, 1], [0, 1], or [rho0, 1 - hit_eps].
Interval claim_rho_range(const Claim& claim, double rho0, double hit_eps);

/// Decides the claim from cells sorted by rho that must tile claim_rho_range exactly (else
/// the verdict is not proved with a note). Roles are taken from the cells.
CellsDecision decide_cells(const Claim& claim, const std::vector<ProofCell>& cells, double rho0, double hit_eps);

/// The checker's report.
struct VerifyReport {
    bool valid = false;                 ///< the certificate is well formed and every check passed
    ProofVerdict verdict = ProofVerdict::not_proved;  ///< the verdict it certifies (when valid)
    std::size_t cells = 0;              ///< cells recomputed
    std::vector<std::string> errors;    ///< what failed, each naming the field
    bool meanfield = false;             ///< the certificate is about the mean-field limit at alpha = R/L (JSON key only when true)
};

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const VerifyReport& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, VerifyReport& v);

/// The JSON paths of keys repeated within one object of `text` ("cells[3].role: duplicate key"),
/// which parsing would silently resolve to the last; empty when there are none or `text` is not
/// JSON (parsing reports that).
std::vector<std::string> duplicate_keys(const std::string& text);

/// How the checker recomputes each cell's enclosure (docs/theory.md section 11.7).
enum class VerifyMethod {
    independent,  ///< enclose_field_independent_within: shares no quadrature with the prover (default)
    fast          ///< enclose_field, the prover's own method (`--verify-fast`)
};

/// Re-checks a certificate (untrusted input) independently of the search; `threads` for the
/// recomputation (0 = all cores); `ex`: over the ranks of the team (collective) or in this process;
/// `method`: how each enclosure is recomputed.
VerifyReport verify_certificate(const nlohmann::json& cert, int threads = 0, Execution ex = Execution::local,
                                VerifyMethod method = VerifyMethod::independent);

}  // namespace rhoflow
