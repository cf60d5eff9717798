#pragma once
// The queue-manager connection: what an application (mqput, mqget, imsreq, the bridge) does with a queue
// manager, with the MQI's meaning (MQCONN, MQOPEN, MQPUT, MQPUT1, MQGET, MQINQ, MQCMIT, MQBACK, MQCLOSE,
// MQDISC). ARCHITECTURE.md: one interface, three backends — in-process (the embedded queue manager runs
// inside the calling program; qmgr/), client (the client protocol over a Unix socket or TCP; qmgr/) and
// MQI (IBM MQ, on z/OS; zos/).
//
// Errors carry the MQRC IBM would give (make_mqrc, code.value() is the reason code) in a decode_error
// whose `field` names the call ("MQPUT") and whose `detail` says what was wrong in words. A call that
// fails changes nothing (an MQPUT that fails puts nothing; an MQGET that fails removes nothing).
//
// Not thread-safe: one connection is one thread's, as an MQI hconn is [I]. Connections to the same queue
// manager may be used from as many threads as there are connections.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqmd.hpp"

namespace imsb::mqi {

using done = std::monostate;
using hobj = std::int32_t;

// MQGMO.MsgToken: identifies one message in the queue manager, unique for the queue manager's life (never
// reused, also across restarts), returned by every get and browse; MQMO_MATCH_MSG_TOKEN gets that message
// again. 16 bytes as IBM's MQBYTE16 [C] (IBM's MsgToken is unique per queue; ours per queue manager [D]:
// the bridge's in-flight records name a message by its token alone).
using message_token = std::array<std::uint8_t, 16>;

// MQOD: which object. Names as the application gives them (trailing blanks allowed, trimmed).
struct object_descriptor {
  std::string object_name;
  std::string object_qmgr_name;  // blank: the local queue manager
};

struct open_result {
  hobj handle = 0;
  // MQOD ResolvedQName / ResolvedQMgrName (spec/mq.md §7.2 step 4 [C]).
  std::string resolved_q;
  std::string resolved_qmgr;
};

// MQPUT / MQPUT1. `md` is the MQMD as given (any version): the queue manager fills in what the options and
// MQ's rules say (MsgId when MQMI_NONE or MQPMO_NEW_MSG_ID, context, PutDate/PutTime, priority and
// persistence "as queue definition", BackoutCount 0) and returns the MQMD as it was put.
struct put_result {
  mq::mqmd md;
  std::string resolved_q;
  std::string resolved_qmgr;
};

// MQGET / browse. Matching as MQMO_*: msg_id when MQMO_MATCH_MSG_ID and it is not MQMI_NONE; correl_id
// likewise; msg_token when MQMO_MATCH_MSG_TOKEN (the others are then ignored).
struct get_request {
  std::int32_t options = mq::MQGMO_NO_WAIT | mq::MQGMO_NO_SYNCPOINT;  // MQGMO_*
  std::int32_t wait_interval_ms = 0;                                  // with MQGMO_WAIT; MQWI_UNLIMITED
  std::int32_t match_options = mq::MQMO_MATCH_MSG_ID | mq::MQMO_MATCH_CORREL_ID;
  std::array<std::uint8_t, 24> msg_id{};
  std::array<std::uint8_t, 24> correl_id{};
  message_token msg_token{};
  // The application's buffer length; nullopt = any length. A longer message fails with
  // MQRC_TRUNCATED_MSG_FAILED (2080) and stays, unless MQGMO_ACCEPT_TRUNCATED_MSG (then it is got and
  // `data` holds the first max_length bytes; message::data_length says how long it was).
  std::optional<std::size_t> max_length;
};

struct message {
  mq::mqmd md;  // version 2; Expiry is what is left of it (tenths of a second)
  bytes data;
  std::size_t data_length = 0;  // the whole message's length (MQGET DataLength)
  message_token token{};
};

// MQINQ of a queue (the attributes the bridge and the tools need) and of the queue manager.
struct queue_status {
  std::string name;
  std::string type;  // "QLOCAL", "QALIAS", "QREMOTE", "QMODEL"
  std::int32_t current_depth = 0;
  std::int32_t open_input_count = 0;
  std::int32_t open_output_count = 0;
  // Every attribute of the definition, MQSC keyword → value as DISPLAY shows it (STGCLASS, MAXDEPTH,
  // MAXMSGL, GET, PUT, DEFPSIST, USAGE, BOTHRESH, BOQNAME ...).
  std::map<std::string, std::string> attributes;
};

// One object as DISPLAY shows it: type word ("QLOCAL", "STGCLASS" ...), name, attributes.
struct object_attributes {
  std::string type;
  std::string name;
  std::map<std::string, std::string> attributes;
};

struct mqsc_reply {
  std::vector<std::string> lines;  // what runmqsc prints for the commands (their echo and results)
  int exit_code = 0;               // runmqsc's: 0, or 10 when a command failed
};

class connection {
 public:
  virtual ~connection() = default;

  // The queue manager's name and its attributes (DEADQ, DEFXMITQ, CCSID, MAXMSGL ...).
  virtual const std::string& qmgr_name() const = 0;

  // MQOPEN with MQOO_* options. Errors as IBM's: MQRC_UNKNOWN_OBJECT_NAME, MQRC_OBJECT_IN_USE (exclusive
  // input held elsewhere), MQRC_NOT_AUTHORIZED, MQRC_OPTION_NOT_VALID_FOR_TYPE, resolution's codes ...
  virtual result<open_result> open(const object_descriptor& od, std::int32_t options) = 0;
  virtual result<done> close(hobj handle) = 0;

  // MQPUT with MQPMO_* options (MQPMO_SYNCPOINT puts in the unit of work).
  virtual result<put_result> put(hobj handle, const mq::mqmd& md, bytes_view data, std::int32_t options) = 0;
  // MQPUT1: open for output, put, close.
  virtual result<put_result> put1(const object_descriptor& od, const mq::mqmd& md, bytes_view data,
                                  std::int32_t options) = 0;
  // MQGET (or browse with MQGMO_BROWSE_FIRST / _NEXT on a handle opened with MQOO_BROWSE). No message:
  // MQRC_NO_MSG_AVAILABLE (2033) after the wait.
  virtual result<message> get(hobj handle, const get_request& request) = 0;

  virtual result<queue_status> inquire(hobj handle) = 0;
  // DISPLAY-like listing: objects of an MQSC type word ("QLOCAL", "QUEUE", "STGCLASS" ...) whose name
  // matches `generic` ("*", "ABC*", or a name). Needs INQ authority on each object listed.
  virtual result<std::vector<object_attributes>> inquire_objects(const std::string& type,
                                                                 const std::string& generic) = 0;
  // MQSC commands (runmqsc's text) applied to the running queue manager, which saves its catalog
  // itself: the catalog has one writer. Needs the queue manager's administrator (its owner, or CTRL on
  // the queue manager's AUTHREC).
  virtual result<mqsc_reply> mqsc(const std::string& script) = 0;

  virtual result<done> commit() = 0;
  virtual result<done> backout() = 0;
  // MQDISC: commits an open unit of work, as IBM's MQDISC does on distributed platforms [I], and closes
  // every handle. A connection that breaks (the program dies, the socket closes) without MQDISC backs its
  // unit of work out. Later calls fail with MQRC_HCONN_ERROR (2018).
  virtual result<done> disconnect() = 0;
};

}  // namespace imsb::mqi
