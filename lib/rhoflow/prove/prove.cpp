#include "rhoflow/prove/prove.hpp"
#include "rhoflow/rigorous/meanfield_enclosure.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <deque>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/exec/parallel.hpp"
#include "rhoflow/exec/units.hpp"
#include "rhoflow/prove/verify.hpp"
#include "rhoflow/version.hpp"

namespace rhoflow {

std::string to_string(ProofVerdict v) {
    switch (v) {
        case ProofVerdict::proved: return "proved";
        case ProofVerdict::disproved: return "disproved";
        default: return "not proved";
    }
}

ProofVerdict parse_proof_verdict(const std::string& text, const std::string& field) {
    if (text == "proved") return ProofVerdict::proved;
    if (text == "disproved") return ProofVerdict::disproved;
    if (text == "not proved") return ProofVerdict::not_proved;
    throw InvalidArgument(field, fmt::format("{} = '{}' is not a verdict (accepted: proved, disproved, not proved)", field, text));
}

void to_json(nlohmann::json& j, const ProofVerdict& v) { j = to_string(v); }
void from_json(const nlohmann::json& j, ProofVerdict& v) { v = parse_proof_verdict(j.get<std::string>(), "verdict"); }

// "meanfield": true only for the mean-field limit, so that every exact-field certificate keeps its bytes.
RHOFLOW_JSON_HOOKS_WITH_FLAG(ProveParams, meanfield, claim, box, rigorous, initial_cells, max_depth, max_box_depth,
                             max_cells, rho0, hit_eps, threads)
RHOFLOW_JSON_HOOKS(ProofCell, model, enc, role)
RHOFLOW_JSON_HOOKS(ParamCellResult, model, verdict, attractors, hitting_time, note)
RHOFLOW_JSON_HOOKS(ProveDiagnostics, seconds, enclosures, threads, ranks, max_depth_reached)
RHOFLOW_JSON_HOOKS(ProveResult, claim, box, verdict, param_cells, cells, undecided, counterexample, min_width_rel,
                   diagnostics)

void ProveParams::validate() const {
    claim.validate();
    if (claim.kind == ClaimKind::filtering)
        throw InvalidArgument("claim", "claim = 'filtering' is not proved by prove (accepted: monotone, positive-drift, "
                                       "attractors=N, hitting-time<=T, filtering<=EPS; rhoflow check decides filtering)");
    box.validate();
    rigorous.validate();
    require(initial_cells >= 2 && initial_cells <= 4096, "initial_cells", initial_cells, "2 <= initial_cells <= 4096");
    require(max_depth >= 0 && max_depth <= 40, "max_depth", max_depth, "0 <= max_depth <= 40");
    require(max_box_depth >= 0 && max_box_depth <= 20, "max_box_depth", max_box_depth, "0 <= max_box_depth <= 20");
    require(max_cells >= 1 && max_cells <= 10000000, "max_cells", static_cast<double>(max_cells), "1 <= max_cells <= 1e7");
    require_in("hit_eps", hit_eps, 1e-12, 0.5);
    require(std::isfinite(rho0) && rho0 > -1 && rho0 < 1 - hit_eps, "rho0", rho0, "-1 < rho0 < 1 - hit_eps");
    require(threads >= 0 && threads <= 4096, "threads", threads, "0 <= threads <= 4096");
    if (integer_combinations(box) > max_integer_combinations) {
        const char* widest = integer_values(box.L) >= std::max(integer_values(box.d), integer_values(box.R)) ? "box.L"
                             : integer_values(box.d) >= integer_values(box.R)                               ? "box.d"
                                                                                                             : "box.R";
        throw InvalidArgument(widest, fmt::format("the box has {} integer combinations, more than {} (each is proved "
                                                  "separately; accepted: at most {} combinations of d, L, R)",
                                                  combinations_text(box), max_integer_combinations,
                                                  max_integer_combinations));
    }
    // Every corner's tau = beta sigma and L in the rigorous field's range.
    ModelCell c;
    c.d = static_cast<std::int64_t>(box.d.lo);
    c.L = static_cast<std::int64_t>(box.L.lo);
    c.R = static_cast<std::int64_t>(std::min(box.R.hi, box.L.lo));
    c.theta = {box.theta.lo, box.theta.hi};
    c.sigma = {box.sigma.lo, box.sigma.hi};
    c.beta = {box.beta.lo, box.beta.hi};
    try {
        c.validate();
    } catch (const InvalidArgument& e) {
        std::string f = e.field();
        if (f.rfind("cell.", 0) == 0) f = "box." + f.substr(5);
        throw InvalidArgument(f, e.what());
    }
}

namespace {

struct Search {
    const ProveParams& p;
    ProveResult& res;
    Execution ex = Execution::local;
    int threads = 1;
    bool budget_out = false;
    std::int64_t budget = 0;  // the enclosure count the search may reach (max_cells, plus what witnesses spent)
    EnclosureCache cache;  // class N's sums, shared by every cell (no bit depends on it)

    // Encloses the cells lacking an enclosure: a batch cut into units for the executor (over the
    // MPI team under Execution::team, each unit's cells on the threads); every rank gets every
    // enclosure, the same bits, so every rank takes the same next step of the search.
    void enclose(const ModelCell& m, std::vector<ProofCell>& cells, const std::vector<std::size_t>& todo) {
        const std::vector<FieldEnclosure> got = map_indices<FieldEnclosure>(
            ex, "enclosures", static_cast<std::int64_t>(todo.size()), threads,
            [&](std::int64_t k) { return enclose_or_wide(m, cells[todo[static_cast<std::size_t>(k)]].enc.rho); });
        for (std::size_t k = 0; k < todo.size(); ++k) cells[todo[k]].enc = got[k];
        for (std::size_t i : todo) cells[i].role = role_of(p.claim, cells[i].enc);
        res.diagnostics.enclosures += static_cast<std::int64_t>(todo.size());
    }

    // An enclosure, or (when it cannot be computed finitely) the whole line: an undecided cell.
    FieldEnclosure enclose_or_wide(const ModelCell& m, Interval rho) {
        try {
            return p.meanfield ? enclose_meanfield(m, rho, p.rigorous) : enclose_field(m, rho, p.rigorous, &cache);
        } catch (const NumericalError&) {
            FieldEnclosure e;
            e.rho = rho;
            e.j = e.dj = e.d2j = e.mass = {-1e308, 1e308};
            return e;
        }
    }

    // The rho search for one parameter cell.
    // `depth_cap`: bisections of a rho cell allowed for this parameter cell. A wide parameter
    // cell gets few (its enclosures stay wide however narrow the rho cells), then is bisected.
    // `splittable`: stop as soon as bisecting rho stops narrowing the enclosures (a child keeps
    // more than kStagnation of its parent's width): the parameter cell's width dominates.
    // `inherited`: the last tiling of the parameter cell that m halves, or empty. Its decided
    // cells of the initial width keep their enclosures (an enclosure over a parameter cell holds
    // over each half, and the checker recomputes each cell on m), so the half does not compute
    // again what its parent decided at the first level; the rest starts from the initial cells.
    // Where a half's own enclosure lies inside its parent's (in every case measured) it decides
    // what the parent's decided: the tiling is the one a fresh search reaches, with fewer enclosures.
    CellsDecision rho_search(const ModelCell& m, std::vector<ProofCell>& cells, int depth_cap, bool splittable,
                             const std::vector<ProofCell>& inherited = {}) {
        const Interval range = claim_rho_range(p.claim, p.rho0, p.hit_eps);
        const int n0 = p.initial_cells;
        const double initial_width = (range.hi - range.lo) / n0;
        auto grid = [&](int i) { return i == 0 ? range.lo : i == n0 ? range.hi : range.lo + (range.hi - range.lo) * i / n0; };
        cells.clear();
        std::vector<std::size_t> todo;
        std::size_t at = 0;  // the first inherited cell not yet passed
        for (int i = 0; i < n0; ++i) {
            const double lo = grid(i), hi = grid(i + 1);
            while (at < inherited.size() && inherited[at].enc.rho.hi <= lo) ++at;
            ProofCell c;
            if (at < inherited.size() && inherited[at].enc.rho.lo == lo && inherited[at].enc.rho.hi == hi &&
                inherited[at].role != "undecided")  // a decided initial cell, left whole
                c = inherited[at];
            else {
                c.enc.rho = {lo, hi};
                todo.push_back(cells.size());
            }
            c.model = m;
            cells.push_back(c);
        }
        const double min_width = initial_width / std::ldexp(1.0, depth_cap) * 0.999;
        std::vector<Interval> parent(cells.size(), Interval{0, 0});  // (dj, d2j) widths of a child's parent
        std::vector<ProofCell> last;  // the last tiling whose every cell is enclosed, and its decision
        CellsDecision last_d;
        std::vector<ProofCell> proved;  // settling the count: the last tiling that proved the claim
        CellsDecision proved_d;
        for (;;) {
            if (res.diagnostics.enclosures + static_cast<std::int64_t>(todo.size()) > budget) {
                if (proved.empty()) return out_of_budget(cells, todo.size(), last, last_d);
                cells.swap(proved);  // settling the count ran out of budget: the proof stands
                return proved_d;
            }
            enclose(m, cells, todo);
            CellsDecision d = decide_cells(p.claim, cells, p.rho0, p.hit_eps);
            if (!proved.empty() && d.verdict != ProofVerdict::proved) {  // a finer tiling must not undo a proof
                cells.swap(proved);
                return proved_d;
            }
            last = cells;
            last_d = d;
            // A recovery proof with an end of unknown stability: its end cells are bisected while
            // the depth allows, for the count of attractors at +-1 (the verdict is settled).
            const bool settling = d.verdict == ProofVerdict::proved && !d.settle.empty();
            if (settling) {
                proved = cells;
                proved_d = d;
                d.refine = d.settle;
            }
            if ((d.verdict != ProofVerdict::not_proved && !settling) || d.refine.empty()) return d;
            if (!settling && splittable && stagnated(cells, parent, d.refine)) {
                d.note += " (rho bisection no longer narrows the enclosures: the parameter cell is split)";
                return d;
            }
            // Bisect every cell the decision names (if still wider than the depth limit).
            std::vector<ProofCell> next;
            todo.clear();
            bool any = false;
            std::vector<bool> split(cells.size(), false);
            for (std::size_t i : d.refine)
                if (cells[i].enc.rho.width() > 2 * min_width) split[i] = any = true;
            if (!any) {
                if (!settling) d.note += fmt::format(" (depth limit {} reached)", depth_cap);
                return d;
            }
            std::vector<Interval> next_parent;
            for (std::size_t i = 0; i < cells.size(); ++i) {
                if (!split[i]) {
                    next.push_back(cells[i]);
                    next_parent.push_back({0, 0});
                    continue;
                }
                const Interval r = cells[i].enc.rho;
                const double mid = 0.5 * (r.lo + r.hi);
                for (Interval h : {Interval{r.lo, mid}, Interval{mid, r.hi}}) {
                    ProofCell c;
                    c.model = m;
                    c.enc.rho = h;
                    todo.push_back(next.size());
                    next.push_back(c);
                    next_parent.push_back({p.claim.kind == ClaimKind::noise_mass ? cells[i].enc.mass.width()
                                                                                  : cells[i].enc.dj.width(),
                                           cells[i].enc.d2j.width()});
                }
                const int depth = static_cast<int>(std::lround(std::log2((range.hi - range.lo) / n0 / (mid - r.lo))));
                res.diagnostics.max_depth_reached = std::max(res.diagnostics.max_depth_reached, depth);
            }
            cells.swap(next);
            parent.swap(next_parent);
        }
    }

    // --max-cells reached before `pending` cells could be enclosed: the parameter cell ends at its
    // last tiling whose every cell is enclosed (its undecided cells and T_hit bracket as decided
    // then), or with no cell when not even the first tiling fits. Nothing is recorded unenclosed.
    CellsDecision out_of_budget(std::vector<ProofCell>& cells, std::size_t pending, std::vector<ProofCell>& last,
                                CellsDecision& last_d) {
        budget_out = true;
        cells.swap(last);
        CellsDecision d = cells.empty() ? CellsDecision{} : last_d;
        d.verdict = ProofVerdict::not_proved;
        d.note = fmt::format("{}{}stopped at max_cells = {}: {} further cells not computed", d.note,
                             d.note.empty() ? "" : "; ", p.max_cells, pending);
        return d;
    }

    // Whether an undecided cell just bisected kept more than kStagnation of its parent's width
    // (of j', and for attractors also of j'').
    bool stagnated(const std::vector<ProofCell>& cells, const std::vector<Interval>& parent,
                   const std::vector<std::size_t>& refine) const {
        constexpr double kStagnation = 0.7;
        for (std::size_t i : refine) {
            const Interval w = parent[i];
            if (w.lo <= 0) continue;  // not a fresh child
            const bool dj = p.claim.kind == ClaimKind::noise_mass
                                ? cells[i].enc.mass.width() > kStagnation * w.lo  // the mass decides, not j'
                                : cells[i].enc.dj.width() > kStagnation * w.lo;
            const bool d2j = cells[i].enc.d2j.width() > kStagnation * w.hi;
            const bool roots = p.claim.kind == ClaimKind::attractors || p.claim.kind == ClaimKind::recovery;
            if (dj && (!roots || d2j)) return true;
        }
        return false;
    }
};

// Whether the claim's decision reads only the cells' roles (not their enclosures' values, as the
// T_hit and noise-mass brackets do): then a half may inherit its parent's decided cells.
bool decided_by_roles(const Claim& claim) {
    return claim.kind == ClaimKind::monotone || claim.kind == ClaimKind::positive_drift ||
           claim.kind == ClaimKind::attractors || claim.kind == ClaimKind::recovery;
}

// Rho bisections tried on a parameter cell that could still be split.
constexpr int kSplitDepth = 4;

// Splits a parameter cell along its widest real axis (relative width); false if none is ranged.
bool bisect_model(const ModelCell& m, ModelCell& a, ModelCell& b) {
    Interval ModelCell::*axes[3] = {&ModelCell::theta, &ModelCell::sigma, &ModelCell::beta};
    int best = -1;
    double wbest = 0;
    for (int k = 0; k < 3; ++k) {
        const Interval v = m.*axes[k];
        const double w = v.width() / std::max(std::abs(v.hi), 1e-300);
        if (w > wbest) {
            wbest = w;
            best = k;
        }
    }
    if (best < 0) return false;
    a = b = m;
    const Interval v = m.*axes[best];
    const double mid = 0.5 * (v.lo + v.hi);
    (a.*axes[best]).hi = mid;
    (b.*axes[best]).lo = mid;
    return true;
}

// Witnesses tried before a box is searched (kWitnesses at most): its corners, then its centre,
// within a tenth of max_cells (at least kWitnessCells) of their own.
constexpr std::size_t kWitnesses = 16;
constexpr std::int64_t kWitnessCells = 256;

// The point models a claim over a box is first tried at, in a fixed order: the corners of its
// ranged axes (all high ends, all low ends, then the rest by bit mask; integers at their ends),
// then the centre (integers rounded down): at most kWitnesses - 1 corners, so the centre is
// always tried. None for a box whose real axes (theta, sigma, beta) are single values: its
// parameter cells are point models already, searched one by one. None with R = 0 or theta = 0
// (j' = 0 exactly there). A claim for every model of the box fails at a corner
// first when it fails towards an end of a parameter, as the sign of j'(-1) does in theta.
std::vector<ModelCell> witness_points(const ParamBox& box) {
    const auto axes = box.axes();
    std::vector<int> ranged;
    for (int k = 0; k < axis_count; ++k)
        if (axes[static_cast<std::size_t>(k)]->ranged()) ranged.push_back(k);
    std::vector<ModelCell> out;
    if (ranged.empty() || ranged.back() <= 2) return out;  // no real axis ranged (d, L, R are axes 0-2)
    auto point = [&](unsigned mask, bool centre) {
        std::array<double, axis_count> v{};
        for (int k = 0; k < axis_count; ++k) v[static_cast<std::size_t>(k)] = axes[static_cast<std::size_t>(k)]->lo;
        for (std::size_t i = 0; i < ranged.size(); ++i) {
            const ParamRange& r = *axes[static_cast<std::size_t>(ranged[i])];
            const bool integer = ranged[i] <= 2;  // d, L, R
            const double mid = integer ? std::floor(0.5 * (r.lo + r.hi)) : 0.5 * (r.lo + r.hi);
            v[static_cast<std::size_t>(ranged[i])] = centre ? mid : ((mask >> i) & 1u) ? r.hi : r.lo;
        }
        ModelCell m;
        m.d = static_cast<std::int64_t>(v[0]);
        m.L = static_cast<std::int64_t>(v[1]);
        m.R = static_cast<std::int64_t>(v[2]);
        m.theta = {v[3], v[3]};
        m.sigma = {v[4], v[4]};
        m.beta = {v[5], v[5]};
        return m;
    };
    const unsigned corners = 1u << ranged.size(), all = corners - 1;
    std::vector<unsigned> order = {all, 0};
    for (unsigned mask = 1; mask < all; ++mask) order.push_back(mask);
    for (unsigned mask : order)
        if (out.size() + 1 < kWitnesses) out.push_back(point(mask, false));
    out.push_back(point(0, true));
    std::erase_if(out, [](const ModelCell& m) { return m.R == 0 || m.theta.hi == 0; });
    return out;
}

// Keeps a decided parameter cell's cells in the certificate, and the widest deciding j' enclosure.
void keep_cells(ProveResult& res, const std::vector<ProofCell>& cells) {
    for (const auto& c : cells) {
        res.cells.push_back(c);
        if (c.role == "dj>0" || c.role == "dj<0") {
            const double mag = std::max(std::abs(c.enc.dj.lo), std::abs(c.enc.dj.hi));
            res.min_width_rel = std::max(res.min_width_rel, c.enc.dj.width() / std::max(mag, 1e-300));
        }
    }
}

// The verdict disproved by `cells`, and for sign claims their first cell with j' < 0.
void mark_disproved(ProveResult& res, const ProveParams& params, const std::vector<ProofCell>& cells) {
    res.verdict = ProofVerdict::disproved;
    if (params.claim.kind == ClaimKind::monotone || params.claim.kind == ClaimKind::positive_drift)
        for (const auto& c : cells)
            if (c.role == "dj<0") {
                res.counterexample = c;
                break;
            }
}

// The certificate of a claim disproved at one point model of the box: that parameter cell alone.
void record_witness(ProveResult& res, const ProveParams& params, const ModelCell& m, const CellsDecision& d,
                    const std::vector<ProofCell>& cells) {
    ParamCellResult pc;
    pc.model = m;
    pc.verdict = d.verdict;
    pc.attractors = d.attractors;
    pc.hitting_time = d.hitting_time;
    pc.note = d.note + " (a witness: a point of the box tried before the box was searched)";
    res.param_cells.push_back(pc);
    keep_cells(res, cells);
    mark_disproved(res, params, cells);
}

// Tries the box's witness points (witness_points) in order, each searched in rho to the full
// depth, within their own budget; stops at the first that disproves the claim, recorded as the
// whole certificate. True when one did. Points that prove or cannot decide the claim leave
// nothing but their count; the box search then gets its whole max_cells.
bool disproved_at_a_witness(Search& s, ProveResult& res, const ProveParams& params) {
    s.budget = std::min(params.max_cells, std::max(kWitnessCells, params.max_cells / 10));
    for (const ModelCell& m : witness_points(params.box)) {
        std::vector<ProofCell> cells;
        const CellsDecision d = s.rho_search(m, cells, params.max_depth, false);
        if (s.budget_out) return false;
        if (d.verdict == ProofVerdict::disproved) {
            record_witness(res, params, m, d, cells);
            return true;
        }
    }
    return false;
}

}  // namespace

ProveResult run_prove(const ProveParams& params, Execution ex) {
    params.validate();
    const auto t0 = std::chrono::steady_clock::now();
    ProveResult res;
    res.claim = params.claim;
    res.box = params.box;
    Search s{params, res, ex, 1, false, params.max_cells, {}};
    s.threads = resolve_threads(params.threads);
    res.diagnostics.threads = s.threads;
    res.diagnostics.ranks = ranks_for(ex);

    struct Pending {
        ModelCell model;
        int depth = 0;
        std::vector<ProofCell> inherited;  // the parent's last tiling (rho_search)
    };
    std::deque<Pending> queue;
    for (auto d = static_cast<std::int64_t>(params.box.d.lo); d <= static_cast<std::int64_t>(params.box.d.hi); ++d)
        for (auto L = static_cast<std::int64_t>(params.box.L.lo); L <= static_cast<std::int64_t>(params.box.L.hi); ++L)
            for (auto R = static_cast<std::int64_t>(params.box.R.lo); R <= static_cast<std::int64_t>(params.box.R.hi); ++R) {
                ModelCell m;
                m.d = d;
                m.L = L;
                m.R = R;
                m.theta = {params.box.theta.lo, params.box.theta.hi};
                m.sigma = {params.box.sigma.lo, params.box.sigma.hi};
                m.beta = {params.box.beta.lo, params.box.beta.hi};
                m.validate();
                queue.push_back({m, 0, {}});
            }
    // A disproof needs one witness: a claim for every model of the box is first tried at its
    // corners and centre, so that a counterexample at an end of a range is found at the cost of
    // a few point searches, not after the whole box was searched cell by cell.
    if (disproved_at_a_witness(s, res, params)) queue.clear();
    s.budget_out = false;  // witnesses out of their budget: the box search has its own
    s.budget = res.diagnostics.enclosures + params.max_cells;
    bool undecided = false;
    while (!queue.empty()) {
        auto [m, depth, inherited] = std::move(queue.front());
        queue.pop_front();
        std::vector<ProofCell> cells;
        ModelCell a, b;
        if (m.R == 0 || m.theta.hi == 0) {  // j' = 0 exactly: no cell can ever decide a sign, so do not search
            ParamCellResult pc;
            pc.model = m;
            pc.note = "j' = 0 exactly on this parameter cell (R = 0 or theta = 0): its sign claims can be neither "
                      "proved nor disproved by enclosures (rhoflow check decides this case exactly)";
            res.param_cells.push_back(pc);
            undecided = true;
            continue;
        }
        const bool can_split = depth < params.max_box_depth && bisect_model(m, a, b);
        // filtering<=EPS bisects only its two end cells, so a deep rho search costs little: its
        // parameter cell is split only once rho bisection stops narrowing the mass (kSplitDepth
        // would split it again and again while the end cell, not the parameter cell, is too wide).
        const bool shallow = can_split && params.claim.kind != ClaimKind::noise_mass;
        const CellsDecision d =
            s.rho_search(m, cells, shallow ? std::min(params.max_depth, kSplitDepth) : params.max_depth, can_split,
                         inherited);
        if (d.verdict == ProofVerdict::not_proved && !s.budget_out && can_split) {
            // T_hit and E[A_I] brackets read the half's own enclosures. The mean-field limit's are
            // tight to rounding at a shared corner, so a half's can end a rounding beyond its parent's
            // (the checker would reject the inherited cell); they are cheap, so recompute them.
            if (!decided_by_roles(params.claim) || params.meanfield) cells.clear();
            queue.push_front({b, depth + 1, cells});
            queue.push_front({a, depth + 1, std::move(cells)});
            continue;
        }
        ParamCellResult pc;
        pc.model = m;
        pc.verdict = d.verdict;
        pc.attractors = d.attractors;
        pc.hitting_time = d.hitting_time;
        pc.note = d.note;
        res.param_cells.push_back(pc);
        if (d.verdict == ProofVerdict::not_proved) {
            undecided = true;
            res.undecided.insert(res.undecided.end(), cells.begin(), cells.end());  // its last enclosed tiling
            if (s.budget_out) break;
            continue;
        }
        keep_cells(res, cells);
        if (d.verdict == ProofVerdict::disproved) {
            mark_disproved(res, params, cells);
            break;
        }
    }
    if (res.verdict != ProofVerdict::disproved)
        res.verdict = undecided || !queue.empty() ? ProofVerdict::not_proved : ProofVerdict::proved;
    res.diagnostics.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

std::string build_commit() { return git_commit(); }

nlohmann::json certificate(const ProveParams& params, const ProveResult& r) {
    nlohmann::json j;
    j["format"] = "rhoflow proof certificate 1";
    j["rhoflow_version"] = version;
    j["rhoflow_commit"] = build_commit();
    j["arb_version"] = arb_version_text();
    nlohmann::json p = params;
    p["claim"] = to_string(params.claim);
    j["params"] = p;
    j["verdict"] = to_string(r.verdict);
    j["param_cells"] = r.param_cells;
    j["cells"] = r.cells;
    j["undecided"] = r.undecided;
    j["counterexample"] = r.counterexample ? nlohmann::json(*r.counterexample) : nlohmann::json(nullptr);
    j["summary"] = {{"cells", r.cells.size()},
                    {"param_cells", r.param_cells.size()},
                    {"enclosures", r.diagnostics.enclosures},
                    {"max_depth_reached", r.diagnostics.max_depth_reached},
                    {"max_dj_width_rel", r.min_width_rel}};
    return j;
}

}  // namespace rhoflow
