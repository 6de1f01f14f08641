// Global variables as symmetric memory: locating the data segment and sharing it through a memfd.
#include "core/data_segment.hpp"

#include <fcntl.h>
#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <vector>

#include "common/log.hpp"
#include "common/mappings.hpp"
#include "common/signal_chain.hpp"

namespace rdsm::detail {
namespace {

// The memory file the segment was moved onto, kept open for the life of the process (a child forked even after
// shmem_finalize maps it privately: fork_child), or -1.
int segment_file = -1;
data_segment shared_segment;  // the segment on segment_file

// Identifies the kernel instance: PEs with equal ids share memory and process ids. RDSM_HOST_ID splits
// one kernel into several "hosts" (the multi-host tests run one per network namespace), whose PEs then
// reach each other only through the transport.
std::string host_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  const char* split = std::getenv("RDSM_HOST_ID");
  if (split == nullptr || *split == '\0') return id;
  for (const char* c = split; *c != '\0'; ++c)
    if (std::isspace(static_cast<unsigned char>(*c)) != 0 || c - split >= 24)
      fatal("RDSM_HOST_ID=%s: use at most 24 characters and no spaces", split);
  return id + "/" + split;
}

// A new zero-filled memory file of `bytes` (peers reopen it through /proc/<pid>/fd).
result<int> memory_file(const char* name, size_t bytes) {
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) return status::error(format("memfd_create: %s", std::strerror(errno)));
  // A memory file is born with mode 0777; only this user may open it (peers reopen it through /proc, which
  // also refuses processes of other users).
  if (fchmod(fd, S_IRUSR | S_IWUSR) != 0 || ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    status s = status::error(format("%s of %zu bytes: sizing the file: %s", name, bytes, std::strerror(errno)));
    close(fd);
    return s;
  }
  return fd;
}

// Whether the page at `p` holds only zeros. The program's own code may have poisoned parts of the segment (the
// guard zones AddressSanitizer puts between globals): read as raw memory.
__attribute__((no_sanitize("address", "thread"))) bool zero_page(uintptr_t p, size_t page) {
  uint64_t any = 0;
  for (size_t at = 0; at < page; at += sizeof any) {
    uint64_t word;
    std::memcpy(&word, reinterpret_cast<const void*>(p + at), sizeof word);
    any |= word;
  }
  return any == 0;
}

// Writes runs of consecutive pages of the segment to the file at their offsets in it.
class run_writer {
 public:
  run_writer(int fd, uintptr_t base, size_t page) : fd_(fd), base_(base), page_(page) {}
  // Adds the page at `p`; false after a write failed (errno says why).
  bool add(uintptr_t p) {
    if (p != hi_ && !flush()) return false;
    if (lo_ == hi_) lo_ = hi_ = p;
    hi_ += page_;
    return true;
  }
  bool flush() {
    // The system call itself, not the C library's pwrite: a program built with AddressSanitizer checks the
    // buffer of a pwrite, and the segment holds its poisoned guard zones between variables.
    for (uintptr_t p = lo_; p < hi_;) {
      const auto n = static_cast<ssize_t>(syscall(SYS_pwrite64, fd_, reinterpret_cast<const void*>(p), hi_ - p,
                                                  static_cast<off_t>(p - base_)));
      if (n <= 0) return false;
      p += static_cast<size_t>(n);
    }
    lo_ = hi_ = 0;
    return true;
  }

 private:
  int fd_;
  uintptr_t base_;
  size_t page_;
  uintptr_t lo_ = 0, hi_ = 0;  // the run not written yet
};

// Which pages of the segment are known to be zero without reading them. A page of a private anonymous mapping
// (the .bss past the last page of the file, which the loader maps anonymously) that was never touched is zero,
// and reading it would cost a page fault: /proc/self/pagemap shows it neither present nor swapped out. (mincore
// would not do: it calls a page that is swapped out, or a page of the executable evicted from the page cache,
// not resident, yet both hold data.) Pages of any other mapping (.data, whose pages are the file's until
// written) are read. Without /proc, every page is read.
struct page_survey {
  std::vector<mapping> anonymous_maps;  // the segment's private anonymous mappings, by address
  int pagemap = -1;                     // /proc/self/pagemap, or -1

  explicit page_survey(const data_segment& seg) {
    for (const mapping& m : find_mappings(seg.start, seg.start + seg.length))
      if (!m.shared && (m.name.empty() || m.name == "[heap]" || m.name.starts_with("[anon:")))
        anonymous_maps.push_back(m);
    if (!anonymous_maps.empty()) pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  }
  ~page_survey() {
    if (pagemap >= 0) close(pagemap);
  }
  page_survey(const page_survey&) = delete;
  page_survey& operator=(const page_survey&) = delete;
};

// Copies the pages of `seg` that hold anything but zeros into `fd` (a new file of the segment's size, all
// holes) at their offsets. The others stay holes, which read as zeros and take no memory: a large array the
// program never touched costs neither time nor memory. False if a write failed (errno says why).
bool copy_nonzero_pages(const data_segment& seg, int fd, const page_survey& survey) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t end = seg.start + seg.length;
  const std::vector<mapping>& anonymous_maps = survey.anonymous_maps;
  constexpr uint64_t present = 1ULL << 63, swapped = 1ULL << 62;
  run_writer out(fd, seg.start, page);
  bool ok = true;
  size_t next_anonymous = 0;
  for (uintptr_t p = seg.start; ok && p < end;) {
    while (next_anonymous < anonymous_maps.size() && anonymous_maps[next_anonymous].to <= p)
      ++next_anonymous;
    const mapping* anonymous =
        next_anonymous < anonymous_maps.size() && anonymous_maps[next_anonymous].from <= p
            ? &anonymous_maps[next_anonymous]
            : nullptr;
    // A batch of pages of one kind: up to 512 of an anonymous mapping (one read of the page map), or the
    // pages up to the next anonymous mapping.
    uint64_t entries[512];
    uintptr_t batch_end = end;
    bool known = false;  // entries says which pages were never touched
    if (anonymous != nullptr) {
      batch_end = std::min<uintptr_t>({end, anonymous->to, p + 512 * page});
      const size_t bytes = (batch_end - p) / page * sizeof(uint64_t);
      known = survey.pagemap >= 0 && pread(survey.pagemap, entries, bytes,
                                           static_cast<off_t>(p / page * sizeof(uint64_t))) ==
                                         static_cast<ssize_t>(bytes);
    } else if (next_anonymous < anonymous_maps.size()) {
      batch_end = std::min<uintptr_t>(end, anonymous_maps[next_anonymous].from);
    }
    for (size_t i = 0; ok && p < batch_end; ++i, p += page) {
      if (known && (entries[i] & (present | swapped)) == 0) continue;
      if (!zero_page(p, page)) ok = out.add(p);
    }
  }
  return ok && out.flush();
}

// Stores that other threads make while the segment moves onto its file. The pages are copied into the file, then
// the file is mapped over them: a store between a page's copy and the mapping would be lost with the old page
// (a thread started before shmem_init lost millions). So for that window the segment's writable part is
// read-only. Loads go on; a store faults, and on_segv makes its thread wait until the file is mapped, then
// returns: the store runs again and lands in the shared mapping. The handler stays installed after the window:
// the kernel may raise a fault on the read-only page just before the mapping replaces it and deliver it only
// later (the thread was preempted in between), and a handler put back at the window's end would take that for a
// real fault and end the process. Such a late fault is retried once per thread and address. Every other fault
// goes on to the handler installed before (the program's, or the default action: a crash still crashes), as
// does a fault after the window on the program's own mprotect of its globals, once retried. The runtime moves
// the segment after creating the transport, so that UCX's handler (installed when its library loads) is already
// gone then and never becomes the one chained to. (A system call that writes into the segment during the
// window, a read() into a global buffer, fails with EFAULT instead: no handler sees it.)
constexpr uint32_t window_closed = 0, window_open = 1;
std::atomic<uint32_t> window{window_closed};
uintptr_t window_lo = 0, window_hi = 0;  // the part of the segment that is read-only in the window
pid_t window_owner = 0;                  // the thread that moves the segment, which must not wait for itself
struct sigaction previous_segv {};
bool handlers_installed = false;
thread_local uintptr_t retried __attribute__((tls_model("initial-exec"))) = 0;

void on_segv(int sig, siginfo_t* info, void* context) {
  const auto a = reinterpret_cast<uintptr_t>(info->si_addr);
  if (info->si_code == SEGV_ACCERR && a >= window_lo && a < window_hi) {
    if (window.load(std::memory_order_acquire) == window_open) {
      if (gettid() != window_owner) {
        const int saved_errno = errno;
        while (window.load(std::memory_order_acquire) == window_open)
          syscall(SYS_futex, &window, FUTEX_WAIT_PRIVATE, window_open, nullptr, nullptr, 0);
        errno = saved_errno;
        return;
      }
    } else if (retried != a) {
      retried = a;
      return;
    }
  }
  chain_signal(previous_segv, sig, info, context);
}

// Held while the segment moves onto its file: a fork waits for the window to close. A child forked inside it
// would keep a read-only segment whose window never closes there.
std::mutex moving;

// A child forked once the segment is on its file would inherit the shared mapping: its stores would reach the
// parent and the parent's peers, and theirs the child. The child handler maps the file again over the segment,
// MAP_PRIVATE|MAP_FIXED: nothing is copied, so fork (and fork+exec) stays as cheap with a segment of 1 GiB as
// with none. What Linux guarantees for a private mapping of a file that others go on writing (POSIX leaves it
// unspecified): a page the child writes becomes its own copy at that first store, taken from the file as it
// is then; a page it has not written shows the file as it is now. So the child starts from the parent's values
// and its stores stay its own, but until it writes a page it may see later stores of the parent or a peer to
// that page, where POSIX would give it a snapshot taken at fork. A snapshot would cost a copy of the written
// pages at every fork, made in the parent before fork returns (the parent goes on writing while the child
// runs): a price every fork+exec would pay for nothing.
// The child is no PE: it maps with the system call, unseen by UCX's memory hooks (the parent's registrations
// are none of the child's business), and it drops the file, so that its own shmem_init, if it made one, would
// share its globals anew.
void fork_prepare() { moving.lock(); }
void fork_parent() { moving.unlock(); }
void fork_child() {
  moving.unlock();
  if (segment_file < 0) return;
  const data_segment& seg = shared_segment;
  if (syscall(SYS_mmap, seg.start, seg.length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, segment_file, 0) ==
      -1) {
    const char text[] = "rdsm: a child forked by a PE could not map its global variables privately; it ends\n";
    ssize_t n = write(STDERR_FILENO, text, sizeof text - 1);
    (void)n;
    _exit(127);
  }
  if (seg.relro_end > seg.start) mprotect(reinterpret_cast<void*>(seg.start), seg.relro_end - seg.start, PROT_READ);
  close(segment_file);
  segment_file = -1;
}

void install_handlers() {
  if (handlers_installed) return;  // once: a handler chained to itself would never end
  struct sigaction sa {};
  sa.sa_sigaction = &on_segv;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &previous_segv);
  pthread_atfork(&fork_prepare, &fork_parent, &fork_child);
  handlers_installed = true;
}

// Moves the segment onto `fd` inside the window. Returns nullptr, or the call that failed (errno says why), with
// the segment as it was. Only system calls between the window's opening and its closing, made directly: a malloc
// the program defines itself, or a library's hook on mmap (UCX watches memory events), could store to the
// program's globals and end this thread.
const char* move_segment(const data_segment& seg, int fd, const page_survey& survey) {
  const uintptr_t end = seg.start + seg.length;
  window_lo = seg.relro_end;
  window_hi = end;
  window_owner = gettid();
  window.store(window_open, std::memory_order_release);
  const char* failed = nullptr;
  const bool read_only = mprotect(reinterpret_cast<void*>(window_lo), window_hi - window_lo, PROT_READ) == 0;
  if (!read_only) {
    failed = "mprotect";
  } else if (!copy_nonzero_pages(seg, fd, survey)) {
    failed = "pwrite";
  } else if (syscall(SYS_mmap, seg.start, seg.length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == -1) {
    failed = "mmap";
  }
  const int saved_errno = errno;
  if (failed == nullptr) {
    if (seg.relro_end > seg.start)  // keep relocated read-only data read-only
      mprotect(reinterpret_cast<void*>(seg.start), seg.relro_end - seg.start, PROT_READ);
  } else if (read_only) {
    mprotect(reinterpret_cast<void*>(window_lo), window_hi - window_lo, PROT_READ | PROT_WRITE);
  }
  window.store(window_closed, std::memory_order_release);
  syscall(SYS_futex, &window, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
  errno = saved_errno;
  return failed;
}

}  // namespace

data_segment find_data_segment() {
  data_segment seg;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) -> int {
        auto* s = static_cast<data_segment*>(out);
        const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          const uintptr_t lo = (info->dlpi_addr + ph.p_vaddr) & ~(page - 1);
          const uintptr_t hi = (info->dlpi_addr + ph.p_vaddr + ph.p_memsz + page - 1) & ~(page - 1);
          if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W) != 0) {
            s->start = lo;
            s->length = hi - lo;
          } else if (ph.p_type == PT_GNU_RELRO) {
            s->relro_end = (info->dlpi_addr + ph.p_vaddr + ph.p_memsz) & ~(page - 1);
          }
        }
        return 1;  // the first object is the main program
      },
      &seg);
  if (seg.relro_end < seg.start || seg.relro_end > seg.start + seg.length) seg.relro_end = seg.start;
  return seg;
}

result<int> share_data_segment(const data_segment& seg) {
  auto file = memory_file("rdsm-globals", seg.length);
  if (!file.ok()) return file.error();
  const int fd = file.value();
  auto fail = [&](const char* what) {
    status s = status::error(format("sharing global variables: %s: %s", what, std::strerror(errno)));
    close(fd);
    return s;
  };
  // Copy the current contents, then replace the pages in place by the file's: same bytes, now shareable.
  const page_survey survey(seg);  // allocates: before the window
  install_handlers();
  std::lock_guard<std::mutex> no_fork(moving);
  if (const char* failed = move_segment(seg, fd, survey)) return fail(failed);
  segment_file = fd;
  shared_segment = seg;
  return fd;
}

result<int> create_shared_area(const char* name, size_t bytes, size_t alignment, data_segment& out) {
  auto file = memory_file(name, bytes);
  if (!file.ok()) return file.error();
  const int fd = file.value();
  auto fail = [&](const char* what) {
    status s = status::error(format("%s of %zu bytes: %s: %s", name, bytes, what, std::strerror(errno)));
    close(fd);
    return s;
  };
  // Reserve enough address space to place the area at its alignment, map the file there, give the rest back.
  const size_t span = bytes + alignment;
  void* reserved = mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED) return fail("reserving address space");
  const auto lo = reinterpret_cast<uintptr_t>(reserved);
  const uintptr_t start = (lo + alignment - 1) / alignment * alignment;
  void* at = mmap(reinterpret_cast<void*>(start), bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
  if (at == MAP_FAILED) {
    munmap(reserved, span);
    return fail("mmap");
  }
  if (start > lo) munmap(reserved, start - lo);
  if (lo + span > start + bytes) munmap(reinterpret_cast<void*>(start + bytes), lo + span - (start + bytes));
  out.start = start;
  out.length = bytes;
  out.relro_end = out.start;
  return fd;
}

std::string describe_shared_segment(const data_segment& seg, int fd) {
  return format("%s %d %d %zu", host_id().c_str(), static_cast<int>(getpid()), fd, seg.length);
}

std::vector<void*> map_peer_segments(const data_segment& seg, const std::vector<std::string>& descriptions,
                                     int my_pe, std::vector<int>* files) {
  std::vector<void*> maps(descriptions.size(), nullptr);
  if (files != nullptr) files->assign(descriptions.size(), -1);
  const std::string me = host_id();
  for (size_t pe = 0; pe < descriptions.size(); ++pe) {
    if (static_cast<int>(pe) == my_pe) {
      maps[pe] = reinterpret_cast<void*>(seg.start);
      continue;
    }
    char host[64] = "";
    int pid = 0, fd = -1;
    size_t length = 0;
    // Only a peer on this host running a program with the same segment size can be mapped.
    if (std::sscanf(descriptions[pe].c_str(), "%63s %d %d %zu", host, &pid, &fd, &length) != 4 || fd < 0 ||
        me != host || length != seg.length)
      continue;
    // Opening /proc/<pid>/fd/<fd> reopens the peer's memory file (same user, same host).
    int peer = open(format("/proc/%d/fd/%d", pid, fd).c_str(), O_RDWR | O_CLOEXEC);
    if (peer < 0) {
      RDSM_LOG_INFO("boot", "PE %zu's globals are not mappable (%s); using the transport", pe, std::strerror(errno));
      continue;
    }
    void* m = mmap(nullptr, seg.length, PROT_READ | PROT_WRITE, MAP_SHARED, peer, 0);
    if (m != MAP_FAILED) maps[pe] = m;
    if (m != MAP_FAILED && files != nullptr) (*files)[pe] = peer;
    else close(peer);
  }
  return maps;
}

void unmap_peer_segments(const data_segment& seg, std::vector<void*>& maps, int my_pe, std::vector<int>& files) {
  for (size_t pe = 0; pe < maps.size(); ++pe)
    if (maps[pe] != nullptr && static_cast<int>(pe) != my_pe) munmap(maps[pe], seg.length);
  maps.clear();
  for (int fd : files)
    if (fd >= 0) close(fd);
  files.clear();
}

}  // namespace rdsm::detail
