// This process's mappings (mappings.hpp).
#include "common/mappings.hpp"

#include <unistd.h>

#include <cstdio>

namespace rdsm::detail {

namespace {
std::string self_path() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}
}  // namespace

std::vector<mapping> find_mappings(uint64_t lo, uint64_t hi) {
  std::vector<mapping> hits;
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return hits;
  char line[4352];
  while (std::fgets(line, sizeof line, maps) != nullptr) {
    unsigned long long from = 0, to = 0;
    char perms[8] = "", name[4096] = "";
    if (std::sscanf(line, "%llx-%llx %7s %*s %*s %*s %4095[^\n]", &from, &to, perms, name) < 3) continue;
    if (from >= hi) break;  // the lines are in address order
    if (to > lo) hits.push_back(mapping{from, to, perms[1] == 'w', perms[3] == 's', name});
  }
  std::fclose(maps);
  return hits;
}

std::optional<mapping> find_mapping(uint64_t lo, uint64_t hi) {
  std::vector<mapping> hits = find_mappings(lo, hi);
  if (hits.empty()) return std::nullopt;
  return hits.front();
}

std::string address_kind(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  const std::optional<mapping> m = find_mapping(a, a + 1);
  if (!m) return "in no mapping of this process";
  const std::string& file = m->name;
  if (file == "[stack]") return "on the stack (a local variable)";
  if (file == "[heap]") return "in memory from malloc";
  if (file.empty()) return "in memory from malloc or mmap";
  if (file[0] == '[') return "in " + file;
  if (!m->writable) return "in read-only data of " + file + " (a const global variable or a literal)";
  if (file == self_path()) return "in the program's data, outside its symmetric global variables";
  return "in the data of " + file + " (globals of shared libraries are not symmetric)";
}

}  // namespace rdsm::detail
