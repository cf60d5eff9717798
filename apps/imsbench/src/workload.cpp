// imsbench --workload: the file of messages, drawn by weight (format: imsbench.hpp,
// docs/programs/imsbench.md).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

#include "imsb/codepage/codepage.hpp"
#include "imsb/imsbench/imsbench.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqiih.hpp"

namespace imsb::imsbench {
namespace {

decode_error bad(const std::string& where, std::string detail) {
  return decode_error{std::make_error_code(std::errc::invalid_argument), where, 0, std::move(detail)};
}

constexpr std::size_t max_segment_data = 32767 - 4;  // LL is a signed halfword and counts itself

// LLZZ segments from `at` to the end, in `order`: true when they add up exactly.
bool segments_add_up(const bytes& d, std::size_t at, byte_order order) {
  if (at >= d.size()) return false;
  while (at < d.size()) {
    if (d.size() - at < 4) return false;
    const std::size_t ll = load_u16(d.data() + at, order);
    if (ll < 5 || ll > 32767 || ll > d.size() - at) return false;
    at += ll;
  }
  return true;
}

// A captured message: MQIIH + LLZZ or LLZZ only; encoding and CCSID from the bytes.
std::optional<std::string> classify(workload_item& w) {
  const bytes& d = *w.data;
  if (d.empty()) return "the file is empty";
  const bool md = d.size() >= 4 && ((d[0] == 'M' && d[1] == 'D' && d[2] == ' ' && d[3] == ' ') ||
                                    (d[0] == 0xD4 && d[1] == 0xC4 && d[2] == 0x40 && d[3] == 0x40));
  if (md) return "it starts with an MQMD (StrucId \"MD  \"): keep only the message data after it";
  const bool iih_ascii = d.size() >= 4 && d[0] == 'I' && d[1] == 'I' && d[2] == 'H' && d[3] == ' ';
  const bool iih_ebcdic = d.size() >= 4 && d[0] == 0xC9 && d[1] == 0xC9 && d[2] == 0xC8 && d[3] == 0x40;
  if (iih_ascii || iih_ebcdic) {
    if (d.size() < mq::MQIIH_LENGTH_1 + 4) return "an MQIIH without LLZZ segments after it";
    // StrucLength (offset 8) is 84: its byte order is the encoding's.
    const bool little = load_u32(d.data() + 8, byte_order::little) == mq::MQIIH_LENGTH_1;
    const bool big = load_u32(d.data() + 8, byte_order::big) == mq::MQIIH_LENGTH_1;
    if (!little && !big) return "an MQIIH whose StrucLength is not 84 in either byte order";
    w.encoding = little ? mq::MQENC_NATIVE_LINUX_X86 : 785;
    w.ccsid = iih_ascii ? 819 : 500;
    auto iih = mq::decode_mqiih(d, w.encoding, w.ccsid);
    if (!iih) return "the MQIIH does not decode: " + iih.error().to_string();
    if (!segments_add_up(d, mq::MQIIH_LENGTH_1, integer_order(w.encoding)))
      return "the LLZZ segments after the MQIIH do not add up to the end of the data";
    w.has_iih = true;
    return std::nullopt;
  }
  const bool little = segments_add_up(d, 0, byte_order::little);
  const bool big = segments_add_up(d, 0, byte_order::big);
  if (!little && !big)
    return "neither an MQIIH (\"IIH \") nor LLZZ segments that add up to the end of the data";
  w.encoding = little ? mq::MQENC_NATIVE_LINUX_X86 : 785;
  // The first byte of data: EBCDIC letters and digits are X'81' and above, ASCII ones below X'80'.
  w.ccsid = d.size() > 4 && d[4] >= 0x80 ? 500 : 819;
  return std::nullopt;
}

std::string dir_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

}  // namespace

result<std::vector<std::string>> split_segments(std::string_view text) {
  std::vector<std::string> segs(1);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\') {
      if (i + 1 < text.size() && (text[i + 1] == '|' || text[i + 1] == '\\')) {
        segs.back() += text[++i];
        continue;
      }
      return bad("", "a '\\' must be followed by '|' or '\\'");
    }
    if (c == '|') {
      segs.emplace_back();
      continue;
    }
    segs.back() += c;
  }
  for (std::size_t i = 0; i < segs.size(); ++i) {
    if (segs[i].empty()) return bad("", "segment " + std::to_string(i + 1) + " is empty");
    if (segs[i].size() > max_segment_data)
      return bad("", "segment " + std::to_string(i + 1) + " is longer than 32763 bytes");
  }
  if (segs[0].size() < 1) return bad("", "no transaction code");
  return segs;
}

result<workload> parse_workload(std::string_view text, const std::string& path,
                                const std::function<result<bytes>(const std::string& file)>& read_file) {
  workload w;
  w.path = path;
  int line_no = 0;
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t end = text.find('\n', from);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(from, end - from);
    from = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string where = path + ":" + std::to_string(line_no);
    std::size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == line.size() || line[i] == '#') continue;
    std::size_t j = i;
    while (j < line.size() && line[j] >= '0' && line[j] <= '9') ++j;
    if (j == i || j - i > 7) return bad(where, "a line starts with its weight, 1..1000000");
    const unsigned long weight = std::stoul(std::string(line.substr(i, j - i)));
    if (weight < 1 || weight > 1000000) return bad(where, "the weight must be 1..1000000");
    if (j == line.size() || (line[j] != ' ' && line[j] != '\t'))
      return bad(where, "the weight must be followed by a blank, then TEXT or @PATH");
    while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
    if (j == line.size()) return bad(where, "the weight must be followed by TEXT or @PATH");
    workload_item item;
    item.line = line_no;
    item.weight = static_cast<std::uint32_t>(weight);
    const std::string_view rest = line.substr(j);
    if (rest[0] == '@') {
      std::string file(rest.substr(1));
      while (!file.empty() && (file.back() == ' ' || file.back() == '\t')) file.pop_back();
      if (file.empty()) return bad(where, "'@' must be followed by a file name");
      item.label = "@" + file;
      const std::string full = file[0] == '/' ? file : dir_of(path) + file;
      auto data = read_file(full);
      if (!data) return bad(where, full + ": " + data.error().detail);
      item.data = std::move(data.value());
      if (auto why = classify(item)) return bad(where, full + ": " + *why);
    } else {
      auto segs = split_segments(rest);
      if (!segs) return bad(where, segs.error().detail);
      item.segments = std::move(segs.value());
      item.label = item.segments[0];
    }
    w.total_weight += item.weight;
    w.items.push_back(std::move(item));
  }
  if (w.items.empty()) return bad(path, "no messages (each line: WEIGHT TEXT or WEIGHT @PATH)");
  return w;
}

result<workload> load_workload(const std::string& path) {
  const auto read = [](const std::string& file) -> result<bytes> {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec)) return bad(file, "is a folder, not a file");
    std::ifstream in(file, std::ios::binary);
    if (!in) return bad(file, "cannot be read");
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const bool hex = file.size() >= 4 && file.compare(file.size() - 4, 4, ".hex") == 0;
    if (!hex) return bytes(content.begin(), content.end());
    bytes out;
    hex_error e;
    if (!from_hex(content, out, &e))
      return bad(file, "not hex text at line " + std::to_string(e.line) + " column " +
                           std::to_string(e.column) + ": " + e.reason);
    return out;
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return bad(path, "is a folder, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return bad(path, "cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_workload(text.str(), path, read);
}

std::mt19937_64 requester_generator(std::uint64_t seed, int index) {
  return std::mt19937_64(seed * 1000003u + static_cast<std::uint64_t>(index));
}

double think_time_ms(const options& o, std::mt19937_64& gen) {
  if (o.think == think_dist::fixed) return o.think_ms;
  const double u = static_cast<double>(gen() >> 11) * 0x1.0p-53;  // [0, 1): 53 random bits
  return -o.think_ms * std::log1p(-u);                            // > 0 ... finite: 1 - u is never 0
}

std::size_t pick(const workload& w, std::uint64_t draw) {
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < w.items.size(); ++i) {
    at += w.items[i].weight;
    if (draw < at) return i;
  }
  return w.items.empty() ? 0 : w.items.size() - 1;
}

}  // namespace imsb::imsbench
