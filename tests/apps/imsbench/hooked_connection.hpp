#pragma once
// imsbench's tests: an mqi::connection over a real one that counts and hooks the calls a test watches.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "imsb/mqi/connection.hpp"

namespace imsb::imsbench::test_support {

// Over a real connection: `on_put(n)` before the n-th put, `on_get(n)` before the n-th get and
// `after_get(n)` after it (counted over every connection of the run, from 1).
class hooked_connection : public mqi::connection {
 public:
  struct hooks {
    std::atomic<int> puts{0}, gets{0}, discs{0};
    std::function<void(int)> on_put, on_get, after_get;
  };
  hooked_connection(std::unique_ptr<mqi::connection> c, hooks& h) : c_(std::move(c)), h_(h) {}
  const std::string& qmgr_name() const override { return c_->qmgr_name(); }
  mqi::result<mqi::open_result> open(const mqi::object_descriptor& od, std::int32_t o) override {
    return c_->open(od, o);
  }
  mqi::result<mqi::done> close(mqi::hobj h) override { return c_->close(h); }
  mqi::result<mqi::put_result> put(mqi::hobj h, const mq::mqmd& md, bytes_view d, std::int32_t o) override {
    const int n = ++h_.puts;
    if (h_.on_put) h_.on_put(n);
    return c_->put(h, md, d, o);
  }
  mqi::result<mqi::put_result> put1(const mqi::object_descriptor& od, const mq::mqmd& md, bytes_view d,
                                    std::int32_t o) override {
    return c_->put1(od, md, d, o);
  }
  mqi::result<mqi::message> get(mqi::hobj h, const mqi::get_request& g) override {
    const int n = ++h_.gets;
    if (h_.on_get) h_.on_get(n);
    auto m = c_->get(h, g);
    if (h_.after_get) h_.after_get(n);
    return m;
  }
  mqi::result<mqi::inquiry> inquire(mqi::hobj h, const std::vector<std::int32_t>& s) override {
    return c_->inquire(h, s);
  }
  mqi::result<std::vector<mqi::object_attributes>> inquire_objects(const std::string& t,
                                                                   const std::string& g) override {
    return c_->inquire_objects(t, g);
  }
  mqi::result<mqi::mqsc_reply> mqsc(const std::string& s) override { return c_->mqsc(s); }
  mqi::result<mqi::done> commit() override { return c_->commit(); }
  mqi::result<mqi::done> backout() override { return c_->backout(); }
  mqi::result<mqi::done> set(mqi::hobj h, const std::vector<std::int32_t>& s,
                             const std::vector<std::int32_t>& i, const std::vector<std::string>& c) override {
    return c_->set(h, s, i, c);
  }
  mqi::result<mqi::done> begin() override { return c_->begin(); }
  mqi::result<mqi::status_report> stat(std::int32_t type) override { return c_->stat(type); }
  mqi::result<mqi::done> callback(std::int32_t op, const mqi::callback_descriptor& cbd, mqi::hobj h,
                                  const mqi::get_request& g) override {
    return c_->callback(op, cbd, h, g);
  }
  mqi::result<mqi::done> control(std::int32_t op) override { return c_->control(op); }
  void stop() noexcept override { c_->stop(); }
  mqi::result<mqi::done> disconnect() override {
    ++h_.discs;
    return c_->disconnect();
  }

 private:
  std::unique_ptr<mqi::connection> c_;
  hooks& h_;
};

}  // namespace imsb::imsbench::test_support
