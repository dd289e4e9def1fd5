#!/usr/bin/env bash
# Fuzzes the scene loader (fuzz/fuzz_scene.c), or with FUZZ_TARGET=lammps
# the LAMMPS deck importer (fuzz/fuzz_lammps.c), for FUZZ_SECONDS seconds
# (default 600) with libFuzzer in FUZZ_JOBS processes (default 2), seeded
# with every shipped scene (or LAMMPS deck). Crashes are
# written to fuzz/crashes/ and make the script fail; each one found becomes a
# regression input in tests/fuzz_inputs/ (tests/test_fuzz_inputs.c loads them).
# Inputs that only exceed the fuzzer's memory limit (-rss_limit_mb: a scene may
# legitimately ask for millions of bodies) or its time limit are not crashes:
# libFuzzer's fork mode skips them and counts them.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-600}"
missing=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "fricdem fuzz: need root to install ${missing[*]}" >&2; exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "${JOBS:-2}"
target="${FUZZ_TARGET:-scene}"
corpus=build/fuzz/corpus_$target
mkdir -p "$corpus" fuzz/crashes
if [ "$target" = lammps ]; then
  find scenes/lammps/decks scripts/lammps bench/lammps -name '*.in' -exec cp {} "$corpus/" \;
else
  find scenes -name '*.yaml' -exec cp {} "$corpus/" \;
fi
log=build/fuzz/fuzz_$target.log
# Leaks count as failures (ASan detect_leaks).
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  "build/fuzz/fricdem_fuzz_$target" "$corpus" -fork="${FUZZ_JOBS:-2}" -ignore_ooms=1 -ignore_timeouts=1 -rss_limit_mb=4096 \
  -timeout=20 -max_len=16384 -max_total_time="$seconds" -artifact_prefix=fuzz/crashes/ 2>&1 | tee "$log" | \
  grep -E "^#[0-9]+.*(DONE|pulse)|INFO: fuzzed|crash|OOM|timeout" || true
crashes=$(find fuzz/crashes -name 'crash-*' | wc -l)
echo "fricdem fuzz: $(grep -Eo 'exec/s: [0-9]+' "$log" | tail -1), $(grep -Eo 'cov: [0-9]+' "$log" | tail -1), crashes: $crashes (fuzz/crashes/), log $log"
[ "$crashes" -eq 0 ]
