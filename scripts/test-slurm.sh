#!/usr/bin/env bash
# Runs rdsm under a one-node Slurm started here: munged, slurmctld and slurmd with a minimal configuration
# in a temporary directory on localhost; then `srun --mpi=pmix -n 4` runs an OpenSHMEM program and a DSM
# program, and a step whose task 2 is killed must end with the task named. Stops the daemons it started (by
# PID) and removes its directory.
# Usage: scripts/test-slurm.sh [BUILD]   (BUILD: a build tree or an installed prefix with bin/rdsmcc; default
# ./build). Needs root and Debian's slurmctld, slurmd, munge, slurm-wlm-basic-plugins (--install-deps installs
# them). Exits 77 (skipped) when they are missing or the daemons cannot start here.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = "--install-deps" ]; then
  shift
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    slurmctld slurmd slurm-client munge slurm-wlm-basic-plugins >/dev/null
fi
build=$(cd "${1:-$root/build}" && pwd)
src=$root/tests/compat
skip() { echo "test-slurm: skipped: $*"; exit 77; }

for cmd in munged mungekey slurmctld slurmd srun; do
  command -v "$cmd" >/dev/null || PATH=$PATH:/usr/sbin command -v "$cmd" >/dev/null || skip "$cmd is not installed"
done
PATH=$PATH:/usr/sbin
[ "$(id -u)" -eq 0 ] || skip "the daemons are started as root here"
ls /usr/lib/*/slurm-wlm/mpi_pmix.so >/dev/null 2>&1 || skip "Slurm's PMIx plugin (slurm-wlm-basic-plugins) is missing"

work=$(mktemp -d /tmp/rdsm-slurm.XXXXXX)
chmod 0755 "$work"
# The daemons run in the foreground as this script's children: their PIDs are known and they are reaped.
munged_pid= ctld_pid= slurmd_pid=
stop() {  # stop PID NAME: SIGTERM, up to 10 s, then SIGKILL
  [ -n "$1" ] || return 0
  kill "$1" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$1" 2>/dev/null && echo "test-slurm: $2 did not stop on SIGTERM; killed"
  wait "$1" 2>/dev/null || true
}
cleanup() {
  local rc=$?
  set +e
  # Let finished steps complete (their slurmstepd reports to slurmctld through munge) before the daemons go.
  if [ -n "$ctld_pid" ]; then
    for _ in $(seq 100); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.2; done
  fi
  stop "$slurmd_pid" slurmd
  stop "$ctld_pid" slurmctld
  stop "$munged_pid" munged
  if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
    for log in "$work"/*.log; do [ -f "$log" ] && { echo "--- $log"; tail -n 20 "$log"; }; done
  fi
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
# wait_for WHAT PID TEST...: polls TEST for 30 s while PID lives; skips (77) naming WHAT if it never holds.
wait_for() {
  local what=$1 pid=$2
  shift 2
  for _ in $(seq 150); do
    "$@" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || skip "$what exited: $(tail -n 2 "$work/$what.log" "$work/$what.err" 2>/dev/null | grep -v '^==' | tail -n 1)"
    sleep 0.2
  done
  skip "$what did not come up within 30 s"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

echo "== munged"
mungekey --create --keyfile="$work/munge.key" >/dev/null 2>&1 ||
  { dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 2>/dev/null; chmod 0400 "$work/munge.key"; }
munged --foreground --force --socket="$work/munge.sock" --key-file="$work/munge.key" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munge.seed" 2>"$work/munged.err" &
munged_pid=$!
wait_for munged "$munged_pid" test -S "$work/munge.sock"

host=$(hostname -s)
ctl_port=$(free_port) d_port=$(free_port)
mkdir -p "$work/state" "$work/spool" "$work/tmp"
cat >"$work/slurm.conf" <<EOF
ClusterName=rdsmtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge.sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
TmpFS=$work/tmp
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/linear
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
InactiveLimit=0
KillWait=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 State=UNKNOWN
PartitionName=rdsm Nodes=$host Default=YES MaxTime=10 State=UP OverSubscribe=YES
EOF
export SLURM_CONF=$work/slurm.conf

echo "== slurmctld and slurmd (ports $ctl_port, $d_port)"
slurmctld -D -i 2>"$work/slurmctld.err" &
ctld_pid=$!
ctld_up() { scontrol ping | grep -q "is UP"; }
wait_for slurmctld "$ctld_pid" ctld_up
slurmd -D 2>"$work/slurmd.err" &
slurmd_pid=$!
node_up() { sinfo -h -o %T | grep -qE '^(idle|mixed|allocated)'; }
wait_for slurmd "$slurmd_pid" node_up

echo "== programs built with rdsmcc"
"$build/bin/rdsmcc" -O2 -std=c11 "$src/generic_c11.c" -o "$work/shmem_prog"
"$build/bin/rdsmcc" -O2 -std=c11 "$src/dsm_c.c" -o "$work/dsm_prog"
"$build/bin/rdsmcc" -O2 -std=c11 "$src/kill_pe.c" -o "$work/kill_prog"
cd "$work"

# The PEs' own files go here (srun passes the environment on): nothing may be left once the steps ended.
mkdir -p "$work/shm"
export RDSM_SHM_DIR=$work/shm
echo "== srun --mpi=pmix -n 4: OpenSHMEM"
timeout 60 srun --mpi=pmix -n 4 ./shmem_prog | tee "$work/shmem.out" | grep -x "generic_c11: ok"
echo "== srun --mpi=pmix -n 4: DSM"
timeout 60 srun --mpi=pmix -n 4 ./dsm_prog | tee "$work/dsm.out" | grep -x "dsm_c: ok"
echo "== srun --mpi=pmix -n 4: task 2 killed"
set +e
timeout 60 srun --mpi=pmix -n 4 ./kill_prog >"$work/kill.out" 2>&1
rc=$?
set -e
cat "$work/kill.out"
[ $rc -ne 0 ] && [ $rc -ne 124 ] || { echo "test-slurm: the step with a killed task ended with status $rc"; exit 1; }
grep -qE "task 2: Killed" "$work/kill.out" || { echo "test-slurm: srun did not name task 2"; exit 1; }
# The killed step's job ends (its other tasks were ended too) within 20 s.
for _ in $(seq 100); do [ -z "$(squeue -h)" ] && break; sleep 0.2; done
[ -z "$(squeue -h)" ] || { echo "test-slurm: a job is left after the killed task:"; squeue; exit 1; }
left=$(ls -A "$work/shm")
[ -z "$left" ] || { echo "test-slurm: the PEs left files behind in RDSM_SHM_DIR: $left"; exit 1; }
echo "test-slurm: OpenSHMEM and DSM programs ran under srun --mpi=pmix -n 4; a killed task ended its step"
