#include "rhoflow/check/check.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/exec/parallel.hpp"
#include "rhoflow/exec/units.hpp"
#include "rhoflow/field/exact_field.hpp"

namespace rhoflow {

namespace {

std::int64_t int_pow(std::int64_t b, int e) {
    std::int64_t r = 1;
    for (int i = 0; i < e; ++i) r = saturating_product(r, b);  // saturates at count_cap, well above any cap
    return r;
}

}  // namespace

ModelParams CheckParams::model_at(const std::array<double, axis_count>& v) const {
    return ModelParams::with_noise(static_cast<std::int64_t>(v[0]), static_cast<std::int64_t>(v[1]),
                                   static_cast<std::int64_t>(v[2]), v[3], v[4], v[5], noise);
}

void CheckParams::validate() const {
    claim.validate();
    if (claim.kind == ClaimKind::noise_mass || claim.kind == ClaimKind::recovery)
        throw InvalidArgument("claim", fmt::format("claim = '{}' is decided by rhoflow prove, rigorously (accepted here: "
                                                   "monotone, positive-drift, attractors=N, filtering, hitting-time<=T)",
                                                   to_string(claim)));
    box.validate();
    require(grid >= 2 && grid <= 4097, "grid", grid, "2 <= grid <= 4097 points per ranged axis");
    require(refine >= 0 && refine <= 12, "refine", refine, "0 <= refine <= 12 bisections");
    require(max_points >= 1 && max_points <= 10000000, "max_points", static_cast<double>(max_points),
            "1 <= max_points <= 1e7");
    require(threads >= 0 && threads <= 1024, "threads", threads, "0 (all cores) <= threads <= 1024");
    validate_member("certify", [&] { certify.validate(); });
    const int k = box.ranged_count();
    const std::int64_t n = int_pow(grid, k);
    if (n > max_points)
        throw InvalidArgument("grid", fmt::format("grid = {} gives {}^{} = {} points over the {} ranged parameters, "
                                                  "more than max_points = {} (accepted: grid^{} <= max_points)",
                                                  grid, grid, k, count_text(n, std::pow(grid, k)), k, max_points, k));
    // The field method must accept every point: tau = beta sigma is largest at the corner
    // (beta hi, sigma hi, d lo), and the model's own ranges are checked at every corner.
    if (certify.field == FieldMethod::exact) {
        const double tau = box.beta.hi * box.sigma.hi /
                           (noise == NoiseConvention::per_norm ? std::sqrt(box.d.lo) : 1.0);
        if (tau > exact_field_max_tau) {
            const bool blame_beta = box.beta.ranged() || (!box.sigma.ranged() &&
                                    std::abs(std::log(box.beta.hi)) >= std::abs(std::log(box.sigma.hi)));
            const ParamRange& r = blame_beta ? box.beta : box.sigma;
            throw InvalidArgument(blame_beta ? "box.beta" : "box.sigma",
                                  fmt::format("{} = {} is out of range (accepted: beta*sigma{} <= {} at every point "
                                              "for the exact field; this box reaches {})",
                                              blame_beta ? "beta" : "sigma", r.text(),
                                              noise == NoiseConvention::per_norm ? "/sqrt(d)" : "",
                                              format_number(exact_field_max_tau), format_number(tau)));
        }
    }
    const auto ax = box.axes();
    for (int corner = 0; corner < (1 << axis_count); ++corner) {
        std::array<double, axis_count> v{};
        for (int a = 0; a < axis_count; ++a) v[a] = (corner >> a) & 1 ? ax[a]->hi : ax[a]->lo;
        const ModelParams m = model_at(v);
        try {
            if (certify.field == FieldMethod::exact)
                validate_exact_field(m, certify.table.exact);
            else
                m.validate();
        } catch (const InvalidArgument& e) {
            const std::string f = e.field();
            const bool model_field = f == "d" || f == "L" || f == "R" || f == "theta" || f == "sigma" || f == "beta";
            throw model_field ? e.within("box") : e.within("certify.table.exact");
        }
    }
}

std::string model_flags(const ModelParams& m) {
    return fmt::format("--d {} --L {} --R {} --theta {} --sigma {} --beta {}", m.d, m.L, m.R, format_number(m.theta),
                       format_number(m.sigma), format_number(m.beta));
}

namespace {

using Key = std::array<std::int64_t, axis_count>;

struct Cell {
    Key base;
    std::int64_t size;
};

// The box's lattice of parameter points: evaluates each distinct model once, level by level,
// and keeps the cells whose corners disagree.
// A point's certificate as a unit returns it (and whether it failed numerically).
struct Evaluated {
    PointCertificate cert;
    bool failed = false;
};
void to_json(nlohmann::json& j, const Evaluated& e) { j = {{"cert", e.cert}, {"failed", e.failed}}; }
void from_json(const nlohmann::json& j, Evaluated& e) {
    e.cert = j.at("cert").get<PointCertificate>();
    e.failed = j.at("failed").get<bool>();
}

class CheckLattice {
public:
    // Finds the ranged axes (into res) and the lattice's scale; records the thread count.
    CheckLattice(const CheckParams& p, CheckResult& res, const std::function<void(std::int64_t, std::int64_t)>& progress,
                 Execution ex)
        : p_(p), res_(res), progress_(progress), ax_(p.box.axes()), ex_(ex) {
        for (int a = 0; a < axis_count; ++a)
            if (ax_[a]->ranged()) res_.ranged_axes.push_back(a);
        k_ = static_cast<int>(res_.ranged_axes.size());
        unit_ = std::int64_t(1) << p_.refine;
        S_ = k_ ? (p_.grid - 1) * unit_ : 1;
        threads_ = resolve_threads(p_.threads);
        res_.diagnostics.threads = threads_;
    }

    // Level 0: evaluates the grid; returns its cells whose corners disagree.
    std::vector<Cell> grid() {
        std::vector<Key> keys;
        std::vector<Cell> cells;
        grid_keys(keys, cells);
        evaluate(keys, 0);
        return disagreeing(cells);
    }

    // Bisects the disagreeing cells up to `refine` times (or until max_points); returns the finest ones.
    std::vector<Cell> refine(std::vector<Cell> active) {
        for (int level = 1; level <= p_.refine && !active.empty(); ++level) {
            std::vector<Cell> sub;
            std::vector<Key> new_keys;
            bisect(active, sub, new_keys);
            if (static_cast<std::int64_t>(res_.points.size() + new_keys.size()) > p_.max_points) {
                res_.diagnostics.notes.push_back(fmt::format(
                    "refinement stopped before level {}: it would exceed max_points = {}", level, p_.max_points));
                break;
            }
            evaluate(new_keys, level);
            active = disagreeing(sub);
            res_.diagnostics.levels = level;
        }
        return active;
    }

    // Records the centres of the cells `active` as the traced boundary.
    void record_boundary(const std::vector<Cell>& active) {
        for (const auto& c : active) {
            std::array<double, axis_count> centre{};
            for (int a = 0; a < axis_count; ++a)
                centre[a] = static_cast<double>(c.base[a]) + (ax_[a]->ranged() ? 0.5 * static_cast<double>(c.size) : 0.0);
            res_.boundary.push_back(values_at(centre, false));
        }
    }

    // Number of points whose evaluation failed numerically.
    int failures() const {
        int n = 0;
        for (char f : failed_) n += f;
        return n;
    }

    // Number of ranged axes.
    int ranged() const { return k_; }

private:
    // Parameter values at lattice coordinates (integers rounded when `round`).
    std::array<double, axis_count> values_at(const std::array<double, axis_count>& lattice, bool round) const {
        std::array<double, axis_count> v{};
        for (int a = 0; a < axis_count; ++a)
            v[a] = ax_[a]->ranged() ? ax_[a]->at(lattice[a] / static_cast<double>(S_), round && axis_is_integer(a))
                                    : ax_[a]->lo;
        return v;
    }

    // Parameter values at a lattice key, integers rounded.
    std::array<double, axis_count> key_values(const Key& key) const {
        std::array<double, axis_count> l{};
        for (int a = 0; a < axis_count; ++a) l[a] = static_cast<double>(key[a]);
        return values_at(l, true);
    }

    // Certifies the keys not seen before (units of the executor, their points on the threads),
    // adding a point for each new model.
    void evaluate(const std::vector<Key>& keys, int level) {
        const std::vector<std::size_t> fresh = add_points(keys, level);
        const std::vector<Evaluated> got = map_indices<Evaluated>(
            ex_, "check_points", static_cast<std::int64_t>(fresh.size()), threads_, [&](std::int64_t i) {
                Evaluated e;
                try {
                    e.cert = certify_point(res_.points[fresh[static_cast<std::size_t>(i)]].model, p_.claim, p_.certify);
                } catch (const NumericalError& err) {
                    e.cert.note = std::string("numerical failure: ") + err.what();
                    e.failed = true;
                }
                return e;
            });
        for (std::size_t i = 0; i < fresh.size(); ++i) {
            res_.points[fresh[i]].cert = got[i].cert;
            failed_[fresh[i]] = got[i].failed ? 1 : 0;
        }
        if (progress_)
            progress_(static_cast<std::int64_t>(res_.points.size()), static_cast<std::int64_t>(res_.points.size()));
    }

    // Maps each key to its point, adding unevaluated points for new models; returns their indices.
    std::vector<std::size_t> add_points(const std::vector<Key>& keys, int level) {
        std::vector<std::size_t> fresh;
        for (const Key& key : keys) {
            if (index_.count(key)) continue;
            const auto v = key_values(key);
            if (auto it = by_values_.find(v); it != by_values_.end()) {
                index_[key] = it->second;
                continue;
            }
            CheckPoint pt;
            pt.values = v;
            pt.model = p_.model_at(v);
            pt.level = level;
            res_.points.push_back(pt);
            failed_.push_back(0);
            const std::size_t idx = res_.points.size() - 1;
            by_values_[v] = idx;
            index_[key] = idx;
            fresh.push_back(idx);
        }
        return fresh;
    }

    // The keys of the level-0 grid and its cells (none without ranged axes).
    void grid_keys(std::vector<Key>& keys, std::vector<Cell>& cells) const {
        std::vector<std::int64_t> idx(static_cast<std::size_t>(k_), 0);
        for (;;) {
            Key key{};
            for (int i = 0; i < k_; ++i) key[res_.ranged_axes[i]] = idx[i] * unit_;
            keys.push_back(key);
            bool inner = true;
            for (int i = 0; i < k_; ++i) inner = inner && idx[i] + 1 < p_.grid;
            if (k_ > 0 && inner) cells.push_back({key, unit_});
            int i = 0;
            for (; i < k_; ++i) {
                if (++idx[i] < p_.grid) break;
                idx[i] = 0;
            }
            if (i == k_) break;
        }
    }

    // Splits each cell into 2^k halves; collects the corner keys not yet on the lattice, sorted and unique.
    void bisect(const std::vector<Cell>& active, std::vector<Cell>& sub, std::vector<Key>& new_keys) const {
        const std::int64_t half = active.front().size / 2;
        for (const auto& c : active)
            for (int bits = 0; bits < (1 << k_); ++bits) {
                Cell s{c.base, half};
                for (int i = 0; i < k_; ++i)
                    if ((bits >> i) & 1) s.base[res_.ranged_axes[i]] += half;
                sub.push_back(s);
                for (const auto& key : corners(s))
                    if (!index_.count(key)) new_keys.push_back(key);
            }
        std::sort(new_keys.begin(), new_keys.end());
        new_keys.erase(std::unique(new_keys.begin(), new_keys.end()), new_keys.end());
    }

    // The 2^k corner keys of a cell.
    std::vector<Key> corners(const Cell& c) const {
        std::vector<Key> out;
        for (int bits = 0; bits < (1 << k_); ++bits) {
            Key key = c.base;
            for (int i = 0; i < k_; ++i)
                if ((bits >> i) & 1) key[res_.ranged_axes[i]] += c.size;
            out.push_back(key);
        }
        return out;
    }

    // Whether the verdicts at a cell's corners are not all the same.
    bool disagree(const Cell& c) const {
        const auto cs = corners(c);
        const Verdict v0 = verdict_at(cs[0]);
        for (const auto& key : cs)
            if (verdict_at(key) != v0) return true;
        return false;
    }

    // The cells whose corners disagree, in order.
    std::vector<Cell> disagreeing(const std::vector<Cell>& cells) const {
        std::vector<Cell> out;
        for (const auto& c : cells)
            if (disagree(c)) out.push_back(c);
        return out;
    }

    // The verdict of the point at a key.
    Verdict verdict_at(const Key& key) const { return res_.points[index_.at(key)].cert.verdict; }

    const CheckParams& p_;
    CheckResult& res_;
    const std::function<void(std::int64_t, std::int64_t)>& progress_;
    const std::array<const ParamRange*, axis_count> ax_;
    const Execution ex_;
    int k_ = 0;               // ranged axes
    std::int64_t unit_ = 1;   // lattice steps per grid step (2^refine)
    std::int64_t S_ = 1;      // lattice steps across a ranged axis
    int threads_ = 1;
    std::map<Key, std::size_t> index_;                                  // lattice key -> point
    std::map<std::array<double, axis_count>, std::size_t> by_values_;  // parameter values -> point
    std::vector<char> failed_;                                          // per point: numerical failure
};

// Sums the points into the result (counts, min margin, work); returns the failing point of least margin, or null.
const CheckPoint* tally_points(CheckResult& res) {
    res.min_margin = res.points.front().cert.margin;
    const CheckPoint* worst = nullptr;
    for (const auto& pt : res.points) {
        const auto& c = pt.cert;
        res.min_margin = std::min(res.min_margin, c.margin);
        res.diagnostics.field_samples += c.samples;
        res.diagnostics.max_table_points = std::max(res.diagnostics.max_table_points, c.table_points);
        if (c.verdict == Verdict::holds) ++res.holds;
        if (c.verdict == Verdict::fails) {
            ++res.fails;
            if (!worst || c.margin < worst->cert.margin) worst = &pt;
        }
        if (c.verdict == Verdict::undecided) ++res.undecided;
    }
    return worst;
}

// The witness at the failing point `worst`, with the commands that reproduce it.
CheckWitness make_witness(const CheckParams& p, const CheckPoint& worst) {
    CheckWitness w;
    w.values = worst.values;
    w.model = worst.model;
    w.margin = worst.cert.margin;
    w.error = worst.cert.error;
    w.where = worst.cert.where;
    w.note = worst.cert.note;
    const std::string field = p.certify.field == FieldMethod::meanfield ? " --field meanfield" : "";
    const std::string flags = model_flags(w.model);
    w.command = "rhoflow phase " + flags + field;
    switch (p.claim.kind) {
        case ClaimKind::monotone:
        case ClaimKind::positive_drift:
            w.claim_command = fmt::format("rhoflow field --rho {:.6f} {}{}", w.where, flags,
                                          p.certify.field == FieldMethod::meanfield ? " --method meanfield" : "");
            break;
        case ClaimKind::filtering: {
            const double a = std::clamp(w.where - 0.005, 0.0, 1.0), b = std::clamp(w.where + 0.005, 0.0, 1.0);
            w.claim_command = fmt::format("rhoflow field --rho {:.6f},{:.6f},{:.6f} {}{}", a, w.where, b, flags,
                                          p.certify.field == FieldMethod::meanfield ? " --method meanfield" : "");
            break;
        }
        case ClaimKind::hitting_time:
            w.claim_command = fmt::format("rhoflow ode --rho0 {} --t-end {} --hit {} {}{}",
                                          format_number(p.certify.rho0), format_number(p.claim.t_max),
                                          format_number(p.certify.hit_eps), flags, field);
            break;
        case ClaimKind::attractors:
        case ClaimKind::noise_mass:  // refused by validate()
        case ClaimKind::recovery:
            break;
    }
    return w;
}

// What the derivative steps rest on (attractors: the sign of j'' on the roots' runs; filtering:
// of dE[A_I]/drho): at how many points guaranteed enclosures decided it, at how many the estimate.
void add_derivative_caveat(CheckResult& res) {
    const bool filtering = res.claim.kind == ClaimKind::filtering;
    if (!filtering && res.claim.kind != ClaimKind::attractors) return;
    std::size_t enclosed = 0, estimated = 0;
    for (const auto& pt : res.points) {
        enclosed += pt.cert.derivative == "enclosure";
        estimated += pt.cert.derivative == "estimate";
    }
    if (enclosed + estimated == 0) return;
    const char* what = filtering ? "the sign of dE[A_I]/drho on [0, 1]" : "the sign of j'' on every interior root's run";
    std::string text = fmt::format("{} is guaranteed (ball-arithmetic enclosures) at {} of {} points{}", what, enclosed,
                                   enclosed + estimated, filtering ? "" : " with interior roots");
    if (estimated)
        text += fmt::format("; at {} it rests on the table's derivative with the estimate n^2 eps (not a bound: "
                            "--derivative estimate, the mean-field limit, or beta sigma outside [1e-3, 4])",
                            estimated);
    res.diagnostics.notes.push_back(text);
}

// The caveats of the result: sampled-not-proved (with k ranged axes), certification, failures.
void add_caveats(CheckResult& res, int k, int failures) {
    if (k > 0)
        res.diagnostics.notes.insert(
            res.diagnostics.notes.begin(),
            fmt::format("between the {} evaluated points the result is sampled, not proved: no Lipschitz bound in "
                        "the model parameters is used, so 'holds' means 'holds at every point evaluated'",
                        res.points.size()));
    res.diagnostics.notes.push_back(
        "each point's verdict is verified to estimated tolerances: relative to the field's error estimates (Chebyshev "
        "tail, quadrature), not proved (docs/theory.md section 10; rhoflow prove proves, section 11)");
    add_derivative_caveat(res);
    if (failures)
        res.diagnostics.notes.push_back(fmt::format("{} point(s) could not be evaluated (numerical failure) and "
                                                    "count as undecided",
                                                    failures));
}

}  // namespace

CheckResult run_check(const CheckParams& p, const std::function<void(std::int64_t, std::int64_t)>& progress,
                      Execution ex) {
    p.validate();
    const auto start = std::chrono::steady_clock::now();
    CheckResult res;
    res.claim = p.claim;
    CheckLattice lattice(p, res, progress, ex);
    // Level 0, then refinement of the cells whose corners disagree.
    lattice.record_boundary(lattice.refine(lattice.grid()));

    // The box's verdict, the witness, the counts.
    const int failures = lattice.failures();
    res.diagnostics.numerical_failures = failures;
    if (failures == static_cast<int>(res.points.size()))
        throw NumericalError("check: the field could not be evaluated at any point of the box (" +
                             res.points.front().cert.note + ")");
    const CheckPoint* worst = tally_points(res);
    res.verdict = res.fails ? Verdict::fails : res.undecided ? Verdict::undecided : Verdict::holds;
    if (worst) res.witness = make_witness(p, *worst);
    add_caveats(res, lattice.ranged(), failures);
    res.diagnostics.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return res;
}

// ---------------------------------------------------------------------------------------------
// JSON

namespace {
std::string noise_text(NoiseConvention n) { return n == NoiseConvention::per_norm ? "per_norm" : "per_coordinate"; }
NoiseConvention parse_noise(const std::string& s) {
    if (s == "per_norm") return NoiseConvention::per_norm;
    if (s == "per_coordinate") return NoiseConvention::per_coordinate;
    throw InvalidArgument("noise", "noise = '" + s + "' is not a noise convention (accepted: per_coordinate, per_norm)");
}

void put_model(nlohmann::json& j, const std::array<double, axis_count>& v, const ModelParams& m) {
    j["d"] = m.d;
    j["L"] = m.L;
    j["R"] = m.R;
    j["theta"] = m.theta;
    j["sigma"] = m.sigma;
    j["sigma_input"] = v[4];
    j["beta"] = m.beta;
}

void get_model(const nlohmann::json& j, std::array<double, axis_count>& v, ModelParams& m) {
    m.d = j.at("d").get<std::int64_t>();
    m.L = j.at("L").get<std::int64_t>();
    m.R = j.at("R").get<std::int64_t>();
    m.theta = j.at("theta").get<double>();
    m.sigma = j.at("sigma").get<double>();
    m.beta = j.at("beta").get<double>();
    v = {static_cast<double>(m.d), static_cast<double>(m.L), static_cast<double>(m.R), m.theta,
         j.value("sigma_input", m.sigma), m.beta};
}
}  // namespace

void to_json(nlohmann::json& j, const CheckParams& p) {
    j = {{"claim", p.claim},   {"box", p.box},           {"noise", noise_text(p.noise)},
         {"grid", p.grid},     {"refine", p.refine},     {"max_points", p.max_points},
         {"threads", p.threads}, {"certify", p.certify}};
}

void from_json(const nlohmann::json& j, CheckParams& p) {
    if (j.contains("claim")) j.at("claim").get_to(p.claim);
    if (j.contains("box")) j.at("box").get_to(p.box);
    if (j.contains("noise")) p.noise = parse_noise(j.at("noise").get<std::string>());
    p.grid = j.value("grid", p.grid);
    p.refine = j.value("refine", p.refine);
    p.max_points = j.value("max_points", p.max_points);
    p.threads = j.value("threads", p.threads);
    if (j.contains("certify")) j.at("certify").get_to(p.certify);
}

void to_json(nlohmann::json& j, const CheckPoint& p) {
    j = p.cert;
    put_model(j, p.values, p.model);
    j["level"] = p.level;
}

void from_json(const nlohmann::json& j, CheckPoint& p) {
    get_model(j, p.values, p.model);
    p.level = j.value("level", 0);
    j.get_to(p.cert);
}

void to_json(nlohmann::json& j, const CheckWitness& w) {
    j = nlohmann::json::object();
    put_model(j, w.values, w.model);
    j["margin"] = w.margin;
    j["error"] = w.error;
    j["where"] = w.where;
    j["note"] = w.note;
    j["command"] = w.command;
    j["claim_command"] = w.claim_command;
}

void from_json(const nlohmann::json& j, CheckWitness& w) {
    get_model(j, w.values, w.model);
    w.margin = j.at("margin").get<double>();
    w.error = j.at("error").get<double>();
    w.where = j.value("where", 0.0);
    w.note = j.value("note", std::string());
    w.command = j.value("command", std::string());
    w.claim_command = j.value("claim_command", std::string());
}

void to_json(nlohmann::json& j, const CheckDiagnostics& d) {
    // seconds and threads describe the machine, not the result: not written, so that the same
    // check gives the same bytes on any machine, thread count or MPI layout.
    j = {{"field_samples", d.field_samples}, {"max_table_points", d.max_table_points}, {"levels", d.levels},
         {"numerical_failures", d.numerical_failures}, {"notes", d.notes}};
}

void from_json(const nlohmann::json& j, CheckDiagnostics& d) {
    d.field_samples = j.value("field_samples", std::int64_t(0));
    d.max_table_points = j.value("max_table_points", 0);
    d.levels = j.value("levels", 0);
    d.numerical_failures = j.value("numerical_failures", 0);
    d.notes = j.value("notes", std::vector<std::string>{});
}

void to_json(nlohmann::json& j, const CheckResult& r) {
    std::vector<std::string> axes;
    for (int a : r.ranged_axes) axes.emplace_back(axis_name(a));
    j = {{"claim", r.claim},
         {"verdict", r.verdict},
         {"witness", r.witness ? nlohmann::json(*r.witness) : nlohmann::json(nullptr)},
         {"points", r.points},
         {"min_margin", r.min_margin},
         {"counts", {{"total", r.points.size()}, {"holds", r.holds}, {"fails", r.fails}, {"undecided", r.undecided}}},
         {"ranged_axes", axes},
         {"boundary", r.boundary},
         {"diagnostics", r.diagnostics}};
}

void from_json(const nlohmann::json& j, CheckResult& r) {
    r = CheckResult{};
    j.at("claim").get_to(r.claim);
    j.at("verdict").get_to(r.verdict);
    if (!j.at("witness").is_null()) r.witness = j.at("witness").get<CheckWitness>();
    j.at("points").get_to(r.points);
    r.min_margin = j.at("min_margin").get<double>();
    const auto& c = j.at("counts");
    r.holds = c.at("holds").get<int>();
    r.fails = c.at("fails").get<int>();
    r.undecided = c.at("undecided").get<int>();
    for (const auto& name : j.value("ranged_axes", std::vector<std::string>{}))
        for (int a = 0; a < axis_count; ++a)
            if (axis_name(a) == name) r.ranged_axes.push_back(a);
    if (j.contains("boundary")) j.at("boundary").get_to(r.boundary);
    if (j.contains("diagnostics")) j.at("diagnostics").get_to(r.diagnostics);
}

}  // namespace rhoflow
