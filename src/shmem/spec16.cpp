// The OpenSHMEM 1.6 additions to the point-to-point API: strided-block RMA, signal set/add, per-PE quiet and
// communication sessions (the scans are with the other collectives, the initialization query in setup.cpp).
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "shmem.h"
#include "shmem/context.hpp"

using namespace rdsm::detail;

namespace {

void signal_update(const char* fn, shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe, amo_op op) {
  if (ctx == SHMEM_CTX_INVALID) return;
  atomic(fn, op, sig_addr, sizeof(uint64_t), signal, 0, ctx_pe(fn, ctx, pe), ctx_stream(fn, ctx), "sig_addr");
}

void pe_quiet(const char* fn, shmem_ctx_t ctx, const int* target_pes, size_t npes) {
  if (ctx == SHMEM_CTX_INVALID || npes == 0) return;  // npes 0: target_pes is not read
  if (target_pes == nullptr) fatal("%s: target_pes is NULL with npes %zu", fn, npes);
  for (size_t i = 0; i < npes; ++i) check_pe(fn, ctx_pe(fn, ctx, target_pes[i]));
  // Completing every operation of the context's stream includes those to the target PEs: UCX flushes a worker
  // or one endpoint, and a flush per endpoint costs a round trip each where the worker flush costs one in all.
  quiet(ctx_stream(fn, ctx));
}

}  // namespace

extern "C" {

#define RDSM_DEF_IB(T, N)                                                                                          \
  void shmem_ctx_##N##_ibput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, \
                             size_t nblocks, int pe) noexcept {                                                             \
    RDSM_CTX_INVALID_RETURN(void);                                                                                 \
    ibput(__func__, dest, source, dst, sst, bsize, nblocks, sizeof(T), ctx_pe(__func__, ctx, pe),                  \
          ctx_stream(__func__, ctx));                                                                              \
  }                                                                                                                \
  void shmem_##N##_ibput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,      \
                         int pe) noexcept {                                                                                 \
    ibput(__func__, dest, source, dst, sst, bsize, nblocks, sizeof(T), pe, 0);                                     \
  }                                                                                                                \
  void shmem_ctx_##N##_ibget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, \
                             size_t nblocks, int pe) noexcept {                                                             \
    RDSM_CTX_INVALID_RETURN(void);                                                                                 \
    ibget(__func__, dest, source, dst, sst, bsize, nblocks, sizeof(T), ctx_pe(__func__, ctx, pe),                  \
          ctx_stream(__func__, ctx));                                                                              \
  }                                                                                                                \
  void shmem_##N##_ibget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,      \
                         int pe) noexcept {                                                                                 \
    ibget(__func__, dest, source, dst, sst, bsize, nblocks, sizeof(T), pe, 0);                                     \
  }
RDSM_SHMEM_RMA_TYPES(RDSM_DEF_IB)

#define RDSM_DEF_IB_SIZED(B)                                                                                       \
  void shmem_ctx_ibput##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,           \
                          size_t bsize, size_t nblocks, int pe) noexcept {                                                  \
    RDSM_CTX_INVALID_RETURN(void);                                                                                 \
    ibput(__func__, dest, source, dst, sst, bsize, nblocks, B / 8, ctx_pe(__func__, ctx, pe),                      \
          ctx_stream(__func__, ctx));                                                                              \
  }                                                                                                                \
  void shmem_ibput##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,   \
                      int pe) noexcept {                                                                                    \
    ibput(__func__, dest, source, dst, sst, bsize, nblocks, B / 8, pe, 0);                                         \
  }                                                                                                                \
  void shmem_ctx_ibget##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,           \
                          size_t bsize, size_t nblocks, int pe) noexcept {                                                  \
    RDSM_CTX_INVALID_RETURN(void);                                                                                 \
    ibget(__func__, dest, source, dst, sst, bsize, nblocks, B / 8, ctx_pe(__func__, ctx, pe),                      \
          ctx_stream(__func__, ctx));                                                                              \
  }                                                                                                                \
  void shmem_ibget##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,   \
                      int pe) noexcept {                                                                                    \
    ibget(__func__, dest, source, dst, sst, bsize, nblocks, B / 8, pe, 0);                                         \
  }
RDSM_SHMEM_SIZES(RDSM_DEF_IB_SIZED)

void shmem_signal_set(uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  signal_update(__func__, SHMEM_CTX_DEFAULT, sig_addr, signal, pe, amo_op::set);
}
void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  signal_update(__func__, ctx, sig_addr, signal, pe, amo_op::set);
}
void shmem_signal_add(uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  signal_update(__func__, SHMEM_CTX_DEFAULT, sig_addr, signal, pe, amo_op::add);
}
void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  signal_update(__func__, ctx, sig_addr, signal, pe, amo_op::add);
}

void shmem_pe_quiet(const int* target_pes, size_t npes) noexcept { pe_quiet(__func__, SHMEM_CTX_DEFAULT, target_pes, npes); }
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int* target_pes, size_t npes) noexcept {
  pe_quiet(__func__, ctx, target_pes, npes);
}

// Sessions are hints (OpenSHMEM 1.6 sessions_intro: they change no completion or ordering, and an implementation
// need apply no optimization). rdsm applies none: every put and AMO already goes out at once, and there is no
// per-context buffering for a batch to tune, so the routines check their arguments and return.
void shmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t* config,
                             long config_mask) noexcept {
  runtime::checked(__func__);
  if (ctx == SHMEM_CTX_INVALID) return;
  if ((options & ~SHMEM_CTX_SESSION_BATCH) != 0)
    RDSM_LOG_WARN("rma", "shmem_ctx_session_start: unknown option bits 0x%lx are ignored", options);
  if ((config_mask & ~SHMEM_CTX_SESSION_TOTAL_OPS) != 0)
    RDSM_LOG_WARN("rma", "shmem_ctx_session_start: unknown config_mask bits 0x%lx are ignored", config_mask);
  if (config_mask != 0 && config == nullptr)
    fatal("shmem_ctx_session_start: config is NULL with config_mask 0x%lx", config_mask);
}

void shmem_ctx_session_stop(shmem_ctx_t ctx) noexcept { runtime::checked(__func__); (void)ctx; }

}  // extern "C"
