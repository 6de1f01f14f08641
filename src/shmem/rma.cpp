// OpenSHMEM RMA and put-with-signal routines, plain and shmem_ctx_ forms, generated from the type table.
#include "core/rma.hpp"

#include "shmem.h"
#include "shmem/context.hpp"

using namespace rdsm::detail;

extern "C" {

#define RDSM_DEF_RMA(T, N) \
  void shmem_ctx_##N##_put(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); put(__func__, dest, source, nelems * sizeof(T), wpe, false, wst); } \
  void shmem_##N##_put(T* dest, const T* source, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; put(__func__, dest, source, nelems * sizeof(T), wpe, false, wst); } \
  void shmem_ctx_##N##_get(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); get(__func__, dest, source, nelems * sizeof(T), wpe, false, wst); } \
  void shmem_##N##_get(T* dest, const T* source, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; get(__func__, dest, source, nelems * sizeof(T), wpe, false, wst); } \
  void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); put(__func__, dest, source, nelems * sizeof(T), wpe, true, wst); } \
  void shmem_##N##_put_nbi(T* dest, const T* source, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; put(__func__, dest, source, nelems * sizeof(T), wpe, true, wst); } \
  void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); get(__func__, dest, source, nelems * sizeof(T), wpe, true, wst); } \
  void shmem_##N##_get_nbi(T* dest, const T* source, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; get(__func__, dest, source, nelems * sizeof(T), wpe, true, wst); } \
  void shmem_ctx_##N##_p(shmem_ctx_t ctx, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); put(__func__, dest, &value, sizeof(T), wpe, false, wst); } \
  void shmem_##N##_p(T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; put(__func__, dest, &value, sizeof(T), wpe, false, wst); } \
  T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T* source, int pe) noexcept { RDSM_CTX_INVALID_RETURN(T); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); T value; get(__func__, &value, source, sizeof(T), wpe, false, wst); return value; } \
  T shmem_##N##_g(const T* source, int pe) noexcept { const int wpe = pe, wst = 0; T value; get(__func__, &value, source, sizeof(T), wpe, false, wst); return value; } \
  void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); iput(__func__, dest, source, dst, sst, nelems, sizeof(T), wpe, wst); } \
  void shmem_##N##_iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; iput(__func__, dest, source, dst, sst, nelems, sizeof(T), wpe, wst); } \
  void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); iget(__func__, dest, source, dst, sst, nelems, sizeof(T), wpe, wst); } \
  void shmem_##N##_iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; iget(__func__, dest, source, dst, sst, nelems, sizeof(T), wpe, wst); } \
  void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); put_signal(__func__, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, wpe, false, wst); } \
  void shmem_##N##_put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) noexcept { const int wpe = pe, wst = 0; put_signal(__func__, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, wpe, false, wst); } \
  void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); put_signal(__func__, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, wpe, true, wst); } \
  void shmem_##N##_put_signal_nbi(T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) noexcept { const int wpe = pe, wst = 0; put_signal(__func__, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, wpe, true, wst); }
RDSM_SHMEM_RMA_TYPES(RDSM_DEF_RMA)

#define RDSM_DEF_SIZED(B) \
  void shmem_ctx_put##B(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); put(__func__, dest, source, nelems * (B / 8), wpe, false, wst); } \
  void shmem_put##B(void* dest, const void* source, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; put(__func__, dest, source, nelems * (B / 8), wpe, false, wst); } \
  void shmem_ctx_get##B(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); get(__func__, dest, source, nelems * (B / 8), wpe, false, wst); } \
  void shmem_get##B(void* dest, const void* source, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; get(__func__, dest, source, nelems * (B / 8), wpe, false, wst); } \
  void shmem_ctx_put##B##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); put(__func__, dest, source, nelems * (B / 8), wpe, true, wst); } \
  void shmem_put##B##_nbi(void* dest, const void* source, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; put(__func__, dest, source, nelems * (B / 8), wpe, true, wst); } \
  void shmem_ctx_get##B##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); get(__func__, dest, source, nelems * (B / 8), wpe, true, wst); } \
  void shmem_get##B##_nbi(void* dest, const void* source, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; get(__func__, dest, source, nelems * (B / 8), wpe, true, wst); } \
  void shmem_ctx_iput##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); iput(__func__, dest, source, dst, sst, nelems, B / 8, wpe, wst); } \
  void shmem_iput##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; iput(__func__, dest, source, dst, sst, nelems, B / 8, wpe, wst); } \
  void shmem_ctx_iget##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); iget(__func__, dest, source, dst, sst, nelems, B / 8, wpe, wst); } \
  void shmem_iget##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; iget(__func__, dest, source, dst, sst, nelems, B / 8, wpe, wst); } \
  void shmem_ctx_put##B##_signal(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); put_signal(__func__, dest, source, nelems * (B / 8), sig_addr, signal, sig_op, wpe, false, wst); } \
  void shmem_put##B##_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) noexcept { const int wpe = pe, wst = 0; put_signal(__func__, dest, source, nelems * (B / 8), sig_addr, signal, sig_op, wpe, false, wst); } \
  void shmem_ctx_put##B##_signal_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); put_signal(__func__, dest, source, nelems * (B / 8), sig_addr, signal, sig_op, wpe, true, wst); } \
  void shmem_put##B##_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) noexcept { const int wpe = pe, wst = 0; put_signal(__func__, dest, source, nelems * (B / 8), sig_addr, signal, sig_op, wpe, true, wst); }
RDSM_SHMEM_SIZES(RDSM_DEF_SIZED)

void shmem_ctx_putmem(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); put(__func__, dest, source, nelems, wpe, false, wst); }
void shmem_putmem(void* dest, const void* source, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; put(__func__, dest, source, nelems, wpe, false, wst); }
void shmem_ctx_getmem(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); get(__func__, dest, source, nelems, wpe, false, wst); }
void shmem_getmem(void* dest, const void* source, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; get(__func__, dest, source, nelems, wpe, false, wst); }
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); put(__func__, dest, source, nelems, wpe, true, wst); }
void shmem_putmem_nbi(void* dest, const void* source, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; put(__func__, dest, source, nelems, wpe, true, wst); }
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); get(__func__, dest, source, nelems, wpe, true, wst); }
void shmem_getmem_nbi(void* dest, const void* source, size_t nelems, int pe) noexcept { const int wpe = pe, wst = 0; get(__func__, dest, source, nelems, wpe, true, wst); }
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); put_signal(__func__, dest, source, nelems, sig_addr, signal, sig_op, wpe, false, wst); }
void shmem_putmem_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) noexcept { const int wpe = pe, wst = 0; put_signal(__func__, dest, source, nelems, sig_addr, signal, sig_op, wpe, false, wst); }
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); put_signal(__func__, dest, source, nelems, sig_addr, signal, sig_op, wpe, true, wst); }
void shmem_putmem_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) noexcept { const int wpe = pe, wst = 0; put_signal(__func__, dest, source, nelems, sig_addr, signal, sig_op, wpe, true, wst); }

}  // extern "C"
