// Collectives across hosts. Each host's members meet at one of them (the host's leader, or the root of a
// broadcast) through shared memory; the leaders then run an algorithm among themselves whose cost grows with
// log2(hosts) rounds or with the data (every byte crosses a host's link a bounded number of times), and
// hand the result to their host's members by stores. Signals that follow data travel with it (put then
// signal, ordered by a fence on the wire), so no step waits for a round trip it does not need.
#include "core/group_hier.hpp"

#include <algorithm>
#include <vector>

#include "common/copy.hpp"
#include "common/log.hpp"
#include "common/thread_scratch.hpp"
#include "core/group_util.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "core/sync.hpp"
#include "core/watch.hpp"

namespace rdsm::detail {
using namespace coll;
namespace {

group_layout make_layout(const group& g) {
  runtime& rt = runtime::get();
  group_layout l;
  l.host_of.resize(static_cast<size_t>(g.size));
  std::vector<int> number(static_cast<size_t>(rt.n_hosts()), -1);  // the job's host -> the group's
  std::vector<int> counts;
  for (int i = 0; i < g.size; ++i) {
    int& n = number[static_cast<size_t>(rt.host_of(g.pe(i)))];
    if (n < 0) {
      n = static_cast<int>(counts.size());
      counts.push_back(0);
    }
    l.host_of[i] = n;
    ++counts[static_cast<size_t>(n)];
  }
  l.hosts = static_cast<int>(counts.size());
  l.first.assign(static_cast<size_t>(l.hosts) + 1, 0);
  for (int h = 0; h < l.hosts; ++h) l.first[h + 1] = l.first[h] + counts[h];
  l.order.resize(static_cast<size_t>(g.size));
  std::vector<int> next(l.first.begin(), l.first.end() - 1);
  for (int i = 0; i < g.size; ++i) l.order[next[l.host_of[i]]++] = i;
  l.my_host = g.me >= 0 ? l.host_of[g.me] : 0;
  return l;
}

// Thread-local, so that threads running collectives on different teams need no lock.
struct cached_layout {
  unsigned generation;
  int start, stride, size;
  group_layout layout;
};
struct layout_cache {
  std::vector<cached_layout> layouts;
};

// A team's scratch (group::scratch: 1 MiB for the world, 16 KiB for other teams) in four equal areas: two
// receive areas (one per parity: a leader may receive the next collective's data while it still reads this
// one's), the area where a host's members gather what leaves the host, and the table of sizes of collect.
size_t area_bytes(const group& g) { return g.scratch != nullptr ? g.scratch_bytes / 4 : 0; }
char* receive_area(const group& g, int parity) { return static_cast<char*>(g.scratch) + parity * area_bytes(g); }
char* gather_area(const group& g) { return static_cast<char*>(g.scratch) + 2 * area_bytes(g); }
char* sizes_area(const group& g) { return static_cast<char*>(g.scratch) + 3 * area_bytes(g); }

// Data, then a signal ordered behind it; blocking (the source may be reused at return). Into a user's dest
// (checked at the collective's entry) or the team's scratch.
void post(const char* fn, group& g, int index, int w, void* dest, const void* source, size_t bytes) {
  put_signal_scratch(fn, dest, source, bytes, reinterpret_cast<uint64_t*>(word_at(g, w)), 1, signal_add,
                     g.pe(index), false);
}

// A dissemination among the leaders of the hosts on counter word `w`: round k adds 2^k, so an early
// arrival of a later round is not taken for this one. Teams leave the word at zero, as counters must be.
void leaders_sync(const char* fn, group& g, const group_layout& l, int w) {
  const int H = l.hosts, h = l.my_host;
  long all = 0;
  for (int k = 0, dist = 1; dist < H; ++k, dist <<= 1) {
    raise(fn, g, l.leader((h + dist) % H), w, 1L << k);
    await_bits(fn, g, w, 1L << k, l.leader((h - dist % H + H) % H));
    all |= 1L << k;
  }
  consume(fn, g, w, all);
}

// Signals every other member of this host on word `w` once what was stored into their dests (some of it by
// puts through UCX when `transported`) has landed: no member is released before every member's copy has,
// since a released member may start the next collective at once and write into another member's dest.
void release_members(const char* fn, group& g, const group_layout& l, int w, bool transported) {
  if (transported) fence();  // a quiet: puts through UCX complete before the stores that signal
  else std::atomic_thread_fence(std::memory_order_release);
  for (int k = 0; k < l.count(l.my_host); ++k)
    if (const int j = l.member(l.my_host, k); j != g.me) raise(fn, g, j, w, 1);
}

// Whether a member copies a result of `bytes` from the PE that holds it at symmetric address `data`, mapped
// here as `mapped`, itself (all members at once) rather than have that PE store it into each member's dest
// in turn: for large results on hosts of 3 PEs or more (two copies or more to spread; the hand-over costs
// two more signals). Both sides decide alike: a host's PEs map each other's heaps or none do.
bool pulled(const group_layout& l, size_t bytes, const void* mapped) {
  const uint64_t from = runtime::get().cfg().coll_deliver_pull;
  return from != 0 && bytes >= from && l.count(l.my_host) >= 3 && mapped != nullptr;
}

// Hands `bytes` of `data` (a symmetric address: this PE's result) to every other member of this host, into
// its dest, then releases them. Small results are stored by this PE; large ones are copied by the members
// from this PE's `data` (take_delivery), which then tell this PE they have.
void deliver(const char* fn, group& g, const group_layout& l, int w, void* dest, const void* data, size_t bytes) {
  const int h = l.my_host;
  bool transported = false;
  int pulling = 0;
  std::atomic_thread_fence(std::memory_order_release);  // the result before a member told to copy it
  for (int k = 0; k < l.count(h) && bytes > 0; ++k) {
    const int j = l.member(h, k);
    if (j == g.me) continue;
    if (pulled(l, bytes, pointer_to(data, g.pe(j)))) {
      raise(fn, g, j, w, 1);  // it copies while this PE stores into the others
      ++pulling;
    } else if (void* target = pointer_to(dest, g.pe(j))) {
      copy_local(target, data, bytes);
    } else {
      put_scratch(fn, dest, data, bytes, g.pe(j), false);  // dest may be the team's scratch (hier_collect)
      transported = true;
    }
  }
  consume(fn, g, w, pulling);  // every copy made: no member's next collective meets one still reading
  release_members(fn, g, l, w, transported);
}

// The bytes of a dest that blocks at `offset` of `bytes` each cover (the end of the last).
size_t extent(const std::vector<size_t>& offset, const std::vector<size_t>& bytes) {
  size_t end = 0;
  for (size_t i = 0; i < offset.size(); ++i) end = std::max(end, offset[i] + bytes[i]);
  return end;
}

// A member's side of deliver: `from` holds the result at symmetric address `data`.
void take_delivery(const char* fn, group& g, const group_layout& l, int w, void* dest, const void* data, size_t bytes,
                   int from) {
  if (const void* mapped = pointer_to(data, g.pe(from)); bytes > 0 && pulled(l, bytes, mapped)) {
    consume(fn, g, w, 1, from);
    copy_local(dest, mapped, bytes);
    raise(fn, g, from, w, 1);
  }
  consume(fn, g, w, 1, from);
}

}  // namespace

bool hier_collect_fits(const group& g) {
  return static_cast<size_t>(g.size) * sizeof(uint64_t) <= area_bytes(g);
}

const group_layout* spread_layout(const group& g) {
  runtime& rt = runtime::get();
  if (rt.n_hosts() < 2 || g.size < 2 || !rt.cfg().coll_hierarchy) return nullptr;
  // Two hosts at least; the barrier's rounds among leaders use the round words below its two own.
  auto spread = [](const group_layout& l) { return l.hosts > 1 && l.hosts <= (1 << w_gather) ? &l : nullptr; };
  const unsigned gen = runtime::generation();
  std::vector<cached_layout>& t_layouts = thread_scratch<layout_cache>().layouts;
  for (const cached_layout& c : t_layouts)
    if (c.generation == gen && c.start == g.start && c.stride == g.stride && c.size == g.size) return spread(c.layout);
  if (t_layouts.size() >= 16) t_layouts.erase(t_layouts.begin());
  t_layouts.push_back({gen, g.start, g.stride, g.size, make_layout(g)});
  const group_layout& l = t_layouts.back().layout;
  if (l.hosts > 1 && log_current_level() >= log_level::info) {
    std::string leaders;
    for (int h = 0; h < std::min(l.hosts, 8); ++h) leaders += format("%sPE %d", h > 0 ? ", " : "", g.pe(l.leader(h)));
    RDSM_LOG_INFO("coll", "group of %d PEs from PE %d (stride %d) spans %d hosts: collectives through their leaders %s%s",
                  g.size, g.start, g.stride, l.hosts, leaders.c_str(), l.hosts > 8 ? ", ..." : "");
  }
  return spread(l);
}

void hier_sync(const char* fn, group& g, const group_layout& l) {
  const int H = l.hosts, h = l.my_host, lead = l.leader(h);
  const long epoch = g.epoch != nullptr ? static_cast<long>(++*g.epoch) : 0;
  if (g.me != lead) {
    raise(fn, g, lead, w_gather, 1);
    wait_epoch(fn, g, w_release, epoch, lead);
  } else {
    consume(fn, g, w_gather, l.count(h) - 1);
    disseminate(fn, g, H, h, epoch, [&](int host) { return l.leader(host); });
    for (int k = 1; k < l.count(h); ++k) signal_epoch(fn, g, l.member(h, k), w_release, epoch);
  }
  if (g.epoch != nullptr) watch_barrier_done(fn, g.epoch, epoch);
}

void hier_broadcast(const char* fn, group& g, const group_layout& l, void* dest, const void* source, size_t bytes,
                    int root, bool root_receives) {
  const int p = parity(g);
  active_set_exit exit_sync{fn, g};
  const int H = l.hosts, h = l.my_host, rh = l.host_of[root];
  // A host's head: the root on the root's host, the leader elsewhere. Hosts are ranked from the root's.
  auto head_at = [&](int rank) {
    const int host = (rank + rh) % H;
    return host == rh ? root : l.leader(host);
  };
  const int rank = (h - rh + H) % H, head = head_at(rank);
  if (g.me != head) {  // tell the head this member entered, then wait for the data
    raise(fn, g, head, w_ready + p, 1);
    take_delivery(fn, g, l, w_data + p, dest, head == root ? source : dest, bytes, head);
    return;
  }
  // Entries flow to the root (the host's members to their head, heads to the root) before any data moves:
  // nobody leaves before every member has entered.
  if (g.me == root) {
    consume(fn, g, w_ready + p, l.count(h) - 1 + H - 1);
    // Before any data leaves: a member released below may write its next collective into this dest at once.
    if (root_receives) copy_local(dest, source, bytes);
  } else {
    consume(fn, g, w_ready + p, l.count(h) - 1);
    raise(fn, g, root, w_ready + p, 1);
  }
  const void* data = g.me == root ? source : dest;
  if (H > 2 && bytes >= runtime::get().cfg().coll_bcast_split) {
    // The root scatters H-1 slices to the other heads, which exchange them: the root's link carries the data
    // once instead of log2(H) times.
    const size_t slice = (bytes + H - 2) / (H - 1);
    auto lo = [&](int r) { return std::min(bytes, slice * static_cast<size_t>(r - 1)); };
    auto len = [&](int r) { return std::min(bytes, lo(r) + slice) - lo(r); };
    if (g.me == root) {
      for (int r = 1; r < H; ++r) post(fn, g, head_at(r), w_slice + p, at(dest, lo(r)), at(source, lo(r)), len(r));
    } else {
      consume(fn, g, w_slice + p, 1, root);
      for (int d = 1; d < H - 1; ++d) {
        const int r = (rank - 1 + d) % (H - 1) + 1;  // the other heads, starting with the next
        post(fn, g, head_at(r), w_data + p, at(dest, lo(rank)), at(dest, lo(rank)), len(rank));
      }
      consume(fn, g, w_data + p, H - 2);
    }
  } else {
    // Binomial tree over the heads: rank r receives from r minus its highest bit, then sends to r + 2^k for
    // every 2^k above r's highest bit, farthest first (the largest subtree starts earliest).
    int top = 1;
    while (top <= rank) top <<= 1;
    if (g.me != root) consume(fn, g, w_data + p, 1, head_at(rank - (top >> 1)));
    int d = top;
    while (rank + d < H) d <<= 1;
    for (d >>= 1; d >= top && d >= 1; d >>= 1)
      if (rank + d < H) post(fn, g, head_at(rank + d), w_data + p, dest, data, bytes);
  }
  deliver(fn, g, l, w_data + p, dest, data, bytes);
}

void hier_gather_all(const char* fn, group& g, const group_layout& l, void* dest, const void* source,
                     const std::vector<size_t>& offset, const std::vector<size_t>& bytes) {
  const int p = parity(g);
  active_set_exit exit_sync{fn, g};
  const int H = l.hosts, h = l.my_host, lead = l.leader(h);
  if (g.me != lead) {  // my block to the leader's dest; the whole result comes back
    post(fn, g, lead, w_ready + p, at(dest, offset[g.me]), source, bytes[g.me]);
    take_delivery(fn, g, l, w_data + p, dest, dest, extent(offset, bytes), lead);
    return;
  }
  // Leaders say they entered: another leader's dest may still receive the previous collective's data (a
  // reduction's slices, a broadcast's tree) until its leader enters this one.
  for (int d = 1; d < H; ++d) raise(fn, g, l.leader((h + d) % H), w_chain + p, 1);
  copy_local(at(dest, offset[g.me]), source, bytes[g.me]);
  consume(fn, g, w_ready + p, l.count(h) - 1);
  consume(fn, g, w_chain + p, H - 1);
  // This host's blocks, merged into runs of adjacent bytes, go to every other leader; the last run carries
  // the signal.
  struct run {
    size_t lo, hi;
  };
  struct scratch {
    std::vector<run> runs;
  };
  std::vector<run>& runs = thread_scratch<scratch>().runs;
  runs.clear();
  for (int k = 0; k < l.count(h); ++k) {
    const int j = l.member(h, k);
    if (!runs.empty() && runs.back().hi == offset[j])
      runs.back().hi += bytes[j];
    else
      runs.push_back({offset[j], offset[j] + bytes[j]});
  }
  for (int d = 1; d < H; ++d) {
    const int to = l.leader((h + d) % H);
    for (size_t r = 0; r + 1 < runs.size(); ++r)
      put_scratch(fn, at(dest, runs[r].lo), at(dest, runs[r].lo), runs[r].hi - runs[r].lo, g.pe(to), false);
    post(fn, g, to, w_slice + p, at(dest, runs.back().lo), at(dest, runs.back().lo), runs.back().hi - runs.back().lo);
  }
  consume(fn, g, w_slice + p, H - 1);
  deliver(fn, g, l, w_data + p, dest, dest, extent(offset, bytes));
}

void hier_collect(const char* fn, group& g, const group_layout& l, void* dest, const void* source, size_t bytes,
                  size_t dest_bytes) {
  // Every member's size first (an all-gather of 8 bytes into the team's scratch), then the blocks.
  struct scratch {
    std::vector<size_t> offset, length;
  };
  auto& [offset, length] = thread_scratch<scratch>();
  const auto n = static_cast<size_t>(g.size);
  offset.resize(n);
  length.assign(n, sizeof(uint64_t));
  for (size_t i = 0; i < n; ++i) offset[i] = i * sizeof(uint64_t);
  const uint64_t mine = bytes;
  hier_gather_all(fn, g, l, sizes_area(g), &mine, offset, length);
  const auto* sizes = reinterpret_cast<const uint64_t*>(sizes_area(g));
  size_t at_byte = 0;
  for (size_t i = 0; i < n; ++i) {
    offset[i] = at_byte;
    length[i] = sizes[i];
    at_byte += sizes[i];
  }
  check_collect_fits(fn, dest_bytes, offset[static_cast<size_t>(g.me)], bytes, at_byte);
  hier_gather_all(fn, g, l, dest, source, offset, length);
}

namespace {

// Small blocks: what a host's members send to another host travels as one message between the leaders. Each
// member stores the blocks for the other hosts into its leader's gather area (segment per destination host:
// [source member][destination member]); the leader puts each segment into that host's leader's receive area
// (segment per source host), which stores the blocks into its members' dests. Blocks within a host go
// directly.
bool alltoall_aggregates(const group& g, const group_layout& l, size_t block_bytes) {
  if (block_bytes > runtime::get().cfg().coll_alltoall_aggregate) return false;
  size_t blocks = 0;  // the most blocks leaving one host (as many arrive there)
  for (int h = 0; h < l.hosts; ++h)
    blocks = std::max(blocks, static_cast<size_t>(l.count(h)) * static_cast<size_t>(g.size - l.count(h)));
  return blocks * block_bytes <= area_bytes(g);
}

// Where host `to`'s segment starts in a gather area of host `from` (blocks from `from`'s members to `to`'s),
// and where host `from`'s segment starts in a receive area of host `to`, in blocks.
size_t gather_offset(const group_layout& l, int from, int to) {
  size_t blocks = 0;
  for (int h = 0; h < to; ++h)
    if (h != from) blocks += static_cast<size_t>(l.count(from) * l.count(h));
  return blocks;
}
size_t receive_offset(const group_layout& l, int from, int to) {
  size_t blocks = 0;
  for (int h = 0; h < from; ++h)
    if (h != to) blocks += static_cast<size_t>(l.count(h) * l.count(to));
  return blocks;
}

void aggregated_alltoall(const char* fn, group& g, const group_layout& l, int p, void* dest, const void* source,
                         size_t block) {
  const int H = l.hosts, h = l.my_host, lead = l.leader(h), m = l.count(h);
  int my_k = 0;  // my position among my host's members
  while (l.member(h, my_k) != g.me) ++my_k;
  const size_t mine = block * static_cast<size_t>(g.me);
  for (int d = 1; d < H; ++d) {  // blocks for the other hosts, into the leader's gather area
    const int to = (h + d) % H;
    char* seg = gather_area(g) + block * (gather_offset(l, h, to) + static_cast<size_t>(my_k * l.count(to)));
    char* target = static_cast<char*>(pointer_to(seg, g.pe(lead)));
    for (int t = 0; t < l.count(to); ++t) {
      const void* from = at(source, block * static_cast<size_t>(l.member(to, t)));
      if (target != nullptr) copy_local(target + block * t, from, block);
      else put_scratch(fn, seg + block * t, from, block, g.pe(lead), false);
    }
    if (target == nullptr) fence();  // the blocks before the leader's signal
  }
  for (int k = 0; k < m; ++k) {  // blocks within the host, directly
    const int j = l.member(h, k);
    if (j != g.me) post(fn, g, j, w_data + p, at(dest, mine), at(source, block * j), block);
  }
  copy_local(at(dest, mine), at(source, mine), block);
  if (g.me != lead) {
    raise(fn, g, lead, w_ready + p, 1);
    consume(fn, g, w_data + p, m, lead);  // m-1 members of the host, and the leader's delivery
    return;
  }
  consume(fn, g, w_ready + p, m - 1);
  for (int d = 1; d < H; ++d) {
    const int to = (h + d) % H;
    const size_t n = block * static_cast<size_t>(m * l.count(to));
    char* seg = receive_area(g, p) + block * receive_offset(l, h, to);
    post(fn, g, l.leader(to), w_slice + p, seg, gather_area(g) + block * gather_offset(l, h, to), n);
  }
  consume(fn, g, w_slice + p, H - 1);
  // Every other host's blocks into this host's members' dests: block [source s][member t] goes to member t at
  // the source's index. All of them land before any member is released.
  bool transported = false;
  for (int k = 0; k < m; ++k) {
    const int t = l.member(h, k);
    void* target = t == g.me ? dest : pointer_to(dest, g.pe(t));
    for (int from = 0; from < H; ++from) {
      if (from == h) continue;
      const char* seg = receive_area(g, p) + block * receive_offset(l, from, h);
      for (int s = 0; s < l.count(from); ++s) {
        const char* b = seg + block * static_cast<size_t>(s * m + k);
        const size_t off = block * static_cast<size_t>(l.member(from, s));
        if (target != nullptr) {
          copy_local(at(target, off), b, block);
        } else {
          put(fn, at(dest, off), b, block, g.pe(t), false);
          transported = true;
        }
      }
    }
  }
  release_members(fn, g, l, w_data + p, transported);
  consume(fn, g, w_data + p, m - 1);
}

}  // namespace

void hier_alltoall(const char* fn, group& g, const group_layout& l, void* dest, const void* source,
                   size_t block_bytes) {
  const int p = parity(g);
  active_set_exit exit_sync{fn, g};
  if (alltoall_aggregates(g, l, block_bytes)) {
    aggregated_alltoall(fn, g, l, p, dest, source, block_bytes);
    return;
  }
  // Blocks go straight to their members, which must all have entered (their dests may still receive the
  // previous collective's data until then): a barrier first. Then every block in flight at once, other
  // hosts' members first (their latency is the longest); a quiet; then the signals, so that a member that
  // has all of its blocks knows that every block of the call has landed, as on one host.
  hier_sync(fn, g, l);
  const int H = l.hosts, h = l.my_host;
  const size_t mine = block_bytes * static_cast<size_t>(g.me);
  for (int d = 1; d <= H; ++d) {
    const int host = (h + d) % H;
    for (int k = 0; k < l.count(host); ++k) {
      const int j = l.member(host, (k + g.me) % l.count(host));
      if (j != g.me) put(fn, at(dest, mine), at(source, block_bytes * j), block_bytes, g.pe(j), true);
    }
  }
  copy_local(at(dest, mine), at(source, mine), block_bytes);
  quiet();
  for (int k = 1; k < g.size; ++k) raise(fn, g, (g.me + k) % g.size, w_data + p, 1);
  consume(fn, g, w_data + p, g.size - 1);
}

void hier_reduce(const char* fn, group& g, const group_layout& l, void* dest, const void* source, size_t nelems,
                 size_t elem_bytes, combine_fn combine) {
  const int p = parity(g);
  active_set_exit exit_sync{fn, g};
  const int H = l.hosts, h = l.my_host, lead = l.leader(h);
  if (g.me != lead) {  // the leader reads my source; the result comes back into my dest
    raise(fn, g, lead, w_ready + p, 1);
    take_delivery(fn, g, l, w_data + p, dest, dest, nelems * elem_bytes, lead);
    return;
  }
  consume(fn, g, w_ready + p, l.count(h) - 1);
  // Scratch kept per thread: a fresh buffer of many pages would cost a page fault per page per call.
  struct scratch {
    std::vector<char> acc, in;
  };
  auto& [acc, in] = thread_scratch<scratch>();
  const size_t bytes = nelems * elem_bytes;
  if (acc.size() < bytes) acc.resize(bytes);
  copy_bytes(acc.data(), source, bytes);
  for (int k = 1; k < l.count(h); ++k) {
    const int pe = g.pe(l.member(h, k));
    if (const void* mapped = pointer_to(source, pe)) {
      combine(acc.data(), mapped, nelems);
      continue;
    }
    if (in.size() < bytes) in.resize(bytes);
    get(fn, in.data(), source, bytes, pe, false);
    combine(acc.data(), in.data(), nelems);
  }
  if (bytes <= runtime::get().cfg().coll_reduce_exchange && bytes * static_cast<size_t>(H - 1) <= area_bytes(g)) {
    // Small: every leader sends its host's partial result to every other leader (one message each, no round
    // trip), and each combines them all in host order, so that every leader computes the same bits.
    auto slot = [&](int from, int to) { return static_cast<size_t>(from < to ? from : from - 1) * bytes; };
    for (int d = 1; d < H; ++d) {
      const int to = (h + d) % H;
      post(fn, g, l.leader(to), w_slice + p, receive_area(g, p) + slot(h, to), acc.data(), bytes);
    }
    consume(fn, g, w_slice + p, H - 1);
    if (in.size() < bytes) in.resize(bytes);
    copy_bytes(in.data(), h == 0 ? acc.data() : receive_area(g, p) + slot(0, h), bytes);
    for (int from = 1; from < H; ++from)
      combine(in.data(), from == h ? acc.data() : receive_area(g, p) + slot(from, h), nelems);
    copy_bytes(dest, in.data(), bytes);
    deliver(fn, g, l, w_data + p, dest, dest, bytes);
    return;
  }
  copy_bytes(dest, acc.data(), bytes);  // this host's partial result (dest may be source: read already)
  // Among leaders: reduce-scatter by reading (leader of host k combines slice k of every leader's dest),
  // all-gather by writing (it stores its slice into every leader's dest). Slices are disjoint.
  leaders_sync(fn, g, l, w_slice + p);
  const size_t per = (nelems + H - 1) / H;
  const size_t lo = std::min(nelems, per * h), hi = std::min(nelems, lo + per);
  const size_t sb = (hi - lo) * elem_bytes;
  char* slice = at(dest, lo * elem_bytes);
  if (sb > 0) {
    if (in.size() < sb * (H - 1)) in.resize(sb * (H - 1));
    for (int d = 1; d < H; ++d)  // every get in flight at once
      get(fn, in.data() + sb * (d - 1), slice, sb, g.pe(l.leader((h + d) % H)), true);
    quiet();
    copy_bytes(acc.data(), slice, sb);
    for (int d = 1; d < H; ++d) combine(acc.data(), in.data() + sb * (d - 1), hi - lo);
    copy_bytes(slice, acc.data(), sb);
  }
  for (int d = 1; d < H; ++d) post(fn, g, l.leader((h + d) % H), w_chain + p, slice, slice, sb);
  consume(fn, g, w_chain + p, H - 1);
  deliver(fn, g, l, w_data + p, dest, dest, bytes);
}

}  // namespace rdsm::detail
