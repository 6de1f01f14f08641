// OpenSHMEM RMA and put-with-signal routines, generated from the type table in shmem.h.
#include "core/rma.hpp"

#include "shmem.h"

using namespace rdsm::detail;

extern "C" {

#define RDSM_DEF_RMA(T, N)                                                                          \
  void shmem_##N##_put(T* dest, const T* source, size_t nelems, int pe) {                            \
    put(__func__, dest, source, nelems * sizeof(T), pe, false);                                      \
  }                                                                                                  \
  void shmem_##N##_get(T* dest, const T* source, size_t nelems, int pe) {                            \
    get(__func__, dest, source, nelems * sizeof(T), pe, false);                                      \
  }                                                                                                  \
  void shmem_##N##_put_nbi(T* dest, const T* source, size_t nelems, int pe) {                        \
    put(__func__, dest, source, nelems * sizeof(T), pe, true);                                       \
  }                                                                                                  \
  void shmem_##N##_get_nbi(T* dest, const T* source, size_t nelems, int pe) {                        \
    get(__func__, dest, source, nelems * sizeof(T), pe, true);                                       \
  }                                                                                                  \
  void shmem_##N##_p(T* dest, T value, int pe) { put(__func__, dest, &value, sizeof(T), pe, false); } \
  T shmem_##N##_g(const T* source, int pe) {                                                         \
    T value;                                                                                         \
    get(__func__, &value, source, sizeof(T), pe, false);                                             \
    return value;                                                                                    \
  }                                                                                                  \
  void shmem_##N##_iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { \
    iput(__func__, dest, source, dst, sst, nelems, sizeof(T), pe);                                   \
  }                                                                                                  \
  void shmem_##N##_iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { \
    iget(__func__, dest, source, dst, sst, nelems, sizeof(T), pe);                                   \
  }                                                                                                  \
  void shmem_##N##_put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, \
                              int sig_op, int pe) {                                                  \
    put_signal(__func__, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe, false);     \
  }                                                                                                  \
  void shmem_##N##_put_signal_nbi(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,       \
                                  uint64_t signal, int sig_op, int pe) {                             \
    put_signal(__func__, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe, true);      \
  }
RDSM_SHMEM_RMA_TYPES(RDSM_DEF_RMA)

#define RDSM_DEF_SIZED(B)                                                                           \
  void shmem_put##B(void* dest, const void* source, size_t nelems, int pe) {                         \
    put(__func__, dest, source, nelems * (B / 8), pe, false);                                        \
  }                                                                                                  \
  void shmem_get##B(void* dest, const void* source, size_t nelems, int pe) {                         \
    get(__func__, dest, source, nelems * (B / 8), pe, false);                                        \
  }                                                                                                  \
  void shmem_put##B##_nbi(void* dest, const void* source, size_t nelems, int pe) {                   \
    put(__func__, dest, source, nelems * (B / 8), pe, true);                                         \
  }                                                                                                  \
  void shmem_get##B##_nbi(void* dest, const void* source, size_t nelems, int pe) {                   \
    get(__func__, dest, source, nelems * (B / 8), pe, true);                                         \
  }                                                                                                  \
  void shmem_iput##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { \
    iput(__func__, dest, source, dst, sst, nelems, B / 8, pe);                                       \
  }                                                                                                  \
  void shmem_iget##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { \
    iget(__func__, dest, source, dst, sst, nelems, B / 8, pe);                                       \
  }                                                                                                  \
  void shmem_put##B##_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,      \
                             uint64_t signal, int sig_op, int pe) {                                  \
    put_signal(__func__, dest, source, nelems * (B / 8), sig_addr, signal, sig_op, pe, false);       \
  }                                                                                                  \
  void shmem_put##B##_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,  \
                                 uint64_t signal, int sig_op, int pe) {                              \
    put_signal(__func__, dest, source, nelems * (B / 8), sig_addr, signal, sig_op, pe, true);        \
  }
RDSM_SHMEM_SIZES(RDSM_DEF_SIZED)

void shmem_putmem(void* dest, const void* source, size_t nelems, int pe) {
  put(__func__, dest, source, nelems, pe, false);
}
void shmem_getmem(void* dest, const void* source, size_t nelems, int pe) {
  get(__func__, dest, source, nelems, pe, false);
}
void shmem_putmem_nbi(void* dest, const void* source, size_t nelems, int pe) {
  put(__func__, dest, source, nelems, pe, true);
}
void shmem_getmem_nbi(void* dest, const void* source, size_t nelems, int pe) {
  get(__func__, dest, source, nelems, pe, true);
}
void shmem_putmem_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,
                         int sig_op, int pe) {
  put_signal(__func__, dest, source, nelems, sig_addr, signal, sig_op, pe, false);
}
void shmem_putmem_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,
                             int sig_op, int pe) {
  put_signal(__func__, dest, source, nelems, sig_addr, signal, sig_op, pe, true);
}

}  // extern "C"
