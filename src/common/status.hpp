// status and result<T>: how errors travel inside the runtime.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace rdsm::detail {

/// Outcome of an operation: ok, or an error message that already names the cause and the remedy.
class [[nodiscard]] status {
 public:
  status() = default;
  static status error(std::string message) {
    status s;
    s.ok_ = false;
    s.message_ = std::move(message);
    return s;
  }
  bool ok() const { return ok_; }
  const std::string& message() const { return message_; }

 private:
  bool ok_ = true;
  std::string message_;
};

inline status ok_status() { return {}; }

/// A value or the status explaining why there is none.
template <class T>
class [[nodiscard]] result {
 public:
  result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  result(status s) : v_(std::move(s)) {}     // NOLINT(google-explicit-constructor)
  bool ok() const { return v_.index() == 0; }
  T& value() { return std::get<0>(v_); }
  T&& take() { return std::move(std::get<0>(v_)); }
  status error() const { return ok() ? status{} : std::get<1>(v_); }

 private:
  std::variant<T, status> v_;
};

}  // namespace rdsm::detail

/// Returns the status of `expr` from the enclosing function when it is an error.
#define RDSM_TRY(expr)                      \
  do {                                      \
    auto rdsm_try_s_ = (expr);              \
    if (!rdsm_try_s_.ok()) return rdsm_try_s_; \
  } while (0)

#define RDSM_CONCAT_INNER(a, b) a##b
#define RDSM_CONCAT(a, b) RDSM_CONCAT_INNER(a, b)

/// Evaluates a result<T> expression; on error returns its status, otherwise moves the value into `lhs`
/// (which may be a declaration such as `auto x`).
#define RDSM_ASSIGN_OR_RETURN(lhs, expr)                                                  \
  auto RDSM_CONCAT(rdsm_res_, __LINE__) = (expr);                                         \
  if (!RDSM_CONCAT(rdsm_res_, __LINE__).ok()) return RDSM_CONCAT(rdsm_res_, __LINE__).error(); \
  lhs = RDSM_CONCAT(rdsm_res_, __LINE__).take()
