#!/usr/bin/env python3
"""Straightforward NumPy implementation of the full SGA recursion (docs/theory.md section 2), used
only by rhoflow-bench to put the C++ full simulator's speed in context. Not a dependency.
Usage: numpy_full_step.py STEPS  -> prints seconds per step (best of 3 runs)."""
import sys
import time

import numpy as np


def step(q, rng, d=100, L=10500, R=500, theta=1.0, sigma=1.0, beta=1.0, eta=1e-3):
    X = sigma * rng.standard_normal((L, d))
    X[:R, 0] += theta
    s = beta * (X @ q)
    a = np.exp(s - s.max())
    a /= a.sum()
    f = X.T @ a
    c = 2 * beta * a * (X @ f)
    g = X.T @ c - c.sum() * f
    q = q + eta * g
    return q / np.linalg.norm(q)


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    rng = np.random.default_rng(1)
    q = np.zeros(100)
    q[0], q[1] = 0.1, np.sqrt(1 - 0.01)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(steps):
            q = step(q, rng)
        best = min(best, (time.perf_counter() - t0) / steps)
    print(best)


if __name__ == "__main__":
    main()
