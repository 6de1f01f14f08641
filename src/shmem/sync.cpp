// OpenSHMEM ordering, barriers, point-to-point waiting, signals and locks.
#include "core/sync.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "common/log.hpp"
#include "core/progress.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "core/watch.hpp"
#include "shmem.h"

using namespace rdsm::detail;

namespace {

bool included(const int* status, size_t i) { return status == nullptr || status[i] == 0; }

// The variables a wait or test reads must be symmetric (remotely accessible): a local one that no peer can
// update would make a wait hang unnamed.
template <class T>
void check_ivars(const char* fn, const char* arg, const T* ivars, size_t n) {
  check_symmetric(fn, arg, ivars, bytes_of(fn, "nelems", n, sizeof(T)));
}

void check_indices(const char* fn, const size_t* indices, size_t n) {
  if (indices == nullptr && n != 0)
    fatal("%s: indices is NULL; pass an array of nelems (%zu) size_t for the satisfied indices", fn, n);
}

// Holds when element i satisfies its comparison (scalar operand or per-element vector).
template <class T>
bool satisfied(T* ivars, size_t i, int cmp, const T* values, T value) {
  return compare(cmp, load_acquire(&ivars[i]), values != nullptr ? values[i] : value);
}

// What a wait on `ivar` (or an array starting there) compared with `value` is, for the hang reports.
template <class T>
wait_on value_wait(const char* fn, T* ivar, int cmp, T value, bool vector) {
  wait_on w{.call = fn, .addr = ivar, .by_peer = true};
  if (vector) return w;  // several values: the reports name the array only
  w.cmp = cmp;
  w.width = sizeof(T);
  w.is_signed = std::is_signed_v<T>;
  w.value = static_cast<uint64_t>(value);
  return w;
}

template <class T>
void wait_one(const char* fn, T* ivar, int cmp, T value) {
  check_cmp(fn, cmp);
  check_ivars(fn, "ivar", ivar, 1);
  if (compare(cmp, load_acquire(ivar), value)) return;
  const wait_on on = value_wait(fn, ivar, cmp, value, false);
  wait_scope scope(on);
  backoff b;
  while (!compare(cmp, load_acquire(ivar), value)) b.pause();
}

template <class T>
bool all_satisfied(T* ivars, size_t n, const int* status, int cmp, const T* values, T value) {
  for (size_t i = 0; i < n; ++i)
    if (included(status, i) && !satisfied(ivars, i, cmp, values, value)) return false;
  return true;
}

// The tests: a test that finds nothing serves the transport once (poll_progress) and looks again, so that
// a loop of tests sees what peers on other hosts put without waiting for the progress thread.
template <class T>
int test_all(const char* fn, T* ivars, size_t n, const int* status, int cmp, const T* values, T value) {
  check_cmp(fn, cmp);
  check_ivars(fn, "ivars", ivars, n);
  if (all_satisfied(ivars, n, status, cmp, values, value)) return 1;
  poll_progress();
  return all_satisfied(ivars, n, status, cmp, values, value) ? 1 : 0;
}

// Where the next _any search of an array starts: one past the index the previous search of that array returned,
// so a series of calls returns every satisfied index in turn (OpenSHMEM 1.5 §9.10), not the lowest each time.
// Per PE, in slots picked by the array's address (arrays that share a slot share only where they start);
// relaxed atomics, as threads may search arrays at once. _some needs none: it returns every satisfied index.
constexpr size_t any_slots = 64;
std::atomic<size_t> g_any_next[any_slots];

std::atomic<size_t>& any_next(const void* ivars) {
  return g_any_next[(reinterpret_cast<uintptr_t>(ivars) / alignof(std::max_align_t)) % any_slots];
}

template <class T>
size_t find_any(T* ivars, size_t n, const int* status, int cmp, const T* values, T value) {
  if (n == 0) return SIZE_MAX;
  std::atomic<size_t>& next = any_next(ivars);
  const size_t first = next.load(std::memory_order_relaxed) % n;
  for (size_t k = 0, i = first; k < n; ++k, i = i + 1 == n ? 0 : i + 1)
    if (included(status, i) && satisfied(ivars, i, cmp, values, value)) {
      next.store(i + 1, std::memory_order_relaxed);
      return i;
    }
  return SIZE_MAX;
}

template <class T>
size_t test_any(const char* fn, T* ivars, size_t n, const int* status, int cmp, const T* values, T value) {
  check_cmp(fn, cmp);
  check_ivars(fn, "ivars", ivars, n);
  const size_t i = find_any(ivars, n, status, cmp, values, value);
  if (i != SIZE_MAX || n == 0) return i;
  poll_progress();
  return find_any(ivars, n, status, cmp, values, value);
}

template <class T>
size_t find_some(T* ivars, size_t n, size_t* indices, const int* status, int cmp, const T* values, T value) {
  size_t found = 0;
  for (size_t i = 0; i < n; ++i)
    if (included(status, i) && satisfied(ivars, i, cmp, values, value)) indices[found++] = i;
  return found;
}

template <class T>
size_t test_some(const char* fn, T* ivars, size_t n, size_t* indices, const int* status, int cmp,
                 const T* values, T value) {
  check_cmp(fn, cmp);
  check_ivars(fn, "ivars", ivars, n);
  check_indices(fn, indices, n);
  const size_t found = find_some(ivars, n, indices, status, cmp, values, value);
  if (found != 0 || n == 0) return found;
  poll_progress();
  return find_some(ivars, n, indices, status, cmp, values, value);
}

bool any_included(size_t n, const int* status) {
  for (size_t i = 0; i < n; ++i)
    if (included(status, i)) return true;
  return false;
}

template <class T>
void wait_all(const char* fn, T* ivars, size_t n, const int* status, int cmp, const T* values, T value) {
  check_cmp(fn, cmp);
  check_ivars(fn, "ivars", ivars, n);
  if (all_satisfied(ivars, n, status, cmp, values, value)) return;
  const wait_on on = value_wait(fn, ivars, cmp, value, n != 1 || values != nullptr);
  wait_scope scope(on);
  backoff b;  // progresses the transport itself
  while (!all_satisfied(ivars, n, status, cmp, values, value)) b.pause();
}

template <class T>
size_t wait_any(const char* fn, T* ivars, size_t n, const int* status, int cmp, const T* values, T value) {
  if (!any_included(n, status)) return SIZE_MAX;
  check_cmp(fn, cmp);
  check_ivars(fn, "ivars", ivars, n);
  size_t i = find_any(ivars, n, status, cmp, values, value);
  if (i != SIZE_MAX) return i;
  const wait_on on = value_wait(fn, ivars, cmp, value, n != 1 || values != nullptr);
  wait_scope scope(on);
  backoff b;
  while ((i = find_any(ivars, n, status, cmp, values, value)) == SIZE_MAX) b.pause();
  return i;
}

template <class T>
size_t wait_some(const char* fn, T* ivars, size_t n, size_t* indices, const int* status, int cmp,
                 const T* values, T value) {
  if (!any_included(n, status)) return 0;
  check_cmp(fn, cmp);
  check_ivars(fn, "ivars", ivars, n);
  check_indices(fn, indices, n);
  size_t found = find_some(ivars, n, indices, status, cmp, values, value);
  if (found != 0) return found;
  const wait_on on = value_wait(fn, ivars, cmp, value, n != 1 || values != nullptr);
  wait_scope scope(on);
  backoff b;
  while ((found = find_some(ivars, n, indices, status, cmp, values, value)) == 0) b.pause();
  return found;
}

}  // namespace

extern "C" {

void shmem_fence(void) noexcept { fence(); }
void shmem_quiet(void) noexcept { quiet(); }

void shmem_barrier_all(void) noexcept {
  runtime::checked(__func__);
  barrier_all();
}

void shmem_sync_all(void) noexcept {
  runtime::checked(__func__);
  sync_all();
}

#define RDSM_DEF_SYNC(T, N)                                                                         \
  void shmem_##N##_wait_until(T* ivar, int cmp, T cmp_value) noexcept { wait_one(__func__, ivar, cmp, cmp_value); } \
  void shmem_##N##_wait_until_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value) noexcept { \
    wait_all<T>(__func__, ivars, nelems, status, cmp, nullptr, cmp_value);                           \
  }                                                                                                  \
  size_t shmem_##N##_wait_until_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value) noexcept { \
    return wait_any<T>(__func__, ivars, nelems, status, cmp, nullptr, cmp_value);                    \
  }                                                                                                  \
  size_t shmem_##N##_wait_until_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp, \
                                     T cmp_value) noexcept {                                                  \
    return wait_some<T>(__func__, ivars, nelems, indices, status, cmp, nullptr, cmp_value);          \
  }                                                                                                  \
  void shmem_##N##_wait_until_all_vector(T* ivars, size_t nelems, const int* status, int cmp, const T* cmp_values) noexcept { \
    wait_all<T>(__func__, ivars, nelems, status, cmp, cmp_values, static_cast<T>(0));                              \
  }                                                                                                  \
  size_t shmem_##N##_wait_until_any_vector(T* ivars, size_t nelems, const int* status, int cmp,      \
                                           const T* cmp_values) noexcept {                                          \
    return wait_any<T>(__func__, ivars, nelems, status, cmp, cmp_values, static_cast<T>(0));                       \
  }                                                                                                  \
  size_t shmem_##N##_wait_until_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status, \
                                            int cmp, const T* cmp_values) noexcept {                                \
    return wait_some<T>(__func__, ivars, nelems, indices, status, cmp, cmp_values, static_cast<T>(0));             \
  }                                                                                                  \
  int shmem_##N##_test(T* ivar, int cmp, T cmp_value) noexcept {                                              \
    return test_all<T>(__func__, ivar, 1, nullptr, cmp, nullptr, cmp_value);                         \
  }                                                                                                  \
  int shmem_##N##_test_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value) noexcept {       \
    return test_all<T>(__func__, ivars, nelems, status, cmp, nullptr, cmp_value);                    \
  }                                                                                                  \
  size_t shmem_##N##_test_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value) noexcept {    \
    return test_any<T>(__func__, ivars, nelems, status, cmp, nullptr, cmp_value);                    \
  }                                                                                                  \
  size_t shmem_##N##_test_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp, \
                               T cmp_value) noexcept {                                                        \
    return test_some<T>(__func__, ivars, nelems, indices, status, cmp, nullptr, cmp_value);          \
  }                                                                                                  \
  int shmem_##N##_test_all_vector(T* ivars, size_t nelems, const int* status, int cmp, const T* cmp_values) noexcept { \
    return test_all<T>(__func__, ivars, nelems, status, cmp, cmp_values, static_cast<T>(0));                       \
  }                                                                                                  \
  size_t shmem_##N##_test_any_vector(T* ivars, size_t nelems, const int* status, int cmp, const T* cmp_values) noexcept { \
    return test_any<T>(__func__, ivars, nelems, status, cmp, cmp_values, static_cast<T>(0));                       \
  }                                                                                                  \
  size_t shmem_##N##_test_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp, \
                                      const T* cmp_values) noexcept {                                               \
    return test_some<T>(__func__, ivars, nelems, indices, status, cmp, cmp_values, static_cast<T>(0));             \
  }                                                                                                  \
  void shmem_##N##_wait(T* ivar, T cmp_value) noexcept { wait_one(__func__, ivar, SHMEM_CMP_NE, cmp_value); }
RDSM_SHMEM_SYNC_TYPES(RDSM_DEF_SYNC)

void shmem_wait(long* ivar, long cmp_value) noexcept { wait_one(__func__, ivar, SHMEM_CMP_NE, cmp_value); }
// The parentheses keep the C11 type-generic macro of the same name from expanding here.
void(shmem_wait_until)(long* ivar, int cmp, long cmp_value) noexcept { wait_one("shmem_wait_until", ivar, cmp, cmp_value); }

uint64_t shmem_signal_fetch(const uint64_t* sig_addr) noexcept {
  check_atomic_word(__func__, "sig_addr", sig_addr);
  poll_progress();  // programs poll signals with it
  return load_acquire(sig_addr);
}

uint64_t shmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value) noexcept {
  check_atomic_word(__func__, "sig_addr", sig_addr);
  wait_one(__func__, sig_addr, cmp, cmp_value);
  return load_acquire(sig_addr);
}

void shmem_set_lock(long* lock) noexcept { lock_set(__func__, lock); }
void shmem_clear_lock(long* lock) noexcept { lock_clear(__func__, lock); }
int shmem_test_lock(long* lock) noexcept { return lock_test(__func__, lock); }

}  // extern "C"
