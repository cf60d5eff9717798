#include "imsb/mq/layout.hpp"

#include <iterator>

#include "codec_detail.hpp"
#include "imsb/codepage/codepage.hpp"
#include "imsb/mq/constants.hpp"

namespace imsb::mq {
namespace {

using K = field_kind;

// [C: CMQC-H, CMQC-PY]. Version 1 is the first 24 fields (324 bytes).
constexpr field_desc mqmd_fields[] = {
    {"StrucId", 0, 4, K::mqchar},
    {"Version", 4, 4, K::mqlong},
    {"Report", 8, 4, K::mqlong},
    {"MsgType", 12, 4, K::mqlong},
    {"Expiry", 16, 4, K::mqlong},
    {"Feedback", 20, 4, K::mqlong},
    {"Encoding", 24, 4, K::mqlong},
    {"CodedCharSetId", 28, 4, K::mqlong},
    {"Format", 32, 8, K::mqchar},
    {"Priority", 40, 4, K::mqlong},
    {"Persistence", 44, 4, K::mqlong},
    {"MsgId", 48, 24, K::mqbyte},
    {"CorrelId", 72, 24, K::mqbyte},
    {"BackoutCount", 96, 4, K::mqlong},
    {"ReplyToQ", 100, 48, K::mqchar},
    {"ReplyToQMgr", 148, 48, K::mqchar},
    {"UserIdentifier", 196, 12, K::mqchar},
    {"AccountingToken", 208, 32, K::mqbyte},
    {"ApplIdentityData", 240, 32, K::mqchar},
    {"PutApplType", 272, 4, K::mqlong},
    {"PutApplName", 276, 28, K::mqchar},
    {"PutDate", 304, 8, K::mqchar},
    {"PutTime", 312, 8, K::mqchar},
    {"ApplOriginData", 320, 4, K::mqchar},
    // version 2
    {"GroupId", 324, 24, K::mqbyte},
    {"MsgSeqNumber", 348, 4, K::mqlong},
    {"Offset", 352, 4, K::mqlong},
    {"MsgFlags", 356, 4, K::mqlong},
    {"OriginalLength", 360, 4, K::mqlong},
};
constexpr std::size_t mqmd_v1_count = 24;

// [C: CMQC-H, IIH-DOC].
constexpr field_desc mqiih_fields[] = {
    {"StrucId", 0, 4, K::mqchar},         {"Version", 4, 4, K::mqlong},
    {"StrucLength", 8, 4, K::mqlong},     {"Encoding", 12, 4, K::mqlong},
    {"CodedCharSetId", 16, 4, K::mqlong}, {"Format", 20, 8, K::mqchar},
    {"Flags", 28, 4, K::mqlong},          {"LTermOverride", 32, 8, K::mqchar},
    {"MFSMapName", 40, 8, K::mqchar},     {"ReplyToFormat", 48, 8, K::mqchar},
    {"Authenticator", 56, 8, K::mqchar},  {"TranInstanceId", 64, 16, K::mqbyte},
    {"TranState", 80, 1, K::mqchar},      {"CommitMode", 81, 1, K::mqchar},
    {"SecurityScope", 82, 1, K::mqchar},  {"Reserved", 83, 1, K::mqchar},
};

// [C: CMQC-H, MQGO-DLH].
constexpr field_desc mqdlh_fields[] = {
    {"StrucId", 0, 4, K::mqchar},          {"Version", 4, 4, K::mqlong},
    {"Reason", 8, 4, K::mqlong},           {"DestQName", 12, 48, K::mqchar},
    {"DestQMgrName", 60, 48, K::mqchar},   {"Encoding", 108, 4, K::mqlong},
    {"CodedCharSetId", 112, 4, K::mqlong}, {"Format", 116, 8, K::mqchar},
    {"PutApplType", 124, 4, K::mqlong},    {"PutApplName", 128, 28, K::mqchar},
    {"PutDate", 156, 8, K::mqchar},        {"PutTime", 164, 8, K::mqchar},
};

// [C: CMQC-H, XQH-DOC].
constexpr field_desc mqxqh_fields[] = {
    {"StrucId", 0, 4, K::mqchar},          {"Version", 4, 4, K::mqlong},    {"RemoteQName", 8, 48, K::mqchar},
    {"RemoteQMgrName", 56, 48, K::mqchar}, {"MsgDesc", 104, 324, K::mqmd1},
};

constexpr layout mqmd1 = {"MQMD", mqmd_fields, mqmd_v1_count, MQMD_LENGTH_1};
constexpr layout mqmd2 = {"MQMD", mqmd_fields, std::size(mqmd_fields), MQMD_LENGTH_2};
constexpr layout mqiih = {"MQIIH", mqiih_fields, std::size(mqiih_fields), MQIIH_LENGTH_1};
constexpr layout mqdlh = {"MQDLH", mqdlh_fields, std::size(mqdlh_fields), MQDLH_LENGTH_1};
constexpr layout mqxqh = {"MQXQH", mqxqh_fields, std::size(mqxqh_fields), MQXQH_LENGTH_1};

// The fields must tile the structure: each starts where the previous ended and the last ends at
// the structure's length ([C: CMQC-H, CMQC-PY]: no padding in MQ header structures).
constexpr bool tiles(const layout& l) {
  std::size_t next = 0;
  for (std::size_t i = 0; i < l.count; ++i) {
    if (l.fields[i].offset != next || l.fields[i].length == 0) return false;
    if (l.fields[i].kind == K::mqlong && (l.fields[i].length != 4 || l.fields[i].offset % 4 != 0))
      return false;
    next += l.fields[i].length;
  }
  return next == l.length;
}
static_assert(tiles(mqmd1) && tiles(mqmd2) && tiles(mqiih) && tiles(mqdlh) && tiles(mqxqh),
              "an MQ layout table has a gap, an overlap or a misaligned MQLONG");

}  // namespace

const layout& mqmd_layout(int version) { return version >= 2 ? mqmd2 : mqmd1; }
const layout& mqiih_layout() { return mqiih; }
const layout& mqdlh_layout() { return mqdlh; }
const layout& mqxqh_layout() { return mqxqh; }

const field_desc* find_field(const layout& l, std::string_view name) noexcept {
  for (const field_desc& f : l) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<field_value> decode_fields(const layout& l, bytes_view in, std::int32_t encoding,
                                       std::int32_t ccsid) {
  const byte_order order = integer_order(encoding);
  const std::int32_t chars = detail::chars_ccsid(detail::family_of_struc_id(in.sub(0, 4)), ccsid);
  std::vector<field_value> out;
  out.reserve(l.count);
  for (const field_desc& f : l) {
    if (std::size_t{f.offset} + f.length > in.size()) break;
    field_value v;
    v.desc = &f;
    const bytes_view raw = in.sub(f.offset, f.length);
    v.raw = raw.to_bytes();
    if (f.kind == K::mqlong) v.number = load_i32(raw.data(), order);
    if (f.kind == K::mqchar) v.text = codepage::get_field(raw, chars);
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace imsb::mq
