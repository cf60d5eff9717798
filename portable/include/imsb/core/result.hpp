#pragma once
// Decoders return a value or a typed error that names the field and the byte offset, so that a
// bad message gets a clear error and never a crash: no exceptions on the message path (docs/design/rules.md).

#include <cstddef>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <variant>

namespace imsb {

// What a call that succeeds gives when it has nothing to give: result<done> is the project's one
// "result<void>" (mqi::done and qmgr::done are this).
using done = std::monostate;

struct decode_error {
  std::error_code code;    // mqrc / mqfb / otma_sense / generic category
  std::string field;       // e.g. "MQIIH.StrucLength", "OTMA.state_data.length"
  std::size_t offset = 0;  // byte offset of the field in the buffer that was decoded
  std::string detail;      // what was found and what was expected

  std::string to_string() const;  // "<field> at offset N: <detail> (<code name>)"
};

template <class T>
class result {
 public:
  result(T value) : v_(std::move(value)) {}         // NOLINT(implicit)
  result(decode_error err) : v_(std::move(err)) {}  // NOLINT(implicit)

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return std::get<0>(v_); }
  const T& operator*() const& { return std::get<0>(v_); }
  const decode_error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, decode_error> v_;
};

}  // namespace imsb
