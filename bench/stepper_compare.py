#!/usr/bin/python3
"""The complementarity stepper against the penalty stepper on the same pile
(bench/README.md, "Steppers"): 1000 gravel spheres dropped into a 0.5 m box
(scenes/complementarity/pile_box.yaml at h = 5 ms, APGD to 1e-4 m/s;
scenes/complementarity/pile_box_penalty.yaml at its stable step 0.1 ms with
the LAMMPS-style laws of the same friction), 1 s of simulated time each,
single thread. Prints wall time per simulated second, the solver's
iterations per step and its cost per contact-iteration.

    /usr/bin/python3 bench/stepper_compare.py [SIMULATED_SECONDS]
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = ROOT / "build" / "release" / "fricdem"
OUT = ROOT / "bench" / "out" / "steppers"


def run(scene, label, seconds):
    text = subprocess.run([str(CLI), "run", str(ROOT / "scenes" / "complementarity" / scene), "--out",
                           str(OUT / label), "--overwrite", "--set", f"time.duration={seconds}", "--set", "output.energy_csv=false"],
                          check=True, capture_output=True, text=True).stdout
    done = re.search(r"done: (\d+) steps, ([0-9.e+-]+) s simulated in (.+) wall", text)
    wall_text = done.group(3)
    wall = sum(float(v) * {"h": 3600, "min": 60, "s": 1, "ms": 1e-3}[u]
               for v, u in re.findall(r"([0-9.]+)\s*(h|min|ms|s)\b", wall_text))
    contacts = re.search(r"contacts\s+([0-9.e+-]+) contact-steps, ([0-9.e+-]+) ns per contact", text)
    solver = re.search(r"solver\s+([0-9.]+) iterations per step, ([0-9.e+-]+) ns per contact-iteration", text)
    steps = int(done.group(1))
    return {
        "steps": steps,
        "simulated": float(done.group(2)),
        "wall": wall,
        "contacts_per_step": float(contacts.group(1)) / steps,
        "ns_per_contact": float(contacts.group(2)),
        "iterations": float(solver.group(1)) if solver else None,
        "ns_per_contact_iteration": float(solver.group(2)) if solver else None,
    }


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    complementarity = run("pile_box.yaml", "complementarity", seconds)
    penalty = run("pile_box_penalty.yaml", "penalty", seconds)
    print(f"steppers on the 1000-sphere pile, {seconds:g} s simulated, 1 thread")
    print(f"  complementarity h = 5 ms : {complementarity['wall'] / seconds:8.2f} s wall per simulated s, "
          f"{complementarity['steps']} steps, {complementarity['contacts_per_step']:.0f} contacts per step, "
          f"{complementarity['iterations']:.1f} APGD iterations per step, "
          f"{complementarity['ns_per_contact_iteration']:.0f} ns per contact-iteration")
    print(f"  penalty h = 0.1 ms       : {penalty['wall'] / seconds:8.2f} s wall per simulated s, "
          f"{penalty['steps']} steps, {penalty['contacts_per_step']:.0f} contacts per step, "
          f"{penalty['ns_per_contact']:.0f} ns per contact-step in the models")
    ratio = complementarity["wall"] / penalty["wall"]
    print(f"  wall-time ratio complementarity / penalty: {ratio:.2f}")


if __name__ == "__main__":
    main()
