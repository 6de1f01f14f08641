#!/usr/bin/env python3
"""Generates the OpenSHMEM profiling interface: pshmem_* names for every routine the library defines.

Usage: profiling_names.py <nm> <preprocessed shmem.h> <out linker script> <out pshmem.h> <object files...>
The linker script aliases pshmem_X to shmem_X for each shmem_X defined in the objects; pshmem.h declares
each pshmem_X with the prototype of shmem_X taken from the preprocessed shmem.h.
"""
import re
import subprocess
import sys

nm, preprocessed, out_ld, out_h, *objects = sys.argv[1:]
names = set()
for line in subprocess.run([nm, "--defined-only", "-g", *objects], check=True, capture_output=True,
                           text=True).stdout.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "TW" and re.fullmatch(r"shmem_\w+", parts[2]):
        names.add(parts[2])
names = sorted(names)

with open(out_ld, "w") as f:
    f.write("/* Generated: the profiling names of the OpenSHMEM routines (pshmem_X is shmem_X). */\n")
    for n in names:
        f.write(f"p{n} = {n};\n")

text = open(preprocessed).read()
decls = {}
for stmt in re.split(r";", text):
    stmt = " ".join(stmt.split())
    m = re.search(r"\b(shmem_\w+)\)?\s*\(", stmt)  # "(name)(" keeps a same-named macro away
    if not m or "extern" in stmt and "(" not in stmt:
        continue
    name = m.group(1)
    if name in names and name not in decls and "{" not in stmt:
        stmt = re.sub(r"__attribute__\(\(visibility\(\"default\"\)\)\)\s*", "", stmt)
        stmt = re.sub(r"^.*?\}\s*", "", stmt)  # drop anything before the declaration
        decls[name] = re.sub(r"\b" + name + r"\b", "p" + name, stmt, count=1)

with open(out_h, "w") as f:
    f.write("/* Generated: profiling names (pshmem_*) of rdsm's OpenSHMEM routines. */\n")
    f.write("#ifndef RDSM_PSHMEM_H\n#define RDSM_PSHMEM_H\n#include <shmem.h>\n")
    f.write("#ifdef __cplusplus\nextern \"C\" {\n#endif\n")
    for n in names:
        if n in decls:
            f.write(decls[n] + ";\n")
    f.write("#ifdef __cplusplus\n}\n#endif\n#endif\n")
missing = [n for n in names if n not in decls]
if missing:
    sys.exit("profiling_names.py: no prototype found for " + ", ".join(missing[:10]))
