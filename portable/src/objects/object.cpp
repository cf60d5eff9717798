#include "imsb/objects/object.hpp"

#include <utility>

namespace imsb::objects {
namespace {

struct type_word {
  object_type type;
  std::string_view word;
  object_family family;
};

constexpr type_word type_words[] = {
    {object_type::qlocal, "QLOCAL", object_family::queue},
    {object_type::qalias, "QALIAS", object_family::queue},
    {object_type::qremote, "QREMOTE", object_family::queue},
    {object_type::qmodel, "QMODEL", object_family::queue},
    {object_type::stgclass, "STGCLASS", object_family::stgclass},
    {object_type::namelist, "NAMELIST", object_family::namelist},
    {object_type::process, "PROCESS", object_family::process},
    {object_type::channel, "CHANNEL", object_family::channel},
    {object_type::listener, "LISTENER", object_family::listener},
    {object_type::qmgr, "QMGR", object_family::qmgr},
};

const type_word* find_type(object_type type) noexcept {
  for (const auto& t : type_words)
    if (t.type == type) return &t;
  return nullptr;
}

bool is_file_family(object_family family) noexcept { return !files_folder(family).empty(); }

}  // namespace

std::string_view to_mqsc_word(object_type type) noexcept {
  const type_word* t = find_type(type);
  return t != nullptr ? t->word : std::string_view{};
}

std::optional<object_type> object_type_from_mqsc(std::string_view canonical_word) noexcept {
  for (const auto& t : type_words)
    if (t.word == canonical_word) return t.type;
  return std::nullopt;
}

object_family family_of(object_type type) noexcept {
  const type_word* t = find_type(type);
  return t != nullptr ? t->family : object_family::qmgr;
}

std::string_view files_folder(object_family family) noexcept {
  // IBM's folder names on UNIX: queues/ [C: CHEF-IIB, QIITA-DSPMQFLS]; namelist/ and procdef/ [I]; the
  // layout is docs/design/queue-manager.md [D].
  switch (family) {
    case object_family::queue:
      return "queues";
    case object_family::namelist:
      return "namelist";
    case object_family::process:
      return "procdef";
    default:
      return {};
  }
}

std::string_view object_record::text(std::string_view keyword) const {
  auto it = attrs.find(keyword);
  return it == attrs.end() ? std::string_view{} : std::string_view{it->second};
}

std::optional<std::int64_t> object_record::integer(std::string_view keyword) const {
  std::string_view v = text(keyword);
  if (v.empty() || v.size() > 18) return std::nullopt;
  bool negative = v.front() == '-';
  if (negative) v.remove_prefix(1);
  if (v.empty()) return std::nullopt;
  std::int64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return negative ? -n : n;
}

object_catalog::object_catalog(std::string qmgr_name, names::fs_profile profile)
    : profile_(profile),
      queue_files_(profile, names::name_space::object),
      namelist_files_(profile, names::name_space::object),
      process_files_(profile, names::name_space::object) {
  qmgr_.type = object_type::qmgr;
  qmgr_.name = std::move(qmgr_name);
}

std::map<std::string, object_record, std::less<>>& object_catalog::family_map(object_family family) {
  return const_cast<std::map<std::string, object_record, std::less<>>&>(
      static_cast<const object_catalog&>(*this).family_map(family));
}

const std::map<std::string, object_record, std::less<>>& object_catalog::family_map(
    object_family family) const {
  switch (family) {
    case object_family::queue:
      return queues_;
    case object_family::stgclass:
      return stgclasses_;
    case object_family::namelist:
      return namelists_;
    case object_family::process:
      return processes_;
    case object_family::channel:
      return channels_;
    case object_family::listener:
      return listeners_;
    case object_family::qmgr:
      break;
  }
  // The queue manager is not a family of named objects; an empty map answers every lookup.
  static const std::map<std::string, object_record, std::less<>> none;
  return none;
}

const object_record* object_catalog::find(object_family family, std::string_view name) const {
  if (family == object_family::qmgr) return name == qmgr_.name ? &qmgr_ : nullptr;
  const auto& m = family_map(family);
  auto it = m.find(name);
  return it == m.end() ? nullptr : &it->second;
}

object_record* object_catalog::find(object_family family, std::string_view name) {
  return const_cast<object_record*>(static_cast<const object_catalog&>(*this).find(family, name));
}

result<std::string> object_catalog::put(object_record rec) {
  object_family family = family_of(rec.type);
  if (family == object_family::qmgr) {
    qmgr_ = std::move(rec);
    return std::string{};
  }
  std::string file;
  if (is_file_family(family)) {
    auto transformed = file_names(family).transform(rec.name);
    if (!transformed) return transformed.error();
    file = std::move(transformed.value());
  }
  std::string key = rec.name;
  family_map(family).insert_or_assign(std::move(key), std::move(rec));
  return file;
}

bool object_catalog::erase(object_family family, std::string_view name) {
  if (family == object_family::qmgr) return false;
  auto& m = family_map(family);
  auto it = m.find(name);
  if (it == m.end()) return false;
  m.erase(it);
  if (is_file_family(family)) {
    file_names(family).erase(name);
    erased_.emplace(family, std::string(name));
  }
  return true;
}

std::vector<const object_record*> object_catalog::list(object_family family) const {
  std::vector<const object_record*> out;
  if (family == object_family::qmgr) {
    out.push_back(&qmgr_);
    return out;
  }
  for (const auto& [name, rec] : family_map(family)) out.push_back(&rec);
  return out;
}

std::optional<std::string> object_catalog::file_name_of(object_family family, std::string_view name) const {
  if (!is_file_family(family)) return std::nullopt;
  return file_names(family).file_name_of(name);
}

std::optional<std::string> object_catalog::real_name_of(object_family family,
                                                        std::string_view file_name) const {
  if (!is_file_family(family)) return std::nullopt;
  return file_names(family).real_name_of(file_name);
}

names::file_name_map& object_catalog::file_names(object_family family) {
  return const_cast<names::file_name_map&>(static_cast<const object_catalog&>(*this).file_names(family));
}

const names::file_name_map& object_catalog::file_names(object_family family) const {
  switch (family) {
    case object_family::namelist:
      return namelist_files_;
    case object_family::process:
      return process_files_;
    default:
      // Families that are not files have no map of their own; the queue map answers for them only in
      // the sense that the callers above never reach here for them (is_file_family guards).
      return queue_files_;
  }
}

catalog_snapshot object_catalog::snapshot() const {
  catalog_snapshot snap;
  snap.qmgr.name = qmgr_.name;
  snap.qmgr.deadq = std::string(qmgr_.text("DEADQ"));
  snap.qmgr.defxmitq = std::string(qmgr_.text("DEFXMITQ"));
  for (const auto& [name, rec] : queues_) {
    queue_definition def;
    def.name = name;
    switch (rec.type) {
      case object_type::qalias:
        def.type = queue_type::alias;
        break;
      case object_type::qremote:
        def.type = queue_type::remote;
        break;
      case object_type::qmodel:
        def.type = queue_type::model;
        break;
      default:
        def.type = queue_type::local;
        break;
    }
    def.usage = rec.text("USAGE") == "XMITQ" ? queue_usage::xmitq : queue_usage::normal;
    def.target = std::string(rec.text("TARGET"));
    def.rname = std::string(rec.text("RNAME"));
    def.rqmname = std::string(rec.text("RQMNAME"));
    def.xmitq = std::string(rec.text("XMITQ"));
    snap.put(std::move(def));
  }
  return snap;
}

bool matches_generic(std::string_view pattern, std::string_view name) noexcept {
  if (!pattern.empty() && pattern.back() == '*') {
    pattern.remove_suffix(1);
    return name.substr(0, pattern.size()) == pattern;
  }
  return pattern == name;
}

}  // namespace imsb::objects
