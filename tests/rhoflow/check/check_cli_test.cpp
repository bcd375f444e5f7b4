// rhoflow check in-process: bad boxes exit 2 naming the flag, the JSON contract, the certificate
// written atomically and completely, exit 0 whatever the verdict, exit 3 on numerical failure.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "cli_run.hpp"

using rhoflow::test::Run;
using rhoflow::test::rhoflow_cli;

namespace {

Run check_cli(std::vector<std::string> args) {
    args.insert(args.begin(), "check");
    return rhoflow_cli(args);
}

std::filesystem::path fresh_dir(const std::string& name) {
    auto d = std::filesystem::temp_directory_path() / ("rhoflow_check_cli_test_" + name);
    std::filesystem::remove_all(d);
    return d;
}

}  // namespace

TEST_CASE("check cli: bad boxes exit 2 naming the flag and its accepted range, and write nothing") {
    const auto dir = fresh_dir("invalid");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--claim", "monotone", "--theta", "3:1"}, "--theta"},              // LO > HI
        {{"--claim", "monotone", "--R", "10:2000"}, "--R"},                  // R range above L = 1000
        {{"--claim", "monotone", "--L", "100:1000", "--R", "50:200"}, "--R"},  // R above L's LO
        {{"--claim", "monotone", "--d", "10.5:20"}, "--d"},                  // integers
        {{"--claim", "monotone", "--rho0", "0:0.5"}, "--rho0"},              // a range on a flag that takes none
        {{"--claim", "monotone", "--grid", "2:5"}, "--grid"},
        {{"--claim", "monotone", "--tol", "1e-3:1e-2"}, "--tol"},
        {{"--claim", "monotone", "--grid", "1"}, "--grid"},
        {{"--claim", "monotone", "--R", "0:100", "--scale", "log"}, "--scale"},
        {{"--claim", "monotone", "--scale", "theta=cubic"}, "--scale"},
        {{"--claim", "monotone", "--beta", "1:20"}, "--beta"},               // beta*sigma > 12 somewhere
        {{"--claim", "monotone", "--sigma", "0:1"}, "--sigma"},
        {{"--claim", "attractors=two"}, "--claim"},
        {{"--claim", "monotone", "--field", "montecarlo"}, "--field"},
        {{"--claim", "monotone", "--theta", "0.1:1", "--R", "1:100", "--sigma", "0.5:1", "--grid", "100"}, "--grid"},
        {{"--claim", "monotone", "--table-points", "20:40"}, "--table-points"},
        {{"--claim", "monotone", "--rel-tol", "1"}, "--rel-tol"},
    };
    for (const auto& [args, flag] : cases) {
        std::vector<std::string> a = args;
        a.insert(a.end(), {"--out", dir.string()});
        CAPTURE(flag);
        const Run r = check_cli(a);
        CHECK(r.code == 2);
        CHECK(r.err.find("invalid " + flag + ":") != std::string::npos);
        CHECK(r.err.find("accepted") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(dir));
    }
    CHECK(check_cli({"--theta", "1"}).code == 2);  // --claim is required
}

TEST_CASE("check cli: --json follows the contract, exit 0 whatever the verdict") {
    const Run f = check_cli({"--claim", "monotone", "--d", "50", "--L", "50", "--R", "25", "--theta", "1", "--json"});
    REQUIRE(f.code == 0);
    const auto doc = nlohmann::json::parse(f.out);
    for (const char* key : {"claim", "verdict", "witness", "points", "min_margin"}) CHECK(doc.contains(key));
    CHECK(doc["verdict"] == "fails");
    for (const char* key : {"d", "L", "R", "theta", "sigma", "beta", "command"}) CHECK(doc["witness"].contains(key));
    CHECK(doc["witness"]["command"] == "rhoflow phase --d 50 --L 50 --R 25 --theta 1 --sigma 1 --beta 1");
    const Run h = check_cli({"--claim", "positive-drift", "--theta", "0.1:0.3", "--grid", "2", "--json"});
    REQUIRE(h.code == 0);
    const auto hd = nlohmann::json::parse(h.out);
    CHECK(hd["verdict"] == "holds");
    CHECK(hd["witness"].is_null());
    CHECK(hd["points"].size() == 2);
    const Run u = check_cli({"--claim", "monotone", "--tol", "1e-18", "--json"});
    REQUIRE(u.code == 0);
    CHECK(nlohmann::json::parse(u.out)["verdict"] == "undecided");
}

TEST_CASE("check cli: --out writes a complete check.json atomically (not named a certificate: nothing in it is proved), with the table and the figure") {
    const auto dir = fresh_dir("out");
    const Run r = check_cli({"--claim", "attractors=1", "--d", "100", "--L", "10500", "--R", "100:1000", "--theta",
                             "0.5:3", "--grid", "3", "--refine", "1", "--out", dir.string(), "--no-figures"});
    REQUIRE(r.code == 0);
    std::ifstream in(dir / "check.json");
    const auto doc = nlohmann::json::parse(in);
    CHECK(doc["command"] == "check");
    CHECK(doc["version"].is_string());
    CHECK(doc["claim"] == "attractors=1");
    CHECK(doc["box"]["R"]["lo"] == 100);
    CHECK(doc["box"]["theta"]["hi"] == 3);
    CHECK(doc["grid"]["points_per_axis"] == 3);
    CHECK(doc["params"]["check"]["certify"]["table"]["exact"].contains("rel_tol"));
    CHECK(doc["points"].size() == doc["counts"]["total"]);
    CHECK(doc["points"].size() >= 9);
    for (const auto& p : doc["points"])
        for (const char* key : {"d", "L", "R", "theta", "sigma", "beta", "verdict", "margin", "error", "level"})
            CHECK(p.contains(key));
    for (const char* f : {"points.csv", "points.md", "points.tex", "check_points.dat", "check_boundary.dat",
                          "check_map.gp", "check_attractors.gp"})
        CHECK(std::filesystem::exists(dir / f));
    for (const auto& e : std::filesystem::directory_iterator(dir))
        CHECK(e.path().filename().string().find(".tmp") == std::string::npos);  // no temporary left
    CHECK_FALSE(std::filesystem::exists(dir / "certificate.json"));  // prove's name: --verify would reject it
    // The paper table says what its margins' errors are: estimates, and so are the verdicts.
    std::ifstream md(dir / "points.md");
    const std::string table((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
    CHECK(table.find("margin ± est. error") != std::string::npos);
    CHECK(table.find("verified to estimated tolerances, not proved") != std::string::npos);
    CHECK(table.find("the n²ε estimate), not a bound") != std::string::npos);
    CHECK(table.find("sampled, not proved") != std::string::npos);
}

TEST_CASE("check cli: a numerical failure at every point exits 3 and writes nothing") {
    const auto dir = fresh_dir("numerical");
    // sigma = 1e200: j_inf ~ beta^2 sigma^4 overflows at every point.
    const Run r = check_cli({"--claim", "monotone", "--field", "meanfield", "--sigma", "1e200", "--out", dir.string()});
    CHECK(r.code == 3);
    CHECK(r.err.find("numerical failure") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("check cli: experiment files drive check tasks, validated before anything runs") {
    const auto dir = fresh_dir("run");
    std::filesystem::create_directories(dir);
    const auto file = dir / "exp.toml";
    {
        std::ofstream f(file);
        f << "[[task]]\nname = \"map\"\ncommand = \"check\"\nclaim = \"positive-drift\"\ntheta = \"0.1:0.3\"\n"
             "grid = 2\nrefine = 0\n";
    }
    const auto out = dir / "out";
    std::vector<std::string> args = {"run", file.string(), "--out", out.string()};
    std::ostringstream o, e;
    auto* old_out = std::cout.rdbuf(o.rdbuf());
    auto* old_err = std::cerr.rdbuf(e.rdbuf());
    const int code = rhoflow::cli::dispatch(args);
    {
        std::ofstream f(file);
        f << "[[task]]\ncommand = \"check\"\nclaim = \"monotone\"\nrho0 = \"0:1\"\n";
    }
    const int bad = rhoflow::cli::dispatch({"run", file.string(), "--out", (dir / "bad").string()});
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    REQUIRE(code == 0);
    CHECK(std::filesystem::exists(out / "map" / "run" / "check.json"));
    std::ifstream s(out / "map" / "summary.csv");
    const std::string csv((std::istreambuf_iterator<char>(s)), std::istreambuf_iterator<char>());
    CHECK(csv.find("verdict,points,holds,fails,undecided,min_margin") != std::string::npos);
    CHECK(csv.find("holds,2,2,0,0,") != std::string::npos);
    CHECK(bad == 2);
    CHECK(e.str().find("exp.toml:4: key 'rho0'") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "bad"));
}
