#!/usr/bin/env bash
# What the HDF5 trajectory (output.trajectory, docs/output-format.md) costs:
# the settling pile of bench/run.sh (bench/make_pile.py) run with
# build/release/fricdem five ways, the same steps each time:
#   none         no output (the baseline)
#   bodies       trajectory.h5, bodies only (output.trajectory_contacts: false)
#   contacts     trajectory.h5 with the contacts (the default)
#   vtu          VTU snapshots at the same times, for comparison
#   csv          bodies.csv + contacts.csv at the same times, for comparison
#   vtu_page_cache, csv_page_cache
#                the same with output.direct_io: never (every block through
#                the page cache; the default, auto, measures and may write
#                directly: docs/output-format.md, "Writing large frames")
# and writes bench/out/trajectory_cost.csv: the wall time of the run, the
# seconds per frame above the baseline, the same in steps' time (what issue
# 19 asks to keep under ten), the seconds per frame spent inside the writer
# (the CLI summary's "written" line: without the step's recording of the
# contact details, and free of the run-to-run noise of the difference), and
# the bytes written (per frame and per body and frame). Frames come every
# BENCH_TRAJECTORY_EVERY steps.
#
# Environment:
#   BENCH_TRAJECTORY_SIZES  "N:STEPS ..." (default "10000:200 100000:200"); an
#                           entry SCENE.yaml:STEPS runs that scene instead (the
#                           settled piles of bench/lammps_compare.sh, e.g.
#                           bench/out/lammps/pile_100000_settled.yaml:100) with
#                           hooke + dsds and velocity Verlet, as the benchmark does
#   BENCH_TRAJECTORY_EVERY  steps between frames (default 20)
#   BENCH_REPEAT            runs of each configuration; the fastest is kept (default 1)
#   BENCH_TRAJECTORY_MODES  which of the modes above (default all; none is always run first)
# No timing is asserted anywhere: this reports, it does not judge.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh

sizes=${BENCH_TRAJECTORY_SIZES:-"10000:200 100000:200"}
every=${BENCH_TRAJECTORY_EVERY:-20}
out=bench/out

mkdir -p "$out/scenes" "$out/logs"
results=$out/trajectory_cost.csv
echo "n,steps,frames,mode,wall_s,seconds_per_frame_over_none,steps_per_frame,writer_seconds_per_frame,writer_steps_per_frame,bytes,bytes_per_frame,bytes_per_body_frame,machine" \
  > "$results"

# The wall time the CLI reports for the stepping loop ("done: ... in X s wall").
# The seconds the CLI spent inside the output writer ("written ... in X s").
writer_of() {
  sed -n 's/^  written .* in \([0-9.e+-]*\) s .*/\1/p' "$1" | tail -1
}

wall_of() {
  sed -n 's/.* in \([0-9.e+-]*\) s wall.*/\1/p' "$1" | tail -1
}

dsds='contacts.0.slide={model: dsds, k_t: 1.0e4, gamma_t: 1.0, mu: 0.5}'
for size in $sizes; do
  n=${size%%:*}
  steps=${size##*:}
  law=()
  if [[ $n == *.yaml ]]; then
    scene=$n
    dt=$($python -c "import re,sys; print(re.search(r'step:\s*([0-9.eE+-]+)', open(sys.argv[1]).read()).group(1))" "$scene")
    law=(--set "$dsds" --set time.integrator=velocity_verlet --set "time.duration=$($python -c "print($steps * $dt)")")
    n=$($python -c "import sys; print(sum(1 for line in open(sys.argv[1]) if line[:1] not in '#r'))" "${scene%.yaml}.csv")
  else
    scene=$out/scenes/trajectory_pile_${n}.yaml
    $python bench/make_pile.py "$n" "$steps" 1 "$scene"
  fi
  dt=$($python -c "import re,sys; print(re.search(r'step:\s*([0-9.eE+-]+)', open(sys.argv[1]).read()).group(1))" "$scene")
  interval=$($python -c "print(repr($every * $dt))")
  frames=$((steps / every + 1))
  declare -A sets=(
    [none]=""
    [bodies]="--set output.trajectory=true --set output.trajectory_contacts=false --set output.trajectory_interval=$interval"
    [contacts]="--set output.trajectory=true --set output.trajectory_interval=$interval"
    [contacts_uncompressed]="--set output.trajectory=true --set output.trajectory_interval=$interval --set output.trajectory_compression=none"
    [vtu]="--set output.vtu_interval=$interval"
    [csv]="--set output.csv_interval=$interval --set output.bodies_csv=true --set output.contacts_csv=true"
    [vtu_page_cache]="--set output.vtu_interval=$interval --set output.direct_io=never"
    [csv_page_cache]="--set output.csv_interval=$interval --set output.bodies_csv=true --set output.contacts_csv=true --set output.direct_io=never"
  )
  baseline=""
  for mode in none ${BENCH_TRAJECTORY_MODES:-bodies contacts contacts_uncompressed vtu vtu_page_cache csv csv_page_cache}; do
    [ "$mode" = none ] && [ "$baseline" != "" ] && continue
    best=""
    for r in $(seq "$repeat"); do
      echo "bench: trajectory cost, N = $n, $steps steps, $mode, run $r of $repeat ..." >&2
      log=$out/logs/trajectory_${n}_${mode}_r${r}.log
      dir=$out/trajectory_${n}_${mode}
      # shellcheck disable=SC2086 # the --set words split on purpose
      run_logged "$log" "$cli" run "$scene" --out "$dir" --overwrite "${law[@]}" ${sets[$mode]}
      wall=$(wall_of "$log")
      if [ -z "$best" ] || $python -c "import sys; sys.exit(0 if $wall < $best else 1)"; then
        best=$wall
        writer=$(writer_of "$log")
      fi
    done
    bytes=$(du -sb "$dir" | cut -f1)
    [ "$mode" = none ] && baseline=$best
    $python - "$n" "$steps" "$frames" "$mode" "$best" "$baseline" "$bytes" "$machine" "${writer:-0}" >> "$results" <<'PY'
import sys
n, steps, frames, mode, wall, baseline, size, machine, writer = sys.argv[1:]
n, frames, wall, baseline, size, writer = int(n), int(frames), float(wall), float(baseline), int(size), float(writer)
per_frame = (wall - baseline) / frames if mode != "none" else 0.0
step_time = baseline / int(steps)
written = size if mode != "none" else 0
print(f"{n},{steps},{frames},{mode},{wall:.3f},{per_frame:.4g},{per_frame / step_time:.3g},{writer / frames:.4g},"
      f"{writer / frames / step_time:.3g},{written},{written / frames:.4g},{written / frames / n:.4g},\"{machine}\"")
PY
  done
  unset sets
done

$python - "$results" <<'PY'
import sys
sys.path.insert(0, "bench")
from results_table import print_table
print_table(sys.argv[1], "trajectory cost ({machine})", [
    ("N", 9, "", lambda r: int(r["n"])),
    ("frames", 6, "", lambda r: int(r["frames"])),
    ("mode", 21, "", lambda r: r["mode"]),
    ("wall [s]", 9, ".2f", lambda r: float(r["wall_s"])),
    ("s/frame over none", 18, ".4g", lambda r: float(r["seconds_per_frame_over_none"])),
    ("steps/frame", 11, ".3g", lambda r: float(r["steps_per_frame"])),
    ("writer steps/frame", 18, ".3g", lambda r: float(r["writer_steps_per_frame"])),
    ("MB", 9, ".2f", lambda r: int(r["bytes"]) / 1e6),
    ("B/body/frame", 13, ".4g", lambda r: float(r["bytes_per_body_frame"]))])
PY
