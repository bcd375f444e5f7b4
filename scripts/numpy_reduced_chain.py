#!/usr/bin/env python3
"""NumPy implementation of the exact reduced rho-chain (docs/theory.md section 6), vectorised
over trials: one step of T independent trials is a handful of (T, L) array operations. Used only
by rhoflow-bench to put the C++ reduced sampler's speed in context; not a dependency.
Usage: numpy_reduced_chain.py STEPS [TRIALS] -> prints seconds per step of all trials (best of 3).
The model is rhoflow-bench's: d = 10, L = 10^4, R = 500, theta = sigma = beta = 1, eta = 0.01."""
import sys
import time

import numpy as np


def step(rho, rng, d=10, L=10000, R=500, theta=1.0, sigma=1.0, beta=1.0, eta=0.01):
    T = rho.shape[0]
    s = np.sqrt(np.maximum(0.0, 1.0 - rho * rho))
    u = sigma * rng.standard_normal((T, L))
    v = sigma * rng.standard_normal((T, L))
    u[:, :R] += (theta * rho)[:, None]
    v[:, :R] += (theta * s)[:, None]
    a = np.exp(beta * (u - u.max(axis=1, keepdims=True)))
    a /= a.sum(axis=1, keepdims=True)
    f_u, f_v = (a * u).sum(axis=1), (a * v).sum(axis=1)
    na2 = (a * a).sum(axis=1)
    na = np.sqrt(na2)
    # The d - 2 directions orthogonal to q and xi: W W^T a = a H + |a| sqrt(H) P zeta.
    H = sigma**2 * rng.chisquare(d - 2, T)
    zeta = sigma * rng.standard_normal((T, L))
    zeta -= ((a * zeta).sum(axis=1) / na2)[:, None] * a  # P zeta
    r = a * H[:, None] + (na * np.sqrt(H))[:, None] * zeta
    c = 2 * beta * a * (f_u[:, None] * u + f_v[:, None] * v + r)
    C = c.sum(axis=1)
    g_u = (c * u).sum(axis=1) - C * f_u
    g_v = (c * v).sum(axis=1) - C * f_v
    b_ah = ((c * a).sum(axis=1) - C * na2) / na
    k = C + b_ah / na
    bperp2 = ((c - k[:, None] * a) ** 2).sum(axis=1)
    kappa = b_ah * np.sqrt(H) + (c * zeta).sum(axis=1)
    g_w2 = kappa**2 + sigma**2 * bperp2 * rng.chisquare(d - 3, T)
    # Normalized update in the plane (q, e) plus the orthogonal part of the gradient.
    x = 1.0 + eta * g_u
    y = eta * g_v
    norm = np.sqrt(x * x + y * y + eta * eta * g_w2)
    return np.clip((rho * x + s * y) / norm, -1.0, 1.0)


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    trials = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    rng = np.random.default_rng(1)
    rho = np.full(trials, 0.1)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(steps):
            rho = step(rho, rng)
        best = min(best, (time.perf_counter() - t0) / steps)
    print(best)


if __name__ == "__main__":
    main()
