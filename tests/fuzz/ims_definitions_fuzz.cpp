// Fuzzes the IMS emulator's definitions file (imsb/ims/definitions.hpp): parse_definitions on any bytes.
// Invariants (trap on violation): a failure is invalid_argument and names a line ("definitions.line N")
// that exists in the input, with the offset of that line's first byte; parsed definitions are consistent
// — every transaction's program is defined, each program has exactly one of builtin/external, no name is
// both a transaction and an LTERM, every USER's groups exist, each transaction's line lies in the input —
// and the lookups answer without crashing for every name the definitions hold.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

#include "imsb/ims/definitions.hpp"

namespace {

using namespace imsb::ims;

void require(bool ok) {
  if (!ok) __builtin_trap();
}

std::size_t line_count(std::string_view text) {
  std::size_t lines = 1;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);  // NOLINT: bytes as text
  auto r = parse_definitions(text);
  if (!r.ok()) {
    const auto& e = r.error();
    require(e.code == std::make_error_code(std::errc::invalid_argument));
    const std::string prefix = "definitions.line ";
    require(e.field.rfind(prefix, 0) == 0);
    const std::string digits = e.field.substr(prefix.size());
    require(!digits.empty() && digits.size() < 12 &&
            digits.find_first_not_of("0123456789") == std::string::npos);
    const std::size_t line = std::stoull(digits);
    require(line >= 1 && line <= line_count(text));
    require(e.offset <= size);
    require(e.offset == 0 || text[e.offset - 1] == '\n');
    std::size_t line_of_offset = 1;
    for (std::size_t i = 0; i < e.offset; ++i) line_of_offset += text[i] == '\n' ? 1 : 0;
    require(line_of_offset == line);
    require(!e.detail.empty());
    return 0;
  }
  const definitions& d = r.value();
  for (const auto& [code, t] : d.transactions) {
    require(t.code == code);
    require(d.program(t.program) != nullptr);
    require(!d.is_lterm(code));
    require(t.line >= 1 && t.line <= line_count(text));
    require(!t.conversational || (t.spa_size >= 16 && t.spa_size <= 32767));
    require(!t.fast_path || (t.recoverable && !t.conversational));
    require(d.transaction(code) == &t);
  }
  for (const auto& [name, p] : d.programs) require(p.name == name && p.builtin.empty() != p.external.empty());
  for (const auto& [id, u] : d.users) {
    for (const auto& g : u.groups) require(d.groups.count(g) == 1);
    for (const auto& t : u.transactions) require(d.may_run_transaction(id, t));
    for (const auto& c : u.commands) require(d.may_run_command(id, c));
  }
  for (const auto& desc : d.descriptors) {
    require(d.descriptor_for(desc.name) != nullptr);
    require(!desc.tmember.empty() && !desc.tpipe.empty());
  }
  return 0;
}
