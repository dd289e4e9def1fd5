#!/usr/bin/env bash
# `make bench` (after bench/lammps_compare.sh) and `make bench-chute`: the
# chute flow of LAMMPS's bench/in.chute in fricdem and in LAMMPS, one core
# each, from the same state; writes bench/out/chute_compare.csv and prints a
# table (bench/README.md, "Chute flow").
#
# bench/chute/make_chute.py writes the scene (32 000 spheres of diameter 1:
# an 800-sphere frozen base and 31 200 flowing ones, periodic in x and y,
# gravity tilted 26 degrees, LAMMPS's law, step 1e-4, lj units). fricdem
# runs it for SETTLE steps (the column settles into contact and starts to
# flow) and writes the state as a LAMMPS data file (bench/lammps_data.c:
# type 2 = the static base); make_chute.py --from-data lists the same spheres
# as a fricdem scene; then each engine runs STEPS timed steps from that state
# (contact histories start at zero in both): fricdem with
# bench/friction_cost.c (one thread, and THREADS threads), LAMMPS with
# bench/chute/chute.in. CPU time per step as in bench/lammps_compare.sh.
# Both print the kinetic energy (translational + rotational) after the timed
# steps: the same flow gives the same energy to the chaos of round-off
# (a relative difference of order 1e-4 after 1000 steps).
#
# Environment:
#   BENCH_CHUTE_STEPS   timed steps (default 1000)
#   BENCH_CHUTE_SETTLE  fricdem's steps before the export (default 5000)
#   BENCH_CHUTE_THREADS thread counts of fricdem (default "1 2")
#   BENCH_REPEAT        runs of each configuration, the fastest kept (default 3,
#                       ~70 s in all: one run moves by 10 % and more on a shared host)
#   FRICDEM_BUILD       the build folder with the tools (default build/release)
# Without LAMMPS (scripts/install-lammps.sh) the LAMMPS row is left out.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/require_built.sh

steps=${BENCH_CHUTE_STEPS:-1000}
settle=${BENCH_CHUTE_SETTLE:-5000}
thread_counts=${BENCH_CHUTE_THREADS:-"1 2"}
repeat=${BENCH_REPEAT:-3}
build=${FRICDEM_BUILD:-build/release}
python=/usr/bin/python3
bench=$build/fricdem_bench_friction
export_tool=$build/fricdem_lammps_data
out=bench/out/chute
cores=$(nproc)
machine=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)

require_built bench-chute "$bench" "$export_tool"
have_lammps=1
if ! scripts/install-lammps.sh >/dev/null && ! command -v lmp >/dev/null; then
  echo "bench-chute: LAMMPS is not installed and scripts/install-lammps.sh could not install it: fricdem only" >&2
  have_lammps=0
fi
mkdir -p "$out"
generated=$out/chute.yaml
data=$out/chute.data
settled=$out/chute_settled.yaml
results=bench/out/chute_compare.csv
candidates=$out/candidates.csv

$python bench/chute/make_chute.py "$generated"
echo "bench-chute: settling $settle steps (fricdem) and writing $data ..." >&2
"$export_tool" "$generated" "$settle" "$data" >/dev/null
$python bench/chute/make_chute.py "$settled" --from-data "$data"

echo "engine,threads,steps,wall_seconds_per_step,cpu_seconds_per_step,particle_steps_per_cpu_s,contacts,kinetic_energy,machine,cores" \
  > "$results"
: > "$candidates"
for r in $(seq "$repeat"); do
  for threads in $thread_counts; do
    echo "bench-chute: fricdem, $threads thread(s), run $r of $repeat ..." >&2
    energy=$(mktemp)
    line=$(OMP_NUM_THREADS=$threads FRICDEM_BENCH_KINETIC=1 "$bench" "$settled" 0 "$steps" "world.threads=$threads" \
           2> "$energy")
    IFS=, read -r contacts seconds _ _ _ cpu <<< "$line"
    kinetic=$(sed -n 's/^kinetic energy \([^ ]*\).*/\1/p' "$energy")
    rm -f "$energy"
    # With threads the CPU time counts every thread: the wall time is the cost the user sees.
    echo "fricdem,$threads,$steps,$seconds,$cpu,$($python -c "print(f'{32000 / $cpu:.6g}')"),$contacts,$kinetic,\"$machine\",$cores" \
      >> "$candidates"
  done
  if [ "$have_lammps" = 1 ]; then
    echo "bench-chute: LAMMPS, run $r of $repeat ..." >&2
    log=$out/lammps_r${r}.log
    OMP_NUM_THREADS=1 lmp -in bench/chute/chute.in -var data "$data" -var steps "$steps" -log "$log" -screen none
    $python - "$log" "$steps" "$machine" "$cores" >> "$candidates" <<'PY'
import re, sys
log, steps, machine, cores = sys.argv[1:5]
text = open(log).read()
loop = re.search(r"Loop time of ([0-9.eE+-]+) on 1 procs for ([0-9]+) steps", text)
if not loop:
    sys.exit(f"bench-chute: no 'Loop time' in {log}")
wall = float(loop.group(1)) / int(loop.group(2))
cpu = wall * float(re.search(r"([0-9.]+)% CPU use", text[loop.end():]).group(1)) / 100.0
end = re.findall(r"^fricdem-bench: contacts ([0-9.]+) kinetic energy ([0-9.eE+-]+)", text, re.M)[-1]
print(f"lammps,1,{steps},{wall:.6g},{cpu:.6g},{32000 / cpu:.6g},{end[0]},{end[1]},\"{machine}\",{cores}")
PY
  fi
done
# The fastest run of each (engine, threads).
$python - "$candidates" >> "$results" <<'PY'
import csv, sys
best = {}
for row in csv.reader(open(sys.argv[1])):
    key = (row[0], row[1])
    if key not in best or float(row[3]) < float(best[key][3]):
        best[key] = row
for row in best.values():
    print(",".join(f'"{v}"' if "," in v or " " in v else v for v in row))
PY
rm -f "$candidates"

$python - "$results" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
lammps = [r for r in rows if r["engine"] == "lammps"]
print()
print(f"Chute flow (LAMMPS bench/in.chute), 32 000 spheres ({rows[0]['machine']}, {rows[0]['cores']} cores)")
print(f"{'engine':>8} {'threads':>7} {'CPU s/step':>10} {'wall s/step':>11} {'x LAMMPS':>9} {'contacts':>9} "
      f"{'kinetic energy':>15} {'vs LAMMPS':>10}")
for r in rows:
    ratio = energy = float("nan")
    if lammps:
        # one thread: by CPU time; more threads: the wall time against LAMMPS's one core
        measure = "cpu_seconds_per_step" if r["threads"] == "1" else "wall_seconds_per_step"
        ratio = float(lammps[0]["cpu_seconds_per_step"]) / float(r[measure])
        energy = float(r["kinetic_energy"]) / float(lammps[0]["kinetic_energy"]) - 1.0
    print(f"{r['engine']:>8} {r['threads']:>7} {float(r['cpu_seconds_per_step']):>10.4g} "
          f"{float(r['wall_seconds_per_step']):>11.4g} {ratio:>9.2f} {float(r['contacts']):>9.0f} "
          f"{float(r['kinetic_energy']):>15.8g} {energy:>+10.1e}")
print(f"\nresults: {sys.argv[1]}  (x LAMMPS: LAMMPS's CPU time per step over fricdem's, the wall time with threads)")
PY
