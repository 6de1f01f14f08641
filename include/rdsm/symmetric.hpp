// rdsm C++ API: symmetric<T> and symmetric_array<T>, RAII collective allocations on the symmetric heap.
#pragma once

#include "rdsm/detail/cxx20.hpp"

#include <shmem.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <utility>

#include "rdsm/concepts.hpp"
#include "rdsm/global_ptr.hpp"
#include "rdsm/status.hpp"

namespace rdsm {

namespace detail {
// Allocates `bytes` with T's alignment; throws bad_symmetric_alloc naming SHMEM_SYMMETRIC_SIZE.
// shmem_malloc/shmem_align are collective and end with a barrier.
inline void* symmetric_allocate(const char* who, std::size_t bytes, std::size_t align) {
  void* p = align <= alignof(std::max_align_t) ? shmem_malloc(bytes) : shmem_align(align, bytes);
  if (p == nullptr) {
    const char* limit = std::getenv("SHMEM_SYMMETRIC_SIZE");
    throw bad_symmetric_alloc(std::string(who) + ": cannot allocate " + std::to_string(bytes) +
                              " bytes of symmetric memory; raise SHMEM_SYMMETRIC_SIZE (now " +
                              (limit != nullptr ? limit : "the default") + ")");
  }
  return p;
}
}  // namespace detail

/// One object of type T at the same symmetric address on every PE (shmem_malloc). Construction and
/// destruction are collective over the world team: every PE creates and destroys its symmetric objects
/// in the same order, with the same arguments, while the runtime is alive. The constructor initializes
/// this PE's copy and then synchronizes (shmem_barrier_all), so when it returns every PE's copy is
/// initialized and may be the target of RMA. The destructor frees with shmem_free (which begins with a
/// barrier, so remote accesses issued before it complete first). Move-only; a moved-from object owns
/// nothing and frees nothing. Throws bad_symmetric_alloc when the heap is exhausted.
///
/// Thread safety: construct and destroy as the C API allows collectives; local access is plain memory.
template <remote_copyable T>
class symmetric {
 public:
  /// Allocates and initializes this PE's copy with T(args...). Collective.
  template <class... Args>
    requires(sizeof...(Args) > 0 && std::constructible_from<T, Args...>)
  explicit symmetric(Args&&... args) : ptr_(allocate()) {
    std::construct_at(ptr_, std::forward<Args>(args)...);
    shmem_barrier_all();
  }
  /// Allocates and value-initializes this PE's copy (T()). Collective. Not explicit, so that
  /// `symmetric<long> s = {};` and aggregates or arrays of symmetric objects initialize with braces.
  symmetric()
    requires std::constructible_from<T>
      : ptr_(allocate()) {
    std::construct_at(ptr_);
    shmem_barrier_all();
  }
  symmetric(symmetric&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)) {}
  symmetric& operator=(symmetric&& other) noexcept {
    if (this != &other) {
      release();
      ptr_ = std::exchange(other.ptr_, nullptr);
    }
    return *this;
  }
  symmetric(const symmetric&) = delete;
  symmetric& operator=(const symmetric&) = delete;
  /// Frees the object (collective; see the class comment).
  ~symmetric() { release(); }

  /// This PE's copy.
  T& operator*() const noexcept { return *ptr_; }
  T* operator->() const noexcept { return ptr_; }
  /// The symmetric address of this PE's copy (valid for the C API with any PE number).
  T* data() const noexcept { return ptr_; }
  /// The copy on PE `pe` (a world rank), for RMA and atomics.
  global_ptr<T> global(int pe) const noexcept { return global_ptr<T>(pe, ptr_); }

 private:
  static T* allocate() { return static_cast<T*>(detail::symmetric_allocate("rdsm::symmetric", sizeof(T), alignof(T))); }
  void release() noexcept {
    if (ptr_ != nullptr) shmem_free(ptr_);
    ptr_ = nullptr;
  }
  T* ptr_ = nullptr;
};

/// An array of `size` objects of type T at the same symmetric address on every PE (shmem_malloc).
/// Same collective rules as symmetric<T>: every PE constructs it with the same size, in the same order;
/// the constructor fills this PE's copy and synchronizes; the destructor frees (collective). A size of
/// 0 allocates nothing. Move-only. Throws bad_symmetric_alloc when the heap is exhausted.
///
/// Thread safety: as symmetric<T>.
template <remote_copyable T>
class symmetric_array {
 public:
  using value_type = T;

  /// An empty array (no allocation, not collective).
  symmetric_array() noexcept = default;
  /// Allocates `size` elements and sets each of this PE's to `init`. Collective.
  explicit symmetric_array(std::size_t size, const T& init = T{}) : size_(size) {
    if (size_ == 0) return;
    // A size whose bytes overflow asks for SIZE_MAX bytes, which no heap holds (on every PE alike).
    ptr_ = static_cast<T*>(detail::symmetric_allocate(
        "rdsm::symmetric_array", size_ > SIZE_MAX / sizeof(T) ? SIZE_MAX : size_ * sizeof(T), alignof(T)));
    std::uninitialized_fill_n(ptr_, size_, init);
    shmem_barrier_all();
  }
  symmetric_array(symmetric_array&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  symmetric_array& operator=(symmetric_array&& other) noexcept {
    if (this != &other) {
      release();
      ptr_ = std::exchange(other.ptr_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  symmetric_array(const symmetric_array&) = delete;
  symmetric_array& operator=(const symmetric_array&) = delete;
  /// Frees the array (collective; see symmetric<T>).
  ~symmetric_array() { release(); }

  /// This PE's element i (no bounds check).
  T& operator[](std::size_t i) const noexcept { return ptr_[i]; }
  /// The symmetric address of this PE's first element.
  T* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T* begin() const noexcept { return ptr_; }
  T* end() const noexcept { return ptr_ + size_; }
  /// This PE's elements as a span (symmetric: usable as a collective's dest or src).
  std::span<T> span() const noexcept { return {ptr_, size_}; }
  /// The first element of the copy on PE `pe` (a world rank); add i for element i.
  global_ptr<T> global(int pe) const noexcept { return global_ptr<T>(pe, ptr_); }

 private:
  void release() noexcept {
    if (ptr_ != nullptr) shmem_free(ptr_);
    ptr_ = nullptr;
    size_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace rdsm
