// Our queue manager's side of bench/RESULTS.md "Queue manager round trips": N connections, each on its own
// thread and its own local queue, each doing MQPUT then MQGET (both outside syncpoint, so a persistent
// round trip is two forced log writes, shared by group commit) of one message, as rabbitmq_roundtrip does
// with RabbitMQ. The queue manager is made in a temporary prefix and runs inside this program; the
// connections are in-process, or client connections over its bindings socket or a TCP listener on
// 127.0.0.1.
//
//   qmgr_roundtrip --mode in-process|bindings|tcp [--connections N] [--persistent 0|1] [--seconds S]
//                  [--size B] [--no-fsync]

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "imsb/mq/constants.hpp"
#include "imsb/mqi/connection.hpp"
#include "imsb/objects/mqsc_exec.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/qmgr/credentials.hpp"
#include "imsb/qmgr/queue_manager.hpp"
#include "imsb/qmgr/server.hpp"
#include "imsb/qmgr/store.hpp"
#include "roundtrip_common.hpp"

namespace fs = std::filesystem;
using namespace imsb;

namespace {

const char* usage =
    "usage: qmgr_roundtrip --mode in-process|bindings|tcp [--connections N] [--persistent 0|1] "
    "[--seconds S] [--size B] [--no-fsync]";

int fail(const std::string& what, const decode_error& e) {
  std::fprintf(stderr, "qmgr_roundtrip: %s: %s\n", what.c_str(), e.to_string().c_str());
  return 1;
}

std::vector<std::uint32_t> worker(int id, const std::atomic<bool>& stop, const bench::roundtrip_args& a,
                                  const std::function<result<std::unique_ptr<mqi::connection>>()>& connect) {
  auto conn = connect();
  if (!conn) {
    fail("connect", conn.error());
    return {};
  }
  auto& c = **conn;
  const std::string q = "BENCH.RT." + std::to_string(id);
  auto h = c.open({q, ""}, mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  if (!h) {
    fail("open " + q, h.error());
    return {};
  }
  mq::mqmd md;
  md.version = mq::MQMD_VERSION_2;
  md.persistence = a.persistent ? mq::MQPER_PERSISTENT : mq::MQPER_NOT_PERSISTENT;
  md.format = std::string(mq::MQFMT_STRING);
  bytes body(a.size, 'x');
  mqi::get_request req;
  req.options = mq::MQGMO_NO_WAIT | mq::MQGMO_NO_SYNCPOINT;
  req.match_options = mq::MQMO_NONE;
  std::vector<std::uint32_t> lat;
  lat.reserve(1 << 16);
  while (!stop) {
    const auto t = std::chrono::steady_clock::now();
    auto put = c.put(h->handle, md, body, mq::MQPMO_NO_SYNCPOINT);
    if (!put) {
      fail("put", put.error());
      return {};
    }
    auto got = c.get(h->handle, req);
    if (!got || got->data.size() != a.size) {
      if (!got) fail("get", got.error());
      return {};
    }
    lat.push_back(bench::micros_since(t));
  }
  (void)c.disconnect();
  return lat;
}

}  // namespace

int main(int argc, char** argv) {
  bool fsync = true;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-fsync") == 0)
      fsync = false;
    else
      rest.push_back(argv[i]);
  }
  auto a = bench::parse_roundtrip_args(static_cast<int>(rest.size()), rest.data(), usage);
  if (a.mode != "in-process" && a.mode != "bindings" && a.mode != "tcp") {
    std::fprintf(stderr, "%s\n", usage);
    return 2;
  }

  // A fresh queue manager in a temporary prefix, its runtime folder beside it.
  char tmpl[] = "/tmp/imsb-qmrt-XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::perror("mkdtemp");
    return 1;
  }
  const fs::path dir = tmpl;
  struct cleanup {
    fs::path p;
    ~cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup_dir{dir};
  setenv("IMSBRIDGE_RUNTIME_DIR", (dir / "run").c_str(), 1);
  const std::string qm_name = "BENCHQM";
  objects::exec_context ctx{"2026-11-30", "00.00.00", false};
  auto catalog = objects::new_queue_manager(qm_name, names::fs_profile::posix, "", "", ctx);
  if (!catalog) return fail("new_queue_manager", catalog.error());
  auto store = qmgr::queue_manager_store::create(dir / "prefix", *catalog);
  if (!store) return fail("create", store.error());
  auto lock = store->try_lock();
  if (!lock) return fail("lock", lock.error());
  qmgr::runtime_options opts;
  opts.log.fsync = fsync;
  auto qm = qmgr::queue_manager::start(std::move(*store), std::move(*lock), opts);
  if (!qm) return fail("start", qm.error());

  qmgr::principal admin;
  admin.user = "bench";
  admin.administrator = true;
  admin.appl_name = "qmgr_roundtrip";
  {
    auto c = (*qm)->connect(admin);
    if (!c) return fail("connect", c.error());
    std::string mqsc;
    for (int i = 0; i < a.connections; ++i)
      mqsc += "DEFINE QLOCAL(BENCH.RT." + std::to_string(i) + ") MAXDEPTH(100000)\n";
    // The TCP user is authenticated, not an administrator: it gets what the round trip needs.
    mqsc += "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('bench') AUTHADD(CONNECT)\n";
    mqsc += "SET AUTHREC PROFILE('BENCH.RT.**') OBJTYPE(QUEUE) PRINCIPAL('bench') AUTHADD(PUT,GET)\n";
    auto r = (*c)->mqsc(mqsc);
    if (!r) return fail("mqsc", r.error());
    if (r->exit_code != 0) {
      for (const auto& l : r->lines) std::fprintf(stderr, "%s\n", l.c_str());
      return 1;
    }
  }

  std::unique_ptr<qmgr::server> srv;
  std::uint16_t port = 0;
  if (a.mode != "in-process") {
    qmgr::server_options so;
    auto sock = qmgr::bindings_socket_path(dir / "prefix", qm_name);
    if (!sock) return fail("socket path", sock.error());
    so.bindings_socket = *sock;
    so.credential_file = dir / "credentials";
    auto s = qmgr::server::start(**qm, so);
    if (!s) return fail("server", s.error());
    srv = std::move(*s);
    if (a.mode == "tcp") {
      auto p = srv->start_listener("BENCH", "127.0.0.1", 0);
      if (!p) return fail("listener", p.error());
      port = *p;
      auto pw = qmgr::credentials::set_password(so.credential_file, "bench", "bench-password");
      if (!pw) return fail("password", pw.error());
    }
  }

  auto connect = [&]() -> result<std::unique_ptr<mqi::connection>> {
    if (a.mode == "in-process") return (*qm)->connect(admin);
    qmgr::connect_options co;
    co.target = qm_name;
    co.prefix = (dir / "prefix").string();
    co.appl_name = "qmgr_roundtrip";
    if (a.mode == "tcp") {
      co.mqserver = "BENCH.SVRCONN/TCP/127.0.0.1(" + std::to_string(port) + ")";
      co.user = "bench";
      co.password = "bench-password";
    }
    return qmgr::connect(co);
  };
  const std::string system = fsync ? "imsbridge" : "imsbridge-nofsync";
  const int rc = bench::run_roundtrips(
      system.c_str(), a, [&](int id, const std::atomic<bool>& stop) { return worker(id, stop, a, connect); });
  if (srv) srv->stop();
  return rc;
}
