// mqdump: decodes MQ and OTMA messages and explains feedback, reason and sense codes.
// All logic is in imsb/dump (cli.hpp); this file only reads the input, prints and exits.

#include <cstddef>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <new>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "imsb/core/messages.hpp"
#include "imsb/dump/cli.hpp"

namespace {

// Reads the whole input. libstdc++ reports some read errors (a directory given as FILE) by
// throwing from the stream buffer: any failure is "cannot read", never a crash.
bool read_all(const std::string& name, std::string& out) {
  try {
    std::ostringstream ss;
    if (name == "-") {
      ss << std::cin.rdbuf();
      if (std::cin.bad()) return false;
    } else {
      std::ifstream in(name, std::ios::binary);
      if (!in) return false;
      out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      return !in.bad();
    }
    out = ss.str();
    return true;
  } catch (const std::bad_alloc&) {
    throw;  // not a read error: main reports it (IMB4008E)
  } catch (const std::exception&) {
    return false;
  }
}

int finish(const imsb::dump::run_output& r) {
  std::cout << r.out << std::flush;
  std::cerr << r.err << std::flush;
  return r.exit_code;
}

// Everything main does; main only catches what escapes it.
int run(int argc, char** argv, std::size_t& input_size) {
  std::vector<std::string> args(argv + 1, argv + argc);
  auto parsed = imsb::dump::parse_command_line(args);
  if (auto* err = std::get_if<imsb::dump::usage_error>(&parsed)) {
    std::cerr << err->message << '\n';
    return imsb::dump::exit_usage;
  }
  const auto& cl = std::get<imsb::dump::command_line>(parsed);
  if (cl.help) {
    std::cout << imsb::dump::help_text();
    return imsb::dump::exit_decoded;
  }
  if (cl.explain) return finish(imsb::dump::run_explain(cl));

  std::string content;
  if (!read_all(cl.input, content)) {
    std::cerr << imsb::msg::IMB4003E << " mqdump: cannot read " << cl.input << '\n';
    return imsb::dump::exit_bad_input;
  }
  input_size = content.size();
  return finish(imsb::dump::run_dump(cl, content));
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  // "Never a crash": a listing that does not fit in memory (std::bad_alloc), or any other exception
  // from the standard library, ends with a diagnostic line and exit code 1, never an abort.
  std::size_t input_size = 0;
  try {
    return run(argc, argv, input_size);
  } catch (const std::bad_alloc&) {
    std::cerr << imsb::msg::IMB4008E << " mqdump: out of memory decoding " << input_size
              << " bytes of input\n";
  } catch (const std::exception& e) {
    std::cerr << imsb::msg::IMB4008E << " mqdump: internal error: " << e.what() << '\n';
  }
  return imsb::dump::exit_bad_input;
}
