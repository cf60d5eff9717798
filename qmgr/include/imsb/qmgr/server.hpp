#pragma once
// The queue manager's doors: the bindings socket (a Unix socket for local programs; the OS user
// of the peer, from SO_PEERCRED, is the connecting user) and TCP listeners (LISTENER objects started with
// START LISTENER or CONTROL(QMGR), or runmqlsr; a password checked against the credential file, or a
// client certificate with TLS). Sockets are Asio's (transport::stream): each accepted connection reads a
// request frame (portable/include/imsb/mqi/client_protocol.hpp), calls the queue manager's in-process
// connection and writes the response [D]. A call whose last step is a log force (a persistent MQPUT or
// MQGET outside syncpoint, MQCMIT, MQBACK) is answered when the log calls back, holding no thread; any
// other call that waits hands the sockets to another runner thread, so an idle connection holds no thread
// and a waiting get holds one (docs/design/queue-manager.md "Server threads").
//
// A bad frame ends that connection (its unit of work backed out) with an IMB1xxx line in the error log;
// so does a peer that closes or breaks the connection. Nothing a peer sends can stop the server.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "imsb/core/result.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/qmgr/queue_manager.hpp"

namespace imsb::qmgr {

struct server_options {
  std::filesystem::path bindings_socket;  // bindings_socket_path(prefix, name)
  std::filesystem::path credential_file;  // <qmgr dir>/qmanager/credentials (credentials.hpp)
  tls_options tls;                        // for TCP listeners: server certificate, CA for client certs
  std::size_t max_connections = 1024;     // more: refused with MQRC_MAX_CONNS_LIMIT_REACHED (2025) [D]
  // Whether the daemon's own user and group mqm administer the queue manager when they come through the
  // bindings socket (principal::administrator). Tests set false to be an ordinary user (AUTHREC applies).
  // Over TCP nobody is an administrator implicitly, whatever the name: only AUTHREC grants [D].
  bool os_administrators = true;
  // A peer must finish its TLS handshake and send its connect frame within this time (one deadline for
  // both, whatever it drips), or it is closed (a connection that never speaks must not hold a connection
  // slot for ever) [D]. 0: no limit. Its connect frame's body may be 4 KiB at most.
  int login_timeout_ms = 30000;
  // At most this many connections may be between accept and login at once (inside max_connections); a
  // new one past it evicts the oldest, so that silent sockets cannot lock real users out [D].
  std::size_t max_login_pending = 64;
  // TCP keepalive on accepted sockets (seconds; 0 idle: off): a client host that vanishes frees its
  // connection, and its unit of work is backed out, after idle + interval * count [D].
  int keepalive_idle_s = 60;
  int keepalive_interval_s = 10;
  int keepalive_count = 3;
  // The io_contexts that serve the sessions, each with one serving runner thread (docs/design/
  // queue-manager.md "Server threads"). 0: four per core, at least 4, at most 16; at most 64.
  std::size_t session_contexts = 0;
};

class server {
 public:
  // Listens on the bindings socket (removing a stale socket file first; refusing with
  // std::errc::address_in_use when another live process answers on it). The queue manager must outlive
  // the server.
  static result<std::unique_ptr<server>> start(queue_manager& qm, server_options options);
  ~server();  // stop()

  // A TCP listener on 127.0.0.1/::1/any address given; port 0 picks one. Returns the port.
  result<std::uint16_t> start_listener(const std::string& name, const std::string& address,
                                       std::uint16_t port);
  result<done> stop_listener(const std::string& name);
  struct listener_info {
    std::string name;
    std::string address;
    std::uint16_t port = 0;
  };
  std::vector<listener_info> listeners() const;

  // Closes the socket and listeners and breaks every connection (their units of work backed out),
  // joining the server's threads. A connection inside an engine call (a get's wait) finishes that call first:
  // call queue_manager::quiesce() before, to end such waits at once.
  void stop();

 private:
  server();
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace imsb::qmgr
