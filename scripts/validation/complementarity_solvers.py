"""Solver comparison on a pile (Tasora & Anitescu Sec. 5; issue: residual
against iterations for Jacobi, Gauss-Seidel and APGD): from the same settled
state of scenes/complementarity/pile_box.yaml (1000 spheres, ~2800 contacts),
one step solved from zero reactions by each solver without early stop.
"""
from __future__ import annotations

import io
import subprocess

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt

from .common import ROOT, CaseResult, Context, save_figure

TITLE = "Complementarity solvers: residual against iterations on a pile (APGD, Jacobi, Gauss-Seidel)"
ORDER = 82
SCENE = ROOT / "scenes" / "complementarity" / "pile_box.yaml"
TOOL = ROOT / "build" / "release" / "fricdem-solver-compare"
STEPS, ITERATIONS = 200, 400


def first_below(values, level):
    below = np.nonzero(values <= level)[0]
    return int(below[0]) + 1 if len(below) else None


def run(ctx: Context) -> CaseResult:
    result = CaseResult("complementarity_solvers", TITLE,
                        f"{STEPS} steps (1 s) of the pile with APGD, then one step from zero reactions with each "
                        f"solver, {ITERATIONS} iterations, no early stop; residual = the largest velocity error of a "
                        "contact's constraints (docs/models/complementarity.md).")
    text = subprocess.run([str(TOOL), str(SCENE), str(STEPS), "--iterations", str(ITERATIONS)], check=True,
                          capture_output=True, text=True).stdout
    data = pd.read_csv(io.StringIO(text), comment="#").to_numpy(dtype=float)
    iterations = data[:, 0]
    curves = {"APGD": data[:, 1], "Jacobi": data[:, 2], "Gauss-Seidel": data[:, 3]}
    level = 1e-3
    reached = {name: first_below(values, level) for name, values in curves.items()}
    apgd = reached["APGD"] or ITERATIONS + 1
    jacobi = reached["Jacobi"] or ITERATIONS + 1
    result.check(f"APGD iterations to {level:g} m/s, fraction of Jacobi's", 0.0, apgd / jacobi, 0.99,
                 derivation="Nesterov's accelerated projected gradient converges as O(1/k^2) against O(1/k) for the "
                            "projected Jacobi iteration (Mazhar et al. 2015): it must need fewer iterations (a "
                            f"fraction below 1; Jacobi counted as {ITERATIONS + 1} if it never gets there)")
    result.check("APGD residual after 400 iterations (m/s)", 0.0, float(curves["APGD"][-1]), 1e-4,
                 derivation="the tolerance the pile scene runs with; APGD must reach it within the iterations")

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, values in curves.items():
        ax.semilogy(iterations, values, label=name)
    ax.axhline(level, color="gray", lw=0.8, ls=":")
    ax.set_xlabel("iteration")
    ax.set_ylabel("residual (m/s)")
    ax.set_title("One step of a 1000-sphere pile from zero reactions")
    ax.legend()
    ax.grid(alpha=0.3, which="both")
    summary = ", ".join(f"{k}: {v if v else '>' + str(ITERATIONS)}" for k, v in reached.items())
    save_figure(ctx, result, fig, "residuals",
                f"Residual against iterations. Iterations to {level:g} m/s: {summary}.", dpi=120)
    return result
