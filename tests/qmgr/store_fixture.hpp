#pragma once
// Shared by the store tests: a fresh temporary prefix per test (removed at the end) and catalogs built
// directly with object_catalog::put, so that the store is tested apart from the MQSC executor.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "imsb/objects/object.hpp"
#include "imsb/qmgr/store.hpp"
#include "process.hpp"

namespace imsb::qmgr::test {

namespace fs = std::filesystem;

inline objects::object_record record(objects::object_type type, std::string name) {
  objects::object_record rec;
  rec.type = type;
  rec.name = std::move(name);
  return rec;
}

struct catalog_spec {
  std::vector<std::string> queues = {}, namelists = {}, processes = {}, channels = {};
};

inline objects::object_catalog make_catalog(const std::string& qmgr, names::fs_profile profile,
                                            const catalog_spec& spec = {}) {
  objects::object_catalog catalog(qmgr, profile);
  catalog.qmgr().attrs["DESCR"] = "test queue manager " + qmgr;
  for (const auto& q : spec.queues) {
    auto rec = record(objects::object_type::qlocal, q);
    rec.attrs["MAXDEPTH"] = "5000";
    EXPECT_TRUE(catalog.put(rec).ok()) << q;
  }
  for (const auto& n : spec.namelists)
    EXPECT_TRUE(catalog.put(record(objects::object_type::namelist, n)).ok());
  for (const auto& p : spec.processes)
    EXPECT_TRUE(catalog.put(record(objects::object_type::process, p)).ok());
  for (const auto& c : spec.channels) EXPECT_TRUE(catalog.put(record(objects::object_type::channel, c)).ok());
  return catalog;
}

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void spit(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

// The names in a folder, sorted.
inline std::vector<std::string> entries_of(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class store_test : public ::testing::Test {
 protected:
  imsb::test::temp_dir tmp_;
  fs::path prefix_{tmp_.path()};

  queue_manager_store create(const objects::object_catalog& catalog) {
    auto store = queue_manager_store::create(prefix_, catalog);
    if (!store) ADD_FAILURE() << store.error().to_string();
    return std::move(store).value();
  }
};

}  // namespace imsb::qmgr::test
