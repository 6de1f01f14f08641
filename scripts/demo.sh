#!/usr/bin/env bash
# Builds rdsm and runs the demo job: 4 PEs over shared memory, then 2 PEs over TCP.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
echo "== 4 PEs, shared memory"
build/bin/rdsmrun -n 4 --timeout 60 build/examples/demo
echo "== 2 PEs, TCP (UCX_TLS=tcp,self)"
UCX_TLS=tcp,self build/bin/rdsmrun -n 2 --timeout 60 build/examples/demo
echo "== DSM on 2 PEs against the serial run in private memory (ratio = DSM time / serial time):"
echo "   Jacobi 1024² and matrix multiply 512 split their work; the histogram does all of it under one lock"
echo "   (its ratio is the price of 64 lock hand-offs; on one host the bins stay in their home's memory)"
build/bin/rdsmrun -n 2 --timeout 120 build/bench/dsm_bench kernels --check --jacobi 1024,30 --matmul 512 \
  --hist 262144,64,4096 --reps 3 | grep -E "^  dsm|CHECK"
