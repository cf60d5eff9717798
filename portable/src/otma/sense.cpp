#include "imsb/otma/sense.hpp"

#include <string>

#include "imsb/core/bytes.hpp"

namespace imsb::otma {

std::optional<sense_info> find_sense(std::uint16_t code) noexcept {
  for (const sense_info& s : sense_table) {
    if (s.code == code) return s;
  }
  return std::nullopt;
}

std::optional<sense_info> find_sense(std::string_view name) noexcept {
  for (const sense_info& s : sense_table) {
    if (s.name == name) return s;
  }
  return std::nullopt;
}

std::optional<reason_info> find_reason(std::uint16_t sense_code, std::uint16_t reason) noexcept {
  for (const reason_info& r : reason_table) {
    if (r.sense == sense_code && r.reason == reason) return r;
  }
  return std::nullopt;
}

std::optional<reason_info> find_reason(std::string_view name) noexcept {
  for (const reason_info& r : reason_table) {
    if (r.name == name) return r;
  }
  return std::nullopt;
}

std::string sense_hex(std::uint16_t code) {
  std::uint8_t wire[2];
  store_u16(wire, code, byte_order::big);
  return "X'" + to_hex(bytes_view(wire, 2)) + "'";
}

namespace {

class sense_category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "otma_sense"; }
  std::string message(int ev) const override {
    if (ev < 0 || ev > 0xFFFF) return "OTMA sense code " + std::to_string(ev) + " (out of range)";
    const auto code = static_cast<std::uint16_t>(ev);
    std::string s = "OTMA sense " + sense_hex(code);
    if (auto info = find_sense(code)) {
      s += ' ';
      s += info->name;
      s += ": ";
      s += info->meaning;
      if (!info->ibm_confirmed) s += " [D]";
    }
    return s;
  }
};

}  // namespace

const std::error_category& otma_sense_category() noexcept {
  static const sense_category category;
  return category;
}

std::error_code make_sense(std::uint16_t sense_code) noexcept {
  return std::error_code(static_cast<int>(sense_code), otma_sense_category());
}

std::int32_t feedback_for_nak(std::uint16_t sense_code, std::uint16_t reason) noexcept {
  // [C: IMS-FB-CODES]: "The IMS-OTMA sense code is converted from a hexadecimal number to a decimal
  // number. 300 is added ... 0x001A is a special case ... the reason code ... 600 is added."
  if (sense_code == sense::rejected_see_reason) {
    const std::int32_t fb = feedback::ims_nack_1a_reason_first + reason;
    return fb <= feedback::ims_nack_1a_reason_last ? fb : feedback::ims_error;
  }
  const std::int32_t fb = feedback::ims_error + sense_code;
  // Sense 0 lands on 300 itself; above X'63' the sum would leave MQFB_IMS_FIRST..LAST and read as an
  // unrelated MQFB code, so IBM's catch-all MQFB_IMS_ERROR stands in (header comment) [D].
  return fb <= feedback::ims_last ? fb : feedback::ims_error;
}

std::optional<std::pair<std::uint16_t, std::uint16_t>> nak_for_feedback(std::int32_t feedback) noexcept {
  if (feedback >= feedback::ims_first && feedback <= feedback::ims_last) {
    const auto code = static_cast<std::uint16_t>(feedback - feedback::ims_error);
    if (code == sense::rejected_see_reason) return std::nullopt;  // X'1A' is reported as 600 + reason
    return std::make_pair(code, std::uint16_t{0});
  }
  if (feedback >= feedback::ims_nack_1a_reason_first && feedback <= feedback::ims_nack_1a_reason_last) {
    return std::make_pair(sense::rejected_see_reason,
                          static_cast<std::uint16_t>(feedback - feedback::ims_nack_1a_reason_first));
  }
  return std::nullopt;
}

}  // namespace imsb::otma
