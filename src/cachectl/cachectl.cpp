// cachectl: the maintenance loops per instruction, the fence, and the DSM hooks.
#include "cachectl/cachectl.hpp"

#include <atomic>

#include "common/log.hpp"

namespace rdsm::detail {
namespace {

// One maintenance instruction on the line holding `p`. The "memory" clobber keeps the compiler from
// moving the program's own loads and stores across it, so a clean sees every earlier store.
#if defined(__x86_64__) || defined(__i386__)
inline void line_clflush(uintptr_t p) { asm volatile("clflush %0" : : "m"(*reinterpret_cast<const volatile char*>(p)) : "memory"); }
inline void line_clflushopt(uintptr_t p) { asm volatile("clflushopt %0" : : "m"(*reinterpret_cast<const volatile char*>(p)) : "memory"); }
inline void line_clwb(uintptr_t p) { asm volatile("clwb %0" : : "m"(*reinterpret_cast<const volatile char*>(p)) : "memory"); }
#elif defined(__aarch64__)
inline void line_dc_cvac(uintptr_t p) { asm volatile("dc cvac, %0" : : "r"(p) : "memory"); }
inline void line_dc_civac(uintptr_t p) { asm volatile("dc civac, %0" : : "r"(p) : "memory"); }
#endif

// Calls `line` for the start of every cache line [begin, end) touches; returns how many times it did.
// The hooks count lines with this return value, so their counter is the loop's own step count (what
// the tests check against line arithmetic), not a separate computation of it.
template <class F>
inline size_t for_each_line(byte_range r, size_t line_size, F line) {
  if (r.length == 0) return 0;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(r.base);
  const uintptr_t end = begin + r.length;
  size_t steps = 0;
  for (uintptr_t p = begin & ~(uintptr_t{line_size} - 1); p < end; p += line_size, ++steps) line(p);
  return steps;
}

// Hook state: mode is written once at init; counters are statistics only (relaxed).
std::atomic<bool> g_enabled{false};
std::atomic<bool> g_configured{false};
std::atomic<uint64_t> g_cleans{0};
std::atomic<uint64_t> g_invalidates{0};
std::atomic<uint64_t> g_lines{0};

bool enabled_for(cache_mode mode) {
  switch (mode) {
    case cache_mode::on: return true;
    case cache_mode::off: return false;
    case cache_mode::auto_: break;
  }
  return !cache_detect().dma_coherent;
}

// cache_issue, returning the lines stepped (`none` steps the lines too, issuing nothing).
size_t issue_counted(cache_insn insn, byte_range range) {
  if (!cache_insn_available(insn))
    fatal("cachectl: %s is not available on this CPU (cache_insn_available says which are)", cache_insn_name(insn));
  const size_t line = cache_detect().line_size;
  switch (insn) {
#if defined(__x86_64__) || defined(__i386__)
    case cache_insn::clflush: return for_each_line(range, line, [](uintptr_t p) { line_clflush(p); });
    case cache_insn::clflushopt: return for_each_line(range, line, [](uintptr_t p) { line_clflushopt(p); });
    case cache_insn::clwb: return for_each_line(range, line, [](uintptr_t p) { line_clwb(p); });
#elif defined(__aarch64__)
    case cache_insn::dc_cvac: return for_each_line(range, line, [](uintptr_t p) { line_dc_cvac(p); });
    case cache_insn::dc_civac: return for_each_line(range, line, [](uintptr_t p) { line_dc_civac(p); });
#endif
    default: break;  // none (unavailable instructions were rejected above)
  }
  return for_each_line(range, line, [](uintptr_t) {});
}

}  // namespace

const char* cache_insn_name(cache_insn insn) {
  switch (insn) {
    case cache_insn::none: return "none";
    case cache_insn::clflush: return "clflush";
    case cache_insn::clflushopt: return "clflushopt";
    case cache_insn::clwb: return "clwb";
    case cache_insn::dc_cvac: return "dc_cvac";
    case cache_insn::dc_civac: return "dc_civac";
  }
  return "?";
}

const char* cache_op_name(cache_op op) {
  switch (op) {
    case cache_op::clean: return "clean";
    case cache_op::invalidate: return "invalidate";
    case cache_op::clean_invalidate: return "clean_invalidate";
  }
  return "?";
}

bool cache_insn_available(cache_insn insn) {
  const cache_features& f = cache_detect();
  switch (insn) {
    case cache_insn::none: return true;
    case cache_insn::clflush: return f.clflush;
    case cache_insn::clflushopt: return f.clflushopt;
    case cache_insn::clwb: return f.clwb;
    case cache_insn::dc_cvac: return f.dc_cvac;
    case cache_insn::dc_civac: return f.dc_civac;
  }
  return false;
}

cache_insn cache_choose(cache_op op) {
  const cache_features& f = cache_detect();
  if (op == cache_op::clean) {
    if (f.clwb) return cache_insn::clwb;
    if (f.dc_cvac) return cache_insn::dc_cvac;
  }
  // invalidate and clean_invalidate (and clean without a clean-only instruction) evict with write-back.
  if (f.clflushopt) return cache_insn::clflushopt;
  if (f.clflush) return cache_insn::clflush;
  if (f.dc_civac) return cache_insn::dc_civac;
  return cache_insn::none;
}

void cache_issue(cache_insn insn, byte_range range) { (void)issue_counted(insn, range); }

void cache_fence() {
#if defined(__x86_64__) || defined(__i386__)
  // mfence orders clflushopt and clwb too (sfence would suffice for them; mfence also orders loads,
  // which "full fence" promises).
  asm volatile("mfence" ::: "memory");
#elif defined(__aarch64__)
  // dsb sy: completes earlier maintenance to the PoC for the full system (a DMA master is outside the
  // inner shareable domain, so dsb ish would not do).
  asm volatile("dsb sy" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

void cache_clean(byte_range range) {
  cache_issue(cache_choose(cache_op::clean), range);
  cache_fence();
}

void cache_invalidate(byte_range range) {
  cache_issue(cache_choose(cache_op::invalidate), range);
  cache_fence();
}

void cache_clean_invalidate(byte_range range) {
  cache_issue(cache_choose(cache_op::clean_invalidate), range);
  cache_fence();
}

result<cache_mode> cache_mode_parse(std::string_view word) {
  if (word == "auto") return cache_mode::auto_;
  if (word == "on") return cache_mode::on;
  if (word == "off") return cache_mode::off;
  return status::error(format("RDSM_CACHE_MAINTENANCE=\"%.*s\" is not valid: expected auto, on or off",
                              static_cast<int>(word.size()), word.data()));
}

void cache_configure(cache_mode mode) {
  const bool on = enabled_for(mode);
  g_enabled.store(on, std::memory_order_release);
  g_configured.store(true, std::memory_order_release);
  RDSM_LOG_INFO("dsm", "cache maintenance %s (clean=%s, invalidate=%s)", on ? "on" : "off",
                cache_insn_name(cache_choose(cache_op::clean)), cache_insn_name(cache_choose(cache_op::invalidate)));
}

bool cache_maintenance_enabled() {
  if (!g_configured.load(std::memory_order_acquire)) return enabled_for(cache_mode::auto_);
  return g_enabled.load(std::memory_order_acquire);
}

void before_dma_read(byte_range range) {
  if (!cache_maintenance_enabled() || range.length == 0) return;
  const size_t lines = issue_counted(cache_choose(cache_op::clean), range);
  cache_fence();
  g_cleans.fetch_add(1, std::memory_order_relaxed);
  g_lines.fetch_add(lines, std::memory_order_relaxed);
}

void after_dma_write(byte_range range) {
  if (!cache_maintenance_enabled() || range.length == 0) return;
  const size_t lines = issue_counted(cache_choose(cache_op::invalidate), range);
  cache_fence();
  g_invalidates.fetch_add(1, std::memory_order_relaxed);
  g_lines.fetch_add(lines, std::memory_order_relaxed);
}

cache_hook_stats cache_hook_counters() {
  return {g_cleans.load(std::memory_order_relaxed), g_invalidates.load(std::memory_order_relaxed),
          g_lines.load(std::memory_order_relaxed)};
}

void cache_hook_counters_reset() {
  g_cleans.store(0, std::memory_order_relaxed);
  g_invalidates.store(0, std::memory_order_relaxed);
  g_lines.store(0, std::memory_order_relaxed);
}

}  // namespace rdsm::detail
