// Copies between buffers of one host (a peer's mapped memory and a local buffer), fast whatever the two
// buffers' relative alignment.
#pragma once

#include <cstddef>
#include <string>

namespace rdsm::detail {

/// Copies `n` bytes from `src` to `dst` (the ranges must not overlap), like memcpy.
///
/// Why not memcpy alone: from 1 KiB the C library copies forward with `rep movsb` or unaligned vector
/// stores, and when the destination sits a few bytes above the source modulo 4 KiB (a malloc'd buffer at
/// page offset 16 and a page-aligned heap block) every load may wait for the store just before it (4K
/// aliasing): a 4 KiB copy took 2.3x as long on one CPU, and 64 KiB 20x on another. Copying backward with
/// aligned stores keeps loads ahead of the stores they could be mistaken for. Which sizes and distances go
/// that way depends on the CPU (copy.cpp).
void copy_bytes(void* dst, const void* src, size_t n);

/// The ways copy_bytes can copy, for tests and measurements; copy_bytes picks one by size and CPU.
enum class copy_kernel { memcpy, backward_avx, backward_avx512 };
bool copy_kernel_supported(copy_kernel kernel);
/// Copies with `kernel` (which must be supported), whatever the size.
void copy_with(copy_kernel kernel, void* dst, const void* src, size_t n);

/// How copy_bytes copies on this CPU, in one line (SHMEM_INFO), e.g. "backward AVX 1 KiB-16 KiB, memcpy
/// elsewhere; a destination 1-63 bytes above the source modulo 4 KiB (memcpy stalls there): backward from 1 KiB".
std::string copy_plan_text();

/// Copies like copy_bytes into memory that other PEs may be reading while it is written (a put into a
/// peer's mapped heap): the last 8 bytes are stored once, after every other byte (a release fence between).
/// A PE polling the last element of a put, a common way of waiting for the whole of it, then sees the
/// element change once, when everything before it is there. copy_bytes stores the end first and again at
/// the end, so such a PE could wake early, and a reset of the element after it woke could be overwritten.
void publish_bytes(void* dst, const void* src, size_t n);

}  // namespace rdsm::detail
