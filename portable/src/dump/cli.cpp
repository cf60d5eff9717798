#include "imsb/dump/cli.hpp"

#include <cctype>
#include <cstdint>

#include "imsb/core/messages.hpp"
#include "imsb/dump/explain.hpp"
#include "imsb/dump/render.hpp"

namespace imsb::dump {
namespace {

usage_error usage(std::string detail) {
  return {std::string(msg::IMB4001E) + " mqdump: " + detail + " (see mqdump --help)"};
}

// A 32-bit signed value written in decimal (546, -1) or hex (0x222).
std::optional<std::int32_t> parse_int32(std::string_view s) {
  bool negative = false;
  if (!s.empty() && s[0] == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty() || s.size() > 10) return std::nullopt;
  std::int64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (base == 16 && std::isxdigit(static_cast<unsigned char>(c)))
      d = std::toupper(c) - 'A' + 10;
    else
      return std::nullopt;
    v = v * base + d;
  }
  if (negative) v = -v;
  if (v < INT32_MIN || v > static_cast<std::int64_t>(UINT32_MAX)) return std::nullopt;
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(v & 0xFFFFFFFF));
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

std::variant<command_line, usage_error> parse_command_line(const std::vector<std::string>& args) {
  command_line cl;
  bool have_input = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    std::optional<std::string> inline_value;
    if (arg.size() > 2 && arg.compare(0, 2, "--") == 0) {
      if (auto eq = arg.find('='); eq != std::string::npos) {
        inline_value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
      }
    }
    auto value = [&](std::string_view opt) -> std::optional<std::string> {
      if (inline_value) return inline_value;
      if (i + 1 < args.size()) return args[++i];
      (void)opt;
      return std::nullopt;
    };
    if (arg == "-h" || arg == "--help") {
      cl.help = true;
    } else if (arg == "--json") {
      cl.json = true;
    } else if (arg == "--hex") {
      cl.hex = true;
    } else if (arg == "--otma") {
      cl.decode.otma = true;
    } else if (arg == "--encoding" || arg == "--ccsid") {
      auto v = value(arg);
      if (!v) return usage(arg + " needs a number");
      auto n = parse_int32(*v);
      if (!n) return usage(arg + " " + *v + " is not a number (decimal, or hex as 0x222)");
      (arg == "--encoding" ? cl.decode.encoding : cl.decode.ccsid) = *n;
    } else if (arg == "--format") {
      auto v = value(arg);
      if (!v) return usage("--format needs a format name (MQIMS, MQDEAD, MQXMIT, MQIMSVS, ...)");
      if (v->empty() || v->size() > 8)
        return usage("--format " + *v + ": a format name has 1 to 8 characters");
      cl.decode.format = *v;
    } else if (arg == "--explain") {
      // The code may be several words (sense 0x1A reason 0x27); the next option ends it.
      std::string code;
      if (inline_value) code = *inline_value;
      for (; i + 1 < args.size() && args[i + 1].compare(0, 2, "--") != 0; ++i)
        code += (code.empty() ? "" : " ") + args[i + 1];
      if (code.empty()) return usage("--explain needs a code (294, MQRC_Q_FULL, sense 0x1A reason 0x27 ...)");
      cl.explain = code;
    } else if (arg != "-" && arg.size() > 1 && arg[0] == '-') {
      return usage("unknown option " + arg);
    } else {
      if (have_input) return usage("more than one input file (" + cl.input + ", " + arg + ")");
      cl.input = arg;
      have_input = true;
    }
  }
  if (cl.explain && have_input) return usage("--explain takes a code, not an input file");
  if (ends_with(cl.input, ".hex")) cl.hex = true;
  return cl;
}

std::string help_text() {
  return R"(Usage: mqdump [--encoding N] [--ccsid N] [--format NAME] [--otma] [--hex] [--json] [FILE|-]
       mqdump --explain CODE
       mqdump --help

Decodes a message and prints every header, field and LLZZ segment, with the meaning of every coded
value (MsgType, Report options, Feedback, MQDLH.Reason, MQIIH flags, OTMA flags, sense codes ...),
then the data in hex and as text in its CCSID (EBCDIC shown as text too).

What the bytes are is found in this order:
  --otma              one OTMA buffer (MCI, state, security, user and application data); when the
                      user data is the bridge's MQ layout, the MQMD inside it is decoded too
  StrucId "MD  "      a message with its MQMD (ASCII or EBCDIC, either byte order), then the headers
                      its Format starts: MQDLH (MQDEAD), MQXQH (MQXMIT), MQIIH (MQIMS)
  --format NAME       data without an MQMD, starting with that format (MQIMS, MQDEAD, MQXMIT,
                      MQIMSVS, an MFS map name ...), in --encoding (default 546, little-endian) and
                      --ccsid (default 819, or 037 when the header's StrucId is EBCDIC)
  StrucId at 0        "DLH ", "XQH " or "IIH " without an MQMD
  byte 0 = X'01'      OTMA (architecture level 1), when no MQ StrucId matches, the MCI is
                      plausible (known message type and prefix flags) and the whole buffer decodes
  anything else       shown as bytes
Data in Format MQIMS or MQIMSVS (or an MFS map name) is checked as the MQ-IMS bridge checks it; a
message the bridge would dead-letter is listed in full with an IMB4006W line giving the MQFB code.
Data in Format MQEVENT, MQADMIN or MQPCF is PCF: the MQCFH and every parameter with IBM's names and
values explained (Reason 2125 = MQRC_BRIDGE_STARTED, BridgeType 1 = MQBT_OTMA); IMB4930E when it
does not decode.

Options:
  --encoding N   MQ Encoding of data without an MQMD (decimal, or hex as 0x111); 546 = little-endian,
                 273 or 785 = big-endian
  --ccsid N      CCSID of data without an MQMD, and of OTMA application data (default 037 there).
                 EBCDIC CCSIDs mqdump does not convert (273, 285, 1141 ...) are shown as 037
  --format NAME  MQ format name of data without an MQMD
  --otma         the input is one OTMA buffer
  --hex          the input is hex text: hex digits, whitespace and # comments (implied for *.hex files)
  --json         print one JSON object instead of the listing
  --explain CODE explain a code and exit: 2087, 294, MQRC_Q_FULL, MQFB_BUFFER_OVERFLOW, 0x126,
                 X'126', sense 0x1A reason 0x27, sense X'30'. Sense and reason are hex. IMS feedback
                 301-399 and 600-855 are decoded back into the OTMA sense and reason. The code is
                 the words up to the next --option (mqdump --explain 294 --json).
  -h, --help     this text
FILE is read whole; - or no FILE reads standard input.

Exit codes:
  0  decoded, and the bridge would accept the message (or it is no bridge data)
  1  the input cannot be read, is not hex (--hex), is empty, a header does not decode (IMB4002E
     names the field and its offset), or the message fails the bridge's validation (IMB4006W
     names the segment or field and its offset; the listing is still complete); --explain:
     unknown code; mqdump ran out of memory (IMB4008E)
  2  usage error

Examples:
  mqdump --hex tests/vectors/samples/iih_request_ascii.hex
  mqdump --json < message.bin
  mqdump --format MQIMS --encoding 785 data.bin
  mqdump --explain 294
)";
}

run_output run_dump(const command_line& cl, std::string_view content) {
  run_output r;
  bytes in;
  if (cl.hex) {
    hex_error bad;
    if (!from_hex(content, in, &bad)) {
      r.err = std::string(msg::IMB4004E) + " mqdump: " + (cl.input == "-" ? "standard input" : cl.input) +
              " is not valid hex text: line " + std::to_string(bad.line) + ": " + bad.reason + "\n";
      r.exit_code = exit_bad_input;
      return r;
    }
  } else {
    in.assign(content.begin(), content.end());
  }
  dump_result d = dump_message(in, cl.decode);
  r.out = cl.json ? render_json(d.document) : render_text(d.document);
  // Bytes that do not decode, and a message the bridge would refuse, both exit 1 (bad bytes get a clear
  // error naming the field and offset, and exit code 1: docs/programs/mqdump.md); the listing is whole.
  const node* e = d.error();
  if (e == nullptr) e = d.finding();
  if (e != nullptr) {
    r.exit_code = exit_bad_input;
    // The listing holds the diagnostic line already; JSON keeps standard output pure JSON.
    if (cl.json) {
      r.err = e->id + " " + e->name + (e->offset ? " at offset " + std::to_string(*e->offset) : "") + ": " +
              e->value + "\n";
    }
  }
  return r;
}

run_output run_explain(const command_line& cl) {
  run_output r;
  explanation ex = explain_code(cl.explain.value_or(""));
  r.out = cl.json ? render_json(ex.document) : render_text(ex.document);
  if (!ex.known) {
    r.exit_code = exit_bad_input;
    if (cl.json) {
      for (const auto& c : ex.document.children)
        if (c.kind == node_kind::error) r.err += c.id + " " + c.name + ": " + c.value + "\n";
    }
  }
  return r;
}

}  // namespace imsb::dump
