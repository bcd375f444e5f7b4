#include "rhoflow/field/detail/moment_expansion.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

namespace rhoflow::detail {
namespace {

constexpr int kMaxIndices = 6;

// Powers of a, u, v carried by one summation index (or, after merging, one distinct token).
struct IndexFactors {
    int a = 0, u = 0, v = 0;
};

// One index-sum term: coef * sum_{i_1..i_n} prod_p a^. u^. v^. * prod_edges <w_p, w_q>.
struct RawTerm {
    double coef = 1;
    int n = 0;
    std::array<IndexFactors, kMaxIndices> f{};
    std::vector<std::pair<int, int>> edges;
    int free_w = -1;  // index carrying the free vector w (component w of g only)
};

enum class Direction { u, v, w };

// g / (2 beta) along one direction: sum_ij a_i a_j P_ij x_i - sum_ijk a_i a_j a_k P_ij x_k with
// P_ij = u_i u_j + v_i v_j + <w_i, w_j> (docs/theory.md (8.7)).
std::vector<RawTerm> component_terms(Direction dir) {
    std::vector<RawTerm> out;
    for (int three = 0; three < 2; ++three)
        for (int P = 0; P < 3; ++P) {
            RawTerm r;
            r.coef = three ? -1.0 : 1.0;
            r.n = three ? 3 : 2;
            for (int i = 0; i < r.n; ++i) r.f[i].a = 1;
            if (P == 0) {
                ++r.f[0].u;
                ++r.f[1].u;
            } else if (P == 1) {
                ++r.f[0].v;
                ++r.f[1].v;
            } else {
                r.edges.emplace_back(0, 1);
            }
            const int t = three ? 2 : 0;
            if (dir == Direction::u) ++r.f[t].u;
            else if (dir == Direction::v) ++r.f[t].v;
            else r.free_w = t;
            out.push_back(r);
        }
    return out;
}

// The product of two index-sum terms; the second one's indices follow the first one's. For
// |g_w|^2 = <g_w, g_w> the two free vectors are contracted into one more edge.
RawTerm product(const RawTerm& A, const RawTerm& B) {
    RawTerm r;
    r.coef = A.coef * B.coef;
    r.n = A.n + B.n;
    for (int i = 0; i < A.n; ++i) r.f[i] = A.f[i];
    for (int i = 0; i < B.n; ++i) r.f[A.n + i] = B.f[i];
    r.edges = A.edges;
    for (auto [p, q] : B.edges) r.edges.emplace_back(p + A.n, q + A.n);
    if (A.free_w >= 0 && B.free_w >= 0) r.edges.emplace_back(A.free_w, B.free_w + A.n);
    return r;
}

// A polynomial in (sigma, theta s, d - 2) with exact integer coefficients.
using Exponents = std::array<std::uint8_t, 3>;
using Poly = std::map<Exponents, double>;

Poly poly_product(const Poly& x, const Poly& y) {
    Poly r;
    for (const auto& [ex, cx] : x)
        for (const auto& [ey, cy] : y) {
            const Exponents e{static_cast<std::uint8_t>(ex[0] + ey[0]), static_cast<std::uint8_t>(ex[1] + ey[1]),
                              static_cast<std::uint8_t>(ex[2] + ey[2])};
            r[e] += cx * cy;
        }
    return r;
}

double double_factorial_odd(int k) {  // (k - 1)!! for even k: E[Y^k]
    double r = 1;
    for (int j = k - 1; j > 1; j -= 2) r *= j;
    return r;
}

double binomial(int n, int k) {
    double r = 1;
    for (int j = 1; j <= k; ++j) r = r * (n - k + j) / j;
    return r;
}

// E[(m + sigma Y)^n] for the informative class (v-mean m = theta s) or the nuisance class (m = 0).
Poly v_moment(int n, std::uint8_t cls) {
    Poly p;
    for (int k = 0; k <= n; k += 2) {
        if (cls == class_nuisance && k != n) continue;
        p[Exponents{static_cast<std::uint8_t>(k), static_cast<std::uint8_t>(n - k), 0}] +=
            binomial(n, k) * double_factorial_odd(k);
    }
    return p;
}

// Wick's theorem for prod_edges <w_{p_e}, w_{q_e}> with independent w_p ~ N(0, sigma^2 I_D):
// pair the 2E vector slots within each token in every way; each pairing closes the edges into
// cycles, each worth D, and each pair is worth sigma^2.
Poly w_expectation(const std::vector<std::pair<int, int>>& edges) {
    Poly out;
    const int E = static_cast<int>(edges.size());
    if (E == 0) {
        out[Exponents{0, 0, 0}] = 1;
        return out;
    }
    const int S = 2 * E;
    std::array<int, 2 * 3 + 2> block{}, partner{};
    for (int e = 0; e < E; ++e) {
        block[2 * e] = edges[e].first;
        block[2 * e + 1] = edges[e].second;
    }
    std::map<int, double> by_cycles;
    std::array<bool, 8> used{};
    auto count_cycles = [&]() {
        std::array<int, 8> parent{};
        std::iota(parent.begin(), parent.begin() + S, 0);
        auto find = [&](int x) {
            while (parent[x] != x) x = parent[x] = parent[parent[x]];
            return x;
        };
        auto unite = [&](int x, int y) { parent[find(x)] = find(y); };
        for (int e = 0; e < E; ++e) unite(2 * e, 2 * e + 1);
        for (int s = 0; s < S; ++s) unite(s, partner[s]);
        int c = 0;
        for (int s = 0; s < S; ++s) c += find(s) == s;
        return c;
    };
    auto match = [&](auto&& self) -> void {
        int i = 0;
        while (i < S && used[i]) ++i;
        if (i == S) {
            ++by_cycles[count_cycles()];
            return;
        }
        used[i] = true;
        for (int j = i + 1; j < S; ++j)
            if (!used[j] && block[j] == block[i]) {
                used[j] = true;
                partner[i] = j;
                partner[j] = i;
                self(self);
                used[j] = false;
            }
        used[i] = false;
    };
    match(match);
    for (const auto& [cycles, count] : by_cycles)
        out[Exponents{static_cast<std::uint8_t>(2 * E), 0, static_cast<std::uint8_t>(cycles)}] += count;
    return out;
}

struct Accumulator {
    std::array<Poly, gradient_moment_count> coef;
};
// Sorted tokens packed one byte each (16 k + 2 m + c >= 16), first token in the top byte, so that
// the key order is the lexicographic order of the token lists (prefixes first).
using Key = std::uint64_t;
constexpr std::uint8_t pack(int k, int m, int c) { return static_cast<std::uint8_t>(16 * k + 2 * m + c); }

// Adds coef * E[term | scores] in distinct-token form for every set partition of its indices.
void expand(const RawTerm& term, int moment, std::map<Key, Accumulator>& acc) {
    const int n = term.n;
    std::array<int, kMaxIndices> label{};
    auto visit = [&](int blocks) {
        std::array<IndexFactors, kMaxIndices> f{};
        for (int i = 0; i < n; ++i) {
            f[label[i]].a += term.f[i].a;
            f[label[i]].u += term.f[i].u;
            f[label[i]].v += term.f[i].v;
        }
        std::vector<std::pair<int, int>> edges;
        for (auto [p, q] : term.edges) edges.emplace_back(label[p], label[q]);
        Poly base = w_expectation(edges);
        if (base.empty()) return;
        for (auto& [e, c] : base) c *= term.coef;
        for (unsigned mask = 0; mask < (1u << blocks); ++mask) {
            Poly p = base;
            std::array<std::uint8_t, kMaxIndices> toks{};
            for (int b = 0; b < blocks && !p.empty(); ++b) {
                const std::uint8_t cls = (mask >> b) & 1u ? class_nuisance : class_informative;
                const Poly vm = v_moment(f[b].v, cls);
                if (vm.empty()) p.clear();
                else p = poly_product(p, vm);
                toks[static_cast<std::size_t>(b)] = pack(f[b].a, f[b].u, cls);
            }
            if (p.empty()) continue;
            for (int i = 1; i < blocks; ++i)  // insertion sort (at most 6 tokens)
                for (int j = i; j > 0 && toks[static_cast<std::size_t>(j - 1)] > toks[static_cast<std::size_t>(j)]; --j)
                    std::swap(toks[static_cast<std::size_t>(j - 1)], toks[static_cast<std::size_t>(j)]);
            Key key = 0;
            for (int b = 0; b < kMaxIndices; ++b) key = (key << 8) | toks[static_cast<std::size_t>(b)];
            Poly& dst = acc[key].coef[moment];
            for (const auto& [e, c] : p) dst[e] += c;
        }
    };
    // Set partitions as restricted growth strings: label[0] = 0, label[i] <= 1 + max(label[<i]).
    auto rec = [&](auto&& self, int i, int blocks) -> void {
        if (i == n) {
            visit(blocks);
            return;
        }
        for (int b = 0; b <= blocks; ++b) {
            label[i] = b;
            self(self, i + 1, std::max(blocks, b + 1));
        }
    };
    rec(rec, 0, 0);
}

std::vector<ExpansionMonomial> build() {
    const auto gu = component_terms(Direction::u), gv = component_terms(Direction::v),
               gw = component_terms(Direction::w);
    std::map<Key, Accumulator> acc;
    for (const auto& t : gu) expand(t, moment_g_u, acc);
    for (const auto& t : gv) expand(t, moment_g_v, acc);
    auto second = [&](const std::vector<RawTerm>& x, const std::vector<RawTerm>& y, int moment) {
        for (const auto& s : x)
            for (const auto& t : y) expand(product(s, t), moment, acc);
    };
    second(gu, gv, moment_g_u_g_v);
    second(gv, gv, moment_g_v_sq);
    second(gw, gw, moment_g_w_sq);
    second(gu, gu, moment_g_u_sq);

    std::vector<ExpansionMonomial> out;
    for (const auto& [key, a] : acc) {
        ExpansionMonomial m;
        for (int b = kMaxIndices - 1; b >= 0; --b) {
            const auto byte = static_cast<std::uint8_t>(key >> (8 * b));
            if (byte == 0) break;
            const ExpansionToken t{static_cast<std::uint8_t>(byte / 16), static_cast<std::uint8_t>(byte % 16 / 2),
                                   static_cast<std::uint8_t>(byte % 2)};
            m.tokens.push_back(t);
            m.K += t.k;
            (t.c == class_informative ? m.n_informative : m.n_nuisance) += 1;
        }
        bool any = false;
        for (int mo = 0; mo < gradient_moment_count; ++mo)
            for (const auto& [e, c] : a.coef[mo])
                if (c != 0.0) {  // integer arithmetic in double: cancellations are exact
                    m.coef[mo].push_back(ExpansionCoefTerm{e[0], e[1], e[2], c});
                    any = true;
                }
        if (any) out.push_back(std::move(m));
    }
    return out;
}

}  // namespace

const std::vector<ExpansionMonomial>& gradient_moment_expansion() {
    static const std::vector<ExpansionMonomial> expansion = build();
    return expansion;
}

}  // namespace rhoflow::detail
