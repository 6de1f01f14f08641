// copy_bytes (copy.hpp): a backward AVX copy with aligned stores where it beats memcpy, memcpy elsewhere; publish_bytes.
#include "common/copy.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace rdsm::detail {

namespace {

// Sizes where the backward copy was measured at or below memcpy for every relative alignment (docs/performance.md).
constexpr size_t backward_min = 1024, backward_max = 256 * 1024;

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

const bool has_avx = (__builtin_cpu_init(), __builtin_cpu_supports("avx") != 0);

#endif

}  // namespace

void copy_bytes(void* dst, const void* src, size_t n) {
#if defined(__x86_64__)
  if (n >= backward_min && n <= backward_max && has_avx) {
    copy_backward_avx(static_cast<char*>(dst), static_cast<const char*>(src), n);
    return;
  }
#endif
  std::memcpy(dst, src, n);
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
