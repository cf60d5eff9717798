// The object catalog as text [D] (catalog_text.hpp). Format, version 1:
//
//   IMSBRIDGE-CATALOG 1
//   QMGR NAME('QM1') PROFILE('posix') CCSID('819') DEADQ('DLQ') LIST SOMELIST('A','B')
//   QLOCAL NAME('APP.ORDERS') DESCR('it''s a queue') MAXDEPTH('5000') USAGE('NORMAL')
//   NAMELIST NAME('NL1') DESCR('') LIST NAMES('Q1','Q2')
//   AUTHREC PROFILE('APP.**') OBJTYPE('QUEUE') PRINCIPAL('app') GROUP('') LIST AUTHORITIES('GET','PUT')
//   FILE QUEUE REAL('APP.ORDERS') FILE('APP!ORDERS')
//   FILE NAMELIST REAL('NL1') FILE('NL1')
//
// Lines. The text is bytes (CCSID 819 or UTF-8: bytes X'80'-X'FF' are kept as they are). Every line
// ends with LF; the last LF may be missing. No empty lines, no comments, no CR. Line 1 is the version
// line: "IMSBRIDGE-CATALOG", one blank, the version ("1"); any other all-digit version is refused with
// std::errc::not_supported, anything else with std::errc::invalid_argument. Line 2 is the QMGR line.
// Then, in any order (encode_catalog writes them in this order):
//   - one line per object: its MQSC type word (QLOCAL QALIAS QREMOTE QMODEL STGCLASS NAMELIST PROCESS
//     CHANNEL LISTENER; not QMGR), then NAME(...) first, then its attributes;
//   - one AUTHREC line per authority record: exactly PROFILE, OBJTYPE, PRINCIPAL, GROUP and
//     LIST AUTHORITIES in that order (both PRINCIPAL and GROUP are written, one of them '');
//   - one FILE line per real ↔ file-name pair of a family whose objects are files (QUEUE, NAMELIST,
//     PROCESS [C: FILENAMES-V6]), in file_name_map::pairs() order: FILE <family> REAL(...) FILE(...).
// The QMGR line is QMGR NAME(...) PROFILE(...) — the profile as names::to_string writes it — then the
// queue manager's attributes. NAME and PROFILE are recognised by position, so an attribute that
// happens to be called NAME or PROFILE is still just an attribute.
//
// Fields. Tokens are separated by one or more blanks; leading and trailing blanks are allowed.
//   scalar attribute:  KEY('value')
//   list attribute:    LIST KEY('a','b')   or   LIST KEY()   for an empty list
// KEY is written bare when it is 1+ characters of A-Z a-z 0-9 _ and quoted otherwise ('my key'('v')),
// so any map key round-trips. A bare KEY and its '(' touch; LIST is the list marker only when a blank
// follows it (LIST('v') is a scalar attribute called LIST). Blanks are allowed inside the parentheses
// around values and commas. A keyword appears at most once per line among the scalars and once among
// the lists (they are separate maps).
//
// Values are always quoted with '. Inside the quotes: '' is one quote; \\ is one backslash; \xHH (two
// hex digits, written upper case, read in either case) is the byte HH. encode_catalog writes every
// byte X'00'-X'1F' and X'7F' — LF, CR and NUL among them — as \xHH, so any value, including one with
// a newline (MQSC cannot make one, but the catalog API can hold one), round-trips and no line is ever
// split. A raw control byte anywhere in a line, or any other backslash sequence, is refused.
//
// Decoding is schema-free: it restores attributes as keyword → text maps without checking them
// against mqsc_exec's schema, and accepts every name object_catalog::put accepts, so any catalog
// the API can build encodes to text that decodes to the same catalog — provided its file-name maps
// hold only pairs of objects it has, as put() and erase() keep them (a pair loaded with
// file_names().add() for an object never put would be written and then refused by step 4). Decoding steps,
// and what each refuses (errors name the line: field "catalog.line N", offset = byte offset of the line's
// start):
//   1. Syntax, line by line: malformed lines and values, unknown line words and object types, a QMGR
//      line other than line 2, repeated keywords (invalid_argument); unknown version (not_supported).
//   2. FILE pairs, in text order, loaded with names::file_name_map::add so that names made by
//      truncation plus suffix or by a case collision map the same after a restart
//      (docs/design/queue-manager.md [D]): the same pair twice (file_exists); a pair add() refuses
//      (its own code: invalid_argument for a name that is not valid, file_exists for a real name or
//      file already taken).
//   3. Objects, in text order, with object_catalog::put: an object whose family already has that
//      name (file_exists: the four queue types share one name space [C: NAMING-V6]); a name
//      put() refuses (its code). An object of a file family with no FILE pair gets one from
//      transform() — lenient [D]: every pair already listed is loaded first, so a new name can never
//      take a file another object had; the next encode writes the new pair.
//   4. A FILE pair whose object does not exist is refused (invalid_argument): the catalog is always
//      written whole, objects and pairs together, so a stray pair means the text was damaged.
//   5. Authority records, appended in text order, unchecked (the executor keeps them sorted/unique).

#include "imsb/objects/catalog_text.hpp"

#include <cstddef>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "imsb/names/file_name.hpp"
#include "imsb/names/file_name_map.hpp"

namespace imsb::objects {
namespace {

constexpr std::string_view magic = "IMSBRIDGE-CATALOG";
constexpr std::string_view version = "1";

// Families in the order encode writes them; file families get FILE lines.
constexpr object_family written_families[] = {object_family::queue,    object_family::stgclass,
                                              object_family::namelist, object_family::process,
                                              object_family::channel,  object_family::listener};

std::string_view family_word(object_family family) noexcept {
  switch (family) {
    case object_family::queue:
      return "QUEUE";
    case object_family::stgclass:
      return "STGCLASS";
    case object_family::namelist:
      return "NAMELIST";
    case object_family::process:
      return "PROCESS";
    case object_family::channel:
      return "CHANNEL";
    case object_family::listener:
      return "LISTENER";
    case object_family::qmgr:
      return "QMGR";
  }
  return {};
}

std::optional<object_family> file_family_from_word(std::string_view word) noexcept {
  for (object_family f : written_families) {
    if (family_word(f) == word && !files_folder(f).empty()) return f;
  }
  return std::nullopt;
}

std::optional<names::fs_profile> profile_from_word(std::string_view word) noexcept {
  for (names::fs_profile p :
       {names::fs_profile::posix, names::fs_profile::case_insensitive, names::fs_profile::fat83}) {
    if (names::to_string(p) == word) return p;
  }
  return std::nullopt;
}

bool is_bare_char(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

bool is_control(char c) noexcept {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7F;
}

// ---- encoding --------------------------------------------------------------------------------

void put_quoted(std::string& out, std::string_view value) {
  constexpr std::string_view hex = "0123456789ABCDEF";
  out.push_back('\'');
  for (char c : value) {
    if (c == '\'') {
      out += "''";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (is_control(c)) {
      const auto u = static_cast<unsigned char>(c);
      out += "\\x";
      out.push_back(hex[u >> 4]);
      out.push_back(hex[u & 0x0F]);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('\'');
}

void put_key(std::string& out, std::string_view key) {
  bool bare = !key.empty();
  for (char c : key) bare = bare && is_bare_char(c);
  if (bare) {
    out += key;
  } else {
    put_quoted(out, key);
  }
}

void put_scalar(std::string& out, std::string_view key, std::string_view value) {
  out.push_back(' ');
  put_key(out, key);
  out.push_back('(');
  put_quoted(out, value);
  out.push_back(')');
}

void put_list(std::string& out, std::string_view key, const std::vector<std::string>& items) {
  out += " LIST ";
  put_key(out, key);
  out.push_back('(');
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i != 0) out.push_back(',');
    put_quoted(out, items[i]);
  }
  out.push_back(')');
}

void put_attributes(std::string& out, const object_record& rec) {
  for (const auto& [key, value] : rec.attrs) put_scalar(out, key, value);
  for (const auto& [key, items] : rec.lists) put_list(out, key, items);
}

// ---- decoding: syntax ------------------------------------------------------------------------

struct field {
  std::string key;
  bool is_list = false;
  std::string value;               // scalar
  std::vector<std::string> items;  // list
  std::size_t column = 0;          // 1-based, of the field's first byte
};

struct parsed_line {
  std::size_t number = 0;  // 1-based
  std::size_t offset = 0;  // of the line's first byte in the text
  std::string word;        // QMGR, QLOCAL, ..., AUTHREC, FILE
  std::string family;      // FILE lines: QUEUE, NAMELIST, PROCESS
  std::vector<field> fields;
};

decode_error line_error(std::error_code code, std::size_t number, std::size_t offset, std::string detail) {
  return decode_error{code, "catalog.line " + std::to_string(number), offset, std::move(detail)};
}
decode_error line_error(std::errc code, std::size_t number, std::size_t offset, std::string detail) {
  return line_error(std::make_error_code(code), number, offset, std::move(detail));
}

// Reads one line's tokens. Every method returns false after recording the first problem.
class line_reader {
 public:
  explicit line_reader(std::string_view line) : s_(line) {}

  const std::string& problem() const noexcept { return problem_; }

  void skip_blanks() noexcept {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }
  bool at_end() const noexcept { return pos_ == s_.size(); }

  bool bare_word(std::string& out, std::string_view what) {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && is_bare_char(s_[pos_])) ++pos_;
    if (pos_ == start) return fail("expected " + std::string(what));
    out.assign(s_.substr(start, pos_ - start));
    return true;
  }

  // 'text' with '' and \\ and \xHH.
  bool quoted(std::string& out) {
    out.clear();
    if (pos_ >= s_.size() || s_[pos_] != '\'') return fail("expected a quoted value");
    ++pos_;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\'') {
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '\'') {
          out.push_back('\'');
          pos_ += 2;
          continue;
        }
        ++pos_;
        return true;
      }
      if (c == '\\') {
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '\\') {
          out.push_back('\\');
          pos_ += 2;
          continue;
        }
        int hi = 0;
        int lo = 0;
        if (pos_ + 3 < s_.size() && s_[pos_ + 1] == 'x' && (hi = hex_value(s_[pos_ + 2])) >= 0 &&
            (lo = hex_value(s_[pos_ + 3])) >= 0) {
          out.push_back(static_cast<char>(hi * 16 + lo));
          pos_ += 4;
          continue;
        }
        return fail("a backslash in a value must start \\\\ or \\xHH");
      }
      if (is_control(c)) return fail("control character " + show_byte(c) + " in a value (write it as \\xHH)");
      out.push_back(c);
      ++pos_;
    }
    return fail("value not closed: the line ends inside quotes");
  }

  bool key(std::string& out, bool& was_bare) {
    was_bare = pos_ < s_.size() && s_[pos_] != '\'';
    return was_bare ? bare_word(out, "a keyword") : quoted(out);
  }

  // One field: KEY('v') or LIST KEY('a',...). The reader is on the field's first byte.
  bool read_field(field& f) {
    f.column = pos_ + 1;
    bool was_bare = false;
    if (!key(f.key, was_bare)) return false;
    if (was_bare && f.key == "LIST" && pos_ < s_.size() && s_[pos_] == ' ') {
      f.is_list = true;
      skip_blanks();
      if (at_end()) return fail("expected a keyword after LIST");
      if (!key(f.key, was_bare)) return false;
    }
    if (pos_ >= s_.size() || s_[pos_] != '(') return fail("expected '(' right after keyword " + f.key);
    ++pos_;
    skip_blanks();
    if (!f.is_list) {
      if (!quoted(f.value)) return false;
      skip_blanks();
      return close();
    }
    if (pos_ < s_.size() && s_[pos_] == ')') return close();
    for (;;) {
      std::string item;
      if (!quoted(item)) return false;
      f.items.push_back(std::move(item));
      skip_blanks();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        skip_blanks();
        continue;
      }
      return close();
    }
  }

  // Fields to the end of the line.
  bool read_fields(std::vector<field>& fields) {
    for (;;) {
      skip_blanks();
      if (at_end()) return true;
      field f;
      if (!read_field(f)) return false;
      fields.push_back(std::move(f));
      if (!at_end() && s_[pos_] != ' ') return fail("expected a blank between fields");
    }
  }

  // After a word: end of line or a blank.
  bool word_ends() {
    if (!at_end() && s_[pos_] != ' ') return fail("expected a blank after the line's first word");
    return true;
  }

  bool fail(std::string what) {
    if (problem_.empty()) problem_ = "column " + std::to_string(pos_ + 1) + ": " + std::move(what);
    return false;
  }

 private:
  static int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  }
  static std::string show_byte(char c) {
    constexpr std::string_view hex = "0123456789ABCDEF";
    const auto u = static_cast<unsigned char>(c);
    return std::string("X'") + hex[u >> 4] + hex[u & 0x0F] + "'";
  }
  bool close() {
    if (pos_ >= s_.size() || s_[pos_] != ')') return fail("expected ')' or ','");
    ++pos_;
    return true;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  std::string problem_;
};

// The version line: "IMSBRIDGE-CATALOG 1".
std::optional<decode_error> check_version(std::string_view line) {
  auto bad = [](std::errc code, std::string detail) { return line_error(code, 1, 0, std::move(detail)); };
  if (line.substr(0, magic.size()) != magic || line.size() <= magic.size() || line[magic.size()] != ' ') {
    return bad(std::errc::invalid_argument, "not an imsbridge object catalog: line 1 must be '" +
                                                std::string(magic) + " " + std::string(version) + "'");
  }
  std::string_view v = line.substr(magic.size());
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  bool digits = !v.empty();
  for (char c : v) digits = digits && c >= '0' && c <= '9';
  if (!digits) return bad(std::errc::invalid_argument, "the catalog version must be a decimal number");
  if (v != version) {
    return bad(std::errc::not_supported, "catalog format version " + std::string(v.substr(0, 20)) +
                                             " is not supported; this program reads version " +
                                             std::string(version));
  }
  return std::nullopt;
}

result<parsed_line> parse_line(std::string_view line, std::size_t number, std::size_t offset) {
  parsed_line out;
  out.number = number;
  out.offset = offset;
  line_reader r(line);
  auto fail = [&] { return line_error(std::errc::invalid_argument, number, offset, r.problem()); };
  r.skip_blanks();
  if (r.at_end()) {
    r.fail("empty line");
    return fail();
  }
  if (!r.bare_word(out.word, "a line word (an object type, AUTHREC or FILE)") || !r.word_ends())
    return fail();
  if (out.word == "FILE") {
    r.skip_blanks();
    if (!r.bare_word(out.family, "a file family (QUEUE, NAMELIST or PROCESS)") || !r.word_ends())
      return fail();
  }
  if (!r.read_fields(out.fields)) return fail();
  return out;
}

// ---- decoding: meaning -----------------------------------------------------------------------

class catalog_builder {
 public:
  explicit catalog_builder(const parsed_line& line) : line_(line) {}

  decode_error error(std::error_code code, std::string detail) const {
    return line_error(code, line_.number, line_.offset, std::move(detail));
  }
  decode_error error(std::errc code, std::string detail) const {
    return error(std::make_error_code(code), std::move(detail));
  }

  // The scalar at `index` must be `key`.
  std::optional<decode_error> expect_scalar(std::size_t index, std::string_view key) const {
    if (index < line_.fields.size() && !line_.fields[index].is_list && line_.fields[index].key == key) {
      return std::nullopt;
    }
    return error(std::errc::invalid_argument, "field " + std::to_string(index + 1) + " of a " + line_.word +
                                                  " line must be " + std::string(key) + "('...')");
  }

  // Fields from `first` on into rec's maps, each keyword at most once among the scalars and once among
  // the lists (the positional fields before `first` do not count).
  std::optional<decode_error> attributes(std::size_t first, object_record& rec) const {
    for (std::size_t i = first; i < line_.fields.size(); ++i) {
      const field& f = line_.fields[i];
      const bool fresh =
          f.is_list ? rec.lists.emplace(f.key, f.items).second : rec.attrs.emplace(f.key, f.value).second;
      if (!fresh) {
        return error(std::errc::invalid_argument, "column " + std::to_string(f.column) + ": " +
                                                      (f.is_list ? "list keyword " : "keyword ") + f.key +
                                                      " appears twice");
      }
    }
    return std::nullopt;
  }

 private:
  const parsed_line& line_;
};

struct file_pair {
  const parsed_line* line;
  object_family family;
};

}  // namespace

std::string encode_catalog(const object_catalog& catalog) {
  std::string out;
  out += magic;
  out.push_back(' ');
  out += version;
  out.push_back('\n');

  out += "QMGR";
  put_scalar(out, "NAME", catalog.qmgr_name());
  put_scalar(out, "PROFILE", names::to_string(catalog.profile()));
  put_attributes(out, catalog.qmgr());
  out.push_back('\n');

  for (object_family family : written_families) {
    for (const object_record* rec : catalog.list(family)) {
      out += to_mqsc_word(rec->type);
      put_scalar(out, "NAME", rec->name);
      put_attributes(out, *rec);
      out.push_back('\n');
    }
  }

  for (const authority_record& a : catalog.authrecs()) {
    out += "AUTHREC";
    put_scalar(out, "PROFILE", a.profile);
    put_scalar(out, "OBJTYPE", a.objtype);
    put_scalar(out, "PRINCIPAL", a.principal);
    put_scalar(out, "GROUP", a.group);
    put_list(out, "AUTHORITIES", a.authorities);
    out.push_back('\n');
  }

  for (object_family family : written_families) {
    if (files_folder(family).empty()) continue;
    for (const auto& [real, file] : catalog.file_names(family).pairs()) {
      out += "FILE ";
      out += family_word(family);
      put_scalar(out, "REAL", real);
      put_scalar(out, "FILE", file);
      out.push_back('\n');
    }
  }
  return out;
}

result<object_catalog> decode_catalog(std::string_view text) {
  // Step 1: split and parse every line.
  std::vector<parsed_line> lines;
  std::size_t number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    ++number;
    if (number == 1) {
      if (auto err = check_version(line)) return *err;
    } else {
      auto parsed = parse_line(line, number, start);
      if (!parsed) return parsed.error();
      lines.push_back(std::move(parsed.value()));
    }
    start = end + 1;
  }
  if (number == 0) return line_error(std::errc::invalid_argument, 1, 0, "empty text: no version line");
  if (lines.empty() || lines.front().word != "QMGR") {
    const std::size_t offset = lines.empty() ? text.size() : lines.front().offset;
    return line_error(std::errc::invalid_argument, 2, offset, "line 2 must be the QMGR line");
  }

  // The QMGR line.
  const parsed_line& qline = lines.front();
  catalog_builder qb(qline);
  if (auto err = qb.expect_scalar(0, "NAME")) return *err;
  if (auto err = qb.expect_scalar(1, "PROFILE")) return *err;
  const auto profile = profile_from_word(qline.fields[1].value);
  if (!profile) {
    return qb.error(std::errc::invalid_argument,
                    "PROFILE must be posix, case_insensitive or fat83, not '" + qline.fields[1].value + "'");
  }
  object_catalog catalog(qline.fields[0].value, *profile);
  if (auto err = qb.attributes(2, catalog.qmgr())) return *err;

  // Sort the other lines by kind, checking each one's shape.
  std::vector<file_pair> files;
  std::vector<std::pair<const parsed_line*, object_record>> objects;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const parsed_line& line = lines[i];
    catalog_builder b(line);
    if (line.word == "FILE") {
      const auto family = file_family_from_word(line.family);
      if (!family) {
        return b.error(
            std::errc::invalid_argument,
            "'" + line.family + "' is not a family whose objects are files (QUEUE, NAMELIST, PROCESS)");
      }
      if (auto err = b.expect_scalar(0, "REAL")) return *err;
      if (auto err = b.expect_scalar(1, "FILE")) return *err;
      if (line.fields.size() != 2)
        return b.error(std::errc::invalid_argument, "a FILE line has only REAL and FILE");
      files.push_back({&line, *family});
    } else if (line.word == "AUTHREC") {
      for (std::size_t k = 0; k < 4; ++k) {
        constexpr std::string_view keys[] = {"PROFILE", "OBJTYPE", "PRINCIPAL", "GROUP"};
        if (auto err = b.expect_scalar(k, keys[k])) return *err;
      }
      if (line.fields.size() != 5 || !line.fields[4].is_list || line.fields[4].key != "AUTHORITIES") {
        return b.error(
            std::errc::invalid_argument,
            "an AUTHREC line is PROFILE, OBJTYPE, PRINCIPAL, GROUP, then LIST AUTHORITIES and nothing "
            "else");
      }
      authority_record a;
      a.profile = line.fields[0].value;
      a.objtype = line.fields[1].value;
      a.principal = line.fields[2].value;
      a.group = line.fields[3].value;
      a.authorities = line.fields[4].items;
      catalog.authrecs().push_back(std::move(a));
    } else {
      const auto type = object_type_from_mqsc(line.word);
      if (line.word == "QMGR") {
        return b.error(std::errc::invalid_argument, "the QMGR line comes once, on line 2");
      }
      if (!type)
        return b.error(std::errc::invalid_argument, "unknown object type or line word '" + line.word + "'");
      if (auto err = b.expect_scalar(0, "NAME")) return *err;
      object_record rec;
      rec.type = *type;
      rec.name = line.fields[0].value;
      if (auto err = b.attributes(1, rec)) return *err;
      objects.emplace_back(&line, std::move(rec));
    }
  }

  // Step 2: the file-name pairs, before any object can claim a file name with transform().
  for (const file_pair& fp : files) {
    catalog_builder b(*fp.line);
    const std::string& real = fp.line->fields[0].value;
    const std::string& file = fp.line->fields[1].value;
    names::file_name_map& map = catalog.file_names(fp.family);
    if (auto recorded = map.file_name_of(real);
        recorded && names::same_file(*recorded, file, map.profile())) {
      return b.error(std::errc::file_exists,
                     "the pair " + real + " = " + file + " is already in the catalog");
    }
    auto added = map.add(real, file);
    if (!added) {
      return b.error(added.error().code, "FILE " + std::string(family_word(fp.family)) + " " +
                                             added.error().field + ": " + added.error().detail);
    }
  }

  // Step 3: the objects.
  for (auto& [line, rec] : objects) {
    catalog_builder b(*line);
    const object_family family = family_of(rec.type);
    if (catalog.find(family, rec.name) != nullptr) {
      return b.error(std::errc::file_exists, "a " + std::string(family_word(family)) + " object named '" +
                                                 rec.name + "' is already in the catalog");
    }
    auto put = catalog.put(std::move(rec));
    if (!put) return b.error(put.error().code, put.error().field + ": " + put.error().detail);
  }

  // Step 4: every pair belongs to an object.
  for (const file_pair& fp : files) {
    const std::string& real = fp.line->fields[0].value;
    if (catalog.find(fp.family, real) == nullptr) {
      return catalog_builder(*fp.line).error(
          std::errc::invalid_argument, "file-name pair for " + std::string(family_word(fp.family)) + " '" +
                                           real + "', which is not in the catalog");
    }
  }
  return catalog;
}

}  // namespace imsb::objects
