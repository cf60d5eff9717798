// The MQI contract's helpers (connection.hpp): checked reason accessors, and MQINQ of a queue's status
// and of the queue manager's attributes over any backend.

#include "imsb/mqi/connection.hpp"

#include <cstring>

namespace imsb::mqi {
namespace {

std::string trim_blanks(const std::string& s) {
  const auto end = s.find_last_not_of(' ');
  return end == std::string::npos ? std::string() : s.substr(0, end + 1);
}

decode_error short_answer(const char* what) {
  return decode_error{mq::make_mqrc(mq::MQRC_UNEXPECTED_ERROR), "MQINQ", 0,
                      std::string("the queue manager's answer lacks values asked for (") + what + ")"};
}

}  // namespace

std::int32_t reason_of(const decode_error& err) noexcept { return mq::reason_of(err.code); }

bool is_connection_gone(std::int32_t reason) noexcept {
  switch (reason) {
    case mq::MQRC_CONNECTION_BROKEN:
    case mq::MQRC_HCONN_ERROR:
    case mq::MQRC_Q_MGR_NOT_AVAILABLE:
    case mq::MQRC_Q_MGR_QUIESCING:
    case mq::MQRC_Q_MGR_STOPPING:
    case mq::MQRC_CONNECTION_QUIESCING:
    case mq::MQRC_CONNECTION_STOPPING:
      return true;
    default:
      return false;
  }
}

bool is_connection_gone(const decode_error& err) noexcept { return is_connection_gone(reason_of(err)); }

result<queue_status> inquire_queue(connection& c, hobj handle) {
  // One MQINQ: of a queue other than a local one the three counts come back "not applicable" with
  // MQRC_SELECTOR_NOT_FOR_TYPE, a warning, and are left at 0.
  auto in = c.inquire(handle, {mq::MQCA_Q_NAME, mq::MQIA_Q_TYPE, mq::MQIA_CURRENT_Q_DEPTH,
                               mq::MQIA_OPEN_INPUT_COUNT, mq::MQIA_OPEN_OUTPUT_COUNT});
  if (!in) return in.error();
  if (in->char_attrs.size() != 1 || in->int_attrs.size() != 4) return short_answer("queue status");
  queue_status st;
  st.name = trim_blanks(in->char_attrs[0]);
  st.type = in->int_attrs[0];
  if (st.type != mq::MQQT_LOCAL) return st;
  st.current_depth = in->int_attrs[1];
  st.open_input_count = in->int_attrs[2];
  st.open_output_count = in->int_attrs[3];
  return st;
}

result<qmgr_attributes> inquire_qmgr(connection& c) {
  auto h = c.open(object_descriptor{"", "", mq::MQOT_Q_MGR}, mq::MQOO_INQUIRE | mq::MQOO_FAIL_IF_QUIESCING);
  if (!h) return h.error();
  auto in =
      c.inquire(h->handle, {mq::MQCA_Q_MGR_NAME, mq::MQIA_CODED_CHAR_SET_ID, mq::MQIA_PLATFORM,
                            mq::MQCA_DEAD_LETTER_Q_NAME, mq::MQCA_DEF_XMIT_Q_NAME, mq::MQIA_MAX_MSG_LENGTH});
  auto closed = c.close(h->handle);
  if (!in) return in.error();
  if (!closed) return closed.error();
  if (in->char_attrs.size() != 3 || in->int_attrs.size() != 3) return short_answer("queue manager");
  qmgr_attributes a;
  a.name = trim_blanks(in->char_attrs.at(0));
  a.ccsid = in->int_attrs.at(0);
  a.platform = in->int_attrs.at(1);
  a.dead_letter_q = trim_blanks(in->char_attrs.at(1));
  a.def_xmit_q = trim_blanks(in->char_attrs.at(2));
  a.max_msg_length = in->int_attrs.at(2);
  return a;
}

std::int32_t native_encoding_of(std::int32_t platform) noexcept {
  if (platform == mq::MQPL_ZOS) return mq::MQENC_NATIVE_ZOS;
  const std::uint16_t probe = 1;
  unsigned char first = 0;
  std::memcpy(&first, &probe, 1);
  return first == 1 ? mq::MQENC_NATIVE_LINUX_X86 : mq::MQENC_S390_LINUX;
}

}  // namespace imsb::mqi
