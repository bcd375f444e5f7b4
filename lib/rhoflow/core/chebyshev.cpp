#include "rhoflow/core/chebyshev.hpp"

#include <algorithm>
#include <boost/math/special_functions/chebyshev.hpp>
#include <cmath>
#include <numbers>

namespace rhoflow {

Chebyshev::Chebyshev(std::vector<double> coefficients, double error_bound)
    : c_(std::move(coefficients)), err_(error_bound) {}

std::vector<double> Chebyshev::lobatto_points(int n) {
    std::vector<double> x(static_cast<std::size_t>(n) + 1);
    for (int k = 0; k <= n; ++k) x[static_cast<std::size_t>(k)] = std::cos(std::numbers::pi * k / n);
    return x;
}

std::vector<double> Chebyshev::lobatto_refinement(int n) {
    std::vector<double> x;
    for (int k = 1; k < 2 * n; k += 2) x.push_back(std::cos(std::numbers::pi * k / (2 * n)));
    return x;
}

Chebyshev Chebyshev::from_lobatto(const std::vector<double>& y, double tol, double scale_floor,
                                  double sample_error) {
    const std::size_t n = y.size() - 1;
    const double pi = std::numbers::pi;
    // Type-I DCT: the interpolant is c0/2 + sum_{j<n} c_j T_j + (c_n/2) T_n.
    std::vector<double> c(n + 1);
    for (std::size_t j = 0; j <= n; ++j) {
        double s = 0.5 * (y[0] + (j % 2 ? -y[n] : y[n]));
        for (std::size_t k = 1; k < n; ++k)
            s += y[k] * std::cos(pi * static_cast<double>(j * k % (2 * n)) / static_cast<double>(n));
        c[j] = 2.0 * s / static_cast<double>(n);
    }
    c[n] *= 0.5;
    double scale = scale_floor;
    for (double v : c) scale = std::max(scale, std::abs(v));
    double tail_max = 0, tail_sum = 0;
    for (std::size_t j = n - n / 8; j <= n; ++j) {
        tail_max = std::max(tail_max, std::abs(c[j]));
        tail_sum += std::abs(c[j]);
    }
    const bool converged = tail_max <= tol * scale + 2 * sample_error;
    // Drop trailing coefficients that cannot matter at this accuracy (nor above rounding).
    constexpr double eps = 2.220446049250313e-16;
    const double chop = std::max(1e-3 * tol, 8 * eps) * scale;
    double dropped = 0;
    while (c.size() > 2 && std::abs(c.back()) + dropped <= chop) {
        dropped += std::abs(c.back());
        c.pop_back();
    }
    double magnitude = 0, ymax = 0;
    for (double v : c) magnitude += std::abs(v);
    for (double v : y) ymax = std::max(ymax, std::abs(v));
    // Error: twice the tail (aliasing included), what was dropped, the samples' own error and
    // rounding (of the samples, and of Clenshaw's recurrence, growing like sqrt(degree)).
    const double rounding = eps * ymax + 2 * eps * std::sqrt(static_cast<double>(c.size())) * magnitude;
    Chebyshev r(std::move(c), 2 * tail_sum + dropped + sample_error + rounding);
    r.samples_ = static_cast<int>(n + 1);
    r.sample_max_ = ymax;
    r.converged_ = converged;
    return r;
}

std::vector<Chebyshev> Chebyshev::fit_jointly(const JointBatchFunction& f, std::size_t lead, double tol,
                                              int max_points) {
    int n = 16;
    std::vector<std::vector<double>> y;
    std::vector<double> err;
    f(lobatto_points(n), y, err);
    for (;;) {
        Chebyshev r = from_lobatto(y[lead], tol, 0.0, err[lead]);
        if (r.converged_ || 2 * n + 1 > max_points) break;
        std::vector<std::vector<double>> added;
        std::vector<double> added_err;
        f(lobatto_refinement(n), added, added_err);
        for (std::size_t k = 0; k < y.size(); ++k) {
            y[k] = merge_refinement(y[k], added[k]);
            err[k] = std::max(err[k], added_err[k]);
        }
        n *= 2;
    }
    std::vector<Chebyshev> out;
    for (std::size_t k = 0; k < y.size(); ++k) out.push_back(from_lobatto(y[k], tol, 0.0, err[k]));
    return out;
}

Chebyshev Chebyshev::fit(const BatchFunction& f, double tol, int max_points, double sample_error) {
    auto joint = [&](const std::vector<double>& x, std::vector<std::vector<double>>& values, std::vector<double>& errors) {
        values.assign(1, {});
        f(x, values[0]);
        errors.assign(1, sample_error);
    };
    return fit_jointly(joint, 0, tol, max_points).front();
}

double Chebyshev::operator()(double x) const {
    return boost::math::chebyshev_clenshaw_recurrence(c_.data(), c_.size(), std::clamp(x, -1.0, 1.0));
}

Chebyshev Chebyshev::derivative() const {
    const std::size_t n = c_.size();
    if (n < 2) return Chebyshev(std::vector<double>{0.0}, 0.0);
    // With value = c0/2 + sum c_k T_k, the derivative's coefficients (same convention) satisfy
    // d_{k-1} = d_{k+1} + 2 k c_k for k = n-1 .. 1, with d_{n-1} = d_n = 0.
    std::vector<double> d(n - 1, 0.0);
    for (std::size_t k = n - 1; k >= 1; --k) {
        const double next = (k + 1 <= n - 2) ? d[k + 1] : 0.0;
        d[k - 1] = next + 2.0 * static_cast<double>(k) * c_[k];
        if (k == 1) break;
    }
    const double deg = static_cast<double>(n - 1);
    Chebyshev r(std::move(d), deg * deg * err_);  // Markov: max |p'| <= n^2 max |p| on [-1, 1] bounds the polynomial part only; for p - f an estimate (theory.md section 10)
    r.samples_ = samples_;
    r.converged_ = converged_;
    return r;  // sample_max_ stays 0: no samples of the derivative
}

}  // namespace rhoflow
