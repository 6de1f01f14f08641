#!/usr/bin/env python3
"""Unit test of rdsm-bench netns's arithmetic (bench.netns_models): ucx_perftest's lines parsed into ns and
MB/s of 10^6 bytes, the cost models of the collectives across hosts worked by hand, and the table's ratios and
targets from made-up figures. Usage: test_netns_models.py <directory of rdsm_bench_netns.py>"""
import math, sys

sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import rdsm_bench_netns as nb  # noqa: E402

MIB = 1 << 20
failures = []


def near(name, got, want):
    if not math.isclose(got, want, rel_tol=1e-9):
        failures.append(f"{name}: {got} != {want}")


# ucx_perftest -f -v: iterations, median latency (us), average, overall, bandwidth (MiB/s) x2, rates x2
text = "noise\nPERFTEST,put_lat,8,2000,21.5,30.0,31.0,0.01,0.01,1000,1000\n" \
       "PERFTEST,put_bw,1048576,50,0.3,4000,4000,100.00,200.00,30,30\n"
got = nb.parse_perftest(text)
near("put_lat in ns", got["put_lat"], 21500.0)
near("put_bw in MB/s (overall, MiB -> 10^6 B)", got["put_bw"], 200.0 * MIB / 1e6)

a, b = 10.0, 2.0  # alpha ns, beta ns per byte
m = nb.models(a, b)
near("barrier 2", m["barrier_all"](2), 10)
near("barrier 4 (one round between the two leaders)", m["barrier_all"](4), 10)
near("barrier 8", m["barrier_all"](8), 10)
near("broadcast 4 PEs 8 B (entry, one put across)", m["broadcast"](4, 8), 2 * a + 8 * b)
near("broadcast 8 PEs 1 MiB", m["broadcast"](8, MIB), 2 * a + MIB * b)
near("fcollect 8 PEs (4 blocks cross)", m["fcollect"](8, 64), a + 4 * 64 * b)
near("alltoall 4 PEs (4 blocks cross)", m["alltoall"](4, 64), a + 4 * 64 * b)
near("alltoall 8 PEs (16 blocks cross)", m["alltoall"](8, 64), a + 16 * 64 * b)
near("alltoall 8 PEs 64 KiB (direct, after a barrier)", m["alltoall"](8, 65536), 2 * a + 16 * 65536 * b)
near("alltoall 4 PEs 64 KiB (via the leaders)", m["alltoall"](4, 65536), a + 4 * 65536 * b)
near("reduce 4 PEs 4 KiB (partials exchanged)", m["reduce_sum"](4, 4096), a + 4096 * b)
near("reduce 8 PEs 64 KiB (partials exchanged)", m["reduce_sum"](8, 65536), a + 65536 * b)
near("reduce 8 PEs 256 KiB (halves)", m["reduce_sum"](8, 262144), 4 * a + 262144 * b)

# The table: rdsm / reference; times meet <= bound, bandwidths >= bound.
link = {"put_lat": 1000.0, "get_lat": 2000.0, "fadd_lat": 2000.0, "put_bw": 100.0, "get_bw": 400.0}


def row(b, mem, size, median, unit):
    return {(b, mem, size): dict(bench=b, mem=mem, size=size, median=median, unit=unit)}


rma = {}
for r in (row("put_pingpong", "heap", 8, 1100.0, "ns"), row("get_lat", "heap", 8, 2400.0, "ns"),
          row("amo_fetch_add", "heap", 8, 2000.0, "ns"), row("put_bw", "heap", MIB, 95.0, "MB/s"),
          row("get_bw", "heap", MIB, 300.0, "MB/s"), row("barrier_all", "-", 0, 1200.0, "ns")):
    rma.update(r)
coll = {4: row("broadcast", "heap", 8, 5000.0, "ns")}
rows, alpha, beta = nb.rows_of(link, rma, coll, {4: row("broadcast", "heap", 8, 700.0, "ns")})
near("alpha", alpha, 1000.0)
near("beta from the better bandwidth (400 MB/s)", beta, 2.5)
by = {(r[0], r[1], r[2]): r for r in rows}
near("put latency ratio", by[("put latency (8-byte put ping-pong, one way)", 8, 2)][7], 1.1)
near("get bandwidth ratio", by[("get bandwidth", MIB, 2)][7], 0.75)
near("broadcast ratio", by[("broadcast", 8, 4)][7], 5000.0 / (2 * 1000.0 + 8 * 2.5))
near("broadcast on one host", by[("broadcast", 8, 4)][10], 700.0)
if by[("put latency (8-byte put ping-pong, one way)", 8, 2)][10] is not None:
    failures.append("a one-host figure on a 1 + 1 row")
if ("put_signal (ping-pong, one way)", 8, 2) in by:
    failures.append("a put_signal row without a put_signal figure")
if failures:
    print("\n".join(failures))
    sys.exit(1)
print("netns models ok")
