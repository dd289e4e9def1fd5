# shellcheck shell=bash disable=SC2034  # (its settings are for the scripts that source it)
# Sourced by the benchmark scripts that time runs of the release CLI
# (bench/run.sh, bench/trajectory_cost.sh), from the top of the tree: the CLI
# (stops the script unless it is built), the Python they run, the repeats of
# each configuration, the machine's name for the results, and run_logged.
source bench/require_built.sh

cli=build/release/fricdem
python=/usr/bin/python3
repeat=${BENCH_REPEAT:-1}  # BENCH_REPEAT: runs of each configuration; the fastest is kept
machine=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)

require_built bench "$cli"

# run_logged LOG COMMAND...: runs the command, stdout and stderr into LOG;
# when it fails, says so with the log's last lines and stops the script (exit 1).
run_logged() {
  local log=$1
  shift
  if ! "$@" > "$log" 2>&1; then
    echo "bench: the run failed; see $log" >&2
    tail -5 "$log" >&2
    exit 1
  fi
}
