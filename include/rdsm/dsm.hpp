// rdsm C++ API for the DSM: dsm::array<T> (RAII collective allocation of coherent pages), dsm::mutex (a
// BasicLockable for std::lock_guard / std::scoped_lock), barrier, acquire/release fences, statistics.
// Wraps <rdsm/dsm.h>; the semantics are those of docs/design/dsm.md.
#pragma once

#include "rdsm/detail/cxx20.hpp"

#include <rdsm/dsm.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "rdsm/detail/misuse.hpp"
#include "rdsm/status.hpp"

namespace rdsm::dsm {

enum class placement { block = RDSM_DSM_BLOCK, cyclic = RDSM_DSM_CYCLIC, first_touch = RDSM_DSM_FIRST_TOUCH, on_pe = RDSM_DSM_ON_PE };

enum class advice {
  normal = RDSM_DSM_DEFAULT,
  read_only = RDSM_DSM_READ_ONLY,
  private_copy = RDSM_DSM_PRIVATE,
  migratory = RDSM_DSM_MIGRATORY,
  write_shared = RDSM_DSM_WRITE_SHARED,
  producer_consumer = RDSM_DSM_PRODUCER_CONSUMER
};

/// All writes before it, by any PE, are visible to all reads after it (collective).
inline void barrier() { rdsm_dsm_barrier(); }
/// Makes writes released before it visible here.
inline void acquire() { rdsm_dsm_acquire(); }
/// Publishes this PE's writes to the next acquirers.
inline void release() { rdsm_dsm_release(); }
inline std::size_t page_size() { return rdsm_dsm_page_size(); }
inline rdsm_dsm_stats_t stats() {
  rdsm_dsm_stats_t s{};
  rdsm_dsm_stats(&s);
  return s;
}

/// `n` objects of T in coherent pages at the same address on every PE, zero-initialized (T is trivially
/// copyable: pages move as bytes). Construction and destruction are collective; move-only. Throws
/// bad_symmetric_alloc when the DSM space is exhausted (raise RDSM_DSM_SIZE).
template <class T>
  requires std::is_trivially_copyable_v<T>
class array {
 public:
  using value_type = T;
  // A count whose bytes overflow asks for SIZE_MAX bytes, which no DSM space holds (on every PE alike).
  explicit array(std::size_t n, placement where = placement::block, std::size_t param = 0)
      : data_(static_cast<T*>(rdsm_dsm_alloc_placed(n > SIZE_MAX / sizeof(T) ? SIZE_MAX : n * sizeof(T),
                                                    static_cast<rdsm_dsm_placement_t>(where), param))),
        size_(n) {
    if (data_ == nullptr && n != 0)
      throw bad_symmetric_alloc("rdsm::dsm::array: cannot allocate " + std::to_string(n) + " objects of " +
                                std::to_string(sizeof(T)) + " bytes of DSM memory; raise RDSM_DSM_SIZE");
  }
  array(array&& other) noexcept : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  array& operator=(array&& other) noexcept {
    if (this != &other) {
      reset();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  array(const array&) = delete;
  array& operator=(const array&) = delete;
  ~array() { reset(); }

  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  std::span<T> span() { return {data_, size_}; }
  std::span<const T> span() const { return {data_, size_}; }
  /// Home PE of element i (-1 while undecided with first touch).
  int home(std::size_t i) const { return rdsm_dsm_home(data_ + i); }
  /// Annotates elements [first, first + count) (whole pages holding them; collective).
  void advise(advice a, std::size_t first = 0, std::size_t count = static_cast<std::size_t>(-1)) {
    count = clamped("rdsm::dsm::array::advise", first, count);
    rdsm_dsm_advise(data_ + first, count * sizeof(T), static_cast<rdsm_dsm_advice_t>(a));
  }
  /// Makes elements [first, first + count) present for reading or writing (rdsm_dsm_touch), before a
  /// system call reads or writes them.
  void touch(bool for_writing, std::size_t first = 0, std::size_t count = static_cast<std::size_t>(-1)) const {
    count = clamped("rdsm::dsm::array::touch", first, count);
    rdsm_dsm_touch(data_ + first, count * sizeof(T), for_writing ? RDSM_DSM_TOUCH_WRITE : RDSM_DSM_TOUCH_READ);
  }

 private:
  // The elements [first, first + count) that exist; `first` past the end is a misuse.
  std::size_t clamped(const char* fn, std::size_t first, std::size_t count) const {
    if (first > size_)
      detail::misuse("%s: first element %zu is past the end of the array (%zu elements)", fn, first, size_);
    return count > size_ - first ? size_ - first : count;
  }
  void reset() {
    if (data_ != nullptr) rdsm_dsm_free(data_);
    data_ = nullptr;
    size_ = 0;
  }
  T* data_;
  std::size_t size_;
};

/// A DSM lock (rdsm_dsm_lock_t) as a BasicLockable: acquire semantics on lock(), release on unlock().
/// Created and destroyed collectively.
class mutex {
 public:
  mutex() : handle_(rdsm_dsm_lock_create()) {}
  mutex(const mutex&) = delete;
  mutex& operator=(const mutex&) = delete;
  ~mutex() { rdsm_dsm_lock_destroy(handle_); }
  // BasicLockable
  void lock() { rdsm_dsm_lock(handle_); }
  void unlock() { rdsm_dsm_unlock(handle_); }

 private:
  rdsm_dsm_lock_t* handle_;
};

}  // namespace rdsm::dsm
