// Built by pedantic_headers.sh under -Wall -Wextra -Wpedantic -Werror as C++17 (shmem.h) and C++20 (shmem.h
// and the C++ API): no public header may warn (shmem.h declares the complex reductions, which C++ lacks). Run as
// one PE, where a sum reduction returns its source.
#include <shmem.h>

#include <complex>
#include <cstdio>
#if __cplusplus >= 202002L
#include <rdsm/dsm.hpp>
#include <rdsm/rdsm.hpp>
#endif

int main() {
  shmem_init();
  bool ok = true;
  {
#if __cplusplus >= 202002L
    rdsm::symmetric_array<std::complex<double>> src(2), dst(2);
    src[0] = {1.0, 2.0};
    src[1] = {-3.0, 0.0};
    rdsm::reduce(rdsm::team::world(), std::span(dst.data(), 2), std::span<const std::complex<double>>(src.data(), 2),
                 rdsm::op::sum{});
    ok = dst[0] == src[0] && dst[1] == src[1];
#else
    auto* src = static_cast<double*>(shmem_malloc(2 * sizeof(double)));
    auto* dst = static_cast<double*>(shmem_malloc(2 * sizeof(double)));
    src[0] = 1.5;
    src[1] = -3.0;
    ok = shmem_double_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 2) == 0 && dst[0] == src[0] && dst[1] == src[1];
    shmem_free(dst);
    shmem_free(src);
#endif
  }
  shmem_finalize();
  if (!ok) {
    std::printf("pedantic: the complex sum on one PE did not return its source\n");
    return 1;
  }
  std::printf("pedantic: ok\n");
  return 0;
}
