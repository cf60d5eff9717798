#pragma once
// Test support: reading the golden files under tests/vectors/ (tests may do I/O; portable/ may not).

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "imsb/core/bytes.hpp"

namespace imsb::test {

inline std::string vectors_dir() { return IMSB_VECTORS_DIR; }

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Reads a .hex vector file: hex digits, whitespace and '#' comments (see tests/vectors/README.md).
inline bytes read_hex_vector(const std::string& relative) {
  bytes out;
  if (!from_hex(read_text(vectors_dir() + "/" + relative), out))
    throw std::runtime_error("bad hex in " + relative);
  return out;
}

}  // namespace imsb::test
