#include "rhoflow/experiment/jobs.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/field/meanfield.hpp"
#include "rhoflow/io/json.hpp"

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
    validate_rho(rho0, "rho0");
    require(std::isfinite(t_end) && t_end > 0, "t_end", t_end, "finite t_end > 0");
    require(points >= 2 && points <= 10000000, "points", points, "2 <= points <= 1e7");
    validate_member("table", [&] { table.validate(); });
    validate_member("ode", [&] { ode.validate(); });
    if (field == DriftMethod::exact) validate_member("model", [&] { validate_exact_field(model, table.exact); });
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

void CompareJob::validate() const { compare.validate(); }  // field paths as in CompareParams

// ------------------------------------------------------------------------------- dispatch

const std::vector<std::string>& job_commands() {
    static const std::vector<std::string> names = {"field", "ode", "phase", "sga", "compare"};
    return names;
}

std::string_view command_of(const Job& job) { return job_commands()[job.index()]; }

Job make_job(std::string_view command) {
    if (command == "field") return FieldJob{};
    if (command == "ode") return OdeJob{};
    if (command == "phase") return PhaseJob{};
    if (command == "sga") return SgaJob{};
    if (command == "compare") return CompareJob{};
    throw InvalidArgument("command", fmt::format("command = '{}' is not a job (accepted: field, ode, phase, sga, "
                                                 "compare)", command));
}

const ModelParams& model_of(const Job& job) {
    return std::visit(
        [](const auto& j) -> const ModelParams& {
            if constexpr (std::is_same_v<std::decay_t<decltype(j)>, CompareJob>)
                return j.compare.model;
            else
                return j.model;
        },
        job);
}

void validate(const Job& job) {
    std::visit([](const auto& j) { j.validate(); }, job);
}

// ------------------------------------------------------------------------------- running

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
    }
    return r;
}

OdeJobResult run(const OdeJob& job) {
    job.validate();
    const DriftField f = DriftField::make(job.model, job.field, job.table);
    return {f.info(), solve_ode(f, job.rho0, linear_grid(job.t_end, job.points), job.ode)};
}

PhaseJobResult run(const PhaseJob& job) {
    job.validate();
    const DriftField f = DriftField::make(job.model, job.field, job.table);
    return {f.info(), phase_portrait(f, job.phase)};
}

EnsembleResult run(const SgaJob& job, ProgressCounter* progress) {
    job.validate();
    if (progress) progress->total = job.sga.steps * job.sga.trials;
    return run_ensemble(job.model, job.sga, progress);
}

CompareResult run(const CompareJob& job, ProgressCounter* progress) {
    job.validate();
    return run_compare(job.compare, progress);
}

JobResult run(const Job& job, ProgressCounter* progress) {
    return std::visit(
        [&](const auto& j) -> JobResult {
            using J = std::decay_t<decltype(j)>;
            if constexpr (std::is_same_v<J, SgaJob> || std::is_same_v<J, CompareJob>)
                return run(j, progress);
            else
                return run(j);
        },
        job);
}

// ------------------------------------------------------------------------------- documents

json document(const Job& job, const JobResult& result) {
    json doc = provenance(std::string(command_of(job)));
    doc["model"] = model_of(job);
    std::visit([&](const auto& j) { doc["params"] = j; }, job);
    std::visit([&](const auto& r) { doc.update(json(r)); }, result);
    ensure_finite(doc);
    return doc;
}

JobResult result_from_document(const Job& job, const json& doc) {
    switch (job.index()) {
        case 0: return doc.get<FieldJobResult>();
        case 1: return doc.get<OdeJobResult>();
        case 2: return doc.get<PhaseJobResult>();
        case 3: return doc.get<EnsembleResult>();
        default: return doc.get<CompareResult>();
    }
}

// ------------------------------------------------------------------------------- headlines

namespace {
using Row = std::vector<std::pair<std::string, TableCell>>;
TableCell opt(const std::optional<double>& v) { return v ? TableCell(*v) : TableCell(); }
TableCell opt_mean(const std::optional<MeanCI>& v) { return v ? TableCell(v->mean) : TableCell(); }

std::vector<Row> headline_of(const FieldJob&, const FieldJobResult& r) {
    std::vector<Row> rows;
    for (const auto& p : r.points)
        rows.push_back({{"at_rho", p.rho}, {"j", p.j}, {"j_err", p.j_err}, {"dj", p.dj}, {"dj_err", p.dj_err},
                        {"mass_informative", p.mass_informative}});
    return rows;
}
std::vector<Row> headline_of(const OdeJob&, const OdeJobResult& r) {
    const OdeSolution& s = r.solution;
    return {{{"hit_time", opt(s.hit_time)}, {"rho_end", s.rho.back()}, {"rho_end_err", s.rho_err.back()}}};
}
std::vector<Row> headline_of(const PhaseJob&, const PhaseJobResult& r) {
    std::string attractors;
    for (const auto& e : r.portrait.equilibria)
        if (e.stable) attractors += fmt::format("{}{:.6g}", attractors.empty() ? "" : " ", e.rho);
    return {{{"monotone", std::string(r.portrait.monotone ? "yes" : "no")},
             {"equilibria", static_cast<double>(r.portrait.equilibria.size())},
             {"attractors", attractors}}};
}
std::vector<Row> headline_of(const SgaJob&, const EnsembleResult& r) {
    const auto& s = r.summary;
    return {{{"mean_abs_rho_final", s.abs_rho_final.mean}, {"ci95_lo", s.abs_rho_final.lo},
             {"ci95_hi", s.abs_rho_final.hi}, {"nuisance_mass", s.nuisance_mass.mean},
             {"hits", static_cast<double>(s.hits)}}};
}
std::vector<Row> headline_of(const CompareJob&, const CompareResult& r) {
    const auto& s = r.summary;
    return {{{"mean_abs_rho_final", s.abs_rho_final.mean},
             {"ci95_lo", s.abs_rho_final.lo},
             {"ci95_hi", s.abs_rho_final.hi},
             {"abs_rho_ode_final", std::abs(r.rho_ode_final)},
             {"nuisance_mass_sga", s.nuisance_mass.mean},
             {"nuisance_mass_population", r.table.back().nuisance_mass_population},
             {"hit_time_ode", opt_mean(r.hitting_time.ode)},
             {"hit_time_sga", opt_mean(r.hitting_time.sga)}}};
}
}  // namespace

std::vector<Row> headline(const Job& job, const JobResult& result) {
    return std::visit(
        [&](const auto& j) -> std::vector<Row> {
            using J = std::decay_t<decltype(j)>;
            if constexpr (std::is_same_v<J, FieldJob>) return headline_of(j, std::get<FieldJobResult>(result));
            else if constexpr (std::is_same_v<J, OdeJob>) return headline_of(j, std::get<OdeJobResult>(result));
            else if constexpr (std::is_same_v<J, PhaseJob>) return headline_of(j, std::get<PhaseJobResult>(result));
            else if constexpr (std::is_same_v<J, SgaJob>) return headline_of(j, std::get<EnsembleResult>(result));
            else return headline_of(j, std::get<CompareResult>(result));
        },
        job);
}

// ------------------------------------------------------------------------------- JSON hooks

RHOFLOW_JSON_HOOKS(FieldJob, model, rho, method, exact, montecarlo)
RHOFLOW_JSON_HOOKS(FieldJobResult, method, points, gradient)
RHOFLOW_JSON_HOOKS(OdeJob, model, rho0, t_end, points, field, table, ode)
RHOFLOW_JSON_HOOKS(PhaseJob, model, field, table, phase)
RHOFLOW_JSON_HOOKS(SgaJob, model, sga)

void to_json(json& j, const OdeJobResult& v) {
    j = v.solution;
    j["field"] = v.field;
}
void from_json(const json& j, OdeJobResult& v) {
    j.get_to(v.solution);
    j.at("field").get_to(v.field);
}
void to_json(json& j, const PhaseJobResult& v) {
    j = v.portrait;
    j["field"] = v.field;
}
void from_json(const json& j, PhaseJobResult& v) {
    j.get_to(v.portrait);
    j.at("field").get_to(v.field);
}
void to_json(json& j, const CompareJob& v) { j = v.compare; }
void from_json(const json& j, CompareJob& v) { j.get_to(v.compare); }

}  // namespace rhoflow
