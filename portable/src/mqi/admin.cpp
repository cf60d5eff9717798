#include "imsb/mqi/admin.hpp"

#include <map>
#include <utility>

#include "imsb/mq/codes.hpp"

namespace imsb::mqi {
namespace {

// An attribute as DISPLAY shows it, without its quotes and blanks.
std::string attr(const object_attributes& o, const char* keyword) {
  auto it = o.attributes.find(keyword);
  if (it == o.attributes.end()) return {};
  std::string v = it->second;
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') v = v.substr(1, v.size() - 2);
  const auto first = v.find_first_not_of(' ');
  if (first == std::string::npos) return {};
  return v.substr(first, v.find_last_not_of(' ') - first + 1);
}

// MQIA_Q_TYPE of a DISPLAY type word.
std::int32_t queue_type_of(const std::string& word) {
  if (word == "QALIAS") return mq::MQQT_ALIAS;
  if (word == "QREMOTE") return mq::MQQT_REMOTE;
  if (word == "QMODEL") return mq::MQQT_MODEL;
  return mq::MQQT_LOCAL;
}

// The PCF-shaped administration over a connection's DISPLAY and MQSC calls: the one place that reads
// MQSC keyword strings into PCF parameters.
class over_connection final : public administration {
 public:
  explicit over_connection(connection& c) : c_(c) {}

  result<std::vector<storage_class_attributes>> inquire_storage_classes(const std::string& generic) override {
    auto found = c_.inquire_objects("STGCLASS", generic);
    if (!found) return found.error();
    std::vector<storage_class_attributes> out;
    out.reserve(found->size());
    for (const auto& o : *found)
      out.push_back({o.name, attr(o, "XCFGNAME"), attr(o, "XCFMNAME"), attr(o, "PASSTKTA")});
    return out;
  }

  result<std::vector<queue_attributes>> inquire_queues(const std::string& generic,
                                                       std::int32_t queue_type) override {
    static const std::map<std::int32_t, const char*> words = {{mq::MQQT_LOCAL, "QLOCAL"},
                                                              {mq::MQQT_ALIAS, "QALIAS"},
                                                              {mq::MQQT_REMOTE, "QREMOTE"},
                                                              {mq::MQQT_MODEL, "QMODEL"},
                                                              {mq::MQQT_ALL, "QUEUE"}};
    auto word = words.find(queue_type);
    if (word == words.end())
      return decode_error{mq::make_mqrc(mq::MQRC_Q_TYPE_ERROR), "Inquire Queue", 0,
                          "QType " + std::to_string(queue_type) +
                              " is not MQQT_LOCAL, MQQT_ALIAS, MQQT_REMOTE, MQQT_MODEL or MQQT_ALL"};
    auto found = c_.inquire_objects(word->second, generic);
    if (!found) return found.error();
    std::vector<queue_attributes> out;
    out.reserve(found->size());
    for (const auto& o : *found) {
      queue_attributes q;
      q.name = o.name;
      q.type = queue_type_of(o.type);
      q.storage_class = attr(o, "STGCLASS");
      q.inhibit_get = attr(o, "GET") == "DISABLED" ? mq::MQQA_GET_INHIBITED : mq::MQQA_GET_ALLOWED;
      q.inhibit_put = attr(o, "PUT") == "DISABLED" ? mq::MQQA_PUT_INHIBITED : mq::MQQA_PUT_ALLOWED;
      out.push_back(std::move(q));
    }
    return out;
  }

  result<std::vector<object_attributes>> display(const std::string& type,
                                                 const std::string& generic) override {
    return c_.inquire_objects(type, generic);
  }

  result<mqsc_reply> mqsc(const std::string& script) override { return c_.mqsc(script); }

 private:
  connection& c_;
};

}  // namespace

std::unique_ptr<administration> administration_over(connection& c) {
  return std::make_unique<over_connection>(c);
}

}  // namespace imsb::mqi
