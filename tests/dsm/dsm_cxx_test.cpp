// The C++ face of the DSM (rdsm/dsm.hpp): RAII arrays, a lock usable with std::scoped_lock, barriers.
#include <gtest/gtest.h>
#include <shmem.h>

#include <mutex>
#include <rdsm/rdsm.hpp>

namespace {

// The C entry points of the DSM let no C++ exception into their C callers' frames.
static_assert(noexcept(rdsm_dsm_alloc(0)) && noexcept(rdsm_dsm_alloc_placed(0, RDSM_DSM_BLOCK, 0)));
static_assert(noexcept(rdsm_dsm_free(nullptr)) && noexcept(rdsm_dsm_barrier()));
static_assert(noexcept(rdsm_dsm_lock_create()) && noexcept(rdsm_dsm_lock(nullptr)) && noexcept(rdsm_dsm_unlock(nullptr)));
static_assert(noexcept(rdsm_dsm_lock_destroy(nullptr)) && noexcept(rdsm_dsm_acquire()) && noexcept(rdsm_dsm_release()));
static_assert(noexcept(rdsm_dsm_advise(nullptr, 0, RDSM_DSM_READ_ONLY)));
static_assert(noexcept(rdsm_dsm_touch(nullptr, 0, RDSM_DSM_TOUCH_READ)) && noexcept(rdsm_dsm_stats(nullptr)));
static_assert(noexcept(rdsm_dsm_home(nullptr)) && noexcept(rdsm_dsm_page_size()));

TEST(DsmCxx, ArrayIsCoherentAfterBarrier) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  rdsm::dsm::array<int> a(10000, rdsm::dsm::placement::cyclic, rdsm::dsm::page_size());
  EXPECT_EQ(a.home(0), 0);
  EXPECT_EQ(a.home(rdsm::dsm::page_size() / sizeof(int)), 1 % n);
  for (std::size_t i = static_cast<std::size_t>(me); i < a.size(); i += static_cast<std::size_t>(n)) a[i] = static_cast<int>(i) * 2;
  rdsm::dsm::barrier();
  long bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) bad += a[i] != static_cast<int>(i) * 2;
  EXPECT_EQ(bad, 0);
  rdsm::dsm::array<int> moved(std::move(a));
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(moved[4], 8);
  rdsm::dsm::barrier();
}

TEST(DsmCxx, LockWorksWithScopedLock) {
  rdsm::dsm::array<long> counter(1);
  rdsm::dsm::mutex lock;
  for (int i = 0; i < 25; ++i) {
    std::scoped_lock guard(lock);
    counter[0] += 1;
  }
  rdsm::dsm::barrier();
  EXPECT_EQ(counter[0], 25L * shmem_n_pes());
}

TEST(DsmCxx, ExhaustionThrowsNamingTheVariable) {
  try {
    rdsm::dsm::array<char> huge(std::size_t{1} << 40);
    FAIL() << "no exception";
  } catch (const rdsm::bad_symmetric_alloc& e) {
    EXPECT_NE(std::string(e.what()).find("RDSM_DSM_SIZE"), std::string::npos);
  }
  // A count whose bytes overflow a size_t (2^61 + 512 longs: 4096 bytes once wrapped) throws too.
  EXPECT_THROW(rdsm::dsm::array<long>((std::size_t{1} << 61) + 512), rdsm::bad_symmetric_alloc);
  // So do sizes that wrap when rounded to pages or given a guard page: NULL, not a crash.
  for (std::size_t bytes : {~std::size_t{0} - 4095, ~std::size_t{0} - 4096, ~std::size_t{0}})
    EXPECT_EQ(rdsm_dsm_alloc(bytes), nullptr) << bytes;
}

}  // namespace
