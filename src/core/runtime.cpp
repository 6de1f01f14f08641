// Runtime start-up and shut-down: bootstrap, transport, regions, heap, progress.
#include "core/runtime.hpp"

#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "cachectl/cachectl.hpp"
#include "common/copy.hpp"
#include "common/cpu.hpp"
#include "common/limits.hpp"
#include "common/log.hpp"
#include "core/data_segment.hpp"
#include "core/job_record.hpp"
#include "core/rma.hpp"
#include "core/sync.hpp"
#include "core/team.hpp"
#include "core/watch.hpp"

namespace rdsm::detail {

runtime* runtime::instance_ = nullptr;
unsigned runtime::generation_ = 0;

namespace {

void fatal_through_job(int code, const std::string& message) {
  if (runtime::initialized()) runtime::get().abort_job(code, message);
}

}  // namespace

runtime& runtime::checked(const char* fn) {
  if (instance_ == nullptr)
    fatal("%s: called before shmem_init (or after shmem_finalize); call shmem_init first", fn);
  return *instance_;
}

status runtime::init(int requested_thread_level) {
  if (instance_ != nullptr) return {};
  auto* rt = new runtime();
  ++generation_;
  status s = rt->start(requested_thread_level);
  if (!s.ok()) {
    // Other PEs may already wait at the rendezvous: end the whole job rather than leave them hanging.
    if (rt->boot_ != nullptr && rt->n_pes_ > 1) rt->abort_job(1, s.message());
    instance_ = nullptr;
    set_fatal_handler(nullptr);
    delete rt;
    return s;
  }
  return {};
}

status runtime::start(int requested_thread_level) {
  keep_standard_fds();
  // Under rdsmrun, which read the same environment and warned of unknown variables once for the job.
  const char* boot = std::getenv("RDSM_BOOT");
  RDSM_ASSIGN_OR_RETURN(cfg_, config_load(/*warn_unknown=*/boot == nullptr || std::strcmp(boot, "launcher") != 0));
  static const char* const levels[] = {"error", "warn", "info", "debug", "trace"};
  int level = 1;
  for (int i = 0; i < 5; ++i)
    if (cfg_.log_level == levels[i]) level = i;
  log_configure(static_cast<log_level>(level), -1);

  auto cache_mode = cache_mode_parse(cfg_.cache_maintenance);
  if (!cache_mode.ok()) return cache_mode.error();
  cache_configure(cache_mode.value());

  RDSM_ASSIGN_OR_RETURN(boot_, bootstrap_create(cfg_));
  my_pe_ = boot_->rank();
  n_pes_ = boot_->size();
  thread_level_ = requested_thread_level;
  log_configure(static_cast<log_level>(level), my_pe_);
  // Sizes against this host's memory before anything is mapped (rdsmrun's PEs share its host; rdsmrun has
  // checked them for the job already).
  const int local_guess = std::strcmp(boot_->name(), "launcher") == 0 ? n_pes_ : 1;
  const host_memory mem = host_memory_size();
  fit_default_heap(cfg_, local_guess, mem);
  RDSM_TRY(check_host_limits(cfg_, local_guess, n_pes_, mem));
  RDSM_TRY(check_dsm_base(cfg_, /*mappings=*/true));
  RDSM_TRY(check_dsm_settings(cfg_, /*this_host=*/true));
  instance_ = this;  // from here on, fatal errors end the whole job
  set_fatal_handler(&fatal_through_job);

  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  RDSM_ASSIGN_OR_RETURN(sync_.fd, create_shared_area("rdsm-sync", internal_bytes, page, sync_.area));

  RDSM_ASSIGN_OR_RETURN(net_, transport::create(my_pe_, n_pes_, [this](int pe, const std::string& cause) {
                          // The peer may be gone because the job is ending for another reason.
                          boot_->await_job_end(300);
                          abort_job(1, format("lost contact with PE %d (%s): it has probably died; ending the job",
                                              pe, cause.c_str()));
                        }, cfg_.shm_dir));
  // Globals move onto a memory file before the transport registers them, and after it has put back the signal
  // handlers UCX installs when it loads (data_segment.cpp chains to the handler it finds).
  data_.area = find_data_segment();
  if (cfg_.share_globals && n_pes_ > 1) {
    auto fd = share_data_segment(data_.area);
    if (fd.ok())
      data_.fd = fd.value();
    else
      RDSM_LOG_WARN("boot", "%s; global variables are reached through UCX", fd.error().message().c_str());
  }
  // Each PE's job record travels with its worker address: what PEs must agree on is checked before any
  // connection is made.
  const job_record mine = job_record_make(cfg_, executable_identity(data_.area));
  std::string published(reinterpret_cast<const char*>(&mine), sizeof mine);
  published += net_->worker_address();
  RDSM_ASSIGN_OR_RETURN(auto addresses, boot_->allgather(published));
  std::vector<job_record> records(static_cast<size_t>(n_pes_));
  for (int pe = 0; pe < n_pes_; ++pe) {
    if (addresses[pe].size() < sizeof(job_record))
      return status::error(format("PE %d sent no job record: is it running another version of rdsm?", pe));
    std::memcpy(&records[pe], addresses[pe].data(), sizeof(job_record));
    addresses[pe].erase(0, sizeof(job_record));
  }
  RDSM_TRY(check_job_records(records));
  for (const job_record& r : records)
    long_double_differs_ = long_double_differs_ || r.long_double_digits != records[my_pe_].long_double_digits;
  RDSM_TRY(net_->connect(addresses));
  RDSM_TRY(exchange_global_symbols(records));

  // The heap, from the symmetric origin: base_alignment bytes reserved, then the user heap, on a memory file
  // of this PE (not a shared memory segment of the transport's, which other users of the group could
  // attach). The origin is a multiple of the largest power of two the user heap can hold (2 MiB at least),
  // so every PE's user heap starts at the same place modulo any alignment shmem_align can satisfy. Offsets
  // are taken from the origin: equal offsets are equal, equally aligned objects on every PE.
  const size_t a = symmetric_heap::base_alignment;
  const size_t origin_alignment = std::max(a, std::bit_floor(cfg_.symmetric_size));
  // Large blocks start halfway through a page (the heap's colour): copies between them and page-aligned or
  // malloc'd buffers of the user do not alias (docs/design/heap.md). The user heap then spans one page more
  // than its blocks may take, so that blocks filling SHMEM_SYMMETRIC_SIZE exactly still fit.
  const size_t colour = symmetric_heap::aliasing_period / 2;
  RDSM_ASSIGN_OR_RETURN(heap_memory_.fd,
                        create_shared_area("rdsm-heap", a + symmetric_heap::span_for(cfg_.symmetric_size, colour),
                                           origin_alignment, heap_memory_.area));
  int next = heap_region;
  for (shared_region* r : {&heap_memory_, &data_, &sync_}) {
    RDSM_ASSIGN_OR_RETURN(int id, net_->map_region(reinterpret_cast<void*>(r->area.start), r->area.length));
    if (id != next++) return status::error("internal: unexpected region order");
    RDSM_TRY(exchange_region(id, r->area.start, r->area.length));
  }
  if (cfg_.share_heap) RDSM_TRY(map_peers(heap_region, heap_memory_));
  if (data_.fd >= 0) RDSM_TRY(map_peers(data_region, data_));
  RDSM_TRY(map_peers(sync_region, sync_));
  // With a CPU for each PE of this host, a wait past its first millisecond keeps polling while the machine
  // has CPUs to spare (cpu.hpp): it answers at once, and a polling waiter that yields costs a computing
  // thread on its CPU nothing measurable here. More PEs than CPUs, or RDSM_WAIT_POLL=off: long waits sleep.
  set_long_waits_poll(cfg_.wait_poll == "auto" && !oversubscribed());

  heap_ = std::make_unique<symmetric_heap>(reinterpret_cast<void*>(user_heap_base()), cfg_.symmetric_size,
                                           origin_alignment, colour);
  progress_ = std::make_unique<progress_engine>(*net_, cfg_.progress_slice);
  // Peers reached through UCX need this PE's CPU to complete emulated operations (always over TCP).
  bool emulated = false;
  for (int r = 0; r <= sync_region; ++r)
    for (int pe = 0; pe < n_pes_; ++pe) emulated = emulated || mapped_[r][pe] == nullptr;
  uses_transport_ = emulated;
  if (emulated) {
    RDSM_ASSIGN_OR_RETURN(internal_stream_, net_->create_stream(false));
  }
  bool want_thread = cfg_.progress_thread == "on" || (cfg_.progress_thread == "auto" && emulated);
  if (want_thread) RDSM_TRY(progress_->start());
  teams_create();
  watch_start(cfg_, my_pe_, n_pes_);
  RDSM_TRY(boot_->barrier());

  if (my_pe_ == 0 && cfg_.version) std::fprintf(stderr, "rdsm %s\n", RDSM_VERSION_STRING);
  if (my_pe_ == 0 && cfg_.info) {
    std::fprintf(stderr, "rdsm %s on %d PEs, bootstrap %s, %s, progress thread %s\n", RDSM_VERSION_STRING, n_pes_,
                 boot_->name(), net_->describe().c_str(), progress_->running() ? "on" : "off");
    for (int pe = 1; pe < n_pes_; ++pe)
      std::fprintf(stderr, "  PE 0 -> PE %d: heap %s, globals %s; %s\n", pe,
                   mapped_[heap_region][pe] != nullptr ? "load/store (shared memory)" : "through UCX",
                   mapped_[data_region][pe] != nullptr ? "load/store (shared memory)" : "through UCX",
                   net_->describe_peer(pe).c_str());
    std::fprintf(stderr, "  same-host copies: %s\n", copy_plan_text().c_str());
    for (const auto& e : config_describe())
      std::fprintf(stderr, "  %-22s = %-10s (%s)  %s\n", e.variable, e.value.c_str(),
                   e.from_environment ? "environment" : "default", e.help);
  }
  return {};
}

status runtime::check_job_records(const std::vector<job_record>& records) {
  auto disagreement = job_records_disagree(records);
  if (!disagreement) return {};
  // Every PE finds the same disagreement; one of them reports it, so that the job ends with one line. The
  // others wait at a barrier the report ends.
  if (job_records_reporter(records) == my_pe_) return status::error(*disagreement);
  (void)boot_->barrier();
  std::_Exit(1);
}

status runtime::exchange_global_symbols(const std::vector<job_record>& records) {
  // The lowest-numbered PE running each executable, which publishes that executable's table of globals.
  std::unordered_map<uint64_t, int> first_of;
  for (int pe = 0; pe < n_pes_; ++pe) first_of.try_emplace(records[pe].executable, pe);
  if (first_of.size() == 1) return {};
  const uint64_t mine = records[my_pe_].executable;
  std::vector<std::string> names;
  std::vector<global_symbol> table = read_global_symbols(data_.area, &names);
  RDSM_ASSIGN_OR_RETURN(auto published,
                        boot_->allgather(first_of[mine] == my_pe_ ? pack_global_symbols(table) : std::string()));
  // Each other executable's table, once; layouts[pe] says which is PE pe's (-1: this executable).
  std::vector<std::vector<global_symbol>> tables;
  std::unordered_map<uint64_t, int> table_of;
  std::vector<int> layouts(static_cast<size_t>(n_pes_), -1);
  for (int pe = 0; pe < n_pes_; ++pe) {
    const uint64_t exe = records[pe].executable;
    if (exe == mine) continue;
    auto [it, fresh] = table_of.try_emplace(exe, static_cast<int>(tables.size()));
    if (fresh) {
      RDSM_ASSIGN_OR_RETURN(auto theirs, unpack_global_symbols(published[first_of[exe]]));
      tables.push_back(std::move(theirs));
    }
    layouts[pe] = it->second;
  }
  RDSM_LOG_DEBUG("boot", "PEs run %zu other executables: global variables are matched by name (%zu here)",
                 tables.size(), table.size());
  globals_ = std::make_unique<global_translation>(std::move(table), std::move(names), std::move(layouts), tables);
  return {};
}

sym_addr runtime::translate_global(sym_addr s, int pe, size_t bytes, const char* fn) const {
  auto offset = globals_->translate(s.offset, bytes, pe);
  if (!offset.ok()) fatal("%s: %s", fn, offset.error().message().c_str());
  return {s.region, offset.value()};
}

status runtime::exchange_region(int id, uintptr_t origin, size_t length) {
  // Each PE publishes the symmetric origin offsets are counted from (where the region is registered, which
  // its remote addresses are taken from) and the packed key.
  base_[id] = origin;
  length_[id] = length;
  RDSM_ASSIGN_OR_RETURN(std::string key, net_->pack_region_key(id));
  const uint64_t head = origin;
  std::string mine(reinterpret_cast<const char*>(&head), sizeof head);
  mine += key;
  RDSM_ASSIGN_OR_RETURN(auto all, boot_->allgather(mine));
  std::vector<std::string> keys(static_cast<size_t>(n_pes_));
  remote_[id].resize(static_cast<size_t>(n_pes_));
  for (int pe = 0; pe < n_pes_; ++pe) {
    std::memcpy(&remote_[id][pe], all[pe].data(), sizeof head);
    keys[pe] = all[pe].substr(sizeof head);
  }
  RDSM_TRY(net_->unpack_region_keys(id, std::move(keys)));
  // Peers of this host are mapped from their memory files (map_peers), others reached through the transport.
  mapped_[id].assign(static_cast<size_t>(n_pes_), nullptr);
  mapped_[id][my_pe_] = reinterpret_cast<char*>(origin);
  return {};
}

bool runtime::oversubscribed() const {
  static const long cpus = sysconf(_SC_NPROCESSORS_ONLN);  // read once: waits ask on every round
  return local_pes() > (cpus > 0 ? cpus : 1);
}

status runtime::attach_region(int id, const data_segment& area, int fd) {
  RDSM_ASSIGN_OR_RETURN(int got, net_->map_region(reinterpret_cast<void*>(area.start), area.length));
  if (got != id) return status::error("internal: unexpected region order");
  RDSM_TRY(exchange_region(id, area.start, area.length));
  attached_.area = area;
  attached_.fd = fd;
  RDSM_TRY(map_peers(id, attached_));
  return boot_->barrier();
}

status runtime::map_peers(int id, shared_region& r) {
  if (n_pes_ == 1) return {};
  RDSM_ASSIGN_OR_RETURN(auto descriptions, boot_->allgather(describe_shared_segment(r.area, r.fd)));
  r.peers = map_peer_segments(r.area, descriptions, my_pe_, &r == &attached_ ? &r.files : nullptr);
  if (id == sync_region) {  // every PE's host, from the first word of its description
    std::unordered_map<std::string, int> hosts;
    host_of_.resize(static_cast<size_t>(n_pes_));
    for (int pe = 0; pe < n_pes_; ++pe)
      host_of_[pe] = hosts.try_emplace(descriptions[pe].substr(0, descriptions[pe].find(' ')),
                                       static_cast<int>(hosts.size())).first->second;
    n_hosts_ = static_cast<int>(hosts.size());
  }
  for (int pe = 0; pe < n_pes_; ++pe)
    if (r.peers[pe] != nullptr) mapped_[id][pe] = r.peers[pe];
  return {};
}

void runtime::finalize() {
  if (instance_ == nullptr) return;
  instance_->stop();
  set_fatal_handler(nullptr);
  delete instance_;
  instance_ = nullptr;
}

void runtime::stop() {
  // Reports name finalize as what this PE waits in; peers learn that it finalizes before any of its
  // collectives, so one waiting in another collective ends the job instead of hanging.
  static const wait_on finalize_wait{.call = "shmem_finalize"};
  wait_scope scope(finalize_wait, /*timed=*/true);
  watch_finalize_begin();
  for (auto it = finalizers_.rbegin(); it != finalizers_.rend(); ++it) (*it)();
  finalizers_.clear();
  quiet();
  // Shutdown quiesces every peer's traffic before any worker is destroyed (UCX 1.13 fails an assertion
  // when a wire-up message reaches a worker being destroyed). Until the end, the progress thread serves
  // peers' operations and wire-up whatever this thread waits in.
  if (n_pes_ > 1 && !progress_->running()) {
    status s = progress_->start();
    if (!s.ok()) RDSM_LOG_WARN("boot", "finalize: %s", s.message().c_str());
  }
  // 1. Every worker completes what it issued, wire-up included.
  status s = net_->flush_all();
  if (!s.ok()) RDSM_LOG_WARN("boot", "finalize: %s", s.message().c_str());
  // 2. From here on a peer closing its endpoints is no failure; after the barrier every PE knows it.
  net_->begin_shutdown();
  barrier_all();
  // 3. Every endpoint closes (flushed); the bootstrap's barrier says that no peer will send again.
  net_->disconnect();
  s = boot_->barrier();
  if (!s.ok()) RDSM_LOG_WARN("boot", "finalize: %s", s.message().c_str());
  // 4. Only then do the workers go.
  progress_->stop();
  s = boot_->finalize();
  if (!s.ok()) RDSM_LOG_WARN("boot", "finalize: %s", s.message().c_str());
  net_.reset();
  watch_stop();
  for (shared_region* r : {&heap_memory_, &data_, &sync_, &attached_})
    unmap_peer_segments(r->area, r->peers, my_pe_, r->files);
  // The globals' pages stay mapped (the program still uses them), and their file stays open (data_segment.hpp);
  // the runtime's own areas go, and the DSM closes its frames' file itself.
  for (shared_region* r : {&heap_memory_, &sync_})
    if (r->fd >= 0) close(r->fd);
  for (shared_region* r : {&heap_memory_, &sync_}) munmap(reinterpret_cast<void*>(r->area.start), r->area.length);
  boot_.reset();
}

void runtime::abort_job(int code, const std::string& message) {
  std::fflush(stdout);
  if (net_ != nullptr) net_->begin_shutdown();
  if (boot_ == nullptr) {
    std::fprintf(stderr, "rdsm: %s\n", message.c_str());
    std::_Exit(code);
  }
  // The reason is printed once: by rdsmrun under the launcher, by the backend's abort otherwise.
  boot_->abort(code, message);
  std::_Exit(code);  // not reached: abort() ends the process
}

}  // namespace rdsm::detail
