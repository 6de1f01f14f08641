#!/usr/bin/env bash
# Builds an unmodified OpenSHMEM program with the build tree's rdsmcc and rdsmc++ and runs it with the launcher;
# then `cmake --install`s, checks that every public header is installed, moves the prefix and builds and runs
# rdsm's three faces from it alone (prefix_check.sh).
set -euo pipefail
build=$1 src=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== rdsmcc from the build tree"
"$build/bin/rdsmcc" -O2 -Wall -Werror -std=c11 "$src/generic_c11.c" -o "$work/prog_cc"
"$build/bin/rdsmrun" -n 2 --timeout 30 "$work/prog_cc" | grep -x "generic_c11: ok"

echo "== rdsmc++ compiles the same program as C++ (non-generic parts)"
printf '#include <shmem.h>\n#include <cstdio>\nint main(){shmem_init();long *x=(long*)shmem_malloc(8);shmem_long_p(x,5,0);shmem_barrier_all();if(shmem_my_pe()==0)std::printf("cxx %%ld\\n",*x);shmem_free(x);shmem_finalize();}\n' >"$work/p.cpp"
"$build/bin/rdsmc++" -O2 -Wall -Werror "$work/p.cpp" -o "$work/prog_cxx"
"$build/bin/rdsmrun" -n 2 --timeout 30 "$work/prog_cxx" | grep -x "cxx 5"

echo "== cmake --install: every public header is installed"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
diff <(cd "$src/../../include" && find . -name '*.h' -o -name '*.hpp' | sort) \
     <(cd "$work/prefix/include" && find . \( -name '*.h' -o -name '*.hpp' \) ! -name pshmem.h | sort)
# The wrappers find the prefix from their own location only: a moved prefix works.
mv "$work/prefix" "$work/moved"
"$src/prefix_check.sh" "$work/moved"
echo "compat: all builds ran correctly"
