#!/usr/bin/env bash
# Installs Debian's LAMMPS (and, with --liggghts, LIGGGHTS) for the LAMMPS
# cross-check (scripts/lammps/, scripts/validation/lammps_crosscheck.py) and the
# comparative benchmark (bench/lammps_compare.sh), only what is missing, like
# scripts/install-deps.sh. Neither is needed to build fricdem or to run
# `make test`: the golden numbers are committed (tests/golden/lammps_*.csv).
#
#   scripts/install-lammps.sh             # lammps: binary lmp (Debian 12: LAMMPS 29 Sep 2021 - Update 2)
#   scripts/install-lammps.sh --liggghts  # also liggghts: binary liggghts (LIGGGHTS-PUBLIC 3.8.0)
#
# Exits 0 when `lmp` runs afterwards, 1 otherwise (with a message). LIGGGHTS is
# optional: if it cannot be installed or does not run, this says so and still
# exits 0.
set -euo pipefail

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# Installs the missing packages among "$@"; returns non-zero if apt-get fails.
install_missing() {
  local missing=()
  for p in "$@"; do
    installed "$p" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "fricdem: installing missing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "fricdem: need root to install packages (run as root, or install them yourself: apt-get install ${missing[*]})" >&2
    return 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

install_missing lammps || { echo "fricdem: could not install lammps" >&2; exit 1; }
if ! lmp -h >/dev/null 2>&1; then
  echo "fricdem: package lammps is installed but 'lmp -h' fails" >&2
  exit 1
fi
if [ "${1:-}" = "--liggghts" ]; then
  if ! install_missing liggghts; then
    echo "fricdem: could not install liggghts (optional; the benchmark leaves it out)" >&2
  elif ! command -v liggghts >/dev/null; then
    echo "fricdem: package liggghts is installed but 'liggghts' is not on PATH (optional; left out)" >&2
  elif [[ "$(scratch=$(mktemp -d) && cd "$scratch" && { liggghts -h </dev/null 2>&1 || true; } && rm -rf "$scratch")" \
          != *LIGGGHTS* ]]; then
    # `liggghts -h` prints its version and styles and exits 1 (and writes log.liggghts where it runs: a
    # scratch folder); no version line means it does not run.
    echo "fricdem: 'liggghts -h' prints no version: LIGGGHTS does not run (optional; left out)" >&2
  fi
fi
exit 0
