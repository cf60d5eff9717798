#pragma once
// Shared by the imsemu end-to-end tests (imsemu_test.cpp, kill_test.cpp): the XCF names they use and the
// OTMA data helpers for a scripted client (tpipe::client_link over the xcfhub TCP backend).

#include <chrono>
#include <cstdint>
#include <string>

#include "imsb/codepage/codepage.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/otma/sense.hpp"

namespace imsb::test {

inline constexpr const char* group_name = "XCFGRP1";
inline constexpr const char* ims_member = "IMSA";
inline constexpr const char* client_member = "MQCLIENT";
inline constexpr std::chrono::milliseconds wait_long{15000};

// ---- OTMA data --------------------------------------------------------------------------------------

inline std::string text_of(const bytes& raw) {
  const auto c = codepage::convert(raw, codepage::ccsid_037, codepage::ccsid_819);
  return std::string(c.out.begin(), c.out.end());
}

inline bytes ebcdic(const std::string& s) {
  return codepage::convert(bytes_view::of(s), codepage::ccsid_819, codepage::ccsid_037).out;
}

inline std::string all_text(const otma::otma_message& m) {
  std::string s;
  for (const auto& seg : m.segments()) s += text_of(seg.data) + "\n";
  return s;
}

// IVTNO columns: trancode 8, process code 8, last 10, first 10, extension 10, zip 7.
inline std::string phone_line(const std::string& code, const std::string& last, const std::string& first = {},
                              const std::string& ext = {}, const std::string& zip = {}) {
  return codepage::pad_field("IVTNO", 8) + codepage::pad_field(code, 8) + codepage::pad_field(last, 10) +
         codepage::pad_field(first, 10) + codepage::pad_field(ext, 10) + codepage::pad_field(zip, 7);
}

// CM0 on a synchronized Tpipe with recoverable number `rsn`, or (rsn 0) CM1 on a plain Tpipe.
inline otma::otma_message make_input(const std::string& tpipe, const std::string& text, std::uint32_t rsn,
                                     const std::string& user = {}) {
  otma::otma_message m;
  m.mci.message_type = otma::msg_type::transaction;
  m.mci.tpipe_name.set(tpipe);
  m.mci.processing_flags = rsn != 0 ? otma::processing::synchronized_tpipe : 0;
  m.mci.recoverable_seq = rsn;
  otma::transaction_state_data sd;
  sd.sync_flags = static_cast<std::uint8_t>(
      (rsn != 0 ? otma::sync_flags::commit_then_send : otma::sync_flags::send_then_commit) |
      otma::sync_flags::sync_level_confirm);
  m.state = sd;
  if (!user.empty()) {
    otma::security_data se;
    se.flag = otma::security_flag::check;
    se.set_user_id(user);
    m.security = se;
  }
  otma::application_data ap;
  ap.segments.push_back(otma::segment{0, ebcdic(text)});
  m.application = ap;
  return m;
}

}  // namespace imsb::test
