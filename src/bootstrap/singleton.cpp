// The singleton bootstrap: a program started bare is PE 0 of a job of one.
#include <cstdlib>

#include "bootstrap/backends.hpp"
#include "common/log.hpp"

namespace rdsm::detail {
namespace {

class singleton_bootstrap final : public bootstrap {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  const char* name() const override { return "singleton"; }
  result<std::vector<std::string>> allgather(std::string_view mine) override {
    return std::vector<std::string>{std::string(mine)};
  }
  status barrier() override { return {}; }
  status finalize() override { return {}; }
  [[noreturn]] void abort(int code, const std::string& message) override {
    boot_last_words(format("PE 0 ended the job (code %d): %s", code, message.c_str()));
    std::_Exit(code);
  }
};

}  // namespace

std::unique_ptr<bootstrap> singleton_bootstrap_create() { return std::make_unique<singleton_bootstrap>(); }

}  // namespace rdsm::detail
