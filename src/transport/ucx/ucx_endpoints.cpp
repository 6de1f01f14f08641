// Endpoints and remote keys of the transport's streams.
#include "transport/ucx/ucx_endpoints.hpp"

#include "common/log.hpp"

namespace rdsm::detail {

ucx_endpoints::ucx_endpoints(int my_pe, int n_pes, transport::peer_failure_fn on_failure)
    : my_pe_(my_pe), n_pes_(n_pes), on_failure_(std::move(on_failure)) {
  packed_keys_.reserve(max_regions);
  ep_ctx_.resize(static_cast<size_t>(n_pes_));
  for (int pe = 0; pe < n_pes_; ++pe) ep_ctx_[pe] = {this, pe};
}

void ucx_endpoints::set_addresses(std::vector<std::string> addresses) { addresses_ = std::move(addresses); }

// A stream's endpoints go from its worker to every other PE's main worker, and to this PE through the
// stream's own worker (UCX's self transport). An endpoint from one worker to another worker of the same
// process would be a TCP connection of the process with itself when UCX_TLS has no shared memory: both of
// its ends are then wired up at once inside one process, where UCX 1.13 frees a connection that its event
// loop still dispatches (a crash in uct_tcp_iface_progress after a context was used).
status ucx_endpoints::prepare(stream& st, bool main) {
  st.eps = std::make_unique<std::atomic<ucp_ep_h>[]>(static_cast<size_t>(n_pes_));
  st.rkeys.reserve(max_regions);  // the table is not moved under readers when a region is added
  if (main) return {};
  ucp_address_t* addr = nullptr;
  size_t len = 0;
  ucs_status_t s = ucp_worker_get_address(st.worker, &addr, &len);
  if (s != UCS_OK) return status::error(format("UCX worker address unavailable: %s", ucs_status_string(s)));
  st.own_address.assign(reinterpret_cast<const char*>(addr), len);
  ucp_worker_release_address(st.worker, addr);
  return {};
}

void ucx_endpoints::set_region_keys(int id, std::vector<std::string> keys) {
  // Within the reserved capacity: threads that connect meanwhile read the regions before this one.
  if (packed_keys_.size() <= static_cast<size_t>(id)) packed_keys_.resize(static_cast<size_t>(id) + 1);
  packed_keys_[id] = std::move(keys);
}

status ucx_endpoints::unpack_keys(stream& st, int id) {
  std::vector<std::pair<int, ucp_ep_h>> reached;
  {
    std::lock_guard<std::mutex> lock(connect_mutex_);
    if (st.rkeys.size() != static_cast<size_t>(id)) return status::error("internal: regions added out of order");
    st.rkeys.emplace_back(static_cast<size_t>(n_pes_), nullptr);
    for (int pe = 0; pe < n_pes_; ++pe)
      if (ucp_ep_h ep = ep_of(st, pe); ep != nullptr) reached.emplace_back(pe, ep);
  }
  for (auto [pe, ep] : reached) RDSM_TRY(unpack_key(ep, id, pe, st.rkeys[id][pe]));
  return {};
}

// Two threads may make an endpoint each: the first published is used, the other is kept unused until the
// endpoints close (closing it now would look like a failure to the peer).
status ucx_endpoints::connect(stream& st, int pe) {
  if (shutting_down_.load(std::memory_order_acquire))
    return status::error(format("no connection to PE %d: the job is shutting down", pe));
  ucp_ep_params_t params{};
  params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  const std::string& to = pe == my_pe_ && !st.own_address.empty() ? st.own_address : addresses_[pe];
  params.address = reinterpret_cast<const ucp_address_t*>(to.data());
  // Peers get failure detection; the endpoint to this PE itself uses the self transport, which has
  // no peer failure handling (and nothing to detect).
  params.err_mode = pe == my_pe_ ? UCP_ERR_HANDLING_MODE_NONE : UCP_ERR_HANDLING_MODE_PEER;
  if (pe != my_pe_) {
    params.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLER;
    params.err_handler.cb = &ucx_endpoints::on_ep_error;
    params.err_handler.arg = &ep_ctx_[pe];
  }
  ucp_ep_h ep = nullptr;
  ucs_status_t s = ucp_ep_create(st.worker, &params, &ep);
  if (s == UCS_ERR_UNREACHABLE && pe != my_pe_)
    return status::error(format("cannot connect to PE %d (ucp_ep_create: %s): UCX has no transport to it that "
                                "detects a peer's failure, which rdsm needs; allow tcp in UCX_TLS or unset it",
                                pe, ucs_status_string(s)));
  if (s != UCS_OK) return status::error(format("cannot connect to PE %d: ucp_ep_create: %s", pe, ucs_status_string(s)));
  // The PE's key of every region, unpacked outside the lock; a region added meanwhile is unpacked too.
  std::vector<ucp_rkey_h> keys;
  for (;;) {
    size_t regions = 0;
    {
      std::lock_guard<std::mutex> lock(connect_mutex_);
      regions = st.rkeys.size();
      if (keys.size() == regions) {
        if (st.eps[pe].load(std::memory_order_relaxed) == nullptr) {
          for (size_t id = 0; id < regions; ++id) st.rkeys[id][pe] = keys[id];
          st.eps[pe].store(ep, std::memory_order_release);
          return {};
        }
        st.spare.push_back(ep);
        break;
      }
    }
    while (keys.size() < regions) {
      ucp_rkey_h key = nullptr;
      status unpacked = unpack_key(ep, static_cast<int>(keys.size()), pe, key);
      if (!unpacked.ok()) {
        for (ucp_rkey_h k : keys) ucp_rkey_destroy(k);
        std::lock_guard<std::mutex> lock(connect_mutex_);
        st.spare.push_back(ep);
        return unpacked;
      }
      keys.push_back(key);
    }
  }
  for (ucp_rkey_h key : keys) ucp_rkey_destroy(key);  // another thread published its endpoint first
  return {};
}

std::vector<ucp_ep_h> ucx_endpoints::take(stream& st) {
  std::vector<ucp_ep_h> eps;
  std::lock_guard<std::mutex> lock(connect_mutex_);
  for (int pe = 0; pe < n_pes_ && st.eps != nullptr; ++pe)
    if (ucp_ep_h ep = st.eps[pe].exchange(nullptr); ep != nullptr) eps.push_back(ep);
  eps.insert(eps.end(), st.spare.begin(), st.spare.end());
  st.spare.clear();
  return eps;
}

void ucx_endpoints::release_keys(stream& st) {
  for (auto& keys : st.rkeys)
    for (ucp_rkey_h k : keys)
      if (k != nullptr) ucp_rkey_destroy(k);
  st.rkeys.clear();
}

status ucx_endpoints::unpack_key(ucp_ep_h ep, int id, int pe, ucp_rkey_h& key) {
  ucs_status_t s = ucp_ep_rkey_unpack(ep, packed_keys_[id][pe].data(), &key);
  if (s != UCS_OK) return status::error(format("cannot use PE %d's memory key: %s", pe, ucs_status_string(s)));
  return {};
}

void ucx_endpoints::on_ep_error(void* arg, ucp_ep_h, ucs_status_t s) {
  auto* ctx = static_cast<ep_context*>(arg);
  if (ctx->owner->shutting_down_.load(std::memory_order_acquire)) return;
  ctx->owner->on_failure_(ctx->pe, ucs_status_string(s));
}

}  // namespace rdsm::detail
