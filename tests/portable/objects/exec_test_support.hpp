#pragma once
// Helpers shared by the executor's tests (mqsc_exec_test, exec_review_test, script_runner_test): a fresh
// queue manager, running one command, and the before/after dump that proves a refused command left the
// catalog exactly as it was.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "imsb/mqsc/parser.hpp"
#include "imsb/objects/mqsc_exec.hpp"

namespace imsb::objects::test {

inline const exec_context ctx{"2026-11-29", "19.08.32", false};
inline const exec_context later{"2026-12-01", "08.00.00", false};

inline object_catalog fresh(std::string_view deadq = "", std::string_view defxmitq = "") {
  auto c = new_queue_manager("QM1", names::fs_profile::posix, deadq, defxmitq, ctx);
  EXPECT_TRUE(c.ok());
  return std::move(c).value();
}

inline exec_outcome run(object_catalog& c, std::string_view text, const exec_context& x = ctx) {
  auto r = mqsc::parse_command(text);
  EXPECT_TRUE(r.ok()) << text << ": " << (r.error ? r.error->message() : "");
  if (!r.ok()) return {};
  return execute(c, *r.cmd, x);
}

// Everything the catalog holds, as text, for before/after comparisons.
inline std::string dump(const object_catalog& c) {
  std::string s;
  auto rec = [&](const object_record& r) {
    s += std::string(to_mqsc_word(r.type)) + " " + r.name + "\n";
    for (const auto& [k, v] : r.attrs) s += "  " + k + "=" + v + "\n";
    for (const auto& [k, v] : r.lists) {
      s += "  " + k + "=[";
      for (const auto& e : v) s += e + ",";
      s += "]\n";
    }
  };
  rec(c.qmgr());
  for (auto f : {object_family::queue, object_family::stgclass, object_family::namelist,
                 object_family::process, object_family::channel, object_family::listener})
    for (const object_record* r : c.list(f)) {
      rec(*r);
      if (auto fn = c.file_name_of(f, r->name)) s += "  file=" + *fn + "\n";
    }
  for (const auto& a : c.authrecs()) {
    s += "AUTHREC " + a.profile + " " + a.objtype + " " + a.principal + "/" + a.group + ":";
    for (const auto& w : a.authorities) s += " " + w;
    s += "\n";
  }
  return s;
}

// Runs a command that must fail (or be unsupported) and leave the catalog exactly as it was; returns
// its one line.
inline std::string refused(object_catalog& c, std::string_view text, exec_status want = exec_status::failed) {
  const std::string before = dump(c);
  exec_outcome o = run(c, text);
  EXPECT_EQ(o.status, want) << text;
  EXPECT_FALSE(o.changed) << text;
  EXPECT_EQ(dump(c), before) << text;
  EXPECT_EQ(o.lines.size(), 1u) << text;
  return o.lines.empty() ? std::string() : o.lines[0];
}

inline void applied(object_catalog& c, std::string_view text, const exec_context& x = ctx) {
  exec_outcome o = run(c, text, x);
  EXPECT_EQ(o.status, exec_status::ok) << text << ": " << (o.lines.empty() ? "" : o.lines[0]);
  EXPECT_TRUE(o.changed) << text;
}

inline const object_record& queue(const object_catalog& c, std::string_view name) {
  const object_record* r = c.find(object_family::queue, name);
  EXPECT_NE(r, nullptr) << name;
  static const object_record none;
  return r != nullptr ? *r : none;
}

}  // namespace imsb::objects::test
