// libFuzzer target: the emulator's journal reader (imsemu/src/journal.cpp). The input is written as
// <state>/journal.log and opened warm, as a restart after a crash or damage would.
//
// Any file is rejected (a decode_error naming the offset) or recovered (a torn tail
// truncated away), never a crash or a read past the buffer. Checked besides "no crash, no sanitizer
// report": an open that succeeds is repeatable (a second open replays to the same state), and a
// checkpoint of that state replays to it again (the snapshot record carries everything); then the
// engine opens warm on it (inputs found logged are run).
// The seed corpus (corpus/imsemu_journal/) holds real small journals written through journal's API.

#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "imsb/ims/definitions.hpp"
#include "imsb/imsemu/engine.hpp"
#include "imsb/imsemu/journal.hpp"

namespace {

namespace fs = std::filesystem;
using namespace imsb;

// One state folder per process, reused by every run. Never destroyed: the exit handler still needs it.
const fs::path& state_dir() {
  static const fs::path* const dir = [] {
    // tmpfs when there is one: every open may fsync (a truncated tail, a checkpoint).
    std::string tmpl = fs::is_directory("/dev/shm") ? "/dev/shm/imsemu-journal-fuzz-XXXXXX"
                                                    : "/tmp/imsemu-journal-fuzz-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(state_dir(), ec);
    });
    return new fs::path(tmpl);
  }();
  return *dir;
}

void write_journal(const std::uint8_t* data, std::size_t size) {
  std::error_code ec;
  fs::remove(state_dir() / "journal.tmp", ec);
  std::ofstream f(state_dir() / "journal.log", std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!f) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  write_journal(data, size);
  imsemu::journal_state first;
  {
    auto j = imsemu::journal::open(state_dir(), false);
    if (!j.ok()) return 0;  // rejected: bad magic, a damaged record before an intact one, ...
    first = j->state();
  }
  {
    auto again = imsemu::journal::open(state_dir(), false);
    if (!again.ok() || again->state() != first) std::abort();
    if (!again->checkpoint().ok()) std::abort();
  }
  {
    auto snapshot = imsemu::journal::open(state_dir(), false);
    if (!snapshot.ok() || snapshot->state() != first) std::abort();
  }
  // The engine on it, warm: logged inputs are run now (their output waits for a client).
  auto e = imsemu::engine::open(ims::default_definitions("XCFGRP1", "IMSA"), state_dir(), false,
                                [](const std::string&) {});
  (void)e;
  return 0;
}
