#!/usr/bin/env bash
# Installs the Debian packages fricdem needs, only those that are missing.
# Used by `make demo`, `make test` and CI alike, so nothing depends on a hand install.
set -euo pipefail
packages=(cmake ninja-build gcc pkg-config libyaml-dev libcyaml-dev libcriterion-dev
          libhdf5-dev zlib1g-dev librandom123-dev python3-matplotlib python3-numpy python3-h5py python3-pandas
          python3-cffi python3-pytest libopenmpi-dev openmpi-bin doxygen)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "fricdem: installing missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "fricdem: need root to install packages (run as root, or install them yourself: apt-get install ${missing[*]})" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
