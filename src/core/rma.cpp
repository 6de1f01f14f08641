// RMA, atomics and signals: direct load/store where the peer's memory is mapped, UCX otherwise.
#include "core/rma.hpp"

#include <atomic>
#include <cstring>
#include <vector>

#include "common/copy.hpp"
#include "common/log.hpp"
#include "common/mappings.hpp"
#include "core/runtime.hpp"
#include "core/watch.hpp"

namespace rdsm::detail {
namespace {

// SHMEM_DEBUG: the target lies in one live block of the user's heap (a put past the end of its block lands in
// the next one without it; the runtime's own symmetric memory, below the user's heap, is refused or allowed by
// resolve_checked before this).
void check_heap_block(runtime& rt, const char* fn, const char* arg, const void* addr, size_t bytes) {
  const auto a = reinterpret_cast<uintptr_t>(addr);
  if (a < rt.user_heap_base() || a - rt.user_heap_base() >= rt.heap().span()) return;
  const auto [start, size] = rt.heap().block_holding(addr);
  if (size == 0)
    fatal("%s: %s %p is in no live block of the symmetric heap (freed, or never returned by shmem_malloc) "
          "(SHMEM_DEBUG); use memory from shmem_malloc that is not freed",
          fn, arg, addr);
  if (bytes > start + size - a)
    fatal("%s: %s %p + %zu bytes runs %zu bytes past the end of its block [%p, %p) of the symmetric heap "
          "(SHMEM_DEBUG); check the element count",
          fn, arg, addr, bytes, bytes - (start + size - a), reinterpret_cast<void*>(start),
          reinterpret_cast<void*>(start + size));
}

// Why `addr` is no address a program may name in OpenSHMEM RMA (cold: only on the way to the end of the job).
[[noreturn, gnu::cold, gnu::noinline]] void not_symmetric(runtime& rt, const char* fn, const char* arg,
                                                          const void* addr) {
  if (rt.in_faulting_range(addr, 1))
    fatal("%s: %s %p is DSM memory (from rdsm_dsm_alloc), which OpenSHMEM RMA, atomics and collectives cannot "
          "address; use plain loads and stores or rdsm_dsm_* there, and shmem_malloc'd memory for OpenSHMEM",
          fn, arg, addr);
  const auto a = reinterpret_cast<uintptr_t>(addr);
  if (a - rt.region_base(heap_region) < symmetric_heap::base_alignment)
    fatal("%s: %s %p is not symmetric: it lies %zu bytes before the symmetric heap [%p, %p), in the runtime's "
          "reserved area (team scratch); use an address within a block returned by shmem_malloc",
          fn, arg, addr, rt.user_heap_base() - a, reinterpret_cast<void*>(rt.user_heap_base()),
          reinterpret_cast<void*>(rt.user_heap_base() + rt.heap().span()));
  fatal("%s: %s %p is not symmetric: it lies %s, not in the symmetric heap [%p, %p) nor in a global variable "
        "of the program; allocate it with shmem_malloc or make it a non-const global/static",
        fn, arg, addr, address_kind(addr).c_str(), reinterpret_cast<void*>(rt.user_heap_base()),
        reinterpret_cast<void*>(rt.user_heap_base() + rt.heap().span()));
}

// Resolves a symmetric address and checks that its `bytes` lie in its region. The heap's first base_alignment
// bytes are the runtime's own (teams' scratch, which a stray put would corrupt under another team's
// collective): refused unless `own` (the collectives' transfers into that scratch).
sym_addr resolve_checked(runtime& rt, const char* fn, const char* arg, const void* addr, size_t bytes,
                         bool own = false) {
  sym_addr s = rt.resolve(addr);
  if (s.region < 0 || (s.region == heap_region && s.offset < symmetric_heap::base_alignment && !own))
    not_symmetric(rt, fn, arg, addr);
  if (bytes > rt.region_length(s.region) - s.offset)
    fatal("%s: %s %p + %zu bytes runs past the end of its symmetric object's region (%zu bytes left); "
          "check the element count",
          fn, arg, addr, bytes, rt.region_length(s.region) - s.offset);
  if (rt.checking() && s.region == heap_region) check_heap_block(rt, fn, arg, addr, bytes);
  return s;
}

void transport_failed(const char* fn, const status& s) { fatal("%s: %s", fn, s.message().c_str()); }

template <class T>
uint64_t cpu_atomic(amo_op op, T* p, T value, T compare) {
  switch (op) {
    case amo_op::fetch: return __atomic_load_n(p, __ATOMIC_SEQ_CST);
    case amo_op::set: __atomic_store_n(p, value, __ATOMIC_SEQ_CST); return 0;
    case amo_op::swap: return __atomic_exchange_n(p, value, __ATOMIC_SEQ_CST);
    case amo_op::cswap:
      __atomic_compare_exchange_n(p, &compare, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
      return compare;
    case amo_op::add:
    case amo_op::fetch_add: return __atomic_fetch_add(p, value, __ATOMIC_SEQ_CST);
    case amo_op::band:
    case amo_op::fetch_and: return __atomic_fetch_and(p, value, __ATOMIC_SEQ_CST);
    case amo_op::bor:
    case amo_op::fetch_or: return __atomic_fetch_or(p, value, __ATOMIC_SEQ_CST);
    case amo_op::bxor:
    case amo_op::fetch_xor: return __atomic_fetch_xor(p, value, __ATOMIC_SEQ_CST);
  }
  return 0;
}

uint64_t cpu_atomic(amo_op op, void* p, unsigned width, uint64_t value, uint64_t compare) {
  if (width == 4)
    return static_cast<uint32_t>(cpu_atomic<uint32_t>(op, static_cast<uint32_t*>(p), static_cast<uint32_t>(value),
                                                      static_cast<uint32_t>(compare)));
  return cpu_atomic<uint64_t>(op, static_cast<uint64_t*>(p), value, compare);
}

sym_addr check_word(runtime& rt, const char* fn, const char* arg, const void* target, unsigned width) {
  if (reinterpret_cast<uintptr_t>(target) % width != 0)
    fatal("%s: %s %p is not aligned to %u bytes; atomics need naturally aligned targets", fn, arg, target, width);
  return resolve_checked(rt, fn, arg, target, width);
}

sym_addr check_atomic(runtime& rt, const char* fn, const char* arg, const void* target, unsigned width, int pe) {
  check_pe(fn, pe);
  return rt.for_pe(check_word(rt, fn, arg, target, width), pe, width, fn);
}

// The bytes a strided transfer touches around `addr` (element i of block b at addr + (b*stride + i) elements),
// checked against the region of `addr` before any block moves, so that a stride too large, or negative past
// the start of the object, is named as such rather than by the address some block would reach.
void check_strided(runtime& rt, const char* fn, const char* arg, const char* stride_arg, const void* addr,
                   ptrdiff_t stride, size_t bsize, size_t nblocks, size_t elem_bytes) {
  const size_t block = bsize * elem_bytes;
  const sym_addr s = resolve_checked(rt, fn, arg, addr, block);
  // Offset of the last block from addr, in bytes; [lo, hi) relative to addr is what the transfer covers.
  ptrdiff_t last = 0;
  const bool overflow = nblocks > static_cast<size_t>(PTRDIFF_MAX) ||
                        __builtin_mul_overflow(static_cast<ptrdiff_t>(nblocks - 1), stride, &last) ||
                        __builtin_mul_overflow(last, static_cast<ptrdiff_t>(elem_bytes), &last);
  const uint64_t floor = s.region == heap_region ? symmetric_heap::base_alignment : 0;
  const uint64_t length = rt.region_length(s.region);
  const bool below = !overflow && last < 0 && static_cast<uint64_t>(-last) > s.offset - floor;
  const bool above = !overflow && last > 0 && static_cast<uint64_t>(last) > length - s.offset - block;
  if (!overflow && !below && !above) return;
  const char* where = s.region == heap_region   ? "the symmetric heap"
                      : s.region == data_region ? "the program's global variables"
                                                : "its symmetric region";
  if (overflow)
    fatal("%s: %s %td over %zu elements reaches beyond the address space from %s %p; check the stride and the "
          "element count",
          fn, stride_arg, stride, nblocks, arg, addr);
  fatal("%s: %s %td over %zu elements reaches %td bytes %s %s %p, past the %s of %s [%p, %p); check the stride "
        "and the element count",
        fn, stride_arg, stride, nblocks, last < 0 ? -last : last, last < 0 ? "before" : "after", arg, addr,
        below ? "start" : "end", where, reinterpret_cast<void*>(rt.region_base(s.region) + floor),
        reinterpret_cast<void*>(rt.region_base(s.region) + length));
}

}  // namespace

void check_pe(const char* fn, int pe) {
  runtime& rt = runtime::checked(fn);
  if (pe < 0 || pe >= rt.n_pes())
    fatal("%s: pe %d out of range [0, %d); use a PE number below shmem_n_pes()", fn, pe, rt.n_pes());
}

void check_symmetric(const char* fn, const char* arg, const void* addr, size_t bytes) {
  runtime& rt = runtime::checked(fn);
  if (bytes == 0) return;
  resolve_checked(rt, fn, arg, addr, bytes);
}

void check_strided_symmetric(const char* fn, const char* arg, const char* stride_arg, const void* addr,
                             ptrdiff_t stride, size_t bsize, size_t nblocks, size_t elem_bytes) {
  runtime& rt = runtime::checked(fn);
  if (nblocks > 0 && bytes_of(fn, "nelems", bsize, elem_bytes) > 0)
    check_strided(rt, fn, arg, stride_arg, addr, stride, bsize, nblocks, elem_bytes);
}

void check_atomic_word(const char* fn, const char* arg, const void* addr) {
  runtime& rt = runtime::checked(fn);
  check_word(rt, fn, arg, addr, sizeof(uint64_t));
}

size_t bytes_of(const char* fn, const char* arg, size_t count, size_t elem_bytes) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, elem_bytes, &bytes)) {
    runtime& rt = runtime::checked(fn);
    const auto signed_count = static_cast<ptrdiff_t>(count);
    fatal("%s: %s %zu%s of %zu bytes each runs past the end of the symmetric heap [%p, %p); check the element "
          "count",
          fn, arg, count, signed_count < 0 ? format(" (%td as a signed count)", signed_count).c_str() : "", elem_bytes,
          reinterpret_cast<void*>(rt.user_heap_base()),
          reinterpret_cast<void*>(rt.user_heap_base() + rt.heap().span()));
  }
  return bytes;
}

namespace {

// Inlined into put and put_scratch: the put path keeps the shape it had before `own` (one call, no more).
[[gnu::always_inline]] inline void put_to(const char* fn, void* dest, const void* src, size_t bytes, int pe, bool nbi,
                                          int stream, bool own) {
  runtime& rt = runtime::checked(fn);
  check_pe(fn, pe);
  if (bytes == 0) return;  // nothing to move: any address will do, NULL included (1.5 Annex C)
  sym_addr s = rt.for_pe(resolve_checked(rt, fn, "dest", dest, bytes, own), pe, bytes, fn);
  if (void* p = rt.mapped(s, pe)) {
    publish_bytes(p, src, bytes);  // the peer may be polling the put's last element
    return;
  }
  if (rt.in_faulting_range(src, bytes)) {  // DSM memory: copied (and faulted in) here, outside UCX
    std::vector<char> bounce(static_cast<const char*>(src), static_cast<const char*>(src) + bytes);
    status st = rt.net().put(stream, s.region, pe, rt.remote_addr(s, pe), bounce.data(), bytes, false);
    if (!st.ok()) transport_failed(fn, st);
    return;
  }
  status st = rt.net().put(stream, s.region, pe, rt.remote_addr(s, pe), src, bytes, nbi);
  if (!st.ok()) transport_failed(fn, st);
}

void put_signal_to(const char* fn, void* dest, const void* src, size_t bytes, uint64_t* sig, uint64_t signal,
                   int sig_op, int pe, bool nbi, int stream, bool own) {
  runtime& rt = runtime::checked(fn);
  if (sig_op != signal_set && sig_op != signal_add)
    fatal("%s: sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", fn, sig_op);
  sym_addr ss = check_atomic(rt, fn, "sig_addr", sig, sizeof(uint64_t), pe);
  put_to(fn, dest, src, bytes, pe, nbi, stream, own);
  amo_op op = sig_op == signal_set ? amo_op::set : amo_op::add;
  if (void* p = rt.mapped(ss, pe)) {
    // The data must be visible before the signal: complete transported data first.
    if (rt.net().pending(stream)) quiet(stream);
    cpu_atomic(op, p, 8, signal, 0);
    return;
  }
  if (rt.net().pending(stream)) rt.net().fence(stream);
  status st = rt.net().atomic(stream, ss.region, pe, rt.remote_addr(ss, pe), op, 8, signal, 0, nullptr,
                              op == amo_op::add);
  if (!st.ok()) transport_failed(fn, st);
}

}  // namespace

void put(const char* fn, void* dest, const void* src, size_t bytes, int pe, bool nbi, int stream) {
  put_to(fn, dest, src, bytes, pe, nbi, stream, false);
}

void put_scratch(const char* fn, void* dest, const void* src, size_t bytes, int pe, bool nbi, int stream) {
  put_to(fn, dest, src, bytes, pe, nbi, stream, true);
}

void get(const char* fn, void* dest, const void* src, size_t bytes, int pe, bool nbi, int stream) {
  runtime& rt = runtime::checked(fn);
  check_pe(fn, pe);
  if (bytes == 0) return;  // nothing to move: any address will do, NULL included (1.5 Annex C)
  sym_addr s = rt.for_pe(resolve_checked(rt, fn, "source", src, bytes), pe, bytes, fn);
  if (void* p = rt.mapped(s, pe)) {
    copy_bytes(dest, p, bytes);
    return;
  }
  if (rt.in_faulting_range(dest, bytes)) {  // DSM memory: written (and faulted in) here, outside UCX
    std::vector<char> bounce(bytes);
    status st = rt.net().get(stream, s.region, pe, rt.remote_addr(s, pe), bounce.data(), bytes, false);
    if (!st.ok()) transport_failed(fn, st);
    copy_bytes(dest, bounce.data(), bytes);
    return;
  }
  status st = rt.net().get(stream, s.region, pe, rt.remote_addr(s, pe), dest, bytes, nbi);
  if (!st.ok()) transport_failed(fn, st);
}

void ibput(const char* fn, void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
           size_t elem_bytes, int pe, int stream) {
  auto* d = static_cast<char*>(dest);
  const auto* s = static_cast<const char*>(src);
  const auto eb = static_cast<ptrdiff_t>(elem_bytes);
  if (nblocks > 0 && bytes_of(fn, "bsize", bsize, elem_bytes) > 0) {
    runtime& rt = runtime::checked(fn);
    check_pe(fn, pe);
    check_strided(rt, fn, "dest", "dst", dest, dst, bsize, nblocks, elem_bytes);
  }
  // Blocking puts: each returns when its block may be reused (for small blocks UCX copies them at once, so this
  // costs no wait), where an nbi put may still read the source after ibput has returned.
  for (size_t i = 0; i < nblocks; ++i)
    put(fn, d + static_cast<ptrdiff_t>(i) * dst * eb, s + static_cast<ptrdiff_t>(i) * sst * eb, bsize * elem_bytes,
        pe, false, stream);
}

void ibget(const char* fn, void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
           size_t elem_bytes, int pe, int stream) {
  auto* d = static_cast<char*>(dest);
  const auto* s = static_cast<const char*>(src);
  const auto eb = static_cast<ptrdiff_t>(elem_bytes);
  if (nblocks > 0 && bytes_of(fn, "bsize", bsize, elem_bytes) > 0) {
    runtime& rt = runtime::checked(fn);
    check_pe(fn, pe);
    check_strided(rt, fn, "source", "sst", src, sst, bsize, nblocks, elem_bytes);
  }
  for (size_t i = 0; i < nblocks; ++i)
    get(fn, d + static_cast<ptrdiff_t>(i) * dst * eb, s + static_cast<ptrdiff_t>(i) * sst * eb, bsize * elem_bytes,
        pe, true, stream);
  quiet(stream);  // blocking: the blocks are in dest on return
}

void iput(const char* fn, void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
          size_t elem_bytes, int pe, int stream) {
  ibput(fn, dest, src, dst, sst, 1, nelems, elem_bytes, pe, stream);
}

void iget(const char* fn, void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
          size_t elem_bytes, int pe, int stream) {
  ibget(fn, dest, src, dst, sst, 1, nelems, elem_bytes, pe, stream);
}

uint64_t atomic(const char* fn, amo_op op, void* target, unsigned width, uint64_t value, uint64_t compare, int pe,
                int stream, const char* arg) {
  runtime& rt = runtime::checked(fn);
  sym_addr s = check_atomic(rt, fn, arg != nullptr ? arg : op == amo_op::fetch ? "source" : "dest", target, width, pe);
  if (void* p = rt.mapped(s, pe)) return cpu_atomic(op, p, width, value, compare);
  uint64_t old = 0;
  bool fetches = op != amo_op::add && op != amo_op::band && op != amo_op::bor && op != amo_op::bxor &&
                 op != amo_op::set;
  status st = rt.net().atomic(stream, s.region, pe, rt.remote_addr(s, pe), op, width, value, compare,
                              fetches ? &old : nullptr, !fetches);
  if (!st.ok()) transport_failed(fn, st);
  return width == 4 ? static_cast<uint32_t>(old) : old;
}

void atomic_nbi(const char* fn, amo_op op, void* fetch, void* target, unsigned width, uint64_t value,
                uint64_t compare, int pe, int stream) {
  runtime& rt = runtime::checked(fn);
  sym_addr s = check_atomic(rt, fn, op == amo_op::fetch ? "source" : "dest", target, width, pe);
  if (void* p = rt.mapped(s, pe)) {
    uint64_t old = cpu_atomic(op, p, width, value, compare);
    std::memcpy(fetch, &old, width);  // little-endian: the low bytes hold the value
    return;
  }
  status st = rt.net().atomic(stream, s.region, pe, rt.remote_addr(s, pe), op, width, value, compare, fetch, true);
  if (!st.ok()) transport_failed(fn, st);
}

void put_signal(const char* fn, void* dest, const void* src, size_t bytes, uint64_t* sig, uint64_t signal,
                int sig_op, int pe, bool nbi, int stream) {
  put_signal_to(fn, dest, src, bytes, sig, signal, sig_op, pe, nbi, stream, false);
}

void put_signal_scratch(const char* fn, void* dest, const void* src, size_t bytes, uint64_t* sig, uint64_t signal,
                        int sig_op, int pe, bool nbi, int stream) {
  put_signal_to(fn, dest, src, bytes, sig, signal, sig_op, pe, nbi, stream, true);
}

void fence(int stream) {
  // Direct stores are ordered by the CPU (release); transported ones must complete before later direct
  // stores can become visible, so a fence after transported operations is a quiet.
  if (runtime::initialized() && runtime::get().net().pending(stream)) {
    quiet(stream);
    return;
  }
  std::atomic_thread_fence(std::memory_order_release);
}

void quiet(int stream) {
  runtime& rt = runtime::checked("shmem_quiet");
  if (rt.net().pending(stream)) {
    // The on-demand report names it (a peer that does not answer holds it); the transport's loop has no
    // back-off, so the scope keeps its own start time.
    static const wait_on completing{.call = "shmem_quiet"};
    wait_scope scope(completing, /*timed=*/true);
    status st = rt.net().quiet(stream);
    if (!st.ok()) transport_failed("shmem_quiet", st);
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void* pointer_to(const void* addr, int pe) {
  runtime& rt = runtime::checked("shmem_ptr");
  if (pe < 0 || pe >= rt.n_pes()) return nullptr;
  sym_addr s = rt.resolve(addr);
  if (s.region < 0) return nullptr;
  return rt.mapped(rt.for_pe(s, pe, 1, "shmem_ptr"), pe);
}

}  // namespace rdsm::detail
