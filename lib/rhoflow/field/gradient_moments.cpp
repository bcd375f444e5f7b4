#include "rhoflow/field/gradient_moments.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/field/detail/laplace_quadrature.hpp"
#include "rhoflow/field/detail/moment_expansion.hpp"

namespace rhoflow {

namespace {

using detail::gradient_moment_count;
constexpr int kPow = detail::expansion_max_power;  // k = 1..6, m = 0..6
constexpr int kM = 8;                               // m padded to 8 (vectorisable rows)
constexpr int kQPerClass = kPow * (kPow + 1);       // (k, m) pairs per class
// x = t e^{s - c}: above kSkip every x^k e^{-x} (k <= 6) is below 80^6 e^{-80} ~ 5e-24 and
// 1 - e^{-x} is 1, so the remaining nodes only add their weight to 1 - M.
constexpr double kSkip = 80.0;

// The trapezoidal rule for one class of tokens: nodes z_j = z0 + j h, with every per-node
// constant that does not depend on the outer variable.
struct MomentRule {
    std::vector<double> E;                      // e^{s_j - c}
    std::vector<double> w;                      // h phi(z_j)
    std::vector<std::array<double, kM>> wu;     // h phi(z_j) u_j^m, m = 0..6 (7 = 0)
    std::array<std::vector<double>, 2> tail_w;  // suffix sums of w by parity
};

MomentRule make_rule(double mu, double tau, double beta, double c, const GradientMomentParams& p) {
    MomentRule r;
    const double h = std::min(0.25, p.inner_resolution / tau);
    // The upper end covers the tilt e^{k s} of the small-t region for tau <~ 2 (where it matters)
    // and the exact field's margin 2 tau beyond (docs/theory.md section 8, "inner rule").
    const double z0 = -p.z_range, z1 = p.z_range + std::min(kPow * tau, 2 * tau + 4);
    const auto n = static_cast<std::size_t>(std::ceil((z1 - z0) / h)) + 1;
    r.E.resize(n);
    r.w.resize(n);
    r.wu.resize(n);
    const double norm = h / std::sqrt(2 * std::numbers::pi);
    for (std::size_t j = 0; j < n; ++j) {
        const double z = z0 + static_cast<double>(j) * h;
        const double s = mu + tau * z;
        r.E[j] = std::exp(s - c);
        r.w[j] = norm * std::exp(-0.5 * z * z);
        const double u = s / beta;
        double um = r.w[j];
        for (int m = 0; m < kM; ++m) {
            r.wu[j][m] = m <= kPow ? um : 0.0;
            um *= u;
        }
    }
    for (int par = 0; par < 2; ++par) {
        r.tail_w[par].assign(n + 1, 0.0);
        for (std::size_t j = n; j-- > 0;)
            r.tail_w[par][j] = r.tail_w[par][j + 1] + (static_cast<int>(j & 1) == par ? r.w[j] : 0.0);
    }
    return r;
}

// Inner sums of one parity at one t: om = E[1 - e^{-x}] and acc[k-1][m] = E[u^m x^k e^{-x}].
struct ClassSums {
    double om = 0;
    double acc[kPow][kM] = {};
};

void accumulate(const MomentRule& r, double t, ClassSums (&v)[2]) {
    v[0] = v[1] = ClassSums{};
    const std::size_t n = r.E.size();
    for (std::size_t j = 0; j < n; ++j) {
        const double x = t * r.E[j];
        if (x > kSkip) {
            v[0].om += r.tail_w[0][j];
            v[1].om += r.tail_w[1][j];
            break;
        }
        double e, om;
        if (x < 1e-3) {  // Taylor: truncation x^6/720 < 2e-18 relative; faster than expm1
            om = x * (1 - x * (1.0 / 2) * (1 - x * (1.0 / 3) * (1 - x * (1.0 / 4) * (1 - x * (1.0 / 5)))));
            e = 1.0 - om;
        } else if (x < detail::laplace_series_x) {
            om = -std::expm1(-x);
            e = 1.0 - om;
        } else {
            e = std::exp(-x);
            om = 1.0 - e;
        }
        ClassSums& a = v[j & 1];
        a.om += r.w[j] * om;
        const double* wu = r.wu[j].data();
        double xk = x * e;
        for (int k = 0; k < kPow; ++k) {
            for (int m = 0; m < kM; ++m) a.acc[k][m] += xk * wu[m];
            xk *= x;
        }
    }
}

// The monomials with their numeric coefficients for this model and rho, as a trie in depth-first
// order: node n stands for the product of the Q's on its path (its parent's product times one
// more Q) and carries the coefficients, in every moment, of the monomial that product is (zero
// for a mere prefix). The expansion is sorted by tokens, prefixes first, so consecutive monomials
// share their leading tokens and the trie has barely more nodes than there are monomials.
struct Plan {
    std::vector<std::uint16_t> parent;  // parent node + 1 (0 = the empty product 1)
    std::vector<std::uint8_t> q;        // index into Q of the node's last token
    std::vector<std::uint8_t> group;    // dense index of its (n_informative, n_nuisance)
    std::vector<std::array<double, gradient_moment_count>> coef;
    std::vector<std::array<int, 2>> groups;  // (n_informative, n_nuisance) of each dense group
    int monomials = 0;                       // monomials with a nonzero coefficient
    // The nonzero coefficients as runs of one group and one moment (for the accumulation pass).
    struct Entry {
        std::uint32_t node = 0;  // node + 1, the index of its product in `prefix`
        double value = 0;        // coefficient
    };
    struct Run {
        std::uint32_t begin = 0, end = 0;  // entries [begin, end)
        std::uint8_t group = 0, moment = 0;
    };
    std::vector<Entry> entries;
    std::vector<Run> runs;
};
constexpr std::size_t kMaxGroups = 27;  // 1 <= n_informative + n_nuisance <= 6

double falling_factorial(std::int64_t n, int k) {
    double r = 1;
    for (int i = 0; i < k; ++i) r *= static_cast<double>(n - i);
    return r;
}

Plan make_plan(const ModelParams& model, double rho) {
    const auto& expansion = detail::gradient_moment_expansion();
    const double s = std::sqrt(std::max(0.0, 1.0 - rho * rho));
    const double mean = model.theta * s, sigma = model.sigma;
    const double D = static_cast<double>(model.d - 2), two_beta = 2 * model.beta;
    const std::int64_t R = model.R, N = model.N();
    Plan plan;
    std::array<int, 49> dense;
    dense.fill(-1);
    auto group_of = [&](int nI, int nN) {
        int& g = dense[static_cast<std::size_t>(nI * 7 + nN)];
        if (g < 0) {
            g = static_cast<int>(plan.groups.size());
            plan.groups.push_back({nI, nN});
        }
        return static_cast<std::uint8_t>(g);
    };
    std::vector<std::uint8_t> path;  // tokens of the last node created, and its nodes
    std::vector<int> path_nodes;
    for (const auto& mono : expansion) {
        if (mono.n_informative > R || mono.n_nuisance > N) continue;
        double factorial = 1;  // (K - 1)!
        for (int i = 2; i < mono.K; ++i) factorial *= i;
        const double base = falling_factorial(R, mono.n_informative) * falling_factorial(N, mono.n_nuisance) / factorial;
        std::array<double, gradient_moment_count> coef{};
        bool any = false;
        for (int mo = 0; mo < gradient_moment_count; ++mo) {
            double c = 0;
            for (const auto& ct : mono.coef[mo])
                c += ct.value * std::pow(sigma, ct.e_sigma) * std::pow(mean, ct.e_mean) * std::pow(D, ct.e_dim);
            c *= base * std::pow(two_beta, detail::gradient_moment_factors[mo]);
            coef[static_cast<std::size_t>(mo)] = c;
            any |= c != 0.0;
        }
        if (!any) continue;
        ++plan.monomials;
        std::size_t depth = 0;
        int nI = 0, nN = 0;
        for (const auto& tok : mono.tokens) {
            const auto qi = static_cast<std::uint8_t>(tok.c * kQPerClass + (tok.k - 1) * (kPow + 1) + tok.m);
            (tok.c == detail::class_informative ? nI : nN) += 1;
            if (depth < path.size() && path[depth] == qi) {
                ++depth;
                continue;
            }
            path.resize(depth);
            path_nodes.resize(depth);
            plan.parent.push_back(static_cast<std::uint16_t>(depth == 0 ? 0 : path_nodes.back() + 1));
            plan.q.push_back(qi);
            plan.group.push_back(group_of(nI, nN));
            plan.coef.push_back({});
            path.push_back(qi);
            path_nodes.push_back(static_cast<int>(plan.q.size()) - 1);
            ++depth;
        }
        // The monomial is the node at its full depth (created now or as an earlier prefix).
        auto& dst = plan.coef[static_cast<std::size_t>(path_nodes[mono.tokens.size() - 1])];
        for (std::size_t mo = 0; mo < dst.size(); ++mo) dst[mo] += coef[mo];
    }
    for (std::size_t g = 0; g < plan.groups.size(); ++g)
        for (std::size_t mo = 0; mo < gradient_moment_count; ++mo) {
            Plan::Run run;
            run.begin = static_cast<std::uint32_t>(plan.entries.size());
            run.group = static_cast<std::uint8_t>(g);
            run.moment = static_cast<std::uint8_t>(mo);
            for (std::size_t n = 0; n < plan.q.size(); ++n)
                if (plan.group[n] == g && plan.coef[n][mo] != 0.0)
                    plan.entries.push_back(Plan::Entry{static_cast<std::uint32_t>(n + 1), plan.coef[n][mo]});
            run.end = static_cast<std::uint32_t>(plan.entries.size());
            if (run.end > run.begin) plan.runs.push_back(run);
        }
    if (plan.groups.size() > kMaxGroups) throw NumericalError("exact gradient moments: too many token groups");
    return plan;
}

// Number of integrand components: the moments with the fine inner rule (checked), the same
// with the coarse inner rule, and the integrand of sum |terms| (the rounding scale).
constexpr std::size_t kC = 3 * gradient_moment_count;

// The outer integrand at lambda = log t, evaluated for integrate_lambda. Its stages below are
// the hot loop of exact_gradient_moments: they hand their per-t arrays (Q, log M, the run sums)
// on as arguments and keep only the trie's products in the object.
class MomentIntegrand {
public:
    // The integrand over the inner rules of the present classes and the plan of monomials.
    MomentIntegrand(const std::array<MomentRule, 2>& rules, const bool (&present)[2], const Plan& plan, std::int64_t R,
                    std::int64_t N)
        : rules_(rules), present_(present), plan_(plan), R_(R), N_(N), prefix_(plan.q.size() + 1) {}
    // Not copyable: integrate_lambda calls this one object, which counts the evaluations.
    MomentIntegrand(const MomentIntegrand&) = delete;
    MomentIntegrand& operator=(const MomentIntegrand&) = delete;

    // The components at lambda: the moments by both inner rules, then the integrand of sum |terms|.
    void operator()(double lambda, std::array<double, kC>& out) {
        ++evaluations_;
        const double t = std::exp(lambda);
        // Q[class * 42 + (k-1) * 7 + m][rule] = E_class[u^m x^k e^{-x}] by the fine rule (step h,
        // rule 0) and the coarse one (step 2h, rule 1), side by side: the products below handle
        // both rules at once.
        double Q[2 * kQPerClass][2] = {};
        double logM[2][2] = {};  // [rule][class]
        class_sums(t, Q, logM);
        // The products on the trie; then each group's sum of coefficient * product, which gets
        // its factor M_I^{R - nI} M_N^{N - nN} once.
        trie_products(Q);
        double acc[kMaxGroups][gradient_moment_count][2] = {}, acc_abs[kMaxGroups][gradient_moment_count] = {};
        run_sums(acc, acc_abs);
        combine_groups(acc, acc_abs, logM, out);
    }

    // Outer integrand evaluations so far.
    int evaluations() const { return evaluations_; }

private:
    // Q and log M of each present class at t, by both inner rules.
    void class_sums(double t, double (&Q)[2 * kQPerClass][2], double (&logM)[2][2]) const {
        for (int cl = 0; cl < 2; ++cl) {
            if (!present_[cl]) continue;
            ClassSums v[2];
            accumulate(rules_[cl], t, v);
            for (int k = 0; k < kPow; ++k)
                for (int m = 0; m <= kPow; ++m) {
                    double* q = Q[cl * kQPerClass + k * (kPow + 1) + m];
                    q[0] = v[0].acc[k][m] + v[1].acc[k][m];
                    q[1] = 2 * v[0].acc[k][m];
                }
            const double om[2] = {v[0].om + v[1].om, 2 * v[0].om};
            for (int r = 0; r < 2; ++r) logM[r][cl] = om[r] >= 1.0 ? -INFINITY : std::log1p(-om[r]);
        }
    }

    // The product of the Q's on the path to each trie node, both rules (prefix_[0] = 1).
    void trie_products(const double (&Q)[2 * kQPerClass][2]) {
        const std::size_t nodes = plan_.q.size();
        prefix_[0] = {1.0, 1.0};
        for (std::size_t n = 0; n < nodes; ++n) {
            const auto& pp = prefix_[plan_.parent[n]];
            const double* qv = Q[plan_.q[n]];
            prefix_[n + 1][0] = pp[0] * qv[0];
            prefix_[n + 1][1] = pp[1] * qv[1];
        }
    }

    // Each run's sum of coefficient * product (both rules) and of its |terms| (fine rule).
    void run_sums(double (&acc)[kMaxGroups][gradient_moment_count][2],
                  double (&acc_abs)[kMaxGroups][gradient_moment_count]) const {
        for (const auto& run : plan_.runs) {
            double af = 0, ac = 0, aa = 0;
            for (std::uint32_t i = run.begin; i < run.end; ++i) {
                const auto& e = plan_.entries[i];
                const double vf = e.value * prefix_[e.node][0];
                af += vf;
                ac += e.value * prefix_[e.node][1];
                aa += std::abs(vf);
            }
            acc[run.group][run.moment][0] = af;
            acc[run.group][run.moment][1] = ac;
            acc_abs[run.group][run.moment] = aa;
        }
    }

    // The groups' sums times M_I^{R - nI} M_N^{N - nN}, added up per moment into out.
    void combine_groups(const double (&acc)[kMaxGroups][gradient_moment_count][2],
                        const double (&acc_abs)[kMaxGroups][gradient_moment_count], const double (&logM)[2][2],
                        std::array<double, kC>& out) const {
        double sum[2][gradient_moment_count] = {}, abs_sum[gradient_moment_count] = {};
        for (std::size_t g = 0; g < plan_.groups.size(); ++g) {
            // exp(eI log M_I + eN log M_N); exponent 0 contributes exactly 1 even if log M = -inf.
            const std::int64_t eI = R_ - plan_.groups[g][0], eN = N_ - plan_.groups[g][1];
            double pw[2];
            for (int r = 0; r < 2; ++r) {
                const double x = eI ? static_cast<double>(eI) * logM[r][0] : 0.0;
                const double y = eN ? static_cast<double>(eN) * logM[r][1] : 0.0;
                pw[r] = std::exp(x + y);
            }
            for (int mo = 0; mo < gradient_moment_count; ++mo) {
                sum[0][mo] += pw[0] * acc[g][mo][0];
                sum[1][mo] += pw[1] * acc[g][mo][1];
                abs_sum[mo] += pw[0] * acc_abs[g][mo];
            }
        }
        for (int mo = 0; mo < gradient_moment_count; ++mo) {
            out[static_cast<std::size_t>(mo)] = sum[0][mo];
            out[static_cast<std::size_t>(gradient_moment_count + mo)] = sum[1][mo];
            out[static_cast<std::size_t>(2 * gradient_moment_count + mo)] = abs_sum[mo];
        }
    }

    const std::array<MomentRule, 2>& rules_;
    const bool (&present_)[2];
    const Plan& plan_;
    const std::int64_t R_, N_;
    std::vector<std::array<double, 2>> prefix_;  // products on the trie, both rules
    int evaluations_ = 0;
};

// The moments with their error bounds from the integrals, and the cancellation (the largest
// ratio of sum |terms| to |moment|); the moments' rho and counts are left to the caller.
ExactGradientMoments moments_from(const detail::LambdaIntegral<kC, gradient_moment_count>& res) {
    std::array<double, gradient_moment_count> value{}, err{};
    double cancellation = 1;
    for (int mo = 0; mo < gradient_moment_count; ++mo) {
        const auto k = static_cast<std::size_t>(mo);
        value[k] = res.sum[k];
        const double inner = std::abs(res.sum[k] - res.sum[gradient_moment_count + k]);
        const double abs_scale = res.sum[2 * gradient_moment_count + k];
        // Rounding: every monomial's contribution carries a few ulps of its magnitude.
        err[k] = res.outer_err[k] + inner + res.tail_err[k] + 64 * 2.2e-16 * abs_scale;
        if (value[k] != 0.0) cancellation = std::max(cancellation, abs_scale / std::abs(value[k]));
    }
    ExactGradientMoments m;
    m.g_u = require_finite_result(value[detail::moment_g_u], "E[g_u] (exact gradient moments)");
    m.g_v = require_finite_result(value[detail::moment_g_v], "E[g_v] (exact gradient moments)");
    m.g_u_g_v = require_finite_result(value[detail::moment_g_u_g_v], "E[g_u g_v] (exact gradient moments)");
    m.g_v_sq = require_finite_result(value[detail::moment_g_v_sq], "E[g_v^2] (exact gradient moments)");
    m.g_w_sq = require_finite_result(value[detail::moment_g_w_sq], "E|g_w|^2 (exact gradient moments)");
    m.g_u_sq = require_finite_result(value[detail::moment_g_u_sq], "E[g_u^2] (exact gradient moments)");
    m.g_u_err = err[detail::moment_g_u];
    m.g_v_err = err[detail::moment_g_v];
    m.g_u_g_v_err = err[detail::moment_g_u_g_v];
    m.g_v_sq_err = err[detail::moment_g_v_sq];
    m.g_w_sq_err = err[detail::moment_g_w_sq];
    m.g_u_sq_err = err[detail::moment_g_u_sq];
    m.segments = res.segments;
    m.cancellation = cancellation;
    return m;
}

}  // namespace

void validate_gradient_moments(const ModelParams& model, const GradientMomentParams& params) {
    params.validate();
    validate_exact_field(model, params);
}

ExactGradientMoments exact_gradient_moments(const ModelParams& model, double rho, const GradientMomentParams& params) {
    validate_gradient_moments(model, params);
    validate_rho(rho);
    const auto setup = detail::laplace_setup<MomentRule>(model, rho, [&](double, double mean, double tau, double c) {
        return make_rule(mean, tau, model.beta, c, params);
    });
    const std::int64_t R = setup.R, N = setup.N;
    const std::array<MomentRule, 2>& rules = setup.rules;
    const bool present[2] = {R > 0, N > 0};
    const Plan plan = make_plan(model, rho);
    MomentIntegrand integrand(rules, present, plan, R, N);
    const auto res = detail::integrate_lambda<kC, gradient_moment_count>(integrand, params.rel_tol, params.max_segments,
                                                                         "exact gradient moments");
    ExactGradientMoments m = moments_from(res);
    m.rho = rho;
    m.outer_nodes = integrand.evaluations();
    m.inner_nodes = static_cast<int>(rules[0].E.size() + rules[1].E.size());
    m.monomials = plan.monomials;
    return m;
}

OneStepExpansion one_step_expansion(const ExactGradientMoments& m, UpdateRule rule) {
    const double rho = m.rho;
    const double s = std::sqrt(std::max(0.0, 1.0 - rho * rho));
    OneStepExpansion e;
    e.rho = rho;
    e.rule = rule;
    e.moments = m;
    e.F = s * m.g_v + 0.0;
    e.F_err = s * m.g_v_err;
    // (8.4)/(8.5): the orthogonal part of the step pulls rho towards 0 at second order; the
    // normalized rule also shortens the step by 1/(1 + eta g_u).
    const double ortho = m.g_v_sq + m.g_w_sq, ortho_err = m.g_v_sq_err + m.g_w_sq_err;
    e.B = -0.5 * rho * ortho + 0.0;
    e.B_err = 0.5 * std::abs(rho) * ortho_err;
    if (rule == UpdateRule::normalized) {
        e.B -= s * m.g_u_g_v;
        e.B_err += s * m.g_u_g_v_err;
    }
    // (8.3): Var[g_v] = E[g_v^2] - E[g_v]^2, errors propagated to first order.
    e.Sigma = s * s * (m.g_v_sq - m.g_v * m.g_v);
    e.Sigma_err = s * s * (m.g_v_sq_err + 2 * std::abs(m.g_v) * m.g_v_err + m.g_v_err * m.g_v_err);
    return e;
}

OneStepExpansion one_step_expansion(const ModelParams& model, double rho, UpdateRule rule,
                                    const GradientMomentParams& params) {
    return one_step_expansion(exact_gradient_moments(model, rho, params), rule);
}

RHOFLOW_JSON_HOOKS(ExactGradientMoments, rho, g_u, g_v, g_u_g_v, g_v_sq, g_w_sq, g_u_sq, g_u_err, g_v_err, g_u_g_v_err,
                   g_v_sq_err, g_w_sq_err, g_u_sq_err, segments, outer_nodes, inner_nodes, monomials, cancellation)
RHOFLOW_JSON_HOOKS(OneStepExpansion, rho, rule, F, B, Sigma, F_err, B_err, Sigma_err, moments)

}  // namespace rhoflow
