// Compile-fail cases for the C++ API's concepts (see CMakeLists.txt): each RDSM_CASE_* must not compile.
#include <rdsm/rdsm.hpp>

#include <array>
#include <numeric>
#include <ranges>
#include <span>
#include <string>
#include <vector>

// Aggregates and arrays of symmetric objects initialize with braces (the default constructor is not explicit).
struct counters {
  rdsm::symmetric<long> hits;
  rdsm::symmetric<long> misses;
};
static_assert(std::ranges::contiguous_range<const rdsm::dsm::array<int>>);

void cases(rdsm::global_ptr<std::string> gs, rdsm::global_ptr<double> gd, rdsm::global_ptr<long> gl,
           rdsm::global_ptr<const long> gcl, const rdsm::team& t, std::span<double> d, std::span<std::string> ds) {
  (void)gs, (void)gd, (void)gl, (void)gcl, (void)t, (void)d, (void)ds;
#if defined(RDSM_CASE_ok) || defined(RDSM_CASE_cxx17)
  // The same calls on types the API accepts compile.
  counters c{};
  std::array<rdsm::symmetric<int>, 2> pair{};
  rdsm::symmetric<long> braced = {};
  (void)c, (void)pair, (void)braced;
  const rdsm::dsm::array<int> cells(8);
  long total = std::accumulate(cells.begin(), cells.end(), 0L);
  for (int x : cells) total += x;
  (void)total;
  std::vector<long> named(4, 7);
  rdsm::put_nbi(named, gl).wait();
  rdsm::put_nbi(std::span<const long>(named), gl).wait();
  rdsm::symmetric<std::uint64_t> sig;
  rdsm::put_signal_nbi(named, gl, sig.global(0), 1, rdsm::signal_op::set).wait();
  rdsm::put(1L, gl);
  long v = rdsm::get(gcl);
  (void)v;
  rdsm::symmetric<long> s;
  rdsm::broadcast(t, d, std::span<const double>(d), 0);
  (void)rdsm::fetch_add(gl, 1L);
  rdsm::reduce(t, d, std::span<const double>(d), rdsm::op::max{});
  rdsm::symmetric_array<long> flags(4, 0L);
  rdsm::wait_until_all(flags, rdsm::cmp::ge, 0);
  (void)rdsm::test_any(flags, rdsm::cmp::eq, named);
  long old = 0;
  rdsm::fetch_add_nbi(gl, 1L, old).wait();
#elif defined(RDSM_CASE_wait_on_doubles)
  rdsm::wait_until_all(d, rdsm::cmp::ge, 0.0);
#elif defined(RDSM_CASE_fetch_add_nbi_double)
  double old = 0;
  rdsm::fetch_add_nbi(gd, 1.0, old).wait();
#elif defined(RDSM_CASE_put_string)
  rdsm::put(std::string("not trivially copyable"), gs);
#elif defined(RDSM_CASE_get_string)
  std::string s = rdsm::get(gs);
#elif defined(RDSM_CASE_symmetric_string)
  rdsm::symmetric<std::string> s;
#elif defined(RDSM_CASE_broadcast_string)
  rdsm::broadcast(t, ds, std::span<const std::string>(ds), 0);
#elif defined(RDSM_CASE_fetch_add_double)
  (void)rdsm::fetch_add(gd, 1.0);
#elif defined(RDSM_CASE_bitwise_reduce_double)
  rdsm::reduce(t, d, std::span<const double>(d), rdsm::op::bit_xor{});
#elif defined(RDSM_CASE_put_nbi_temporary)
  // The vector would be gone before the put reads it.
  rdsm::put_nbi(std::vector<long>(4, 7), gl).wait();
#elif defined(RDSM_CASE_put_signal_nbi_temporary)
  rdsm::symmetric<std::uint64_t> sig;
  rdsm::put_signal_nbi(std::vector<long>(4, 7), gl, sig.global(0), 1, rdsm::signal_op::set).wait();
#elif defined(RDSM_CASE_put_to_const)
  rdsm::put(1L, gcl);
#else
#error "no RDSM_CASE_ given"
#endif
}
