#include "rhoflow/experiment/job_table.hpp"

#include <atomic>
#include <mutex>
#include <fmt/format.h>
#include <stdexcept>

#include "rhoflow/experiment/detail/settings_tables.hpp"

namespace rhoflow {

namespace {

// The subcommands' --help texts (the command line adds sga's and compare's run defaults).
constexpr const char* kField =
    "The population objective j(rho) = E||f_q(X)||^2, its derivative j'(rho), the ODE drift (1 - rho^2) j'(rho) "
    "and the expected attention mass on informative tokens E[A_I], each with its error estimate.\n  exact: "
    "Laplace-transform quadrature, cost independent of L;\n  meanfield: the L -> infinity limit at alpha = R/L;\n  "
    "montecarlo: sampling with standard errors (j from ||f||^2, drift from E<g, xi - rho q>, dj pathwise).";
constexpr const char* kOde =
    "Integrates the mean-field ODE d rho/dt = (1 - rho^2) j'(rho) with Dormand-Prince 5(4) and dense output "
    "(Boost.Odeint), reporting rho on an even time grid with error estimates and the first time |rho| >= 1 - EPS "
    "(root of the dense output). The exact field is tabulated once as a Chebyshev interpolant whose error bound is "
    "reported and propagated.";
constexpr const char* kPhase =
    "Phase portrait of d rho/dt = (1 - rho^2) j'(rho) on [-1, 1]: every equilibrium (rho = +-1 and each zero of j', "
    "found by TOMS 748 after a scan of --scan cells and a Brent search at local minima of |j'|), its stability from "
    "F'(rho) with error bound, the basin of each attractor, and whether F has one sign on (-1, 1). Nothing assumes "
    "monotonicity.";
constexpr const char* kSga =
    "Runs an ensemble of projected stochastic gradient ascent trials, one fresh sample X per step, with step sizes "
    "eta_k = eta0 / (1 + k/k0)^gamma. --sampler reduced simulates the exact law of rho_k in O(L) per step whatever "
    "d is; --sampler full simulates the d-dimensional recursion. Trial k uses the counter-based stream (seed, k): "
    "results do not depend on --threads.";
constexpr const char* kCompare =
    "The main job: runs the SGA ensemble and the mean-field ODE and compares them: the ODE-vs-SGA table (rho_ODE, "
    "SGA mean with 95% CI and quantiles, the asymptotic-pseudotrajectory gap D_T, attention mass on nuisance "
    "tokens), hitting times, D_T(t) across the run with its decay against eta(t), and a step-size study of the "
    "tracking error against eta0. Writes JSON, CSV, Markdown and LaTeX tables, figure data, gnuplot scripts and "
    "PNG/SVG figures into --out, and prints the Markdown table. The effective dynamics (one-step moments of the "
    "chain at finite step sizes) predict every row with a standard error, and a verdict says whether the ensemble "
    "is consistent with the theory, in parts: the mean per row (the field), the spread, the hit fraction and "
    "hitting times (the fluctuations) and the basin fractions, under one family-wise false-alarm rate (Holm); "
    "--field-scale S and --diffusion-scale D try a deliberately wrong theory. With no flags it runs the embedded default experiment (8-20 s on 2 cores). It takes sga's "
    "model and ensemble flags except --first-trial, --record and --records-per-decade (the comparison runs trials "
    "0 ... trials - 1 and chooses its own record steps).";
constexpr const char* kStationary =
    "The predicted stationary law of the constant-step chain at every effective attractor rho*(eta) (roots of the "
    "chain's one-step mean a(rho; eta), measured by Monte Carlo), each within its basin: the resampled chain (9.4') "
    "run long on bootstrap replicas of the table's own gradient draws gives the mean, sd, quantiles and the tail "
    "P(|rho| >= 1 - EPS), with the chain's batch-means error and the bank's replica error, and the paths that left the "
    "basin; beside it the diffusion approximation, the density exp(int 2a/(eta v))/v (right for means, wrong in the "
    "tails), with its bootstrap and quadrature errors.";
constexpr const char* kCheck =
    "Decides a claim about the exact field over a box of model parameters, with a verdict (holds / fails / "
    "undecided) per point verified to estimated tolerances (the field's error estimates; rhoflow prove proves). Claims: monotone (F > 0 on (-1,1)), positive-drift "
    "(F > 0 on (0,1)), attractors=N (exactly N stable equilibria), filtering (1 - E[A_I] decreasing on (0,1)), "
    "hitting-time<=T (the ODE from --rho0 reaches |rho| >= 1 - --hit by time T). Each model flag takes a value or "
    "a range LO:HI, sampled on --grid points (log scale for positive ranges unless --scale linear); cells whose "
    "corners disagree are bisected --refine times. The box holds only if every point holds; between points the "
    "result is sampled, not proved. Exit code 0 whatever the verdict.";

constexpr const char* kProve =
    "Proves or disproves a claim about the exact field rigorously: guaranteed enclosures of j', j'' in ball "
    "arithmetic (Arb), every truncation and quadrature error bounded, over every point of a box of models "
    "(theta, sigma, beta intervals; d, L, R enumerated) and every rho. Claims: monotone (j' > 0 on [-1,1]), "
    "positive-drift (j' > 0 on [0,1]), attractors=N, recovery (every equilibrium in (-1,1) repels), hitting-time<=T "
    "(from --rho0 to 1 - --hit), filtering<=EPS "
    "(the noise mass 1 - E[A_I] at most EPS at rho = 1, and at -1 where it attracts). A box is first tried at its "
    "corners and centre: one model that disproves the claim is its certificate. Verdicts: "
    "proved, disproved (a rigorous counterexample cell), not proved (undecided cells listed). --out DIR writes "
    "certificate.json and summary.md; --verify CERT re-checks a certificate independently (exit 2 if invalid). "
    "Exit code 0 whatever the verdict.";

// The Python functions' docstrings (one paragraph each).
constexpr const char* kFieldSummary =
    "The population field at each rho: j, j' (dj), the ODE drift F = (1 - rho^2) j'(rho) and E[A_I], each with its "
    "error (method exact, meanfield or montecarlo); with rigorous=True guaranteed enclosures [lo, hi] of j, j', j'' "
    "and E[A_I] in ball arithmetic instead (`enclosures`).";
constexpr const char* kOdeSummary =
    "The mean-field ODE d rho/dt = (1 - rho^2) j'(rho) from rho0 (several starts: rho of shape (starts, times), like "
    "solve_ivp's y) on an even grid of `points` times up to t_end (or t_log log-spaced ones, or the given times t), with "
    "rho_err (integration and field error) and the hitting time of |rho| >= 1 - hit.";
constexpr const char* kPhaseSummary =
    "The phase portrait: every equilibrium with its stability and error, the basins, monotonicity.";
constexpr const char* kSgaSummary =
    "An ensemble of projected SGA trials with step sizes eta_k = eta0 / (1 + k/k0)^gamma; trial k draws from the "
    "stream (seed, sga_trial, k), so the numbers do not depend on `threads`.";
constexpr const char* kCompareSummary =
    "The main job: the SGA ensemble against the ODE (table, gap D_T, hitting times, step-size study) and the "
    "effective dynamics' prediction with a verdict. With no arguments: the embedded default experiment (8-20 s on 2 "
    "cores).";
constexpr const char* kStationarySummary =
    "The predicted stationary law of the constant-step chain at each effective attractor: the resampled chain's "
    "(mean, sd, quantiles, tail, with errors) beside the diffusion approximation's.";
constexpr const char* kCheckSummary =
    "Decides a claim (monotone, positive-drift, attractors=N, filtering, hitting-time<=T) over a box of model "
    "parameters: each of d, L, R, theta, sigma, beta a value or a (lo, hi) range.";
constexpr const char* kProveSummary =
    "Proves or disproves a claim (monotone, positive-drift, attractors=N, recovery, hitting-time<=T, filtering<=EPS) about the exact field "
    "rigorously, in ball arithmetic, over every point of a box of models: each of d, L, R a value or a (lo, hi) range "
    "of integers, each of theta, sigma, beta a value or an interval (lo, hi). The result is the certificate, with "
    "its verdict (proved, disproved, not proved), every cell and the counterexample; with verify='CERT' the "
    "independent checker re-checks a certificate file instead (InvalidArgument, naming every error, if it does not "
    "check).";

// Runs a job of kind J by the run() overload of its type.
template <class J>
JobResult run_as(const Job& job, [[maybe_unused]] ProgressCounter* progress, [[maybe_unused]] ResultDetail detail,
                 [[maybe_unused]] Execution ex) {
    const J& j = std::get<J>(job);
    if constexpr (std::is_same_v<J, RegisteredJob>)
        throw std::logic_error("a registered job runs by its row's run (register_job)");
    else if constexpr (std::is_same_v<J, SgaJob> || std::is_same_v<J, CompareJob>)
        throw std::logic_error("sga and compare run by their plan (experiment/job_plan.hpp), not whole");
    else if constexpr (std::is_same_v<J, CheckJob> || std::is_same_v<J, ProveJob>)
        return run(j, ex);
    else
        return run(j);
}

template <class J>
Job make_as() {
    return J{};
}

// A document file of one name for every job of a kind.
template <const char* Name>
std::string named(const Job&) {
    return Name;
}
constexpr char kResultJson[] = "result.json", kCompareJson[] = "compare.json", kCheckJson[] = "check.json";

// A proof's certificate, or a certificate's re-check.
std::string prove_document_file(const Job& job) {
    return std::get<ProveJob>(job).verify.empty() ? "certificate.json" : "verification.json";
}

// The row's common part; the rest is set by name below.
template <class J>
JobKind kind(std::string_view name, std::string_view description, std::string_view summary, std::string_view params_type,
             std::vector<Setting> (*settings)(), decltype(JobKind::write) write) {
    JobKind k;
    k.name = name;
    k.description = description;
    k.summary = summary;
    k.params_type = params_type;
    k.document_file = &named<kResultJson>;
    k.make = &make_as<J>;
    k.settings = settings;
    k.run = &run_as<J>;
    k.write = write;
    return k;
}

// The built-in kinds, one per alternative of Job but the last (RegisteredJob).
std::vector<JobKind> builtin_kinds() {
    std::vector<JobKind> k = {
        kind<FieldJob>("field", kField, kFieldSummary, "FieldJob", &detail::field_settings, &write_document_output),
        kind<OdeJob>("ode", kOde, kOdeSummary, "OdeJob", &detail::ode_settings, &write_document_output),
        kind<PhaseJob>("phase", kPhase, kPhaseSummary, "PhaseJob", &detail::phase_settings, &write_document_output),
        kind<SgaJob>("sga", kSga, kSgaSummary, "SgaJob", &detail::sga_settings, &write_document_output),
        kind<CompareJob>("compare", kCompare, kCompareSummary, "CompareParams", &detail::compare_settings,
                         &write_compare_outputs),
        kind<StationaryJob>("stationary", kStationary, kStationarySummary, "StationaryJob",
                            &detail::stationary_settings, &write_stationary_outputs),
        kind<CheckJob>("check", kCheck, kCheckSummary, "CheckJob", &detail::check_settings, &write_check_outputs),
        kind<ProveJob>("prove", kProve, kProveSummary, "ProveJob", &detail::prove_settings, &write_prove_outputs),
    };
    JobKind& field = k[0];
    field.positional = "rho";
    k[1].positional = "rho0,t-end";
    k[3].progress = true;
    JobKind& compare = k[4];
    compare.progress = compare.figures = true;
    compare.document_file = &named<kCompareJson>;
    compare.out_help = "folder for every output file (complete or absent: built aside, then renamed)";
    compare.default_out = "rhoflow-compare";
    k[5].positional = "eta";
    JobKind& check = k[6];
    check.positional = "claim";
    check.figures = true;
    check.document_file = &named<kCheckJson>;
    check.out_help = "folder for check.json, points.{csv,md,tex} and the phase diagram (complete or absent)";
    JobKind& prove = k[7];
    prove.positional = "claim";
    prove.document_file = &prove_document_file;
    prove.out_help = "folder for certificate.json and summary.md (complete or absent)";
    prove.file_indent = 1;  // certificates are long: one space per level
    for (std::size_t i = 0; i < k.size(); ++i)  // row i makes the alternative i of Job
        if (k[i].make().index() != i) throw std::logic_error("job table: row out of the order of Job");
    if (k.size() + 1 != std::variant_size_v<Job>) throw std::logic_error("job table: a row per built-in job");
    return k;
}

const JobKind* find_if_named(const std::vector<JobKind>& kinds, std::string_view name) {
    for (const JobKind& k : kinds)
        if (k.name == name) return &k;
    return nullptr;
}

// The table, and whether it was read (then it is closed: pointers into it stay valid).
struct KindTable {
    std::vector<JobKind> kinds = builtin_kinds();
    std::atomic<bool> read{false};
};
KindTable& table() {
    static KindTable t;
    return t;
}

}  // namespace

bool register_job_kind(JobKind kind) {
    static std::mutex mutex;  // registrations from several static initialisers or loaded modules
    const std::lock_guard<std::mutex> lock(mutex);
    KindTable& t = table();
    if (t.read.load())
        throw std::logic_error(fmt::format("register_job('{}'): the job table was read already; register a job at "
                                           "static initialisation (experiment/register_job.hpp)", kind.name));
    if (kind.name.empty() || kind.name == "run" || find_if_named(t.kinds, kind.name))
        throw std::logic_error(fmt::format("register_job('{}'): the name is empty or taken", kind.name));
    t.kinds.push_back(std::move(kind));
    return true;
}

void register_threshold_job();  // experiment/threshold_job.cpp

namespace {

// The library's own registered jobs (lib/rhoflow/README.md, "Adding a job"): a job file in the
// library declares its registration function and calls it here, since a static archive drops an
// object file that nothing references (a registration at static initialisation would vanish).
void register_library_jobs() { register_threshold_job(); }

}  // namespace

void check_result_keys(std::string_view name, const nlohmann::json& keys) {
    if (!keys.is_object())
        throw std::logic_error(fmt::format("register_job('{}'): the result's JSON must be an object", name));
    nlohmann::json reserved = Provenance{};
    reserved["params"] = reserved["model"] = nullptr;
    for (const auto& [key, value] : keys.items())
        if (reserved.contains(key))
            throw std::logic_error(fmt::format("register_job('{}'): the result's key '{}' is one of the document's own",
                                               name, key));
}

const std::vector<JobKind>& job_kinds() {
    static std::once_flag once;
    std::call_once(once, register_library_jobs);
    KindTable& t = table();
    t.read.store(true, std::memory_order_relaxed);
    return t.kinds;
}

const JobKind& kind_of(const Job& job) {
    if (const auto* r = std::get_if<RegisteredJob>(&job)) return *r->kind;
    return job_kinds()[job.index()];
}

const JobKind* find_job_kind(std::string_view name) {
    for (const JobKind& k : job_kinds())
        if (k.name == name) return &k;
    return nullptr;
}

}  // namespace rhoflow
