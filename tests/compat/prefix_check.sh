#!/usr/bin/env bash
# Builds rdsm's three faces from an installed prefix alone and runs each on 2 PEs with that prefix's rdsmrun:
# an OpenSHMEM C11 program, a C DSM program, and a C++ program using rdsm/rdsm.hpp and rdsm/dsm.hpp, each through
# the prefix's rdsmcc/rdsmc++, CMake find_package(rdsm) and pkg-config. Usage: prefix_check.sh PREFIX
set -euo pipefail
prefix=$(cd "$1" && pwd) src=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run2() { "$prefix/bin/rdsmrun" -n 2 --timeout 60 "$@"; }
# name of the program -> its source and the line PE 0 prints
declare -A source=([generic_c11]=generic_c11.c [dsm_c]=dsm_c.c [dsm_cxx]=dsm_cxx.cpp)

echo "== the installed wrappers name only the prefix"
[ "$("$prefix/bin/rdsmcc" --showme:compile)" = "-I$prefix/include" ]
"$prefix/bin/rdsmcc" --showme:link | grep -q -- "-L$prefix/lib"
echo "== rdsmcc / rdsmc++"
for name in "${!source[@]}"; do
  wrapper=rdsmcc
  [[ ${source[$name]} == *.cpp ]] && wrapper=rdsmc++
  "$prefix/bin/$wrapper" -O2 -Wall -Werror "$src/${source[$name]}" -o "$work/$name.wrapper"
  run2 "$work/$name.wrapper" | grep -x "$name: ok"
done
echo "== find_package(rdsm)"
cmake -S "$src/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
run2 "$work/consumer/consumer" | grep -x "generic_c11: ok"
run2 "$work/consumer/consumer_dsm" | grep -x "dsm_c: ok"
run2 "$work/consumer/consumer_cxx" | grep -x "dsm_cxx: ok"
echo "== pkg-config"
pc=$(dirname "$(find "$prefix" -name rdsm.pc)")
flags=$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs rdsm)
for name in "${!source[@]}"; do
  if [[ ${source[$name]} == *.cpp ]]; then
    # shellcheck disable=SC2086
    c++ -std=c++20 "$src/${source[$name]}" -o "$work/$name.pc" $flags
  else
    # shellcheck disable=SC2086
    cc -std=c11 "$src/${source[$name]}" -o "$work/$name.pc" $flags
  fi
  run2 "$work/$name.pc" | grep -x "$name: ok"
done
[[ $("$prefix/bin/rdsm-info") == "rdsm "* ]]
echo "prefix_check: every face built from $prefix and ran on 2 PEs"
