#pragma once
// A small strict JSON (RFC 8259) checker for the tests: one value, nothing after it, no trailing
// commas, no raw control characters in strings, only the escapes JSON has, no duplicate keys.

#include <cctype>
#include <set>
#include <string>
#include <string_view>

namespace imsb::test {

class json_checker {
 public:
  explicit json_checker(std::string_view text) : s_(text) {}

  // Empty when the text is one valid JSON value; otherwise what is wrong and where.
  std::string check() {
    ws();
    if (!value()) return error_;
    ws();
    if (i_ != s_.size()) fail("text after the value");
    return error_;
    return {};
  }

 private:
  bool value() {
    if (i_ >= s_.size()) return fail("value expected");
    switch (s_[i_]) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string(nullptr);
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default:
        return number();
    }
  }
  bool object() {
    ++i_;
    ws();
    std::set<std::string> keys;
    if (peek('}')) return ++i_, true;
    for (;;) {
      ws();
      std::string key;
      if (!peek('"') || !string(&key)) return fail("object key expected"), false;
      if (!keys.insert(key).second) return fail("duplicate key " + key), false;
      ws();
      if (!peek(':')) return fail("':' expected"), false;
      ++i_;
      ws();
      if (!value()) return false;
      ws();
      if (peek(',')) {
        ++i_;
        continue;
      }
      if (peek('}')) return ++i_, true;
      return fail("',' or '}' expected"), false;
    }
  }
  bool array() {
    ++i_;
    ws();
    if (peek(']')) return ++i_, true;
    for (;;) {
      ws();
      if (!value()) return false;
      ws();
      if (peek(',')) {
        ++i_;
        continue;
      }
      if (peek(']')) return ++i_, true;
      return fail("',' or ']' expected"), false;
    }
  }
  bool string(std::string* out) {
    ++i_;
    while (i_ < s_.size()) {
      auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') return ++i_, true;
      if (c < 0x20) return fail("raw control character in a string"), false;
      if (c == '\\') {
        if (++i_ >= s_.size()) break;
        char e = s_[i_];
        if (e == 'u') {
          for (int k = 1; k <= 4; ++k)
            if (i_ + k >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_ + k])))
              return fail("bad \\u escape"), false;
          i_ += 4;
        } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
          return fail("bad escape"), false;
        }
      }
      if (out) *out += s_[i_];
      ++i_;
    }
    return fail("unterminated string"), false;
  }
  bool number() {
    std::size_t start = i_;
    if (peek('-')) ++i_;
    if (peek('0')) {
      ++i_;
    } else if (i_ < s_.size() && s_[i_] >= '1' && s_[i_] <= '9') {
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    } else {
      return fail("value expected"), false;
    }
    if (peek('.')) {
      ++i_;
      if (!digits()) return false;
    }
    if (peek('e') || peek('E')) {
      ++i_;
      if (peek('+') || peek('-')) ++i_;
      if (!digits()) return false;
    }
    return i_ > start;
  }
  bool digits() {
    std::size_t start = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    return i_ > start || (fail("digits expected"), false);
  }
  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return fail("bad literal"), false;
    i_ += word.size();
    return true;
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  bool fail(std::string what) {
    if (error_.empty()) error_ = what + " at byte " + std::to_string(i_);
    return false;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::string error_;
};

inline std::string json_error(std::string_view text) { return json_checker(text).check(); }

}  // namespace imsb::test
