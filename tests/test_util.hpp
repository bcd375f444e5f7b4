// Helpers shared by the test files: the reference table and small numeric utilities.
#pragma once

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>
#include <unistd.h>

#include <doctest/doctest.h>

#include "rhoflow/compare/compare.hpp"
#include "rhoflow/core/detail/simd.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/model/model.hpp"
#include "rhoflow/prove/prove.hpp"

namespace rhoflow::test {

/// One row of tests/data/field_values.csv (independent implementation, see data/README.md).
struct ReferenceRow {
    ModelParams model;
    double rho, j, dj, drift, mass, j_mf, dj_mf, mass_mf, dj_err;
};

inline std::vector<ReferenceRow> reference_rows() {
    std::ifstream in(std::string(RHOFLOW_TEST_DATA_DIR) + "/field_values.csv");
    if (!in) throw std::runtime_error("cannot open reference data");
    std::string line;
    std::getline(in, line);
    std::vector<ReferenceRow> rows;
    while (std::getline(in, line)) {
        std::stringstream ss(line);
        std::string tok;
        std::vector<double> v;
        while (std::getline(ss, tok, ',')) v.push_back(std::stod(tok));
        ReferenceRow r;
        r.model = ModelParams{static_cast<std::int64_t>(v[0]), static_cast<std::int64_t>(v[1]),
                              static_cast<std::int64_t>(v[2]), v[3], v[4], v[5]};
        r.rho = v[6];
        r.j = v[7];
        r.dj = v[8];
        r.drift = v[9];
        r.mass = v[10];
        r.j_mf = v[11];
        r.dj_mf = v[12];
        r.mass_mf = v[13];
        r.dj_err = v[14];
        rows.push_back(r);
    }
    return rows;
}

/// A fresh, empty temporary directory unique to this test process and `name`, so that two
/// suites running at once never share one.
inline std::filesystem::path temp_dir(const std::string& name) {
    const auto d = std::filesystem::temp_directory_path() /
                   ("rhoflow_test_" + std::to_string(::getpid()) + "_" + name);
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    return d;
}

inline double rel_diff(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

/// The parameter named by the InvalidArgument that f() throws, or "" if it throws none.
template <class F>
std::string invalid_param(F&& f) {
    try {
        f();
    } catch (const InvalidArgument& e) {
        return e.field();
    }
    return "";
}

// A small proof that holds: monotone at d = 5, L = 100, R = 50 (23 cells, well under a second), one thread.
inline ProveParams small_proof() {
    ProveParams p;
    p.claim = parse_claim("monotone");
    p.box.d = ParamRange(5);
    p.box.L = ParamRange(100);
    p.box.R = ParamRange(50);
    p.threads = 1;
    return p;
}

// A small comparison with a study and a decaying step (gap fit present).
inline CompareParams small_compare() {
    CompareParams p = default_compare_params();
    p.model = {8, 20, 4, 1.0, 1.0, 1.0};
    p.field = DriftMethod::meanfield;
    p.sga.steps = 3000;
    p.sga.trials = 3;
    p.sga.threads = 1;
    p.sga.schedule = {0.05, 200, 1.0};
    p.horizon = 2;
    p.anchors = 5;
    p.rows = 4;
    p.study_eta0 = {0.08, 0.04, 0.02};
    p.study_trials = 2;
    p.study_horizon = 5;
    p.effective.moments.samples = 200;
    p.effective.prediction.paths = 200;
    p.effective.bootstrap = 4;
    p.effective.level_ratio = 4;
    return p;
}

// The comparator's test model (d = 10, L = 400, R = 60, theta = 1.5): 16 trials of 4000 steps
// with eta_k = 0.02/(1 + k/500) (t_final = 10 ln 9 = 22) from rho0 = 0.1, and a 3-run study.
inline CompareParams small_comparison() {
    CompareParams p = default_compare_params();
    p.model = ModelParams{10, 400, 60, 1.5, 1.0, 1.0};
    p.sga.steps = 4000;
    p.sga.trials = 16;
    p.sga.schedule = {0.02, 500, 1.0};
    p.sga.rho0 = 0.1;
    p.horizon = 4;
    p.anchors = 8;
    p.rows = 8;
    p.study_eta0 = {0.04, 0.02, 0.01};
    p.study_trials = 20;
    return p;
}

// Forces an instruction-set variant of the hot kernels for a test case's scope, and restores the
// automatic choice when it ends, whatever happens.
struct ForceSimdVariant {
    explicit ForceSimdVariant(detail::SimdVariant v) { detail::force_simd_variant(v); }
    ~ForceSimdVariant() { detail::force_simd_variant(detail::SimdVariant::automatic); }
    ForceSimdVariant(const ForceSimdVariant&) = delete;
    ForceSimdVariant& operator=(const ForceSimdVariant&) = delete;
};

// Every variant compiled in that this CPU runs: the baseline, then AVX2 and AVX-512 where
// available (a message names those that are not).
inline std::vector<detail::SimdVariant> available_simd_variants() {
    std::vector<detail::SimdVariant> v = {detail::SimdVariant::baseline};
    for (const detail::SimdVariant s : {detail::SimdVariant::avx2, detail::SimdVariant::avx512}) {
        if (detail::simd_variant_available(s)) v.push_back(s);
        else MESSAGE("variant " << static_cast<int>(s) << " not available here: not checked");
    }
    return v;
}

}  // namespace rhoflow::test
