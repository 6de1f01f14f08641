#!/usr/bin/env bash
# Builds rdsm and runs the demo job: 4 PEs over shared memory, then 2 PEs over TCP.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
echo "== 4 PEs, shared memory"
build/bin/rdsmrun -n 4 --timeout 60 build/examples/demo
echo "== 2 PEs, TCP (UCX_TLS=tcp,self)"
UCX_TLS=tcp,self build/bin/rdsmrun -n 2 --timeout 60 build/examples/demo
echo "== DSM: Jacobi, matrix multiply and a locked histogram on 2 PEs, checked against serial results"
build/bin/rdsmrun -n 2 --timeout 120 build/bench/dsm_bench kernels --check --jacobi 512,20 --matmul 128 \
  --hist 65536,64,256 --reps 1 | grep -E "median|CHECK"
