// libFuzzer target for the codec of the OTMA message prefix [C: IMS-MSGS-CLI]. Three properties, each on the
// same input read three ways:
//  1. as a buffer: decode_message must never crash or read past it, and whatever it accepts must
//     re-encode to the very same bytes — the byte-exactness the bridge and the emulator rely on when
//     they echo a prefix back ([C-hex: IMS-SAMPLE-RS]: the ACK of CBresynch echoes SD and SE unchanged);
//  2. as a recipe for an otma_message (any MCI, any state-data variant whether or not the MCI calls
//     for it, oversized fields, no segments...): whatever encode_message accepts must decode back
//     equal — encode refuses everything the decoder enforces (message.hpp);
//  3. as chains: the message of 2 split by encode_chain (limits from the input), and the input cut in
//     two buffers. What decode_chain reassembles holds the buffers' segments (and a SRVresynch's tpipe
//     names) concatenated in order, none dropped or moved, and encodes again.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "imsb/otma/message.hpp"
#include "imsb/otma/transaction_attributes.hpp"

namespace {

namespace o = imsb::otma;

void require(bool ok) {
  if (!ok) __builtin_trap();
}

// Draws values from the fuzz input; zeros once it runs out.
class recipe {
 public:
  recipe(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint16_t u16() {
    const std::uint16_t high = byte();
    return static_cast<std::uint16_t>(high << 8 | byte());
  }
  std::uint32_t u32() {
    const std::uint32_t high = u16();
    return high << 16 | u16();
  }
  bool flag() { return (byte() & 1) != 0; }
  // A size that is usually small and now and then just around a limit the codec enforces.
  std::size_t size_near(std::size_t limit) {
    const std::uint8_t how = byte();
    if (how < 200) return how % 40;
    const std::size_t around = limit + how % 5;  // limit - 2 .. limit + 2
    return around >= 2 ? around - 2 : 0;
  }
  imsb::bytes data(std::size_t n) {
    imsb::bytes b(n);
    for (auto& c : b) c = byte();
    return b;
  }
  template <std::size_t N>
  void fill(std::array<std::uint8_t, N>& a) {
    for (auto& c : a) c = byte();
  }
  template <std::size_t N>
  void fill(o::ebcdic_name<N>& n) {
    fill(n.raw);
  }

  o::mci mci() {
    o::mci m;
    m.architecture_level = byte();
    m.message_type = byte();
    m.response_flag = byte();
    m.commit_confirmation = byte();
    m.command_type = byte();
    m.processing_flags = byte();
    fill(m.tpipe_name);
    m.chain_flags = byte();
    m.prefix_flags = byte();
    m.send_seq = u32();
    m.sense_code = u16();
    m.reason_code = u16();
    m.recoverable_seq = u32();
    m.segment_seq = u16();
    m.reserved = u16();
    return m;
  }

  // Any variant: the MCI's own kind most of the time, any other now and then.
  o::state_data state(const o::mci& m) {
    const std::uint8_t pick = byte();
    const auto kind = pick < 192 ? o::state_data_kind_for(m)
                                 : static_cast<o::state_data_kind>(pick % std::variant_size_v<o::state_data>);
    switch (kind) {
      case o::state_data_kind::raw:
        return o::raw_state_data{data(size_near(0))};
      case o::state_data_kind::transaction: {
        o::transaction_state_data t;
        t.server_state = byte();
        t.sync_flags = byte();
        t.route_flags = byte();
        fill(t.server_token);
        t.expiration = static_cast<std::int32_t>(u32());
        t.extension = data(byte() % 8);
        return t;
      }
      case o::state_data_kind::client_bid: {
        o::client_bid_state_data c;
        fill(c.member_name);
        fill(c.originator_token);
        c.flags = byte();
        c.extension = data(byte() % 16);
        return c;
      }
      case o::state_data_kind::server_available: {
        o::server_available_state_data a;
        fill(a.member_name);
        fill(a.originator_token);
        a.extension = data(byte() % 24);
        return a;
      }
      case o::state_data_kind::server_state:
        return o::server_state_data{u16(), data(byte() % 8)};
      case o::state_data_kind::srvresynch: {
        o::srvresynch_state_data s;
        s.tpipe_names.resize(byte() % 6);
        for (auto& n : s.tpipe_names) fill(n);
        return s;
      }
      case o::state_data_kind::reqresynch: {
        o::reqresynch_state_data q;
        fill(q.tpipe_name);
        q.ims_send_seq = u32();
        q.extension = data(byte() % 4);
        return q;
      }
      case o::state_data_kind::represynch: {
        o::represynch_state_data p;
        fill(p.tpipe_name);
        p.tpipe_flag1 = byte();
        p.extension = data(byte() % 10);
        return p;
      }
      case o::state_data_kind::tbresynch: {
        o::tbresynch_state_data t;
        fill(t.tpipe_name);
        t.extension = data(byte() % 4);
        return t;
      }
    }
    return o::raw_state_data{};
  }

  o::security_data security() {
    o::security_data se;
    se.flag = byte();
    for (std::size_t n = byte() % 4; n > 0; --n) {
      const std::uint8_t type = byte() % 6;  // UTOKEN, user ID, profile, NETUID, NETSID and 0x01
      const std::size_t size = type == o::security_type::utoken ? size_near(o::max_utoken_size)
                               : type == o::security_type::user_id || type == o::security_type::profile
                                   ? size_near(o::max_user_id_size)
                                   : size_near(254);
      se.subfields.push_back({type, data(size)});
    }
    if (flag()) se.subfield_length = byte();
    return se;
  }

  o::otma_message message() {
    o::otma_message m;
    m.mci = mci();
    const std::uint8_t sections = byte();
    if (sections & 0x01) m.state = state(m.mci);
    if (sections & 0x02) m.security = security();
    if (sections & 0x04) m.user = o::user_data{data(size_near(o::max_user_data_size - 2))};
    if (sections & 0x08) {
      m.application = o::application_data{};
      for (std::size_t n = byte() % 4; n > 0; --n) {  // zero segments too: encode must refuse it
        const std::size_t size =
            (byte() & 0x0F) == 0 ? size_near(o::max_segment_size - o::llzz_size) : byte();
        m.application->segments.push_back({u16(), data(size)});
      }
    }
    if (sections & 0x10) m.trailer = data(1 + byte() % 6);
    return m;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// 1. decode → encode gives the same bytes.
void buffer_round_trip(const std::uint8_t* data, std::size_t size) {
  const imsb::bytes_view input(data, size);
  auto decoded = o::decode_message(input);
  if (!decoded.ok()) {
    require(!decoded.error().field.empty());  // every error names its field
    return;
  }
  auto encoded = o::encode_message(*decoded);
  require(encoded.ok() && encoded->size() == size && std::equal(encoded->begin(), encoded->end(), data));
  (void)o::describe(*decoded);
  for (const auto& segment : decoded->segments()) {  // as a /DIS TRAN attributes segment [C: IMS-DISTRAN]
    auto attributes = o::decode_transaction_attributes(segment);
    if (attributes.ok()) require(o::encode_transaction_attributes(*attributes).data == segment.data);
  }
  if (decoded->user) {  // as the bridge's MQ user data ([D], docs/design/otma.md)
    auto mq = o::decode_mq_user_data(*decoded->user);
    if (mq.ok()) require(o::encode_mq_user_data(*mq).value() == *decoded->user);
  }
}

// 3. decode_chain's result against the buffers it came from: every buffer decodes on its own, and the
// reassembled message holds their segments and tpipe names concatenated, in order.
void check_reassembly(const std::vector<imsb::bytes_view>& buffers, const o::otma_message& chained) {
  std::vector<o::segment> segments;
  std::vector<o::ebcdic_name<8>> names;
  for (const auto& b : buffers) {
    auto part = o::decode_message(b);
    require(part.ok());
    segments.insert(segments.end(), part->segments().begin(), part->segments().end());
    if (part->state) {
      if (const auto* srv = std::get_if<o::srvresynch_state_data>(&*part->state))
        names.insert(names.end(), srv->tpipe_names.begin(), srv->tpipe_names.end());
    }
  }
  require(chained.segments() == segments);
  if (chained.state) {
    if (const auto* srv = std::get_if<o::srvresynch_state_data>(&*chained.state))
      require(srv->tpipe_names == names);
  }
}

// 2. encode ok ⇒ decode ok and equal; and the same message as a chain.
void message_round_trip(const std::uint8_t* data, std::size_t size) {
  recipe r(data, size);
  o::otma_message m = r.message();
  auto encoded = o::encode_message(m);
  if (!encoded.ok()) {
    require(!encoded.error().field.empty());
    return;
  }
  auto decoded = o::decode_message(*encoded);
  require(decoded.ok());
  require(*decoded == m);
  auto again = o::encode_message(*decoded);
  require(again.ok() && *again == *encoded);

  const std::size_t per_segments = r.byte() % 4;
  const std::size_t per_names = r.byte() % 3;
  auto buffers = o::encode_chain(m, per_segments, per_names);
  require(buffers.ok());  // the first buffer is m's prefix, and m encodes
  const std::vector<imsb::bytes_view> views(buffers->begin(), buffers->end());
  auto chained = o::decode_chain(views);
  require(chained.ok());
  check_reassembly(views, *chained);
  m.mci.chain_flags =
      static_cast<std::uint8_t>((m.mci.chain_flags & ~o::chain::position_mask) | o::chain::single);
  require(*chained == m);
}

// 3. The input cut in two at a point it chooses: the chain checks on arbitrary buffers.
void chain(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return;
  const imsb::bytes_view input(data, size);
  const std::size_t cut = data[0] % size;
  const std::vector<imsb::bytes_view> buffers = {input.sub(0, cut), input.sub(cut)};
  auto chained = o::decode_chain(buffers);
  if (!chained.ok()) return;
  check_reassembly(buffers, *chained);
  // As one buffer it is a message like any other: it encodes, and decodes back equal.
  auto one = o::encode_chain(*chained, 0);
  if (!one.ok()) {  // only two lists of tpipe names too long together for one 16-bit length
    require(one.error().field == "OTMA.chain[0].state_data.length");
    return;
  }
  require(one->size() == 1);
  auto back = o::decode_message(one->front());
  require(back.ok() && *back == *chained);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  buffer_round_trip(data, size);
  message_round_trip(data, size);
  chain(data, size);
  return 0;
}
