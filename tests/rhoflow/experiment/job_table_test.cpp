// The job table (experiment/job_table.hpp): one row per alternative of Job, in its order, and
// every list derived from it holds every job: job_commands(), make_job(), settings_for(), the
// experiment reader's accepted commands and the "accepted: ..." lists of its error messages. A
// job missing from any of them fails here (the command line's help and subcommand list: in
// tests/apps/cli_jobs_test.cpp).
#include "rhoflow/experiment/job_table.hpp"

#include <doctest/doctest.h>

#include <fmt/format.h>
#include <map>
#include <set>
#include <string>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/experiment/runner.hpp"

using namespace rhoflow;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The message of the InvalidArgument f() throws ("" if none).
template <class F>
std::string refusal(F&& f) {
    try {
        f();
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return "";
}

// A [[task]] of `name` with its required settings given.
std::string task_of(const JobKind& k) {
    static const std::map<std::string, std::string> required = {{"claim", "\"monotone\""}};
    std::string t = fmt::format("[[task]]\ncommand = \"{}\"\n", k.name);
    for (const Setting& s : settings_for(k.name))
        if (s.required) {
            const auto it = required.find(s.key);
            REQUIRE_MESSAGE(it != required.end(), "a required setting without a sample value: ", s.key);
            t += fmt::format("{} = {}\n", s.key, it->second);
        }
    return t;
}

}  // namespace

TEST_CASE("job table: a row per built-in Job alternative, in order, then the registered ones, each with a name, description, settings, runner, writer") {
    const auto& kinds = job_kinds();
    const std::size_t builtin = std::variant_size_v<Job> - 1;  // RegisteredJob is the last alternative
    REQUIRE(kinds.size() == builtin + 1);  // the library registers one job: threshold
    CHECK(kinds.back().name == "threshold");
    std::set<std::string> names;
    for (std::size_t i = 0; i < kinds.size(); ++i) {
        const JobKind& k = kinds[i];
        CAPTURE(k.name);
        CHECK(names.insert(std::string(k.name)).second);
        CHECK(k.make().index() == std::min(i, builtin));  // a registered kind makes a RegisteredJob
        CHECK_FALSE(k.summary.empty());
        for (const JobKind& other : kinds)  // each subcommand's help and docstring its own
            if (&other != &k) CHECK((other.description != k.description && other.summary != k.summary));
        std::string_view rest = k.positional;  // Python's positional keys are settings of the job
        while (!rest.empty()) {
            const std::size_t comma = std::min(rest.find(','), rest.size());
            CHECK(find_setting(k.name, rest.substr(0, comma)) != nullptr);
            rest.remove_prefix(std::min(comma + 1, rest.size()));
        }
        REQUIRE(static_cast<bool>(k.settings));
        CHECK_FALSE(k.settings().empty());
        CHECK(static_cast<bool>(k.run));
        CHECK(static_cast<bool>(k.write));
        // Derived lists.
        REQUIRE(job_commands().size() == kinds.size());
        CHECK(job_commands()[i] == k.name);
        const Job job = make_job(k.name);
        CHECK(job.index() == std::min(i, builtin));
        CHECK(command_of(job) == k.name);
        CHECK(&kind_of(job) == &k);
        CHECK(find_job_kind(k.name) == &k);
        CHECK(document_file(job) == k.document_file(job));
        CHECK(settings_for(k.name).size() == k.settings().size());
    }
    CHECK(find_job_kind("bogus") == nullptr);
    CHECK(document_file(make_job("compare")) == "compare.json");
    CHECK(document_file(make_job("check")) == "check.json");
    CHECK(document_file(make_job("field")) == "result.json");
    ProveJob verify;
    verify.verify = "cert.json";
    CHECK(document_file(make_job("prove")) == "certificate.json");
    CHECK(document_file(Job(verify)) == "verification.json");
}

TEST_CASE("job table: every job is accepted by the experiment-file reader, and its cell is a job of that kind") {
    for (const JobKind& k : job_kinds()) {
        CAPTURE(k.name);
        const Experiment e = read_experiment_text(task_of(k), "t.toml");
        REQUIRE(e.cells.size() == 1);
        CHECK(e.tasks[0].command == k.name);
        CHECK(command_of(e.cells[0].job) == k.name);
    }
}

TEST_CASE("job table: the error messages that list the jobs list every one") {
    const std::string bad_job = refusal([] { make_job("bogus"); });
    const std::string bad_settings = refusal([] { settings_for("bogus"); });
    const std::string bad_task = refusal([] { read_experiment_text("[[task]]\ncommand = \"bogus\"\n", "t.toml"); });
    const std::string no_command = refusal([] { read_experiment_text("[[task]]\nsteps = 5\n", "t.toml"); });
    for (const std::string& m : {bad_job, bad_settings, bad_task}) {
        CAPTURE(m);
        CHECK(contains(m, fmt::format("(accepted: {})", job_command_list())));
        for (const JobKind& k : job_kinds()) CHECK(contains(m, std::string(k.name)));
    }
    CHECK(contains(no_command, fmt::format("command = \"{}\"", job_command_list("|"))));
    // The list is every name once, in table order.
    std::string list;
    for (const JobKind& k : job_kinds()) list += (list.empty() ? "" : ", ") + std::string(k.name);
    CHECK(job_command_list() == list);
}
