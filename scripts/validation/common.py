"""Shared helpers of the validation cases (scripts/validation/*.py).

A case is a module of this package that defines

    TITLE = "Free flight and ballistic motion"   # heading in the report
    ORDER = 10                                   # optional; cases run by ascending ORDER, then name
    def run(ctx: Context) -> CaseResult

`run` runs its scene(s) with the CLI (ctx.run_scene), reads the CSV outputs
(read_csv), compares measured values with expected ones (CaseResult.check),
draws figures (ctx.figure_path) and returns the result. scripts/validate.py
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

    def run_scene(self, scene: str | Path, label: str | None = None, sets: dict | None = None) -> Path:
        """Runs `fricdem run SCENE --out validation/out/<case>/<label> --quiet
        --set k=v ...` and returns the output directory. `scene` is a path or
        a file name under scenes/validation/."""
        scene = Path(scene)
        if not scene.is_absolute() and not scene.exists():
            scene = SCENES / scene
        label = label or scene.stem
        out = self.out / label
        command = [str(self.cli), "run", str(scene), "--out", str(out), "--quiet"]
        for key, value in (sets or {}).items():
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
