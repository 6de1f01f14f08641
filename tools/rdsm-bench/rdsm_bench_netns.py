"""rdsm-bench netns: shmem_bench across two network namespaces beside the link's own limits (ucx_perftest).

Imported by rdsm-bench; also run as a program inside the namespaces, one per "host", to drive ucx_perftest
(`perftest-pe`: rank 1 serves, rank 0 is the client and prints one PERFTEST line per test).

Every figure of a run comes from that run: the link's latency and bandwidth (ucx_perftest over the veth
and bridge that tests/multihost/netns_job.sh builds, UCX_TLS=tcp), shmem_bench with 1 + 1 PEs (RMA, AMOs,
signals against the link), and with 2 + 2 and 4 + 4 PEs (barrier and collectives against cost models whose
alpha and beta are this run's ucx_perftest put latency and 1 MiB bandwidth; beside them the same PEs on one
host, where the network plays no part). With --rounds above 1 the
ucx_perftest and 1 + 1 runs alternate and each figure is the median of its runs.
"""
import csv, math, os, shutil, statistics, subprocess, sys, time

PORT = 13337  # ucx_perftest's control connection (inside the job's own namespaces)
SERVER_ADDR = "10.213.0.2"  # rank 1's address in netns_job.sh (host 1)
MIB = 1 << 20
# name -> (ucx_perftest test, message size, extra arguments); latencies one operation in flight (-O 1),
# bandwidth with 16 in flight, as shmem_bench's put_bw/get_bw keep at 1 MiB (a window of 16 MiB).
PERFTESTS = {
    "put_lat": ("ucp_put_lat", 8, []),
    "get_lat": ("ucp_get", 8, ["-O", "1"]),
    "fadd_lat": ("ucp_fadd", 8, ["-O", "1"]),
    "put_bw": ("ucp_put_bw", MIB, ["-O", "16"]),
    "get_bw": ("ucp_get", MIB, ["-O", "16"]),
}
RMA_BENCHES = ["put_lat", "get_lat", "put_bw", "get_bw", "amo", "signal", "put_pp", "barrier"]
COLL_BENCHES = ["barrier", "broadcast", "fcollect", "alltoall", "reduce"]
COLLECTIVES = ("broadcast", "fcollect", "alltoall", "reduce_sum")
REDUCE_EXCHANGE = 64 << 10
ALLTOALL_AGGREGATE, WORLD_AREA = 64 << 10, 256 << 10  # RDSM_COLL_ALLTOALL_AGGREGATE; a quarter of the world's scratch  # RDSM_COLL_REDUCE_EXCHANGE's default (src/common/config.def)
LAT_BOUND, BW_BOUND, MODEL_BOUND = 1.15, 0.9, 1.3  # issue 11's acceptance


def add_parser(sub):
    p = sub.add_parser("netns", help="across two network namespaces, beside ucx_perftest over the same link (root)")
    p.add_argument("--quick", action="store_true", help="few sizes and samples, 4 PEs only (tests)")
    p.add_argument("--out", default=None, help="directory for the table, CSV and logs")
    p.add_argument("--rounds", type=int, default=None,
                   help="ucx_perftest and 1 + 1 shmem_bench runs, alternately (default 2; --quick: 1)")
    p.add_argument("--pes", default=None, help="PE counts of the barrier and collective runs, split evenly over "
                   "the two namespaces (default 4,8; --quick: 4)")
    return p


# ---- inside the namespaces: one ucx_perftest per test, server on rank 1, client on rank 0 -----------------
def perftest_pe(argv):
    quick = argv[:1] == ["--quick"]
    names = argv[1:] if quick else argv
    rank = int(os.environ.get("RDSM_RANK", "-1"))
    env = dict(os.environ, UCX_TLS="tcp")
    exe = shutil.which("ucx_perftest")
    if exe is None:
        print("PERFTEST-ERROR ucx_perftest not found (apt-get install ucx-utils)", flush=True)
        return 1
    if rank == 1:
        for _ in names:  # the server serves one test, then exits
            p = subprocess.run([exe, "-p", str(PORT), "-c", "1"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                print(f"PERFTEST-ERROR server status {p.returncode}: {p.stdout[-500:]}", flush=True)
                return 1
        return 0
    if rank != 0:
        return 0
    for name in names:
        test, size, extra = PERFTESTS[name]
        iters = (2000 if quick else 10000) if size < MIB else (50 if quick else 400)
        cmd = [exe, SERVER_ADDR, "-p", str(PORT), "-c", "0", "-t", test, "-s", str(size), "-n", str(iters),
               "-w", str(max(iters // 10, 10)), "-f", "-v"] + extra
        for attempt in range(200):  # until the server listens (it restarts between tests)
            p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode == 0 or "connect() failed" not in p.stdout:
                break
            time.sleep(0.05)
        lines = [l.strip() for l in p.stdout.splitlines() if l.strip()[:1].isdigit() and l.count(",") == 7]
        if p.returncode != 0 or not lines:
            print(f"PERFTEST-ERROR {name}: status {p.returncode}: {p.stdout[-500:]}", flush=True)
            return 1
        print(f"PERFTEST,{name},{size},{lines[-1]}", flush=True)
    return 0


def parse_perftest(text):
    """PERFTEST lines -> {name: value}: latency in ns (the median), bandwidth in MB/s of 10^6 bytes (ucx_perftest
    prints MiB/s: 2^20 bytes)."""
    res = {}
    for line in text.splitlines():
        if line.startswith("PERFTEST,"):
            f = line.split(",")
            name, lat_us, bw_mib = f[1], float(f[4]), float(f[8])
            res[name] = bw_mib * MIB / 1e6 if name.endswith("_bw") else lat_us * 1e3
    return res


# ---- driving the runs -----------------------------------------------------------------------------------
def run_job(tools, label, layout, prog_args, out, timeout, env_extra=None):
    env = dict(os.environ, LAYOUT=layout, PE_TIMEOUT=str(timeout), SHMEM_SYMMETRIC_SIZE="64M")
    env.update(env_extra or {})
    cmd = ["bash", tools.NETNS_JOB] + prog_args[:1] + [".*"] + prog_args[1:]
    print(f"rdsm-bench: {label}: LAYOUT={layout} {' '.join(cmd)}", file=sys.stderr)
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout + 60)
        text, status = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        text = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        status = "timeout"
    with open(os.path.join(out, f"{label}.log"), "w") as f:
        f.write(text)
    if status != 0 or "netns job ok" not in text:
        sys.exit(f"rdsm-bench: {label} failed (status {status}); output in {out}/{label}.log")
    return text


def median_rows(runs):
    """{key: row} per run -> {key: row with the median of the runs' medians}."""
    keys = set().union(*(r.keys() for r in runs)) if runs else set()
    res = {}
    for k in keys:
        same = [r[k] for r in runs if k in r]
        res[k] = dict(same[0], median=statistics.median(x["median"] for x in same), runs=len(same))
    return res


def measure(args, tools):
    quick = args.quick
    timeout = 300 if quick else 1800
    exe = tools.find([os.path.join(tools.HERE, "..", "bench", "shmem_bench"),
                      os.path.join(tools.HERE, "..", "libexec", "rdsm", "shmem_bench")], "shmem_bench")
    me = os.path.realpath(__file__)
    bench_opts = (["--quick"] if quick else ["--budget", "0.1", "--samples", "500"]) + ["--impl", "rdsm"]
    link_runs, rma_runs = [], []
    for k in range(args.rounds):
        text = run_job(tools, f"perftest-r{k + 1}", "1,1",
                       [sys.executable, me, "perftest-pe"] + (["--quick"] if quick else []) + list(PERFTESTS),
                       args.out, timeout)
        link_runs.append(parse_perftest(text))
        missing = [n for n in PERFTESTS if n not in link_runs[-1]]
        if missing:
            sys.exit(f"rdsm-bench: ucx_perftest gave no {', '.join(missing)}; output in {args.out}/perftest-r{k + 1}.log")
        text = run_job(tools, f"rma-1+1-r{k + 1}", "1,1",
                       [exe] + RMA_BENCHES + bench_opts + ["--max-size", str(MIB)], args.out, timeout)
        rma_runs.append(tools.parse_output(text, "rdsm", f"rma-r{k + 1}", "netns")[0])
    link = {n: statistics.median(r[n] for r in link_runs) for n in PERFTESTS}
    coll, host = {}, {}
    for n in args.pes:
        text = run_job(tools, f"coll-{n // 2}+{n // 2}", f"{n // 2},{n // 2}", [exe] + COLL_BENCHES + bench_opts,
                       args.out, timeout)
        coll[n] = tools.parse_output(text, "rdsm", f"coll-np{n}", "netns")[0]
        # The same PEs on one host (shared memory, no network): what the oversubscribed CPUs cost by themselves
        host[n] = tools.parse_output(run_host(tools, n, [exe] + COLL_BENCHES + bench_opts, args.out, timeout),
                                     "rdsm", f"host-np{n}", "shm")[0]
        for line in text.splitlines():
            if "WRONG RESULT" in line:
                tools.WRONG.append(f"{n // 2} + {n // 2} PEs: {line.lstrip('# ')}")
    return link, link_runs, median_rows(rma_runs), coll, host


def run_host(tools, n, cmd, out, timeout):
    rdsmrun = tools.find([os.path.join(tools.HERE, "rdsmrun")], "rdsmrun")
    cmd = [rdsmrun, "-n", str(n), "--timeout", str(timeout)] + cmd
    label = f"host-np{n}"
    print(f"rdsm-bench: {label}: {' '.join(cmd)}", file=sys.stderr)
    p = subprocess.run(cmd, env=dict(os.environ, SHMEM_SYMMETRIC_SIZE="64M"), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout + 60)
    with open(os.path.join(out, f"{label}.log"), "w") as f:
        f.write(p.stdout)
    if p.returncode != 0:
        sys.exit(f"rdsm-bench: {label} failed (status {p.returncode}); output in {out}/{label}.log")
    for line in p.stdout.splitlines():
        if "WRONG RESULT" in line:
            tools.WRONG.append(f"{n} PEs on one host: {line.lstrip('# ')}")
    return p.stdout


# ---- cost models of the algorithms across hosts in src/core/group_hier.cpp -------------------------------
def models(alpha, beta):
    """Model functions (PEs, bytes) -> ns for two hosts of m = P/2 PEs each. alpha: one-way latency of an
    8-byte put (ucx_perftest ucp_put_lat); beta: ns per byte at the link's bandwidth (the better of ucp_put_bw
    and ucp_get at 1 MiB). Work within a host (stores into mapped memory, CPU atomics) counts as free; a
    signal travels behind its data (no flush); bytes crossing the link in one direction are serialized there
    (one TCP path between the two hosts). With H hosts the leaders' part costs ceil(log2 H) rounds; H = 2."""
    def barrier(p, n=0):  # members meet their leader; the two leaders signal each other (one round)
        return alpha

    def broadcast(p, n):  # the other host's leader tells the root it entered (alpha), the root puts n across
        return 2 * alpha + n * beta

    def fcollect(p, n):  # each leader puts its host's m blocks to the other leader, at the same time
        m = p // 2
        return alpha + m * n * beta

    def alltoall(p, n):  # m*m blocks cross each way: one message between leaders (when they fit the
        m = p // 2       # scratch), or m*m direct puts after a barrier (alpha)
        aggregated = n <= ALLTOALL_AGGREGATE and m * m * n <= WORLD_AREA
        return (1 if aggregated else 2) * alpha + m * m * n * beta

    def reduce(p, n):
        if n <= REDUCE_EXCHANGE:  # the leaders exchange their hosts' partial results
            return alpha + n * beta
        # a sync of the leaders (alpha); each gets the other's half (a round trip) and puts its combined half
        # back (alpha): n/2 bytes cross each way twice
        return 4 * alpha + n * beta

    return {"barrier_all": barrier, "broadcast": broadcast, "fcollect": fcollect, "alltoall": alltoall,
            "reduce_sum": reduce}


MODEL_TEXT = {
    "barrier_all": "a (one round between the hosts' leaders)",
    "broadcast": "2a + n b (entry, one put across)",
    "fcollect": "a + m n b (each host's blocks cross once)",
    "alltoall": "a + m^2 n b (fits 256 KiB: via leaders); 2a + m^2 n b (direct, after a barrier)",
    "reduce_sum": "a + n b (<= 64 KiB: partials exchanged); 4a + n b (halves read and written)",
}


# ---- the table ------------------------------------------------------------------------------------------
def rows_of(link, rma, coll, host=None):
    """(operation, size, PEs, rdsm, unit, reference name, reference value, ratio, bound, kind) per row. The
    ratio is rdsm / reference: a time meets its target at <= bound, a bandwidth at >= bound (kind says
    which); bound None: shown for information, no target. A twelfth field: the same operation with the same
    PEs all on one host (host: {PEs: rows}), or None."""
    res = []

    def rma_row(op, key, ref_name, ref, bound, kind):
        r = rma.get(key)
        if r is None or ref <= 0:
            return
        ratio = r["median"] / ref
        res.append((op, key[2], 2, r["median"], r["unit"], ref_name, ref, ratio, bound, kind, None))

    rma_row("put latency (8-byte put ping-pong, one way)", ("put_pingpong", "heap", 8), "ucp_put_lat",
            link["put_lat"], LAT_BOUND, "<=")
    rma_row("put + quiet (round trip)", ("put_lat", "heap", 8), "2 x ucp_put_lat", 2 * link["put_lat"], None, "<=")
    rma_row("get latency", ("get_lat", "heap", 8), "ucp_get -O 1", link["get_lat"], LAT_BOUND, "<=")
    rma_row("fetch_add latency", ("amo_fetch_add", "heap", 8), "ucp_fadd -O 1", link["fadd_lat"], LAT_BOUND, "<=")
    rma_row("put bandwidth", ("put_bw", "heap", MIB), "ucp_put_bw", link["put_bw"], BW_BOUND, ">=")
    rma_row("get bandwidth", ("get_bw", "heap", MIB), "ucp_get -O 16", link["get_bw"], BW_BOUND, ">=")
    rma_row("put_signal (ping-pong, one way)", ("put_signal", "heap", 8), "ucp_put_lat", link["put_lat"], None, "<=")
    alpha = link["put_lat"]
    # MB/s (10^6 B/s) -> ns per byte, at the better of ucx_perftest's two 1 MiB figures: the link carries at
    # least that much, and a slower put figure alone would make every model generous
    beta = 1e3 / max(link["put_bw"], link["get_bw"])
    model = models(alpha, beta)
    barrier = rma.get(("barrier_all", "-", 0))
    if barrier:
        res.append(("barrier_all", 0, 2, barrier["median"], "ns", MODEL_TEXT["barrier_all"], model["barrier_all"](2),
                    barrier["median"] / model["barrier_all"](2), MODEL_BOUND, "<=", None))
    for p in sorted(coll):
        rows, one = coll[p], (host or {}).get(p, {})
        for k in [("barrier_all", "-", 0)] + [k for b in COLLECTIVES for k in sorted(k for k in rows if k[0] == b)]:
            if k not in rows:
                continue
            ref = model[k[0]](p, k[2])
            res.append((k[0], k[2], p, rows[k]["median"], "ns", MODEL_TEXT[k[0]], ref, rows[k]["median"] / ref,
                        MODEL_BOUND, "<=", one[k]["median"] if k in one else None))
    return res, alpha, beta


def cmd_netns(args, tools):
    if not args.quick and args.rounds is None:
        args.rounds = 2
    args.rounds = args.rounds or 1
    args.pes = [int(x) for x in (args.pes or ("4" if args.quick else "4,8")).split(",") if x]
    if any(p < 2 or p % 2 for p in args.pes):
        sys.exit("rdsm-bench: --pes: even PE counts of 2 or more (split evenly over two namespaces)")
    if shutil.which("ucx_perftest") is None:
        sys.exit("rdsm-bench: ucx_perftest not found (apt-get install ucx-utils)")
    link, link_runs, rma, coll, host = measure(args, tools)
    rows, alpha, beta = rows_of(link, rma, coll, host)
    print(f"rdsm across two network namespaces (veth + bridge, UCX_TLS=tcp), {args.rounds} round(s); "
          f"the link by ucx_perftest in the same run:")
    for n, (test, size, extra) in PERFTESTS.items():
        unit = "MB/s" if n.endswith("_bw") else "ns"
        each = ", ".join(tools.fmt(r[n], unit) for r in link_runs)
        print(f"  {test} {' '.join(extra)} {size} B: {tools.fmt(link[n], unit)} (runs: {each})")
    print(f"cost models: a = ucp_put_lat = {tools.fmt(alpha, 'ns')}, b = 1 / max(ucp_put_bw, ucp_get 1 MiB) = "
          f"{beta:.3g} ns/B; "
          f"m PEs per host, P PEs; collectives across hosts (src/core/group_hier.cpp), load/store within a host counted free")
    lines = [("operation", "size", "PEs", "rdsm", "reference", "ref. value", "ratio", "target", "result",
              "one host")]
    table = [["operation", "size", "pes", "unit", "rdsm", "reference", "reference_value", "ratio", "target", "result",
              "one_host"]]
    met = missed = 0
    for op, size, pes, val, unit, ref_name, ref, ratio, bound, kind, one in rows:
        shown = ratio
        if bound is None:
            target, result = "-", "(info)"
        else:
            ok = shown <= bound if kind == "<=" else shown >= bound
            target, result = f"{kind} {bound}", "met" if ok else "MISSED"
            met, missed = met + ok, missed + (not ok)
        pe_text = "1+1" if pes == 2 else f"{pes // 2}+{pes // 2}"
        lines.append((op, size, pe_text, tools.fmt(val, unit), ref_name, tools.fmt(ref, unit), f"{shown:.3g}",
                      target, result, "-" if one is None else tools.fmt(one, unit)))
        table.append([op, size, pes, unit, f"{val:.6g}", ref_name, f"{ref:.6g}", f"{shown:.4g}", target, result,
                      "" if one is None else f"{one:.6g}"])
    print("ratio: rdsm / reference (times: <= target is met; bandwidth in MB/s of 10^6 B/s: >= target is met); "
          "one host: the same PEs all on one host (shared memory, no network), for comparison")
    tools.print_table(lines, args.out, "netns-table.txt")
    with open(os.path.join(args.out, "netns.csv"), "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(table)  # operations contain commas: quoted
    print(f"targets: {met} met, {missed} missed")
    tools.report_wrong()
    print(f"rdsm-bench: wrote {args.out}/netns-table.txt and {args.out}/netns.csv")


if __name__ == "__main__":
    if sys.argv[1:2] == ["perftest-pe"]:
        sys.exit(perftest_pe(sys.argv[2:]))
    sys.exit("usage: rdsm_bench_netns.py perftest-pe [--quick] test... (run by rdsm-bench netns)")
