#!/usr/bin/env bash
# Checks the Debian package: its fields and dependencies, then unpacks it into a throw-away root (dpkg -x) and
# builds and runs rdsm's three faces on 2 PEs from the unpacked /usr alone (tests/compat/prefix_check.sh), with
# the osh names and the tools' --help. With --apt (root; changes this machine) it instead runs
# `apt-get install ./rdsm_<version>_<arch>.deb`, checks the tools from PATH, runs a 2-PE job and removes the
# package again. Usage: scripts/test-package.sh [--apt] [DEB]   (default DEB: build/rdsm_*.deb; make it with
# scripts/package.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
apt=no
[ "${1:-}" = "--apt" ] && { apt=yes; shift; }
deb=${1:-$(ls "$root"/build/rdsm_*.deb 2>/dev/null | tail -n 1)}
[ -f "$deb" ] || { echo "test-package: no package; build one with scripts/package.sh"; exit 1; }
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== $(basename "$deb"): fields and dependencies"
version=$(dpkg-deb -f "$deb" Version) arch=$(dpkg-deb -f "$deb" Architecture)
[ "$(basename "$deb")" = "rdsm_${version}_${arch}.deb" ]
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
dpkg -x "$deb" "$work/root"
# Every library the package's binaries link directly (NEEDED), outside the package, comes from a package
# that Depends names.
for f in "$work"/root/usr/bin/* "$work"/root/usr/lib/librdsm.so.*.*; do
  needed=$( (readelf -d "$f" 2>/dev/null || true) | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')  # scripts have none
  [ -n "$needed" ] || continue
  ldd "$f" | awk -v n="$needed" 'BEGIN {split(n, a, "\n"); for (i in a) want[a[i]] = 1} $1 in want && $3 ~ /^\// {print $3}'
done | sort -u | grep -v "^$work/" >"$work/libs.txt"
grep -q libucp "$work/libs.txt" && grep -q libpmix "$work/libs.txt"
while read -r lib; do
  real=$(readlink -f "$lib")
  # dpkg knows a file by the path its package ships (/lib or /usr/lib on a merged /usr).
  pkg=$({ dpkg -S "$lib" || dpkg -S "$real" || dpkg -S "${real#/usr}"; } 2>/dev/null | head -n 1 | cut -d: -f1)
  [[ ", $depends," == *", $pkg "* || ", $depends," == *", $pkg,"* ]] ||
    { echo "test-package: Depends lacks $pkg (holds $lib)"; exit 1; }
  echo "$pkg" >>"$work/pkgs.txt"
done <"$work/libs.txt"
echo "linked libraries come from: $(sort -u "$work/pkgs.txt" | tr '\n' ' ')"
# Every dependency is installable from this machine's archive (a simulation changes nothing).
apt-get install -s -qq "$deb" >"$work/apt-sim.txt" 2>&1 || { cat "$work/apt-sim.txt"; exit 1; }

if [ $apt = no ]; then
  echo "== unpacked into a throw-away root"
  prefix=$work/root/usr
  for t in rdsmcc rdsmc++ rdsmrun rdsm-info rdsm-bench rdsm-cachebench; do
    [[ $("$prefix/bin/$t" --help) == "usage: rdsm"* ]]
  done
  [ "$("$prefix/bin/rdsm-info" --osh-path)" = "$prefix/libexec/rdsm/osh" ]
  "$prefix/libexec/rdsm/osh/oshrun" -np 2 --timeout 60 "$prefix/bin/rdsm-info" 2>&1 | grep "PE 0 -> PE 1"
  "$root/tests/compat/prefix_check.sh" "$prefix"
  echo "test-package: $(basename "$deb") unpacked and ran 2-PE jobs"
  exit 0
fi

echo "== apt-get install ./$(basename "$deb")"
[ "$(id -u)" -eq 0 ] || { echo "test-package: --apt needs root"; exit 1; }
if dpkg-query -W -f='${Status}' rdsm 2>/dev/null | grep -q "install ok installed"; then
  echo "test-package: rdsm is already installed; remove it first (apt-get remove rdsm)"
  exit 1
fi
trap 'apt-get purge -y -qq rdsm >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
cp "$deb" "$work/"
(cd "$work" && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "./$(basename "$deb")" >/dev/null)
cd "$work"
for t in rdsmcc rdsmc++ rdsmrun rdsm-info rdsm-bench; do
  [ "$(command -v $t)" = "/usr/bin/$t" ] || { echo "test-package: $t is not /usr/bin/$t"; exit 1; }
done
[[ $(rdsm-bench --help) == "usage: rdsm-bench"* ]]
rdsmcc -O2 "$root/tests/compat/dsm_c.c" -o dsm_c
rdsmrun -n 2 --timeout 60 ./dsm_c | grep -x "dsm_c: ok"
PATH="$(rdsm-info --osh-path):$PATH" oshcc -O2 "$root/tests/compat/generic_c11.c" -o generic_c11
PATH="$(rdsm-info --osh-path):$PATH" oshrun -np 2 ./generic_c11 | grep -x "generic_c11: ok"
rdsmrun -n 2 rdsm-info 2>&1 | grep "PE 0 -> PE 1"
echo "test-package: apt-get installed $(basename "$deb"); the tools ran from PATH; removing it"
