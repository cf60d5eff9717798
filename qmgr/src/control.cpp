// The control commands crtmqm, dltmqm, runmqsc and dspmqfls (control.hpp). The catalog logic is in
// objects/ (mqsc_exec.hpp) and the disk layout in store.hpp; this file parses the command lines, picks
// the queue manager, holds its lock where needed, and prints IBM-like lines with our message IDs.

#include "imsb/qmgr/control.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <iomanip>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <boost/program_options.hpp>

#include "imsb/core/messages.hpp"
#include "imsb/objects/mqsc_exec.hpp"
#include "imsb/objects/object.hpp"
#include "imsb/qmgr/daemon.hpp"
#include "imsb/qmgr/store.hpp"

namespace imsb::qmgr {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;
using objects::object_family;

// A console line: "IMB1150I: text", as the MQSC executor writes its own lines.
std::string line(std::string_view id, std::string_view text) {
  std::string s(id);
  s += ": ";
  s += text;
  return s;
}

void say(std::ostream& os, std::string_view id, std::string_view text) { os << line(id, text) << '\n'; }

std::string quoted(const std::string& s) { return "'" + s + "'"; }

const char* const common_options_text = R"(
Common options:
  --prefix DIR   the folder that holds mqs.ini and qmgrs/ (default: IMSBRIDGE_PREFIX, else /var/mqm
                 when writable, else $HOME/.imsbridge)
  -h, --help     this text
)";

struct usage_error {
  std::string text;
};

// The command line parsed with IBM's single-letter options (a value may follow with or without a blank:
// -u DLQ or -uDLQ) plus our long ones; no abbreviations of long options.
po::variables_map parse(const std::vector<std::string>& args, const po::options_description& desc,
                        const po::positional_options_description& positional) {
  po::variables_map vm;
  try {
    const auto style = po::command_line_style::unix_style ^ po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(args).options(desc).positional(positional).style(style).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw usage_error{e.what()};
  }
  return vm;
}

std::optional<std::string> opt(const po::variables_map& vm, const char* name) {
  if (vm.count(name) == 0) return std::nullopt;
  return vm[name].as<std::string>();
}

int usage_failed(std::ostream& err, std::string_view program, const std::string& text) {
  say(err, msg::IMB1155E, std::string(program) + ": " + text + ". Run " + std::string(program) + " --help.");
  return exit_code::error;
}

// The prefix of --prefix / IMSBRIDGE_PREFIX / the default, or an IMB1157E line.
std::optional<prefix_info> prefix_of(const po::variables_map& vm, std::ostream& err) {
  auto p = resolve_prefix(opt(vm, "prefix"));
  if (!p) {
    say(err, msg::IMB1157E, "The prefix cannot be used: " + p.error().to_string());
    return std::nullopt;
  }
  return std::move(p).value();
}

// The queue manager a command acts on: the one named, else the only one of the prefix [D] (we have no
// default queue manager as IBM's mqs.ini has; with exactly one there is no ambiguity).
std::optional<std::string> choose_qmgr(const std::optional<std::string>& given, const prefix_info& prefix,
                                       std::string_view program, std::ostream& err) {
  if (given) return given;
  auto list = list_queue_managers(prefix.path);
  if (!list) {
    say(err, msg::IMB1160E,
        "Cannot read the queue managers of " + prefix.path.string() + ": " + list.error().to_string());
    return std::nullopt;
  }
  if (list->size() == 1) return list->front().name;
  if (list->empty()) {
    say(err, msg::IMB1158E,
        std::string(program) + ": there is no queue manager in " + prefix.path.string() + " (" +
            prefix.source + "); create one with crtmqm.");
    return std::nullopt;
  }
  std::string names;
  for (const auto& e : *list) names += (names.empty() ? "" : ", ") + e.name;
  say(err, msg::IMB1166E,
      std::string(program) + ": name the queue manager: " + std::to_string(list->size()) +
          " queue managers in " + prefix.path.string() + " (" + names + ").");
  return std::nullopt;
}

// IBM's CRDATE/CRTIME forms: yyyy-mm-dd and hh.mm.ss, local time.
objects::exec_context now_context() {
  objects::exec_context ctx;
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char date[16];
  char time[16];
  std::strftime(date, sizeof date, "%Y-%m-%d", &tm);
  std::strftime(time, sizeof time, "%H.%M.%S", &tm);
  ctx.date = date;
  ctx.time = time;
  ctx.qmgr_running = false;    // the control commands edit a stopped queue manager
  ctx.messages_unseen = true;  // ... whose messages are not loaded: no DELETE QLOCAL [D]
  return ctx;
}

bool is_code(const decode_error& e, std::errc c) { return e.code == std::make_error_condition(c); }

// A store error as one plain clause for an operator: "<file>: <what failed>: <the system's reason>" or
// "<file>, line N: <what is wrong>". decode_error::to_string's offset and error-code name are for logs:
// for these errors the offset is 0 and the code's name repeats the system's reason.
std::string plain(const decode_error& e) {
  std::string where = e.field;
  if (const auto at = where.find(" catalog.line "); at != std::string::npos)
    where.replace(at, std::strlen(" catalog.line "), ", line ");
  std::string what = e.detail.empty() ? e.code.message() : e.detail;
  while (!what.empty() && what.back() == '.') what.pop_back();  // the callers end the sentence
  if (where.empty() || what.find(where) != std::string::npos) return what;
  return where + ": " + what;
}

// What to do when the lock is held: the same advice from runmqsc and dltmqm (IMB1159E).
std::string busy_text(const std::string& name, std::string_view refused) {
  return "Queue manager " + name + " is running, or another runmqsc is editing its objects; " +
         std::string(refused) +
         ". Stop the queue manager (or let the other runmqsc end: type END there), then retry.";
}

// Opens the queue manager, or says why not (IMB1158E no such queue manager, IMB1160E I/O).
std::optional<queue_manager_store> open_store(const prefix_info& prefix, const std::string& name,
                                              std::ostream& err) {
  auto store = queue_manager_store::open(prefix.path, name);
  if (store) {
    // mqs.ini records it but its folder is gone (removed by hand, or a dltmqm that was interrupted):
    // nothing can be used; dltmqm removes the record [D].
    std::error_code ec;
    if (!fs::is_directory(store->directory(), ec)) {
      say(err, msg::IMB1168E,
          "Queue manager " + name + " is recorded in " + (prefix.path / "mqs.ini").string() +
              " but its folder " + store->directory().string() + " is missing. Run dltmqm " + name +
              " to remove its record, then crtmqm " + name + " to create it again.");
      return std::nullopt;
    }
    return std::move(store).value();
  }
  if (is_code(store.error(), std::errc::no_such_file_or_directory)) {
    say(err, msg::IMB1158E,
        "Queue manager " + name + " does not exist in " + prefix.path.string() + " (" + prefix.source + ").");
  } else {
    say(err, msg::IMB1160E, "Cannot open queue manager " + name + ": " + plain(store.error()) + ".");
  }
  return std::nullopt;
}

// The catalog, or an IMB1160E line that names the file and the fault once and says what to do.
std::optional<objects::object_catalog> load_catalog(const queue_manager_store& store, std::ostream& err) {
  auto catalog = store.load();
  if (catalog) return std::move(catalog).value();
  say(err, msg::IMB1160E,
      "The object catalog of queue manager " + store.name() + " cannot be read: " + plain(catalog.error()) +
          ". Restore the file from a backup, or delete the queue manager (dltmqm " + store.name() +
          ") and create it again.");
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------------
// crtmqm

const char* const crtmqm_usage = R"(Usage: crtmqm [-u DLQ] [-d DEFXMITQ] [--fs PROFILE] [--prefix DIR] QM

Creates queue manager QM: records it in <prefix>/mqs.ini, makes <prefix>/qmgrs/<QM as a file name>/
and its object catalog with the default objects (SYSTEM.DEFAULT.*, SYSTEM.ADMIN.*.EVENT ...).

Options:
  -u, --dlq DLQ  make local queue DLQ and set it as the dead-letter queue (ALTER QMGR DEADQ)
  -d, --defxmitq DEFXMITQ
                 make local queue DEFXMITQ with USAGE(XMITQ) and set it as the default transmission queue
  --fs PROFILE   the file system the object files are named for: posix (case sensitive, long names),
                 case-insensitive (NTFS-like), fat (8.3 names: truncation plus numeric suffix), or
                 detect (default: tried on the prefix folder). Kept for the queue manager's life.
)";
const char* const crtmqm_exits = R"(
Exit codes:
  0   queue manager created (IMB1150I)
  8   a queue manager of that name already exists (IMB1154E), as IBM's crtmqm (AMQ8110)
  20  usage error (IMB1155E), name not valid (IMB1156E), prefix unusable (IMB1157E), I/O error (IMB1160E)
)";

std::optional<names::fs_profile> profile_from_option(const std::string& s) {
  if (s == "posix") return names::fs_profile::posix;
  if (s == "case-insensitive" || s == "case_insensitive") return names::fs_profile::case_insensitive;
  if (s == "fat" || s == "fat83") return names::fs_profile::fat83;
  return std::nullopt;
}

std::size_t object_count(const objects::object_catalog& c) {
  std::size_t n = 0;
  for (auto f : {object_family::queue, object_family::stgclass, object_family::namelist,
                 object_family::process, object_family::channel, object_family::listener})
    n += c.list(f).size();
  return n;
}

int crtmqm_body(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description desc;
  desc.add_options()("help,h", "")("prefix", po::value<std::string>(), "")(
      "dlq,u", po::value<std::string>(), "")("defxmitq,d", po::value<std::string>(), "")(
      "fs", po::value<std::string>()->default_value("detect"), "")("qmgr", po::value<std::string>(), "");
  po::positional_options_description pos;
  pos.add("qmgr", 1);
  const auto vm = parse(args, desc, pos);
  if (vm.count("help") != 0) {
    out << crtmqm_usage << common_options_text << crtmqm_exits;
    return exit_code::ok;
  }
  const auto name = opt(vm, "qmgr");
  if (!name) throw usage_error{"the queue manager name is missing"};
  const std::string fs_text = vm["fs"].as<std::string>();
  const auto forced = profile_from_option(fs_text);
  if (!forced && fs_text != "detect")
    throw usage_error{"--fs " + fs_text + ": must be posix, case-insensitive, fat or detect"};

  // The names first: a bad one must leave no trace, not even the prefix folder.
  const auto ctx = now_context();
  const std::string deadq = opt(vm, "dlq").value_or("");
  const std::string defxmitq = opt(vm, "defxmitq").value_or("");
  const auto bad_name = [&](const decode_error& e) {
    std::string what = e.field == "deadq"      ? "dead-letter queue name " + quoted(deadq)
                       : e.field == "defxmitq" ? "default transmission queue name " + quoted(defxmitq)
                                               : "queue manager name " + quoted(*name);
    say(err, msg::IMB1156E, "The " + what + " is not valid: " + e.detail + ". Nothing was created.");
    return exit_code::error;
  };
  if (auto checked = objects::new_queue_manager(*name, names::fs_profile::posix, deadq, defxmitq, ctx);
      !checked)
    return bad_name(checked.error());

  const auto prefix = prefix_of(vm, err);
  if (!prefix) return exit_code::error;
  std::error_code ec;
  fs::create_directories(prefix->path, ec);
  if (ec) {
    say(err, msg::IMB1157E, "Cannot create the prefix folder " + prefix->path.string() + ": " + ec.message());
    return exit_code::error;
  }

  names::fs_profile profile = names::fs_profile::posix;
  std::string profile_how;
  if (forced) {
    profile = *forced;
    profile_how = "forced with --fs";
  } else {
    auto detected = detect_profile(prefix->path);
    if (!detected) {
      say(err, msg::IMB1160E,
          "Cannot detect the file system of " + prefix->path.string() + ": " + detected.error().to_string());
      return exit_code::error;
    }
    profile = *detected;
    profile_how = "detected on " + prefix->path.string();
  }

  auto catalog = objects::new_queue_manager(*name, profile, deadq, defxmitq, ctx);
  if (!catalog) return bad_name(catalog.error());

  auto store = queue_manager_store::create(prefix->path, *catalog);
  if (!store) {
    const auto& e = store.error();
    if (is_code(e, std::errc::file_exists)) {
      say(err, msg::IMB1154E, "Queue manager " + *name + " already exists in " + prefix->path.string() + ".");
      return exit_code::qmgr_exists;
    }
    if (is_code(e, std::errc::invalid_argument)) {
      return bad_name(e);
    }
    say(err, msg::IMB1160E, "Queue manager " + *name + " was not created: " + plain(e) + ".");
    return exit_code::error;
  }

  for (const auto& left : store->skipped_leftovers()) {
    const fs::path path = fs::path(left).is_absolute() ? fs::path(left) : prefix->path / "qmgrs" / left;
    say(err, msg::IMB1171W,
        "Folder " + path.string() +
            " has no mqs.ini record (left by an earlier queue manager, or by a crtmqm or dltmqm that did "
            "not finish); it was not reused: queue manager " +
            *name + " got folder " + store->directory().string() +
            ". Remove the old folder when it holds nothing you need.");
  }
  say(out, msg::IMB1150I, "Queue manager " + *name + " created.");
  say(out, msg::IMB1152I,
      "Directory " + quoted(store->directory().string()) + " created (prefix from " + prefix->source + ").");
  say(out, msg::IMB1153I,
      "File-system profile " + std::string(names::to_string(profile)) + " (" + profile_how + ").");
  std::string extra;
  if (!deadq.empty()) extra += ", dead-letter queue " + deadq;
  if (!defxmitq.empty()) extra += ", default transmission queue " + defxmitq;
  say(out, msg::IMB1151I,
      "Default objects created: " + std::to_string(object_count(*catalog)) + " objects" + extra + ".");
  return exit_code::ok;
}

// ---------------------------------------------------------------------------------------------------
// dltmqm

const char* const dltmqm_usage = R"(Usage: dltmqm [--prefix DIR] QM

Deletes queue manager QM: its folder under <prefix>/qmgrs/ with every object and message, and its
mqs.ini stanza. Refused while the queue manager is running or runmqsc is editing it (its lock is held).
)";
const char* const dltmqm_exits = R"(
Exit codes:
  0   queue manager deleted (IMB1161I)
  5   the queue manager is running, or runmqsc is editing it (IMB1159E), as IBM's dltmqm (AMQ8027)
  16  no queue manager of that name (IMB1158E), as IBM's dltmqm (AMQ8118)
  20  usage error (IMB1155E), prefix unusable (IMB1157E), I/O error (IMB1160E)
)";

int dltmqm_body(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description desc;
  desc.add_options()("help,h", "")("prefix", po::value<std::string>(), "")("qmgr", po::value<std::string>(),
                                                                           "");
  po::positional_options_description pos;
  pos.add("qmgr", 1);
  const auto vm = parse(args, desc, pos);
  if (vm.count("help") != 0) {
    out << dltmqm_usage << common_options_text << dltmqm_exits;
    return exit_code::ok;
  }
  const auto name = opt(vm, "qmgr");
  if (!name) throw usage_error{"the queue manager name is missing"};
  const auto prefix = prefix_of(vm, err);
  if (!prefix) return exit_code::error;

  auto removed = queue_manager_store::remove(prefix->path, *name);
  if (!removed) {
    const auto& e = removed.error();
    if (is_code(e, std::errc::device_or_resource_busy)) {
      say(err, msg::IMB1159E, busy_text(*name, "it was not deleted"));
      return exit_code::qmgr_running;
    }
    if (is_code(e, std::errc::no_such_file_or_directory)) {
      say(err, msg::IMB1158E,
          "Queue manager " + *name + " does not exist in " + prefix->path.string() + " (" + prefix->source +
              ").");
      return exit_code::qmgr_not_found;
    }
    say(err, msg::IMB1160E, "Queue manager " + *name + " was not deleted: " + plain(e) + ".");
    return exit_code::error;
  }
  say(out, msg::IMB1161I, "Queue manager " + *name + " deleted.");
  return exit_code::ok;
}

// ---------------------------------------------------------------------------------------------------
// runmqsc

const char* const runmqsc_usage = R"(Usage: runmqsc [-f FILE] [-e] [-v] [--prefix DIR] [QM]

Runs MQSC commands (from standard input, or FILE) against queue manager QM. When QM runs (strmqm), the
commands go to it through its bindings socket and it applies them itself, so its catalog has one writer;
when it is stopped, runmqsc edits the catalog under the queue manager's lock, and is refused while
another runmqsc edits it (and with -v while it runs). QM may be left out when the prefix has exactly one
queue manager. For each command it prints the command (its number and text), then one line per result with a
message ID; a syntax error or a command that cannot be applied changes nothing. Commands that act on a
running queue manager (START LISTENER, DISPLAY QSTATUS, CLEAR QLOCAL ...) fail with "queue manager not
running" when it is stopped; valid MQSC that imsbridge does not implement is reported as not supported. Each command is
applied and answered as soon as its last line is read. The catalog is saved when a command changed it
and no more input is waiting (a pause at the terminal or in a pipe), and at the end; from a file, at
the end. Before the first command, the object files are repaired to match the catalog (IMB1169W).

Options:
  -f, --file FILE  read the commands from FILE instead of standard input
  -e, --no-echo    do not echo the commands, print only the results (IBM's -e)
  -v, --verify     verify only: run the commands on a copy of the catalog and save nothing (IBM's -v)
)";
const char* const runmqsc_exits = R"(
Exit codes (IBM's runmqsc):
  0   every command worked
  10  some command had a syntax error, failed, or is not supported; the others were applied
  20  error: usage (IMB1155E), no such queue manager (IMB1158E) or its folder missing (IMB1168E),
      queue manager running or being edited (IMB1159E), the input cannot be read (IMB1163E), the
      catalog cannot be read or saved (IMB1160E)
)";

bool is_echo_line(std::string_view l) {
  // The executor's echo: "     1 : DEFINE ..." and its continuation lines "       : ..." (IBM's layout).
  std::size_t i = 0;
  while (i < l.size() && l[i] == ' ') ++i;
  if (i == 0) return false;  // echo lines are indented; message lines start with their ID
  const std::size_t digits = i;
  while (i < l.size() && l[i] >= '0' && l[i] <= '9') ++i;
  const std::string_view rest = l.substr(i);
  if (i > digits) return rest.substr(0, 2) == " :";
  return rest.substr(0, 1) == ":";
}

// Where runmqsc's commands come from, a line at a time.
class mqsc_input {
 public:
  virtual ~mqsc_input() = default;
  // The next line, without its '\n'; nullopt at the end of the input or when reading failed (failure()).
  virtual std::optional<std::string> next() = 0;
  // Whether more input is there without waiting: false when the writer (an operator, a pipe) is idle.
  virtual bool more_ready() = 0;
  // Why reading failed, or empty.
  virtual std::string failure() const = 0;
};

// A file descriptor read as the bytes come (read(2), not a buffered stream), so that poll(2) can tell
// whether more is waiting: standard input or the -f file.
class fd_input final : public mqsc_input {
 public:
  explicit fd_input(int fd) : fd_(fd) {}

  std::optional<std::string> next() override {
    for (;;) {
      if (const auto nl = buffer_.find('\n', pos_); nl != std::string::npos) {
        std::string l = buffer_.substr(pos_, nl - pos_);
        pos_ = nl + 1;
        return l;
      }
      if (eof_) {
        if (pos_ == buffer_.size()) return std::nullopt;
        std::string l = buffer_.substr(pos_);  // a last line without '\n'
        pos_ = buffer_.size();
        return l;
      }
      fill();
    }
  }

  bool more_ready() override {
    if (pos_ < buffer_.size() || eof_) return true;
    pollfd p{fd_, POLLIN, 0};
    int n;
    do {
      n = ::poll(&p, 1, 0);
    } while (n < 0 && errno == EINTR);
    return n != 0;  // readable, ended (POLLHUP) or failed: read() will tell; a regular file is always ready
  }

  std::string failure() const override { return errno_ == 0 ? std::string() : std::strerror(errno_); }

 private:
  void fill() {
    buffer_.erase(0, pos_);
    pos_ = 0;
    char chunk[65536];
    ssize_t n;
    do {
      n = ::read(fd_, chunk, sizeof chunk);
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
    } else {
      eof_ = true;
      if (n < 0) errno_ = errno;
    }
  }

  int fd_;
  std::string buffer_;
  std::size_t pos_ = 0;
  bool eof_ = false;
  int errno_ = 0;
};

// A C++ stream (the library entry point; tests): it cannot say whether more is coming, so the catalog
// is saved at the end only.
class stream_input final : public mqsc_input {
 public:
  explicit stream_input(std::istream& in) : in_(in) {}
  std::optional<std::string> next() override {
    std::string l;
    if (std::getline(in_, l)) return l;
    return std::nullopt;
  }
  bool more_ready() override { return true; }
  std::string failure() const override { return in_.bad() ? "the stream failed" : ""; }

 private:
  std::istream& in_;
};

// An open file descriptor closed on scope exit.
class fd_owner {
 public:
  explicit fd_owner(int fd) : fd_(fd) {}
  fd_owner(const fd_owner&) = delete;
  fd_owner& operator=(const fd_owner&) = delete;
  ~fd_owner() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

int runmqsc_body(const std::vector<std::string>& args, mqsc_input* given_input, int in_fd, std::ostream& out,
                 std::ostream& err) {
  po::options_description desc;
  desc.add_options()("help,h", "")("prefix", po::value<std::string>(), "")(
      "file,f", po::value<std::string>(), "")("no-echo,e", po::bool_switch(), "")(
      "verify,v", po::bool_switch(), "")("qmgr", po::value<std::string>(), "");
  po::positional_options_description pos;
  pos.add("qmgr", 1);
  const auto vm = parse(args, desc, pos);
  if (vm.count("help") != 0) {
    out << runmqsc_usage << common_options_text << runmqsc_exits;
    return exit_code::ok;
  }
  const bool no_echo = vm["no-echo"].as<bool>();
  const bool verify = vm["verify"].as<bool>();
  const auto prefix = prefix_of(vm, err);
  if (!prefix) return exit_code::error;
  const auto name = choose_qmgr(opt(vm, "qmgr"), *prefix, "runmqsc", err);
  if (!name) return exit_code::error;

  // The script file is opened first: an unusable one is an error before anything is locked.
  const auto file = opt(vm, "file");
  fd_owner file_fd(file ? ::open(file->c_str(), O_RDONLY | O_CLOEXEC) : -1);
  if (file) {
    struct stat st {};
    if (file_fd.get() < 0 || ::fstat(file_fd.get(), &st) != 0) {
      say(err, msg::IMB1163E,
          "Cannot read MQSC file " + *file + ": " + std::strerror(errno) + ". Nothing was changed.");
      return exit_code::error;
    }
    if (S_ISDIR(st.st_mode)) {
      say(err, msg::IMB1163E,
          "Cannot read MQSC file " + *file +
              ": it is a folder. Give -f a file of MQSC commands. Nothing was changed.");
      return exit_code::error;
    }
  }
  std::optional<fd_input> from_fd;
  mqsc_input* input = given_input;
  if (file) {
    input = &from_fd.emplace(file_fd.get());
  } else if (input == nullptr) {
    input = &from_fd.emplace(in_fd);
  }
  const std::string source = file ? "MQSC file " + *file : std::string("standard input");

  auto store = open_store(*prefix, *name, err);
  if (!store) return exit_code::error;
  auto lock = store->try_lock();
  if (!lock) {
    if (is_code(lock.error(), std::errc::device_or_resource_busy)) {
      // A running queue manager takes the commands itself, through its bindings socket (the catalog has
      // one writer); -1: no daemon answers (another runmqsc holds the lock).
      if (!verify) {
        const bool terminal = !file && in_fd >= 0 && ::isatty(in_fd) == 1;
        const int rc = detail::runmqsc_running(
            prefix->path, *name, [&] { return input->next(); }, terminal, no_echo, out, err);
        if (rc >= 0) return rc;
      }
      say(err, msg::IMB1159E, busy_text(*name, "its objects were not changed"));
    } else {
      say(err, msg::IMB1160E, "Cannot lock queue manager " + *name + ": " + plain(lock.error()) + ".");
    }
    return exit_code::error;
  }
  auto catalog = load_catalog(*store, err);
  if (!catalog) return exit_code::error;
  if (!verify) {
    // The files follow the catalog: a crash (kill -9, power loss) between a save's steps can leave a
    // queue's folder missing or one no object owns; repaired here, under the lock, before any command.
    auto repaired = store->reconcile(*catalog);
    if (!repaired) {
      say(err, msg::IMB1160E,
          "The object files of queue manager " + *name + " cannot be made to match its catalog: " +
              plain(repaired.error()) + ". Fix the folder's permissions, then retry.");
      return exit_code::error;
    }
    for (const auto& l : *repaired)
      say(err, msg::IMB1169W,
          "Queue manager " + *name + ": object files repaired to match the catalog: " + l + ".");
  }

  say(out, msg::IMB1162I,
      "Starting MQSC for queue manager " + *name + "." + (verify ? " (verify only)" : ""));
  out << '\n';
  out.flush();

  // Each command is applied, saved and answered as soon as its last line is read, as IBM's runmqsc
  // does [I]. The catalog is saved whenever a command changed it and no more input is waiting (an
  // operator at a terminal, a pipe whose writer pauses), and at the end: so what was answered survives
  // a kill, and a fast pipe or a file is not saved after every command. Saved while the lock is held,
  // so no queue manager can start on a half-written catalog.
  objects::script_runner runner(*catalog, now_context());
  std::size_t saved_changes = 0;
  std::size_t shown = 0;  // commands whose results reached standard output
  bool output_lost = false;
  const auto save = [&]() -> bool {
    if (verify || runner.changes() == saved_changes) return true;
    auto saved = store->save(*catalog);
    if (!saved) {
      // The store's error ends by saying whether the new catalog is in place.
      say(err, msg::IMB1160E,
          "Saving the objects of queue manager " + *name + " failed: " + plain(saved.error()) +
              (queue_manager_store::save_replaced_catalog(saved.error())
                   ? ". The next runmqsc repairs the object files; fix the cause first."
                   : ". The commands answered since the last save are lost: fix the cause, then run them "
                     "again."));
      return false;
    }
    catalog->clear_erased();  // the store has acted on the erased objects' files (store.hpp)
    saved_changes = runner.changes();
    return true;
  };
  const auto print = [&](const std::vector<std::string>& lines) {
    if (lines.empty() || output_lost) return;
    for (const auto& l : lines) {
      if (no_echo && is_echo_line(l)) continue;
      out << l << '\n';
    }
    out.flush();
    // A closed pipe (runmqsc ... | head) must not stop the commands or the save: runmqsc's main ignores
    // SIGPIPE, and from here on the results are dropped.
    if (!out) output_lost = true;
  };
  while (!runner.ended()) {
    const auto l = input->next();
    if (!l) break;
    const auto lines = runner.feed_line(*l);
    const bool saved = runner.changes() == saved_changes || input->more_ready() || save();
    print(lines);
    if (!lines.empty() && !output_lost) ++shown;
    if (!saved) return exit_code::error;
  }
  const std::string failure = input->failure();
  const objects::script_outcome outcome = runner.finish();
  const bool saved = save();
  print(outcome.lines);
  if (!saved) return exit_code::error;
  if (output_lost)
    say(err, msg::IMB1170W,
        "Standard output was closed after " + std::to_string(shown) +
            " answers; the other results were not shown, but every command was run and " +
            (verify ? std::string("nothing was saved (-v).") : std::string("the catalog was saved.")));
  if (!failure.empty()) {
    say(err, msg::IMB1163E,
        "Reading " + source + " failed: " + failure +
            ". The commands read before were run and their changes saved; the rest were not read.");
    return exit_code::error;
  }
  return outcome.exit_code();
}

// ---------------------------------------------------------------------------------------------------
// dspmqfls

const char* const dspmqfls_usage = R"(Usage: dspmqfls [-m QM] [-t TYPE] [--prefix DIR] GENERICNAME
       dspmqfls [-m QM] [-t TYPE] [--prefix DIR] --file FILENAME

Displays the real file-system name of every object of queue manager QM whose name matches GENERICNAME
(a name, or a prefix ending in '*'; '*' alone matches all). For each object it prints a line with its
type (padded to 10) and real name, then a line with its path: a queue's folder (which holds its file q),
a namelist's or process's file, the queue manager's folder (type QMGR, matched by the queue manager's
name), or the object catalog (type CATALOG). Channels, listeners and storage classes are not files
(as in IBM MQ): they are kept in the object catalog, and their path line is the catalog's path.
--file does the reverse: the objects whose transformed file name is FILENAME (compared as the queue
manager's file system compares names).
-m may be left out when the prefix has exactly one queue manager.

Options:
  -m, --qmgr QM    the queue manager
  -t, --type TYPE  only objects of this type: * or all (default), queue or q, qlocal or ql, qalias or
                   qa, qremote or qr, qmodel or qm, namelist or nl, process or prcs, channel or chl,
                   clntconn or clcn, listener or lstr, catalog or ctlg, qmgr, stgclass or stc (ours),
                   and IBM's authinfo, service or srvc, topic or top (imsbridge has no such objects:
                   nothing matches)
  --file F         the objects whose file name is F, instead of GENERICNAME
)";
const char* const dspmqfls_exits = R"(
Exit codes:
  0   objects listed
  10  no object matched (IMB1165W)
  20  usage error (IMB1155E), no such queue manager (IMB1158E) or its folder missing (IMB1168E), -m
      needed (IMB1166E), the catalog cannot be read (IMB1160E)
)";

enum class pick {
  all,
  queue,
  qlocal,
  qalias,
  qremote,
  qmodel,
  namelist,
  process,
  channel,
  clntconn,
  listener,
  stgclass,
  catalog,
  qmgr,
  none,
};

// IBM's dspmqfls types [C: DSPMQFLS] (and [I] for qremote, qmgr, service, topic); stgclass is ours [D].
std::optional<pick> pick_from(const std::string& t) {
  struct word {
    std::string_view a, b;
    pick p;
  };
  static const word words[] = {
      {"*", "all", pick::all},
      {"queue", "q", pick::queue},
      {"qlocal", "ql", pick::qlocal},
      {"qalias", "qa", pick::qalias},
      {"qremote", "qr", pick::qremote},
      {"qmodel", "qm", pick::qmodel},
      {"namelist", "nl", pick::namelist},
      {"process", "prcs", pick::process},
      {"channel", "chl", pick::channel},
      {"clntconn", "clcn", pick::clntconn},
      {"listener", "lstr", pick::listener},
      {"catalog", "ctlg", pick::catalog},
      {"qmgr", "qmgr", pick::qmgr},
      {"stgclass", "stc", pick::stgclass},
      {"authinfo", "authinfo", pick::none},
      {"service", "srvc", pick::none},
      {"topic", "top", pick::none},
  };
  std::string lower;
  for (char c : t) lower.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  for (const auto& w : words)
    if (lower == w.a || lower == w.b) return w.p;
  return std::nullopt;
}

struct file_entry {
  std::string type;  // QLOCAL, NAMELIST, CHANNEL, QMGR, CATALOG ...
  std::string name;
  fs::path path;
};

bool picked(pick p, const objects::object_record& rec) {
  using objects::object_type;
  switch (p) {
    case pick::all:
      return true;
    case pick::queue:
      return objects::family_of(rec.type) == object_family::queue;
    case pick::qlocal:
      return rec.type == object_type::qlocal;
    case pick::qalias:
      return rec.type == object_type::qalias;
    case pick::qremote:
      return rec.type == object_type::qremote;
    case pick::qmodel:
      return rec.type == object_type::qmodel;
    case pick::namelist:
      return rec.type == object_type::namelist;
    case pick::process:
      return rec.type == object_type::process;
    case pick::channel:
      return rec.type == object_type::channel;
    case pick::clntconn:
      return rec.type == object_type::channel && rec.text("CHLTYPE") == "CLNTCONN";
    case pick::listener:
      return rec.type == object_type::listener;
    case pick::stgclass:
      return rec.type == object_type::stgclass;
    default:
      return false;
  }
}

int dspmqfls_body(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description desc;
  desc.add_options()("help,h", "")("prefix", po::value<std::string>(), "")(
      "qmgr,m", po::value<std::string>(), "")("type,t", po::value<std::string>()->default_value("*"), "")(
      "file", po::value<std::string>(), "")("generic", po::value<std::string>(), "");
  po::positional_options_description pos;
  pos.add("generic", 1);
  const auto vm = parse(args, desc, pos);
  if (vm.count("help") != 0) {
    out << dspmqfls_usage << common_options_text << dspmqfls_exits;
    return exit_code::ok;
  }
  const auto generic = opt(vm, "generic");
  const auto by_file = opt(vm, "file");
  if (generic && by_file) throw usage_error{"give either GENERICNAME or --file, not both"};
  if (!generic && !by_file) throw usage_error{"the object name (GENERICNAME) is missing"};
  const std::string type_text = vm["type"].as<std::string>();
  const auto p = pick_from(type_text);
  if (!p) throw usage_error{"-t " + type_text + ": not an object type (see --help)"};

  const auto prefix = prefix_of(vm, err);
  if (!prefix) return exit_code::error;
  const auto name = choose_qmgr(opt(vm, "qmgr"), *prefix, "dspmqfls", err);
  if (!name) return exit_code::error;
  auto store = open_store(*prefix, *name, err);
  if (!store) return exit_code::error;
  auto catalog = load_catalog(*store, err);
  if (!catalog) return exit_code::error;

  // Whether an object of a family with this real name is selected by the name given.
  const auto name_matches = [&](object_family family, const std::string& real) {
    if (generic) return objects::matches_generic(*generic, real);
    const auto real_of = catalog->real_name_of(family, *by_file);
    return real_of && *real_of == real;
  };

  std::vector<file_entry> entries;
  if ((*p == pick::all || *p == pick::qmgr) && generic && objects::matches_generic(*generic, *name))
    entries.push_back({"QMGR", *name, store->directory()});
  if ((*p == pick::all || *p == pick::catalog) && generic && objects::matches_generic(*generic, *name))
    entries.push_back({"CATALOG", *name, store->catalog_path()});
  for (auto family : {object_family::queue, object_family::namelist, object_family::process,
                      object_family::channel, object_family::listener, object_family::stgclass}) {
    for (const auto* rec : catalog->list(family)) {
      if (!picked(*p, *rec) || !name_matches(family, rec->name)) continue;
      const bool clntconn = rec->type == objects::object_type::channel && rec->text("CHLTYPE") == "CLNTCONN";
      std::string type = clntconn ? "CLNTCONN" : std::string(objects::to_mqsc_word(rec->type));
      // Not files [C: FILENAMES-V6]: the catalog holds them [D].
      fs::path path = store->object_path(*catalog, family, rec->name).value_or(store->catalog_path());
      entries.push_back({std::move(type), rec->name, std::move(path)});
    }
  }

  // IBM's banner then, per object, "<type padded to 10><name>" and the path, no blank line between
  // [C: DSPMQFLS, QIITA-DSPMQFLS].
  say(out, msg::IMB1164I, "imsbridge Display MQ Files");
  for (const auto& e : entries) {
    out << std::left << std::setw(10) << e.type << e.name << '\n' << e.path.string() << '\n';
  }
  if (entries.empty()) {
    const std::string what = generic ? "named " + quoted(*generic) : "with file name " + quoted(*by_file);
    say(err, msg::IMB1165W,
        "No object " + what + " (type " + type_text + ") on queue manager " + *name + ".");
    return exit_code::partly;
  }
  return exit_code::ok;
}

template <class Body>
int guarded(std::string_view program, std::ostream& err, Body body) {
  try {
    return body();
  } catch (const usage_error& e) {
    return usage_failed(err, program, e.text);
  } catch (const std::exception& e) {
    say(err, msg::IMB1167S, std::string(program) + ": internal error: " + e.what());
    return exit_code::error;
  }
}

}  // namespace

int crtmqm(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return guarded("crtmqm", err, [&] { return crtmqm_body(args, out, err); });
}

int dltmqm(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return guarded("dltmqm", err, [&] { return dltmqm_body(args, out, err); });
}

int runmqsc(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  stream_input input(in);
  return guarded("runmqsc", err, [&] { return runmqsc_body(args, &input, -1, out, err); });
}

int runmqsc(const std::vector<std::string>& args, int in_fd, std::ostream& out, std::ostream& err) {
  return guarded("runmqsc", err, [&] { return runmqsc_body(args, nullptr, in_fd, out, err); });
}

int dspmqfls(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return guarded("dspmqfls", err, [&] { return dspmqfls_body(args, out, err); });
}

}  // namespace imsb::qmgr
