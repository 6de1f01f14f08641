// One-sided operations, atomics, signals and ordering on symmetric addresses, with argument checks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "transport/transport.hpp"

namespace rdsm::detail {

/// Signal update kinds (values equal SHMEM_SIGNAL_SET / SHMEM_SIGNAL_ADD in shmem.h).
enum signal_op : int { signal_set = 0, signal_add = 1 };

// Every function takes the name of the API call for error messages: a bad PE, a non-symmetric or
// out-of-range address, or a misaligned atomic ends the job with one line naming call, argument, range.
void check_pe(const char* fn, int pe);
/// Ends the job naming `fn` and `arg` unless the `bytes` at `addr` lie in one symmetric object a program may
/// address: the user's heap or its global variables (not the runtime's reserved area before the heap, nor DSM
/// memory). Zero bytes pass, whatever the address (1.5 Annex C). For collectives, which check their buffers
/// before any member moves data.
void check_symmetric(const char* fn, const char* arg, const void* addr, size_t bytes);
/// The same for what a strided transfer reaches from `addr`: `nblocks` blocks of `bsize` elements, `stride`
/// elements apart; a stride that reaches out of the object is named (`stride_arg`) with the extent it reaches.
void check_strided_symmetric(const char* fn, const char* arg, const char* stride_arg, const void* addr,
                             ptrdiff_t stride, size_t bsize, size_t nblocks, size_t elem_bytes);
/// The same for a 64-bit word that atomics act on, which must also be aligned (signals, locks).
void check_atomic_word(const char* fn, const char* arg, const void* addr);
/// `count` elements of `elem_bytes` each, in bytes; ends the job naming `fn` and `arg` when that overflows (a
/// negative count converted to size_t, say).
size_t bytes_of(const char* fn, const char* arg, size_t count, size_t elem_bytes);

// `stream` selects the transport stream (OpenSHMEM context) for operations that go through UCX; 0 is the
// default context. Direct load/store operations complete at once on any stream.
void put(const char* fn, void* dest, const void* src, size_t bytes, int pe, bool nbi, int stream = 0);
void get(const char* fn, void* dest, const void* src, size_t bytes, int pe, bool nbi, int stream = 0);
/// Strided forms: element i goes from src[i*sst] to dest[i*dst] (strides in elements).
void iput(const char* fn, void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
          size_t elem_bytes, int pe, int stream = 0);
void iget(const char* fn, void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
          size_t elem_bytes, int pe, int stream = 0);
/// Strided blocks (OpenSHMEM 1.6): block i of `bsize` contiguous elements goes from src + i*sst elements to
/// dest + i*dst elements. ibput returns when src may be reused, ibget when dest holds every block.
void ibput(const char* fn, void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
           size_t elem_bytes, int pe, int stream = 0);
void ibget(const char* fn, void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
           size_t elem_bytes, int pe, int stream = 0);

/// The runtime's own puts, whose dest may also lie in a team's scratch (group::scratch, in the heap's reserved
/// area, which put and put_signal refuse): for the collectives across hosts. Their user buffers are checked at
/// the collective's entry.
void put_scratch(const char* fn, void* dest, const void* src, size_t bytes, int pe, bool nbi, int stream = 0);
void put_signal_scratch(const char* fn, void* dest, const void* src, size_t bytes, uint64_t* sig, uint64_t signal,
                        int sig_op, int pe, bool nbi, int stream = 0);

/// Atomic on a 4- or 8-byte word; returns the old value for fetching ops (zero-extended). Errors name the word
/// `arg`, by default "source" for a fetch and "dest" otherwise.
uint64_t atomic(const char* fn, amo_op op, void* target, unsigned width, uint64_t value, uint64_t compare, int pe,
                int stream = 0, const char* arg = nullptr);
/// Non-blocking fetching atomic: the old value lands in *fetch by the next quiet.
void atomic_nbi(const char* fn, amo_op op, void* fetch, void* target, unsigned width, uint64_t value,
                uint64_t compare, int pe, int stream = 0);

/// Puts `bytes` then updates the 64-bit signal at `sig` (set or add), ordered after the data.
void put_signal(const char* fn, void* dest, const void* src, size_t bytes, uint64_t* sig, uint64_t signal,
                int sig_op, int pe, bool nbi, int stream = 0);

void fence(int stream = 0);
void quiet(int stream = 0);

/// Pointer to `pe`'s copy of the symmetric `addr` usable by load/store, or nullptr.
void* pointer_to(const void* addr, int pe);

}  // namespace rdsm::detail
