// Global variables across executables: PEs that run different builds of a program (x86-64 and aarch64 PEs
// of one job) lay their globals out differently, so an offset into one PE's data segment means nothing in
// another's. Such PEs find each other's variables by name, through the executables' symbol tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.hpp"
#include "core/data_segment.hpp"

namespace rdsm::detail {

/// One variable of the data segment: its key (a hash of its name, and for a file-local variable also of
/// its source file's name, which is what tells two `static int count;` of different files apart), its
/// offset from the segment's start and its size.
struct global_symbol {
  uint64_t key = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
};

/// The layout of this executable's globals, as a digest: of its GNU build-id where the linker wrote one,
/// else of the architecture and the data segment's length. PEs with equal identities share the layout.
uint64_t executable_identity(const data_segment& seg);

/// The variables of this process's executable that lie in `seg` (from .symtab, else .dynsym), sorted by
/// offset, with their names in `names` (same order) for messages. Empty when the executable has no symbols.
std::vector<global_symbol> read_global_symbols(const data_segment& seg, std::vector<std::string>* names);

/// Serialized symbol table (fixed little-endian layout, the same on every architecture).
std::string pack_global_symbols(const std::vector<global_symbol>& table);
result<std::vector<global_symbol>> unpack_global_symbols(std::string_view bytes);

/// Translates offsets into this PE's data segment to the offsets of the same variables in the data segments
/// of PEs that run other executables.
class global_translation {
 public:
  /// `mine`/`my_names`: this executable's table; `layouts[pe]`: index into `tables` of PE `pe`'s executable,
  /// or -1 for PEs that run this one.
  global_translation(std::vector<global_symbol> mine, std::vector<std::string> my_names, std::vector<int> layouts,
                     const std::vector<std::vector<global_symbol>>& tables);

  bool needed(int pe) const { return layouts_[static_cast<size_t>(pe)] >= 0; }

  /// The offset in `pe`'s segment of the `bytes` at `offset` in this PE's, or an error naming the variable:
  /// the range must lie within one variable that `pe`'s executable has too, with the same size.
  result<uint64_t> translate(uint64_t offset, size_t bytes, int pe) const;

 private:
  struct placed {
    uint64_t offset;
    uint64_t size;
  };
  std::vector<global_symbol> mine_;
  std::vector<std::string> names_;
  std::vector<int> layouts_;
  std::vector<std::unordered_map<uint64_t, placed>> others_;
};

}  // namespace rdsm::detail
