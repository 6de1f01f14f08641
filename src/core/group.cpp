// Collectives over a group within one host: counters in symmetric sync words (group_util.hpp), data pushed
// by stores or puts. Groups that span hosts take the hierarchical algorithms of group_hier.cpp.
#include "core/group.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "common/copy.hpp"
#include "common/log.hpp"
#include "common/thread_scratch.hpp"
#include "core/group_hier.hpp"
#include "core/group_util.hpp"
#include "core/progress.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "core/sync.hpp"
#include "core/watch.hpp"

namespace rdsm::detail {
namespace coll {

void raise(const char* fn, group& g, int index, int w, long by) {
  atomic(fn, amo_op::add, word_at(g, w), 8, static_cast<uint64_t>(by), 0, g.pe(index));
}

void consume(const char* fn, group& g, int w, long count, int from) {
  if (count <= 0) return;
  long* p = word_at(g, w);
  if (load_acquire(p) < count) {
    const wait_on on{.call = fn, .pe = from >= 0 ? g.pe(from) : -1, .g = &g};
    wait_scope scope(on);
    backoff b;
    while (load_acquire(p) < count) b.pause();
  }
  atomic(fn, amo_op::add, p, 8, static_cast<uint64_t>(-count), 0, g.pe(g.me));
}

void await_bits(const char* fn, group& g, int w, long bits, int from) {
  long* p = word_at(g, w);
  if ((load_acquire(p) & bits) == bits) return;
  const wait_on on{.call = fn, .pe = g.pe(from), .g = &g};
  wait_scope scope(on);
  backoff b;
  while ((load_acquire(p) & bits) != bits) b.pause();
}

void signal_epoch(const char* fn, group& g, int index, int w, long epoch) {
  if (g.epoch == nullptr) {
    raise(fn, g, index, w, 1);
    return;
  }
  const int to = g.pe(index);
  long* word = word_at(g, w);
  if (void* p = pointer_to(word, to))
    __atomic_store_n(static_cast<long*>(p), epoch, __ATOMIC_RELEASE);
  else  // a blocking put returns once its 8 bytes are sent: no round trip, unlike an atomic swap
    put(fn, word, &epoch, sizeof epoch, to, false, runtime::get().internal_stream());
}

void wait_epoch(const char* fn, group& g, int w, long epoch, int from) {
  if (g.epoch == nullptr) {
    consume(fn, g, w, 1, from);
    return;
  }
  long* word = word_at(g, w);
  if (load_acquire(word) >= epoch) return;
  const wait_on on{.call = fn, .pe = g.pe(from), .g = &g, .epoch = epoch};
  wait_scope scope(on);
  backoff b;
  while (load_acquire(word) < epoch) b.pause();
}

bool maps_every_member(const group& g, const void* addr) {
  for (int i = 0; i < g.size; ++i)
    if (i != g.me && pointer_to(addr, g.pe(i)) == nullptr) return false;
  return true;
}

void copy_local(void* dest, const void* source, size_t bytes) {
  if (dest == source || bytes == 0) return;
  const auto d = reinterpret_cast<uintptr_t>(dest), s = reinterpret_cast<uintptr_t>(source);
  if (d + bytes <= s || s + bytes <= d) copy_bytes(dest, source, bytes);
  else std::memmove(dest, source, bytes);
}

}  // namespace coll

using namespace coll;

int group::index_of(int world) const {
  const int d = world - start;
  if (stride == 0) return d == 0 && size > 0 ? 0 : -1;  // a one-member group
  if (d % stride != 0) return -1;
  const int i = d / stride;  // negative strides count downwards from start
  return i >= 0 && i < size ? i : -1;
}

group active_set(const char* fn, int pe_start, int log_stride, int pe_size, long* psync) {
  runtime& rt = runtime::get();
  if (log_stride < 0 || log_stride > 30 || pe_size < 1 || pe_start < 0 ||
      static_cast<long>(pe_start) + static_cast<long>(pe_size - 1) * (1L << log_stride) >= rt.n_pes())
    fatal("%s: active set (PE_start %d, logPE_stride %d, PE_size %d) is not within [0, %d)", fn, pe_start,
          log_stride, pe_size, rt.n_pes());
  if (rt.resolve(psync).region < 0)
    fatal("%s: pSync %p is not symmetric; pass a global or shmem_malloc'd long array of SHMEM_*_SYNC_SIZE", fn,
          static_cast<void*>(psync));
  group g;
  g.start = pe_start;
  g.stride = 1 << log_stride;
  g.size = pe_size;
  g.me = g.index_of(rt.my_pe());
  if (g.me < 0) fatal("%s: PE %d is not in the active set it called with", fn, rt.my_pe());
  g.sync = psync;
  return g;
}

void group_sync(const char* fn, group& g) {
  const collective_entry entry(g, coll_kind::sync);
  if (const group_layout* l = spread_layout(g)) {
    hier_sync(fn, g, *l);
    return;
  }
  // Dissemination: round k signals member me+2^k and waits for member me-2^k. Teams store the barrier's
  // epoch (a member can be at most one barrier ahead and epochs only grow); active sets count.
  const long epoch = g.epoch != nullptr ? static_cast<long>(++*g.epoch) : 0;
  disseminate(fn, g, g.size, g.me, epoch, [](int i) { return i; });
  if (g.epoch != nullptr) watch_barrier_done(fn, g.epoch, epoch);
}

void group_barrier(const char* fn, group& g) {
  quiet();
  group_sync(fn, g);
}

void group_broadcast(const char* fn, group& g, void* dest, const void* source, size_t bytes, int root,
                     bool root_receives) {
  const collective_entry entry(g, coll_kind::broadcast, root, bytes, fn);
  if (const group_layout* l = spread_layout(g)) {
    hier_broadcast(fn, g, *l, dest, source, bytes, root, root_receives);
    return;
  }
  const int p = parity(g);
  active_set_exit exit_sync{fn, g};
  const int n = g.size;
  const uint64_t pull_from = runtime::get().cfg().coll_bcast_pull;
  // Decided on dest, which every member must pass alike and symmetric, so that all decide the same.
  if (pull_from != 0 && bytes >= pull_from && maps_every_member(g, dest)) {
    // Every member's memory mapped here (and so everywhere, alike: one host): each member copies from the
    // root's source itself as soon as the root has entered, all at once and while the root fills its own
    // dest, and says so. The root then releases them: none may leave (and write into another's dest in the
    // next collective) before every copy into a dest is made, nor the root (its source may change).
    if (g.me == root) {
      std::atomic_thread_fence(std::memory_order_release);  // the source before the word that announces it
      for (int k = 1; k < n; ++k) raise(fn, g, (root + k) % n, w_data + p, 1);
      if (root_receives) copy_local(dest, source, bytes);
      consume(fn, g, w_ready + p, n - 1);
      for (int k = 1; k < n; ++k) raise(fn, g, (root + k) % n, w_data + p, 1);
    } else {
      const void* from = pointer_to(source, g.pe(root));
      if (from == nullptr)
        fatal("%s: source %p is not a symmetric address mapped from the root, PE %d; pass the root's symmetric "
              "source on every PE (the same source and dest on all PEs, as OpenSHMEM requires)",
              fn, source, g.pe(root));
      consume(fn, g, w_data + p, 1, root);
      copy_local(dest, from, bytes);
      std::atomic_thread_fence(std::memory_order_release);  // the copy made before the word that says so
      raise(fn, g, root, w_ready + p, 1);
      consume(fn, g, w_data + p, 1, root);
    }
    return;
  }
  // Large data to more than one member: the root scatters n-1 slices (member root+k gets slice k-1) and the
  // members exchange them, so the root sends each byte once.
  const bool scatter = bytes >= runtime::get().cfg().coll_bcast_scatter && n > 2;
  const size_t slice = (bytes + n - 2) / (n > 1 ? n - 1 : 1);
  auto slice_of = [&](int member, size_t& lo, size_t& hi) {
    int k = (member - root + n) % n;
    lo = std::min(bytes, slice * static_cast<size_t>(k - 1));
    hi = std::min(bytes, lo + slice);
  };
  if (g.me != root) {
    // Entering members tell the root (so nobody leaves before all entered), then wait for data.
    raise(fn, g, root, w_ready + p, 1);
    if (!scatter) {
      consume(fn, g, w_data + p, 1, root);
      return;
    }
    size_t lo, hi;
    slice_of(g.me, lo, hi);
    consume(fn, g, w_slice + p, 1, root);
    for (int k = 1; k < n; ++k) {
      int j = (g.me + k) % n;
      if (j != root) put(fn, at(dest, lo), at(dest, lo), hi - lo, g.pe(j), true);
    }
    fence();
    for (int k = 1; k < n; ++k) {
      int j = (g.me + k) % n;
      if (j != root) raise(fn, g, j, w_data + p, 1);
    }
    raise(fn, g, root, w_ready + p, 1);  // my slice has landed everywhere: the root may leave
    consume(fn, g, w_data + p, n - 2);
    return;
  }
  consume(fn, g, w_ready + p, n - 1);
  // The root's own copy first: a member released below may write its next collective into this dest at once.
  if (root_receives) copy_local(dest, source, bytes);
  for (int k = 1; k < n; ++k) {
    int j = (root + k) % n;
    size_t lo = 0, hi = bytes;
    if (scatter) slice_of(j, lo, hi);
    put(fn, at(dest, lo), at(source, lo), hi - lo, g.pe(j), true);
  }
  fence();
  for (int k = 1; k < n; ++k) raise(fn, g, (root + k) % n, scatter ? w_slice + p : w_data + p, 1);
  // Scattered, the root leaves only once the members' exchange has landed: otherwise its next collective
  // could write into a member's dest before a slice of this one does.
  if (scatter) consume(fn, g, w_ready + p, n - 1);
}

void group_fcollect(const char* fn, group& g, void* dest, const void* source, size_t bytes) {
  const collective_entry entry(g, coll_kind::fcollect, -1, bytes, fn);
  if (const group_layout* l = spread_layout(g)) {
    struct scratch {
      std::vector<size_t> offset, length;
    };
    auto& [offset, length] = thread_scratch<scratch>();
    offset.resize(static_cast<size_t>(g.size));
    length.assign(static_cast<size_t>(g.size), bytes);
    for (int i = 0; i < g.size; ++i) offset[i] = bytes * static_cast<size_t>(i);
    hier_gather_all(fn, g, *l, dest, source, offset, length);
    return;
  }
  const int p = parity(g);
  active_set_exit exit_sync{fn, g};
  // Every member pushes its block to every other member (starting with its right neighbour so that
  // senders spread over receivers), then counts the n-1 arrivals.
  for (int k = 1; k < g.size; ++k) put(fn, at(dest, bytes * g.me), source, bytes, g.pe((g.me + k) % g.size), true);
  copy_local(at(dest, bytes * g.me), source, bytes);
  fence();
  for (int k = 1; k < g.size; ++k) raise(fn, g, (g.me + k) % g.size, w_data + p, 1);
  consume(fn, g, w_data + p, g.size - 1);
}

void check_collect_fits(const char* fn, size_t dest_bytes, size_t offset, size_t bytes, size_t reach) {
  if (offset + bytes <= dest_bytes) return;
  fatal("%s: dest holds %zu bytes, but the members' blocks reach byte %zu at least (this PE's block of %zu bytes "
        "starts at byte %zu); dest must hold the sum of every member's nelems",
        fn, dest_bytes, reach, bytes, offset);
}

void group_collect(const char* fn, group& g, void* dest, const void* source, size_t bytes, size_t dest_bytes) {
  const collective_entry entry(g, coll_kind::collect);
  // Across hosts, teams gather the sizes in their scratch first; active sets (no scratch) chain offsets.
  const group_layout* l = spread_layout(g);
  if (l != nullptr && hier_collect_fits(g)) {
    hier_collect(fn, g, *l, dest, source, bytes, dest_bytes);
    return;
  }
  const int p = parity(g);
  active_set_exit exit_sync{fn, g};
  // Members write into each other's dests before they know the others entered. On one host every write of
  // the previous collective has landed by then; across hosts a member may still receive it: sync first.
  if (l != nullptr) group_sync(fn, g);
  // Offsets travel along a chain: member i learns where its block starts from member i-1 (value + 1, so
  // a zero offset is still a visible arrival) and passes on the end of its own block.
  size_t offset = 0;
  if (g.me > 0) {
    long* w = word_at(g, w_chain + p);
    const wait_on on{.call = fn, .pe = g.pe(g.me - 1), .g = &g};
    wait_scope scope(on);
    backoff b;
    while (load_acquire(w) == 0) b.pause();
    long v = load_acquire(w);
    offset = static_cast<size_t>(v - 1);
    atomic(fn, amo_op::add, w, 8, static_cast<uint64_t>(-v), 0, g.pe(g.me));
  }
  check_collect_fits(fn, dest_bytes, offset, bytes, offset + bytes);
  if (g.me + 1 < g.size) raise(fn, g, g.me + 1, w_chain + p, static_cast<long>(offset + bytes + 1));
  for (int k = 1; k < g.size; ++k) put(fn, at(dest, offset), source, bytes, g.pe((g.me + k) % g.size), true);
  copy_local(at(dest, offset), source, bytes);
  fence();
  for (int k = 1; k < g.size; ++k) raise(fn, g, (g.me + k) % g.size, w_data + p, 1);
  consume(fn, g, w_data + p, g.size - 1);
}

void group_alltoall(const char* fn, group& g, void* dest, const void* source, size_t block_bytes) {
  const collective_entry entry(g, coll_kind::alltoall, -1, block_bytes, fn);
  if (const group_layout* l = spread_layout(g)) {
    hier_alltoall(fn, g, *l, dest, source, block_bytes);
    return;
  }
  const int p = parity(g);
  active_set_exit exit_sync{fn, g};
  for (int k = 1; k < g.size; ++k) {
    int j = (g.me + k) % g.size;
    put(fn, at(dest, block_bytes * g.me), at(source, block_bytes * j), block_bytes, g.pe(j), true);
  }
  copy_local(at(dest, block_bytes * g.me), at(source, block_bytes * g.me), block_bytes);
  fence();
  for (int k = 1; k < g.size; ++k) raise(fn, g, (g.me + k) % g.size, w_data + p, 1);
  consume(fn, g, w_data + p, g.size - 1);
}

void group_alltoalls(const char* fn, group& g, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                     size_t nelems, size_t elem_bytes) {
  const collective_entry entry(g, coll_kind::alltoalls);
  const int p = parity(g);
  active_set_exit exit_sync{fn, g};
  const auto e = static_cast<ptrdiff_t>(elem_bytes);
  const auto ne = static_cast<ptrdiff_t>(nelems);
  if (spread_layout(g) != nullptr) group_sync(fn, g);  // as in group_collect
  for (int k = 0; k < g.size; ++k) {
    int j = (g.me + k) % g.size;
    iput(fn, at(dest, static_cast<size_t>(g.me * ne * dst * e)), at(source, static_cast<size_t>(j * ne * sst * e)),
         dst, sst, nelems, elem_bytes, g.pe(j));
  }
  fence();
  for (int k = 1; k < g.size; ++k) raise(fn, g, (g.me + k) % g.size, w_data + p, 1);
  consume(fn, g, w_data + p, g.size - 1);
}

void group_reduce(const char* fn, group& g, void* dest, const void* source, size_t nelems, size_t elem_bytes,
                  combine_fn combine) {
  const collective_entry entry(g, coll_kind::reduce, -1, nelems * elem_bytes, fn);
  if (const group_layout* l = spread_layout(g)) {
    hier_reduce(fn, g, *l, dest, source, nelems, elem_bytes, combine);
    return;
  }
  // Reduce-scatter by reading, allgather by writing: member i owns slice i, reads that slice of every
  // member's source, combines, and writes the result into every member's dest. Slices are disjoint, so
  // dest may be source. Syncs before (sources ready) and after (results delivered, sources free).
  group_sync(fn, g);
  const size_t per = (nelems + g.size - 1) / g.size;
  const size_t lo = std::min(nelems, per * g.me), hi = std::min(nelems, lo + per);
  if (hi > lo) {
    const size_t bytes = (hi - lo) * elem_bytes;
    // Scratch kept per thread: a fresh buffer of many pages would cost a page fault per page per call.
    struct scratch {
      std::vector<char> acc, in;
    };
    auto& [acc, in] = thread_scratch<scratch>();
    if (acc.size() < bytes) acc.resize(bytes);
    copy_bytes(acc.data(), at(source, lo * elem_bytes), bytes);
    for (int k = 1; k < g.size; ++k) {
      const int pe = g.pe((g.me + k) % g.size);
      if (const void* mapped = pointer_to(at(source, lo * elem_bytes), pe)) {  // combine in place
        combine(acc.data(), mapped, hi - lo);
        continue;
      }
      if (in.size() < bytes) in.resize(bytes);
      get(fn, in.data(), at(source, lo * elem_bytes), bytes, pe, false);
      combine(acc.data(), in.data(), hi - lo);
    }
    for (int k = 1; k < g.size; ++k)  // blocking: acc is reused before the closing quiet
      put(fn, at(dest, lo * elem_bytes), acc.data(), bytes, g.pe((g.me + k) % g.size), false);
    copy_bytes(at(dest, lo * elem_bytes), acc.data(), bytes);
  }
  group_barrier(fn, g);
}

}  // namespace rdsm::detail
