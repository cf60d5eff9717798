#include "imsb/dump/explain.hpp"

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "imsb/core/messages.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/otma/sense.hpp"

// otma keeps its own copies of the IMS feedback bounds so that it does not depend on mq (sense.hpp);
// dump links both, so the copies are held to mq's constants here [C: CMQC-PY, IMS-FB-CODES].
static_assert(imsb::otma::feedback::ims_error == imsb::mq::MQFB_IMS_ERROR);
static_assert(imsb::otma::feedback::ims_first == imsb::mq::MQFB_IMS_FIRST);
static_assert(imsb::otma::feedback::ims_last == imsb::mq::MQFB_IMS_LAST);
static_assert(imsb::otma::feedback::ims_nack_1a_reason_first == imsb::mq::MQFB_IMS_NACK_1A_REASON_FIRST);
static_assert(imsb::otma::feedback::ims_nack_1a_reason_last == imsb::mq::MQFB_IMS_NACK_1A_REASON_LAST);

namespace imsb::dump {
namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == '=' || c == ':') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

// Digits only, no sign, at most 10 of them: never overflows.
std::optional<std::int64_t> parse_digits(std::string_view s, int base) {
  if (s.empty() || s.size() > (base == 16 ? 8u : 10u)) return std::nullopt;
  std::int64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (base == 16 && c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else if (base == 16 && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else
      return std::nullopt;
    v = v * base + d;
  }
  return v;
}

// 0x1A, X'1A' (x'1a'), or nothing when `s` is not written as hex.
std::optional<std::int64_t> parse_hex_form(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return parse_digits(s.substr(2), 16);
  if (s.size() > 3 && (s[0] == 'X' || s[0] == 'x') && s[1] == '\'' && s.back() == '\'')
    return parse_digits(s.substr(2, s.size() - 3), 16);
  return std::nullopt;
}

// Sense and reason codes are hex as IMS writes them, with or without 0x / X'' [D].
std::optional<std::int64_t> parse_sense_number(std::string_view s) {
  if (auto v = parse_hex_form(s)) return v;
  return parse_digits(s, 16);
}

std::string hex_of(std::int64_t v) { return hex32(static_cast<std::uint32_t>(v)); }

node info_field(std::string name, std::string value, std::string meaning = {}) {
  node n;
  n.kind = node_kind::field;
  n.name = std::move(name);
  n.value = std::move(value);
  n.meaning = std::move(meaning);
  return n;
}

node structure(std::string name, std::string value, std::string meaning = {}) {
  node n;
  n.kind = node_kind::structure;
  n.name = std::move(name);
  n.value = std::move(value);
  n.meaning = std::move(meaning);
  return n;
}

node code_node(std::string_view what, const mq::code_info& c) {
  node n = structure(std::string(what), std::to_string(c.value) + " (" + hex_of(c.value) + ")",
                     std::string(c.name) + ": " + std::string(c.meaning));
  n.number = c.value;
  return n;
}

std::string sense_label(std::uint16_t sense) {
  return otma::sense_hex(sense) + " (" + std::to_string(sense) + ")";
}

// The OTMA NAK a feedback in the IMS ranges stands for [C: IMS-FB-CODES].
void add_nak_of_feedback(node& fb, std::int32_t value) {
  auto nak = otma::nak_for_feedback(value);
  if (!nak) return;
  const auto [sense, reason] = *nak;
  auto s = otma::find_sense(sense);
  fb.add(info_field("sense", sense_label(sense),
                    s ? std::string(s->name) + ": " + std::string(s->meaning)
                      : "not in mqdump's sense table (IBM's full table is not public)"));
  if (sense == otma::sense::rejected_see_reason) {
    auto r = otma::find_reason(sense, reason);
    fb.add(info_field(
        "reason", hex16(reason) + " (" + std::to_string(reason) + ")",
        r ? std::string(r->name) + ": " + std::string(r->meaning) : "reason code of NAK sense X'001A'"));
    fb.add(info_field("rule", "Feedback = 600 + reason", "sense X'001A' is reported by its reason code"));
  } else {
    fb.add(info_field("rule", "Feedback = 300 + sense",
                      "the sense code converted from hex to decimal, plus 300"));
  }
}

node feedback_node(std::int32_t value) {
  node n;
  if (const mq::code_info* c = mq::find_mqfb(value))
    n = code_node("MQFB", *c);
  else
    n = structure("MQFB", std::to_string(value) + " (" + hex_of(value) + ")");
  n.number = value;
  n.meaning = mq::describe_feedback(value);
  add_nak_of_feedback(n, value);
  if (value == mq::MQFB_IMS_ERROR + otma::sense::rejected_see_reason) {
    // [C: TECHNOTE-326]: IBM shows 326 in an MQDLH, although IBM's feedback rule [C: IMS-FB-CODES]
    // reports sense X'1A' as 600 + reason.
    n.add(
        info_field("note", "sense X'001A'",
                   "normally reported as 600 + the reason code; an IBM technote shows 326 in MQDLH.Reason"));
  }
  if ((value >= mq::MQFB_DATA_LENGTH_ZERO && value <= mq::MQFB_IMS_LAST) ||
      (value >= mq::MQFB_IMS_NACK_1A_REASON_FIRST && value <= mq::MQFB_IMS_NACK_1A_REASON_LAST))
    n.add(info_field("where", "set by the IMS bridge",
                     "MQDLH.Reason of the dead-lettered request, and the Feedback of an exception report"));
  return n;
}

bool feedback_known(std::int32_t value) {
  return mq::find_mqfb(value) != nullptr || (value >= mq::MQFB_IMS_FIRST && value <= mq::MQFB_IMS_LAST) ||
         (value >= mq::MQFB_IMS_NACK_1A_REASON_FIRST && value <= mq::MQFB_IMS_NACK_1A_REASON_LAST);
}

node sense_node(std::uint16_t sense, std::optional<std::uint16_t> reason) {
  auto s = otma::find_sense(sense);
  node n = structure("OTMA sense", sense_label(sense),
                     s ? std::string(s->name) + ": " + std::string(s->meaning)
                       : "not in mqdump's sense table (IBM's full table is not public)");
  n.number = sense;
  if (s)
    n.add(info_field("evidence", std::string(s->source), s->ibm_confirmed ? "" : "emulator code, not IBM's"));
  const std::uint16_t r = reason.value_or(0);
  if (reason) {
    auto ri = otma::find_reason(sense, r);
    n.add(info_field("reason", hex16(r) + " (" + std::to_string(r) + ")",
                     ri ? std::string(ri->name) + ": " + std::string(ri->meaning) : ""));
  }
  const std::int32_t fb = otma::feedback_for_nak(sense, r);
  node f = info_field("feedback", std::to_string(fb), mq::describe_feedback(fb));
  f.number = fb;
  n.add(std::move(f));
  if (sense == otma::sense::rejected_see_reason && !reason)
    n.add(info_field("note", "give the reason too", "sense X'001A' is reported as 600 + the reason code"));
  n.add(info_field("where", "set by the IMS bridge",
                   "MQDLH.Reason of the dead-lettered request, and the Feedback of an exception report"));
  return n;
}

std::string kind_of_code(std::string_view what) {
  if (what == "MQRC") return "an MQ reason code (MQRC), returned by MQI calls";
  if (what == "MQFB") return "an MQ feedback code (MQFB), in MQMD.Feedback or MQDLH.Reason";
  return "an OTMA NAK sense code, sent by IMS";
}

node unknown(std::string_view code, std::string detail) {
  node e;
  e.kind = node_kind::error;
  e.id = std::string(msg::IMB4005E);
  e.name = std::string(code);
  e.value = std::move(detail);
  return e;
}

// Name forms: MQRC_*, MQFB_*, OTMA_SENSE_*, OTMA_REASON_*, and NAME+N as describe_feedback prints
// ("MQFB_IMS_ERROR+26").
bool explain_name(const std::string& name, node& root) {
  std::string base = name;
  std::int64_t plus = 0;
  if (auto p = name.find('+'); p != std::string::npos) {
    auto n = parse_digits(name.substr(p + 1), 10);
    if (!n) return false;
    base = name.substr(0, p);
    plus = *n;
  }
  if (const mq::code_info* c = mq::find_mqrc(base); c && plus == 0) {
    root.add(code_node("MQRC", *c));
    return true;
  }
  if (const mq::code_info* c = mq::find_mqfb(base)) {
    const std::int64_t v = c->value + plus;
    if (v > INT32_MAX) return false;
    root.add(feedback_node(static_cast<std::int32_t>(v)));
    return plus == 0 || feedback_known(static_cast<std::int32_t>(v));
  }
  if (plus != 0) return false;
  if (auto s = otma::find_sense(std::string_view(base))) {
    root.add(sense_node(s->code, std::nullopt));
    return true;
  }
  if (auto r = otma::find_reason(std::string_view(base))) {
    root.add(sense_node(r->sense, r->reason));
    return true;
  }
  return false;
}

// A number: every table it is a value of.
bool explain_number(std::int64_t v, bool hex_written, node& root) {
  bool any = false;
  if (v <= INT32_MAX) {
    const auto n = static_cast<std::int32_t>(v);
    if (const mq::code_info* c = mq::find_mqrc(n)) {
      root.add(code_node("MQRC", *c));
      any = true;
    }
    if (feedback_known(n)) {
      root.add(feedback_node(n));
      any = true;
    }
  }
  // Hex is how sense codes are written: 0x30 is also sense X'0030'.
  if (hex_written && v >= 0 && v <= 0xFFFF && otma::find_sense(static_cast<std::uint16_t>(v))) {
    root.add(sense_node(static_cast<std::uint16_t>(v), std::nullopt));
    any = true;
  }
  return any;
}

}  // namespace

explanation explain_code(std::string_view code) {
  explanation ex;
  node& root = ex.document;
  root.kind = node_kind::document;
  root.name = "explain";
  const std::vector<std::string> w = words(code);
  std::string joined;
  for (const auto& s : w) joined += (joined.empty() ? "" : " ") + s;
  root.value = joined;
  if (w.empty()) {
    root.add(unknown("code", "no code given"));
    return ex;
  }

  const std::string first = upper(w[0]);
  if (first == "SENSE") {
    // sense S [reason R]
    std::optional<std::int64_t> sense, reason;
    bool bad = w.size() != 2 && w.size() != 4;
    if (w.size() >= 2) sense = parse_sense_number(w[1]);
    if (w.size() == 4) {
      bad = bad || upper(w[2]) != "REASON";
      reason = parse_sense_number(w[3]);
      bad = bad || !reason || *reason > 0xFFFF;
    }
    if (bad || !sense || *sense > 0xFFFF) {
      root.add(
          unknown(joined, "write sense S or sense S reason R, in hex (sense 0x1A reason 0x27, sense X'30')"));
      return ex;
    }
    root.meaning = kind_of_code("OTMA sense");
    root.add(sense_node(
        static_cast<std::uint16_t>(*sense),
        reason ? std::optional<std::uint16_t>(static_cast<std::uint16_t>(*reason)) : std::nullopt));
    ex.known = otma::find_sense(static_cast<std::uint16_t>(*sense)).has_value();
    if (!ex.known)
      root.add(unknown(otma::sense_hex(static_cast<std::uint16_t>(*sense)),
                       "not a sense code mqdump knows; the feedback above follows IBM's rule"));
    return ex;
  }
  if (w.size() != 1) {
    root.add(unknown(joined, "one code at a time (or: sense S reason R)"));
    return ex;
  }

  const std::string& c = w[0];
  if (auto v = parse_hex_form(c)) {
    ex.known = explain_number(*v, true, root);
  } else if (auto d = parse_digits(c, 10)) {
    ex.known = explain_number(*d, false, root);
  } else if (c.size() > 1 && c[0] == '-' && parse_digits(c.substr(1), 10)) {
    ex.known = false;  // no MQRC, MQFB or sense code is negative
  } else {
    ex.known = explain_name(upper(c), root);
  }
  if (root.children.size() > 1) {
    std::string kinds;
    for (const auto& k : root.children) kinds += (kinds.empty() ? "" : ", ") + k.name;
    root.meaning = "more than one meaning: " + kinds;
  } else if (root.children.size() == 1) {
    root.meaning = kind_of_code(root.children.front().name);
  }
  if (!ex.known) {
    root.children.clear();
    root.meaning.clear();
    root.add(unknown(c, "not an MQRC or MQFB value or name, nor an OTMA sense code, that mqdump knows"));
  }
  return ex;
}

}  // namespace imsb::dump
