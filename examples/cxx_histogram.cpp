// C++ API example: a distributed histogram; bins live on their owner PE and are updated by remote atomics.
#include <rdsm/rdsm.hpp>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  rdsm::runtime rt;
  const int me = rt.rank(), n = rt.size();
  constexpr int bins = 64;             // bin b lives on PE b % n, slot b / n
  constexpr int samples = 20000;       // per PE
  const int slots = (bins + n - 1) / n;
  int status = 0;
  {
    rdsm::symmetric_array<std::uint64_t> local_bins(static_cast<std::size_t>(slots));

    // Each PE draws from its own stream and increments the owning PE's bin remotely.
    std::mt19937 gen(12345u + static_cast<unsigned>(me));
    std::binomial_distribution<int> dist(bins - 1, 0.5);
    std::vector<std::uint64_t> expect_mine(bins, 0);
    for (int s = 0; s < samples; ++s) {
      int b = dist(gen);
      rdsm::inc(local_bins.global(b % n) + b / n);
      ++expect_mine[static_cast<std::size_t>(b)];
    }
    rdsm::barrier();  // completes every inc and makes them visible

    // Gather the full histogram on every PE: slot j of PE r is bin j * n + r.
    rdsm::symmetric_array<std::uint64_t> all(static_cast<std::size_t>(slots) * static_cast<std::size_t>(n));
    rdsm::fcollect(rdsm::team::world(), all.span(), std::span<const std::uint64_t>(local_bins.span()));
    // Check against the sum of every PE's own counts (reduced element-wise).
    rdsm::symmetric_array<std::uint64_t> mine(bins), expect(bins);
    for (int b = 0; b < bins; ++b) mine[static_cast<std::size_t>(b)] = expect_mine[static_cast<std::size_t>(b)];
    rdsm::reduce(rdsm::team::world(), expect.span(), std::span<const std::uint64_t>(mine.span()), rdsm::op::sum{});

    std::uint64_t total = 0, errors = 0;
    for (int b = 0; b < bins; ++b) {
      std::uint64_t got = all[static_cast<std::size_t>((b % n) * slots + b / n)];
      total += got;
      errors += got != expect[static_cast<std::size_t>(b)];
    }
    if (me == 0) {
      for (int b = 24; b < 40; ++b)
        std::printf("bin %2d %6llu\n", b,
                    static_cast<unsigned long long>(all[static_cast<std::size_t>((b % n) * slots + b / n)]));
      std::printf("cxx_histogram: %d PEs, %llu samples, %s\n", n, static_cast<unsigned long long>(total),
                  errors == 0 && total == static_cast<std::uint64_t>(samples) * n ? "ok" : "FAILED");
    }
    status = errors == 0 && total == static_cast<std::uint64_t>(samples) * n ? 0 : 1;
  }
  return status;
}
