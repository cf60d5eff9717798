// mqput and mqget (daemon.hpp): put any message, get or browse messages and print them as
// mqdump decodes them (portable/include/imsb/dump/), or as one JSON object per line. They reach the
// queue manager through connect() (connect.hpp); tests give them a mock connection (detail::).

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include "imsb/core/messages.hpp"
#include "imsb/dump/decode.hpp"
#include "imsb/dump/render.hpp"
#include "imsb/dump/tree.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/qmgr/daemon.hpp"

namespace imsb::qmgr {
namespace {

namespace po = boost::program_options;

constexpr int exit_ok = 0;
constexpr int exit_no_msg = 2;  // mqget: nothing there
constexpr int exit_error = 20;  // as the control commands (control.hpp)

struct usage_error {
  std::string text;
};

void say(std::ostream& os, std::string_view id, const std::string& text) { os << id << ": " << text << '\n'; }

// "MQRC_Q_FULL (2053)" for an MQ error; the error's own words otherwise.
std::string reason_text(const decode_error& e) {
  if (e.code.category() == mq::mqrc_category()) {
    const auto* info = mq::find_mqrc(e.code.value());
    const std::string name = info != nullptr ? std::string(info->name) : "MQRC";
    return name + " (" + std::to_string(e.code.value()) + ")";
  }
  return e.code.message();
}

std::string failure_text(const decode_error& e) {
  std::string s = e.detail.empty() ? std::string() : e.detail;
  while (!s.empty() && s.back() == '.') s.pop_back();
  const std::string rc = reason_text(e);
  // Some backends' details already end with the code's name and number: not twice.
  if (s.find(rc) != std::string::npos) return s;
  return s.empty() ? rc : s + ": " + rc;
}

bool is_mqrc(const decode_error& e, std::int32_t rc) {
  return e.code.category() == mq::mqrc_category() && e.code.value() == rc;
}

// ------------------------------------------------------------------------------------------------------
// Option values

std::string hex_of(const std::uint8_t* p, std::size_t n) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string s;
  s.reserve(n * 2);
  for (std::size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 0x0F];
  }
  return s;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Hex digits (blanks and an X'..' wrapper allowed) → bytes; usage_error when not hex.
bytes parse_hex(const std::string& option, std::string text) {
  if (text.size() >= 3 && (text[0] == 'X' || text[0] == 'x') && text[1] == '\'' && text.back() == '\'')
    text = text.substr(2, text.size() - 3);
  bytes out;
  int high = -1;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    const int d = hex_digit(c);
    if (d < 0) throw usage_error{option + " " + text + ": not hex digits"};
    if (high < 0) {
      high = d;
    } else {
      out.push_back(static_cast<std::uint8_t>(high * 16 + d));
      high = -1;
    }
  }
  if (high >= 0) throw usage_error{option + " " + text + ": an odd number of hex digits"};
  return out;
}

// MsgId / CorrelId: up to 24 bytes of hex, padded with X'00' on the right as an MQBYTE24 is [I].
std::array<std::uint8_t, 24> parse_id(const std::string& option, const std::string& text) {
  const bytes b = parse_hex(option, text);
  if (b.size() > 24) throw usage_error{option + ": at most 24 bytes (48 hex digits)"};
  std::array<std::uint8_t, 24> id{};
  for (std::size_t i = 0; i < b.size(); ++i) id[i] = b[i];
  return id;
}

std::int32_t parse_int(const std::string& option, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 0);
  if (text.empty() || end == nullptr || *end != '\0' || errno != 0 || v < INT32_MIN || v > INT32_MAX)
    throw usage_error{option + " " + text + ": not a number"};
  return static_cast<std::int32_t>(v);
}

std::string upper(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

// --report coa,cod,exception,expiration,pass-msg-id,pass-correl-id,discard (and the _WITH_DATA forms
// coa-with-data ..., or a number).
std::int32_t parse_report(const std::string& text) {
  if (!text.empty() && hex_digit(text[0]) >= 0 && text[0] <= '9') return parse_int("--report", text);
  std::int32_t r = mq::MQRO_NONE;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    std::string w = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    for (char& c : w)
      if (c == '_') c = '-';
    w = upper(w);
    if (w == "COA")
      r |= mq::MQRO_COA;
    else if (w == "COA-WITH-DATA")
      r |= mq::MQRO_COA_WITH_DATA;
    else if (w == "COA-WITH-FULL-DATA")
      r |= mq::MQRO_COA_WITH_FULL_DATA;
    else if (w == "COD")
      r |= mq::MQRO_COD;
    else if (w == "COD-WITH-DATA")
      r |= mq::MQRO_COD_WITH_DATA;
    else if (w == "COD-WITH-FULL-DATA")
      r |= mq::MQRO_COD_WITH_FULL_DATA;
    else if (w == "EXCEPTION")
      r |= mq::MQRO_EXCEPTION;
    else if (w == "EXCEPTION-WITH-DATA")
      r |= mq::MQRO_EXCEPTION_WITH_DATA;
    else if (w == "EXCEPTION-WITH-FULL-DATA")
      r |= mq::MQRO_EXCEPTION_WITH_FULL_DATA;
    else if (w == "EXPIRATION")
      r |= mq::MQRO_EXPIRATION;
    else if (w == "EXPIRATION-WITH-DATA")
      r |= mq::MQRO_EXPIRATION_WITH_DATA;
    else if (w == "EXPIRATION-WITH-FULL-DATA")
      r |= mq::MQRO_EXPIRATION_WITH_FULL_DATA;
    else if (w == "PASS-MSG-ID")
      r |= mq::MQRO_PASS_MSG_ID;
    else if (w == "PASS-CORREL-ID")
      r |= mq::MQRO_PASS_CORREL_ID;
    else if (w == "DISCARD")
      r |= mq::MQRO_DISCARD_MSG;
    else if (w == "PAN")
      r |= mq::MQRO_PAN;
    else if (w == "NAN")
      r |= mq::MQRO_NAN;
    else
      throw usage_error{"--report " + text + ": '" + w + "' is not a report option"};
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return r;
}

std::int32_t parse_msgtype(const std::string& text) {
  const std::string w = upper(text);
  if (w == "REQUEST") return mq::MQMT_REQUEST;
  if (w == "REPLY") return mq::MQMT_REPLY;
  if (w == "REPORT") return mq::MQMT_REPORT;
  if (w == "DATAGRAM") return mq::MQMT_DATAGRAM;
  return parse_int("--msgtype", text);
}

// An MQCHARn field: the text padded with blanks (usage_error when longer).
std::string padded(const std::string& option, const std::string& text, std::size_t n) {
  if (text.size() > n)
    throw usage_error{option + " " + text + ": at most " + std::to_string(n) + " characters"};
  return text + std::string(n - text.size(), ' ');
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

// ------------------------------------------------------------------------------------------------------
// Connecting

const char* const connect_options_text = R"(
Connecting (connect.hpp):
  -m, --qmgr QM        the queue manager (default: the only one of the prefix); bindings through its
                       socket, or over TCP when MQSERVER=CHANNEL/TCP/host(port) is set
  --local              run the queue manager inside this program (it must not be running)
  --mqserver SPEC      as MQSERVER, for this command only
  --user USER          TCP: the user to log in as (password from IMSB_PASSWORD, or --password-stdin)
  --password-stdin     TCP: the first line of standard input is the password
  --tls                TCP: use TLS (--ca FILE, --cert FILE, --key FILE)
  --prefix DIR         the folder that holds mqs.ini and qmgrs/
  -h, --help           this text
)";

void add_connect_options(po::options_description& desc) {
  desc.add_options()("help,h", "")("qmgr,m", po::value<std::string>(), "")("local", po::bool_switch(), "")(
      "mqserver", po::value<std::string>(), "")("user", po::value<std::string>(), "")(
      "password-stdin", po::bool_switch(), "")("tls", po::bool_switch(), "")(
      "ca", po::value<std::string>(), "")("cert", po::value<std::string>(), "")(
      "key", po::value<std::string>(), "")("prefix", po::value<std::string>(), "");
}

po::variables_map parse(const std::vector<std::string>& args, const po::options_description& desc,
                        const po::positional_options_description& positional) {
  po::variables_map vm;
  try {
    const auto style = po::command_line_style::unix_style ^ po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(args).options(desc).positional(positional).style(style).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw usage_error{e.what()};
  }
  return vm;
}

std::optional<std::string> opt(const po::variables_map& vm, const char* name) {
  if (vm.count(name) == 0) return std::nullopt;
  return vm[name].as<std::string>();
}

connect_options connect_options_of(const po::variables_map& vm, std::istream& in, const char* program) {
  connect_options o;
  const std::string qm = opt(vm, "qmgr").value_or("");
  if (vm["local"].as<bool>()) {
    if (qm.empty()) throw usage_error{"--local needs -m QM"};
    o.target = "local:" + qm;
  } else {
    o.target = qm;
  }
  o.prefix = opt(vm, "prefix");
  o.mqserver = opt(vm, "mqserver");
  o.user = opt(vm, "user").value_or("");
  if (vm["password-stdin"].as<bool>()) {
    std::getline(in, o.password);
    if (!o.password.empty() && o.password.back() == '\r') o.password.pop_back();
  } else if (const char* p = std::getenv("IMSB_PASSWORD"); p != nullptr) {
    o.password = p;
  }
  o.tls.enabled = vm["tls"].as<bool>();
  o.tls.ca_file = opt(vm, "ca").value_or("");
  o.tls.cert_file = opt(vm, "cert").value_or("");
  o.tls.key_file = opt(vm, "key").value_or("");
  o.appl_name = program;
  return o;
}

std::unique_ptr<mqi::connection> connect_or_say(const detail::connector& connect_fn, const connect_options& o,
                                                std::ostream& err) {
  auto c = connect_fn(o);
  if (!c) {
    const std::string who =
        o.target.empty() ? std::string("the default queue manager") : "queue manager " + o.target;
    say(err, msg::IMB1236E, "Cannot connect to " + who + ": " + failure_text(c.error()) + ".");
    return nullptr;
  }
  return std::move(c).value();
}

// ------------------------------------------------------------------------------------------------------
// mqput

const char* const mqput_usage = R"(Usage: mqput [options] QUEUE [TEXT]
Puts one message on QUEUE and prints its MsgId (48 hex digits). The data is TEXT, or --hex, or
--file, else all of standard input.

Message data:
  --hex HEX             the data as hex digits (blanks allowed)
  --file FILE           the data is the file's bytes
Message descriptor (MQMD):
  --format NAME         Format (default MQSTR for TEXT and standard input, blank for --hex/--file)
  --persistent          Persistence YES (default: as the queue's DEFPSIST)
  --non-persistent      Persistence NO
  --priority N          Priority 0-9 (default: as the queue's DEFPRTY)
  --expiry N            Expiry in tenths of a second (default unlimited)
  --reply-to Q          ReplyToQ
  --reply-to-qmgr QM    ReplyToQMgr
  --report LIST         Report: coa,cod,exception,expiration (also ...-with-data, ...-with-full-data),
                        pass-msg-id,pass-correl-id,discard,pan,nan, or a number
  --msg-id HEX          MsgId (default: the queue manager makes one)
  --correl-id HEX       CorrelId
  --msgtype TYPE        MsgType: datagram (default), request, reply, report, or a number
  --feedback N          Feedback
  --encoding N          Encoding (default 546)
  --ccsid N             CodedCharSetId (default: the queue manager's)
  --userid USER         UserIdentifier (needs SETID authority: MQPMO_SET_IDENTITY_CONTEXT)
  --qmgr-target QM      the object queue-manager name of the MQOD (a remote queue manager)
  --syncpoint           put under syncpoint, then commit
)";

const char* const mqput_exits = R"(
Exit codes: 0 put (the MsgId is printed); 20 error (IMB1233E with the MQRC name and number, IMB1236E
cannot connect, IMB1237E usage, IMB1238E data cannot be read).
)";

int mqput_body(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err,
               const detail::connector& connect_fn) {
  po::options_description desc;
  add_connect_options(desc);
  desc.add_options()("queue", po::value<std::string>(), "")("text", po::value<std::string>(), "")(
      "hex", po::value<std::string>(), "")("file", po::value<std::string>(), "")(
      "format", po::value<std::string>(), "")("persistent", po::bool_switch(), "")(
      "non-persistent", po::bool_switch(), "")("priority", po::value<std::string>(), "")(
      "expiry", po::value<std::string>(), "")("reply-to", po::value<std::string>(), "")(
      "reply-to-qmgr", po::value<std::string>(), "")("report", po::value<std::string>(), "")(
      "msg-id", po::value<std::string>(), "")("correl-id", po::value<std::string>(), "")(
      "msgtype", po::value<std::string>(), "")("feedback", po::value<std::string>(), "")(
      "encoding", po::value<std::string>(), "")("ccsid", po::value<std::string>(), "")(
      "userid", po::value<std::string>(), "")("qmgr-target", po::value<std::string>(), "")(
      "syncpoint", po::bool_switch(), "");
  po::positional_options_description pos;
  pos.add("queue", 1).add("text", 1);
  const auto vm = parse(args, desc, pos);
  if (vm.count("help") != 0) {
    out << mqput_usage << connect_options_text << mqput_exits;
    return exit_ok;
  }
  const auto queue = opt(vm, "queue");
  if (!queue) throw usage_error{"name the queue"};
  const int sources = static_cast<int>(vm.count("text") + vm.count("hex") + vm.count("file"));
  if (sources > 1) throw usage_error{"give the data once: TEXT, --hex or --file"};
  if (vm["persistent"].as<bool>() && vm["non-persistent"].as<bool>())
    throw usage_error{"--persistent and --non-persistent exclude each other"};

  mq::mqmd md;
  md.version = mq::MQMD_VERSION_2;
  const bool text_data = vm.count("hex") == 0 && vm.count("file") == 0;
  md.format = padded("--format", opt(vm, "format").value_or(text_data ? "MQSTR" : ""), 8);
  if (vm["persistent"].as<bool>()) md.persistence = mq::MQPER_PERSISTENT;
  if (vm["non-persistent"].as<bool>()) md.persistence = mq::MQPER_NOT_PERSISTENT;
  if (auto v = opt(vm, "priority")) md.priority = parse_int("--priority", *v);
  if (auto v = opt(vm, "expiry")) md.expiry = parse_int("--expiry", *v);
  if (auto v = opt(vm, "reply-to")) md.reply_to_q = padded("--reply-to", *v, mq::MQ_Q_NAME_LENGTH);
  if (auto v = opt(vm, "reply-to-qmgr"))
    md.reply_to_q_mgr = padded("--reply-to-qmgr", *v, mq::MQ_Q_MGR_NAME_LENGTH);
  if (auto v = opt(vm, "report")) md.report = parse_report(*v);
  if (auto v = opt(vm, "msg-id")) md.msg_id = parse_id("--msg-id", *v);
  if (auto v = opt(vm, "correl-id")) md.correl_id = parse_id("--correl-id", *v);
  if (auto v = opt(vm, "msgtype")) md.msg_type = parse_msgtype(*v);
  if (auto v = opt(vm, "feedback")) md.feedback = parse_int("--feedback", *v);
  if (auto v = opt(vm, "encoding")) md.encoding = parse_int("--encoding", *v);
  if (auto v = opt(vm, "ccsid")) md.coded_char_set_id = parse_int("--ccsid", *v);
  std::int32_t pmo = vm["syncpoint"].as<bool>() ? mq::MQPMO_SYNCPOINT : mq::MQPMO_NO_SYNCPOINT;
  if (auto v = opt(vm, "userid")) {
    md.user_identifier = padded("--userid", *v, mq::MQ_USER_ID_LENGTH);
    pmo |= mq::MQPMO_SET_IDENTITY_CONTEXT;
  }

  const connect_options co = connect_options_of(vm, in, "mqput");  // may read the password line
  bytes data;
  if (auto v = opt(vm, "text")) {
    data.assign(v->begin(), v->end());
  } else if (auto h = opt(vm, "hex")) {
    data = parse_hex("--hex", *h);
  } else if (auto f = opt(vm, "file")) {
    std::ifstream file(*f, std::ios::binary);
    if (!file) {
      say(err, msg::IMB1238E, "Cannot read " + *f + ": " + std::strerror(errno) + ". Nothing was put.");
      return exit_error;
    }
    data.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    if (file.bad()) {
      say(err, msg::IMB1238E, "Cannot read " + *f + ". Nothing was put.");
      return exit_error;
    }
  } else {
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) {
      say(err, msg::IMB1238E, "Cannot read standard input. Nothing was put.");
      return exit_error;
    }
  }

  auto conn = connect_or_say(connect_fn, co, err);
  if (!conn) return exit_error;
  mqi::object_descriptor od{*queue, opt(vm, "qmgr-target").value_or("")};
  auto put = conn->put1(od, md, bytes_view(data), pmo);
  if (put && (pmo & mq::MQPMO_SYNCPOINT) != 0) {
    if (auto c = conn->commit(); !c) {
      say(err, msg::IMB1233E,
          "MQCMIT after the put to " + *queue + " failed: " + failure_text(c.error()) + ".");
      (void)conn->disconnect();
      return exit_error;
    }
  }
  if (!put) {
    say(err, msg::IMB1233E, "MQPUT to " + *queue + " failed: " + failure_text(put.error()) + ".");
    (void)conn->disconnect();
    return exit_error;
  }
  out << hex_of(put->md.msg_id.data(), put->md.msg_id.size()) << '\n';
  (void)conn->disconnect();
  return exit_ok;
}

// ------------------------------------------------------------------------------------------------------
// mqget

const char* const mqget_usage = R"(Usage: mqget [options] QUEUE
Gets (or browses) messages from QUEUE and prints each as mqdump decodes it (MQMD, headers, data), or
with --json one JSON object per line.

  --wait MS             wait up to MS milliseconds for a message (-1: without limit); default no wait
  --count N             get up to N messages (default 1), each with the wait
  --all                 get every message there (the wait applies to the first)
  --msg-id HEX          only the message with this MsgId
  --correl-id HEX       only messages with this CorrelId
  --browse              browse: leave the messages on the queue
  --json                one JSON object per line (msgid, correlid, msgtype, format, feedback,
                        persistence, reply_to_q, reply_to_qmgr, userid, ..., dlh/xqh/iih, data_hex,
                        data_text)
  --syncpoint           get under syncpoint, then commit
)";

const char* const mqget_exits = R"(
Exit codes: 0 at least one message printed; 2 no message (IMB1235W, MQRC_NO_MSG_AVAILABLE); 20 error
(IMB1234E with the MQRC name and number, IMB1236E cannot connect, IMB1237E usage).
)";

int mqget_body(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
               const detail::connector& connect_fn) {
  po::options_description desc;
  add_connect_options(desc);
  desc.add_options()("queue", po::value<std::string>(), "")("wait", po::value<std::string>(), "")(
      "count", po::value<std::string>(), "")("all", po::bool_switch(), "")(
      "msg-id", po::value<std::string>(), "")("correl-id", po::value<std::string>(), "")(
      "browse", po::bool_switch(), "")("json", po::bool_switch(), "")("syncpoint", po::bool_switch(), "");
  po::positional_options_description pos;
  pos.add("queue", 1);
  const auto vm = parse(args, desc, pos);
  if (vm.count("help") != 0) {
    out << mqget_usage << connect_options_text << mqget_exits;
    return exit_ok;
  }
  const auto queue = opt(vm, "queue");
  if (!queue) throw usage_error{"name the queue"};
  const bool all = vm["all"].as<bool>();
  if (all && vm.count("count") != 0) throw usage_error{"--count and --all exclude each other"};
  std::int64_t count = 1;
  if (auto v = opt(vm, "count")) {
    count = parse_int("--count", *v);
    if (count < 1) throw usage_error{"--count " + *v + ": at least 1"};
  }
  const bool browse = vm["browse"].as<bool>();
  const bool json = vm["json"].as<bool>();
  const bool syncpoint = vm["syncpoint"].as<bool>();
  if (browse && syncpoint) throw usage_error{"--browse and --syncpoint exclude each other"};

  mqi::get_request req;
  req.match_options = mq::MQMO_NONE;
  if (auto v = opt(vm, "msg-id")) {
    req.msg_id = parse_id("--msg-id", *v);
    req.match_options |= mq::MQMO_MATCH_MSG_ID;
  }
  if (auto v = opt(vm, "correl-id")) {
    req.correl_id = parse_id("--correl-id", *v);
    req.match_options |= mq::MQMO_MATCH_CORREL_ID;
  }
  std::optional<std::int32_t> wait;
  if (auto v = opt(vm, "wait")) {
    wait = parse_int("--wait", *v);
    if (*wait < 0 && *wait != mq::MQWI_UNLIMITED) throw usage_error{"--wait " + *v + ": milliseconds, or -1"};
  }

  const connect_options co = connect_options_of(vm, std::cin, "mqget");
  auto conn = connect_or_say(connect_fn, co, err);
  if (!conn) return exit_error;
  const std::int32_t oo = (browse ? mq::MQOO_BROWSE : mq::MQOO_INPUT_AS_Q_DEF) | mq::MQOO_FAIL_IF_QUIESCING;
  auto opened = conn->open(mqi::object_descriptor{*queue, ""}, oo);
  if (!opened) {
    say(err, msg::IMB1234E, "MQOPEN of " + *queue + " failed: " + failure_text(opened.error()) + ".");
    (void)conn->disconnect();
    return exit_error;
  }

  std::int64_t got = 0;
  int code = exit_ok;
  while (all || got < count) {
    req.options = (syncpoint ? mq::MQGMO_SYNCPOINT : mq::MQGMO_NO_SYNCPOINT) | mq::MQGMO_FAIL_IF_QUIESCING;
    if (browse) req.options |= got == 0 ? mq::MQGMO_BROWSE_FIRST : mq::MQGMO_BROWSE_NEXT;
    // --all waits for the first message only: afterwards "every message there" means there now [D].
    if (wait && (!all || got == 0)) {
      req.options |= mq::MQGMO_WAIT;
      req.wait_interval_ms = *wait;
    } else {
      req.wait_interval_ms = 0;
    }
    auto m = conn->get(opened->handle, req);
    if (!m) {
      if (is_mqrc(m.error(), mq::MQRC_NO_MSG_AVAILABLE)) {
        if (got == 0) {
          say(err, msg::IMB1235W,
              "No message on " + *queue + ": MQRC_NO_MSG_AVAILABLE (" +
                  std::to_string(mq::MQRC_NO_MSG_AVAILABLE) + ").");
          code = exit_no_msg;
        }
      } else {
        say(err, msg::IMB1234E, "MQGET from " + *queue + " failed: " + failure_text(m.error()) + ".");
        code = exit_error;
      }
      break;
    }
    ++got;
    if (json) {
      out << detail::message_json(*m) << '\n';
    } else {
      bytes whole;
      mq::encode_mqmd(m->md, dump::default_encoding, dump::default_ccsid, whole);
      whole.insert(whole.end(), m->data.begin(), m->data.end());
      if (got > 1) out << '\n';
      out << dump::render_text(dump::dump_message(bytes_view(whole)).document);
    }
    out.flush();
  }
  if (syncpoint && got > 0) {
    if (auto c = conn->commit(); !c) {
      say(err, msg::IMB1234E,
          "MQCMIT of the gets from " + *queue + " failed: " + failure_text(c.error()) + ".");
      code = exit_error;
    }
  }
  (void)conn->close(opened->handle);
  (void)conn->disconnect();
  return code;
}

// ------------------------------------------------------------------------------------------------------
// JSON

void json_key(std::string& s, std::string_view key) {
  if (s.back() != '{') s += ',';
  s += dump::json_string(key);
  s += ':';
}
void json_field(std::string& s, std::string_view key, const std::string& text) {
  json_key(s, key);
  s += dump::json_string(text);
}
void json_field(std::string& s, std::string_view key, std::int64_t n) {
  json_key(s, key);
  s += std::to_string(n);
}

// A field node's value for JSON: its number, or its text without the quotes (and trailing blanks) of a
// character field, or the hex digits of X'..'.
void json_node_value(std::string& s, const dump::node& n) {
  if (n.number) {
    s += std::to_string(*n.number);
    return;
  }
  std::string v = n.value;
  if (v.size() >= 3 && v.rfind("X'", 0) == 0 && v.back() == '\'') {
    v = v.substr(2, v.size() - 3);
  } else if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') {
    v = trimmed(v.substr(1, v.size() - 2));
  }
  s += dump::json_string(v);
}

void json_structure(std::string& s, const dump::node& st) {
  s += '{';
  for (const auto& c : st.children) {
    if (c.kind == dump::node_kind::field) {
      json_key(s, c.name);
      json_node_value(s, c);
    } else if (c.kind == dump::node_kind::structure) {
      json_key(s, c.name);
      json_structure(s, c);
    }
  }
  s += '}';
}

// The first structure node of that name in the decoded message, MQMD's own children excluded.
const dump::node* find_structure(const dump::node& n, std::string_view name) {
  if (n.kind == dump::node_kind::structure && n.name == name) return &n;
  for (const auto& c : n.children) {
    if (const auto* f = find_structure(c, name)) return f;
  }
  return nullptr;
}

}  // namespace

namespace detail {

std::string message_json(const mqi::message& m) {
  std::string s = "{";
  json_field(s, "msgid", hex_of(m.md.msg_id.data(), m.md.msg_id.size()));
  json_field(s, "correlid", hex_of(m.md.correl_id.data(), m.md.correl_id.size()));
  json_field(s, "msgtype", m.md.msg_type);
  json_field(s, "format", trimmed(m.md.format));
  json_field(s, "feedback", m.md.feedback);
  json_field(s, "report", m.md.report);
  json_field(s, "persistence", m.md.persistence);
  json_field(s, "priority", m.md.priority);
  json_field(s, "expiry", m.md.expiry);
  json_field(s, "encoding", m.md.encoding);
  json_field(s, "ccsid", m.md.coded_char_set_id);
  json_field(s, "backout_count", m.md.backout_count);
  json_field(s, "reply_to_q", trimmed(m.md.reply_to_q));
  json_field(s, "reply_to_qmgr", trimmed(m.md.reply_to_q_mgr));
  json_field(s, "userid", trimmed(m.md.user_identifier));
  json_field(s, "put_appl_name", trimmed(m.md.put_appl_name));
  json_field(s, "put_date", trimmed(m.md.put_date));
  json_field(s, "put_time", trimmed(m.md.put_time));
  json_field(s, "token", hex_of(m.token.data(), m.token.size()));
  json_field(s, "data_length", static_cast<std::int64_t>(m.data_length));
  // The headers as mqdump decodes them, every field under IBM's name (MQDLH Reason, DestQName ...;
  // MQXQH RemoteQName, RemoteQMgrName and its MQMD; MQIIH ...) [D].
  bytes whole;
  mq::encode_mqmd(m.md, dump::default_encoding, dump::default_ccsid, whole);
  whole.insert(whole.end(), m.data.begin(), m.data.end());
  const auto doc = dump::dump_message(bytes_view(whole));
  for (const auto& [key, struc] :
       {std::pair<const char*, const char*>{"dlh", "MQDLH"}, {"xqh", "MQXQH"}, {"iih", "MQIIH"}}) {
    if (const auto* n = find_structure(doc.document, struc)) {
      json_key(s, key);
      json_structure(s, *n);
    }
  }
  json_field(s, "data_hex", hex_of(m.data.data(), m.data.size()));
  const std::int32_t ccsid = m.md.coded_char_set_id > 0 ? m.md.coded_char_set_id : dump::default_ccsid;
  json_field(s, "data_text", dump::display_text(bytes_view(m.data), dump::display_ccsid(ccsid)));
  s += '}';
  return s;
}

template <class Body>
int guarded(std::string_view program, std::ostream& err, Body body) {
  try {
    return body();
  } catch (const usage_error& e) {
    say(err, msg::IMB1237E,
        std::string(program) + ": " + e.text + ". Run " + std::string(program) + " --help.");
    return exit_error;
  } catch (const std::exception& e) {
    say(err, msg::IMB1241S, std::string(program) + ": internal error: " + e.what());
    return exit_error;
  }
}

int mqput(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err,
          const connector& connect_fn) {
  return guarded("mqput", err, [&] { return mqput_body(args, in, out, err, connect_fn); });
}

int mqget(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
          const connector& connect_fn) {
  return guarded("mqget", err, [&] { return mqget_body(args, out, err, connect_fn); });
}

}  // namespace detail

}  // namespace imsb::qmgr
