// Seeded random round trips: encode → decode gives the message back, decode → encode gives the bytes
// back, for generated messages and for mutated, truncated and random buffers (never a crash).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>

#include "imsb/otma/message.hpp"
#include "otma_test_support.hpp"
#include "vectors.hpp"

namespace imsb::otma {
namespace {

class generator {
 public:
  explicit generator(std::uint32_t seed) : rng_(seed) {}

  std::uint32_t below(std::uint32_t n) {
    return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng_);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  std::uint8_t byte() { return static_cast<std::uint8_t>(below(256)); }
  std::uint16_t u16() { return static_cast<std::uint16_t>(below(65536)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(rng_()); }
  bytes data(std::size_t n) {
    bytes b(n);
    for (auto& c : b) c = byte();
    return b;
  }
  template <std::size_t N>
  void fill(std::array<std::uint8_t, N>& a) {
    for (auto& c : a) c = byte();
  }
  template <std::size_t N>
  void fill(ebcdic_name<N>& n) {
    fill(n.raw);
  }
  bytes small_extension() { return chance(0.3) ? data(below(20)) : bytes{}; }

  std::optional<std::uint8_t> maybe_byte(double p) {
    return chance(p) ? std::optional<std::uint8_t>(byte()) : std::nullopt;
  }

  mci random_mci() {
    static constexpr std::uint8_t commands[] = {command::client_bid,   command::server_available,
                                                command::cbresynch,    command::suspend,
                                                command::srvresynch,   command::reqresynch,
                                                command::represynch,   command::tbresynch,
                                                command::server_state, 0x7E};
    mci m;
    m.architecture_level = chance(0.9) ? architecture_level_1 : byte();
    m.message_type =
        chance(0.5) ? static_cast<std::uint8_t>(msg_type::command | (chance(0.5) ? msg_type::response : 0))
                    : byte();
    m.response_flag = byte();
    m.commit_confirmation = byte();
    m.command_type = chance(0.8) ? commands[below(std::size(commands))] : byte();
    m.processing_flags = byte();
    fill(m.tpipe_name);
    m.chain_flags = byte();
    m.prefix_flags = byte();  // only the low four bits survive; encode sets the rest
    m.send_seq = u32();
    m.sense_code = u16();
    m.reason_code = u16();
    m.recoverable_seq = u32();
    m.segment_seq = u16();
    m.reserved = u16();
    return m;
  }

  state_data random_state(state_data_kind kind) {
    switch (kind) {
      case state_data_kind::raw:
        return raw_state_data{data(below(60))};
      case state_data_kind::transaction: {
        transaction_state_data t;
        t.server_state = byte();
        t.sync_flags = byte();
        t.txn_flags = byte();
        t.route_flags = byte();
        t.cm1_timeout = u16();
        fill(t.lterm_override);
        fill(t.modname);
        fill(t.client_correlator);
        fill(t.server_token);
        t.expiration = static_cast<std::int32_t>(u32());
        t.reserved = u16();
        fill(t.reroute_tpipe);
        t.extension = small_extension();
        return t;
      }
      case state_data_kind::client_bid: {
        client_bid_state_data c;
        fill(c.member_name);
        fill(c.originator_token);
        fill(c.destination_token);
        fill(c.dru_exit_name);
        c.max_blocksize = u16();
        c.flags = byte();
        c.flags2 = byte();
        c.acee_aging = u32();
        c.hash_table_size = u32();
        c.extension = small_extension();
        return c;
      }
      case state_data_kind::server_available: {
        server_available_state_data a;
        fill(a.member_name);
        fill(a.originator_token);
        fill(a.destination_token);
        a.extension = chance(0.3) ? data(20) : small_extension();
        return a;
      }
      case state_data_kind::server_state:
        return server_state_data{u16(), small_extension()};
      case state_data_kind::srvresynch: {
        srvresynch_state_data s;
        s.tpipe_names.resize(below(6));
        for (auto& n : s.tpipe_names) fill(n);
        return s;
      }
      case state_data_kind::reqresynch: {
        reqresynch_state_data q;
        fill(q.tpipe_name);
        q.ims_send_seq = u32();
        q.ims_receive_seq = u32();
        q.tpipe_flag1 = byte();
        q.tpipe_flag2 = byte();
        fill(q.reserved);
        q.extension = small_extension();
        return q;
      }
      case state_data_kind::represynch: {
        represynch_state_data p;
        fill(p.tpipe_name);
        p.client_send_seq = u32();
        p.client_receive_seq = u32();
        p.tpipe_flag1 = byte();
        if (chance(0.5)) p.extension = small_extension();
        return p;
      }
      case state_data_kind::tbresynch: {
        tbresynch_state_data t;
        fill(t.tpipe_name);
        t.extension = small_extension();
        return t;
      }
    }
    return raw_state_data{};
  }

  security_data random_security() {
    static constexpr std::uint8_t types[] = {security_type::utoken,
                                             security_type::user_id,
                                             security_type::profile,
                                             security_type::network_user_id,
                                             security_type::network_session_id,
                                             0x7E};
    security_data se;
    se.flag = chance(0.8) ? security_flag::check : byte();
    std::size_t budget = max_subfields_size;
    for (std::uint32_t n = below(4); n > 0; --n) {
      std::uint8_t type = types[below(std::size(types))];
      std::size_t max = type == security_type::utoken                                        ? 80
                        : (type == security_type::user_id || type == security_type::profile) ? 8
                                                                                             : 60;
      std::size_t size = below(static_cast<std::uint32_t>(max + 1));
      if (size + 2 > budget) break;
      budget -= size + 2;
      se.subfields.push_back({type, data(size)});
    }
    se.subfield_length = maybe_byte(0.3);  // byte 3 is reserved to IMS [C: IMS-SEC]
    return se;
  }

  application_data random_application() {
    application_data ap;
    for (std::uint32_t n = 1 + below(6); n > 0; --n) {  // one or more segments [C: IMS-APP]
      std::size_t size = chance(0.02) ? max_segment_size - llzz_size : below(300);
      ap.segments.push_back({static_cast<std::uint16_t>(chance(0.9) ? 0 : u16()), data(size)});
    }
    return ap;
  }

  otma_message message() {
    otma_message m;
    m.mci = random_mci();
    if (chance(0.7)) m.state = random_state(state_data_kind_for(m.mci));
    if (chance(0.5)) m.security = random_security();
    if (chance(0.4)) m.user = user_data{data(chance(0.05) ? max_user_data_size - 2 : below(400))};
    if (chance(0.6)) {
      m.application = random_application();
    } else if (chance(0.3)) {
      m.trailer = data(1 + below(10));
    }
    m.mci.prefix_flags = prefix_flags_for(m);
    return m;
  }

 private:
  std::mt19937 rng_;
};

TEST(Property, GeneratedMessagesRoundTrip) {
  generator gen(20240601);
  for (int i = 0; i < 5000; ++i) {
    otma_message m = gen.message();
    auto b = encode_message(m);
    ASSERT_TRUE(b.ok()) << "iteration " << i << ": " << b.error().to_string();
    auto back = decode_message(*b);
    ASSERT_TRUE(back.ok()) << "iteration " << i << ": " << back.error().to_string();
    ASSERT_EQ(*back, m) << "iteration " << i;
    auto again = encode_message(*back);
    ASSERT_TRUE(again.ok());
    ASSERT_EQ(*again, *b) << "iteration " << i;
  }
}

TEST(Property, GeneratedChainsRoundTrip) {
  generator gen(77);
  for (int i = 0; i < 2000; ++i) {
    otma_message m = gen.message();
    m.mci.chain_flags = static_cast<std::uint8_t>((m.mci.chain_flags & 0x0F) | chain::single);
    const std::size_t per = gen.below(4);
    const std::size_t per_names = gen.below(3);
    auto buffers = encode_chain(m, per, per_names);
    ASSERT_TRUE(buffers.ok()) << "iteration " << i << ": " << buffers.error().to_string();
    auto count = [](std::size_t n, std::size_t k) -> std::size_t {
      return (k == 0 || n <= k) ? 1 : (n + k - 1) / k;
    };
    std::size_t expected = count(m.segments().size(), per);
    const auto* srv = m.state ? std::get_if<srvresynch_state_data>(&*m.state) : nullptr;
    if (srv) expected = std::max(expected, count(srv->tpipe_names.size(), per_names));  // [C: IMS-SD-SRV]
    ASSERT_EQ(buffers->size(), expected) << "iteration " << i;
    auto back = decode_chain(std::vector<bytes_view>(buffers->begin(), buffers->end()));
    ASSERT_TRUE(back.ok()) << "iteration " << i << ": " << back.error().to_string();
    ASSERT_EQ(*back, m) << "iteration " << i;
    auto again = encode_chain(*back, per, per_names);
    ASSERT_TRUE(again.ok());
    ASSERT_EQ(*again, *buffers) << "iteration " << i;
  }
}

// Whatever decode accepts, encode gives back byte for byte (the fuzz target's property).
void expect_byte_exact_or_error(bytes_view b, const std::string& what) {
  auto m = decode_message(b);
  if (!m.ok()) {
    EXPECT_EQ(m.error().field.rfind("OTMA.", 0), 0u) << what << ": " << m.error().field;
    EXPECT_EQ(m.error().code, make_sense(sense::prefix_format_error)) << what;
    EXPECT_LE(m.error().offset, b.size()) << what;
    return;
  }
  auto again = encode_message(*m);
  ASSERT_TRUE(again.ok()) << what << ": " << again.error().to_string();
  EXPECT_EQ(to_hex(*again), to_hex(b)) << what;
}

TEST(Property, MutatedBuffersDecodeExactlyOrFail) {
  generator gen(4242);
  int decoded = 0;
  for (int i = 0; i < 5000; ++i) {
    bytes b = encode_message(gen.message()).value();
    for (std::uint32_t k = 1 + gen.below(4); k > 0; --k)
      b[gen.below(static_cast<std::uint32_t>(b.size()))] = gen.byte();
    if (gen.chance(0.3)) b.resize(gen.below(static_cast<std::uint32_t>(b.size() + 1)));
    if (gen.chance(0.1)) {
      bytes tail = gen.data(gen.below(8));
      b.insert(b.end(), tail.begin(), tail.end());
    }
    expect_byte_exact_or_error(b, "iteration " + std::to_string(i));
    decoded += decode_message(b).ok() ? 1 : 0;
  }
  EXPECT_GT(decoded, 0);  // the mutations do not all break the buffer
}

TEST(Property, RandomBytesNeverCrash) {
  generator gen(99);
  for (int i = 0; i < 5000; ++i) {
    bytes b = gen.data(gen.below(200));
    if (b.size() > 15 && gen.chance(0.5)) b[15] &= 0xF0 | gen.byte();
    expect_byte_exact_or_error(b, "iteration " + std::to_string(i));
  }
}

TEST(Property, EveryTruncationOfEveryGoldenVector) {
  for (const char* name : {"client_bid.hex", "cbresynch.hex", "cbresynch_ack.hex", "srvresynch.hex",
                           "srvresynch_ack.hex", "reqresynch.hex", "transaction.hex"}) {
    bytes b = imsb::test::read_hex_vector(std::string("otma/") + name);
    for (std::size_t n = 0; n <= b.size(); ++n) {
      expect_byte_exact_or_error(bytes_view(b).sub(0, n), std::string(name) + " cut at " + std::to_string(n));
    }
  }
}

}  // namespace
}  // namespace imsb::otma
