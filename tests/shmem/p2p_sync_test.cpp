// Point-to-point synchronization for every sync type: wait_until with each SHMEM_CMP_*, the _all/_any/_some
// and _vector waits and tests with status masks, and the results when every element is excluded.
#include <cstdint>
#include <set>

#include "shmem_test_util.hpp"

using namespace shtest;

namespace {

constexpr size_t N = 8;

template <class T>
struct sync_ops {
  void (*wait_until)(T*, int, T);
  void (*wait_until_all)(T*, size_t, const int*, int, T);
  size_t (*wait_until_any)(T*, size_t, const int*, int, T);
  size_t (*wait_until_some)(T*, size_t, size_t*, const int*, int, T);
  void (*wait_until_all_vector)(T*, size_t, const int*, int, const T*);
  size_t (*wait_until_any_vector)(T*, size_t, const int*, int, const T*);
  size_t (*wait_until_some_vector)(T*, size_t, size_t*, const int*, int, const T*);
  int (*test)(T*, int, T);
  int (*test_all)(T*, size_t, const int*, int, T);
  size_t (*test_any)(T*, size_t, const int*, int, T);
  size_t (*test_some)(T*, size_t, size_t*, const int*, int, T);
  int (*test_all_vector)(T*, size_t, const int*, int, const T*);
  size_t (*test_any_vector)(T*, size_t, const int*, int, const T*);
  size_t (*test_some_vector)(T*, size_t, size_t*, const int*, int, const T*);
  void (*wait)(T*, T);
  void (*p)(T*, T, int);
};

// Runs body(sender) twice with the roles swapped: even PEs send to their right neighbour while odd PEs
// wait, then the reverse. Senders sleep first, so a wait that returns early observes missing updates.
template <class F>
void two_phases(F body) {
  for (int parity = 0; parity < 2; ++parity) {
    const bool sender = me() % 2 == parity;
    body(sender);
    shmem_barrier_all();
  }
}

template <class T>
void check_scalar_waits(const sync_ops<T>& op, T* ivar, long* data) {
  struct cse {
    int cmp;
    int init, operand, final;
  };
  const cse cases[] = {{SHMEM_CMP_EQ, 1, 9, 9}, {SHMEM_CMP_NE, 4, 4, 5}, {SHMEM_CMP_GT, 4, 4, 6},
                       {SHMEM_CMP_GE, 3, 4, 4}, {SHMEM_CMP_LT, 9, 4, 3}, {SHMEM_CMP_LE, 9, 4, 4}};
  for (const cse& c : cases) {
    two_phases([&](bool sender) {
      *ivar = static_cast<T>(c.init);
      *data = 0;
      EXPECT_EQ(op.test(ivar, c.cmp, static_cast<T>(c.operand)), 0) << "cmp " << c.cmp << " holds on init";
      shmem_barrier_all();
      if (sender) {
        sleep_ms(1);
        shmem_long_p(data, 500 + me(), right());
        shmem_fence();
        op.p(ivar, static_cast<T>(c.final), right());
      } else {
        op.wait_until(ivar, c.cmp, static_cast<T>(c.operand));
        EXPECT_EQ(*ivar, static_cast<T>(c.final)) << "cmp " << c.cmp << ": wait_until returned early";
        EXPECT_EQ(*data, 500 + left()) << "cmp " << c.cmp;
        EXPECT_EQ(op.test(ivar, c.cmp, static_cast<T>(c.operand)), 1) << "cmp " << c.cmp;
      }
    });
  }
  // Deprecated shmem_<T>_wait: waits while *ivar == value.
  two_phases([&](bool sender) {
    *ivar = static_cast<T>(4);
    shmem_barrier_all();
    if (sender) {
      sleep_ms(1);
      op.p(ivar, static_cast<T>(7), right());
    } else {
      op.wait(ivar, static_cast<T>(4));
      EXPECT_EQ(*ivar, static_cast<T>(7)) << "shmem_wait returned early";
    }
  });
}

// Local (deterministic) checks of the test_* forms with status masks.
template <class T>
void check_tests(const sync_ops<T>& op, T* iv) {
  const T init[N] = {1, 0, 1, 1, 0, 1, 1, 1};
  for (size_t i = 0; i < N; ++i) iv[i] = init[i];
  int status[N] = {0, 1, 0, 0, 1, 0, 0, 0};  // 1 and 4 (the zeros) excluded
  size_t idx[N];
  EXPECT_EQ(op.test_all(iv, N, status, SHMEM_CMP_EQ, T(1)), 1);
  EXPECT_EQ(op.test_all(iv, N, nullptr, SHMEM_CMP_EQ, T(1)), 0);
  EXPECT_EQ(op.test_any(iv, N, status, SHMEM_CMP_EQ, T(0)), SIZE_MAX);
  EXPECT_EQ(op.test_any(iv, N, nullptr, SHMEM_CMP_EQ, T(0)), 1u);
  size_t a = op.test_any(iv, N, status, SHMEM_CMP_EQ, T(1));
  EXPECT_TRUE(a < N && status[a] == 0 && iv[a] == T(1)) << a;
  EXPECT_EQ(op.test_some(iv, N, idx, status, SHMEM_CMP_EQ, T(0)), 0u);
  ASSERT_EQ(op.test_some(iv, N, idx, nullptr, SHMEM_CMP_EQ, T(0)), 2u);
  EXPECT_EQ(std::set<size_t>(idx, idx + 2), (std::set<size_t>{1, 4}));
  ASSERT_EQ(op.test_some(iv, N, idx, status, SHMEM_CMP_GT, T(0)), 6u);
  EXPECT_EQ(std::set<size_t>(idx, idx + 6), (std::set<size_t>{0, 2, 3, 5, 6, 7}));

  // Vector forms: cmp_values equal the ivars except element 3.
  T vals[N];
  for (size_t i = 0; i < N; ++i) vals[i] = iv[i];
  vals[3] = T(5);
  EXPECT_EQ(op.test_all_vector(iv, N, status, SHMEM_CMP_EQ, vals), 0);
  status[3] = 1;
  EXPECT_EQ(op.test_all_vector(iv, N, status, SHMEM_CMP_EQ, vals), 1);
  EXPECT_EQ(op.test_any_vector(iv, N, status, SHMEM_CMP_NE, vals), SIZE_MAX);
  status[3] = 0;
  EXPECT_EQ(op.test_any_vector(iv, N, status, SHMEM_CMP_NE, vals), 3u);
  EXPECT_EQ(op.test_any_vector(iv, N, status, SHMEM_CMP_LT, vals), 3u);  // 1 < 5
  EXPECT_EQ(op.test_any_vector(iv, N, status, SHMEM_CMP_GT, vals), SIZE_MAX);
  ASSERT_EQ(op.test_some_vector(iv, N, idx, status, SHMEM_CMP_NE, vals), 1u);
  EXPECT_EQ(idx[0], 3u);
  ASSERT_EQ(op.test_some_vector(iv, N, idx, nullptr, SHMEM_CMP_LE, vals), N);

  // Every element excluded (and nelems 0): any -> SIZE_MAX, some -> 0, all -> true; waits return at once.
  int none[N];
  for (int& s : none) s = 1;
  EXPECT_EQ(op.test_all(iv, N, none, SHMEM_CMP_EQ, T(3)), 1);
  EXPECT_EQ(op.test_any(iv, N, none, SHMEM_CMP_EQ, T(1)), SIZE_MAX);
  EXPECT_EQ(op.test_some(iv, N, idx, none, SHMEM_CMP_EQ, T(1)), 0u);
  EXPECT_EQ(op.test_all_vector(iv, N, none, SHMEM_CMP_EQ, vals), 1);
  EXPECT_EQ(op.test_any_vector(iv, N, none, SHMEM_CMP_EQ, vals), SIZE_MAX);
  EXPECT_EQ(op.test_some_vector(iv, N, idx, none, SHMEM_CMP_EQ, vals), 0u);
  EXPECT_EQ(op.test_any(iv, 0, nullptr, SHMEM_CMP_EQ, T(1)), SIZE_MAX);
  EXPECT_EQ(op.test_some(iv, 0, idx, nullptr, SHMEM_CMP_EQ, T(1)), 0u);
  op.wait_until_all(iv, N, none, SHMEM_CMP_EQ, T(3));  // would hang if excluded elements were waited on
  op.wait_until_all_vector(iv, N, none, SHMEM_CMP_EQ, vals);
  EXPECT_EQ(op.wait_until_any(iv, N, none, SHMEM_CMP_EQ, T(3)), SIZE_MAX);
  EXPECT_EQ(op.wait_until_any_vector(iv, N, none, SHMEM_CMP_NE, vals), SIZE_MAX);
  EXPECT_EQ(op.wait_until_some(iv, N, idx, none, SHMEM_CMP_EQ, T(3)), 0u);
  EXPECT_EQ(op.wait_until_some_vector(iv, N, idx, none, SHMEM_CMP_NE, vals), 0u);
  EXPECT_EQ(op.wait_until_any(iv, 0, nullptr, SHMEM_CMP_EQ, T(3)), SIZE_MAX);
  EXPECT_EQ(op.wait_until_some(iv, 0, idx, nullptr, SHMEM_CMP_EQ, T(3)), 0u);
}

// Waits on arrays updated by the left neighbour; excluded elements are updated first and must be ignored.
template <class T>
void check_array_waits(const sync_ops<T>& op, T* iv) {
  const int status[N] = {0, 1, 0, 0, 1, 0, 0, 0};
  size_t idx[N];
  T vals[N];
  for (size_t i = 0; i < N; ++i) vals[i] = static_cast<T>(10 + i);
  for (int vector = 0; vector < 2; ++vector) {
    // _all: every included element must be set when it returns.
    two_phases([&](bool sender) {
      for (size_t i = 0; i < N; ++i) iv[i] = T(0);
      shmem_barrier_all();
      if (sender) {
        sleep_ms(1);
        for (size_t i = 0; i < N; ++i)
          if (status[i] == 0) op.p(&iv[i], vector ? vals[i] : T(1), right());
      } else {
        if (vector) op.wait_until_all_vector(iv, N, status, SHMEM_CMP_EQ, vals);
        else op.wait_until_all(iv, N, status, SHMEM_CMP_EQ, T(1));
        int missing = 0;
        for (size_t i = 0; i < N; ++i) missing += status[i] == 0 && peek(&iv[i]) != (vector ? vals[i] : T(1));
        EXPECT_EQ(missing, 0) << "wait_until_all" << (vector ? "_vector" : "") << " returned early";
      }
    });
    // _any: excluded element 1 is satisfied first, then element 6: the result must be 6.
    two_phases([&](bool sender) {
      for (size_t i = 0; i < N; ++i) iv[i] = T(0);
      shmem_barrier_all();
      if (sender) {
        op.p(&iv[1], vector ? vals[1] : T(1), right());
        shmem_quiet();
        sleep_ms(1);
        op.p(&iv[6], vector ? vals[6] : T(1), right());
      } else {
        size_t got = vector ? op.wait_until_any_vector(iv, N, status, SHMEM_CMP_EQ, vals)
                            : op.wait_until_any(iv, N, status, SHMEM_CMP_EQ, T(1));
        EXPECT_EQ(got, 6u) << "wait_until_any" << (vector ? "_vector" : "");
      }
    });
    // _some: excluded 4 first, then 2 and 5: the indices are a non-empty subset of {2, 5}.
    two_phases([&](bool sender) {
      for (size_t i = 0; i < N; ++i) iv[i] = T(0);
      shmem_barrier_all();
      if (sender) {
        op.p(&iv[4], vector ? vals[4] : T(1), right());
        shmem_quiet();
        sleep_ms(1);
        op.p(&iv[2], vector ? vals[2] : T(1), right());
        op.p(&iv[5], vector ? vals[5] : T(1), right());
      } else {
        size_t n = vector ? op.wait_until_some_vector(iv, N, idx, status, SHMEM_CMP_EQ, vals)
                          : op.wait_until_some(iv, N, idx, status, SHMEM_CMP_EQ, T(1));
        EXPECT_GE(n, 1u);
        ASSERT_LE(n, 2u);
        for (size_t k = 0; k < n; ++k) {
          EXPECT_TRUE(idx[k] == 2 || idx[k] == 5) << idx[k];
        }
        if (n == 2) {
          EXPECT_NE(idx[0], idx[1]);
        }
      }
    });
  }
}

}  // namespace

#define RDSM_TEST_SYNC(T, N_)                                                                           \
  T g_ivar_##N_;                                                                                        \
  long g_data_##N_;                                                                                     \
  T g_ivars_##N_[N];                                                                                    \
  sync_ops<T> ops_##N_() {                                                                              \
    return {shmem_##N_##_wait_until,          shmem_##N_##_wait_until_all,                               \
            shmem_##N_##_wait_until_any,      shmem_##N_##_wait_until_some,                              \
            shmem_##N_##_wait_until_all_vector, shmem_##N_##_wait_until_any_vector,                      \
            shmem_##N_##_wait_until_some_vector, shmem_##N_##_test,                                      \
            shmem_##N_##_test_all,            shmem_##N_##_test_any,                                     \
            shmem_##N_##_test_some,           shmem_##N_##_test_all_vector,                              \
            shmem_##N_##_test_any_vector,     shmem_##N_##_test_some_vector,                             \
            shmem_##N_##_wait,                shmem_##N_##_p};                                           \
  }                                                                                                     \
  TEST(P2pSync, WaitUntilEachCmpOperator_##N_) {                                                        \
    ASSERT_EQ(npes() % 2, 0) << "needs an even number of PEs";                                          \
    check_scalar_waits<T>(ops_##N_(), &g_ivar_##N_, &g_data_##N_);                                        \
  }                                                                                                     \
  TEST(P2pSync, TestFormsWithStatusMasksAndAllExcluded_##N_) { check_tests<T>(ops_##N_(), g_ivars_##N_); } \
  TEST(P2pSync, WaitAllAnySomeAndVectorIgnoreExcluded_##N_) {                                           \
    ASSERT_EQ(npes() % 2, 0) << "needs an even number of PEs";                                          \
    T* heap = static_cast<T*>(shmem_malloc(N * sizeof(T)));                                              \
    ASSERT_NE(heap, nullptr);                                                                            \
    check_array_waits<T>(ops_##N_(), heap);                                                              \
    shmem_barrier_all();                                                                                 \
    check_array_waits<T>(ops_##N_(), g_ivars_##N_);                                                      \
    shmem_free(heap);                                                                                    \
  }
RDSM_SHMEM_SYNC_TYPES(RDSM_TEST_SYNC)
#undef RDSM_TEST_SYNC

TEST(P2pSync, DeprecatedUntypedShmemWaitOnLong) {
  static long w;
  two_phases([&](bool sender) {
    w = 3;
    shmem_barrier_all();
    if (sender) {
      sleep_ms(1);
      shmem_long_p(&w, 8, right());
    } else {
      shmem_wait(&w, 3);
      EXPECT_EQ(w, 8);
    }
  });
}
