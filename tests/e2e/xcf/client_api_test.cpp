// The client backend's contract (imsb/transport/tcp_xcf.hpp, imsb/xcf/member.hpp) against a real hub:
// send's checks, answers through on_send_done, what a handler may call, and the member services.

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>

#include "imsb/core/messages.hpp"
#include "xcf_e2e.hpp"

namespace imsb::test {
namespace {

class XcfClientApi : public ::testing::Test {
 protected:
  void SetUp() override {
    hub_ = std::make_unique<hub_process>(dir_, std::vector<std::string>{"--max-message", "4096"});
  }

  temp_dir dir_;
  std::unique_ptr<hub_process> hub_;
};

TEST_F(XcfClientApi, SendChecksSizeNameAndTarget) {
  transport::tcp_service service(client_options(hub_->endpoint()));
  recorder ra;
  recorder rb;
  auto a = service.join(join_as("IMSBGRP", "SENDER"), ra);
  ASSERT_EQ(a.code, xcf::codes::first_active);
  ASSERT_EQ(a.members.size(), 1u);
  EXPECT_EQ(a.members[0].name, "SENDER");
  EXPECT_EQ(a.members[0].token, a.joined->token());
  auto b = service.join(join_as("IMSBGRP", "RECEIVER"), rb);
  ASSERT_EQ(b.code, xcf::codes::ok);
  EXPECT_EQ(b.members.size(), 2u);
  ASSERT_TRUE(ra.wait_event(xcf::event_kind::active, "RECEIVER", milliseconds(5000)));

  // The hub's maximum (JOIN_RSP) is the frame payload: 58 bytes of SEND fields + data.
  const bytes fits(4096 - 58, 0xAB);
  const bytes over(4096 - 58 + 1, 0xAB);
  EXPECT_EQ(a.joined->send(xcf::target::by_name("RECEIVER"), {}, over), xcf::codes::too_big);
  std::uint64_t id1 = 0;
  std::uint64_t id2 = 0;
  xcf::send_options ack;
  ack.ack = true;
  ack.stream = 3;
  ack.ordered = false;
  ASSERT_EQ(a.joined->send(xcf::target::by_name("RECEIVER"), {}, fits, ack, &id1), xcf::codes::ok);
  ASSERT_EQ(a.joined->send(xcf::target::by_name("RECEIVER"), {}, bytes{}, {}, &id2), xcf::codes::ok);
  EXPECT_EQ(id2, id1 + 1);
  EXPECT_EQ(ra.wait_send_done(id1, milliseconds(5000)), xcf::codes::ok);  // ack asked: acceptance reported
  auto got = rb.wait_messages(2, milliseconds(5000));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].data, fits);
  EXPECT_EQ(got[0].stream, 3);
  EXPECT_FALSE(got[0].ordered);
  EXPECT_TRUE(got[1].data.empty());
  EXPECT_TRUE(got[1].ordered);
  EXPECT_EQ(got[1].source_token, a.joined->token());

  // A name that breaks the rules never leaves; one that is not active is refused by the hub.
  EXPECT_EQ(a.joined->send(xcf::target::by_name("no such"), {}, fits), xcf::codes::bad_name);
  std::uint64_t id3 = 0;
  ASSERT_EQ(a.joined->send(xcf::target::by_name("NOBODY"), {}, fits, {}, &id3), xcf::codes::ok);
  EXPECT_EQ(ra.wait_send_done(id3, milliseconds(5000)), xcf::codes::not_active);
  // No answer for an accepted send without ack.
  std::this_thread::sleep_for(milliseconds(100));
  for (const auto& [id, code] : ra.send_done()) EXPECT_NE(id, id2);

  EXPECT_EQ(b.joined->leave(), xcf::codes::ok);
  EXPECT_EQ(b.joined->leave(), xcf::codes::not_active);  // IXCLEAVE 8/4 [C]
  EXPECT_EQ(b.joined->send(xcf::target::by_name("SENDER"), {}, fits), xcf::codes::not_active);
  ASSERT_TRUE(ra.wait_event(xcf::event_kind::left, "RECEIVER", milliseconds(5000)));
  EXPECT_EQ(a.joined->leave(), xcf::codes::ok);
}

// Inside a handler: send works (also past the outbound bound: refused 12/0, never blocking), the
// blocking services refuse instead of deadlocking.
class busy_handler : public recorder {
 public:
  xcf::member* self = nullptr;
  transport::tcp_service* service = nullptr;
  std::vector<xcf::return_code> sends;
  xcf::return_code query_code, join_code, leave_code;
  std::atomic<bool> done{false};

  void on_message(xcf::message msg) override {
    if (!done) {
      const bytes chunk(3000, 0x5C);
      // The I/O thread is here, so nothing is written meanwhile: the bound (5000 bytes) is reached.
      for (int i = 0; i < 3; ++i)
        sends.push_back(self->send(xcf::target::by_token(msg.source_token), {}, chunk));
      std::vector<xcf::member_info> out;
      query_code = self->query(out);
      recorder other;
      join_code = service->join(join_as("IMSBGRP", "INNER"), other).code;
      leave_code = self->leave();
      done = true;
    }
    recorder::on_message(std::move(msg));
  }
};

TEST_F(XcfClientApi, HandlerMaySendButNotWait) {
  auto options = client_options(hub_->endpoint());
  options.outbound_limit = 5000;
  transport::tcp_service service(options);
  busy_handler busy;
  busy.service = &service;
  recorder other;
  auto a = service.join(join_as("IMSBGRP", "BUSY"), busy);
  ASSERT_TRUE(a.code.ok());
  busy.self = a.joined.get();
  auto b = service.join(join_as("IMSBGRP", "POKER"), other);
  ASSERT_TRUE(b.code.ok());
  ASSERT_EQ(b.joined->send(xcf::target::by_name("BUSY"), {}, bytes{1}), xcf::codes::ok);
  ASSERT_EQ(busy.wait_messages(1, milliseconds(5000)).size(), 1u);
  ASSERT_TRUE(busy.done);
  ASSERT_EQ(busy.sends.size(), 3u);
  EXPECT_EQ(busy.sends[0], xcf::codes::ok);  // an empty queue takes one frame whatever its size
  EXPECT_EQ(busy.sends[1], xcf::codes::resource_shortage);
  EXPECT_EQ(busy.sends[2], xcf::codes::resource_shortage);
  EXPECT_EQ(busy.query_code, transport::tcp_codes::called_from_handler);
  EXPECT_EQ(busy.join_code, transport::tcp_codes::called_from_handler);
  EXPECT_EQ(busy.leave_code, transport::tcp_codes::called_from_handler);
  // The accepted one arrives; once written, the queue takes more.
  ASSERT_EQ(other.wait_messages(1, milliseconds(5000)).size(), 1u);
  EXPECT_EQ(a.joined->send(xcf::target::by_name("POKER"), {}, bytes(3000, 1)), xcf::codes::ok);
  EXPECT_EQ(a.joined->leave(), xcf::codes::ok);
  EXPECT_EQ(b.joined->leave(), xcf::codes::ok);
}

TEST_F(XcfClientApi, UserStateQuiesceRemoveAndAbnormalEnd) {
  transport::tcp_service service(client_options(hub_->endpoint()));
  recorder ra;
  recorder rb;
  recorder rc;
  auto a = service.join(join_as("IMSBGRP", "WATCH"), ra);
  ASSERT_TRUE(a.code.ok());
  auto b = service.join(join_as("IMSBGRP", "QUIET", true), rb);
  ASSERT_TRUE(b.code.ok());
  auto c = service.join(join_as("IMSBGRP", "CRASH"), rc);
  ASSERT_TRUE(c.code.ok());

  xcf::user_state state{};
  state[0] = 0xE2;
  state[31] = 0x01;
  ASSERT_EQ(b.joined->set_user_state(state), xcf::codes::ok);
  const auto changed = ra.wait_event(xcf::event_kind::user_state, "QUIET", milliseconds(5000));
  ASSERT_TRUE(changed);
  EXPECT_EQ(changed->event.member.ustate, state);

  ASSERT_EQ(b.joined->quiesce(), xcf::codes::ok);
  const auto quiesced = ra.wait_event(xcf::event_kind::quiesced, "QUIET", milliseconds(5000));
  ASSERT_TRUE(quiesced);
  EXPECT_EQ(quiesced->event.member.state, xcf::member_state::quiesced);
  // Quiesced: it may only leave; messages to it are refused.
  EXPECT_EQ(b.joined->send(xcf::target::by_name("WATCH"), {}, bytes{1}), xcf::codes::not_active);
  std::vector<xcf::member_info> out;
  EXPECT_EQ(b.joined->query(out), xcf::codes::not_active);
  std::uint64_t id = 0;
  ASSERT_EQ(a.joined->send(xcf::target::by_name("QUIET"), {}, bytes{1}, {}, &id), xcf::codes::ok);
  EXPECT_EQ(ra.wait_send_done(id, milliseconds(5000)), xcf::codes::not_active);

  // The member object goes away without leave: not lasting, so the others see it gone.
  c.joined.reset();
  const auto crashed = ra.wait_event(xcf::event_kind::failed, "CRASH", milliseconds(5000));
  ASSERT_TRUE(crashed);
  EXPECT_EQ(crashed->event.member.state, xcf::member_state::not_defined);

  // The quiesced member leaves the connection; it stays quiesced until removed (IXCDELET).
  b.joined.reset();
  ASSERT_EQ(a.joined->query(out, "QUIET"), xcf::codes::ok);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].state, xcf::member_state::quiesced);
  EXPECT_EQ(a.joined->remove("QUIET"), xcf::codes::ok);
  ASSERT_TRUE(ra.wait_event(xcf::event_kind::removed, "QUIET", milliseconds(5000)));
  EXPECT_EQ(a.joined->query(out, "QUIET"), xcf::codes::not_found);
  EXPECT_EQ(a.joined->remove("bad name"), xcf::codes::bad_name);
  EXPECT_EQ(a.joined->leave(), xcf::codes::ok);
}

// A loopback port that refuses connections: bound (so nobody else gets it) but not listening. Safer
// than the port of a hub that has stopped, which another test running at the same time may take.
class refusing_port {
 public:
  refusing_port() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("cannot bind a loopback port");
    }
    port_ = ntohs(addr.sin_port);
  }
  ~refusing_port() { ::close(fd_); }
  refusing_port(const refusing_port&) = delete;
  refusing_port& operator=(const refusing_port&) = delete;
  std::uint16_t port() const noexcept { return port_; }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

TEST(XcfClientJoin, BadNamesAndNoHub) {
  const refusing_port nobody;
  std::vector<std::string> log;
  auto options = client_options("127.0.0.1:" + std::to_string(nobody.port()));
  options.log = [&log](const std::string& line) { log.push_back(line); };
  transport::tcp_service service(options);
  recorder r;
  EXPECT_EQ(service.join(join_as("IMSBGRP", "lower"), r).code, xcf::codes::bad_name);
  EXPECT_EQ(service.join(join_as("TOOLONGGRP", "M1"), r).code, xcf::codes::bad_name);
  EXPECT_TRUE(log.empty());  // nothing was tried
  const auto started = steady::now();
  const auto joined = service.join(join_as("IMSBGRP", "LONELY"), r);
  EXPECT_EQ(joined.code, xcf::codes::link_down);
  EXPECT_LT(std::chrono::duration_cast<milliseconds>(steady::now() - started).count(), 3000);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].rfind(imsb::msg::IMB3050E, 0), 0u) << log[0];
  EXPECT_NE(log[0].find("refused"), std::string::npos) << log[0];
  std::vector<xcf::member_info> out;
  EXPECT_EQ(service.query(out), xcf::codes::link_down);
  EXPECT_TRUE(r.events().empty());
}

// A member that sends by token to a member that keeps re-joining (a new token each time): the resume
// states of the dead tokens are dropped, not kept for ever (tcp_xcf.hpp "Decisions").
TEST_F(XcfClientApi, StreamStatesOfGoneTargetsAreDropped) {
  transport::tcp_service service(client_options(hub_->endpoint()));
  recorder ra;
  auto a = service.join(join_as("IMSBGRP", "STEADY"), ra);
  ASSERT_TRUE(a.code.ok());
  xcf::send_options ack;
  ack.ack = true;
  constexpr int rejoins = 150;
  for (int i = 0; i < rejoins; ++i) {
    recorder rb;
    auto b = service.join(join_as("IMSBGRP", "HOPPER"), rb);
    ASSERT_TRUE(b.code.ok()) << i << ": " << xcf::describe(b.code);
    std::uint64_t id = 0;
    ASSERT_EQ(a.joined->send(xcf::target::by_token(b.joined->token()), {}, bytes{1, 2}, ack, &id),
              xcf::codes::ok);
    ASSERT_EQ(ra.wait_send_done(id, milliseconds(5000)), xcf::codes::ok);
    ASSERT_EQ(rb.wait_messages(1, milliseconds(5000)).size(), 1u);
    const std::size_t mark = ra.event_count();
    ASSERT_EQ(b.joined->leave(), xcf::codes::ok);
    ASSERT_TRUE(ra.wait_event(xcf::event_kind::left, "HOPPER", milliseconds(5000), mark));
  }
  const auto st = transport::tcp_stats(*a.joined);
  ASSERT_TRUE(st);
  std::cout << "[ stats    ] " << st->stream_states << " stream states, " << st->send_runs << " runs after "
            << rejoins << " re-joins\n";
  // The last run names the last token until the next send: one state at most, whatever the count.
  EXPECT_LE(st->stream_states, 1u);
  EXPECT_LE(st->send_runs, 1u);
  EXPECT_TRUE(st->linked);
  EXPECT_EQ(a.joined->leave(), xcf::codes::ok);
}

// After a large message the reader gives its storage back; and its limit is the hub's maximum (or a
// member listing, which may be larger) rather than XCF's 128 MB.
TEST(XcfClientReader, ShrinksWhenIdleAndTakesTheHubsMaximum) {
  temp_dir dir;
  hub_process hub(dir, {"--max-message", "4194304"});
  transport::tcp_service service(client_options(hub.endpoint()));
  recorder ra;
  recorder rb;
  auto a = service.join(join_as("IMSBGRP", "BIGSEND"), ra);
  ASSERT_TRUE(a.code.ok());
  auto b = service.join(join_as("IMSBGRP", "BIGRECV"), rb);
  ASSERT_TRUE(b.code.ok());
  const auto before = transport::tcp_stats(*b.joined);
  ASSERT_TRUE(before);
  EXPECT_EQ(before->reader_limit, 28u + 81u * 65536u);  // max(4 MiB, the largest listing)
  const bytes big = pattern_data(3, 1, 4000000);
  ASSERT_EQ(a.joined->send(xcf::target::by_name("BIGRECV"), pattern_control(3, 1), big), xcf::codes::ok);
  const auto got = rb.wait_messages(1, milliseconds(10000));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(pattern_check(3, 1, got[0], 4000000), "");
  const auto after = transport::tcp_stats(*b.joined);
  ASSERT_TRUE(after);
  std::cout << "[ stats    ] reader holds " << after->reader_capacity << " bytes after a 4 MB message\n";
  EXPECT_LE(after->reader_capacity, 256u * 1024u);

  // A hub with a larger maximum than any listing: that is the limit.
  hub_process large(dir, {"--max-message", "16777216"});
  transport::tcp_service other(client_options(large.endpoint()));
  recorder rc;
  auto c = other.join(join_as("IMSBGRP", "LARGE"), rc);
  ASSERT_TRUE(c.code.ok());
  const auto st = transport::tcp_stats(*c.joined);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->reader_limit, 16777216u);
  EXPECT_EQ(c.joined->leave(), xcf::codes::ok);
  EXPECT_EQ(a.joined->leave(), xcf::codes::ok);
  EXPECT_EQ(b.joined->leave(), xcf::codes::ok);
}

// A handler that never returns holds the backend's one I/O thread: join() on that service cannot
// complete, and must give up (link_down after connect_timeout + 2 s) rather than hang its caller.
class blocking_handler : public recorder {
 public:
  void on_message(xcf::message msg) override {
    entered_.set_value();
    release_.wait();
    recorder::on_message(std::move(msg));
  }
  void wait_entered() { entered_.get_future().wait(); }
  void release() { released_.set_value(); }

 private:
  std::promise<void> entered_;
  std::promise<void> released_;
  std::shared_future<void> release_ = released_.get_future().share();
};

TEST(XcfClientJoin, GivesUpOnAStuckIoThread) {
  temp_dir dir;
  // A long heartbeat: the stuck member cannot answer PINGs, and must not fail while the test runs.
  hub_process hub(dir, {"--heartbeat-ms", "5000"});
  auto options = client_options(hub.endpoint());
  options.connect_timeout = milliseconds(500);
  transport::tcp_service service(options);
  transport::tcp_service poker_service(client_options(hub.endpoint()));
  blocking_handler stuck;
  recorder poker_events;
  auto a = service.join(join_as("IMSBGRP", "STUCK"), stuck);
  ASSERT_TRUE(a.code.ok());
  auto p = poker_service.join(join_as("IMSBGRP", "POKER"), poker_events);
  ASSERT_TRUE(p.code.ok());
  ASSERT_EQ(p.joined->send(xcf::target::by_name("STUCK"), {}, bytes{1}), xcf::codes::ok);
  stuck.wait_entered();

  recorder late;
  const auto started = steady::now();
  auto joining =
      std::async(std::launch::async, [&] { return service.join(join_as("IMSBGRP", "LATE"), late); });
  const auto status = joining.wait_for(milliseconds(6000));
  const auto took = std::chrono::duration_cast<milliseconds>(steady::now() - started).count();
  EXPECT_EQ(status, std::future_status::ready) << "join() waited for the stuck I/O thread";
  stuck.release();  // lets a join that did hang finish, so that the test ends either way
  const auto joined = joining.get();
  EXPECT_EQ(joined.code, xcf::codes::link_down);
  EXPECT_EQ(joined.joined, nullptr);
  std::cout << "[ timing   ] join gave up after " << took << " ms (connect timeout 500 ms)\n";
  EXPECT_GE(took, 2500 - 50);
  // Once the thread is free again the abandoned join does not reach the hub, and nobody hears of it.
  ASSERT_EQ(stuck.wait_messages(1, milliseconds(5000)).size(), 1u);
  std::vector<xcf::member_info> members;
  EXPECT_EQ(p.joined->query(members, "LATE"), xcf::codes::not_found);
  EXPECT_TRUE(late.events().empty());
  EXPECT_EQ(a.joined->leave(), xcf::codes::ok);
  EXPECT_EQ(p.joined->leave(), xcf::codes::ok);
}

}  // namespace
}  // namespace imsb::test
