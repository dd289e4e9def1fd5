#!/usr/bin/env bash
# `make demo`: a column of 400 spheres collapses into a heap held by friction
# (scenes/demo.yaml); says what the run produced. Usage: scripts/demo.sh [OUTPUT_DIR] (default out/demo).
set -euo pipefail
cd "$(dirname "$0")/.."

cli=build/release/fricdem
scene=scenes/demo.yaml
out=${1:-out/demo}

if [ ! -x "$cli" ]; then
  echo "demo: $cli is missing; build it first (make build)" >&2
  exit 1
fi

echo "demo: running $scene into $out"
# --overwrite: a rerun replaces the last demo's outputs (and stops, removing
# nothing, if $out holds files fricdem did not write).
"$cli" run "$scene" --out "$out" --overwrite

echo
echo "demo: produced"
for f in bodies.pvd contacts.pvd walls.pvd bodies.csv contacts.csv energy.csv; do
  if [ -e "$out/$f" ]; then
    printf '  %-28s %s\n' "$out/$f" "$(du -h "$out/$f" | cut -f1)"
  fi
done
snapshots=$(ls "$out"/vtu/bodies_*.vtu 2>/dev/null | wc -l)
echo "  $out/vtu/                  $snapshots snapshots of bodies and of contacts"

# What the run shows, from the CSV files (plain Python, no numpy needed).
/usr/bin/python3 - "$out" <<'PY'
import csv, sys
out = sys.argv[1]

def rows(name):
    with open(f"{out}/{name}", newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))

energy = rows("energy.csv")
kinetic = [float(r["kinetic_translational"]) + float(r["kinetic_rotational"]) for r in energy]
peak = max(range(len(kinetic)), key=kinetic.__getitem__)
final_time = float(energy[-1]["time"])
total0, total1 = float(energy[0]["total"]), float(energy[-1]["total"])

bodies = rows("bodies.csv")
last = [r for r in bodies if r["time"] == bodies[-1]["time"]]
first = [r for r in bodies if r["time"] == bodies[0]["time"]]
mean = lambda values: sum(values) / len(values)
z0 = mean([float(r["z"]) for r in first])
z1 = mean([float(r["z"]) for r in last])
top = max(float(r["z"]) for r in last)

contacts = rows("contacts.csv")
final_contacts = sum(1 for r in contacts if r["time"] == contacts[-1]["time"]) if contacts else 0
with_floor = sum(1 for r in contacts if r["time"] == contacts[-1]["time"] and r["name_i"] == "floor") if contacts else 0

import math
radial = sorted(math.hypot(float(r["x"]), float(r["y"])) for r in last)
foot = radial[int(0.95 * (len(radial) - 1))]  # radius holding 95% of the spheres
angle = math.degrees(math.atan2(top, foot))
print()
print(f"demo: {len(last)} spheres fell from a mean height of {z0 * 100:.1f} cm and settled at "
      f"{z1 * 100:.1f} cm after {final_time:g} s, in a heap {top * 100:.1f} cm high (highest centre) over a "
      f"foot of radius {foot * 100:.1f} cm (95% of the spheres): a mean slope of about {angle:.0f} degrees, "
      f"held by slide and roll friction.")
print(f"demo: kinetic energy peaked at {kinetic[peak]:.3g} J (t = {float(energy[peak]['time']):.2f} s) and decayed to "
      f"{kinetic[-1]:.3g} J ({100 * kinetic[-1] / kinetic[peak]:.2g}% of its peak); the contacts dissipated "
      f"{total0 - total1:.3g} J.")
print(f"demo: at the end there are {final_contacts} contacts, {with_floor} of them with the floor.")
print()
print(f"demo: to watch the collapse, open {out}/bodies.pvd in ParaView, apply Filters > Glyph (Sphere, Scale Array "
      f"'radius', Scale Factor 2, Glyph Mode 'All Points'), press play; add {out}/walls.pvd and "
      f"{out}/contacts.pvd (colour by normal_force). See docs/output-format.md.")
PY
