#include "imsb/dump/decode.hpp"

#include <initializer_list>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/dump/mq_fields.hpp"
#include "imsb/dump/pcf.hpp"
#include "imsb/mq/bridge_validator.hpp"
#include "imsb/mq/chain.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/layout.hpp"
#include "imsb/mq/mqdlh.hpp"
#include "imsb/mq/mqiih.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/mq/mqxqh.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/otma/sense.hpp"

namespace imsb::dump {
namespace {

using mq::same_format;

std::string describing(std::int32_t enc, std::int32_t ccsid) {
  return "Encoding " + std::to_string(enc) + ", CCSID " + std::to_string(ccsid);
}

node error_node(std::string_view id, const decode_error& e, std::size_t base) {
  node n;
  n.kind = node_kind::error;
  n.id = std::string(id);
  n.name = e.field;
  n.offset = e.offset + base;
  n.value = e.detail;
  if (e.code) n.meaning = e.code.message();
  return n;
}

std::string format_name(std::string_view f) { return std::string(codepage::field_value(f)); }

// Adds to a node's meaning (data nodes may already say how their text is shown).
void add_meaning(node& n, std::string_view more) {
  if (!n.meaning.empty()) n.meaning += "; ";
  n.meaning += more;
}

bool is_bridge_format(std::string_view f) {
  return same_format(f, mq::MQFMT_IMS) || same_format(f, mq::MQFMT_IMS_VAR_STRING);
}
// IBM's format names start with "MQ"; any other non-blank name on a bridge queue is the MFS map
// name of a request without MQIIH [C: BRIDGE-MSGS].
bool is_user_format(std::string_view f) {
  std::string_view v = codepage::field_value(f);
  return !v.empty() && v.substr(0, 2) != "MQ";
}

// --- LLZZ segments -------------------------------------------------------------------------------

node segment_node(std::size_t index, std::size_t offset, std::uint16_t ll, std::uint16_t zz, bytes_view text,
                  std::int32_t ccsid) {
  node s;
  s.kind = node_kind::segment;
  s.name = "segment " + std::to_string(index);
  s.offset = offset;
  s.length = ll;
  s.value = "LL " + std::to_string(ll) + ", ZZ " + hex16(zz);
  s.add(number_node("LL", offset, 2, ll, std::to_string(ll), "segment length, LLZZ included"));
  s.add(number_node("ZZ", offset + 2, 2, zz, hex16(zz), zz == 0 ? "" : "not zero (passed to IMS as found)"));
  s.add(data_node("text", offset + 4, text, ccsid));
  return s;
}

// Shows the segments as far as their lengths hold together, then the rest as bytes: a message the
// validator refuses is still shown segment by segment up to the bad one.
void lenient_segments(node& parent, bytes_view data, std::size_t base, byte_order order, std::int32_t ccsid) {
  std::size_t off = 0;
  std::size_t index = 1;
  while (data.size() - off >= 4) {
    const std::uint16_t ll = load_u16(data.data() + off, order);
    const std::uint16_t zz = load_u16(data.data() + off + 2, order);
    if (ll < 4 || ll > data.size() - off) break;
    parent.add(segment_node(index++, base + off, ll, zz, data.sub(off + 4, ll - 4), ccsid));
    off += ll;
  }
  if (off < data.size()) {
    node rest = data_node("rest", base + off, data.sub(off), ccsid);
    add_meaning(rest, "not a whole LLZZ segment");
    parent.add(std::move(rest));
  }
}

// --- MQ messages ---------------------------------------------------------------------------------

struct bridge_view {
  std::size_t start = 0;  // where the data the bridge validates starts (after MQMD, MQDLH, MQXQH)
  std::string format;
  std::int32_t encoding = 0;
  std::int32_t ccsid = 0;
  // The header whose Format, Encoding and CodedCharSetId the validator calls "MQMD.*": the MQMD,
  // the MQXQH's MsgDesc or the MQDLH; none for data without one (--format, a StrucId at 0).
  const mq::layout* describer = nullptr;
  std::size_t describer_offset = 0;
  std::string describer_name;
};

// The validator counts offsets in the data it is given, which starts at `base` in the input; a
// listing counts them in the input. Every "offset N" of its detail text is moved by `base`, and a
// detail that gives offsets or lengths ("message length") says which bytes the validator saw, so
// that one line never mixes the two bases (IMB4006W).
std::string rebase_detail(const std::string& detail, std::size_t base, std::size_t length) {
  if (base == 0 ||
      (detail.find("offset ") == std::string::npos && detail.find("length") == std::string::npos))
    return detail;
  static constexpr std::string_view marker = "offset ";
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = detail.find(marker); at != std::string::npos; at = detail.find(marker, from)) {
    std::size_t digits = at + marker.size();
    std::size_t end = digits;
    while (end < detail.size() && detail[end] >= '0' && detail[end] <= '9') ++end;
    out.append(detail, from, digits - from);
    from = digits;
    if (end == digits || end - digits > 18) continue;  // not a number we can move
    std::size_t value = 0;
    for (std::size_t k = digits; k < end; ++k) value = value * 10 + static_cast<std::size_t>(detail[k] - '0');
    out += std::to_string(value + base);
    from = end;
  }
  out.append(detail, from, std::string::npos);
  return out + " (the message the bridge checks is the " + std::to_string(length) + " bytes from offset " +
         std::to_string(base) + ")";
}

node request_node(const mq::bridge_request& req, std::size_t offset, std::size_t length) {
  node r = structure_node("IMS request", offset, length);
  r.value = "as the bridge sees it: trancode " + quote_819(req.trancode) + ", " +
            std::to_string(req.segments.size()) + (req.segments.size() == 1 ? " segment" : " segments");
  r.add(field_node("trancode", offset, 0, quote_819(req.trancode),
                   req.is_command ? "an IMS command (starts with /)" : "the transaction code (bytes 5-12)"));
  std::string cm(1, req.commit_mode), ts(1, req.tran_state), ss(1, req.security_scope);
  r.add(field_node("CommitMode", offset, 0, quote_819(cm), describe_commit_mode(req.commit_mode)));
  r.add(field_node("TranState", offset, 0, quote_819(ts), describe_tran_state(req.tran_state)));
  r.add(field_node("SecurityScope", offset, 0, quote_819(ss), describe_security_scope(req.security_scope)));
  r.add(field_node("MFSMapName", offset, 0, quote_819(req.mfs_map_name),
                   req.iih ? "from MQIIH.MFSMapName" : "from the Format (no MQIIH)"));
  r.add(field_node("LTermOverride", offset, 0, quote_819(req.lterm_override),
                   codepage::field_value(req.lterm_override).empty() ? "none: the Tpipe name is used" : ""));
  for (auto& f : r.children) f.offset.reset();  // effective values, not fields at an offset
  r.offset = offset;
  return r;
}

// The data after the last header: IMS segments, checked as the bridge checks them, or bytes.
void data_section(node& root, bytes_view msg, const mq::header_chain& chain, const bridge_view& bv) {
  bytes_view data = msg.sub(chain.data_offset);
  node d = structure_node(
      "data", chain.data_offset, data.size(),
      "Format " + quote_819(chain.data_format) + ", " + describing(chain.data_encoding, chain.data_ccsid));
  const bool after_iih =
      !chain.headers.empty() && std::holds_alternative<mq::mqiih>(chain.headers.back().value);
  d.meaning =
      describe_format(chain.data_format, after_iih ? format_field::iih_format : format_field::message);
  const std::int32_t ccsid = chain.data_ccsid;

  if (is_pcf_format(chain.data_format)) {
    // Events, PCF commands and responses: the MQCFH and its parameters (IMB4930E when they do not decode).
    std::optional<node> pcf_error = add_pcf_nodes(d, data, chain.data_offset, chain.data_encoding, ccsid);
    root.add(std::move(d));
    if (pcf_error) root.add(std::move(*pcf_error));
    return;
  }

  const bool bridge = is_bridge_format(bv.format);
  const bool user = is_user_format(bv.format);
  if (!bridge && !user) {
    if (!data.empty()) d.add(data_node("bytes", chain.data_offset, data, ccsid));
    root.add(std::move(d));
    return;
  }
  if (!encoding_integer_known(bv.encoding)) {
    // LL and ZZ have no byte order: the bridge cannot walk the segments (MQRC_FORMAT_ERROR).
    if (!data.empty()) d.add(data_node("bytes", chain.data_offset, data, ccsid));
    root.add(std::move(d));
    if (bridge) {
      node f;
      f.kind = node_kind::finding;
      f.id = std::string(msg::IMB4006W);
      f.name = "Encoding";
      f.offset = chain.data_offset;
      f.value = "Encoding " + std::to_string(bv.encoding) + " gives no integer byte order for LL and ZZ";
      f.meaning = mq::describe_reason(mq::MQRC_FORMAT_ERROR);
      root.add(std::move(f));
    }
    return;
  }

  auto req = mq::validate_bridge_message(msg.sub(bv.start), bv.format, bv.encoding, bv.ccsid);
  if (req) {
    root.add(request_node(*req, chain.data_offset, data.size()));
    std::size_t index = 1;
    for (const auto& s : req->segments) {
      d.add(segment_node(index++, bv.start + s.offset, s.ll, s.zz, s.text, ccsid));
    }
    root.add(std::move(d));
    return;
  }
  if (user) {
    // A user format need not be IMS data at all: not LLZZ segments is no fault of the message.
    d.meaning += "; not LLZZ segments (" + req.error().detail + ")";
    if (!data.empty()) d.add(data_node("bytes", chain.data_offset, data, ccsid));
    root.add(std::move(d));
    return;
  }
  lenient_segments(d, data, chain.data_offset, integer_order(chain.data_encoding), ccsid);
  root.add(std::move(d));
  node f = error_node(msg::IMB4006W, req.error(), bv.start);
  f.kind = node_kind::finding;
  f.value = rebase_detail(f.value, bv.start, msg.size() - bv.start);
  if (f.name.compare(0, 5, "MQMD.") == 0) {
    // A field of the header that describes the data, not an offset in the data.
    const std::string field = f.name.substr(5);
    const mq::field_desc* fd = bv.describer != nullptr ? mq::find_field(*bv.describer, field) : nullptr;
    if (fd != nullptr) {
      f.name = bv.describer_name + "." + field;
      f.offset = bv.describer_offset + fd->offset;
    } else {
      f.offset.reset();
    }
  }
  root.add(std::move(f));
}

const mq::layout& layout_of(const mq::chain_header& h) {
  if (const auto* md = std::get_if<mq::mqmd>(&h.value)) return mq::mqmd_layout(md->version);
  if (std::holds_alternative<mq::mqdlh>(h.value)) return mq::mqdlh_layout();
  if (std::holds_alternative<mq::mqxqh>(h.value)) return mq::mqxqh_layout();
  return mq::mqiih_layout();
}

// The bridge validates what follows the last MQMD, MQDLH or MQXQH: an MQIIH, or the data. `start`
// is where a walk that has neither began.
bridge_view bridge_start(const mq::header_chain& chain, bridge_view start) {
  for (std::size_t i = chain.headers.size(); i-- > 0;) {
    const mq::chain_header& h = chain.headers[i];
    if (std::holds_alternative<mq::mqiih>(h.value)) continue;
    bridge_view bv;
    bv.start = h.offset + h.length;
    if (i + 1 == chain.headers.size()) {
      bv.format = chain.data_format;
      bv.encoding = chain.data_encoding;
      bv.ccsid = chain.data_ccsid;
    } else {
      const mq::chain_header& iih = chain.headers[i + 1];
      bv.format = std::string(mq::MQFMT_IMS);
      bv.encoding = iih.encoding;
      bv.ccsid = iih.ccsid;
    }
    if (std::holds_alternative<mq::mqxqh>(h.value)) {
      bv.describer = &mq::mqmd_layout(1);
      bv.describer_offset = h.offset + mq::find_field(mq::mqxqh_layout(), "MsgDesc")->offset;
      bv.describer_name = "MQXQH.MsgDesc";
    } else {
      bv.describer = &layout_of(h);
      bv.describer_offset = h.offset;
      bv.describer_name = std::string(h.struc_name);
    }
    return bv;
  }
  return start;
}

// Shows what mq::walk_*_partial decoded: every header, then the data after the last one or — when a
// header did not decode — that header's fields that fit and the error.
void mq_chain(node& root, bytes_view msg, const mq::chain_walk& walk, bridge_view start, std::string& path) {
  const mq::header_chain& chain = walk.chain;
  for (const mq::chain_header& h : chain.headers) {
    node n = mq_header_node(layout_of(h), msg, h.offset, h.encoding, h.ccsid);
    n.value = describing(h.encoding, h.ccsid);
    if (std::holds_alternative<mq::mqmd>(h.value))
      n.value += " (from its StrucId and Version)";
    else
      path += " > " + std::string(h.struc_name);
    root.add(std::move(n));
  }
  if (walk.error) {
    // The chain's data_* describe the header that did not decode.
    if (const mq::layout* l = mq::chain_header_layout(chain.data_format)) {
      node h = mq_header_node(*l, msg, chain.data_offset, chain.data_encoding, chain.data_ccsid);
      h.value = describing(chain.data_encoding, chain.data_ccsid);
      path += " > " + std::string(l->struc_name);
      root.add(std::move(h));
    }
    root.add(error_node(msg::IMB4002E, *walk.error, 0));
    return;
  }
  path += " > data " + quote_819(chain.data_format);
  data_section(root, msg, chain, bridge_start(chain, start));
}

void mq_with_mqmd(node& root, bytes_view msg) {
  const mq::chain_walk walk = mq::walk_message_with_mqmd_partial(msg);
  std::string path = "MQMD";
  if (walk.error && walk.chain.headers.empty()) {
    // The MQMD itself did not decode: its fields that fit, read as its StrucId and Version suggest.
    const mq::header_chain& c = walk.chain;
    std::int32_t version = 1;
    if (msg.size() >= 8) version = load_i32(msg.data() + 4, integer_order(c.data_encoding));
    node h = mq_header_node(mq::mqmd_layout(version), msg, 0, c.data_encoding, c.data_ccsid);
    h.value = describing(c.data_encoding, c.data_ccsid) + " (from its StrucId and Version)";
    root.add(std::move(h));
    root.add(error_node(msg::IMB4002E, *walk.error, 0));
  } else {
    mq_chain(root, msg, walk, {}, path);
  }
  root.value = path;
}

void mq_without_mqmd(node& root, bytes_view msg, const std::string& format, std::int32_t enc, std::int32_t cc,
                     const std::string& how) {
  std::string path = "data without MQMD, " + how;
  std::string padded = codepage::pad_field(format, mq::MQ_FORMAT_LENGTH);
  bridge_view start;  // no header describes the data: the options do
  start.format = padded;
  start.encoding = enc;
  start.ccsid = cc;
  mq_chain(root, msg, mq::walk_chain_partial(msg, padded, enc, cc), start, path);
  root.value = path;
}

// --- OTMA ----------------------------------------------------------------------------------------

// printed_field text is CCSID 819 (names are quoted as they decode); listings are UTF-8.
std::string safe_819(std::string_view s) {
  std::string out;
  for (char ch : s) {
    auto c = static_cast<std::uint8_t>(ch);
    if (c < 0x20 || (c >= 0x7F && c <= 0xA0))
      out += '.';
    else
      out += codepage::latin1_to_utf8(std::string_view(&ch, 1));
  }
  return out;
}

std::string sense_meaning(std::uint16_t sense, std::uint16_t reason) {
  std::string out;
  if (auto s = otma::find_sense(sense)) {
    out = std::string(s->name) + ": " + std::string(s->meaning);
    if (!s->ibm_confirmed) out += " [D] emulator code";
  } else {
    out = "sense code not in the table";
  }
  out += "; as MQ Feedback: " + mq::describe_feedback(otma::feedback_for_nak(sense, reason));
  return out;
}

node otma_field(const otma::printed_field& f, std::string_view strip, bytes_view buffer) {
  std::string name = f.name.substr(strip.size());
  // Long binary fields (UTOKEN, unknown bytes) read better as hex lines than as one long value.
  if (f.length > 24 && f.value.size() == 2 * f.length && f.value.find('\'') == std::string::npos) {
    node d = data_node(name, f.offset, buffer.sub(f.offset, f.length), otma::name_ccsid);
    d.meaning = safe_819(f.note);
    return d;
  }
  node n = field_node(name, f.offset, f.length, safe_819(f.value), safe_819(f.note));
  if (f.value.size() == 2 * f.length && f.value.find_first_not_of("0123456789ABCDEF") == std::string::npos) {
    n.value = "X'" + f.value + "'";  // raw bytes, written as the MQ fields' are
  } else if (auto sp = f.value.find(" (X'"); sp != std::string::npos && sp > 0) {
    // "54 (X'0036')": a number; JSON gets it as a number too.
    const std::string digits = f.value.substr(0, sp);
    if (digits.find_first_not_of("-0123456789") == std::string::npos && digits.size() <= 11)
      n.number = std::stoll(digits);
  }
  return n;
}

std::string otma_field_meaning(const otma::mci& m, const std::string& name) {
  if (name == "architecture_level")
    return m.architecture_level == otma::architecture_level_1 ? "OTMA architecture level 1" : "unknown level";
  if (name == "sense_code" && m.sense_code != 0) return sense_meaning(m.sense_code, m.reason_code);
  if (name == "sense_code") return "no sense code";
  if (name == "reason_code" && m.sense_code != 0 && m.reason_code != 0) {
    if (auto r = otma::find_reason(m.sense_code, m.reason_code)) return std::string(r->meaning);
  }
  if (name == "recoverable_seq") return m.recoverable_seq == 0 ? "not recoverable" : "";
  if (name == "command_type" && !m.is_command()) return "not a protocol command";
  return {};
}

std::string bit_names(std::uint8_t v, std::initializer_list<std::pair<std::uint8_t, std::string_view>> bits) {
  std::string out;
  std::uint8_t named = 0;
  for (const auto& [bit, name] : bits) {
    if ((v & bit) == bit && bit != 0) {
      out += (out.empty() ? "" : " + ") + std::string(name);
      named = static_cast<std::uint8_t>(named | bit);
    }
  }
  if (std::uint8_t rest = static_cast<std::uint8_t>(v & ~named); rest != 0)
    out += (out.empty() ? "" : " + ") + std::string("unknown bits ") + hex8(rest);
  return out;
}

// Meanings of the state-data fields whose values the OTMA layout tables leave unnamed (IBM's state-data
// pages [C: IMS-SD-TXN, IMS-SD-CB, IMS-SD-SS]; the values they do not give are ours, docs/design/otma.md
// [D]).
std::string state_field_meaning(const otma::state_data& sd, const std::string& name) {
  namespace o = otma;
  if (const auto* t = std::get_if<o::transaction_state_data>(&sd)) {
    if (name == "server_state")
      return t->server_state == 0
                 ? "none"
                 : bit_names(t->server_state, {{o::server_state::conversational, "conversational"},
                                               {o::server_state::cm0_dfs2082, "DFS2082 if no reply (CM0)"},
                                               {o::server_state::from_hold_queue, "from hold queue"},
                                               {o::server_state::hold_queue_capable, "hold-queue capable"},
                                               {o::server_state::rerouted, "rerouted"},
                                               {o::server_state::cm1_timeout, "CM1 timeout"},
                                               {o::server_state::transaction_expired, "expired"}});
    if (name == "sync_flags") {
      std::string cm = t->commit_mode_bits() == o::sync_flags::commit_then_send   ? "commit-then-send (CM0)"
                       : t->commit_mode_bits() == o::sync_flags::send_then_commit ? "send-then-commit (CM1)"
                                                                                  : "commit mode not set";
      const char* levels[] = {"sync level NONE", "sync level CONFIRM", "sync level SYNCPT",
                              "sync level X'03'"};
      return cm + ", " + levels[t->sync_level()];
    }
    if (name == "txn_flags")
      return t->txn_flags == 0
                 ? "none"
                 : bit_names(t->txn_flags, {{o::txn_flags::ignore_purg, "ignore PURG (MQIIH_IGNORE_PURG)"},
                                            {o::txn_flags::pass_expiration, "pass expiration"}});
    if (name == "route_flags")
      return t->route_flags == 0
                 ? "none"
                 : bit_names(t->route_flags,
                             {{o::route_flags::reroute_request, "reroute request"},
                              {o::route_flags::purge_not_deliverable, "purge if not deliverable"}});
    if (name == "cm1_timeout") return t->cm1_timeout == 0 ? "server default" : "seconds";
    if (name == "expiration") return t->expiration == -1 ? "none" : "tenths of a second left";
    if (name == "lterm_override") return t->lterm_override.value().empty() ? "none" : "";
    if (name == "modname") return t->modname.value().empty() ? "none" : "MFS map name";
  } else if (const auto* c = std::get_if<o::client_bid_state_data>(&sd)) {
    if (name == "flags")
      return c->flags == 0
                 ? "none"
                 : bit_names(c->flags,
                             {{o::client_bid_flags::hold_queue, "hold queue"},
                              {o::client_bid_flags::otma_ci, "OTMA C/I"},
                              {o::client_bid_flags::ims_connect, "IMS Connect"},
                              {o::client_bid_flags::ibm_mq, "IBM MQ"},
                              {o::client_bid_flags::sync_program_switch, "synchronous program switch"}});
    if (name == "flags2")
      return c->flags2 == 0
                 ? "none"
                 : bit_names(c->flags2, {{o::client_bid_flags2::tib_limit, "TIB limit given"},
                                         {o::client_bid_flags2::cm1_timeout, "CM1 timeout given"},
                                         {o::client_bid_flags2::rrs_cascade, "RRS cascaded transactions"},
                                         {o::client_bid_flags2::super_member, "super member"}});
    if (name == "acee_aging") return "seconds";
  } else if (const auto* st = std::get_if<o::server_state_data>(&sd)) {
    if (name == "status")
      return st->status == o::server_status::normal     ? "normal"
             : st->status == o::server_status::degraded ? "degraded: IMS is processing OTMA messages slowly"
             : st->status == o::server_status::unavailable ? "unavailable: IMS accepts no OTMA transactions"
                                                           : "unknown status";
  }
  return {};
}

// The MQMD inside our MQ user data [D] (docs/design/otma.md): decoded as component mq decodes an
// MQMD found in bytes.
void mq_user_data_nodes(node& us, bytes_view buffer, std::size_t section_offset) {
  const std::size_t md_offset = section_offset + 8;
  const bytes_view md_bytes = buffer.sub(md_offset, otma::mqmd_v1_size);
  auto how = mq::detect_header_encoding(md_bytes, mq::MQMD_STRUC_ID);
  if (!how) {
    // A StrucId that is not "MD  " is taken for the EBCDIC one our layout puts there [D], its Version
    // still giving the byte order.
    std::uint8_t start[8] = {0xD4, 0xC4, 0x40, 0x40, 0, 0, 0, 0};  // "MD  " in EBCDIC, then Version
    const bytes_view version = md_bytes.sub(4, 4);
    for (std::size_t i = 0; i < version.size(); ++i) start[4 + i] = version[i];
    how = mq::detect_header_encoding(bytes_view(start, sizeof start), mq::MQMD_STRUC_ID);
  }
  // Too short or a Version that is neither 1 nor 2 in either byte order: z/OS's 785 and 037 [D].
  const std::int32_t enc = how ? how->encoding : 785;
  const std::int32_t cc = how ? how->ccsid : 37;
  for (auto& c : us.children) {
    if (c.name == "mq.mqmd") {
      node md = mq_header_node(mq::mqmd_layout(1), buffer, md_offset, enc, cc);
      md.name = "mq.mqmd";
      md.value = "the request's MQMD, " + describing(enc, cc);
      c = std::move(md);
    } else if (c.name == "mq.reply_to_format") {
      const std::string text = codepage::get_field(buffer.sub(section_offset + 332, 8), cc);
      c.value = quote_819(text);
      c.meaning = "MQIIH.ReplyToFormat: " + describe_format(text, format_field::iih_reply_to_format);
    } else if (c.name == "mq.iih_flags") {
      c.meaning = "MQIIH.Flags: " + describe_iih_flags(static_cast<std::int32_t>(
                                        load_u32(buffer.data() + c.offset.value_or(0), byte_order::big)));
    } else if (c.name == "mq.eyecatcher") {
      c.meaning = "'MQUD' in EBCDIC: the bridge's user data layout [D]";
    }
  }
}

void otma_message_nodes(node& root, bytes_view buffer, const otma::otma_message& m, std::int32_t ccsid) {
  std::vector<otma::printed_field> fields;
  otma::layout::print(otma::mci_layout, m.mci, "mci.", 0, fields);
  for (auto& f : otma::describe(m))
    if (f.name.compare(0, 4, "mci.") != 0) fields.push_back(std::move(f));

  node mci = structure_node("OTMA MCI", 0, otma::mci_size, "message-control information");
  std::size_t pos = otma::mci_size;
  node sd, se, us;
  if (m.state) {
    std::size_t size = otma::encoded_size(*m.state);
    sd = structure_node("OTMA state data", pos, size, std::string(otma::to_string(otma::kind_of(*m.state))));
    pos += size;
  }
  if (m.security) {
    se = structure_node("OTMA security data", pos, m.security->encoded_size());
    pos += m.security->encoded_size();
  }
  std::size_t user_offset = pos;
  if (m.user) {
    us = structure_node("OTMA user data", pos, m.user->encoded_size());
    pos += m.user->encoded_size();
  }
  const std::string sd_prefix =
      m.state ? "state_data." + std::string(otma::to_string(otma::kind_of(*m.state))) + "." : std::string();
  for (const auto& f : fields) {
    if (f.name.compare(0, 4, "mci.") == 0) {
      node n = otma_field(f, "mci.", buffer);
      std::string extra = otma_field_meaning(m.mci, n.name);
      if (!extra.empty()) n.meaning = n.meaning.empty() ? extra : n.meaning + "; " + extra;
      mci.add(std::move(n));
    } else if (m.state && f.name.compare(0, sd_prefix.size(), sd_prefix) == 0) {
      node n = otma_field(f, sd_prefix, buffer);
      std::string extra = state_field_meaning(*m.state, n.name);
      if (!extra.empty() && n.meaning.find(extra) == std::string::npos)
        n.meaning =
            n.meaning.empty() || n.meaning.compare(0, 2, "X'") == 0 ? extra : n.meaning + "; " + extra;
      sd.add(std::move(n));
    } else if (f.name.compare(0, 11, "state_data.") == 0) {
      sd.add(otma_field(f, "state_data.", buffer));
    } else if (f.name.compare(0, 14, "security_data.") == 0) {
      se.add(otma_field(f, "security_data.", buffer));
    } else if (f.name.compare(0, 10, "user_data.") == 0) {
      us.add(otma_field(f, "user_data.", buffer));
    }
  }
  root.add(std::move(mci));
  if (m.state) root.add(std::move(sd));
  if (m.security) root.add(std::move(se));
  if (m.user) {
    if (otma::decode_mq_user_data(*m.user, user_offset)) {
      us.value = "the bridge's MQ layout [D]";
      mq_user_data_nodes(us, buffer, user_offset);
    } else {
      us.value = "not the bridge's MQ layout: shown as bytes";
      for (auto& c : us.children)
        if (c.name == "body") c = data_node("body", user_offset + 2, m.user->body, ccsid);
    }
    root.add(std::move(us));
  }
  if (m.application) {
    node ap = structure_node("OTMA application data", pos, buffer.size() - pos);
    const std::size_t count = m.application->segments.size();
    ap.value = std::to_string(count) + (count == 1 ? " segment" : " segments") + ", LL big-endian";
    std::size_t index = 1;
    for (const auto& s : m.application->segments) {
      ap.add(segment_node(index++, pos, static_cast<std::uint16_t>(s.encoded_size()), s.zz, s.data, ccsid));
      pos += s.encoded_size();
    }
    root.add(std::move(ap));
  } else if (!m.trailer.empty()) {
    node t = data_node("trailer", pos, m.trailer, ccsid);
    add_meaning(t, "bytes after the last section (zero padding in IBM's SRVresynch sample)");
    root.add(std::move(t));
  }
}

// The sections that decode before the one decode_message refused, so that the document shows them.
otma::otma_message otma_partial(bytes_view buffer, std::size_t error_offset) {
  otma::otma_message m;
  otma::layout::decode(otma::mci_layout, buffer.data(), m.mci);
  std::size_t pos = otma::mci_size;
  auto section = [&](std::uint8_t flag) -> bytes_view {
    if (!m.mci.has(flag) || buffer.size() - pos < 2) return {};
    std::size_t ll = load_u16(buffer.data() + pos, byte_order::big);
    if (ll < 2 || ll > buffer.size() - pos || pos + ll > error_offset) return {};
    return buffer.sub(pos, ll);
  };
  if (m.mci.has(otma::prefix::state_data)) {
    bytes_view s = section(otma::prefix::state_data);
    auto sd = otma::decode_state_data(s, otma::state_data_kind_for(m.mci), pos);
    if (s.empty() || !sd) return m;
    m.state = std::move(sd).value();
    pos += s.size();
  }
  if (m.mci.has(otma::prefix::security_data)) {
    bytes_view s = section(otma::prefix::security_data);
    if (s.size() < otma::security_header_size) return m;
    auto se = otma::decode_security_data(s, pos);
    if (!se) return m;
    m.security = std::move(se).value();
    pos += s.size();
  }
  if (m.mci.has(otma::prefix::user_data)) {
    bytes_view s = section(otma::prefix::user_data);
    auto us = otma::decode_user_data(s, pos);
    if (s.empty() || !us) return m;
    m.user = std::move(us).value();
  }
  return m;
}

void otma_document(node& root, bytes_view buffer, std::int32_t ccsid) {
  root.name = "OTMA message";
  auto r = otma::decode_message(buffer);
  if (r) {
    otma_message_nodes(root, buffer, *r, ccsid);
    const otma::mci& m = r->mci;
    std::string what =
        otma::layout::name_flags(m.message_type, otma::layout::names_of(otma::mci_names::message_type));
    if (m.is_command()) what += " " + std::string(otma::command_name(m.command_type));
    root.value = what.empty() ? "message type X'00'" : what;
    if (m.is_ack()) root.meaning = "ACK";
    if (m.is_nak())
      root.meaning =
          "NAK " + otma::sense_hex(m.sense_code) + ": " + sense_meaning(m.sense_code, m.reason_code);
    return;
  }
  if (buffer.size() >= otma::mci_size) {
    otma_message_nodes(root, buffer.sub(0, r.error().offset), otma_partial(buffer, r.error().offset), ccsid);
  }
  root.add(error_node(msg::IMB4002E, r.error(), 0));
  root.value = "stopped at " + r.error().field;
}

// Why bytes that start with X'01' (the OTMA architecture level) are not taken for OTMA when nothing
// says they are [D]; empty when they are. Little-endian PCF (MQCFH Type 1), a number or plain text
// can start with X'01' too, so the MCI must be plausible — message-type bits OTMA defines and no
// prefix-flag bit it does not ([C: IMS-MCI]; prefix-flag bits [I: IMS-SAMPLE]) — and the whole buffer
// must decode.
std::string not_otma(bytes_view input) {
  otma::mci m;
  otma::layout::decode(otma::mci_layout, input.data(), m);
  namespace t = otma::msg_type;
  constexpr std::uint8_t known_types =
      t::data | t::transaction | t::response | t::command | t::commit_confirmation | t::sync_program_switch;
  if (m.message_type == 0 || (m.message_type & ~known_types) != 0)
    return "MCI message type " + hex8(m.message_type) + " is no OTMA message type";
  if ((m.prefix_flags & ~otma::prefix::sections_mask) != 0)
    return "MCI prefix flags " + hex8(m.prefix_flags) + " have bits OTMA does not define";
  auto r = otma::decode_message(input);
  if (!r)
    return "it does not decode as OTMA: " + r.error().field + " at offset " +
           std::to_string(r.error().offset) + ": " + r.error().detail;
  return {};
}

// The StrucId of the header `format` starts with, or empty when the format names no header.
std::string_view struc_id_of(std::string_view format) {
  if (same_format(format, mq::MQFMT_IMS)) return mq::MQIIH_STRUC_ID;
  if (same_format(format, mq::MQFMT_DEAD_LETTER_HEADER)) return mq::MQDLH_STRUC_ID;
  if (same_format(format, mq::MQFMT_XMIT_Q_HEADER)) return mq::MQXQH_STRUC_ID;
  return {};
}

}  // namespace

const node* dump_result::error() const {
  for (const auto& c : document.children)
    if (c.kind == node_kind::error) return &c;
  return nullptr;
}

const node* dump_result::finding() const {
  for (const auto& c : document.children)
    if (c.kind == node_kind::finding) return &c;
  return nullptr;
}

dump_result dump_message(bytes_view input, const options& opts) {
  dump_result out;
  node& root = out.document;
  root.kind = node_kind::document;
  root.name = "MQ message";
  root.length = input.size();
  root.offset = 0;
  if (input.empty()) {
    node e;
    e.kind = node_kind::error;
    e.id = std::string(msg::IMB4007E);
    e.name = "input";
    e.value = "no bytes to decode";
    root.add(std::move(e));
    return out;
  }
  const std::int32_t enc = opts.encoding.value_or(default_encoding);
  const std::int32_t cc = opts.ccsid.value_or(default_ccsid);
  if (opts.otma) {
    otma_document(root, input, opts.ccsid.value_or(codepage::ccsid_037));
    return out;
  }
  if (mq::detect_header_encoding(input, mq::MQMD_STRUC_ID)) {
    mq_with_mqmd(root, input);
    return out;
  }
  if (opts.format) {
    // Without --ccsid an EBCDIC StrucId means EBCDIC data: 037, as the header decoders choose for the
    // header's own fields (mq chars_ccsid, [C: WIRESHARK]).
    std::int32_t c = cc;
    const std::string_view id = struc_id_of(codepage::pad_field(*opts.format, mq::MQ_FORMAT_LENGTH));
    if (!opts.ccsid && !id.empty()) {
      if (auto how = mq::detect_header_encoding(input, id)) c = how->ccsid;
    }
    mq_without_mqmd(root, input, *opts.format, enc, c, "--format " + *opts.format);
    return out;
  }
  static constexpr std::pair<std::string_view, std::string_view> chain_starts[] = {
      {mq::MQDLH_STRUC_ID, mq::MQFMT_DEAD_LETTER_HEADER},
      {mq::MQXQH_STRUC_ID, mq::MQFMT_XMIT_Q_HEADER},
      {mq::MQIIH_STRUC_ID, mq::MQFMT_IMS}};
  for (const auto& [struc_id, format] : chain_starts) {
    if (auto how = mq::detect_header_encoding(input, struc_id)) {
      const std::int32_t e = opts.encoding.value_or(how->encoding);
      const std::int32_t c = opts.ccsid.value_or(how->ccsid);
      mq_without_mqmd(root, input, std::string(format), e, c,
                      "starts with " + format_name(format) + "'s header");
      return out;
    }
  }
  std::string why_not_otma;
  if (input[0] == otma::architecture_level_1 && input.size() >= otma::mci_size) {
    why_not_otma = not_otma(input);
    if (why_not_otma.empty()) {
      otma_document(root, input, opts.ccsid.value_or(codepage::ccsid_037));
      return out;
    }
    why_not_otma = " (byte 0 is X'01' but " + why_not_otma + "; --otma decodes it as OTMA)";
  }
  root.name = "data";
  root.value =
      "no MQMD, no MQ header and not OTMA" + why_not_otma + ": shown as bytes, CCSID " + std::to_string(cc);
  root.add(data_node("bytes", 0, input, cc));
  return out;
}

}  // namespace imsb::dump
