// C++ API example: each PE puts a block to its right neighbour, counts with atomics and checks with reduce.
#include <rdsm/rdsm.hpp>

#include <cstdio>
#include <vector>

int main() {
  rdsm::runtime rt;
  const int me = rt.rank(), n = rt.size();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  {
    constexpr std::size_t len = 1024;
    rdsm::symmetric_array<long> ring(len);           // collective: same address on every PE
    rdsm::symmetric<long> hits(0L);                   // a counter, used on PE 0
    rdsm::symmetric<std::uint64_t> arrived(std::uint64_t{0});

    // 1. put-with-signal: my block goes to my right neighbour, the signal follows the data.
    std::vector<long> block(len);
    for (std::size_t i = 0; i < len; ++i) block[i] = me * 100000L + static_cast<long>(i);
    rdsm::put_signal(std::span<const long>(block), ring.global(right), arrived.global(right), 1,
                     rdsm::signal_op::set);
    rdsm::signal_wait_until(arrived.data(), rdsm::cmp::eq, 1);
    long errors = 0;
    for (std::size_t i = 0; i < len; ++i) errors += ring[i] != left * 100000L + static_cast<long>(i);

    // 2. get: read the block back from my right neighbour.
    std::vector<long> back(len);
    rdsm::get(ring.global(right), std::span<long>(back));
    for (std::size_t i = 0; i < len; ++i) errors += back[i] != block[i];

    // 3. atomics: every PE adds me + 1 to the counter on PE 0, 1000 times.
    for (int k = 0; k < 1000; ++k) rdsm::add(hits.global(0), long{me + 1});
    rdsm::barrier();
    long want = 1000L * n * (n + 1) / 2;
    if (me == 0 && rdsm::fetch(hits.global(0)) != want) ++errors;

    // 4. reduce: sum the error counts over the job; every PE learns the total.
    rdsm::symmetric_array<long> mine(1, errors), total(1);
    rdsm::reduce(rdsm::team::world(), total.span(), std::span<const long>(mine.span()), rdsm::op::sum{});
    if (me == 0) std::printf("cxx_ring: %d PEs, %s (%ld errors)\n", n, total[0] == 0 ? "ok" : "FAILED", total[0]);
    if (total[0] != 0) return 1;  // symmetric objects and then the runtime are destroyed collectively
  }
  return 0;
}
