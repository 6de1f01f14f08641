"""The OpenSHMEM 1.5 API as data, for gen_prototype_test.py: the specification's type tables, every routine as a
template over them, the library constants, the type-generic names, and the behaviour beyond prototypes that
docs/api-coverage.md lists with the test backing each."""

# ---- Type tables of the specification (TYPE, TYPENAME) -------------------------------------------------
RMA = [("float", "float"), ("double", "double"), ("long double", "longdouble"), ("char", "char"),
       ("signed char", "schar"), ("short", "short"), ("int", "int"), ("long", "long"),
       ("long long", "longlong"), ("unsigned char", "uchar"), ("unsigned short", "ushort"),
       ("unsigned int", "uint"), ("unsigned long", "ulong"), ("unsigned long long", "ulonglong"),
       ("int8_t", "int8"), ("int16_t", "int16"), ("int32_t", "int32"), ("int64_t", "int64"),
       ("uint8_t", "uint8"), ("uint16_t", "uint16"), ("uint32_t", "uint32"), ("uint64_t", "uint64"),
       ("size_t", "size"), ("ptrdiff_t", "ptrdiff")]
AMO = [("int", "int"), ("long", "long"), ("long long", "longlong"), ("unsigned int", "uint"),
       ("unsigned long", "ulong"), ("unsigned long long", "ulonglong"), ("int32_t", "int32"),
       ("int64_t", "int64"), ("uint32_t", "uint32"), ("uint64_t", "uint64"), ("size_t", "size"),
       ("ptrdiff_t", "ptrdiff")]
EXT_AMO = [("float", "float"), ("double", "double")] + AMO
BITWISE_AMO = [("unsigned int", "uint"), ("unsigned long", "ulong"), ("unsigned long long", "ulonglong"),
               ("int32_t", "int32"), ("int64_t", "int64"), ("uint32_t", "uint32"), ("uint64_t", "uint64")]
# Point-to-point synchronization: the standard AMO types plus short and unsigned short (deprecated).
SYNC = [("short", "short"), ("int", "int"), ("long", "long"), ("long long", "longlong"),
        ("unsigned short", "ushort"), ("unsigned int", "uint"), ("unsigned long", "ulong"),
        ("unsigned long long", "ulonglong"), ("int32_t", "int32"), ("int64_t", "int64"),
        ("uint32_t", "uint32"), ("uint64_t", "uint64"), ("size_t", "size"), ("ptrdiff_t", "ptrdiff")]
SIZES = [8, 16, 32, 64, 128]
REDUCE_BITWISE = [("unsigned char", "uchar"), ("unsigned short", "ushort"), ("unsigned int", "uint"),
                  ("unsigned long", "ulong"), ("unsigned long long", "ulonglong"), ("int8_t", "int8"),
                  ("int16_t", "int16"), ("int32_t", "int32"), ("int64_t", "int64"), ("uint8_t", "uint8"),
                  ("uint16_t", "uint16"), ("uint32_t", "uint32"), ("uint64_t", "uint64"), ("size_t", "size")]
REDUCE_MINMAX = [("char", "char"), ("signed char", "schar"), ("short", "short"), ("int", "int"),
                 ("long", "long"), ("long long", "longlong"), ("ptrdiff_t", "ptrdiff"),
                 ("unsigned char", "uchar"), ("unsigned short", "ushort"), ("unsigned int", "uint"),
                 ("unsigned long", "ulong"), ("unsigned long long", "ulonglong"), ("int8_t", "int8"),
                 ("int16_t", "int16"), ("int32_t", "int32"), ("int64_t", "int64"), ("uint8_t", "uint8"),
                 ("uint16_t", "uint16"), ("uint32_t", "uint32"), ("uint64_t", "uint64"), ("size_t", "size"),
                 ("float", "float"), ("double", "double"), ("long double", "longdouble")]
REDUCE_ARITH = REDUCE_MINMAX + [("double _Complex", "complexd"), ("float _Complex", "complexf")]
# Deprecated active-set reductions (*_to_all).
TO_ALL_BITWISE = [("short", "short"), ("int", "int"), ("long", "long"), ("long long", "longlong")]
TO_ALL_MINMAX = TO_ALL_BITWISE + [("float", "float"), ("double", "double"), ("long double", "longdouble")]
TO_ALL_ARITH = TO_ALL_MINMAX + [("double _Complex", "complexd"), ("float _Complex", "complexf")]
# Deprecated (1.4) AMO names and shmem_TYPENAME_wait.
DEPR_AMO = [("int", "int"), ("long", "long"), ("long long", "longlong")]
DEPR_EXT_AMO = [("float", "float"), ("double", "double")] + DEPR_AMO
DEPR_WAIT = [("short", "short"), ("int", "int"), ("long", "long"), ("long long", "longlong")]

# ---- Templates: (family, table or None, prototype, with_ctx) -------------------------------------------
# {T} = TYPE, {N} = TYPENAME, {B} = SIZE in bits, {OP} = reduction operator. with_ctx adds the
# shmem_ctx_NAME(shmem_ctx_t ctx, ...) form.
SIG = "uint64_t *sig_addr, uint64_t signal, int sig_op, int pe"
TEMPLATES = [
    # Library setup, exit and query
    ("setup", None, "void shmem_init(void)", False),
    ("setup", None, "int shmem_init_thread(int requested, int *provided)", False),
    ("setup", None, "void shmem_query_thread(int *provided)", False),
    ("setup", None, "void shmem_finalize(void)", False),
    ("setup", None, "_Noreturn void shmem_global_exit(int status)", False),
    ("setup", None, "int shmem_my_pe(void)", False),
    ("setup", None, "int shmem_n_pes(void)", False),
    ("setup", None, "int shmem_pe_accessible(int pe)", False),
    ("setup", None, "int shmem_addr_accessible(const void *addr, int pe)", False),
    ("setup", None, "void *shmem_ptr(const void *dest, int pe)", False),
    ("setup", None, "void shmem_info_get_version(int *major, int *minor)", False),
    ("setup", None, "void shmem_info_get_name(char *name)", False),
    ("profiling", None, "void shmem_pcontrol(const int level, ...)", False),
    # Teams
    ("teams", None, "int shmem_team_my_pe(shmem_team_t team)", False),
    ("teams", None, "int shmem_team_n_pes(shmem_team_t team)", False),
    ("teams", None, "int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)",
     False),
    ("teams", None, "int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)",
     False),
    ("teams", None, "int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size, "
                    "const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team)", False),
    ("teams", None, "int shmem_team_split_2d(shmem_team_t parent_team, int xrange, "
                    "const shmem_team_config_t *xaxis_config, long xaxis_mask, shmem_team_t *xaxis_team, "
                    "const shmem_team_config_t *yaxis_config, long yaxis_mask, shmem_team_t *yaxis_team)", False),
    ("teams", None, "void shmem_team_destroy(shmem_team_t team)", False),
    # Contexts
    ("contexts", None, "int shmem_ctx_create(long options, shmem_ctx_t *ctx)", False),
    ("contexts", None, "int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)", False),
    ("contexts", None, "void shmem_ctx_destroy(shmem_ctx_t ctx)", False),
    ("contexts", None, "int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)", False),
    # Memory management
    ("memory", None, "void *shmem_malloc(size_t size)", False),
    ("memory", None, "void shmem_free(void *ptr)", False),
    ("memory", None, "void *shmem_realloc(void *ptr, size_t size)", False),
    ("memory", None, "void *shmem_align(size_t alignment, size_t size)", False),
    ("memory", None, "void *shmem_malloc_with_hints(size_t size, long hints)", False),
    ("memory", None, "void *shmem_calloc(size_t count, size_t size)", False),
    # RMA
    ("rma put", RMA, "void shmem_{N}_put({T} *dest, const {T} *source, size_t nelems, int pe)", True),
    ("rma put", None, "void shmem_put{B}(void *dest, const void *source, size_t nelems, int pe)", True),
    ("rma put", None, "void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)", True),
    ("rma p", RMA, "void shmem_{N}_p({T} *dest, {T} value, int pe)", True),
    ("rma iput", RMA, "void shmem_{N}_iput({T} *dest, const {T} *source, ptrdiff_t dst, ptrdiff_t sst, "
                      "size_t nelems, int pe)", True),
    ("rma iput", None, "void shmem_iput{B}(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, "
                       "size_t nelems, int pe)", True),
    ("rma get", RMA, "void shmem_{N}_get({T} *dest, const {T} *source, size_t nelems, int pe)", True),
    ("rma get", None, "void shmem_get{B}(void *dest, const void *source, size_t nelems, int pe)", True),
    ("rma get", None, "void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)", True),
    ("rma g", RMA, "{T} shmem_{N}_g(const {T} *source, int pe)", True),
    ("rma iget", RMA, "void shmem_{N}_iget({T} *dest, const {T} *source, ptrdiff_t dst, ptrdiff_t sst, "
                      "size_t nelems, int pe)", True),
    ("rma iget", None, "void shmem_iget{B}(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, "
                       "size_t nelems, int pe)", True),
    ("rma put_nbi", RMA, "void shmem_{N}_put_nbi({T} *dest, const {T} *source, size_t nelems, int pe)", True),
    ("rma put_nbi", None, "void shmem_put{B}_nbi(void *dest, const void *source, size_t nelems, int pe)", True),
    ("rma put_nbi", None, "void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)", True),
    ("rma get_nbi", RMA, "void shmem_{N}_get_nbi({T} *dest, const {T} *source, size_t nelems, int pe)", True),
    ("rma get_nbi", None, "void shmem_get{B}_nbi(void *dest, const void *source, size_t nelems, int pe)", True),
    ("rma get_nbi", None, "void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)", True),
    # AMO
    ("amo fetch", EXT_AMO, "{T} shmem_{N}_atomic_fetch(const {T} *source, int pe)", True),
    ("amo set", EXT_AMO, "void shmem_{N}_atomic_set({T} *dest, {T} value, int pe)", True),
    ("amo compare_swap", AMO, "{T} shmem_{N}_atomic_compare_swap({T} *dest, {T} cond, {T} value, int pe)", True),
    ("amo swap", EXT_AMO, "{T} shmem_{N}_atomic_swap({T} *dest, {T} value, int pe)", True),
    ("amo fetch_inc", AMO, "{T} shmem_{N}_atomic_fetch_inc({T} *dest, int pe)", True),
    ("amo inc", AMO, "void shmem_{N}_atomic_inc({T} *dest, int pe)", True),
    ("amo fetch_add", AMO, "{T} shmem_{N}_atomic_fetch_add({T} *dest, {T} value, int pe)", True),
    ("amo add", AMO, "void shmem_{N}_atomic_add({T} *dest, {T} value, int pe)", True),
    ("amo fetch_and", BITWISE_AMO, "{T} shmem_{N}_atomic_fetch_and({T} *dest, {T} value, int pe)", True),
    ("amo and", BITWISE_AMO, "void shmem_{N}_atomic_and({T} *dest, {T} value, int pe)", True),
    ("amo fetch_or", BITWISE_AMO, "{T} shmem_{N}_atomic_fetch_or({T} *dest, {T} value, int pe)", True),
    ("amo or", BITWISE_AMO, "void shmem_{N}_atomic_or({T} *dest, {T} value, int pe)", True),
    ("amo fetch_xor", BITWISE_AMO, "{T} shmem_{N}_atomic_fetch_xor({T} *dest, {T} value, int pe)", True),
    ("amo xor", BITWISE_AMO, "void shmem_{N}_atomic_xor({T} *dest, {T} value, int pe)", True),
    # Nonblocking AMO
    ("amo nbi", EXT_AMO, "void shmem_{N}_atomic_fetch_nbi({T} *fetch, const {T} *source, int pe)", True),
    ("amo nbi", AMO, "void shmem_{N}_atomic_compare_swap_nbi({T} *fetch, {T} *dest, {T} cond, {T} value, int pe)",
     True),
    ("amo nbi", EXT_AMO, "void shmem_{N}_atomic_swap_nbi({T} *fetch, {T} *dest, {T} value, int pe)", True),
    ("amo nbi", AMO, "void shmem_{N}_atomic_fetch_inc_nbi({T} *fetch, {T} *dest, int pe)", True),
    ("amo nbi", AMO, "void shmem_{N}_atomic_fetch_add_nbi({T} *fetch, {T} *dest, {T} value, int pe)", True),
    ("amo nbi", BITWISE_AMO, "void shmem_{N}_atomic_fetch_and_nbi({T} *fetch, {T} *dest, {T} value, int pe)", True),
    ("amo nbi", BITWISE_AMO, "void shmem_{N}_atomic_fetch_or_nbi({T} *fetch, {T} *dest, {T} value, int pe)", True),
    ("amo nbi", BITWISE_AMO, "void shmem_{N}_atomic_fetch_xor_nbi({T} *fetch, {T} *dest, {T} value, int pe)", True),
    # Signaling
    ("signal", RMA, "void shmem_{N}_put_signal({T} *dest, const {T} *source, size_t nelems, " + SIG + ")", True),
    ("signal", None, "void shmem_put{B}_signal(void *dest, const void *source, size_t nelems, " + SIG + ")", True),
    ("signal", None, "void shmem_putmem_signal(void *dest, const void *source, size_t nelems, " + SIG + ")", True),
    ("signal", RMA, "void shmem_{N}_put_signal_nbi({T} *dest, const {T} *source, size_t nelems, " + SIG + ")",
     True),
    ("signal", None, "void shmem_put{B}_signal_nbi(void *dest, const void *source, size_t nelems, " + SIG + ")",
     True),
    ("signal", None, "void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, " + SIG + ")",
     True),
    ("signal", None, "uint64_t shmem_signal_fetch(const uint64_t *sig_addr)", False),
    ("signal", None, "uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)", False),
    # Team-based collectives
    ("collectives", None, "int shmem_team_sync(shmem_team_t team)", False),
    ("collectives", None, "void shmem_barrier_all(void)", False),
    ("collectives", None, "void shmem_sync_all(void)", False),
    ("collectives", RMA, "int shmem_{N}_alltoall(shmem_team_t team, {T} *dest, const {T} *source, size_t nelems)",
     False),
    ("collectives", None, "int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)",
     False),
    ("collectives", RMA, "int shmem_{N}_alltoalls(shmem_team_t team, {T} *dest, const {T} *source, ptrdiff_t dst, "
                         "ptrdiff_t sst, size_t nelems)", False),
    ("collectives", None, "int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, "
                          "ptrdiff_t dst, ptrdiff_t sst, size_t nelems)", False),
    ("collectives", RMA, "int shmem_{N}_broadcast(shmem_team_t team, {T} *dest, const {T} *source, size_t nelems, "
                         "int PE_root)", False),
    ("collectives", None, "int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, "
                          "size_t nelems, int PE_root)", False),
    ("collectives", RMA, "int shmem_{N}_collect(shmem_team_t team, {T} *dest, const {T} *source, size_t nelems)",
     False),
    ("collectives", None, "int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)",
     False),
    ("collectives", RMA, "int shmem_{N}_fcollect(shmem_team_t team, {T} *dest, const {T} *source, size_t nelems)",
     False),
    ("collectives", None, "int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, "
                          "size_t nelems)", False),
    ("reductions", REDUCE_BITWISE, "int shmem_{N}_{OP}_reduce(shmem_team_t team, {T} *dest, const {T} *source, "
                                   "size_t nreduce)", ("and", "or", "xor")),
    ("reductions", REDUCE_MINMAX, "int shmem_{N}_{OP}_reduce(shmem_team_t team, {T} *dest, const {T} *source, "
                                  "size_t nreduce)", ("max", "min")),
    ("reductions", REDUCE_ARITH, "int shmem_{N}_{OP}_reduce(shmem_team_t team, {T} *dest, const {T} *source, "
                                 "size_t nreduce)", ("sum", "prod")),
    # Point-to-point synchronization
    ("p2p sync", SYNC, "void shmem_{N}_wait_until({T} *ivar, int cmp, {T} cmp_value)", False),
    ("p2p sync", SYNC, "void shmem_{N}_wait_until_all({T} *ivars, size_t nelems, const int *status, int cmp, "
                       "{T} cmp_value)", False),
    ("p2p sync", SYNC, "size_t shmem_{N}_wait_until_any({T} *ivars, size_t nelems, const int *status, int cmp, "
                       "{T} cmp_value)", False),
    ("p2p sync", SYNC, "size_t shmem_{N}_wait_until_some({T} *ivars, size_t nelems, size_t *indices, "
                       "const int *status, int cmp, {T} cmp_value)", False),
    ("p2p sync", SYNC, "void shmem_{N}_wait_until_all_vector({T} *ivars, size_t nelems, const int *status, int cmp, "
                       "{T} *cmp_values)", False),
    ("p2p sync", SYNC, "size_t shmem_{N}_wait_until_any_vector({T} *ivars, size_t nelems, const int *status, "
                       "int cmp, {T} *cmp_values)", False),
    ("p2p sync", SYNC, "size_t shmem_{N}_wait_until_some_vector({T} *ivars, size_t nelems, size_t *indices, "
                       "const int *status, int cmp, {T} *cmp_values)", False),
    ("p2p sync", SYNC, "int shmem_{N}_test({T} *ivar, int cmp, {T} cmp_value)", False),
    ("p2p sync", SYNC, "int shmem_{N}_test_all({T} *ivars, size_t nelems, const int *status, int cmp, "
                       "{T} cmp_value)", False),
    ("p2p sync", SYNC, "size_t shmem_{N}_test_any({T} *ivars, size_t nelems, const int *status, int cmp, "
                       "{T} cmp_value)", False),
    ("p2p sync", SYNC, "size_t shmem_{N}_test_some({T} *ivars, size_t nelems, size_t *indices, const int *status, "
                       "int cmp, {T} cmp_value)", False),
    ("p2p sync", SYNC, "int shmem_{N}_test_all_vector({T} *ivars, size_t nelems, const int *status, int cmp, "
                       "{T} *cmp_values)", False),
    ("p2p sync", SYNC, "size_t shmem_{N}_test_any_vector({T} *ivars, size_t nelems, const int *status, int cmp, "
                       "{T} *cmp_values)", False),
    ("p2p sync", SYNC, "size_t shmem_{N}_test_some_vector({T} *ivars, size_t nelems, size_t *indices, "
                       "const int *status, int cmp, {T} *cmp_values)", False),
    # Memory ordering
    ("ordering", None, "void shmem_fence(void)", True),
    ("ordering", None, "void shmem_quiet(void)", True),
    # Distributed locking
    ("locks", None, "void shmem_set_lock(long *lock)", False),
    ("locks", None, "void shmem_clear_lock(long *lock)", False),
    ("locks", None, "int shmem_test_lock(long *lock)", False),
    # ---- Deprecated routines still part of 1.5 (Annex "Deprecated API": "Last Version Supported: Current")
    ("deprecated setup", None, "void start_pes(int npes)", False),
    ("deprecated setup", None, "int _my_pe(void)", False),
    ("deprecated setup", None, "int _num_pes(void)", False),
    ("deprecated memory", None, "void *shmalloc(size_t size)", False),
    ("deprecated memory", None, "void shfree(void *ptr)", False),
    ("deprecated memory", None, "void *shrealloc(void *ptr, size_t size)", False),
    ("deprecated memory", None, "void *shmemalign(size_t alignment, size_t size)", False),
    ("deprecated cache", None, "void shmem_clear_cache_inv(void)", False),
    ("deprecated cache", None, "void shmem_set_cache_inv(void)", False),
    ("deprecated cache", None, "void shmem_clear_cache_line_inv(void *dest)", False),
    ("deprecated cache", None, "void shmem_set_cache_line_inv(void *dest)", False),
    ("deprecated cache", None, "void shmem_udcflush(void)", False),
    ("deprecated cache", None, "void shmem_udcflush_line(void *dest)", False),
    ("deprecated p2p sync", None, "void shmem_wait_until(long *ivar, int cmp, long cmp_value)", False),
    ("deprecated p2p sync", None, "void shmem_wait(long *ivar, long cmp_value)", False),
    ("deprecated p2p sync", DEPR_WAIT, "void shmem_{N}_wait({T} *ivar, {T} cmp_value)", False),
    ("deprecated amo", DEPR_EXT_AMO, "{T} shmem_{N}_fetch(const {T} *source, int pe)", False),
    ("deprecated amo", DEPR_EXT_AMO, "void shmem_{N}_set({T} *dest, {T} value, int pe)", False),
    ("deprecated amo", DEPR_AMO, "{T} shmem_{N}_cswap({T} *dest, {T} cond, {T} value, int pe)", False),
    ("deprecated amo", DEPR_EXT_AMO, "{T} shmem_{N}_swap({T} *dest, {T} value, int pe)", False),
    ("deprecated amo", DEPR_AMO, "{T} shmem_{N}_finc({T} *dest, int pe)", False),
    ("deprecated amo", DEPR_AMO, "void shmem_{N}_inc({T} *dest, int pe)", False),
    ("deprecated amo", DEPR_AMO, "{T} shmem_{N}_fadd({T} *dest, {T} value, int pe)", False),
    ("deprecated amo", DEPR_AMO, "void shmem_{N}_add({T} *dest, {T} value, int pe)", False),
    ("deprecated collectives", None, "void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)",
     False),
    ("deprecated collectives", None, "void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)",
     False),
    ("deprecated collectives", [32, 64], "void shmem_broadcast{B}(void *dest, const void *source, size_t nelems, "
                                         "int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync)",
     False),
    ("deprecated collectives", [32, 64], "void shmem_collect{B}(void *dest, const void *source, size_t nelems, "
                                         "int PE_start, int logPE_stride, int PE_size, long *pSync)", False),
    ("deprecated collectives", [32, 64], "void shmem_fcollect{B}(void *dest, const void *source, size_t nelems, "
                                         "int PE_start, int logPE_stride, int PE_size, long *pSync)", False),
    ("deprecated collectives", [32, 64], "void shmem_alltoall{B}(void *dest, const void *source, size_t nelems, "
                                         "int PE_start, int logPE_stride, int PE_size, long *pSync)", False),
    ("deprecated collectives", [32, 64], "void shmem_alltoalls{B}(void *dest, const void *source, ptrdiff_t dst, "
                                         "ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, "
                                         "int PE_size, long *pSync)", False),
    ("deprecated reductions", TO_ALL_BITWISE, "void shmem_{N}_{OP}_to_all({T} *dest, const {T} *source, int nreduce, "
                                              "int PE_start, int logPE_stride, int PE_size, {T} *pWrk, long *pSync)",
     ("and", "or", "xor")),
    ("deprecated reductions", TO_ALL_MINMAX, "void shmem_{N}_{OP}_to_all({T} *dest, const {T} *source, int nreduce, "
                                             "int PE_start, int logPE_stride, int PE_size, {T} *pWrk, long *pSync)",
     ("max", "min")),
    ("deprecated reductions", TO_ALL_ARITH, "void shmem_{N}_{OP}_to_all({T} *dest, const {T} *source, int nreduce, "
                                            "int PE_start, int logPE_stride, int PE_size, {T} *pWrk, long *pSync)",
     ("sum", "prod")),
]

# Routines of 1.5 that rdsm does not provide yet (not declared or not defined). They are kept out of the
# prototype test until implemented: delete a name here once librdsm has it (or configure with
# -DRDSM_API_TEST_ALL=ON to test them all).
MISSING: set = set()

# ---- Library constants (content/library_constants.tex and library_handles.tex of 1.5) ------------------
# (name, kind): ice = integer constant expression, size = usable as an array length, str = string literal,
# handle = link-time handle of the given type, ctx/team = constant of that handle type.
CONSTANTS = [
    ("SHMEM_THREAD_SINGLE", "ice"), ("SHMEM_THREAD_FUNNELED", "ice"), ("SHMEM_THREAD_SERIALIZED", "ice"),
    ("SHMEM_THREAD_MULTIPLE", "ice"),
    ("SHMEM_CTX_INVALID", "ctx"), ("SHMEM_CTX_SERIALIZED", "ice"), ("SHMEM_CTX_PRIVATE", "ice"),
    ("SHMEM_CTX_NOSTORE", "ice"),
    ("SHMEM_SIGNAL_SET", "ice"), ("SHMEM_SIGNAL_ADD", "ice"),
    ("SHMEM_TEAM_INVALID", "team"), ("SHMEM_TEAM_NUM_CONTEXTS", "ice"),
    ("SHMEM_MALLOC_ATOMICS_REMOTE", "ice"), ("SHMEM_MALLOC_SIGNAL_REMOTE", "ice"),
    ("SHMEM_SYNC_VALUE", "ice"), ("SHMEM_SYNC_SIZE", "size"), ("SHMEM_BCAST_SYNC_SIZE", "size"),
    ("SHMEM_REDUCE_SYNC_SIZE", "size"), ("SHMEM_BARRIER_SYNC_SIZE", "size"), ("SHMEM_COLLECT_SYNC_SIZE", "size"),
    ("SHMEM_ALLTOALL_SYNC_SIZE", "size"), ("SHMEM_ALLTOALLS_SYNC_SIZE", "size"),
    ("SHMEM_REDUCE_MIN_WRKDATA_SIZE", "size"),
    ("SHMEM_MAJOR_VERSION", "ice"), ("SHMEM_MINOR_VERSION", "ice"), ("SHMEM_MAX_NAME_LEN", "size"),
    ("SHMEM_VENDOR_STRING", "str"),
    ("SHMEM_CMP_EQ", "ice"), ("SHMEM_CMP_NE", "ice"), ("SHMEM_CMP_LT", "ice"), ("SHMEM_CMP_LE", "ice"),
    ("SHMEM_CMP_GT", "ice"), ("SHMEM_CMP_GE", "ice"),
    # Deprecated _SHMEM_* spellings (still in 1.5)
    ("_SHMEM_SYNC_VALUE", "ice"), ("_SHMEM_BARRIER_SYNC_SIZE", "size"), ("_SHMEM_BCAST_SYNC_SIZE", "size"),
    ("_SHMEM_COLLECT_SYNC_SIZE", "size"), ("_SHMEM_REDUCE_SYNC_SIZE", "size"),
    ("_SHMEM_REDUCE_MIN_WRKDATA_SIZE", "size"), ("_SHMEM_MAJOR_VERSION", "ice"), ("_SHMEM_MINOR_VERSION", "ice"),
    ("_SHMEM_MAX_NAME_LEN", "size"), ("_SHMEM_VENDOR_STRING", "str"),
    ("_SHMEM_CMP_EQ", "ice"), ("_SHMEM_CMP_NE", "ice"), ("_SHMEM_CMP_LT", "ice"), ("_SHMEM_CMP_LE", "ice"),
    ("_SHMEM_CMP_GT", "ice"), ("_SHMEM_CMP_GE", "ice"),
    # Underscore spellings other implementations offer and programs use, though not in the specification
    ("_SHMEM_ALLTOALL_SYNC_SIZE", "size"), ("_SHMEM_ALLTOALLS_SYNC_SIZE", "size"),
    # Handles
    ("SHMEM_TEAM_WORLD", "team_handle"), ("SHMEM_TEAM_SHARED", "team_handle"), ("SHMEM_CTX_DEFAULT", "ctx_handle"),
]

# ---- Type-generic interfaces (C11 _Generic names and C++ overloads) ------------------------------------
# (generic name, table, argument template, ctx form). Arguments use P (a TYPE * variable), V (a TYPE value),
# F (another TYPE *), TEAM, CTX. Every spec TYPE of the table is called (aliases such as int64_t included).
GENERICS = [
    ("shmem_put", RMA, "P, P, 1, 0", True), ("shmem_get", RMA, "P, P, 1, 0", True),
    ("shmem_p", RMA, "P, V, 0", True), ("shmem_g", RMA, "P, 0", True),
    ("shmem_iput", RMA, "P, P, 1, 1, 1, 0", True), ("shmem_iget", RMA, "P, P, 1, 1, 1, 0", True),
    ("shmem_put_nbi", RMA, "P, P, 1, 0", True), ("shmem_get_nbi", RMA, "P, P, 1, 0", True),
    ("shmem_put_signal", RMA, "P, P, 1, sig, 1, SHMEM_SIGNAL_SET, 0", True),
    ("shmem_put_signal_nbi", RMA, "P, P, 1, sig, 1, SHMEM_SIGNAL_ADD, 0", True),
    ("shmem_atomic_fetch", EXT_AMO, "P, 0", True), ("shmem_atomic_set", EXT_AMO, "P, V, 0", True),
    ("shmem_atomic_swap", EXT_AMO, "P, V, 0", True),
    ("shmem_atomic_compare_swap", AMO, "P, V, V, 0", True),
    ("shmem_atomic_fetch_inc", AMO, "P, 0", True), ("shmem_atomic_inc", AMO, "P, 0", True),
    ("shmem_atomic_fetch_add", AMO, "P, V, 0", True), ("shmem_atomic_add", AMO, "P, V, 0", True),
    ("shmem_atomic_fetch_and", BITWISE_AMO, "P, V, 0", True), ("shmem_atomic_and", BITWISE_AMO, "P, V, 0", True),
    ("shmem_atomic_fetch_or", BITWISE_AMO, "P, V, 0", True), ("shmem_atomic_or", BITWISE_AMO, "P, V, 0", True),
    ("shmem_atomic_fetch_xor", BITWISE_AMO, "P, V, 0", True), ("shmem_atomic_xor", BITWISE_AMO, "P, V, 0", True),
    ("shmem_atomic_fetch_nbi", EXT_AMO, "F, P, 0", True),
    ("shmem_atomic_swap_nbi", EXT_AMO, "F, P, V, 0", True),
    ("shmem_atomic_compare_swap_nbi", AMO, "F, P, V, V, 0", True),
    ("shmem_atomic_fetch_inc_nbi", AMO, "F, P, 0", True),
    ("shmem_atomic_fetch_add_nbi", AMO, "F, P, V, 0", True),
    ("shmem_atomic_fetch_and_nbi", BITWISE_AMO, "F, P, V, 0", True),
    ("shmem_atomic_fetch_or_nbi", BITWISE_AMO, "F, P, V, 0", True),
    ("shmem_atomic_fetch_xor_nbi", BITWISE_AMO, "F, P, V, 0", True),
    ("shmem_wait_until", SYNC, "P, SHMEM_CMP_EQ, V", False),
    ("shmem_wait_until_all", SYNC, "P, 1, status, SHMEM_CMP_EQ, V", False),
    ("shmem_wait_until_any", SYNC, "P, 1, status, SHMEM_CMP_EQ, V", False),
    ("shmem_wait_until_some", SYNC, "P, 1, indices, status, SHMEM_CMP_EQ, V", False),
    ("shmem_wait_until_all_vector", SYNC, "P, 1, status, SHMEM_CMP_EQ, F", False),
    ("shmem_wait_until_any_vector", SYNC, "P, 1, status, SHMEM_CMP_EQ, F", False),
    ("shmem_wait_until_some_vector", SYNC, "P, 1, indices, status, SHMEM_CMP_EQ, F", False),
    ("shmem_test", SYNC, "P, SHMEM_CMP_EQ, V", False),
    ("shmem_test_all", SYNC, "P, 1, status, SHMEM_CMP_EQ, V", False),
    ("shmem_test_any", SYNC, "P, 1, status, SHMEM_CMP_EQ, V", False),
    ("shmem_test_some", SYNC, "P, 1, indices, status, SHMEM_CMP_EQ, V", False),
    ("shmem_test_all_vector", SYNC, "P, 1, status, SHMEM_CMP_EQ, F", False),
    ("shmem_test_any_vector", SYNC, "P, 1, status, SHMEM_CMP_EQ, F", False),
    ("shmem_test_some_vector", SYNC, "P, 1, indices, status, SHMEM_CMP_EQ, F", False),
    ("shmem_broadcast", RMA, "TEAM, P, F, 1, 0", False),
    ("shmem_collect", RMA, "TEAM, P, F, 1", False), ("shmem_fcollect", RMA, "TEAM, P, F, 1", False),
    ("shmem_alltoall", RMA, "TEAM, P, F, 1", False), ("shmem_alltoalls", RMA, "TEAM, P, F, 1, 1, 1", False),
    ("shmem_and_reduce", REDUCE_BITWISE, "TEAM, P, F, 1", False),
    ("shmem_or_reduce", REDUCE_BITWISE, "TEAM, P, F, 1", False),
    ("shmem_xor_reduce", REDUCE_BITWISE, "TEAM, P, F, 1", False),
    ("shmem_max_reduce", REDUCE_MINMAX, "TEAM, P, F, 1", False),
    ("shmem_min_reduce", REDUCE_MINMAX, "TEAM, P, F, 1", False),
    ("shmem_sum_reduce", REDUCE_ARITH, "TEAM, P, F, 1", False),
    ("shmem_prod_reduce", REDUCE_ARITH, "TEAM, P, F, 1", False),
]
# Deprecated C11-only generic names (1.4 AMO names), still in 1.5.
C11_ONLY_GENERICS = [
    ("shmem_fetch", DEPR_EXT_AMO, "P, 0", False), ("shmem_set", DEPR_EXT_AMO, "P, V, 0", False),
    ("shmem_swap", DEPR_EXT_AMO, "P, V, 0", False), ("shmem_cswap", DEPR_AMO, "P, V, V, 0", False),
    ("shmem_finc", DEPR_AMO, "P, 0", False), ("shmem_inc", DEPR_AMO, "P, 0", False),
    ("shmem_fadd", DEPR_AMO, "P, V, 0", False), ("shmem_add", DEPR_AMO, "P, V, 0", False),
]


# Names with a team form and a deprecated active-set form (C11: chosen by argument count; C++: overloads), each
# called in both forms: (name, team-form arguments, active-set-form arguments).
TEAM_OR_ACTIVE_SET = [("shmem_sync", "team", "0, 0, 1, psync")]

# Behaviour the specification fixes beyond prototypes, each with the test that backs it: (what, test).
BEHAVIOURS = [
    ("`shmem_sync(team)` (C11 and C++) and `shmem_sync(PE_start, logPE_stride, PE_size, pSync)` under one name",
     "`compat.sync_team_{c11,cxx}`, `compat.rdsmcc_sync_team`, `compat.rdsmcxx_sync_team`"),
    ("A series of `shmem_test_any`/`shmem_wait_until_any` calls (and `_vector`) returns every satisfied index in "
     "turn (§9.10): the search starts past the index last returned for the array",
     "`shmem_p2p_any_rotation` (2 and 4 PEs, every sync type)"),
    ("Every routine that takes a context performs no operation on `SHMEM_CTX_INVALID` (fetching ones return 0, "
     "`shmem_ctx_fence`/`_quiet` included)",
     "`coll_invalid_handles` (`EveryContextRoutineDoesNothingOnCtxInvalid`)"),
    ("`shmem_ctx_get_team(SHMEM_CTX_INVALID, &team)` sets `team` to `SHMEM_TEAM_INVALID` and returns nonzero",
     "`coll_invalid_handles` (`CtxGetTeamOfCtxInvalidSetsTeamInvalid`)"),
    ("`shmem_team_split_strided`/`_2d` from `SHMEM_TEAM_INVALID` create no team, set the new handles to "
     "`SHMEM_TEAM_INVALID` and return nonzero",
     "`coll_invalid_handles` (`SplitFromTeamInvalidCreatesNoTeam`)"),
    ("Team PE *i* of `shmem_team_split_strided(parent, start, stride, size, ...)` is parent PE `start + stride*i`, "
     "negative strides included (team numbering, `shmem_team_translate_pe`, collectives' PE order)",
     "`coll_teams` (`SplitStridedNegativeStrideNumbersTheTeamDownwards`), the `reversed` team of "
     "`coll_collectives` and `coll_reduce`"),
    ("Team collectives, reductions and `shmem_team_sync` on `SHMEM_TEAM_INVALID` (undefined in 1.5) perform no "
     "operation and return nonzero, so PEs outside a sub-team can pass its handle on; the team queries return -1, "
     "NULL or an invalid handle",
     "`coll_invalid_handles` (`TeamRoutinesOnTeamInvalid...`, `PesOutsideASubTeam...`)"),
    ("A null pointer with a zero count is valid (Annex C): RMA, put-with-signal (the signal still arrives) and "
     "collectives on NULL with nothing to move are no-ops",
     "`shmem_null_zero_count` (2 and 4 PEs)"),
    ("`shmem_align` honours any power of two the symmetric heap can hold (e.g. 8 MiB); zero, a non-power of two "
     "or more than the heap holds return NULL on every PE with one warning, not the end of the job",
     "`shmem_heap` (`AlignBeyondTwoMib...`, `AlignOfZero...`), unit `SymmetricHeap.AlignsAddresses...`"),
    ("`rdsmcc` and `rdsmc++` link libm (and libpthread), as other implementations' `oshcc` do",
     "`compat.rdsmcc_links_libm`"),
    ("A program may end without `shmem_finalize` (`start_pes` never needs one; the 1.4 text called the finalize at "
     "the end of main implicit): an exit with status 0 finalizes, collectively; a PE that leaves while others wait "
     "in a collective is named as a mismatch, and a non-zero exit still ends the job as a failure",
     "`shmem_start_pes`, `shmem_init_without_finalize`, `shmem_start_pes_finalize`, `errors.early_return`"),
]
