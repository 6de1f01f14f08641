// rdsm-cachebench: the SIGSEGV-driven lazy block allocator the coherence study describes.
#include "lazy_region.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace rdsm::cachebench {
namespace {

std::atomic<lazy_region*> g_active{nullptr};
struct sigaction g_previous;
std::atomic<bool> g_installed{false};

// Async-signal-safe report of a failure inside the handler.
[[noreturn]] void die_in_handler(const char* what) {
  const char* msg = "rdsm-cachebench: fault handler: ";
  ssize_t r = write(STDERR_FILENO, msg, std::strlen(msg));
  r = write(STDERR_FILENO, what, std::strlen(what));
  r = write(STDERR_FILENO, "\n", 1);
  (void)r;
  _exit(3);
}

}  // namespace

void install_fault_handler() {
  if (g_installed.exchange(true)) return;
  struct sigaction sa{};
  sa.sa_sigaction = &lazy_region::on_fault;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, &g_previous) != 0)
    throw std::runtime_error(std::string("sigaction(SIGSEGV): ") + std::strerror(errno));
}

lazy_region::lazy_region(size_t pages, unsigned order)
    : pages_(pages), page_size_(static_cast<size_t>(sysconf(_SC_PAGESIZE))) {
  block_bytes_ = page_size_ << order;
  blocks_ = (pages_ * page_size_ + block_bytes_ - 1) / block_bytes_;
  raw_bytes_ = (blocks_ + 1) * block_bytes_;
  void* p = mmap(nullptr, raw_bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error(std::string("mmap reserve: ") + std::strerror(errno));
  raw_ = static_cast<char*>(p);
  const uintptr_t aligned = (reinterpret_cast<uintptr_t>(raw_) + block_bytes_ - 1) & ~(uintptr_t{block_bytes_} - 1);
  base_ = reinterpret_cast<char*>(aligned);
  touched_.resize(blocks_);
  install_fault_handler();
  lazy_region* expected = nullptr;
  if (!g_active.compare_exchange_strong(expected, this)) {
    munmap(raw_, raw_bytes_);
    throw std::runtime_error("lazy_region: another region is active");
  }
}

lazy_region::~lazy_region() {
  g_active.store(nullptr);
  munmap(raw_, raw_bytes_);
}

void lazy_region::on_fault(int sig, siginfo_t* info, void* context) {
  (void)context;
  lazy_region* r = g_active.load(std::memory_order_acquire);
  char* addr = static_cast<char*>(info->si_addr);
  if (r == nullptr || addr < r->base_ || addr >= r->base_ + r->blocks_ * r->block_bytes_) {
    // Not ours: restore the previous disposition and return; the access faults again and reaches it.
    sigaction(sig, &g_previous, nullptr);
    return;
  }
  const size_t index = static_cast<size_t>(addr - r->base_) / r->block_bytes_;
  char* block = r->base_ + index * r->block_bytes_;
  // The whole block is allocated at once, as a contiguous 2^order-page allocation would be.
  void* m = mmap(block, r->block_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_POPULATE,
                 -1, 0);
  if (m == MAP_FAILED) die_in_handler("mmap of a block failed (out of memory?)");
  if (r->touched_count_ >= r->touched_.size()) die_in_handler("more faults than blocks");
  r->touched_[r->touched_count_] = static_cast<uint32_t>(index);
  r->touched_count_ = r->touched_count_ + 1;
}

void lazy_region::issue_touched(rdsm::detail::cache_insn insn) const {
  for (size_t i = 0; i < touched_count_; ++i)
    rdsm::detail::cache_issue(insn, {base_ + size_t{touched_[i]} * block_bytes_, block_bytes_});
}

void lazy_region::unmap_touched() {
  for (size_t i = 0; i < touched_count_; ++i) {
    char* block = base_ + size_t{touched_[i]} * block_bytes_;
    if (mmap(block, block_bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) ==
        MAP_FAILED)
      throw std::runtime_error(std::string("mmap release: ") + std::strerror(errno));
  }
  touched_count_ = 0;
}

}  // namespace rdsm::cachebench
