// imsreq: one IMS transaction or command through the bridge (imsreq.hpp).

#include "imsb/bridge/imsreq.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ostream>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>

#include "imsb/bridge/security.hpp"
#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mq/bridge_validator.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/otma/sense.hpp"

namespace imsb::bridge {
namespace {

constexpr int exit_reply = 0;
constexpr int exit_report = 1;
constexpr int exit_usage = 2;
constexpr int exit_trouble = 8;

decode_error usage(std::string field, std::string detail) {
  return decode_error{std::make_error_code(std::errc::invalid_argument), std::move(field), 0,
                      std::move(detail)};
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// A blank-padded MQCHARn field; longer values are a usage error for the caller to check first.
std::string field(std::string_view v, std::size_t n) {
  std::string s(v.substr(0, n));
  s.resize(n, ' ');
  return s;
}

bool parse_int(const std::string& text, long long lo, long long hi, long long& out) {
  if (text.empty() || text.size() > 12) return false;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  out = std::stoll(text);
  return out >= lo && out <= hi;
}

// Text bytes → printable CCSID 819 (control characters as '.'): one reply line.
std::string printable(bytes_view text, std::int32_t ccsid) {
  std::string s;
  if (ccsid == codepage::ccsid_1208) {  // UTF-8 already: printed as it is
    s.assign(text.begin(), text.end());
    for (char& c : s)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '.';
    return s;
  }
  if (ccsid != codepage::ccsid_819 && codepage::supported(ccsid)) {
    const auto c = codepage::convert(text, ccsid, codepage::ccsid_819);
    s.assign(c.out.begin(), c.out.end());
  } else {
    s.assign(text.begin(), text.end());
  }
  for (char& c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) c = '.';
  }
  return codepage::latin1_to_utf8(s);
}

std::string current_user() {
  if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr && pw->pw_name != nullptr) return pw->pw_name;
  return {};
}

}  // namespace

result<imsreq_options> parse_imsreq_args(const std::vector<std::string>& args) {
  imsreq_options o;
  bool have_m = false, have_q = false, have_r = false, have_cm = false, have_conv = false;
  bool conv_new = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& into) -> bool {
      if (i + 1 >= args.size()) return false;
      into = args[++i];
      return true;
    };
    std::string v;
    if (a == "--no-iih") {
      o.iih = false;
    } else if (a == "--persistent") {
      o.persistence = mq::MQPER_PERSISTENT;
    } else if (a == "--non-persistent") {
      o.persistence = mq::MQPER_NOT_PERSISTENT;
    } else if (a == "--") {
      o.segments.insert(o.segments.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    } else if (a.size() > 1 && a[0] == '-') {
      if (!value(v)) return usage(a, "needs a value");
      if (a == "-m") {
        o.qmgr = v;
        have_m = true;
      } else if (a == "-q") {
        o.bridge_queue = v;
        have_q = true;
      } else if (a == "-r") {
        o.reply_queue = v;
        have_r = true;
      } else if (a == "--commit-mode") {
        if (v != "0" && v != "1") return usage(a, "'" + v + "' is not 0 or 1");
        o.commit_mode = v[0];
        have_cm = true;
      } else if (a == "--conversation") {
        have_conv = true;
        if (upper(v) == "NEW") {
          conv_new = true;
        } else {
          bytes id;
          if (v.size() != 32 || !from_hex(v, id) || id.size() != 16)
            return usage(a, "'" + v + "' is neither NEW nor 32 hex digits (a TranInstanceId)");
          std::copy(id.begin(), id.end(), o.tran_instance_id.begin());
        }
      } else if (a == "--userid") {
        if (v.empty() || v.size() > mq::MQ_USER_ID_LENGTH) return usage(a, "1 to 12 characters");
        o.userid = v;
      } else if (a == "--authenticator") {
        if (v.size() > 8) return usage(a, "at most 8 characters (MQIIH.Authenticator)");
        o.authenticator = v;
      } else if (a == "--passticket") {
        if (v.empty() || v.size() > 8) return usage(a, "an application name of 1 to 8 characters");
        o.passticket_appl = upper(v);  // key names are upper-cased (passticket_keys::load)
      } else if (a == "--passticket-keys") {
        o.passticket_keys = v;
      } else if (a == "--lterm") {
        if (v.empty() || v.size() > 8) return usage(a, "1 to 8 characters");
        o.lterm = v;
      } else if (a == "--mfs") {
        if (v.empty() || v.size() > 8) return usage(a, "1 to 8 characters");
        o.mfs = v;
      } else if (a == "--wait") {
        long long ms = 0;
        if (!parse_int(v, 0, 2147483647, ms))
          return usage(a, "'" + v + "' is not milliseconds (0..2147483647)");
        o.wait_ms = static_cast<std::int32_t>(ms);
      } else if (a == "--prefix") {
        o.prefix = v;
      } else if (a == "--mqserver") {
        o.mqserver = v;
      } else if (a == "--tran-state") {
        if (upper(v) != "A") return usage(a, "only A (architected /DIS TRAN) may be given");
        o.tran_state = mq::MQITS_ARCHITECTED;
      } else {
        return usage(a, "unknown option");
      }
    } else {
      o.segments.push_back(a);
    }
  }
  if (!have_q) return usage("-q", "the bridge queue is required");
  if (!have_r) return usage("-r", "the reply-to queue is required");
  (void)have_m;  // -m may be left out: MQSERVER or the default queue manager (connect.hpp)
  if (o.segments.empty()) return usage("TRANCODE", "give the first segment ('TRANCODE data' or '/COMMAND')");
  for (const auto& s : o.segments)
    if (s.size() + mq::llzz_prefix_length > mq::llzz_max_segment_length)
      return usage("segment", "longer than " + std::to_string(mq::llzz_max_segment_length - 4) + " bytes");
  if (!o.authenticator.empty() && !o.passticket_appl.empty())
    return usage("--passticket", "give --authenticator or --passticket, not both");
  if (have_conv) {
    if (have_cm && o.commit_mode != '1')
      return usage("--conversation", "conversations run in commit mode 1 (IBM's rule)");
    if (o.tran_state == mq::MQITS_ARCHITECTED) return usage("--tran-state", "not with --conversation");
    o.commit_mode = '1';
    o.tran_state = conv_new ? mq::MQITS_NOT_IN_CONVERSATION : mq::MQITS_IN_CONVERSATION;
  }
  if (!o.iih) {
    // Without an MQIIH the bridge uses its defaults [C: BRIDGE-MSGS]: nothing to carry these in.
    if (have_cm || have_conv || !o.authenticator.empty() || !o.passticket_appl.empty() || !o.lterm.empty() ||
        o.tran_state != ' ')
      return usage(
          "--no-iih",
          "--commit-mode, --conversation, --tran-state, --lterm and an authenticator need the MQIIH");
  }
  return o;
}

bytes encode_llzz_segments(const std::vector<std::string>& texts, std::int32_t encoding, std::int32_t ccsid) {
  bytes out;
  const byte_order order = integer_order(encoding);
  for (const auto& t : texts) {
    bytes text;
    if (ccsid == codepage::ccsid_819 || !codepage::supported(ccsid)) {
      text.assign(t.begin(), t.end());
    } else {
      text = codepage::convert(bytes_view::of(t), codepage::ccsid_819, ccsid).out;
    }
    std::uint8_t llzz[4];
    store_u16(llzz, static_cast<std::uint16_t>(text.size() + 4), order);
    store_u16(llzz + 2, 0, order);
    out.insert(out.end(), llzz, llzz + 4);
    out.insert(out.end(), text.begin(), text.end());
  }
  return out;
}

imsreq_message build_imsreq_message(const imsreq_options& o, std::int32_t encoding, std::int32_t ccsid) {
  imsreq_message m;
  m.md.version = mq::MQMD_VERSION_2;
  m.md.msg_type = mq::MQMT_REQUEST;
  m.md.report = mq::MQRO_EXCEPTION_WITH_DATA;
  m.md.encoding = encoding;
  m.md.coded_char_set_id = ccsid;
  m.md.persistence = o.persistence;
  m.md.reply_to_q = field(o.reply_queue, mq::MQ_Q_NAME_LENGTH);
  if (!o.userid.empty()) m.md.user_identifier = field(o.userid, mq::MQ_USER_ID_LENGTH);
  if (o.iih) {
    m.md.format = std::string(mq::MQFMT_IMS);
    mq::mqiih iih;
    iih.encoding = encoding;
    iih.coded_char_set_id = ccsid;
    iih.format = std::string(mq::MQFMT_IMS_VAR_STRING);  // the segments are text [C: DATACONV]
    if (!o.lterm.empty()) iih.lterm_override = field(o.lterm, mq::MQ_LTERM_OVERRIDE_LENGTH);
    if (!o.mfs.empty()) iih.mfs_map_name = field(o.mfs, mq::MQ_MFS_MAP_NAME_LENGTH);
    if (!o.authenticator.empty()) iih.authenticator = field(o.authenticator, 8);
    iih.tran_instance_id = o.tran_instance_id;
    iih.tran_state = o.tran_state;
    iih.commit_mode = o.commit_mode;
    mq::encode_mqiih(iih, encoding, ccsid, m.data);
  } else {
    m.md.format = o.mfs.empty() ? std::string(mq::MQFMT_NONE) : field(o.mfs, mq::MQ_FORMAT_LENGTH);
  }
  const bytes segs = encode_llzz_segments(o.segments, encoding, ccsid);
  m.data.insert(m.data.end(), segs.begin(), segs.end());
  return m;
}

imsreq_reply decode_imsreq_reply(const mqi::message& m) {
  imsreq_reply r;
  r.md = m.md;
  const bytes_view data(m.data);
  const std::int32_t ccsid = m.md.coded_char_set_id;
  std::size_t start = 0;
  if (m.md.format == mq::MQFMT_IMS) {
    auto iih = mq::decode_mqiih(data, m.md.encoding, ccsid);
    if (!iih) {
      r.problem = iih.error();
    } else {
      r.iih = std::move(iih).value();
      start = mq::MQIIH_LENGTH_1;
    }
  }
  if (!r.problem) {
    auto segs = mq::walk_llzz_segments(data, start, m.md.encoding);
    if (segs) {
      for (const auto& s : *segs) r.segments.push_back(printable(s.text, ccsid));
    } else {
      r.problem = segs.error();
    }
  }
  if (r.problem || r.segments.empty()) r.raw_text = printable(data.sub(start), ccsid);
  return r;
}

std::string explain_feedback(std::int32_t feedback) {
  std::string s = mq::describe_feedback(feedback);
  if (const auto nak = otma::nak_for_feedback(feedback)) {
    s += "; OTMA NAK sense " + otma::sense_hex(nak->first);
    if (const auto info = otma::find_sense(nak->first))
      s += " " + std::string(info->name) + " (" + std::string(info->meaning) + ")";
    if (nak->second != 0) {
      std::ostringstream hex;
      hex << std::hex << std::uppercase << nak->second;
      s += ", reason X'" + hex.str() + "'";
      if (const auto why = otma::find_reason(nak->first, nak->second))
        s += " (" + std::string(why->meaning) + ")";
    }
  }
  return s;
}

int run_imsreq(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
               const imsreq_connector& connect) {
  if (std::find(args.begin(), args.end(), "--help") != args.end() ||
      std::find(args.begin(), args.end(), "-h") != args.end()) {
    out << "usage: imsreq -m QM -q BRIDGEQ -r REPLYQ [--no-iih] [--commit-mode 0|1] [--conversation new|ID]\n"
           "              [--userid U] [--authenticator A | --passticket APPL [--passticket-keys FILE]]\n"
           "              [--lterm L] [--mfs NAME] [--wait MS] [--persistent|--non-persistent]\n"
           "              [--prefix P] [--mqserver S] [--tran-state A] 'TRANCODE data' ['segment' ...]\n"
           "Puts one IMS request on the bridge queue and prints the reply: each segment as text, the MQIIH\n"
           "state, and any Feedback explained. Exit 0 reply, 1 report, feedback or IMS's refusal (a DFS\n"
           "message as the reply), 2 usage, 8 connection or timeout.\n";
    return exit_reply;
  }
  auto parsed = parse_imsreq_args(args);
  if (!parsed) {
    err << msg::IMB4910E << " imsreq: " << parsed.error().field << ": " << parsed.error().detail
        << " (imsreq --help)\n";
    return exit_usage;
  }
  imsreq_options o = std::move(parsed).value();

  // PassTicket (security.hpp [D]): made here for the user the bridge will check, MQMD.UserIdentifier.
  if (!o.passticket_appl.empty()) {
    std::string keys_file = o.passticket_keys;
    if (keys_file.empty()) {
      if (const char* e = std::getenv("IMSB_PASSTICKET_KEYS"); e != nullptr) keys_file = e;
    }
    if (keys_file.empty()) {
      err << msg::IMB4918E << " imsreq: --passticket needs --passticket-keys FILE or IMSB_PASSTICKET_KEYS\n";
      return exit_usage;
    }
    auto keys = passticket_keys::load(keys_file);
    if (!keys) {
      err << msg::IMB4918E << " imsreq: PassTicket keys " << keys_file << ": " << keys.error().to_string()
          << "\n";
      return exit_usage;
    }
    const std::string user = o.userid.empty() ? current_user() : o.userid;
    const auto now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    auto ticket = keys->generate(user, o.passticket_appl, now);
    if (!ticket) {
      err << msg::IMB4918E << " imsreq: PassTicket for " << o.passticket_appl << ": "
          << ticket.error().to_string() << "\n";
      return exit_usage;
    }
    o.authenticator = *ticket;
  }

  auto conn = connect(o);
  if (!conn) {
    err << msg::IMB4911E << " imsreq: cannot connect to queue manager '" << o.qmgr
        << "': " << conn.error().to_string() << "\n";
    return exit_trouble;
  }
  mqi::connection& c = **conn;
  // MQDISC on every way out, so that an error exit (no reply, a failed open) does not leave the queue
  // manager a broken connection to log (IMB1202W) and back out.
  struct disconnect_at_end {
    mqi::connection& c;
    bool done = false;
    void now() {
      if (!done) (void)c.disconnect();
      done = true;
    }
    ~disconnect_at_end() { now(); }
  } disconnect{c};

  // The queue manager's CCSID: the request is text in it (MQCCSI_Q_MGR would do for the MQMD, but the
  // MQIIH and segments must be encoded in the same CCSID, so it is asked for).
  std::int32_t ccsid = codepage::ccsid_819;
  std::int32_t encoding = mqi::native_encoding_of(mq::MQPL_UNIX);
  if (auto qm = mqi::inquire_qmgr(c)) {
    if (codepage::supported(qm->ccsid)) ccsid = qm->ccsid;
    encoding = mqi::native_encoding_of(qm->platform);
  }
  const imsreq_message req = build_imsreq_message(o, encoding, ccsid);

  // Open the reply queue first, so that a reply cannot be missed by a wrong name found after the put.
  auto reply_q = c.open({o.reply_queue, ""}, mq::MQOO_INPUT_SHARED | mq::MQOO_FAIL_IF_QUIESCING);
  if (!reply_q) {
    err << msg::IMB4912E << " imsreq: cannot open reply-to queue " << o.reply_queue << ": "
        << reply_q.error().to_string() << "\n";
    return exit_trouble;
  }
  std::int32_t open_options = mq::MQOO_OUTPUT | mq::MQOO_FAIL_IF_QUIESCING;
  std::int32_t put_options = mq::MQPMO_NO_SYNCPOINT | mq::MQPMO_NEW_MSG_ID | mq::MQPMO_FAIL_IF_QUIESCING;
  if (!o.userid.empty()) {
    // MQMD.UserIdentifier is identity context: only set when asked for (MQ's rule [C: MQMD-FIELDS]).
    open_options |= mq::MQOO_SET_IDENTITY_CONTEXT;
    put_options |= mq::MQPMO_SET_IDENTITY_CONTEXT;
  }
  auto bridge_q = c.open({o.bridge_queue, ""}, open_options);
  if (!bridge_q) {
    err << msg::IMB4912E << " imsreq: cannot open bridge queue " << o.bridge_queue << ": "
        << bridge_q.error().to_string() << "\n";
    return exit_trouble;
  }
  auto put = c.put(bridge_q->handle, req.md, bytes_view(req.data), put_options);
  if (!put) {
    err << msg::IMB4913E << " imsreq: MQPUT to " << o.bridge_queue << ": " << put.error().to_string() << "\n";
    return exit_trouble;
  }

  // The reply and a report both carry CorrelId = the request's MsgId ([C: REPLY-MD]; MQRO's default
  // MQRO_COPY_MSG_ID_TO_CORREL_ID for reports).
  mqi::get_request g;
  g.options = mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT | mq::MQGMO_FAIL_IF_QUIESCING;
  g.wait_interval_ms = o.wait_ms;
  g.match_options = mq::MQMO_MATCH_CORREL_ID;
  g.correl_id = put->md.msg_id;
  auto got = c.get(reply_q->handle, g);
  if (!got) {
    if (got.error().code == mq::make_mqrc(mq::MQRC_NO_MSG_AVAILABLE)) {
      err << msg::IMB4914E << " imsreq: no reply on " << o.reply_queue << " within " << o.wait_ms
          << " ms for MsgId " << to_hex(bytes_view(put->md.msg_id.data(), put->md.msg_id.size())) << "\n";
    } else {
      err << msg::IMB4915E << " imsreq: MQGET from " << o.reply_queue << ": " << got.error().to_string()
          << "\n";
    }
    return exit_trouble;
  }
  disconnect.now();

  const imsreq_reply r = decode_imsreq_reply(*got);
  const bool report = r.md.msg_type == mq::MQMT_REPORT || r.md.feedback != mq::MQFB_NONE;
  if (!report) {
    for (const auto& s : r.segments) out << s << "\n";
    if (r.problem) out << r.raw_text << "\n";
  }
  if (r.iih && !report) {  // a report's MQIIH is the request's own (MQRO_EXCEPTION_WITH_DATA)
    out << "MQIIH TranState="
        << (r.iih->tran_state == ' ' ? std::string("' '") : std::string(1, r.iih->tran_state))
        << " TranInstanceId="
        << to_hex(bytes_view(r.iih->tran_instance_id.data(), r.iih->tran_instance_id.size()))
        << " CommitMode=" << r.iih->commit_mode << " Format='" << r.iih->format << "'\n";
  }
  out << "MQMD MsgType=" << r.md.msg_type << " Format='" << r.md.format
      << "' CodedCharSetId=" << r.md.coded_char_set_id << " Encoding=" << r.md.encoding << "\n";
  if (report) {
    out << "Feedback " << explain_feedback(r.md.feedback) << "\n";
    err << msg::IMB4916W << " imsreq: a report came back: " << explain_feedback(r.md.feedback) << "\n";
    return exit_report;
  }
  if (r.problem) {
    err << msg::IMB4917W << " imsreq: the reply does not decode: " << r.problem->to_string() << "\n";
    return exit_report;
  }
  // A reply the bridge built from IMS's error text after a NAK (DFS1288E ...; PutApplType
  // MQAT_IMS_BRIDGE, bridgemap/reply.hpp error_reply): IMS refused the request, the text says why.
  if (r.md.put_appl_type == mq::MQAT_IMS_BRIDGE) {
    std::string reason;
    for (const auto& s : r.segments) reason += (reason.empty() ? "" : " ") + s;
    if (reason.empty()) reason = r.raw_text;
    err << msg::IMB4919W << " imsreq: IMS refused the request: " << reason << "\n";
    return exit_report;
  }
  return exit_reply;
}

}  // namespace imsb::bridge
