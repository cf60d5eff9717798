#pragma once
// What the end-to-end tests do with programs' text: a run's exit code and output, a word quoted for
// /bin/sh, a substring test, and the lines of an output.

#include <string>
#include <string_view>
#include <vector>

namespace imsb::test {

// A program run through /bin/sh: its exit code, standard output and standard error.
struct ran {
  int code = -1;
  std::string out;
  std::string err;
  std::string both() const { return "--- stdout\n" + out + "--- stderr\n" + err; }
};

// `s` as one word for /bin/sh.
inline std::string sh_quote(std::string_view s) {
  std::string r = "'";
  for (char c : s) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

inline bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// The lines of `text`, without their '\n'; a last line without one counts.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return lines;
}

}  // namespace imsb::test
