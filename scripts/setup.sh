#!/usr/bin/env bash
# Installs the Debian packages rdsm needs, if any is missing. Safe to run again.
# --tests: also what only the test suite uses (a one-node Slurm for compat.slurm, clang for
# compat.pedantic_headers), when run as root.
set -euo pipefail
packages=(cmake make g++ pkg-config dpkg-dev libucx-dev ucx-utils libpmix-dev libgtest-dev openmpi-bin libopenmpi-dev procps gdb gnuplot-nox python3 spin)
if [ "${1:-}" = "--tests" ] && [ "$(id -u)" -eq 0 ]; then
  packages+=(slurmctld slurmd slurm-client munge slurm-wlm-basic-plugins clang)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
