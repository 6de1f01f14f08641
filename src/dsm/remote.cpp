// remote_memory over the runtime: CPU atomics and load/store on the mapped regions of PEs of this host,
// UCX for the others (all on the DSM's own transport stream).
#include "dsm/remote.hpp"

#include <unistd.h>

#include <atomic>
#include <cstring>

#include "cachectl/cachectl.hpp"
#include "common/copy.hpp"
#include "common/log.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "dsm/region_memory.hpp"

namespace rdsm::detail::dsm {

region_memory::region_memory(int stream, char* local, int local_file, size_t frames)
    : rt_(runtime::get()), stream_(stream), local_(local), local_file_(local_file), frames_(frames) {}

char* region_memory::at(int pe, uint64_t offset) const {
  if (pe == rt_.my_pe()) return local_ + offset;
  return static_cast<char*>(rt_.mapped(sym_addr{dsm_region, offset}, pe));
}

int region_memory::file(int pe) { return pe == rt_.my_pe() ? -1 : rt_.attached_file(pe); }

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
    copy_bytes(dst, p, n);
    return;
  }
  status s = rt_.net().get(stream_, dsm_region, pe, rt_.remote_addr(sym_addr{dsm_region, offset}, pe), dst, n, false);
  if (!s.ok()) fatal("dsm: reading %zu bytes from PE %d: %s", n, pe, s.message().c_str());
  after_dma_write({dst, n});
}

namespace {
// Copies [offset, offset + n) of file `from` to the same place in file `to` in the kernel; returns the
// bytes copied (fewer where the kernel cannot: the caller copies the rest).
size_t kernel_copy(int from, int to, uint64_t offset, size_t n) {
  size_t done = 0;
  auto in = static_cast<loff_t>(offset), out = static_cast<loff_t>(offset);
  while (done < n) {
    const ssize_t k = copy_file_range(from, &in, to, &out, n - done, 0);
    if (k <= 0) break;
    done += static_cast<size_t>(k);
  }
  return done;
}
}  // namespace

void region_memory::read_first(int pe, uint64_t offset, void* dst, size_t n) {
  const int from = file(pe);
  size_t done = 0;
  if (from >= 0 && local_file_ >= 0 && dst == local_ + offset) {
    std::atomic_thread_fence(std::memory_order_acquire);
    done = kernel_copy(from, local_file_, offset, n);
  }
  if (done < n) read(pe, offset + done, static_cast<char*>(dst) + done, n - done);
}

bool region_memory::write_first(int pe, uint64_t offset, size_t n) {
  const int to = file(pe);
  if (to < 0 || local_file_ < 0) return false;
  const size_t done = kernel_copy(local_file_, to, offset, n);
  if (done < n) std::memcpy(at(pe, offset + done), local_ + offset + done, n - done);
  std::atomic_thread_fence(std::memory_order_release);
  return true;
}

void region_memory::read_nbi(int pe, uint64_t offset, void* dst, size_t n) {
  if (at(pe, offset) != nullptr) {
    read(pe, offset, dst, n);
    return;
  }
  status s = rt_.net().get(stream_, dsm_region, pe, rt_.remote_addr(sym_addr{dsm_region, offset}, pe), dst, n, true);
  if (!s.ok()) fatal("dsm: reading %zu bytes from PE %d: %s", n, pe, s.message().c_str());
  reading_.emplace_back(dst, n);
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

namespace {

// A message of runs: this header, then `runs` (offset, length) pairs of 32-bit words, then their bytes.
struct runs_header {
  uint32_t kind;  // runs_message or runs_ack
  uint32_t runs;
  uint64_t offset;
};
constexpr uint32_t runs_message = 1, runs_ack = 2;
// Fewer runs go as puts; a message above the size goes as puts too (it would not be sent eagerly).
constexpr size_t runs_worth_a_message = 8, runs_message_max = 64 * 1024;

}  // namespace

void region_memory::write_runs(int pe, uint64_t offset, const char* src, const std::vector<run>& runs) {
  size_t bytes = 0;
  for (const run& r : runs) bytes += r.second;
  const size_t size = sizeof(runs_header) + runs.size() * 2 * sizeof(uint32_t) + bytes;
  if (near(pe) || runs.size() < runs_worth_a_message || size > runs_message_max) {
    remote_memory::write_runs(pe, offset, src, runs);
    return;
  }
  std::vector<char> m(size);
  const runs_header h{runs_message, static_cast<uint32_t>(runs.size()), offset};
  std::memcpy(m.data(), &h, sizeof h);
  char* out = m.data() + sizeof h;
  for (const run& r : runs) {
    const uint32_t pair[2] = {r.first, r.second};
    std::memcpy(out, pair, sizeof pair);
    out += sizeof pair;
  }
  for (const run& r : runs) {
    std::memcpy(out, src + r.first, r.second);
    out += r.second;
  }
  status s = rt_.net().send_message(pe, m.data(), m.size());
  if (!s.ok()) fatal("dsm: writing %zu runs to PE %d: %s", runs.size(), pe, s.message().c_str());
  ++acks_expected_;
}

void region_memory::on_message(int from, const void* data, size_t n) {
  runs_header h{};
  if (n < sizeof h) fatal("dsm: malformed message of %zu bytes from PE %d", n, from);
  std::memcpy(&h, data, sizeof h);
  if (h.kind == runs_ack) {
    acks_.fetch_add(1, std::memory_order_acq_rel);
    return;
  }
  if (h.kind != runs_message || h.runs > (n - sizeof h) / (2 * sizeof(uint32_t)))
    fatal("dsm: malformed message of %zu bytes from PE %d", n, from);
  const auto* p = static_cast<const char*>(data) + sizeof h;
  const char* bytes = p + static_cast<size_t>(h.runs) * 2 * sizeof(uint32_t);
  const char* end = static_cast<const char*>(data) + n;
  for (uint32_t i = 0; i < h.runs; ++i) {
    uint32_t pair[2];
    std::memcpy(pair, p + i * sizeof pair, sizeof pair);
    // Each bound on its own: no sum of a peer's values can wrap past the check.
    if (pair[1] > static_cast<size_t>(end - bytes) || h.offset > frames_ || pair[0] > frames_ - h.offset ||
        pair[1] > frames_ - h.offset - pair[0])
      fatal("dsm: malformed message of %zu bytes from PE %d", n, from);
    std::memcpy(local_ + h.offset + pair[0], bytes, pair[1]);
    bytes += pair[1];
  }
  std::atomic_thread_fence(std::memory_order_release);  // the runs are in the frame before the writer hears
  const runs_header ack{runs_ack, 0, 0};
  status s = rt_.net().send_message(from, &ack, sizeof ack);
  if (!s.ok()) fatal("dsm: acknowledging runs to PE %d: %s", from, s.message().c_str());
}

void region_memory::flush() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (rt_.net().pending(stream_)) {
    status s = rt_.net().quiet(stream_);
    if (!s.ok()) fatal("dsm: completing reads and writes: %s", s.message().c_str());
  }
  for (const auto& [dst, n] : reading_) after_dma_write({dst, n});
  reading_.clear();
  if (acks_.load(std::memory_order_acquire) == acks_expected_) return;
  backoff b;  // drives the transport, which delivers the acknowledgements
  while (acks_.load(std::memory_order_acquire) != acks_expected_) b.pause();
}

void region_memory::written_locally(const void* p, size_t n) { before_dma_read({p, n}); }

}  // namespace rdsm::detail::dsm
