#include "imsb/otma/transaction_attributes.hpp"

#include <string>

#include "format_error.hpp"

namespace imsb::otma {

result<transaction_attributes> decode_transaction_attributes(const segment& s, std::size_t offset) {
  if (s.data.size() < transaction_attributes_size) {
    return detail::format_error("OTMA.transaction_attributes", offset,
                                "segment of " + detail::num(s.encoded_size()) +
                                    " bytes; the transaction attributes need 15 with LLZZ");
  }
  transaction_attributes t;
  layout::decode(transaction_attributes_layout, s.data.data(), t);
  t.extension = bytes_view(s.data).sub(transaction_attributes_size).to_bytes();
  return t;
}

segment encode_transaction_attributes(const transaction_attributes& t) {
  segment s;
  s.data.resize(transaction_attributes_size);
  layout::encode(transaction_attributes_layout, t, s.data.data());
  s.data.insert(s.data.end(), t.extension.begin(), t.extension.end());
  return s;
}

void print_transaction_attributes(const transaction_attributes& t, std::size_t offset,
                                  std::vector<printed_field>& out) {
  layout::print(transaction_attributes_layout, t, "transaction_attributes.", offset + llzz_size, out);
  if (!t.extension.empty()) {
    out.push_back({"transaction_attributes.extension", offset + llzz_size + transaction_attributes_size,
                   t.extension.size(), to_hex(t.extension),
                   layout::quote(codepage::get_field(t.extension, name_ccsid))});
  }
}

}  // namespace imsb::otma
