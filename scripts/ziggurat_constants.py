#!/usr/bin/python3
"""The tail start r and layer area v of an N-layer normal ziggurat (Marsaglia & Tsang 2000), to 60
digits: r solves the closing condition that the recursion x_{i-1} = f^{-1}(v / x_i + f(x_i)),
f(x) = exp(-x^2/2), started at x_{N-1} = r with v = r f(r) + int_r^inf f, reaches the top layer
with area v as well (v / x_1 + f(x_1) = 1). N = 256 gives Marsaglia and Tsang's published
constants (rhoflow's generator before issue 20), N = 1024 the block normal generator's
(lib/rhoflow/core/detail/block_ziggurat.hpp). Needs Debian's python3-mpmath.
    /usr/bin/python3 scripts/ziggurat_constants.py 256 1024
"""
import sys

import mpmath as mp

mp.mp.dps = 60


def f(x):
    return mp.exp(-x * x / 2)


def area(r):
    return r * f(r) + mp.sqrt(mp.pi / 2) * mp.erfc(r / mp.sqrt(2))


def closing(r, n):
    """v / x_1 + f(x_1) - 1: positive when r is too small (the recursion overshoots the top)."""
    v, x = area(r), r
    for i in range(n - 2):
        a = v / x + f(x)
        if a >= 1:
            return mp.mpf(1) + (n - 2 - i)
        x = mp.sqrt(-2 * mp.log(a))
    return v / x + f(x) - 1


for n in [int(a) for a in sys.argv[1:]] or [256, 1024]:
    lo, hi = mp.mpf(2), mp.mpf(6)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if closing(mid, n) > 0 else (lo, mid)
    r = (lo + hi) / 2
    print(f"N = {n}: r = {mp.nstr(r, 25)}, v = {mp.nstr(area(r), 25)}")
