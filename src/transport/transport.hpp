// The RDMA engine seen by the core: registered regions, one-sided operations, atomics, ordering.
// The header names no UCX type; the implementation (ucx/) keeps every UCX handle behind it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "transport/drivers.hpp"

namespace rdsm::detail {

/// Atomic operations on 4- or 8-byte remote words.
enum class amo_op { fetch, set, swap, cswap, add, fetch_add, band, fetch_and, bor, fetch_or, bxor, fetch_xor };

class transport : public drivers {
 public:
  /// Called (from any thread) when a peer fails; the core ends the job naming the PE.
  using peer_failure_fn = std::function<void(int pe, const std::string& cause)>;

  /// `shm_parent`: where to make this PE's own directory for the transport's shared memory files (removed
  /// when the process ends, however it ends), unless the job already has one (rdsmrun makes it).
  static result<std::unique_ptr<transport>> create(int my_pe, int n_pes, peer_failure_fn on_failure,
                                                   const std::string& shm_parent);
  virtual ~transport() = default;

  /// This worker's address, to be exchanged through the bootstrap.
  virtual std::string worker_address() const = 0;
  /// Takes every worker's address, indexed by PE. The connection to a PE is made at the first operation to it
  /// (so a PE reaches only the peers it talks to, and none of them while starting).
  virtual status connect(const std::vector<std::string>& addresses) = 0;

  /// Registers [base, base+length), memory the caller owns, for remote access. Returns the region id (0, 1,
  /// ... in call order).
  virtual result<int> map_region(void* base, size_t length) = 0;
  /// Packed remote key of a local region, to be exchanged through the bootstrap.
  virtual result<std::string> pack_region_key(int id) const = 0;
  /// Installs every PE's packed key of region `id` (unpacked as each PE is reached).
  virtual status unpack_region_keys(int id, std::vector<std::string> keys) = 0;

  /// A stream is an independent sequence of operations with its own UCX worker and endpoints (an
  /// OpenSHMEM context). Stream 0 always exists and also serves incoming emulated operations.
  /// create_stream() makes another; `exclusive` streams are used by one thread at a time (no locking).
  virtual result<int> create_stream(bool exclusive) = 0;
  /// Completes the stream's operations and releases it.
  virtual void destroy_stream(int stream) = 0;

  /// Copies `n` bytes to `pe` at remote address `raddr` of region `id`. Blocking forms return when the
  /// source may be reused; nbi forms return at once (source must stay untouched until quiet()).
  virtual status put(int stream, int id, int pe, uint64_t raddr, const void* src, size_t n, bool nbi) = 0;
  /// Copies `n` bytes from `pe`. The blocking form returns when `dst` holds the data; nbi at quiet().
  virtual status get(int stream, int id, int pe, uint64_t raddr, void* dst, size_t n, bool nbi) = 0;
  /// Atomic `op` of `width` (4 or 8) bytes at raddr. For fetching ops the old value is written to
  /// `result` (blocking: before return; nbi: by quiet()). `compare` is used by cswap only.
  virtual status atomic(int stream, int id, int pe, uint64_t raddr, amo_op op, unsigned width, uint64_t value,
                        uint64_t compare, void* result, bool nbi) = 0;
  /// True when operations were issued on the stream since its last quiet (they may be incomplete).
  virtual bool pending(int stream) const = 0;
  /// Orders the stream's operations issued before it to each PE before those issued after it.
  virtual void fence(int stream) = 0;
  /// Completes every operation issued so far on the stream (remote completion).
  virtual status quiet(int stream) = 0;
  /// Makes progress on incoming and outgoing operations; returns true if anything happened. `every_stream`:
  /// on every stream's worker now; otherwise the main one, and the others at every 16th call.
  virtual bool progress(bool every_stream = false) = 0;
  /// A file descriptor that becomes readable when there is work; arm() returns false when there is
  /// already work to do (the caller must progress instead of sleeping).
  virtual int event_fd() const = 0;
  virtual bool arm() = 0;
  /// Protocol messages (the DSM's): a small message is copied and sent to `pe`'s handler, which runs
  /// inside that PE's transport progress (on any thread progressing stream 0). Messages between two PEs
  /// arrive in the order they were sent. Only to other PEs (a single PE has no message path).
  using message_fn = std::function<void(int from_pe, const void* data, size_t n)>;
  virtual status set_message_handler(message_fn fn) = 0;
  virtual status send_message(int pe, const void* data, size_t n) = 0;

  /// Transports in use, for rdsm-info / SHMEM_INFO.
  virtual std::string describe() const = 0;
  /// How operations to `pe` travel when they go through UCX: the transports of the endpoint's lanes and
  /// whether atomics are native (a lane for atomics) or emulated with active messages at the target.
  /// Connects to `pe` if this PE had not yet.
  virtual std::string describe_peer(int pe) = 0;
  /// Completes everything on every stream, wire-up included (before shutdown: UCX 1.13 cannot destroy a
  /// worker with wire-up messages still pending).
  virtual status flush_all() = 0;
  /// Begins shutdown: peer failures are no longer reported as errors (peers closing their endpoints look
  /// alike). Thread-safe; may be read by UCX callbacks on any thread.
  virtual void begin_shutdown() = 0;
  /// Closes every endpoint of every stream, flushing each first, and waits until every worker's answers to
  /// peers' wire-up are sent (at most a few seconds in all, then by force); no operation may be issued
  /// afterwards. Peers' traffic may still arrive until they have disconnected too: keep the workers
  /// progressed (the progress thread) until the bootstrap says so, then destroy the transport.
  virtual void disconnect() = 0;
};

}  // namespace rdsm::detail
