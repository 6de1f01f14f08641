// What kind of memory an address lies in (address_kind.hpp).
#include "common/address_kind.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace rdsm::detail {

namespace {
std::string self_path() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}
}  // namespace

std::string address_kind(const void* p) {
  const auto a = reinterpret_cast<unsigned long long>(p);
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return "in memory this process could not describe";
  char line[4352];
  std::string kind = "in no mapping of this process";
  while (std::fgets(line, sizeof line, maps) != nullptr) {
    unsigned long long from = 0, to = 0;
    char perms[8] = "", name[4096] = "";
    if (std::sscanf(line, "%llx-%llx %7s %*s %*s %*s %4095[^\n]", &from, &to, perms, name) < 3) continue;
    if (a < from || a >= to) continue;
    const std::string file = name;
    const bool writable = perms[1] == 'w';
    if (file == "[stack]") kind = "on the stack (a local variable)";
    else if (file == "[heap]") kind = "in memory from malloc";
    else if (file.empty()) kind = "in memory from malloc or mmap";
    else if (file[0] == '[') kind = "in " + file;
    else if (!writable) kind = "in read-only data of " + file + " (a const global variable or a literal)";
    else if (file == self_path()) kind = "in the program's data, outside its symmetric global variables";
    else kind = "in the data of " + file + " (globals of shared libraries are not symmetric)";
    break;
  }
  std::fclose(maps);
  return kind;
}

}  // namespace rdsm::detail
