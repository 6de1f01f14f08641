// Synchronization: barriers, distributed locks and waiting on local memory.
#pragma once

#include <cstdint>

#include "core/progress.hpp"

namespace rdsm::detail {

/// Completes all RMA then synchronizes every PE.
void barrier_all();
/// Synchronizes every PE without completing RMA.
void sync_all();

void lock_set(const char* fn, long* lock);
void lock_clear(const char* fn, long* lock);
/// Returns 0 if the lock was acquired, 1 if it is held by another PE.
int lock_test(const char* fn, long* lock);
/// The PE that holds `lock` (shmem_set_lock, shmem_test_lock), among the PEs whose memory is mapped here, or
/// -1 when none of them is seen to hold it. For the watch's reports: a lock's holder stuck in a collective
/// that a waiter for the lock has yet to make.
int lock_holder(const void* lock);

/// Comparison codes (values equal SHMEM_CMP_* in shmem.h).
enum cmp_op : int { cmp_eq = 1, cmp_ne = 2, cmp_gt = 3, cmp_ge = 4, cmp_lt = 5, cmp_le = 6 };

/// Ends the job naming `fn` when `cmp` is not a valid SHMEM_CMP_* code.
void check_cmp(const char* fn, int cmp);

/// Evaluates `value cmp operand` for a code already checked by check_cmp.
template <class T>
inline bool compare(int cmp, T value, T operand) {
  switch (cmp) {
    case cmp_eq: return value == operand;
    case cmp_ne: return value != operand;
    case cmp_gt: return value > operand;
    case cmp_ge: return value >= operand;
    case cmp_lt: return value < operand;
    default: return value <= operand;
  }
}

/// Atomically loads a local word (volatile, acquire): what waiting loops read.
template <class T>
inline T load_acquire(const T* p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

}  // namespace rdsm::detail
