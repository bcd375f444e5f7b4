#!/usr/bin/env python3
"""A step-size study in a loop: how far SGA strays from the mean-field ODE as the step shrinks.

For each eta0, an ensemble with eta_k = eta0 / (1 + k/k0) and eta0 k0 fixed (so eta(t) keeps its
shape in ODE time) runs to the same ODE time T from the same start; each trial's tracking error
is sup_k |rho_k - rho_ODE(t_k)| over the record steps, and its mean over trials comes with a
95% CI. Theory: the error shrinks like eta0^(1/2) for small eta0; the fitted log-log slope is
printed with its standard error and drawn.

    PYTHONPATH=build/python /usr/bin/python3 examples/step_size_study.py           # ~1 min
    PYTHONPATH=build/python /usr/bin/python3 examples/step_size_study.py --small   # seconds

Writes step_size_study.png (--out FILE)."""
import argparse
import os
import math

import matplotlib

matplotlib.use("Agg")  # no display needed; remove this line in a notebook
import matplotlib.pyplot as plt
import numpy as np

import rhoflow

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--small", action="store_true", help="fewer step sizes and trials (for the test suite)")
parser.add_argument("--out", default="step_size_study.png", help="the figure's file")
args = parser.parse_args()

model = rhoflow.Model()
rho0, horizon, eta0_k0 = 0.1, 20.0, 50.0
etas = [0.04, 0.02, 0.01, 0.005] if args.small else [0.08, 0.04, 0.02, 0.01, 0.005, 0.0025]
trials = 8 if args.small else 30
horizon = 10.0 if args.small else horizon

# The ODE on a fine grid, interpolated at each run's record times (its own error is far below
# the tracking errors: rho_err is printed).
ode = rhoflow.ode(model, rho0, horizon, points=20001)
rows = []
for eta0 in etas:
    k0 = eta0_k0 / eta0
    steps = math.ceil(k0 * math.expm1(horizon / eta0_k0))       # t_K = eta0 k0 log(1 + K/k0) >= T
    s = rhoflow.sga(model, steps=steps, trials=trials, eta0=eta0, k0=k0, rho0=rho0, seed=7, records_per_decade=100)
    inside = s.t <= horizon
    sup = np.max(np.abs(s.rho[:, inside] - np.interp(s.t[inside], ode.t, ode.rho)), axis=1)
    mean, se = sup.mean(), sup.std(ddof=1) / math.sqrt(trials)
    half = 1.96 * se  # normal approximation to the 95% CI of the mean
    rows.append((eta0, steps, mean, half))
    print(f"eta0 = {eta0:<7g} k0 = {k0:<8g} steps = {steps:<7d} sup error = {mean:.5f} +- {half:.5f} (95% CI)")

eta = np.array([r[0] for r in rows])
err = np.array([r[2] for r in rows])
half = np.array([r[3] for r in rows])
(slope, intercept), cov = np.polyfit(np.log(eta), np.log(err), 1, cov=True)  # unweighted least squares
fit = f"slope {slope:.3f} +- {math.sqrt(cov[0, 0]):.3f}"
# Linear interpolation of the ODE: its error on this grid is below a quarter of that on a grid
# twice as coarse, measured here.
coarse = np.max(np.abs(np.interp(ode.t[1::2], ode.t[::2], ode.rho[::2]) - ode.rho[1::2]))
print(f"log-log fit of the mean sup error against eta0: {fit} (theory: 1/2 for small eta0); the ODE's own "
      f"error is below {ode.rho_err.max():.1e}, its interpolation's below {coarse / 4:.1e}")

fig, ax = plt.subplots(figsize=(6, 4.2))
ax.errorbar(eta, err, yerr=half, fmt="o", color="tab:blue", label="mean over trials, 95% CI")
ax.plot(eta, np.exp(intercept) * eta**slope, color="tab:blue", ls="--", label=f"fit: {fit}")
ax.plot(eta, err[-1] * np.sqrt(eta / eta[-1]), color="gray", ls=":", label="eta0^(1/2)")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("eta0 (eta0 k0 = %g)" % eta0_k0)
ax.set_ylabel("sup_k |rho_k - rho_ODE(t_k)| up to t = %g" % horizon)
ax.set_title(f"{model}: {trials} trials per eta0", fontsize=8)
ax.legend(fontsize=8)
fig.tight_layout()
os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
fig.savefig(args.out, dpi=120)
print(f"figure {args.out}")
