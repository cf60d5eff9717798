#pragma once
// The MQI contract's conformance suite (conformance_test.cpp): one queue manager per test, running
// in-process with its server (bindings socket and a TCP listener on 127.0.0.1, port 0), and the backends
// a test can reach it through. Every backend of connection.hpp gets a type here and runs every test:
// in-process, bindings, TCP client today; libmqm_r and the bridge's MQI backend when they come.

#include <sys/stat.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "imsb/mqi/connection.hpp"
#include "imsb/objects/mqsc_exec.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/qmgr/credentials.hpp"
#include "imsb/qmgr/queue_manager.hpp"
#include "imsb/qmgr/server.hpp"
#include "imsb/qmgr/store.hpp"
#include "process.hpp"

namespace imsb::conformance {

// The queue manager every test starts from: QM1 with its dead-letter queue, a few queues of each type.
inline constexpr const char* setup_mqsc =
    "DEFINE QLOCAL(Q1)\n"
    "DEFINE QLOCAL(Q2) MAXDEPTH(7) DESCR('second queue') BOTHRESH(3) BOQNAME(Q1)\n"
    "DEFINE QLOCAL(REPLY)\n"
    "DEFINE QLOCAL(DLQ)\n"
    "DEFINE QLOCAL(EXCL.Q) SHARE DEFSOPT(EXCL)\n"
    "DEFINE QLOCAL(NOGET.Q) GET(DISABLED)\n"
    "DEFINE QLOCAL(XMITQ.QM2) USAGE(XMITQ)\n"
    "DEFINE QALIAS(ALIAS.Q1) TARGET(Q1)\n"
    "DEFINE QREMOTE(REMOTE.Q) RNAME(TARGET.Q) RQMNAME(QM2) XMITQ(XMITQ.QM2)\n"
    "DEFINE QMODEL(MODEL.Q)\n"
    "ALTER QMGR DEADQ(DLQ) CCSID(1208)\n";

class environment {
 public:
  environment() {
    ::mkdir(tmp_.file("run").c_str(), 0700);
    if (const char* old = std::getenv("IMSBRIDGE_RUNTIME_DIR")) old_runtime_ = old;
    ::setenv("IMSBRIDGE_RUNTIME_DIR", tmp_.file("run").c_str(), 1);
    if (const char* old = std::getenv("MQSERVER")) old_mqserver_ = old;
    ::unsetenv("MQSERVER");
  }
  ~environment() {
    stop();
    restore("IMSBRIDGE_RUNTIME_DIR", old_runtime_);
    restore("MQSERVER", old_mqserver_);
  }
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;

  // "" when the queue manager, its server and its TCP listener run; else what failed.
  std::string start() {
    objects::exec_context ctx{"2026-12-01", "01.00.00", false};
    auto cat = objects::new_queue_manager("QM1", names::fs_profile::posix, "", "", ctx);
    if (!cat) return cat.error().to_string();
    auto out = objects::run_script(*cat, setup_mqsc, ctx);
    if (out.exit_code() != 0) return "the set-up MQSC failed";
    auto st = qmgr::queue_manager_store::create(tmp_.file("prefix"), *cat);
    if (!st) return st.error().to_string();
    store_.emplace(std::move(st).value());
    auto lock = store_->try_lock();
    if (!lock) return lock.error().to_string();
    qmgr::runtime_options o;
    o.log.fsync = false;
    o.error_log = tmp_.file("AMQERR01.LOG");
    auto qm = qmgr::queue_manager::start(*store_, std::move(lock).value(), o);
    if (!qm) return qm.error().to_string();
    qm_ = std::move(qm).value();
    qmgr::server_options so;
    auto sock = qmgr::bindings_socket_path(tmp_.file("prefix"), "QM1");
    if (!sock) return sock.error().to_string();
    so.bindings_socket = *sock;
    so.credential_file = tmp_.file("credentials");
    so.os_administrators = true;
    auto srv = qmgr::server::start(*qm_, so);
    if (!srv) return srv.error().to_string();
    srv_ = std::move(srv).value();
    if (auto p = qmgr::credentials::set_password(tmp_.file("credentials"), "app", "app secret"); !p)
      return p.error().to_string();
    auto admin = in_process();
    if (!admin) return admin.error().to_string();
    auto granted = (*admin)->mqsc(
        "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('app') AUTHADD(CONNECT,INQ)\n"
        "SET AUTHREC PROFILE('**') OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(ALLMQI)\n");
    if (!granted) return granted.error().to_string();
    if (granted->exit_code != 0) return "SET AUTHREC failed";
    (void)(*admin)->disconnect();
    auto port = srv_->start_listener("CONFORMANCE", "127.0.0.1", 0);
    if (!port) return port.error().to_string();
    port_ = *port;
    return {};
  }

  void stop() {
    srv_.reset();
    qm_.reset();
  }

  // The queue manager's counters (queue_manager::stats), for the tests' hooks (why a waiter woke).
  qmgr::queue_manager::stats statistics() const { return qm_->statistics(); }

  result<std::unique_ptr<mqi::connection>> in_process() {
    return qm_->connect(qmgr::principal{"conformance", {}, true, "conformance"});
  }
  result<std::unique_ptr<mqi::connection>> bindings() {
    qmgr::connect_options o;
    o.target = "QM1";
    o.prefix = tmp_.file("prefix");
    o.appl_name = "conformance";
    return qmgr::connect(o);
  }
  result<std::unique_ptr<mqi::connection>> tcp() {
    qmgr::connect_options o;
    o.target = "QM1";
    o.mqserver = "SYSTEM.DEF.SVRCONN/TCP/127.0.0.1(" + std::to_string(port_) + ")";
    o.user = "app";
    o.password = "app secret";
    o.appl_name = "conformance";
    return qmgr::connect(o);
  }

 private:
  static void restore(const char* name, const std::optional<std::string>& old) {
    if (old) {
      ::setenv(name, old->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }

  test::temp_dir tmp_;
  std::optional<std::string> old_runtime_, old_mqserver_;
  std::optional<qmgr::queue_manager_store> store_;
  std::unique_ptr<qmgr::queue_manager> qm_;
  std::unique_ptr<qmgr::server> srv_;
  std::uint16_t port_ = 0;
};

// The backends: each names itself and connects.
struct in_process {
  static result<std::unique_ptr<mqi::connection>> connect(environment& e) { return e.in_process(); }
};
struct bindings {
  static result<std::unique_ptr<mqi::connection>> connect(environment& e) { return e.bindings(); }
};
struct tcp_client {
  static result<std::unique_ptr<mqi::connection>> connect(environment& e) { return e.tcp(); }
};

}  // namespace imsb::conformance
