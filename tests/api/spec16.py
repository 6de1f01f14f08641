"""What OpenSHMEM 1.6 changed in the 1.5 API, as data for gen_prototype_test.py: the routines it added, the
prototypes it changed, its new constants and generic names, the behaviour it fixed, and the evidence for each
item in the specification's own sources (repository openshmem-org/specification)."""

from spec15 import RMA, REDUCE_ARITH, SYNC

# ---- Routines added by 1.6: (family, table, prototype template, with_ctx) as in spec15.TEMPLATES --------------
IB = "ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe"
ADDED = [
    ("setup", None, "void shmem_query_initialized(int *initialized)", False),
    ("teams", None, "void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)", False),
    ("rma ibput", RMA, "void shmem_{N}_ibput({T} *dest, const {T} *source, " + IB + ")", True),
    ("rma ibput", None, "void shmem_ibput{B}(void *dest, const void *source, " + IB + ")", True),
    ("rma ibget", RMA, "void shmem_{N}_ibget({T} *dest, const {T} *source, " + IB + ")", True),
    ("rma ibget", None, "void shmem_ibget{B}(void *dest, const void *source, " + IB + ")", True),
    ("signal", None, "void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)", True),
    ("signal", None, "void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)", True),
    ("ordering", None, "void shmem_pe_quiet(const int *target_pes, size_t npes)", True),
    ("sessions", None, "void shmem_ctx_session_start(shmem_ctx_t ctx, long options, "
                       "const shmem_ctx_session_config_t *config, long config_mask)", False),
    ("sessions", None, "void shmem_ctx_session_stop(shmem_ctx_t ctx)", False),
    ("scans", REDUCE_ARITH, "int shmem_{N}_sum_{OP}(shmem_team_t team, {T} *dest, const {T} *source, "
                            "size_t nelems)", ("inscan", "exscan")),
]

# ---- Prototypes 1.6 changed: 1.5 template -> 1.6 template (changelog item "Added a const qualifier to the
# cmp_values argument" of the *_vector point-to-point routines). ------------------------------------------------
CHANGED = {proto: proto.replace("{T} *cmp_values", "const {T} *cmp_values")
           for proto in (
               "void shmem_{N}_wait_until_all_vector({T} *ivars, size_t nelems, const int *status, int cmp, "
               "{T} *cmp_values)",
               "size_t shmem_{N}_wait_until_any_vector({T} *ivars, size_t nelems, const int *status, "
               "int cmp, {T} *cmp_values)",
               "size_t shmem_{N}_wait_until_some_vector({T} *ivars, size_t nelems, size_t *indices, "
               "const int *status, int cmp, {T} *cmp_values)",
               "int shmem_{N}_test_all_vector({T} *ivars, size_t nelems, const int *status, int cmp, "
               "{T} *cmp_values)",
               "size_t shmem_{N}_test_any_vector({T} *ivars, size_t nelems, const int *status, int cmp, "
               "{T} *cmp_values)",
               "size_t shmem_{N}_test_some_vector({T} *ivars, size_t nelems, size_t *indices, "
               "const int *status, int cmp, {T} *cmp_values)")}

# ---- Constants and types added by 1.6 ------------------------------------------------------------------------
CONSTANTS = [("SHMEM_CTX_SESSION_BATCH", "ice"), ("SHMEM_CTX_SESSION_TOTAL_OPS", "ice")]

# ---- Generic names added by 1.6 (spec15.GENERICS format) ---------------------------------------------------
GENERICS = [
    ("shmem_ibput", RMA, "P, P, 1, 1, 1, 1, 0", True), ("shmem_ibget", RMA, "P, P, 1, 1, 1, 1, 0", True),
    ("shmem_sum_inscan", REDUCE_ARITH, "TEAM, P, F, 1", False),
    ("shmem_sum_exscan", REDUCE_ARITH, "TEAM, P, F, 1", False),
]
# Names whose C11 form takes a context first and whose C form does not: (name, C arguments, C11 arguments).
CTX_FIRST = [("shmem_signal_set", "sig, 1, 0", "ctx, sig, 1, 0"), ("shmem_signal_add", "sig, 1, 0", "ctx, sig, 1, 0")]

# ---- The 1.6 change log (content/backmatter.tex, "Changes to this Document", section "Version 1.6"), item by
# item: (change, what rdsm does, test). -----------------------------------------------------------------------
EVIDENCE_SOURCE = ("openshmem-org/specification `content/backmatter.tex` (commit 0a325efe), chapter \"Changes to "
                   "this Document\", section \"Version 1.6\" (\\label{changelog:v1.6}); the routine pages "
                   "`content/shmem_ibget.tex`, `shmem_ibput.tex`, `shmem_signal_set.tex`, `shmem_signal_add.tex`, "
                   "`shmem_pe_quiet.tex`, `shmem_ctx_session_start.tex`, `shmem_ctx_session_stop.tex`, "
                   "`shmem_ctx_session_config_t.tex`, `shmem_scan.tex`, `shmem_query_initialized.tex`, "
                   "`shmem_team_ptr.tex`. Where stored versions of a page differ, the ratified text was told apart by "
                   "the specification's pull requests: `shmem_pe_quiet` takes `(const int *target_pes, size_t npes)` "
                   "(page at commit 4b70f0ba; an earlier draft took one `int target_pe`, and the working group asked "
                   "in PR #316 that `target_pes` not be read when `npes` is 0); `shmem_signal_add`/`_set` take a "
                   "non-const `sig_addr` (PR #489 removed the draft's `const`); `shmem_ibget`/`_ibput` strides are "
                   "the distance between block starts in elements (page at 4b70f0ba; an earlier draft said "
                   "between elements); the `SHMEM_CTX_SESSION_SAME_AMO` hint of one stored session page is from "
                   "PR #513, not merged, so not provided")
CHANGELOG = [
    ("Added `shmem_sum_inscan` and `shmem_sum_exscan`", "implemented (every SUM type, C11 and C++ generic names)",
     "`shmem_spec16_coll` (`SumScans...`)"),
    ("Initialization and finalization may be called multiple times; added `shmem_query_initialized`",
     "implemented: nested calls are counted, the finalize matching the first init ends the library; "
     "an earlier finalize completes pending operations and synchronizes the PEs; an init after the last finalize "
     "ends the process with one line (the job's rendezvous admits a PE once)",
     "`shmem_init_nesting` (C, from before `shmem_init` to after the last `shmem_finalize`), `shmem_spec16_coll` "
     "(`InitAndFinalizeNest...`), `errors.reinit_after_finalize`"),
    ("Added `shmem_ibget` and `shmem_ibput` (interleaved blocks)", "implemented (typed, sized, ctx, generic); "
     "`dst`/`sst` are the distance between block starts in elements, at least `bsize` (the pages' final wording)",
     "`shmem_spec16_rma` (`IbputAndIbget...`, `IbputSourceMayBeReused...`, `IbputOnATeamContext...`)"),
    ("Added `shmem_signal_add` and `shmem_signal_set`", "implemented (plain, ctx, C11 ctx-first form)",
     "`shmem_spec16_rma` (`SignalAddSums...`)"),
    ("Added `shmem_team_ptr`", "implemented (rdsm had it before 1.6; it is listed with 1.6 here)",
     "`shmem_spec16_rma` (`TeamPtrNumbersThePe...`), `coll_invalid_handles`"),
    ("`shmem_team_split_strided`: wrap-around is undefined", "refused: a triplet that leaves the parent's PE "
     "range creates no team and returns nonzero on every PE", "`coll_teams` (`SplitStridedInvalidArguments...`)"),
    ("Added sessions: `shmem_ctx_session_start`/`_stop`", "implemented as hints rdsm applies no optimization for (the "
     "specification allows this): arguments checked, results, completion and ordering unchanged",
     "`shmem_spec16_rma` (`SessionsAreHints...`)"),
    ("Added `shmem_pe_quiet` (`const int *target_pes, size_t npes`)", "implemented: completes all of the "
     "context's operations (a superset of those to the PEs, as the page's notes allow); PE numbers of the "
     "context's team",
     "`shmem_spec16_rma` (`PeQuiet...`)"),
    ("Split the `shmem_{malloc, free, realloc, align}` listings", "document change only", "—"),
    ("Memory management routines are collective on the world team", "as before (collective, checked by "
     "`SHMEM_DEBUG`)", "`shmem_heap`"),
    ("`shmem_team_get_config` returns current values; config_mask 0 / NULL config", "implemented: mask 0 performs "
     "no action and returns 0, NULL config included (1.5 rdsm returned nonzero for NULL); the values do not change "
     "after creation in rdsm", "`coll_teams` (`GetConfigReturnsTheCreationConfig`)"),
    ("`shmem_team_split_strided`: stride 0 or negative", "implemented: negative strides number downwards; stride 0 "
     "makes the one-PE team of `start` when size is 1 and is refused otherwise",
     "`coll_teams` (`SplitStridedNegativeStride...`, `SplitStridedSizeOneWithStrideZero`)"),
    ("Source buffer requirements of collectives", "as before (each collective synchronizes)",
     "`coll_collectives`, `shmem_spec16_coll`"),
    ("Errata section", "document change only", "—"),
    ("Team reduction types table (Table 10)", "the types of Table 10", "`api.prototypes_{c,cxx}`, `coll_reduce`"),
    ("Reductions: same source and dest on every PE", "as before", "`coll_reduce`"),
    ("Fence orders only within a context", "as before (fence acts on one context's stream)", "`shmem_ordering`"),
    ("`shmem_test_all`/`_vector` return 1 for an empty test set", "implemented",
     "`shmem_spec16_coll` (`TestAllOfAnEmptySetIsTrue`)"),
    ("`shmem_team_split_strided`/`_2d` return nonzero for `SHMEM_TEAM_INVALID`", "implemented",
     "`coll_invalid_handles` (`SplitFromTeamInvalidCreatesNoTeam`)"),
    ("`shmem_pcontrol` level note", "document change only", "—"),
    ("`const` on `cmp_values` of the `_vector` point-to-point routines", "implemented",
     "`api.prototypes_{c,cxx}`, `shmem_spec16_coll`"),
]

# ---- Drafts in content/ that 1.6 did not ratify (absent from the 1.6 change log): not provided. ---------------
NOT_RATIFIED = [
    "non-blocking collectives (`shmem_broadcast_nb`, `shmem_alltoall_nb`, `shmem_barrier_all_nb`, ... with "
    "`shmem_collective_wait`/`_test`: `content/*_nb.tex`, `nb_collectives_intro.tex`)",
    "`shmem_alltoallv`, `shmem_alltoallv_max` (`content/shmem_alltoallv*.tex`)",
    "`shmem_finalized` (`content/shmem_finalized.tex`; 1.6 added `shmem_query_initialized` instead)",
    "`shmem_ctx_set_team` (`content/shmem_ctx_set_team.tex`)",
    "error handling (`content/error_handling.tex`) and memory partitions (`content/memory_partitions.tex`, "
    "`mem_partition_env.tex`)",
    "bundles (`content/shmem_bundle_start.tex`, `_stop`: the earlier name of sessions)",
    "non-blocking `shmem_get_nbe` (`content/shmem_get_nbe.tex`)",
]

# ---- The tests behind each family's status in docs/api-coverage.md -----------------------------------------
_PROTO_ONLY = "`api.prototypes_{c,cxx}` (prototype and link)"
FAMILY_TESTS = {
    "setup": "`shmem_setup_barrier`, `shmem_init_nesting`, `shmem_spec16_coll`", "profiling": "`compat.profiling`",
    "teams": "`coll_teams`, `coll_invalid_handles`, `shmem_spec16_rma`, `errors.team_*` (destroyed teams)",
    "contexts": "`coll_ctx`, `coll_invalid_handles`, `errors.ctx_*` (destroyed contexts)",
    "memory": "`shmem_heap`, `shmem_heap_exhaustion`",
    "rma ibput": "`shmem_spec16_rma`", "rma ibget": "`shmem_spec16_rma`, `errors.ibget_bad_pe`",
    "signal": "`shmem_signal`, `shmem_spec16_rma`", "collectives": "`coll_collectives`, `compat.sync_team_{c11,cxx}`",
    "reductions": "`coll_reduce`", "scans": "`shmem_spec16_coll`",
    "p2p sync": "`shmem_p2p_sync`, `shmem_p2p_any_rotation`, `shmem_spec16_coll`",
    "ordering": "`shmem_ordering`, `shmem_spec16_rma`, `errors.pe_quiet_bad_pe`",
    "sessions": "`shmem_spec16_rma`, `errors.session_null_config`", "locks": "`shmem_lock`",
    "deprecated memory": "`shmem_heap`", "deprecated amo": "`shmem_amo`, `compat.generic_c11`",
    "deprecated collectives": "`coll_legacy`", "deprecated reductions": "`coll_legacy`",
    "deprecated setup": _PROTO_ONLY, "deprecated cache": _PROTO_ONLY, "deprecated p2p sync": _PROTO_ONLY,
}


def family_test(family):
    if family in FAMILY_TESTS:
        return FAMILY_TESTS[family]
    if family.startswith("rma"):
        return "`shmem_rma_typed`, `shmem_rma_sized`"
    if family.startswith("amo"):
        return "`shmem_amo`, `shmem_amo_bitwise`"
    raise SystemExit(f"no test named for family {family}")
