#!/usr/bin/env python3
"""Reference values of the exact field (docs/theory.md (4.3)) at 30 digits with mpmath, for the
rigorous enclosures' tests (tests/rhoflow/rigorous/enclosure_test.cpp).

Independent of rhoflow's code: the inner Gaussian expectations are a 521-node trapezoidal rule
in z at 30 digits, the mu-derivatives by Stein's identity d/dmu E[h(s)] = E[h(s)(s - mu)]/tau^2
(rhoflow's enclosure differentiates pathwise), the outer integral mpmath.quad over lambda = log t,
with no shift of t. Run:  python3 tests/data/rigorous_reference.py > tests/data/rigorous_reference.csv
(5-15 minutes per line; `python3 ... 2 3` computes lines 2 and 3 only, without the header; the
csv's '#' lines say which cases were computed when; the test skips them). Columns: d, L, R, theta, sigma, beta, rho, j, dj, mass.
"""
import sys
from mpmath import mp, mpf, quad, exp, expm1, sqrt, pi, log, inf

mp.dps = 30


def inner(t, mu, tau, beta):
    """(m, A1, B1, Au, Bu) and their mu-derivatives for scores N(mu, tau^2) at t (x = t e^s).

    Trapezoidal rule in z = (s - mu)/tau with step 0.05 on [-13, 13]: the integrands are entire
    with Gaussian decay, so the rule's error is below exp(-pi^2/(2 tau h)) ~ 1e-40 at tau <= 2.5 and
    the dropped tails below 1e-36; derivatives by Stein's identity (weight z/tau).
    """
    h = mpf(1) / 20
    S = [mpf(0)] * 10
    for k in range(-260, 261):
        z = k * h
        s = mu + tau * z
        w = h * exp(-z * z / 2) / sqrt(2 * pi)
        x = t * exp(s)
        e = exp(-x)
        u = s / beta
        vals = (-expm1(-x), x * e, x * x * e, u * x * e, u * u * x * x * e)
        for i, v in enumerate(vals):
            S[2 * i] += w * v
            S[2 * i + 1] += w * v * z / tau
    return [(S[2 * i], S[2 * i + 1]) for i in range(5)]


def field(d, L, R, theta, sigma, beta, rho):
    N = L - R
    mu, tau = beta * theta * rho, beta * sigma
    c2, c3, dmu, dc2 = theta ** 2 * (1 - rho ** 2), (d - 1) * sigma ** 2, beta * theta, -2 * rho * theta ** 2

    def integrand(lam):
        t = exp(lam)
        (mI, dmI), (AI, dAI), (BI, dBI), (AuI, dAuI), (BuI, dBuI) = inner(t, mu, tau, beta)
        (mN, _), (AN, _), (BN, _), (AuN, _), (BuN, _) = inner(t, mpf(0), tau, beta)
        MI, MN = 1 - mI, 1 - mN
        def P(a, b):
            return (MI ** a if a > 0 else mpf(1)) * (MN ** b if b > 0 else mpf(1))
        def dP(a, b):  # d/dmu of M_I^a M_N^b
            return -a * dmI * (MI ** (a - 1) if a > 1 else mpf(1)) * (MN ** b if b > 0 else mpf(1)) if a > 0 else mpf(0)
        terms1 = [(R, BuI, dBuI, R - 1, N), (N, BuN, 0, R, N - 1), (R * (R - 1), AuI ** 2, 2 * AuI * dAuI, R - 2, N),
                  (N * (N - 1), AuN ** 2, 0, R, N - 2), (2 * R * N, AuI * AuN, dAuI * AuN, R - 1, N - 1)]
        terms2 = [(R, BI, dBI, R - 1, N), (R * (R - 1), AI ** 2, 2 * AI * dAI, R - 2, N)]
        terms3 = [(R, BI, dBI, R - 1, N), (N, BN, 0, R, N - 1)]
        def val(ts):
            v = dv = mpf(0)
            for coef, X, dX, a, b in ts:
                if coef == 0:
                    continue
                v += coef * X * P(a, b)
                dv += coef * (dX * P(a, b) + X * dP(a, b))
            return v, dv
        (t1, dt1), (t2, dt2), (t3, dt3) = val(terms1), val(terms2), val(terms3)
        j = t1 + c2 * t2 + c3 * t3
        dj = dmu * (dt1 + c2 * dt2 + c3 * dt3) + dc2 * t2
        mass = R * AI * P(R - 1, N) if R > 0 else mpf(0)
        return j, dj, mass

    cache = {}
    def comp(k):
        def f(lam):
            key = mp.nstr(lam, 40)
            if key not in cache:
                cache[key] = integrand(lam)
            return cache[key][k]
        return f
    # t in natural units: the mass sits near lambda = -log E[S]
    c = log(R * exp(mu) + N) + tau ** 2 / 2
    pts = [-c - 70, -c - 20, -c - 8, -c - 3, -c, -c + 2, -c + 5, -c + 10, -c + 30]
    return [quad(comp(k), pts, method='gauss-legendre') for k in range(3)]


CASES = [(50, 50, 25, "1", "1", "1", "0.3"), (50, 50, 25, "1", "1", "1", "-0.9"),
         (20, 200, 10, "2", "0.7", "1.3", "0.6"), (5, 12, 3, "1.5", "1", "0.8", "-0.4")]

if __name__ == "__main__":
    # Optional arguments: indices of CASES to compute (default all); the header is printed
    # only when no index is given.
    picks = [int(a) for a in sys.argv[1:]] or range(len(CASES))
    if len(sys.argv) == 1:
        print("d,L,R,theta,sigma,beta,rho,j,dj,mass")
    for i in picks:
        d, L, R, th, sg, be, r = CASES[i]
        j, dj, mass = field(d, L, R, mpf(th), mpf(sg), mpf(be), mpf(r))
        print(f"{d},{L},{R},{th},{sg},{be},{r},{mp.nstr(j, 30)},{mp.nstr(dj, 30)},{mp.nstr(mass, 30)}")
        sys.stdout.flush()
