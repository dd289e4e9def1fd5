#!/usr/bin/env bash
# `make bench-ranks` (and `make bench`): the settled pile of N spheres run by
# the command line on one process, on THREADS OpenMP threads and on RANKS MPI
# ranks (docs/mpi.md), hooke + dsds, velocity Verlet, outputs off. The
# wall time per step comes from each run's summary; the ranks' state hash
# must be one process's (the script stops if it is not). Writes
# bench/out/ranks_compare.csv and prints a table (bench/README.md, "two
# processes").
#
# Environment:
#   BENCH_RANKS_N      spheres (default 100000; the pile of bench/lammps_compare.sh,
#                      settled here the same way when it is missing)
#   BENCH_RANKS_STEPS  steps (default 300)
#   BENCH_RANKS        MPI ranks (default 2) and BENCH_RANKS_THREADS threads (default 2)
#   BENCH_RANKS_BALANCE  what the ranks' boxes even out (--balance-by: count, the
#                      default, or time: no gain measured here, bench/README.md)
#                      and from what imbalance (BENCH_RANKS_BALANCE_RATIO, --balance:
#                      default 1.05 by time, 1.1 by count)
#   BENCH_REPEAT       runs of each configuration (default 3, ~50 s in all): the
#                      fastest of each is kept, and the ratio of each repeat's
#                      pair (one process, then the ranks, minutes apart at most)
#                      gives the median ratio, which the machine's spread moves
#                      less (one pair moved 1.36-1.73x on a shared host,
#                      bench/README.md, twenty-ninth session)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/require_built.sh

n=${BENCH_RANKS_N:-100000}
steps=${BENCH_RANKS_STEPS:-300}
ranks=${BENCH_RANKS:-2}
threads=${BENCH_RANKS_THREADS:-2}
balance_by=${BENCH_RANKS_BALANCE:-count}
balance=${BENCH_RANKS_BALANCE_RATIO:-$([ "$balance_by" = time ] && echo 1.05 || echo 1.1)}
repeat=${BENCH_REPEAT:-3}
python=/usr/bin/python3
cli=build/release/fricdem
export_tool=build/release/fricdem_lammps_data
out=bench/out/ranks
pile_dir=bench/out/lammps
settled=$pile_dir/pile_${n}_settled.yaml
dsds='contacts.0.slide={model: dsds, k_t: 1.0e4, gamma_t: 1.0, mu: 0.5}'
vv='time.integrator=velocity_verlet'
machine=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)

require_built bench-ranks "$cli" "$export_tool"
if ! command -v mpirun >/dev/null; then
  echo "bench-ranks: mpirun is missing (scripts/install-deps.sh installs openmpi-bin): skipped" >&2
  exit 0
fi
mkdir -p "$out" "$pile_dir"
if [ ! -f "$settled" ]; then
  # As bench/lammps_compare.sh settles it: 2000 steps of hooke + dsds.
  echo "bench-ranks: settling the pile of $n spheres (fricdem, 2000 steps) ..." >&2
  $python bench/make_pile.py "$n" "$steps" 1 "$pile_dir/pile_${n}.yaml"
  "$export_tool" "$pile_dir/pile_${n}.yaml" 2000 "$pile_dir/pile_${n}.data" "$dsds" "$vv" >/dev/null
  $python bench/make_pile.py "$n" "$steps" 1 "$settled" --from-data "$pile_dir/pile_${n}.data"
fi
# More ranks than cores: Open MPI must be told, and its ranks then yield the
# core while they wait (slower: a rank that waits spins otherwise).
launcher=(mpirun -np "$ranks")
if [ "$ranks" -gt "$(nproc)" ]; then
  launcher+=(--oversubscribe)
fi
if [ "$(id -u)" -eq 0 ]; then
  launcher+=(--allow-run-as-root)
fi
duration=$($python -c "print($steps * 5.0e-5)")
common=(--overwrite --set "$dsds" --set "$vv" --set "time.duration=$duration" --set output.bodies_csv=false
        --set output.contacts_csv=false --set output.energy_csv=false --set output.walls_csv=false)

# ms per step and state hash of one run's summary.
run() {
  local log=$1
  shift
  "$@" > "$log" 2>&1 || { echo "bench-ranks: failed: $*" >&2; tail -5 "$log" >&2; exit 1; }
  local ms
  ms=$(sed -n 's/^  per step *\([0-9.eE+-]*\) ms.*/\1/p; s/^done: .*(\([0-9.eE+-]*\) ms a step).*/\1/p' "$log" | head -1)
  local hash
  hash=$(sed -n 's/^  state hash *\(0x[0-9a-f]*\).*/\1/p' "$log" | head -1)
  echo "$ms $hash"
}

echo "configuration,n,steps,ms_per_step,state_hash,machine" > bench/out/ranks_compare.csv
best_one=""; best_threads=""; best_ranks=""; hash_one=""; hash_ranks=""; pair_ratios=""
for r in $(seq "$repeat"); do
  echo "bench-ranks: run $r of $repeat: one process, $threads threads, $ranks ranks ..." >&2
  read -r one hash_one < <(run "$out/one.log" "$cli" run "$settled" --out "$out/one" "${common[@]}")
  read -r two _ < <(run "$out/threads.log" "$cli" run "$settled" --out "$out/threads" -j "$threads" "${common[@]}")
  read -r many hash_ranks < <(run "$out/ranks.log" "${launcher[@]}" "$cli" run "$settled" --out "$out/ranks" \
                               --balance-by "$balance_by" --balance "$balance" "${common[@]}")
  if [ "$hash_one" != "$hash_ranks" ]; then
    echo "bench-ranks: $ranks ranks ended on state hash $hash_ranks, one process on $hash_one" >&2
    exit 1
  fi
  pair_ratios="$pair_ratios $($python -c "print($one / $many)")"
  best_one=$($python -c "print(min(x for x in [$one, ${best_one:-1e300}]))")
  best_threads=$($python -c "print(min(x for x in [$two, ${best_threads:-1e300}]))")
  best_ranks=$($python -c "print(min(x for x in [$many, ${best_ranks:-1e300}]))")
done
{
  echo "one process,$n,$steps,$best_one,$hash_one,\"$machine\""
  echo "$threads threads,$n,$steps,$best_threads,$hash_one,\"$machine\""
  echo "$ranks ranks,$n,$steps,$best_ranks,$hash_ranks,\"$machine\""
} >> bench/out/ranks_compare.csv
$python - "$best_one" "$best_threads" "$best_ranks" "$threads" "$ranks" "$n" "$pair_ratios" "$balance_by --balance $balance" <<'EOF'
import statistics
import sys
one, threads, ranks = (float(x) for x in sys.argv[1:4])
t, r, n = sys.argv[4:7]
pairs = [float(x) for x in sys.argv[7].split()]
balance_by = sys.argv[8]
print(f"settled pile of {n} spheres, hooke + dsds, wall time per step (the fastest of the runs)")
print(f"  one process  {one:8.3f} ms")
print(f"  {t} threads    {threads:8.3f} ms   {one / threads:.2f}x")
print(f"  {r} ranks      {ranks:8.3f} ms   {one / ranks:.2f}x   (--balance-by {balance_by}; issue 14 asks 1.8x; "
      "same state hash as one process)")
print(f"  one process / {r} ranks, each repeat's pair: {', '.join(f'{x:.2f}' for x in pairs)}; "
      f"median {statistics.median(pairs):.2f}x")
EOF
# The ranks share the machine's memory as threads do: its own ceiling
# (bench/host_scaling.c) beside the figures above.
if [ -x build/release/fricdem_bench_host ]; then
  echo "bench-ranks: this machine's own scaling ..." >&2
  build/release/fricdem_bench_host "$ranks" > "$out/host_scaling.csv"
  $python bench/host_ceiling.py "$out/host_scaling.csv"
fi
