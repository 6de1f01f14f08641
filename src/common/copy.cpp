// copy_bytes (copy.hpp): a backward vector copy with aligned stores where it beats memcpy on this CPU or where
// memcpy stalls (a destination just above the source modulo 4 KiB), memcpy elsewhere; publish_bytes.
#include "common/copy.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "common/cpu.hpp"

namespace rdsm::detail {

namespace {

#if defined(__x86_64__)

// n >= 64. The first and last 32 bytes go by unaligned moves, loaded before anything is stored; the rest,
// from the end down, by aligned stores of 32 bytes, four loads ahead of their stores.
__attribute__((target("avx"))) void copy_backward_avx(char* d, const char* s, size_t n) {
  const __m256i head = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
  const __m256i tail = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + n - 32));
  size_t end = n - (reinterpret_cast<uintptr_t>(d + n) & 31);  // d + end is aligned; end > n - 32 >= 32
#define RDSM_LOAD(at) _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + (at)))
#define RDSM_STORE(at, v) _mm256_store_si256(reinterpret_cast<__m256i*>(d + (at)), v)
  while (end >= 128 + 32) {
    end -= 128;
    const __m256i a = RDSM_LOAD(end), b = RDSM_LOAD(end + 32), c = RDSM_LOAD(end + 64), e = RDSM_LOAD(end + 96);
    RDSM_STORE(end + 96, e);
    RDSM_STORE(end + 64, c);
    RDSM_STORE(end + 32, b);
    RDSM_STORE(end, a);
  }
  while (end >= 64) {
    end -= 32;
    RDSM_STORE(end, RDSM_LOAD(end));
  }
  // 32 <= end < 64: bytes [32, end) are left, covered by the 32 bytes ending at `end`.
  if (end > 32) _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + end - 32), RDSM_LOAD(end - 32));
#undef RDSM_LOAD
#undef RDSM_STORE
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + n - 32), tail);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), head);
}

// The same with 64-byte vectors and stores aligned to a cache line; n >= 128.
__attribute__((target("avx512f"))) void copy_backward_avx512(char* d, const char* s, size_t n) {
  const __m512i head = _mm512_loadu_si512(s);
  const __m512i tail = _mm512_loadu_si512(s + n - 64);
  size_t end = n - (reinterpret_cast<uintptr_t>(d + n) & 63);  // d + end is aligned; end > n - 64 >= 64
  while (end >= 256 + 64) {
    end -= 256;
    const __m512i a = _mm512_loadu_si512(s + end), b = _mm512_loadu_si512(s + end + 64);
    const __m512i c = _mm512_loadu_si512(s + end + 128), e = _mm512_loadu_si512(s + end + 192);
    _mm512_store_si512(d + end + 192, e);
    _mm512_store_si512(d + end + 128, c);
    _mm512_store_si512(d + end + 64, b);
    _mm512_store_si512(d + end, a);
  }
  while (end >= 128) {
    end -= 64;
    _mm512_store_si512(d + end, _mm512_loadu_si512(s + end));
  }
  // 64 <= end < 128: bytes [64, end) are left, covered by the 64 bytes ending at `end`.
  if (end > 64) _mm512_storeu_si512(d + end - 64, _mm512_loadu_si512(s + end - 64));
  _mm512_storeu_si512(d + n - 64, tail);
  _mm512_storeu_si512(d, head);
}

#endif

struct copy_plan {
  copy_kernel kernel;
  size_t min, max;  // the sizes copied by the kernel; memcpy copies the others
  // Also from `min` bytes up, whatever the size, a destination 1 to 63 bytes above the source modulo 4 KiB
  // (where memcpy stalls).
  bool near_too;
};

bool near_above(const void* dst, const void* src) {
  const uintptr_t gap = (reinterpret_cast<uintptr_t>(dst) - reinterpret_cast<uintptr_t>(src)) & 4095;
  return gap != 0 && gap < 64;
}

#if defined(__x86_64__)
// Whether memcpy stalls on a destination a few bytes above its source modulo 4 KiB. On one AMD EPYC the C
// library's `rep movsb` (from 2-3 KiB up to the L2 cache's size) ran at about 1.6 GB/s then, 20-30x its usual
// time (64 KiB: 33 us instead of 1.5 us; 1-31 bytes apart, at no other distance), where another EPYC took 1.7x
// at most. Timed once per process: the best of three copies of 16 KiB at 16 bytes above and at 2 KiB above
// (a few microseconds, tens where it stalls).
bool memcpy_stalls_near() {
  constexpr size_t n = 16 * 1024, room = n + 4096;
  auto* src = static_cast<char*>(std::aligned_alloc(4096, room));
  auto* dst = static_cast<char*>(std::aligned_alloc(4096, room));
  if (src == nullptr || dst == nullptr) {
    std::free(src);
    std::free(dst);
    return false;
  }
  std::memset(src, 1, room);
  std::memset(dst, 2, room);
  auto best = [&](size_t gap) {
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < 4; ++i) {  // the first warms the caches
      const uint64_t t0 = monotonic_ns();
      std::memcpy(dst + gap, src, n);
      asm volatile("" : : "r"(dst) : "memory");
      const uint64_t t = monotonic_ns() - t0;
      if (i > 0) least = std::min(least, t);
    }
    return least;
  };
  const uint64_t far = best(2048), near = best(16);
  std::free(src);
  std::free(dst);
  return near > 3 * far;
}
#endif

// Sizes where the kernel was measured at or below memcpy for every relative alignment (docs/performance.md).
// On AMD EPYC (Zen) the C library's `rep movsb` beats any vector loop once the two buffers outgrow the L1
// cache (32 KiB: 227 ns against 340-460 ns), and a backward loop there loses the hardware prefetch (256 KiB:
// 4.8 us against 2.4 us); below, the vector copy takes 0.6-0.8x memcpy's time. Where the backward copy was
// first measured (a CPU with 4K aliasing on forward copies) it was at or below memcpy up to 256 KiB. Where
// memcpy stalls on a destination just above the source, the backward copy takes that case at every size: its
// loads run below the stores that could be mistaken for them (it matched memcpy's usual speed there from
// 1 KiB to 4 MiB).
copy_plan choose_plan() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  const bool amd = __builtin_cpu_is("amd");
  copy_plan p{copy_kernel::memcpy, 0, 0, false};
  if (amd && copy_kernel_supported(copy_kernel::backward_avx512))
    p = {copy_kernel::backward_avx512, 1024, 16 * 1024, false};
  else if (amd && copy_kernel_supported(copy_kernel::backward_avx))
    p = {copy_kernel::backward_avx, 1024, 16 * 1024, false};
  else if (copy_kernel_supported(copy_kernel::backward_avx))
    p = {copy_kernel::backward_avx, 1024, 256 * 1024, false};
  p.near_too = p.kernel != copy_kernel::memcpy && memcpy_stalls_near();
  return p;
#else
  return {copy_kernel::memcpy, 0, 0, false};
#endif
}

const copy_plan plan = choose_plan();

}  // namespace

bool copy_kernel_supported(copy_kernel kernel) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  switch (kernel) {
    case copy_kernel::memcpy: return true;
    case copy_kernel::backward_avx: return __builtin_cpu_supports("avx") != 0;
    case copy_kernel::backward_avx512: return __builtin_cpu_supports("avx512f") != 0;
  }
  return false;
#else
  return kernel == copy_kernel::memcpy;
#endif
}

void copy_with(copy_kernel kernel, void* dst, const void* src, size_t n) {
#if defined(__x86_64__)
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  if (kernel == copy_kernel::backward_avx && n >= 64) return copy_backward_avx(d, s, n);
  if (kernel == copy_kernel::backward_avx512 && n >= 128) return copy_backward_avx512(d, s, n);
#else
  (void)kernel;  // memcpy is the only kernel
#endif
  std::memcpy(dst, src, n);
}

void copy_bytes(void* dst, const void* src, size_t n) {
  if (n >= plan.min && (n <= plan.max || (plan.near_too && near_above(dst, src))))
    return copy_with(plan.kernel, dst, src, n);
  std::memcpy(dst, src, n);
}

std::string copy_plan_text() {
  auto size = [](size_t n) { return n % 1024 == 0 ? std::to_string(n / 1024) + " KiB" : std::to_string(n) + " B"; };
  if (plan.kernel == copy_kernel::memcpy) return "memcpy";
  const char* name = plan.kernel == copy_kernel::backward_avx512 ? "backward AVX-512" : "backward AVX";
  std::string text = std::string(name) + " " + size(plan.min) + "-" + size(plan.max) + ", memcpy elsewhere";
  if (plan.near_too)
    text += "; a destination 1-63 bytes above the source modulo 4 KiB (memcpy stalls there): " + std::string(name) +
            " from " + size(plan.min);
  return text;
}

void publish_bytes(void* dst, const void* src, size_t n) {
  constexpr size_t last = 8;  // the widest element a PE can wait on
  if (n <= last) {
    std::memcpy(dst, src, n);
    return;
  }
  copy_bytes(dst, src, n - last);
  std::atomic_thread_fence(std::memory_order_release);
  std::memcpy(static_cast<char*>(dst) + n - last, static_cast<const char*>(src) + n - last, last);  // one store
}

}  // namespace rdsm::detail
