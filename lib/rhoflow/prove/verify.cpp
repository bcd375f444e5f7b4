#include "rhoflow/prove/verify.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/exec/parallel.hpp"
#include "rhoflow/exec/team.hpp"
#include "rhoflow/exec/units.hpp"
#include "rhoflow/rigorous/detail/ball.hpp"
#include "rhoflow/rigorous/independent_enclosure.hpp"

namespace rhoflow {

using detail::Ball;

std::string role_of(const Claim& claim, const FieldEnclosure& e) {
    if (e.dj.lo > 0) return "dj>0";
    if (e.dj.hi < 0) return "dj<0";
    if (claim.kind == ClaimKind::attractors) {
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
    for (std::size_t i = 0; i < n; ++i)
        if (cells[i].role == "undecided") d.refine.push_back(i);
    if (sign(0) == 0) d.refine.push_back(0);
    if (sign(n - 1) == 0) d.refine.push_back(n - 1);
    int count = 0;
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
        bool ok = !mixed && sl != 0 && sr != 0;
        if (ok && sl != sr) ok = (sl > 0) == decreasing;  // + to - needs j' decreasing, - to + increasing
        if (!ok) {
            for (std::size_t k = i; k < e; ++k) d.refine.push_back(k);
        } else if (sl > 0 && sr < 0) {
            ++count;  // a zero of j' with j'' < 0: F' = (1 - rho^2) j'' < 0, an attractor
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
    d.attractors = count;
    d.verdict = count == claim.attractors ? ProofVerdict::proved : ProofVerdict::disproved;
    d.note = fmt::format("exactly {} attractors", count);
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
        case ClaimKind::attractors: return attractor_claim(claim, cells);
        case ClaimKind::hitting_time: return hitting_claim(claim, cells);
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

bool inside(Interval in, Interval out) { return out.lo <= in.lo && in.hi <= out.hi; }

// A cell's enclosure recomputed, or why it could not be.
struct Recomputed {
    FieldEnclosure enc;
    std::string error;
};
void to_json(nlohmann::json& j, const Recomputed& r) { j = {{"enc", r.enc}, {"error", r.error}}; }
void from_json(const nlohmann::json& j, Recomputed& r) {
    r.enc = j.at("enc").get<FieldEnclosure>();
    r.error = j.at("error").get<std::string>();
}

// The independent method bisects the cell where its enclosure does not fit the recorded one.
Recomputed recompute_one(const ProofCell& c, const RigorousParams& rig, EnclosureCache& cache, VerifyMethod method) {
    Recomputed r;
    try {
        r.enc = method == VerifyMethod::fast ? enclose_field(c.model, c.enc.rho, rig, &cache)
                                             : enclose_field_independent_within(c.model, c.enc.rho, rig, c.enc);
    } catch (const std::exception& ex) {
        r.error = ex.what();
    }
    return r;
}

// Every cell's enclosure recomputed: in units for the executor (over the MPI team under
// Execution::team, each unit's cells on the threads); every rank gets all of them.
std::vector<Recomputed> recompute(const std::vector<ProofCell*>& all, const RigorousParams& rig, int threads,
                                  Execution ex, VerifyMethod method) {
    EnclosureCache cache;  // changes no bit of an enclosure
    return map_indices<Recomputed>(ex, UnitKind::recompute, static_cast<std::int64_t>(all.size()), threads, [&](std::int64_t k) {
        return recompute_one(*all[static_cast<std::size_t>(k)], rig, cache, method);
    });
}

using Groups = std::vector<std::pair<ModelCell, std::vector<ProofCell>>>;

// param_cells: every decided entry matches decide_cells on its group exactly (verdict, count,
// T_hit bracket); every group has one decided entry; a 'proved' certificate has only proved
// entries, a 'disproved' one at least one disproved. Not-proved entries list no cells (their
// undecided cells are under "undecided") and are only counted.
void check_param_cells(const nlohmann::json& j, const Groups& groups, const Claim& claim, double rho0, double hit_eps,
                       ProofVerdict verdict, Errors& err) {
    std::vector<ParamCellResult> pcs;
    try {
        if (!j.is_array()) throw std::runtime_error("must be an array");
        pcs = j.get<std::vector<ParamCellResult>>();
    } catch (const std::exception& e) {
        err.add(fmt::format("param_cells: {}", e.what()));
        return;
    }
    std::vector<int> seen(groups.size(), 0);
    bool any_disproved = false;
    for (std::size_t i = 0; i < pcs.size(); ++i) {
        const ParamCellResult& pc = pcs[i];
        const std::string path = fmt::format("param_cells[{}]", i);
        if (verdict == ProofVerdict::proved && pc.verdict != ProofVerdict::proved)
            err.add(path + ".verdict: a proved certificate has only proved parameter cells");
        if (pc.verdict == ProofVerdict::not_proved) continue;
        any_disproved = any_disproved || pc.verdict == ProofVerdict::disproved;
        const auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return same_model(x.first, pc.model); });
        if (g == groups.end()) {
            err.add(path + ".model: no cells of this parameter cell in 'cells'");
            continue;
        }
        ++seen[static_cast<std::size_t>(g - groups.begin())];
        const CellsDecision d = decide_cells(claim, g->second, rho0, hit_eps);
        if (d.verdict != pc.verdict)
            err.add(fmt::format("{}.verdict: '{}', but its cells give '{}'", path, to_string(pc.verdict), to_string(d.verdict)));
        if (claim.kind == ClaimKind::attractors && d.attractors != pc.attractors)
            err.add(fmt::format("{}.attractors: {}, but its cells give {}", path, pc.attractors, d.attractors));
        if (claim.kind == ClaimKind::hitting_time &&
            (d.hitting_time.lo != pc.hitting_time.lo || d.hitting_time.hi != pc.hitting_time.hi))
            err.add(fmt::format("{}.hitting_time: [{}, {}], but its cells give [{}, {}]", path, pc.hitting_time.lo,
                                pc.hitting_time.hi, d.hitting_time.lo, d.hitting_time.hi));
    }
    for (std::size_t gi = 0; gi < groups.size(); ++gi)
        if (seen[gi] != 1)
            err.add(fmt::format("param_cells: the parameter cell {} of 'cells' has {} decided entries (must be 1)", gi, seen[gi]));
    if (verdict == ProofVerdict::disproved && !any_disproved) err.add("param_cells: no disproved parameter cell");
}

}  // namespace

VerifyReport verify_certificate(const nlohmann::json& cert, int threads, Execution ex, VerifyMethod method) {
    VerifyReport rep;
    Errors err;
    auto done = [&]() {
        rep.errors = err.list;
        rep.valid = err.list.empty();
        return rep;
    };
    // "provenance" (build, command line, date: io/json.hpp) is optional and not checked: older
    // certificates have none.
    std::set<std::string> keys = {"format",      "rhoflow_version", "rhoflow_commit", "arb_version",
                                  "params",      "verdict",         "param_cells",    "cells",
                                  "undecided",   "counterexample",  "summary"};
    if (cert.is_object() && cert.contains("provenance")) keys.insert("provenance");
    if (!only_keys(cert, keys, "", err)) return done();
    if (cert["format"] != "rhoflow proof certificate 1") err.add("format: must be \"rhoflow proof certificate 1\"");
    for (const char* k : {"rhoflow_version", "rhoflow_commit", "arb_version"})
        if (!cert[k].is_string()) err.add(fmt::format("{}: must be a string", k));
    // The parameters that matter to the checker.
    const auto& p = cert["params"];
    if (!p.is_object()) {
        err.add("params: must be an object");
        return done();
    }
    Claim claim;
    ParamBox box;
    RigorousParams rig;
    double rho0 = 0, hit_eps = 0;
    try {
        if (!p.contains("claim") || !p["claim"].is_string()) throw InvalidArgument("params.claim", "must be a string");
        claim = parse_claim(p["claim"].get<std::string>(), "params.claim");
        if (claim.kind == ClaimKind::filtering) throw InvalidArgument("params.claim", "filtering is not proved by prove");
        box = p.at("box").get<ParamBox>();
        box.validate();
        rig = p.at("rigorous").get<RigorousParams>();
        rig.validate();
        rho0 = p.at("rho0").get<double>();
        hit_eps = p.at("hit_eps").get<double>();
        require(std::isfinite(rho0) && std::isfinite(hit_eps) && hit_eps > 0 && hit_eps <= 0.5 && rho0 > -1 &&
                    rho0 < 1 - hit_eps,
                "params.rho0", rho0, "-1 < rho0 < 1 - hit_eps, 0 < hit_eps <= 0.5");
    } catch (const std::exception& e) {
        err.add(fmt::format("params: {}", e.what()));
        return done();
    }
    ProofVerdict verdict = ProofVerdict::not_proved;
    try {
        verdict = parse_proof_verdict(cert["verdict"].is_string() ? cert["verdict"].get<std::string>() : "", "verdict");
    } catch (const std::exception& e) {
        err.add(e.what());
        return done();
    }
    if (!cert["cells"].is_array()) {
        err.add("cells: must be an array");
        return done();
    }
    std::vector<ProofCell> cells(cert["cells"].size());
    for (std::size_t i = 0; i < cells.size(); ++i)
        read_cell(cert["cells"][i], fmt::format("cells[{}]", i), cells[i], err);
    std::optional<ProofCell> counter;
    if (!cert["counterexample"].is_null()) {
        counter.emplace();
        if (!read_cell(cert["counterexample"], "counterexample", *counter, err)) counter.reset();
    }
    if (!err.list.empty()) return done();

    // 1. Every cell's enclosure, recomputed, lies inside the recorded one, and the role follows.
    std::vector<ProofCell*> all;
    for (auto& c : cells) all.push_back(&c);
    if (counter) all.push_back(&*counter);
    std::vector<std::string> cell_err(all.size());
    const std::vector<Recomputed> again = recompute(all, rig, threads, ex, method);
    for (std::size_t k = 0; k < all.size(); ++k) {
        const ProofCell& c = *all[k];
        const Recomputed& e = again[k];
        const std::string path = k < cells.size() ? fmt::format("cells[{}]", k) : "counterexample";
        if (!e.error.empty()) cell_err[k] = fmt::format("{}: cannot be recomputed: {}", path, e.error);
        else if (!inside(e.enc.j, c.enc.j)) cell_err[k] = path + ".enc.j: does not contain the recomputed enclosure";
        else if (!inside(e.enc.dj, c.enc.dj)) cell_err[k] = path + ".enc.dj: does not contain the recomputed enclosure";
        else if (!inside(e.enc.d2j, c.enc.d2j)) cell_err[k] = path + ".enc.d2j: does not contain the recomputed enclosure";
        else if (role_of(claim, c.enc) != c.role)
            cell_err[k] = fmt::format("{}.role: '{}' does not follow from the enclosure (it gives '{}')", path, c.role,
                                      role_of(claim, c.enc));
    }
    for (const auto& e : cell_err)
        if (!e.empty()) err.add(e);
    rep.cells = all.size();
    if (!err.list.empty()) return done();

    // 2. Every cell's model lies in the box.
    auto in_box = [&](const ModelCell& m) {
        auto in = [](double lo, double hi, const ParamRange& r) { return r.lo <= lo && hi <= r.hi; };
        return in(static_cast<double>(m.d), static_cast<double>(m.d), box.d) &&
               in(static_cast<double>(m.L), static_cast<double>(m.L), box.L) &&
               in(static_cast<double>(m.R), static_cast<double>(m.R), box.R) && in(m.theta.lo, m.theta.hi, box.theta) &&
               in(m.sigma.lo, m.sigma.hi, box.sigma) && in(m.beta.lo, m.beta.hi, box.beta);
    };
    for (std::size_t i = 0; i < cells.size(); ++i)
        if (!in_box(cells[i].model)) err.add(fmt::format("cells[{}].model: outside params.box", i));
    if (!err.list.empty()) return done();

    // 3. Group the cells by parameter cell, sorted by rho; decide each group.
    Groups groups;
    for (const auto& c : cells) {
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return same_model(g.first, c.model); });
        if (it == groups.end()) groups.push_back({c.model, {c}});
        else it->second.push_back(c);
    }
    for (auto& g : groups)
        std::sort(g.second.begin(), g.second.end(), [](const ProofCell& a, const ProofCell& b) { return a.enc.rho.lo < b.enc.rho.lo; });

    // 4. The per-parameter-cell results a reader cites (verdict, attractor count, T_hit bracket)
    // are those the cells give; a decided parameter cell's cells are all in `cells`.
    check_param_cells(cert["param_cells"], groups, claim, rho0, hit_eps, verdict, err);

    if (verdict == ProofVerdict::proved) {
        for (std::size_t gi = 0; gi < groups.size(); ++gi) {
            const CellsDecision d = decide_cells(claim, groups[gi].second, rho0, hit_eps);
            if (d.verdict != ProofVerdict::proved)
                err.add(fmt::format("cells: the parameter cell {} (d={}, L={}, R={}, theta=[{}, {}]) does not prove the claim: {}",
                                    gi, groups[gi].first.d, groups[gi].first.L, groups[gi].first.R,
                                    groups[gi].first.theta.lo, groups[gi].first.theta.hi, d.note));
        }
        // Coverage: every integer combination of the box, the real axes without gaps.
        const auto n_int = [](const ParamRange& r) { return static_cast<std::int64_t>(r.hi - r.lo) + 1; };
        const std::int64_t combos = n_int(box.d) * n_int(box.L) * n_int(box.R);
        if (combos > 4096) err.add("params.box: more than 4096 integer combinations");
        else {
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
    } else if (verdict == ProofVerdict::disproved) {
        bool found = false;
        if (counter && (claim.kind == ClaimKind::monotone || claim.kind == ClaimKind::positive_drift)) {
            const Interval range = claim_rho_range(claim, rho0, hit_eps);
            if (!in_box(counter->model)) err.add("counterexample.model: outside params.box");
            else if (counter->role != "dj<0") err.add("counterexample.role: must be dj<0");
            else if (!(range.lo <= counter->enc.rho.lo && counter->enc.rho.hi <= range.hi && counter->enc.rho.lo < counter->enc.rho.hi))
                err.add("counterexample.enc.rho: must be a proper interval inside the claim's range");
            else found = true;
        } else {
            for (const auto& g : groups)
                if (decide_cells(claim, g.second, rho0, hit_eps).verdict == ProofVerdict::disproved) found = true;
            if (!found) err.add("cells: no parameter cell disproves the claim");
        }
        if (!found && err.list.empty()) err.add("counterexample: missing");
    }
    rep.verdict = verdict;
    return done();
}

}  // namespace rhoflow
