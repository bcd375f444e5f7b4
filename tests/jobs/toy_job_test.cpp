// The toy job of tests/jobs/toy_job.cpp, added in that one file, runs from the command line's
// parser and from an experiment file (Python: tests/jobs/test_toy_job.py). Its sums are checked
// against their closed forms, so a wrong setting, run or read-back fails here.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "cli_run.hpp"
#include "rhoflow/experiment/job_table.hpp"
#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/experiment/register_job.hpp"

namespace fs = std::filesystem;
using rhoflow::test::rhoflow_cli;

namespace {

struct TempDir {
    fs::path path = fs::temp_directory_path() / ("rhoflow-toy-" + std::to_string(::getpid()));
    TempDir() {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

nlohmann::json read_json(const fs::path& p) {
    std::ifstream in(p);
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("jobs: a job registered in one file is a row of the table with its settings") {
    const rhoflow::JobKind* toy = rhoflow::find_job_kind("toy");
    REQUIRE(toy != nullptr);
    const auto& names = rhoflow::job_commands();  // after the built-in ones
    CHECK(std::find(names.begin(), names.end(), "toy") - names.begin() >= std::variant_size_v<rhoflow::Job> - 1);
    CHECK(contains(rhoflow::job_command_list(), "toy"));
    std::string keys;
    for (const auto& s : rhoflow::settings_for("toy")) keys += s.key + " ";
    CHECK(keys == "n power scale alternating label ");
    const rhoflow::Job job = rhoflow::make_job("toy");
    CHECK(&rhoflow::kind_of(job) == toy);
    CHECK(rhoflow::command_of(job) == "toy");
    // The table is closed once read: a late registration is refused.
    rhoflow::JobKind late;
    late.name = "late";
    CHECK_THROWS_AS(rhoflow::register_job_kind(late), std::logic_error);
}

TEST_CASE("jobs: the toy job runs from the command line, its sums equal their closed forms") {
    auto r = rhoflow_cli({"toy", "--n", "10", "--power", "3", "--json"});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc.at("command") == "toy");
    CHECK(doc.at("params").at("n") == 10);
    CHECK(doc.at("params").at("power") == 3);
    CHECK(doc.at("sum").get<double>() == 3025.0);  // (n (n + 1) / 2)^2
    CHECK(doc.at("error").get<double>() < 1e-9);

    r = rhoflow_cli({"toy", "--n", "7", "--power", "1", "--alternating", "--scale", "-2", "--label", "A"});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(r.out == "A_1(7) = -8 (error <= 5.3e-14)\n");  // -2 (n + 1) / 2 for odd n

    r = rhoflow_cli({"toy", "--n", "1000", "--power", "2", "--json"});
    REQUIRE(r.code == 0);
    CHECK(nlohmann::json::parse(r.out).at("sum").get<double>() == 333833500.0);  // n (n + 1) (2n + 1) / 6
}

TEST_CASE("jobs: the toy job's bad input names its flag and range, exit 2") {
    auto r = rhoflow_cli({"toy", "--n", "0"});
    CHECK(r.code == 2);
    CHECK(contains(r.err, "--n"));
    CHECK(contains(r.err, "1 ... 1000000"));
    r = rhoflow_cli({"toy", "--power", "2.5"});
    CHECK(r.code == 2);
    CHECK(contains(r.err, "--power"));
    r = rhoflow_cli({"toy", "--label", "a b"});
    CHECK(r.code == 2);
    CHECK(contains(r.err, "--label"));
}

TEST_CASE("jobs: the toy job's document reads back into the same job and result") {
    TempDir tmp;
    const fs::path file = tmp.path / "toy.json";
    const auto r = rhoflow_cli({"toy", "--n", "12", "--power", "4", "--output", file.string()});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const auto doc = read_json(file);
    const rhoflow::Job job = rhoflow::job_from_document(doc);
    CHECK(rhoflow::command_of(job) == "toy");
    CHECK(nlohmann::json(std::get<rhoflow::RegisteredJob>(job)) == doc.at("params"));
    const rhoflow::JobResult result = rhoflow::result_from_document(job, doc);
    CHECK(nlohmann::json(std::get<rhoflow::RegisteredResult>(result)).at("sum").get<double>() == 60710.0);  // n (n + 1) (2n + 1) (3n^2 + 3n - 1) / 30
    // A document whose params do not validate is refused, naming the field.
    auto bad = doc;
    bad["params"]["power"] = 9;
    CHECK_THROWS_WITH(rhoflow::job_from_document(bad), doctest::Contains("power"));
}

TEST_CASE("jobs: the toy job runs from an experiment file, swept, with a summary") {
    TempDir tmp;
    const fs::path toml = tmp.path / "toy.toml";
    std::ofstream(toml) << "title = \"sums of powers\"\n"
                           "[[task]]\n"
                           "name = \"squares\"\n"
                           "command = \"toy\"\n"
                           "n = [10, 100]\n"
                           "power = 2\n";
    const fs::path out = tmp.path / "out";
    const auto r = rhoflow_cli({"run", toml.string(), "--out", out.string()});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const auto index = read_json(out / "run.json");
    REQUIRE(index.at("runs").size() == 2);
    for (const auto& cell : index.at("runs")) {
        const auto doc = read_json(out / cell.at("dir").get<std::string>() / "result.json");
        const double n = doc.at("params").at("n").get<double>();
        CHECK(doc.at("command") == "toy");
        CHECK(doc.at("sum").get<double>() == n * (n + 1) * (2 * n + 1) / 6);
    }
    std::ifstream summary(out / "squares" / "summary.csv");
    REQUIRE(summary);
    const std::string text((std::istreambuf_iterator<char>(summary)), std::istreambuf_iterator<char>());
    CHECK(contains(text, "338350"));  // the headline's sum at n = 100

    // A value of the wrong type names the key and its line.
    std::ofstream(toml) << "[[task]]\ncommand = \"toy\"\nn = \"ten\"\n";
    const auto bad = rhoflow_cli({"run", toml.string(), "--out", (tmp.path / "bad").string()});
    CHECK(bad.code == 2);
    CHECK(contains(bad.err, "toy.toml:3: key 'n': expected a number, got a string"));
}
