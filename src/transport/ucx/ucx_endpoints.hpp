// A UCX worker's endpoints to the job's PEs and the remote keys that go with them (the transport's streams).
#pragma once

#include <ucp/api/ucp.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "transport/transport.hpp"

namespace rdsm::detail {

/// A worker with an endpoint and the unpacked keys of every region per PE. Endpoints are made at the first
/// operation to a PE (with that PE's keys): a job's PEs mostly talk to few others, and UCX starts a wire-up
/// as it makes an endpoint, which a peer that dies meanwhile leaves half done.
struct stream {
  ucp_worker_h worker = nullptr;
  std::unique_ptr<std::atomic<ucp_ep_h>[]> eps;  // [pe]; published after the PE's keys
  std::vector<std::vector<ucp_rkey_h>> rkeys;    // [region][pe]; never reallocated (max_regions reserved)
  std::vector<ucp_ep_h> spare;                   // endpoints made twice by racing threads, closed at the end
  std::string own_address;                       // non-main streams reach this PE through their own worker
  std::atomic<bool> pending{false};
  bool in_use = false;
};

/// The stream's endpoint to `pe` (null before the stream reached it).
inline ucp_ep_h ep_of(const stream& st, int pe) { return st.eps[pe].load(std::memory_order_relaxed); }

/// What every stream needs to reach the job's PEs: their main workers' addresses, their packed keys of each
/// region, and the failure handler of each endpoint. Any thread may reach a PE; no lock of ours is held while
/// UCX runs (a thread inside a UCX callback, holding a worker's lock, may need an endpoint too).
class ucx_endpoints {
 public:
  static constexpr size_t max_regions = 8;

  ucx_endpoints(int my_pe, int n_pes, transport::peer_failure_fn on_failure);
  ucx_endpoints(const ucx_endpoints&) = delete;
  ucx_endpoints& operator=(const ucx_endpoints&) = delete;

  /// Every PE's main worker address (the job's exchange), before any stream reaches a PE.
  void set_addresses(std::vector<std::string> addresses);
  /// Gives a new stream its table of endpoints and, unless it is the main one, its own address.
  [[nodiscard]] status prepare(stream& st, bool main);
  /// Every PE's packed key of region `id` (regions come in order, at most max_regions).
  void set_region_keys(int id, std::vector<std::string> keys);
  /// Adds region `id` to the stream's keys and unpacks them for the PEs it has reached (endpoints published
  /// later unpack their own).
  [[nodiscard]] status unpack_keys(stream& st, int id);

  /// Makes sure the stream has its endpoint to `pe` (the first operation to a PE makes it).
  [[nodiscard]] status reach(stream& st, int pe) {
    if (st.eps[pe].load(std::memory_order_acquire) != nullptr) [[likely]]
      return {};
    return connect(st, pe);
  }

  /// Takes every endpoint of the stream out of use (the job is ending).
  std::vector<ucp_ep_h> take(stream& st);
  static void release_keys(stream& st);

  /// From here on no endpoint is made and peers' failures are the job's end, not news.
  void begin_shutdown() { shutting_down_.store(true, std::memory_order_release); }

 private:
  struct ep_context {
    ucx_endpoints* owner;
    int pe;
  };

  status connect(stream& st, int pe);
  status unpack_key(ucp_ep_h ep, int id, int pe, ucp_rkey_h& key);
  static void on_ep_error(void* arg, ucp_ep_h, ucs_status_t s);

  int my_pe_;
  int n_pes_;
  transport::peer_failure_fn on_failure_;
  std::vector<std::string> addresses_;
  std::vector<ep_context> ep_ctx_;
  std::vector<std::vector<std::string>> packed_keys_;  // [region][pe]; reserved: read while a region is added
  std::mutex connect_mutex_;  // publishes endpoints and adds regions' keys; never held while UCX runs
  std::atomic<bool> shutting_down_{false};  // read by UCX's error callbacks on any thread
};

}  // namespace rdsm::detail
