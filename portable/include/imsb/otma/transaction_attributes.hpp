#pragma once
// The architected /DISPLAY TRANSACTION output [C: IMS-DISTRAN]: the segment IMS returns for `/DIS TRAN x`
// sent with MCI+2 X'10' (extended response requested). In the segment:
//   +0 LL  +2 ZZ  +4 transaction code(8)  +12 type flag 1  +13 type flag 2  +14 status
// The codec works on the segment's data (after LLZZ), so the table's offsets are 4 less.

#include <cstddef>
#include <cstdint>
#include <tuple>

#include "imsb/core/result.hpp"
#include "imsb/otma/application_data.hpp"
#include "imsb/otma/layout.hpp"

namespace imsb::otma {

namespace tran_type {  // type flag 1, mutually exclusive [C]
inline constexpr std::uint8_t valid = 0x00;
inline constexpr std::uint8_t cpic = 0x04;
inline constexpr std::uint8_t fast_path_exclusive = 0x08;
inline constexpr std::uint8_t fast_path_potential = 0x0C;
inline constexpr std::uint8_t msc_remote = 0x10;
inline constexpr std::uint8_t invalid_syntax = 0xFE;  // the data area holds the error text
inline constexpr std::uint8_t not_found = 0xFF;
}  // namespace tran_type

namespace tran_attribute {  // type flag 2, combinable [C]
inline constexpr std::uint8_t response_mode = 0x80;
inline constexpr std::uint8_t conversational = 0x40;
inline constexpr std::uint8_t update = 0x20;
inline constexpr std::uint8_t irrecoverable = 0x10;
inline constexpr std::uint8_t multi_segment = 0x08;
inline constexpr std::uint8_t uppercase = 0x04;
}  // namespace tran_attribute

namespace tran_status {  // combinable [C]; the other bits are not public
inline constexpr std::uint8_t stopped = 0x80;
inline constexpr std::uint8_t online_change_pending = 0x40;
}  // namespace tran_status

inline constexpr std::size_t transaction_attributes_size = 11;  // data bytes after LLZZ

struct transaction_attributes {
  ebcdic_name<8> trancode;               // segment +4
  std::uint8_t type = tran_type::valid;  // segment +12
  std::uint8_t attributes = 0;           // segment +13
  std::uint8_t status = 0;               // segment +14
  bytes extension;                       // segment +15..: error text for X'FE', or more data, kept raw

  bool usable_from_otma() const noexcept { return type == tran_type::valid; }
};

namespace tran_names {
inline constexpr layout::value_name type[] = {{tran_type::valid, "valid"},
                                              {tran_type::cpic, "cpic"},
                                              {tran_type::fast_path_exclusive, "fast_path_exclusive"},
                                              {tran_type::fast_path_potential, "fast_path_potential"},
                                              {tran_type::msc_remote, "msc_remote"},
                                              {tran_type::invalid_syntax, "invalid_syntax"},
                                              {tran_type::not_found, "not_found"}};
inline constexpr layout::value_name attributes[] = {{tran_attribute::response_mode, "response_mode"},
                                                    {tran_attribute::conversational, "conversational"},
                                                    {tran_attribute::update, "update"},
                                                    {tran_attribute::irrecoverable, "irrecoverable"},
                                                    {tran_attribute::multi_segment, "multi_segment"},
                                                    {tran_attribute::uppercase, "uppercase"}};
inline constexpr layout::value_name status[] = {
    {tran_status::stopped, "stopped"}, {tran_status::online_change_pending, "online_change_pending"}};
}  // namespace tran_names

inline constexpr auto transaction_attributes_layout =
    std::make_tuple(layout::make("trancode", 0, &transaction_attributes::trancode, layout::kind::name),
                    layout::make("type", 8, &transaction_attributes::type, layout::kind::code,
                                 layout::names_of(tran_names::type)),
                    layout::make("attributes", 9, &transaction_attributes::attributes, layout::kind::flags,
                                 layout::names_of(tran_names::attributes)),
                    layout::make("status", 10, &transaction_attributes::status, layout::kind::flags,
                                 layout::names_of(tran_names::status)));
static_assert(layout::tiled_end(transaction_attributes_layout, 0) == transaction_attributes_size);

inline bool operator==(const transaction_attributes& a, const transaction_attributes& b) {
  return layout::equal(transaction_attributes_layout, a, b) && a.extension == b.extension;
}
inline bool operator!=(const transaction_attributes& a, const transaction_attributes& b) { return !(a == b); }

// `offset` is where the segment (its LL) starts in the buffer, for errors.
result<transaction_attributes> decode_transaction_attributes(const segment& s, std::size_t offset = 0);
segment encode_transaction_attributes(const transaction_attributes& t);
// One printed_field per field, offsets counted from the segment's LL at `offset`.
void print_transaction_attributes(const transaction_attributes& t, std::size_t offset,
                                  std::vector<printed_field>& out);

}  // namespace imsb::otma
