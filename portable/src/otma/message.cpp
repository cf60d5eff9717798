#include "imsb/otma/message.hpp"

#include <string>
#include <utility>

#include "format_error.hpp"

namespace imsb::otma {

using detail::format_error;
using detail::num;

const std::vector<segment>& otma_message::segments() const noexcept {
  static const std::vector<segment> none;
  return application ? application->segments : none;
}

namespace {

// Takes the next length-prefixed section at `pos` ([C: IMS-SD-TXN, IMS-SEC, IMS-USR]: each section's
// 2-byte length counts itself), checking that it is there in full; `min` is the smallest length the
// section can have.
result<bytes_view> take_section(bytes_view buffer, std::size_t pos, const char* section, std::size_t min) {
  const std::string field = std::string("OTMA.") + section + ".length";
  if (buffer.size() - pos < 2) {
    return format_error(field, pos,
                        "buffer ends " + num(buffer.size() - pos) + " bytes after offset " + num(pos) +
                            "; the section's length field needs 2 (prefix flags say it is present)");
  }
  const std::size_t ll = load_u16(buffer.data() + pos, byte_order::big);
  if (ll < min) {
    return format_error(field, pos, "length " + num(ll) + " is less than the minimum " + num(min));
  }
  if (ll > buffer.size() - pos) {
    return format_error(field, pos,
                        "length " + num(ll) + " runs past the end of the buffer (" +
                            num(buffer.size() - pos) + " bytes left)");
  }
  return buffer.sub(pos, ll);
}

}  // namespace

result<otma_message> decode_message(bytes_view buffer) {
  if (buffer.size() < mci_size) {
    return format_error("OTMA.mci", 0, "buffer of " + num(buffer.size()) + " bytes; the MCI needs 32");
  }
  otma_message m;
  layout::decode(mci_layout, buffer.data(), m.mci);
  std::size_t pos = mci_size;

  // Sections in their fixed order, each present when its prefix flag is set (the order
  // [C: IMS-MSGS-CLI, IMS-SD]; the flag bits [I: IMS-SAMPLE]).
  if (m.mci.has(prefix::state_data)) {
    auto section = take_section(buffer, pos, "state_data", section_length_size);
    if (!section) return section.error();
    auto sd = decode_state_data(*section, state_data_kind_for(m.mci), pos);
    if (!sd) return sd.error();
    m.state = std::move(sd).value();
    pos += section->size();
  }
  if (m.mci.has(prefix::security_data)) {
    auto section = take_section(buffer, pos, "security_data", security_header_size);
    if (!section) return section.error();
    auto se = decode_security_data(*section, pos);
    if (!se) return se.error();
    m.security = std::move(se).value();
    pos += section->size();
  }
  if (m.mci.has(prefix::user_data)) {
    auto section = take_section(buffer, pos, "user_data", 2);
    if (!section) return section.error();
    auto us = decode_user_data(*section, pos);
    if (!us) return us.error();
    m.user = std::move(us).value();
    pos += section->size();
  }
  if (m.mci.has(prefix::application_data)) {
    auto ap = decode_application_data(buffer.sub(pos), pos);
    if (!ap) return ap.error();
    m.application = std::move(ap).value();
  } else {
    m.trailer = buffer.sub(pos).to_bytes();
  }
  return m;
}

std::uint8_t prefix_flags_for(const otma_message& message) noexcept {
  std::uint8_t flags = message.mci.prefix_flags & static_cast<std::uint8_t>(~prefix::sections_mask);
  if (message.state) flags |= prefix::state_data;
  if (message.security) flags |= prefix::security_data;
  if (message.user) flags |= prefix::user_data;
  if (message.application) flags |= prefix::application_data;
  return flags;
}

result<bytes> encode_message(const otma_message& message) {
  // Check every limit first, with the offsets the fields will have, then write.
  std::size_t pos = mci_size;
  if (message.state) {
    if (auto err = check_state_data(*message.state, state_data_kind_for(message.mci), pos)) return *err;
    pos += encoded_size(*message.state);
  }
  if (message.security) {
    if (auto err = check_security_data(*message.security, pos)) return *err;
    pos += message.security->encoded_size();
  }
  if (message.user) {
    if (auto err = check_user_data(*message.user, pos)) return *err;
    pos += message.user->encoded_size();
  }
  if (message.application) {
    if (auto err = check_application_data(*message.application, pos)) return *err;
    if (!message.trailer.empty()) {
      return format_error("OTMA.trailer", pos + message.application->encoded_size(),
                          num(message.trailer.size()) +
                              " trailing bytes after application data could not be told from a segment");
    }
    pos += message.application->encoded_size();
  }
  pos += message.trailer.size();

  bytes out(mci_size);
  out.reserve(pos);
  otma::mci control = message.mci;
  control.prefix_flags = prefix_flags_for(message);
  layout::encode(mci_layout, control, out.data());
  if (message.state) append_state_data(*message.state, out);
  if (message.security) append_security_data(*message.security, out);
  if (message.user) append_user_data(*message.user, out);
  if (message.application) append_application_data(*message.application, out);
  out.insert(out.end(), message.trailer.begin(), message.trailer.end());
  return out;
}

bool operator==(const otma_message& a, const otma_message& b) {
  otma::mci ma = a.mci;
  otma::mci mb = b.mci;
  ma.prefix_flags = prefix_flags_for(a);
  mb.prefix_flags = prefix_flags_for(b);
  return ma == mb && a.state == b.state && a.security == b.security && a.user == b.user &&
         a.application == b.application && a.trailer == b.trailer;
}

std::vector<printed_field> describe(const otma_message& message) {
  std::vector<printed_field> out;
  otma::mci control = message.mci;
  control.prefix_flags = prefix_flags_for(message);
  layout::print(mci_layout, control, "mci.", 0, out);
  std::size_t pos = mci_size;
  if (message.state) {
    print_state_data(*message.state, pos, out);
    pos += encoded_size(*message.state);
  }
  if (message.security) {
    print_security_data(*message.security, pos, out);
    pos += message.security->encoded_size();
  }
  if (message.user) {
    const user_data& us = *message.user;
    out.push_back({"user_data.length", pos, 2,
                   layout::format_number(static_cast<std::uint32_t>(us.encoded_size()), 2, false), ""});
    if (auto mq = decode_mq_user_data(us, pos)) {
      layout::print(mq_user_data_layout, *mq, "user_data.mq.", pos, out);
      if (!mq->reserved.empty())
        out.push_back({"user_data.mq.reserved", pos + mq_user_data_size, mq->reserved.size(),
                       to_hex(mq->reserved), ""});
    } else if (!us.body.empty()) {
      out.push_back({"user_data.body", pos + 2, us.body.size(), to_hex(us.body), ""});
    }
    pos += us.encoded_size();
  }
  if (message.application) {
    const auto& segs = message.application->segments;
    for (std::size_t i = 0; i < segs.size(); ++i) {
      const std::string name = "application_data.segment[" + num(i) + "]";
      out.push_back({name + ".LL", pos, 2,
                     layout::format_number(static_cast<std::uint32_t>(segs[i].encoded_size()), 2, false),
                     ""});
      out.push_back({name + ".ZZ", pos + 2, 2, layout::format_number(segs[i].zz, 2, false), ""});
      out.push_back({name + ".data", pos + llzz_size, segs[i].data.size(), to_hex(segs[i].data),
                     layout::quote(codepage::get_field(segs[i].data, name_ccsid))});
      pos += segs[i].encoded_size();
    }
  }
  if (!message.trailer.empty())
    out.push_back({"trailer", pos, message.trailer.size(), to_hex(message.trailer), ""});
  return out;
}

}  // namespace imsb::otma
