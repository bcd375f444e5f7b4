// The symbolic half of the exact one-step gradient moments (docs/theory.md section 8): every
// population moment of the per-sample gradient g up to second order, written as a finite sum of
// "distinct-token monomials"
//
//     coef(sigma, theta s, d - 2) * sum over ordered tuples of distinct tokens (i_1..i_b) of
//                                   class pattern (c_1..c_b) of E[ prod_p a_{i_p}^{k_p} u_{i_p}^{m_p} ],
//
// whose expectation the Laplace quadrature evaluates (gradient_moments.cpp). The expansion:
//  1. g = 2 beta (sum_ij a_i a_j <x_i,x_j> x_i - sum_ijk a_i a_j a_k <x_i,x_j> x_k), with
//     <x_i,x_j> = u_i u_j + v_i v_j + <w_i,w_j>: six index-sum terms per component (u, v, w);
//  2. a product of two components has at most 6 summation indices; every set partition of the
//     indices (Bell(6) = 203) turns the full sum into sums over distinct tokens;
//  3. given the scores, v = (theta s) 1{informative} + sigma Y and w ~ N(0, sigma^2 I_{d-2}) are
//     independent across distinct tokens: the Y moments give a polynomial in (theta s, sigma)
//     per class, and Wick's theorem on the w-vectors gives sigma^{2 #edges} (d-2)^{#cycles}.
// The result depends on nothing numerical; it is built once per process (about 10 ms) and shared
// read-only.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace rhoflow::detail {

/// The moments expanded, in the order of ExpansionMonomial::coef.
enum GradientMomentIndex : int {
    moment_g_u = 0,      ///< E[g_u]
    moment_g_v = 1,      ///< E[g_v]
    moment_g_u_g_v = 2,  ///< E[g_u g_v]
    moment_g_v_sq = 3,   ///< E[g_v^2]
    moment_g_w_sq = 4,   ///< E[|g_w|^2]
    moment_g_u_sq = 5,   ///< E[g_u^2]
};
/// Number of moments expanded.
inline constexpr int gradient_moment_count = 6;
/// Number of factors g in each moment: the coefficient carries (2 beta)^factors.
inline constexpr std::array<int, gradient_moment_count> gradient_moment_factors = {1, 1, 2, 2, 2, 2};

/// Token classes.
inline constexpr std::uint8_t class_informative = 0, class_nuisance = 1;
/// Largest power of a (and of u) on one token: 6 (three factors a in each of two g's).
inline constexpr int expansion_max_power = 6;

/// One distinct token of a monomial: a^k u^m, of class c.
struct ExpansionToken {
    std::uint8_t k = 0;  ///< power of the attention weight a (1..6)
    std::uint8_t m = 0;  ///< power of the score coordinate u (0..6)
    std::uint8_t c = 0;  ///< class_informative or class_nuisance
};

/// One term value * sigma^e_sigma * (theta s)^e_mean * (d - 2)^e_dim of a coefficient.
struct ExpansionCoefTerm {
    std::uint8_t e_sigma = 0;  ///< power of sigma
    std::uint8_t e_mean = 0;   ///< power of theta * sqrt(1 - rho^2), the informative v-mean
    std::uint8_t e_dim = 0;    ///< power of d - 2
    double value = 0;          ///< integer coefficient (exact in double)
};

/// A distinct-token monomial and its coefficient in every moment (without (2 beta)^factors).
struct ExpansionMonomial {
    std::vector<ExpansionToken> tokens;  ///< sorted by (k, m, c)
    int n_informative = 0;               ///< tokens of class I
    int n_nuisance = 0;                  ///< tokens of class N
    int K = 0;                           ///< sum of the a-powers (the power of 1/S)
    std::array<std::vector<ExpansionCoefTerm>, gradient_moment_count> coef;  ///< per moment
};

/// The expansion, built on first use (thread-safe) and shared.
const std::vector<ExpansionMonomial>& gradient_moment_expansion();

}  // namespace rhoflow::detail
