#!/usr/bin/env bash
# Programs that include rdsm's public headers build warning-free under -Wall -Wextra -Wpedantic -Werror with
# GCC and Clang, as C (C99, C11) and C++ (C++17, C++20), through the compiler wrappers of the build tree,
# and run as one PE. Usage: pedantic_headers.sh BUILD SOURCE_DIR
set -euo pipefail
build=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-Wall -Wextra -Wpedantic -Werror)
tried=0
for cc in gcc clang; do
  command -v "$cc" > /dev/null || { echo "pedantic_headers: no $cc, its builds skipped"; continue; }
  for std in c99 c11; do
    RDSMCC_CC=$cc "$build/bin/rdsmcc" -std=$std "${flags[@]}" "$src/pedantic.c" -o "$work/c"
    "$build/bin/rdsmrun" -n 1 --timeout 30 "$work/c" | grep -qx "pedantic: ok"
    tried=$((tried + 1))
  done
done
for cxx in g++ clang++; do
  command -v "$cxx" > /dev/null || { echo "pedantic_headers: no $cxx, its builds skipped"; continue; }
  for std in c++17 c++20; do
    RDSMCC_CXX=$cxx "$build/bin/rdsmc++" -std=$std "${flags[@]}" -DPEDANTIC_STD=$std "$src/pedantic.cpp" -o "$work/cxx"
    "$build/bin/rdsmrun" -n 1 --timeout 30 "$work/cxx" | grep -qx "pedantic: ok"
    tried=$((tried + 1))
  done
done
echo "pedantic_headers: $tried builds warning-free and run"
