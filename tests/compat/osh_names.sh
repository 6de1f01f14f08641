#!/usr/bin/env bash
# rdsm's oshcc, oshc++, oshCC and oshrun from an install: put first on PATH the documented way, they build an
# OpenSHMEM project's own Makefile and CMake build unchanged (CC=oshcc) and run it on 2 PEs, and accept the
# options OpenSHMEM users pass (-np/-n, --showme/-show and --showme:incdirs/libdirs/libs/version, -c, -o). Usage: osh_names.sh BUILD
set -euo pipefail
build=$1 src=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
prefix=$work/prefix
export PATH="$("$prefix/bin/rdsm-info" --osh-path):$PATH"
for name in oshcc oshc++ oshCC oshrun; do
  [ "$(command -v $name)" = "$prefix/libexec/rdsm/osh/$name" ] || { echo "osh_names: $name is $(command -v $name)"; exit 1; }
done

echo "== --showme / -show print the command, naming the prefix"
oshcc --showme x.c -o x | grep -E "^[^ ]*cc -I$prefix/include x.c -o x -L$prefix/lib .*-lrdsm"
oshcc -show -c x.c | grep -E "^[^ ]*cc -I$prefix/include -c x.c$"
oshCC -showme x.cpp | grep -E "^[^ ]*\+\+ -I$prefix/include -std=c\+\+20 x.cpp .*-lrdsm"
[[ $(oshcc --help) == "usage: rdsmcc"* ]]
[ "$(oshcc --showme:incdirs)" = "$prefix/include" ]
[ "$(oshcc --showme:libdirs)" = "$prefix/lib" ]
[ "$(oshcc --showme:libs)" = "rdsm m pthread" ]
[[ $(oshcc --showme:version) == "rdsm "*" (OpenSHMEM 1.6)" ]]

echo "== an OpenSHMEM project's Makefile with CC=oshcc (-c, then -o), run with oshrun -np 2"
cp -r "$src/osh_project" "$work/proj"
cp "$src/generic_c11.c" "$work/proj/main.c"
make -s -C "$work/proj" CC=oshcc prog
(cd "$work/proj" && make -s run) | grep -x "generic_c11: ok"
(cd "$work/proj" && oshrun -n 2 ./prog) | grep -x "generic_c11: ok"

echo "== the same project's CMake build with CC=oshcc"
CC=oshcc cmake -S "$work/proj" -B "$work/proj/build" >/dev/null
cmake --build "$work/proj/build" >/dev/null
oshrun -np 2 "$work/proj/build/prog" | grep -x "generic_c11: ok"

echo "== oshc++ and oshCC"
printf '#include <shmem.h>\n#include <cstdio>\nint main(){shmem_init();static long x;shmem_long_p(&x,shmem_my_pe()+1,(shmem_my_pe()+1)%%shmem_n_pes());shmem_barrier_all();if(shmem_my_pe()==0)std::printf("cxx %%ld\\n",x);shmem_finalize();}\n' >"$work/p.cpp"
for cxx in oshc++ oshCC; do
  $cxx -O2 -Wall -Werror "$work/p.cpp" -o "$work/p_$cxx"
  oshrun -np 2 "$work/p_$cxx" | grep -x "cxx 2"
done
echo "osh_names: oshcc, oshc++, oshCC and oshrun work as rdsm's from PATH"
