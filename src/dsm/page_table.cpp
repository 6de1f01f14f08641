// Page protection (page_table.hpp).
#include "dsm/page_table.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/log.hpp"
#include "rdsm/dsm.h"

namespace rdsm::detail::dsm {

page_table::page_table(char* view, char* frames, char* twins, uint32_t n_pages, unsigned shift)
    : view_(view), frames_(frames), twins_(twins), n_pages_(n_pages), shift_(shift),
      states_(std::make_unique<std::atomic<page_state>[]>(n_pages)), homes_(n_pages, no_pe),
      advice_(n_pages, RDSM_DSM_DEFAULT) {}

void page_table::protect(uint32_t page, uint32_t n, page_state s) {
  const int prot = s == page_state::modified ? PROT_READ | PROT_WRITE
                   : s == page_state::shared ? PROT_READ
                                              : PROT_NONE;
  if (mprotect(view(page), static_cast<size_t>(n) << shift_, prot) != 0)
    fatal("dsm: mprotect of %u pages at %p failed: %s; raise vm.max_map_count or use a larger RDSM_DSM_PAGE_SIZE", n,
          static_cast<void*>(view(page)), std::strerror(errno));
  for (uint32_t i = 0; i < n; ++i) states_[page + i].store(s, std::memory_order_release);
}

void page_table::protect_runs(const std::vector<uint32_t>& pages, page_state s) {
  for (size_t i = 0; i < pages.size();) {
    size_t j = i + 1;
    while (j < pages.size() && pages[j] == pages[j - 1] + 1) ++j;
    protect(pages[i], static_cast<uint32_t>(j - i), s);
    i = j;
  }
}

uint32_t page_table::read_run(uint32_t page, uint32_t prefetch, bool near) const {
  constexpr uint32_t far_read_only = 32;
  const uint32_t most = advice_[page] == RDSM_DSM_READ_ONLY && !near ? std::max(prefetch, far_read_only) : prefetch;
  uint32_t n = 1;
  while (n < most && page + n < n_pages_ && homes_[page + n] == homes_[page] && advice_[page + n] == advice_[page] &&
         state(page + n) == page_state::invalid)
    ++n;
  return n;
}

}  // namespace rdsm::detail::dsm
