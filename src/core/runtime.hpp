// The runtime of one PE: bootstrap, transport, symmetric regions, heap and progress, created by init.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "common/config.hpp"
#include "core/data_segment.hpp"
#include "core/global_symbols.hpp"
#include "core/heap.hpp"
#include "core/job_record.hpp"
#include "core/progress.hpp"
#include "transport/transport.hpp"

namespace rdsm::detail {

/// Symmetric regions, in the order they are registered with the transport.
/// The sync region holds the runtime's own words (barrier epochs, collective counters); it lives on a memory
/// file that PEs of one host map, so their synchronization is load/store even when data goes through UCX.
/// The DSM region (the DSM's page frames) is attached after init, by the DSM's first collective call.
enum region_id : int { heap_region = 0, data_region = 1, sync_region = 2, dsm_region = 3, n_regions = 4 };

/// A symmetric address resolved to its region and offset.
struct sym_addr {
  int region;
  uint64_t offset;
};

class runtime {
 public:
  /// Starts the runtime (collective). Returns an error naming the cause; the PE state is unchanged then.
  static status init(int requested_thread_level);
  /// Ends the runtime (collective): completes outstanding operations, synchronizes, releases everything.
  static void finalize();
  static bool initialized() { return instance_ != nullptr; }
  /// The running runtime; use only after init succeeded (callers check with initialized()).
  static runtime& get() { return *instance_; }
  /// The running runtime, or the end of the job with one line naming `fn` when called before shmem_init
  /// or after shmem_finalize.
  static runtime& checked(const char* fn);

  int my_pe() const { return my_pe_; }
  int n_pes() const { return n_pes_; }
  const config& cfg() const { return cfg_; }
  bool checking() const { return cfg_.debug; }
  int thread_level() const { return thread_level_; }
  transport& net() { return *net_; }
  bootstrap& boot() { return *boot_; }
  symmetric_heap& heap() { return *heap_; }
  progress_engine& progress() { return *progress_; }
  /// PEs of the job on this host (those whose sync region this PE maps), itself included.
  int local_pes() const {
    int n = 0;
    for (void* p : mapped_[sync_region]) n += p != nullptr ? 1 : 0;
    return n > 0 ? n : 1;
  }
  /// The host PE `pe` runs on: 0 .. n_hosts()-1, numbered in the order of each host's lowest PE (PEs whose
  /// RDSM_HOST_ID differ count as different hosts).
  int host_of(int pe) const { return host_of_.empty() ? 0 : host_of_[pe]; }
  int n_hosts() const { return n_hosts_; }
  /// Counts the runtimes started in this process, so that what is cached per runtime can tell them apart.
  static unsigned generation() { return generation_; }
  /// True when this host's PEs outnumber its CPUs: waiting then blocks early instead of polling.
  bool oversubscribed() const;
  /// True when some peer's region is reached through UCX, whose emulated operations need this PE's CPU.
  bool uses_transport() const { return uses_transport_; }
  /// True when some PE's long double has another format than this PE's (x86-64's 80-bit extended against
  /// aarch64's 128-bit quad): their values cannot be combined.
  bool long_double_differs() const { return long_double_differs_; }
  /// Transport stream for the runtime's own synchronization signals (barrier epochs): separate from the
  /// default context, so a user's shmem_quiet does not wait for them.
  int internal_stream() const { return internal_stream_; }

  /// Region and offset of `addr`, or region -1 when the address is not symmetric.
  sym_addr resolve(const void* addr) const {
    auto a = reinterpret_cast<uintptr_t>(addr);
    for (int r = 0; r < n_regions; ++r)
      if (a - base_[r] < length_[r]) return {r, a - base_[r]};
    return {-1, 0};
  }
  /// `s` as PE `pe` addresses it: the same, except for a global variable of a PE that runs another executable
  /// (another architecture's build), whose globals are found by name. Ends the job naming `fn` when the
  /// `bytes` at `s` have no counterpart there.
  sym_addr for_pe(sym_addr s, int pe, size_t bytes, const char* fn) const {
    if (s.region != data_region || globals_ == nullptr || !globals_->needed(pe)) return s;
    return translate_global(s, pe, bytes, fn);
  }
  /// A load/store pointer to `pe`'s copy of the object at `s`, or nullptr when not mappable.
  void* mapped(sym_addr s, int pe) const {
    char* b = static_cast<char*>(mapped_[s.region][pe]);
    return b != nullptr ? b + s.offset : nullptr;
  }
  uint64_t remote_addr(sym_addr s, int pe) const { return remote_[s.region][pe] + s.offset; }
  /// `pe`'s memory file of the attached region, open in this process (so its pages can be mapped here too),
  /// or -1 (another host, or not mappable).
  int attached_file(int pe) const {
    return static_cast<size_t>(pe) < attached_.files.size() ? attached_.files[static_cast<size_t>(pe)] : -1;
  }
  uintptr_t region_base(int r) const { return base_[r]; }
  /// Where shmem_malloc's blocks begin: symmetric_heap::base_alignment past the heap's origin (reserved).
  uintptr_t user_heap_base() const { return base_[heap_region] + symmetric_heap::base_alignment; }
  size_t region_length(int r) const { return length_[r]; }

  /// Internal symmetric words (barrier and collective flags): the sync region.
  uint64_t* internal() const { return reinterpret_cast<uint64_t*>(base_[sync_region]); }

  /// Registers a memory file mapped at `area` as region `id` (collective, after init): peers on this host
  /// map it for load/store, others reach it through the transport. Used by the DSM for its page frames.
  status attach_region(int id, const data_segment& area, int fd);
  /// Memory whose pages may fault into a protocol served by the progress thread (the DSM's view). UCX
  /// must never touch it directly: a fault inside UCX would wait for a thread that needs UCX's lock.
  void set_faulting_range(uintptr_t base, size_t length) {
    faulting_length_ = length;
    faulting_base_ = base;
  }
  bool in_faulting_range(const void* p, size_t n) const {
    const auto a = reinterpret_cast<uintptr_t>(p);
    return faulting_length_ != 0 && a < faulting_base_ + faulting_length_ && a + n > faulting_base_;
  }
  /// Runs `fn` at the start of finalize, while the transport and every peer still run (layers above the
  /// core shut down there; last registered runs first).
  void at_finalize(std::function<void()> fn) { finalizers_.push_back(std::move(fn)); }

  /// Ends the whole job with `code`, naming `message` (shmem_global_exit and fatal errors).
  [[noreturn]] void abort_job(int code, const std::string& message);

 private:
  runtime() = default;
  status start(int requested_thread_level);
  void stop();
  status exchange_region(int id, uintptr_t origin, size_t length);
  /// Stops the job with one line when the PEs' job records disagree.
  status check_job_records(const std::vector<job_record>& records);
  /// Where PEs run different executables: exchanges their tables of global variables.
  status exchange_global_symbols(const std::vector<job_record>& records);
  sym_addr translate_global(sym_addr s, int pe, size_t bytes, const char* fn) const;
  /// Maps the peers' copies of `r` (region `id`) where they share this host, for load and store.
  status map_peers(int id, shared_region& r);

  static runtime* instance_;
  static unsigned generation_;

  config cfg_;
  int my_pe_ = 0;
  int n_pes_ = 1;
  int thread_level_ = 0;
  std::unique_ptr<bootstrap> boot_;
  std::unique_ptr<transport> net_;
  std::unique_ptr<symmetric_heap> heap_;
  std::unique_ptr<progress_engine> progress_;
  // This PE's regions on memory files, with their peers' of this host mapped here.
  shared_region heap_memory_;  // the symmetric heap, from its origin (reserved words, then the user heap)
  shared_region data_;         // global variables (fd -1 when not shared)
  shared_region sync_;         // the runtime's own words (barriers, collectives)
  shared_region attached_;     // the region attached after init (the DSM's frames; its owner keeps the fd)
  std::vector<std::function<void()>> finalizers_;
  std::unique_ptr<global_translation> globals_;  // only where some PE runs another executable
  uintptr_t faulting_base_ = 0;
  size_t faulting_length_ = 0;
  bool uses_transport_ = false;
  bool long_double_differs_ = false;
  int internal_stream_ = 0;
  int n_hosts_ = 1;
  std::vector<int> host_of_;
  uintptr_t base_[n_regions] = {};
  size_t length_[n_regions] = {};
  std::vector<void*> mapped_[n_regions];
  std::vector<uint64_t> remote_[n_regions];
};

/// Bytes of the sync region (barrier and collective words).
constexpr size_t internal_bytes = 128 * 1024;
/// Words in the sync region's first page, before the team slots (team.cpp; the finalize and stuck words at
/// its end are watch_internal.hpp's): the blocks of the last two frees or resizes (memory.cpp), the count
/// of PEs asleep on locks homed here, and the locks this PE holds (sync.cpp).
constexpr size_t freed_words_offset = 64;
constexpr size_t lock_sleepers_offset = 128;
constexpr size_t held_locks_offset = 192;
constexpr size_t held_lock_slots = 8;
static_assert(held_locks_offset + held_lock_slots * sizeof(uint64_t) <= 4096, "the first page's words must stay in it");
static_assert(internal_bytes <= symmetric_heap::base_alignment, "internal words must fit before the user heap");

}  // namespace rdsm::detail
