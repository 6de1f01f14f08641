#!/usr/bin/env bash
# Builds one unmodified OpenSHMEM program with a compiler wrapper of the build tree and runs it as one PE,
# which must print "<program>: ok" (or the line EXPECT names). Usage: [EXPECT=line] wrapper_build.sh BUILD
# rdsmcc|rdsmc++ SOURCE [compiler flags...]
set -euo pipefail
build=$1 wrapper=$2 src=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
name=$(basename "${src%.*}")
"$build/bin/$wrapper" "$@" "$src" -o "$work/$name"
"$build/bin/rdsmrun" -n 1 --timeout 30 "$work/$name" | grep -x "${EXPECT:-$name: ok}"
