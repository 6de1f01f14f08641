// OpenSHMEM atomic memory operations, plain and shmem_ctx_ forms, and the deprecated names.
#include "core/rma.hpp"
#include "shim.hpp"
#include "shmem.h"
#include "shmem/context.hpp"

using namespace rdsm::detail;

namespace {

template <class T>
T amo(const char* fn, amo_op op, const T* target, T value, T compare, int pe, int stream) {
  return from_bits<T>(
      atomic(fn, op, const_cast<T*>(target), sizeof(T), to_bits(value), to_bits(compare), pe, stream));
}

template <class T>
void amo_nbi(const char* fn, amo_op op, T* fetch, const T* target, T value, T compare, int pe, int stream) {
  atomic_nbi(fn, op, fetch, const_cast<T*>(target), sizeof(T), to_bits(value), to_bits(compare), pe, stream);
}

}  // namespace

extern "C" {

#define RDSM_DEF_EXT_AMO(T, N) \
  T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T* source, int pe) noexcept { RDSM_CTX_INVALID_RETURN(T); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); return amo<T>(__func__, amo_op::fetch, source, 0, 0, wpe, wst); } \
  T shmem_##N##_atomic_fetch(const T* source, int pe) noexcept { const int wpe = pe, wst = 0; return amo<T>(__func__, amo_op::fetch, source, 0, 0, wpe, wst); } \
  void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); amo<T>(__func__, amo_op::set, dest, value, 0, wpe, wst); } \
  void shmem_##N##_atomic_set(T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; amo<T>(__func__, amo_op::set, dest, value, 0, wpe, wst); } \
  T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(T); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); return amo<T>(__func__, amo_op::swap, dest, value, 0, wpe, wst); } \
  T shmem_##N##_atomic_swap(T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; return amo<T>(__func__, amo_op::swap, dest, value, 0, wpe, wst); } \
  void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T* fetch, const T* source, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); amo_nbi<T>(__func__, amo_op::fetch, fetch, source, 0, 0, wpe, wst); } \
  void shmem_##N##_atomic_fetch_nbi(T* fetch, const T* source, int pe) noexcept { const int wpe = pe, wst = 0; amo_nbi<T>(__func__, amo_op::fetch, fetch, source, 0, 0, wpe, wst); } \
  void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); amo_nbi<T>(__func__, amo_op::swap, fetch, dest, value, 0, wpe, wst); } \
  void shmem_##N##_atomic_swap_nbi(T* fetch, T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; amo_nbi<T>(__func__, amo_op::swap, fetch, dest, value, 0, wpe, wst); }
RDSM_SHMEM_EXT_AMO_TYPES(RDSM_DEF_EXT_AMO)

#define RDSM_DEF_AMO(T, N) \
  T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T* dest, T cond, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(T); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); return amo<T>(__func__, amo_op::cswap, dest, value, cond, wpe, wst); } \
  T shmem_##N##_atomic_compare_swap(T* dest, T cond, T value, int pe) noexcept { const int wpe = pe, wst = 0; return amo<T>(__func__, amo_op::cswap, dest, value, cond, wpe, wst); } \
  T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T* dest, int pe) noexcept { RDSM_CTX_INVALID_RETURN(T); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); return amo<T>(__func__, amo_op::fetch_add, dest, 1, 0, wpe, wst); } \
  T shmem_##N##_atomic_fetch_inc(T* dest, int pe) noexcept { const int wpe = pe, wst = 0; return amo<T>(__func__, amo_op::fetch_add, dest, 1, 0, wpe, wst); } \
  void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T* dest, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); amo<T>(__func__, amo_op::add, dest, 1, 0, wpe, wst); } \
  void shmem_##N##_atomic_inc(T* dest, int pe) noexcept { const int wpe = pe, wst = 0; amo<T>(__func__, amo_op::add, dest, 1, 0, wpe, wst); } \
  T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(T); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); return amo<T>(__func__, amo_op::fetch_add, dest, value, 0, wpe, wst); } \
  T shmem_##N##_atomic_fetch_add(T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; return amo<T>(__func__, amo_op::fetch_add, dest, value, 0, wpe, wst); } \
  void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); amo<T>(__func__, amo_op::add, dest, value, 0, wpe, wst); } \
  void shmem_##N##_atomic_add(T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; amo<T>(__func__, amo_op::add, dest, value, 0, wpe, wst); } \
  void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T cond, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); amo_nbi<T>(__func__, amo_op::cswap, fetch, dest, value, cond, wpe, wst); } \
  void shmem_##N##_atomic_compare_swap_nbi(T* fetch, T* dest, T cond, T value, int pe) noexcept { const int wpe = pe, wst = 0; amo_nbi<T>(__func__, amo_op::cswap, fetch, dest, value, cond, wpe, wst); } \
  void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T* fetch, T* dest, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); amo_nbi<T>(__func__, amo_op::fetch_add, fetch, dest, 1, 0, wpe, wst); } \
  void shmem_##N##_atomic_fetch_inc_nbi(T* fetch, T* dest, int pe) noexcept { const int wpe = pe, wst = 0; amo_nbi<T>(__func__, amo_op::fetch_add, fetch, dest, 1, 0, wpe, wst); } \
  void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); amo_nbi<T>(__func__, amo_op::fetch_add, fetch, dest, value, 0, wpe, wst); } \
  void shmem_##N##_atomic_fetch_add_nbi(T* fetch, T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; amo_nbi<T>(__func__, amo_op::fetch_add, fetch, dest, value, 0, wpe, wst); }
RDSM_SHMEM_AMO_TYPES(RDSM_DEF_AMO)

#define RDSM_DEF_BITWISE_AMO(T, N) \
  T shmem_ctx_##N##_atomic_fetch_and(shmem_ctx_t ctx, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(T); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); return amo<T>(__func__, amo_op::fetch_and, dest, value, 0, wpe, wst); } \
  T shmem_##N##_atomic_fetch_and(T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; return amo<T>(__func__, amo_op::fetch_and, dest, value, 0, wpe, wst); } \
  void shmem_ctx_##N##_atomic_and(shmem_ctx_t ctx, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); amo<T>(__func__, amo_op::band, dest, value, 0, wpe, wst); } \
  void shmem_##N##_atomic_and(T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; amo<T>(__func__, amo_op::band, dest, value, 0, wpe, wst); } \
  void shmem_ctx_##N##_atomic_fetch_and_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); amo_nbi<T>(__func__, amo_op::fetch_and, fetch, dest, value, 0, wpe, wst); } \
  void shmem_##N##_atomic_fetch_and_nbi(T* fetch, T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; amo_nbi<T>(__func__, amo_op::fetch_and, fetch, dest, value, 0, wpe, wst); } \
  T shmem_ctx_##N##_atomic_fetch_or(shmem_ctx_t ctx, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(T); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); return amo<T>(__func__, amo_op::fetch_or, dest, value, 0, wpe, wst); } \
  T shmem_##N##_atomic_fetch_or(T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; return amo<T>(__func__, amo_op::fetch_or, dest, value, 0, wpe, wst); } \
  void shmem_ctx_##N##_atomic_or(shmem_ctx_t ctx, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); amo<T>(__func__, amo_op::bor, dest, value, 0, wpe, wst); } \
  void shmem_##N##_atomic_or(T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; amo<T>(__func__, amo_op::bor, dest, value, 0, wpe, wst); } \
  void shmem_ctx_##N##_atomic_fetch_or_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); amo_nbi<T>(__func__, amo_op::fetch_or, fetch, dest, value, 0, wpe, wst); } \
  void shmem_##N##_atomic_fetch_or_nbi(T* fetch, T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; amo_nbi<T>(__func__, amo_op::fetch_or, fetch, dest, value, 0, wpe, wst); } \
  T shmem_ctx_##N##_atomic_fetch_xor(shmem_ctx_t ctx, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(T); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); return amo<T>(__func__, amo_op::fetch_xor, dest, value, 0, wpe, wst); } \
  T shmem_##N##_atomic_fetch_xor(T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; return amo<T>(__func__, amo_op::fetch_xor, dest, value, 0, wpe, wst); } \
  void shmem_ctx_##N##_atomic_xor(shmem_ctx_t ctx, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); amo<T>(__func__, amo_op::bxor, dest, value, 0, wpe, wst); } \
  void shmem_##N##_atomic_xor(T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; amo<T>(__func__, amo_op::bxor, dest, value, 0, wpe, wst); } \
  void shmem_ctx_##N##_atomic_fetch_xor_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe) noexcept { RDSM_CTX_INVALID_RETURN(void); const int wpe = ctx_pe(__func__, ctx, pe), wst = ctx_stream(__func__, ctx); amo_nbi<T>(__func__, amo_op::fetch_xor, fetch, dest, value, 0, wpe, wst); } \
  void shmem_##N##_atomic_fetch_xor_nbi(T* fetch, T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; amo_nbi<T>(__func__, amo_op::fetch_xor, fetch, dest, value, 0, wpe, wst); }
RDSM_SHMEM_BITWISE_AMO_TYPES(RDSM_DEF_BITWISE_AMO)

// Deprecated (OpenSHMEM 1.0-1.3) names.
#define RDSM_DEF_OLD_AMO(T, N) \
  T shmem_##N##_cswap(T* dest, T cond, T value, int pe) noexcept { const int wpe = pe, wst = 0; return amo<T>(__func__, amo_op::cswap, dest, value, cond, wpe, wst); } \
  T shmem_##N##_finc(T* dest, int pe) noexcept { const int wpe = pe, wst = 0; return amo<T>(__func__, amo_op::fetch_add, dest, 1, 0, wpe, wst); } \
  void shmem_##N##_inc(T* dest, int pe) noexcept { const int wpe = pe, wst = 0; amo<T>(__func__, amo_op::add, dest, 1, 0, wpe, wst); } \
  T shmem_##N##_fadd(T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; return amo<T>(__func__, amo_op::fetch_add, dest, value, 0, wpe, wst); } \
  void shmem_##N##_add(T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; amo<T>(__func__, amo_op::add, dest, value, 0, wpe, wst); }
RDSM_SHMEM_OLD_AMO_TYPES(RDSM_DEF_OLD_AMO)
#define RDSM_DEF_OLD_EXT_AMO(T, N) \
  T shmem_##N##_fetch(const T* source, int pe) noexcept { const int wpe = pe, wst = 0; return amo<T>(__func__, amo_op::fetch, source, 0, 0, wpe, wst); } \
  void shmem_##N##_set(T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; amo<T>(__func__, amo_op::set, dest, value, 0, wpe, wst); } \
  T shmem_##N##_swap(T* dest, T value, int pe) noexcept { const int wpe = pe, wst = 0; return amo<T>(__func__, amo_op::swap, dest, value, 0, wpe, wst); }
RDSM_SHMEM_OLD_EXT_AMO_TYPES(RDSM_DEF_OLD_EXT_AMO)

}  // extern "C"
