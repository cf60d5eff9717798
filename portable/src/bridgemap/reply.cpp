#include "imsb/bridgemap/reply.hpp"

#include <algorithm>
#include <string>
#include <variant>

#include "imsb/codepage/codepage.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqdlh.hpp"
#include "imsb/mq/mqiih.hpp"
#include "imsb/otma/user_data.hpp"

namespace imsb::bridgemap {

namespace {

constexpr std::int32_t ims_encoding = mq::MQENC_NATIVE_ZOS;  // IMS's integers: big-endian (z/OS native)
constexpr std::int32_t report_expiration_mask = mq::MQRO_EXPIRATION_WITH_FULL_DATA;
constexpr std::int32_t report_exception_mask = mq::MQRO_EXCEPTION_WITH_FULL_DATA;
constexpr std::size_t exception_data_prefix = 100;  // MQRO_EXCEPTION_WITH_DATA: first 100 bytes [I]

std::int32_t field_ccsid(std::int32_t ccsid) noexcept {
  return codepage::supported(ccsid) ? ccsid : codepage::ccsid_819;
}

std::string trimmed(const std::string& field) { return std::string(codepage::field_value(field)); }

decode_error ims_error(std::string field, std::string detail) {
  decode_error e;
  e.code = mq::make_mqfb(mq::MQFB_IMS_ERROR);
  e.field = std::move(field);
  e.detail = std::move(detail);
  return e;
}

// YYYYMMDD and HHMMSSTH, UTC ([C: PUTDATE-DOC]), from milliseconds since the epoch.
// Blanks for 0: the caller knows no time.
void put_date_time(std::int64_t now_ms, std::string& date, std::string& time) {
  if (now_ms <= 0) return;
  const std::int64_t days = now_ms / 86400000;
  const std::int64_t ms_of_day = now_ms % 86400000;
  // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
  const std::int64_t z = days + 719468;
  const std::int64_t era = z / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  auto digits = [](std::int64_t v, int n) {
    std::string s = std::to_string(v);
    if (static_cast<int>(s.size()) < n) s.insert(0, static_cast<std::size_t>(n) - s.size(), '0');
    return s;
  };
  date = digits(y, 4) + digits(m, 2) + digits(d, 2);
  const std::int64_t hundredths = ms_of_day / 10;
  time = digits(hundredths / 360000, 2) + digits(hundredths / 6000 % 60, 2) +
         digits(hundredths / 100 % 60, 2) + digits(hundredths % 100, 2);
}

const otma::transaction_state_data* state_of(const otma::otma_message& m) {
  return m.state ? std::get_if<otma::transaction_state_data>(&*m.state) : nullptr;
}

// The request's user data and its MQMD ([C: REPLY-MD]: "The MQMD of the originating message is
// carried by IMS in the User Data section").
struct request_info {
  otma::mq_user_data ud;
  mq::mqmd md;
};

result<request_info> request_of(const otma::otma_message& output, const reply_context& ctx) {
  if (!output.user) {
    return ims_error("OTMA.user_data", "the output carries no user data of the bridge (unsolicited output?)");
  }
  auto ud = otma::decode_mq_user_data(*output.user);
  if (!ud) {
    return ims_error("OTMA.user_data",
                     "the output's user data is not the bridge's: " + ud.error().to_string());
  }
  auto md = mq::decode_mqmd(bytes_view(ud->mqmd.data(), ud->mqmd.size()), ctx.qmgr_encoding, ctx.qmgr_ccsid);
  if (!md) {
    return ims_error("OTMA.user_data.mq.mqmd",
                     "the request MQMD in the user data does not decode: " + md.error().to_string());
  }
  return request_info{std::move(ud).value(), std::move(md).value()};
}

// Report/reply identifiers ([C: MSGID-DOC]): MsgId new unless PASS_MSG_ID, CorrelId the
// request's MsgId unless PASS_CORREL_ID (then its CorrelId).
void set_ids(mq::mqmd& out, const mq::mqmd& request) {
  out.msg_id = (request.report & mq::MQRO_PASS_MSG_ID) != 0 ? request.msg_id : std::array<std::uint8_t, 24>{};
  out.correl_id = (request.report & mq::MQRO_PASS_CORREL_ID) != 0 ? request.correl_id : request.msg_id;
}

void append_llzz(bytes& out, std::size_t ll, std::uint16_t zz, byte_order order) {
  const std::size_t at = out.size();
  out.resize(at + 4);
  store_u16(out.data() + at, static_cast<std::uint16_t>(ll), order);
  store_u16(out.data() + at + 2, zz, order);
}

}  // namespace

result<mq::mqmd> request_md_of(const otma::otma_message& output, const reply_context& ctx) {
  auto r = request_of(output, ctx);
  if (!r) return r.error();
  return std::move(r.value().md);
}

result<outgoing> build_reply(const otma::otma_message& output, const reply_context& ctx) {
  auto info = request_of(output, ctx);
  if (!info) return info.error();
  const mq::mqmd& req = info->md;
  const otma::mq_user_data& ud = info->ud;
  const std::int32_t iih_flags = static_cast<std::int32_t>(ud.iih_flags);
  const bool had_iih = trimmed(req.format) == codepage::field_value(mq::MQFMT_IMS);
  const bool text = ctx.partner.convert == conversion::text;

  const otma::transaction_state_data* sd = state_of(output);
  const std::string modname = sd != nullptr ? sd->modname.value() : std::string();
  std::string lterm = sd != nullptr ? sd->lterm_override.value() : std::string();
  if (lterm.empty()) lterm = output.mci.tpipe_name.value();
  const bool cm1 = sd != nullptr && sd->commit_mode_bits() == otma::sync_flags::send_then_commit;
  const bool in_conversation = sd != nullptr && (sd->server_state & otma::server_state::conversational) != 0;

  // With `text` the reply is in the queue manager's CCSID and encoding; with `none` it is what IMS sent,
  // and the MQMD says so (docs/design/character-data.md [D]).
  const std::int32_t encoding = text ? ctx.qmgr_encoding : ims_encoding;
  const std::int32_t ccsid = text ? ctx.qmgr_ccsid : ctx.partner.ccsid;
  const byte_order order = integer_order(encoding);
  const std::string mod_format =
      modname.empty() ? std::string(mq::MQFMT_NONE) : codepage::pad_field(modname, 8);

  outgoing out;
  mq::mqmd& md = out.md;  // IBM's reply MQMD table [C: REPLY-MD], row by row
  md.version = mq::MQMD_VERSION_1;
  md.msg_type = mq::MQMT_REPLY;
  md.feedback = mq::MQFB_NONE;
  const bool pass_expiration = (iih_flags & mq::MQIIH_PASS_EXPIRATION) != 0;
  md.report = pass_expiration ? (req.report & report_expiration_mask) : mq::MQRO_NONE;
  md.expiry = pass_expiration ? req.expiry : mq::MQEI_UNLIMITED;
  md.encoding = encoding;
  md.coded_char_set_id = ccsid;
  md.format = had_iih ? std::string(mq::MQFMT_IMS) : mod_format;
  md.priority = req.priority;
  // CM1: the request's; CM0: the recoverability of the IMS output (a recoverable send number).
  md.persistence = cm1 ? req.persistence
                       : (output.mci.recoverable_seq != 0 ? mq::MQPER_PERSISTENT : mq::MQPER_NOT_PERSISTENT);
  set_ids(md, req);
  md.backout_count = 0;
  md.user_identifier = req.user_identifier;
  md.accounting_token = req.accounting_token;
  md.appl_identity_data = req.appl_identity_data;
  if (ctx.error_reply) {
    md.put_appl_type = mq::MQAT_IMS_BRIDGE;  // [I: REPLY-MD, MQGO-CONST]: IBM's "MQAT_BRIDGE"
    md.put_appl_name = codepage::pad_field(ctx.qmgr_name, mq::MQ_PUT_APPL_NAME_LENGTH);
  } else {
    md.put_appl_type = mq::MQAT_XCF;
    md.put_appl_name =
        codepage::pad_field(codepage::pad_field(ctx.xcf_group, 8) + codepage::pad_field(ctx.xcf_member, 16),
                            mq::MQ_PUT_APPL_NAME_LENGTH);
  }
  put_date_time(ctx.now_ms, md.put_date, md.put_time);

  if (had_iih) {
    mq::mqiih iih;  // IBM's reply MQIIH table [C: REPLY-IIH]
    // Encoding / CodedCharSetId: MQENC_NATIVE and MQCCSI_Q_MGR in IBM's words; we write the values they
    // stand for, which are also right for `none` [D].
    iih.encoding = encoding;
    iih.coded_char_set_id = ccsid;
    const std::string rtf = codepage::get_field(
        bytes_view(ud.reply_to_format.data(), ud.reply_to_format.size()), field_ccsid(ctx.qmgr_ccsid));
    if ((iih_flags & mq::MQIIH_REPLY_FORMAT_NONE) != 0) {
      iih.format = std::string(mq::MQFMT_NONE);
    } else if (!codepage::field_value(rtf).empty()) {
      iih.format = codepage::pad_field(codepage::field_value(rtf), 8);
    } else {
      iih.format = mod_format;
    }
    iih.flags = mq::MQIIH_NONE;
    iih.lterm_override = codepage::pad_field(lterm, 8);
    iih.mfs_map_name = codepage::pad_field(modname, 8);
    iih.reply_to_format = std::string(mq::MQFMT_NONE);
    iih.authenticator = std::string(mq::MQIAUT_NONE);
    if (in_conversation && sd != nullptr) {
      for (std::size_t i = 0; i < iih.tran_instance_id.size(); ++i)
        iih.tran_instance_id[i] = sd->server_token[i];
    }
    iih.tran_state = in_conversation ? mq::MQITS_IN_CONVERSATION : mq::MQITS_NOT_IN_CONVERSATION;
    iih.commit_mode = cm1 ? mq::MQICM_SEND_THEN_COMMIT : mq::MQICM_COMMIT_THEN_SEND;
    iih.security_scope = ' ';
    iih.reserved = ' ';
    encode_mqiih(iih, encoding, field_ccsid(ccsid), out.data);
  }

  const auto& segments = output.segments();
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const otma::segment& seg = segments[i];
    bytes body;
    if (text && ctx.partner.ccsid != ctx.qmgr_ccsid && ctx.architected && seg.data.size() >= 11) {
      // [C: OTMA-ARCH-ATTR]: code(8) flag1 flag2 status [error text]; the flags stay binary.
      // A code or text that does not convert keeps its bytes: the flags are the answer [D].
      const bytes_view data(seg.data);
      auto part = [&](bytes_view b) {
        codepage::conversion c = codepage::convert(b, ctx.partner.ccsid, ctx.qmgr_ccsid);
        if (c.ok())
          body.insert(body.end(), c.out.begin(), c.out.end());
        else
          body.insert(body.end(), b.begin(), b.end());
      };
      part(data.sub(0, 8));
      body.insert(body.end(), seg.data.begin() + 8, seg.data.begin() + 11);
      part(data.sub(11));
    } else if (text && ctx.partner.ccsid != ctx.qmgr_ccsid) {
      codepage::conversion c = codepage::convert(seg.data, ctx.partner.ccsid, ctx.qmgr_ccsid);
      if (!c.ok()) {
        decode_error e;
        e.code = mq::make_mqrc(mq::MQRC_NOT_CONVERTED);
        e.field = "OTMA.application_data.segment[" + std::to_string(i) + "]";
        e.offset = c.first_bad_offset == codepage::npos ? 0 : c.first_bad_offset;
        e.detail = c.unsupported ? "cannot convert CCSID " + std::to_string(ctx.partner.ccsid) + " to " +
                                       std::to_string(ctx.qmgr_ccsid)
                                 : std::to_string(c.substitutions) + " character(s) of CCSID " +
                                       std::to_string(ctx.partner.ccsid) + " have no equivalent in CCSID " +
                                       std::to_string(ctx.qmgr_ccsid);
        return e;
      }
      body = std::move(c.out);
    } else {
      body = seg.data;
    }
    if (body.size() + otma::llzz_size > 0xFFFF) {  // LL is a halfword
      decode_error e;
      e.code = mq::make_mqrc(mq::MQRC_CONVERTED_MSG_TOO_BIG);
      e.field = "OTMA.application_data.segment[" + std::to_string(i) + "]";
      e.detail = "converted segment has " + std::to_string(body.size() + otma::llzz_size) + " bytes";
      return e;
    }
    append_llzz(out.data, body.size() + otma::llzz_size, seg.zz, order);
    out.data.insert(out.data.end(), body.begin(), body.end());
  }
  out.queue = trimmed(req.reply_to_q);
  out.qmgr = trimmed(req.reply_to_q_mgr);
  return out;
}

output_original output_as_original(const otma::otma_message& output, std::int32_t persistence,
                                   const reply_context& ctx) {
  output_original o;
  auto md = request_md_of(output, ctx);
  if (md) {
    o.md = std::move(md.value());
  } else {
    o.md.persistence = persistence;
  }
  o.md.format = std::string(mq::MQFMT_IMS_VAR_STRING);
  o.md.encoding = ims_encoding;
  o.md.coded_char_set_id = ctx.partner.ccsid;
  for (const otma::segment& s : output.segments()) {
    const std::size_t ll = s.data.size() + 4;
    o.data.push_back(static_cast<std::uint8_t>(ll >> 8));
    o.data.push_back(static_cast<std::uint8_t>(ll & 0xFF));
    o.data.push_back(0);
    o.data.push_back(0);
    o.data.insert(o.data.end(), s.data.begin(), s.data.end());
  }
  return o;
}

outgoing make_dead_letter(const mq::mqmd& original, bytes_view data, std::int32_t reason,
                          const std::string& dest_q, const std::string& dest_qmgr, const reply_context& ctx) {
  mq::mqdlh dlh;  // [C: DLH-DOC, MQGO-DLH]
  dlh.reason = reason;
  dlh.dest_q_name = codepage::pad_field(dest_q, mq::MQ_Q_NAME_LENGTH);
  dlh.dest_q_mgr_name = codepage::pad_field(dest_qmgr, mq::MQ_Q_MGR_NAME_LENGTH);
  dlh.encoding = original.encoding;
  dlh.coded_char_set_id = original.coded_char_set_id;
  dlh.format = original.format;
  dlh.put_appl_type = mq::MQAT_IMS_BRIDGE;  // [I: REPLY-MD, MQGO-CONST]: IBM's "MQAT_BRIDGE"
  dlh.put_appl_name = codepage::pad_field(ctx.qmgr_name, mq::MQ_PUT_APPL_NAME_LENGTH);
  put_date_time(ctx.now_ms, dlh.put_date, dlh.put_time);

  outgoing out;
  out.md = original;  // the original's context is kept (put with SET_ALL_CONTEXT)
  out.md.format = std::string(mq::MQFMT_DEAD_LETTER_HEADER);
  out.md.encoding = ctx.qmgr_encoding;
  out.md.coded_char_set_id = ctx.qmgr_ccsid;
  encode_mqdlh(dlh, ctx.qmgr_encoding, field_ccsid(ctx.qmgr_ccsid), out.data);
  out.data.insert(out.data.end(), data.begin(), data.end());
  return out;
}

std::optional<outgoing> make_exception_report(const mq::mqmd& request, bytes_view data, std::int32_t feedback,
                                              const reply_context& ctx) {
  const std::int32_t exception = request.report & report_exception_mask;
  if ((exception & mq::MQRO_EXCEPTION) == 0) return std::nullopt;
  outgoing out;
  mq::mqmd& md = out.md;  // [I: CANNOT-PUT], modelled on activity reports [C: ACTIVITY-MD]
  md.version = mq::MQMD_VERSION_1;
  md.msg_type = mq::MQMT_REPORT;
  md.feedback = feedback;
  set_ids(md, request);
  if ((request.report & mq::MQRO_PASS_DISCARD_AND_EXPIRY) != 0) {
    md.report = request.report & mq::MQRO_DISCARD_MSG;
    md.expiry = request.expiry;
  } else {
    md.report = mq::MQRO_NONE;
    md.expiry = mq::MQEI_UNLIMITED;
  }
  // The data is the request's, so its descriptors are the request's.
  md.encoding = request.encoding;
  md.coded_char_set_id = request.coded_char_set_id;
  md.format = request.format;
  md.priority = request.priority;
  md.persistence = request.persistence;
  md.user_identifier = request.user_identifier;  // put with the originator's authority [C] BRIDGE-AUTH
  md.accounting_token = request.accounting_token;
  md.appl_identity_data = request.appl_identity_data;
  md.put_appl_type = mq::MQAT_IMS_BRIDGE;
  md.put_appl_name = codepage::pad_field(ctx.qmgr_name, mq::MQ_PUT_APPL_NAME_LENGTH);
  put_date_time(ctx.now_ms, md.put_date, md.put_time);
  // The option bits nest: WITH_DATA adds X'02000000' to EXCEPTION, WITH_FULL_DATA X'04000000' more.
  if ((exception & (mq::MQRO_EXCEPTION_WITH_FULL_DATA & ~mq::MQRO_EXCEPTION_WITH_DATA)) != 0) {
    out.data = data.to_bytes();
  } else if ((exception & (mq::MQRO_EXCEPTION_WITH_DATA & ~mq::MQRO_EXCEPTION)) != 0) {
    out.data = data.sub(0, exception_data_prefix).to_bytes();
  }
  // [D] The report goes to the requester's reply queue, where others may read it: the MQIIH
  // Authenticator (a password or PassTicket, +56 for 8 [C: IIH-DOC, IIH-AUTH]) is blanked in the
  // report's copy, in the request's CCSID (it describes the MQIIH). The dead-letter copy stays whole, as
  // IBM keeps it.
  if (trimmed(request.format) == codepage::field_value(mq::MQFMT_IMS)) {
    constexpr std::size_t authenticator_offset = 56;
    const std::size_t end =
        std::min<std::size_t>(out.data.size(), authenticator_offset + mq::MQ_AUTHENTICATOR_LENGTH);
    const std::uint8_t blank = codepage::blank(request.coded_char_set_id);
    for (std::size_t i = authenticator_offset; i < end; ++i) out.data[i] = blank;
  }
  if (out.data.empty()) md.format = std::string(mq::MQFMT_NONE);
  out.queue = trimmed(request.reply_to_q);
  out.qmgr = trimmed(request.reply_to_q_mgr);
  return out;
}

}  // namespace imsb::bridgemap
