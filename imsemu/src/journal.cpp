#include "imsb/imsemu/journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string_view>
#include <system_error>
#include <thread>

namespace imsb::imsemu {

namespace {

// ---- framing -----------------------------------------------------------------------------------------

constexpr std::string_view magic = "IMSBJRN1";  // [D] names the format and its version
constexpr std::size_t record_overhead = 4 + 1 + 4;
// [D] no record comes near this; a length beyond it is damage, not data.
constexpr std::uint32_t max_payload = std::uint32_t{1} << 28;

enum class rec : std::uint8_t {
  snapshot = 1,
  input = 2,
  run = 3,
  output_acked = 4,
  output_purged = 5,
  tpipe_set = 6,
  cold_start = 7,
  tran_set = 8,  // [D] added after the first format: older journals simply have none
};
constexpr bool known_type(std::uint8_t t) noexcept { return t >= 1 && t <= 8; }

const std::array<std::uint32_t, 256>& crc_table() {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1U) != 0 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

// CRC-32 (IEEE 802.3, as zlib).
std::uint32_t crc32(const std::uint8_t* p, std::size_t n) {
  const auto& t = crc_table();
  std::uint32_t c = 0xFFFFFFFFU;
  for (std::size_t i = 0; i < n; ++i) c = t[(c ^ p[i]) & 0xFFU] ^ (c >> 8);
  return c ^ 0xFFFFFFFFU;
}

bytes frame(rec type, const bytes& payload) {
  bytes out(record_overhead + payload.size());
  store_u32(out.data(), static_cast<std::uint32_t>(payload.size()), byte_order::big);
  out[4] = static_cast<std::uint8_t>(type);
  std::copy(payload.begin(), payload.end(), out.begin() + 5);
  store_u32(out.data() + 5 + payload.size(), crc32(out.data(), 5 + payload.size()), byte_order::big);
  return out;
}

// A whole, intact record at `off`: its payload length, else nothing.
std::optional<std::uint32_t> intact_record(bytes_view file, std::size_t off) {
  if (file.size() - off < record_overhead) return std::nullopt;
  const std::uint32_t len = load_u32(file.data() + off, byte_order::big);
  if (len > max_payload || len > file.size() - off - record_overhead) return std::nullopt;
  if (!known_type(file[off + 4])) return std::nullopt;
  const std::uint32_t crc = load_u32(file.data() + off + 5 + len, byte_order::big);
  if (crc != crc32(file.data() + off, 5 + std::size_t{len})) return std::nullopt;
  return len;
}

// ---- payload encoding (big-endian, field by field) ---------------------------------------------------

class writer {
 public:
  void u8(std::uint8_t v) { out_.push_back(v); }
  void flag(bool v) { u8(v ? 1 : 0); }
  void u32(std::uint32_t v) {
    std::uint8_t b[4];
    store_u32(b, v, byte_order::big);
    out_.insert(out_.end(), b, b + 4);
  }
  void u64(std::uint64_t v) {
    u32(static_cast<std::uint32_t>(v >> 32));
    u32(static_cast<std::uint32_t>(v));
  }
  void blob(const std::uint8_t* p, std::size_t n) {
    u32(static_cast<std::uint32_t>(n));
    out_.insert(out_.end(), p, p + n);
  }
  void str(const std::string& s) { blob(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()); }
  void data(const bytes& b) { blob(b.data(), b.size()); }
  bytes take() { return std::move(out_); }

 private:
  bytes out_;
};

// Reads fields; once a read runs past the end, every later read yields zero and ok() is false.
class reader {
 public:
  explicit reader(bytes_view in) : in_(in) {}
  bool ok() const noexcept { return ok_; }
  bool at_end() const noexcept { return pos_ == in_.size(); }
  std::uint8_t u8() { return need(1) ? in_[pos_++] : 0; }
  bool flag() { return u8() != 0; }
  std::uint32_t u32() {
    if (!need(4)) return 0;
    const std::uint32_t v = load_u32(in_.data() + pos_, byte_order::big);
    pos_ += 4;
    return v;
  }
  std::uint64_t u64() {
    const std::uint64_t hi = u32();
    return (hi << 32) | u32();
  }
  bytes data() {
    const std::uint32_t n = u32();
    if (!need(n)) return {};
    bytes b(in_.begin() + pos_, in_.begin() + pos_ + n);
    pos_ += n;
    return b;
  }
  std::string str() {
    const bytes b = data();
    return std::string(b.begin(), b.end());
  }
  // A count of items of at least `min_size` bytes each, bounded by what is left.
  std::uint32_t count(std::size_t min_size) {
    const std::uint32_t n = u32();
    if (ok_ && std::size_t{n} * min_size > in_.size() - pos_) ok_ = false;
    return ok_ ? n : 0;
  }

 private:
  bool need(std::size_t n) {
    if (ok_ && n <= in_.size() - pos_) return true;
    ok_ = false;
    return false;
  }
  bytes_view in_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

void put_tpipe(writer& w, const tpipe_state& t) {
  w.flag(t.synchronized);
  w.u32(t.recv_rsn);
  w.u32(t.send_rsn);
  w.flag(t.stopped);
}
tpipe_state get_tpipe(reader& r) {
  tpipe_state t;
  t.synchronized = r.flag();
  t.recv_rsn = r.u32();
  t.send_rsn = r.u32();
  t.stopped = r.flag();
  return t;
}
void put_entry(writer& w, const ims::phone_entry& e) {
  w.str(e.last_name);
  w.str(e.first_name);
  w.str(e.extension);
  w.str(e.zip_code);
}
ims::phone_entry get_entry(reader& r) {
  ims::phone_entry e;
  e.last_name = r.str();
  e.first_name = r.str();
  e.extension = r.str();
  e.zip_code = r.str();
  return e;
}
void put_run(writer& w, const run_record& x) {
  w.u64(x.run);
  w.u64(x.input_id);
  w.str(x.transaction);
  w.str(x.client);
  w.str(x.tpipe);
  w.u32(x.recoverable_seq);
  w.str(x.outcome);
  w.u32(static_cast<std::uint32_t>(x.output_ids.size()));
  for (auto id : x.output_ids) w.u64(id);
}
run_record get_run(reader& r) {
  run_record x;
  x.run = r.u64();
  x.input_id = r.u64();
  x.transaction = r.str();
  x.client = r.str();
  x.tpipe = r.str();
  x.recoverable_seq = r.u32();
  x.outcome = r.str();
  const std::uint32_t n = r.count(8);
  for (std::uint32_t i = 0; i < n; ++i) x.output_ids.push_back(r.u64());
  return x;
}

// ---- the records, and how each one changes the state -------------------------------------------------
// Each record has a check (nothing changes when it fails) and an apply that cannot fail. A step checks,
// writes, then applies; replay decodes, checks and applies: the same code either way.

struct input_rec {
  queued_input input;
  bool synchronized = false;
};
struct run_rec {
  run_record run;
  std::vector<phonebook_change> changes;
  std::vector<output_spec> outputs;  // output i gets run.output_ids[i]
};
struct ack_rec {
  std::uint64_t output_id = 0;
  bool has_rsn = false;
  std::uint32_t send_rsn = 0;
};
struct tpipe_rec {
  tpipe_key key;
  tpipe_state value;
};

bytes encode(const input_rec& x) {
  writer w;
  w.u64(x.input.id);
  w.str(x.input.client);
  w.str(x.input.tpipe);
  w.flag(x.synchronized);
  w.u32(x.input.recoverable_seq);
  w.data(x.input.otma);
  return w.take();
}
input_rec decode_input(reader& r) {
  input_rec x;
  x.input.id = r.u64();
  x.input.client = r.str();
  x.input.tpipe = r.str();
  x.synchronized = r.flag();
  x.input.recoverable_seq = r.u32();
  x.input.otma = r.data();
  return x;
}
bytes encode(const run_rec& x) {
  writer w;
  put_run(w, x.run);
  w.u32(static_cast<std::uint32_t>(x.changes.size()));
  for (const auto& c : x.changes) {
    w.u8(static_cast<std::uint8_t>(c.op));
    put_entry(w, c.entry);
  }
  w.u32(static_cast<std::uint32_t>(x.outputs.size()));
  for (const auto& o : x.outputs) {
    w.str(o.client);
    w.str(o.tpipe);
    w.flag(o.synchronized);
    w.data(o.data);
  }
  return w.take();
}
run_rec decode_run(reader& r) {
  run_rec x;
  x.run = get_run(r);
  std::uint32_t n = r.count(17);
  for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
    phonebook_change c;
    c.op = r.u8() == 0 ? phonebook_change::kind::put : phonebook_change::kind::erase;
    c.entry = get_entry(r);
    x.changes.push_back(std::move(c));
  }
  n = r.count(13);
  for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
    output_spec o;
    o.client = r.str();
    o.tpipe = r.str();
    o.synchronized = r.flag();
    o.data = r.data();
    x.outputs.push_back(std::move(o));
  }
  return x;
}
bytes encode(const ack_rec& x) {
  writer w;
  w.u64(x.output_id);
  w.flag(x.has_rsn);
  w.u32(x.send_rsn);
  return w.take();
}
ack_rec decode_ack(reader& r) {
  ack_rec x;
  x.output_id = r.u64();
  x.has_rsn = r.flag();
  x.send_rsn = r.u32();
  return x;
}
bytes encode(const tpipe_rec& x) {
  writer w;
  w.str(x.key.first);
  w.str(x.key.second);
  put_tpipe(w, x.value);
  return w.take();
}
tpipe_rec decode_tpipe(reader& r) {
  tpipe_rec x;
  x.key.first = r.str();
  x.key.second = r.str();
  x.value = get_tpipe(r);
  return x;
}
bytes encode_output_id(std::uint64_t id) {
  writer w;
  w.u64(id);
  return w.take();
}

bytes encode_snapshot(const journal_state& s) {
  writer w;
  w.u64(s.next_id);
  w.u32(s.cold_starts);
  w.u32(static_cast<std::uint32_t>(s.tpipes.size()));
  for (const auto& [key, t] : s.tpipes) {
    w.str(key.first);
    w.str(key.second);
    put_tpipe(w, t);
  }
  w.u32(static_cast<std::uint32_t>(s.inputs.size()));
  for (const auto& in : s.inputs) {
    w.u64(in.id);
    w.str(in.client);
    w.str(in.tpipe);
    w.u32(in.recoverable_seq);
    w.data(in.otma);
  }
  w.u32(static_cast<std::uint32_t>(s.outputs.size()));
  for (const auto& [key, queue] : s.outputs) {
    w.str(key.first);
    w.str(key.second);
    w.u32(static_cast<std::uint32_t>(queue.size()));
    for (const auto& o : queue) {
      w.u64(o.id);
      w.flag(o.synchronized);
      w.data(o.data);
    }
  }
  w.u32(static_cast<std::uint32_t>(s.phonebook.entries().size()));
  for (const auto& [name, e] : s.phonebook.entries()) put_entry(w, e);
  w.u32(static_cast<std::uint32_t>(s.runs.size()));
  for (const auto& x : s.runs) put_run(w, x);
  // [D] trailing sections, so older snapshots still read: the first format ends after the runs, the
  // second after the stopped codes (it kept no /STA TRAN); the started codes come last.
  for (const bool stopped : {true, false}) {
    const auto n = std::count_if(s.transaction_stopped.begin(), s.transaction_stopped.end(),
                                 [&](const auto& t) { return t.second == stopped; });
    w.u32(static_cast<std::uint32_t>(n));
    for (const auto& [code, is_stopped] : s.transaction_stopped)
      if (is_stopped == stopped) w.str(code);
  }
  return w.take();
}
journal_state decode_snapshot(reader& r) {
  journal_state s;
  s.next_id = r.u64();
  s.cold_starts = r.u32();
  std::uint32_t n = r.count(18);
  for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
    tpipe_key key;
    key.first = r.str();
    key.second = r.str();
    s.tpipes[key] = get_tpipe(r);
  }
  n = r.count(24);
  for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
    queued_input in;
    in.id = r.u64();
    in.client = r.str();
    in.tpipe = r.str();
    in.recoverable_seq = r.u32();
    in.otma = r.data();
    s.inputs.push_back(std::move(in));
  }
  n = r.count(12);
  for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
    tpipe_key key;
    key.first = r.str();
    key.second = r.str();
    auto& queue = s.outputs[key];
    const std::uint32_t m = r.count(13);
    for (std::uint32_t k = 0; k < m && r.ok(); ++k) {
      queued_output o;
      o.id = r.u64();
      o.synchronized = r.flag();
      o.data = r.data();
      queue.push_back(std::move(o));
    }
  }
  n = r.count(16);
  for (std::uint32_t i = 0; i < n && r.ok(); ++i) s.phonebook.put(get_entry(r));
  n = r.count(40);
  for (std::uint32_t i = 0; i < n && r.ok(); ++i) s.runs.push_back(get_run(r));
  for (const bool stopped : {true, false}) {
    if (!r.ok() || r.at_end()) break;
    n = r.count(4);
    for (std::uint32_t i = 0; i < n && r.ok(); ++i) s.transaction_stopped[r.str()] = stopped;
  }
  return s;
}

std::uint64_t next_run_number(const journal_state& s) { return s.runs.empty() ? 1 : s.runs.back().run + 1; }

// Where output `id` is queued.
std::optional<std::pair<tpipe_key, std::size_t>> locate_output(const journal_state& s, std::uint64_t id) {
  for (const auto& [key, queue] : s.outputs)
    for (std::size_t i = 0; i < queue.size(); ++i)
      if (queue[i].id == id) return std::make_pair(key, i);
  return std::nullopt;
}

std::string check(const journal_state& s, const input_rec& x) {
  if (x.input.id != s.next_id)
    return "input id " + std::to_string(x.input.id) + ", expected " + std::to_string(s.next_id);
  return {};
}
void apply(journal_state& s, input_rec x) {
  s.next_id = x.input.id + 1;
  auto& t = s.tpipes[{x.input.client, x.input.tpipe}];
  // [D] a Tpipe once synchronized stays so: IMS fixes the attribute when it creates the Tpipe.
  t.synchronized = t.synchronized || x.synchronized;
  if (x.input.recoverable_seq != 0) t.recv_rsn = x.input.recoverable_seq;
  s.inputs.push_back(std::move(x.input));
}

std::string check(const journal_state& s, const run_rec& x) {
  if (s.find_input(x.run.input_id) == nullptr)
    return "input " + std::to_string(x.run.input_id) + " is not queued";
  if (x.run.run != next_run_number(s))
    return "run " + std::to_string(x.run.run) + ", expected " + std::to_string(next_run_number(s));
  if (x.run.output_ids.size() != x.outputs.size()) return "output ids do not match the outputs";
  for (std::size_t i = 0; i < x.outputs.size(); ++i)
    if (x.run.output_ids[i] != s.next_id + i) return "output id " + std::to_string(x.run.output_ids[i]);
  return {};
}
void apply(journal_state& s, run_rec x) {
  s.inputs.erase(std::find_if(s.inputs.begin(), s.inputs.end(),
                              [&](const queued_input& in) { return in.id == x.run.input_id; }));
  for (const auto& c : x.changes) {
    if (c.op == phonebook_change::kind::put)
      s.phonebook.put(c.entry);
    else
      s.phonebook.erase(c.entry.last_name);
  }
  for (std::size_t i = 0; i < x.outputs.size(); ++i) {
    auto& o = x.outputs[i];
    tpipe_key key{o.client, o.tpipe};
    auto& t = s.tpipes[key];
    t.synchronized = t.synchronized || o.synchronized;
    s.outputs[key].push_back(queued_output{x.run.output_ids[i], std::move(o.data), o.synchronized});
  }
  s.next_id += x.outputs.size();
  s.runs.push_back(std::move(x.run));
}

std::string check(const journal_state& s, std::uint64_t output_id) {
  if (!locate_output(s, output_id)) return "output " + std::to_string(output_id) + " is not queued";
  return {};
}
void dequeue(journal_state& s, std::uint64_t output_id, const ack_rec* ack) {
  auto where = locate_output(s, output_id);
  auto& queue = s.outputs[where->first];
  const bool synchronized = queue[where->second].synchronized;
  queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(where->second));
  if (queue.empty()) s.outputs.erase(where->first);
  // [C: IMS-RS-CS]: the send number is logged when the client ACKs the output.
  if (ack != nullptr && ack->has_rsn && synchronized) s.tpipes[where->first].send_rsn = ack->send_rsn;
}

void apply_cold_start(journal_state& s) {
  s.tpipes.clear();
  s.inputs.clear();
  s.outputs.clear();
  s.transaction_stopped.clear();
  ++s.cold_starts;
}

// Replays one intact record; an error text when it does not fit the state (or does not decode).
std::string replay(journal_state& s, rec type, bytes_view payload) {
  reader r(payload);
  std::string why;
  switch (type) {
    case rec::snapshot: {
      journal_state snap = decode_snapshot(r);
      if (r.ok() && r.at_end()) s = std::move(snap);
      break;
    }
    case rec::input: {
      input_rec x = decode_input(r);
      if (r.ok() && r.at_end() && (why = check(s, x)).empty()) apply(s, std::move(x));
      break;
    }
    case rec::run: {
      run_rec x = decode_run(r);
      if (r.ok() && r.at_end() && (why = check(s, x)).empty()) apply(s, std::move(x));
      break;
    }
    case rec::output_acked: {
      const ack_rec x = decode_ack(r);
      if (r.ok() && r.at_end() && (why = check(s, x.output_id)).empty()) dequeue(s, x.output_id, &x);
      break;
    }
    case rec::output_purged: {
      const std::uint64_t id = r.u64();
      if (r.ok() && r.at_end() && (why = check(s, id)).empty()) dequeue(s, id, nullptr);
      break;
    }
    case rec::tpipe_set: {
      tpipe_rec x = decode_tpipe(r);
      if (r.ok() && r.at_end()) s.tpipes[x.key] = x.value;
      break;
    }
    case rec::cold_start:
      if (r.at_end()) apply_cold_start(s);
      break;
    case rec::tran_set: {
      std::string code = r.str();
      const bool stopped = r.flag();
      // A record with stopped = 0 was a /STA TRAN in every format: the operator's started status.
      if (r.ok() && r.at_end()) s.transaction_stopped[std::move(code)] = stopped;
      break;
    }
  }
  if (!r.ok() || !r.at_end())
    return "record type " + std::to_string(static_cast<int>(type)) + " does not decode";
  return why;
}

// ---- files -------------------------------------------------------------------------------------------

// [D] The file grows by this many zero bytes at a time, ahead of the records: an append then overwrites
// bytes the file already has, so its fdatasync writes the data and not the inode of a file whose size
// changed (two thirds of imsemu's CPU under load went to those syncs: bench/RESULTS.md, "What perf
// showed at 16 queues"). The inode is written once per step, with the record that needs it.
constexpr std::uint64_t preallocation = std::uint64_t{256} << 10;

decode_error errno_error(const std::filesystem::path& path, std::string_view what, int err,
                         std::size_t off = 0) {
  return decode_error{std::error_code(err, std::generic_category()), path.string(), off,
                      std::string(what) + ": " + std::strerror(err)};
}
decode_error errc_error(std::errc code, const std::filesystem::path& path, std::size_t off,
                        std::string detail) {
  return decode_error{std::make_error_code(code), path.string(), off, std::move(detail)};
}

// n bytes at `off`, whatever the file offset.
int pwrite_all(int fd, const std::uint8_t* p, std::size_t n, std::uint64_t off) {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, p, n, static_cast<off_t>(off));
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    p += w;
    off += static_cast<std::uint64_t>(w);
    n -= static_cast<std::size_t>(w);
  }
  return 0;
}

int write_all(int fd, const std::uint8_t* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return 0;
}

result<bytes> read_all(int fd, const std::filesystem::path& path) {
  bytes out;
  std::uint8_t buf[65536];
  for (;;) {
    const ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0) {
      if (errno == EINTR) continue;
      return errno_error(path, "read", errno);
    }
    if (r == 0) return out;
    out.insert(out.end(), buf, buf + r);
  }
}

// The first `n` bytes of the file behind `fd`.
result<bytes> read_prefix(int fd, std::uint64_t from, std::uint64_t n, const std::filesystem::path& path) {
  bytes out(static_cast<std::size_t>(n));
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t r = ::pread(fd, out.data() + got, out.size() - got, static_cast<off_t>(from + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno_error(path, "read", errno, static_cast<std::size_t>(from + got));
    if (r == 0)
      return errc_error(std::errc::io_error, path, static_cast<std::size_t>(from + got),
                        "the journal is shorter than logged");
    got += static_cast<std::size_t>(r);
  }
  return out;
}

// The state a file of whole records (magic first) replays to: what the compaction snapshots. Any record
// that is not whole or does not replay is an error here: these bytes were written and synced by this
// process, and a snapshot built past damage would hide it.
result<journal_state> replay_whole(bytes_view file, const std::filesystem::path& path) {
  journal_state s;
  if (file.size() < magic.size() || !std::equal(magic.begin(), magic.end(), file.begin()))
    return errc_error(std::errc::illegal_byte_sequence, path, 0, "not an imsemu journal (bad magic)");
  std::size_t off = magic.size();
  while (off < file.size()) {
    const auto len = intact_record(file, off);
    if (!len) return errc_error(std::errc::illegal_byte_sequence, path, off, "bad record while compacting");
    if (auto why = replay(s, static_cast<rec>(file[off + 4]), file.sub(off + 5, *len)); !why.empty())
      return errc_error(std::errc::illegal_byte_sequence, path, off, "record does not replay: " + why);
    off += record_overhead + *len;
  }
  return s;
}

// journal.tmp beside the log, written and fsynced as magic + one snapshot record of `s`, and still open: a
// compaction appends the records logged since before it renames it. On an error it is gone.
struct snapshot_temp {
  int fd = -1;
  std::uint64_t length = 0;  // where the records after the snapshot begin
};
result<snapshot_temp> write_snapshot_temp(const std::filesystem::path& tmp, const journal_state& s) {
  // 0600: the journal holds whole inputs, UTOKENs included [D].
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return errno_error(tmp, "open", errno);
  bytes file(magic.begin(), magic.end());
  const bytes rec_bytes = frame(rec::snapshot, encode_snapshot(s));
  file.insert(file.end(), rec_bytes.begin(), rec_bytes.end());
  int err = write_all(fd, file.data(), file.size());
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (err != 0) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return errno_error(tmp, "write", err);
  }
  return snapshot_temp{fd, file.size()};
}

// Closes the temporary file and renames it over `target`, so that a crash leaves the old file or the new
// one; before the rename, a failure removes it. The folder is not fsynced here.
result<done> rename_temp(int fd, const std::filesystem::path& tmp, const std::filesystem::path& target) {
  int err = ::close(fd) != 0 ? errno : 0;
  if (err == 0 && ::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return errno_error(tmp, "rename", err);
  }
  return done{};
}

// Replaces `target` with magic + one snapshot record of `s` (a new journal).
result<done> write_snapshot_file(int dir_fd, const std::filesystem::path& target, const journal_state& s) {
  const std::filesystem::path tmp = target.parent_path() / "journal.tmp";
  auto t = write_snapshot_temp(tmp, s);
  if (!t) return t.error();
  if (auto renamed = rename_temp(t->fd, tmp, target); !renamed) return renamed;
  if (::fsync(dir_fd) != 0) return errno_error(target.parent_path(), "fsync folder", errno);
  return done{};
}

}  // namespace

// ---- journal_state -----------------------------------------------------------------------------------

const queued_input* journal_state::find_input(std::uint64_t id) const noexcept {
  for (const auto& in : inputs)
    if (in.id == id) return &in;
  return nullptr;
}

const queued_output* journal_state::find_output(std::uint64_t id) const noexcept {
  for (const auto& [key, queue] : outputs)
    for (const auto& o : queue)
      if (o.id == id) return &o;
  return nullptr;
}

bool operator==(const journal_state& a, const journal_state& b) {
  auto same_tpipe = [](const tpipe_state& x, const tpipe_state& y) {
    return x.synchronized == y.synchronized && x.recv_rsn == y.recv_rsn && x.send_rsn == y.send_rsn &&
           x.stopped == y.stopped;
  };
  auto same_input = [](const queued_input& x, const queued_input& y) {
    return x.id == y.id && x.client == y.client && x.tpipe == y.tpipe &&
           x.recoverable_seq == y.recoverable_seq && x.otma == y.otma;
  };
  auto same_output = [](const queued_output& x, const queued_output& y) {
    return x.id == y.id && x.data == y.data && x.synchronized == y.synchronized;
  };
  auto same_entry = [](const ims::phone_entry& x, const ims::phone_entry& y) {
    return x.last_name == y.last_name && x.first_name == y.first_name && x.extension == y.extension &&
           x.zip_code == y.zip_code;
  };
  auto same_run = [](const run_record& x, const run_record& y) {
    return x.run == y.run && x.input_id == y.input_id && x.transaction == y.transaction &&
           x.client == y.client && x.tpipe == y.tpipe && x.recoverable_seq == y.recoverable_seq &&
           x.outcome == y.outcome && x.output_ids == y.output_ids;
  };
  auto same_map = [](const auto& x, const auto& y, auto same_value) {
    return x.size() == y.size() &&
           std::equal(x.begin(), x.end(), y.begin(), [&](const auto& p, const auto& q) {
             return p.first == q.first && same_value(p.second, q.second);
           });
  };
  auto same_vec = [](const auto& x, const auto& y, auto same_item) {
    return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), same_item);
  };
  return a.next_id == b.next_id && a.cold_starts == b.cold_starts &&
         same_map(a.tpipes, b.tpipes, same_tpipe) && same_vec(a.inputs, b.inputs, same_input) &&
         same_map(a.outputs, b.outputs,
                  [&](const auto& x, const auto& y) { return same_vec(x, y, same_output); }) &&
         same_map(a.phonebook.entries(), b.phonebook.entries(), same_entry) &&
         same_vec(a.runs, b.runs, same_run) && a.transaction_stopped == b.transaction_stopped;
}

// ---- journal -----------------------------------------------------------------------------------------

struct journal::background {
  std::mutex mu;  // held by every append, and by the compaction while it copies the tail and swaps files
  std::thread worker;
  std::atomic<bool> running{false};
  std::function<void()> hook;  // set before a compaction starts; read by its thread only
  std::atomic<std::uint64_t> compactions{0};
  mutable std::mutex error_mu;
  std::string last_error;
};

journal::journal(journal&& other) noexcept
    : dir_((other.settle(), std::move(other.dir_))),
      path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      dir_fd_(std::exchange(other.dir_fd_, -1)),
      size_(other.size_),
      allocated_(other.allocated_),
      snapshot_end_(other.snapshot_end_),
      threshold_(other.threshold_),
      state_(std::move(other.state_)),
      bg_(std::move(other.bg_)) {}

journal& journal::operator=(journal&& other) noexcept {
  if (this != &other) {
    close();
    other.settle();
    dir_ = std::move(other.dir_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    dir_fd_ = std::exchange(other.dir_fd_, -1);
    size_ = other.size_;
    allocated_ = other.allocated_;
    snapshot_end_ = other.snapshot_end_;
    threshold_ = other.threshold_;
    state_ = std::move(other.state_);
    bg_ = std::move(other.bg_);
  }
  return *this;
}

journal::~journal() { close(); }

void journal::close() noexcept {
  settle();
  // A clean close leaves the records only; a crash leaves the zeros ahead too, which open() drops.
  if (fd_ >= 0 && allocated_ > size_) (void)::ftruncate(fd_, static_cast<off_t>(size_));
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  if (dir_fd_ >= 0) ::close(std::exchange(dir_fd_, -1));  // releases the flock
}

result<journal> journal::open(const std::filesystem::path& dir, bool cold_start) {
  journal j;
  j.bg_ = std::make_unique<background>();
  j.dir_ = dir;
  j.path_ = dir / "journal.log";
  std::error_code ec;
  // [D] a state folder the journal creates is the owner's only (0700): the journal holds whole inputs,
  // UTOKENs included. Its parents, and a folder that already exists, are left as they are.
  std::filesystem::path folder = dir.lexically_normal();
  if (folder.has_parent_path() && folder.filename().empty()) folder = folder.parent_path();
  if (!std::filesystem::exists(folder, ec)) {
    if (folder.has_parent_path()) std::filesystem::create_directories(folder.parent_path(), ec);
    if (ec) return errno_error(dir, "create folder", ec.value());
    if (::mkdir(folder.c_str(), 0700) != 0 && errno != EEXIST)
      return errno_error(dir, "create folder", errno);
  }
  j.dir_fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (j.dir_fd_ < 0) return errno_error(dir, "open folder", errno);
  // [D] one emulator per journal: a second one would interleave records.
  if (::flock(j.dir_fd_, LOCK_EX | LOCK_NB) != 0)
    return errno == EWOULDBLOCK ? errc_error(std::errc::device_or_resource_busy, dir, 0,
                                             "the journal is in use by another process")
                                : errno_error(dir, "flock", errno);
  // A crash during checkpoint() may leave its temporary file: the log it was to replace is still whole.
  ::unlink((dir / "journal.tmp").c_str());

  j.fd_ = ::open(j.path_.c_str(), O_RDWR | O_CLOEXEC);
  if (j.fd_ < 0 && errno == ENOENT) {
    if (auto made = write_snapshot_file(j.dir_fd_, j.path_, j.state_); !made) return made.error();
    j.fd_ = ::open(j.path_.c_str(), O_RDWR | O_CLOEXEC);
  }
  if (j.fd_ < 0) return errno_error(j.path_, "open", errno);

  auto content = read_all(j.fd_, j.path_);
  if (!content) return content.error();
  const bytes& file = *content;
  if (file.size() < magic.size() || !std::equal(magic.begin(), magic.end(), file.begin()))
    return errc_error(std::errc::illegal_byte_sequence, j.path_, 0, "not an imsemu journal (bad magic)");

  std::size_t off = magic.size();
  while (off < file.size()) {
    if (auto len = intact_record(file, off)) {
      const auto type = static_cast<rec>(file[off + 4]);
      if (auto why = replay(j.state_, type, bytes_view(file).sub(off + 5, *len)); !why.empty())
        return errc_error(std::errc::illegal_byte_sequence, j.path_, off, "record does not replay: " + why);
      off += record_overhead + *len;
      if (type == rec::snapshot) j.snapshot_end_ = off;
      continue;
    }
    // A bad record. A crash mid-append leaves it as the last thing in the file; anything intact after it
    // means the file was damaged instead, and dropping the rest would lose logged work [D].
    for (std::size_t q = off + 1; q + record_overhead <= file.size(); ++q)
      if (intact_record(file, q))
        return errc_error(
            std::errc::illegal_byte_sequence, j.path_, off,
            "bad record (length, type or CRC) followed by an intact record at offset " + std::to_string(q));
    if (::ftruncate(j.fd_, static_cast<off_t>(off)) != 0 || ::fdatasync(j.fd_) != 0)
      return errno_error(j.path_, "truncate the torn tail", errno, off);
    break;
  }
  j.size_ = std::min<std::size_t>(off, file.size());
  j.allocated_ = j.size_;  // the zeros a crash left after the records went with the torn tail

  if (cold_start) {
    if (auto logged = j.append(static_cast<std::uint8_t>(rec::cold_start), {}); !logged)
      return logged.error();
    apply_cold_start(j.state_);
  }
  return j;
}

void journal::settle() noexcept {
  if (bg_ && bg_->worker.joinable()) bg_->worker.join();
}

void journal::set_compaction_hook(std::function<void()> hook) {
  settle();
  bg_->hook = std::move(hook);
}

std::uint64_t journal::log_size() const noexcept {
  if (!bg_) return size_;
  std::lock_guard<std::mutex> lock(bg_->mu);
  return size_;
}

std::uint64_t journal::compactions() const noexcept { return bg_ ? bg_->compactions.load() : 0; }

std::string journal::last_compaction_error() const {
  if (!bg_) return {};
  std::lock_guard<std::mutex> lock(bg_->error_mu);
  return bg_->last_error;
}

void journal::after_step() {
  // The step is durable already; a failed compaction loses nothing and is tried again after a later step.
  if (!bg_ || bg_->running.load()) return;
  settle();  // the last one's thread has finished: collect it
  if (fd_ < 0 || size_ - std::min(size_, snapshot_end_) <= threshold_) return;
  // The owner's thread is the only writer of size_; the compaction snapshots the records up to here.
  const std::uint64_t end = size_;
  bg_->running = true;
  try {
    bg_->worker = std::thread([this, end] {
      auto done_it = compact(end);
      {
        std::lock_guard<std::mutex> lock(bg_->error_mu);
        bg_->last_error = done_it ? std::string() : done_it.error().to_string();
      }
      if (done_it) ++bg_->compactions;
      bg_->running = false;
    });
  } catch (const std::system_error& e) {  // no thread to be had: tried again after a later step
    const std::lock_guard<std::mutex> lock(bg_->error_mu);
    bg_->last_error = std::string("no compaction thread: ") + e.what();
    bg_->running = false;
  }
}

result<done> journal::compact(std::uint64_t end) {
  // 1. Without the lock: the bytes up to `end` are whole records that nothing rewrites but this thread.
  auto file = read_prefix(fd_, 0, end, path_);
  if (!file) return file.error();
  auto snap = replay_whole(bytes_view(*file), path_);
  if (!snap) return snap.error();
  file = bytes{};
  const std::filesystem::path tmp = dir_ / "journal.tmp";
  auto t = write_snapshot_temp(tmp, *snap);
  if (!t) return t.error();
  snap = journal_state{};
  if (bg_->hook) bg_->hook();

  // 2. Under the append lock: the records logged since `end`, then the swap.
  std::lock_guard<std::mutex> lock(bg_->mu);
  auto discard = [&](decode_error why) {
    ::close(t->fd);
    ::unlink(tmp.c_str());
    return why;
  };
  if (fd_ < 0) return discard(errno_error(path_, "compact", EBADF));
  if (size_ > end) {
    auto tail = read_prefix(fd_, end, size_ - end, path_);
    if (!tail) return discard(tail.error());
    if (const int err = write_all(t->fd, tail->data(), tail->size()); err != 0)
      return discard(errno_error(tmp, "write", err));
    if (::fdatasync(t->fd) != 0) return discard(errno_error(tmp, "fdatasync", errno));
  }
  if (auto renamed = rename_temp(t->fd, tmp, path_); !renamed) return renamed;
  return swap_in(t->length);
}

// journal.tmp is now journal.log. Whatever the folder's fsync says, appends must go to the new file, not
// the unlinked old one. Called with the append lock held, or with no compaction in flight.
result<done> journal::swap_in(std::uint64_t snapshot_end) {
  const int dir_err = ::fsync(dir_fd_) != 0 ? errno : 0;
  if (auto reopened = reopen_after_rename(snapshot_end); !reopened) return reopened;
  if (dir_err != 0) return errno_error(dir_, "fsync folder", dir_err);
  return done{};
}

// The old file is gone from the folder; appends go to the new one.
result<done> journal::reopen_after_rename(std::uint64_t snapshot_end) {
  const int fd = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    // [D] no file to append to: the journal refuses further steps rather than log into the unlinked file.
    const int err = errno;
    ::close(std::exchange(fd_, -1));
    return errno_error(path_, "reopen after checkpoint", err);
  }
  ::close(std::exchange(fd_, fd));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return errno_error(path_, "fstat", errno);
  size_ = static_cast<std::uint64_t>(st.st_size);
  allocated_ = size_;
  snapshot_end_ = snapshot_end;
  return done{};
}

result<done> journal::append(std::uint8_t type, const bytes& payload) {
  if (!bg_) return errc_error(std::errc::bad_file_descriptor, path_, 0, "journal is closed");  // moved from
  const bytes r = frame(static_cast<rec>(type), payload);
  std::lock_guard<std::mutex> lock(bg_->mu);  // a compaction swapping the file holds it
  if (fd_ < 0) return errc_error(std::errc::bad_file_descriptor, path_, 0, "journal is closed");
  int err = 0;
  if (size_ + r.size() > allocated_) {
    // The next zeros ahead of the records (preallocation, above): synced with this record.
    const std::uint64_t want = (size_ + r.size() + preallocation - 1) / preallocation * preallocation;
    const bytes zeros(static_cast<std::size_t>(want - allocated_), 0);
    err = pwrite_all(fd_, zeros.data(), zeros.size(), allocated_);
    if (err == 0) allocated_ = want;
  }
  if (err == 0) err = pwrite_all(fd_, r.data(), r.size(), size_);
  if (err == 0 && ::fdatasync(fd_) != 0) err = errno;
  if (err != 0) {
    // Leave no partial record behind a later append: it would read as damage, not as a torn tail. The
    // zeros ahead go with it.
    (void)::ftruncate(fd_, static_cast<off_t>(size_));
    allocated_ = size_;
    return errno_error(path_, "append", err, size_);
  }
  size_ += r.size();
  return done{};
}

result<std::uint64_t> journal::log_input(const std::string& client, const std::string& tpipe,
                                         bool synchronized, std::uint32_t recoverable_seq,
                                         const bytes& otma) {
  input_rec x{queued_input{state_.next_id, client, tpipe, recoverable_seq, otma}, synchronized};
  if (auto logged = append(static_cast<std::uint8_t>(rec::input), encode(x)); !logged) return logged.error();
  const std::uint64_t id = x.input.id;
  apply(state_, std::move(x));
  after_step();
  return id;
}

result<run_record> journal::commit_run(std::uint64_t input_id, const std::string& transaction,
                                       const std::string& outcome,
                                       const std::vector<phonebook_change>& changes,
                                       const std::vector<output_spec>& outputs) {
  const queued_input* in = state_.find_input(input_id);
  if (in == nullptr)
    return errc_error(std::errc::invalid_argument, path_, 0,
                      "input " + std::to_string(input_id) + " is not queued");
  run_rec x;
  x.run.run = next_run_number(state_);
  x.run.input_id = input_id;
  x.run.transaction = transaction;
  x.run.client = in->client;
  x.run.tpipe = in->tpipe;
  x.run.recoverable_seq = in->recoverable_seq;
  x.run.outcome = outcome;
  for (std::size_t i = 0; i < outputs.size(); ++i) x.run.output_ids.push_back(state_.next_id + i);
  x.changes = changes;
  x.outputs = outputs;
  if (auto logged = append(static_cast<std::uint8_t>(rec::run), encode(x)); !logged) return logged.error();
  run_record done_run = x.run;
  apply(state_, std::move(x));
  after_step();
  return done_run;
}

result<done> journal::log_output_acked(std::uint64_t output_id, std::optional<std::uint32_t> send_rsn) {
  if (auto why = check(state_, output_id); !why.empty())
    return errc_error(std::errc::invalid_argument, path_, 0, why);
  const ack_rec x{output_id, send_rsn.has_value(), send_rsn.value_or(0)};
  if (auto logged = append(static_cast<std::uint8_t>(rec::output_acked), encode(x)); !logged) return logged;
  dequeue(state_, output_id, &x);
  after_step();
  return done{};
}

result<done> journal::purge_output(std::uint64_t output_id) {
  if (auto why = check(state_, output_id); !why.empty())
    return errc_error(std::errc::invalid_argument, path_, 0, why);
  if (auto logged = append(static_cast<std::uint8_t>(rec::output_purged), encode_output_id(output_id));
      !logged)
    return logged;
  dequeue(state_, output_id, nullptr);
  after_step();
  return done{};
}

result<done> journal::set_tpipe(const std::string& client, const std::string& tpipe,
                                const tpipe_state& value) {
  const tpipe_rec x{{client, tpipe}, value};
  if (auto logged = append(static_cast<std::uint8_t>(rec::tpipe_set), encode(x)); !logged) return logged;
  state_.tpipes[x.key] = x.value;
  after_step();
  return done{};
}

result<done> journal::set_transaction_stopped(const std::string& code, bool stopped) {
  writer w;
  w.str(code);
  w.flag(stopped);
  if (auto logged = append(static_cast<std::uint8_t>(rec::tran_set), w.take()); !logged) return logged;
  state_.transaction_stopped[code] = stopped;
  after_step();
  return done{};
}

result<done> journal::checkpoint() {
  settle();
  if (fd_ < 0) return errc_error(std::errc::bad_file_descriptor, path_, 0, "journal is closed");
  const std::filesystem::path tmp = dir_ / "journal.tmp";
  auto t = write_snapshot_temp(tmp, state_);
  if (!t) return t.error();
  if (auto renamed = rename_temp(t->fd, tmp, path_); !renamed) return renamed;
  return swap_in(t->length);
}

}  // namespace imsb::imsemu
