#include "rhoflow/io/prove_output.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "rhoflow/check/box.hpp"
#include "rhoflow/check/claim.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/prove/verify.hpp"
#include "rhoflow/rigorous/enclosure.hpp"
#include "rhoflow/version.hpp"

namespace rhoflow {

std::string exact_decimal(double x) {
    if (!std::isfinite(x)) return format_number(x);
    std::string s = fmt::format("{:.1074f}", x);  // a double's binary fraction has at most 1074 digits: exact
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
    return s == "-0" ? "0" : s;
}

namespace {

// Whether the shortest decimal that reads back as x is x itself.
bool is_exact(double x) {
    char buf[400];
    const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed);  // shortest, fixed notation
    return r.ec == std::errc() && std::string(buf, r.ptr) == exact_decimal(x);
}

// "theta = 0.1 (the double 0.1000000000000000055511151231257827021181583404541015625)", or
// "theta = 0.5" when the shortest text is the double's exact value.
std::string exact_note(const std::string& name, double x) {
    return is_exact(x) ? fmt::format("{} = {}", name, format_number(x))
                       : fmt::format("{} = {} (the double {})", name, format_number(x), exact_decimal(x));
}

// The numbers a proof is about that are not exact in binary, with the doubles it covers.
std::string inexact_numbers(const ProveParams& params) {
    std::vector<std::pair<std::string, double>> v;
    for (int a = 3; a < axis_count; ++a) {
        const ParamRange& r = *params.box.axes()[static_cast<std::size_t>(a)];
        v.push_back({fmt::format("{} lo", axis_name(a)), r.lo});
        if (r.ranged()) v.push_back({fmt::format("{} hi", axis_name(a)), r.hi});
    }
    if (params.claim.kind == ClaimKind::hitting_time) {
        v.push_back({"rho0", params.rho0});
        v.push_back({"the level 1 - hit", claim_rho_range(params.claim, params.rho0, params.hit_eps).hi});
        v.push_back({"T", params.claim.t_max});
    }
    std::string s;
    for (const auto& [name, x] : v)
        if (!is_exact(x)) s += (s.empty() ? "" : "; ") + exact_note(name, x);
    return s;
}

}  // namespace

std::string proof_summary(const ProveParams& params, const ProveResult& r) {
    std::string s;
    s += fmt::format("# rhoflow prove: {}\n\n", to_string(params.claim));
    s += fmt::format("**Verdict: {}.**\n\n", to_string(r.verdict));
    s += "Box (per-coordinate sigma): ";
    for (int a = 0; a < axis_count; ++a)
        s += fmt::format("{}{} = {}", a ? ", " : "", axis_name(a), params.box.axes()[static_cast<std::size_t>(a)]->text());
    if (params.claim.kind == ClaimKind::hitting_time)
        s += fmt::format(". From rho0 = {} to the level 1 - hit = {}",  format_number(params.rho0),
                         format_number(claim_rho_range(params.claim, params.rho0, params.hit_eps).hi));
    const std::string inexact = inexact_numbers(params);
    s += ".\n\nNumbers: every number is read as the double nearest to the decimal written, and the proof covers "
         "exactly those doubles (docs/theory.md section 11)";
    s += inexact.empty() ? "; here each is the decimal itself" : "; where that is not the decimal itself: " + inexact;
    if (params.meanfield)
        s += fmt::format(".\n\nMethod: the claim is about the **mean-field limit** L -> infinity at alpha = R/L "
                         "(docs/theory.md (5.1); d plays no part): guaranteed enclosures of its j', j'' in closed form "
                         "in ball arithmetic ({}, {} bits); rho and the parameter box subdivided until each cell "
                         "decides the claim. rhoflow {} (commit {}).\n\n",
                         arb_version_text(), params.rigorous.precision, version, build_commit());
    else
        s += fmt::format(".\n\nMethod: guaranteed enclosures of j', j'' of the exact field (docs/theory.md section 11) in "
                         "ball arithmetic ({}, {} bits), every truncation and quadrature error bounded; rho and the "
                         "parameter box subdivided until each cell decides the claim. rhoflow {} (commit {}).\n\n",
                         arb_version_text(), params.rigorous.precision, version, build_commit());
    s += fmt::format("Cells in the proof: {} over {} parameter cell(s); enclosures computed: {}; deepest rho "
                     "bisection: {}; largest relative width of a deciding j' enclosure: {:.3g}.\n\n",
                     r.cells.size(), r.param_cells.size(), r.diagnostics.enclosures, r.diagnostics.max_depth_reached,
                     r.min_width_rel);
    s += "| parameter cell | verdict | detail |\n|---|---|---|\n";
    for (const auto& pc : r.param_cells)
        s += fmt::format("| d={}, L={}, R={}, theta=[{}, {}], sigma=[{}, {}], beta=[{}, {}] | {} | {} |\n", pc.model.d,
                         pc.model.L, pc.model.R, pc.model.theta.lo, pc.model.theta.hi, pc.model.sigma.lo,
                         pc.model.sigma.hi, pc.model.beta.lo, pc.model.beta.hi, to_string(pc.verdict), pc.note);
    if (r.counterexample) {
        const auto& c = *r.counterexample;
        s += fmt::format("\nCounterexample: for every rho in [{}, {}] and every model of the cell "
                         "d={}, L={}, R={}, theta in [{}, {}]: j'(rho) in [{}, {}] < 0.\n",
                         c.enc.rho.lo, c.enc.rho.hi, c.model.d, c.model.L, c.model.R, c.model.theta.lo,
                         c.model.theta.hi, c.enc.dj.lo, c.enc.dj.hi);
    }
    if (!r.undecided.empty()) {
        s += fmt::format("\nCells of the parameter cells not proved ({}{}): each one's last rho tiling, every cell "
                         "enclosed (cells the search created but did not compute are not listed: the table above "
                         "counts them).\n\n| rho | role | j' enclosure | width |\n|---|---|---|---|\n",
                         r.undecided.size(), r.undecided.size() > 50 ? "; the first 50" : "");
        for (std::size_t i = 0; i < std::min<std::size_t>(r.undecided.size(), 50); ++i) {
            const auto& c = r.undecided[i];
            s += fmt::format("| [{}, {}] | {} | [{:.6g}, {:.6g}] | {:.3g} |\n", c.enc.rho.lo, c.enc.rho.hi, c.role,
                             c.enc.dj.lo, c.enc.dj.hi, c.enc.dj.width());
        }
    }
    s += "\nRe-check independently (with `--out DIR`, which writes the certificate): "
         "`rhoflow prove --verify DIR/certificate.json`. The checker recomputes every cell and the results above; "
         "this text itself is not checked.\n";
    return s;
}

std::string proof_text(const ProveParams& params, const ProveResult& r) {
    const ProveDiagnostics& d = r.diagnostics;
    return proof_summary(params, r) + (d.ranks > 1 ? fmt::format("({:.1f} s on {} MPI ranks)\n", d.seconds, d.ranks)
                                                   : fmt::format("({:.1f} s on {} threads)\n", d.seconds, d.threads));
}

std::string verification_text(const VerifyReport& r) {
    return fmt::format("certificate valid: {} cells recomputed; verdict '{}' confirmed{}\n", r.cells, to_string(r.verdict),
                       r.meanfield ? " for the mean-field limit at alpha = R/L (not the finite-L field)" : "");
}

HeadlineRow proof_headline(const ProveResult& r) {
    return {{"verdict", to_string(r.verdict)},
            {"param_cells", static_cast<double>(r.param_cells.size())},
            {"cells", static_cast<double>(r.cells.size())},
            {"enclosures", static_cast<double>(r.diagnostics.enclosures)},
            {"max_dj_width_rel", r.min_width_rel}};
}

std::vector<HeadlineRow> enclosure_headline(const std::vector<FieldEnclosure>& enclosures) {
    std::vector<HeadlineRow> rows;
    for (const FieldEnclosure& e : enclosures)
        rows.push_back({{"at_rho", e.rho.lo}, {"j_lo", e.j.lo}, {"j_hi", e.j.hi}, {"dj_lo", e.dj.lo}, {"dj_hi", e.dj.hi},
                        {"mass_lo", e.mass.lo}, {"mass_hi", e.mass.hi}});
    return rows;
}

HeadlineRow verification_headline(const VerifyReport& r) {
    return {{"valid", r.valid ? std::string("true") : std::string("false")},
            {"verdict", to_string(r.verdict)},
            {"cells", static_cast<double>(r.cells)}};
}

namespace {
std::string interval_text(Interval v) { return fmt::format("[{:.17g}, {:.17g}]", v.lo, v.hi); }
}  // namespace

std::string enclosure_text(const ModelCell& cell, const std::vector<FieldEnclosure>& enclosures, int precision) {
    std::string s = fmt::format("Guaranteed enclosures (ball arithmetic, {}, {} bits; docs/theory.md section 11)\n"
                                "Model: exactly d = {}, L = {}, R = {}, {}, {}, {}: each the double nearest the value "
                                "given (sigma per coordinate, after dividing a per-norm sigma by sqrt(d)).\n"
                                "Endpoints: outward-rounded doubles, printed to round-trip.\n",
                                arb_version_text(), precision, cell.d, cell.L, cell.R, exact_note("theta", cell.theta.lo),
                                exact_note("sigma", cell.sigma.lo), exact_note("beta", cell.beta.lo));
    for (const auto& e : enclosures) {
        s += fmt::format("{}\n  j   in {}  width {:.3g}\n  j'  in {}  width {:.3g}\n", exact_note("rho", e.rho.lo),
                         interval_text(e.j), e.j.width(), interval_text(e.dj), e.dj.width());
        s += fmt::format("  j'' in {}  width {:.3g}\n  E[A_I] in {}  width {:.3g}\n", interval_text(e.d2j),
                         e.d2j.width(), interval_text(e.mass), e.mass.width());
    }
    return s;
}

nlohmann::json enclosure_document(const Provenance& provenance, const ModelParams& model,
                                  const std::vector<FieldEnclosure>& enclosures) {
    nlohmann::json doc = provenance;
    doc["model"] = model;
    doc["rigorous"] = true;
    doc["arb_version"] = arb_version_text();
    doc["enclosures"] = enclosures;
    return doc;
}

}  // namespace rhoflow
