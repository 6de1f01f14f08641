// remote_memory over the runtime: CPU atomics and load/store on the mapped regions of PEs of this host,
// UCX for the others (all on the DSM's own transport stream).
#include "dsm/remote.hpp"

#include <atomic>
#include <cstring>

#include "cachectl/cachectl.hpp"
#include "common/log.hpp"
#include "core/runtime.hpp"
#include "dsm/region_memory.hpp"

namespace rdsm::detail::dsm {

region_memory::region_memory(int stream, char* local) : rt_(runtime::get()), stream_(stream), local_(local) {}

char* region_memory::at(int pe, uint64_t offset) const {
  if (pe == rt_.my_pe()) return local_ + offset;
  return static_cast<char*>(rt_.mapped(sym_addr{dsm_region, offset}, pe));
}

void region_memory::amo(int pe, uint64_t offset, amo_op op, uint64_t value) {
  if (char* p = at(pe, offset)) {
    auto* w = reinterpret_cast<uint64_t*>(p);
    if (op == amo_op::fetch_or) __atomic_fetch_or(w, value, __ATOMIC_SEQ_CST);
    else __atomic_fetch_add(w, value, __ATOMIC_SEQ_CST);
    return;
  }
  // A fetching atomic: its reply says it was performed.
  uint64_t old = 0;
  status s = rt_.net().atomic(stream_, dsm_region, pe, rt_.remote_addr(sym_addr{dsm_region, offset}, pe), op, 8, value,
                              0, &old, false);
  if (!s.ok()) fatal("dsm: atomic on PE %d: %s", pe, s.message().c_str());
}

void region_memory::atomic_or(int pe, uint64_t offset, uint64_t bits) { amo(pe, offset, amo_op::fetch_or, bits); }

void region_memory::atomic_add(int pe, uint64_t offset, uint64_t value) { amo(pe, offset, amo_op::fetch_add, value); }

uint64_t region_memory::load(int pe, uint64_t offset) {
  if (char* p = at(pe, offset)) return __atomic_load_n(reinterpret_cast<uint64_t*>(p), __ATOMIC_SEQ_CST);
  uint64_t value = 0;
  status s = rt_.net().atomic(stream_, dsm_region, pe, rt_.remote_addr(sym_addr{dsm_region, offset}, pe), amo_op::fetch,
                              8, 0, 0, &value, false);
  if (!s.ok()) fatal("dsm: atomic on PE %d: %s", pe, s.message().c_str());
  return value;
}

void region_memory::read(int pe, uint64_t offset, void* dst, size_t n) {
  if (const char* p = at(pe, offset)) {
    std::atomic_thread_fence(std::memory_order_acquire);
    std::memcpy(dst, p, n);
    return;
  }
  status s = rt_.net().get(stream_, dsm_region, pe, rt_.remote_addr(sym_addr{dsm_region, offset}, pe), dst, n, false);
  if (!s.ok()) fatal("dsm: reading %zu bytes from PE %d: %s", n, pe, s.message().c_str());
  after_dma_write({dst, n});
}

void region_memory::write_nbi(int pe, uint64_t offset, const void* src, size_t n) {
  if (char* p = at(pe, offset)) {
    std::memcpy(p, src, n);
    return;
  }
  before_dma_read({src, n});
  status s = rt_.net().put(stream_, dsm_region, pe, rt_.remote_addr(sym_addr{dsm_region, offset}, pe), src, n, true);
  if (!s.ok()) fatal("dsm: writing %zu bytes to PE %d: %s", n, pe, s.message().c_str());
}

void region_memory::flush() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (!rt_.net().pending(stream_)) return;
  status s = rt_.net().quiet(stream_);
  if (!s.ok()) fatal("dsm: completing writes: %s", s.message().c_str());
}

void region_memory::written_locally(const void* p, size_t n) { before_dma_read({p, n}); }

}  // namespace rdsm::detail::dsm
