"""Shared helpers of the validation cases (scripts/validation/*.py).

A case is a module of this package that defines

    TITLE = "Free flight and ballistic motion"   # heading in the report
    ORDER = 10                                   # optional; cases run by ascending ORDER, then name
    def run(ctx: Context) -> CaseResult

`run` runs its scene(s) with the CLI (ctx.run_scene), reads the CSV outputs
(read_csv), compares measured values with expected ones (CaseResult.check),
draws figures (save_figure) and returns the result. scripts/validate.py
finds every case, runs them and writes validation/report.md.
"""
from __future__ import annotations

import csv
import math
import os
import shlex
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "build" / "release" / "fricdem"
SCENES = ROOT / "scenes" / "validation"
OUT = ROOT / "validation" / "out"
FIGURES = ROOT / "validation" / "figures"

EPS = np.finfo(float).eps  # 2.2e-16, unit round-off of a double


@dataclass
class Row:
    """One compared quantity. `error` is |measured - expected|, divided by
    |expected| when `relative`; the row passes when error <= tolerance."""

    quantity: str
    expected: float
    measured: float
    tolerance: float
    unit: str = ""
    relative: bool = False
    derivation: str = ""  # how the expected value and the tolerance are derived
    basis: str = ""       # short name of what the derivation covers (default: the quantity)

    @property
    def error(self) -> float:
        difference = abs(self.measured - self.expected)
        if self.relative:
            return difference / abs(self.expected) if self.expected != 0 else math.inf
        return difference

    @property
    def passed(self) -> bool:
        return bool(np.isfinite(self.measured)) and self.error <= self.tolerance


@dataclass
class CaseResult:
    name: str
    title: str
    description: str = ""
    rows: list[Row] = field(default_factory=list)
    figures: list[tuple[Path, str]] = field(default_factory=list)  # (png, caption)
    notes: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)   # CLI commands run, filled by validate.py
    error: str = ""       # set when the case itself failed (exception, CLI error)
    seconds: float = 0.0

    def check(self, quantity, expected, measured, tolerance, unit="", relative=False, derivation="", basis=""):
        row = Row(quantity, float(expected), float(measured), float(tolerance), unit, relative, derivation, basis)
        self.rows.append(row)
        return row

    @property
    def passed(self) -> bool:
        return not self.error and all(row.passed for row in self.rows) and bool(self.rows)


class CliError(RuntimeError):
    pass


class Context:
    """What a case needs: running scenes and placing figures."""

    def __init__(self, case: str, cli: Path = CLI):
        self.case = case
        self.cli = cli
        self.out = OUT / case
        self.runs: list[str] = []
        # --set overrides every run of this case starts from (a case sets it,
        # e.g. FN_PAPER_FORM); a run's own sets come after and win.
        self.base_sets: dict = {}

    def run_scene(self, scene: str | Path, label: str | None = None, sets: dict | None = None,
                  base: bool = True) -> Path:
        """Runs `fricdem run SCENE --out validation/out/<case>/<label> --quiet
        --overwrite --set k=v ...` (a rerun of `make validate` replaces the
        last run's outputs) and returns the output directory. `scene` is a path or
        a file name under scenes/validation/. `base=False` leaves out the
        case's base_sets."""
        scene = Path(scene)
        if not scene.is_absolute() and not scene.exists():
            scene = SCENES / scene
        label = label or scene.stem
        out = self.out / label
        command = [str(self.cli), "run", str(scene), "--out", str(out), "--quiet", "--overwrite"]
        for key, value in {**(self.base_sets if base else {}), **(sets or {})}.items():
            command += ["--set", f"{key}={value}"]
        started = time.time()
        completed = subprocess.run(command, capture_output=True, text=True)
        if completed.returncode != 0:
            raise CliError(f"`{' '.join(command)}` exited with {completed.returncode}:\n"
                           f"{completed.stderr.strip() or completed.stdout.strip()}")
        shown = " ".join(shlex.quote(os.path.relpath(c, ROOT) if c.startswith(str(ROOT)) else c) for c in command)
        self.runs.append(f"`{shown}` ({time.time() - started:.1f} s)")
        return out

    def figure_path(self, name: str) -> Path:
        FIGURES.mkdir(parents=True, exist_ok=True)
        return FIGURES / f"{self.case}_{name}.png"


def registered_models() -> set[tuple[str, str]]:
    """(mechanism, model) pairs that `fricdem models` lists, so that a case
    can skip (with a note) the contact laws this build does not have rather
    than fail on them."""
    text = subprocess.run([str(CLI), "models"], capture_output=True, text=True, check=True).stdout
    models, mechanism = set(), None
    for line in text.splitlines():
        if line.endswith(" models") and not line.startswith(" "):
            mechanism = line.split()[0]
        elif line.startswith("  ") and not line.startswith("   ") and mechanism:
            models.add((mechanism, line.strip()))
    return models


def save_figure(ctx: Context, result: CaseResult, figure, name: str, caption: str, dpi: int = 110,
                layout: bool = True, **savefig) -> Path:
    """Finishes a case's figure the way every case does: lays it out
    (`figure.tight_layout()`, unless `layout` is False because the case laid it
    out itself), saves it as validation/figures/<case>_<name>.png at `dpi`
    (`savefig`: further keywords of Figure.savefig), closes it so a long run
    does not pile up open figures, and lists it with its caption in the
    report. Returns the PNG's path."""
    import matplotlib.pyplot as plt  # here, so that validate.py has chosen the Agg backend first

    if layout:
        figure.tight_layout()
    path = ctx.figure_path(name)
    figure.savefig(path, dpi=dpi, **savefig)
    plt.close(figure)
    result.figures.append((path, caption))
    return path


def finish_axes(ax, xlabel: str | None = None, ylabel: str | None = None, title: str | None = None, *,
                title_size: float | None = None, grid: bool | str = False, legend: dict | None = None) -> None:
    """Labels one panel the way the cases do: its x and y labels and its title
    (at `title_size` points if given, else matplotlib's title size; None
    leaves that text out), a faint grid (alpha 0.3) at the major ticks when
    `grid` is True, at the ticks `grid` names ("major", "minor", "both") when
    it is a string, and a legend of what the panel holds so far when `legend`
    is given (its keywords for Axes.legend, {} for none). Call it after the
    panel's last labelled plot, since the legend lists only what is already
    drawn."""
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    if title is not None:
        # fontsize=None would give the text font's size, not the title's: pass it only when set
        ax.set_title(title, **({} if title_size is None else {"fontsize": title_size}))
    if grid:
        ax.grid(alpha=0.3, which="major" if grid is True else grid)
    if legend is not None:
        ax.legend(**legend)


def _comment_lines(path: str | Path) -> int:
    """How many '#' lines open a fricdem CSV (its units line)."""
    count = 0
    with open(path, newline="") as file:
        for line in file:
            if not line.startswith("#"):
                break
            count += 1
    return count


def read_csv(path: str | Path) -> dict[str, np.ndarray]:
    """Reads a fricdem CSV (a '# units: ...' line, a header, rows) with pandas
    into {column: array}. Numeric columns become float arrays (step, body and
    id columns too: they are exact below 2^53); text columns stay str arrays."""
    frame = pd.read_csv(path, skiprows=_comment_lines(path), keep_default_na=False, na_values=["nan", "NaN"],
                        float_precision="round_trip")
    table = {}
    for name in frame.columns:
        values = frame[name].to_numpy()
        try:
            table[name] = values.astype(float)
        except (TypeError, ValueError):
            table[name] = values.astype(str)
    return table


def read_units(path: str | Path) -> dict[str, str]:
    """{column: unit} from the '# units:' line of a fricdem CSV. The line and
    the header are parsed by the csv module, so a quoted name stays whole; a
    count mismatch is an error, never a silent shift of every later unit."""
    with open(path, newline="") as file:
        units = next(csv.reader([file.readline()[len("# units: "):]]))
        header = next(csv.reader([file.readline()]))
    if len(units) != len(header):
        raise ValueError(f"{path}: {len(units)} units for {len(header)} columns")
    return dict(zip(header, units))


def body_rows(table: dict[str, np.ndarray], name: str) -> dict[str, np.ndarray]:
    """The rows of bodies.csv for the body called `name`, in time order."""
    mask = table["name"] == name
    if not mask.any():
        raise KeyError(f"no body named {name!r} in bodies.csv")
    return {key: values[mask] for key, values in table.items()}


def roundoff_tolerance(steps: int, scale: float, factor: float = 10.0) -> float:
    """Bound on accumulated rounding error: `steps` operations each off by at
    most one unit round-off of a value of size `scale`, with a safety factor."""
    return factor * max(steps, 1) * EPS * max(scale, 1e-300)


# The paper's form of the Fang & Negrut models (paper 003): stick dampers
# uncapped on top of the capped springs, and the roll damping from the inertia
# about the centre (Sec. 3.2). The cases of Sec. 4 reproduce the paper's
# numbers with it; fricdem's defaults cap spring plus damper at each
# mechanism's static limit and take D_R from the rocking inertia (issue 10,
# docs/models/fang-negrut.md). FN_PAPER_FORM_ROLL is for scenes whose roll
# model is fang_negrut.
FN_PAPER_FORM = {"contacts.0.slide.cap_total": 0}
FN_PAPER_FORM_ROLL = {**FN_PAPER_FORM, "contacts.0.roll.rocking": 0}


def fn_paper_form_case(ctx: Context, name: str, title: str, doc: str, paper_form: dict) -> CaseResult:
    """The result of a Fang & Negrut case (`doc`: its module's docstring, the
    title paragraph first), with the case's runs from now on set to the
    paper's form of the laws (`paper_form`), so that they reproduce the
    paper's numbers; the case ends with compare_fn_default_form, which runs
    fricdem's default form beside it."""
    ctx.base_sets = paper_form
    return CaseResult(name, title, doc.split("\n\n", 1)[1])


def _fn_summary(out: Path, body: str, mu_s: float) -> dict[str, float]:
    """What the default-form comparison reports of one run: the body's final
    state, and the largest slide force (spring plus damper) over mu_s N."""
    bodies = body_rows(read_csv(out / "bodies.csv"), body)
    final = {key: float(bodies[key][-1]) for key in ("x", "y", "z") if key in bodies}
    speed = np.sqrt(sum(bodies[k] ** 2 for k in ("vx", "vy", "vz") if k in bodies))
    spin = np.sqrt(sum(bodies[k] ** 2 for k in ("wx", "wy", "wz") if k in bodies))
    summary = {f"final {k} [m]": v for k, v in final.items()}
    summary["final speed [m/s]"] = float(speed[-1])
    summary["final |omega| [rad/s]"] = float(spin[-1])
    contacts_path = out / "contacts.csv"
    if contacts_path.exists():
        contacts = read_csv(contacts_path)
        if "slide_elastic_x" in contacts and len(contacts["slide_elastic_x"]):
            total = np.sqrt(sum((contacts[f"slide_elastic_{a}"] + contacts[f"slide_damping_{a}"]) ** 2
                                for a in "xyz"))
            normal = contacts["normal_force"]
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(normal > 0, total / (mu_s * normal), np.where(total > 0, np.inf, 0.0))
            ratio = ratio[np.isfinite(total)]
            summary["peak slide force / (mu_s N)"] = float(np.max(ratio)) if len(ratio) else 0.0
    return summary


# What the runs of compare_fn_default_form write on top of the scene's own
# outputs: the CSVs that _fn_summary reads.
FN_COMPARISON_OUTPUTS = {"output.bodies_csv": "true", "output.contacts_csv": "true"}


def compare_fn_default_form(ctx: Context, result: CaseResult, scene: str | Path, label: str, body: str,
                            mu_s: float, paper_form: dict = FN_PAPER_FORM_ROLL, sets: dict | None = None) -> None:
    """Issue 10: re-runs a Fang & Negrut case with fricdem's defaults (capped
    totals, rocking roll damping) beside the paper's form (`paper_form`:
    FN_PAPER_FORM for a scene without a fang_negrut roll model), notes what
    changes and checks the default's promise: the slide force never above
    mu_s N. `sets`: the case's own overrides of both runs (e.g. a longer
    duration); the runs write bodies.csv and contacts.csv in any case."""
    sets = {**(sets or {}), **FN_COMPARISON_OUTPUTS}
    paper = _fn_summary(ctx.run_scene(scene, f"{label}_paper_form", {**paper_form, **sets}, base=False), body,
                        mu_s)
    default = _fn_summary(ctx.run_scene(scene, f"{label}_default_form", sets, base=False), body, mu_s)
    changes = []
    for key, value in paper.items():
        other = default.get(key, float("nan"))
        changes.append(f"{key} {value:.6g} -> {other:.6g}")
    result.notes.append(f"Default form (spring plus damper capped at the static limit, rocking D_R) against the "
                        f"paper's form, run `{label}`: " + "; ".join(changes) + ".")
    if "peak slide force / (mu_s N)" in default:
        result.check(f"default form, {label}: excess of the largest slide force (spring + damper) over mu_s N",
                     0.0, max(default["peak slide force / (mu_s N)"] - 1.0, 0.0), 1e-9, unit="mu_s N",
                     derivation="issue 10: the default caps the total at mu_s N, so the excess max(peak/(mu_s N) "
                                "- 1, 0) is zero; 1e-9 for the round-off of the cap's quadratic")
