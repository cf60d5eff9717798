#include "imsb/otma/state_data.hpp"

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "format_error.hpp"

namespace imsb::otma {

using detail::format_error;
using detail::num;

state_data_kind state_data_kind_for(const mci& m) noexcept {
  // [C: IMS-SD]: protocol commands have one layout per command; every other message type (transaction,
  // data, response, commit confirmation, program switch) has the transaction layout [C: IMS-SD-TXN].
  if (m.is_command()) {
    switch (m.command_type) {
      case command::client_bid:
      case command::cbresynch:
        return state_data_kind::client_bid;
      case command::server_available:  // the client-bid's layout up to byte 34 only [I: IMS-SA-FLOW]
        return state_data_kind::server_available;
      case command::server_state:
        return state_data_kind::server_state;
      case command::srvresynch:
        return state_data_kind::srvresynch;
      case command::reqresynch:
        return state_data_kind::reqresynch;
      case command::represynch:
        return state_data_kind::represynch;
      case command::tbresynch:
        return state_data_kind::tbresynch;
      default:
        return state_data_kind::raw;  // suspend, resume output, unknown: kept as bytes
    }
  }
  if (m.message_type != 0) return state_data_kind::transaction;
  return state_data_kind::raw;
}

std::string_view to_string(state_data_kind k) noexcept {
  switch (k) {
    case state_data_kind::raw:
      return "raw";
    case state_data_kind::transaction:
      return "transaction";
    case state_data_kind::client_bid:
      return "client_bid";
    case state_data_kind::server_available:
      return "server_available";
    case state_data_kind::server_state:
      return "server_state";
    case state_data_kind::srvresynch:
      return "srvresynch";
    case state_data_kind::reqresynch:
      return "reqresynch";
    case state_data_kind::represynch:
      return "represynch";
    case state_data_kind::tbresynch:
      return "tbresynch";
  }
  return "unknown";
}

// --- equality ---------------------------------------------------------------------------------------
bool operator==(const transaction_state_data& a, const transaction_state_data& b) noexcept {
  return layout::equal(transaction_state_layout, a, b) && a.extension == b.extension;
}
bool operator==(const client_bid_state_data& a, const client_bid_state_data& b) noexcept {
  return layout::equal(client_bid_state_layout, a, b) && a.extension == b.extension;
}
bool operator==(const server_available_state_data& a, const server_available_state_data& b) noexcept {
  return layout::equal(server_available_state_layout, a, b) && a.extension == b.extension;
}
bool operator==(const server_state_data& a, const server_state_data& b) noexcept {
  return layout::equal(server_state_layout, a, b) && a.extension == b.extension;
}
bool operator==(const srvresynch_state_data& a, const srvresynch_state_data& b) noexcept {
  return a.tpipe_names == b.tpipe_names;
}
bool operator==(const reqresynch_state_data& a, const reqresynch_state_data& b) noexcept {
  return layout::equal(reqresynch_layout, a, b) && a.extension == b.extension;
}
bool operator==(const represynch_state_data& a, const represynch_state_data& b) noexcept {
  return layout::equal(represynch_layout, a, b) && a.extension == b.extension;
}
bool operator==(const tbresynch_state_data& a, const tbresynch_state_data& b) noexcept {
  return layout::equal(tbresynch_layout, a, b) && a.extension == b.extension;
}
bool operator==(const raw_state_data& a, const raw_state_data& b) noexcept { return a.body == b.body; }

// --- one table per fixed variant ---------------------------------------------------------------------
namespace {

template <class S>
struct fixed_variant;
template <>
struct fixed_variant<transaction_state_data> {
  static constexpr const auto& table = transaction_state_layout;
  static constexpr std::size_t size = transaction_state_size;
};
template <>
struct fixed_variant<client_bid_state_data> {
  static constexpr const auto& table = client_bid_state_layout;
  static constexpr std::size_t size = client_bid_state_size;
};
template <>
struct fixed_variant<server_available_state_data> {
  static constexpr const auto& table = server_available_state_layout;
  static constexpr std::size_t size = server_available_state_size;
};
template <>
struct fixed_variant<server_state_data> {
  static constexpr const auto& table = server_state_layout;
  static constexpr std::size_t size = server_state_size;
};
template <>
struct fixed_variant<reqresynch_state_data> {
  static constexpr const auto& table = reqresynch_layout;
  static constexpr std::size_t size = reqresynch_size;
};
template <>
struct fixed_variant<represynch_state_data> {
  static constexpr const auto& table = represynch_layout;
  static constexpr std::size_t size = represynch_size;
};
template <>
struct fixed_variant<tbresynch_state_data> {
  static constexpr const auto& table = tbresynch_layout;
  static constexpr std::size_t size = tbresynch_size;
};

std::string variant_prefix(state_data_kind k) { return "OTMA.state_data." + std::string(to_string(k)); }

template <class S>
result<state_data> decode_fixed(bytes_view section, state_data_kind kind, std::size_t offset) {
  constexpr std::size_t fixed = fixed_variant<S>::size;
  if (section.size() < fixed) {
    return format_error(variant_prefix(kind) + ".length", offset,
                        "length " + num(section.size()) + " is shorter than the " + num(fixed) +
                            " bytes of " + std::string(to_string(kind)) + " state data");
  }
  S s;
  layout::decode(fixed_variant<S>::table, section.data(), s);
  s.extension = section.sub(fixed).to_bytes();
  return state_data(std::in_place_type<S>, std::move(s));
}

result<state_data> decode_srvresynch(bytes_view section, std::size_t offset) {
  constexpr std::size_t name_size = 8;
  if ((section.size() - section_length_size) % name_size != 0) {
    return format_error("OTMA.state_data.srvresynch.length", offset,
                        "length " + num(section.size()) + " is not 2 + a multiple of 8 (tpipe names)");
  }
  srvresynch_state_data s;
  for (std::size_t pos = section_length_size; pos < section.size(); pos += name_size) {
    ebcdic_name<8> n;
    layout::get(section.data() + pos, n);
    s.tpipe_names.push_back(n);
  }
  return state_data(std::in_place_type<srvresynch_state_data>, std::move(s));
}

}  // namespace

result<state_data> decode_state_data(bytes_view section, state_data_kind kind, std::size_t offset) {
  if (section.size() < section_length_size) {
    return format_error("OTMA.state_data.length", offset,
                        "section has " + num(section.size()) + " bytes; its length field needs 2");
  }
  if (std::size_t ll = load_u16(section.data(), byte_order::big); ll != section.size()) {
    return format_error(
        "OTMA.state_data.length", offset,
        "length " + num(ll) + " differs from the section's " + num(section.size()) + " bytes");
  }
  switch (kind) {
    case state_data_kind::raw:
      return state_data(raw_state_data{section.sub(section_length_size).to_bytes()});
    case state_data_kind::transaction:
      return decode_fixed<transaction_state_data>(section, kind, offset);
    case state_data_kind::client_bid:
      return decode_fixed<client_bid_state_data>(section, kind, offset);
    case state_data_kind::server_available:
      return decode_fixed<server_available_state_data>(section, kind, offset);
    case state_data_kind::server_state:
      return decode_fixed<server_state_data>(section, kind, offset);
    case state_data_kind::srvresynch:
      return decode_srvresynch(section, offset);
    case state_data_kind::reqresynch:
      return decode_fixed<reqresynch_state_data>(section, kind, offset);
    case state_data_kind::represynch:
      return decode_fixed<represynch_state_data>(section, kind, offset);
    case state_data_kind::tbresynch:
      return decode_fixed<tbresynch_state_data>(section, kind, offset);
  }
  return format_error("OTMA.state_data", offset, "unknown state-data kind");
}

std::size_t encoded_size(const state_data& sd) noexcept {
  return std::visit(
      [](const auto& s) -> std::size_t {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, raw_state_data>) {
          return section_length_size + s.body.size();
        } else if constexpr (std::is_same_v<S, srvresynch_state_data>) {
          return section_length_size + 8 * s.tpipe_names.size();
        } else {
          return fixed_variant<S>::size + s.extension.size();
        }
      },
      sd);
}

std::optional<decode_error> check_state_data(const state_data& sd, state_data_kind expected,
                                             std::size_t offset) {
  // [C: IMS-SD]: MCI+1 and MCI+4 choose the layout, so the decoder reads these bytes as `expected`.
  if (kind_of(sd) != expected) {
    return format_error("OTMA.state_data.kind", offset,
                        std::string(to_string(kind_of(sd))) +
                            " state data on a message whose MCI calls for " +
                            std::string(to_string(expected)) + " state data");
  }
  const std::size_t n = encoded_size(sd);
  if (n > 0xFFFF) {
    return format_error("OTMA.state_data.length", offset,
                        "section of " + num(n) + " bytes does not fit its 16-bit length");
  }
  // The typed variants cannot hold bytes their decoder refuses; raw bytes are whatever the caller
  // put there, so the decoder itself judges them.
  if (std::holds_alternative<raw_state_data>(sd)) {
    bytes section;
    section.reserve(n);
    append_state_data(sd, section);
    if (auto back = decode_state_data(section, expected, offset); !back) return back.error();
  }
  return std::nullopt;
}

void append_state_data(const state_data& sd, bytes& out) {
  const std::size_t base = out.size();
  const std::size_t size = encoded_size(sd);
  out.resize(base + size);
  std::uint8_t* p = out.data() + base;
  store_u16(p, static_cast<std::uint16_t>(size), byte_order::big);
  std::visit(
      [p](const auto& s) {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, raw_state_data>) {
          std::copy(s.body.begin(), s.body.end(), p + section_length_size);
        } else if constexpr (std::is_same_v<S, srvresynch_state_data>) {
          std::uint8_t* q = p + section_length_size;
          for (const auto& n : s.tpipe_names) {
            layout::put(q, n);
            q += 8;
          }
        } else {
          layout::encode(fixed_variant<S>::table, s, p);
          std::copy(s.extension.begin(), s.extension.end(), p + fixed_variant<S>::size);
        }
      },
      sd);
}

void print_state_data(const state_data& sd, std::size_t offset, std::vector<printed_field>& out) {
  const std::size_t size = encoded_size(sd);
  const std::string prefix = "state_data." + std::string(to_string(kind_of(sd))) + ".";
  out.push_back({"state_data.length", offset, 2,
                 layout::format_number(static_cast<std::uint32_t>(size), 2, false),
                 std::string(to_string(kind_of(sd)))});
  std::visit(
      [&](const auto& s) {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, raw_state_data>) {
          if (!s.body.empty())
            out.push_back({prefix + "body", offset + section_length_size, s.body.size(), to_hex(s.body), ""});
        } else if constexpr (std::is_same_v<S, srvresynch_state_data>) {
          for (std::size_t i = 0; i < s.tpipe_names.size(); ++i) {
            out.push_back(layout::print_one(prefix + "tpipe_name[" + num(i) + "]",
                                            offset + section_length_size + 8 * i, s.tpipe_names[i],
                                            layout::kind::name, {}));
          }
        } else {
          layout::print(fixed_variant<S>::table, s, prefix, offset, out);
          if (!s.extension.empty()) {
            out.push_back({prefix + "extension", offset + fixed_variant<S>::size, s.extension.size(),
                           to_hex(s.extension), ""});
          }
        }
      },
      sd);
}

}  // namespace imsb::otma
