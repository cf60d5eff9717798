// The reply to an architected /DIS TRAN (MQIIH.TranState 'A' [C: IMS-CMDS, OTMA-ARCH-ATTR]): each
// segment is code(8) flag1 flag2 status [error text]; the code and the text come back in the queue
// manager's CCSID, the three flag bytes as IMS set them.
#include <gtest/gtest.h>

#include "bridgemap_test_util.hpp"

namespace imsb::bridgemap {
namespace {

using namespace test;

otma::otma_message architected_output(const std::vector<bytes>& segments) {
  mq::mqiih iih;
  iih.commit_mode = '1';
  iih.tran_state = mq::MQITS_ARCHITECTED;
  request_msg req = make_request(request_md(enc_le, 819, true), iih, {"/DIS TRAN ECHO"});
  validate(req);
  input_context ictx = default_input();
  ictx.synchronized = false;
  ictx.recoverable_seq = 0;
  auto in = build_input(req.md, req.data, req.validated, ictx);
  EXPECT_TRUE(in.ok()) << in.error().to_string();
  otma::otma_message out = output_for(in.ok() ? *in : otma::otma_message{}, {}, 0);
  out.application->segments.clear();
  for (const auto& s : segments) out.application->segments.push_back(otma::segment{0, s});
  return out;
}

bytes attributes(const std::string& code, std::uint8_t f1, std::uint8_t f2, std::uint8_t st,
                 const std::string& error = {}) {
  bytes b = text_in(codepage::pad_field(code, 8), 37);
  b.insert(b.end(), {f1, f2, st});
  const bytes e = text_in(error, 37);
  b.insert(b.end(), e.begin(), e.end());
  return b;
}

TEST(bridgemap_reply_architected, flags_stay_binary_code_is_converted) {
  reply_context ctx = default_reply();
  ctx.architected = true;
  auto r = build_reply(
      architected_output({attributes("ECHO", 0x00, 0xA0, 0x80), attributes("NOSUCH", 0xFF, 0x00, 0x00),
                          attributes("", 0xFE, 0x00, 0x00, "DFS ERR")}),
      ctx);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const bytes seg(r->data.begin() + 84, r->data.end());
  EXPECT_EQ(seg, (bytes{15,  0,   0,   0,   'E', 'C', 'H', 'O', ' ', ' ', ' ', ' ', 0x00, 0xA0, 0x80,  //
                        15,  0,   0,   0,   'N', 'O', 'S', 'U', 'C', 'H', ' ', ' ', 0xFF, 0x00, 0x00,  //
                        22,  0,   0,   0,   ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', 0xFE, 0x00, 0x00,  //
                        'D', 'F', 'S', ' ', 'E', 'R', 'R'}));
}

TEST(bridgemap_reply_architected, without_the_mark_the_segment_is_text) {
  // The same bytes as ordinary command output: all of it converted (X'A0' in 037 is not X'A0' in 819).
  auto r = build_reply(architected_output({attributes("ECHO", 0x00, 0xA0, 0x80)}), default_reply());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->data.size(), 84u + 15);
  EXPECT_EQ(r->data[84 + 4], 'E');
  EXPECT_NE(r->data[84 + 13], 0xA0);
}

}  // namespace
}  // namespace imsb::bridgemap
