// The state queue through an mqi::connection (state_store.hpp; docs/design/state-queue.md [D]): one
// persistent message per record, keyed by CorrelId, changed only inside the caller's unit of work.

#include "imsb/bridge/state_store.hpp"

#include <string_view>
#include <utility>

#include "imsb/core/messages.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/mqi/admin.hpp"

namespace imsb::bridge {
namespace {

// [D] the Format of a state record: not a built-in format, so no queue manager converts it.
constexpr std::string_view state_format = "IMSBST  ";
const std::string queue_name(bridgemap::state_queue_name);

bool is_mqrc(const decode_error& e, std::int32_t rc) { return e.code == mq::make_mqrc(rc); }

// The connection's error with the queue's name and our message ID in front, so the line the engine
// prints says which queue and what for.
decode_error unusable(decode_error e, const std::string& doing) {
  e.detail = std::string(imsb::msg::IMB2120E) + " state queue " + queue_name + " unusable (" + doing +
             "): " + e.detail;
  return e;
}

std::string hex_of(const std::uint8_t* p, std::size_t n) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string s;
  s.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    s.push_back(digits[p[i] >> 4]);
    s.push_back(digits[p[i] & 0x0F]);
  }
  return s;
}

}  // namespace

state_store::~state_store() {
  // Nothing to report to: a close that fails (the connection broke) leaves nothing to clean up, the
  // queue manager closes a broken connection's handles itself.
  if (open_) (void)conn_.close(handle_);
}

result<mqi::done> state_store::open(bool define_if_missing) {
  if (open_) return mqi::done{};
  const std::int32_t options =
      mq::MQOO_INPUT_SHARED | mq::MQOO_BROWSE | mq::MQOO_OUTPUT | mq::MQOO_FAIL_IF_QUIESCING;
  auto h = conn_.open(mqi::object_descriptor{queue_name, ""}, options);
  if (!h && define_if_missing && is_mqrc(h.error(), mq::MQRC_UNKNOWN_OBJECT_NAME)) {
    // Where our user may define queues (state_store.hpp). Another connection may define it at the same
    // moment: its DEFINE then fails here, and the second open below tells whether the queue is there.
    auto defined =
        mqi::administration_over(conn_)->mqsc("DEFINE QLOCAL(" + queue_name +
                                              ") DEFPSIST(YES) MAXDEPTH(999999999) "
                                              "DESCR('MQ-IMS bridge state records (imsbridge)')\n");
    h = conn_.open(mqi::object_descriptor{queue_name, ""}, options);
    if (!h && !defined) return unusable(defined.error(), "DEFINE QLOCAL");
    if (!h && defined) {
      std::string lines;
      for (const auto& l : defined->lines) lines += (lines.empty() ? "" : " | ") + l;
      auto e = h.error();
      e.detail += "; DEFINE QLOCAL answered: " + lines;
      return unusable(std::move(e), "MQOPEN after DEFINE");
    }
  }
  if (!h) return unusable(h.error(), "MQOPEN");
  handle_ = h->handle;
  open_ = true;
  return mqi::done{};
}

result<std::vector<bridgemap::state_record>> state_store::load_all() {
  if (!open_) {
    decode_error e;
    e.code = mq::make_mqrc(mq::MQRC_HOBJ_ERROR);
    e.field = "MQGET";
    e.detail = "not opened";
    return unusable(std::move(e), "browse");
  }
  bad_ = 0;
  std::vector<bridgemap::state_record> out;
  mqi::get_request req;
  req.match_options = mq::MQMO_NONE;
  req.options = mq::MQGMO_BROWSE_FIRST | mq::MQGMO_NO_WAIT | mq::MQGMO_NO_SYNCPOINT;
  for (;;) {
    auto m = conn_.get(handle_, req);
    if (!m) {
      if (is_mqrc(m.error(), mq::MQRC_NO_MSG_AVAILABLE)) break;
      return unusable(m.error(), "browse");
    }
    req.options = mq::MQGMO_BROWSE_NEXT | mq::MQGMO_NO_WAIT | mq::MQGMO_NO_SYNCPOINT;
    std::string why;
    if (m->md.format != state_format) {
      why = "Format \"" + m->md.format + "\", not \"" + std::string(state_format) + "\"";
    } else if (auto r = bridgemap::decode_record(bytes_view(m->data)); !r) {
      why = r.error().to_string();
    } else if (bridgemap::key_of(*r) != m->md.correl_id) {
      why = "CorrelId is not the record's key";
    } else {
      out.push_back(std::move(r).value());
      continue;
    }
    // Not ours to delete (state_store.hpp): someone put it there, or a newer bridge wrote it.
    ++bad_;
    if (console_)
      console_(std::string(imsb::msg::IMB2121W) + " state queue " + queue_name + ": message " +
               hex_of(m->md.msg_id.data(), 24) + " skipped: " + why);
  }
  return out;
}

result<mqi::done> state_store::put(const bridgemap::state_record& r) {
  const auto key = bridgemap::key_of(r);
  if (auto removed = remove(key); !removed) return removed.error();
  mq::mqmd md;
  md.persistence = mq::MQPER_PERSISTENT;
  md.format = std::string(state_format);
  md.correl_id = key;
  const bytes body = bridgemap::encode_record(r);
  auto p = conn_.put(handle_, md, bytes_view(body), mq::MQPMO_SYNCPOINT | mq::MQPMO_FAIL_IF_QUIESCING);
  if (!p) return unusable(p.error(), "MQPUT");
  return mqi::done{};
}

result<mqi::done> state_store::remove(const bridgemap::correl24& key) {
  if (!open_) {
    decode_error e;
    e.code = mq::make_mqrc(mq::MQRC_HOBJ_ERROR);
    e.field = "MQGET";
    e.detail = "not opened";
    return unusable(std::move(e), "MQGET");
  }
  mqi::get_request req;
  req.options = mq::MQGMO_SYNCPOINT | mq::MQGMO_NO_WAIT | mq::MQGMO_FAIL_IF_QUIESCING;
  req.match_options = mq::MQMO_MATCH_CORREL_ID;
  req.correl_id = key;
  // The body is not needed; any length is accepted so a bad record with this key goes too.
  auto m = conn_.get(handle_, req);
  if (!m && !is_mqrc(m.error(), mq::MQRC_NO_MSG_AVAILABLE)) return unusable(m.error(), "MQGET");
  return mqi::done{};
}

}  // namespace imsb::bridge
