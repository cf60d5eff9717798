#pragma once
// Administration, apart from the MQI contract (connection.hpp): what runmqsc, the bridge's discovery of
// storage classes and, later, the command server ask of a queue manager — shaped as IBM's PCF commands,
// with typed answers named after their PCF parameters, not MQSC keyword strings [C] IBM MQ, "Inquire
// Storage Class" (MQCMD_INQUIRE_STG_CLASS 122) and "Inquire Queue" (MQCMD_INQUIRE_Q 13), PCF commands
// and responses (https://www.ibm.com/docs/SSFKSJ_9.4.0/refadmin/q086870_.html). A program that
// administers goes through this interface; the message path (the bridge's workers, imsbench, mqput,
// mqget) never does.
//
// Over this project's queue manager the interface is carried by a connection's administration calls
// (administration_over below): the transport until the command server ([Admin part 3]) answers PCF on
// SYSTEM.ADMIN.COMMAND.QUEUE, which is what an IBM queue manager — and so the bridge's MQI backend —
// offers [D].

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "imsb/mq/constants.hpp"
#include "imsb/mqi/connection.hpp"

namespace imsb::mqi {

// Inquire Storage Class: one storage class [C] the Inquire Storage Class response parameters.
struct storage_class_attributes {
  std::string name;              // MQCA_STORAGE_CLASS
  std::string xcf_group_name;    // MQCA_XCF_GROUP_NAME: "" unless the class names an IMS (the bridge)
  std::string xcf_member_name;   // MQCA_XCF_MEMBER_NAME
  std::string pass_ticket_appl;  // MQCA_PASS_TICKET_APPL
};

// Inquire Queue: the attributes of one queue that its users here need [C] the Inquire Queue response.
struct queue_attributes {
  std::string name;                                 // MQCA_Q_NAME
  std::int32_t type = mq::MQQT_LOCAL;               // MQIA_Q_TYPE
  std::string storage_class;                        // MQCA_STORAGE_CLASS (local and model queues)
  std::int32_t inhibit_get = mq::MQQA_GET_ALLOWED;  // MQIA_INHIBIT_GET (not for remote queues)
  std::int32_t inhibit_put = mq::MQQA_PUT_ALLOWED;  // MQIA_INHIBIT_PUT
};

class administration {
 public:
  virtual ~administration() = default;

  // Inquire Storage Class with a generic name ("*", "ABC*", or a name).
  virtual result<std::vector<storage_class_attributes>> inquire_storage_classes(
      const std::string& generic) = 0;
  // Inquire Queue with a generic name and a QType: MQQT_LOCAL, MQQT_ALIAS, MQQT_REMOTE, MQQT_MODEL, or
  // MQQT_ALL (every type); another type fails with MQRC_Q_TYPE_ERROR (2057).
  virtual result<std::vector<queue_attributes>> inquire_queues(const std::string& generic,
                                                               std::int32_t queue_type) = 0;
  // DISPLAY as runmqsc shows it: the objects of an MQSC type word ("QLOCAL", "STGCLASS" ...) with every
  // attribute by keyword — for the programs that print them.
  virtual result<std::vector<object_attributes>> display(const std::string& type,
                                                         const std::string& generic) = 0;
  // MQSC commands (runmqsc's text), applied and saved by the queue manager.
  virtual result<mqsc_reply> mqsc(const std::string& script) = 0;
};

// The administration of the queue manager `c` is connected to, carried by `c` (which must outlive it).
std::unique_ptr<administration> administration_over(connection& c);

}  // namespace imsb::mqi
