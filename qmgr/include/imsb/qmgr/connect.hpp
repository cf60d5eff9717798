#pragma once
// How a program reaches a queue manager, one call for mqput, mqget, imsreq and the bridge:
//
//   "local:QM"   in-process: the queue manager QM runs inside this program (queue_manager::start), still
//                serving its bindings socket and listeners and holding its lock, so a second strmqm is
//                refused (dspmq, which looks for a daemon's pid file, shows it "Ended normally"; endmqm
//                refuses it: docs/operator.md). The connection keeps it alive; the last one ends it.
//   "QM" / ""    bindings: the Unix socket of the running daemon of QM ("" = the default queue manager:
//                the only one of the prefix, or the one mqs.ini's DefaultQueueManager names);
//                the OS user is the connecting user (SO_PEERCRED). The daemon records its socket's path
//                in <qmgr dir>/qmanager/bindings (record_bindings_socket), so every user finds it
//                whatever their environment; the client then checks that the server's uid
//                (SO_PEERCRED) owns the queue manager's folder, else 2059 "socket not served by the
//                queue manager's owner" [D]. No password is sent over bindings.
//   MQSERVER=CHANNEL/TCP/host(port) in the environment (or options.mqserver): client over TCP, as IBM MQ
//                clients find their queue manager [C]; user and password (or a client certificate with
//                TLS) authenticate.
// Which one: "local:..." is always in-process; otherwise options.mqserver, else a non-empty MQSERVER in
// the environment, means client over TCP (as IBM's client library does); otherwise bindings. A program
// that must use bindings with MQSERVER set unsets it (`env -u MQSERVER mqput ...`); mqput/mqget take
// --mqserver SPEC to go over TCP for one command [D].
// Errors as MQCONN's: MQRC_Q_MGR_NOT_AVAILABLE (2059) when nothing answers (with the socket path or the
// address in the detail), MQRC_Q_MGR_NAME_ERROR (2058) for a name that is not the one that answers,
// MQRC_NOT_AUTHORIZED (2035) for a refused login, MQRC_HOST_NOT_AVAILABLE (2538) for an address that
// cannot be reached.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "imsb/core/result.hpp"
#include "imsb/mqi/connection.hpp"

namespace imsb::qmgr {

struct tls_options {
  bool enabled = false;
  std::string ca_file;    // to verify the server (and, on the server, client certificates)
  std::string cert_file;  // the client certificate (authenticates instead of a password)
  std::string key_file;
  // Server only: a client without a verified certificate is refused at the handshake (strmqm --ini's
  // TLS.RequireClientCert=yes); otherwise it may log in with a password [D]. Honoured by
  // make_tls_context (client_connection.cpp).
  bool require_client_cert = false;
};

struct connect_options {
  std::string target;                   // "local:QM", "QM" or "" (above)
  std::optional<std::string> prefix;    // --prefix (else IMSBRIDGE_PREFIX ...: store.hpp resolve_prefix)
  std::optional<std::string> mqserver;  // overrides the MQSERVER environment variable
  std::string user;                     // TCP only
  std::string password;                 // TCP only
  std::string appl_name;                // PutApplName
  tls_options tls;
};

result<std::unique_ptr<mqi::connection>> connect(const connect_options& options);

// Where the daemon puts the bindings socket of a queue manager: <runtime dir>/<16 hex digits of a hash
// of the prefix and the queue-manager name>.sock, where the runtime dir, chosen from the DAEMON's
// environment, is IMSBRIDGE_RUNTIME_DIR (made 0755 when missing), else $XDG_RUNTIME_DIR/imsbridge when
// $XDG_RUNTIME_DIR lets other users through, else /tmp/imsbridge-<uid> (made 0755). The folder must be
// a folder of the daemon's user that no other user can write (unless sticky), else
// std::errc::permission_denied — short whatever the prefix and a 48-character name [D] (a Unix socket
// path holds at most 107 bytes). Clients use it only when the queue manager records no path
// (record_bindings_socket), as a fallback.
result<std::filesystem::path> bindings_socket_path(const std::filesystem::path& prefix,
                                                   const std::string& qmgr_name);

// The daemon, once its server listens: makes the socket 0777 (every user may connect; authorization
// is SO_PEERCRED and AUTHREC) and writes its absolute path to <qmgr_dir>/qmanager/bindings (atomically),
// where clients of every user and environment read it [D].
result<done> record_bindings_socket(const std::filesystem::path& qmgr_dir,
                                    const std::filesystem::path& socket);

namespace detail {
// Tests: the uid connect() expects to serve a queue manager's socket, instead of the owner of its folder
// (std::nullopt: back to the owner).
void override_qmgr_owner_for_tests(std::optional<unsigned> uid);
}  // namespace detail

}  // namespace imsb::qmgr
