#!/usr/bin/python3
"""The communication model of `mpirun -np P fricdem run` (docs/mpi.md),
checked against runs of 1..P ranks.

Model. The bodies fill a box at density n (bodies per m^3). Recursive
coordinate bisection cuts it across its widest axis into halves holding as
many bodies as ranks, down to one box a rank. A rank holds as ghosts the
bodies of the other boxes within its halo h (2 r_max + margin + 2 skin,
printed by the run's header): n times the volume of those boxes inside its
box widened by h. Each step every owner sends each ghost's record (state
and loads, RECORD_BYTES) to the rank holding it; a migration, every few
list builds, sends each body that changes hands and the contacts of those
bodies. The script predicts the ghosts of every rank from the settled
pile's extent and count alone, runs the pile on 1..P ranks (oversubscribed
beyond the cores: their times are then not speed, their ghosts and
messages are), prints predicted against measured ghosts and bytes a step,
and extrapolates the per-rank traffic to larger runs.

Usage: bench/mpi_model.py [PILE.yaml] [MAX_RANKS] [STEPS]
(default: bench/out/lammps/pile_100000_settled.yaml, 4 ranks, 100 steps;
`make bench-ranks` settles that pile when it is missing). Writes
bench/out/mpi_model.csv.
"""
import csv
import os
import re
import shutil
import subprocess
import sys

import numpy as np

RECORD_BYTES = 160  # fd_body_record: index, role, position, orientation, velocity, spin, force, torque
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(REPO, "build", "release", "fricdem")
DSDS = "contacts.0.slide={model: dsds, k_t: 1.0e4, gamma_t: 1.0, mu: 0.5}"


def rcb_boxes(low, high, ranks):
    """The boxes of recursive bisection of a uniform box (the engine cuts at
    the median of the bodies; for uniform density that is this fraction)."""
    if ranks == 1:
        return [(np.array(low), np.array(high))]
    axis = int(np.argmax(np.array(high) - np.array(low)))
    left = ranks // 2
    cut = low[axis] + (high[axis] - low[axis]) * left / ranks
    left_high, right_low = list(high), list(low)
    left_high[axis] = cut
    right_low[axis] = cut
    return rcb_boxes(low, left_high, left) + rcb_boxes(right_low, high, ranks - left)


def overlap_volume(a_low, a_high, b_low, b_high):
    extent = np.minimum(a_high, b_high) - np.maximum(a_low, b_low)
    return float(np.prod(np.clip(extent, 0.0, None)))


def predicted_ghosts(low, high, count, ranks, halo):
    density = count / float(np.prod(np.array(high) - np.array(low)))
    boxes = rcb_boxes(low, high, ranks)
    ghosts = []
    for r, (own_low, own_high) in enumerate(boxes):
        reach_low, reach_high = own_low - halo, own_high + halo
        volume = sum(overlap_volume(reach_low, reach_high, other_low, other_high)
                     for s, (other_low, other_high) in enumerate(boxes) if s != r)
        ghosts.append(density * volume)
    return ghosts


def pile_extent(scene):
    """Extent and count of the scene's bodies_file (centres widened by their radii)."""
    text = open(scene).read()
    match = re.search(r"bodies_file:\s*\{path:\s*([^,}]+)", text)
    if match is None:
        sys.exit(f"mpi_model: {scene} has no bodies_file")
    path = os.path.join(os.path.dirname(scene), match.group(1).strip())
    data = np.loadtxt(path, delimiter=",", comments="#", skiprows=2, usecols=(0, 1, 2, 3))
    radius, centres = data[:, 0], data[:, 1:4]
    low = (centres - radius[:, None]).min(axis=0)
    high = (centres + radius[:, None]).max(axis=0)
    return low, high, len(data), 2.0 * float(radius.mean())


def run(scene, ranks, steps):
    duration = steps * 5.0e-5
    command = [CLI, "run", scene, "--out", os.path.join(REPO, "bench", "out", "mpi_model", f"r{ranks}"),
               "--overwrite", "--set", DSDS, "--set", f"time.duration={duration}"]
    for key in ("bodies_csv", "contacts_csv", "energy_csv", "walls_csv"):
        command += ["--set", f"output.{key}=false"]
    env = dict(os.environ, OMP_WAIT_POLICY="passive")
    if ranks > 1:
        launcher = ["mpirun", "-np", str(ranks)]
        if ranks > (os.cpu_count() or 1):
            launcher.append("--oversubscribe")
        if os.geteuid() == 0:
            launcher.append("--allow-run-as-root")
        command = launcher + command
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"mpi_model: {' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return done.stdout


def main():
    scene = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "bench/out/lammps/pile_100000_settled.yaml")
    max_ranks = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    if shutil.which("mpirun") is None:
        print("mpi_model: mpirun is missing (scripts/install-deps.sh installs openmpi-bin): skipped", file=sys.stderr)
        return
    if not os.path.exists(CLI):
        sys.exit(f"mpi_model: {CLI} is missing; build it first (make build)")
    if not os.path.exists(scene):
        sys.exit(f"mpi_model: {scene} is missing (make bench-ranks settles it)")
    low, high, count, diameter = pile_extent(scene)
    halo = None
    rows = []
    print(f"{count} bodies in [{low.round(4)}, {high.round(4)}] m; {steps} steps")
    print(" P  rank  ghosts predicted  measured  pred/meas   bytes a step (measured ghosts)  "
          "ms a step: own step, waiting, ghosts, migrations")
    for ranks in range(1, max_ranks + 1):
        summary = run(scene, ranks, steps)
        if ranks == 1:
            per_step = re.search(r"per step\s+([0-9.eE+-]+) ms", summary)
            print(f" 1     -  (no ghosts)                                                 "
                  f"one process {per_step.group(1)} ms a step")
            rows.append({"ranks": 1, "rank": 0, "predicted_ghosts": 0, "measured_ghosts": 0,
                         "ms_per_step": per_step.group(1)})
            continue
        halo = float(re.search(r"halo ([0-9.eE+-]+) m", summary).group(1))
        measured = [int(g) for g in re.findall(r"bodies owned, (\d+) ghosts", summary)]
        phases = re.findall(r"own step ([0-9.eE+-]+), waiting for the others ([0-9.eE+-]+), ghosts ([0-9.eE+-]+), "
                            r"migrations ([0-9.eE+-]+)", summary)
        migrations = re.search(r"(\d+) migrations", summary).group(1)
        predicted = predicted_ghosts(low, high, count, ranks, halo)
        for r in range(ranks):
            ratio = predicted[r] / measured[r] if measured[r] else float("nan")
            print(f"{ranks:2d}  {r:4d}  {predicted[r]:16.0f}  {measured[r]:8d}  {ratio:9.2f}   "
                  f"{measured[r] * RECORD_BYTES:12d}                    {', '.join(phases[r])}")
            rows.append({"ranks": ranks, "rank": r, "halo_m": halo, "predicted_ghosts": round(predicted[r]),
                         "measured_ghosts": measured[r], "bytes_per_step": measured[r] * RECORD_BYTES,
                         "migrations": migrations, "own_step_ms": phases[r][0], "waiting_ms": phases[r][1],
                         "ghosts_ms": phases[r][2], "migrations_ms": phases[r][3]})
        total_predicted, total_measured = sum(predicted), sum(measured)
        print(f"    all  {total_predicted:16.0f}  {total_measured:8d}  {total_predicted / total_measured:9.2f}   "
              f"{migrations} migrations in {steps} steps")
    os.makedirs(os.path.join(REPO, "bench", "out"), exist_ok=True)
    with open(os.path.join(REPO, "bench", "out", "mpi_model.csv"), "w", newline="") as out:
        fields = ["ranks", "rank", "halo_m", "predicted_ghosts", "measured_ghosts", "bytes_per_step", "migrations",
                  "own_step_ms", "waiting_ms", "ghosts_ms", "migrations_ms", "ms_per_step"]
        writer = csv.DictWriter(out, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    # The same model at scale: cubic boxes of N/P bodies of diameter d hold
    # 6 faces x (N/P)^(2/3) x (h/d) ghosts (plus edges, small for h << box).
    if halo is None:
        return
    print(f"\nextrapolated (cubic boxes, the pile's mean diameter {diameter:.4g} m and halo {halo:.4g} m): bodies a "
          "rank, ghosts a rank, ghost bytes a rank a step")
    for bodies, ranks in ((1e6, 8), (1e7, 100), (1e8, 1000), (1e9, 10000)):
        per_rank = bodies / ranks
        ghosts = 6.0 * per_rank ** (2.0 / 3.0) * halo / diameter
        print(f"  {bodies:.0e} bodies on {ranks:5d} ranks: {per_rank:9.0f}  {ghosts:8.0f}  "
              f"{ghosts * RECORD_BYTES / 1e6:6.2f} MB")


if __name__ == "__main__":
    main()
