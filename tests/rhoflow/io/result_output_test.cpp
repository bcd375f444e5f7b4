// io/result_output.hpp: the per-result outputs that moved out of the job table and the CLI.
#include "rhoflow/io/result_output.hpp"

#include <doctest/doctest.h>

#include <string>

TEST_CASE("result output: a document is provenance, model, params, then the result's keys, which win") {
    using namespace rhoflow;
    Provenance p;
    p.version = "9.9";
    p.command = "phase";
    ModelParams m;
    m.d = 7;
    const nlohmann::json doc =
        result_document(p, m, nlohmann::json{{"scan", 12}}, nlohmann::json{{"monotone", true}, {"command", "mine"}});
    CHECK(doc.at("program") == "rhoflow");
    CHECK(doc.at("version") == "9.9");
    CHECK(doc.at("model").at("d") == 7);
    CHECK(doc.at("params").at("scan") == 12);
    CHECK(doc.at("monotone") == true);
    CHECK(doc.at("command") == "mine");  // a result key replaces the provenance's
}

TEST_CASE("result output: headline rows list only stable equilibria, and a witness's commas become semicolons") {
    using namespace rhoflow;
    PhasePortrait portrait;
    portrait.monotone = false;
    portrait.equilibria = {{-1, 0, -2, 0, true, EquilibriumKind::attractor}, {-0.38, 1e-9, 0.5, 0, false, EquilibriumKind::repeller},
                           {1, 0, -3, 0, true, EquilibriumKind::attractor}};
    const HeadlineRow row = phase_headline(portrait);
    REQUIRE(row.size() == 3);
    CHECK(row[0].first == "monotone");
    CHECK(std::get<std::string>(row[0].second) == "no");
    CHECK(std::get<double>(row[1].second) == 3.0);
    CHECK(std::get<std::string>(row[2].second) == "-1 1");

    CheckResult r;
    r.verdict = Verdict::fails;
    r.witness = CheckWitness{};
    const HeadlineRow c = check_headline(r);
    const std::string witness = std::get<std::string>(c.back().second);
    CHECK(c.back().first == "witness");
    CHECK(witness.find(',') == std::string::npos);
    CHECK(witness.find(';') != std::string::npos);  // describe() separates the parameters by commas
}

TEST_CASE("result output: the ODE text labels its columns by rho0 only for several solutions") {
    using namespace rhoflow;
    OdeSolution s;
    s.t = {0, 1};
    s.rho = {0.1, 0.2};
    s.rho_err = {0, 1e-9};
    const DriftFieldInfo field;
    const std::string one = ode_text(ModelParams{}, {0.1}, 1, OdeParams{}, field, s, {});
    const std::string two = ode_text(ModelParams{}, {0.1, 0.3}, 1, OdeParams{}, field, s, {s});
    CHECK(one.find("rho(0.1)") == std::string::npos);
    CHECK(two.find("rho(0.1)") != std::string::npos);
    CHECK(two.find("rho(0.3)") != std::string::npos);
    CHECK(two.find("from rho0 = 0.3") != std::string::npos);
}
