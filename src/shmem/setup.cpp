// OpenSHMEM setup, query, exit and memory management routines.
#include <stdio_ext.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/cpu.hpp"
#include "common/log.hpp"
#include "core/memory.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "core/sync.hpp"
#include "core/watch.hpp"
#include "shmem.h"
#include "shmemx.h"
#include "shmem/context.hpp"
#include "shmem/shim.hpp"

using namespace rdsm::detail;

namespace {

// How many initialization calls shmem_finalize has yet to match (OpenSHMEM 1.6: init and finalize may be called
// several times; the library stays initialized until the finalize that matches the first init).
std::atomic<int> g_init_calls{0};
// Set by the finalize that ends the library: the job's rendezvous admits each PE once, so a later init could
// only fail, and would do so with a message about ranks.
std::atomic<bool> g_finalized{false};
// The process that initialized the library: a child it forks inherits the exit handler below, and must not
// finalize the parent's PE when it exits (that would wait in a barrier the other PEs never join).
pid_t g_init_pid = 0;

// PEs of a job share its standard output. Written to a pipe or a file, stdout is fully buffered, and its
// 4 KiB writes cut lines anywhere: lines of different PEs then mix ("PE 3 line 0141PE 2 line 0000"). A line
// per write keeps them whole (a pipe takes up to 4 KiB at once; writes to one file do not interleave), and a
// buffer of 64 KiB keeps lines up to that long in one write (the C library's own, 4 KiB, wrote longer lines
// in pieces). Left as it is when the program printed or set stdout's buffering before shmem_init (its buffer
// exists then).
void line_buffer_shared_output() {
  static char line_buffer[64 << 10];  // untouched, so unbacked, until the program prints
  if (runtime::get().n_pes() > 1 && isatty(STDOUT_FILENO) == 0 && __fbufsize(stdout) == 0)
    std::setvbuf(stdout, line_buffer, _IOLBF, sizeof line_buffer);
}

int start(int requested) {
  if (runtime::initialized()) {
    g_init_calls.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  if (g_finalized.load(std::memory_order_relaxed)) {
    std::fprintf(stderr, "rdsm: shmem_init: the library was finalized; a process cannot initialize it again "
                         "(keep one initialization open, nested calls are counted)\n");
    return 1;
  }
  status s = runtime::init(requested);
  if (!s.ok()) {
    std::fprintf(stderr, "rdsm: shmem_init failed: %s\n", s.message().c_str());
    return 1;
  }
  bind_predefined_teams();
  line_buffer_shared_output();
  g_init_calls.store(1, std::memory_order_release);
  g_init_pid = getpid();
  // A program may end without shmem_finalize (start_pes never needs one; shmem_init's programs often leave
  // it out): a normal exit finalizes, collectively, as if main had called it. Registered after the runtime
  // started, so this runs before the destructors of what it built. An exit with a non-zero status leaves
  // the job to end as a PE's failure. (A process starts the runtime once: an init after the last finalize is
  // refused above.)
  on_exit(
      [](int status, void*) {
        if (status != 0 || getpid() != g_init_pid) return;
        if (g_init_calls.load(std::memory_order_relaxed) > 0) watch_finalize_at_exit();
        while (g_init_calls.load(std::memory_order_relaxed) > 0) shmem_finalize();
      },
      nullptr);
  return 0;
}

}  // namespace

extern "C" {

void shmem_init(void) noexcept {
  if (start(SHMEM_THREAD_SINGLE) != 0) std::exit(1);
}

int shmem_init_thread(int requested, int* provided) noexcept {
  if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
    std::fprintf(stderr, "rdsm: shmem_init_thread: requested %d is not a SHMEM_THREAD_* level\n", requested);
    return 1;
  }
  int rc = start(requested);
  if (rc == 0 && provided != nullptr) *provided = runtime::get().thread_level();
  return rc;
}

void shmem_query_thread(int* provided) noexcept {
  runtime& rt = runtime::checked(__func__);
  require_out(__func__, "provided", provided, "an int");
  *provided = rt.thread_level();
}

void shmem_finalize(void) noexcept {
  // A finalize without an init to match does nothing. One that leaves initializations unmatched keeps the
  // library up but is still the collective the specification describes: pending operations complete and every
  // PE arrives before any returns.
  int calls = g_init_calls.load(std::memory_order_relaxed);
  if (calls <= 0) return;
  // Finalize waits for every PE: should a peer never come (a collective mismatch ends the job), what this
  // PE printed must not die in its buffers.
  std::fflush(nullptr);
  g_init_calls.store(calls - 1, std::memory_order_relaxed);
  if (calls == 1) {
    runtime::finalize();
    g_finalized.store(true, std::memory_order_relaxed);
    return;
  }
  barrier_all();
}

// Any thread, at any time (OpenSHMEM 1.6): reads the atomic count, not the runtime's pointer, which init and
// finalize set without synchronization.
void shmem_query_initialized(int* initialized) noexcept {
  require_out(__func__, "initialized", initialized, "an int");
  *initialized = g_init_calls.load(std::memory_order_acquire) > 0;
}

int shmem_my_pe(void) noexcept { return runtime::checked(__func__).my_pe(); }
int shmem_n_pes(void) noexcept { return runtime::checked(__func__).n_pes(); }

int shmem_pe_accessible(int pe) noexcept {
  runtime& rt = runtime::checked(__func__);
  return pe >= 0 && pe < rt.n_pes() ? 1 : 0;
}

int shmem_addr_accessible(const void* addr, int pe) noexcept {
  runtime& rt = runtime::checked(__func__);
  return pe >= 0 && pe < rt.n_pes() && rt.resolve(addr).region >= 0 ? 1 : 0;
}

void* shmem_ptr(const void* dest, int pe) noexcept { return pointer_to(dest, pe); }

void shmem_info_get_version(int* major, int* minor) noexcept {
  require_out(__func__, "major", major, "an int");
  require_out(__func__, "minor", minor, "an int");
  *major = SHMEM_MAJOR_VERSION;
  *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char* name) noexcept {
  if (name == nullptr)
    fatal("shmem_info_get_name: name is NULL; pass a char array of SHMEM_MAX_NAME_LEN (%d) bytes", SHMEM_MAX_NAME_LEN);
  std::strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
  name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}

void shmem_global_exit(int status) noexcept {
  std::fflush(nullptr);
  if (!runtime::initialized()) std::exit(status);
  runtime::get().abort_job(status, format("shmem_global_exit(%d) called", status));
}

void* shmem_malloc(size_t size) noexcept { return sym_allocate(__func__, size, 0, false); }

void* shmem_malloc_with_hints(size_t size, long hints) noexcept {
  if ((hints & ~(SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE)) != 0)
    RDSM_LOG_WARN("heap", "shmem_malloc_with_hints: unknown hint bits 0x%lx are ignored", hints);
  return sym_allocate(__func__, size, 0, false);
}

void* shmem_calloc(size_t count, size_t size) noexcept {
  if (size != 0 && count > SIZE_MAX / size) {
    RDSM_LOG_WARN("heap", "shmem_calloc: %zu elements of %zu bytes overflow size_t", count, size);
    return nullptr;
  }
  return sym_allocate(__func__, count * size, 0, true);
}

void* shmem_align(size_t alignment, size_t size) noexcept {
  runtime& rt = runtime::checked(__func__);
  // An alignment the heap cannot give is no error: every PE returns NULL (the call stays collective) and PE 0
  // says why once. The specification leaves a non-power-of-two undefined.
  const size_t largest = rt.heap().max_alignment();
  const bool power_of_two = alignment != 0 && (alignment & (alignment - 1)) == 0;
  if (!power_of_two || alignment > largest) {
    if (rt.my_pe() == 0 && power_of_two)
      RDSM_LOG_WARN("heap", "shmem_align: alignment %zu exceeds the largest the symmetric heap can hold, %zu; "
                    "returning NULL (raise SHMEM_SYMMETRIC_SIZE)", alignment, largest);
    else if (rt.my_pe() == 0)
      RDSM_LOG_WARN("heap", "shmem_align: alignment %zu is not a power of two; returning NULL", alignment);
    return nullptr;
  }
  return sym_allocate(__func__, size, alignment, false);
}

void* shmem_realloc(void* ptr, size_t size) noexcept { return sym_reallocate(__func__, ptr, size); }
void shmem_free(void* ptr) noexcept { sym_free(__func__, ptr); }

// The profiling control hook: rdsm has no profiling of its own, so levels only reach tools that
// intercept it (through the pshmem_* names).
void shmem_pcontrol(const int level, ...) noexcept { (void)level; }

// Extensions (shmemx.h).
double shmemx_wtime(void) noexcept { return static_cast<double>(monotonic_ns()) * 1e-9; }

// Deprecated names.
// Needs no shmem_finalize: a normal exit finalizes (start).
void start_pes(int) noexcept { shmem_init(); }
int _my_pe(void) noexcept { return shmem_my_pe(); }
int _num_pes(void) noexcept { return shmem_n_pes(); }
void* shmalloc(size_t size) noexcept { return sym_allocate(__func__, size, 0, false); }
void shfree(void* ptr) noexcept { sym_free(__func__, ptr); }
void* shrealloc(void* ptr, size_t size) noexcept { return sym_reallocate(__func__, ptr, size); }
void* shmemalign(size_t alignment, size_t size) noexcept { return shmem_align(alignment, size); }
// The cache routines of OpenSHMEM 1.0 have no effect on cache-coherent systems (the specification).
void shmem_clear_cache_inv(void) noexcept {}
void shmem_set_cache_inv(void) noexcept {}
void shmem_udcflush(void) noexcept {}
void shmem_clear_cache_line_inv(void*) noexcept {}
void shmem_set_cache_line_inv(void*) noexcept {}
void shmem_udcflush_line(void*) noexcept {}

}  // extern "C"
