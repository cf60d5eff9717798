#pragma once
// Private helpers of the queue-manager store (store_*.cpp): errors that carry errno's text, whole-file
// reads, atomic writes and the lock that serialises edits of a prefix's mqs.ini.

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "imsb/core/result.hpp"
#include "imsb/qmgr/store.hpp"

namespace imsb::qmgr::io {

// An I/O failure: `path` in field, "<what>: <strerror>" in detail, errno in the generic category so
// that callers compare against std::errc.
decode_error error_from_errno(const std::filesystem::path& path, std::string_view what, int err);
decode_error error_from_code(const std::filesystem::path& path, std::string_view what, std::error_code ec);
decode_error error_of(std::errc code, std::string field, std::string detail);

// The whole file; std::errc::no_such_file_or_directory when it does not exist.
result<std::string> read_file(const std::filesystem::path& path);

// Replaces `path` with `text` so that a crash leaves either the old or the new file, never a part:
// writes <path>.tmp, fsyncs it, renames it over `path` and fsyncs the folder. The temporary name is
// fixed [D]: every writer of these files holds a lock first (the prefix lock for mqs.ini, the queue
// manager's lock or its creation for the catalog), and a .tmp a crash left behind is simply overwritten.
// `renamed`, when given, says afterwards whether `path` was replaced (an error can still follow: the
// folder's fsync), so that a caller can tell its user truthfully whether the old file is still there.
result<done> write_file_atomically(const std::filesystem::path& path, std::string_view text,
                                   bool* renamed = nullptr);

// fsync of a folder, so that the entries made or removed in it survive a crash.
result<done> fsync_folder(const std::filesystem::path& folder);

// An empty file, unless it exists (its content is kept).
result<done> ensure_file(const std::filesystem::path& path);

// Waits for an exclusive flock on the prefix folder itself (no lock file is left behind), held while
// mqs.ini is read, decided on and rewritten by create() and remove().
result<qmgr_lock> lock_prefix(const std::filesystem::path& prefix);

// --- mqs.ini ------------------------------------------------------------------------------------

// The file as lines, so that stanzas and comments we do not interpret survive a rewrite, and where
// each QueueManager stanza is.
struct mqs_ini {
  struct stanza {
    qmgr_entry entry;            // a foreign stanza's directory is "" unless it is one plain folder name
    bool ours = false;           // it carries Owner=imsbridge; any other QueueManager stanza is IBM MQ's [D]
    std::size_t first_line = 0;  // its "QueueManager:" line
    std::size_t end_line = 0;    // one past its last line
  };
  std::vector<std::string> lines;
  std::vector<stanza> qmgrs;            // ours and foreign, in file order
  bool has_all_queue_managers = false;  // IBM's "AllQueueManagers:" stanza: the file is IBM MQ's [I]

  // IBM MQ's file (an AllQueueManagers stanza or a QueueManager stanza without our marker): we never
  // add our queue managers to it, so that IBM's tools never see a stanza they cannot use [D].
  bool ibm_owned() const noexcept;
  // The stanza of that exact queue-manager name, ours or foreign; nullptr when none.
  const stanza* find(std::string_view name) const noexcept;
};
// The key and value that mark a QueueManager stanza as one imsbridge wrote [D].
inline constexpr std::string_view owner_key = "Owner";
inline constexpr std::string_view owner_value = "imsbridge";
std::filesystem::path mqs_ini_path(const std::filesystem::path& prefix);
// `where` names the file in errors ("<where> line N"). Only our stanzas are checked (Name, Directory,
// FileSystem, duplicates); a foreign stanza is kept as it is, whatever it holds.
result<mqs_ini> parse_mqs_ini(std::string_view text, const std::string& where);
// An empty mqs_ini when the file does not exist.
result<mqs_ini> read_mqs_ini(const std::filesystem::path& prefix);
result<done> write_mqs_ini(const std::filesystem::path& prefix, const std::vector<std::string>& lines);
// The lines of a QueueManager stanza as IBM writes them (three-blank indent) [I], plus our Owner marker
// and FileSystem [D].
std::vector<std::string> format_stanza(const qmgr_entry& entry, const std::filesystem::path& prefix);

}  // namespace imsb::qmgr::io
