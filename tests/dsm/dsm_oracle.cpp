// A randomized workload on a few hot DSM pages, checked against an oracle every PE computes alike.
// Each epoch a seeded generator gives every word a writer (or none) and every PE an order of operations;
// PEs write their words (several times), read words nobody writes (must hold the oracle's value), read
// words others are writing (must hold the old value or one the writer stores this epoch: coherence), and
// bump a lock-protected counter. After the epoch's barrier every word must equal the oracle.
// Usage: dsm_oracle EPOCHS SEED
#include <rdsm/dsm.h>
#include <shmem.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

constexpr int hot_pages = 4;
constexpr int words_per_page = 48;
constexpr int writes_per_word = 3;

uint32_t value_of(uint32_t epoch, uint32_t word, int k) { return epoch * 1000003u + word * 7919u + static_cast<uint32_t>(k) + 1; }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: dsm_oracle EPOCHS SEED\n");
    return 2;
  }
  const int epochs = std::atoi(argv[1]);
  const unsigned seed = static_cast<unsigned>(std::atoi(argv[2]));
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const size_t page = rdsm_dsm_page_size();
  const size_t stride = page / sizeof(uint32_t) / words_per_page;  // words spread over each page
  auto* mem = static_cast<volatile uint32_t*>(rdsm_dsm_alloc_placed(hot_pages * page, RDSM_DSM_CYCLIC, page));
  auto* counter = static_cast<volatile long*>(rdsm_dsm_alloc_placed(sizeof(long), RDSM_DSM_ON_PE, n - 1));
  rdsm_dsm_lock_t* lock = rdsm_dsm_lock_create();
  const int words = hot_pages * words_per_page;
  auto at = [&](int w) -> volatile uint32_t& {
    return mem[static_cast<size_t>(w / words_per_page) * (page / sizeof(uint32_t)) + static_cast<size_t>(w % words_per_page) * stride];
  };
  std::vector<uint32_t> expected(static_cast<size_t>(words), 0);
  long expected_count = 0, errors = 0;

  for (int e = 0; e < epochs; ++e) {
    std::mt19937 plan(seed * 7777u + static_cast<unsigned>(e));
    std::vector<int> writer(static_cast<size_t>(words));
    for (int w = 0; w < words; ++w) writer[w] = static_cast<int>(plan() % static_cast<unsigned>(n + 1));  // n: nobody
    std::vector<int> bumps(static_cast<size_t>(n));
    for (int pe = 0; pe < n; ++pe) bumps[pe] = static_cast<int>(plan() % 3);

    // This PE's operations, shuffled: (kind, word) with kind 0 = write round, 1 = read, 2 = lock bump.
    std::mt19937 mine(seed * 31u + static_cast<unsigned>(e) * 131u + static_cast<unsigned>(me));
    std::vector<std::pair<int, int>> ops;
    for (int w = 0; w < words; ++w) {
      if (writer[w] == me)
        for (int k = 0; k < writes_per_word; ++k) ops.push_back({0, w});
      if (mine() % 3 == 0) ops.push_back({1, w});
    }
    for (int b = 0; b < bumps[me]; ++b) ops.push_back({2, 0});
    std::shuffle(ops.begin(), ops.end(), mine);
    std::vector<int> written(static_cast<size_t>(words), 0);
    for (auto [kind, w] : ops) {
      if (kind == 0) {
        at(w) = value_of(static_cast<uint32_t>(e), static_cast<uint32_t>(w), written[w]++);
      } else if (kind == 1) {
        const uint32_t v = at(w);
        bool ok;
        if (writer[w] == me)
          ok = v == (written[w] == 0 ? expected[w] : value_of(static_cast<uint32_t>(e), static_cast<uint32_t>(w), written[w] - 1));
        else if (writer[w] == n)
          ok = v == expected[w];
        else {  // racing with the writer: the old value or one of this epoch's
          ok = v == expected[w];
          for (int k = 0; k < writes_per_word; ++k) ok = ok || v == value_of(static_cast<uint32_t>(e), static_cast<uint32_t>(w), k);
        }
        if (!ok && errors++ < 10)
          std::fprintf(stderr, "PE %d epoch %d: word %d reads %u (writer PE %d, oracle %u)\n", me, e, w, v, writer[w],
                       expected[w]);
      } else {
        rdsm_dsm_lock(lock);
        *counter = *counter + 1;
        rdsm_dsm_unlock(lock);
      }
    }
    rdsm_dsm_barrier();
    for (int w = 0; w < words; ++w)
      if (writer[w] < n) expected[w] = value_of(static_cast<uint32_t>(e), static_cast<uint32_t>(w), writes_per_word - 1);
    for (int pe = 0; pe < n; ++pe) expected_count += bumps[pe];
    for (int w = 0; w < words; ++w)
      if (at(w) != expected[w] && errors++ < 10)
        std::fprintf(stderr, "PE %d after epoch %d: word %d is %u, oracle %u\n", me, e, w, static_cast<uint32_t>(at(w)),
                     expected[w]);
    if (*counter != expected_count && errors++ < 10)
      std::fprintf(stderr, "PE %d after epoch %d: counter %ld, oracle %ld\n", me, e, static_cast<long>(*counter),
                   expected_count);
    rdsm_dsm_barrier();
  }
  rdsm_dsm_stats_t st;
  rdsm_dsm_stats(&st);
  std::printf("PE %d: %d epochs, %ld errors; faults %lu read %lu write, %lu fetches, %lu invalidations, %lu notices\n",
              me, epochs, errors, static_cast<unsigned long>(st.read_faults), static_cast<unsigned long>(st.write_faults),
              static_cast<unsigned long>(st.fetches), static_cast<unsigned long>(st.invalidations),
              static_cast<unsigned long>(st.notices));
  rdsm_dsm_lock_destroy(lock);
  rdsm_dsm_free(const_cast<long*>(counter));
  rdsm_dsm_free(const_cast<uint32_t*>(mem));
  shmem_finalize();
  return errors != 0;
}
