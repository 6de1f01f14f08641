// Collective symmetric allocation (shmem_malloc and friends).
#pragma once

#include <cstddef>

namespace rdsm::detail {

/// Allocates `bytes` aligned to `alignment` on every PE (collective, ends with a barrier). Returns nullptr
/// for zero bytes, and with one warning naming the request, what is left and SHMEM_SYMMETRIC_SIZE when
/// the heap is exhausted; the heap stays usable.
void* sym_allocate(const char* fn, size_t bytes, size_t alignment, bool zero);
/// Releases a block (collective, begins with a barrier). nullptr is ignored.
void sym_free(const char* fn, void* p);
/// Resizes a block, keeping its contents (collective).
void* sym_reallocate(const char* fn, void* p, size_t bytes);

}  // namespace rdsm::detail
