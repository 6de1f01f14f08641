"""rdsm-bench's DSM part: dsm_bench (rdsm's DSM: faults, barrier, kernels on 1 and 2 PEs; rdsm only), its rows
in rdsm-bench's tables, its legend, and its targets against its limits.

Imported by rdsm-bench, whose run and compare commands call it. The driver's helpers (find, fmt, parse_output,
print_table, mode_of, HERE, NETNS_JOB, WRONG) come in as `tools`, as for rdsm_bench_netns.py: this module
imports nothing of the driver's (rdsm-bench is a configured script, not an importable module).
"""
import os, statistics, subprocess, sys

DSM_ERRORS = []  # dsm_bench runs that failed (status, timeout)
# --dsm-modes value -> suffix of dsm_bench's mem field. release-copy: release with RDSM_DSM_SAME_HOST=copy, the
# protocol's copies on one host (what runs between hosts), beside the default that maps other homes' pages.
MODE_TAG = {"release": "rc", "release-copy": "rcopy", "sequential": "sc"}
KERNELS = ("dsm_jacobi", "dsm_matmul", "dsm_histogram")
BARRIER_FLAT = 1.25  # "flat": the DSM barrier with the most cached unchanged pages within 1.25x of none, each
                     # relative to the shmem_barrier_all calls timed alternately with it (the vCPUs here drift
                     # between a near and a far mode within a run: the alternate reference cancels that)


def dsm_exe(tools):
    for c in (os.path.join(tools.HERE, "..", "bench", "dsm_bench"),
              os.path.join(tools.HERE, "..", "libexec", "rdsm", "dsm_bench")):
        if os.path.exists(c):
            return c
    return None


def run_dsm(args, out, tools):
    """dsm_bench per consistency mode: faults, barrier and the checked kernels on 2 PEs, the checked kernels on
    1 PE, then --kernel-rounds - 1 more runs of the checked kernels alone on 2 and 1 PEs, alternately (the machine
    drifts between runs); a kernel's figure, and its serial run's, is the median of its runs' medians. Returns [dict(mode, np, rows, clx,
    clx_end)]."""
    exe = dsm_exe(tools)
    if exe is None:
        print("rdsm-bench: dsm_bench not found: no DSM figures", file=sys.stderr)
        return []
    rdsmrun = tools.find([os.path.join(tools.HERE, "rdsmrun")], "rdsmrun")
    timeout = 300 if args.quick else 1200
    sizes = ["--quick", "--jacobi", "512,10", "--matmul", "256", "--hist", "262144,256,1024"] if args.quick else []
    results = []
    for mode in args.dsm_modes:
        plan = [(2, ["fault", "barrier", "kernels", "--check"], ""), (1, ["kernels", "--check"], "")]
        for k in range(1, args.kernel_rounds):
            plan += [(2, ["kernels", "--check"], f"-k{k + 1}"), (1, ["kernels", "--check"], f"-k{k + 1}")]
        runs = {}
        netns = []
        # Two "hosts": 1 + 1 PEs (faults, kernels), 2 + 2 PEs (kernels), and 4 PEs on one host (the same CPUs
        # shared by as many PEs: what the 2 + 2 run costs beyond oversubscription). Not for release-copy:
        # between hosts release mode copies anyway.
        if args.netns and mode != "release-copy":
            netns = [(2, ["fault", "kernels"], "-netns"), (4, ["kernels"], "-netns"), (4, ["kernels"], "-host4")]
        for n, what, suffix in plan + netns:
            env = dict(os.environ, RDSM_DSM_CONSISTENCY=mode.split("-")[0])
            if mode == "release-copy":
                env["RDSM_DSM_SAME_HOST"] = "copy"
            if args.tcp:
                env["UCX_TLS"] = "tcp,self"
            cmd = [rdsmrun, "-n", str(n), "--timeout", str(timeout), exe] + what + ["--impl", "rdsm"] + sizes
            if suffix == "-netns":
                env.update(PER_HOST=str(n // 2), PE_TIMEOUT=str(timeout))
                cmd = ["bash", tools.NETNS_JOB, exe, ".*"] + what + ["--impl", "rdsm"] + sizes
            label = f"dsm-{mode}-np{n}{suffix}"
            print(f"rdsm-bench: {label}: RDSM_DSM_CONSISTENCY={env['RDSM_DSM_CONSISTENCY']} "
                  f"{'RDSM_DSM_SAME_HOST=copy ' if mode == 'release-copy' else ''}{'UCX_TLS=tcp,self ' if args.tcp else ''}"
                  f"{' '.join(cmd)}", file=sys.stderr)
            try:
                p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, timeout=timeout + 30)
                text, status = p.stdout, p.returncode
            except subprocess.TimeoutExpired as e:
                text, status = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), "timeout"
            with open(os.path.join(out, f"{label}.log"), "w") as f:
                f.write(text)
            for line in text.splitlines():
                if "WRONG RESULT" in line and "WRONG RESULTS:" not in line:
                    tools.WRONG.append(f"{label}: {line.lstrip('# ')}")
                    print(f"rdsm-bench: {tools.WRONG[-1]}", file=sys.stderr)
            if status != 0:
                DSM_ERRORS.append(f"{label}: dsm_bench ended with status {status}; output in {out}/{label}.log")
                print(f"rdsm-bench: {DSM_ERRORS[-1]}", file=sys.stderr)
            rows, clx, clx_end = tools.parse_output(text, "rdsm", label, "tcp" if args.tcp else "shm")
            if suffix in ("-netns", "-host4"):
                results.append(dict(mode=mode, np=n, rows=rows, clx=clx, clx_end=clx_end, where=suffix[1:]))
                continue
            runs.setdefault(n, []).append(dict(mode=mode, np=n, rows=rows, clx=clx, clx_end=clx_end, where="host"))
        for n in (2, 1):
            if n not in runs:
                continue
            first = runs[n][0]
            for k, r in first["rows"].items():  # kernels: the median of the runs' medians
                if k[0] in KERNELS and k[1] != "serial":
                    same = [x["rows"][k] for x in runs[n] if k in x["rows"]]
                    med = statistics.median(x["median"] for x in same)
                    # Each run times the serial kernel after each of its DSM runs: the median of those medians.
                    serials = [x["median"] / x["ratio"] for x in same if x["ratio"] > 0]
                    serial = statistics.median(serials) if serials else 0
                    first["rows"][k] = dict(r, median=med, ratio=med / serial if serial else 0,
                                            p99=max(x["p99"] for x in same), samples=sum(x["samples"] for x in same),
                                            run=f"{r['run']}+{len(same) - 1}")
            results.append(first)
    return results


def dsm_find(results, mode, n, bench, mem=None, size=None, where="host"):
    for res in results:
        if res["mode"] == mode and res["np"] == n and res["where"] == where:
            tag = MODE_TAG[mode]
            hits = [r for k, r in res["rows"].items() if k[0] == bench and (mem is None or k[1] == f"{mem}-{tag}"
                                                                            or k[1] == mem) and (size is None or k[2] == size)]
            return hits
    return []


def dsm_rows(results, tools):
    """Table rows (operation, size, median, p99, ratio text) for the DSM runs, one block per consistency mode."""
    lines = []
    for mode in dict.fromkeys(r["mode"] for r in results):
        tag = MODE_TAG[mode]
        two = next((r for r in results if r["mode"] == mode and r["np"] == 2 and r["where"] == "host"), None)
        one = next((r for r in results if r["mode"] == mode and r["np"] == 1 and r["where"] == "host"), None)
        four = next((r for r in results if r["mode"] == mode and r["where"] == "host4"), None)
        for res in (two, one):
            if res is None:
                continue
            for k, r in res["rows"].items():
                b, mem, size = k
                if b in ("limit_clx", "limit_clx_end"):
                    continue
                if b.startswith("limit_"):
                    if mode != next(iter(dict.fromkeys(x["mode"] for x in results))):
                        continue  # the limits once (from the first mode's run)
                    op, sz, ratio = f"{b}/{mem}", f"{size}", ""
                elif b in ("dsm_read_fault", "dsm_write_fault"):
                    op, sz = f"{b}/{mem}", f"{size}"
                    ratio = f"{r['ratio']:.3g}x limit" if r["ratio"] > 0 else ""
                    floor = sc_floor(res["rows"], mem)
                    if mode == "sequential" and floor > 0:
                        ratio += f", {r['median'] / floor:.3g}x SC floor"
                elif b == "dsm_barrier":
                    op, sz = f"{b}/{mem}", f"{size} page{'' if size == 1 else 's'}"
                    zero = res["rows"].get((b, f"cached-{tag}", 0))
                    ratio = f"{r['median'] / zero['median']:.3g}x 0 pages, " if zero and zero["median"] > 0 else ""
                    ratio += f"{r['ratio']:.3g}x barrier_all" if r["ratio"] > 0 else ""
                elif mem.startswith("handoff"):  # the histogram's time per lock hand-off between PEs
                    op, sz = f"{b}/{mem} (per lock hand-off)", f"n={size}"
                    ratio = f"{r['ratio']:.3g}x (fetch-add + fault limit)" if r["ratio"] > 0 else ""
                elif mem == "threads2":  # the machine's limit: 2 threads of one process, private memory
                    op, sz = f"{b}/threads2 (limit: 2 threads, private memory)", f"n={size}"
                    np1 = res["rows"].get((b, f"np1-{tag}", size))  # what 2 CPUs can gain here at best
                    ratio = f"{r['median'] / np1['median']:.3g}x 1 PE" if np1 and np1["median"] > 0 else ""
                else:  # kernels: npN-tag (ratio to the serial run) or serial
                    op, sz = f"{b}/{mem}" + ("" if mem != "serial" else f" ({res['np']} PE run)"), f"n={size}"
                    ratio = f"{r['ratio']:.3g}x serial" if r["ratio"] > 0 else ""
                    if res["np"] == 2 and one is not None and mem != "serial":
                        parts = []
                        for other, what in (((b, f"np1-{tag}", size), "1 PE"), ((b, "threads2", size), "2-thread limit")):
                            if other in one["rows"] and one["rows"][other]["median"] > 0:
                                parts.append(f"{r['median'] / one['rows'][other]['median']:.3g}x {what}")
                        ratio = ", ".join(parts) or ratio
                    if mem == "serial" and res["np"] == 1:
                        continue  # the 2-PE run's serial time is shown
                lines.append((op, sz, tools.fmt(r["median"], r["unit"]), tools.fmt(r["p99"], r["unit"]), ratio))
        for res in (r for r in results if r["mode"] == mode and r["where"] in ("netns", "host4")):
            for k, r in res["rows"].items():
                b, mem, size = k
                if b.startswith("limit_clx") or b == "dsm_barrier" or mem == "serial":
                    continue
                ratio = ""
                if b in ("dsm_read_fault", "dsm_write_fault") and r["ratio"] > 0:
                    ratio = f"{r['ratio']:.3g}x limit"
                elif b in KERNELS and mem.startswith("np"):
                    parts = []
                    for run, n in ((two, 2), (four if res["np"] == 4 and res is not four else None, 4)):
                        k = (b, f"np{n}-{tag}", size)
                        if run is not None and k in run["rows"] and run["rows"][k]["median"] > 0:
                            parts.append(f"{r['median'] / run['rows'][k]['median']:.3g}x {n} PEs of one host")
                    ratio = ", ".join(parts)
                op = f"{b}/{mem} ({res['np'] // 2} + {res['np'] // 2} PEs, two namespaces)"
                if res["where"] == "host4":
                    op = f"{b}/{mem} (4 PEs, one host)"
                lines.append((op, f"{size}", tools.fmt(r["median"], r["unit"]), tools.fmt(r["p99"], r["unit"]), ratio))
    return lines


def sc_floor(rows, mem):
    """What a sequential-mode fault of PE 1 on a page PE 0 holds costs at least on this machine: SIGSEGV+mprotect,
    PE 0's loss of access (limit_downgrade: mprotect while the other CPU runs) and, but for an upgrade, the page's
    get. 0 when the run has no limit_downgrade row."""
    def median(bench):
        return next((r["median"] for (b, _, _), r in rows.items() if b == bench), 0)
    segv, down, get = median("limit_segv"), median("limit_downgrade"), median("limit_get")
    if not (segv and down and get):
        return 0
    return segv + down + (0 if mem.startswith("upgrade") else get)


def dsm_targets(results):
    """The DSM targets (issue 15): (name, ratio, bound, met). Faults against SIGSEGV+mprotect + a page get
    (upgrade: SIGSEGV+mprotect alone); kernels against 1 PE, the 2-thread limit and the serial run."""
    res = []

    def add(name, ratio, bound):
        res.append((name, ratio, f"<= {bound}", ratio <= bound))

    for mode in dict.fromkeys(r["mode"] for r in results):
        tag = MODE_TAG[mode]
        fault_bound = 2.5 if mode == "sequential" else 1.5
        for bench, mem in (("dsm_read_fault", "remote"), ("dsm_write_fault", "upgrade"),
                           ("dsm_write_fault", "remote-owner")):
            for r in dsm_find(results, mode, 2, bench, mem):
                add(f"DSM {bench.split('_')[1]} fault ({mem}) vs its limit, {mode}", r["ratio"], fault_bound)
        cached = sorted(dsm_find(results, mode, 2, "dsm_barrier", "cached"), key=lambda r: r["size"])
        if len(cached) >= 2 and cached[0]["ratio"] > 0:
            add(f"DSM barrier, {cached[-1]['size']} cached unchanged pages vs {cached[0]['size']} (flat; each "
                f"/ shmem_barrier_all), {mode}", cached[-1]["ratio"] / cached[0]["ratio"], BARRIER_FLAT)
        for kernel in ("dsm_jacobi", "dsm_matmul"):
            for k2 in dsm_find(results, mode, 2, kernel, f"np2-{tag}"):
                name = f"DSM {kernel[4:]} n={k2['size']}"
                k1 = dsm_find(results, mode, 1, kernel, f"np1-{tag}", k2["size"])
                if k1 and k1[0]["median"] > 0:
                    add(f"{name}, 2 PEs vs 1 PE, {mode}", k2["median"] / k1[0]["median"], 0.7)
                t2 = dsm_find(results, mode, 1, kernel, "threads2", k2["size"])
                if t2 and t2[0]["median"] > 0:
                    add(f"{name}, 2 PEs vs 2-thread limit (private memory), {mode}", k2["median"] / t2[0]["median"], 1.2)
        for r in dsm_find(results, mode, 2, "dsm_histogram", "handoff"):
            if r["ratio"] > 0:
                add(f"DSM histogram, per lock hand-off vs (fetch-add + fault limit), {mode}", r["ratio"], 2.0)
        limit = {b: dsm_find(results, mode, 2, b, where="netns") for b in ("limit_segv", "limit_get", "limit_amo")}
        for r in dsm_find(results, mode, 2, "dsm_read_fault", "remote", where="netns"):
            if all(limit.values()):
                bound = sum(v[0]["median"] for v in limit.values())
                add(f"DSM read fault across namespaces vs (SIGSEGV+mprotect + get + fetch-add), {mode}",
                    r["median"] / bound, 1.3)
        for kernel in ("dsm_jacobi", "dsm_matmul"):
            for k4 in dsm_find(results, mode, 4, kernel, f"np4-{tag}", where="netns"):
                k2 = dsm_find(results, mode, 2, kernel, f"np2-{tag}", k4["size"])
                if k2 and k2[0]["median"] > 0:
                    add(f"DSM {kernel[4:]} n={k4['size']}, 2 + 2 PEs in two namespaces vs 2 PEs of one, {mode}",
                        k4["median"] / k2[0]["median"], 1.0)
        for kernel in KERNELS:
            for k1 in dsm_find(results, mode, 1, kernel, f"np1-{tag}"):
                if k1["ratio"] > 0:
                    add(f"DSM {kernel[4:]} n={k1['size']}, 1 PE vs serial, {mode}", k1["ratio"], 1.05)
    return res


def print_dsm(results, out, tools, table=True):
    """The DSM rows' legend, then (with `table`) their table; dsm-table.txt either way."""
    if not results:
        return
    clx = ", ".join(f"{r['mode']} {r['np']} PE: {r['clx']:.0f}/{r['clx_end']:.0f} ns ({tools.mode_of(r['clx'])})"
                    for r in results)
    print(f"DSM (rdsm only; OSHMEM has no DSM). mem -rc: RDSM_DSM_CONSISTENCY=release (other homes' pages mapped "
          f"on one host: a 'fault' row is then a first access, mostly none), -rcopy: release with "
          f"RDSM_DSM_SAME_HOST=copy (the protocol's copies, as between hosts), -sc: sequential. Faults: "
          f"PE 1 on pages of PE 0, ratio to this run's SIGSEGV+mprotect + one page get (upgrade: SIGSEGV+mprotect "
          f"alone; sequential mode also to its floor here, that limit plus limit_downgrade, PE 0's mprotect taking "
          f"access away while the other CPU runs). Barrier: slowest PE; ratios to the DSM barrier with 0 cached pages and to shmem_barrier_all timed "
          f"alternately with it (a drift of the machine shows in both). Kernels: slowest PE "
          f"(2 PEs: ratios to 1 PE and to the limit, threads2: each PE's rows done by a thread of one process on "
          f"private memory; threads2: ratio to 1 PE, what 2 CPUs gain at best; 1 PE: to the serial run in private "
          f"memory; the histogram also per lock hand-off, its time divided by the "
          f"acquisitions that took the lock from another PE, against one fetch-add round trip plus the fault limit). "
          f"limit_wake: a sleeping thread woken "
          f"from the other CPU (a cost, not a bound). "
          f"Cache-line transfer at start/end: {clx}")
    lines = [("operation", "size", "rdsm", "p99", "ratio")] + dsm_rows(results, tools)
    if table:
        tools.print_table(lines, out, "dsm-table.txt")
    else:
        with open(os.path.join(out, "dsm-table.txt"), "w") as f:
            widths = [max(len(str(r[i])) for r in lines) for i in range(len(lines[0]))]
            f.write("\n".join(" | ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in lines) + "\n")


def dsm_csv_rows(results):
    return [r for res in results for r in res["rows"].values()]


def report_dsm_errors():
    if DSM_ERRORS:
        print(f"DSM RUNS FAILED ({len(DSM_ERRORS)}):")
        for e in DSM_ERRORS:
            print(f"  {e}")
