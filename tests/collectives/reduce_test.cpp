// Team reductions: every type and operator of the specification's tables (instantiated from the header's
// X-macro tables), on the world, a strided team and 2-D rows and columns, for several lengths including
// in-place (dest == source). Values are small integers, exact in every type (floats and complex included),
// so the reference computed locally must match bit for bit.
#include <type_traits>
#include <vector>

#include "coll_test_util.hpp"

using namespace colltest;

namespace {

std::vector<team_case>& teams() {
  static std::vector<team_case> cases = make_team_cases();
  return cases;
}
[[maybe_unused]] const auto* const teams_teardown = testing::AddGlobalTestEnvironment(new team_cases_teardown(teams));

constexpr size_t max_elems = 70000;

// Symmetric buffers, allocated collectively on first use (every PE runs the same tests).
void* sym_buf(int which) {
  static void* b[2] = {nullptr, nullptr};
  if (b[0] == nullptr) {
    b[0] = shmem_malloc(max_elems * 32 + 64);
    b[1] = shmem_malloc(max_elems * 32 + 64);
  }
  return b[which];
}

enum family { bitwise, minmax, arith };

template <class T>
constexpr bool is_complex() {
  return !std::is_arithmetic_v<T>;
}

// Element i of world PE pe for operator op. Chosen so that results stay exact and in range.
template <class T>
T value(const char* op, int pe, size_t i) {
  const std::string o = op;
  if constexpr (is_complex<T>()) {
    T v;
    if (o == "sum") {
      __real__ v = static_cast<double>((pe * 3 + i) % 20);
      __imag__ v = static_cast<double>((pe + 2 * i) % 7);
      return v;
    }
    // prod: 1, 2, i, 1+i in turn: all products of four stay small Gaussian integers.
    static const double re[] = {1, 2, 0, 1}, im[] = {0, 0, 1, 1};
    __real__ v = re[(pe + i) % 4];
    __imag__ v = im[(pe + i) % 4];
    return v;
  } else {
    if constexpr (std::is_integral_v<T>) {
      if (o == "and" || o == "or" || o == "xor") {
      // Bit patterns that use the top bit of the type (including sign bits of signed types).
      const unsigned long long x = 0x9E3779B97F4A7C15ull * (pe + 1) + 0xBF58476D1CE4E5B9ull * (i + 1);
      T v;
      std::memcpy(&v, &x, sizeof(T));
      return v;
      }
    }
    if (o == "max" || o == "min") {
      long v = static_cast<long>((pe * 37 + i * 11) % 101);
      if constexpr (std::is_signed_v<T>) v -= 50;  // negatives too
      if (std::is_same_v<T, char>) v = (pe * 37 + i * 11) % 101;  // signedness of char varies
      return static_cast<T>(v);
    }
    if (o == "sum") return static_cast<T>((pe * 5 + i * 3) % 31);  // four PEs: at most 120
    return static_cast<T>(1 + (pe + i) % 3);                        // prod: at most 81
  }
}

template <class T>
T apply(const char* op, T a, T b) {
  const std::string o = op;
  if (o == "sum") return a + b;
  if (o == "prod") return a * b;
  if constexpr (!is_complex<T>()) {
    if (o == "max") return a > b ? a : b;
    if (o == "min") return a < b ? a : b;
    if constexpr (std::is_integral_v<T>) {
      if (o == "and") return a & b;
      if (o == "or") return a | b;
      if (o == "xor") return a ^ b;
    }
  }
  ADD_FAILURE() << "unknown op " << op;
  return a;
}

template <class T>
bool same(T a, T b) {
  if constexpr (is_complex<T>())
    return __real__ a == __real__ b && __imag__ a == __imag__ b;
  else
    return a == b;
}

template <class T>
using reduce_fn = int (*)(shmem_team_t, T*, const T*, size_t);

template <class T>
void check_reduce(const char* type, const char* op, reduce_fn<T> fn) {
  SCOPED_TRACE(std::string(type) + " " + op);
  if (std::is_same_v<T, long double> && !colltest::long_double_alike())
    GTEST_SKIP() << "long double differs between this job's architectures";
  T* src = static_cast<T*>(sym_buf(0));
  T* dst = static_cast<T*>(sym_buf(1));
  // Every length and in-place on the world; one length on the smaller teams (keeps 150 type/op pairs fast).
  const bool big_type = std::string(type) == "long" || std::string(type) == "double";
  for_each_team(teams(), [&](team_case& c) {
    const int n = shmem_team_n_pes(c.team);
    // Over TCP (each reduction costs milliseconds) the smaller teams run only a few representative types.
    const bool representative = big_type || std::string(type) == "complexd" || std::string(type) == "int8";
    if (on_tcp() && c.name != "world" && !representative) return;
    std::vector<size_t> lens = {5};
    if (c.name == "world") lens = {0, 1, 1001};
    if (c.name == "world" && big_type) lens.push_back(on_tcp() ? 20000 : max_elems);
    for (size_t len : lens)
      for (bool in_place : {false, true}) {
        if (in_place && (len > 1001 || c.name != "world")) continue;
        T* out = in_place ? src : dst;
        for (size_t i = 0; i < len; ++i) src[i] = value<T>(op, me(), i);
        if (!in_place)
          for (size_t i = 0; i <= len; ++i) dst[i] = value<T>(op, 99, i + 7);  // garbage to be overwritten
        const T guard = value<T>(op, 77, 3);
        out[len] = guard;
        ASSERT_EQ(shmem_team_sync(c.team), 0);
        ASSERT_EQ(fn(c.team, out, src, len), 0);
        int bad = 0;
        for (size_t i = 0; i < len; ++i) {
          T want = value<T>(op, c.members[0], i);
          for (int j = 1; j < n; ++j) want = apply<T>(op, want, value<T>(op, c.members[j], i));
          if (!same(out[i], want) && bad++ < 3) ADD_FAILURE() << "element " << i << " of " << len << (in_place ? " in place" : "");
        }
        EXPECT_EQ(bad, 0) << len << " elements" << (in_place ? " in place" : "");
        EXPECT_TRUE(same(out[len], guard)) << "wrote past " << len << " elements";
        // No sync needed here: a reduction returns only when every member has finished with every source
        // and dest; the sync before the next call makes the refilled buffers ready everywhere.
      }
  });
}

}  // namespace

#define RDSM_R(T, N, OP) check_reduce<T>(#N, #OP, shmem_##N##_##OP##_reduce);
#define RDSM_BITWISE_TEST(T, N) \
  TEST(ReduceBitwise, N) { RDSM_R(T, N, and) RDSM_R(T, N, or) RDSM_R(T, N, xor) }
#define RDSM_MINMAX_TEST(T, N) \
  TEST(ReduceMinMax, N) { RDSM_R(T, N, max) RDSM_R(T, N, min) }
#define RDSM_ARITH_TEST(T, N) \
  TEST(ReduceArith, N) { RDSM_R(T, N, sum) RDSM_R(T, N, prod) }
RDSM_SHMEM_REDUCE_BITWISE_TYPES(RDSM_BITWISE_TEST)
RDSM_SHMEM_REDUCE_MINMAX_TYPES(RDSM_MINMAX_TEST)
RDSM_SHMEM_REDUCE_ARITH_TYPES(RDSM_ARITH_TEST)
