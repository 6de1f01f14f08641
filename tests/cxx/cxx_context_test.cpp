// Multi-PE tests of rdsm::context (rdsm/context.hpp): RMA and atomics on a world context and on a team's,
// whose global_ptr targets (world PE numbers) are translated into the team's.
#include <gtest/gtest.h>
#include <rdsm/rdsm.hpp>

#include <cstddef>
#include <numeric>
#include <vector>

namespace {

int me() { return rdsm::rank_me(); }
int npes() { return rdsm::rank_n(); }
int right() { return (me() + 1) % npes(); }
int left() { return (me() + npes() - 1) % npes(); }

TEST(CxxContext, WorldContextPutsGetsAndAtomics) {
  rdsm::symmetric_array<long> data(8, 0L);
  rdsm::symmetric<long> counter(0L);
  rdsm::symmetric<double> real(0.0);
  rdsm::context ctx(rdsm::context::private_only);
  EXPECT_NE(ctx.raw(), SHMEM_CTX_INVALID);
  EXPECT_EQ(ctx.team(), rdsm::team::world());
  std::vector<long> src(8);
  std::iota(src.begin(), src.end(), 100L * me());
  ctx.put(std::span<const long>(src), data.global(right()));
  ctx.put(-1L, data.global(right()) + 7);
  ctx.add(counter.global(right()), 3L);
  ctx.inc(counter.global(right()));
  ctx.set(real.global(right()), 0.5 + me());
  ctx.quiet();  // the context's puts and atomics, not the default context's
  rdsm::barrier();
  for (int i = 0; i < 7; ++i) EXPECT_EQ(data[static_cast<std::size_t>(i)], 100L * left() + i) << i;
  EXPECT_EQ(data[7], -1);
  EXPECT_EQ(*counter, 4);
  EXPECT_EQ(*real, 0.5 + left());
  rdsm::barrier();  // every PE has looked at its own copies before the left neighbour changes them again
  EXPECT_EQ(ctx.get(data.global(right()) + 1), 100L * me() + 1);
  std::vector<long> back(3);
  ctx.get(data.global(right()), std::span<long>(back));
  EXPECT_EQ(back, (std::vector<long>{100L * me(), 100L * me() + 1, 100L * me() + 2}));
  EXPECT_EQ(ctx.fetch(counter.global(right())), 4);
  EXPECT_EQ(ctx.fetch_add(counter.global(right()), 10L), 4);
  EXPECT_EQ(ctx.fetch_inc(counter.global(right())), 14);
  EXPECT_EQ(ctx.compare_swap(counter.global(right()), 15L, 20L), 15);
  EXPECT_EQ(ctx.swap(real.global(right()), 9.0), 0.5 + me());
  std::vector<long> more(8, 5L);
  rdsm::future<> f = ctx.put_nbi(more, data.global(right()));
  f.wait();  // quiets this context
  std::vector<long> got(8);
  ctx.get_nbi(data.global(right()), std::span<long>(got)).wait();
  EXPECT_EQ(got, more);
  rdsm::barrier();
  rdsm::context moved = std::move(ctx);
  EXPECT_EQ(ctx.raw(), SHMEM_CTX_INVALID);
  EXPECT_EQ(moved.fetch(counter.global(me())), 20);
  rdsm::barrier();
}

TEST(CxxContext, TeamContextTakesWorldPesOfItsMembers) {
  // The PEs of even number form a team; each puts its number into the next member's slot through a
  // context on the team, naming that member by its world number.
  rdsm::symmetric<long> slot(-1L);
  rdsm::team evens = rdsm::team::world().split_strided(0, 2, (npes() + 1) / 2);
  if (evens.valid()) {
    rdsm::context ctx(evens);
    EXPECT_EQ(ctx.team(), evens);
    const int next = evens.world_rank((evens.rank() + 1) % evens.size());
    ctx.put(static_cast<long>(me()), slot.global(next));
    ctx.quiet();
  } else {
    EXPECT_THROW(rdsm::context{evens}, rdsm::error);
  }
  rdsm::barrier();
  if (evens.valid()) {
    const int prev = evens.world_rank((evens.rank() + evens.size() - 1) % evens.size());
    EXPECT_EQ(*slot, prev);
  } else {
    EXPECT_EQ(*slot, -1);
  }
  rdsm::barrier();
}

}  // namespace
