#pragma once
// The queue-manager connection: the MQI contract every backend keeps — what an application (mqput, mqget,
// imsreq, imsbench, the bridge) does with a queue manager, with the MQI's names and meaning (MQCONN, MQOPEN,
// MQPUT, MQPUT1, MQGET, MQINQ, MQCMIT, MQBACK, MQCLOSE, MQDISC). docs/design/layers.md: one interface, three
// backends — in-process (the embedded queue manager runs inside the calling program; qmgr/), client (the
// client protocol over a Unix socket or TCP; qmgr/) and MQI (IBM MQ, on z/OS; zos/).
// tests/mqi/conformance_test.cpp runs one checklist against every backend.
//
// Every call completes as the MQI's do, with a completion code and a reason (mqi::result below):
// MQCC_OK; MQCC_WARNING with a value and a reason (a message got truncated with
// MQGMO_ACCEPT_TRUNCATED_MSG: 2079); MQCC_FAILED with the MQRC IBM would give, carried in a
// decode_error (make_mqrc: code.value() is the reason code) whose `field` names the call ("MQPUT") and
// whose `detail` says what was wrong in words. A call that fails changes nothing (an MQPUT that fails
// puts nothing; an MQGET that fails removes nothing).
//
// Not thread-safe but for stop(), and MQCTL and MQDISC while consumption is started (callback() below):
// one connection is one thread's, as an MQI hconn is [I]. Connections to the same queue manager may be
// used from as many threads as there are connections.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqmd.hpp"

namespace imsb::mqi {

using imsb::done;
using hobj = std::int32_t;

// The MQRC of an error: its code's value when the code is of the mqrc category; MQRC_UNEXPECTED_ERROR
// (2195) for an error of any other category (a decoder's std::errc, an mqfb), never another category's
// number read as a reason.
std::int32_t reason_of(const decode_error& err) noexcept;
// The connection cannot be used again: broken (2009), disconnected (2018), the queue manager gone or
// ending (2059, 2161, 2162), the connection quiescing or stopped (2202, 2203). A program opens a new
// connection then.
bool is_connection_gone(std::int32_t reason) noexcept;
bool is_connection_gone(const decode_error& err) noexcept;

// What an MQI call gives back: the value (MQCC_OK, or MQCC_WARNING with its reason and words) or the
// error (MQCC_FAILED). An imsb::result besides, so that `if (!r) return r.error();` reads as elsewhere.
template <class T>
class [[nodiscard]] result : public imsb::result<T> {
 public:
  using imsb::result<T>::result;
  result(imsb::result<T> r) : imsb::result<T>(std::move(r)) {}  // NOLINT(implicit)

  // A value that comes with MQCC_WARNING and `reason` (e.g. MQRC_TRUNCATED_MSG_ACCEPTED).
  static result warning(T value, std::int32_t reason, std::string detail) {
    result r(std::move(value));
    r.warning_ = reason;
    r.warning_detail_ = std::move(detail);
    return r;
  }

  std::int32_t completion_code() const noexcept {
    if (!this->ok()) return mq::MQCC_FAILED;
    return warning_ == mq::MQRC_NONE ? mq::MQCC_OK : mq::MQCC_WARNING;
  }
  std::int32_t reason() const noexcept { return this->ok() ? warning_ : reason_of(this->error()); }
  // The words beside the reason: the error's detail, the warning's, or "".
  const std::string& detail() const noexcept { return this->ok() ? warning_detail_ : this->error().detail; }

 private:
  std::int32_t warning_ = mq::MQRC_NONE;
  std::string warning_detail_;
};

// MQGMO.MsgToken: identifies one message in the queue manager, unique for the queue manager's life (never
// reused, also across restarts), returned by every get and browse; MQMO_MATCH_MSG_TOKEN gets that message
// again. 16 bytes as IBM's MQBYTE16 [C] (IBM's MsgToken is unique per queue; ours per queue manager [D]:
// the bridge's in-flight records name a message by its token alone).
using message_token = std::array<std::uint8_t, 16>;

// MQOD: which object. Names as the application gives them (trailing blanks allowed, trimmed).
struct object_descriptor {
  std::string object_name;                // for MQOT_Q_MGR: blank or the queue manager's own name
  std::string object_qmgr_name;           // blank: the local queue manager
  std::int32_t object_type = mq::MQOT_Q;  // MQOT_Q, or MQOT_Q_MGR (MQOO_INQUIRE only) for MQINQ
};

struct open_result {
  hobj handle = 0;
  // MQOD ResolvedQName / ResolvedQMgrName [C: RESOLVE-LOCAL, RESOLVEDQMGR-DOC].
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
  // MQGMO_SET_SIGNAL's Signal1 (IBM MQ for z/OS's ECB, as a callback) [C] IBM MQ, "Signaling"
  // (https://www.ibm.com/docs/SSFKSJ_9.3.0/develop/q026430_.html): when no suitable message is there, the
  // get completes at once with MQCC_WARNING / MQRC_SIGNAL_REQUEST_ACCEPTED (2070) and no message, and
  // the queue manager later calls `signal` once — MQEC_MSG_ARRIVED when a message may have arrived (it
  // is not reserved: get it with another MQGET), MQEC_WAIT_CANCELED when the wait ended for another reason
  // (a definition changed, the queue manager or the connection stopping: reissue the get). One signal
  // per handle (a second: MQRC_SIGNAL_OUTSTANDING, 2069); MQCLOSE withdraws it without a call. It is
  // called on another thread, under the queue manager's lock: it must only post (wake a waiter), never
  // call the connection. Only WaitInterval MQWI_UNLIMITED [D] (else MQRC_WAIT_INTERVAL_ERROR); not with
  // MQGMO_WAIT (MQRC_OPTIONS_ERROR). Backends that cannot call back here refuse it with
  // MQRC_OPTIONS_ERROR, as IBM MQ does outside z/OS: today the socket backends; the in-process one takes it.
  std::function<void(std::int32_t)> signal;
};

struct message {
  mq::mqmd md;  // version 2; Expiry is what is left of it (tenths of a second)
  bytes data;
  std::size_t data_length = 0;  // the whole message's length (MQGET DataLength)
  message_token token{};
};

// MQINQ's answer: IntAttrs in the order the MQIA_* selectors came, CharAttrs in the order of the MQCA_*
// selectors, each blank-padded to its MQ length (IBM's CharAttrs is their concatenation; kept apart here,
// the C layer concatenates). A selector of another queue type than the one opened gives MQCC_WARNING with
// MQRC_SELECTOR_NOT_FOR_TYPE and the values MQIAV_NOT_APPLICABLE (-1) or blanks; one that no object of the
// type has fails with MQRC_SELECTOR_ERROR [C] IBM MQ, "MQINQ - Inquire object attributes"
// (https://ibm.com/docs/SSFKSJ_9.3.0/refdev/q101840_.html).
inline constexpr std::int32_t MQIAV_NOT_APPLICABLE = -1;
struct inquiry {
  std::vector<std::int32_t> int_attrs;
  std::vector<std::string> char_attrs;
};

// The queue attributes tests and tools ask most, by MQINQ (inquire_queue below).
struct queue_status {
  std::string name;
  std::int32_t type = mq::MQQT_LOCAL;  // MQQT_*
  std::int32_t current_depth = 0;      // local queues only
  std::int32_t open_input_count = 0;
  std::int32_t open_output_count = 0;
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

// MQCBC: what a callback is called with [C] IBM MQ, "MQCBC - Callback context" (CallType, Hobj, CompCode,
// Reason, State, DataLength).
struct callback_context {
  std::int32_t call_type = 0;   // MQCBCT_*
  hobj handle = mq::MQHO_NONE;  // the consumer's; MQHO_NONE for the event handler
  std::int32_t comp_code = mq::MQCC_OK;
  std::int32_t reason = mq::MQRC_NONE;
  std::int32_t state = mq::MQCS_NONE;  // MQCS_*: the consumer's after this call
  std::size_t data_length = 0;         // MQCBCT_MSG_*: the whole message's length
};

// MQSTS: what MQSTAT reports [C] IBM MQ, "MQSTS - Status reporting structure".
struct status_report {
  std::int32_t comp_code = mq::MQCC_OK;  // of the operation reported on
  std::int32_t reason = mq::MQRC_NONE;
  std::int32_t put_success_count = 0;  // MQSTAT_TYPE_ASYNC_ERROR: asynchronous puts since the last MQSTAT
  std::int32_t put_warning_count = 0;
  std::int32_t put_failure_count = 0;
  std::int32_t object_type = mq::MQOT_Q;
  std::string object_name;
  std::string object_qmgr_name;
};

class connection;
// MQCB_FUNCTION: `conn` is the connection that runs the callback (calls on it from inside the callback are
// allowed while consumption is started); `msg` the message for MQCBCT_MSG_REMOVED / MQCBCT_MSG_NOT_REMOVED,
// else null.
using callback_function =
    std::function<void(connection& conn, const message* msg, const callback_context& ctx)>;

// MQCBD: CallbackType (MQCBT_MESSAGE_CONSUMER or MQCBT_EVENT_HANDLER), Options (MQCBDO_REGISTER_CALL,
// START_CALL, STOP_CALL, DEREGISTER_CALL, EVENT_CALL, FAIL_IF_QUIESCING) and the function.
struct callback_descriptor {
  std::int32_t callback_type = mq::MQCBT_MESSAGE_CONSUMER;
  std::int32_t options = mq::MQCBDO_NONE;
  callback_function function;
};

class connection {
 public:
  virtual ~connection() = default;

  // The queue manager's name (MQINQ MQCA_Q_MGR_NAME gives it too).
  virtual const std::string& qmgr_name() const = 0;

  // MQOPEN with MQOO_* options. Errors as IBM's: MQRC_UNKNOWN_OBJECT_NAME, MQRC_OBJECT_IN_USE (exclusive
  // input held elsewhere), MQRC_NOT_AUTHORIZED, MQRC_OPTION_NOT_VALID_FOR_TYPE, MQRC_OBJECT_TYPE_ERROR,
  // resolution's codes ...
  virtual result<open_result> open(const object_descriptor& od, std::int32_t options) = 0;
  virtual result<done> close(hobj handle) = 0;

  // MQPUT with MQPMO_* options (MQPMO_SYNCPOINT puts in the unit of work).
  virtual result<put_result> put(hobj handle, const mq::mqmd& md, bytes_view data, std::int32_t options) = 0;
  // MQPUT1: open for output, put, close.
  virtual result<put_result> put1(const object_descriptor& od, const mq::mqmd& md, bytes_view data,
                                  std::int32_t options) = 0;
  // MQGET (or browse with MQGMO_BROWSE_FIRST / _NEXT on a handle opened with MQOO_BROWSE). No message:
  // MQRC_NO_MSG_AVAILABLE (2033) after the wait. A message longer than max_length got with
  // MQGMO_ACCEPT_TRUNCATED_MSG: MQCC_WARNING, MQRC_TRUNCATED_MSG_ACCEPTED (2079).
  virtual result<message> get(hobj handle, const get_request& request) = 0;

  // MQINQ by selector on a handle opened with MQOO_INQUIRE (a queue, or the queue manager: MQOT_Q_MGR).
  // At most 256 selectors (MQRC_SELECTOR_COUNT_ERROR); see `inquiry`.
  virtual result<inquiry> inquire(hobj handle, const std::vector<std::int32_t>& selectors) = 0;

  // MQSET by selector on a handle opened with MQOO_SET (else MQRC_NOT_OPEN_FOR_SET): int_attrs holds the
  // values of the MQIA_* selectors in their order (too few or too many: MQRC_INT_ATTR_COUNT_ERROR),
  // char_attrs those of the MQCA_* selectors (MQRC_CHAR_ATTR_LENGTH_ERROR for a count that differs or a
  // value longer than the attribute). The attributes MQSET may change [C] IBM MQ, "MQSET - Set object
  // attributes" (https://www.ibm.com/docs/SSFKSJ_9.4.0/refdev/q101900_.html): MQIA_INHIBIT_GET (local and
  // alias queues), MQIA_INHIBIT_PUT (every queue type), and for local queues MQIA_TRIGGER_CONTROL,
  // MQIA_TRIGGER_DEPTH, MQIA_TRIGGER_MSG_PRIORITY, MQIA_TRIGGER_TYPE, MQCA_TRIGGER_DATA; another
  // selector MQRC_SELECTOR_ERROR, one of another queue type MQRC_SELECTOR_NOT_FOR_TYPE, a value out of
  // range its reason (2020, 2075 ... 2078). A selector given twice: its last value counts [C]. All or
  // nothing: a call that fails sets nothing.
  virtual result<done> set(hobj handle, const std::vector<std::int32_t>& selectors,
                           const std::vector<std::int32_t>& int_attrs,
                           const std::vector<std::string>& char_attrs) = 0;

  // The transport of mqi::administration (admin.hpp), which is what programs administer through; the
  // message path never calls these two. DISPLAY-like listing: objects of an MQSC type word ("QLOCAL",
  // "QUEUE", "STGCLASS" ...) whose name matches `generic` ("*", "ABC*", or a name). Needs INQ authority on
  // each object listed. Administration (runmqsc, the bridge's discovery of storage classes), not the message
  // path.
  virtual result<std::vector<object_attributes>> inquire_objects(const std::string& type,
                                                                 const std::string& generic) = 0;
  // MQSC commands (runmqsc's text) applied to the running queue manager, which saves its catalog
  // itself: the catalog has one writer. Needs the queue manager's administrator (its owner, or CTRL on
  // the queue manager's AUTHREC).
  virtual result<mqsc_reply> mqsc(const std::string& script) = 0;

  virtual result<done> commit() = 0;
  virtual result<done> backout() = 0;
  // MQBEGIN: a unit of work coordinated by the queue manager with other resource managers. None take
  // part here: MQCC_WARNING MQRC_NO_EXTERNAL_PARTICIPANTS (2121), and the unit of work is the one the
  // syncpoint calls start anyway; MQRC_UOW_IN_PROGRESS (2128) when one is open; a client connection
  // MQRC_ENVIRONMENT_ERROR (2012), as IBM's MQ client [C] IBM MQ, "MQBEGIN - Begin unit of work".
  virtual result<done> begin() = 0;

  // MQSTAT: MQSTAT_TYPE_ASYNC_ERROR reports the asynchronous puts since the last MQSTAT — none here
  // (MQPMO_ASYNC_RESPONSE is refused as an unknown option [D]), so zero counts and MQRC_NONE;
  // MQSTAT_TYPE_RECONNECTION and _RECONNECTION_ERROR are for client connections only, others fail with
  // MQRC_ENVIRONMENT_ERROR [C] (a TCP client, which never reconnects here, reports MQCC_OK, MQRC_NONE);
  // another type MQRC_STAT_TYPE_ERROR.
  virtual result<status_report> stat(std::int32_t type) = 0;

  // Asynchronous consume, IBM's MQCB and MQCTL [C] (the topics cited in constants.hpp): a waiter is woken
  // by the message or the event it waits for, never by a timer. The bridge's MQI backend over IBM's own
  // library can use the same calls: IBM documents MQCTL MQOP_START as unsupported only in CICS on z/OS
  // and with IBM's non-threaded libraries, and MQCB_FUNCTION as unsupported in the IMS adapter [C] (the
  // MQCTL and MQCB_FUNCTION topics); a z/OS started task on the batch/RRS adapter, threaded under
  // Language Environment, is therefore expected to have them [I] — to be confirmed on z/OS.
  //
  // MQCB: `operation` MQOP_REGISTER (replaces a callback already on the handle), MQOP_DEREGISTER,
  // MQOP_SUSPEND, MQOP_RESUME (REGISTER may carry SUSPEND or RESUME). A consumer is one per handle, opened
  // for input (or browse, for MQGMO_BROWSE_* requests: MQRC_NOT_OPEN_FOR_INPUT / _BROWSE); it gets with
  // `request` (MQGMO_WAIT and the wait interval are the dispatcher's, not the consumer's: a consumer waits
  // until a message comes [D]). MQCBT_EVENT_HANDLER takes no handle and is called for what ends the whole
  // consumption (the connection stopped, broken, the queue manager ending: MQCBCT_EVENT_CALL with the
  // reason). MQRC_CALLBACK_TYPE_ERROR, MQRC_CBD_OPTIONS_ERROR, MQRC_CALLBACK_ROUTINE_ERROR (no function),
  // MQRC_CALLBACK_NOT_REGISTERED, MQRC_OPERATION_ERROR for an operation word that is not one of these.
  // A consumer whose get fails for a reason of its own (2016 GET_INHIBITED ...) is called with
  // MQCBCT_EVENT_CALL, that reason and MQCS_SUSPENDED_USER_ACTION, and is suspended until MQOP_RESUME [D].
  virtual result<done> callback(std::int32_t operation, const callback_descriptor& cbd, hobj handle,
                                const get_request& request) = 0;
  // MQCTL: MQOP_START (callbacks run on a thread of the connection's own; meanwhile the only calls other
  // threads may make are MQCTL STOP / SUSPEND and MQDISC, which stops first — any other fails with
  // MQRC_HCONN_ASYNC_ACTIVE 2500), MQOP_START_WAIT (callbacks run on the calling thread, which returns
  // when a callback stops or suspends the connection: MQCC_WARNING MQRC_CONNECTION_SUSPENDED for
  // suspend; MQRC_NO_CALLBACKS_ACTIVE when no consumer is registered and resumed), MQOP_STOP (from outside
  // a callback: returns once the callback running has returned, and the STOP_CALLs made; from inside:
  // takes effect when the callback returns), MQOP_SUSPEND, MQOP_RESUME. MQRC_OPERATION_NOT_ALLOWED for an
  // operation the state does not allow (IBM's list: RESUME or SUSPEND when stopped, START when suspended,
  // START_WAIT when started).
  virtual result<done> control(std::int32_t operation) = 0;
  // Ends, from any thread, the wait of a get on this connection, now or later: that get and every later
  // call but MQDISC fail with MQRC_CONNECTION_STOPPING (2203); the waiter is woken by the stop, not by a
  // timer. The unit of work is backed out: over a socket the stop ends the connection as a program that
  // ends without MQDISC does; in-process, the MQDISC that follows backs out instead of committing [D].
  // (IBM's MQI has no such call for a synchronous MQGET; for a consumer, MQCTL MQOP_STOP ends the wait.)
  // The one call of a connection that is thread-safe.
  virtual void stop() noexcept = 0;
  // MQDISC: commits an open unit of work, as IBM's MQDISC does on distributed platforms [I], and closes
  // every handle. A connection that breaks (the program dies, the socket closes) without MQDISC backs its
  // unit of work out. Later calls fail with MQRC_HCONN_ERROR (2018).
  virtual result<done> disconnect() = 0;
};

// One MQINQ of MQCA_Q_NAME, MQIA_Q_TYPE and, meaningful for a local queue only (0 for the others),
// MQIA_CURRENT_Q_DEPTH, MQIA_OPEN_INPUT_COUNT and MQIA_OPEN_OUTPUT_COUNT.
result<queue_status> inquire_queue(connection& c, hobj handle);

// The queue manager's attributes the bridge and the tools need, by MQOPEN (MQOT_Q_MGR, MQOO_INQUIRE),
// MQINQ and MQCLOSE.
struct qmgr_attributes {
  std::string name;
  std::int32_t ccsid = 0;     // MQIA_CODED_CHAR_SET_ID
  std::int32_t platform = 0;  // MQIA_PLATFORM
  std::string dead_letter_q;  // MQCA_DEAD_LETTER_Q_NAME, trimmed
  std::string def_xmit_q;     // MQCA_DEF_XMIT_Q_NAME, trimmed
  std::int32_t max_msg_length = 0;
};
result<qmgr_attributes> inquire_qmgr(connection& c);

// The encoding of the numbers in messages the queue manager's own programs make (MQENC_NATIVE there):
// MQENC_NATIVE_ZOS (785) for MQPL_ZOS; on every other platform the encoding of this program's machine (546
// little-endian, 273 big-endian), as a queue manager reached through bindings or in-process runs on the same
// machine [D] (the MQI has no Encoding selector: MQENC_NATIVE is the platform's, IBM's cmqc.h [C: CMQC-H]).
std::int32_t native_encoding_of(std::int32_t platform) noexcept;

}  // namespace imsb::mqi
