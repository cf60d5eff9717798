#include "imsb/otma/security_data.hpp"

#include <algorithm>
#include <string>

#include "format_error.hpp"

namespace imsb::otma {

using detail::format_error;
using detail::num;

namespace {

// The largest data IBM documents for a subfield type [C: IMS-SEC]; unknown types are bounded only by
// the one-byte subfield length.
std::size_t max_data_size(std::uint8_t type) noexcept {
  switch (type) {
    case security_type::utoken:
      return max_utoken_size;
    case security_type::user_id:
      return max_user_id_size;
    case security_type::profile:
      return max_profile_size;
    default:
      return 0xFF - 1;  // the length byte counts the type byte
  }
}

std::string_view type_name(std::uint8_t type) noexcept {
  switch (type) {
    case security_type::utoken:
      return "utoken";
    case security_type::user_id:
      return "user_id";
    case security_type::profile:
      return "profile";
    case security_type::network_user_id:
      return "network_user_id";
    case security_type::network_session_id:
      return "network_session_id";
    default:
      return "";
  }
}

// Subfield `index` (whose data starts at `data_offset`) holds more than its type allows, or nothing.
std::optional<decode_error> check_subfield_size(std::size_t index, const security_subfield& f,
                                                std::size_t data_offset) {
  if (f.data.size() <= max_data_size(f.type)) return std::nullopt;
  return format_error("OTMA.security_data.subfield[" + num(index) + "].data", data_offset,
                      std::string(type_name(f.type)) + " of " + num(f.data.size()) + " bytes; at most " +
                          num(max_data_size(f.type)) + " allowed");
}

std::optional<std::string> name_text(const security_subfield* f) {
  if (f == nullptr) return std::nullopt;
  return std::string(codepage::field_value(codepage::get_field(f->data, name_ccsid)));
}

void set_subfield(std::vector<security_subfield>& subfields, std::uint8_t type, bytes data) {
  for (auto& f : subfields) {
    if (f.type == type) {
      f.data = std::move(data);
      return;
    }
  }
  subfields.push_back({type, std::move(data)});
}

bytes name_bytes(std::string_view text_819) {
  bytes b(8);
  codepage::put_field(b.data(), b.size(), text_819, name_ccsid);
  return b;
}

}  // namespace

const security_subfield* security_data::find(std::uint8_t type) const noexcept {
  for (const auto& f : subfields) {
    if (f.type == type) return &f;
  }
  return nullptr;
}

std::optional<std::string> security_data::user_id() const { return name_text(find(security_type::user_id)); }
std::optional<std::string> security_data::profile() const { return name_text(find(security_type::profile)); }
std::optional<bytes_view> security_data::utoken() const {
  const security_subfield* f = find(security_type::utoken);
  if (f == nullptr) return std::nullopt;
  return bytes_view(f->data);
}

void security_data::set_user_id(std::string_view text_819) {
  set_subfield(subfields, security_type::user_id, name_bytes(text_819));
}
void security_data::set_profile(std::string_view text_819) {
  set_subfield(subfields, security_type::profile, name_bytes(text_819));
}
void security_data::set_utoken(bytes_view token) {
  set_subfield(subfields, security_type::utoken, token.to_bytes());
}

std::size_t security_data::subfields_size() const noexcept {
  std::size_t n = 0;
  for (const auto& f : subfields) n += 2 + f.data.size();
  return n;
}

result<security_data> decode_security_data(bytes_view section, std::size_t offset) {
  if (section.size() < security_header_size) {
    return format_error("OTMA.security_data.length", offset,
                        "length " + num(section.size()) +
                            " is shorter than the 4 bytes of length, flag and "
                            "subfield length");
  }
  if (std::size_t ll = load_u16(section.data(), byte_order::big); ll != section.size()) {
    return format_error(
        "OTMA.security_data.length", offset,
        "length " + num(ll) + " differs from the section's " + num(section.size()) + " bytes");
  }
  security_data se;
  se.flag = section[2];
  // Byte 3 is "reserved" to IMS [C: IMS-SEC, ICON-SEC]: whatever it says, the section length bounds the
  // subfields.
  se.subfield_length = section[3];
  std::size_t pos = security_header_size;
  for (std::size_t i = 0; pos < section.size(); ++i) {
    const std::string field = "OTMA.security_data.subfield[" + num(i) + "]";
    const std::size_t len = section[pos];  // counts type + data, not itself [C-hex]
    if (len == 0)
      return format_error(field + ".length", offset + pos, "length 0: a subfield needs a type byte");
    if (pos + 1 + len > section.size()) {
      return format_error(field + ".length", offset + pos,
                          "length " + num(len) + " runs past the end of the section (" +
                              num(section.size() - pos - 1) + " bytes left)");
    }
    security_subfield f;
    f.type = section[pos + 1];
    f.data = section.sub(pos + 2, len - 1).to_bytes();
    if (auto err = check_subfield_size(i, f, offset + pos + 2)) return *err;
    se.subfields.push_back(std::move(f));
    pos += 1 + len;
  }
  return se;
}

std::optional<decode_error> check_security_data(const security_data& se, std::size_t offset) {
  std::size_t pos = security_header_size;
  for (std::size_t i = 0; i < se.subfields.size(); ++i) {
    if (auto err = check_subfield_size(i, se.subfields[i], offset + pos + 2)) return err;
    pos += 2 + se.subfields[i].data.size();
  }
  if (!se.subfield_length && se.subfields_size() > max_subfields_size) {
    return format_error("OTMA.security_data.subfield_length", offset + 3,
                        "subfields take " + num(se.subfields_size()) +
                            " bytes; byte 3 holds at most 255 (give subfield_length to write another value)");
  }
  if (se.encoded_size() > 0xFFFF) {
    return format_error("OTMA.security_data.length", offset,
                        "section of " + num(se.encoded_size()) + " bytes does not fit its 16-bit length");
  }
  return std::nullopt;
}

void append_security_data(const security_data& se, bytes& out) {
  const std::size_t size = se.encoded_size();
  const std::size_t base = out.size();
  out.resize(base + 2);
  store_u16(out.data() + base, static_cast<std::uint16_t>(size), byte_order::big);
  out.push_back(se.flag);
  out.push_back(se.subfield_length_byte());
  for (const auto& f : se.subfields) {
    out.push_back(static_cast<std::uint8_t>(1 + f.data.size()));
    out.push_back(f.type);
    out.insert(out.end(), f.data.begin(), f.data.end());
  }
}

void print_security_data(const security_data& se, std::size_t offset, std::vector<printed_field>& out) {
  out.push_back({"security_data.length", offset, 2,
                 layout::format_number(static_cast<std::uint32_t>(se.encoded_size()), 2, false), ""});
  std::string flag_note = se.flag == security_flag::none    ? "N (none)"
                          : se.flag == security_flag::check ? "C (check)"
                          : se.flag == security_flag::full  ? "F (full)"
                                                            : "";
  out.push_back({"security_data.flag", offset + 2, 1, layout::format_byte(se.flag), flag_note});
  const std::uint8_t byte3 = se.subfield_length_byte();
  out.push_back({"security_data.subfield_length", offset + 3, 1, layout::format_number(byte3, 1, false),
                 byte3 == se.subfields_size()
                     ? ""
                     : "reserved; the subfields take " + num(se.subfields_size()) + " bytes"});
  std::size_t pos = offset + security_header_size;
  for (std::size_t i = 0; i < se.subfields.size(); ++i) {
    const auto& f = se.subfields[i];
    const std::string name = "security_data.subfield[" + num(i) + "]";
    out.push_back({name + ".length", pos, 1,
                   layout::format_number(static_cast<std::uint32_t>(1 + f.data.size()), 1, false), ""});
    out.push_back({name + ".type", pos + 1, 1, layout::format_byte(f.type), std::string(type_name(f.type))});
    std::string note;
    if (f.type == security_type::user_id || f.type == security_type::profile)
      note = layout::quote(codepage::get_field(f.data, name_ccsid));
    out.push_back({name + ".data", pos + 2, f.data.size(), to_hex(f.data), note});
    pos += 2 + f.data.size();
  }
}

}  // namespace imsb::otma
