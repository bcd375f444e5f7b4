// `rhoflow threshold`: where along one real parameter a claim about the exact field stops
// holding, bracketed rigorously. A job of the library added in one file (lib/rhoflow/README.md,
// "Adding a job"): registered by register_threshold_job(), which register_library_jobs() calls.
//
// Method. The claim is proved or disproved (prove/prove.hpp) at the model with the axis at LO and
// at HI, then at midpoints, each a point proof: the side whose verdict the midpoint shares moves
// to it, until HI - LO <= width. The result is a bracket [LO, HI] with a certificate at each end,
// one proved and one disproved, which `rhoflow prove --verify` re-checks: a change of the claim's
// truth lies between them. It says nothing of how many changes there are (a claim may hold and
// fail again inside); between the ends nothing else is proved.
// A midpoint the prover cannot decide (right at the threshold the margin vanishes) is replaced
// by points 3/8, 5/8, 1/4 or 3/4 of the way. When it fails: the ends do not have opposite
// verdicts (`bracketed` false, with the reason), or none of those points is decided within the
// prover's limits (the bracket stops there, with the note).
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/number_text.hpp"
#include "rhoflow/experiment/register_job.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/prove/prove.hpp"

namespace rhoflow {

namespace {

// What the threshold job takes: a claim, a model, the axis and its starting bracket.
struct ThresholdJob {
    std::string claim = "monotone";  // a claim of prove (monotone, positive-drift, attractors=N, ...)
    std::string axis = "theta";      // theta | sigma | beta
    double lo = 0.9;                 // the bracket's lower end
    double hi = 1.0;                 // its upper end, lo < hi
    double width = 1e-4;             // stop when hi - lo <= width, > 0
    std::int64_t d = 50, L = 1000, R = 100;        // the model (the axis's own value is replaced)
    double theta = 1.0, sigma = 1.0, beta = 1.0;   // the model
    int precision = 128;             // bits of the balls
    double rel_tol = 1e-7;           // truncation target of the enclosures
    int cells = 16;                  // rho cells at the start of each point proof
    int max_depth = 16;              // rho bisections per point proof
    std::int64_t max_cells = 20000;  // enclosures per point proof
    double rho0 = 0.05;              // hitting-time: start
    double hit = 1e-3;               // hitting-time: level 1 - hit
    int max_steps = 60;              // point proofs at most, 2 ... 200
    int threads = 0;                 // threads over cells (0 = all cores)
    bool meanfield = false;          // the mean-field limit's claim at alpha = R/L (d plays no part)

    // The prover's parameters at the axis value v (validated there).
    ProveParams at(double v) const {
        ProveParams p;
        p.claim = parse_claim(claim);
        p.box.d = ParamRange(static_cast<double>(d));
        p.box.L = ParamRange(static_cast<double>(L));
        p.box.R = ParamRange(static_cast<double>(R));
        p.box.theta = ParamRange(axis == "theta" ? v : theta);
        p.box.sigma = ParamRange(axis == "sigma" ? v : sigma);
        p.box.beta = ParamRange(axis == "beta" ? v : beta);
        p.rigorous.precision = precision;
        p.rigorous.rel_tol = rel_tol;
        p.initial_cells = cells;
        p.max_depth = max_depth;
        p.max_box_depth = 0;
        p.max_cells = max_cells;
        p.rho0 = rho0;
        p.hit_eps = hit;
        p.threads = threads;
        p.meanfield = meanfield;
        return p;
    }

    void validate() const {
        if (axis != "theta" && axis != "sigma" && axis != "beta")
            throw InvalidArgument("axis", fmt::format("axis = '{}' is not a real parameter (accepted: theta, sigma, beta)", axis));
        require(std::isfinite(lo) && std::isfinite(hi) && lo < hi, "hi", hi, "lo < hi, both finite");
        require(std::isfinite(width) && width > 0, "width", width, "width > 0");
        require(max_steps >= 2 && max_steps <= 200, "max_steps", max_steps, "2 <= max_steps <= 200");
        for (double v : {lo, hi}) {  // every point between lies in the prover's range when both ends do
            try {
                at(v).validate();
            } catch (const InvalidArgument& e) {
                std::string f = e.field();
                if (f.rfind("box.", 0) == 0) f = f.substr(4);
                if (f == axis) f = v == lo ? "lo" : "hi";
                if (f == "rigorous.precision") f = "precision";
                if (f == "rigorous.rel_tol") f = "rel_tol";
                if (f == "initial_cells") f = "cells";
                if (f == "hit_eps") f = "hit";
                throw InvalidArgument(f, e.what());
            }
        }
    }
};
// "meanfield": true only for the mean-field limit: earlier documents read back, and keep their bytes.
RHOFLOW_JSON_HOOKS_WITH_FLAG(ThresholdJob, meanfield, claim, axis, lo, hi, width, d, L, R, theta, sigma, beta, precision,
                             rel_tol, cells, max_depth, max_cells, rho0, hit, max_steps, threads)

// One point proof of the bisection.
struct ThresholdStep {
    double value = 0;             // the axis value
    std::string verdict;          // proved | disproved | not proved
    std::int64_t enclosures = 0;  // its cost
    std::string note;             // what decided it
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ThresholdStep, value, verdict, enclosures, note)

// The bracket and the certificates at its ends.
struct ThresholdResult {
    bool bracketed = false;             // the ends have opposite verdicts, proved and disproved
    double lo = 0, hi = 0;              // the bracket (the last ends)
    std::string lo_verdict, hi_verdict; // their verdicts
    std::vector<ThresholdStep> steps;   // every point proof, in order
    nlohmann::json lo_certificate;      // the certificate at lo (prove's format)
    nlohmann::json hi_certificate;      // the certificate at hi
    std::string note;                   // why the bracket ends where it does
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ThresholdResult, bracketed, lo, hi, lo_verdict, hi_verdict, steps, lo_certificate,
                                   hi_certificate, note)

struct PointProof {
    double value = 0;
    ProveParams params;
    ProveResult result;
};

bool decided(const PointProof& p) { return p.result.verdict != ProofVerdict::not_proved; }

ThresholdResult run_threshold(const ThresholdJob& job) {
    job.validate();
    ThresholdResult out;
    auto prove_at = [&](double v) {
        PointProof p{v, job.at(v), {}};
        p.result = run_prove(p.params);
        out.steps.push_back({v, to_string(p.result.verdict), p.result.diagnostics.enclosures,
                             p.result.param_cells.empty() ? "" : p.result.param_cells.front().note});
        return p;
    };
    PointProof a = prove_at(job.lo), b = prove_at(job.hi);
    out.bracketed = decided(a) && decided(b) && a.result.verdict != b.result.verdict;
    if (!out.bracketed)
        out.note = fmt::format("the ends are not one proved and one disproved ({} at {}, {} at {}): no bracket",
                               to_string(a.result.verdict), format_number(job.lo), to_string(b.result.verdict),
                               format_number(job.hi));
    while (out.bracketed && b.value - a.value > job.width) {
        if (static_cast<int>(out.steps.size()) >= job.max_steps) {
            out.note = fmt::format("stopped at max_steps = {}", job.max_steps);
            break;
        }
        // The midpoint, or (when the prover cannot decide it, as right at the threshold, where
        // the margin vanishes) points a quarter or three eighths off it: any decided point narrows.
        std::optional<PointProof> m;
        for (double f : {0.5, 0.375, 0.625, 0.25, 0.75}) {
            if (static_cast<int>(out.steps.size()) >= job.max_steps) break;
            m = prove_at(a.value + f * (b.value - a.value));
            if (decided(*m)) break;
        }
        if (!m || !decided(*m)) {
            out.note = m ? fmt::format("not decided at {} = {} nor at the points around it within the prover's "
                                       "limits: the bracket stops here", job.axis, format_number(a.value + 0.5 * (b.value - a.value)))
                         : fmt::format("stopped at max_steps = {}", job.max_steps);
            break;
        }
        (m->result.verdict == a.result.verdict ? a : b) = std::move(*m);
    }
    if (out.note.empty()) out.note = fmt::format("hi - lo <= width = {}", format_number(job.width));
    out.lo = a.value;
    out.hi = b.value;
    out.lo_verdict = to_string(a.result.verdict);
    out.hi_verdict = to_string(b.result.verdict);
    out.lo_certificate = certificate(a.params, a.result);
    out.hi_certificate = certificate(b.params, b.result);
    return out;
}

std::string threshold_text(const ThresholdJob& j, const ThresholdResult& r) {
    std::string s = fmt::format("Threshold of '{}'{} in {} (d={}, L={}, R={}{}{}{}):\n", j.claim,
                                j.meanfield ? " for the mean-field limit at alpha = R/L" : "", j.axis, j.d, j.L, j.R,
                                j.axis == "theta" ? "" : fmt::format(", theta={}", format_number(j.theta)),
                                j.axis == "sigma" ? "" : fmt::format(", sigma={}", format_number(j.sigma)),
                                j.axis == "beta" ? "" : fmt::format(", beta={}", format_number(j.beta)));
    if (r.bracketed)
        s += fmt::format("  {} at {} = {} and {} at {} = {}: the claim changes in [{}, {}] (width {:.2e}, {} point "
                         "proofs; {})\n",
                         r.lo_verdict, j.axis, format_number(r.lo), r.hi_verdict, j.axis, format_number(r.hi),
                         format_number(r.lo), format_number(r.hi), r.hi - r.lo, r.steps.size(), r.note);
    else
        s += "  " + r.note + "\n";
    s += fmt::format("\n| {} | verdict | enclosures | detail |\n|---|---|---|---|\n", j.axis);
    for (const auto& st : r.steps)
        s += fmt::format("| {} | {} | {} | {} |\n", format_number(st.value), st.verdict, st.enclosures, st.note);
    s += "\nRe-check each end (with --out DIR): rhoflow prove --verify DIR/lo.certificate.json (and hi).\n";
    return s;
}

// result.json, and each end's certificate in a file of its own for `prove --verify`.
std::vector<std::string> write_threshold(const Job& job, const JobResult& result, const std::filesystem::path& dir,
                                         bool render, const Provenance& p, const std::string& stem, bool citation) {
    std::vector<std::string> lines = write_document_output(job, result, dir, render, p, stem, citation);
    const auto& r = std::any_cast<const ThresholdResult&>(std::get<RegisteredResult>(result).value);
    for (const auto& [name, cert] : {std::pair{"lo", &r.lo_certificate}, std::pair{"hi", &r.hi_certificate}}) {
        nlohmann::json c = *cert;
        c["provenance"] = p;  // optional for the checker, as in prove's certificate.json
        write_file_atomic(dir / (std::string(name) + ".certificate.json"), c.dump(1) + "\n");
        lines.push_back(std::string(name) + ".certificate.json");
    }
    return lines;
}

std::vector<Setting> threshold_settings() {
    const std::string g = "Threshold", m = "Model (the axis's own value is replaced)", q = "Each point proof";
    return {member_setting("claim", "claim", "monotone | positive-drift | attractors=N | recovery | hitting-time<=T | filtering<=EPS", g,
                           &ThresholdJob::claim),
            member_setting("axis", "axis", "the real parameter bracketed: theta | sigma | beta", g, &ThresholdJob::axis),
            member_setting("lo", "lo", "the starting bracket's lower end (finite)", g, &ThresholdJob::lo),
            member_setting("hi", "hi", "its upper end, lo < hi", g, &ThresholdJob::hi),
            member_setting("width", "width", "stop when hi - lo <= width, > 0", g, &ThresholdJob::width),
            member_setting("max-steps", "max_steps", "point proofs at most, 2 ... 200", g, &ThresholdJob::max_steps),
            member_setting("d", "d", "ambient dimension, >= 2", m, &ThresholdJob::d),
            member_setting("L", "L", "tokens, >= 3", m, &ThresholdJob::L),
            member_setting("R", "R", "informative tokens, 1 ... L", m, &ThresholdJob::R),
            member_setting("theta", "theta", "signal strength, >= 0", m, &ThresholdJob::theta),
            member_setting("sigma", "sigma", "noise per coordinate, > 0", m, &ThresholdJob::sigma),
            member_setting("beta", "beta", "inverse temperature, > 0", m, &ThresholdJob::beta),
            member_setting("precision", "precision", "bits of the balls, 64 ... 1024", q, &ThresholdJob::precision),
            member_setting("rel-tol", "rel_tol", "truncation target of each enclosure, 1e-30 ... 1e-3", q, &ThresholdJob::rel_tol),
            member_setting("cells", "cells", "rho cells at the start, 2 ... 4096", q, &ThresholdJob::cells),
            member_setting("max-depth", "max_depth", "bisections of a rho cell, 0 ... 40", q, &ThresholdJob::max_depth),
            member_setting("max-cells", "max_cells", "enclosures per point proof, 1 ... 1e7", q, &ThresholdJob::max_cells),
            member_setting("rho0", "rho0", "hitting-time: the start", q, &ThresholdJob::rho0),
            member_setting("hit", "hit", "hitting-time: the level 1 - hit", q, &ThresholdJob::hit),
            member_setting("threads", "threads", "threads over cells (0 = all cores)", q, &ThresholdJob::threads),
            member_setting("meanfield", "meanfield",
                           "the claim for the mean-field limit L -> infinity at alpha = R/L (d plays no part)", m,
                           &ThresholdJob::meanfield)};
}

}  // namespace

void register_threshold_job() {
    JobKind row;
    row.name = "threshold";
    row.description =
        "Brackets where a claim about the exact field (or, with --meanfield, about its mean-field limit) stops "
        "holding along one real parameter (theta, sigma or beta), rigorously: point proofs (rhoflow prove) at --lo and --hi, then at midpoints, until hi - lo <= "
        "--width. The bracket has a certificate at each end, one proved and one disproved (--out DIR writes "
        "lo.certificate.json and hi.certificate.json for rhoflow prove --verify): the claim's truth changes between "
        "them. Nothing is claimed about the points in between. Exit code 0 whatever the outcome.";
    row.summary = "A rigorous bracket [lo, hi] of where a claim stops holding along theta, sigma or beta, with a "
                  "certificate at each end (one proved, one disproved).";
    row.params_type = "ThresholdJob";
    row.positional = "claim";
    row.out_help = "folder for result.json and the two ends' certificates (complete or absent)";
    row.settings = &threshold_settings;
    row.write = &write_threshold;
    JobType<ThresholdJob, ThresholdResult> type;
    type.run = &run_threshold;
    type.text = &threshold_text;
    type.headline = [](const ThresholdJob& j, const ThresholdResult& r) {
        return std::vector<HeadlineRow>{{{j.axis + " lo", r.lo}, {j.axis + " hi", r.hi}, {"bracket width", r.hi - r.lo},
                                         {"bracketed", std::string(!r.bracketed ? "no" : r.lo_verdict == "proved" ? "proved at lo" : "proved at hi")},
                                         {"point proofs", static_cast<double>(r.steps.size())}}};
    };
    register_job(std::move(row), std::move(type));
}

}  // namespace rhoflow
