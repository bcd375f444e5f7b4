#include "text.hpp"

#include "rhoflow/experiment/job_table.hpp"
#include "rhoflow/io/check_output.hpp"
#include "rhoflow/io/compare_output.hpp"
#include "rhoflow/io/prove_output.hpp"
#include "rhoflow/io/result_output.hpp"

namespace rhoflow::cli {

namespace {

// Each job's text is its result's (io/result_output.hpp, io/compare_output.hpp, io/check_output.hpp),
// given the job's fields it shows.
std::string text(const FieldJob& job, const FieldJobResult& r) {
    if (job.rigorous) return enclosure_text(ModelCell::of(job.model), r.enclosures, job.rigorous_params.precision);
    return field_text(job.model, job.method, job.montecarlo, r.points, r.gradient);
}
std::string text(const OdeJob& job, const OdeJobResult& r) {
    return ode_text(job.model, job.rho0, job.t_end, job.ode, r.field, r.solution, r.others);
}
std::string text(const PhaseJob& job, const PhaseJobResult& r) { return phase_text(job.model, r.field, r.portrait); }
std::string text(const SgaJob& job, const SgaJobResult& r) {
    return sga_text(job.model, job.sga, r.ensemble, r.outcomes, r.outcomes_note);
}
std::string text(const CompareJob&, const CompareResult& r) { return compare_markdown(r); }
std::string text(const StationaryJob& job, const StationaryLaw& s) {
    return stationary_text(job.model, job.eta, job.update, s);
}
std::string text(const CheckJob& job, const CheckResult& r) { return check_text(job.check, r); }
// A job added to the table without a text of its own prints its result's JSON.
template <class J, class R>
std::string text(const J&, const R& r) {
    return nlohmann::json(r).dump(2) + "\n";
}
// A registered job's is its row's (experiment/register_job.hpp).
std::string text(const RegisteredJob& job, const RegisteredResult& r) { return job.kind->ops.text(job, r); }
std::string text(const ProveJob& job, const ProveJobResult& r) {
    return r.proof ? proof_text(job.prove, *r.proof) : verification_text(r.verification.value());
}

}  // namespace

std::string render_text(const Job& job, const JobResult& result) {
    return visit_job(job, result, [](const auto& j, const auto& r) { return text(j, r); });
}

}  // namespace rhoflow::cli
