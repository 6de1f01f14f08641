// What watch.cpp and watch_stuck.cpp share: the layout of the finalize and stuck words at the end of the sync
// region, the fields of a team's entry word, this PE's place in the job, the line formatter, and what each file
// calls in the other (watch.cpp's describe_group; watch_stuck.cpp's stuck words and the checks run after a
// second of waiting).
#pragma once

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "core/group.hpp"
#include "core/runtime.hpp"
#include "core/team.hpp"
#include "core/watch.hpp"

namespace rdsm::detail::watch_detail {

// The finalize words sit at the end of the sync region, after the team slots: [0] and one per PE. PEs past
// the capacity do not publish (a job that large is told of mismatches by its watchdog only).
constexpr size_t finalize_capacity = 2048;
constexpr size_t finalize_offset = internal_bytes - finalize_capacity * sizeof(uint64_t);
// Before them, the stuck words: [0] what this PE has waited in for a second (see publish_stuck), 0 when
// nothing; [1] the PE that wait is for plus one, 0 when not one known PE (see check_cycle, check_chain; all in
// watch_stuck.cpp).
constexpr size_t stuck_offset = finalize_offset - 64;
static_assert(4096 + team_slots * (group_sync_longs * sizeof(long) + 3 * sizeof(uint64_t)) <= stuck_offset,
              "the finalize and stuck words must not overlap the team slots and their entry and size words");

// A team's entry word: the collective's number plus one from this bit up, a broadcast's root plus one in bits
// 8-23 (0: none, or a root past 65534), its kind in bits 0-7.
constexpr unsigned entry_number_shift = 24;
constexpr uint64_t entry_root_mask = uint64_t{0xffff} << 8;
constexpr uint64_t entry_number(uint64_t entry) { return entry >> entry_number_shift; }  // plus one; 0: none
// The root field of a broadcast whose root is member `index` of the team.
constexpr uint64_t entry_root_field(int index) { return static_cast<uint64_t>(index + 1) << 8; }

// A team's size word (collective_entry): the collective's number modulo 2^16 from bit 48 up, its bytes plus one
// below (collectives of 2^48 - 1 bytes or more publish none).
constexpr uint64_t size_field = uint64_t{1} << 48;
constexpr uint64_t size_word(uint64_t number, uint64_t bytes) { return (number & 0xffff) << 48 | (bytes + 1); }

// A finalize mark's top bit: the PE finalizes at exit, without having called shmem_finalize.
constexpr uint64_t at_exit_bit = uint64_t{1} << 63;

inline uint64_t finalize_word(const uint64_t* words, int pe) {
  return pe >= 0 && static_cast<size_t>(pe) + 1 < finalize_capacity
             ? __atomic_load_n(&words[1 + pe], __ATOMIC_ACQUIRE)
             : 0;
}
// The number of world barriers the PE had done when it began finalizing, plus one (0: not finalizing).
inline uint64_t finalize_mark(const uint64_t* words, int pe) { return finalize_word(words, pe) & ~at_exit_bit; }

// This PE's number, set by watch_start.
extern int g_my_pe;
// This PE has begun shmem_finalize: its own waits are finalize's and are never a mismatch.
extern std::atomic<bool> g_self_finalizing;

// A line built without allocation or stdio (the SIGUSR1 handler uses it too).
class line {
 public:
  line& add(const char* s) {
    while (*s != '\0' && n_ < sizeof buf_ - 1) buf_[n_++] = *s++;
    return *this;
  }
  line& dec(uint64_t v, bool negative = false) {
    char t[24];
    int k = 0;
    do t[k++] = static_cast<char>('0' + v % 10);
    while ((v /= 10) != 0);
    if (negative) t[k++] = '-';
    while (k > 0 && n_ < sizeof buf_ - 1) buf_[n_++] = t[--k];
    return *this;
  }
  line& sdec(int64_t v) { return v < 0 ? dec(0 - static_cast<uint64_t>(v), true) : dec(static_cast<uint64_t>(v)); }
  line& hex(uintptr_t v) {
    char t[20];
    int k = 0;
    do t[k++] = "0123456789abcdef"[v & 15];
    while ((v >>= 4) != 0);
    add("0x");
    while (k > 0 && n_ < sizeof buf_ - 1) buf_[n_++] = t[--k];
    return *this;
  }
  line& seconds(uint64_t ns) {  // one decimal
    const uint64_t tenths = ns / 100'000'000;
    return dec(tenths / 10).add(".").dec(tenths % 10);
  }
  void write_out() {
    buf_[n_++] = '\n';
    size_t done = 0;
    while (done < n_) {
      ssize_t w = ::write(STDERR_FILENO, buf_ + done, n_ - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return;
      done += static_cast<size_t>(w);
    }
  }

  const char* text() const { return buf_; }
  size_t size() const { return n_; }

 private:
  char buf_[512];
  size_t n_ = 0;
};

// Names a group: "team WORLD", "team SHARED", "team of 4 PEs from PE 0, stride 2", "active set of ..." (watch.cpp).
void describe_group(line& l, const group& g);

// Maintained by collective_entry (watch.cpp):
// The team of this thread's outermost collective: a wait in another group (a step of that collective) has
// a stale entry word, and is not compared.
[[gnu::tls_model("initial-exec")]] extern constinit thread_local const group* t_outer_group;
[[gnu::tls_model("initial-exec")]] extern constinit thread_local coll_kind t_outer_kind;

// The stuck words (watch_stuck.cpp) in this PE's sync region.
uint64_t* stuck_word();
// This thread's outermost collective published stuck word [0] (publish_stuck); its exit clears the word.
[[gnu::tls_model("initial-exec")]] extern constinit thread_local bool t_stuck_published;

// After a second of waiting, every 100 ms: compares the collective's kind with the members', publishes the wait in
// the stuck words and looks for a cycle of waits (watch_stuck.cpp). Returns whether it published the wait.
bool check_kinds(uint64_t& checked, uint64_t since, const wait_on& w, const char* call, uint64_t now);
// At the end of a wait that published the PE it waits for (watch_stuck.cpp).
void unpublish_stuck(bool lock_wait);

}  // namespace rdsm::detail::watch_detail
