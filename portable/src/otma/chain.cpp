// Multi-buffer OTMA messages: only the first buffer carries the full prefix [C: IMS-MSGS-CLI, ICON-OUT];
// the chain-flag values are [I] (docs/design/otma.md).
#include <algorithm>
#include <string>
#include <utility>

#include "format_error.hpp"
#include "imsb/otma/message.hpp"

namespace imsb::otma {

using detail::format_error;
using detail::num;

namespace {

decode_error in_buffer(std::size_t index, decode_error e) {
  e.field = "OTMA.chain[" + num(index) + "]." + e.field.substr(e.field.rfind("OTMA.", 0) == 0 ? 5 : 0);
  return e;
}

std::string chain_text(std::uint8_t flags) {
  return layout::format_byte(flags) + " (" +
         layout::name_flags(flags & chain::position_mask, layout::names_of(mci_names::chain_flags)) + ")";
}

// The SRVresynch tpipe names of `message`, when its names may be split over buffers [C: IMS-SD-SRV];
// nullptr otherwise.
const srvresynch_state_data* srvresynch_names(const otma_message& message) {
  if (!message.state || state_data_kind_for(message.mci) != state_data_kind::srvresynch) return nullptr;
  return std::get_if<srvresynch_state_data>(&*message.state);
}

// How many buffers `n` items take at `per` a buffer (0 = no limit).
std::size_t buffers_for(std::size_t n, std::size_t per) {
  return (per == 0 || n <= per) ? 1 : (n + per - 1) / per;
}

template <class T>
std::vector<T> slice_of(const std::vector<T>& all, std::size_t b, std::size_t per, std::size_t count) {
  if (count == 1 || per == 0) return b == 0 ? all : std::vector<T>{};
  const std::size_t from = std::min(all.size(), b * per);
  const std::size_t to = std::min(all.size(), from + per);
  return std::vector<T>(all.begin() + static_cast<std::ptrdiff_t>(from),
                        all.begin() + static_cast<std::ptrdiff_t>(to));
}

}  // namespace

result<std::vector<bytes>> encode_chain(const otma_message& message, std::size_t max_segments_per_buffer,
                                        std::size_t max_tpipe_names_per_buffer) {
  const std::vector<segment>& all = message.segments();
  const srvresynch_state_data* srv = srvresynch_names(message);
  const std::size_t per_name = srv ? max_tpipe_names_per_buffer : 0;
  const std::size_t count = std::max(buffers_for(all.size(), max_segments_per_buffer),
                                     srv ? buffers_for(srv->tpipe_names.size(), per_name) : std::size_t{1});
  const std::uint8_t kept = message.mci.chain_flags & static_cast<std::uint8_t>(~chain::position_mask);

  std::vector<bytes> buffers;
  buffers.reserve(count);
  for (std::size_t b = 0; b < count; ++b) {
    otma_message part;
    part.mci = message.mci;
    if (b == 0) {
      // The first buffer carries the whole prefix [C: IMS-MSGS-CLI].
      part.state = message.state;
      part.security = message.security;
      part.user = message.user;
      part.trailer = message.trailer;
    }
    if (srv && count > 1) {
      // SRVresynch names that do not fit one buffer go on in the next ones [C: IMS-SD-SRV].
      srvresynch_state_data names{slice_of(srv->tpipe_names, b, per_name, count)};
      if (b == 0 || !names.tpipe_names.empty()) part.state = state_data(std::move(names));
    }
    if (message.application) {
      application_data ap{slice_of(all, b, max_segments_per_buffer, count)};
      // Buffers past the last segment (a SRVresynch's longer list of names) carry none; the first
      // always takes what it gets, so that no segments at all is refused as encode_message refuses it.
      if (b == 0 || !ap.segments.empty()) part.application = std::move(ap);
    }
    std::uint8_t position = count == 1       ? chain::single
                            : b == 0         ? chain::first
                            : b + 1 == count ? chain::last
                                             : chain::middle;
    part.mci.chain_flags = kept | position;
    part.mci.segment_seq = static_cast<std::uint16_t>(message.mci.segment_seq + b);  // [I]
    auto bytes_or = encode_message(part);
    if (!bytes_or) {
      return in_buffer(b, bytes_or.error());
    }
    buffers.push_back(std::move(bytes_or).value());
  }
  return buffers;
}

result<otma_message> decode_chain(const std::vector<bytes_view>& buffers) {
  if (buffers.empty()) return format_error("OTMA.chain", 0, "no buffers");
  const std::size_t count = buffers.size();
  otma_message whole;
  bool srvresynch = false;
  for (std::size_t b = 0; b < count; ++b) {
    auto part_or = decode_message(buffers[b]);
    if (!part_or) return in_buffer(b, part_or.error());
    otma_message& part = part_or.value();
    const std::string where = "OTMA.chain[" + num(b) + "].mci.";

    const std::uint8_t position = part.mci.chain_flags & chain::position_mask;
    const std::uint8_t expected = count == 1       ? chain::single
                                  : b == 0         ? chain::first
                                  : b + 1 == count ? chain::last
                                                   : chain::middle;
    if (position & chain::discard) {
      return format_error(where + "chain_flags", 14,
                          "the sender discarded the chain: " + chain_text(part.mci.chain_flags));
    }
    if (position != expected) {
      return format_error(where + "chain_flags", 14,
                          "buffer " + num(b + 1) + " of " + num(count) + " has " +
                              chain_text(part.mci.chain_flags) + "; expected " + chain_text(expected));
    }
    if (b == 0) {
      whole = std::move(part);
      whole.mci.chain_flags =
          static_cast<std::uint8_t>((whole.mci.chain_flags & ~chain::position_mask) | chain::single);
      srvresynch = state_data_kind_for(whole.mci) == state_data_kind::srvresynch;
      continue;
    }
    // Later buffers: MCI + application data only [C: IMS-MSGS-CLI, ICON-OUT] — except that a
    // SRVresynch's list of tpipe names goes on in the state data of later buffers [C: IMS-SD-SRV].
    if (part.mci.send_seq != whole.mci.send_seq) {
      return format_error(where + "send_seq", 16,
                          "send-sequence number " + num(part.mci.send_seq) +
                              " differs from the first buffer's " + num(whole.mci.send_seq));
    }
    if (part.mci.tpipe_name != whole.mci.tpipe_name) {
      return format_error(where + "tpipe_name", 6,
                          "tpipe '" + part.mci.tpipe_name.value() + "' differs from the first buffer's '" +
                              whole.mci.tpipe_name.value() + "'");
    }
    const srvresynch_state_data* more_names = srvresynch ? srvresynch_names(part) : nullptr;
    if (part.security || part.user || (part.state && more_names == nullptr)) {
      return format_error(where + "prefix_flags", 15,
                          std::string(srvresynch ? "a later buffer of a SRVresynch chain carries only MCI, "
                                                   "state data (more tpipe names) and application data"
                                                 : "a later buffer of a chain carries only MCI and "
                                                   "application data") +
                              "; prefix flags " + layout::format_byte(part.mci.prefix_flags));
    }
    if (!part.trailer.empty()) {
      return format_error("OTMA.chain[" + num(b) + "].trailer",
                          part.state ? mci_size + encoded_size(*part.state) : mci_size,
                          num(part.trailer.size()) + " bytes that are not application data");
    }
    if (more_names) {
      if (!whole.state) whole.state = state_data(srvresynch_state_data{});
      auto& into = std::get<srvresynch_state_data>(*whole.state).tpipe_names;
      into.insert(into.end(), more_names->tpipe_names.begin(), more_names->tpipe_names.end());
    }
    if (part.application) {
      if (!whole.application) whole.application = application_data{};
      auto& into = whole.application->segments;
      for (auto& s : part.application->segments) into.push_back(std::move(s));
    }
  }
  if (count > 1 && whole.application && !whole.trailer.empty()) {
    return format_error("OTMA.chain[0].trailer", 0,
                        "the first buffer has trailing bytes and no application data");
  }
  return whole;
}

}  // namespace imsb::otma
