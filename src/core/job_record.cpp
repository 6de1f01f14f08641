// The record of what a job's PEs must agree on, and the comparison that names a disagreement.
#include "core/job_record.hpp"

#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <cstring>
#include <iterator>

#include "common/log.hpp"

namespace rdsm::detail {
namespace {

template <size_t N>
void put_text(char (&field)[N], const std::string& text) {
  std::memset(field, 0, N);
  std::memcpy(field, text.data(), std::min(text.size(), N - 1));
}

template <size_t N>
std::string text_of(const char (&field)[N]) {
  return std::string(field, strnlen(field, N));
}

// The names of job_record's sizes and flags, in order.
constexpr const char* size_names[] = {"RDSM_COLL_BCAST_SCATTER",      "RDSM_COLL_BCAST_PULL",
                                      "RDSM_COLL_BCAST_SPLIT",        "RDSM_COLL_ALLTOALL_AGGREGATE",
                                      "RDSM_COLL_DELIVER_PULL",       "RDSM_COLL_REDUCE_EXCHANGE"};
constexpr const char* flag_names[] = {"SHMEM_DEBUG", "RDSM_SHARE_GLOBALS", "RDSM_SHARE_HEAP", "RDSM_COLL_HIERARCHY"};
static_assert(std::size(size_names) == std::size(job_record{}.sizes) &&
              std::size(flag_names) == std::size(job_record{}.flags));

// PE `a`'s and PE `b`'s records compared field by field; the first field that differs, as a line.
std::optional<std::string> compare(const job_record& x, int a, const job_record& y, int b) {
  const std::string who_a = format("PE %d (%s)", a, text_of(x.arch).c_str());
  const std::string who_b = format("PE %d (%s)", b, text_of(y.arch).c_str());
  auto differ = [&](const char* what, const std::string& va, const std::string& vb, const char* remedy) {
    return format("%s and %s disagree on %s: %s against %s; %s", who_a.c_str(), who_b.c_str(), what, va.c_str(),
                  vb.c_str(), remedy);
  };
  auto num = [](uint64_t v) { return format("%llu", static_cast<unsigned long long>(v)); };
  if (std::memcmp(x.magic, y.magic, sizeof x.magic) != 0 || x.layout_version != y.layout_version)
    return differ("the layout of what PEs exchange (rdsm's wire layout version)", num(x.layout_version),
                  num(y.layout_version), "build every PE's program with the same version of rdsm");
  if (x.byte_order != y.byte_order)
    return differ("byte order", format("%#x", x.byte_order), format("%#x", y.byte_order),
                  "rdsm runs jobs of little-endian PEs only");
  if (x.dsm_page_size != y.dsm_page_size)
    return differ("RDSM_DSM_PAGE_SIZE", num(x.dsm_page_size), num(y.dsm_page_size),
                  "set it to the same value for every PE");
  const uint64_t largest_page = std::max(x.os_page_size, y.os_page_size);
  if (x.os_page_size != y.os_page_size && x.dsm_page_size % largest_page != 0)
    return differ("the system page size", num(x.os_page_size), num(y.os_page_size),
                  format("set RDSM_DSM_PAGE_SIZE to a multiple of %llu for every PE",
                         static_cast<unsigned long long>(largest_page))
                      .c_str());
  if (x.symmetric_size != y.symmetric_size)
    return differ("SHMEM_SYMMETRIC_SIZE", num(x.symmetric_size), num(y.symmetric_size),
                  "set it to the same value for every PE");
  if (x.dsm_size != y.dsm_size)
    return differ("RDSM_DSM_SIZE", num(x.dsm_size), num(y.dsm_size), "set it to the same value for every PE");
  if (text_of(x.dsm_base) != text_of(y.dsm_base))
    return differ("RDSM_DSM_BASE", text_of(x.dsm_base), text_of(y.dsm_base), "set it to the same value for every PE");
  if (text_of(x.consistency) != text_of(y.consistency))
    return differ("RDSM_DSM_CONSISTENCY", text_of(x.consistency), text_of(y.consistency),
                  "set it to the same value for every PE");
  for (size_t i = 0; i < std::size(x.sizes); ++i)
    if (x.sizes[i] != y.sizes[i])
      return differ(size_names[i], num(x.sizes[i]), num(y.sizes[i]), "set it to the same value for every PE");
  for (size_t i = 0; i < std::size(x.flags); ++i)
    if (x.flags[i] != y.flags[i])
      return differ(flag_names[i], num(x.flags[i]), num(y.flags[i]), "set it to the same value for every PE");
  if (text_of(x.dsm_same_host) != text_of(y.dsm_same_host))
    return differ("RDSM_DSM_SAME_HOST", text_of(x.dsm_same_host), text_of(y.dsm_same_host),
                  "set it to the same value for every PE");
  return std::nullopt;
}

}  // namespace

const char* build_arch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "other";
#endif
}

job_record job_record_make(const config& cfg, uint64_t executable) {
  job_record r{};
  std::memcpy(r.magic, "rdsm-pe", 8);
  r.layout_version = wire_layout_version;
  r.byte_order = 0x01020304;
  r.os_page_size = static_cast<uint32_t>(sysconf(_SC_PAGESIZE));
  r.long_double_digits = LDBL_MANT_DIG;
  r.dsm_page_size = cfg.dsm_page_size;
  r.symmetric_size = cfg.symmetric_size;
  r.dsm_size = cfg.dsm_size;
  r.executable = executable;
  put_text(r.dsm_base, cfg.dsm_base);
  put_text(r.consistency, cfg.dsm_consistency);
  put_text(r.arch, build_arch());
  const uint64_t sizes[] = {cfg.coll_bcast_scatter,      cfg.coll_bcast_pull,   cfg.coll_bcast_split,
                            cfg.coll_alltoall_aggregate, cfg.coll_deliver_pull, cfg.coll_reduce_exchange};
  std::copy(std::begin(sizes), std::end(sizes), r.sizes);
  const bool flags[] = {cfg.debug, cfg.share_globals, cfg.share_heap, cfg.coll_hierarchy};
  std::copy(std::begin(flags), std::end(flags), r.flags);
  put_text(r.dsm_same_host, cfg.dsm_same_host);
  return r;
}

int job_records_reporter(const std::vector<job_record>& records) {
  for (size_t pe = 1; pe < records.size(); ++pe)
    if (compare(records[pe], static_cast<int>(pe), records[0], 0)) return static_cast<int>(pe);
  return -1;
}

std::optional<std::string> job_records_disagree(const std::vector<job_record>& records) {
  const int pe = job_records_reporter(records);
  if (pe < 0) return std::nullopt;
  return compare(records[static_cast<size_t>(pe)], pe, records[0], 0);
}

}  // namespace rdsm::detail
