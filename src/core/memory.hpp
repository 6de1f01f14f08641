// Collective symmetric allocation (shmem_malloc and friends).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/heap.hpp"

namespace rdsm::detail {

/// Logs, once for the job (from PE 0) and variable, that `heap` (the `what`) cannot serve `bytes`: what is
/// left, the largest free block, and the variable to raise; later failures only at debug level. For
/// collective allocators, whose PEs all fail alike.
void warn_exhausted(const char* fn, size_t bytes, const symmetric_heap& heap, const char* category,
                    const char* what, const char* variable);

/// Ends the job with one line naming `fn` unless every PE passed the same `n` `values` (`what` names them
/// for the message) to a collective call. One all-gather through the bootstrap.
void check_same_arguments(const char* fn, const char* what, const uint64_t* values, size_t n);

/// Allocates `bytes` aligned to `alignment` on every PE (collective, ends with a barrier). Returns nullptr
/// for zero bytes, and with one warning naming the request, what is left and SHMEM_SYMMETRIC_SIZE when
/// the heap is exhausted; the heap stays usable.
void* sym_allocate(const char* fn, size_t bytes, size_t alignment, bool zero);
/// Releases a block (collective, begins with a barrier). nullptr is ignored.
void sym_free(const char* fn, void* p);
/// Resizes a block, keeping its contents (collective).
void* sym_reallocate(const char* fn, void* p, size_t bytes);

}  // namespace rdsm::detail
