// shmem_wait_until_any / shmem_test_any and their _vector forms, for every sync type: a series of calls returns
// every satisfied index in turn (OpenSHMEM 1.5 §9.10), not the lowest one each time; excluded indices never.
#include <chrono>
#include <cstdint>
#include <set>
#include <vector>

#include "shmem_test_util.hpp"

using namespace shtest;

namespace {

constexpr size_t N = 8;

template <class T>
struct any_ops {
  size_t (*wait_until_any)(T*, size_t, const int*, int, T);
  size_t (*wait_until_any_vector)(T*, size_t, const int*, int, const T*);
  size_t (*test_any)(T*, size_t, const int*, int, T);
  size_t (*test_any_vector)(T*, size_t, const int*, int, const T*);
  void (*p)(T*, T, int);
};

// Calls one of the four forms on iv (satisfied where it holds 1) `calls` times; returns the indices seen.
template <class T>
std::set<size_t> indices_seen(const any_ops<T>& op, int form, T* iv, size_t n, const int* status, int calls) {
  std::vector<T> ones(n, T(1));
  std::set<size_t> seen;
  for (int c = 0; c < calls; ++c) {
    size_t i = SIZE_MAX;
    switch (form) {
      case 0: i = op.test_any(iv, n, status, SHMEM_CMP_EQ, T(1)); break;
      case 1: i = op.test_any_vector(iv, n, status, SHMEM_CMP_EQ, ones.data()); break;
      case 2: i = op.wait_until_any(iv, n, status, SHMEM_CMP_EQ, T(1)); break;
      default: i = op.wait_until_any_vector(iv, n, status, SHMEM_CMP_EQ, ones.data()); break;
    }
    seen.insert(i);
  }
  return seen;
}

const char* const form_names[] = {"test_any", "test_any_vector", "wait_until_any", "wait_until_any_vector"};

// Every element satisfied at once: 2N calls of each form see all N indices; with a status mask, every included
// index and no excluded one.
template <class T>
void check_local(const any_ops<T>& op, T* iv) {
  const int status[N] = {0, 1, 0, 0, 1, 0, 0, 1};
  for (int form = 0; form < 4; ++form) {
    SCOPED_TRACE(form_names[form]);
    for (size_t i = 0; i < N; ++i) iv[i] = T(1);
    std::set<size_t> all;
    for (size_t i = 0; i < N; ++i) all.insert(i);
    EXPECT_EQ(indices_seen(op, form, iv, N, nullptr, 2 * N), all);
    std::set<size_t> included;
    for (size_t i = 0; i < N; ++i)
      if (status[i] == 0) included.insert(i);
    EXPECT_EQ(indices_seen(op, form, iv, N, status, 2 * N), included);
  }
}

// The pattern that hangs when the lowest index always wins: every PE sets its own element of every PE's array,
// and each PE waits, never clearing an element, until it has seen each sender's index.
template <class T>
void check_senders(const any_ops<T>& op, T* flags) {
  const size_t n = static_cast<size_t>(npes());
  for (int form = 2; form < 4; ++form) {
    SCOPED_TRACE(form_names[form]);
    for (size_t i = 0; i < n; ++i) flags[i] = T(0);
    shmem_barrier_all();
    for (int k = 0; k < npes(); ++k) op.p(&flags[me()], T(1), (me() + k) % npes());
    // Senders' puts arrive over time: keep calling for up to 3 s (a fair search needs a few calls once all
    // have arrived; one that always returns the lowest index never gets past it).
    std::set<size_t> seen;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (seen.size() < n && std::chrono::steady_clock::now() < deadline) {
      std::set<size_t> one = indices_seen(op, form, flags, n, nullptr, 1);
      seen.insert(one.begin(), one.end());
    }
    EXPECT_EQ(seen.size(), n) << "some senders' indices never returned while others stayed satisfied";
    shmem_barrier_all();
  }
}

}  // namespace

#define RDSM_TEST_ANY(T, N_)                                                                                \
  T g_flags_##N_[64];                                                                                       \
  any_ops<T> any_ops_##N_() {                                                                               \
    return {shmem_##N_##_wait_until_any, shmem_##N_##_wait_until_any_vector, shmem_##N_##_test_any,        \
            shmem_##N_##_test_any_vector, shmem_##N_##_p};                                                  \
  }                                                                                                         \
  TEST(P2pAnyRotation, EverySatisfiedIndexInTurn_##N_) {                                                    \
    static T local[N]; /* the variables a wait or test reads are symmetric, here a global */                \
    check_local<T>(any_ops_##N_(), local);                                                                  \
  }                                                                                                         \
  TEST(P2pAnyRotation, EverySenderSeenWhileOthersStaySatisfied_##N_) {                                      \
    ASSERT_LE(npes(), 64);                                                                                  \
    check_senders<T>(any_ops_##N_(), g_flags_##N_);                                                         \
  }
RDSM_SHMEM_SYNC_TYPES(RDSM_TEST_ANY)
#undef RDSM_TEST_ANY
