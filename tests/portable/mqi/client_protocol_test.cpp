// The client protocol's frame codec (imsb/mqi/client_protocol.hpp [D]): every request and response
// round-trips with values other than the defaults, one frame is checked byte for byte against hex written
// out by hand from the header's layout, and every way a frame can be bad is refused with
// std::errc::bad_message naming the field — also when the bytes arrive one at a time (nullopt until the
// frame, or for a bad header its 12 bytes, is all there).
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <system_error>
#include <variant>

#include "imsb/core/bytes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/mqi/client_protocol.hpp"

namespace imsb::mqi::wire {
namespace {

const std::error_code bad_message = std::make_error_code(std::errc::bad_message);
constexpr std::int32_t truncated_msg_accepted = 2079;  // MQRC_TRUNCATED_MSG_ACCEPTED

std::string pad(const std::string& s, std::size_t n) { return s + std::string(n - s.size(), ' '); }

template <std::size_t N>
std::array<std::uint8_t, N> filled(std::uint8_t first) {
  std::array<std::uint8_t, N> a{};
  for (std::size_t i = 0; i < N; ++i) a[i] = static_cast<std::uint8_t>(first + i);
  return a;
}

// An MQMD with every field away from its default; version 2 unless asked.
mq::mqmd sample_md(std::int32_t version = mq::MQMD_VERSION_2) {
  mq::mqmd md;
  md.version = version;
  md.report = mq::MQRO_COA_WITH_FULL_DATA;
  md.msg_type = mq::MQMT_REQUEST;
  md.expiry = 600;
  md.feedback = 258;
  md.encoding = 0x00000785;
  md.coded_char_set_id = 500;
  md.format = std::string(mq::MQFMT_IMS);
  md.priority = 7;
  md.persistence = 1;
  md.msg_id = filled<24>(0x10);
  md.correl_id = filled<24>(0xA0);
  md.backout_count = 3;
  md.reply_to_q = pad("REPLY.Q", mq::MQ_Q_NAME_LENGTH);
  md.reply_to_q_mgr = pad("QM1", mq::MQ_Q_MGR_NAME_LENGTH);
  md.user_identifier = pad("alice", mq::MQ_USER_ID_LENGTH);
  md.accounting_token = filled<32>(0x40);
  md.appl_identity_data = pad("identity \xE9", mq::MQ_APPL_IDENTITY_DATA_LENGTH);  // é in 819
  md.put_appl_type = 6;
  md.put_appl_name = pad("mqput", mq::MQ_PUT_APPL_NAME_LENGTH);
  md.put_date = "20261130";
  md.put_time = "01023456";
  md.appl_origin_data = pad("OR", mq::MQ_APPL_ORIGIN_DATA_LENGTH);
  if (version >= mq::MQMD_VERSION_2) {
    md.group_id = filled<24>(0x60);
    md.msg_seq_number = 5;
    md.offset = 100;
    md.msg_flags = 0x10;
    md.original_length = 4096;
  }
  return md;
}

bytes text(const std::string& s) { return bytes(s.begin(), s.end()); }

bytes encoded(const request& r) {
  bytes out;
  encode_request(r, out);
  return out;
}
bytes encoded(frame_type answers, const response& r) {
  bytes out;
  encode_response(answers, r, out);
  return out;
}

// Decodes a whole frame that must be good, checks that it takes all the bytes and that decoding the
// frame with the next frame's first bytes behind it gives the same.
template <class T>
T decode_ok(const request& r) {
  bytes wire = encoded(r);
  auto d = decode_request(wire);
  EXPECT_TRUE(d.has_value());
  if (!d) return T{};
  EXPECT_TRUE(d->ok()) << d->error().to_string();
  if (!d->ok()) return T{};
  EXPECT_EQ(d->value().consumed, wire.size());
  EXPECT_EQ(wire.size(), header_length + load_u32(wire.data() + 4, byte_order::big));
  const T* v = std::get_if<T>(&d->value().value);
  EXPECT_NE(v, nullptr);
  // Followed by a part of another frame: the same frame, the same length.
  bytes two = wire;
  two.insert(two.end(), wire.begin(), wire.begin() + 5);
  auto d2 = decode_request(two);
  EXPECT_TRUE(d2 && d2->ok() && d2->value().consumed == wire.size());
  // One canonical form: re-encoding the decoded request gives the same bytes.
  EXPECT_EQ(encoded(d->value().value), wire);
  return v ? *v : T{};
}

template <class T>
T decode_ok(frame_type answers, const response& r) {
  bytes wire = encoded(answers, r);
  EXPECT_EQ(load_u16(wire.data() + 8, byte_order::big), static_cast<std::uint16_t>(answers) | 0x8000);
  auto d = decode_response(wire, answers);
  EXPECT_TRUE(d.has_value());
  if (!d) return T{};
  EXPECT_TRUE(d->ok()) << d->error().to_string();
  if (!d->ok()) return T{};
  EXPECT_EQ(d->value().consumed, wire.size());
  const T* v = std::get_if<T>(&d->value().value);
  EXPECT_NE(v, nullptr);
  EXPECT_EQ(encoded(answers, d->value().value), wire);
  return v ? *v : T{};
}

// --- round trips ---------------------------------------------------------------------------------

TEST(ClientProtocol, ConnectRequestRoundTrips) {
  const auto v = decode_ok<connect_request>(connect_request{"QM1", "alice", "s3cret\n", "mqput"});
  EXPECT_EQ(v.qmgr_name, "QM1");
  EXPECT_EQ(v.user, "alice");
  EXPECT_EQ(v.password, "s3cret\n");
  EXPECT_EQ(v.appl_name, "mqput");
  // Strings are counted, not terminated: a NUL inside travels.
  connect_request with_nul;
  with_nul.password = std::string("a\0b", 3);
  EXPECT_EQ(decode_ok<connect_request>(with_nul).password, std::string("a\0b", 3));
}

TEST(ClientProtocol, OpenAndCloseRequestsRoundTrip) {
  const auto o = decode_ok<open_request>(open_request{{"IMS.BRIDGE.Q", "QM2"}, 0x2010});
  EXPECT_EQ(o.od.object_name, "IMS.BRIDGE.Q");
  EXPECT_EQ(o.od.object_qmgr_name, "QM2");
  EXPECT_EQ(o.options, 0x2010);
  EXPECT_EQ(decode_ok<close_request>(close_request{-7}).handle, -7);
  const auto q = decode_ok<inquire_request>(inquire_request{123456, {mq::MQIA_Q_TYPE, mq::MQCA_Q_NAME}});
  EXPECT_EQ(q.handle, 123456);
  EXPECT_EQ(q.selectors, (std::vector<std::int32_t>{mq::MQIA_Q_TYPE, mq::MQCA_Q_NAME}));
  const auto m = decode_ok<open_request>(open_request{{"", "", mq::MQOT_Q_MGR}, mq::MQOO_INQUIRE});
  EXPECT_EQ(m.od.object_type, mq::MQOT_Q_MGR);
  EXPECT_EQ(o.od.object_type, mq::MQOT_Q);
}

TEST(ClientProtocol, PutRequestRoundTripsBothMqmdVersions) {
  for (std::int32_t version : {mq::MQMD_VERSION_1, mq::MQMD_VERSION_2}) {
    put_request p{42, sample_md(version), bytes{0x68, 0x00, 0xFF}, mq::MQPMO_SYNCPOINT};
    p.data.push_back(0);
    const auto v = decode_ok<put_request>(p);
    EXPECT_EQ(v.handle, 42);
    EXPECT_EQ(v.md, sample_md(version)) << "version " << version;
    EXPECT_EQ(v.md.version, version);
    EXPECT_EQ(v.data, p.data);
    EXPECT_EQ(v.options, mq::MQPMO_SYNCPOINT);
    // 12 header + 4 handle + 4 + MQMD + 4 + data + 4 options.
    EXPECT_EQ(encoded(p).size(), 12 + 4 + 4 + (version == 1 ? 324u : 364u) + 4 + p.data.size() + 4);
  }
}

TEST(ClientProtocol, Put1RequestRoundTrips) {
  const auto v = decode_ok<put1_request>(put1_request{{"Q", ""}, sample_md(), bytes(70000, 0x5A), 4});
  EXPECT_EQ(v.od.object_name, "Q");
  EXPECT_EQ(v.od.object_qmgr_name, "");
  EXPECT_EQ(v.md, sample_md());
  EXPECT_EQ(v.data, bytes(70000, 0x5A));
  EXPECT_EQ(v.options, 4);
}

TEST(ClientProtocol, GetRequestRoundTripsWithAndWithoutMaxLength) {
  get_request_frame g;
  g.handle = 9;
  g.request.options = mq::MQGMO_WAIT | mq::MQGMO_SYNCPOINT;
  g.request.wait_interval_ms = -1;
  g.request.match_options = mq::MQMO_MATCH_MSG_TOKEN;
  g.request.msg_id = filled<24>(1);
  g.request.correl_id = filled<24>(100);
  g.request.msg_token = filled<16>(200);
  g.request.max_length = 4096;
  auto v = decode_ok<get_request_frame>(g);
  EXPECT_EQ(v.handle, 9);
  EXPECT_EQ(v.request.options, mq::MQGMO_WAIT | mq::MQGMO_SYNCPOINT);
  EXPECT_EQ(v.request.wait_interval_ms, -1);
  EXPECT_EQ(v.request.match_options, mq::MQMO_MATCH_MSG_TOKEN);
  EXPECT_EQ(v.request.msg_id, filled<24>(1));
  EXPECT_EQ(v.request.correl_id, filled<24>(100));
  EXPECT_EQ(v.request.msg_token, filled<16>(200));
  EXPECT_EQ(v.request.max_length, std::optional<std::size_t>(4096));
  g.request.max_length = 0;
  EXPECT_EQ(decode_ok<get_request_frame>(g).request.max_length, std::optional<std::size_t>(0));
  g.request.max_length = std::nullopt;
  EXPECT_EQ(decode_ok<get_request_frame>(g).request.max_length, std::nullopt);
  // Longer than an i32 says: the i32 maximum, more than any message (not a negative length).
  g.request.max_length = std::size_t{1} << 31;
  bytes wire = encoded(g);
  auto d = decode_request(wire);
  ASSERT_TRUE(d && d->ok());
  EXPECT_EQ(std::get<get_request_frame>(d->value().value).request.max_length,
            std::optional<std::size_t>(0x7FFFFFFF));
}

TEST(ClientProtocol, TextAndEmptyRequestsRoundTrip) {
  const auto io = decode_ok<inquire_objects_request>(inquire_objects_request{"QLOCAL", "IMS*"});
  EXPECT_EQ(io.type, "QLOCAL");
  EXPECT_EQ(io.generic, "IMS*");
  EXPECT_EQ(decode_ok<mqsc_request>(mqsc_request{"DEFINE QLOCAL(A)\nDISPLAY Q(*)\n"}).script,
            "DEFINE QLOCAL(A)\nDISPLAY Q(*)\n");
  for (const request& r :
       {request(commit_request{}), request(backout_request{}), request(disconnect_request{})}) {
    bytes wire = encoded(r);
    EXPECT_EQ(wire.size(), header_length);  // no body at all
    auto d = decode_request(wire);
    ASSERT_TRUE(d && d->ok());
    EXPECT_EQ(d->value().value.index(), r.index());
    EXPECT_EQ(type_of(d->value().value), type_of(r));
  }
}

TEST(ClientProtocol, TypeOfAndNameOfFollowTheFrameTypes) {
  EXPECT_EQ(type_of(connect_request{}), frame_type::connect);
  EXPECT_EQ(type_of(put1_request{}), frame_type::put1);
  EXPECT_EQ(type_of(get_request_frame{}), frame_type::get);
  EXPECT_EQ(type_of(disconnect_request{}), frame_type::disconnect);
  EXPECT_EQ(type_of(set_request{}), frame_type::set);
  EXPECT_STREQ(name_of(frame_type::set), "set");
  const auto st =
      decode_ok<set_request>(set_request{3, {mq::MQIA_INHIBIT_GET, mq::MQCA_TRIGGER_DATA}, {1}, {"go"}});
  EXPECT_EQ(st.handle, 3);
  EXPECT_EQ(st.selectors, (std::vector<std::int32_t>{mq::MQIA_INHIBIT_GET, mq::MQCA_TRIGGER_DATA}));
  EXPECT_EQ(st.int_attrs, std::vector<std::int32_t>{1});
  EXPECT_EQ(st.char_attrs, std::vector<std::string>{"go"});
  EXPECT_STREQ(name_of(frame_type::inquire_objects), "inquire_objects");
  EXPECT_STREQ(name_of(static_cast<frame_type>(0x8004)), "put_response");
  EXPECT_STREQ(name_of(static_cast<frame_type>(0)), "unknown");
  EXPECT_STREQ(name_of(static_cast<frame_type>(17)), "unknown");
  EXPECT_STREQ(name_of(frame_type::response_bit), "unknown");
}

TEST(ClientProtocol, ConsumeAndBeginFramesRoundTrip) {
  // A consumer's dispatcher: its wait for a change of the queue manager, the wake frame, MQBEGIN.
  const auto w = decode_ok<wait_for_change_request>(wait_for_change_request{-2, 1});
  EXPECT_EQ(w.mark, -2);  // the mark's 32 bits, as they are
  EXPECT_EQ(w.wait, 1);
  EXPECT_EQ(type_of(wait_for_change_request{}), frame_type::wait_for_change);
  EXPECT_EQ(type_of(wake_request{}), frame_type::wake);
  EXPECT_EQ(type_of(begin_request{}), frame_type::begin);
  EXPECT_STREQ(name_of(frame_type::wait_for_change), "wait_for_change");
  EXPECT_STREQ(name_of(frame_type::wake), "wake");
  EXPECT_STREQ(name_of(frame_type::begin), "begin");
  EXPECT_STREQ(name_of(static_cast<frame_type>(0x800E)), "wait_for_change_response");
  for (const request& r : {request(wake_request{}), request(begin_request{})}) {
    bytes wire = encoded(r);
    EXPECT_EQ(wire.size(), header_length);
    auto d = decode_request(wire);
    ASSERT_TRUE(d && d->ok());
    EXPECT_EQ(type_of(d->value().value), type_of(r));
  }
  const auto a = decode_ok<wait_for_change_response>(frame_type::wait_for_change,
                                                     wait_for_change_response{{0, 0, ""}, 41});
  EXPECT_EQ(a.mark, 41);
  const auto b = decode_ok<plain_response>(frame_type::begin, plain_response{{1, 2121, "alone"}});
  EXPECT_EQ(b.st.completion_code, 1);
  EXPECT_EQ(b.st.reason, 2121);
  // A wait_for_change body one byte short is a bad frame.
  bytes bad = encoded(wait_for_change_request{1, 1});
  bad.pop_back();
  bad[7] = static_cast<std::uint8_t>(bad[7] - 1);
  auto d = decode_request(bad);
  ASSERT_TRUE(d.has_value());
  EXPECT_FALSE(d->ok());
}

TEST(ClientProtocol, ConnectAndOpenResponsesRoundTrip) {
  const auto c =
      decode_ok<connect_response>(frame_type::connect, connect_response{{0, 0, ""}, "QM1", "alice"});
  EXPECT_EQ(c.st.reason, 0);
  EXPECT_EQ(c.st.detail, "");
  EXPECT_EQ(c.qmgr_name, "QM1");
  EXPECT_EQ(c.user, "alice");
  const auto o = decode_ok<open_response>(
      frame_type::open, open_response{{2, mq::MQRC_UNKNOWN_OBJECT_NAME, "no queue X"}, {17, "RQ", "QM9"}});
  EXPECT_EQ(o.st.reason, mq::MQRC_UNKNOWN_OBJECT_NAME);
  EXPECT_EQ(o.st.detail, "no queue X");
  EXPECT_EQ(o.result.handle, 17);
  EXPECT_EQ(o.result.resolved_q, "RQ");
  EXPECT_EQ(o.result.resolved_qmgr, "QM9");
}

TEST(ClientProtocol, PutResponseServesPutAndPut1) {
  for (frame_type t : {frame_type::put, frame_type::put1}) {
    for (std::int32_t version : {mq::MQMD_VERSION_1, mq::MQMD_VERSION_2}) {
      const auto p = decode_ok<put_response>(t, put_response{{0, 0, ""}, {sample_md(version), "LQ", "QM1"}});
      EXPECT_EQ(p.result.md, sample_md(version));
      EXPECT_EQ(p.result.resolved_q, "LQ");
      EXPECT_EQ(p.result.resolved_qmgr, "QM1");
    }
  }
}

TEST(ClientProtocol, GetResponseRoundTrips) {
  get_response g{{1, truncated_msg_accepted, "truncated"}, {sample_md(), text("abc"), 1000, filled<16>(9)}};
  const auto v = decode_ok<get_response>(frame_type::get, g);
  EXPECT_EQ(v.st.reason, truncated_msg_accepted);
  EXPECT_EQ(v.msg.md, sample_md());
  EXPECT_EQ(v.msg.data, text("abc"));
  EXPECT_EQ(v.msg.data_length, 1000u);
  EXPECT_EQ(v.msg.token, filled<16>(9));
  // A failed get still carries a whole (default) message.
  const auto none =
      decode_ok<get_response>(frame_type::get, get_response{{2, mq::MQRC_NO_MSG_AVAILABLE, "empty"}, {}});
  EXPECT_EQ(none.st.reason, mq::MQRC_NO_MSG_AVAILABLE);
  EXPECT_EQ(none.msg.md, mq::mqmd{});
  EXPECT_TRUE(none.msg.data.empty());
}

TEST(ClientProtocol, InquireResponsesRoundTrip) {
  inquire_response i;
  i.st = {1, mq::MQRC_SELECTOR_NOT_FOR_TYPE, "not for an alias"};
  i.result = {{mq::MQQT_ALIAS, -1, 5000}, {std::string(48, ' '), "IMS1    "}};
  const auto v = decode_ok<inquire_response>(frame_type::inquire, i);
  EXPECT_EQ(v.st.completion_code, 1);
  EXPECT_EQ(v.st.reason, mq::MQRC_SELECTOR_NOT_FOR_TYPE);
  EXPECT_EQ(v.result.int_attrs, i.result.int_attrs);
  EXPECT_EQ(v.result.char_attrs, i.result.char_attrs);

  inquire_objects_response o;
  o.st = {1, mq::MQRC_NOT_AUTHORIZED, "partial"};
  o.objects = {
      {"QLOCAL", "A", {{"DESCR", "it's A"}}}, {"STGCLASS", "S1", {}}, {"QALIAS", "B", {{"TARGET", "A"}}}};
  const auto w = decode_ok<inquire_objects_response>(frame_type::inquire_objects, o);
  ASSERT_EQ(w.objects.size(), 3u);
  EXPECT_EQ(w.st.reason, mq::MQRC_NOT_AUTHORIZED);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(w.objects[k].type, o.objects[k].type);
    EXPECT_EQ(w.objects[k].name, o.objects[k].name);
    EXPECT_EQ(w.objects[k].attributes, o.objects[k].attributes);
  }
}

TEST(ClientProtocol, MqscAndPlainResponsesRoundTrip) {
  const auto m = decode_ok<mqsc_response>(
      frame_type::mqsc, mqsc_response{{0, 0, ""}, {{"     1 : DEFINE QLOCAL(A)", "AMQ8006I", ""}, 10}});
  EXPECT_EQ(m.reply.lines, (std::vector<std::string>{"     1 : DEFINE QLOCAL(A)", "AMQ8006I", ""}));
  EXPECT_EQ(m.reply.exit_code, 10);
  for (frame_type t : {frame_type::close, frame_type::commit, frame_type::backout, frame_type::disconnect}) {
    const auto p = decode_ok<plain_response>(t, plain_response{{2, mq::MQRC_HCONN_ERROR, "gone"}});
    EXPECT_EQ(p.st.reason, mq::MQRC_HCONN_ERROR);
    EXPECT_EQ(p.st.detail, "gone");
  }
}

// --- golden bytes ----------------------------------------------------------------------------------

TEST(ClientProtocol, GoldenBytesOfAnOpenRequest) {
  // Written from client_protocol.hpp's layout, not from the encoder.
  bytes want;
  ASSERT_TRUE(
      from_hex("494D5146 00000018 0002 0001"  // "IMQF", body 24 bytes, open, version 1
               "00000003 414243"              // object_name "ABC"
               "00000005 514D312020"          // object_qmgr_name "QM1  "
               "00000001"                     // object_type MQOT_Q
               "00002011",                    // options
               want));
  EXPECT_EQ(encoded(open_request{{"ABC", "QM1  "}, 0x2011}), want);
  EXPECT_EQ(decode_ok<open_request>(open_request{{"ABC", "QM1  "}, 0x2011}).options, 0x2011);

  bytes plain;
  // backout → MQCC_FAILED, 2034, "gone"
  ASSERT_TRUE(from_hex("494D5146 00000010 800B 0001 00000002 000007F2 00000004 676F6E65", plain));
  EXPECT_EQ(encoded(frame_type::backout, plain_response{{2, 2034, "gone"}}), plain);
}

// --- bad frames, fed byte by byte ------------------------------------------------------------------

// Feeds `wire` one byte more at a time: nullopt until `error_at` bytes are there, then the error, which
// names `field` at `offset`.
template <class Decode>
void expect_bad(const bytes& wire, std::size_t error_at, const std::string& field, std::size_t offset,
                Decode decode) {
  ASSERT_LE(error_at, wire.size());
  for (std::size_t n = 0; n < error_at; ++n) {
    auto d = decode(bytes_view(wire.data(), n));
    ASSERT_FALSE(d.has_value()) << field << ": decoded something from " << n << " bytes";
  }
  for (std::size_t n = error_at; n <= wire.size(); ++n) {
    auto d = decode(bytes_view(wire.data(), n));
    ASSERT_TRUE(d.has_value()) << field << ": no answer with " << n << " bytes";
    ASSERT_FALSE(d->ok()) << field;
    EXPECT_EQ(d->error().code, bad_message) << d->error().to_string();
    EXPECT_EQ(d->error().field, field) << d->error().to_string();
    EXPECT_EQ(d->error().offset, offset) << d->error().to_string();
    EXPECT_FALSE(d->error().detail.empty());
  }
}
void expect_bad_request(const bytes& wire, std::size_t error_at, const std::string& field,
                        std::size_t offset) {
  expect_bad(wire, error_at, field, offset, [](bytes_view in) { return decode_request(in); });
}
void expect_bad_response(const bytes& wire, frame_type expected, std::size_t error_at,
                         const std::string& field, std::size_t offset) {
  expect_bad(wire, error_at, field, offset,
             [expected](bytes_view in) { return decode_response(in, expected); });
}

void set_u32(bytes& b, std::size_t off, std::uint32_t v) { store_u32(b.data() + off, v, byte_order::big); }
void set_u16(bytes& b, std::size_t off, std::uint16_t v) { store_u16(b.data() + off, v, byte_order::big); }
void fix_length(bytes& b) { set_u32(b, 4, static_cast<std::uint32_t>(b.size() - header_length)); }

TEST(ClientProtocolBad, PartialFramesNeedMoreBytes) {
  const bytes wire = encoded(put_request{1, sample_md(), text("data"), 0});
  for (std::size_t n = 0; n < wire.size(); ++n) {
    EXPECT_FALSE(decode_request(bytes_view(wire.data(), n)).has_value()) << n;
  }
  EXPECT_TRUE(decode_request(wire).has_value());
}

TEST(ClientProtocolBad, HeaderErrorsAreReportedFromTheHeaderAlone) {
  bytes wire = encoded(open_request{{"ABC", ""}, 1});
  bytes m = wire;
  m[3] = 'G';
  expect_bad_request(m, header_length, "frame.magic", 0);
  bytes v = wire;
  set_u16(v, 10, 2);
  expect_bad_request(v, header_length, "frame.version", 10);
  for (std::uint16_t t : std::initializer_list<std::uint16_t>{0, 17, 0x7FFF, 0x8002, 0xFFFF}) {
    bytes u = wire;
    set_u16(u, 8, t);
    expect_bad_request(u, header_length, "frame.type", 8);
  }
  // A body length above the limit: refused with the 12 header bytes, no body bytes needed.
  bytes big(wire.begin(), wire.begin() + header_length);
  set_u32(big, 4, static_cast<std::uint32_t>(max_body_length + 1));
  expect_bad_request(big, header_length, "frame.length", 4);
  set_u32(big, 4, 0xFFFFFFFF);
  expect_bad_response(big, frame_type::open, header_length, "frame.length", 4);
  // At the limit: waits for the body.
  set_u32(big, 4, static_cast<std::uint32_t>(max_body_length));
  EXPECT_FALSE(decode_request(big).has_value());
}

TEST(ClientProtocolBad, ResponseOfTheWrongType) {
  const bytes wire = encoded(frame_type::close, plain_response{{0, 0, ""}});
  expect_bad_response(wire, frame_type::commit, header_length, "frame.type", 8);
  // A request where a response is expected, and a response where a request is.
  expect_bad_response(encoded(close_request{1}), frame_type::close, header_length, "frame.type", 8);
  expect_bad_request(wire, header_length, "frame.type", 8);
  // put_response answers put1 too, but the frame says which.
  const bytes put = encoded(frame_type::put, put_response{{0, 0, ""}, {sample_md(), "Q", "QM"}});
  expect_bad_response(put, frame_type::put1, header_length, "frame.type", 8);
  // The expected type itself must be a request type.
  expect_bad_response(wire, frame_type::response_bit, header_length, "frame.type", 8);
  expect_bad_response(wire, static_cast<frame_type>(0), header_length, "frame.type", 8);
}

TEST(ClientProtocolBad, TrailingBytes) {
  bytes wire = encoded(close_request{5});
  wire.push_back(0);
  fix_length(wire);
  expect_bad_request(wire, wire.size(), "close.body", 16);
  bytes empty = encoded(commit_request{});
  empty.push_back(1);
  fix_length(empty);
  expect_bad_request(empty, empty.size(), "commit.body", 12);
  bytes resp = encoded(frame_type::disconnect, plain_response{{0, 0, ""}});
  resp.insert(resp.end(), {0, 0, 0, 0});
  fix_length(resp);
  expect_bad_response(resp, frame_type::disconnect, resp.size(), "disconnect_response.body", 24);
}

TEST(ClientProtocolBad, ShortBodies) {
  // Every cut of a put request's body names the field the body ends in.
  const bytes wire = encoded(put_request{1, sample_md(mq::MQMD_VERSION_1), text("xy"), 3});
  struct cut {
    std::size_t body;
    const char* field;
    std::size_t offset;
  };
  for (const cut& c :
       {cut{0, "put.handle", 12}, cut{3, "put.handle", 12}, cut{4, "put.md", 16}, cut{8, "put.md", 16},
        cut{8 + 323, "put.md", 16}, cut{8 + 324, "put.data", 344}, cut{8 + 324 + 5, "put.data", 344},
        cut{8 + 324 + 6, "put.options", 350}, cut{8 + 324 + 9, "put.options", 350}}) {
    bytes b(wire.begin(), wire.begin() + static_cast<std::ptrdiff_t>(header_length + c.body));
    fix_length(b);
    expect_bad_request(b, b.size(), c.field, c.offset);
  }
  bytes r = encoded(frame_type::connect, connect_response{{0, 0, "ok"}, "QM1", "bob"});
  r.resize(r.size() - 1);
  fix_length(r);
  expect_bad_response(r, frame_type::connect, r.size(), "connect_response.user", 33);
  bytes st = encoded(frame_type::commit, plain_response{{0, 0, ""}});
  st.resize(header_length + 2);
  fix_length(st);
  expect_bad_response(st, frame_type::commit, st.size(), "commit_response.st.completion_code", 12);
  bytes st2 = encoded(frame_type::commit, plain_response{{0, 0, ""}});
  st2.resize(header_length + 6);
  fix_length(st2);
  expect_bad_response(st2, frame_type::commit, st2.size(), "commit_response.st.reason", 16);
}

TEST(ClientProtocolBad, LengthsAndCountsBeyondTheFrame) {
  // A string length past the end of the body.
  bytes s = encoded(connect_request{"QM1", "alice", "", ""});
  set_u32(s, 12 + 4 + 3, 14);  // user's length: 14 where 5 bytes and two empty strings (13) follow
  expect_bad_request(s, s.size(), "connect.user", 19);
  set_u32(s, 12 + 4 + 3, 0xFFFFFFFF);
  expect_bad_request(s, s.size(), "connect.user", 19);
  // A data length past the end.
  bytes d = encoded(put1_request{{"Q", ""}, sample_md(), text("abc"), 0});
  const std::size_t data_at = 12 + 4 + 1 + 4 + 0 + 4 + 4 + 364;  // name, qmgr, type, md
  set_u32(d, data_at, 0x7FFFFFFF);
  expect_bad_request(d, d.size(), "put1.data", data_at);
  // Counts no body could hold, checked before anything is allocated for them.
  bytes a = encoded(frame_type::inquire, inquire_response{{0, 0, ""}, {{7}, {"A"}}});
  const std::size_t count_at = 12 + 12;  // after the status: int_attrs' count
  set_u32(a, count_at, 0xFFFFFFFF);
  expect_bad_response(a, frame_type::inquire, a.size(), "inquire_response.result.int_attrs", count_at);
  set_u32(a, count_at, 4);  // 4 × 4 bytes; only 4 + 5 are there
  expect_bad_response(a, frame_type::inquire, a.size(), "inquire_response.result.int_attrs", count_at);
  bytes sel = encoded(inquire_request{1, {mq::MQIA_Q_TYPE}});
  set_u32(sel, 12 + 4, 0x10000000);
  expect_bad_request(sel, sel.size(), "inquire.selectors", 16);
  bytes o = encoded(frame_type::inquire_objects, inquire_objects_response{{0, 0, ""}, {}});
  set_u32(o, 12 + 12, 0x40000000);
  expect_bad_response(o, frame_type::inquire_objects, o.size(), "inquire_objects_response.objects", 24);
  bytes l = encoded(frame_type::mqsc, mqsc_response{{0, 0, ""}, {{"a"}, 0}});
  set_u32(l, 12 + 12, 3);
  expect_bad_response(l, frame_type::mqsc, l.size(), "mqsc_response.reply.lines", 24);
  // A nested string's length inside an object list.
  // (Built step by step: g++ 12 -O3 for s390x warns maybe-uninitialized on the nested aggregate temporary.)
  inquire_objects_response one;
  one.objects.push_back(object_attributes{"QLOCAL", "A", {}});
  bytes n = encoded(frame_type::inquire_objects, one);
  set_u32(n, 12 + 12 + 4 + 4 + 6, 100);
  expect_bad_response(n, frame_type::inquire_objects, n.size(), "inquire_objects_response.objects.name", 38);
}

TEST(ClientProtocolBad, MqmdMustBeCanonical) {
  const bytes good = encoded(put_request{1, sample_md(mq::MQMD_VERSION_2), {}, 0});
  const std::size_t md_len_at = 16, md_at = 20;
  // Version 1 in 364 bytes, and version 2 in 324 (the frame otherwise consistent).
  bytes v1 = good;
  set_u32(v1, md_at + 4, 1);
  expect_bad_request(v1, v1.size(), "put.md", md_len_at);
  bytes v2 = encoded(put_request{1, sample_md(mq::MQMD_VERSION_1), {}, 0});
  set_u32(v2, md_at + 4, 2);
  expect_bad_request(v2, v2.size(), "put.md", md_len_at);
  // Version 3.
  bytes v3 = good;
  set_u32(v3, md_at + 4, 3);
  expect_bad_request(v3, v3.size(), "put.md", md_at + 4);
  // The StrucId in EBCDIC (decode_mqmd would take it) and garbage.
  bytes e = good;
  e[md_at] = 0xD4;
  e[md_at + 1] = 0xC4;
  e[md_at + 2] = 0x40;
  e[md_at + 3] = 0x40;
  expect_bad_request(e, e.size(), "put.md", md_at);
  // A byte string of another length.
  bytes shortmd = good;
  shortmd.erase(shortmd.begin() + static_cast<std::ptrdiff_t>(md_at + 300), shortmd.begin() + md_at + 364);
  set_u32(shortmd, md_len_at, 300);
  fix_length(shortmd);
  expect_bad_request(shortmd, shortmd.size(), "put.md", md_len_at);
}

TEST(ClientProtocolBad, FieldValuesOutOfRange) {
  get_request_frame g;
  g.request.max_length = 10;
  bytes wire = encoded(g);
  const std::size_t max_at = 12 + 4 + 12 + 24 + 24 + 16;
  ASSERT_EQ(wire.size(), max_at + 4);
  set_u32(wire, max_at, 0xFFFFFFFE);  // -2
  expect_bad_request(wire, wire.size(), "get.request.max_length", max_at);
  // Attribute keys out of order or repeated.
  // (Built step by step, as above: g++ 12 -O3 for s390x and the nested aggregate temporary.)
  inquire_objects_response i;
  object_attributes q;
  q.type = "QLOCAL";
  q.name = "Q";
  q.attributes = {{"A", "1"}, {"B", "2"}};
  i.objects.push_back(q);
  bytes k = encoded(frame_type::inquire_objects, i);
  // ... [u32 1]["A"][u32 1]["1"][u32 1]["B"][u32 1]["2"]: the error names the second entry's start.
  const std::size_t b_key = k.size() - 6, a_key = b_key - 10, second_entry = b_key - 4;
  ASSERT_EQ(k[a_key], 'A');
  ASSERT_EQ(k[b_key], 'B');
  k[a_key] = 'C';  // "C" then "B": out of order
  expect_bad_response(k, frame_type::inquire_objects, k.size(), "inquire_objects_response.objects.attributes",
                      second_entry);
  k[a_key] = 'B';  // "B", "B": repeated
  expect_bad_response(k, frame_type::inquire_objects, k.size(), "inquire_objects_response.objects.attributes",
                      second_entry);
  // A completion code the MQI has not, and one that disagrees with its reason.
  bytes cc = encoded(frame_type::commit, plain_response{{0, 0, ""}});
  set_u32(cc, 12, 3);
  expect_bad_response(cc, frame_type::commit, cc.size(), "commit_response.st.completion_code", 12);
  set_u32(cc, 12, 2);  // MQCC_FAILED with MQRC_NONE
  expect_bad_response(cc, frame_type::commit, cc.size(), "commit_response.st.reason", 16);
  bytes ok_with_reason = encoded(frame_type::commit, plain_response{{2, 2033, ""}});
  set_u32(ok_with_reason, 12, 0);  // MQCC_OK with 2033
  expect_bad_response(ok_with_reason, frame_type::commit, ok_with_reason.size(), "commit_response.st.reason",
                      16);
  // DataLength shorter than the data returned.
  bytes m = encoded(frame_type::get, get_response{{0, 0, ""}, {sample_md(), text("abcd"), 4, {}}});
  const std::size_t dl_at = m.size() - 16 - 4;
  set_u32(m, dl_at, 3);
  expect_bad_response(m, frame_type::get, m.size(), "get_response.msg.data_length", dl_at);
}

// IBM MQ's own protocol starts with a transmission segment header: "TSH ", "TSHC" or "TSHM", ASCII or
// EBCDIC [C: WS-C]. A listener tells it apart from a bad frame of ours by these 4 bytes alone.
TEST(ClientProtocolBad, IbmMqSegmentHeadersAreRecognised) {
  auto of = [](std::initializer_list<std::uint8_t> b) { return bytes(b); };
  for (const bytes& tsh : {of({0x54, 0x53, 0x48, 0x20}), of({0x54, 0x53, 0x48, 0x43}),
                           of({0x54, 0x53, 0x48, 0x4D, 0x00, 0x00, 0x01, 0x0C}), of({0xE3, 0xE2, 0xC8, 0x40}),
                           of({0xE3, 0xE2, 0xC8, 0xC3}), of({0xE3, 0xE2, 0xC8, 0xD4})}) {
    EXPECT_TRUE(is_ibm_mq_segment(bytes_view(tsh.data(), tsh.size())));
  }
  for (const bytes& other : {of({0x54, 0x53, 0x48}), of({0x54, 0x53, 0x48, 0x58}),
                             of({0xE3, 0xE2, 0xC8, 0x20}), of({'I', 'M', 'Q', 'F'}), bytes{}}) {
    EXPECT_FALSE(is_ibm_mq_segment(bytes_view(other.data(), other.size())));
  }
  const bytes ours = encoded(connect_request{"QM1", "u", "p", "a"});
  EXPECT_FALSE(is_ibm_mq_segment(bytes_view(ours.data(), ours.size())));
}

TEST(ClientProtocolBad, FramesBackToBackDecodeInTurn) {
  bytes stream = encoded(connect_request{"QM1", "u", "p", "a"});
  const bytes second = encoded(put_request{3, sample_md(), text("m"), 0});
  stream.insert(stream.end(), second.begin(), second.end());
  std::size_t at = 0;
  std::vector<frame_type> types;
  while (at < stream.size()) {
    auto d = decode_request(bytes_view(stream.data() + at, stream.size() - at));
    ASSERT_TRUE(d && d->ok());
    types.push_back(type_of(d->value().value));
    at += d->value().consumed;
  }
  EXPECT_EQ(types, (std::vector<frame_type>{frame_type::connect, frame_type::put}));
}

}  // namespace
}  // namespace imsb::mqi::wire
