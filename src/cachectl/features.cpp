// cachectl: finds the cache maintenance instructions, line size and hypervisor of this CPU.
#include <algorithm>
#include <cstring>
#include <initializer_list>

#include "cachectl/cachectl.hpp"
#include "common/log.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace rdsm::detail {
namespace {

#if defined(__x86_64__) || defined(__i386__)

// The bytes of CPUID registers in order, as text, without padding (NULs and spaces at either end).
std::string regs_text(std::initializer_list<unsigned> regs) {
  std::string s;
  for (unsigned r : regs) {
    char c[4];
    std::memcpy(c, &r, 4);
    s.append(c, 4);
  }
  s.erase(std::find(s.begin(), s.end(), '\0'), s.end());
  size_t first = s.find_first_not_of(' ');
  size_t last = s.find_last_not_of(' ');
  return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
}

cache_features detect() {
  cache_features f;
  f.arch = "x86_64";
  f.dma_coherent = true;  // PCIe DMA snoops the CPU caches on x86
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return f;
  const unsigned max_leaf = a;
  f.vendor = regs_text({b, d, c});
  __cpuid(1, a, b, c, d);
  f.clflush = (d >> 19) & 1U;
  if (f.clflush) f.line_size = ((b >> 8) & 0xffU) * 8;  // CLFLUSH line size, in 8-byte units
  if (f.line_size == 0) f.line_size = 64;
  f.hypervisor = ((c >> 31) & 1U) != 0 ? cache_features::tristate::yes : cache_features::tristate::no;
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    f.clflushopt = (b >> 23) & 1U;
    f.clwb = (b >> 24) & 1U;
  }
  if (__get_cpuid(0x80000000U, &a, &b, &c, &d) != 0 && a >= 0x80000004U) {
    unsigned r[12];
    for (unsigned i = 0; i < 3; ++i) __cpuid(0x80000002U + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
    f.model = regs_text({r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11]});
  }
  if (f.hypervisor == cache_features::tristate::yes) {
    // Leaves 0x40000000+ are the hypervisor's (KVM, Hyper-V, VMware, Xen, TCG) when bit 31 is set.
    __cpuid(0x40000000U, a, b, c, d);
    f.hypervisor_vendor = regs_text({b, c, d});
  }
  return f;
}

#elif defined(__aarch64__)

cache_features detect() {
  cache_features f;
  f.arch = "aarch64";
  // CTR_EL0.DminLine (bits 19:16) is log2 of the smallest data cache line in 4-byte words. Linux lets
  // EL0 read it (SCTLR_EL1.UCT) or emulates the read. dc cvac / dc civac at EL0 need SCTLR_EL1.UCI,
  // which Linux sets; dc ivac is EL1-only and therefore never offered here.
  uint64_t ctr = 0;
  asm volatile("mrs %0, ctr_el0" : "=r"(ctr));
  f.line_size = size_t{4} << ((ctr >> 16) & 0xfU);
  f.dc_cvac = true;
  f.dc_civac = true;
  f.hypervisor = cache_features::tristate::unknown;  // no EL0-visible indication
  // Whether DMA snoops the caches is a platform property (device tree dma-coherent, ACPI _CCA);
  // assume not, which is the safe answer for the "auto" mode.
  f.dma_coherent = false;
  return f;
}

#else

cache_features detect() {
  cache_features f;  // generic: no maintenance instruction; DMA assumed coherent
  return f;
}

#endif

const char* tristate_name(cache_features::tristate t) {
  switch (t) {
    case cache_features::tristate::no: return "no";
    case cache_features::tristate::yes: return "yes";
    case cache_features::tristate::unknown: break;
  }
  return "unknown";
}

}  // namespace

const cache_features& cache_detect() {
  static const cache_features features = detect();  // thread-safe static initialisation
  return features;
}

std::string cache_describe(const cache_features& f) {
  std::string s = format("arch: %s", f.arch);
  if (!f.vendor.empty()) s += format("  vendor: %s", f.vendor.c_str());
  if (!f.model.empty()) s += format("  model: %s", f.model.c_str());
  s += format("\ncache line: %zu bytes\ninstructions:", f.line_size);
  bool any = false;
  for (cache_insn i : {cache_insn::clflush, cache_insn::clflushopt, cache_insn::clwb, cache_insn::dc_cvac,
                       cache_insn::dc_civac}) {
    if (!cache_insn_available(i)) continue;
    s += format(" %s", cache_insn_name(i));
    any = true;
  }
  if (!any) s += " none (portable fallback: fences only)";
  s += format("\nchosen: clean=%s invalidate=%s clean_invalidate=%s", cache_insn_name(cache_choose(cache_op::clean)),
              cache_insn_name(cache_choose(cache_op::invalidate)),
              cache_insn_name(cache_choose(cache_op::clean_invalidate)));
  s += format("\nhypervisor: %s", tristate_name(f.hypervisor));
  if (!f.hypervisor_vendor.empty()) s += format(" (%s)", f.hypervisor_vendor.c_str());
  s += format("\nDMA coherent: %s", f.dma_coherent ? "yes" : "no (assumed)");
  return s;
}

}  // namespace rdsm::detail
