#!/usr/bin/env python3
"""The ODE against SGA as a figure: rhoflow's comparison of an SGA ensemble with the mean-field
ODE and the effective (finite-step) dynamics, drawn with matplotlib.

    PYTHONPATH=build/python /usr/bin/python3 examples/ode_vs_sga.py            # the default run, ~30 s
    PYTHONPATH=build/python /usr/bin/python3 examples/ode_vs_sga.py --small    # a few seconds

Writes ode_vs_sga.png (--out FILE): the ODE, the effective ODE, the SGA mean with its 95% CI at
the table's rows, the 10-90% band of the trials and its prediction, and the verdict."""
import argparse
import os

import matplotlib

matplotlib.use("Agg")  # no display needed; remove this line in a notebook
import matplotlib.pyplot as plt

import rhoflow

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--small", action="store_true", help="a small ensemble (for the test suite)")
parser.add_argument("--out", default="ode_vs_sga.png", help="the figure's file")
args = parser.parse_args()

model = rhoflow.Model(d=50, L=1000, R=100, theta=1.0, sigma=1.0, beta=1.0)
settings = {}
if args.small:
    settings = dict(steps=3000, trials=6, eta0=0.02, k0=1000, no_study=True, effective_samples=200,
                    effective_paths=200)
c = rhoflow.compare(model, **settings)

traj, table = c.data.trajectory, c.table   # every record step; the table's rows with CIs
fig, ax = plt.subplots(figsize=(7, 4.5))
ax.fill_between(traj.t, traj.sga_q10, traj.sga_q90, color="tab:blue", alpha=0.2, label="SGA 10-90% of trials")
ax.plot(traj.t, traj.rho_ode, color="black", label="mean-field ODE")
if c.verdict is not None:
    ax.plot(traj.t, traj.rho_eff_ode, color="tab:orange", label="effective ODE")
    ax.plot(traj.t, traj.pred_q10, color="tab:orange", ls=":", lw=1, label="predicted 10-90%")
    ax.plot(traj.t, traj.pred_q90, color="tab:orange", ls=":", lw=1)
ax.errorbar(table.t, table.rho_sga_mean,
            yerr=[table.rho_sga_mean - table.rho_sga_ci95_lo, table.rho_sga_ci95_hi - table.rho_sga_mean],
            fmt="o", ms=3, color="tab:blue", label="SGA mean, 95% CI")
ax.set_xscale("symlog", linthresh=0.1)
ax.set_xlabel("ODE time t = sum of step sizes")
ax.set_ylabel("rho = <q, xi>")
verdict = "no verdict" if c.verdict is None else (
    f"{'consistent' if c.consistent else 'inconsistent'} (max |z| = {c.verdict.max_abs_z:.2f}, "
    f"threshold {c.verdict.threshold_z:.2f})")
ax.set_title(f"{model}\n{c.params.sga.trials} trials of {c.params.sga.steps} steps: {verdict}", fontsize=9)
ax.legend(fontsize=8, loc="lower right")
fig.tight_layout()
os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
fig.savefig(args.out, dpi=120)
s = c.summary.abs_rho_final
print(f"mean |rho_final| = {s.mean:.5f} (95% CI [{s.lo:.5f}, {s.hi:.5f}]), ODE {abs(c.rho_ode_final):.5f}; "
      f"{verdict}; figure {args.out}")
