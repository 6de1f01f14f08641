#!/usr/bin/env bash
# Builds rdsm and runs the demo job: 4 PEs over shared memory, then 2 PEs over TCP.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
echo "== 4 PEs, shared memory"
build/bin/rdsmrun -n 4 --timeout 60 build/examples/demo
echo "== 2 PEs, TCP (UCX_TLS=tcp,self)"
UCX_TLS=tcp,self build/bin/rdsmrun -n 2 --timeout 60 build/examples/demo
