// Global variables across executables: identity of an executable's layout, its symbol table, translation.
#include "core/global_symbols.hpp"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "common/log.hpp"
#include "core/job_record.hpp"

namespace rdsm::detail {
namespace {

constexpr uint64_t fnv_basis = 14695981039346656037ull;

uint64_t fnv1a(uint64_t h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// The main program's load bias and its GNU build-id (empty when the linker wrote none).
struct main_program {
  uintptr_t bias = 0;
  std::string build_id;
};

main_program find_main_program() {
  main_program m;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) -> int {
        auto* m = static_cast<main_program*>(out);
        m->bias = info->dlpi_addr;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE) continue;
          const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
          const char* end = p + ph.p_memsz;
          while (p + sizeof(ElfW(Nhdr)) <= end) {
            const auto* n = reinterpret_cast<const ElfW(Nhdr)*>(p);
            const char* name = p + sizeof(ElfW(Nhdr));
            const char* desc = name + ((n->n_namesz + 3) & ~3u);
            if (desc + n->n_descsz > end) break;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0)
              m->build_id.assign(desc, n->n_descsz);
            p = desc + ((n->n_descsz + 3) & ~3u);
          }
        }
        return 1;  // the first object is the main program
      },
      &m);
  return m;
}

// The executable's file, mapped read-only for its section headers and symbol tables.
class elf_file {
 public:
  elf_file() {
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st{};
    if (fstat(fd, &st) == 0 && st.st_size > static_cast<off_t>(sizeof(ElfW(Ehdr)))) {
      void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        base_ = static_cast<const char*>(p);
        size_ = static_cast<size_t>(st.st_size);
      }
    }
    close(fd);
  }
  ~elf_file() {
    if (base_ != nullptr) munmap(const_cast<char*>(base_), size_);
  }
  elf_file(const elf_file&) = delete;
  elf_file& operator=(const elf_file&) = delete;

  // The section headers, or an empty span when the file is not a readable ELF of this process's class.
  std::pair<const ElfW(Shdr)*, size_t> sections() const {
    if (base_ == nullptr) return {nullptr, 0};
    const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(base_);
    if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_shentsize != sizeof(ElfW(Shdr)) ||
        eh->e_shoff == 0 || eh->e_shoff + size_t{eh->e_shnum} * sizeof(ElfW(Shdr)) > size_)
      return {nullptr, 0};
    return {reinterpret_cast<const ElfW(Shdr)*>(base_ + eh->e_shoff), eh->e_shnum};
  }
  // The bytes of a section, or nullptr when it lies outside the file.
  const char* contents(const ElfW(Shdr)& s) const {
    return s.sh_type != SHT_NOBITS && s.sh_offset + s.sh_size <= size_ ? base_ + s.sh_offset : nullptr;
  }

 private:
  const char* base_ = nullptr;
  size_t size_ = 0;
};

}  // namespace

uint64_t executable_identity(const data_segment& seg) {
  const main_program m = find_main_program();
  if (!m.build_id.empty()) return fnv1a(fnv_basis, m.build_id);
  const uint64_t shape[2] = {seg.length, seg.relro_end - seg.start};
  return fnv1a(fnv1a(fnv_basis, build_arch()), std::string_view(reinterpret_cast<const char*>(shape), sizeof shape));
}

std::vector<global_symbol> read_global_symbols(const data_segment& seg, std::vector<std::string>* names) {
  std::vector<std::pair<global_symbol, std::string>> found;
  const elf_file file;
  const auto [sections, count] = file.sections();
  const ElfW(Shdr)* table = nullptr;
  for (size_t i = 0; i < count; ++i)
    if (sections[i].sh_type == SHT_SYMTAB) table = &sections[i];
  for (size_t i = 0; i < count && table == nullptr; ++i)
    if (sections[i].sh_type == SHT_DYNSYM) table = &sections[i];
  if (table != nullptr && table->sh_link < count && table->sh_entsize == sizeof(ElfW(Sym))) {
    const auto* syms = reinterpret_cast<const ElfW(Sym)*>(file.contents(*table));
    const ElfW(Shdr)& strtab = sections[table->sh_link];
    const char* strings = file.contents(strtab);
    const uintptr_t bias = find_main_program().bias;
    std::string_view source;  // the file of the local symbols that follow an STT_FILE symbol
    for (size_t i = 0; syms != nullptr && strings != nullptr && i < table->sh_size / sizeof(ElfW(Sym)); ++i) {
      const ElfW(Sym)& s = syms[i];
      if (s.st_name >= strtab.sh_size) continue;
      const std::string_view name(strings + s.st_name, strnlen(strings + s.st_name, strtab.sh_size - s.st_name));
      const int type = ELF64_ST_TYPE(s.st_info);
      const int bind = ELF64_ST_BIND(s.st_info);
      if (type == STT_FILE) source = name;
      if (type != STT_OBJECT || s.st_size == 0 || s.st_shndx == SHN_UNDEF || name.empty()) continue;
      const uintptr_t at = bias + s.st_value;
      if (at < seg.start || at - seg.start >= seg.length) continue;
      uint64_t key = fnv_basis;
      if (bind == STB_LOCAL) key = fnv1a(fnv1a(key, source), std::string_view("\0", 1));
      key = fnv1a(key, name);
      found.push_back({global_symbol{key, at - seg.start, s.st_size}, std::string(name)});
    }
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first.offset < b.first.offset; });
  std::vector<global_symbol> out;
  out.reserve(found.size());
  for (auto& [sym, name] : found) {
    out.push_back(sym);
    if (names != nullptr) names->push_back(std::move(name));
  }
  return out;
}

std::string pack_global_symbols(const std::vector<global_symbol>& table) {
  // Three little-endian 64-bit words per variable (the job record has checked that every PE is
  // little-endian).
  std::string out(table.size() * 24, '\0');
  for (size_t i = 0; i < table.size(); ++i) {
    const uint64_t words[3] = {table[i].key, table[i].offset, table[i].size};
    std::memcpy(out.data() + i * 24, words, sizeof words);
  }
  return out;
}

result<std::vector<global_symbol>> unpack_global_symbols(std::string_view bytes) {
  if (bytes.size() % 24 != 0)
    return status::error(format("internal: a symbol table of %zu bytes is not whole entries", bytes.size()));
  std::vector<global_symbol> table(bytes.size() / 24);
  for (size_t i = 0; i < table.size(); ++i) {
    uint64_t words[3];
    std::memcpy(words, bytes.data() + i * 24, sizeof words);
    table[i] = {words[0], words[1], words[2]};
  }
  return table;
}

global_translation::global_translation(std::vector<global_symbol> mine, std::vector<std::string> my_names,
                                       std::vector<int> layouts, const std::vector<std::vector<global_symbol>>& tables)
    : mine_(std::move(mine)), names_(std::move(my_names)), layouts_(std::move(layouts)), others_(tables.size()) {
  constexpr uint64_t ambiguous = UINT64_MAX;  // two variables of one executable share the key
  for (size_t t = 0; t < tables.size(); ++t)
    for (const global_symbol& s : tables[t]) {
      auto [it, fresh] = others_[t].try_emplace(s.key, placed{s.offset, s.size});
      if (!fresh) it->second.size = ambiguous;
    }
}

result<uint64_t> global_translation::translate(uint64_t offset, size_t bytes, int pe) const {
  const int layout = layouts_[static_cast<size_t>(pe)];
  if (layout < 0) return offset;
  auto after = std::upper_bound(mine_.begin(), mine_.end(), offset,
                                [](uint64_t o, const global_symbol& s) { return o < s.offset; });
  if (mine_.empty())
    return status::error(format(
        "PE %d runs another executable and this one has no symbol table to find global variables by name: "
        "do not strip it, or allocate symmetric data with shmem_malloc", pe));
  if (after == mine_.begin() || offset - std::prev(after)->offset >= std::prev(after)->size)
    return status::error(format("the global at offset %#llx of the data segment is not a named variable, and PE %d "
                                "runs another executable, whose globals are found by name",
                                static_cast<unsigned long long>(offset), pe));
  const global_symbol& s = *std::prev(after);
  const char* name = names_[static_cast<size_t>(&s - mine_.data())].c_str();
  const uint64_t delta = offset - s.offset;
  if (bytes > s.size - delta)
    return status::error(format("%zu bytes at offset %llu of global '%s' (%llu bytes) run past its end; PE %d runs "
                                "another executable, where each access must stay within one variable",
                                bytes, static_cast<unsigned long long>(delta), name,
                                static_cast<unsigned long long>(s.size), pe));
  const auto& theirs = others_[static_cast<size_t>(layout)];
  auto it = theirs.find(s.key);
  if (it == theirs.end())
    return status::error(format("global '%s' has no counterpart in the executable of PE %d (built from other "
                                "sources, or stripped)", name, pe));
  if (it->second.size != s.size)
    return status::error(format("global '%s' has %llu bytes here but %s in the executable of PE %d; give it a "
                                "type of the same size on every architecture",
                                name, static_cast<unsigned long long>(s.size),
                                it->second.size == UINT64_MAX
                                    ? "several definitions"
                                    : format("%llu bytes", static_cast<unsigned long long>(it->second.size)).c_str(),
                                pe));
  return it->second.offset + delta;
}

}  // namespace rdsm::detail
