#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/experiment/job_table.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <fmt/format.h>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/field/meanfield.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/check_output.hpp"
#include "rhoflow/io/compare_output.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/io/plot.hpp"
#include "rhoflow/io/result_output.hpp"

namespace rhoflow {

using nlohmann::json;

// ------------------------------------------------------------------------------- validation

void FieldJob::validate() const {
    validate_member("model", [&] { model.validate(); });
    require(!rho.empty(), "rho", 0, "at least one value");
    for (double r : rho) validate_rho(r, "rho");
    if (method == FieldMethod::exact) validate_member("model", [&] { validate_exact_field(model, exact); });
    validate_member("exact", [&] { exact.validate(); });
    validate_member("montecarlo", [&] { montecarlo.validate(); });
}

void OdeJob::validate() const {
    validate_member("model", [&] { model.validate(); });
    require(!rho0.empty() && rho0.size() <= 1000, "rho0", static_cast<double>(rho0.size()),
            "1 ... 1000 initial alignments");
    for (double r : rho0) validate_rho(r, "rho0");
    require(std::isfinite(t_end) && t_end > 0, "t_end", t_end, "finite t_end > 0");
    require(points >= 2 && points <= 10000000, "points", points, "2 <= points <= 1e7");
    require(t_log >= 0 && t_log <= 10000000, "t_log", t_log, "0 (off) or 1 ... 1e7 log-spaced times");
    if (!times.empty() && t_log > 0)
        throw InvalidArgument("times", "t = a list of times and t-log = N both choose the output times: give one");
    require(times.size() <= 10000000, "times", static_cast<double>(times.size()), "at most 1e7 times");
    for (std::size_t i = 0; i < times.size(); ++i) {
        require(std::isfinite(times[i]) && times[i] >= 0 && times[i] <= 1e300, "times", times[i],
                "finite times >= 0");
        if (i > 0 && !(times[i] > times[i - 1]))
            throw InvalidArgument("times", fmt::format("t = {} after {}: the times must increase (accepted: an "
                                                       "ascending list of times >= 0)",
                                                       format_number(times[i]), format_number(times[i - 1])));
    }
    validate_member("table", [&] { table.validate(); });
    validate_member("ode", [&] { ode.validate(); });
    // A start already at the hitting level (but not at the equilibrium +-1) has hitting time 0 by
    // definition: a level chosen by mistake, refused rather than reported as a result.
    for (double r : rho0)
        if (std::abs(r) < 1 && std::abs(r) >= 1 - ode.hit_eps)
            throw InvalidArgument("ode.hit_eps",
                                  fmt::format("hit = {}: rho0 = {} is already at the hitting level |rho| >= 1 - hit = {}, "
                                              "so the hitting time would be 0 by definition (accepted: hit < 1 - |rho0| = {})",
                                              format_number(ode.hit_eps), format_number(r),
                                              format_number(1 - ode.hit_eps), format_number(1 - std::abs(r))));
    if (field == DriftMethod::exact) validate_member("model", [&] { validate_exact_field(model, table.exact); });
}

std::vector<double> OdeJob::output_times() const {
    if (!times.empty()) return times;
    if (t_log <= 0) return linear_grid(t_end, points);
    // t = 0, then t_log times from t_end / 1e4 to t_end, evenly spaced in log t (four decades).
    std::vector<double> t = {0.0};
    const double lo = std::log(t_end * 1e-4), hi = std::log(t_end);
    for (int i = 0; i < t_log; ++i)
        t.push_back(t_log == 1 ? t_end : (i + 1 == t_log ? t_end : std::exp(lo + (hi - lo) * i / (t_log - 1))));
    return t;
}

void PhaseJob::validate() const {
    validate_member("model", [&] { model.validate(); });
    validate_member("table", [&] { table.validate(); });
    validate_member("phase", [&] { phase.validate(); });
    if (field == DriftMethod::exact) validate_member("model", [&] { validate_exact_field(model, table.exact); });
}

void SgaJob::validate() const {
    validate_member("model", [&] { model.validate(); });
    validate_member("sga", [&] { sga.validate(); });
}

void CompareJob::validate() const {
    compare.validate();  // field paths as in CompareParams
    validate_member("figure", [&] { figure.validate(); });
}

void StationaryJob::validate() const {
    validate_member("model", [&] { model.validate(); });
    require(std::isfinite(eta) && eta > 0 && eta <= 1e100, "eta", eta, "0 < eta <= 1e100");
    validate_member("stationary", [&] { stationary.validate(); });
    validate_member("model", [&] { require_signal_for_stationary_law(model); });
    if (stationary.field == DriftMethod::exact)
        validate_member("model", [&] { validate_exact_field(model, stationary.table.exact); });
}

void CheckJob::validate() const {
    validate_member("check", [&] { check.validate(); });  // a range's scale: the scale setting routes it
    x_axis_index();
    validate_member("figure", [&] { figure.validate(); });
}

int CheckJob::x_axis_index() const {
    if (x_axis.empty()) return -1;
    std::string ranged;
    for (int a = 0; a < axis_count; ++a) {
        const bool r = check.box.axes()[static_cast<std::size_t>(a)]->ranged();
        if (r && axis_name(a) == x_axis) return a;
        if (r) ranged += fmt::format("{}{}", ranged.empty() ? "" : ", ", axis_name(a));
    }
    throw InvalidArgument("x_axis", fmt::format("x-axis = '{}' is not a ranged parameter of this box (accepted: {})",
                                                x_axis, ranged.empty() ? "none, no parameter is ranged" : ranged));
}

// ------------------------------------------------------------------------------- dispatch

const std::vector<std::string>& job_commands() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const JobKind& k : job_kinds()) n.emplace_back(k.name);
        return n;
    }();
    return names;
}

std::string job_command_list(std::string_view separator) {
    std::string out;
    for (const auto& c : job_commands()) out += (out.empty() ? "" : std::string(separator)) + c;
    return out;
}

std::string_view command_of(const Job& job) { return kind_of(job).name; }

Job make_job(std::string_view command) {
    if (const JobKind* k = find_job_kind(command)) return k->make();
    throw InvalidArgument("command", fmt::format("command = '{}' is not a job (accepted: {})", command, job_command_list()));
}

const ModelParams* model_of(const Job& job) {
    return std::visit(
        [](const auto& j) -> const ModelParams* {
            using J = std::decay_t<decltype(j)>;
            if constexpr (std::is_same_v<J, CompareJob>) return &j.compare.model;
            else if constexpr (std::is_same_v<J, CheckJob>) return nullptr;
            else return &j.model;
        },
        job);
}

void validate(const Job& job) {
    std::visit([](const auto& j) { j.validate(); }, job);
}

// ------------------------------------------------------------------------------- running

namespace {
// A point whose error swamps its value carries no digit: a numerical failure, as the ODE and the
// phase portrait refuse the same field. j > 0 sets the scale: j' (the same units) fails when its
// error exceeds both |j'| and j (near a zero of j' a large relative error is expected).
void require_resolved(const FieldPoint& p, const ModelParams& m) {
    const bool j_bad = !(p.j_err <= std::abs(p.j));
    const bool dj_bad = !(p.dj_err <= std::abs(p.dj) || p.dj_err <= std::abs(p.j));
    if (!j_bad && !dj_bad) return;
    throw NumericalError(fmt::format(
        "field at rho = {}: {} = {} +- {}: the error exceeds the value, so no digit is known ({}; beta*theta = {}, "
        "beta*sigma = {}{})",
        format_number(p.rho), j_bad ? "j" : "j'", format_number(j_bad ? p.j : p.dj),
        format_number(j_bad ? p.j_err : p.dj_err), describe(m), format_number(m.beta * m.theta), format_number(m.tau()),
        m.beta * m.theta > 10 ? "; reduce theta (or beta)" : ""));
}
}  // namespace

FieldJobResult run(const FieldJob& job) {
    job.validate();
    FieldJobResult r;
    r.method = job.method;
    for (double rho : job.rho) {
        switch (job.method) {
            case FieldMethod::exact: r.points.push_back(exact_field(job.model, rho, job.exact)); break;
            case FieldMethod::meanfield: r.points.push_back(meanfield_field(job.model, rho)); break;
            case FieldMethod::montecarlo:
                r.gradient.emplace_back();
                r.points.push_back(montecarlo_field(job.model, rho, job.montecarlo, &r.gradient.back()));
                break;
        }
        require_resolved(r.points.back(), job.model);
    }
    return r;
}

OdeJobResult run(const OdeJob& job) {
    job.validate();
    const DriftField f = DriftField::make(job.model, job.field, job.table);
    const std::vector<double> times = job.output_times();
    OdeJobResult r{f.info(), solve_ode(f, job.rho0.front(), times, job.ode), {}};
    for (std::size_t i = 1; i < job.rho0.size(); ++i) r.others.push_back(solve_ode(f, job.rho0[i], times, job.ode));
    return r;
}

PhaseJobResult run(const PhaseJob& job) {
    job.validate();
    const DriftField f = DriftField::make(job.model, job.field, job.table);
    return {f.info(), phase_portrait(f, job.phase)};
}

SgaJobResult run(const SgaJob& job, ProgressCounter* progress, ResultDetail detail, Execution ex) {
    job.validate();
    if (progress) progress->total = job.sga.steps * job.sga.trials;
    return with_outcomes(job, run_ensemble(job.model, job.sga, progress,
                                           detail == ResultDetail::full ? EnsembleOutput::all() : EnsembleOutput::summary(50),
                                           ex));
}

SgaJobResult with_outcomes(const SgaJob& job, EnsembleResult ensemble) {
    SgaJobResult r;
    r.ensemble = std::move(ensemble);
    if (r.ensemble.rho_finals.empty()) {  // an MPI rank other than 0 holds no trials
        r.outcomes_note = "no trials on this rank";
        return r;
    }
    // The basins are the exact field's (the ODE the trials follow at small steps). A model the
    // exact field refuses, or a portrait that fails, leaves the ensemble's result intact.
    try {
        FieldTableParams table;
        table.threads = job.sga.threads;
        const DriftField f = DriftField::make(job.model, DriftMethod::exact, table);
        const PhasePortrait p = phase_portrait(f);
        r.outcomes = outcome_summary(p, r.ensemble.rho_finals, job.sga.rho0, job.model.d);
        r.field = f.info();
    } catch (const InvalidArgument& e) {
        r.outcomes_note = std::string("no outcome statistics: the exact field refuses this model: ") + e.what();
    } catch (const NumericalError& e) {
        r.outcomes_note = std::string("no outcome statistics: the phase portrait failed: ") + e.what();
    }
    return r;
}

CompareResult run(const CompareJob& job, ProgressCounter* progress, Execution ex) {
    job.validate();
    return run_compare(job.compare, progress, nullptr, ex);
}

StationaryLaw run(const StationaryJob& job) {
    job.validate();
    return stationary_law(job.model, job.eta, job.update, job.stationary);
}

CheckResult run(const CheckJob& job, Execution ex) {
    job.validate();
    return run_check(job.check, {}, ex);
}

JobResult run(const Job& job, ProgressCounter* progress, ResultDetail detail, Execution ex) {
    return kind_of(job).run(job, progress, detail, ex);
}

// ------------------------------------------------------------------------------- documents

json document(const Job& job, const JobResult& result, const Provenance& provenance) {
    Provenance p = provenance;
    p.command = std::string(command_of(job));  // the key a document is read back by
    if (const auto* c = std::get_if<CheckJob>(&job)) {
        json doc = check_document(c->check, std::get<CheckResult>(result), p);
        doc["params"] = *c;
        return doc;
    }
    json doc = result_document(p, *model_of(job), std::visit([](const auto& j) { return json(j); }, job),
                               std::visit([](const auto& r) { return json(r); }, result));
    if (const auto* c = std::get_if<CompareJob>(&job)) doc["params"]["figure"] = c->figure;  // the result's params lack it
    ensure_finite(doc);
    return doc;
}

JobResult result_from_document(const Job& job, const json& doc) {
    return std::visit([&](const auto& j) -> JobResult { return doc.get<ResultOf<std::decay_t<decltype(j)>>>(); }, job);
}

// ------------------------------------------------------------------------------- fit

namespace {

[[noreturn]] void misfit(const std::string& path, const std::string& what) { throw InvalidArgument(path, path + " " + what); }

// The path "a.b[2]" of a JSON pointer "/a/b/2" below `root`.
std::string dotted(const std::string& root, const std::string& pointer) {
    std::string out = root;
    std::size_t at = 1;
    while (at <= pointer.size() && pointer.size() > 0) {
        const std::size_t next = std::min(pointer.find('/', at), pointer.size());
        const std::string part = pointer.substr(at, next - at);
        const bool index = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
        out += index ? "[" + part + "]" : "." + part;
        at = next + 1;
    }
    return out;
}

// The summary an ensemble's trials give, against the one it holds (derived data is never taken as is).
void check_summary(const EnsembleResult& e) {
    const json given = json::parse(json(e.summary).dump()), recomputed = json::parse(json(summarise(e.trials)).dump());
    if (given == recomputed) return;
    const json patch = json::diff(recomputed, given);
    const std::string path = dotted("summary", patch.empty() ? "" : patch.front().value("path", ""));
    const json::json_pointer at(patch.empty() ? "" : patch.front().value("path", ""));
    throw InvalidArgument(path, fmt::format("{} = {} is not what the trials' records give ({})", path,
                                            given.contains(at) ? given.at(at).dump() : "missing",
                                            recomputed.contains(at) ? recomputed.at(at).dump() : "nothing"));
}

void check_fits(const SgaJob& job, const SgaJobResult& r) {
    const SgaParams& p = job.sga;
    const EnsembleResult& e = r.ensemble;
    if (std::cmp_not_equal(e.trials.size(), p.trials))
        misfit("trials", fmt::format("holds {} trial records, but params.sga.trials = {}", e.trials.size(), p.trials));
    if (e.record_steps != record_steps_for(p))
        misfit("record_steps", fmt::format("({} steps up to {}) are not the record steps of params.sga (steps = {}, "
                                           "records_per_decade = {}, record_steps)",
                                           e.record_steps.size(), e.record_steps.empty() ? 0 : e.record_steps.back(),
                                           p.steps, p.records_per_decade));
    if (e.record_times.size() != e.record_steps.size())
        misfit("record_times", fmt::format("has {} values for {} record steps", e.record_times.size(), e.record_steps.size()));
    if (e.rho_finals.size() != e.trials.size())
        misfit("rho_finals", fmt::format("has {} values for {} trials", e.rho_finals.size(), e.trials.size()));
    for (std::size_t i = 0; i < e.trials.size(); ++i) {
        const TrialResult& t = e.trials[i];
        const std::string at = fmt::format("trials[{}]", i);
        if (t.trial != p.first_trial + static_cast<std::int64_t>(i) || t.seed != p.seed)
            misfit(at, fmt::format("is trial {} of seed {}, not trial {} of params.sga.seed = {}", t.trial, t.seed,
                                   p.first_trial + static_cast<std::int64_t>(i), p.seed));
        if (t.rho.size() != e.record_steps.size() || t.nuisance_mass.size() != e.record_steps.size())
            misfit(at + ".rho", fmt::format("and {}.nuisance_mass must have one value per record step ({})", at,
                                            e.record_steps.size()));
        if (t.hit_step && (*t.hit_step < 0 || *t.hit_step > p.steps))
            misfit(at + ".hit_step", fmt::format("= {} is not a step of 0 ... {}", *t.hit_step, p.steps));
        if (!(e.rho_finals[i] == t.rho_final))
            misfit(fmt::format("rho_finals[{}]", i), fmt::format("= {} is not {}.rho_final = {}", e.rho_finals[i], at, t.rho_final));
    }
    check_summary(e);
    if (r.outcomes) {
        std::int64_t counted = r.outcomes->unassigned;
        for (const BasinOutcome& b : r.outcomes->basins) counted += b.count;
        if (r.outcomes->trials != p.trials || counted != p.trials)
            misfit("outcomes", fmt::format("count {} trials ({} in basins and unassigned), but params.sga.trials = {}",
                                           r.outcomes->trials, counted, p.trials));
    }
}

void check_fits(const FieldJob& job, const FieldJobResult& r) {
    if (r.points.size() != job.rho.size())
        misfit("points", fmt::format("holds {} points for {} values of params.rho", r.points.size(), job.rho.size()));
    for (std::size_t i = 0; i < r.points.size(); ++i)
        if (!(r.points[i].rho == job.rho[i]))
            misfit(fmt::format("points[{}].rho", i), fmt::format("= {} is not params.rho[{}] = {}", r.points[i].rho, i, job.rho[i]));
}

void check_solution(const OdeSolution& s, const std::string& at) {
    if (s.rho.size() != s.t.size() || s.rho_err.size() != s.t.size())
        misfit(at + "rho", fmt::format("and {}rho_err must have one value per time ({})", at, s.t.size()));
}

void check_fits(const OdeJob& job, const OdeJobResult& r) {
    if (r.others.size() + 1 != job.rho0.size())
        misfit("others", fmt::format("holds {} solutions for {} values of params.rho0 (the first is the main one)",
                                     r.others.size(), job.rho0.size()));
    check_solution(r.solution, "");
    for (std::size_t i = 0; i < r.others.size(); ++i) check_solution(r.others[i], fmt::format("others[{}].", i));
}

template <class J, class R>
void check_fits(const J&, const R&) {}  // results without records to recompute from

}  // namespace

void check_result_fits(const Job& job, const JobResult& result) {
    visit_job(job, result, [](const auto& j, const auto& r) { check_fits(j, r); });
}

// ------------------------------------------------------------------------------- headlines

namespace {
using Row = HeadlineRow;
std::vector<Row> headline_of(const FieldJob&, const FieldJobResult& r) { return field_headline(r.points); }
std::vector<Row> headline_of(const OdeJob&, const OdeJobResult& r) { return {ode_headline(r.solution)}; }
std::vector<Row> headline_of(const PhaseJob&, const PhaseJobResult& r) { return {phase_headline(r.portrait)}; }
std::vector<Row> headline_of(const SgaJob&, const SgaJobResult& r) { return {sga_headline(r.ensemble.summary, r.outcomes)}; }
std::vector<Row> headline_of(const CompareJob&, const CompareResult& r) { return {compare_headline(r)}; }
std::vector<Row> headline_of(const StationaryJob&, const StationaryLaw& s) { return {stationary_headline(s)}; }
std::vector<Row> headline_of(const CheckJob&, const CheckResult& r) { return {check_headline(r)}; }
}  // namespace

std::vector<Row> headline(const Job& job, const JobResult& result) {
    return visit_job(job, result, [](const auto& j, const auto& r) { return headline_of(j, r); });
}

// ------------------------------------------------------------------------------- JSON hooks

RHOFLOW_JSON_HOOKS(FieldJob, model, rho, method, exact, montecarlo)
RHOFLOW_JSON_HOOKS(FieldJobResult, method, points, gradient)
void to_json(json& j, const OdeJob& v) {
    j = {{"model", v.model}, {"rho0", v.rho0},   {"t_end", v.t_end},   {"points", v.points}, {"t_log", v.t_log},
         {"times", v.times}, {"field", v.field}, {"table", v.table}, {"ode", v.ode}};
}
void from_json(const json& j, OdeJob& v) {
    j.at("model").get_to(v.model);
    // Documents before several rho0 (and given or log-spaced times) hold one number, no t_log, no times.
    const json& r = j.at("rho0");
    v.rho0 = r.is_array() ? r.get<std::vector<double>>() : std::vector<double>{r.get<double>()};
    j.at("t_end").get_to(v.t_end);
    j.at("points").get_to(v.points);
    v.t_log = j.contains("t_log") ? j.at("t_log").get<int>() : 0;
    v.times = j.contains("times") ? j.at("times").get<std::vector<double>>() : std::vector<double>{};
    j.at("field").get_to(v.field);
    j.at("table").get_to(v.table);
    j.at("ode").get_to(v.ode);
}
RHOFLOW_JSON_HOOKS(PhaseJob, model, field, table, phase)
RHOFLOW_JSON_HOOKS(SgaJob, model, sga)
void to_json(json& j, const SgaJobResult& v) {
    j = v.ensemble;
    j["field"] = v.field;
    j["outcomes"] = v.outcomes;
    j["outcomes_note"] = v.outcomes_note;
}
void from_json(const json& j, SgaJobResult& v) {
    j.get_to(v.ensemble);
    const auto opt = [&](const char* key) { return j.contains(key) ? j.at(key) : json(); };
    v.field = opt("field").is_null() ? std::nullopt : std::optional<DriftFieldInfo>(j.at("field").get<DriftFieldInfo>());
    v.outcomes = opt("outcomes").is_null() ? std::nullopt : std::optional<OutcomeSummary>(j.at("outcomes").get<OutcomeSummary>());
    v.outcomes_note = j.contains("outcomes_note") ? j.at("outcomes_note").get<std::string>() : std::string();
}

void to_json(json& j, const OdeJobResult& v) {
    j = v.solution;
    j["field"] = v.field;
    j["others"] = v.others;
}
void from_json(const json& j, OdeJobResult& v) {
    j.get_to(v.solution);
    j.at("field").get_to(v.field);
    v.others = j.contains("others") ? j.at("others").get<std::vector<OdeSolution>>() : std::vector<OdeSolution>{};
}
void to_json(json& j, const PhaseJobResult& v) {
    j = v.portrait;
    j["field"] = v.field;
}
void from_json(const json& j, PhaseJobResult& v) {
    j.get_to(v.portrait);
    j.at("field").get_to(v.field);
}
void to_json(json& j, const CompareJob& v) {
    j = v.compare;
    j["figure"] = v.figure;
}
void from_json(const json& j, CompareJob& v) {
    json params = j;
    if (params.is_object() && params.contains("figure")) {  // documents before the figure sizes have none
        params.at("figure").get_to(v.figure);
        params.erase("figure");
    }
    params.get_to(v.compare);
}
RHOFLOW_JSON_HOOKS(StationaryJob, model, eta, update, stationary)
void to_json(json& j, const CheckJob& v) {
    j = {{"check", v.check}, {"scale", to_string(v.scale)}, {"x_axis", v.x_axis}, {"figure", v.figure}};
}
void from_json(const json& j, CheckJob& v) {
    j.at("check").get_to(v.check);
    v.scale = parse_box_scales(j.at("scale").get<std::string>(), "scale");
    j.at("x_axis").get_to(v.x_axis);
    j.at("figure").get_to(v.figure);
}

// ------------------------------------------------------------------------------- outputs

std::string document_file(const Job& job) { return std::string(kind_of(job).document_file); }

std::vector<std::string> write_outputs(const Job& job, const JobResult& result, const std::filesystem::path& dir,
                                       bool render, const Provenance& provenance, const std::string& stem,
                                       bool citation) {
    Provenance p = provenance;
    p.command = std::string(command_of(job));
    if (citation) write_citation(dir, p);
    return kind_of(job).write(job, result, dir, render, p, stem, citation);
}

std::vector<std::string> write_compare_outputs(const Job& job, const JobResult& result, const std::filesystem::path& dir,
                                               bool render, const Provenance& p, const std::string& stem,
                                               bool citation) {
    const auto& c = std::get<CompareJob>(job);
    std::vector<std::string> lines = write_compare(std::get<CompareResult>(result), dir, render, p, c.figure, stem);
    if (citation) lines.push_back("CITATION.bib");
    return lines;
}

std::vector<std::string> write_stationary_outputs(const Job& job, const JobResult& result,
                                                  const std::filesystem::path& dir, bool, const Provenance& p,
                                                  const std::string& stem, bool citation) {
    const auto& s = std::get<StationaryJob>(job);
    write_stationary(s.model, std::get<StationaryLaw>(result), document(job, result, p), dir, document_file(job), p, stem);
    return {document_file(job) + "; " + (citation ? "CITATION.bib; " : "") + "stationary.{md,tex}"};
}

std::vector<std::string> write_check_outputs(const Job& job, const JobResult& result, const std::filesystem::path& dir,
                                             bool render, const Provenance& p, const std::string& stem,
                                             bool citation) {
    const auto& c = std::get<CheckJob>(job);
    return write_check(c.check, std::get<CheckResult>(result), document(job, result, p), dir, render, p,
                       c.x_axis_index(), c.figure, stem, citation);
}

std::vector<std::string> write_document_output(const Job& job, const JobResult& result, const std::filesystem::path& dir,
                                               bool, const Provenance& p, const std::string&, bool) {
    write_file_atomic(dir / document_file(job), document(job, result, p).dump(2) + "\n");
    return {document_file(job)};
}

}  // namespace rhoflow
