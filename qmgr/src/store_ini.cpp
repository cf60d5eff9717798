// <prefix>/mqs.ini: the queue managers of a prefix, in the stanza form of IBM's mqs.ini [I]
//
//   QueueManager:
//      Name=queue.manager
//      Prefix=/var/mqm
//      Directory=queue!manager
//      Owner=imsbridge
//      FileSystem=posix
//
// Name, Prefix and Directory are IBM's keys [I]; Owner and FileSystem (posix | case_insensitive | fat83)
// are ours [D]. Owner=imsbridge marks the stanzas we wrote: a QueueManager stanza without it is IBM
// MQ's (Name= Prefix= Directory= DataPath= InstallationName= [I]) and is never listed, opened, removed
// or checked by us — only kept. FileSystem is the profile the folder name and the object file names
// were made under, which must stay the same for the queue manager's life. Reading is tolerant: blank lines,
// comments ('#' or ';' first), other stanzas (IBM's AllQueueManagers:, DefaultPrefix:, LogDefaults: ...) and
// unknown keys are kept as they are and written back unchanged; keys compare without case; a missing
// FileSystem means posix. A line that is none of these, and in our stanzas: a missing Name or Directory, a
// Directory that is not one plain folder name (so nothing outside <prefix>/qmgrs/ is ever touched) and a Name
// or Directory given twice are errors naming the line.

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>

#include "store_io.hpp"

namespace imsb::qmgr {

std::optional<names::fs_profile> fs_profile_from_string(std::string_view text) noexcept {
  for (const auto p :
       {names::fs_profile::posix, names::fs_profile::case_insensitive, names::fs_profile::fat83}) {
    if (names::to_string(p) == text) return p;
  }
  return std::nullopt;
}

namespace io {

namespace {

constexpr std::string_view blanks = " \t\r";

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(blanks);
  return s.substr(first, last - first + 1);
}

bool equal_no_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

struct line_error {
  std::string where;
  std::size_t line_no = 0;
  std::size_t offset = 0;
  decode_error operator()(std::string detail) const {
    return decode_error{std::make_error_code(std::errc::invalid_argument),
                        where + " line " + std::to_string(line_no), offset, std::move(detail)};
  }
};

// A stanza being read; `entry` fields are filled as keys arrive. A problem is kept, not returned at
// once: it is an error only if the stanza turns out to be ours (Owner= may come last).
struct open_stanza {
  bool is_qmgr = false;
  bool ours = false;
  mqs_ini::stanza st;
  bool has_name = false, has_directory = false, has_profile = false;
  line_error at;  // its header line
  std::optional<decode_error> problem;
  void note(decode_error e) {
    if (!problem) problem = std::move(e);
  }
};

std::optional<std::string> directory_problem(std::string_view dir) {
  if (dir.empty()) return "Directory is empty";
  if (dir == "." || dir == "..") return "Directory may not be '.' or '..'";
  if (dir.find('/') != std::string_view::npos) return "Directory must be one folder name, without '/'";
  if (dir.find('\0') != std::string_view::npos) return "Directory contains a NUL";
  return std::nullopt;
}

}  // namespace

bool mqs_ini::ibm_owned() const noexcept {
  return has_all_queue_managers ||
         std::any_of(qmgrs.begin(), qmgrs.end(), [](const stanza& st) { return !st.ours; });
}

const mqs_ini::stanza* mqs_ini::find(std::string_view name) const noexcept {
  for (const auto& st : qmgrs) {
    if (st.entry.name == name) return &st;
  }
  return nullptr;
}

std::filesystem::path mqs_ini_path(const std::filesystem::path& prefix) { return prefix / "mqs.ini"; }

result<mqs_ini> parse_mqs_ini(std::string_view text, const std::string& where) {
  mqs_ini ini;
  std::optional<open_stanza> current;
  const auto close_stanza = [&](std::size_t end_line) -> std::optional<decode_error> {
    if (!current || !current->is_qmgr) return std::nullopt;
    current->st.end_line = end_line;
    current->st.ours = current->ours;
    if (!current->ours) {
      // IBM MQ's: kept as it is; its Directory only when it is a plain folder name (taken, never used).
      if (!current->has_directory) current->st.entry.directory.clear();
      ini.qmgrs.push_back(current->st);
      return std::nullopt;
    }
    if (current->problem) return current->problem;
    if (!current->has_name) return current->at("QueueManager stanza without Name=");
    if (!current->has_directory) return current->at("QueueManager stanza without Directory=");
    for (const auto& other : ini.qmgrs) {
      if (!other.ours) continue;
      if (other.entry.name == current->st.entry.name)
        return current->at("queue manager '" + other.entry.name + "' is recorded twice");
      if (other.entry.directory == current->st.entry.directory)
        return current->at("queue managers '" + other.entry.name + "' and '" + current->st.entry.name +
                           "' share Directory=" + other.entry.directory);
    }
    ini.qmgrs.push_back(current->st);
    return std::nullopt;
  };

  std::size_t pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view raw = text.substr(pos, nl - pos);
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    const line_error at{where, ini.lines.size() + 1, pos};
    pos = nl + 1;
    ini.lines.emplace_back(raw);
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (const auto eq = line.find('='); eq != std::string_view::npos) {
      const std::string_view key = trim(line.substr(0, eq));
      const std::string_view value = trim(line.substr(eq + 1));
      if (key.empty()) return at("a key is missing before '='");
      if (!current) return at("'" + std::string(key) + "=' comes before any stanza");
      if (!current->is_qmgr) continue;
      auto& e = current->st.entry;
      if (equal_no_case(key, owner_key)) {
        current->ours = equal_no_case(value, owner_value);
      } else if (equal_no_case(key, "Name")) {
        if (current->has_name) {
          current->note(at("Name= given twice in one stanza"));
        } else if (value.empty()) {
          current->note(at("Name= is empty"));
        } else {
          e.name = std::string(value);
          current->has_name = true;
        }
      } else if (equal_no_case(key, "Directory")) {
        if (current->has_directory) {
          current->note(at("Directory= given twice in one stanza"));
        } else if (auto problem = directory_problem(value)) {
          current->note(at(*problem));
        } else {
          e.directory = std::string(value);
          current->has_directory = true;
        }
      } else if (equal_no_case(key, "FileSystem")) {
        const auto profile = fs_profile_from_string(value);
        if (current->has_profile) {
          current->note(at("FileSystem= given twice in one stanza"));
        } else if (!profile) {
          current->note(at("FileSystem=" + std::string(value) + " is not posix, case_insensitive or fat83"));
        } else {
          e.profile = *profile;
          current->has_profile = true;
        }
      }
      continue;
    }
    if (line.back() == ':' && line.size() > 1) {
      if (auto err = close_stanza(ini.lines.size() - 1)) return *err;
      current.emplace();
      current->at = at;
      const std::string_view stanza_name = trim(line.substr(0, line.size() - 1));
      current->is_qmgr = equal_no_case(stanza_name, "QueueManager");
      if (equal_no_case(stanza_name, "AllQueueManagers")) ini.has_all_queue_managers = true;
      current->st.first_line = ini.lines.size() - 1;
      continue;
    }
    return at("expected 'Stanza:', 'Key=Value' or a comment, found '" + std::string(line) + "'");
  }
  if (auto err = close_stanza(ini.lines.size())) return *err;
  return ini;
}

result<mqs_ini> read_mqs_ini(const std::filesystem::path& prefix) {
  const auto path = mqs_ini_path(prefix);
  auto text = read_file(path);
  if (!text) {
    if (text.error().code == std::errc::no_such_file_or_directory) return mqs_ini{};
    return text.error();
  }
  return parse_mqs_ini(*text, path.string());
}

result<done> write_mqs_ini(const std::filesystem::path& prefix, const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) {
    text += l;
    text += '\n';
  }
  return write_file_atomically(mqs_ini_path(prefix), text);
}

std::vector<std::string> format_stanza(const qmgr_entry& entry, const std::filesystem::path& prefix) {
  return {"QueueManager:",
          "   Name=" + entry.name,
          "   Prefix=" + prefix.string(),
          "   Directory=" + entry.directory,
          "   " + std::string(owner_key) + "=" + std::string(owner_value),
          "   FileSystem=" + std::string(names::to_string(entry.profile))};
}

}  // namespace io

result<std::vector<qmgr_entry>> list_queue_managers(const std::filesystem::path& prefix) {
  auto ini = io::read_mqs_ini(prefix);
  if (!ini) return ini.error();
  std::vector<qmgr_entry> out;
  for (const auto& st : ini->qmgrs) {
    if (st.ours) out.push_back(st.entry);
  }
  return out;
}

}  // namespace imsb::qmgr
