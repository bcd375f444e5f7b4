#include "rhoflow/prove/verify.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/exec/parallel.hpp"
#include "rhoflow/exec/units.hpp"
#include "rhoflow/rigorous/detail/ball.hpp"
#include "rhoflow/rigorous/independent_enclosure.hpp"
#include "rhoflow/rigorous/detail/within.hpp"
#include "rhoflow/rigorous/meanfield_enclosure.hpp"

namespace rhoflow {

using detail::Ball;

// "meanfield": true only then: every other report keeps its bytes.
RHOFLOW_JSON_HOOKS_WITH_FLAG(VerifyReport, meanfield, valid, verdict, cells, errors)

std::string role_of(const Claim& claim, const FieldEnclosure& e) {
    if (e.dj.lo > 0) return "dj>0";
    if (e.dj.hi < 0) return "dj<0";
    if (claim.kind == ClaimKind::attractors || claim.kind == ClaimKind::recovery) {
        if (e.d2j.lo > 0) return "d2j>0";
        if (e.d2j.hi < 0) return "d2j<0";
    }
    return "undecided";
}

Interval claim_rho_range(const Claim& claim, double rho0, double hit_eps) {
    switch (claim.kind) {
        case ClaimKind::positive_drift: return {0.0, 1.0};
        case ClaimKind::hitting_time: return {rho0, 1.0 - hit_eps};
        default: return {-1.0, 1.0};
    }
}

namespace {

CellsDecision sign_claim(const std::vector<ProofCell>& cells) {
    CellsDecision d;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (cells[i].role == "dj<0") {
            d.verdict = ProofVerdict::disproved;
            d.note = fmt::format("j' < 0 on rho in [{}, {}]", cells[i].enc.rho.lo, cells[i].enc.rho.hi);
            d.refine.clear();
            return d;
        }
        if (cells[i].role != "dj>0") d.refine.push_back(i);
    }
    if (d.refine.empty()) {
        d.verdict = ProofVerdict::proved;
        d.note = "j' > 0 on every cell";
    } else {
        d.note = fmt::format("{} cells without a certified sign of j'", d.refine.size());
    }
    return d;
}

CellsDecision attractor_claim(const Claim& claim, const std::vector<ProofCell>& cells) {
    CellsDecision d;
    const std::size_t n = cells.size();
    auto sign = [&](std::size_t i) { return cells[i].role == "dj>0" ? 1 : cells[i].role == "dj<0" ? -1 : 0; };
    // recovery needs no sign at an end whose run has j'' > 0: j' increases there, so its zero (if
    // any) repels, whichever side of 0 j'(+-1) lies. So a box across theta*, where j'(-1) = 0 and
    // the repeller meets -1, is still decided; only the count of attractors at +-1 stays open.
    const bool recovery = claim.kind == ClaimKind::recovery;
    auto open_end = [&](std::size_t i) { return recovery && cells[i].role == "d2j>0"; };
    for (std::size_t i = 0; i < n; ++i)
        if (cells[i].role == "undecided") d.refine.push_back(i);
    if (sign(0) == 0 && !open_end(0)) d.refine.push_back(0);
    if (sign(n - 1) == 0 && !open_end(n - 1)) d.refine.push_back(n - 1);
    int count = 0, interior = 0;
    std::size_t first_interior = n;  // the first interior attractor's run
    if (sign(0) < 0) ++count;      // -1 attracts iff j'(-1) < 0
    if (sign(n - 1) > 0) ++count;  // +1 attracts iff j'(1) > 0
    for (std::size_t i = 0; i < n;) {
        if (sign(i) != 0 || cells[i].role == "undecided") {
            if (i + 1 < n && sign(i) * sign(i + 1) < 0) {  // impossible for true enclosures
                d.note = "adjacent cells with opposite certified signs (inconsistent enclosures)";
                d.refine = {i, i + 1};
                d.attractors = -1;
                return d;
            }
            ++i;
            continue;
        }
        std::size_t e = i;
        bool mixed = false;
        while (e < n && sign(e) == 0 && cells[e].role != "undecided") {
            if (cells[e].role != cells[i].role) mixed = true;
            ++e;
        }
        const int sl = i > 0 ? sign(i - 1) : 0, sr = e < n ? sign(e) : 0;
        const bool decreasing = cells[i].role == "d2j<0";
        bool ok = !mixed && ((sl != 0 && sr != 0) || (recovery && !decreasing));
        if (ok && sl != 0 && sr != 0 && sl != sr) ok = (sl > 0) == decreasing;  // + to - needs j' decreasing, - to + increasing
        if (!ok) {
            for (std::size_t k = i; k < e; ++k) d.refine.push_back(k);
        } else if (sl > 0 && sr < 0) {
            ++count;  // a zero of j' with j'' < 0: F' = (1 - rho^2) j'' < 0, an attractor
            if (interior++ == 0) first_interior = i;
        }
        i = e;
    }
    std::sort(d.refine.begin(), d.refine.end());
    d.refine.erase(std::unique(d.refine.begin(), d.refine.end()), d.refine.end());
    if (!d.refine.empty()) {
        d.note = fmt::format("{} cells where neither j' nor j'' has a certified sign (or a run is not resolved)",
                             d.refine.size());
        return d;
    }
    const bool ends_known = sign(0) != 0 && sign(n - 1) != 0;
    d.attractors = ends_known ? count : -1;
    if (sign(0) == 0) d.settle.push_back(0);
    if (sign(n - 1) == 0 && n > 1) d.settle.push_back(n - 1);
    if (recovery) {
        d.verdict = interior == 0 ? ProofVerdict::proved : ProofVerdict::disproved;
        const std::string at_ends =
            ends_known ? fmt::format("{} attractors, all at +-1", count)
                       : "whether an end attracts is not decided: j' has no certified sign there, j'' > 0";
        d.note = interior == 0 ? fmt::format("every equilibrium in (-1, 1) repels ({})", at_ends)
                               : fmt::format("{} attractor(s) in (-1, 1), the first with rho in [{}, {}]", interior,
                                             cells[first_interior].enc.rho.lo, cells[first_interior].enc.rho.hi);
        return d;
    }
    d.verdict = count == claim.attractors ? ProofVerdict::proved : ProofVerdict::disproved;
    d.note = fmt::format("exactly {} attractors", count);
    return d;
}

// filtering<=EPS: the noise mass 1 - E[A_I] at an end rho = +-1 lies in [1 - mass.hi, 1 - mass.lo]
// of the end cell (its mass encloses E[A_I] on the whole cell, the end included). +1 must be
// within EPS; -1 too when it attracts (the first cell's j' < 0), not when it repels (j' > 0).
// Only the end cells are refined.
CellsDecision noise_claim(const Claim& claim, const std::vector<ProofCell>& cells) {
    CellsDecision d;
    const double eps = claim.noise_max;
    const ProofCell& top = cells.back();
    const ProofCell& bottom = cells.front();
    const Interval plus{1 - top.enc.mass.hi, 1 - top.enc.mass.lo}, minus{1 - bottom.enc.mass.hi, 1 - bottom.enc.mass.lo};
    const bool attracts = bottom.role == "dj<0", repels = bottom.role == "dj>0";
    if (plus.lo > eps || (attracts && minus.lo > eps)) {
        d.verdict = ProofVerdict::disproved;
        d.note = plus.lo > eps ? fmt::format("the noise mass at rho = 1 is at least {} > {}", plus.lo, eps)
                               : fmt::format("-1 attracts and the noise mass there is at least {} > {}", minus.lo, eps);
        return d;
    }
    if (plus.hi > eps) d.refine.push_back(cells.size() - 1);
    if (!repels && minus.hi > eps && cells.size() > 1) d.refine.insert(d.refine.begin(), 0);
    if (!d.refine.empty()) {
        d.note = fmt::format("the noise mass at rho = 1 is within [{}, {}]{}: not decided against {}", plus.lo, plus.hi,
                             repels ? "" : fmt::format(", at -1 within [{}, {}]", minus.lo, minus.hi), eps);
        return d;
    }
    d.verdict = ProofVerdict::proved;
    d.note = fmt::format("the noise mass is at most {} at rho = 1 and {} at rho = -1 ({}), <= {}", plus.hi,
                         minus.hi, attracts ? "an attractor" : repels ? "a repeller" : "attracting or not", eps);
    return d;
}

CellsDecision hitting_claim(const Claim& claim, const std::vector<ProofCell>& cells) {
    CellsDecision d;
    if (cells.front().role == "dj<0") {
        d.note = "j'(rho0) < 0: the flow goes down; only upward hitting times are proved";
        return d;
    }
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (cells[i].role == "dj<0") {
            d.verdict = ProofVerdict::disproved;
            d.note = fmt::format("j' changes sign between rho0 and [{}, {}]: the level is never reached",
                                 cells[i].enc.rho.lo, cells[i].enc.rho.hi);
            return d;
        }
        if (cells[i].role != "dj>0") d.refine.push_back(i);
    }
    if (!d.refine.empty()) {
        d.note = fmt::format("{} cells without a certified sign of j'", d.refine.size());
        return d;
    }
    detail::ball_prec = 128;
    Ball lo(0.0), hi(0.0);
    std::vector<double> widths;
    for (const auto& c : cells) {
        Ball a(c.enc.rho.lo), b(c.enc.rho.hi), ta, tb;
        arb_atanh(ta.v, a.v, 128);
        arb_atanh(tb.v, b.v, 128);
        const Ball len = tb - ta;  // int_a^b drho / (1 - rho^2)
        const Ball l = len / Ball(c.enc.dj.hi), h = len / Ball(c.enc.dj.lo);
        lo += l;
        hi += h;
        widths.push_back(upper(h) - lower(l));
    }
    d.hitting_time = {lower(lo), upper(hi)};
    if (d.hitting_time.hi <= claim.t_max) {
        d.verdict = ProofVerdict::proved;
        d.note = fmt::format("T_hit in [{}, {}] <= {}", d.hitting_time.lo, d.hitting_time.hi, claim.t_max);
    } else if (d.hitting_time.lo > claim.t_max) {
        d.verdict = ProofVerdict::disproved;
        d.note = fmt::format("T_hit in [{}, {}] > {}", d.hitting_time.lo, d.hitting_time.hi, claim.t_max);
    } else {
        const double wmax = *std::max_element(widths.begin(), widths.end());
        for (std::size_t i = 0; i < widths.size(); ++i)
            if (widths[i] >= 0.25 * wmax) d.refine.push_back(i);
        d.note = fmt::format("T_hit in [{}, {}] contains T = {}", d.hitting_time.lo, d.hitting_time.hi, claim.t_max);
    }
    return d;
}

}  // namespace

CellsDecision decide_cells(const Claim& claim, const std::vector<ProofCell>& cells, double rho0, double hit_eps) {
    CellsDecision d;
    const Interval range = claim_rho_range(claim, rho0, hit_eps);
    if (cells.empty()) {
        d.note = "no cells";
        return d;
    }
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const Interval r = cells[i].enc.rho;
        const double expect_lo = i == 0 ? range.lo : cells[i - 1].enc.rho.hi;
        if (!(r.lo == expect_lo && r.lo < r.hi) || (i + 1 == cells.size() && r.hi != range.hi)) {
            d.note = fmt::format("the rho cells do not tile [{}, {}] (cell {} is [{}, {}])", range.lo, range.hi, i,
                                 r.lo, r.hi);
            return d;
        }
    }
    switch (claim.kind) {
        case ClaimKind::monotone:
        case ClaimKind::positive_drift: return sign_claim(cells);
        case ClaimKind::attractors:
        case ClaimKind::recovery: return attractor_claim(claim, cells);
        case ClaimKind::hitting_time: return hitting_claim(claim, cells);
        case ClaimKind::noise_mass: return noise_claim(claim, cells);
        default: d.note = "claim not supported by prove"; return d;
    }
}

// ----------------------------------------------------------------------------- the checker
namespace {

struct Errors {
    std::vector<std::string> list;
    void add(const std::string& s) {
        if (list.size() < 50) list.push_back(s);
    }
};

bool only_keys(const nlohmann::json& j, const std::set<std::string>& keys, const std::string& path, Errors& err) {
    if (!j.is_object()) {
        err.add(fmt::format("{}: must be an object", path.empty() ? "certificate" : path));
        return false;
    }
    bool ok = true;
    for (const auto& [k, v] : j.items())
        if (!keys.count(k)) {
            err.add(fmt::format("{}{}: unknown key", path.empty() ? "" : path + ".", k));
            ok = false;
        }
    for (const auto& k : keys)
        if (!j.contains(k)) {
            err.add(fmt::format("{}{}: missing", path.empty() ? "" : path + ".", k));
            ok = false;
        }
    return ok;
}

double finite_number(const nlohmann::json& j, const std::string& path, Errors& err) {
    if (!j.is_number() || !std::isfinite(j.get<double>())) {
        err.add(path + ": must be a finite number");
        return NAN;
    }
    return j.get<double>();
}

bool read_interval(const nlohmann::json& j, const std::string& path, Interval& out, Errors& err) {
    if (!only_keys(j, {"lo", "hi"}, path, err)) return false;
    out.lo = finite_number(j["lo"], path + ".lo", err);
    out.hi = finite_number(j["hi"], path + ".hi", err);
    if (!(out.lo <= out.hi)) {
        err.add(path + ": needs lo <= hi");
        return false;
    }
    return true;
}

std::int64_t read_integer(const nlohmann::json& j, const std::string& path, Errors& err) {
    if (!j.is_number_integer()) {
        err.add(path + ": must be an integer");
        return -1;
    }
    return j.get<std::int64_t>();
}

// An integer in [lo, hi] at `path` (else an error naming it).
bool integer_in(const nlohmann::json& j, const std::string& path, std::int64_t lo, std::int64_t hi, Errors& err) {
    if (!j.is_number_integer()) {
        err.add(path + ": must be an integer");
        return false;
    }
    // An unsigned value past int64 is out of range whatever the bounds (hi is an int64).
    const bool big = j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(hi);
    const std::int64_t v = big ? hi : j.get<std::int64_t>();
    if (big || v < lo || v > hi) {
        err.add(fmt::format("{}: must be an integer in [{}, {}]", path, lo, hi));
        return false;
    }
    return true;
}

// An enclosure's diagnostics (not part of the proof, but typed): precision, the error budget of j.
bool read_diagnostics(const nlohmann::json& e, const std::string& ep, FieldEnclosure& enc, Errors& err) {
    bool ok = integer_in(e["precision"], ep + ".precision", 1, 1 << 20, err);
    if (ok) enc.precision = e["precision"].get<int>();
    const auto& b = e["budget"];
    const std::string bp = ep + ".budget";
    if (!only_keys(b, {"inner", "outer", "tail_left", "tail_right", "lambda_lo", "lambda_hi", "inner_nodes", "outer_nodes"},
                   bp, err))
        return false;
    for (const char* k : {"inner", "outer", "tail_left", "tail_right", "lambda_lo", "lambda_hi"})
        ok = !std::isnan(finite_number(b[k], bp + "." + k, err)) && ok;
    for (const char* k : {"inner_nodes", "outer_nodes"})
        ok = integer_in(b[k], bp + "." + k, 0, std::numeric_limits<int>::max(), err) && ok;
    if (ok) enc.budget = b.get<EnclosureBudget>();
    return ok;
}

bool read_model(const nlohmann::json& j, const std::string& path, ModelCell& m, Errors& err) {
    if (!only_keys(j, {"d", "L", "R", "theta", "sigma", "beta"}, path, err)) return false;
    m.d = read_integer(j["d"], path + ".d", err);
    m.L = read_integer(j["L"], path + ".L", err);
    m.R = read_integer(j["R"], path + ".R", err);
    bool ok = read_interval(j["theta"], path + ".theta", m.theta, err);
    ok = read_interval(j["sigma"], path + ".sigma", m.sigma, err) && ok;
    ok = read_interval(j["beta"], path + ".beta", m.beta, err) && ok;
    if (!ok) return false;
    try {
        m.validate();
    } catch (const InvalidArgument& e) {
        err.add(fmt::format("{}: {}", path, e.what()));
        return false;
    }
    return true;
}

bool read_cell(const nlohmann::json& j, const std::string& path, ProofCell& c, Errors& err) {
    if (!only_keys(j, {"model", "enc", "role"}, path, err)) return false;
    if (!read_model(j["model"], path + ".model", c.model, err)) return false;
    const auto& e = j["enc"];
    const std::string ep = path + ".enc";
    if (!only_keys(e, {"rho", "j", "dj", "d2j", "mass", "precision", "budget"}, ep, err)) return false;
    bool ok = read_interval(e["rho"], ep + ".rho", c.enc.rho, err);
    ok = read_interval(e["j"], ep + ".j", c.enc.j, err) && ok;
    ok = read_interval(e["dj"], ep + ".dj", c.enc.dj, err) && ok;
    ok = read_interval(e["d2j"], ep + ".d2j", c.enc.d2j, err) && ok;
    ok = read_interval(e["mass"], ep + ".mass", c.enc.mass, err) && ok;
    ok = read_diagnostics(e, ep, c.enc, err) && ok;
    if (!ok) return false;
    if (c.enc.rho.lo < -1 || c.enc.rho.hi > 1) {
        err.add(ep + ".rho: must lie in [-1, 1]");
        return false;
    }
    if (!j["role"].is_string()) {
        err.add(path + ".role: must be a string");
        return false;
    }
    c.role = j["role"].get<std::string>();
    static const std::set<std::string> roles = {"dj>0", "dj<0", "d2j>0", "d2j<0", "undecided"};
    if (!roles.count(c.role)) {
        err.add(path + ".role: must be one of dj>0, dj<0, d2j>0, d2j<0, undecided");
        return false;
    }
    return true;
}

// params: exactly ProveParams' keys with their types (the checker reads claim, box, rigorous,
// rho0 and hit_eps; the search's own limits are only typed).
bool check_params_schema(const nlohmann::json& p, Errors& err) {
    // "meanfield" (true) is present only for the mean-field limit's proofs.
    std::set<std::string> keys = {"claim", "box", "rigorous", "initial_cells", "max_depth", "max_box_depth", "max_cells",
                                  "rho0", "hit_eps", "threads"};
    if (p.is_object() && p.contains("meanfield")) keys.insert("meanfield");
    if (!only_keys(p, keys, "params", err)) return false;
    bool ok = true;
    if (p.contains("meanfield") && p["meanfield"] != true) ok = (err.add("params.meanfield: must be true when present"), false);
    if (!p["claim"].is_string()) ok = (err.add("params.claim: must be a string"), false);
    if (only_keys(p["box"], {"d", "L", "R", "theta", "sigma", "beta"}, "params.box", err)) {
        for (int a = 0; a < axis_count; ++a) {
            const std::string k(axis_name(a)), path = "params.box." + k;
            const auto& r = p["box"][k];
            if (!only_keys(r, {"lo", "hi", "scale"}, path, err)) {
                ok = false;
                continue;
            }
            ok = !std::isnan(finite_number(r["lo"], path + ".lo", err)) && ok;
            ok = !std::isnan(finite_number(r["hi"], path + ".hi", err)) && ok;
            if (!r["scale"].is_string()) ok = (err.add(path + ".scale: must be a string"), false);
        }
    } else {
        ok = false;
    }
    if (only_keys(p["rigorous"], {"precision", "rel_tol"}, "params.rigorous", err)) {
        ok = integer_in(p["rigorous"]["precision"], "params.rigorous.precision", 64, 1024, err) && ok;
        ok = !std::isnan(finite_number(p["rigorous"]["rel_tol"], "params.rigorous.rel_tol", err)) && ok;
    } else {
        ok = false;
    }
    for (const char* k : {"initial_cells", "max_depth", "max_box_depth", "max_cells", "threads"})
        ok = integer_in(p[k], std::string("params.") + k, 0, std::int64_t(1) << 40, err) && ok;
    for (const char* k : {"rho0", "hit_eps"}) ok = !std::isnan(finite_number(p[k], std::string("params.") + k, err)) && ok;
    return ok;
}

using Box3 = std::array<Interval, 3>;
Box3 real_box(const ModelCell& m) { return {m.theta, m.sigma, m.beta}; }
bool contains(const Box3& outer, const Box3& inner) {
    for (int a = 0; a < 3; ++a)
        if (outer[a].lo > inner[a].lo || outer[a].hi < inner[a].hi) return false;
    return true;
}
bool meets(const Box3& a, const Box3& b) {
    for (int k = 0; k < 3; ++k)
        if (a[k].hi < b[k].lo || b[k].hi < a[k].lo) return false;
    return true;
}
// Whether the union of the closed boxes `cells` covers `target`: split target at a cell face
// inside it until one cell contains each piece.
bool covered(const Box3& target, const std::vector<Box3>& cells, int depth = 0) {
    if (depth > 200) return false;
    std::vector<Box3> near;
    for (const auto& c : cells)
        if (meets(c, target)) near.push_back(c);
    for (const auto& c : near)
        if (contains(c, target)) return true;
    for (const auto& c : near)
        for (int a = 0; a < 3; ++a)
            for (double x : {c[a].lo, c[a].hi})
                if (target[a].lo < x && x < target[a].hi) {
                    Box3 l = target, r = target;
                    l[a].hi = x;
                    r[a].lo = x;
                    return covered(l, near, depth + 1) && covered(r, near, depth + 1);
                }
    return false;
}

bool same_model(const ModelCell& a, const ModelCell& b) {
    auto eq = [](Interval x, Interval y) { return x.lo == y.lo && x.hi == y.hi; };
    return a.d == b.d && a.L == b.L && a.R == b.R && eq(a.theta, b.theta) && eq(a.sigma, b.sigma) && eq(a.beta, b.beta);
}

using detail::inside;

// A cell's enclosure recomputed, or why it could not be.
struct Recomputed {
    FieldEnclosure enc;
    std::string error;
    bool numerical = false;  // the error is a NumericalError (no finite enclosure)
};
void to_json(nlohmann::json& j, const Recomputed& r) { j = {{"enc", r.enc}, {"error", r.error}, {"numerical", r.numerical}}; }
void from_json(const nlohmann::json& j, Recomputed& r) {
    r.enc = j.at("enc").get<FieldEnclosure>();
    r.error = j.at("error").get<std::string>();
    r.numerical = j.at("numerical").get<bool>();
}

// The independent method bisects the cell where its enclosure does not fit the recorded one.
// The mean-field limit's: the prover's closed form (fast) or Taylor series (independent).
Recomputed recompute_one(const ProofCell& c, const RigorousParams& rig, EnclosureCache& cache, VerifyMethod method,
                         bool meanfield) {
    Recomputed r;
    try {
        if (meanfield)
            r.enc = method == VerifyMethod::fast ? enclose_meanfield(c.model, c.enc.rho, rig)
                                                 : enclose_meanfield_series_within(c.model, c.enc.rho, rig, c.enc);
        else
            r.enc = method == VerifyMethod::fast ? enclose_field(c.model, c.enc.rho, rig, &cache)
                                                 : enclose_field_independent_within(c.model, c.enc.rho, rig, c.enc);
    } catch (const NumericalError& ex) {
        r.error = ex.what();
        r.numerical = true;
    } catch (const std::exception& ex) {
        r.error = ex.what();
    }
    return r;
}

// Every cell's enclosure recomputed: in units for the executor (over the MPI team under
// Execution::team, each unit's cells on the threads); every rank gets all of them.
std::vector<Recomputed> recompute(const std::vector<ProofCell*>& all, const RigorousParams& rig, int threads,
                                  Execution ex, VerifyMethod method, bool meanfield) {
    EnclosureCache cache;  // changes no bit of an enclosure
    return map_indices<Recomputed>(ex, "recompute", static_cast<std::int64_t>(all.size()), threads, [&](std::int64_t k) {
        return recompute_one(*all[static_cast<std::size_t>(k)], rig, cache, method, meanfield);
    });
}

// An array of cells at `path` ("cells", "undecided"), each read strictly.
std::vector<ProofCell> read_cells(const nlohmann::json& j, const std::string& path, Errors& err) {
    if (!j.is_array()) {
        err.add(path + ": must be an array");
        return {};
    }
    std::vector<ProofCell> cells(j.size());
    for (std::size_t i = 0; i < cells.size(); ++i) read_cell(j[i], fmt::format("{}[{}]", path, i), cells[i], err);
    return cells;
}

// What is wrong with a recorded cell given its recomputation ("" if nothing): every enclosure
// (j, j', j'', E[A_I]) must contain the recomputed one and the role must follow. A cell the search
// could not enclose finitely is recorded as the whole line, undecided: accepted when the
// recomputation fails numerically too.
std::string cell_error(const ProofCell& c, const Recomputed& e, const Claim& claim, const std::string& path) {
    if (!e.error.empty()) {
        const Interval line{-1e308, 1e308};
        const bool wide = e.numerical && c.role == "undecided" && inside(line, c.enc.j) && inside(line, c.enc.dj) &&
                          inside(line, c.enc.d2j) && inside(line, c.enc.mass);
        return wide ? "" : fmt::format("{}: cannot be recomputed: {}", path, e.error);
    }
    const std::pair<const char*, Interval FieldEnclosure::*> parts[] = {
        {"j", &FieldEnclosure::j}, {"dj", &FieldEnclosure::dj}, {"d2j", &FieldEnclosure::d2j}, {"mass", &FieldEnclosure::mass}};
    for (const auto& [name, m] : parts)
        if (!inside(e.enc.*m, c.enc.*m)) return fmt::format("{}.enc.{}: does not contain the recomputed enclosure", path, name);
    if (role_of(claim, c.enc) != c.role)
        return fmt::format("{}.role: '{}' does not follow from the enclosure (it gives '{}')", path, c.role,
                           role_of(claim, c.enc));
    return "";
}

using Groups = std::vector<std::pair<ModelCell, std::vector<ProofCell>>>;

// The cells grouped by parameter cell, each group sorted by rho.
Groups group_cells(const std::vector<ProofCell>& cells) {
    Groups groups;
    for (const auto& c : cells) {
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return same_model(g.first, c.model); });
        if (it == groups.end()) groups.push_back({c.model, {c}});
        else it->second.push_back(c);
    }
    for (auto& g : groups)
        std::sort(g.second.begin(), g.second.end(), [](const ProofCell& a, const ProofCell& b) { return a.enc.rho.lo < b.enc.rho.lo; });
    return groups;
}

// One param_cells entry, strictly: its keys, the model, verdict, count, bracket, note.
bool read_param_cell(const nlohmann::json& j, const std::string& path, ParamCellResult& pc, Errors& err) {
    if (!only_keys(j, {"model", "verdict", "attractors", "hitting_time", "note"}, path, err)) return false;
    bool ok = read_model(j["model"], path + ".model", pc.model, err);
    ok = read_interval(j["hitting_time"], path + ".hitting_time", pc.hitting_time, err) && ok;
    if (integer_in(j["attractors"], path + ".attractors", -1, 1 << 20, err)) pc.attractors = j["attractors"].get<int>();
    else ok = false;
    if (!j["note"].is_string()) ok = (err.add(path + ".note: must be a string"), false);
    try {
        pc.verdict = parse_proof_verdict(j["verdict"].is_string() ? j["verdict"].get<std::string>() : "", path + ".verdict");
    } catch (const InvalidArgument& e) {
        err.add(e.what());
        ok = false;
    }
    return ok;
}

// Whether an entry's recorded count and bracket are those its cells give.
void check_decision(const ParamCellResult& pc, const CellsDecision& d, const Claim& claim, const std::string& path,
                    Errors& err) {
    if (d.verdict != pc.verdict)
        err.add(fmt::format("{}.verdict: '{}', but its cells give '{}'", path, to_string(pc.verdict), to_string(d.verdict)));
    if ((claim.kind == ClaimKind::attractors || claim.kind == ClaimKind::recovery) && d.attractors != pc.attractors)
        err.add(fmt::format("{}.attractors: {}, but its cells give {}", path, pc.attractors, d.attractors));
    if (d.hitting_time.lo != pc.hitting_time.lo || d.hitting_time.hi != pc.hitting_time.hi)
        err.add(fmt::format("{}.hitting_time: [{}, {}], but its cells give [{}, {}]", path, pc.hitting_time.lo,
                            pc.hitting_time.hi, d.hitting_time.lo, d.hitting_time.hi));
}

// param_cells: every entry matches decide_cells on its group exactly (verdict, count, T_hit
// bracket): a decided entry's group is in `cells`, a not-proved one's (its last complete rho
// tiling) in `undecided`, or it has none (no cell computed: nothing recorded). Every group has
// exactly one entry; a 'proved' certificate has only proved entries, a 'disproved' one at least
// one disproved.
void check_param_cells(const nlohmann::json& j, const Groups& groups, const Groups& open, const Claim& claim,
                       double rho0, double hit_eps, ProofVerdict verdict, Errors& err) {
    if (!j.is_array()) {
        err.add("param_cells: must be an array");
        return;
    }
    std::vector<ParamCellResult> pcs(j.size());
    bool ok = true;
    for (std::size_t i = 0; i < pcs.size(); ++i) ok = read_param_cell(j[i], fmt::format("param_cells[{}]", i), pcs[i], err) && ok;
    if (!ok) return;
    std::vector<int> seen(groups.size(), 0), seen_open(open.size(), 0);
    bool any_disproved = false;
    auto find = [](const Groups& gs, const ModelCell& m) {
        return std::find_if(gs.begin(), gs.end(), [&](const auto& x) { return same_model(x.first, m); });
    };
    for (std::size_t i = 0; i < pcs.size(); ++i) {
        const ParamCellResult& pc = pcs[i];
        const std::string path = fmt::format("param_cells[{}]", i);
        if (verdict == ProofVerdict::proved && pc.verdict != ProofVerdict::proved)
            err.add(path + ".verdict: a proved certificate has only proved parameter cells");
        any_disproved = any_disproved || pc.verdict == ProofVerdict::disproved;
        const bool decided = pc.verdict != ProofVerdict::not_proved;
        const Groups& gs = decided ? groups : open;
        const auto g = find(gs, pc.model);
        if (g == gs.end()) {
            if (decided) err.add(path + ".model: no cells of this parameter cell in 'cells'");
            else if (pc.attractors != -1 || pc.hitting_time.lo != 0 || pc.hitting_time.hi != 0)
                err.add(path + ": a count or a T_hit bracket without cells in 'undecided' to give it");
            continue;
        }
        ++(decided ? seen : seen_open)[static_cast<std::size_t>(g - gs.begin())];
        check_decision(pc, decide_cells(claim, g->second, rho0, hit_eps), claim, path, err);
    }
    for (std::size_t gi = 0; gi < groups.size(); ++gi)
        if (seen[gi] != 1)
            err.add(fmt::format("param_cells: the parameter cell {} of 'cells' has {} decided entries (must be 1)", gi, seen[gi]));
    for (std::size_t gi = 0; gi < open.size(); ++gi)
        if (seen_open[gi] != 1)
            err.add(fmt::format("param_cells: the parameter cell {} of 'undecided' has {} not-proved entries (must be 1)",
                                gi, seen_open[gi]));
    if (verdict == ProofVerdict::disproved && !any_disproved) err.add("param_cells: no disproved parameter cell");
}

// Tracks the path of every value while nlohmann parses, recording keys repeated in an object.
struct DuplicateKeys : nlohmann::json_sax<nlohmann::json> {
    struct Frame {
        bool array = false;
        std::size_t index = 0;    // arrays: the next element's index
        std::string key;          // objects: the current key
        std::set<std::string> keys;
    };
    std::vector<Frame> stack;
    std::vector<std::string> found;

    std::string path() const {
        std::string p;
        for (const auto& f : stack) p += f.array ? fmt::format("[{}]", f.index) : (p.empty() ? "" : ".") + f.key;
        return p;
    }
    bool value() {  // a value ends: the enclosing array moves on
        if (!stack.empty() && stack.back().array) ++stack.back().index;
        return true;
    }
    bool open(bool array) {
        stack.push_back({array, 0, "", {}});
        return true;
    }
    bool close() {
        stack.pop_back();
        return value();
    }
    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override { return open(false); }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(true); }
    bool end_array() override { return close(); }
    bool key(string_t& k) override {
        stack.back().key = k;
        if (!stack.back().keys.insert(k).second && found.size() < 50) found.push_back(path() + ": duplicate key");
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

// The certificate's keys, format and version strings.
bool check_header(const nlohmann::json& cert, Errors& err) {
    // "provenance" (build, command line, date: io/json.hpp) is optional and not checked: older
    // certificates have none.
    std::set<std::string> keys = {"format",      "rhoflow_version", "rhoflow_commit", "arb_version",
                                  "params",      "verdict",         "param_cells",    "cells",
                                  "undecided",   "counterexample",  "summary"};
    if (cert.is_object() && cert.contains("provenance")) keys.insert("provenance");
    if (!only_keys(cert, keys, "", err)) return false;
    if (cert["format"] != "rhoflow proof certificate 1") err.add("format: must be \"rhoflow proof certificate 1\"");
    for (const char* k : {"rhoflow_version", "rhoflow_commit", "arb_version"})
        if (!cert[k].is_string()) err.add(fmt::format("{}: must be a string", k));
    return true;
}

// The parameters that matter to the checker.
struct CheckedParams {
    Claim claim;
    ParamBox box;
    RigorousParams rig;
    double rho0 = 0, hit_eps = 0;
    bool meanfield = false;  // the mean-field limit's field, not the exact one
};

// The checked parameters from `p` (its schema already checked), or false with an error.
bool read_params(const nlohmann::json& p, CheckedParams& out, Errors& err) {
    try {
        if (!p.contains("claim") || !p["claim"].is_string()) throw InvalidArgument("params.claim", "must be a string");
        out.claim = parse_claim(p["claim"].get<std::string>(), "params.claim");
        if (out.claim.kind == ClaimKind::filtering)
            throw InvalidArgument("params.claim", "filtering is not proved by prove");
        out.box = p.at("box").get<ParamBox>();
        out.box.validate();
        out.rig = p.at("rigorous").get<RigorousParams>();
        out.rig.validate();
        out.meanfield = p.contains("meanfield");
        if (integer_combinations(out.box) > max_integer_combinations)  // before any loop over them
            throw InvalidArgument("params.box", fmt::format("params.box: {} integer combinations, more than {}",
                                                            combinations_text(out.box), max_integer_combinations));
        out.rho0 = p.at("rho0").get<double>();
        out.hit_eps = p.at("hit_eps").get<double>();
        const double rho0 = out.rho0, hit_eps = out.hit_eps;
        require(std::isfinite(rho0) && std::isfinite(hit_eps) && hit_eps > 0 && hit_eps <= 0.5 && rho0 > -1 &&
                    rho0 < 1 - hit_eps,
                "params.rho0", rho0, "-1 < rho0 < 1 - hit_eps, 0 < hit_eps <= 0.5");
    } catch (const std::exception& e) {
        err.add(fmt::format("params: {}", e.what()));
        return false;
    }
    return true;
}

// The certificate's cells: decided, undecided and the counterexample (if any).
struct CertificateCells {
    std::vector<ProofCell> cells, open;
    std::optional<ProofCell> counter;
};

CertificateCells read_certificate_cells(const nlohmann::json& cert, ProofVerdict verdict, Errors& err) {
    CertificateCells c;
    c.cells = read_cells(cert["cells"], "cells", err);
    c.open = read_cells(cert["undecided"], "undecided", err);
    if (verdict == ProofVerdict::proved && !c.open.empty()) err.add("undecided: a proved certificate has no undecided cells");
    if (!cert["counterexample"].is_null()) {
        c.counter.emplace();
        if (!read_cell(cert["counterexample"], "counterexample", *c.counter, err)) c.counter.reset();
    }
    return c;
}

// Every cell of the certificate with its path ("cells[3]", "undecided[0]", "counterexample").
struct CellList {
    std::vector<ProofCell*> all;
    std::vector<std::string> paths;
};

CellList list_cells(CertificateCells& c) {
    CellList l;
    for (std::size_t i = 0; i < c.cells.size(); ++i) l.all.push_back(&c.cells[i]), l.paths.push_back(fmt::format("cells[{}]", i));
    for (std::size_t i = 0; i < c.open.size(); ++i) l.all.push_back(&c.open[i]), l.paths.push_back(fmt::format("undecided[{}]", i));
    if (c.counter) l.all.push_back(&*c.counter), l.paths.push_back("counterexample");
    return l;
}

// Whether a cell's model lies in the box.
bool in_box(const ModelCell& m, const ParamBox& box) {
    auto in = [](double lo, double hi, const ParamRange& r) { return r.lo <= lo && hi <= r.hi; };
    return in(static_cast<double>(m.d), static_cast<double>(m.d), box.d) &&
           in(static_cast<double>(m.L), static_cast<double>(m.L), box.L) &&
           in(static_cast<double>(m.R), static_cast<double>(m.R), box.R) && in(m.theta.lo, m.theta.hi, box.theta) &&
           in(m.sigma.lo, m.sigma.hi, box.sigma) && in(m.beta.lo, m.beta.hi, box.beta);
}

// Coverage: every integer combination of the box (at most max_integer_combinations, checked with
// the params), the real axes without gaps.
void check_coverage(const Groups& groups, const ParamBox& box, Errors& err) {
    const Box3 target = {Interval{box.theta.lo, box.theta.hi}, Interval{box.sigma.lo, box.sigma.hi},
                         Interval{box.beta.lo, box.beta.hi}};
    for (auto d = static_cast<std::int64_t>(box.d.lo); d <= static_cast<std::int64_t>(box.d.hi); ++d)
        for (auto L = static_cast<std::int64_t>(box.L.lo); L <= static_cast<std::int64_t>(box.L.hi); ++L)
            for (auto R = static_cast<std::int64_t>(box.R.lo); R <= static_cast<std::int64_t>(box.R.hi); ++R) {
                std::vector<Box3> mine;
                for (const auto& g : groups)
                    if (g.first.d == d && g.first.L == L && g.first.R == R) mine.push_back(real_box(g.first));
                if (!covered(target, mine))
                    err.add(fmt::format("cells: the box is not covered at d={}, L={}, R={} (a parameter cell is missing)", d, L, R));
            }
}

// A proved certificate: every parameter cell proves the claim, and they cover the box.
void check_proved(const Groups& groups, const CheckedParams& p, Errors& err) {
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
        const CellsDecision d = decide_cells(p.claim, groups[gi].second, p.rho0, p.hit_eps);
        if (d.verdict != ProofVerdict::proved)
            err.add(fmt::format("cells: the parameter cell {} (d={}, L={}, R={}, theta=[{}, {}]) does not prove the claim: {}",
                                gi, groups[gi].first.d, groups[gi].first.L, groups[gi].first.R,
                                groups[gi].first.theta.lo, groups[gi].first.theta.hi, d.note));
    }
    check_coverage(groups, p.box, err);
}

// A disproved certificate: a counterexample cell (sign claims) or a disproving parameter cell.
void check_disproved(const Groups& groups, const std::optional<ProofCell>& counter, const CheckedParams& p,
                     Errors& err) {
    const Claim& claim = p.claim;
    bool found = false;
    if (counter && (claim.kind == ClaimKind::monotone || claim.kind == ClaimKind::positive_drift)) {
        const Interval range = claim_rho_range(claim, p.rho0, p.hit_eps);
        if (!in_box(counter->model, p.box)) err.add("counterexample.model: outside params.box");
        else if (counter->role != "dj<0") err.add("counterexample.role: must be dj<0");
        else if (!(range.lo <= counter->enc.rho.lo && counter->enc.rho.hi <= range.hi && counter->enc.rho.lo < counter->enc.rho.hi))
            err.add("counterexample.enc.rho: must be a proper interval inside the claim's range");
        else found = true;
    } else {
        for (const auto& g : groups)
            if (decide_cells(claim, g.second, p.rho0, p.hit_eps).verdict == ProofVerdict::disproved) found = true;
        if (!found) err.add("cells: no parameter cell disproves the claim");
    }
    if (!found && err.list.empty()) err.add("counterexample: missing");
}

}  // namespace

std::vector<std::string> duplicate_keys(const std::string& text) {
    DuplicateKeys sax;
    if (!nlohmann::json::sax_parse(text, &sax)) return {};
    return sax.found;
}

VerifyReport verify_certificate(const nlohmann::json& cert, int threads, Execution ex, VerifyMethod method) {
    VerifyReport rep;
    Errors err;
    auto done = [&]() {
        rep.errors = err.list;
        rep.valid = err.list.empty();
        return rep;
    };
    if (!check_header(cert, err)) return done();
    const auto& p = cert["params"];
    CheckedParams params;
    if (!check_params_schema(p, err) || !read_params(p, params, err)) return done();
    rep.meanfield = params.meanfield;
    ProofVerdict verdict = ProofVerdict::not_proved;
    try {
        verdict = parse_proof_verdict(cert["verdict"].is_string() ? cert["verdict"].get<std::string>() : "", "verdict");
    } catch (const std::exception& e) {
        err.add(e.what());
        return done();
    }
    CertificateCells cc = read_certificate_cells(cert, verdict, err);
    if (!err.list.empty()) return done();

    // 1. Every cell's enclosure, recomputed, lies inside the recorded one, and the role follows.
    const CellList listed = list_cells(cc);
    const std::vector<Recomputed> again = recompute(listed.all, params.rig, threads, ex, method, params.meanfield);
    for (std::size_t k = 0; k < listed.all.size(); ++k) {
        const std::string e = cell_error(*listed.all[k], again[k], params.claim, listed.paths[k]);
        if (!e.empty()) err.add(e);
    }
    rep.cells = listed.all.size();
    if (!err.list.empty()) return done();

    // 2. Every cell's model lies in the box.
    for (std::size_t k = 0; k < listed.all.size(); ++k)
        if (!in_box(listed.all[k]->model, params.box)) err.add(listed.paths[k] + ".model: outside params.box");
    if (!err.list.empty()) return done();

    // 3. Group the cells by parameter cell, sorted by rho; decide each group.
    const Groups groups = group_cells(cc.cells);

    // 4. The per-parameter-cell results a reader cites (verdict, attractor count, T_hit bracket)
    // are those the cells give; a decided parameter cell's cells are all in `cells`, a
    // not-proved one's in `undecided`.
    check_param_cells(cert["param_cells"], groups, group_cells(cc.open), params.claim, params.rho0, params.hit_eps,
                      verdict, err);
    if (verdict == ProofVerdict::proved) check_proved(groups, params, err);
    else if (verdict == ProofVerdict::disproved) check_disproved(groups, cc.counter, params, err);
    rep.verdict = verdict;
    return done();
}

}  // namespace rhoflow
