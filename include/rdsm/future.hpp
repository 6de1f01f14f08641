// rdsm C++ API: future<void>, the completion handle non-blocking RMA returns.
#pragma once

#include "rdsm/detail/cxx20.hpp"

#include <shmem.h>

#include <utility>

namespace rdsm {

/// Completion handle of a non-blocking operation (put_nbi, get_nbi, put_signal_nbi, the *_nbi AMOs).
///
/// Completion semantics: wait() calls shmem_quiet (shmem_ctx_quiet on the operation's context), and
/// quiet completes *every* outstanding put, get_nbi, AMO and signal this PE issued on that context, not
/// only this one. So one wait() completes the operations of all earlier futures too; waiting on them
/// afterwards is cheap but calls quiet again. After wait() a put's source may be reused and the data is
/// visible at the target; a get's destination holds the data.
///
/// Destruction: the destructor never blocks and never calls quiet. Dropping a future without wait()
/// leaves the operation outstanding: it still completes, at the next quiet(), barrier() or wait() of
/// another future. Until then the buffers it reads or writes must stay alive and untouched. We chose this
/// over a blocking destructor because a silent quiet in a destructor serializes code that meant to
/// overlap (and UPC++ futures do not block on destruction either); [[nodiscard]] makes an accidental drop
/// a warning, and detach() states an intentional one.
///
/// Thread safety: a future is used by one thread at a time; wait() is as thread-safe as shmem_quiet at
/// the thread level the runtime was started with.
template <class T = void>
class future;

/// future<void> (spelled rdsm::future<>), the only specialization: non-blocking RMA carries no value, and
/// the non-blocking fetching AMOs (fetch_add_nbi, ...) deliver theirs into a variable the caller names.
template <>
class [[nodiscard]] future<void> {
 public:
  /// An empty future (valid() == false); wait() on it returns at once.
  future() noexcept = default;
  /// A future for an operation issued on `ctx`.
  explicit future(shmem_ctx_t ctx) noexcept : ctx_(ctx), pending_(true) {}
  future(future&& other) noexcept : ctx_(other.ctx_), pending_(std::exchange(other.pending_, false)) {}
  future& operator=(future&& other) noexcept {
    ctx_ = other.ctx_;
    pending_ = std::exchange(other.pending_, false);
    return *this;
  }
  future(const future&) = delete;
  future& operator=(const future&) = delete;
  /// Does not block; see the class comment.
  ~future() = default;

  /// True until wait() or detach() was called (or the future was moved from).
  bool valid() const noexcept { return pending_; }
  /// Completes the operation (and every other outstanding one on its context: shmem_quiet). Blocking.
  void wait() noexcept {
    if (!pending_) return;
    if (ctx_ == SHMEM_CTX_DEFAULT)
      shmem_quiet();
    else
      shmem_ctx_quiet(ctx_);
    pending_ = false;
  }
  /// Gives up the handle: the operation completes at the next quiet or barrier. Never blocks.
  void detach() noexcept { pending_ = false; }

 private:
  shmem_ctx_t ctx_ = nullptr;
  bool pending_ = false;
};

}  // namespace rdsm
