// rdsm C++ API: rdsm::context, a communication context (OpenSHMEM 1.5 contexts): its operations are
// ordered by its own fence() and completed by its own quiet(), apart from those of the default context and
// of other contexts, so that threads (or phases of one thread) do not wait for each other's operations.
#pragma once

#include "rdsm/detail/cxx20.hpp"

#include <shmem.h>

#include <array>
#include <bit>
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "rdsm/concepts.hpp"
#include "rdsm/detail/amo.hpp"
#include "rdsm/detail/misuse.hpp"
#include "rdsm/future.hpp"
#include "rdsm/global_ptr.hpp"
#include "rdsm/status.hpp"
#include "rdsm/team.hpp"

namespace rdsm {

/// A communication context. Created on the world (every PE reachable) or on a team (members only); the
/// operations take global_ptr targets as everywhere in the API (world PE numbers: a team context translates
/// them, and a PE outside its team ends the job with one line). Semantics of each call are those of the
/// same free function (rma.hpp, atomic.hpp) on this context. Move-only; the destructor completes the
/// context's outstanding operations and destroys it (futures it returned must be waited for or detached
/// before). Creating or destroying one is local (not collective). Thread safety: a context made with
/// `serialized` or `private_only` is for one thread at a time (private_only: the creating thread only).
class context {
 public:
  /// Options (OpenSHMEM SHMEM_CTX_*), combined with |.
  static constexpr long serialized = SHMEM_CTX_SERIALIZED;
  static constexpr long private_only = SHMEM_CTX_PRIVATE;
  static constexpr long nostore = SHMEM_CTX_NOSTORE;

  /// A context on the world (shmem_ctx_create). Throws rdsm::error when the library cannot make one.
  explicit context(long options = 0) {
    if (shmem_ctx_create(options, &ctx_) != 0)
      throw error("rdsm::context: shmem_ctx_create(" + std::to_string(options) + ") failed");
  }
  /// A context on team `t` (shmem_team_create_ctx), which it keeps alive. Throws rdsm::error when `t` is
  /// invalid or the library cannot make one.
  explicit context(const rdsm::team& t, long options = 0) : team_(t) {
    if (!t.valid() || shmem_team_create_ctx(t.handle(), options, &ctx_) != 0)
      throw error(std::string("rdsm::context: ") +
                  (t.valid() ? "shmem_team_create_ctx(" + std::to_string(options) + ") failed"
                             : "the team is invalid (this PE is not a member)"));
  }
  context(context&& other) noexcept
      : ctx_(std::exchange(other.ctx_, SHMEM_CTX_INVALID)), team_(std::move(other.team_)) {}
  context& operator=(context&& other) noexcept {
    if (this != &other) {
      destroy();
      ctx_ = std::exchange(other.ctx_, SHMEM_CTX_INVALID);
      team_ = std::move(other.team_);
    }
    return *this;
  }
  context(const context&) = delete;
  context& operator=(const context&) = delete;
  ~context() { destroy(); }

  /// The C handle (SHMEM_CTX_INVALID once moved from), for shmem_ctx_* calls. Still owned by the context.
  shmem_ctx_t raw() const noexcept { return ctx_; }
  /// The team the context was made on (team::world() for a world context).
  rdsm::team team() const { return team_.valid() ? team_ : rdsm::team::world(); }

  /// put/get as the free functions of rma.hpp, on this context.
  template <remote_copyable T>
    requires(!std::is_const_v<T>)
  void put(const std::type_identity_t<T>& value, global_ptr<T> dst) const noexcept {
    shmem_ctx_putmem(ctx_, dst.raw(), &value, sizeof(T), pe_of(dst.where(), "rdsm::context::put"));
  }
  template <remote_copyable T>
    requires(!std::is_const_v<T>)
  void put(std::span<const std::type_identity_t<T>> src, global_ptr<T> dst) const noexcept {
    if (!src.empty())
      shmem_ctx_putmem(ctx_, dst.raw(), src.data(), src.size_bytes(), pe_of(dst.where(), "rdsm::context::put"));
  }
  template <remote_copyable T>
  std::remove_const_t<T> get(global_ptr<T> src) const noexcept {
    using value_type = std::remove_const_t<T>;
    alignas(value_type) std::array<std::byte, sizeof(value_type)> bytes;
    shmem_ctx_getmem(ctx_, bytes.data(), src.raw(), sizeof(value_type), pe_of(src.where(), "rdsm::context::get"));
    return std::bit_cast<value_type>(bytes);
  }
  template <remote_copyable T>
  void get(global_ptr<T> src, std::span<std::remove_const_t<T>> dest) const noexcept {
    if (!dest.empty())
      shmem_ctx_getmem(ctx_, dest.data(), src.raw(), dest.size_bytes(), pe_of(src.where(), "rdsm::context::get"));
  }
  /// Non-blocking put and get: the future's wait() quiets this context only.
  template <remote_copyable T>
    requires(!std::is_const_v<T>)
  [[nodiscard]] future<> put_nbi(std::span<const std::type_identity_t<T>> src, global_ptr<T> dst) const noexcept {
    if (!src.empty())
      shmem_ctx_putmem_nbi(ctx_, dst.raw(), src.data(), src.size_bytes(), pe_of(dst.where(), "rdsm::context::put_nbi"));
    return future<>(ctx_);
  }
  template <class Range, class T>
    requires(!std::is_lvalue_reference_v<Range> && !std::ranges::borrowed_range<Range>)
  future<> put_nbi(Range&& src, global_ptr<T> dst) const = delete;  // a temporary source: see rma.hpp
  template <remote_copyable T>
  [[nodiscard]] future<> get_nbi(global_ptr<T> src, std::span<std::remove_const_t<T>> dest) const noexcept {
    if (!dest.empty())
      shmem_ctx_getmem_nbi(ctx_, dest.data(), src.raw(), dest.size_bytes(), pe_of(src.where(), "rdsm::context::get_nbi"));
    return future<>(ctx_);
  }

  /// Atomics as the free functions of atomic.hpp, on this context.
  template <atomic_value T>
  T fetch(global_ptr<T> target) const noexcept {
    return static_cast<T>(detail::ctx_amo_fetch(ctx_, detail::carrier(target.raw()), pe_of(target.where(), "rdsm::context::fetch")));
  }
  template <atomic_value T>
  void set(global_ptr<T> target, std::type_identity_t<T> value) const noexcept {
    detail::ctx_amo_set(ctx_, detail::carrier(target.raw()), static_cast<detail::amo_carrier_t<T>>(value),
                        pe_of(target.where(), "rdsm::context::set"));
  }
  template <atomic_value T>
  T swap(global_ptr<T> target, std::type_identity_t<T> value) const noexcept {
    return static_cast<T>(detail::ctx_amo_swap(ctx_, detail::carrier(target.raw()),
                                               static_cast<detail::amo_carrier_t<T>>(value),
                                               pe_of(target.where(), "rdsm::context::swap")));
  }
  template <atomic_integral T>
  T compare_swap(global_ptr<T> target, std::type_identity_t<T> expected, std::type_identity_t<T> desired) const noexcept {
    using C = detail::amo_carrier_t<T>;
    return static_cast<T>(detail::ctx_amo_compare_swap(ctx_, detail::carrier(target.raw()), static_cast<C>(expected),
                                                       static_cast<C>(desired),
                                                       pe_of(target.where(), "rdsm::context::compare_swap")));
  }
  template <atomic_integral T>
  T fetch_add(global_ptr<T> target, std::type_identity_t<T> value) const noexcept {
    return static_cast<T>(detail::ctx_amo_fetch_add(ctx_, detail::carrier(target.raw()),
                                                    static_cast<detail::amo_carrier_t<T>>(value),
                                                    pe_of(target.where(), "rdsm::context::fetch_add")));
  }
  template <atomic_integral T>
  void add(global_ptr<T> target, std::type_identity_t<T> value) const noexcept {
    detail::ctx_amo_add(ctx_, detail::carrier(target.raw()), static_cast<detail::amo_carrier_t<T>>(value),
                        pe_of(target.where(), "rdsm::context::add"));
  }
  template <atomic_integral T>
  T fetch_inc(global_ptr<T> target) const noexcept {
    return static_cast<T>(detail::ctx_amo_fetch_inc(ctx_, detail::carrier(target.raw()),
                                                    pe_of(target.where(), "rdsm::context::fetch_inc")));
  }
  template <atomic_integral T>
  void inc(global_ptr<T> target) const noexcept {
    detail::ctx_amo_inc(ctx_, detail::carrier(target.raw()), pe_of(target.where(), "rdsm::context::inc"));
  }

  /// Orders this context's puts, AMOs and signals to each PE (shmem_ctx_fence).
  void fence() const noexcept { shmem_ctx_fence(ctx_); }
  /// Completes this context's outstanding operations (shmem_ctx_quiet); the default context's and other
  /// contexts' are not waited for.
  void quiet() const noexcept { shmem_ctx_quiet(ctx_); }

 private:
  // The PE number the C call takes: the world PE itself, or its number in the context's team.
  int pe_of(int world_pe, const char* fn) const noexcept {
    if (!team_.valid()) return world_pe;
    const int pe = shmem_team_translate_pe(SHMEM_TEAM_WORLD, world_pe, team_.handle());
    if (pe < 0)
      detail::misuse("%s: PE %d is not a member of the context's team (%d members); pass a global_ptr to a member",
                     fn, world_pe, team_.size());
    return pe;
  }
  void destroy() noexcept {
    if (ctx_ != SHMEM_CTX_INVALID) shmem_ctx_destroy(std::exchange(ctx_, SHMEM_CTX_INVALID));
  }

  shmem_ctx_t ctx_ = SHMEM_CTX_INVALID;
  rdsm::team team_;  // the invalid team for a world context
};

}  // namespace rdsm
