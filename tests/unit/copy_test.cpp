// copy_bytes, each copy kernel this CPU supports, and publish_bytes (src/common/copy.cpp) against memcpy: every size
// around the paths' edges, every relative alignment of the two buffers within a cache line and around a page, and no
// byte written outside.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "common/copy.hpp"

using rdsm::detail::copy_bytes;
using rdsm::detail::copy_kernel;
using rdsm::detail::publish_bytes;

namespace {

constexpr size_t guard = 128;

// Copies n bytes from src + s_off to dst + d_off and checks the copy and the bytes around it.
using copy_fn = void (*)(void*, const void*, size_t);

void check(size_t n, size_t s_off, size_t d_off, copy_fn copy = copy_bytes) {
  static std::vector<unsigned char> src_buf, dst_buf;
  const size_t need = n + 8192 + 2 * guard;
  if (src_buf.size() < need) {
    src_buf.resize(need);
    dst_buf.resize(need);
  }
  // Page-aligned bases, so that the offsets are page offsets.
  auto* src = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(src_buf.data()) + 4095) & ~uintptr_t{4095});
  auto* dst = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(dst_buf.data()) + 4095) & ~uintptr_t{4095});
  const size_t room = need - 4096;
  for (size_t i = 0; i < room; ++i) src[i] = static_cast<unsigned char>(i * 131 + n);
  std::memset(dst, 0xA5, room);
  copy(dst + d_off + guard, src + s_off + guard, n);
  ASSERT_EQ(std::memcmp(dst + d_off + guard, src + s_off + guard, n), 0)
      << "n " << n << ", source offset " << s_off << ", destination offset " << d_off;
  for (size_t i = 0; i < guard; ++i) {
    ASSERT_EQ(dst[d_off + i], 0xA5) << "a byte before the destination was written (n " << n << ")";
    ASSERT_EQ(dst[d_off + guard + n + i], 0xA5) << "a byte after the destination was written (n " << n << ")";
  }
}

template <copy_kernel K>
void copy_with_kernel(void* dst, const void* src, size_t n) {
  rdsm::detail::copy_with(K, dst, src, n);
}

// copy_bytes and every kernel this CPU can run (copy_bytes uses one of them for some sizes only).
std::vector<std::pair<const char*, copy_fn>> copies() {
  std::vector<std::pair<const char*, copy_fn>> all{{"copy_bytes", copy_bytes}};
  if (rdsm::detail::copy_kernel_supported(copy_kernel::backward_avx))
    all.emplace_back("backward_avx", copy_with_kernel<copy_kernel::backward_avx>);
  if (rdsm::detail::copy_kernel_supported(copy_kernel::backward_avx512))
    all.emplace_back("backward_avx512", copy_with_kernel<copy_kernel::backward_avx512>);
  return all;
}

TEST(CopyBytes, EverySizeAroundTheEdgesOfTheVectorPaths) {
  for (const auto& [name, copy] : copies()) {
    SCOPED_TRACE(name);
    for (size_t n = 0; n <= 1500; ++n) check(n, 0, 16, copy);
    for (size_t n : {2047u, 2048u, 2049u, 4095u, 4096u, 4097u, 16383u, 16384u, 16385u, 65536u + 7, 256u * 1024 - 1,
                     256u * 1024, 256u * 1024 + 1, 1u << 20})
      check(n, 16, 0, copy);
  }
}

// A destination 1 to 63 bytes above the source modulo 4 KiB goes by the backward copy at every size where
// memcpy stalls on it: large copies at those distances, both buffers also a page apart.
TEST(CopyBytes, DestinationJustAboveTheSourceModuloAPageAtLargeSizes) {
  for (size_t n : {16u * 1024 + 1, 65536u + 7, 300u * 1024, 1u << 20})
    for (size_t gap : {1u, 8u, 16u, 31u, 32u, 63u, 64u}) {
      check(n, 0, gap);
      check(n, 2048, 2048 + gap);
      check(n, 4000, (4000 + gap) % 4096);
    }
}

TEST(CopyBytes, EveryRelativeAlignment) {
  for (const auto& [name, copy] : copies()) {
    SCOPED_TRACE(name);
    for (size_t n : {130u, 1024u, 1031u, 4096u, 5000u})
      for (size_t s_off = 0; s_off < 64; s_off += 5)
        for (size_t d_off = 0; d_off < 64; ++d_off) check(n, s_off, d_off, copy);
  }
}

TEST(CopyBytes, BuffersAFewBytesApartModuloAPage) {
  // The case the backward copy is for: the destination just above the source modulo 4 KiB, and below it.
  for (const auto& [name, copy] : copies()) {
    SCOPED_TRACE(name);
    for (size_t n : {1024u, 4096u, 16384u})
      for (size_t d_off : {4u, 16u, 48u, 4080u, 4092u}) {
        check(n, 0, d_off, copy);
        check(n, d_off, 0, copy);
      }
  }
}

}  // namespace

TEST(PublishBytes, EverySizeAndAlignmentLikeMemcpy) {
  // publish_bytes (a put into a peer's heap) copies all but the last 8 bytes with copy_bytes, then those.
  for (size_t n = 0; n <= 1100; ++n) check(n, 16, 0, publish_bytes);
  for (size_t n : {4096u, 4097u, 65536u + 3, 256u * 1024, 256u * 1024 + 9, 1u << 20})
    for (size_t d_off : {0u, 8u, 16u, 4080u}) check(n, 0, d_off, publish_bytes);
}
