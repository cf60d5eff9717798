#include "imsb/otma/user_data.hpp"

#include <algorithm>
#include <string>

#include "format_error.hpp"

namespace imsb::otma {

using detail::format_error;
using detail::num;

result<user_data> decode_user_data(bytes_view section, std::size_t offset) {
  if (section.size() < 2) {
    return format_error("OTMA.user_data.length", offset,
                        "section has " + num(section.size()) + " bytes; its length field needs 2");
  }
  const std::size_t ll = load_u16(section.data(), byte_order::big);
  if (ll != section.size()) {
    return format_error(
        "OTMA.user_data.length", offset,
        "length " + num(ll) + " differs from the section's " + num(section.size()) + " bytes");
  }
  if (ll > max_user_data_size) {  // [C: IMS-USR]; IMS issues DFS9137I for a DRU exit that does this
    return format_error("OTMA.user_data.length", offset,
                        "length " + num(ll) + " exceeds the 1024-byte limit of the user data");
  }
  return user_data{section.sub(2).to_bytes()};
}

std::optional<decode_error> check_user_data(const user_data& us, std::size_t offset) {
  if (us.encoded_size() > max_user_data_size) {
    return format_error("OTMA.user_data.length", offset,
                        "length " + num(us.encoded_size()) + " exceeds the 1024-byte limit of the user data");
  }
  return std::nullopt;
}

void append_user_data(const user_data& us, bytes& out) {
  const std::size_t base = out.size();
  out.resize(base + 2);
  store_u16(out.data() + base, static_cast<std::uint16_t>(us.encoded_size()), byte_order::big);
  out.insert(out.end(), us.body.begin(), us.body.end());
}

result<mq_user_data> decode_mq_user_data(const user_data& us, std::size_t offset) {
  // The table's offsets count the section's length field; the body starts at offset 2.
  if (us.encoded_size() < mq_user_data_size) {
    return format_error("OTMA.user_data.mq.length", offset,
                        "length " + num(us.encoded_size()) + " is shorter than the " +
                            num(mq_user_data_size) + " bytes of the MQ user data");
  }
  bytes section(2);
  store_u16(section.data(), static_cast<std::uint16_t>(us.encoded_size()), byte_order::big);
  section.insert(section.end(), us.body.begin(), us.body.end());
  mq_user_data mq;
  layout::decode(mq_user_data_layout, section.data(), mq);
  if (mq.eyecatcher != mq_user_data_eyecatcher) {
    return format_error(
        "OTMA.user_data.mq.eyecatcher", offset + 4,
        "found X'" + to_hex(bytes_view(mq.eyecatcher.data(), 4)) + "', expected 'MQUD' (X'D4D8E4C4')");
  }
  mq.reserved = bytes_view(section).sub(mq_user_data_size).to_bytes();
  return mq;
}

result<user_data> encode_mq_user_data(const mq_user_data& mq) {
  bytes section(mq_user_data_size);
  layout::encode(mq_user_data_layout, mq, section.data());
  section.insert(section.end(), mq.reserved.begin(), mq.reserved.end());
  user_data us{bytes_view(section).sub(2).to_bytes()};
  if (auto err = check_user_data(us, 0)) return *err;
  return us;
}

}  // namespace imsb::otma
