// `rhoflow prove`: a claim about the exact field decided rigorously over a box of models, by
// adaptive subdivision of rho and of the parameter box until every cell's enclosure
// (enclosure.hpp) decides it, with a certificate that verify.hpp re-checks
// (docs/theory.md section 11).
//
// Method. The box's integer parameters (d, L, R) are enumerated; its real ones (theta, sigma,
// beta) are cells, bisected along the widest (relative) axis when a cell cannot be decided.
// For one parameter cell, rho cells start uniform and are processed breadth-first: each cell
// is enclosed over its whole rho interval and parameter cell, and
//  - monotone / positive-drift: "dj>0" decides a cell; "dj<0" is a rigorous counterexample;
//  - attractors=N: a cell is "dj>0", "dj<0", or "d2j>0"/"d2j<0" (j' strictly monotone on it);
//    a maximal run of monotone cells between sign-definite ones holds exactly one zero when the
//    signs differ (none when they agree), stable iff j'' < 0; +1 attracts iff j'(1) > 0, -1 iff
//    j'(-1) < 0. The count is exact once every cell is classified, so a count != N disproves;
//  - hitting-time<=T: "dj>0" on [rho0, 1 - hit_eps] and T_hit = int drho / ((1 - rho^2) j') is
//    bracketed per cell by (atanh b - atanh a) / [max j', min j'].
// A box with a ranged real axis is first tried at up to 16 witness points (up to 15 corners, then
// the centre, each searched alone, within max(256, max_cells / 10) enclosures of their own): the
// first that disproves the claim is the certificate.
// Undecided cells are bisected up to max_depth. On a parameter cell that can still be split,
// rho is bisected only while it narrows the enclosures (a fresh half keeping more than 0.7 of
// its parent's width means the parameter cell's width dominates) and at most 4 times; then the
// parameter cell is split. For the claims decided by the cells' roles alone (monotone,
// positive-drift, attractors, recovery; not for the mean-field limit, whose tight enclosures a
// half's can exceed by a rounding) a half starts with its parent's decided initial cells and
// their enclosures (an enclosure over a parameter cell holds over each half; the checker
// recomputes every cell on the half's parameters): the same tiling, fewer enclosures. Every batch is processed in a fixed order and each enclosure is the
// same bits however computed, so the cells (and the certificate) depend neither on the thread
// count nor, under MPI (each batch cut into units that the executor, exec/units.hpp, spreads over the ranks, then
// broadcast so that every rank takes the same next step), on the rank count.
// With `meanfield`, every enclosure is the mean-field limit's (rigorous/meanfield_enclosure.hpp;
// alpha = R/L, d plays no part): the claim is proved for the limit L -> infinity the paper takes.
// When it fails: InvalidArgument (naming the field) for a bad claim (filtering is not
// supported), box or parameter; the verdict is `not proved` (with the undecided cells) when a
// limit is reached, never a guess.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rhoflow/check/box.hpp"
#include "rhoflow/check/claim.hpp"
#include "rhoflow/exec/execution.hpp"
#include "rhoflow/rigorous/enclosure.hpp"

namespace rhoflow {

/// The integer combinations of d, L, R a box may have (each is proved separately).
inline constexpr std::int64_t max_integer_combinations = 4096;

/// Everything `rhoflow prove` needs.
struct ProveParams {
    Claim claim;                  ///< monotone | positive-drift | attractors=N | recovery | hitting-time<=T | filtering<=EPS
    ParamBox box;                 ///< d, L, R (integer ranges, enumerated), theta, sigma, beta (ranges, per coordinate)
    RigorousParams rigorous{128, 1e-7};  ///< precision and truncation targets of every enclosure (1e-7: cell widths, not truncations, limit the decisions)
    int initial_cells = 16;       ///< rho cells at the start (2 ... 4096)
    int max_depth = 16;           ///< bisections of a rho cell (0 ... 40)
    int max_box_depth = 4;        ///< bisections of a parameter cell (0 ... 20)
    std::int64_t max_cells = 20000;  ///< cap on enclosures the box search computes (1 ... 1e7); witnesses have max(256, a tenth) more
    double rho0 = 0.05;           ///< hitting-time: start, -1 < rho0 < 1 - hit_eps
    double hit_eps = 1e-3;        ///< hitting-time: level |rho| >= 1 - hit_eps, 1e-12 ... 0.5
    int threads = 0;              ///< threads over cells (0 = all cores); results do not depend on it
    bool meanfield = false;       ///< the claim about the mean-field limit (5.1) at alpha = R/L, not the exact field
    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// One decided (or undecided) cell: a parameter cell times a rho interval, with its enclosure.
struct ProofCell {
    ModelCell model;         ///< the parameter cell
    FieldEnclosure enc;      ///< enclosures over the cell (rho in enc.rho)
    std::string role;        ///< "dj>0", "dj<0", "d2j>0", "d2j<0" or "undecided"
};

/// "proved", "disproved" or "not proved".
enum class ProofVerdict { proved, disproved, not_proved };
/// The verdict's text.
std::string to_string(ProofVerdict v);
/// Parses the verdict's text; throws InvalidArgument naming `field`.
ProofVerdict parse_proof_verdict(const std::string& text, const std::string& field);

/// The outcome of one parameter cell.
struct ParamCellResult {
    ModelCell model;                   ///< the parameter cell
    ProofVerdict verdict = ProofVerdict::not_proved;  ///< its verdict
    int attractors = -1;               ///< attractors=N: the certified count (-1 if unknown)
    Interval hitting_time{0, 0};       ///< hitting-time: the enclosure of T_hit (when bracketed)
    std::string note;                  ///< what decided it, or what is missing
};

/// Work done.
struct ProveDiagnostics {
    double seconds = 0;          ///< wall-clock time (text report only)
    std::int64_t enclosures = 0; ///< enclosures computed
    int threads = 1;             ///< threads used (text report only)
    int ranks = 1;               ///< MPI ranks the cells were spread over (text report only)
    int max_depth_reached = 0;   ///< deepest rho bisection
};

/// The result: the verdict, every cell of the proof, and the undecided ones.
struct ProveResult {
    Claim claim;                                ///< the claim
    ParamBox box;                               ///< the box
    ProofVerdict verdict = ProofVerdict::not_proved;  ///< proved / disproved / not proved
    std::vector<ParamCellResult> param_cells;   ///< one per parameter cell processed to the end
    std::vector<ProofCell> cells;               ///< the cells of every decided parameter cell (the certificate)
    std::vector<ProofCell> undecided;           ///< the cells of every parameter cell not proved (its last rho tiling, all enclosed)
    std::optional<ProofCell> counterexample;    ///< disproved sign claims: a cell where j' < 0
    double min_width_rel = 0;                   ///< largest width / max|j'| of a deciding j' enclosure (<= 1)
    ProveDiagnostics diagnostics;               ///< work
};

/// Runs the proof search (validates first); `ex`: over the ranks of the team (collective) or in this process.
ProveResult run_prove(const ProveParams& params, Execution ex = Execution::local);

/// The git commit rhoflow was built from (version.hpp's git_commit(), stamped at every build),
/// "unknown" outside a git checkout.
std::string build_commit();

/// The certificate (certificate.json's content): claim, box, parameters, verdict, every cell,
/// versions and commit.
nlohmann::json certificate(const ProveParams& params, const ProveResult& result);

/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const ProveParams& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, ProveParams& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const ProofCell& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, ProofCell& v);
/// JSON: the verdict's text.
void to_json(nlohmann::json& j, const ProofVerdict& v);
/// Reads the verdict's text.
void from_json(const nlohmann::json& j, ProofVerdict& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const ParamCellResult& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, ParamCellResult& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const ProveDiagnostics& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, ProveDiagnostics& v);
/// JSON hooks: one key per field.
void to_json(nlohmann::json& j, const ProveResult& v);
/// Reads what to_json writes.
void from_json(const nlohmann::json& j, ProveResult& v);

}  // namespace rhoflow
