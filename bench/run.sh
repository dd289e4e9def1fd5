#!/usr/bin/env bash
# `make bench`: times piles of spheres settling in a box (bench/make_pile.py)
# with build/release/fricdem, writes bench/out/results.csv and prints a table.
#
# Environment:
#   BENCH_SIZES    "N:STEPS ..." (default "10000:200 100000:200"; the same
#                  number of steps for every N keeps the runs comparable;
#                  1000000:200 is left out by default, see bench/README.md)
#   BENCH_THREADS  thread counts to run each size with (default "1 2")
#   BENCH_REPEAT   runs of each configuration; the fastest is kept (default 1;
#                  more helps on a machine that other work shares)
# No timing is asserted anywhere: this reports, it does not judge.
# The same settled pile in LAMMPS and LIGGGHTS: `make bench-lammps`
# (bench/lammps_compare.sh), apart because it installs them.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh

sizes=${BENCH_SIZES:-"10000:200 100000:200 1000000:100"}
threads_list=${BENCH_THREADS:-"1 2"}
out=bench/out

mkdir -p "$out/scenes" "$out/logs"
results=$out/results.csv
candidates=$out/candidates.csv
cores=$(nproc)
echo "n,steps,threads,wall_s,stepping_s,particle_steps_per_s,ns_per_particle_step,peak_memory_mib,machine,cores" \
  > "$results"

# Reads the CLI's summary (a line with "particle-steps/s", one with "peak
# memory") and prints one CSV row.
parse() {
  $python - "$@" <<'PY'
import re, sys
log, n, steps, threads, start, end, machine, cores = sys.argv[1:]
text = open(log).read()
number = r"([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)"

def line_with(*phrases):
    for line in text.splitlines():
        if any(phrase in line.lower() for phrase in phrases):
            return line
    sys.exit(f"bench: no '{phrases[0]}' line in {log}")

rate = float(re.findall(number, line_with("particle-steps per second", "particle-steps/s").replace(",", ""))[0])
value, unit = re.search(number + r"\s*([kMGT]i?B)", line_with("peak memory")).groups()
scale = {"kB": 1e3, "KiB": 1024, "kiB": 1024, "MB": 1e6, "MiB": 2**20, "GB": 1e9, "GiB": 2**30,
         "TB": 1e12, "TiB": 2**40}[unit]
wall = float(end) - float(start)              # the whole run: loading, creating bodies, stepping
stepping = int(n) * int(steps) / rate         # stepping alone
print(f"{n},{steps},{threads},{wall:.3f},{stepping:.3f},{rate:.6g},{1e9 / rate:.4g},"
      f"{float(value) * scale / 2**20:.1f},\"{machine}\",{cores}")
PY
}

for size in $sizes; do
  n=${size%%:*}
  steps=${size##*:}
  for threads in $threads_list; do
    scene=$out/scenes/pile_${n}_t${threads}.yaml
    $python bench/make_pile.py "$n" "$steps" "$threads" "$scene"
    : > "$candidates"
    for r in $(seq "$repeat"); do
      echo "bench: N = $n, $steps steps, $threads thread(s), run $r of $repeat ..." >&2
      log=$out/logs/pile_${n}_t${threads}_r${r}.log
      start=$(date +%s.%N)
      # Not --quiet: that also silences the summary read here.
      run_logged "$log" "$cli" run "$scene" --out "$out/run_${n}_t${threads}" --overwrite
      end=$(date +%s.%N)
      parse "$log" "$n" "$steps" "$threads" "$start" "$end" "$machine" "$cores" >> "$candidates"
    done
    # The fastest of the repeats (column 6: particle-steps per second).
    sort -t, -k6,6 -g -r "$candidates" | head -1 >> "$results"
  done
done
rm -f "$candidates"

# Cost per contact-step of the contact laws on the same pile (issue 3):
# frictionless hooke, the classic linear spring-dashpot-slider (D-SDS), Fang &
# Negrut slide, slide + roll + spin, and the legacy constant-torque roll. Settled for 300 steps, then 100 steps timed.
friction_n=${BENCH_FRICTION_N:-100000}
friction=$out/friction.csv
$python bench/make_pile.py "$friction_n" 1100 1 "$out/scenes/friction_${friction_n}.yaml"
echo "law,n,contacts_per_step,seconds_per_step,ns_per_contact_model,ns_per_contact_step,ns_per_particle_step,cpu_seconds_per_step" > "$friction"
# Fang & Negrut with the dashpots of the laws it is compared with: K_D = 1 N s/m
# (dsds's gamma_t) and no roll dashpot (LAMMPS's rolling sds has none here).
# The paper's derived K_D = 2 sqrt(m K_E) = 7 N s/m and D_R = 2 sqrt(I K_R)
# put this pile's step 4.8x and 2.2x above their critical steps (the CLI's
# warning): a bench of an unstable run would time the wrong work.
fn_slide='contacts.0.slide={model: fang_negrut, mu_s: 0.5, mu_k: 0.4, K_E: 1.0e4, K_D: 1.0}'
fn_roll='contacts.0.roll={model: fang_negrut, eta_r: 0.3, D_R: 0.0}'
fn_spin='contacts.0.spin={model: fang_negrut, eta_psi: 0.006}'
legacy_roll='contacts.0.roll={model: legacy_constant_torque, mu_r: 0.1}'
dsds_slide='contacts.0.slide={model: dsds, k_t: 1.0e4, gamma_t: 1.0, mu: 0.5}'
run_law() {
  local law=$1; shift
  echo "bench: contact law '$law', N = $friction_n ..." >&2
  printf '%s,%s,' "$law" "$friction_n" >> "$friction"
  build/release/fricdem_bench_friction "$out/scenes/friction_${friction_n}.yaml" 1000 100 "$@" >> "$friction"
}
run_law hooke_frictionless
run_law linear_spring_dashpot_dsds "$dsds_slide"
run_law linear_spring_dashpot_csds "${dsds_slide/dsds/csds}"
run_law fang_negrut_slide "$fn_slide"
run_law fang_negrut_slide_roll_spin "$fn_slide" "$fn_roll" "$fn_spin"
run_law legacy_constant_torque_roll "$legacy_roll"

# Cost of one friction-cone projection of the complementarity solver (exact,
# App. C, and sequential as Chrono), ns per projection (a few seconds).
echo "bench: cone projection ..." >&2
build/release/fricdem_bench_cone > "$out/cone_projection.csv"

$python - "$results" <<'PY'
import sys
sys.path.insert(0, "bench")
from results_table import print_table
print_table(sys.argv[1], "fricdem benchmark: pile settling in a box, frictionless hooke ({machine}, {cores} cores)", [
    ("N", 9, "", lambda r: int(r["n"])),
    ("steps", 6, "", lambda r: int(r["steps"])),
    ("threads", 7, "", lambda r: int(r["threads"])),
    ("total [s]", 9, ".2f", lambda r: float(r["wall_s"])),
    ("stepping [s]", 12, ".2f", lambda r: float(r["stepping_s"])),
    ("particle-steps/s", 17, ".4g", lambda r: float(r["particle_steps_per_s"])),
    ("ns/particle-step", 17, ".4g", lambda r: float(r["ns_per_particle_step"])),
    ("peak mem [MiB]", 15, ".1f", lambda r: float(r["peak_memory_mib"]))])
PY
$python - "$friction" <<'PY'
import csv, sys
sys.path.insert(0, "bench")
from results_table import print_table
with open(sys.argv[1], newline="") as file:
    base = float(next(csv.DictReader(file))["ns_per_contact_model"])  # the first law's: frictionless
print_table(sys.argv[1], "cost per contact-step, N = {n} settling pile", [
    ("law", 30, "", lambda r: r["law"]),
    ("contacts/step", 14, ".0f", lambda r: float(r["contacts_per_step"])),
    ("ns in the models", 17, ".4g", lambda r: float(r["ns_per_contact_model"])),
    ("x frictionless", 15, ".2f", lambda r: float(r["ns_per_contact_model"]) / base),
    ("ns whole step", 14, ".4g", lambda r: float(r["ns_per_contact_step"]))])
PY
# What a second thread can add on this machine at all (bench/host_scaling.c):
# fricdem's thread speed-up beside the machine's own for streams in cache and
# in memory and for pure compute, measured in the same session.
if [ -x build/release/fricdem_bench_host ] && [ "$cores" -gt 1 ]; then
  echo "bench: this machine's own scaling (compute, cache and memory streams) ..." >&2
  build/release/fricdem_bench_host "$cores" > "$out/host_scaling.csv"
  $python bench/host_ceiling.py "$out/host_scaling.csv" "$results"
fi
echo
echo "cost of one cone projection, ns (bench/cone_projection_cost.c)"
cat "$out/cone_projection.csv"
echo "fricdem against LAMMPS and LIGGGHTS on the same pile follows (bench/lammps_compare.sh; make bench-fricdem skips it)"
echo
echo "complementarity stepper against the penalty stepper on the same pile (bench/stepper_compare.py)"
/usr/bin/python3 bench/stepper_compare.py 1.0
