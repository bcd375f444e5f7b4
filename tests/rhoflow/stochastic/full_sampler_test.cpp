#include "rhoflow/stochastic/full_sampler.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/core/stats.hpp"

using namespace rhoflow;

TEST_CASE("full sampler: g is the gradient of ||f_q(X)||^2 for a fixed X (finite differences)") {
    // The same (seed, stream) regenerates the same X, so ||f||^2 can be differenced in q.
    const ModelParams m{7, 9, 3, 1.2, 0.8, 1.3};
    FullSampler s(m);
    Eigen::VectorXd q = FullSampler::query_with_alignment(m.d, 0.35);
    RandomStream r0(5, 1);
    s.draw(q, r0);
    const Eigen::VectorXd g = s.last_gradient();
    const double f0 = s.last_output().squaredNorm();
    for (int k = 0; k < m.d; ++k) {
        const double h = 1e-6;
        Eigen::VectorXd qp = q, qm = q;
        qp[k] += h;
        qm[k] -= h;
        RandomStream rp(5, 1), rm(5, 1);
        s.draw(qp, rp);
        const double fp = s.last_output().squaredNorm();
        s.draw(qm, rm);
        const double fm = s.last_output().squaredNorm();
        CHECK((fp - fm) / (2 * h) == doctest::Approx(g[k]).epsilon(1e-6).scale(f0));
    }
}

TEST_CASE("full sampler: E||f||^2 over fresh X equals the exact j (checks the reduction of j)") {
    const ModelParams m{6, 9, 3, 1.5, 1.0, 1.0};
    FullSampler s(m);
    const Eigen::VectorXd q = FullSampler::query_with_alignment(m.d, 0.4);
    RandomStream rng(17, 0);
    RunningStats st;
    for (int i = 0; i < 100000; ++i) st.add(s.draw(q, rng).norm_f_sq());
    const FieldPoint ex = exact_field(m, 0.4);
    CHECK(std::abs(st.mean() - ex.j) <= 4 * st.standard_error());
}

TEST_CASE("full sampler: queries and the update keep q on the sphere") {
    RandomStream rng(1, 2);
    const Eigen::VectorXd q = FullSampler::random_query(50, rng);
    CHECK(q.norm() == doctest::Approx(1.0).epsilon(1e-14));
    const Eigen::VectorXd a = FullSampler::query_with_alignment(5, -0.3);
    CHECK(a[0] == -0.3);
    CHECK(a.norm() == doctest::Approx(1.0).epsilon(1e-15));
    const ModelParams m{5, 8, 2, 1.0, 1.0, 1.0};
    FullSampler s(m);
    Eigen::VectorXd x = a;
    for (UpdateRule u : {UpdateRule::normalized, UpdateRule::tangent}) {
        const double rho = s.step(x, 0.3, u, rng);
        CHECK(x.norm() == doctest::Approx(1.0).epsilon(1e-14));
        CHECK(rho == doctest::Approx(x[0]));
    }
}
