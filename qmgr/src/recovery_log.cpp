// The recovery log: record and queue-file codecs, recovery, the group-commit writer and checkpoints
// (recovery_log.hpp has the design; everything here is [D] unless marked).

#include "imsb/qmgr/recovery_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <unordered_map>
#include <utility>

#include "blocking.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/sync/mutex.hpp"
#include "store_io.hpp"

namespace imsb::qmgr {

namespace detail {
void (*after_checkpoint_queue_file)(std::size_t files_written) = nullptr;
void (*after_folder_fsync)(const std::filesystem::path& folder) = nullptr;
void (*before_log_write)() = nullptr;
}  // namespace detail

namespace {

// Record types. A batch is its ops then one commit record carrying the op count.
constexpr std::uint8_t rec_put = 1;
constexpr std::uint8_t rec_get = 2;
constexpr std::uint8_t rec_backout = 3;
constexpr std::uint8_t rec_commit = 0x10;
// A record longer than this is damage, not data: MQ's largest message (100 MB) plus room [D].
constexpr std::uint32_t max_record = (100u << 20) + (1u << 20);

constexpr std::array<char, 8> queue_magic{'I', 'M', 'S', 'B', 'Q', 'F', '0', '1'};
constexpr std::array<char, 8> control_magic{'I', 'M', 'S', 'B', 'L', 'C', '0', '1'};

// --- big-endian writer and bounded reader -------------------------------------------------------

void put_u8(bytes& out, std::uint8_t v) { out.push_back(v); }
void put_u16(bytes& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}
void put_u32(bytes& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}
void put_u64(bytes& out, std::uint64_t v) {
  for (int s = 56; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}
void put_blob(bytes& out, bytes_view b) {
  put_u32(out, static_cast<std::uint32_t>(b.size()));
  out.insert(out.end(), b.begin(), b.end());
}
void put_name(bytes& out, const std::string& name) {
  const std::size_t n = std::min<std::size_t>(name.size(), 0xFFFF);
  put_u16(out, static_cast<std::uint16_t>(n));
  out.insert(out.end(), name.begin(), name.begin() + static_cast<std::ptrdiff_t>(n));
}
void set_u32(bytes& out, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}

class reader {
 public:
  explicit reader(bytes_view in) : in_(in) {}
  bool ok() const noexcept { return ok_; }
  std::size_t offset() const noexcept { return pos_; }
  bool at_end() const noexcept { return pos_ == in_.size(); }
  std::uint64_t uint(int n) {
    if (!need(static_cast<std::size_t>(n))) return 0;
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | in_[pos_++];
    return v;
  }
  bytes blob(std::size_t n) {
    if (!need(n)) return {};
    bytes b(in_.begin() + pos_, in_.begin() + pos_ + n);
    pos_ += n;
    return b;
  }
  std::string name() {
    const std::size_t n = static_cast<std::size_t>(uint(2));
    if (!need(n)) return {};
    std::string s(reinterpret_cast<const char*>(in_.data()) + pos_, n);
    pos_ += n;
    return s;
  }
  mqi::message_token token() {
    mqi::message_token t{};
    if (!need(t.size())) return t;
    std::copy(in_.begin() + pos_, in_.begin() + pos_ + t.size(), t.begin());
    pos_ += t.size();
    return t;
  }

 private:
  bool need(std::size_t n) {
    if (!ok_ || n > in_.size() - pos_) {
      ok_ = false;
      return false;
    }
    return true;
  }
  bytes_view in_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

void put_message(bytes& out, const stored_message& m) {
  out.insert(out.end(), m.token.begin(), m.token.end());
  put_u64(out, static_cast<std::uint64_t>(m.put_time_ms));
  put_u32(out, static_cast<std::uint32_t>(m.backout_count));
  put_blob(out, m.md);
  put_blob(out, m.data);
}
stored_message get_message(reader& r) {
  stored_message m;
  m.token = r.token();
  m.put_time_ms = static_cast<std::int64_t>(r.uint(8));
  m.backout_count = static_cast<std::int32_t>(r.uint(4));
  m.md = r.blob(static_cast<std::size_t>(r.uint(4)));
  m.data = r.blob(static_cast<std::size_t>(r.uint(4)));
  return m;
}

// One record: u32 length of type+payload, u32 CRC-32C of type+payload, type, payload.
void put_record(bytes& out, std::uint8_t type, const bytes& payload) {
  put_u32(out, static_cast<std::uint32_t>(payload.size() + 1));
  const std::size_t crc_at = out.size();
  put_u32(out, 0);
  const std::size_t body = out.size();
  put_u8(out, type);
  out.insert(out.end(), payload.begin(), payload.end());
  set_u32(out, crc_at, log_codec::crc32c(bytes_view(out.data() + body, out.size() - body)));
}

std::array<std::uint32_t, 256> make_crc_table() noexcept {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? (c >> 1) ^ 0x82F63B78u : c >> 1;  // Castagnoli, reflected
    t[i] = c;
  }
  return t;
}

decode_error mq_error(std::int32_t rc, std::string field, std::string detail) {
  return decode_error{mq::make_mqrc(rc), std::move(field), 0, std::move(detail)};
}

std::string extent_name(std::uint64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "S%07llu.LOG", static_cast<unsigned long long>(n));
  return buf;
}

// --- the control file ---------------------------------------------------------------------------

struct control_data {
  std::uint64_t incarnation = 0;
  std::uint64_t next_token = 1;
  std::uint64_t oldest_extent = 0;
  std::set<std::string> queues;  // queues whose files held messages at the last checkpoint
};

bytes encode_control(const control_data& c) {
  bytes out(control_magic.begin(), control_magic.end());
  put_u64(out, c.incarnation);
  put_u64(out, c.next_token);
  put_u64(out, c.oldest_extent);
  put_u32(out, static_cast<std::uint32_t>(c.queues.size()));
  for (const auto& q : c.queues) put_name(out, q);
  put_u32(out, log_codec::crc32c(out));
  return out;
}

std::optional<control_data> decode_control(bytes_view in) {
  if (in.size() < control_magic.size() + 4 ||
      !std::equal(control_magic.begin(), control_magic.end(), in.begin()))
    return std::nullopt;
  reader crc_r(in.sub(in.size() - 4));
  if (crc_r.uint(4) != log_codec::crc32c(in.sub(0, in.size() - 4))) return std::nullopt;
  reader r(in.sub(control_magic.size(), in.size() - 4 - control_magic.size()));
  control_data c;
  c.incarnation = r.uint(8);
  c.next_token = r.uint(8);
  c.oldest_extent = r.uint(8);
  const std::uint64_t n = r.uint(4);
  for (std::uint64_t i = 0; i < n && r.ok(); ++i) c.queues.insert(r.name());
  if (!r.ok() || !r.at_end()) return std::nullopt;
  return c;
}

// --- CRC-32C, incremental and combined ----------------------------------------------------------

constexpr std::uint32_t crc_poly = 0x82F63B78u;  // Castagnoli, reflected

// CRC-32C of `in` continuing from `crc` (the CRC of what came before it; 0 for nothing), as zlib's
// crc32(crc, buf, len) does for its polynomial.
std::uint32_t crc32c_extend(std::uint32_t crc, bytes_view in) noexcept {
  static const std::array<std::uint32_t, 256> table = make_crc_table();
  std::uint32_t c = crc ^ 0xFFFFFFFFu;
  for (auto b : in) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

// a·b modulo the polynomial (reflected bit order: x^0 is the top bit), and x^(8·n) modulo it: what
// zlib's crc32_combine uses, for CRC-32C. combine(crc(A), crc(B), |B|) = crc(A ‖ B).
std::uint32_t mult_mod_p(std::uint32_t a, std::uint32_t b) noexcept {
  std::uint32_t m = 1u << 31;
  std::uint32_t p = 0;
  for (;;) {
    if ((a & m) != 0) {
      p ^= b;
      if ((a & (m - 1)) == 0) break;
    }
    m >>= 1;
    b = (b & 1) != 0 ? (b >> 1) ^ crc_poly : b >> 1;
  }
  return p;
}
std::uint32_t x8n_mod_p(std::uint64_t n) noexcept {
  std::uint32_t p = 1u << 31;       // x^0
  std::uint32_t square = 1u << 23;  // x^8
  while (n != 0) {
    if ((n & 1) != 0) p = mult_mod_p(square, p);
    square = mult_mod_p(square, square);
    n >>= 1;
  }
  return p;
}
std::uint32_t crc32c_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t length_b) noexcept {
  return mult_mod_p(x8n_mod_p(length_b), crc_a) ^ crc_b;
}

// --- small POSIX helpers ------------------------------------------------------------------------

// Every folder fsync of the log goes through here (the test hook sees them).
result<done> sync_folder(const std::filesystem::path& folder) {
  auto synced = io::fsync_folder(folder);
  if (!synced) return synced.error();
  if (detail::after_folder_fsync != nullptr) detail::after_folder_fsync(folder);
  return std::monostate{};
}

bool is_space_error(int err) noexcept { return err == ENOSPC || err == EFBIG || err == EDQUOT; }

// An I/O failure of a checkpoint or control file: a full file system is MQRC_Q_SPACE_NOT_AVAILABLE
// (2056), as for a batch; anything else keeps errno (io::error_from_errno).
decode_error file_error(const std::filesystem::path& path, const char* what, int err) {
  if (is_space_error(err))
    return mq_error(mq::MQRC_Q_SPACE_NOT_AVAILABLE, path.string(),
                    std::string(what) + ": " + std::strerror(err) + " (the file system is full)");
  return io::error_from_errno(path, what, err);
}

// A file written through a bounded buffer; the first error is kept and later calls do nothing.
class buffered_file {
 public:
  static constexpr std::size_t capacity = 64 * 1024;
  explicit buffered_file(int fd) : fd_(fd) { buffer_.reserve(capacity); }
  int error() const noexcept { return err_; }
  std::uint64_t flushed() const noexcept { return flushed_; }
  bytes& buffer() noexcept { return buffer_; }
  void add(bytes_view b) {
    if (err_ != 0) return;
    if (buffer_.size() + b.size() <= capacity) {
      buffer_.insert(buffer_.end(), b.begin(), b.end());
      return;
    }
    flush();
    if (b.size() >= capacity) {
      write_all(b);  // a long md or data goes straight from the message
    } else {
      buffer_.insert(buffer_.end(), b.begin(), b.end());
    }
  }
  void flush() {
    if (err_ == 0 && !buffer_.empty()) write_all(buffer_);
    buffer_.clear();
  }
  void write_at(std::uint64_t offset, bytes_view b) {
    std::size_t off = 0;
    while (err_ == 0 && off < b.size()) {
      const ssize_t n = ::pwrite(fd_, b.data() + off, b.size() - off, static_cast<off_t>(offset + off));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) err_ = errno;
      if (n > 0) off += static_cast<std::size_t>(n);
    }
  }

 private:
  void write_all(bytes_view b) {
    std::size_t off = 0;
    while (err_ == 0 && off < b.size()) {
      const ssize_t n = ::write(fd_, b.data() + off, b.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) err_ = errno;
      if (n > 0) off += static_cast<std::size_t>(n);
    }
    flushed_ += off;
  }
  int fd_;
  int err_ = 0;
  std::uint64_t flushed_ = 0;
  bytes buffer_;
};

// Puts `tmp` in place of `path`: (fsync the file,) close, rename, (fsync the folder). On failure the
// temporary file is removed (its space given back) and `path` is untouched (unless only the folder's
// fsync failed).
result<done> put_in_place(int fd, const std::filesystem::path& tmp, const std::filesystem::path& path,
                          bool sync) {
  if (sync && ::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return file_error(tmp, "fsync", err);
  }
  if (::close(fd) != 0 && errno != EINTR) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return file_error(tmp, "close", err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return file_error(path, "rename", err);
  }
  if (sync) return sync_folder(path.parent_path());
  return std::monostate{};
}

result<bytes> read_all(const std::filesystem::path& path) {
  auto text = io::read_file(path);
  if (!text) return text.error();
  return bytes(text->begin(), text->end());
}

// Temporary file, (fsync), rename, (fsync of the folder): a crash leaves the old file or the new one.
result<done> write_atomically(const std::filesystem::path& path, const bytes& content, bool sync,
                              const char* tmp_suffix) {
  std::filesystem::path tmp = path;
  tmp += tmp_suffix;
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return file_error(tmp, "create", errno);
  buffered_file out(fd);
  out.write_at(0, content);
  if (out.error() != 0) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return file_error(tmp, "write", out.error());
  }
  return put_in_place(fd, tmp, path, sync);
}

// One queue file streamed from `source`: exactly the bytes encode_queue_file() makes for the same
// messages, through a 64 KiB buffer. The count precedes the messages but is known only at the end, so
// it is written as 0, patched afterwards, and the file's CRC (which covers it) is the CRC of the first
// 20 bytes combined with the CRC of the messages, computed as they go [D].
result<done> write_queue_file(const std::filesystem::path& path, std::uint64_t checkpoint,
                              const recovery_log::message_source& source, bool sync, bool& has_messages) {
  std::filesystem::path tmp = path;
  tmp += ".ckpt";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return file_error(tmp, "create", errno);
  buffered_file out(fd);
  bytes head(queue_magic.begin(), queue_magic.end());
  put_u64(head, checkpoint);
  put_u32(head, 0);  // the count, patched below
  out.add(head);
  std::uint32_t body_crc = 0;
  std::uint64_t body_bytes = 0;
  std::uint64_t count = 0;
  const auto add = [&](bytes_view b) {
    body_crc = crc32c_extend(body_crc, b);
    body_bytes += b.size();
    out.add(b);
  };
  stored_message next;
  bytes fields;
  bool too_many = false;
  while (out.error() == 0 && source && source(next)) {
    if (count == 0xFFFFFFFFu) {
      too_many = true;
      break;
    }
    ++count;
    fields.clear();  // put_message's layout, md and data written from the message itself
    fields.insert(fields.end(), next.token.begin(), next.token.end());
    put_u64(fields, static_cast<std::uint64_t>(next.put_time_ms));
    put_u32(fields, static_cast<std::uint32_t>(next.backout_count));
    put_u32(fields, static_cast<std::uint32_t>(next.md.size()));
    add(fields);
    add(next.md);
    fields.clear();
    put_u32(fields, static_cast<std::uint32_t>(next.data.size()));
    add(fields);
    add(next.data);
  }
  if (too_many) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return mq_error(mq::MQRC_RESOURCE_PROBLEM, path.string(), "more than 4294967295 messages in one queue");
  }
  set_u32(head, queue_magic.size() + 8, static_cast<std::uint32_t>(count));
  if (out.flushed() == 0) {
    set_u32(out.buffer(), queue_magic.size() + 8, static_cast<std::uint32_t>(count));
  } else {
    out.write_at(queue_magic.size() + 8, bytes_view(head.data() + queue_magic.size() + 8, 4));
  }
  fields.clear();
  put_u32(fields, crc32c_combine(log_codec::crc32c(head), body_crc, body_bytes));
  out.add(fields);
  out.flush();
  if (out.error() != 0) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return file_error(tmp, "write", out.error());
  }
  has_messages = count > 0;
  return put_in_place(fd, tmp, path, sync);
}

// The extent numbers present in log/, ascending.
std::vector<std::uint64_t> list_extents(const std::filesystem::path& log_dir) {
  std::vector<std::uint64_t> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(log_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() != 12 || name[0] != 'S' || name.compare(8, 4, ".LOG") != 0) continue;
    if (!std::all_of(name.begin() + 1, name.begin() + 8, [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    out.push_back(std::stoull(name.substr(1, 7)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct token_hash {
  std::size_t operator()(const mqi::message_token& t) const noexcept {
    std::size_t h = 1469598103934665603ull;
    for (auto b : t) h = (h ^ b) * 1099511628211ull;
    return h;
  }
};

}  // namespace

// --- codecs -------------------------------------------------------------------------------------

namespace log_codec {

std::uint32_t crc32c(bytes_view in) noexcept {
  static const std::array<std::uint32_t, 256> table = make_crc_table();
  std::uint32_t c = 0xFFFFFFFFu;
  for (auto b : in) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

void encode_batch(const std::vector<log_op>& batch, bytes& out) {
  bytes payload;
  for (const auto& op : batch) {
    payload.clear();
    put_name(payload, op.queue);
    switch (op.what) {
      case log_op::kind::put:
        put_message(payload, op.message);
        put_record(out, rec_put, payload);
        break;
      case log_op::kind::get:
        payload.insert(payload.end(), op.message.token.begin(), op.message.token.end());
        put_record(out, rec_get, payload);
        break;
      case log_op::kind::backout_count:
        payload.insert(payload.end(), op.message.token.begin(), op.message.token.end());
        put_u32(payload, static_cast<std::uint32_t>(op.message.backout_count));
        put_record(out, rec_backout, payload);
        break;
    }
  }
  payload.clear();
  put_u32(payload, static_cast<std::uint32_t>(batch.size()));
  put_record(out, rec_commit, payload);
}

extent_contents decode_extent(bytes_view in) {
  extent_contents out;
  std::vector<log_op> pending;
  std::size_t pos = 0;
  while (in.size() - pos >= 9) {
    reader head(in.sub(pos, 8));
    const std::uint64_t length = head.uint(4);
    const std::uint64_t crc = head.uint(4);
    if (length == 0 || length > max_record || length > in.size() - pos - 8) break;
    const bytes_view body = in.sub(pos + 8, static_cast<std::size_t>(length));
    if (crc32c(body) != crc) break;
    reader r(body.sub(1));
    const std::uint8_t type = body[0];
    if (type == rec_commit) {
      const std::uint64_t count = r.uint(4);
      if (!r.ok() || !r.at_end() || count != pending.size()) break;
      out.batches.push_back(std::move(pending));
      pending.clear();
      pos += 8 + static_cast<std::size_t>(length);
      out.good_bytes = pos;
      continue;
    }
    log_op op;
    op.queue = r.name();
    if (type == rec_put) {
      op.what = log_op::kind::put;
      op.message = get_message(r);
    } else if (type == rec_get) {
      op.what = log_op::kind::get;
      op.message.token = r.token();
    } else if (type == rec_backout) {
      op.what = log_op::kind::backout_count;
      op.message.token = r.token();
      op.message.backout_count = static_cast<std::int32_t>(r.uint(4));
    } else {
      break;
    }
    if (!r.ok() || !r.at_end()) break;
    pending.push_back(std::move(op));
    pos += 8 + static_cast<std::size_t>(length);
  }
  return out;
}

// "IMSBQF01", u64 checkpoint, u32 count, the messages, u32 CRC-32C of everything before it. Empty
// input: checkpoint 0, no messages (what store.save() makes for a new queue).
void encode_queue_file(std::uint64_t checkpoint, const std::vector<stored_message>& messages, bytes& out) {
  const std::size_t start = out.size();
  out.insert(out.end(), queue_magic.begin(), queue_magic.end());
  put_u64(out, checkpoint);
  put_u32(out, static_cast<std::uint32_t>(messages.size()));
  for (const auto& m : messages) put_message(out, m);
  put_u32(out, crc32c(bytes_view(out.data() + start, out.size() - start)));
}

result<std::pair<std::uint64_t, std::vector<stored_message>>> decode_queue_file(bytes_view in) {
  using value = std::pair<std::uint64_t, std::vector<stored_message>>;
  if (in.empty()) return value{0, {}};
  if (in.size() < queue_magic.size() + 16 || !std::equal(queue_magic.begin(), queue_magic.end(), in.begin()))
    return decode_error{mq::make_mqrc(mq::MQRC_OBJECT_DAMAGED), "queue_file.header", 0,
                        "not a queue file (expected IMSBQF01 and at least 24 bytes)"};
  reader crc_r(in.sub(in.size() - 4));
  const std::uint64_t want = crc_r.uint(4);
  if (want != crc32c(in.sub(0, in.size() - 4)))
    return decode_error{mq::make_mqrc(mq::MQRC_OBJECT_DAMAGED), "queue_file.crc", in.size() - 4,
                        "checksum does not match the contents"};
  reader r(in.sub(queue_magic.size(), in.size() - 4 - queue_magic.size()));
  value v;
  v.first = r.uint(8);
  const std::uint64_t count = r.uint(4);
  for (std::uint64_t i = 0; i < count && r.ok(); ++i) v.second.push_back(get_message(r));
  if (!r.ok() || !r.at_end())
    return decode_error{mq::make_mqrc(mq::MQRC_OBJECT_DAMAGED), "queue_file.messages",
                        queue_magic.size() + r.offset(), "message list does not fill the file exactly"};
  return v;
}

}  // namespace log_codec

// --- the log ------------------------------------------------------------------------------------

struct recovery_log::impl {
  std::filesystem::path log_dir;
  queue_file_fn queue_file;
  log_options options;
  // Guards what follows down to the writer's own state.
  mutable sync::mutex mu;
  control_data control IMSB_GUARDED_BY(mu);

  sync::condition_variable work_cv;  // the writer waits for work
  sync::condition_variable done_cv;  // a checkpoint waits for the batches before it
  struct pending_batch {
    std::uint64_t seq;
    std::uint64_t extent;
    bytes data;
  };
  std::deque<pending_batch> pending IMSB_GUARDED_BY(mu);
  std::multimap<std::uint64_t, std::function<void()>> watchers IMSB_GUARDED_BY(mu);  // when_durable(), by seq
  std::uint64_t next_seq IMSB_GUARDED_BY(mu) = 1;
  std::uint64_t completed_seq IMSB_GUARDED_BY(mu) = 0;       // every seq ≤ this is durable or failed
  std::set<std::uint64_t> failed_space IMSB_GUARDED_BY(mu);  // seqs that did not fit (2056), until waited for
  std::optional<decode_error> fatal IMSB_GUARDED_BY(mu);     // the log failed: every later call fails
  std::uint64_t append_extent IMSB_GUARDED_BY(mu) = 0;       // the extent append() targets
  std::uint64_t append_extent_bytes IMSB_GUARDED_BY(mu) = 0;
  // A batch of append_extent is on disk: a checkpoint would retire it.
  bool append_extent_written IMSB_GUARDED_BY(mu) = false;
  // A write failed for space since the last begin_checkpoint().
  bool space_failed IMSB_GUARDED_BY(mu) = false;
  std::uint64_t closed_seq IMSB_GUARDED_BY(mu) = ~std::uint64_t{0};  // close(): every later seq fails
  bool checkpoint_running IMSB_GUARDED_BY(mu) = false;
  std::uint64_t checkpoint_seq IMSB_GUARDED_BY(mu) = 0;  // the last seq of the extent being checkpointed
  std::uint64_t checkpoint_next_token IMSB_GUARDED_BY(mu) = 1;
  std::set<std::string> seen_queues IMSB_GUARDED_BY(mu);  // named by a batch since the last checkpoint
  bool stopping IMSB_GUARDED_BY(mu) = false;
  stats st IMSB_GUARDED_BY(mu);

  // The writer's own state (only the writer thread touches it once started).
  int fd = -1;
  std::uint64_t fd_extent = 0;
  std::uint64_t good_size = 0;
  std::uint64_t allocated = 0;  // the file's size: good_size and the zeros written ahead of it
  std::thread writer;
  // The zeros ahead of good_size go (a clean end, or the extent is left for the next): the file holds its
  // batches only. A crash leaves them, and recovery reads them as the end of the extent.
  void trim_zeros() {
    if (fd >= 0 && allocated > good_size && ::ftruncate(fd, static_cast<off_t>(good_size)) == 0)
      allocated = good_size;
  }
  // Zeros written ahead so that [good_size, good_size + n) lies inside the file (preallocation, above).
  // Failing (a full file system) writes none: the batches are written as before, and fail there if
  // they must.
  void allocate_ahead(std::uint64_t n);

  void writer_loop();
  bool durable_locked(std::uint64_t seq) const IMSB_REQUIRES(mu) {
    return completed_seq >= seq || fatal.has_value() || seq > closed_seq;
  }
  // The watchers whose batch is durable now (or never will be), to be called outside mu.
  std::vector<std::function<void()>> due_watchers_locked() IMSB_REQUIRES(mu) {
    std::vector<std::function<void()>> due;
    for (auto it = watchers.begin(); it != watchers.end();) {
      if (!durable_locked(it->first)) {
        ++it;
        continue;
      }
      due.push_back(std::move(it->second));
      it = watchers.erase(it);
    }
    return due;
  }
  result<done> open_extent(std::uint64_t n);
};

// [D] An extent grows by this many zero bytes at a time, ahead of its batches: a batch then overwrites
// bytes the file already has, so the writer's fdatasync writes the data, not also the inode of a file
// whose size changed — under load that inode write was a third of the writer's waits
// (bench/RESULTS.md, "The recovery log written ahead in zeros"). decode_extent() stops at the zeros
// (a record length of 0), as at a torn tail; the inode is written once per step, with the batch that
// needs it. imsemu's journal does the same (imsemu/src/journal.cpp).
constexpr std::uint64_t preallocation = std::uint64_t{1} << 20;

void recovery_log::impl::allocate_ahead(std::uint64_t n) {
  const std::uint64_t from = std::max(allocated, good_size);  // (a failed allocation left none ahead)
  if (good_size + n <= from) return;
  const std::uint64_t want = (good_size + n + preallocation - 1) / preallocation * preallocation;
  const bytes zeros(static_cast<std::size_t>(want - from), 0);
  std::size_t off = 0;
  while (off < zeros.size()) {
    const ssize_t w = ::pwrite(fd, zeros.data() + off, zeros.size() - off, static_cast<off_t>(from + off));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      (void)::ftruncate(fd, static_cast<off_t>(from));  // none of them, then
      allocated = from;
      return;
    }
    off += static_cast<std::size_t>(w);
  }
  allocated = want;
}

result<done> recovery_log::impl::open_extent(std::uint64_t n) {
  trim_zeros();  // the extent left behind keeps its batches only
  if (fd >= 0) ::close(fd);
  fd = -1;  // never left naming a closed descriptor (the destructor closes fd)
  const auto path = log_dir / extent_name(n);
  fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return io::error_from_errno(path, "create extent", errno);
  struct stat sb {};
  if (::fstat(fd, &sb) != 0) return io::error_from_errno(path, "fstat", errno);
  good_size = static_cast<std::uint64_t>(sb.st_size);
  allocated = good_size;
  fd_extent = n;
  if (options.fsync) {
    if (auto synced = sync_folder(log_dir); !synced) return synced.error();
  }
  return std::monostate{};
}

void recovery_log::impl::writer_loop() {
  for (;;) {
    std::vector<pending_batch> work;
    {
      sync::unique_lock lock(mu);
      while (!stopping && pending.empty()) work_cv.wait(lock);
      if (pending.empty()) return;  // stopping with nothing left
      if (detail::before_log_write != nullptr) {
        lock.unlock();
        detail::before_log_write();
        lock.lock();
      }
      while (!pending.empty()) {
        work.push_back(std::move(pending.front()));
        pending.pop_front();
      }
    }
    std::optional<decode_error> error;
    std::set<std::uint64_t> no_space;
    std::set<std::uint64_t> written_extents;
    std::uint64_t written_bytes = 0;
    std::uint64_t fsyncs = 0;
    std::size_t i = 0;
    bool dirty = false;
    while (i < work.size() && !error) {
      // The batches of one extent: one write. A new extent only after the old one is durable, so that
      // only the last extent can ever have a torn tail.
      if (fd < 0 || work[i].extent != fd_extent) {
        if (fd >= 0 && dirty && options.fsync) {
          if (::fdatasync(fd) != 0) {
            error = mq_error(mq::MQRC_RESOURCE_PROBLEM, (log_dir / extent_name(fd_extent)).string(),
                             std::string("fdatasync: ") + std::strerror(errno));
            break;
          }
          ++fsyncs;
        }
        dirty = false;
        if (auto opened = open_extent(work[i].extent); !opened) {
          error = mq_error(mq::MQRC_RESOURCE_PROBLEM, opened.error().field, opened.error().detail);
          break;
        }
      }
      std::size_t j = i;
      bytes buffer;
      while (j < work.size() && work[j].extent == fd_extent) {
        buffer.insert(buffer.end(), work[j].data.begin(), work[j].data.end());
        ++j;
      }
      allocate_ahead(buffer.size());
      std::size_t off = 0;
      int err = 0;
      while (off < buffer.size()) {
        const ssize_t n =
            ::pwrite(fd, buffer.data() + off, buffer.size() - off, static_cast<off_t>(good_size + off));
        if (n < 0) {
          if (errno == EINTR) continue;
          err = errno;
          break;
        }
        off += static_cast<std::size_t>(n);
      }
      if (is_space_error(err)) {
        // A full file system: give the space back and fail just these batches (2056).
        allocated = good_size;  // the zeros ahead go too
        if (::ftruncate(fd, static_cast<off_t>(good_size)) != 0) {
          error = mq_error(mq::MQRC_RESOURCE_PROBLEM, (log_dir / extent_name(fd_extent)).string(),
                           std::string("ftruncate after a full file system: ") + std::strerror(errno));
          break;
        }
        for (std::size_t k = i; k < j; ++k) no_space.insert(work[k].seq);
      } else if (err != 0) {
        error = mq_error(mq::MQRC_RESOURCE_PROBLEM, (log_dir / extent_name(fd_extent)).string(),
                         std::string("write: ") + std::strerror(err));
        break;
      } else {
        good_size += buffer.size();
        written_bytes += buffer.size();
        written_extents.insert(fd_extent);
        dirty = true;
      }
      i = j;
    }
    if (!error && dirty && options.fsync) {
      if (::fdatasync(fd) != 0) {
        // After a failed fsync the page cache cannot be trusted: the log is finished [D].
        error = mq_error(mq::MQRC_RESOURCE_PROBLEM, (log_dir / extent_name(fd_extent)).string(),
                         std::string("fdatasync: ") + std::strerror(errno));
      } else {
        ++fsyncs;
      }
    }
    std::vector<std::function<void()>> due;
    {
      sync::lock_guard lock(mu);
      if (error && !fatal) fatal = error;
      failed_space.insert(no_space.begin(), no_space.end());
      if (!no_space.empty()) space_failed = true;
      if (written_extents.count(append_extent) != 0) append_extent_written = true;
      completed_seq = std::max(completed_seq, work.back().seq);
      st.fsyncs += fsyncs;
      st.bytes += written_bytes;
      if (fatal) {
        // Nothing more is written; whatever is queued fails.
        if (!pending.empty()) completed_seq = std::max(completed_seq, pending.back().seq);
        pending.clear();
      }
      done_cv.notify_all();
      if (!watchers.empty()) due = due_watchers_locked();
    }
    for (auto& then : due) then();
  }
}

recovery_log::recovery_log() : impl_(std::make_unique<impl>()) {}

recovery_log::~recovery_log() {
  if (!impl_) return;
  close();
  impl_->trim_zeros();  // the writer has ended
  if (impl_->fd >= 0) ::close(impl_->fd);
}

void recovery_log::close() {
  {
    sync::lock_guard lock(impl_->mu);
    if (!impl_->stopping) {
      impl_->stopping = true;
      impl_->closed_seq = impl_->next_seq - 1;  // the writer still writes these; nothing after them
    }
  }
  impl_->work_cv.notify_all();
  impl_->done_cv.notify_all();
  if (impl_->writer.joinable() && impl_->writer.get_id() != std::this_thread::get_id()) impl_->writer.join();
  // What the writer's last round left: batches appended after close(), which are never written.
  std::vector<std::function<void()>> due;
  {
    sync::lock_guard lock(impl_->mu);
    due = impl_->due_watchers_locked();
  }
  for (auto& then : due) then();
}

result<std::unique_ptr<recovery_log>> recovery_log::open(const std::filesystem::path& qmgr_dir,
                                                         queue_file_fn queue_file, log_options options,
                                                         recovered_state& recovered) {
  std::unique_ptr<recovery_log> log(new recovery_log());
  impl& d = *log->impl_;
  // No other thread has the log yet (the writer starts last, and waits for mu); held for the analysis,
  // and let go before `log` goes on every way out.
  sync::lock_guard lock(d.mu);
  d.log_dir = qmgr_dir / "log";
  d.queue_file = std::move(queue_file);
  d.options = options;
  std::error_code ec;
  const bool new_log_dir = !std::filesystem::exists(d.log_dir, ec);
  std::filesystem::create_directories(d.log_dir, ec);
  if (ec) return io::error_from_code(d.log_dir, "create", ec);
  if (new_log_dir && options.fsync) {
    // log/'s entry in the queue manager's folder, durable before anything inside it counts on it.
    if (auto synced = sync_folder(qmgr_dir); !synced) return synced.error();
  }

  const auto control_path = d.log_dir / "amqhlctl.lfh";
  if (std::filesystem::exists(control_path, ec)) {
    auto raw = read_all(control_path);
    if (!raw) return raw.error();
    auto c = decode_control(*raw);
    if (!c)
      return mq_error(mq::MQRC_RESOURCE_PROBLEM, control_path.string(),
                      "log control file is damaged (bad magic, length or checksum)");
    d.control = std::move(*c);
  }

  // Extents older than the control file's oldest are what a crash left of a finished checkpoint.
  std::vector<std::uint64_t> extents;
  for (auto n : list_extents(d.log_dir)) {
    if (n < d.control.oldest_extent) {
      std::filesystem::remove(d.log_dir / extent_name(n), ec);
    } else {
      extents.push_back(n);
    }
  }

  // Per queue: its file (checkpoint number, messages), loaded once when first named.
  struct queue_state {
    bool exists = false;
    std::uint64_t checkpoint = 0;
    std::vector<stored_message> messages;
    std::vector<bool> erased;                                               // got during replay
    std::unordered_map<mqi::message_token, std::size_t, token_hash> index;  // token → position
  };
  std::map<std::string, queue_state> queues;
  std::optional<decode_error> load_error;
  const auto load = [&](const std::string& name) -> queue_state& {
    auto [it, fresh] = queues.try_emplace(name);
    if (!fresh) return it->second;
    queue_state& q = it->second;
    const auto path = d.queue_file(name);
    if (!path) return q;
    q.exists = true;
    std::error_code exists_ec;
    if (!std::filesystem::exists(*path, exists_ec)) return q;  // missing: empty, checkpoint 0
    auto raw = read_all(*path);
    if (!raw) {
      if (!load_error) load_error = raw.error();
      return q;
    }
    auto decoded = log_codec::decode_queue_file(*raw);
    if (!decoded) {
      if (!load_error) {
        decode_error e = decoded.error();
        e.detail = "queue " + name + " (" + path->string() + "): " + e.detail;
        load_error = e;
      }
      return q;
    }
    q.checkpoint = decoded->first;
    q.messages = std::move(decoded->second);
    q.erased.assign(q.messages.size(), false);
    for (std::size_t k = 0; k < q.messages.size(); ++k) q.index[q.messages[k].token] = k;
    return q;
  };
  for (const auto& name : d.control.queues) load(name);

  for (auto n : extents) {
    const auto path = d.log_dir / extent_name(n);
    auto raw = read_all(path);
    if (!raw) return raw.error();
    auto contents = log_codec::decode_extent(*raw);
    // The zeros a crash left ahead of the batches (preallocation) are no torn tail.
    std::size_t end = raw->size();
    while (end > contents.good_bytes && (*raw)[end - 1] == 0) --end;
    recovered.torn_bytes_ignored += end - contents.good_bytes;
    for (const auto& batch : contents.batches) {
      ++recovered.batches_replayed;
      for (const auto& op : batch) {
        queue_state& q = load(op.queue);
        if (load_error) return *load_error;
        if (!q.exists || n < q.checkpoint) continue;  // gone, or already in its file
        // A put appends; gets and backout changes find their message by token. A got message is
        // marked and dropped at the end, so that positions stay valid meanwhile.
        if (op.what == log_op::kind::put) {
          q.index[op.message.token] = q.messages.size();
          q.messages.push_back(op.message);
          q.erased.push_back(false);
          continue;
        }
        auto found = q.index.find(op.message.token);
        if (found == q.index.end()) continue;
        if (op.what == log_op::kind::get) {
          q.erased[found->second] = true;
          q.messages[found->second].md.clear();
          q.messages[found->second].data.clear();
          q.index.erase(found);
        } else {
          q.messages[found->second].backout_count = op.message.backout_count;
        }
      }
    }
  }
  if (load_error) return *load_error;

  for (auto& [name, q] : queues) {
    if (!q.exists) continue;
    std::vector<stored_message> kept;
    kept.reserve(q.messages.size());
    for (std::size_t k = 0; k < q.messages.size(); ++k)
      if (!q.erased[k]) kept.push_back(std::move(q.messages[k]));
    d.seen_queues.insert(name);  // every queue recovery read: the next checkpoint rewrites its file
    recovered.queues[name] = std::move(kept);
  }

  // A new incarnation, durable before anything is appended (tokens never repeat).
  d.control.incarnation += 1;
  if (auto written = write_atomically(control_path, encode_control(d.control), true, ".tmp"); !written)
    return written.error();
  recovered.incarnation = d.control.incarnation;
  recovered.next_token = 1;

  d.append_extent = std::max(d.control.oldest_extent, extents.empty() ? 0 : extents.back() + 1);
  d.writer = std::thread([&d] { d.writer_loop(); });
  return log;
}

std::uint64_t recovery_log::append(const std::vector<log_op>& batch) {
  bytes data;
  log_codec::encode_batch(batch, data);
  sync::lock_guard lock(impl_->mu);
  const std::uint64_t seq = impl_->next_seq++;
  for (const auto& op : batch) impl_->seen_queues.insert(op.queue);
  impl_->append_extent_bytes += data.size();
  ++impl_->st.batches;
  if (seq > impl_->closed_seq) return seq;  // after close(): never written, wait_durable fails it
  if (impl_->fatal) {
    impl_->completed_seq = std::max(impl_->completed_seq, seq);
    return seq;
  }
  impl_->pending.push_back({seq, impl_->append_extent, std::move(data)});
  impl_->work_cv.notify_one();
  return seq;
}

void recovery_log::when_durable(std::uint64_t seq, std::function<void()> then) {
  {
    sync::lock_guard lock(impl_->mu);
    if (!impl_->durable_locked(seq)) {
      impl_->watchers.emplace(seq, std::move(then));
      return;
    }
  }
  then();
}

result<done> recovery_log::wait_durable(std::uint64_t seq) {
  sync::unique_lock lock(impl_->mu);
  if (!impl_->durable_locked(seq)) {
    // Woken by the writer's callback for this batch alone, outside mu (as when_durable's watchers), not
    // by a broadcast to every committer that then fight for mu and mostly sleep again [D]
    // (docs/design/concurrency.md "The queue manager").
    auto ready = std::make_shared<std::promise<void>>();
    std::future<void> written = ready->get_future();
    impl_->watchers.emplace(seq, [ready] { ready->set_value(); });
    lock.unlock();
    {
      detail::blocking_region waiting;  // a log force (blocking.hpp)
      written.wait();
    }
    lock.lock();
  }
  if (seq > impl_->closed_seq && impl_->completed_seq < seq)
    return mq_error(mq::MQRC_RESOURCE_PROBLEM, impl_->log_dir.string(),
                    "the recovery log is closed: the batch is not in the log");
  if (auto it = impl_->failed_space.find(seq); it != impl_->failed_space.end()) {
    impl_->failed_space.erase(it);
    return mq_error(mq::MQRC_Q_SPACE_NOT_AVAILABLE, (impl_->log_dir).string(),
                    "the log's file system is full: the batch is not in the log");
  }
  if (impl_->fatal) return *impl_->fatal;
  return std::monostate{};
}

bool recovery_log::needs_checkpoint() const {
  const impl& d = *impl_;
  sync::lock_guard lock(d.mu);
  if (d.checkpoint_running || d.fatal || d.stopping) return false;
  if (d.append_extent_bytes >= d.options.checkpoint_bytes) return true;
  // After a write failed for space only a checkpoint gives space back (by deleting extents), so one is
  // asked for at once — when it would retire something [D].
  return d.space_failed && (d.control.oldest_extent < d.append_extent || d.append_extent_written);
}

std::uint64_t recovery_log::begin_checkpoint(std::uint64_t next_token) {
  sync::lock_guard lock(impl_->mu);
  impl_->checkpoint_running = true;
  impl_->checkpoint_seq = impl_->next_seq - 1;
  impl_->checkpoint_next_token = next_token;
  impl_->append_extent += 1;
  impl_->append_extent_bytes = 0;
  impl_->append_extent_written = false;
  impl_->space_failed = false;  // asked again only by the next write that fails for space
  return impl_->append_extent;
}

result<done> recovery_log::write_checkpoint(
    std::uint64_t checkpoint, const std::map<std::string, std::vector<stored_message>>& queues) {
  std::vector<std::pair<std::string, message_source>> sources;
  sources.reserve(queues.size());
  for (const auto& [name, messages] : queues) {
    const std::vector<stored_message>* list = &messages;
    sources.emplace_back(name, [list, at = std::size_t{0}](stored_message& next) mutable {
      if (at == list->size()) return false;
      next = (*list)[at++];
      return true;
    });
  }
  return write_checkpoint(checkpoint, std::move(sources));
}

result<done> recovery_log::write_checkpoint(std::uint64_t checkpoint,
                                            std::vector<std::pair<std::string, message_source>> queues) {
  impl& d = *impl_;
  std::set<std::string> names;
  std::uint64_t seq = 0;
  // The control file as it is: only a checkpoint changes it, and one runs at a time.
  control_data next;
  {
    sync::lock_guard lock(d.mu);
    names = d.seen_queues;
    names.insert(d.control.queues.begin(), d.control.queues.end());
    seq = d.checkpoint_seq;
    next = d.control;
    next.next_token = d.checkpoint_next_token;
  }
  const auto finish = [&d](result<done> r) {
    sync::lock_guard lock(d.mu);
    d.checkpoint_running = false;
    return r;
  };
  // Extent N must be durable before any queue file claims to hold what it says.
  if (seq > 0) {
    sync::unique_lock lock(d.mu);
    if (d.completed_seq < seq && !d.fatal) {
      detail::blocking_region waiting;
      while (d.completed_seq < seq && !d.fatal) d.done_cv.wait(lock);
    }
    if (d.fatal) {
      d.checkpoint_running = false;
      return *d.fatal;
    }
  }
  std::map<std::string, const message_source*> sources;
  for (const auto& [name, source] : queues) {
    sources.emplace(name, &source);  // a name given twice: the first counts
    names.insert(name);
  }

  // One queue file at a time, each replacing the old one (so the space needed beyond the old files is
  // one new file). A failure stops before the control file: the old extents stay, and a queue file
  // already replaced holds its old file's messages plus what the kept extents add, under checkpoint
  // N+1, so that recovery (which replays only extents >= N+1 into it) finds the same messages [D].
  next.queues.clear();
  std::size_t written = 0;
  static const message_source none;
  for (const auto& name : names) {
    const auto path = d.queue_file(name);
    if (!path) continue;  // the queue is gone
    const auto found = sources.find(name);
    bool has_messages = false;
    auto w = write_queue_file(*path, checkpoint, found == sources.end() ? none : *found->second,
                              d.options.fsync, has_messages);
    if (!w) return finish(w.error());
    if (has_messages) next.queues.insert(name);
    ++written;
    if (detail::after_checkpoint_queue_file != nullptr) detail::after_checkpoint_queue_file(written);
  }
  next.oldest_extent = checkpoint;
  if (auto w = write_atomically(d.log_dir / "amqhlctl.lfh", encode_control(next), d.options.fsync, ".tmp");
      !w)
    return finish(w.error());
  std::error_code ec;
  bool deleted = false;
  for (auto n : list_extents(d.log_dir)) {
    if (n < checkpoint) deleted = std::filesystem::remove(d.log_dir / extent_name(n), ec) || deleted;
  }
  // Not needed for recovery (open() deletes extents older than the control file's oldest again), but
  // the space is what a full file system waits for [D].
  if (deleted && d.options.fsync) (void)sync_folder(d.log_dir);
  sync::lock_guard lock(d.mu);
  d.control = std::move(next);
  // seen_queues is kept (it is bounded by the number of queues): a queue named after begin_checkpoint
  // must be rewritten by the next checkpoint too.
  ++d.st.checkpoints;
  d.checkpoint_running = false;
  return std::monostate{};
}

recovery_log::stats recovery_log::statistics() const {
  sync::lock_guard lock(impl_->mu);
  return impl_->st;
}

}  // namespace imsb::qmgr
