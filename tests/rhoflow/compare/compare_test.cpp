// The comparator end to end on a small model, against the right and a deliberately wrong ODE.
#include "rhoflow/compare/compare.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "rhoflow/core/errors.hpp"
#include "test_util.hpp"
#include "rhoflow/io/plot.hpp"

using namespace rhoflow;

namespace {
CompareParams small() {
    CompareParams p = default_compare_params();
    p.model = ModelParams{10, 400, 60, 1.5, 1.0, 1.0};
    p.sga.steps = 4000;
    p.sga.trials = 16;
    p.sga.schedule = {0.02, 500, 1.0};  // t_final = 10 ln 9 = 22
    p.sga.rho0 = 0.1;
    p.horizon = 4;
    p.anchors = 8;
    p.rows = 8;
    p.study_eta0 = {0.04, 0.02, 0.01};
    p.study_trials = 20;
    return p;
}
}  // namespace

TEST_CASE("compare: SGA tracks the ODE, D_T decays, tables and JSON are complete") {
    const CompareParams p = small();
    const CompareResult r = run_compare(p);
    const auto& d = r.doc;
    CHECK(d["command"] == "compare");
    CHECK(d["params"]["seed"] == 1);
    CHECK(r.table.rows.size() == d["table"].size());
    CHECK(r.table.rows.size() >= 7);
    // The ensemble follows the ODE through the transient: small tracking error.
    CHECK(d["tracking_error"]["sup_mean"].get<double>() < 0.15);
    // D_T decays from the first anchor to the last.
    const auto& anchors = d["gap"]["anchors"];
    REQUIRE(anchors.size() >= 5);
    CHECK(anchors.back()["mean"].get<double>() < anchors.front()["mean"].get<double>());
    // Final alignment: the SGA is below the ODE's 1 by the O(eta) projection bias, not far.
    CHECK(d["summary"]["mean_abs_rho_final"].get<double>() > 0.9);
    CHECK(d["hitting_time"]["ode"]["mean"].is_number());
    // Population and sample nuisance mass agree at the last row within a few percent.
    const auto& last = d["table"].back();
    CHECK(std::abs(last["nuisance_mass_sga"].get<double>() - last["nuisance_mass_population"].get<double>()) < 0.05);
    // The study ran every eta0 and fitted a slope.
    CHECK(d["study"]["rows"].size() == 3);
    CHECK(d["study"]["fit"]["slope"].get<double>() > 0.2);
    CHECK(r.markdown.find("| step k |") != std::string::npos);
}

TEST_CASE("compare: a deliberately wrong ODE (field scaled by 2) is reported as a large gap") {
    CompareParams p = small();
    p.study_eta0.clear();
    const DriftField right = DriftField::exact(p.model);
    const DriftField wrong = DriftField::from_functions([&](double r) { return 2 * right.dj(r); },
                                                        [&](double r) { return 2 * right.d2j(r); }, right.dj_error(),
                                                        "exact x 2", [&](double r) { return right.j(r); },
                                                        [&](double r) { return right.mass(r); });
    const CompareResult good = run_compare(p, nullptr, &right);
    const CompareResult bad = run_compare(p, nullptr, &wrong);
    const double track_good = good.doc["tracking_error"]["sup_mean"].get<double>();
    const double track_bad = bad.doc["tracking_error"]["sup_mean"].get<double>();
    const double gap_good = good.doc["gap"]["anchors"][0]["mean"].get<double>();
    const double gap_bad = bad.doc["gap"]["anchors"][0]["mean"].get<double>();
    CAPTURE(track_good);
    CAPTURE(track_bad);
    CHECK(track_bad > 2.5 * track_good);
    CHECK(gap_bad > 2.5 * gap_good);
    // Same seed, same SGA numbers: only the ODE changed.
    CHECK(good.doc["summary"]["mean_abs_rho_final"] == bad.doc["summary"]["mean_abs_rho_final"]);
}

TEST_CASE("compare: writes every file, and figures when gnuplot is there") {
    CompareParams p = small();
    p.study_eta0.clear();
    const CompareResult r = run_compare(p);
    const auto dir = std::filesystem::temp_directory_path() / "rhoflow_compare_test";
    std::filesystem::remove_all(dir);
    write_compare(r, dir, gnuplot_available());
    for (const char* f : {"compare.json", "table.csv", "table.md", "table.tex", "gap.csv", "gap.md", "gap.tex",
                          "fig_trajectory.dat", "fig_trajectory.gp", "fig_gap.gp", "fig_field.gp"})
        CHECK(std::filesystem::exists(dir / f));
    if (gnuplot_available()) {
        for (const char* f : {"fig_trajectory.png", "fig_trajectory.svg", "fig_gap.png", "fig_field.svg"})
            CHECK(std::filesystem::file_size(dir / f) > 1000);
    } else {
        MESSAGE("gnuplot not installed: figure rendering not checked");
    }
    // No temporary files left behind.
    for (const auto& e : std::filesystem::directory_iterator(dir))
        CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
}

TEST_CASE("compare: invalid parameters are named") {
    auto param_of = [](CompareParams q) { return test::invalid_param([&] { q.validate(); }); };
    CompareParams p = small();
    p.horizon = 1000;  // longer than the run
    CHECK(param_of(p) == "horizon");
    p = small();
    p.anchors = 1;
    CHECK(param_of(p) == "anchors");
    p = small();
    p.study_eta0 = {0.1, -0.1, 0.2};
    CHECK(param_of(p) == "study_eta0");
    p = small();
    p.field = FieldMethod::montecarlo;
    CHECK(param_of(p) == "field");
}
