#pragma once
// The object catalog of one queue manager: every object MQSC can define on it, with its attributes, and
// the file names of the objects that are files (IBM [C: FILENAMES-V6]: queues, namelists and processes;
// channels are not). Pure data and bookkeeping: MQSC is applied by mqsc_exec.hpp, the catalog is written as
// text by catalog_text.hpp, and qmgr/ keeps that text and the object files on disk.
//
// Names are held without blank padding and compared exactly: MQ names are case sensitive [C: NAMING-V6].
// Uniqueness is per object family: the four queue types share one name space, as "a local queue and a model
// queue may not" share a name [C: NAMING-V6]; a queue, a process, a namelist and a channel may.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "imsb/core/result.hpp"
#include "imsb/names/file_name.hpp"
#include "imsb/names/file_name_map.hpp"
#include "imsb/objects/catalog.hpp"

namespace imsb::objects {

// One MQSC object type that names an object. QMGR is the queue manager's own attribute set.
enum class object_type : std::uint8_t {
  qlocal,
  qalias,
  qremote,
  qmodel,
  stgclass,
  namelist,
  process,
  channel,
  listener,
  qmgr,
};
// "QLOCAL", "QALIAS", ... as MQSC writes them.
std::string_view to_mqsc_word(object_type type) noexcept;
std::optional<object_type> object_type_from_mqsc(std::string_view canonical_word) noexcept;

// The name spaces in which a name is unique: qlocal/qalias/qremote/qmodel share `queue`.
enum class object_family : std::uint8_t { queue, stgclass, namelist, process, channel, listener, qmgr };
object_family family_of(object_type type) noexcept;

// Which families are files, and the folder under the queue manager's directory that holds them (IBM's layout
// on UNIX: queues/ [C: CHEF-IIB, QIITA-DSPMQFLS]; namelist/, procdef/ [I]). Empty for the others.
std::string_view files_folder(object_family family) noexcept;

struct object_record {
  object_type type = object_type::qlocal;
  std::string name;
  // Canonical keyword (upper case, IBM's main spelling: TARGET not TARGQ) → value in its canonical text:
  // integers in decimal, keyword values upper case (USAGE → "NORMAL"/"XMITQ"), strings exactly as given,
  // blank strings as "". Every attribute of the type's schema is present once the executor has made the
  // object, defaults included; the executor owns the schema (mqsc_exec.hpp).
  std::map<std::string, std::string, std::less<>> attrs;
  // List-valued attributes (NAMELIST NAMES, ...): canonical keyword → elements in order.
  std::map<std::string, std::vector<std::string>, std::less<>> lists;

  // The value of a scalar attribute, or "" when absent.
  std::string_view text(std::string_view keyword) const;
  // A scalar attribute as an integer; nullopt when absent or not a decimal integer.
  std::optional<std::int64_t> integer(std::string_view keyword) const;
};

// SET AUTHREC: one principal's or group's authorities on one profile (IBM's SET AUTHREC command [I]).
// Authorities are held as MQSC words (PUT, GET, BROWSE, INQ, SET, SETALL, PASSID, CTRL, CONNECT, DSP, CHG,
// CLR, DLT, CRT, ...), upper case, sorted, unique.
struct authority_record {
  std::string profile;    // object name or generic profile (e.g. APP.**)
  std::string objtype;    // QMGR, QUEUE, NAMELIST, PROCESS, CHANNEL, LISTENER ...
  std::string principal;  // exactly one of principal and group is non-empty
  std::string group;
  std::vector<std::string> authorities;
};

class object_catalog {
 public:
  // A catalog with nothing in it but the queue manager record (type qmgr, name = qmgr_name, no attrs).
  // `profile` is the file system the object files live on (chosen at crtmqm, kept for the catalog's life).
  object_catalog(std::string qmgr_name, names::fs_profile profile);

  const std::string& qmgr_name() const noexcept { return qmgr_.name; }
  names::fs_profile profile() const noexcept { return profile_; }

  object_record& qmgr() noexcept { return qmgr_; }
  const object_record& qmgr() const noexcept { return qmgr_; }

  // The object of that family and exact name, or nullptr.
  const object_record* find(object_family family, std::string_view name) const;
  object_record* find(object_family family, std::string_view name);

  // Adds or replaces the object under (family_of(rec.type), rec.name). For a family that is a file, the
  // name gets its file name first (transform); on error nothing changes. Returns the file name ("" when
  // the family is not a file). A replaced object keeps its file name even when its type changes within
  // the queue family (DEFINE QLOCAL(X) REPLACE over a QLOCAL only; the executor refuses type changes).
  result<std::string> put(object_record rec);

  // Removes the object and frees its file name. False if there was none. The name is also remembered in
  // erased() until clear_erased(), so that the store can tell a queue deleted and defined again since the
  // catalog was loaded (its file must start empty) from one that was only replaced (its file is kept).
  bool erase(object_family family, std::string_view name);

  // Objects of the file families erased since construction, decode or the last clear_erased(), as
  // (family, name) pairs; a name that is in the catalog again was deleted and defined again.
  const std::set<std::pair<object_family, std::string>>& erased() const noexcept { return erased_; }
  void clear_erased() noexcept { erased_.clear(); }

  // Every object of a family, in name order (std::string order).
  std::vector<const object_record*> list(object_family family) const;

  // The file name (transformed, not a path) of an object of a file family, or nullopt.
  std::optional<std::string> file_name_of(object_family family, std::string_view name) const;
  // The real name recorded for a file name of a family, compared as the profile compares.
  std::optional<std::string> real_name_of(object_family family, std::string_view file_name) const;
  // The name maps themselves, for persisting them and for loading them back (catalog_text). Only for
  // the file families (queue, namelist, process): any other family gets the queue map.
  names::file_name_map& file_names(object_family family);
  const names::file_name_map& file_names(object_family family) const;

  std::vector<authority_record>& authrecs() noexcept { return authrecs_; }
  const std::vector<authority_record>& authrecs() const noexcept { return authrecs_; }

  // What name resolution needs (docs/design/queue-manager.md): QMGR DEADQ / DEFXMITQ and every queue's type,
  // USAGE, TARGET, RNAME, RQMNAME and XMITQ.
  catalog_snapshot snapshot() const;

 private:
  std::map<std::string, object_record, std::less<>>& family_map(object_family family);
  const std::map<std::string, object_record, std::less<>>& family_map(object_family family) const;

  names::fs_profile profile_;
  object_record qmgr_;
  std::map<std::string, object_record, std::less<>> queues_, stgclasses_, namelists_, processes_, channels_,
      listeners_;
  names::file_name_map queue_files_, namelist_files_, process_files_;
  std::vector<authority_record> authrecs_;
  std::set<std::pair<object_family, std::string>> erased_;
};

// MQSC generic-name matching for DISPLAY and dspmqfls: "*" matches everything, "ABC*" every name that
// starts with ABC; anything else matches only itself. Case sensitive, as names are.
bool matches_generic(std::string_view pattern, std::string_view name) noexcept;

}  // namespace imsb::objects
