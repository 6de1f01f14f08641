// rdsm's C++ faces from an installed prefix: the typed API (rdsm/rdsm.hpp) and the DSM (rdsm/dsm.hpp) in one
// program. Each PE fills its block of a DSM array under a dsm::mutex-guarded counter, then checks it all.
#include <rdsm/dsm.hpp>
#include <rdsm/rdsm.hpp>

#include <cstdio>
#include <mutex>

int main() {
  rdsm::runtime rt;
  const int me = rt.rank(), n = rt.size();
  long wrong = 0;
  {
    constexpr std::size_t per_pe = 2048;
    rdsm::dsm::array<long> v(per_pe * static_cast<std::size_t>(n));
    rdsm::dsm::array<long> counter(1, rdsm::dsm::placement::on_pe, 0);
    rdsm::dsm::mutex m;
    for (std::size_t i = 0; i < per_pe; ++i) v[static_cast<std::size_t>(me) * per_pe + i] = me * 100000L + static_cast<long>(i);
    {
      std::lock_guard<rdsm::dsm::mutex> hold(m);
      counter[0] += 1;
    }
    rdsm::dsm::barrier();
    for (int p = 0; p < n; ++p)
      for (std::size_t i = 0; i < per_pe; ++i) wrong += v[static_cast<std::size_t>(p) * per_pe + i] != p * 100000L + static_cast<long>(i);
    wrong += counter[0] != n;
    rdsm::dsm::barrier();
  }
  if (wrong != 0) std::printf("PE %d: %ld wrong values\n", me, wrong);
  rdsm::symmetric_array<long> all_wrong(1);
  all_wrong[0] = wrong;
  rdsm::barrier();
  if (me == 0) {
    long total = 0;
    for (int p = 0; p < n; ++p) total += rdsm::get(all_wrong.global(p));
    std::printf(total == 0 ? "dsm_cxx: ok\n" : "dsm_cxx: FAILED\n");
  }
  rdsm::barrier();
  return wrong != 0;
}
