// Sizes from the configuration checked against this host before anything is mapped.
#include "common/limits.hpp"

#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "common/log.hpp"
#include "common/mappings.hpp"

namespace rdsm::detail {
namespace {

// The variable as the user wrote it (or the default's value).
std::string given(const char* variable, uint64_t value) {
  const char* text = std::getenv(variable);
  return text != nullptr ? text : std::to_string(value);
}

std::string memory_text(const host_memory& mem) {
  return format("%s RAM + %s swap", format_bytes(mem.ram).c_str(), format_bytes(mem.swap).c_str());
}

// The number of PEs as words: "each of the 4 PEs on this host" / "this PE".
std::string pes_text(int local_pes) {
  return local_pes > 1 ? format("each of the %d PEs on this host", local_pes) : std::string("this PE");
}

}  // namespace

std::string format_bytes(uint64_t b) {
  constexpr uint64_t ki = 1024, mi = ki << 10, gi = mi << 10, ti = gi << 10;
  if (b >= ti) return format("%.1f TiB", static_cast<double>(b) / static_cast<double>(ti));
  if (b >= gi) return format("%.1f GiB", static_cast<double>(b) / static_cast<double>(gi));
  if (b >= mi) return format("%.1f MiB", static_cast<double>(b) / static_cast<double>(mi));
  if (b >= ki) return format("%.1f KiB", static_cast<double>(b) / static_cast<double>(ki));
  return format("%llu bytes", static_cast<unsigned long long>(b));
}

host_memory host_memory_size() {
  struct sysinfo si {};
  host_memory m;
  if (sysinfo(&si) != 0) return m;
  m.ram = static_cast<uint64_t>(si.totalram) * si.mem_unit;
  m.swap = static_cast<uint64_t>(si.totalswap) * si.mem_unit;
  return m;
}

void fit_default_heap(config& cfg, int local_pes, const host_memory& mem) {
  if (std::getenv("SHMEM_SYMMETRIC_SIZE") != nullptr || std::getenv("SMA_SYMMETRIC_SIZE") != nullptr) return;
  const uint64_t share = mem.total() / static_cast<uint64_t>(std::max(local_pes, 1));
  constexpr uint64_t floor_size = uint64_t{1} << 20;
  if (mem.total() == 0 || cfg.symmetric_size <= share || share < floor_size) return;
  const uint64_t fitted = std::bit_floor(share);
  RDSM_LOG_INFO("config", "SHMEM_SYMMETRIC_SIZE is unset: the default heap of %s per PE is lowered to %s, as %d PEs "
                "share this host's memory (%s); set SHMEM_SYMMETRIC_SIZE to choose",
                format_bytes(cfg.symmetric_size).c_str(), format_bytes(fitted).c_str(), local_pes,
                memory_text(mem).c_str());
  cfg.symmetric_size = fitted;
}

status check_host_limits(const config& cfg, int local_pes, int n_pes, const host_memory& mem) {
  const uint64_t total = mem.total();
  if (total == 0) return {};  // unknown: nothing to check against
  const auto local = static_cast<uint64_t>(std::max(local_pes, 1));
  const auto all = static_cast<uint64_t>(std::max(n_pes, local_pes));

  // The symmetric heap: every PE's may be touched in full.
  if (cfg.symmetric_size > total / local)
    return status::error(format("SHMEM_SYMMETRIC_SIZE=%s asks %s of symmetric heap for %s, more than this host's "
                                "memory (%s); lower SHMEM_SYMMETRIC_SIZE to at most %s",
                                given("SHMEM_SYMMETRIC_SIZE", cfg.symmetric_size).c_str(),
                                format_bytes(cfg.symmetric_size).c_str(), pes_text(static_cast<int>(local)).c_str(),
                                memory_text(mem).c_str(), format_bytes(total / local).c_str()));

  // The DSM: every PE keeps bookkeeping for every page of the space, and this host's PEs are home to their
  // share of its pages (block placement) at least.
  const uint64_t page = std::max<uint64_t>(cfg.dsm_page_size, 4096);
  const uint64_t by_bookkeeping = total / local / dsm_bytes_per_page * page;
  const uint64_t by_share = total / local > UINT64_MAX / all ? UINT64_MAX : total / local * all;
  const uint64_t dsm_max = std::min(by_bookkeeping, by_share);
  if (cfg.dsm_size > dsm_max)
    return status::error(format("RDSM_DSM_SIZE=%s: this host's share of the DSM's pages and their bookkeeping "
                                "(%llu bytes a page of %s) for %s need more than its memory (%s); lower "
                                "RDSM_DSM_SIZE to at most %s",
                                given("RDSM_DSM_SIZE", cfg.dsm_size).c_str(),
                                static_cast<unsigned long long>(dsm_bytes_per_page), format_bytes(page).c_str(),
                                pes_text(static_cast<int>(local)).c_str(), memory_text(mem).c_str(),
                                format_bytes(dsm_max).c_str()));
  return {};
}

status check_dsm_settings(const config& cfg, bool this_host) {
  const uint64_t page = cfg.dsm_page_size;
  const uint64_t min_page = this_host ? std::max<uint64_t>(4096, static_cast<uint64_t>(sysconf(_SC_PAGESIZE))) : 4096;
  constexpr uint64_t max_page = uint64_t{2} << 20;  // the heap's base alignment: a page never spans two blocks
  if (page < min_page || (page & (page - 1)) != 0 || page > max_page)
    return status::error(format("RDSM_DSM_PAGE_SIZE=%llu is not a power of two between the system page size "
                                "(%llu) and 2 MiB; use e.g. 4K or 64K",
                                static_cast<unsigned long long>(page), static_cast<unsigned long long>(min_page)));
  const uint64_t pages = cfg.dsm_size / page + (cfg.dsm_size % page != 0 ? 1 : 0);
  if (pages == 0 || pages > (uint64_t{1} << 31))
    return status::error(format("RDSM_DSM_SIZE=%llu is out of range; use between one page (RDSM_DSM_PAGE_SIZE=%llu) "
                                "and 2^31 pages (default 512M)",
                                static_cast<unsigned long long>(cfg.dsm_size), static_cast<unsigned long long>(page)));
  if (cfg.dsm_prefetch < 1 || cfg.dsm_prefetch > 64)
    return status::error(format("RDSM_DSM_PREFETCH=%llu is out of range; use 1 (no prefetch) to 64",
                                static_cast<unsigned long long>(cfg.dsm_prefetch)));
  if (cfg.dsm_consistency == "sequential" && cfg.progress_thread == "off")
    return status::error("the sequential DSM (RDSM_DSM_CONSISTENCY=sequential) needs the progress thread to serve "
                         "its protocol; unset RDSM_PROGRESS_THREAD=off or use RDSM_DSM_CONSISTENCY=release");
  return {};
}

status check_dsm_base(const config& cfg, bool mappings) {
  const char* text = cfg.dsm_base.c_str();
  auto bad = [&](const std::string& why) {
    return status::error(format("RDSM_DSM_BASE=%s %s; set RDSM_DSM_BASE to a free address aligned to 2 MiB, the same "
                                "in every PE (the default 0x200000000000 is free in ordinary processes)",
                                text, why.c_str()));
  };
  char* end = nullptr;
  errno = 0;
  const unsigned long long base = std::strtoull(text, &end, 0);
  constexpr uint64_t align = uint64_t{2} << 20;
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-') return bad("is not an address");
  if (base % align != 0) return bad("is not aligned to 2 MiB");
  if (base == 0) return bad("is address 0 (the DSM's first block would be a null pointer)");
  uint64_t min_addr = 0;
  if (FILE* f = std::fopen("/proc/sys/vm/mmap_min_addr", "r")) {
    unsigned long long v = 0;
    if (std::fscanf(f, "%llu", &v) == 1) min_addr = v;
    std::fclose(f);
  }
  if (base < min_addr) return bad(format("is below vm.mmap_min_addr (%llu)", static_cast<unsigned long long>(min_addr)));
  const uint64_t size = cfg.dsm_size;
#if defined(__x86_64__)
  constexpr uint64_t top = uint64_t{1} << 47;  // user space with 4-level page tables
#elif defined(__aarch64__)
  constexpr uint64_t top = uint64_t{1} << 48;
#else
  constexpr uint64_t top = UINT64_MAX;
#endif
  if (base >= top || size > top - base)
    return bad(format("with RDSM_DSM_SIZE=%s ends beyond the user address space (%#llx)", format_bytes(size).c_str(),
                      static_cast<unsigned long long>(top)));
  if (!mappings) return {};
  if (const std::optional<mapping> m = find_mapping(base, base + size))
    return bad(format("with RDSM_DSM_SIZE=%s overlaps a mapping of this process, [%#llx, %#llx) %s",
                      format_bytes(size).c_str(), static_cast<unsigned long long>(m->from),
                      static_cast<unsigned long long>(m->to), m->name.empty() ? "(anonymous)" : m->name.c_str()));
  return {};
}

}  // namespace rdsm::detail
