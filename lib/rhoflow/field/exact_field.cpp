#include "rhoflow/field/exact_field.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <numbers>
#include <vector>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/field/detail/laplace_quadrature.hpp"

namespace rhoflow {

void ExactFieldParams::validate() const {
    require_in("rel_tol", rel_tol, 1e-15, 1e-2);
    require_in("inner_resolution", inner_resolution, 0.01, 0.5);
    require_in("z_range", z_range, 5.0, 40.0);
    require(max_segments >= 16 && max_segments <= 100000, "max_segments", max_segments,
            "16 <= max_segments <= 100000");
}

RHOFLOW_JSON_HOOKS(ExactFieldParams, rel_tol, inner_resolution, z_range, max_segments)
RHOFLOW_JSON_HOOKS(ExactFieldStats, segments, outer_nodes, inner_nodes, inner_err_j, outer_err_j, tail_err_j)

namespace {

// x = t e^{s}: above kSkip every e^{-x} term is below 50^2 e^{-50} ~ 5e-19 of its bound and
// 1 - e^{-x} is 1 to double precision, so the remaining nodes are summed in closed form.
constexpr double kSkip = detail::laplace_skip_x;
// Below kSeries, 1 - e^{-x} comes from expm1 (no cancellation); above, from exp.
// (A Taylor branch for tiny x was measured slower than glibc's expm1.)
constexpr double kSeries = detail::laplace_series_x;

// Trapezoidal rule for E[g(Z)], Z ~ N(0,1), for one class of tokens, with all per-node
// constants that do not depend on the outer variable precomputed.
struct ClassRule {
    double count = 0;                  // tokens in the class (R or N)
    std::vector<double> E;             // e^{s_k - c}
    std::vector<double> w;             // h phi(z_k)
    std::vector<double> u;             // s_k / beta = <q, x> at the node
    std::vector<double> zt;            // z_k / tau (Stein weight for d/dmu)
    double inv_beta = 0;               // d u / d s (the pathwise derivative's factor)
    std::array<std::vector<double>, 2> tail_w, tail_wz;  // suffix sums by parity
};

ClassRule make_rule(double count, double mu, double tau, double beta, double c,
                    const ExactFieldParams& p) {
    ClassRule r;
    r.count = count;
    const double h = std::min(0.25, p.inner_resolution / tau);
    const double z0 = -p.z_range, z1 = p.z_range + 2 * tau;
    const auto n = static_cast<std::size_t>(std::ceil((z1 - z0) / h)) + 1;
    r.E.resize(n);
    r.w.resize(n);
    r.u.resize(n);
    r.zt.resize(n);
    r.inv_beta = 1 / beta;
    const double norm = h / std::sqrt(2 * std::numbers::pi);
    for (std::size_t k = 0; k < n; ++k) {
        const double z = z0 + static_cast<double>(k) * h;
        const double s = mu + tau * z;
        r.E[k] = std::exp(s - c);
        r.w[k] = norm * std::exp(-0.5 * z * z);
        r.u[k] = s / beta;
        r.zt[k] = z / tau;
    }
    for (int par = 0; par < 2; ++par) {
        r.tail_w[par].assign(n + 1, 0.0);
        r.tail_wz[par].assign(n + 1, 0.0);
        for (std::size_t k = n; k-- > 0;) {
            const bool mine = static_cast<int>(k & 1) == par;
            r.tail_w[par][k] = r.tail_w[par][k + 1] + (mine ? r.w[k] : 0.0);
            r.tail_wz[par][k] = r.tail_wz[par][k + 1] + (mine ? r.w[k] * r.zt[k] : 0.0);
        }
    }
    return r;
}

// The inner Gaussian expectations at one t, in the outer variable's scaling
// (x = t e^{s - c}): m = 1 - M, A = E[phi x e^{-x}], B = E[phi^2 x^2 e^{-x}] for phi = 1 and
// phi = u. "d" versions are d/dmu by Stein's identity.
struct Moments {
    double m = 0, A1 = 0, B1 = 0, Au = 0, Bu = 0;
    Moments& operator+=(const Moments& o) {
        m += o.m; A1 += o.A1; B1 += o.B1; Au += o.Au; Bu += o.Bu;
        return *this;
    }
    Moments scaled(double f) const { return {f * m, f * A1, f * B1, f * Au, f * Bu}; }
};

// How d/dmu of the inner expectations is formed: not at all; by Stein's identity
// E[h(s) z]/tau; or pathwise, E[dh/ds] (dx/ds = x). Stein's weights z/tau cancel catastrophically
// when tau is tiny (tau = 1e-20 gave j' = -0.43 +- 4.4 instead of 0.0296), the pathwise form
// does not; below kPathwiseTau the pathwise form is used.
enum class Derivative { none, stein, pathwise };
constexpr double kPathwiseTau = 0.01;

// Sums over nodes of each parity; the full rule is v[0] + v[1], the rule with twice the step
// is 2 v[0].
template <Derivative D>
void accumulate(const ClassRule& r, double t, Moments (&v)[2], Moments (&dv)[2]) {
    v[0] = v[1] = Moments{};
    dv[0] = dv[1] = Moments{};
    const std::size_t n = r.E.size();
    for (std::size_t k = 0; k < n; ++k) {
        const double x = t * r.E[k];
        if (x > kSkip) {
            for (int par = 0; par < 2; ++par) {
                v[par].m += r.tail_w[par][k];
                if constexpr (D == Derivative::stein) dv[par].m += r.tail_wz[par][k];  // pathwise: d(1)/ds = 0
            }
            break;
        }
        double e, om;
        if (x < kSeries) {
            om = -std::expm1(-x);
            e = 1.0 - om;
        } else {
            e = std::exp(-x);
            om = 1.0 - e;
        }
        const double wk = r.w[k], uk = r.u[k];
        const double xe = x * e, x2e = x * xe;
        Moments& a = v[k & 1];
        a.m += wk * om;
        a.A1 += wk * xe;
        a.B1 += wk * x2e;
        a.Au += wk * uk * xe;
        a.Bu += wk * uk * uk * x2e;
        if constexpr (D == Derivative::stein) {
            const double wz = wk * r.zt[k];
            Moments& b = dv[k & 1];
            b.m += wz * om;
            b.A1 += wz * xe;
            b.B1 += wz * x2e;
            b.Au += wz * uk * xe;
            b.Bu += wz * uk * uk * x2e;
        } else if constexpr (D == Derivative::pathwise) {
            // d/ds of 1 - e^{-x}, x e^{-x}, x^2 e^{-x}, u x e^{-x}, u^2 x^2 e^{-x} with dx/ds = x.
            const double dA = xe * (1 - x), dB = x2e * (2 - x), du = r.inv_beta;
            Moments& b = dv[k & 1];
            b.m += wk * xe;
            b.A1 += wk * dA;
            b.B1 += wk * dB;
            b.Au += wk * (du * xe + uk * dA);
            b.Bu += wk * (2 * uk * du * x2e + uk * uk * dB);
        }
    }
}

struct Combined {
    double j = 0, dj = 0, mass = 0;
};

struct Coefs {
    double R = 0, N = 0;       // class sizes
    std::int64_t Ri = 0, Ni = 0;
    double c2 = 0, c3 = 0;     // theta^2 (1 - rho^2), (d - 1) sigma^2
    double dmu = 0;            // d mu / d rho = beta theta
    double dc2 = 0;            // d c2 / d rho = -2 rho theta^2
};

// The outer integrand (in lambda = log t) of j, j' and E[A_I] from the class moments.
// Every product M_I^a M_N^b is exp(a log M_I + b log M_N); exponent 0 contributes exactly 1
// even when log M = -inf, and a negative exponent only ever comes with a zero coefficient.
Combined combine(const Coefs& c, const Moments& I, const Moments& dI, const Moments& Nn) {
    const double lI = c.Ri > 0 ? (I.m >= 1.0 ? -INFINITY : std::log1p(-I.m)) : 0.0;
    const double lN = c.Ni > 0 ? (Nn.m >= 1.0 ? -INFINITY : std::log1p(-Nn.m)) : 0.0;
    auto pw = [&](std::int64_t a, std::int64_t b) {
        if (a < 0 || b < 0) return 0.0;
        const double ea = a ? static_cast<double>(a) * lI : 0.0;
        const double eb = b ? static_cast<double>(b) * lN : 0.0;
        return std::exp(ea + eb);
    };
    const double dmI = dI.m;  // d(1 - M_I)/dmu, so d log M_I/dmu = -dmI / M_I
    // Accumulates coef * X * M_I^a M_N^b and its mu-derivative given dX = dX/dmu.
    auto term = [&](double coef, double X, double dX, std::int64_t a, std::int64_t b,
                    double& val, double& dval) {
        if (coef == 0.0) return;
        const double P = pw(a, b);
        val += coef * X * P;
        double d = dX * P;
        if (a > 0) d -= X * static_cast<double>(a) * dmI * pw(a - 1, b);
        dval += coef * d;
    };
    const std::int64_t R = c.Ri, N = c.Ni;
    const double Rd = c.R, Nd = c.N;
    double t1 = 0, dt1 = 0, t2 = 0, dt2 = 0, t3 = 0, dt3 = 0;
    // E[(sum a_i u_i)^2]
    term(Rd, I.Bu, dI.Bu, R - 1, N, t1, dt1);
    term(Nd, Nn.Bu, 0.0, R, N - 1, t1, dt1);
    term(Rd * (Rd - 1), I.Au * I.Au, 2 * I.Au * dI.Au, R - 2, N, t1, dt1);
    term(Nd * (Nd - 1), Nn.Au * Nn.Au, 0.0, R, N - 2, t1, dt1);
    term(2 * Rd * Nd, I.Au * Nn.Au, dI.Au * Nn.Au, R - 1, N - 1, t1, dt1);
    // E[A_I^2]
    term(Rd, I.B1, dI.B1, R - 1, N, t2, dt2);
    term(Rd * (Rd - 1), I.A1 * I.A1, 2 * I.A1 * dI.A1, R - 2, N, t2, dt2);
    // E[sum a_i^2]
    term(Rd, I.B1, dI.B1, R - 1, N, t3, dt3);
    term(Nd, Nn.B1, 0.0, R, N - 1, t3, dt3);

    Combined out;
    out.j = t1 + c.c2 * t2 + c.c3 * t3;
    out.dj = c.dmu * (dt1 + c.c2 * dt2 + c.c3 * dt3) + c.dc2 * t2;
    out.mass = R > 0 ? Rd * I.A1 * pw(R - 1, N) : 0.0;
    return out;
}

}  // namespace

void validate_exact_field(const ModelParams& model, const ExactFieldParams& params) {
    model.validate();
    params.validate();
    // tau = beta sigma: blame the factor that is further from 1 (the one the user moved).
    const char* culprit = std::abs(std::log(model.beta)) >= std::abs(std::log(model.sigma)) ? "beta" : "sigma";
    require(model.tau() <= exact_field_max_tau, culprit, culprit[0] == 'b' ? model.beta : model.sigma,
            fmt::format("beta*sigma <= {} for the exact field (here beta*sigma = {})", exact_field_max_tau,
                        format_number(model.tau())));
}

FieldPoint exact_field(const ModelParams& model, double rho, const ExactFieldParams& params,
                       ExactFieldStats* stats) {
    validate_exact_field(model, params);
    validate_rho(rho);
    // c = log E[S] sets the unit of t, so that lambda = 0 is where t E[S] = 1.
    const auto setup = detail::laplace_setup<ClassRule>(model, rho, [&](double count, double mean, double tau, double c) {
        return make_rule(count, mean, tau, model.beta, c, params);
    });
    const std::int64_t R = setup.R, N = setup.N;
    const double tau = setup.tau;
    const ClassRule &ruleI = setup.rules[0], &ruleN = setup.rules[1];

    Coefs co;
    co.R = static_cast<double>(R);
    co.N = static_cast<double>(N);
    co.Ri = R;
    co.Ni = N;
    co.c2 = model.theta * model.theta * (1 - rho * rho);
    co.c3 = static_cast<double>(model.d - 1) * model.sigma * model.sigma;
    co.dmu = model.beta * model.theta;
    co.dc2 = -2 * rho * model.theta * model.theta;

    constexpr std::size_t C = 6;  // j, dj, mass with the fine inner rule; then the coarse rule
    int evaluations = 0;
    auto integrand = [&](double lambda, std::array<double, C>& out) {
        ++evaluations;
        const double t = std::exp(lambda);
        Moments vI[2], dvI[2], vN[2], dvN[2];
        if (R > 0) {
            if (tau < kPathwiseTau) accumulate<Derivative::pathwise>(ruleI, t, vI, dvI);
            else accumulate<Derivative::stein>(ruleI, t, vI, dvI);
        }
        if (N > 0) accumulate<Derivative::none>(ruleN, t, vN, dvN);
        Moments fI = vI[0], fdI = dvI[0], fN = vN[0];
        fI += vI[1];
        fdI += dvI[1];
        fN += vN[1];
        const Combined fine = combine(co, fI, fdI, fN);
        const Combined coarse = combine(co, vI[0].scaled(2), dvI[0].scaled(2), vN[0].scaled(2));
        out = {fine.j, fine.dj, fine.mass, coarse.j, coarse.dj, coarse.mass};
    };

    const auto res = detail::integrate_lambda<C, 3>(integrand, params.rel_tol, params.max_segments, "exact field");
    const auto& sum = res.sum;
    const auto& L1 = res.L1;
    const auto& outer_err = res.outer_err;
    const auto& tail_err = res.tail_err;
    std::array<double, 3> err{};
    std::array<double, 3> inner_err{};
    for (int k = 0; k < 3; ++k) {
        inner_err[k] = std::abs(sum[k] - sum[k + 3]);
        // Rounding: every node's contribution carries a few ulps of its magnitude.
        err[k] = outer_err[k] + inner_err[k] + tail_err[k] + 64 * 2.2e-16 * L1[k];
    }

    FieldPoint fp;
    fp.rho = rho;
    fp.j = require_finite_result(sum[0], "j (exact field)");
    fp.dj = (R > 0 && model.theta > 0) ? require_finite_result(sum[1], "dj (exact field)") : 0.0;
    fp.mass_informative = require_finite_result(sum[2], "mass_informative (exact field)");
    fp.j_err = err[0];
    fp.dj_err = fp.dj == 0.0 && (R == 0 || model.theta == 0) ? 0.0 : err[1];
    fp.mass_err = err[2];
    fp.drift = drift_of(rho, fp.dj);
    fp.drift_err = (1 - rho * rho) * fp.dj_err;
    if (stats) {
        stats->segments = res.segments;
        stats->outer_nodes = evaluations;
        stats->inner_nodes = static_cast<int>(ruleI.E.size() + ruleN.E.size());
        stats->inner_err_j = inner_err[0];
        stats->outer_err_j = outer_err[0];
        stats->tail_err_j = tail_err[0];
    }
    return fp;
}

}  // namespace rhoflow
