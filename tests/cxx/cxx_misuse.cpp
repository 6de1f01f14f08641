// Data-path misuse of the C++ API: each mode must end the job with one line naming the rdsm:: call.
#include <rdsm/rdsm.hpp>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  rdsm::runtime rt;
  {
    rdsm::symmetric_array<int> small(3), big(5);
    rdsm::symmetric<std::uint64_t> sig(std::uint64_t{0});
    auto world = rdsm::team::world();
    if (std::strcmp(mode, "reduce_small_dest") == 0) {
      rdsm::reduce(world, small.span(), std::span<const int>(big.span()), rdsm::op::sum{});
    } else if (std::strcmp(mode, "fcollect_small_dest") == 0) {
      rdsm::fcollect(world, big.span(), std::span<const int>(small.span()));
    } else if (std::strcmp(mode, "alltoall_not_multiple") == 0) {
      rdsm::alltoall(world, big.span(), std::span<const int>(big.span()).first(static_cast<std::size_t>(rt.size()) + 1));
    } else if (std::strcmp(mode, "signal_other_pe") == 0) {
      int v = 1;
      rdsm::put_signal(std::span<const int>(&v, 1), small.global(0), sig.global(rt.size() - 1), 1,
                       rdsm::signal_op::set);
    } else if (std::strcmp(mode, "collect_small_dest") == 0) {
      rdsm::collect(world, big.span(), std::span<const int>(small.span()));  // 2 x 3 elements into 5
    } else if (std::strcmp(mode, "context_outside_team") == 0) {
      rdsm::team first = world.split_strided(0, 1, 1);  // PE 0 alone
      if (first.valid()) {
        rdsm::context ctx(first);
        ctx.put(1, small.global(1));
      }
      rdsm::barrier();
    } else if (std::strcmp(mode, "iput_short_src") == 0) {
      const int src[5] = {1, 2, 3, 4, 5};
      rdsm::iput(big.global(1), 1, std::span<const int>(src), 2, 4);  // needs 7 elements
    } else if (std::strcmp(mode, "wait_status_length") == 0) {
      const int status[1] = {0};
      rdsm::wait_until_all(big, rdsm::cmp::ge, 0, status);
    } else if (std::strcmp(mode, "wait_values_length") == 0) {
      const int values[2] = {0, 0};
      (void)rdsm::test_all(big, rdsm::cmp::eq, std::span<const int>(values));
    } else if (std::strcmp(mode, "dsm_advise_past_end") == 0) {
      rdsm::dsm::array<int> a(10);
      a.advise(rdsm::dsm::advice::read_only, 20);
    } else if (std::strcmp(mode, "invalid_team") == 0) {
      rdsm::broadcast(rdsm::team(), big.span(), std::span<const int>(small.span()), 0);
    } else {
      std::fprintf(stderr, "cxx_misuse: unknown mode '%s'\n", mode);
      return 2;
    }
    rdsm::barrier();
  }
  std::printf("cxx_misuse: %s did not end the job\n", mode);
  return 0;
}
