// The runtime's remote_memory: the DSM region of every PE, by load/store where mapped, by UCX otherwise.
#pragma once

#include <atomic>
#include <utility>
#include <vector>

#include "dsm/remote.hpp"
#include "transport/transport.hpp"

namespace rdsm::detail {
class runtime;
}

namespace rdsm::detail::dsm {

class region_memory final : public remote_memory {
 public:
  /// `local` is this PE's own region (the alias of the frames, `frames` bytes of them), mapped from the
  /// memory file `local_file`; `stream` carries the UCX operations.
  region_memory(int stream, char* local, int local_file, size_t frames);
  void atomic_or(int pe, uint64_t offset, uint64_t bits) override;
  void atomic_add(int pe, uint64_t offset, uint64_t value) override;
  uint64_t load(int pe, uint64_t offset) override;
  void read(int pe, uint64_t offset, void* dst, size_t n) override;
  /// From a PE of this host the kernel copies between the two memory files (copy_file_range): no
  /// page-table entry of this process is used.
  void read_first(int pe, uint64_t offset, void* dst, size_t n) override;
  /// This PE's own frames at [offset, offset + n) into `pe`'s at the same offset, by the kernel (as
  /// read_first) when `pe` is on this host and its file is open here; false otherwise (nothing copied).
  bool write_first(int pe, uint64_t offset, size_t n);
  void write_nbi(int pe, uint64_t offset, const void* src, size_t n) override;
  void read_nbi(int pe, uint64_t offset, void* dst, size_t n) override;
  /// To a PE of another host, many runs travel as one message, which the PE applies in its transport
  /// progress and acknowledges: over TCP its CPU handles every put anyway, and a put per run is a send.
  void write_runs(int pe, uint64_t offset, const char* src, const std::vector<run>& runs) override;
  /// Completes the reads and writes, the messages included (their acknowledgements have come).
  void flush() override;
  /// The transport's message handler in release mode: applies runs from peers, counts acknowledgements.
  void on_message(int from, const void* data, size_t n);
  void written_locally(const void* p, size_t n) override;
  bool near(int pe) override { return at(pe, 0) != nullptr; }
  int file(int pe) override;
  /// A load/store pointer to `pe`'s region at `offset`, or nullptr when the PE is on another host.
  char* at(int pe, uint64_t offset) const override;

 private:
  void amo(int pe, uint64_t offset, amo_op op, uint64_t value);
  runtime& rt_;
  int stream_;
  char* local_;
  int local_file_;
  size_t frames_;
  std::vector<std::pair<void*, size_t>> reading_;  // read_nbi destinations not complete yet
  uint64_t acks_expected_ = 0;        // run messages sent (by the one releasing thread, under the DSM's lock)
  std::atomic<uint64_t> acks_{0};     // their acknowledgements received
};

}  // namespace rdsm::detail::dsm
