// Collective symmetric allocation over the deterministic heap allocator.
#include "core/memory.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "common/copy.hpp"
#include "common/log.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "core/sync.hpp"
#include "core/watch.hpp"

namespace rdsm::detail {
namespace {

std::string human(size_t b) {
  if (b >= (size_t{1} << 30)) return format("%.1f GiB", static_cast<double>(b) / (1 << 30));
  if (b >= (size_t{1} << 20)) return format("%.1f MiB", static_cast<double>(b) / (1 << 20));
  if (b >= 1024) return format("%.1f KiB", static_cast<double>(b) / 1024);
  return format("%zu bytes", b);
}

std::string listed(const uint64_t* values, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += format(i == 0 ? "%llu" : ", %llu", static_cast<unsigned long long>(values[i]));
  return n == 1 ? s : "(" + s + ")";
}

// With SHMEM_DEBUG, every PE must have passed the same arguments to a collective allocation.
void check_agreement(runtime& rt, const char* fn, size_t value) {
  if (!rt.checking() || rt.n_pes() == 1) return;
  const uint64_t v = value;
  check_same_arguments(fn, "sizes", &v, 1);
}

// A pointer as every PE can compare it: a heap block as 1 + its offset (the same on every PE), NULL as 0, any
// other pointer as `other`.
uint64_t heap_key(runtime& rt, const void* p, uint64_t other) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  const uintptr_t base = rt.heap().base();
  return p == nullptr ? 0 : a < base || a - base >= rt.heap().span() ? other : a - base + 1;
}

// With SHMEM_DEBUG, every PE must free (or resize) the same block: freeing different ones leaves the heaps
// apart, and every later allocation at different offsets (a put then lands in another live block).
void check_same_block(runtime& rt, const char* fn, const void* p, size_t bytes, bool with_size) {
  if (!rt.checking() || rt.n_pes() == 1) return;
  // A pointer outside the heap as its address.
  const uint64_t args[2] = {heap_key(rt, p, reinterpret_cast<uintptr_t>(p)), bytes};
  check_same_arguments(fn,
                       with_size ? "arguments (block as 1 + its heap offset, 0 for NULL; size)"
                                 : "blocks (1 + the heap offset, 0 for NULL)",
                       args, with_size ? 2 : 1);
}

// Always, at the cost of one word each way: each PE publishes the block it frees (or resizes) in its sync
// region before the call's barrier and, after it, compares with the next PE's. If any two PEs differ, some
// PE differs from its next. Two words, by the call's parity: the next PE may already have published its
// next call's block, but not the one after, which waits in a barrier for this PE.
uint64_t g_frees = 0;

std::string freed_text(uint64_t v) {
  if (v == 0) return "NULL";
  if (v == ~uint64_t{0}) return "a pointer outside the heap";
  return format("the block at heap offset %llu", static_cast<unsigned long long>(v - 1));
}

uint64_t* publish_freed(runtime& rt, const void* p) {
  uint64_t* word = rt.internal() + freed_words_offset / sizeof(uint64_t) + (g_frees++ & 1);
  __atomic_store_n(word, heap_key(rt, p, ~uint64_t{0}), __ATOMIC_RELEASE);
  return word;
}

// After the barrier that follows publish_freed.
void compare_freed(runtime& rt, const char* fn, uint64_t* word) {
  if (rt.n_pes() == 1) return;
  const int next = (rt.my_pe() + 1) % rt.n_pes();
  uint64_t theirs = 0;
  if (const auto* near = static_cast<const uint64_t*>(pointer_to(word, next)))
    theirs = __atomic_load_n(near, __ATOMIC_ACQUIRE);
  else
    get(fn, &theirs, word, sizeof theirs, next, false, rt.internal_stream());
  const uint64_t mine = __atomic_load_n(word, __ATOMIC_RELAXED);
  if (theirs == mine) return;
  fatal("%s: PE %d passed %s, PE %d %s; every PE must free (or resize) the same block in the same call, or "
        "the heaps of the PEs come apart",
        fn, rt.my_pe(), freed_text(mine).c_str(), next, freed_text(theirs).c_str());
}

}  // namespace

void check_same_arguments(const char* fn, const char* what, const uint64_t* values, size_t n) {
  runtime& rt = runtime::get();
  if (rt.n_pes() == 1) return;
  const std::string mine(reinterpret_cast<const char*>(values), n * sizeof(uint64_t));
  const world_wait every_pe(fn);
  auto all = rt.boot().allgather(mine);
  if (!all.ok()) fatal("%s: %s", fn, all.error().message().c_str());
  for (int pe = 0; pe < rt.n_pes(); ++pe) {
    const std::string& other = all.value()[static_cast<size_t>(pe)];
    if (other == mine) continue;
    std::vector<uint64_t> theirs(n, 0);
    std::memcpy(theirs.data(), other.data(), std::min(other.size(), n * sizeof(uint64_t)));
    fatal("%s: PEs passed different %s (PE %d: %s, PE %d: %s); every PE must make the same call", fn, what,
          rt.my_pe(), listed(values, n).c_str(), pe, listed(theirs.data(), n).c_str());
  }
}

void warn_exhausted(const char* fn, size_t bytes, const symmetric_heap& heap, const char* category,
                    const char* what, const char* variable) {
  if (runtime::get().my_pe() != 0) return;  // every PE fails alike; one warning for the job
  // Once per variable: a program that probes with ever smaller requests, or retries, is told once.
  static std::mutex mu;
  static std::vector<std::string> warned;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (std::find(warned.begin(), warned.end(), variable) != warned.end()) {
      RDSM_LOG_DEBUG(category, "%s: cannot allocate %s (%s exhausted again)", fn, human(bytes).c_str(), what);
      return;
    }
    warned.emplace_back(variable);
  }
  RDSM_LOG_WARN(category, "%s: cannot allocate %s: %s of the %s free (largest block %s) of %s; raise %s (said once)",
                fn, human(bytes).c_str(), human(heap.bytes_free()).c_str(), what, human(heap.largest_free()).c_str(),
                human(heap.capacity()).c_str(), variable);
}

void* sym_allocate(const char* fn, size_t bytes, size_t alignment, bool zero) {
  runtime& rt = runtime::checked(fn);
  check_agreement(rt, fn, bytes);
  if (bytes == 0) return nullptr;
  void* p = rt.heap().allocate(bytes, alignment);
  if (p == nullptr) {
    warn_exhausted(fn, bytes, rt.heap(), "heap", "symmetric heap", "SHMEM_SYMMETRIC_SIZE");
  } else if (zero) {
    std::memset(p, 0, bytes);
  }
  barrier_all();
  return p;
}

void sym_free(const char* fn, void* p) {
  runtime& rt = runtime::checked(fn);
  check_same_block(rt, fn, p, 0, false);
  uint64_t* freed = publish_freed(rt, p);
  barrier_all();  // no PE may still be accessing the block
  compare_freed(rt, fn, freed);
  if (p == nullptr) return;
  if (!rt.heap().release(p))
    fatal("%s: %p was not returned by shmem_malloc (or was already freed); pass a pointer from the "
          "symmetric allocator",
          fn, p);
}

void* sym_reallocate(const char* fn, void* p, size_t bytes) {
  runtime& rt = runtime::checked(fn);
  check_same_block(rt, fn, p, bytes, true);
  if (p == nullptr) return sym_allocate(fn, bytes, 0, false);
  if (bytes == 0) {
    sym_free(fn, p);
    return nullptr;
  }
  check_agreement(rt, fn, bytes);
  size_t old = rt.heap().block_size(p);
  if (old == 0)
    fatal("%s: %p was not returned by shmem_malloc (or was already freed); pass a pointer from the "
          "symmetric allocator",
          fn, p);
  uint64_t* resized = publish_freed(rt, p);
  barrier_all();  // others may still access the old block
  compare_freed(rt, fn, resized);
  void* out = p;
  if (!rt.heap().resize_in_place(p, bytes)) {
    out = rt.heap().allocate(bytes, 0);
    if (out == nullptr) {
      warn_exhausted(fn, bytes, rt.heap(), "heap", "symmetric heap", "SHMEM_SYMMETRIC_SIZE");  // the old block stays valid, as with realloc
    } else {
      copy_bytes(out, p, std::min(old, bytes));
      (void)rt.heap().release(p);
    }
  }
  barrier_all();
  return out;
}

}  // namespace rdsm::detail
