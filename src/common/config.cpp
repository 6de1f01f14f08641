// Parses the configuration table from the environment.
#include "common/config.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "common/log.hpp"

extern char** environ;

namespace rdsm::detail {
namespace {

std::mutex g_mutex;
std::vector<config_entry> g_described;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

status bad(const char* var, const std::string& value, const char* expected) {
  return status::error(format("%s=\"%s\" is not valid: expected %s; fix or unset %s", var, value.c_str(), expected, var));
}

status parse_value(const char* var, const std::string& text, uint64_t& out, const char* kind) {
  if (std::strcmp(kind, "size") == 0) {
    auto r = parse_size(text);
    if (!r.ok()) return bad(var, text, "a size such as 512M, 1.5G or 65536");
    out = r.value();
    return {};
  }
  if (std::strcmp(kind, "duration") == 0) {
    auto r = parse_duration(text);
    if (!r.ok()) return bad(var, text, "a duration such as 60s, 500ms, 100us, 2m or 30 (seconds), or off");
    out = r.value();
    return {};
  }
  // count
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 18)
    return bad(var, text, "a non-negative integer");
  out = std::strtoull(text.c_str(), nullptr, 10);
  return {};
}

status parse_value(const char* var, const std::string& text, bool& out, const char* kind) {
  std::string t = lower(text);
  const bool off = t == "0" || t == "no" || t == "off" || t == "false" || t == "n" || t.empty();
  if (off || std::strcmp(kind, "switch") == 0) {
    out = !off;
  } else if (t == "1" || t == "yes" || t == "on" || t == "true" || t == "y") {
    out = true;
  } else {
    return bad(var, text, "0 or 1 (also yes/no, on/off, true/false)");
  }
  return {};
}

status parse_value(const char* var, const std::string& text, std::string& out, const char* kind, const char* help) {
  if (std::strcmp(kind, "choice") == 0) {
    // The allowed words are the help text's first field, separated by '|'.
    std::string words(help, std::strcspn(help, ":"));
    std::string t = lower(text);
    size_t start = 0;
    while (start <= words.size()) {
      size_t end = words.find('|', start);
      if (end == std::string::npos) end = words.size();
      if (words.compare(start, end - start, t) == 0) {
        out = t;
        return {};
      }
      start = end + 1;
    }
    return bad(var, text, ("one of " + words).c_str());
  }
  out = text;
  return {};
}

template <class T>
status parse_value(const char* var, const std::string& text, T& out, const char* kind, const char*) {
  return parse_value(var, text, out, kind);
}

// Values as rdsm-info and SHMEM_INFO show them: secrets are never printed.
std::string shown(const char* var, const std::string& text) {
  return std::strstr(var, "SECRET") != nullptr && !text.empty() ? "(set)" : text;
}

// The variable's value from the environment, or that of its deprecated SMA_ name when a SHMEM_ one is unset;
// `name` is then the name read.
const char* lookup(const char* var, std::string& name) {
  name = var;
  const char* env = std::getenv(var);
  if (env != nullptr || std::strncmp(var, "SHMEM_", 6) != 0) return env;
  const std::string legacy = std::string("SMA_") + (var + 6);
  env = std::getenv(legacy.c_str());
  if (env != nullptr) name = legacy;
  return env;
}

bool known_variable(const std::string& name) {
#define RDSM_CONFIG(field, var, kind, def, help) \
  if (name == #var) return true;
#include "common/config.def"
#undef RDSM_CONFIG
  return false;
}

}  // namespace

result<uint64_t> parse_size(const std::string& text) {
  // [digits][.digits][suffix], at least one digit somewhere.
  size_t i = 0;
  const size_t n = text.size();
  std::string digits;
  while (i < n && std::isdigit(static_cast<unsigned char>(text[i]))) digits += text[i++];
  std::string frac;
  if (i < n && text[i] == '.') {
    ++i;
    while (i < n && std::isdigit(static_cast<unsigned char>(text[i]))) frac += text[i++];
  }
  if (digits.empty() && frac.empty()) return status::error("no digits");
  long double mult = 1;
  if (i < n) {
    switch (std::toupper(static_cast<unsigned char>(text[i]))) {
      case 'K': mult = 1024.0L; break;
      case 'M': mult = 1024.0L * 1024; break;
      case 'G': mult = 1024.0L * 1024 * 1024; break;
      case 'T': mult = 1024.0L * 1024 * 1024 * 1024; break;
      default: return status::error("bad suffix");
    }
    ++i;
    if (i < n && (text[i] == 'B' || text[i] == 'b')) ++i;  // accept "64MB"
  }
  if (i != n) return status::error("trailing characters");
  if (digits.size() > 15) return status::error("too large");
  long double v = std::strtold((digits.empty() ? "0" : digits).c_str(), nullptr);
  if (!frac.empty()) v += std::strtold(("0." + frac).c_str(), nullptr);
  v = std::ceil(v * mult);
  if (v > 1.8e19L) return status::error("too large");
  return static_cast<uint64_t>(v);
}

result<uint64_t> parse_duration(const std::string& text) {
  const std::string t = lower(text);
  if (t == "off" || t == "no" || t == "0") return uint64_t{0};
  size_t i = 0;
  const size_t n = t.size();
  bool digit = false, point = false;
  for (; i < n; ++i) {
    if (std::isdigit(static_cast<unsigned char>(t[i]))) digit = true;
    else if (t[i] == '.' && !point) point = true;
    else break;
  }
  if (!digit) return status::error("no digits");
  const std::string unit = t.substr(i);
  long double scale = 1e9L;  // seconds
  if (unit == "ms") scale = 1e6L;
  else if (unit == "us") scale = 1e3L;
  else if (unit == "m" || unit == "min") scale = 60e9L;
  else if (unit == "h") scale = 3600e9L;
  else if (!unit.empty() && unit != "s") return status::error("bad unit");
  if (i > 15) return status::error("too large");
  const long double v = std::strtold(t.substr(0, i).c_str(), nullptr) * scale;
  if (v > 1e18L) return status::error("too large");
  return static_cast<uint64_t>(std::ceil(v));
}

result<config> config_load(bool warn_unknown) {
  config c;
  std::vector<config_entry> described;
#define RDSM_CONFIG(field, var, kind, def, help)                                             \
  {                                                                                          \
    std::string name;                                                                        \
    const char* env = lookup(#var, name);                                                    \
    std::string text = env != nullptr ? std::string(env) : std::string(def);                 \
    status s = parse_value(name.c_str(), text, c.field, #kind, help);                        \
    if (!s.ok()) return s;                                                                   \
    described.push_back({#var, #kind, def, help, shown(#var, text), env != nullptr});        \
  }
#include "common/config.def"
#undef RDSM_CONFIG
  for (char** e = environ; warn_unknown && e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    if (entry.rfind("RDSM_", 0) != 0) continue;
    std::string name = entry.substr(0, entry.find('='));
    if (!known_variable(name))
      RDSM_LOG_WARN("config", "unknown variable %s is ignored; `rdsm-info --config` lists the known ones",
                    name.c_str());
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  g_described = std::move(described);
  return c;
}

std::vector<config_entry> config_describe() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_described.empty()) return g_described;
  std::vector<config_entry> d;
#define RDSM_CONFIG(field, var, kind, def, help) d.push_back({#var, #kind, def, help, def, false});
#include "common/config.def"
#undef RDSM_CONFIG
  return d;
}

}  // namespace rdsm::detail
