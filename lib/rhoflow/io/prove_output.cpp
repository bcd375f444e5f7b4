#include "rhoflow/io/prove_output.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "rhoflow/check/box.hpp"
#include "rhoflow/check/claim.hpp"
#include "rhoflow/rigorous/enclosure.hpp"
#include "rhoflow/version.hpp"

namespace rhoflow {

std::string proof_summary(const ProveParams& params, const ProveResult& r) {
    std::string s;
    s += fmt::format("# rhoflow prove: {}\n\n", to_string(params.claim));
    s += fmt::format("**Verdict: {}.**\n\n", to_string(r.verdict));
    s += "Box (per-coordinate sigma): ";
    for (int a = 0; a < axis_count; ++a)
        s += fmt::format("{}{} = {}", a ? ", " : "", axis_name(a), params.box.axes()[static_cast<std::size_t>(a)]->text());
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

namespace {
std::string interval_text(Interval v) { return fmt::format("[{:.17g}, {:.17g}]", v.lo, v.hi); }
}  // namespace

std::string enclosure_text(const std::vector<FieldEnclosure>& enclosures, int precision) {
    std::string s = fmt::format("Guaranteed enclosures (ball arithmetic, {}, {} bits; docs/theory.md section 11)\n",
                                arb_version_text(), precision);
    for (const auto& e : enclosures) {
        s += fmt::format("rho = {}\n  j   in {}  width {:.3g}\n  j'  in {}  width {:.3g}\n", e.rho.lo,
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
