#pragma once
// The hub's groups and members, and what each frame does to them (transport/README.md "The xcfhub
// protocol" [D]; the XCF semantics it copies [C: XCF-JOIN, XCF-LEAVE, XCF-STATES]).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "connection.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/transport/hub.hpp"
#include "imsb/xcf/frame.hpp"
#include "imsb/xcf/member.hpp"
#include "logger.hpp"

namespace imsb::transport::hub_detail {

class directory final : public connection_events {
 public:
  // `options` must be resolved (hub::impl) and outlive the directory.
  directory(const hub_options& options, const logger& log);

  void on_frame(connection& c, const xcf::frame::header& head, result<xcf::frame::payload>& body) override;
  void on_end(connection& c, end_reason why) override;

  std::vector<xcf::member_info> snapshot() const;  // every group, ordered by group then name
  void clear();                                    // the hub stops: every member is forgotten

 private:
  struct member_record {
    xcf::member_info info;
    bool lasting = false;
    // The connection that holds the member: set while active, and while quiesced until that
    // connection leaves or closes. Cleared in on_end, so it never dangles.
    connection* conn = nullptr;
  };
  using group_members = std::map<std::string, member_record>;  // by member name

  void join(connection& c, const xcf::frame::header& h, const xcf::frame::join_payload& p);
  // JOIN_RSP with a refusal (no token), logged (IMB3011W) at most once a second per connection.
  void refuse_join(connection& c, const xcf::frame::header& h, xcf::return_code code, const std::string& who,
                   const std::string& why, std::string_view id = msg::IMB3011W);
  void leave(connection& c, const xcf::frame::header& h);
  void quiesce(connection& c, const xcf::frame::header& h);
  void send(connection& c, const xcf::frame::header& h, xcf::frame::send_payload& p);
  void query(connection& c, const xcf::frame::header& h, const xcf::frame::query_payload& p);
  void set_user_state(connection& c, const xcf::frame::header& h,
                      const xcf::frame::set_user_state_payload& p);
  void remove(connection& c, const xcf::frame::header& h, const xcf::frame::remove_payload& p);

  // The record this connection holds (active or quiesced), or nullptr.
  member_record* held_by(connection& c);
  // EVENT `kind` about `about` to every active member of its group but `about` itself (README "Events").
  void notify(const std::string& group, const xcf::member_info& about, xcf::event_kind kind);
  // The member ends without LEAVE: failed (lasting) or not-defined; the others are told.
  void fail(connection& c, member_record& rec, end_reason why);
  // `target` of `group` is no longer active: what its senders had refused to it starts afresh
  // (membership::refused stays bounded by the members that are there).
  void forget_refusals(const std::string& group, const std::string& target);
  // Erases a member record (and its group when that is left empty).
  void erase_member(const std::string& group, const std::string& name);
  void answer(connection& c, xcf::frame::frame_type type, std::uint32_t corr, xcf::return_code code);
  xcf::member_token new_token();
  std::string describe(const xcf::member_info& m) const;  // "GROUP/MEMBER"

  const hub_options& options_;
  const logger& log_;
  std::map<std::string, group_members> groups_;
  std::size_t member_count_ = 0;  // records in every group: at most options_.max_members
  std::uint64_t token_counter_ = 0;
  std::uint32_t token_epoch_ = 0;
};

}  // namespace imsb::transport::hub_detail
