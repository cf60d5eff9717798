// State-data variants [C: IMS-SD]: selection by MCI+1/MCI+4, every field at its offset,
// extension bytes and unknown variants kept.
#include <gtest/gtest.h>

#include "imsb/otma/message.hpp"
#include "imsb/otma/state_data.hpp"
#include "otma_test_support.hpp"

namespace imsb::otma {
namespace {

using test::command_message;
using test::decode_ok;
using test::encode_ok;
using test::hex;
using test::slice;
using test::u16_at;
using test::u32_at;

constexpr std::size_t sd = mci_size;  // where the state data starts

TEST(StateDataKind, ChosenByMessageTypeAndCommand) {
  mci m;
  m.message_type = msg_type::command;
  const std::pair<std::uint8_t, state_data_kind> commands[] = {
      {command::client_bid, state_data_kind::client_bid},
      {command::cbresynch, state_data_kind::client_bid},
      {command::server_available, state_data_kind::server_available},
      {command::server_state, state_data_kind::server_state},
      {command::srvresynch, state_data_kind::srvresynch},
      {command::reqresynch, state_data_kind::reqresynch},
      {command::represynch, state_data_kind::represynch},
      {command::tbresynch, state_data_kind::tbresynch},
      {command::suspend, state_data_kind::raw},
      {command::resume_output_tpipe, state_data_kind::raw},
      {0x7E, state_data_kind::raw},
  };
  for (auto [cmd, kind] : commands) {
    m.command_type = cmd;
    EXPECT_EQ(state_data_kind_for(m), kind) << int(cmd);
  }
  m.message_type = msg_type::command | msg_type::response;  // an ACK of a command has the command's SD
  m.command_type = command::cbresynch;
  EXPECT_EQ(state_data_kind_for(m), state_data_kind::client_bid);
  for (std::uint8_t type :
       {msg_type::transaction, msg_type::data, msg_type::response, msg_type::commit_confirmation,
        std::uint8_t(msg_type::transaction | msg_type::response)}) {
    m.message_type = type;
    m.command_type = command::srvresynch;  // ignored without the command bit
    EXPECT_EQ(state_data_kind_for(m), state_data_kind::transaction) << int(type);
  }
  m.message_type = 0;
  EXPECT_EQ(state_data_kind_for(m), state_data_kind::raw);
  EXPECT_EQ(to_string(state_data_kind::represynch), "represynch");
}

TEST(TransactionStateData, EveryFieldAtItsOffset) {
  otma_message m;
  m.mci.message_type = msg_type::transaction;
  transaction_state_data t;
  t.server_state = server_state::conversational;
  t.sync_flags = sync_flags::send_then_commit | sync_flags::sync_level_confirm;
  t.txn_flags = txn_flags::ignore_purg | txn_flags::pass_expiration;
  t.route_flags = route_flags::reroute_request;
  t.cm1_timeout = 0x0102;
  t.lterm_override.set("LTERM1");
  t.modname.set("MODOUT");
  for (std::size_t i = 0; i < 16; ++i) t.client_correlator[i] = static_cast<std::uint8_t>(0xC0 + i);
  for (std::size_t i = 0; i < 16; ++i) t.server_token[i] = static_cast<std::uint8_t>(0xE0 + i);
  t.expiration = 600;
  t.reserved = 0xBEEF;
  t.reroute_tpipe.set("HOLDQ1");
  m.state = state_data(t);
  bytes b = encode_ok(m);
  ASSERT_EQ(b.size(), mci_size + transaction_state_size);
  EXPECT_EQ(u16_at(b, sd + 0), 70);
  EXPECT_EQ(b[sd + 2], 0x80);
  EXPECT_EQ(b[sd + 3], 0x21);
  EXPECT_EQ(b[sd + 4], 0xC0);
  EXPECT_EQ(b[sd + 5], 0x20);  // reroute request at byte 5 [C]
  EXPECT_EQ(u16_at(b, sd + 6), 0x0102);
  EXPECT_EQ(slice(b, sd + 8, 8), test::ebcdic("LTERM1  "));
  EXPECT_EQ(slice(b, sd + 16, 8), test::ebcdic("MODOUT  "));
  EXPECT_EQ(b[sd + 24], 0xC0);
  EXPECT_EQ(b[sd + 39], 0xCF);
  EXPECT_EQ(b[sd + 40], 0xE0);
  EXPECT_EQ(b[sd + 55], 0xEF);
  EXPECT_EQ(u32_at(b, sd + 56), 600u);
  EXPECT_EQ(u16_at(b, sd + 60), 0xBEEF);
  EXPECT_EQ(slice(b, sd + 62, 8), test::ebcdic("HOLDQ1  "));  // reroute tpipe at 62 [C]
  otma_message back = decode_ok(b);
  ASSERT_TRUE(back.state);
  ASSERT_EQ(kind_of(*back.state), state_data_kind::transaction);
  const auto& d = std::get<transaction_state_data>(*back.state);
  EXPECT_EQ(d, t);
  EXPECT_EQ(d.lterm_override.value(), "LTERM1");
  EXPECT_EQ(d.sync_level(), sync_flags::sync_level_confirm);
  EXPECT_EQ(d.commit_mode_bits(), sync_flags::send_then_commit);
}

TEST(TransactionStateData, DefaultsMeanNoOverridesAndNoExpiry) {
  otma_message m;
  m.mci.message_type = msg_type::transaction;
  m.state = state_data(transaction_state_data{});
  bytes b = encode_ok(m);
  EXPECT_EQ(slice(b, sd, 8), hex("0046 00 41 00 00 0000"));
  EXPECT_EQ(slice(b, sd + 8, 16), bytes(16, 0x40));
  EXPECT_EQ(slice(b, sd + 24, 32), bytes(32, 0x00));
  EXPECT_EQ(u32_at(b, sd + 56), 0xFFFFFFFFu);
  EXPECT_EQ(slice(b, sd + 62, 8), bytes(8, 0x40));
}

// "CM0 supports only sync level CONFIRM" [C: TC-2021]; a default of CM0 with sync level
// NONE would be a combination IMS does not run.
TEST(TransactionStateData, DefaultIsCommitThenSendWithSyncLevelConfirm) {
  const transaction_state_data t;
  EXPECT_EQ(t.sync_flags, 0x41);
  EXPECT_EQ(t.commit_mode_bits(), sync_flags::commit_then_send);
  EXPECT_EQ(t.sync_level(), sync_flags::sync_level_confirm);
}

TEST(TransactionStateData, ExtensionKeptAndShortSectionRejected) {
  otma_message m;
  m.mci.message_type = msg_type::data;
  transaction_state_data t;
  t.extension = {1, 2, 3};
  m.state = state_data(t);
  bytes b = encode_ok(m);
  EXPECT_EQ(u16_at(b, sd), 73);
  EXPECT_EQ(decode_ok(b), m);

  bytes shortened =
      test::hex("01 80 00 00 00 00 4040404040404040 A0 80 00000000 0000 0000 00000000 0000 0000 0004 0040");
  auto r = decode_message(shortened);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.state_data.transaction.length");
  EXPECT_EQ(r.error().offset, sd);
}

TEST(ClientBidStateData, EveryFieldAtItsOffset) {
  otma_message m = command_message(command::client_bid);
  client_bid_state_data c;
  c.member_name.set("MQXCF6");
  c.originator_token = {1, 2, 3, 4, 5, 6, 7, 8};
  c.destination_token = {9, 10, 11, 12, 13, 14, 15, 16};
  c.dru_exit_name.set("DFSYDRU0");
  c.max_blocksize = 0x0800;
  c.flags = client_bid_flags::ibm_mq;
  c.flags2 = client_bid_flags2::tib_limit;
  c.acee_aging = 0x7FFFFFFF;
  c.hash_table_size = 101;
  m.state = state_data(c);
  bytes b = encode_ok(m);
  ASSERT_EQ(b.size(), mci_size + 54);
  EXPECT_EQ(u16_at(b, sd), 0x0036);
  EXPECT_EQ(slice(b, sd + 2, 16), test::ebcdic("MQXCF6          "));
  EXPECT_EQ(slice(b, sd + 18, 8), hex("0102030405060708"));
  EXPECT_EQ(slice(b, sd + 26, 8), hex("090A0B0C0D0E0F10"));
  EXPECT_EQ(slice(b, sd + 34, 8), test::ebcdic("DFSYDRU0"));
  EXPECT_EQ(u16_at(b, sd + 42), 0x0800);
  EXPECT_EQ(b[sd + 44], 0x10);
  EXPECT_EQ(b[sd + 45], 0x80);
  EXPECT_EQ(u32_at(b, sd + 46), 0x7FFFFFFFu);
  EXPECT_EQ(u32_at(b, sd + 50), 101u);
  otma_message back = decode_ok(b);
  ASSERT_EQ(kind_of(*back.state), state_data_kind::client_bid);
  EXPECT_EQ(std::get<client_bid_state_data>(*back.state), c);
  EXPECT_EQ(std::get<client_bid_state_data>(*back.state).member_name.value(), "MQXCF6");
}

TEST(ClientBidStateData, ExtensionBytesAndMultirtp) {
  otma_message m = command_message(command::cbresynch);
  client_bid_state_data c;
  c.extension.assign(12, 0);
  c.extension[multirtp_offset - client_bid_state_size] = multirtp_flag;  // byte 64 TMAMHFG3 [C]
  m.state = state_data(c);
  bytes b = encode_ok(m);
  EXPECT_EQ(u16_at(b, sd), 66);
  EXPECT_EQ(b[sd + 64], 0x80);
  otma_message back = decode_ok(b);
  EXPECT_TRUE(std::get<client_bid_state_data>(*back.state).multirtp());
  EXPECT_EQ(back, m);
  EXPECT_FALSE(client_bid_state_data{}.multirtp());
}

TEST(ClientBidStateData, ShorterThan54IsAnError) {
  bytes b = encode_ok(command_message(command::client_bid));
  b[15] = prefix::state_data;
  bytes sd_bytes(40, 0);
  store_u16(sd_bytes.data(), 40, byte_order::big);
  b.insert(b.end(), sd_bytes.begin(), sd_bytes.end());
  auto r = decode_message(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.state_data.client_bid.length");
}

// A command message with `sd_body` as its state data (length field prepended).
bytes with_state_data(std::uint8_t command_type, const bytes& sd_body) {
  bytes b = encode_ok(command_message(command_type));
  b[15] = prefix::state_data;
  bytes len(2);
  store_u16(len.data(), static_cast<std::uint16_t>(2 + sd_body.size()), byte_order::big);
  b.insert(b.end(), len.begin(), len.end());
  b.insert(b.end(), sd_body.begin(), sd_body.end());
  return b;
}

// Server-available shares the client-bid layout only "up to byte 34" [I: IMS-SD-CB]: IMS's member name
// and token. A section of 34 bytes is whole; what follows is kept byte for byte.
TEST(ServerAvailableStateData, ThirtyFourBytesAreEnough) {
  const bytes body = hex("C9D4E2F1 40404040 40404040 40404040 00000001 00000002 01000001 00030002");
  bytes b = with_state_data(command::server_available, body);
  ASSERT_EQ(b.size(), sd + 34);
  auto r = decode_message(b);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(encode_ok(*r), b);
  ASSERT_EQ(kind_of(*r->state), state_data_kind::server_available);
  const auto& a = std::get<server_available_state_data>(*r->state);
  EXPECT_EQ(a.member_name.value(), "IMS1");
  EXPECT_EQ(a.originator_token, (raw_bytes<8>{0, 0, 0, 1, 0, 0, 0, 2}));
  EXPECT_EQ(a.destination_token, (raw_bytes<8>{1, 0, 0, 1, 0, 3, 0, 2}));
  EXPECT_TRUE(a.extension.empty());
  // Longer: the bytes past 34 come back unchanged, whatever they are.
  bytes longer_body = body;
  for (std::uint8_t x : {0xC4, 0xC6, 0xE2, 0x00, 0x7F, 0x11}) longer_body.push_back(x);
  bytes longer = with_state_data(command::server_available, longer_body);
  auto r2 = decode_message(longer);
  ASSERT_TRUE(r2.ok()) << r2.error().to_string();
  EXPECT_EQ(encode_ok(*r2), longer);
  EXPECT_EQ(std::get<server_available_state_data>(*r2->state).extension, hex("C4C6E2007F11"));
  // A whole client-bid layout (what a client-bid would hold) is 20 extension bytes here.
  EXPECT_EQ(decode_ok(with_state_data(command::server_available, bytes(52, 0x40))), [] {
    otma_message m = command_message(command::server_available);
    server_available_state_data sa;
    sa.member_name.raw = filled<16>(0x40);
    sa.originator_token = filled<8>(0x40);
    sa.destination_token = filled<8>(0x40);
    sa.extension.assign(20, 0x40);
    m.state = state_data(sa);
    return m;
  }());
  // 33 bytes: IMS's token is cut.
  bytes cut_body(body.begin(), body.end() - 1);
  auto r3 = decode_message(with_state_data(command::server_available, cut_body));
  ASSERT_FALSE(r3.ok());
  EXPECT_EQ(r3.error().field, "OTMA.state_data.server_available.length");
  EXPECT_EQ(r3.error().offset, sd);
}

// Only bytes 0–18 of REPresynch are IBM's [C: IMS-SD-REP]; 19.. are [?], so a section that
// stops after tpipe flag 1 is whole, and longer ones keep the rest raw.
TEST(RepresynchStateData, NineteenBytesAreEnough) {
  const bytes body = hex("D1C2D1F0F0F0F0C5 00000007 00000009 04");
  bytes b = with_state_data(command::represynch, body);
  ASSERT_EQ(b.size(), sd + 19);
  auto r = decode_message(b);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(encode_ok(*r), b);
  const auto& p = std::get<represynch_state_data>(*r->state);
  EXPECT_EQ(p.tpipe_name.value(), "JBJ0000E");
  EXPECT_EQ(p.client_send_seq, 7u);
  EXPECT_EQ(p.client_receive_seq, 9u);
  EXPECT_EQ(p.tpipe_flag1, represynch_action::dequeue_last_output);
  EXPECT_TRUE(p.extension.empty());
  bytes odd_body = body;
  for (std::uint8_t x : {0x01, 0x02, 0x03}) odd_body.push_back(x);
  bytes odd = with_state_data(command::represynch, odd_body);
  auto r2 = decode_message(odd);
  ASSERT_TRUE(r2.ok()) << r2.error().to_string();
  EXPECT_EQ(encode_ok(*r2), odd);
  EXPECT_EQ(std::get<represynch_state_data>(*r2->state).extension, hex("010203"));
  bytes cut_body(body.begin(), body.end() - 1);
  auto r3 = decode_message(with_state_data(command::represynch, cut_body));
  ASSERT_FALSE(r3.ok());
  EXPECT_EQ(r3.error().field, "OTMA.state_data.represynch.length");
}

// encode_message refuses what decode_message would refuse: the state-data variant is chosen by the
// MCI [C: IMS-SD], so any other variant would be written in a layout the decoder reads differently.
TEST(StateData, VariantMustBeTheOneTheMciCallsFor) {
  otma_message txn;
  txn.mci.message_type = msg_type::transaction;
  txn.state = state_data(client_bid_state_data{});
  auto r = encode_message(txn);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.state_data.kind");
  EXPECT_EQ(r.error().offset, sd);
  EXPECT_EQ(r.error().code, make_sense(sense::prefix_format_error));
  txn.state = state_data(transaction_state_data{});
  EXPECT_TRUE(encode_message(txn).ok());

  otma_message srv = command_message(command::srvresynch);
  srv.state = state_data(raw_state_data{{0xD1, 0xC2, 0xD1}});  // 3 bytes: no list of tpipe names
  auto r2 = encode_message(srv);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().field, "OTMA.state_data.kind");
  srv.state = state_data(raw_state_data{});  // the right length, still the wrong variant
  EXPECT_FALSE(encode_message(srv).ok());

  otma_message suspend = command_message(command::suspend);
  suspend.state = state_data(transaction_state_data{});
  EXPECT_FALSE(encode_message(suspend).ok());
  suspend.state = state_data(raw_state_data{{1, 2, 3}});
  EXPECT_TRUE(encode_message(suspend).ok());
}

TEST(ServerStateData, StatusAtOffsetTwo) {
  otma_message m = command_message(command::server_state);
  server_state_data s;
  s.status = server_status::degraded;
  s.extension = {0xAA, 0xBB};
  m.state = state_data(s);
  bytes b = encode_ok(m);
  EXPECT_EQ(slice(b, sd, 6), hex("0006 0002 AABB"));
  EXPECT_EQ(decode_ok(b), m);
  EXPECT_EQ(server_status::normal, 3);
  EXPECT_EQ(server_status::unavailable, 1);
}

TEST(SrvresynchStateData, ListOfTpipeNames) {
  otma_message m = command_message(command::srvresynch);
  srvresynch_state_data s;
  for (const char* n : {"JBJ0000E", "JBJ0000F", "T1"}) s.tpipe_names.push_back(ebcdic_name<8>::of(n));
  m.state = state_data(s);
  bytes b = encode_ok(m);
  EXPECT_EQ(u16_at(b, sd), 26);
  EXPECT_EQ(slice(b, sd + 2, 8), test::ebcdic("JBJ0000E"));
  EXPECT_EQ(slice(b, sd + 10, 8), test::ebcdic("JBJ0000F"));
  EXPECT_EQ(slice(b, sd + 18, 8), test::ebcdic("T1      "));
  otma_message back = decode_ok(b);
  ASSERT_EQ(std::get<srvresynch_state_data>(*back.state).tpipe_names.size(), 3u);
  EXPECT_EQ(std::get<srvresynch_state_data>(*back.state).tpipe_names[2].value(), "T1");
  EXPECT_EQ(back, m);
}

TEST(SrvresynchStateData, LengthNotAMultipleOfEightIsAnError) {
  otma_message m = command_message(command::srvresynch);
  m.state = state_data(srvresynch_state_data{{ebcdic_name<8>::of("A")}});
  bytes b = encode_ok(m);
  b[sd + 1] = 9;  // length 9: one name less a byte
  b.pop_back();
  auto r = decode_message(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.state_data.srvresynch.length");
  EXPECT_EQ(r.error().offset, sd);
}

TEST(ReqresynchStateData, EveryFieldAtItsOffset) {
  otma_message m = command_message(command::reqresynch);
  reqresynch_state_data q;
  q.tpipe_name.set("JBJ0000E");
  q.ims_send_seq = 0x11223344;
  q.ims_receive_seq = 0x55667788;
  q.tpipe_flag1 = 0x01;
  q.tpipe_flag2 = 0x02;
  q.reserved = {3, 4, 5, 6, 7, 8};
  m.state = state_data(q);
  bytes b = encode_ok(m);
  EXPECT_EQ(u16_at(b, sd), 26);
  EXPECT_EQ(slice(b, sd + 2, 8), test::ebcdic("JBJ0000E"));
  EXPECT_EQ(u32_at(b, sd + 10), 0x11223344u);
  EXPECT_EQ(u32_at(b, sd + 14), 0x55667788u);
  EXPECT_EQ(b[sd + 18], 1);
  EXPECT_EQ(b[sd + 19], 2);
  EXPECT_EQ(slice(b, sd + 20, 6), hex("030405060708"));
  EXPECT_EQ(decode_ok(b), m);
}

// What we send: IBM's 19 bytes, then flag 2 and 6 reserved bytes as zeros, mirroring REQresynch [I].
TEST(RepresynchStateData, EveryFieldAtItsOffset) {
  otma_message m = command_message(command::represynch);
  represynch_state_data p;
  p.tpipe_name.set("JBJ0000E");
  p.client_send_seq = 7;
  p.client_receive_seq = 9;
  p.tpipe_flag1 = represynch_action::dequeue_last_output;
  m.state = state_data(p);
  bytes b = encode_ok(m);
  EXPECT_EQ(slice(b, sd, 26), hex("001A D1C2D1F0F0F0F0C5 00000007 00000009 04 00 000000000000"));
  EXPECT_EQ(decode_ok(b), m);
  EXPECT_EQ(represynch_action::continue_tpipe, 0x00);
  EXPECT_EQ(represynch_action::reset_sequence_numbers, 0x08);
  EXPECT_EQ(represynch_action::stop_tpipe, 0x0C);
  EXPECT_EQ(represynch_action::stop_and_wait_tbresynch, 0x10);
}

TEST(TbresynchStateData, TpipeNameOnly) {
  otma_message m = command_message(command::tbresynch);
  m.state = state_data(tbresynch_state_data{ebcdic_name<8>::of("JBJ0000E"), {}});
  bytes b = encode_ok(m);
  EXPECT_EQ(slice(b, sd, 10), hex("000A D1C2D1F0F0F0F0C5"));
  EXPECT_EQ(b.size(), sd + 10);
  EXPECT_EQ(decode_ok(b), m);
}

TEST(RawStateData, UnknownVariantsKeptWhole) {
  for (std::uint8_t cmd : {command::suspend, command::resume_hold_queue, std::uint8_t{0x7E}}) {
    otma_message m = command_message(cmd);
    m.state = state_data(raw_state_data{{0x00, 0x01, 0x02, 0xFF}});
    bytes b = encode_ok(m);
    EXPECT_EQ(slice(b, sd, 6), hex("0006 000102FF"));
    otma_message back = decode_ok(b);
    EXPECT_EQ(kind_of(*back.state), state_data_kind::raw);
    EXPECT_EQ(back, m);
  }
  otma_message empty = command_message(command::suspend);
  empty.state = state_data(raw_state_data{});
  EXPECT_EQ(slice(encode_ok(empty), sd, 2), hex("0002"));
}

TEST(StateData, SectionOver65535BytesCannotBeEncoded) {
  otma_message m = command_message(command::suspend);
  m.state = state_data(raw_state_data{bytes(0xFFFE, 0)});
  auto r = encode_message(m);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.state_data.length");
  m.state = state_data(raw_state_data{bytes(0xFFFD, 0)});
  EXPECT_TRUE(encode_message(m).ok());
}

}  // namespace
}  // namespace imsb::otma
