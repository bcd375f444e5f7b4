// rhoflow threshold (experiment/threshold_job.cpp), a job of the library registered from one file:
// the bracket of the default model's monotonicity threshold theta* in theta, each end certified.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.hpp"
#include "rhoflow/experiment/job_table.hpp"
#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/experiment/runner.hpp"
#include "rhoflow/io/paper_table.hpp"
#include "rhoflow/experiment/settings.hpp"
#include "rhoflow/prove/verify.hpp"

using namespace rhoflow;
using rhoflow::test::rhoflow_cli;

namespace {
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The Markdown summary of an experiment's first task, its cells run here.
std::string first_task_summary(const std::string& toml) {
    const Experiment e = read_experiment_text(toml, "thr.toml", "thr");
    std::vector<JobResult> results;
    for (const auto& c : e.cells) results.push_back(run(c.job));
    return to_markdown(summary_paper_tables(e, 0, summary_table(e, 0, results)));
}
}  // namespace

TEST_CASE("threshold: theta* of the default model is bracketed to 1e-4, a certificate at each end") {
    // The default model (d=50, L=1000, R=100, sigma = beta = 1) is monotone up to theta* where
    // j'(-1) changes sign: an independent 40-digit evaluation (mpmath quadrature of j'(-1))
    // gives a margin of +3.7e-6 at theta = 0.9922, and prove disproves 0.9923: theta* lies in
    // [0.9922, 0.9923]. The bracket must meet that interval.
    Job job = make_job("threshold");
    for (const auto& [key, value] : {std::pair{"lo", "0.992"}, std::pair{"hi", "0.9925"}})
        find_setting("threshold", key)->set_text(job, value);
    validate(job);
    const JobResult result = run(job);
    const nlohmann::json doc = document(job, result, make_provenance("threshold", "rhoflow threshold --lo 0.992 --hi 0.9925"));
    REQUIRE(doc.at("bracketed") == true);
    const double lo = doc.at("lo"), hi = doc.at("hi");
    CHECK(hi - lo <= 1e-4);
    CHECK(lo < 0.9923);
    CHECK(hi > 0.9922);
    CHECK(doc.at("lo_verdict") == "proved");
    CHECK(doc.at("hi_verdict") == "disproved");
    CHECK(doc.at("steps").size() >= 4);  // the ends, then midpoints
    // Each end's certificate checks, with the verdict the bracket states, at the stated theta.
    for (const char* end : {"lo", "hi"}) {
        CAPTURE(end);
        const nlohmann::json& cert = doc.at(std::string(end) + "_certificate");
        CHECK(cert.at("params").at("box").at("theta").at("lo") == doc.at(end));
        const VerifyReport v = verify_certificate(cert, 0, Execution::local, VerifyMethod::fast);
        CHECK(v.valid);
        CHECK(to_string(v.verdict) == doc.at(std::string(end) + "_verdict").get<std::string>());
    }
    // The document reads back as the same job and result (resumption, rhoflow.load).
    const Job back = job_from_document(doc);
    CHECK(nlohmann::json(std::get<RegisteredJob>(back)) == doc.at("params"));
    CHECK(document(back, result_from_document(back, doc), make_provenance("threshold", "x")).at("hi") == doc.at("hi"));
}

TEST_CASE("threshold: ends with the same verdict are no bracket, and bad input names the flag") {
    auto r = rhoflow_cli({"threshold", "--lo", "0.5", "--hi", "0.6", "--json"});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc.at("bracketed") == false);
    CHECK(contains(doc.at("note").get<std::string>(), "not one proved and one disproved"));
    CHECK(doc.at("steps").size() == 2);
    r = rhoflow_cli({"threshold", "--axis", "d"});
    CHECK(r.code == 2);
    CHECK(contains(r.err, "--axis"));
    r = rhoflow_cli({"threshold", "--lo", "1", "--hi", "0.5"});
    CHECK(r.code == 2);
    CHECK(contains(r.err, "--hi"));
    r = rhoflow_cli({"threshold", "--claim", "filtering"});
    CHECK(r.code == 2);
    CHECK(contains(r.err, "--claim"));
}

TEST_CASE("threshold: a task's summary prints the bracket's ends to the digits that tell them apart") {
    // d = 3, L = 1000, R = 100: theta* in [1.0767822, 1.0768433] (docs/verification.md section 13);
    // bisection of [0.5, 1.5] to 1e-2 ends at [1.0703125, 1.078125], which 4 significant digits
    // printed as 1.070 and 1.078 and, at 1e-4, as 1.077 | 1.077.
    const std::string toml = R"(
out = "thr"
[[task]]
name = "t"
command = "threshold"
d = 3
L = 1000
R = 100
lo = 0.5
hi = 1.5
width = 1e-2
)";
    const std::string md = first_task_summary(toml);
    CAPTURE(md);
    CHECK(contains(md, "| 1.0703125 | 1.078125 | 0.0078125 | proved at lo |"));
    CHECK(contains(md, "theta lo: the bracket's lower end"));
    CHECK_FALSE(contains(md, "lower end, where"));  // which end holds is the data's, not the caption's
    CHECK_FALSE(contains(md, "as the job defines it"));
}

TEST_CASE("threshold: a claim that holds above its threshold is summarised as proved at the upper end") {
    // The limit's noise mass at rho = 1 falls to 0.85 at theta = ln(0.9 * 0.15 / 0.085) = 0.46262
    // (alpha = 0.1): filtering<=0.85 fails below it and holds above, the reverse of monotone.
    const std::string toml = R"(
out = "thr"
[[task]]
name = "t"
command = "threshold"
claim = "filtering<=0.85"
meanfield = true
lo = 0.3
hi = 0.6
width = 1e-2
)";
    const std::string md = first_task_summary(toml);
    CAPTURE(md);
    CHECK(contains(md, "| 0.459375 | 0.46875 | 0.009375 | proved at hi |"));
}
