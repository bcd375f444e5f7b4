// A toy job in one test-only file: registered here and named nowhere else, it runs from the
// command line (`rhoflow-jobs toy ...`), an experiment file (`command = "toy"`) and Python
// (`rhoflow.toy(...)` in the module built with tests/jobs/), which tests/jobs/toy_job_test.cpp
// and tests/jobs/test_toy_job.py check. It is the test of the recipe of lib/rhoflow/README.md,
// "Adding a job": a job is this much code, and no other file changes.
//
// The job: a sum of powers S = sum_{k=1}^n s_k k^p (s_k = 1, or (-1)^(k+1) when alternating),
// times a scale, summed in double with compensation; the error bound is the summation's. Its
// closed forms (Faulhaber; the alternating sum of k is (n+1)/2 or -n/2) are what the tests check.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/experiment/register_job.hpp"

namespace {

struct ToyJob {
    std::int64_t n = 10;       // terms, 1 ... 1000000
    int power = 2;             // p, 0 ... 8
    double scale = 1.0;        // a finite factor
    bool alternating = false;  // signs (-1)^(k+1)
    std::string label = "S";   // the result's name in the text (letters only)

    void validate() const {
        if (n < 1 || n > 1000000) throw rhoflow::InvalidArgument("n", fmt::format("n = {} is out of range (accepted: 1 ... 1000000)", n));
        if (power < 0 || power > 8)
            throw rhoflow::InvalidArgument("power", fmt::format("power = {} is out of range (accepted: 0 ... 8)", power));
        if (!std::isfinite(scale)) throw rhoflow::InvalidArgument("scale", "scale is not finite (accepted: a finite number)");
        bool letters = !label.empty();
        for (char c : label) letters = letters && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
        if (!letters) throw rhoflow::InvalidArgument("label", fmt::format("label = '{}' is not a word (accepted: letters)", label));
    }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ToyJob, n, power, scale, alternating, label)

struct ToyResult {
    double sum = 0;    // S
    double error = 0;  // bound on |S - computed|
    std::int64_t terms = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ToyResult, sum, error, terms)

ToyResult run_toy(const ToyJob& job) {
    double sum = 0, carry = 0, magnitude = 0;  // Neumaier's compensated sum
    for (std::int64_t k = 1; k <= job.n; ++k) {
        const double sign = job.alternating && k % 2 == 0 ? -1.0 : 1.0;
        const double x = sign * job.scale * std::pow(static_cast<double>(k), job.power);
        const double t = sum + x;
        carry += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;
        sum = t;
        magnitude += std::abs(x);
    }
    const double eps = 0x1p-52;
    return {sum + carry, 4 * eps * magnitude + 2 * eps * std::abs(sum + carry), job.n};
}

std::vector<rhoflow::Setting> toy_settings() {
    using rhoflow::member_setting;
    const std::string g = "Toy";
    return {member_setting("n", "n", "terms, 1 ... 1000000", g, &ToyJob::n),
            member_setting("power", "power", "the power p, 0 ... 8", g, &ToyJob::power),
            member_setting("scale", "scale", "a finite factor", g, &ToyJob::scale),
            member_setting("alternating", "alternating", "signs (-1)^(k+1)", g, &ToyJob::alternating),
            member_setting("label", "label", "the result's name in the text (letters)", g, &ToyJob::label)};
}

rhoflow::JobKind toy_row() {
    rhoflow::JobKind row;
    row.name = "toy";
    row.description = "A toy job of the tests: the sum of k^p for k = 1 ... n, with its error bound.";
    row.summary = "The sum of k^p for k = 1 ... n (a toy job of the tests), with its error bound.";
    row.params_type = "ToyJob";
    row.positional = "n";
    row.settings = &toy_settings;
    return row;
}

rhoflow::JobType<ToyJob, ToyResult> toy_type() {
    rhoflow::JobType<ToyJob, ToyResult> t;
    t.run = &run_toy;
    t.text = [](const ToyJob& j, const ToyResult& r) {
        return fmt::format("{}_{}({}) = {} (error <= {:.1e})\n", j.label, j.power, j.n, r.sum, r.error);
    };
    t.headline = [](const ToyJob& j, const ToyResult& r) {
        return std::vector<rhoflow::HeadlineRow>{{{"n", static_cast<double>(j.n)}, {"sum", r.sum}, {"error", r.error}}};
    };
    return t;
}

const bool registered = rhoflow::register_job(toy_row(), toy_type());

}  // namespace
