// Chebyshev interpolation on [-1, 1], built adaptively on nested Chebyshev-Lobatto grids.
//
// Method: values at x_k = cos(pi k / n), k = 0..n, give the interpolant's coefficients by a
// type-I discrete cosine transform (computed directly, O(n^2): n stays in the hundreds). n
// doubles (16, 32, ...) reusing every earlier value until the last eighth of the coefficients
// is below tol * scale. For a function analytic in a Bernstein ellipse the coefficients decay
// geometrically, and the interpolation error is bounded by about twice the sum of the
// discarded tail (Trefethen, "Approximation Theory and Approximation Practice", ch. 8); that
// sum, plus the error of the sampled values, is the reported error bound.
// Evaluation: Clenshaw's recurrence from Boost.Math (chebyshev_clenshaw_recurrence).
// When it fails: for functions with singularities near [-1, 1] (n would exceed max_points);
// then the fit is returned with its larger error bound, and converged() is false.
#pragma once

#include <functional>
#include <vector>

namespace rhoflow {

/// A polynomial in Chebyshev form on [-1, 1] with an error bound for the function it fits.
class Chebyshev {
public:
    /// Evaluates f at all points of `x` into `y` (lets callers parallelise the samples).
    using BatchFunction = std::function<void(const std::vector<double>& x, std::vector<double>& y)>;
    /// Evaluates several functions together at all points of `x`: values[f][i] is function f at
    /// x[i], errors[f] bounds the error of every value of function f in this batch.
    using JointBatchFunction = std::function<void(const std::vector<double>& x, std::vector<std::vector<double>>& values,
                                                  std::vector<double>& errors)>;

    Chebyshev() = default;
    /// The n+1 Chebyshev-Lobatto points cos(pi k / n), k = 0..n (from +1 down to -1).
    static std::vector<double> lobatto_points(int n);
    /// Lobatto points of the grid 2n that are not on the grid n (odd k), in order.
    static std::vector<double> lobatto_refinement(int n);
    /// Interleaves values on grid n with values at its refinement into values on grid 2n (any
    /// value type: numbers, or several functions' samples at once).
    template <class T>
    static std::vector<T> merge_refinement(const std::vector<T>& coarse, const std::vector<T>& added) {
        const std::size_t n2 = 2 * (coarse.size() - 1);
        std::vector<T> y(n2 + 1);
        for (std::size_t k = 0; k <= n2; ++k) y[k] = (k % 2 == 0) ? coarse[k / 2] : added[k / 2];
        return y;
    }
    /// The interpolant through values y on the Lobatto grid of size y.size() - 1. It counts as
    /// converged when the last eighth of its coefficients is below
    /// tol * max(scale_floor, max |coefficient|) + 2 sample_error (the noise floor of the
    /// samples); `sample_error` bounds the error of each value and enters the error bound.
    static Chebyshev from_lobatto(const std::vector<double>& y, double tol, double scale_floor = 0.0,
                                  double sample_error = 0.0);
    /// Fits the function sampled by `f`, doubling the grid from 16 up to max_points - 1.
    static Chebyshev fit(const BatchFunction& f, double tol, int max_points = 1025, double sample_error = 0.0);
    /// Fits several functions sampled together, doubling the grid from 16 up to max_points - 1
    /// until the function `lead` converges; returns one interpolant per function, each with its
    /// samples' error in its bound (the others need not have converged: see converged()).
    static std::vector<Chebyshev> fit_jointly(const JointBatchFunction& f, std::size_t lead, double tol,
                                              int max_points = 1025);
    /// Interpolant with the given coefficients (Boost convention: the first is halved on use).
    explicit Chebyshev(std::vector<double> coefficients, double error_bound = 0.0);

    /// Value at x (x is clamped to [-1, 1]).
    double operator()(double x) const;
    /// The derivative as a Chebyshev series (its error bound follows Markov's inequality).
    Chebyshev derivative() const;
    /// Bound on |interpolant - function| over [-1, 1].
    double error_bound() const noexcept { return err_; }
    /// Polynomial degree.
    int degree() const noexcept { return static_cast<int>(c_.size()) - 1; }
    /// Largest |value| among the samples it was built from (the function's scale).
    double sample_max() const noexcept { return sample_max_; }
    /// Number of samples of f used to build it.
    int samples() const noexcept { return samples_; }
    /// Whether the tail criterion was met before max_points.
    bool converged() const noexcept { return converged_; }
    /// Coefficients (Boost convention: value = c0/2 + sum_{k>=1} c_k T_k).
    const std::vector<double>& coefficients() const noexcept { return c_; }

private:
    std::vector<double> c_;
    double err_ = 0;
    int samples_ = 0;
    double sample_max_ = 0;
    bool converged_ = true;
};

}  // namespace rhoflow
