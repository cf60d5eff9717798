#pragma once
// A temporary queue-manager folder for the recovery-log tests: queues/<name>/q files and log/ under one
// mkdtemp folder in /tmp, removed afterwards.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "imsb/qmgr/recovery_log.hpp"

namespace imsb::qmgr::test {

inline mqi::message_token make_token(std::uint64_t incarnation, std::uint64_t counter) {
  mqi::message_token t{};
  for (int i = 0; i < 8; ++i) {
    t[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(incarnation >> (56 - 8 * i));
    t[static_cast<std::size_t>(8 + i)] = static_cast<std::uint8_t>(counter >> (56 - 8 * i));
  }
  return t;
}

inline std::uint64_t token_counter(const mqi::message_token& t) {
  std::uint64_t v = 0;
  for (int i = 8; i < 16; ++i) v = (v << 8) | t[static_cast<std::size_t>(i)];
  return v;
}

inline stored_message make_message(std::uint64_t id, std::size_t data_size = 8) {
  stored_message m;
  m.token = make_token(1, id);
  m.put_time_ms = 1'700'000'000'000 + static_cast<std::int64_t>(id);
  m.backout_count = 0;
  m.md = bytes(16, static_cast<std::uint8_t>(id));
  m.data.resize(std::max<std::size_t>(data_size, 8));
  for (int i = 0; i < 8; ++i)
    m.data[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(id >> (56 - 8 * i));
  return m;
}

inline std::uint64_t message_id(const stored_message& m) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8 && i < m.data.size(); ++i) v = (v << 8) | m.data[i];
  return v;
}

inline log_op put_op(const std::string& queue, stored_message m) {
  log_op op;
  op.what = log_op::kind::put;
  op.queue = queue;
  op.message = std::move(m);
  return op;
}
inline log_op get_op(const std::string& queue, const mqi::message_token& token) {
  log_op op;
  op.what = log_op::kind::get;
  op.queue = queue;
  op.message.token = token;
  return op;
}

class log_dir_test : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/imsb-log-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  // queues/<name>/q for every queue except those in gone_.
  recovery_log::queue_file_fn queue_files() {
    return [this](const std::string& name) -> std::optional<std::filesystem::path> {
      if (gone_.count(name) != 0) return std::nullopt;
      const auto folder = dir_ / "queues" / name;
      std::error_code ec;
      std::filesystem::create_directories(folder, ec);
      return folder / "q";
    };
  }
  std::unique_ptr<recovery_log> open_log(recovered_state& state, log_options options = {}) {
    auto opened = recovery_log::open(dir_, queue_files(), options, state);
    EXPECT_TRUE(opened.ok()) << (opened.ok() ? "" : opened.error().to_string());
    if (!opened.ok()) return nullptr;
    return std::move(opened.value());
  }
  std::vector<std::uint64_t> ids(const recovered_state& state, const std::string& queue) {
    std::vector<std::uint64_t> out;
    auto it = state.queues.find(queue);
    if (it == state.queues.end()) return out;
    for (const auto& m : it->second) out.push_back(message_id(m));
    return out;
  }

  std::filesystem::path dir_;
  std::set<std::string> gone_;
};

}  // namespace imsb::qmgr::test
