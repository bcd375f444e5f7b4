#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/exec/units.hpp"
#include "rhoflow/experiment/job_plan.hpp"
#include "rhoflow/experiment/job_table.hpp"

#include <algorithm>
#include <cmath>
#include <concepts>
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
#include "rhoflow/io/prove_output.hpp"
#include "rhoflow/io/read_back.hpp"
#include "rhoflow/io/result_output.hpp"
#include "rhoflow/io/table_files.hpp"

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
    validate_member("rigorous_params", [&] { rigorous_params.validate(); });
    if (!rigorous) {
        if (rigorous_params.precision != RigorousParams{}.precision)
            throw InvalidArgument("rigorous_params.precision", "precision sets the balls of rigorous (add rigorous)");
        return;
    }
    if (method != FieldMethod::exact)
        throw InvalidArgument("rigorous", "rigorous encloses the exact field (drop method or use method exact)");
    try {  // the enclosures' range, named as the model's field ("beta = 5 ...", not "cell.beta = 5 ...")
        ModelCell::of(model).validate();
    } catch (const InvalidArgument& e) {
        const std::string field = e.field().rfind("cell.", 0) == 0 ? e.field().substr(5) : e.field();
        std::string what = e.what();
        if (what.rfind("cell.", 0) == 0) what.erase(0, 5);
        throw InvalidArgument("model." + field, what);
    }
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
    validate_member("tables", [&] { tables.validate(); });
}

void StationaryJob::validate() const {
    validate_member("model", [&] { model.validate(); });
    require(std::isfinite(eta) && eta > 0 && eta <= 1e100, "eta", eta, "0 < eta <= 1e100");
    validate_member("stationary", [&] { stationary.validate(); });
    validate_member("model", [&] { require_signal_for_stationary_law(model); });
    if (stationary.field == DriftMethod::exact)
        validate_member("model", [&] { validate_exact_field(model, stationary.table.exact); });
    validate_member("tables", [&] { tables.validate(); });
}

void CheckJob::validate() const {
    validate_member("check", [&] { check.validate(); });  // a range's scale: the scale setting routes it
    x_axis_index();
    validate_member("figure", [&] { figure.validate(); });
    validate_member("tables", [&] { tables.validate(); });
}

void ProveJob::validate() const {
    if (verify_fast && verify.empty()) throw InvalidArgument("verify_fast", "verify-fast needs verify CERT");
    if (verify.empty()) {
        validate_member("prove", [&] { prove.validate(); });
        return;
    }
    if (verify.find('\0') != std::string::npos)
        throw InvalidArgument("verify", "verify holds a NUL character (accepted: a certificate file)");
    validate_member("prove", [&] { require(prove.threads >= 0 && prove.threads <= 4096, "threads", prove.threads,
                                           "0 <= threads <= 4096"); });
    // Re-checking takes everything from the certificate: a proof setting given besides is a mistake.
    ProveParams defaults;
    defaults.threads = prove.threads;
    const json given = prove, usual = defaults;
    const json patch = json::diff(usual, given);
    if (!patch.empty()) {
        std::string path = patch.front().value("path", "");
        std::replace(path.begin(), path.end(), '/', '.');
        throw InvalidArgument("prove" + path, "cannot be combined with verify (the certificate says everything)");
    }
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
            else if constexpr (std::is_same_v<J, RegisteredJob>) return j.kind->ops.model ? j.kind->ops.model(j) : nullptr;
            else if constexpr (requires { { j.model } -> std::convertible_to<const ModelParams&>; }) return &j.model;
            else return nullptr;  // a box of models (check, prove), or a job without one
        },
        job);
}

std::string input_file_of(const Job& job) {
    const auto* p = std::get_if<ProveJob>(&job);
    return p ? p->verify : std::string();
}

void validate(const Job& job) {
    std::visit([](const auto& j) { j.validate(); }, job);
}

void RegisteredJob::validate() const { kind->ops.validate(*this); }

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

namespace {
// Guaranteed enclosures at each rho (the exact field in ball arithmetic, rigorous/enclosure.hpp).
FieldJobResult enclose(const FieldJob& job) {
    const ModelCell cell = ModelCell::of(job.model);
    FieldJobResult r;
    for (double rho : job.rho) {
        r.enclosures.push_back(enclose_field(cell, {rho, rho}, job.rigorous_params));
        // Valid but useless: rounding inside the Taylor arithmetic has eaten the digits.
        const FieldEnclosure& e = r.enclosures.back();
        auto mid = [](Interval v) { return std::abs(0.5 * (v.lo + v.hi)); };
        const double size = mid(e.j) + mid(e.dj) + mid(e.d2j);
        for (const auto& [name, v] : {std::pair{"j", e.j}, {"j'", e.dj}, {"j''", e.d2j}})
            if (v.width() > size)
                throw NumericalError(fmt::format(
                    "rigorous field: at rho = {} the enclosure of {} [{:.6g}, {:.6g}] is wider than the field "
                    "itself at {} bits (rounding in the ball arithmetic); raise --precision (64 ... 1024)",
                    rho, name, v.lo, v.hi, job.rigorous_params.precision));
    }
    return r;
}
}  // namespace

FieldJobResult run(const FieldJob& job) {
    job.validate();
    if (job.rigorous) return enclose(job);
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

SgaJobResult run(const SgaJob& job, ProgressCounter* progress, ResultDetail detail) {
    return std::get<SgaJobResult>(run(Job(job), progress, detail));
}

SgaJobResult with_outcomes(const SgaJob& job, EnsembleResult ensemble) {
    SgaJobResult r;
    r.ensemble = std::move(ensemble);
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

CompareResult run(const CompareJob& job, ProgressCounter* progress) {
    return std::get<CompareResult>(run(Job(job), progress, ResultDetail::full));
}

StationaryLaw run(const StationaryJob& job) {
    job.validate();
    return stationary_law(job.model, job.eta, job.update, job.stationary);
}

CheckResult run(const CheckJob& job, Execution ex) {
    job.validate();
    return run_check(job.check, {}, ex);
}

ProveJobResult run(const ProveJob& job, Execution ex) {
    job.validate();
    ProveJobResult out;
    if (job.verify.empty()) {
        out.proof = run_prove(job.prove, ex);
        return out;
    }
    json cert;
    std::string text;
    try {  // untrusted: bounded, never hung by a FIFO or a device (io/read_back.hpp)
        text = read_untrusted_file(job.verify, {max_document_bytes, "a certificate"});
        cert = parse_untrusted_json(text, job.verify, "verify");
    } catch (const IoError& e) {
        throw InvalidArgument("verify", e.what());
    }
    VerifyReport r = verify_certificate(cert, job.prove.threads, ex,
                                        job.verify_fast ? VerifyMethod::fast : VerifyMethod::independent);
    const std::vector<std::string> dups = duplicate_keys(text);
    r.errors.insert(r.errors.begin(), dups.begin(), dups.end());
    r.valid = r.valid && dups.empty();
    if (!r.valid && keeps_results(ex)) {
        std::string msg = fmt::format("the certificate '{}' does not check:", job.verify);
        for (const auto& e : r.errors) msg += "\n  " + without_json_prefixes(e);
        throw InvalidArgument("verify", msg);
    }
    out.verification = std::move(r);
    return out;
}

std::optional<JobResult> run(Execution ex, const Job& job, ProgressCounter* progress, ResultDetail detail) {
    JobPlan plan(job, ranks_for(ex), 0, keeps_results(ex) ? progress : nullptr, detail);
    if (!plan.spreads()) {
        JobResult r = kind_of(job).run(job, progress, detail, ex);
        return on_keeper<JobResult>(ex, [&] { return std::move(r); });
    }
    std::optional<JobResult> out;
    plan.finished = [&](UnitQueue&, JobResult r) { out = std::move(r); };
    try {
        execute(ex, plan.sets(), plan.units(0));
    } catch (const UnitError& e) {
        e.rethrow();
    }
    return out;
}

JobResult run(const Job& job, ProgressCounter* progress, ResultDetail detail) {
    return *run(Execution::local, job, progress, detail);
}

// ------------------------------------------------------------------------------- documents

namespace {
// The verification's document: what `prove --verify --json` prints.
json verification_document(const VerifyReport& r) {
    return json{{"valid", r.valid}, {"verdict", to_string(r.verdict)}, {"cells", r.cells}};
}

// A proof's result read back from its certificate (the work counts it records; no timing).
ProveResult proof_from_certificate(const json& cert) {
    ProveResult r;
    const ProveParams p = cert.at("params").get<ProveParams>();
    r.claim = p.claim;
    r.box = p.box;
    cert.at("verdict").get_to(r.verdict);
    cert.at("param_cells").get_to(r.param_cells);
    cert.at("cells").get_to(r.cells);
    cert.at("undecided").get_to(r.undecided);
    if (!cert.at("counterexample").is_null()) r.counterexample = cert.at("counterexample").get<ProofCell>();
    const json& s = cert.at("summary");
    s.at("enclosures").get_to(r.diagnostics.enclosures);
    if (s.at("cells") != cert.at("cells").size() || s.at("param_cells") != cert.at("param_cells").size())
        throw InvalidArgument("summary", "summary's cell counts are not the certificate's cells and param_cells");
    s.at("max_depth_reached").get_to(r.diagnostics.max_depth_reached);
    s.at("max_dj_width_rel").get_to(r.min_width_rel);
    return r;  // no timing: a certificate records none
}

bool is_certificate(const json& doc) {
    return doc.is_object() && doc.contains("format") && doc.at("format") == "rhoflow proof certificate 1";
}
}  // namespace

json document(const Job& job, const JobResult& result, const Provenance& provenance) {
    Provenance p = provenance;
    p.command = std::string(command_of(job));  // the key a document is read back by
    if (const auto* c = std::get_if<CheckJob>(&job)) {
        json doc = check_document(c->check, std::get<CheckResult>(result), p);
        doc["params"] = *c;
        return doc;
    }
    if (const auto* v = std::get_if<ProveJob>(&job)) {
        const auto& r = std::get<ProveJobResult>(result);
        if (r.verification) return verification_document(*r.verification);
        json cert = certificate(v->prove, r.proof.value());
        cert["provenance"] = p;  // optional for the checker (prove/verify.hpp)
        return cert;
    }
    if (const auto* f = std::get_if<FieldJob>(&job); f && f->rigorous) {
        json doc = enclosure_document(p, f->model, std::get<FieldJobResult>(result).enclosures);
        doc["params"] = *f;
        ensure_finite(doc);
        return doc;
    }
    const json params = std::visit([](const auto& j) { return json(j); }, job);
    const json keys = std::visit([](const auto& r) { return json(r); }, result);
    json doc = model_of(job) ? result_document(p, *model_of(job), params, keys) : [&] {
        json d = p;  // a job without a model: the provenance, "params", the result's keys
        d["params"] = params;
        d.update(keys);
        return d;
    }();
    if (const auto* c = std::get_if<CompareJob>(&job)) {  // the result's params lack them
        doc["params"]["figure"] = c->figure;
        doc["params"]["tables"] = c->tables;
    }
    ensure_finite(doc);
    return doc;
}

JobResult result_from_document(const Job& job, const json& doc) {
    if (const auto* v = std::get_if<ProveJob>(&job)) {
        ProveJobResult r;
        if (v->verify.empty()) {
            r.proof = proof_from_certificate(doc);
        } else {
            VerifyReport report;
            doc.at("valid").get_to(report.valid);
            report.verdict = parse_proof_verdict(doc.at("verdict").get<std::string>(), "verdict");
            doc.at("cells").get_to(report.cells);
            r.verification = report;
        }
        return r;
    }
    if (const auto* f = std::get_if<FieldJob>(&job); f && f->rigorous) {
        FieldJobResult r;
        doc.at("enclosures").get_to(r.enclosures);
        return r;
    }
    JobResult r = result_from_json(job, doc);
    if (const auto* s = std::get_if<SgaJob>(&job)) {  // the ensemble's parameters are the document's "params"
        EnsembleResult& e = std::get<SgaJobResult>(r).ensemble;
        e.model = s->model;
        e.sga = s->sga;
    }
    return r;
}

JobResult result_from_json(const Job& job, const json& j) {
    return std::visit(
        [&](const auto& x) -> JobResult {
            using J = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<J, RegisteredJob>) return x.kind->ops.result_from_json(j);
            else return j.get<ResultOf<J>>();
        },
        job);
}

Job job_from_document(const json& doc) {
    if (is_certificate(doc)) {
        ProveJob p;
        doc.at("params").get_to(p.prove);
        validate_member("params", [&] { p.validate(); });
        return p;
    }
    Job job = make_job(doc.at("command").get<std::string>());
    std::visit([&](auto& j) { doc.at("params").get_to(j); }, job);
    validate(job);
    return job;
}

Provenance provenance_of_document(const Job& job, const json& doc) {
    try {
        return (is_certificate(doc) ? doc.at("provenance") : doc).get<Provenance>();
    } catch (const json::exception&) {
        Provenance p;  // older documents: no commit, command line, date; kept empty rather than refused
        p.command = std::string(command_of(job));
        return p;
    }
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
    if (job.rigorous) {
        if (r.enclosures.size() != job.rho.size())
            misfit("enclosures", fmt::format("holds {} enclosures for {} values of params.rho", r.enclosures.size(),
                                             job.rho.size()));
        for (std::size_t i = 0; i < r.enclosures.size(); ++i)
            if (!(r.enclosures[i].rho.lo == job.rho[i] && r.enclosures[i].rho.hi == job.rho[i]))
                misfit(fmt::format("enclosures[{}].rho", i), fmt::format("is not params.rho[{}] = {}", i, job.rho[i]));
        return;
    }
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

// A certificate read back (not verified: prove --verify does that): its counts and verdict agree
// with its cells.
void check_fits(const ProveJob&, const ProveJobResult& r) {
    if (!r.proof) return;
    const ProveResult& p = *r.proof;
    if (p.diagnostics.enclosures < static_cast<std::int64_t>(p.cells.size()))
        misfit("summary.enclosures", fmt::format("= {} is fewer than the {} cells", p.diagnostics.enclosures, p.cells.size()));
    bool all = !p.param_cells.empty(), any_disproved = false;
    for (const ParamCellResult& c : p.param_cells) {
        all = all && c.verdict == ProofVerdict::proved;
        any_disproved = any_disproved || c.verdict == ProofVerdict::disproved;
    }
    const ProofVerdict v = any_disproved ? ProofVerdict::disproved : all ? ProofVerdict::proved : ProofVerdict::not_proved;
    if (p.verdict != v)
        misfit("verdict", fmt::format("= '{}' is not what the parameter cells give ('{}')", to_string(p.verdict), to_string(v)));
    if (p.verdict == ProofVerdict::proved && p.cells.empty()) misfit("cells", "is empty for a proof");
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
std::vector<Row> headline_of(const FieldJob& j, const FieldJobResult& r) {
    return j.rigorous ? enclosure_headline(r.enclosures) : field_headline(r.points);
}
std::vector<Row> headline_of(const OdeJob&, const OdeJobResult& r) { return {ode_headline(r.solution)}; }
std::vector<Row> headline_of(const PhaseJob&, const PhaseJobResult& r) { return {phase_headline(r.portrait)}; }
std::vector<Row> headline_of(const SgaJob&, const SgaJobResult& r) { return {sga_headline(r.ensemble.summary, r.outcomes)}; }
std::vector<Row> headline_of(const CompareJob&, const CompareResult& r) { return {compare_headline(r)}; }
std::vector<Row> headline_of(const StationaryJob&, const StationaryLaw& s) { return {stationary_headline(s)}; }
std::vector<Row> headline_of(const CheckJob&, const CheckResult& r) { return {check_headline(r)}; }
template <class J, class R>
std::vector<Row> headline_of(const J&, const R&) {  // a job added to the table without a headline: no row
    return {};
}
std::vector<Row> headline_of(const RegisteredJob& j, const RegisteredResult& r) {
    return j.kind->ops.headline ? j.kind->ops.headline(j, r) : std::vector<Row>{};
}
std::vector<Row> headline_of(const ProveJob&, const ProveJobResult& r) {
    return {r.proof ? proof_headline(*r.proof) : verification_headline(r.verification.value())};
}
}  // namespace

std::vector<Row> headline(const Job& job, const JobResult& result) {
    return visit_job(job, result, [](const auto& j, const auto& r) { return headline_of(j, r); });
}

// ------------------------------------------------------------------------------- JSON hooks

void to_json(json& j, const FieldJob& v) {
    j = {{"model", v.model},           {"rho", v.rho},           {"method", v.method},
         {"exact", v.exact},           {"montecarlo", v.montecarlo}, {"rigorous", v.rigorous},
         {"rigorous_params", v.rigorous_params}};
}
void from_json(const json& j, FieldJob& v) {
    j.at("model").get_to(v.model);
    j.at("rho").get_to(v.rho);
    j.at("method").get_to(v.method);
    j.at("exact").get_to(v.exact);
    j.at("montecarlo").get_to(v.montecarlo);
    v.rigorous = j.contains("rigorous") && j.at("rigorous").get<bool>();  // documents before it have none
    v.rigorous_params = j.contains("rigorous_params") ? j.at("rigorous_params").get<RigorousParams>() : RigorousParams{};
}
void to_json(json& j, const FieldJobResult& v) {
    j = {{"method", v.method}, {"points", v.points}, {"gradient", v.gradient}};
    if (!v.enclosures.empty()) j["enclosures"] = v.enclosures;  // rigorous only
}
void from_json(const json& j, FieldJobResult& v) {
    j.at("method").get_to(v.method);
    j.at("points").get_to(v.points);
    j.at("gradient").get_to(v.gradient);
    v.enclosures = j.contains("enclosures") ? j.at("enclosures").get<std::vector<FieldEnclosure>>() : std::vector<FieldEnclosure>{};
}
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
namespace {
// The table width of a document's params; documents written before the widths have none (column).
TableParams tables_of(const json& params) {
    return params.is_object() && params.contains("tables") ? params.at("tables").get<TableParams>() : TableParams{};
}
}  // namespace

void to_json(json& j, const CompareJob& v) {
    j = v.compare;
    j["figure"] = v.figure;
    j["tables"] = v.tables;
}
void from_json(const json& j, CompareJob& v) {
    json params = j;
    if (params.is_object() && params.contains("figure")) {  // documents before the figure sizes have none
        params.at("figure").get_to(v.figure);
        params.erase("figure");
    }
    v.tables = tables_of(params);
    if (params.is_object()) params.erase("tables");
    params.get_to(v.compare);
}
void to_json(json& j, const StationaryJob& v) {
    j = {{"model", v.model}, {"eta", v.eta}, {"update", v.update}, {"stationary", v.stationary}, {"tables", v.tables}};
}
void from_json(const json& j, StationaryJob& v) {
    j.at("model").get_to(v.model);
    j.at("eta").get_to(v.eta);
    j.at("update").get_to(v.update);
    j.at("stationary").get_to(v.stationary);
    v.tables = tables_of(j);
}
void to_json(json& j, const CheckJob& v) {
    j = {{"check", v.check}, {"scale", to_string(v.scale)}, {"x_axis", v.x_axis}, {"figure", v.figure},
         {"tables", v.tables}};
}
void from_json(const json& j, CheckJob& v) {
    j.at("check").get_to(v.check);
    v.scale = parse_box_scales(j.at("scale").get<std::string>(), "scale");
    j.at("x_axis").get_to(v.x_axis);
    j.at("figure").get_to(v.figure);
    v.tables = tables_of(j);
}

void to_json(json& j, const RegisteredJob& v) { j = v.kind->ops.params_json(v); }
void from_json(const json& j, RegisteredJob& v) { v.kind->ops.params_from_json(j, v); }
void to_json(json& j, const RegisteredResult& v) { j = v.kind->ops.result_json(v); }

RHOFLOW_JSON_HOOKS(ProveJob, prove, verify, verify_fast)
void to_json(json& j, const ProveJobResult& v) {
    j = {{"proof", v.proof ? json(*v.proof) : json(nullptr)},
         {"verification", v.verification ? json(*v.verification) : json(nullptr)}};
}
void from_json(const json& j, ProveJobResult& v) {
    v.proof = j.at("proof").is_null() ? std::nullopt : std::optional<ProveResult>(j.at("proof").get<ProveResult>());
    v.verification = j.at("verification").is_null() ? std::nullopt
                                                     : std::optional<VerifyReport>(j.at("verification").get<VerifyReport>());
}

// ------------------------------------------------------------------------------- outputs

std::string document_file(const Job& job) { return kind_of(job).document_file(job); }

std::string document_text(const Job& job, const json& doc) { return doc.dump(kind_of(job).file_indent) + "\n"; }

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
    std::vector<std::string> lines =
        write_compare(std::get<CompareResult>(result), dir, render, p, c.figure, stem, c.tables);
    if (citation) lines.push_back("CITATION.bib");
    return lines;
}

std::vector<std::string> write_stationary_outputs(const Job& job, const JobResult& result,
                                                  const std::filesystem::path& dir, bool, const Provenance& p,
                                                  const std::string& stem, bool citation) {
    const auto& s = std::get<StationaryJob>(job);
    write_stationary(s.model, std::get<StationaryLaw>(result), document(job, result, p), dir, document_file(job), p, stem,
                     s.tables);
    return {document_file(job) + "; " + (citation ? "CITATION.bib; " : "") + "stationary.{md,tex}"};
}

std::vector<std::string> write_check_outputs(const Job& job, const JobResult& result, const std::filesystem::path& dir,
                                             bool render, const Provenance& p, const std::string& stem,
                                             bool citation) {
    const auto& c = std::get<CheckJob>(job);
    return write_check(c.check, std::get<CheckResult>(result), document(job, result, p), dir, render, p,
                       c.x_axis_index(), c.figure, stem, citation, c.tables);
}

std::vector<std::string> write_document_output(const Job& job, const JobResult& result, const std::filesystem::path& dir,
                                               bool, const Provenance& p, const std::string&, bool) {
    write_file_atomic(dir / document_file(job), document_text(job, document(job, result, p)));
    return {document_file(job)};
}

std::vector<std::string> write_prove_outputs(const Job& job, const JobResult& result, const std::filesystem::path& dir,
                                             bool render, const Provenance& p, const std::string& stem, bool citation) {
    std::vector<std::string> lines = write_document_output(job, result, dir, render, p, stem, citation);
    if (const auto& r = std::get<ProveJobResult>(result); r.proof) {
        write_file_atomic(dir / "summary.md", proof_summary(std::get<ProveJob>(job).prove, *r.proof));
        lines.push_back("summary.md");
    }
    if (citation) lines.push_back("CITATION.bib");
    return lines;
}

}  // namespace rhoflow
