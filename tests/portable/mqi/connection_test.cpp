// The MQI contract's helpers (imsb/mqi/connection.hpp): checked reason accessors, the result's completion
// code, and the native encoding of a platform — run on x86-64 and, under qemu, on s390x (big-endian).

#include "imsb/mqi/connection.hpp"

#include <gtest/gtest.h>

#include <string>
#include <system_error>

#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"

namespace imsb::mqi {
namespace {

TEST(MqiContract, ReasonOfReadsOnlyAnMqrc) {
  EXPECT_EQ(reason_of(decode_error{mq::make_mqrc(mq::MQRC_Q_FULL), "MQPUT", 0, "full"}), mq::MQRC_Q_FULL);
  // Another category's number is never read as a reason.
  EXPECT_EQ(reason_of(decode_error{mq::make_mqfb(mq::MQFB_IIH_ERROR), "MQIIH", 0, "bad"}),
            mq::MQRC_UNEXPECTED_ERROR);
  EXPECT_EQ(reason_of(decode_error{std::make_error_code(std::errc::bad_message), "frame", 0, "bad"}),
            mq::MQRC_UNEXPECTED_ERROR);
  EXPECT_EQ(mq::feedback_of(mq::make_mqfb(mq::MQFB_IIH_ERROR)), mq::MQFB_IIH_ERROR);
  EXPECT_EQ(mq::feedback_of(mq::make_mqrc(mq::MQRC_Q_FULL)), mq::MQRC_Q_FULL);
  EXPECT_EQ(mq::feedback_of(std::make_error_code(std::errc::io_error)), mq::MQRC_UNEXPECTED_ERROR);
}

TEST(MqiContract, ConnectionGoneReasons) {
  for (std::int32_t rc : {2009, 2018, 2059, 2161, 2162, 2202, 2203})
    EXPECT_TRUE(is_connection_gone(rc)) << rc;
  for (std::int32_t rc : {0, 2019, 2033, 2035, 2053, 2085, 2195}) EXPECT_FALSE(is_connection_gone(rc)) << rc;
}

TEST(MqiContract, CompletionCodeOfOkWarningAndFailed) {
  result<int> ok(7);
  EXPECT_EQ(ok.completion_code(), mq::MQCC_OK);
  EXPECT_EQ(ok.reason(), mq::MQRC_NONE);
  EXPECT_EQ(ok.detail(), "");
  auto warn = result<int>::warning(7, mq::MQRC_TRUNCATED_MSG_ACCEPTED, "cut");
  ASSERT_TRUE(warn.ok());
  EXPECT_EQ(*warn, 7);
  EXPECT_EQ(warn.completion_code(), mq::MQCC_WARNING);
  EXPECT_EQ(warn.reason(), mq::MQRC_TRUNCATED_MSG_ACCEPTED);
  EXPECT_EQ(warn.detail(), "cut");
  result<int> failed(decode_error{mq::make_mqrc(mq::MQRC_NO_MSG_AVAILABLE), "MQGET", 0, "empty"});
  EXPECT_EQ(failed.completion_code(), mq::MQCC_FAILED);
  EXPECT_EQ(failed.reason(), mq::MQRC_NO_MSG_AVAILABLE);
  EXPECT_EQ(failed.detail(), "empty");
}

TEST(MqiContract, NativeEncodingOfThePlatform) {
  EXPECT_EQ(native_encoding_of(mq::MQPL_ZOS), mq::MQENC_NATIVE_ZOS);
  // This machine's, known here from the compiler rather than by the library's own probe.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  EXPECT_EQ(native_encoding_of(mq::MQPL_UNIX), mq::MQENC_S390_LINUX);
#else
  EXPECT_EQ(native_encoding_of(mq::MQPL_UNIX), mq::MQENC_NATIVE_LINUX_X86);
#endif
}

}  // namespace
}  // namespace imsb::mqi
