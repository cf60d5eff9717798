#pragma once
// A queue manager's files in a temporary folder, for tests that run it in-process ("local:QM" through
// qmgr::connect): the catalog as crtmqm makes it, optional MQSC applied, the store created; and
// IMSBRIDGE_RUNTIME_DIR pointed into the folder for its life (the in-process queue manager still serves
// its bindings socket there), restored afterwards. Declare it before the connections that use it, so that
// they are closed first.

#include <sys/stat.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "imsb/objects/mqsc_exec.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/qmgr/store.hpp"
#include "process.hpp"

namespace imsb::test {

class temp_qmgr {
 public:
  temp_qmgr() {
    ::mkdir(dir.file("run").c_str(), 0700);
    if (const char* old = std::getenv("IMSBRIDGE_RUNTIME_DIR")) old_runtime_dir_ = old;
    ::setenv("IMSBRIDGE_RUNTIME_DIR", dir.file("run").c_str(), 1);
  }
  ~temp_qmgr() {
    if (old_runtime_dir_) {
      ::setenv("IMSBRIDGE_RUNTIME_DIR", old_runtime_dir_->c_str(), 1);
    } else {
      ::unsetenv("IMSBRIDGE_RUNTIME_DIR");
    }
  }
  temp_qmgr(const temp_qmgr&) = delete;
  temp_qmgr& operator=(const temp_qmgr&) = delete;

  // Creates queue manager `name` (DEADQ `deadq`), with `mqsc` applied. "" when done, else what failed.
  std::string create(const std::string& name, const std::string& deadq = "", const std::string& mqsc = "") {
    objects::exec_context ctx{"2026-11-30", "01.00.00", false};
    auto cat = objects::new_queue_manager(name, names::fs_profile::posix, deadq, "", ctx);
    if (!cat.ok()) return cat.error().to_string();
    if (!mqsc.empty()) {
      auto out = objects::run_script(*cat, mqsc, ctx);
      if (out.exit_code() != 0) return "MQSC failed:\n" + mqsc;
    }
    auto st = qmgr::queue_manager_store::create(prefix(), *cat);
    if (!st.ok()) return st.error().to_string();
    return {};
  }

  std::string prefix() const { return dir.file("prefix"); }

  // An in-process connection to `name` on this prefix.
  result<std::unique_ptr<mqi::connection>> connect(const std::string& name) const {
    qmgr::connect_options o;
    o.target = "local:" + name;
    o.prefix = prefix();
    return qmgr::connect(o);
  }

  temp_dir dir;

 private:
  std::optional<std::string> old_runtime_dir_;
};

}  // namespace imsb::test
