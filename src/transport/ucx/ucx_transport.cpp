// The transport over UCX's ucp: one context, one worker, an endpoint per PE, registered regions.
#include <sched.h>
#include <ucp/api/ucp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <memory>
#include <shared_mutex>

#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/cpu.hpp"
#include "common/log.hpp"
#include "transport/transport.hpp"
#include "transport/ucx/ucx_endpoints.hpp"
#include "transport/ucx/ucx_setup.hpp"

namespace rdsm::detail {

namespace {

// UCX opens a dozen descriptors per worker and more per peer; its errors then say only "Input/output error".
// Where the limit of open files is low, the error says so.
std::string descriptor_hint() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= 1024) return "";
  return format("; this process may open only %llu files: raise the limit (ulimit -n 1024)",
                static_cast<unsigned long long>(rl.rlim_cur));
}

std::string ucs_text(ucs_status_t s) { return ucs_status_string(s); }

ucp_atomic_op_t ucp_opcode(amo_op op) {
  switch (op) {
    case amo_op::fetch:
    case amo_op::add:
    case amo_op::fetch_add: return UCP_ATOMIC_OP_ADD;
    case amo_op::set:
    case amo_op::swap: return UCP_ATOMIC_OP_SWAP;
    case amo_op::cswap: return UCP_ATOMIC_OP_CSWAP;
    case amo_op::band:
    case amo_op::fetch_and: return UCP_ATOMIC_OP_AND;
    case amo_op::bor:
    case amo_op::fetch_or: return UCP_ATOMIC_OP_OR;
    case amo_op::bxor:
    case amo_op::fetch_xor: return UCP_ATOMIC_OP_XOR;
  }
  return UCP_ATOMIC_OP_ADD;
}

bool fetching(amo_op op) {
  return op != amo_op::add && op != amo_op::band && op != amo_op::bor && op != amo_op::bxor;
}

}  // namespace

class ucx_transport final : public transport {
 public:
  ucx_transport(int my_pe, int n_pes, peer_failure_fn on_failure)
      : my_pe_(my_pe), n_pes_(n_pes), peers_(my_pe, n_pes, std::move(on_failure)) {}

  ~ucx_transport() override { close(); }

  status open(const std::string& shm_parent) {
    RDSM_TRY(check_tls(n_pes_));
    restore_signals();
    ucp_config_t* cfg = nullptr;
    ucs_status_t s = ucp_config_read(nullptr, nullptr, &cfg);
    if (s != UCS_OK) return status::error("UCX configuration could not be read: " + ucs_text(s) + "; check UCX_* variables");
    leave_out_shared_memory(cfg);
    // A directory for UCX's shared memory files only when UCX may use its shared memory transports (the user
    // chose UCX_TLS): otherwise it would stay empty, and a PE killed together with the helper that removes it
    // (a step ended by srun) would leave it behind.
    if (tls_default_.empty()) shm_dir_.use(cfg, shm_parent);
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS | UCP_PARAM_FIELD_NAME;
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP;
    // Messages only ever go to other PEs (a PE's messages to itself stay inside it). A single PE goes
    // without: UCX 1.13 then fails an assertion closing its contexts' workers (wire-up still pending).
    if (n_pes_ > 1) params.features |= UCP_FEATURE_AM;
    params.estimated_num_eps = static_cast<size_t>(n_pes_);
    params.name = "rdsm";
    s = ucp_init(&params, cfg, &context_);
    ucp_config_release(cfg);
    if (s != UCS_OK)
      return status::error("UCX could not start (ucp_init: " + ucs_text(s) + "); check UCX_TLS / UCX_NET_DEVICES" +
                           descriptor_hint());
    // Stream 0's worker is shared by the application threads and the progress thread.
    streams_[0] = std::make_unique<stream>();
    RDSM_TRY(create_worker(*streams_[0], UCS_THREAD_MODE_MULTI));
    streams_[0]->in_use = true;
    ucp_address_t* addr = nullptr;
    size_t len = 0;
    s = ucp_worker_get_address(streams_[0]->worker, &addr, &len);
    if (s != UCS_OK) return status::error("UCX worker address unavailable: " + ucs_text(s));
    address_.assign(reinterpret_cast<const char*>(addr), len);
    ucp_worker_release_address(streams_[0]->worker, addr);
    epfd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epfd_ < 0) return status::error(format("epoll_create1: %s", std::strerror(errno)));
    return watch(*streams_[0]);
  }

  std::string worker_address() const override { return address_; }

  status connect(const std::vector<std::string>& addresses) override {
    peers_.set_addresses(addresses);
    // Endpoints, and their wire-up, come with the first operation to each PE (reach()).
    return peers_.prepare(*streams_[0], true);
  }

  result<int> map_region(void* base, size_t length) override {
    ucp_mem_map_params_t mp{};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_ADDRESS;
    mp.length = length;
    mp.address = base;
    if (regions_.size() == ucx_endpoints::max_regions)
      return status::error(format("internal: more than %zu regions", ucx_endpoints::max_regions));
    ucp_mem_h memh = nullptr;
    ucs_status_t s = ucp_mem_map(context_, &mp, &memh);
    if (s != UCS_OK)
      return status::error(format("cannot register %zu bytes with UCX (ucp_mem_map: %s); lower SHMEM_SYMMETRIC_SIZE "
                                  "or raise the locked/shared memory limits",
                                  length, ucs_status_string(s)));
    regions_.push_back(memh);
    return static_cast<int>(regions_.size() - 1);
  }

  result<std::string> pack_region_key(int id) const override {
    void* buf = nullptr;
    size_t len = 0;
    ucs_status_t s = ucp_rkey_pack(context_, regions_[id], &buf, &len);
    if (s != UCS_OK) return status::error("ucp_rkey_pack failed: " + ucs_text(s));
    std::string key(static_cast<const char*>(buf), len);
    ucp_rkey_buffer_release(buf);
    return key;
  }

  status unpack_region_keys(int id, std::vector<std::string> keys) override {
    peers_.set_region_keys(id, std::move(keys));
    // Every stream that exists already gets the keys for the PEs it has reached (the others' come with
    // their endpoints).
    std::unique_lock<std::shared_mutex> lock(streams_mutex_);
    for (auto& st : streams_)
      if (st != nullptr) RDSM_TRY(peers_.unpack_keys(*st, id));
    return {};
  }


  result<int> create_stream(bool exclusive) override {
    std::unique_lock<std::shared_mutex> lock(streams_mutex_);
    int slot = 1;
    while (slot < max_streams && streams_[slot] != nullptr && streams_[slot]->in_use) ++slot;
    if (slot == max_streams)
      return status::error(format("all %d contexts are in use; destroy contexts that are done", max_streams - 1));
    if (streams_[slot] == nullptr) {
      // Every worker is progressed by whichever thread waits (and by the progress thread): peers' workers
      // wait for this one's wire-up replies. So even a private context's worker is multi-threaded.
      (void)exclusive;
      auto st = std::make_unique<stream>();
      RDSM_TRY(create_worker(*st, UCS_THREAD_MODE_MULTI));
      RDSM_TRY(peers_.prepare(*st, false));
      for (size_t id = 0; id < regions_.size(); ++id) RDSM_TRY(peers_.unpack_keys(*st, static_cast<int>(id)));
      RDSM_TRY(watch(*st));
      streams_[slot] = std::move(st);
      if (slot >= n_streams_.load(std::memory_order_relaxed)) n_streams_.store(slot + 1, std::memory_order_release);
    }
    streams_[slot]->in_use = true;
    return slot;
  }

  void destroy_stream(int id) override {
    if (id <= 0) return;
    // Flush only what was issued: an unused stream's flush would wait for wire-up replies from peers
    // that never progress UCX (every peer mapped for load/store, no progress thread).
    if (pending(id)) (void)quiet(id);
    // The worker stays alive (and progressed) for the next context: peers hold connections to it, and
    // tearing a worker down under them mid-job makes UCX 1.13 fail on their side.
    std::unique_lock<std::shared_mutex> lock(streams_mutex_);
    streams_[id]->in_use = false;
  }

  status put(int sid, int id, int pe, uint64_t raddr, const void* src, size_t n, bool nbi) override {
    stream& st = *streams_[sid];
    RDSM_TRY(peers_.reach(st, pe));
    st.pending.store(true, std::memory_order_relaxed);
    ucp_request_param_t p{};
    ucs_status_ptr_t req = issue([&] { return ucp_put_nbx(ep_of(st, pe), src, n, raddr, st.rkeys[id][pe], &p); });
    return finish(st, req, nbi, "put", pe);
  }

  status get(int sid, int id, int pe, uint64_t raddr, void* dst, size_t n, bool nbi) override {
    stream& st = *streams_[sid];
    RDSM_TRY(peers_.reach(st, pe));
    if (nbi) st.pending.store(true, std::memory_order_relaxed);
    ucp_request_param_t p{};
    ucs_status_ptr_t req = issue([&] { return ucp_get_nbx(ep_of(st, pe), dst, n, raddr, st.rkeys[id][pe], &p); });
    return finish(st, req, nbi, "get", pe);
  }

  status atomic(int sid, int id, int pe, uint64_t raddr, amo_op op, unsigned width, uint64_t value, uint64_t compare,
                void* result, bool nbi) override {
    stream& st = *streams_[sid];
    RDSM_TRY(peers_.reach(st, pe));
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
    p.datatype = ucp_dt_make_contig(width);
    uint64_t scratch = 0;
    if (op == amo_op::fetch) value = 0;  // fetch is an atomic add of zero
    // UCP_ATOMIC_OP_CSWAP compares the remote word with the operand (X) and stores the reply buffer's
    // initial contents (Z) when they are equal: the comparand is the operand, the new value goes in reply.
    uint64_t new_value = value;
    if (op == amo_op::cswap) value = compare;
    uint32_t value32 = static_cast<uint32_t>(value);
    const void* operand = width == 4 ? static_cast<const void*>(&value32) : static_cast<const void*>(&value);
    if (fetching(op)) {
      void* reply = result != nullptr ? result : &scratch;
      if (op == amo_op::cswap) std::memcpy(reply, &new_value, width);
      p.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
      p.reply_buffer = reply;
      // A set discards the old value into a scratch word that must outlive the request.
      if (result == nullptr) nbi = false;
    }
    if (nbi || !fetching(op)) st.pending.store(true, std::memory_order_relaxed);
    ucs_status_ptr_t req =
        issue([&] { return ucp_atomic_op_nbx(ep_of(st, pe), ucp_opcode(op), operand, 1, raddr, st.rkeys[id][pe], &p); });
    return finish(st, req, nbi, "atomic", pe);
  }

  bool pending(int sid) const override { return streams_[sid]->pending.load(std::memory_order_relaxed); }

  void fence(int sid) override { ucp_worker_fence(streams_[sid]->worker); }

  status quiet(int sid) override {
    stream& st = *streams_[sid];
    st.pending.store(false, std::memory_order_relaxed);
    ucp_request_param_t p{};
    ucs_status_ptr_t req = ucp_worker_flush_nbx(st.worker, &p);
    return finish(st, req, false, "quiet", -1);
  }

  bool progress(bool every_stream) override {
    // The main worker carries most traffic; the others (internal, contexts, the DSM's) are served at every
    // 16th call, since each poll of a TCP worker costs a system call, and at every call by a waiter past its
    // first 100 us (backoff: peers' operations on them wait for this PE's progress over TCP).
    if (!every_stream && (++progress_calls_ & 15) != 0) return ucp_worker_progress(streams_[0]->worker) != 0;
    std::shared_lock<std::shared_mutex> lock(streams_mutex_);
    return progress_all();
  }
  status set_message_handler(message_fn fn) override {
    on_message_ = std::move(fn);
    if (n_pes_ == 1) return {};
    ucp_am_handler_param_t hp{};
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
    hp.id = message_am_id;
    hp.cb = &ucx_transport::on_message;
    hp.arg = this;
    ucs_status_t s = ucp_worker_set_am_recv_handler(streams_[0]->worker, &hp);
    if (s != UCS_OK) return status::error("cannot install the message handler: " + ucs_text(s));
    return {};
  }

  status send_message(int pe, const void* data, size_t n) override {
    // The copy lives until UCX is done with it: freed at once when the send completed inline, else by the
    // completion callback. The header carries the sender.
    RDSM_TRY(peers_.reach(*streams_[0], pe));
    auto* copy = static_cast<char*>(std::malloc(n + sizeof(int32_t)));
    if (copy == nullptr) return status::error("out of memory for a protocol message");
    const int32_t from = my_pe_;
    std::memcpy(copy, &from, sizeof from);
    std::memcpy(copy + sizeof from, data, n);
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.flags = UCP_AM_SEND_FLAG_EAGER;
    p.cb.send = [](void* req, ucs_status_t, void* user) {
      std::free(user);
      ucp_request_free(req);
    };
    p.user_data = copy;
    ucs_status_ptr_t req = ucp_am_send_nbx(ep_of(*streams_[0], pe), message_am_id, copy, sizeof from, copy + sizeof from,
                                           n, &p);
    if (req == nullptr) {
      std::free(copy);
      return {};
    }
    if (UCS_PTR_IS_ERR(req)) {
      std::free(copy);
      return status::error(format("message to PE %d failed: %s", pe, ucs_status_string(UCS_PTR_STATUS(req))));
    }
    return {};
  }

  int event_fd() const override { return epfd_; }
  bool arm() override {
    std::shared_lock<std::shared_mutex> lock(streams_mutex_);
    for (auto& st : streams_)
      if (st != nullptr && ucp_worker_arm(st->worker) == UCS_ERR_BUSY) return false;
    return true;
  }

  std::string describe() const override {
    unsigned major = 0, minor = 0, release = 0;
    ucp_get_version(&major, &minor, &release);
    const char* tls = std::getenv("UCX_TLS");
    if (tls == nullptr && !tls_default_.empty())
      return format("UCX %u.%u.%u, UCX_TLS unset: %s (PEs of a host share rdsm's memory files)", major, minor,
                    release, tls_default_.c_str());
    return format("UCX %u.%u.%u, UCX_TLS=%s", major, minor, release, tls != nullptr ? tls : "all");
  }

  std::string describe_peer(int pe) override {
    status reached = peers_.reach(*streams_[0], pe);
    if (!reached.ok()) return reached.message();
    bool native_amo = false;
    std::string lanes = describe_lanes(ep_of(*streams_[0], pe), native_amo);
    return format("UCX lanes %s, atomics %s", lanes.c_str(),
                  native_amo ? "native" : "emulated (active messages served by the target's progress)");
  }

  status flush_all() override {
    for (int sid = 0; sid < max_streams; ++sid)
      if (streams_[sid] != nullptr) RDSM_TRY(quiet(sid));
    return {};
  }

  void begin_shutdown() override { peers_.begin_shutdown(); }

  void disconnect() override {
    // Every endpoint of every stream closes in flush mode at once; the workers are progressed until all
    // have closed. A peer that no longer answers (it died) is closed by force after the deadline.
    std::vector<ucs_status_ptr_t> closing;
    for (auto& st : streams_) {
      if (st == nullptr) continue;
      ucx_endpoints::release_keys(*st);
      for (ucp_ep_h ep : peers_.take(*st)) {
        ucp_request_param_t p{};
        ucs_status_ptr_t req = ucp_ep_close_nbx(ep, &p);
        if (req != nullptr && !UCS_PTR_IS_ERR(req)) closing.push_back(req);
      }
    }
    const uint64_t deadline = monotonic_ns() + 3'000'000'000ull;
    for (ucs_status_ptr_t req : closing) wait_until(req, deadline);
    // The endpoints UCX made for peers' wire-up requests (it answers each with a reply) are no endpoints of
    // ours: a worker flush also waits for their replies, which a worker's destruction must not find pending
    // (UCX 1.13's assertion "got REP message" in ucp_worker_destroy).
    for (auto& st : streams_) {
      if (st == nullptr) continue;
      ucp_request_param_t p{};
      ucs_status_ptr_t req = ucp_worker_flush_nbx(st->worker, &p);
      if (req != nullptr && !UCS_PTR_IS_ERR(req)) wait_until(req, deadline);
    }
  }

 private:
  // Progresses every worker until the request completes or the deadline passes, then frees it (past the
  // deadline the request is left to the worker's destruction, which discards it).
  void wait_until(ucs_status_ptr_t req, uint64_t deadline) {
    while (ucp_request_check_status(req) == UCS_INPROGRESS && monotonic_ns() < deadline) {
      std::shared_lock<std::shared_mutex> lock(streams_mutex_);
      if (!progress_all()) sched_yield();
    }
    ucp_request_free(req);
  }

  // Unless UCX_TLS says otherwise, UCX loads every transport, its shared memory ones included (POSIX, SysV,
  // CMA: 17 of the 19 ms a worker takes to start here, and 4 MiB of each PE's memory). They would carry
  // nothing: they cannot detect a peer's failure, so endpoints with peer failure handling never use them,
  // and the PEs of a host reach each other through the core's memory files.
  void leave_out_shared_memory(ucp_config_t* cfg) {
    if (std::getenv("UCX_TLS") != nullptr) return;
    ucs_status_t s = ucp_config_modify(cfg, "TLS", "^sm");
    if (s != UCS_OK) {
      RDSM_LOG_WARN("boot", "UCX keeps its shared memory transports (UCX_TLS=^sm refused: %s)", ucs_text(s).c_str());
      return;
    }
    tls_default_ = "^sm";
  }

  // Progresses every worker; the caller holds streams_mutex_ (shared).
  bool progress_all() {
    bool any = false;
    const int n = n_streams_.load(std::memory_order_acquire);
    for (int i = 0; i < n; ++i)
      if (streams_[i] != nullptr) any = ucp_worker_progress(streams_[i]->worker) != 0 || any;
    return any;
  }

  // Adds the worker's wake-up descriptor to the set the progress thread sleeps on.
  status watch(stream& st) {
    int efd = -1;
    ucs_status_t s = ucp_worker_get_efd(st.worker, &efd);
    if (s != UCS_OK) return status::error("UCX worker has no event descriptor: " + ucs_text(s));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = efd;
    if (epoll_ctl(epfd_, EPOLL_CTL_ADD, efd, &ev) != 0)
      return status::error(format("epoll_ctl: %s", std::strerror(errno)));
    return {};
  }

  status create_worker(stream& st, ucs_thread_mode_t mode) {
    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = mode;
    ucs_status_t s = ucp_worker_create(context_, &wp, &st.worker);
    if (s != UCS_OK) return status::error("UCX worker could not be created: " + ucs_text(s) + descriptor_hint());
    return {};
  }

  static ucs_status_t on_message(void* arg, const void* header, size_t header_length, void* data, size_t length,
                                 const ucp_am_recv_param_t* param) {
    auto* self = static_cast<ucx_transport*>(arg);
    int32_t from = -1;
    if (header_length == sizeof from) std::memcpy(&from, header, sizeof from);
    // Messages are small and sent eagerly: the data is here (never a rendezvous descriptor).
    if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) == 0 && self->on_message_) self->on_message_(from, data, length);
    return UCS_OK;
  }

  // Issues an operation as a driver of the transport: a large put over TCP sends from within its issue for as
  // long as the socket takes data, holding the worker's lock, and a progress thread woken by the socket
  // meanwhile would spin on that lock (half a CPU in a 1 MiB put stream across two namespaces).
  template <class Issue>
  ucs_status_ptr_t issue(Issue&& call) {
    bool driving = false;
    drive(driving, true, 0);
    ucs_status_ptr_t req = call();
    drive(driving, false, monotonic_ns());
    return req;
  }

  // Waits for a request (blocking) or lets it complete on its own (nbi).
  status finish(stream& st, ucs_status_ptr_t req, bool nbi, const char* what, int pe) {
    if (req == nullptr) return {};
    if (UCS_PTR_IS_ERR(req))
      return status::error(format("%s to PE %d failed: %s", what, pe, ucs_status_string(UCS_PTR_STATUS(req))));
    if (nbi) {
      ucp_request_free(req);  // released by UCX when it completes; quiet() waits for it
      return {};
    }
    uint64_t idle_since = 0;
    ucs_status_t s;
    bool driving = false;
    drive(driving, true, 0);  // until its wait sleeps, this thread serves what arrives (not the progress thread)
    while ((s = ucp_request_check_status(req)) == UCS_INPROGRESS) {
      bool moved = ucp_worker_progress(st.worker) != 0;
      if (!moved) {
        // Peers may be waiting for one of this PE's other workers (wire-up replies): serve them too.
        std::shared_lock<std::shared_mutex> lock(streams_mutex_, std::try_to_lock);
        if (lock.owns_lock()) moved = progress_all();
      }
      if (moved) {
        idle_since = 0;
        continue;
      }
      idle_since = yield_after_spinning(idle_since, driving);
    }
    drive(driving, false, monotonic_ns());
    ucp_request_free(req);
    if (s != UCS_OK) return status::error(format("%s to PE %d failed: %s", what, pe, ucs_status_string(s)));
    return {};
  }

  // A request over TCP completes only when the peer's CPU reads it and answers. When PEs outnumber cores the
  // peer may be waiting for this core: wait_step never holds it for a whole time slice. Returns the idle start;
  // `driving` (transport::drive) follows whether the wait polls.
  uint64_t yield_after_spinning(uint64_t idle_since, bool& driving) {
    const uint64_t t = monotonic_ns();
    if (idle_since == 0) return t;
    const bool polls = wait_polls(t - idle_since);
    drive(driving, polls, t);
    wait_step(t - idle_since, polls);
    return idle_since;
  }

  // Closes what disconnect() left open (by force: the job is ending, or start-up failed) and destroys the
  // worker.
  void release_stream(stream& st) {
    ucx_endpoints::release_keys(st);
    for (ucp_ep_h ep : peers_.take(st)) close_now(st, ep);
    if (st.worker != nullptr) ucp_worker_destroy(st.worker);
    st.worker = nullptr;
  }

  static void close_now(stream& st, ucp_ep_h ep) {
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_EP_CLOSE_FLAG_FORCE;
    ucs_status_ptr_t req = ucp_ep_close_nbx(ep, &p);
    if (req != nullptr && !UCS_PTR_IS_ERR(req)) {
      while (ucp_request_check_status(req) == UCS_INPROGRESS) ucp_worker_progress(st.worker);
      ucp_request_free(req);
    }
  }

  void close() {
    peers_.begin_shutdown();
    for (auto& st : streams_)
      if (st != nullptr) release_stream(*st);
    for (ucp_mem_h memh : regions_)
      if (memh != nullptr) ucp_mem_unmap(context_, memh);
    regions_.clear();
    if (context_ != nullptr) ucp_cleanup(context_);
    context_ = nullptr;
    if (epfd_ >= 0) ::close(epfd_);
    epfd_ = -1;
    shm_dir_.remove();
  }

  int my_pe_;
  int n_pes_;
  std::string tls_default_;  // what rdsm gave UCX for an unset UCX_TLS
  ucp_context_h context_ = nullptr;
  int epfd_ = -1;  // epoll set of every worker's wake-up descriptor
  std::string address_;
  ucx_endpoints peers_;
  std::vector<ucp_mem_h> regions_;
  // Streams never move (contexts hold their index; other threads read the table): slot 0 is the main worker.
  static constexpr int max_streams = 256;
  std::unique_ptr<stream> streams_[max_streams];
  std::atomic<int> n_streams_{1};  // slots below this may hold a stream
  std::atomic<unsigned> progress_calls_{0};
  std::shared_mutex streams_mutex_;  // guards stream creation/destruction against progress
  static constexpr unsigned message_am_id = 1;
  message_fn on_message_;
  ucx_shm_dir shm_dir_;  // this PE's directory for UCX's shared memory files, when rdsmrun made none
};

result<std::unique_ptr<transport>> transport::create(int my_pe, int n_pes, peer_failure_fn on_failure,
                                                     const std::string& shm_parent) {
  auto t = std::make_unique<ucx_transport>(my_pe, n_pes, std::move(on_failure));
  RDSM_TRY(t->open(shm_parent));
  return std::unique_ptr<transport>(std::move(t));
}

}  // namespace rdsm::detail
