#include "imsb/ims/programs.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

#include "imsb/codepage/codepage.hpp"

namespace imsb::ims {

// --- memory_phonebook -------------------------------------------------------------------------------

std::optional<phone_entry> memory_phonebook::find(std::string_view last_name) const {
  const auto it = entries_.find(last_name);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void memory_phonebook::put(const phone_entry& entry) { entries_.insert_or_assign(entry.last_name, entry); }

bool memory_phonebook::erase(std::string_view last_name) {
  const auto it = entries_.find(last_name);
  if (it == entries_.end()) return false;
  entries_.erase(it);
  return true;
}

// --- the built-ins ----------------------------------------------------------------------------------

const std::vector<std::string_view>& builtin_programs() {
  static const std::vector<std::string_view> names{"IVTNO", "IVTCV", "ECHO", "SHOWOTMA", "ALTOUT"};
  return names;
}

bool is_builtin(std::string_view name) noexcept {
  const auto& names = builtin_programs();
  return std::find(names.begin(), names.end(), name) != names.end();
}

namespace {

// Text as the programs see it: CCSID 819, one byte a character (docs/design/character-data.md).
std::string decode_text(bytes_view raw, std::int32_t ccsid) {
  const auto c = codepage::convert(raw, ccsid, codepage::ccsid_819);
  return std::string(c.out.begin(), c.out.end());
}

bytes encode_text(std::string_view text_819, std::int32_t ccsid) {
  return codepage::convert(bytes_view::of(text_819), codepage::ccsid_819, ccsid).out;
}

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(' ');
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(' ');
  return std::string(s.substr(first, last - first + 1));
}

// Column `off`, `len` characters of a line padded with blanks: shorter input is blank-padded (header).
std::string column(std::string_view line, std::size_t off, std::size_t len) {
  if (off >= line.size()) return {};
  // IBM's samples strip leading blanks from each field before use [C: IMS IVP sample DFSIVP34].
  return trim(line.substr(off, len));
}

// --- IVTNO / IVTCV -----------------------------------------------------------------------------------

// Fixed input columns [D: header]: trancode 8, process code 8, last name 10, first name 10,
// extension 10, zip code 7.
constexpr std::size_t col_code = 8, len_code = 8;
constexpr std::size_t col_last = 16, len_last = 10;
constexpr std::size_t col_first = 26, len_first = 10;
constexpr std::size_t col_ext = 36, len_ext = 10;
constexpr std::size_t col_zip = 46, len_zip = 7;
constexpr std::size_t len_message = 40;

struct phone_input {
  std::string code;  // the process code as keyed
  phone_entry entry;
};

phone_input parse_phone_input(const input_message& in) {
  const std::string line = in.segments.empty() ? std::string() : decode_text(in.segments.front(), in.ccsid);
  phone_input p;
  p.code = column(line, col_code, len_code);
  p.entry.last_name = column(line, col_last, len_last);
  p.entry.first_name = column(line, col_first, len_first);
  p.entry.extension = column(line, col_ext, len_ext);
  p.entry.zip_code = column(line, col_zip, len_zip);
  return p;
}

// The process codes. IBM's samples compare only the first three characters of the process code
// (ADD, TAD, UPD, DEL, DIS, END), so "DIS" works as "DISPLAY" [C: IMS IVP sample DFSIVP34].
enum class process { invalid, add, tadd, update, erase, display, end };

process classify(std::string_view code) {
  const auto head = code.substr(0, 3);
  if (head == "ADD") return process::add;
  if (head == "TAD") return process::tadd;
  if (head == "UPD") return process::update;
  if (head == "DEL") return process::erase;
  if (head == "DIS") return process::display;
  if (head == "END") return process::end;
  return process::invalid;
}

// Message texts: IBM's IVP sample texts where we found them [C: IMS IVP samples DFSIVA*/DFSIVP34
// message constants]; the IVTCV prompt is ours [D].
namespace msg {
constexpr std::string_view added = "ENTRY WAS ADDED";
constexpr std::string_view deleted = "ENTRY WAS DELETED";
constexpr std::string_view displayed = "ENTRY WAS DISPLAYED";
constexpr std::string_view updated = "ENTRY WAS UPDATED";
constexpr std::string_view add_failed = "ADDITION OF ENTRY HAS FAILED";
constexpr std::string_view not_found = "SPECIFIED PERSON WAS NOT FOUND";
constexpr std::string_view invalid = "PROCESS CODE IS NOT VALID";
constexpr std::string_view not_enough = "DATA IS NOT ENOUGH";
constexpr std::string_view no_last_name = "LAST NAME WAS NOT SPECIFIED";
constexpr std::string_view no_data = "NO DATA WAS ENTERED";
// Conversational variants [C: DFSIVP34].
constexpr std::string_view conv_not_enough = "DATA IS NOT ENOUGH.  PLEASE KEY IN MORE";
constexpr std::string_view conv_no_data = "NO DATA WAS INPUT.  PLEASE KEY IN MORE";
constexpr std::string_view conv_ended = "CONVERSATION HAS ENDED";
constexpr std::string_view conv_prompt = "ENTER FIRST NAME, EXTENSION AND ZIP";  // [D: header]
}  // namespace msg

// One output segment: message (40), last name (10), first name (10), extension (10), zip (7) [D: header;
// IBM's DFSIVP34 output also carries the process code and a segment number, which we leave out].
bytes phone_reply(std::string_view message, const phone_entry& e, std::int32_t ccsid) {
  std::string line;
  line += codepage::pad_field(message, len_message);
  line += codepage::pad_field(e.last_name, len_last);
  line += codepage::pad_field(e.first_name, len_first);
  line += codepage::pad_field(e.extension, len_ext);
  line += codepage::pad_field(e.zip_code, len_zip);
  return encode_text(line, ccsid);
}

// "ADD/TADD without first name and extension" is not enough [D: header]; IBM's sample also wants the
// zip code, which we leave optional.
bool enough_for_add(const phone_entry& e) { return !e.first_name.empty() && !e.extension.empty(); }
bool any_update_field(const phone_entry& e) {
  return !e.first_name.empty() || !e.extension.empty() || !e.zip_code.empty();
}

// UPDATE replaces only the fields given [C: DFSIVP34 TO-UPD].
phone_entry merged(phone_entry stored, const phone_entry& given) {
  if (!given.first_name.empty()) stored.first_name = given.first_name;
  if (!given.extension.empty()) stored.extension = given.extension;
  if (!given.zip_code.empty()) stored.zip_code = given.zip_code;
  return stored;
}

struct phone_answer {
  std::string_view message;
  phone_entry fields;
};

// The IVTNO decision, shared by IVTCV's final step.
phone_answer ivtno_answer(process code, const phone_entry& given, phonebook& db) {
  switch (code) {
    case process::add:
    case process::tadd: {
      if (!enough_for_add(given)) return {msg::not_enough, given};
      if (db.find(given.last_name)) return {msg::add_failed, given};
      db.put(given);
      if (code == process::tadd) {
        // TADD: the "test add" also reports the entry as the database now holds it [D: header];
        // IBM's TADD talks to the operator console instead [C: DFSIVA6 "SAME AS ADD, BUT WITH WTO"].
        if (auto stored = db.find(given.last_name)) return {msg::added, *stored};
      }
      return {msg::added, given};
    }
    case process::update: {
      auto stored = db.find(given.last_name);
      if (!stored) return {msg::not_found, given};
      if (!any_update_field(given)) return {msg::no_data, given};  // [C: DFSIVP34 MNODATA]
      const phone_entry next = merged(*stored, given);
      db.put(next);
      return {msg::updated, next};
    }
    case process::erase: {
      auto stored = db.find(given.last_name);
      if (!stored) return {msg::not_found, given};
      db.erase(given.last_name);
      return {msg::deleted, *stored};
    }
    case process::display: {
      auto stored = db.find(given.last_name);
      if (!stored) return {msg::not_found, given};
      return {msg::displayed, *stored};
    }
    case process::end:
    case process::invalid:
      break;
  }
  return {msg::invalid, given};
}

output_message iopcb_reply(bytes segment) {
  output_message out;
  out.segments.push_back(std::move(segment));
  return out;
}

run_result run_ivtno(const input_message& in, phonebook& db) {
  const phone_input p = parse_phone_input(in);
  phone_answer answer{msg::invalid, p.entry};
  // IBM's order of checks: a blank process code, then a blank last name, then the code [C: DFSIVP34].
  if (p.code.empty()) {
    answer = {msg::invalid, p.entry};
  } else if (p.entry.last_name.empty()) {
    answer = {msg::no_last_name, p.entry};
  } else {
    answer = ivtno_answer(classify(p.code), p.entry, db);
  }
  run_result r;
  r.outputs.push_back(iopcb_reply(phone_reply(answer.message, answer.fields, in.ccsid)));
  return r;
}

// IVTCV's SPA [D: header]: trancode (8), step (1: '1' = waiting for the rest of an ADD/UPDATE, anything
// else = no state), process code (8), last name (10), then blanks to the SPA's size.
constexpr std::size_t spa_trancode = 0, spa_step = 8, spa_code = 9, spa_last = 17, spa_min = 27;

struct spa_state {
  bool waiting = false;
  std::string code;
  std::string last_name;
};

spa_state read_spa(const bytes& spa, std::int32_t ccsid) {
  const std::string text = decode_text(bytes_view(spa).sub(0, spa_min), ccsid);
  spa_state s;
  s.waiting = text.size() > spa_step && text[spa_step] == '1';
  if (s.waiting) {
    s.code = column(text, spa_code, len_code);
    s.last_name = column(text, spa_last, len_last);
  }
  return s;
}

void write_spa(bytes& spa, char step, std::string_view code, std::string_view last_name, std::int32_t ccsid) {
  std::string text(1, step);
  text += codepage::pad_field(code, len_code);
  text += codepage::pad_field(last_name, len_last);
  const bytes enc = encode_text(text, ccsid);
  std::copy(enc.begin(), enc.end(), spa.begin() + static_cast<std::ptrdiff_t>(spa_step));
  // The rest of the SPA is blank in our layout.
  std::fill(spa.begin() + static_cast<std::ptrdiff_t>(spa_min), spa.end(), codepage::blank(ccsid));
}

run_result run_ivtcv(const input_message& in, phonebook& db) {
  run_result r;
  if (in.spa.size() < spa_min) {
    // Our SPA layout needs 27 bytes; a shorter SPA is a definition error, an abend of ours [D: U4095].
    r.abend =
        "U4095 IVTCV SPA SIZE " + std::to_string(in.spa.size()) + " IS BELOW " + std::to_string(spa_min);
    return r;
  }
  const spa_state state = read_spa(in.spa, in.ccsid);
  const phone_input p = parse_phone_input(in);
  // Each step reads the same columns as IVTNO; a blank process code or last name on a later step is
  // taken from the SPA [C: DFSIVP34 reads one input layout at every step and fills blanks from its SPA].
  const std::string code = !p.code.empty() ? p.code : state.code;
  phone_entry given = p.entry;
  if (given.last_name.empty()) given.last_name = state.last_name;

  bytes spa = in.spa;
  char step = '0';
  bool end = false;
  phone_answer answer{msg::invalid, given};
  const process proc = code.empty() ? process::invalid : classify(code);

  if (proc == process::end) {
    answer = {msg::conv_ended, given};  // [C: DFSIVP34 TO-END]
    end = true;
  } else if (code.empty() || proc == process::invalid) {
    answer = {msg::invalid, given};
  } else if (given.last_name.empty()) {
    answer = {msg::no_last_name, given};
  } else if (proc == process::add || proc == process::tadd || proc == process::update) {
    const bool add = proc != process::update;
    const auto stored = db.find(given.last_name);
    // Fail at once when the rest of the data could not help [D].
    if (add && stored) {
      answer = {msg::add_failed, given};
    } else if (!add && !stored) {
      answer = {msg::not_found, given};
    } else if (add ? !enough_for_add(given) : !any_update_field(given)) {
      if (!state.waiting) {
        answer = {msg::conv_prompt, given};  // step 1: ask for the rest [D: header]
      } else {
        answer = {add ? msg::conv_not_enough : msg::conv_no_data, given};
      }
      step = '1';
    } else {
      answer = ivtno_answer(proc, given, db);
      end = answer.message == msg::added || answer.message == msg::updated;
    }
  } else {
    answer = ivtno_answer(proc, given, db);
    // A completed DELETE ends the conversation; a DISPLAY keeps it going [D: header].
    end = proc == process::erase && answer.message == msg::deleted;
  }

  write_spa(spa, step, code, given.last_name, in.ccsid);
  if (end) {
    // Ending a conversation = blanking the SPA's trancode [C: DFSIVP34 TO-END "MOVE SPACES TO SPA-TRANCODE"].
    std::fill(spa.begin() + static_cast<std::ptrdiff_t>(spa_trancode),
              spa.begin() + static_cast<std::ptrdiff_t>(spa_trancode + 8), codepage::blank(in.ccsid));
  }
  r.outputs.push_back(iopcb_reply(phone_reply(answer.message, answer.fields, in.ccsid)));
  r.spa = std::move(spa);
  r.end_conversation = end;
  return r;
}

// --- ECHO, SHOWOTMA, ALTOUT --------------------------------------------------------------------------

run_result run_echo(const input_message& in) {
  output_message out;
  out.segments = in.segments;
  run_result r;
  r.outputs.push_back(std::move(out));
  return r;
}

// The value after "KEY=" in the first segment's text after the trancode, up to a blank or comma,
// at most 8 characters (an IMS name) [D].
std::optional<std::string> option_after_trancode(const input_message& in, std::string_view key) {
  if (in.segments.empty()) return std::nullopt;
  const std::string text = decode_text(in.segments.front(), in.ccsid);
  std::size_t start = text.find_first_not_of(' ');
  if (start == std::string::npos) return std::nullopt;
  start = text.find(' ', start);  // the trancode is the first word
  if (start == std::string::npos) return std::nullopt;
  const std::string needle = std::string(key) + "=";
  const auto at = text.find(needle, start);
  if (at == std::string::npos) return std::nullopt;
  const auto from = at + needle.size();
  auto to = text.find_first_of(" ,", from);
  if (to == std::string::npos) to = text.size();
  return text.substr(from, std::min<std::size_t>(to - from, 8));
}

std::string_view sync_level_name(std::uint8_t level) noexcept {
  switch (level) {
    case 0:
      return "NONE";
    case 1:
      return "CONFIRM";
    case 2:
      return "SYNCPT";
    default:
      return "";
  }
}

std::string_view token_name(input_message::token_state t) noexcept {
  switch (t) {
    case input_message::token_state::verified:
      return "VERIFIED";
    case input_message::token_state::not_verified:
      return "NOTVERIFIED";
    case input_message::token_state::invalid:
      return "INVALID";
    case input_message::token_state::none:
      break;
  }
  return "NONE";
}

run_result run_showotma(const input_message& in) {
  std::string lengths;
  for (std::size_t i = 0; i < in.segments.size(); ++i) {
    // The LL as received; without one, the LL this segment would have (data + LLZZ) [D].
    const std::size_t ll = i < in.segment_lengths.size() ? in.segment_lengths[i] : in.segments[i].size() + 4;
    if (i != 0) lengths += ',';
    lengths += std::to_string(ll);
  }
  const std::string_view sync = sync_level_name(in.sync_level);
  const std::vector<std::string> lines{
      "TRAN=" + in.transaction,
      "COMMITMODE=" + std::to_string(in.commit_mode),
      "SYNCLEVEL=" + (sync.empty() ? std::to_string(in.sync_level) : std::string(sync)),
      "TPIPE=" + in.tpipe,
      std::string("SYNCHRONIZED=") + (in.synchronized_tpipe ? "Y" : "N"),
      "LTERM=" + in.lterm_override,
      "MODNAME=" + in.mod_name,
      "USERID=" + in.user_id,
      "GROUP=" + in.group,
      std::string("SECFLAG=") + in.security_flag,
      "TOKEN=" + std::string(token_name(in.token)),
      "SEGMENTS=" + std::to_string(in.segments.size()),
      "LENGTHS=" + lengths,
  };
  output_message out;
  for (const auto& line : lines) out.segments.push_back(encode_text(line, in.ccsid));
  if (auto mod = option_after_trancode(in, "MOD")) out.mod_name = *mod;
  run_result r;
  r.outputs.push_back(std::move(out));
  return r;
}

run_result run_altout(const input_message& in) {
  std::string dest = "ALTDEST";
  if (auto d = option_after_trancode(in, "DEST"); d && !d->empty()) dest = *d;
  run_result r;
  if (!in.segments.empty()) {
    output_message alt;
    alt.destination = dest;
    alt.segments = in.segments;
    r.outputs.push_back(std::move(alt));
  }
  // [D] "REPLY=NO" after the trancode: no IOPCB reply, as a program that only inserts to an ALTPCB, so that
  // a response-mode (CM1) input ends with DFS2082 [C: IMS-MSG-DFS2082].
  if (auto reply_opt = option_after_trancode(in, "REPLY"); reply_opt && *reply_opt == "NO") return r;
  const std::string reply = "ALTOUT SENT " + std::to_string(in.segments.size()) + " SEGMENTS TO " + dest;
  r.outputs.push_back(iopcb_reply(encode_text(reply, in.ccsid)));
  return r;
}

}  // namespace

run_result run_builtin(std::string_view program, const input_message& input, phonebook& db) {
  if (program == "ECHO") return run_echo(input);  // bytes only: any CCSID will do
  run_result r;
  if (!is_builtin(program)) {
    r.abend = "U0456 PROGRAM " + std::string(program) + " IS NOT A BUILT-IN";  // [D: header]
    return r;
  }
  if (!codepage::supported(input.ccsid)) {
    r.abend =
        "U4095 " + std::string(program) + " CCSID " + std::to_string(input.ccsid) + " NOT SUPPORTED";  // [D]
    return r;
  }
  if (program == "IVTNO") return run_ivtno(input, db);
  if (program == "IVTCV") return run_ivtcv(input, db);
  if (program == "SHOWOTMA") return run_showotma(input);
  return run_altout(input);
}

}  // namespace imsb::ims
