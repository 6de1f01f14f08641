// rdsm::runtime on its own main: a failed start throws rdsm::error, a good one gives rank/size and finalizes.
#include <rdsm/rdsm.hpp>

#include <cstdio>
#include <cstring>

int main() {
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) {
      std::fprintf(stderr, "cxx_runtime_test: FAILED: %s\n", what);
      ++failures;
    }
  };
  // An invalid thread level: shmem_init_thread returns nonzero, the constructor throws, nothing started.
  bool threw = false;
  try {
    rdsm::runtime bad(static_cast<rdsm::thread_level>(99));
  } catch (const rdsm::error& e) {
    threw = std::strstr(e.what(), "shmem_init_thread") != nullptr;
  }
  check(threw, "runtime(invalid level) throws rdsm::error naming shmem_init_thread");
  {
    rdsm::runtime rt(rdsm::thread_level::serialized);
    check(rt.rank() >= 0 && rt.rank() < rt.size(), "rank in [0, size)");
    check(rt.rank() == rdsm::rank_me() && rt.size() == rdsm::rank_n(), "rank_me/rank_n agree");
    check(rt.provided() >= rdsm::thread_level::single && rt.provided() <= rdsm::thread_level::multiple,
          "provided level is a thread level");
    // The runtime works: every PE adds its rank + 1 into a counter on PE 0.
    rdsm::symmetric<long> sum(0L);
    rdsm::add(sum.global(0), long{rt.rank() + 1});
    rdsm::barrier();
    long n = rt.size();
    check(rdsm::get(sum.global(0)) == n * (n + 1) / 2, "atomic sum over the job");
    rdsm::barrier();
  }  // sum is freed, then the runtime finalizes
  if (failures == 0) std::printf("cxx_runtime_test: ok\n");
  return failures == 0 ? 0 : 1;
}
