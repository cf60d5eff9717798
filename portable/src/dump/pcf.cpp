#include "imsb/dump/pcf.hpp"

#include <string>
#include <utility>
#include <vector>

#include "imsb/core/messages.hpp"
#include "imsb/dump/mq_fields.hpp"
#include "imsb/mq/chain.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/pcf.hpp"

namespace imsb::dump {
namespace {

std::string comp_code_meaning(std::int32_t cc) {
  switch (cc) {
    case mq::MQCC_OK:
      return "MQCC_OK";
    case mq::MQCC_WARNING:
      return "MQCC_WARNING";
    case mq::MQCC_FAILED:
      return "MQCC_FAILED";
    default:
      return {};
  }
}

std::string control_meaning(std::int32_t c) {
  if (c == mq::MQCFC_LAST) return "MQCFC_LAST: the last (or only) message of the set";
  if (c == mq::MQCFC_NOT_LAST) return "MQCFC_NOT_LAST: more messages of the set follow";
  return {};
}

// The MQCFH fields that fit in `data` (nine MQLONGs) [C] IBM's cmqcfc.h.
node cfh_node(bytes_view data, std::size_t base, byte_order o) {
  static constexpr std::string_view names[] = {"Type",     "StrucLength",  "Version",
                                               "Command",  "MsgSeqNumber", "Control",
                                               "CompCode", "Reason",       "ParameterCount"};
  node h = structure_node("MQCFH", base, data.size() < 36 ? data.size() : 36);
  std::int32_t type = 0;
  std::int32_t reason = 0;
  for (std::size_t i = 0; i < 9 && (i + 1) * 4 <= data.size(); ++i) {
    const std::int32_t v = load_i32(data.data() + i * 4, o);
    std::string meaning;
    switch (i) {
      case 0:
        type = v;
        meaning = std::string(mq::pcf_type_name(v));
        break;
      case 3:
        meaning = std::string(mq::pcf_command_name(v));
        break;
      case 5:
        meaning = control_meaning(v);
        break;
      case 6:
        meaning = comp_code_meaning(v);
        break;
      case 7:
        reason = v;
        meaning = mq::describe_reason(v);
        break;
      default:
        break;
    }
    h.add(number_node(std::string(names[i]), base + i * 4, 4, v, std::to_string(v), std::move(meaning)));
  }
  h.value = std::string(mq::pcf_type_name(type));
  if (data.size() >= 32) {
    if (const mq::code_info* c = mq::find_mqrc(reason))
      h.value += (h.value.empty() ? "" : ", ") + std::string(c->name);
  }
  return h;
}

std::string ccsid_meaning(std::int32_t own, std::int32_t message) {
  if (own <= 0) return "the message's (" + describe_ccsid(message) + ")";
  return describe_ccsid(own);
}

node parameter_node(const mq::pcf_parameter& p, std::size_t base, std::int32_t message_ccsid) {
  const std::size_t at = base + p.offset;
  std::string name(mq::pcf_parameter_field_name(p.parameter));
  if (name.empty()) name = "Parameter " + std::to_string(p.parameter);
  node n = structure_node(name, at, p.length);
  n.add(number_node("Type", at, 4, p.type, std::to_string(p.type), std::string(mq::pcf_type_name(p.type))));
  n.add(number_node("StrucLength", at + 4, 4, static_cast<std::int64_t>(p.length), std::to_string(p.length)));
  n.add(number_node("Parameter", at + 8, 4, p.parameter, std::to_string(p.parameter),
                    std::string(mq::pcf_parameter_id_name(p.parameter))));
  switch (p.type) {
    case mq::MQCFT_INTEGER: {
      const std::string meaning = mq::pcf_value_meaning(p.parameter, p.value);
      n.add(number_node("Value", at + 12, 4, p.value, std::to_string(p.value), meaning));
      n.value = std::to_string(p.value);
      n.meaning = meaning;
      break;
    }
    case mq::MQCFT_GROUP:
      n.add(number_node("ParameterCount", at + 12, 4, p.value, std::to_string(p.value),
                        "parameters in the group"));
      n.value = "group of " + std::to_string(p.value);
      break;
    case mq::MQCFT_STRING:
      n.add(number_node("CodedCharSetId", at + 12, 4, p.ccsid, std::to_string(p.ccsid),
                        ccsid_meaning(p.ccsid, message_ccsid)));
      n.add(number_node("StringLength", at + 16, 4, static_cast<std::int64_t>(p.text.size()),
                        std::to_string(p.text.size())));
      n.add(field_node("String", at + 20, p.text.size(), quote_819(p.text)));
      n.value = quote_819(p.text);
      if (p.parameter == mq::MQCACF_BRIDGE_NAME && p.text.size() == mq::MQ_BRIDGE_NAME_LENGTH) {
        // XCF group (8) + IMS member (16) [C: BRIDGE-EVENT, MQGO-CONST].
        n.meaning =
            "XCF group " + quote_819(p.text.substr(0, 8)) + ", IMS member " + quote_819(p.text.substr(8));
      }
      break;
    default:
      if (p.raw.size() > 12) n.add(data_node("data", at + 12, bytes_view(p.raw).sub(12), message_ccsid));
      break;
  }
  return n;
}

// Parameters [i, end) at one depth: a group takes the parameters of the next depth as children.
void add_parameters(node& parent, const std::vector<mq::pcf_parameter>& ps, std::size_t& i, std::size_t depth,
                    std::size_t base, std::int32_t ccsid) {
  while (i < ps.size() && ps[i].depth == depth) {
    node n = parameter_node(ps[i], base, ccsid);
    ++i;
    if (i < ps.size() && ps[i].depth > depth) add_parameters(n, ps, i, depth + 1, base, ccsid);
    parent.add(std::move(n));
  }
}

}  // namespace

bool is_pcf_format(std::string_view format_819) noexcept {
  return mq::same_format(format_819, mq::MQFMT_ADMIN) || mq::same_format(format_819, mq::MQFMT_EVENT) ||
         mq::same_format(format_819, mq::MQFMT_PCF);
}

std::optional<node> add_pcf_nodes(node& parent, bytes_view data, std::size_t base, std::int32_t encoding,
                                  std::int32_t ccsid) {
  const byte_order o = integer_order(encoding);
  auto m = mq::decode_pcf(data, encoding, ccsid);
  parent.add(cfh_node(data, base, o));
  if (!m) {
    if (data.size() > 36) parent.add(data_node("parameters", base + 36, data.sub(36), ccsid));
    node e;
    e.kind = node_kind::error;
    e.id = std::string(msg::IMB4930E);
    e.name = m.error().field;
    e.offset = base + m.error().offset;
    e.value = m.error().detail;
    e.meaning = m.error().code.message();
    return e;
  }
  std::size_t i = 0;
  add_parameters(parent, m->parameters, i, 0, base, ccsid);
  if (m->length < data.size()) {
    node rest = data_node("rest", base + m->length, data.sub(m->length), ccsid);
    rest.meaning += std::string(rest.meaning.empty() ? "" : "; ") + "after the last parameter";
    parent.add(std::move(rest));
  }
  return std::nullopt;
}

}  // namespace imsb::dump
