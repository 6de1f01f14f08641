#!/usr/bin/env bash
# Builds an unmodified OpenSHMEM program three ways and runs each with the launcher:
# with the build tree's rdsmcc, and after `cmake --install` with find_package(rdsm) and with pkg-config;
# then checks that every public header is installed and builds a DSM program from the prefix alone.
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

echo "== cmake --install, then find_package(rdsm), pkg-config and the installed rdsmcc"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/prefix/bin/rdsmrun" -n 2 --timeout 30 "$work/consumer/consumer" | grep -x "generic_c11: ok"
pcdir=$(dirname "$(find "$work/prefix" -name rdsm.pc)")
# shellcheck disable=SC2046
cc "$src/generic_c11.c" -o "$work/prog_pc" $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs rdsm)
"$work/prefix/bin/rdsmrun" -n 2 --timeout 30 "$work/prog_pc" | grep -x "generic_c11: ok"
"$work/prefix/bin/rdsmcc" "$src/generic_c11.c" -o "$work/prog_installed"
"$work/prefix/bin/rdsmrun" -n 2 --timeout 30 "$work/prog_installed" | grep -x "generic_c11: ok"
"$work/prefix/bin/rdsm-info" | head -1 | grep -q "^rdsm "

echo "== every public header is installed, and rdsm's C DSM face builds from the prefix alone"
diff <(cd "$src/../../include" && find . -name '*.h' -o -name '*.hpp' | sort) \
     <(cd "$work/prefix/include" && find . \( -name '*.h' -o -name '*.hpp' \) ! -name pshmem.h | sort)
"$work/prefix/bin/rdsmcc" -std=c11 -Wall -Werror "$src/dsm_c.c" -o "$work/prog_dsm"
"$work/prefix/bin/rdsmrun" -n 2 --timeout 30 "$work/prog_dsm" | grep -x "dsm_c: ok"
echo "compat: all builds ran correctly"
