// MQINQ by selector (connection.hpp `inquiry`): one table says, for each MQIA_* / MQCA_* selector the
// queue manager answers, which objects have it, where its value comes from in the object's definition
// (its MQSC keyword) and how that text becomes the MQI's integer or blank-padded string. Values and the
// object types each selector applies to: [C] IBM's cmqc.h and the MQINQ topic's attribute tables
// (https://ibm.com/docs/SSFKSJ_9.3.0/refdev/q101840_.html).

#include <algorithm>
#include <map>
#include <string>
#include <string_view>

#include "engine.hpp"

namespace imsb::qmgr::engine_detail {
namespace {

enum applies : unsigned {
  on_local = 1u << 0,
  on_model = 1u << 1,
  on_alias = 1u << 2,
  on_remote = 1u << 3,
  on_qmgr = 1u << 4,
  on_any_queue = on_local | on_model | on_alias | on_remote,
  on_local_model = on_local | on_model,
};

enum class source {
  keyword_int,  // the MQSC keyword's decimal value
  keyword_map,  // the keyword's value `yes` → value_yes, anything else → value_no
  keyword_str,  // the keyword's text
  name,         // the object's name
  queue_type,
  depth,
  open_input,
  open_output,
  fixed,         // value_yes, always
  trigger_type,  // TRIGTYPE's word as MQTT_*
};

struct selector_def {
  std::int32_t selector;
  unsigned objects;
  source from;
  std::string_view keyword = {};
  std::string_view yes = {};
  std::int32_t value_yes = 0;
  std::int32_t value_no = 0;
  std::size_t length = 0;  // MQCA_*: the MQ length the value is padded to
};

constexpr std::int32_t command_level = 930;  // as DISPLAY QMGR CMDLEVEL shows it (schema.cpp [D])

// clang-format off
const selector_def table[] = {
  // Queues.
  {mq::MQCA_Q_NAME, on_any_queue, source::name, {}, {}, 0, 0, mq::MQ_Q_NAME_LENGTH},
  {mq::MQIA_Q_TYPE, on_any_queue, source::queue_type},
  {mq::MQCA_Q_DESC, on_any_queue, source::keyword_str, "DESCR", {}, 0, 0, mq::MQ_Q_DESC_LENGTH},
  {mq::MQIA_DEF_PRIORITY, on_any_queue, source::keyword_int, "DEFPRTY"},
  {mq::MQIA_DEF_PERSISTENCE, on_any_queue, source::keyword_map, "DEFPSIST", "YES", mq::MQPER_PERSISTENT,
   mq::MQPER_NOT_PERSISTENT},
  {mq::MQIA_INHIBIT_PUT, on_any_queue, source::keyword_map, "PUT", "DISABLED", mq::MQQA_PUT_INHIBITED,
   mq::MQQA_PUT_ALLOWED},
  {mq::MQIA_INHIBIT_GET, on_local_model | on_alias, source::keyword_map, "GET", "DISABLED",
   mq::MQQA_GET_INHIBITED, mq::MQQA_GET_ALLOWED},
  {mq::MQCA_BASE_Q_NAME, on_alias, source::keyword_str, "TARGET", {}, 0, 0, mq::MQ_Q_NAME_LENGTH},
  {mq::MQIA_CURRENT_Q_DEPTH, on_local, source::depth},
  {mq::MQIA_OPEN_INPUT_COUNT, on_local, source::open_input},
  {mq::MQIA_OPEN_OUTPUT_COUNT, on_local, source::open_output},
  {mq::MQIA_MAX_Q_DEPTH, on_local_model, source::keyword_int, "MAXDEPTH"},
  {mq::MQIA_USAGE, on_local_model, source::keyword_map, "USAGE", "XMITQ", mq::MQUS_TRANSMISSION,
   mq::MQUS_NORMAL},
  {mq::MQIA_BACKOUT_THRESHOLD, on_local_model, source::keyword_int, "BOTHRESH"},
  {mq::MQCA_BACKOUT_REQ_Q_NAME, on_local_model, source::keyword_str, "BOQNAME", {}, 0, 0, mq::MQ_Q_NAME_LENGTH},
  {mq::MQIA_SHAREABILITY, on_local_model, source::keyword_map, "SHARE", "SHARE", mq::MQQA_SHAREABLE,
   mq::MQQA_NOT_SHAREABLE},
  {mq::MQIA_DEF_INPUT_OPEN_OPTION, on_local_model, source::keyword_map, "DEFSOPT", "EXCL",
   mq::MQOO_INPUT_EXCLUSIVE, mq::MQOO_INPUT_SHARED},
  {mq::MQCA_STORAGE_CLASS, on_local_model, source::keyword_str, "STGCLASS", {}, 0, 0,
   mq::MQ_STORAGE_CLASS_LENGTH},
  {mq::MQIA_TRIGGER_CONTROL, on_local_model, source::keyword_map, "TRIGGER", "TRIGGER", mq::MQTC_ON,
   mq::MQTC_OFF},
  {mq::MQIA_TRIGGER_DEPTH, on_local_model, source::keyword_int, "TRIGDPTH"},
  {mq::MQIA_TRIGGER_MSG_PRIORITY, on_local_model, source::keyword_int, "TRIGMPRI"},
  {mq::MQIA_TRIGGER_TYPE, on_local_model, source::trigger_type, "TRIGTYPE"},
  {mq::MQCA_TRIGGER_DATA, on_local_model, source::keyword_str, "TRIGDATA", {}, 0, 0, mq::MQ_TRIGGER_DATA_LENGTH},
  {mq::MQCA_REMOTE_Q_NAME, on_remote, source::keyword_str, "RNAME", {}, 0, 0, mq::MQ_Q_NAME_LENGTH},
  {mq::MQCA_REMOTE_Q_MGR_NAME, on_remote, source::keyword_str, "RQMNAME", {}, 0, 0, mq::MQ_Q_MGR_NAME_LENGTH},
  {mq::MQCA_XMIT_Q_NAME, on_remote, source::keyword_str, "XMITQ", {}, 0, 0, mq::MQ_Q_NAME_LENGTH},
  // Both: a queue's MAXMSGL, or the queue manager's.
  {mq::MQIA_MAX_MSG_LENGTH, on_local_model | on_qmgr, source::keyword_int, "MAXMSGL"},
  // The queue manager.
  {mq::MQCA_Q_MGR_NAME, on_qmgr, source::name, {}, {}, 0, 0, mq::MQ_Q_MGR_NAME_LENGTH},
  {mq::MQCA_Q_MGR_DESC, on_qmgr, source::keyword_str, "DESCR", {}, 0, 0, mq::MQ_Q_MGR_DESC_LENGTH},
  {mq::MQIA_CODED_CHAR_SET_ID, on_qmgr, source::keyword_int, "CCSID"},
  {mq::MQCA_DEAD_LETTER_Q_NAME, on_qmgr, source::keyword_str, "DEADQ", {}, 0, 0, mq::MQ_Q_NAME_LENGTH},
  {mq::MQCA_DEF_XMIT_Q_NAME, on_qmgr, source::keyword_str, "DEFXMITQ", {}, 0, 0, mq::MQ_Q_NAME_LENGTH},
  {mq::MQIA_MAX_UNCOMMITTED_MSGS, on_qmgr, source::keyword_int, "MAXUMSGS"},
  {mq::MQIA_MAX_PRIORITY, on_qmgr, source::keyword_int, "MAXPRTY"},
  {mq::MQIA_PLATFORM, on_qmgr, source::fixed, {}, {}, mq::MQPL_UNIX},  // schema.cpp PLATFORM(UNIX)
  {mq::MQIA_COMMAND_LEVEL, on_qmgr, source::fixed, {}, {}, command_level},
  {mq::MQIA_SYNCPOINT, on_qmgr, source::fixed, {}, {}, mq::MQSP_AVAILABLE},
};
// clang-format on

const selector_def* find(std::int32_t selector) {
  for (const selector_def& d : table)
    if (d.selector == selector) return &d;
  return nullptr;
}

bool is_int_selector(std::int32_t s) { return s >= mq::MQIA_FIRST && s <= mq::MQIA_LAST; }
bool is_char_selector(std::int32_t s) { return s >= mq::MQCA_FIRST && s <= mq::MQCA_LAST; }

unsigned kind_of(const objects::object_record* rec) {
  if (rec == nullptr) return on_qmgr;
  switch (rec->type) {
    case objects::object_type::qlocal:
      return on_local;
    case objects::object_type::qmodel:
      return on_model;
    case objects::object_type::qalias:
      return on_alias;
    case objects::object_type::qremote:
      return on_remote;
    default:
      return 0;
  }
}

std::int32_t queue_type_of(unsigned kind) {
  switch (kind) {
    case on_model:
      return mq::MQQT_MODEL;
    case on_alias:
      return mq::MQQT_ALIAS;
    case on_remote:
      return mq::MQQT_REMOTE;
    default:
      return mq::MQQT_LOCAL;
  }
}

}  // namespace

mqi::result<mqi::inquiry> inquire_attributes(const objects::object_record& rec, bool is_qmgr,
                                             const local_queue* status,
                                             const std::vector<std::int32_t>& selectors) {
  if (selectors.size() > mq::MQINQ_MAX_SELECTORS)
    return mqi_error("MQINQ", mq::MQRC_SELECTOR_COUNT_ERROR,
                     std::to_string(selectors.size()) + " selectors, at most 256");
  const unsigned kind = is_qmgr ? static_cast<unsigned>(on_qmgr) : kind_of(&rec);
  mqi::inquiry out;
  bool not_for_type = false;
  for (const std::int32_t s : selectors) {
    const selector_def* d = find(s);
    if (d == nullptr || (!is_int_selector(s) && !is_char_selector(s)))
      return mqi_error("MQINQ", mq::MQRC_SELECTOR_ERROR,
                       "selector " + std::to_string(s) + " is not one imsbridge answers");
    const bool integer = is_int_selector(s);
    if ((d->objects & kind) == 0) {
      // A selector of another queue type: a warning and a value that says so [C]; one of the queue
      // manager asked of a queue, or the other way round, fails (MQRC_SELECTOR_ERROR) [C].
      const bool queue_selector = (d->objects & on_any_queue) != 0;
      if (is_qmgr || !queue_selector)
        return mqi_error("MQINQ", mq::MQRC_SELECTOR_ERROR,
                         "selector " + std::to_string(s) + " is not an attribute of " +
                             (is_qmgr ? "the queue manager" : "a queue"));
      not_for_type = true;
      if (integer) {
        out.int_attrs.push_back(mqi::MQIAV_NOT_APPLICABLE);
      } else {
        out.char_attrs.push_back(std::string(d->length, ' '));
      }
      continue;
    }
    const std::string_view text = d->keyword.empty() ? std::string_view() : rec.text(d->keyword);
    std::int32_t iv = 0;
    std::string sv;
    switch (d->from) {
      case source::keyword_int: {
        const auto n = rec.integer(d->keyword);
        iv = n ? static_cast<std::int32_t>(*n) : 0;
        break;
      }
      case source::keyword_map:
        iv = text == d->yes ? d->value_yes : d->value_no;
        break;
      case source::keyword_str:
        sv = std::string(text);
        break;
      case source::name:
        sv = rec.name;
        break;
      case source::queue_type:
        iv = queue_type_of(kind);
        break;
      case source::depth:
        iv = status == nullptr ? 0 : static_cast<std::int32_t>(status->messages.size());
        break;
      case source::open_input:
        iv = status == nullptr ? 0 : status->open_input;
        break;
      case source::open_output:
        iv = status == nullptr ? 0 : status->open_output;
        break;
      case source::fixed:
        iv = d->value_yes;
        break;
      case source::trigger_type:
        iv = text == "FIRST"   ? mq::MQTT_FIRST
             : text == "EVERY" ? mq::MQTT_EVERY
             : text == "DEPTH" ? mq::MQTT_DEPTH
                               : mq::MQTT_NONE;
        break;
    }
    if (integer) {
      out.int_attrs.push_back(iv);
    } else {
      sv.resize(d->length, ' ');
      out.char_attrs.push_back(std::move(sv));
    }
  }
  if (not_for_type)
    return mqi::result<mqi::inquiry>::warning(std::move(out), mq::MQRC_SELECTOR_NOT_FOR_TYPE,
                                              "a selector does not apply to this queue's type");
  return out;
}

namespace {

// MQSET's selectors [C] IBM MQ, "Setting queue attributes" and "MQSET - Set object attributes": which
// queue types take each, and how its value becomes an ALTER keyword.
struct settable {
  std::int32_t selector;
  unsigned objects;
};
const settable settables[] = {
    {mq::MQIA_INHIBIT_GET, on_local | on_alias}, {mq::MQIA_INHIBIT_PUT, on_local | on_alias | on_remote},
    {mq::MQIA_TRIGGER_CONTROL, on_local},        {mq::MQIA_TRIGGER_DEPTH, on_local},
    {mq::MQIA_TRIGGER_MSG_PRIORITY, on_local},   {mq::MQIA_TRIGGER_TYPE, on_local},
    {mq::MQCA_TRIGGER_DATA, on_local},
};

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char ch : s) {
    out += ch;
    if (ch == '\'') out += '\'';
  }
  return out + "'";
}

std::string rtrim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

mqi::result<std::string> mqset_command(const objects::object_record& rec,
                                       const std::vector<std::int32_t>& selectors,
                                       const std::vector<std::int32_t>& int_attrs,
                                       const std::vector<std::string>& char_attrs) {
  if (selectors.size() > mq::MQINQ_MAX_SELECTORS)
    return mqi_error("MQSET", mq::MQRC_SELECTOR_COUNT_ERROR,
                     std::to_string(selectors.size()) + " selectors, at most 256");
  std::size_t ints = 0, chars = 0;
  for (const std::int32_t s : selectors) (is_int_selector(s) ? ints : chars) += 1;
  if (int_attrs.size() != ints)
    return mqi_error("MQSET", mq::MQRC_INT_ATTR_COUNT_ERROR,
                     std::to_string(int_attrs.size()) + " integer values for " + std::to_string(ints) +
                         " MQIA_* selectors");
  if (char_attrs.size() != chars)
    return mqi_error("MQSET", mq::MQRC_CHAR_ATTR_LENGTH_ERROR,
                     std::to_string(char_attrs.size()) + " character values for " + std::to_string(chars) +
                         " MQCA_* selectors");
  const unsigned kind = kind_of(&rec);
  // The last value of a selector given twice counts [C]: keyword → its text, in selector order.
  std::map<std::string, std::string> words;
  std::size_t next_int = 0, next_char = 0;
  for (const std::int32_t s : selectors) {
    const settable* d = nullptr;
    for (const settable& t : settables)
      if (t.selector == s) d = &t;
    if (d == nullptr)
      return mqi_error("MQSET", mq::MQRC_SELECTOR_ERROR,
                       "selector " + std::to_string(s) + " cannot be set by MQSET");
    if ((d->objects & kind) == 0)
      return mqi_error("MQSET", mq::MQRC_SELECTOR_NOT_FOR_TYPE,
                       "selector " + std::to_string(s) + " does not apply to " +
                           std::string(objects::to_mqsc_word(rec.type)) + " " + rec.name);
    if (!is_int_selector(s)) {
      const std::string& v = char_attrs[next_char++];
      if (v.size() > mq::MQ_TRIGGER_DATA_LENGTH)
        return mqi_error("MQSET", mq::MQRC_CHAR_ATTR_LENGTH_ERROR,
                         "TriggerData of " + std::to_string(v.size()) + " characters, at most 64");
      words["TRIGDATA"] = "TRIGDATA(" + quoted(rtrim(v)) + ")";
      continue;
    }
    const std::int32_t v = int_attrs[next_int++];
    switch (s) {
      case mq::MQIA_INHIBIT_GET:
      case mq::MQIA_INHIBIT_PUT: {
        if (v != mq::MQQA_GET_ALLOWED && v != mq::MQQA_GET_INHIBITED)
          return mqi_error("MQSET", mq::MQRC_INHIBIT_VALUE_ERROR,
                           std::to_string(v) + ": expected 0 (allowed) or 1 (inhibited)");
        const std::string k = s == mq::MQIA_INHIBIT_GET ? "GET" : "PUT";
        words[k] = k + (v == 1 ? "(DISABLED)" : "(ENABLED)");
        break;
      }
      case mq::MQIA_TRIGGER_CONTROL:
        if (v != mq::MQTC_OFF && v != mq::MQTC_ON)
          return mqi_error("MQSET", mq::MQRC_TRIGGER_CONTROL_ERROR,
                           std::to_string(v) + ": expected MQTC_OFF (0) or MQTC_ON (1)");
        words["TRIGGER"] = v == mq::MQTC_ON ? "TRIGGER" : "NOTRIGGER";
        break;
      case mq::MQIA_TRIGGER_DEPTH:
        if (v < 1 || v > 999999999)
          return mqi_error("MQSET", mq::MQRC_TRIGGER_DEPTH_ERROR,
                           std::to_string(v) + ": expected 1 to 999999999");
        words["TRIGDPTH"] = "TRIGDPTH(" + std::to_string(v) + ")";
        break;
      case mq::MQIA_TRIGGER_MSG_PRIORITY:
        if (v < 0 || v > 9)
          return mqi_error("MQSET", mq::MQRC_TRIGGER_MSG_PRIORITY_ERR,
                           std::to_string(v) + ": expected 0 to 9");
        words["TRIGMPRI"] = "TRIGMPRI(" + std::to_string(v) + ")";
        break;
      case mq::MQIA_TRIGGER_TYPE: {
        static const char* const names[] = {"NONE", "FIRST", "EVERY", "DEPTH"};
        if (v < mq::MQTT_NONE || v > mq::MQTT_DEPTH)
          return mqi_error("MQSET", mq::MQRC_TRIGGER_TYPE_ERROR,
                           std::to_string(v) + ": expected MQTT_NONE, FIRST, EVERY or DEPTH (0 to 3)");
        words["TRIGTYPE"] = std::string("TRIGTYPE(") + names[v] + ")";
        break;
      }
      default:
        break;
    }
  }
  std::string cmd = "ALTER " + std::string(objects::to_mqsc_word(rec.type)) + "(" + quoted(rec.name) + ")";
  for (const auto& [k, w] : words) cmd += " " + w;
  return cmd;
}

}  // namespace imsb::qmgr::engine_detail
