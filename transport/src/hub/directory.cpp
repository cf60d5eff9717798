#include "directory.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "imsb/core/messages.hpp"

namespace imsb::transport::hub_detail {

namespace frame = xcf::frame;
using frame::frame_type;
using xcf::event_kind;
using xcf::member_state;
namespace codes = xcf::codes;

namespace {

std::string token_hex(const xcf::member_token& t) { return to_hex(bytes_view(t.data(), t.size())); }

// "4/08": rc, then the reason code as z/OS prints it, in hex.
std::string code_text(xcf::return_code code) {
  const std::uint8_t rsn[4] = {static_cast<std::uint8_t>(code.rsn >> 24),
                               static_cast<std::uint8_t>(code.rsn >> 16),
                               static_cast<std::uint8_t>(code.rsn >> 8), static_cast<std::uint8_t>(code.rsn)};
  const std::size_t skip = code.rsn > 0xFFFFFF ? 0 : code.rsn > 0xFFFF ? 1 : code.rsn > 0xFF ? 2 : 3;
  return std::to_string(code.rc) + "/" + to_hex(bytes_view(rsn + skip, 4 - skip));
}

// Frames only the hub sends: a client that sends one does not speak the protocol.
bool hub_only(frame_type t) {
  switch (t) {
    case frame_type::join_rsp:
    case frame_type::leave_rsp:
    case frame_type::quiesce_rsp:
    case frame_type::send_rsp:
    case frame_type::query_rsp:
    case frame_type::set_user_state_rsp:
    case frame_type::remove_rsp:
    case frame_type::deliver:
    case frame_type::event:
    case frame_type::error:
      return true;
    default:
      return false;
  }
}

}  // namespace

directory::directory(const hub_options& options, const logger& log) : options_(options), log_(log) {
  // Tokens are unique per join, and differ between hub runs too: the high half is the start time.
  token_epoch_ = static_cast<std::uint32_t>(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

xcf::member_token directory::new_token() {
  const std::uint64_t value = (std::uint64_t{token_epoch_} << 32) | (++token_counter_ & 0xFFFFFFFFu);
  xcf::member_token t{};
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::uint8_t>(value >> (56 - 8 * i));
  return t;
}

std::string directory::describe(const xcf::member_info& m) const { return m.group + "/" + m.name; }

directory::member_record* directory::held_by(connection& c) {
  if (c.member.st == membership::state::none) return nullptr;
  auto g = groups_.find(c.member.group);
  if (g == groups_.end()) return nullptr;
  auto m = g->second.find(c.member.name);
  if (m == g->second.end() || m->second.conn != &c) return nullptr;
  return &m->second;
}

void directory::answer(connection& c, frame_type type, std::uint32_t corr, xcf::return_code code) {
  c.send(type, 0, corr, frame::rc_payload{code});
}

void directory::notify(const std::string& group, const xcf::member_info& about, event_kind kind) {
  auto g = groups_.find(group);
  if (g == groups_.end()) return;
  const frame::event_payload ev{kind, about};
  for (auto& [name, rec] : g->second) {
    if (name == about.name || rec.info.state != member_state::active || rec.conn == nullptr) continue;
    rec.conn->send(frame_type::event, 0, 0, ev);
  }
}

void directory::on_frame(connection& c, frame::decoded& f) {
  const frame_type type = f.head.type;
  const std::uint32_t corr = f.head.corr;
  const auto st = c.member.st;
  const std::string type_name(frame::to_string(type));

  if (hub_only(type)) {
    c.protocol_error(codes::protocol_error, "a client may not send " + type_name);
    return;
  }
  // Frames allowed in every state: the heartbeat and the read-only query.
  switch (type) {
    case frame_type::ping:
      c.send(frame_type::pong, 0, corr, f.body);
      return;
    case frame_type::pong:
      return;  // liveness was noted when the bytes arrived
    case frame_type::query:
      query(c, f.head, std::get<frame::query_payload>(f.body));
      return;
    default:
      break;
  }
  if (st == membership::state::none) {
    // README "Connections": before JOIN (and after LEAVE) only JOIN, QUERY and PING.
    if (type != frame_type::join) {
      c.protocol_error(codes::protocol_error, type_name + " before JOIN");
      return;
    }
    join(c, f.head, std::get<frame::join_payload>(f.body));
    return;
  }
  if (type == frame_type::join) {
    c.protocol_error(codes::protocol_error, "JOIN on a connection that already carries member " +
                                                c.member.group + "/" + c.member.name);
    return;
  }
  if (st == membership::state::quiesced && type != frame_type::leave) {
    // README "Quiesce": the connection may only LEAVE or close. Requests are answered "not active"
    // (8/4; QUIESCE again 8/0C) rather than cut off, so that a client backend never mistakes its own
    // quiesce for a lost link and re-joins [D].
    const xcf::return_code code = type == frame_type::quiesce ? codes::already_quiesced : codes::not_active;
    const frame_type rsp = type == frame_type::send             ? frame_type::send_rsp
                           : type == frame_type::quiesce        ? frame_type::quiesce_rsp
                           : type == frame_type::set_user_state ? frame_type::set_user_state_rsp
                                                                : frame_type::remove_rsp;
    answer(c, rsp, corr, code);
    return;
  }
  switch (type) {
    case frame_type::leave:
      leave(c, f.head);
      return;
    case frame_type::quiesce:
      quiesce(c, f.head);
      return;
    case frame_type::send:
      send(c, f.head, std::get<frame::send_payload>(f.body));
      return;
    case frame_type::set_user_state:
      set_user_state(c, f.head, std::get<frame::set_user_state_payload>(f.body));
      return;
    case frame_type::remove:
      remove(c, f.head, std::get<frame::remove_payload>(f.body));
      return;
    default:
      c.protocol_error(codes::protocol_error, "unexpected " + type_name);
      return;
  }
}

void directory::join(connection& c, const frame::header& h, const frame::join_payload& p) {
  const std::string who = p.group + "/" + p.member;
  auto refuse = [&](xcf::return_code code, const std::string& why) {
    log_.write(log_level::warning, msg::IMB3011W,
               who + " from " + c.peer() + " refused " + code_text(code) + ": " + why);
    frame::join_rsp_payload rsp;
    rsp.code = code;
    rsp.max_payload = options_.max_message;
    rsp.heartbeat_ms = static_cast<std::uint32_t>(options_.heartbeat.count());
    c.send(frame_type::join_rsp, 0, h.corr, rsp);
  };
  // The codec has already checked both names against spec §4.2 [C] (a bad one is 8/14 in ERROR).
  const auto allowed = options_.allow.find(p.group);
  if (allowed != options_.allow.end() && allowed->second.count(p.member) == 0) {
    refuse(codes::not_authorized, "not on the allow-list of group " + p.group);  // [D] RACF stand-in
    return;
  }
  auto& members = groups_[p.group];
  auto existing = members.find(p.member);
  member_state previous = member_state::not_defined;
  if (existing != members.end()) {
    previous = existing->second.info.state;
    if (previous == member_state::active) {
      refuse(codes::already_active, "a member of that name is active");  // [D] IXCCREAT's 8/8
      return;
    }
  }
  const bool others_active = std::any_of(members.begin(), members.end(), [&](const auto& kv) {
    return kv.first != p.member && kv.second.info.state == member_state::active;
  });
  // spec §4.3 [C]: 4/8 re-join of a failed member, 4/0C of a quiesced one, 4/4 first active member.
  xcf::return_code code = codes::ok;
  if (previous == member_state::failed) {
    code = codes::was_failed;
  } else if (previous == member_state::quiesced) {
    code = codes::was_quiesced;
  } else if (!others_active) {
    code = codes::first_active;
  }
  member_record& rec = members[p.member];
  rec.info.group = p.group;
  rec.info.name = p.member;
  rec.info.token = new_token();  // a re-join gets a new token (spec §4.3 [C] 4/8)
  rec.info.state = member_state::active;
  rec.info.ustate = p.ustate;
  rec.info.memdata = p.memdata;
  rec.info.system = options_.system_name;
  rec.lasting = p.lasting;
  rec.conn = &c;
  c.member.st = membership::state::active;
  c.member.group = p.group;
  c.member.name = p.member;
  c.member.refused.clear();

  frame::join_rsp_payload rsp;
  rsp.code = code;
  rsp.token = rec.info.token;
  rsp.max_payload = options_.max_message;
  rsp.heartbeat_ms = static_cast<std::uint32_t>(options_.heartbeat.count());
  for (const auto& kv : members) rsp.members.push_back(kv.second.info);
  c.send(frame_type::join_rsp, 0, h.corr, rsp);
  log_.write(log_level::info, msg::IMB3005I,
             who + " token " + token_hex(rec.info.token) + " rc " + code_text(code) +
                 (p.lasting ? " lasting" : "") + " from " + c.peer());
  notify(p.group, rec.info, event_kind::active);
}

void directory::leave(connection& c, const frame::header& h) {
  member_record* rec = held_by(c);
  const auto was = c.member.st;
  const std::string group = c.member.group;
  c.member = membership{};
  if (rec == nullptr || was == membership::state::quiesced) {
    // A quiesced member stays quiesced (README "Quiesce"); one removed meanwhile is simply gone.
    if (rec != nullptr) rec->conn = nullptr;
    answer(c, frame_type::leave_rsp, h.corr, codes::ok);
    return;
  }
  // spec §4.3 [C] IXCLEAVE: what it sent is still delivered (already queued to the targets), what was
  // sent to it is discarded.
  const std::size_t dropped = c.discard_deliveries();
  xcf::member_info info = rec->info;
  info.state = member_state::not_defined;
  groups_[group].erase(info.name);
  if (groups_[group].empty()) groups_.erase(group);
  answer(c, frame_type::leave_rsp, h.corr, codes::ok);
  log_.write(log_level::info, msg::IMB3006I,
             describe(info) + " from " + c.peer() + "; " + std::to_string(dropped) +
                 " undelivered messages to it discarded");
  notify(group, info, event_kind::left);
}

void directory::quiesce(connection& c, const frame::header& h) {
  member_record* rec = held_by(c);
  if (rec == nullptr) {
    answer(c, frame_type::quiesce_rsp, h.corr, codes::not_active);
    return;
  }
  rec->info.state = member_state::quiesced;
  c.member.st = membership::state::quiesced;
  const std::size_t dropped = c.discard_deliveries();  // it receives no more messages
  answer(c, frame_type::quiesce_rsp, h.corr, codes::ok);
  log_.write(log_level::info, msg::IMB3009I,
             describe(rec->info) + " from " + c.peer() + "; " + std::to_string(dropped) +
                 " undelivered messages to it discarded");
  notify(rec->info.group, rec->info, event_kind::quiesced);
}

void directory::send(connection& c, const frame::header& h, frame::send_payload& p) {
  const bool ack = (h.flags & frame::flags::ack) != 0;
  auto refuse = [&](xcf::return_code code) { answer(c, frame_type::send_rsp, h.corr, code); };
  member_record* self = held_by(c);
  if (self == nullptr) {
    refuse(codes::not_active);
    return;
  }
  auto& members = groups_[c.member.group];
  member_record* target = nullptr;
  if (!p.target_name.empty()) {
    auto it = members.find(p.target_name);
    if (it != members.end()) target = &it->second;
  } else {
    for (auto& kv : members) {
      if (kv.second.info.token == p.target_token) target = &kv.second;
    }
  }
  // spec §4.5 [R]/[D]: only an active member receives messages.
  if (target == nullptr || target->info.state != member_state::active || target->conn == nullptr) {
    refuse(codes::not_active);
    return;
  }
  // README "Send" [D]: a refused stream stays refused until a SEND with resume, so nothing overtakes.
  const std::pair<std::string, std::uint16_t> stream_key{target->info.name, p.stream};
  if (c.member.refused.count(stream_key) != 0) {
    if ((h.flags & frame::flags::resume) == 0) {
      refuse(codes::resource_shortage);
      return;
    }
    c.member.refused.erase(stream_key);
  }
  const std::size_t frame_size = frame::header_size + 58 + p.data.size();  // DELIVER = SEND's size
  if (target->conn->queued_bytes() + frame_size > options_.target_buffer) {
    c.member.refused.insert(stream_key);
    log_.write(log_level::warning, msg::IMB3014W,
               describe(self->info) + " to " + target->info.name + " stream " + std::to_string(p.stream) +
                   ": " + std::to_string(target->conn->queued_bytes()) + " bytes queued, limit " +
                   std::to_string(options_.target_buffer) + "; refused 12/00 until the sender resumes");
    refuse(codes::resource_shortage);
    return;
  }
  frame::deliver_payload d;
  d.source_name = self->info.name;
  d.source_token = self->info.token;
  d.stream = p.stream;
  d.control = p.control;
  d.data = std::move(p.data);
  target->conn->send(frame_type::deliver, h.flags & frame::flags::ordered, 0, d, connection::kind::deliver);
  if (ack) answer(c, frame_type::send_rsp, h.corr, codes::ok);
}

void directory::query(connection& c, const frame::header& h, const frame::query_payload& p) {
  frame::query_rsp_payload rsp;
  rsp.code = codes::ok;
  for (const auto& [group, members] : groups_) {
    if (!p.group.empty() && group != p.group) continue;
    for (const auto& [name, rec] : members) {
      if (!p.member.empty() && name != p.member) continue;
      rsp.members.push_back(rec.info);
    }
  }
  if (!p.member.empty() && rsp.members.empty()) rsp.code = codes::not_found;
  c.send(frame_type::query_rsp, 0, h.corr, rsp);
}

void directory::set_user_state(connection& c, const frame::header& h,
                               const frame::set_user_state_payload& p) {
  member_record* rec = held_by(c);
  if (rec == nullptr) {
    answer(c, frame_type::set_user_state_rsp, h.corr, codes::not_active);
    return;
  }
  rec->info.ustate = p.ustate;
  answer(c, frame_type::set_user_state_rsp, h.corr, codes::ok);
  log_.write(log_level::debug, msg::IMB3015I,
             describe(rec->info) + " user state " + to_hex(bytes_view(p.ustate.data(), p.ustate.size())));
  notify(rec->info.group, rec->info, event_kind::user_state);  // spec §4.3 [C] IXCSETUS
}

void directory::remove(connection& c, const frame::header& h, const frame::remove_payload& p) {
  member_record* self = held_by(c);
  if (self == nullptr) {
    answer(c, frame_type::remove_rsp, h.corr, codes::not_active);
    return;
  }
  const std::string group = c.member.group;
  auto& members = groups_[group];
  auto it = members.find(p.member);
  if (it == members.end()) {
    answer(c, frame_type::remove_rsp, h.corr, codes::not_found);
    return;
  }
  // spec §4.3 [C]: IXCDELET takes a failed or quiesced (or created) member to not-defined.
  if (it->second.info.state == member_state::active) {
    answer(c, frame_type::remove_rsp, h.corr, codes::already_active);
    return;
  }
  xcf::member_info info = it->second.info;
  info.state = member_state::not_defined;
  // A quiesced member's connection, if still open, keeps its membership view; held_by() no longer
  // finds the record, so its LEAVE is a plain 0/0.
  members.erase(it);
  answer(c, frame_type::remove_rsp, h.corr, codes::ok);
  log_.write(log_level::info, msg::IMB3010I, describe(info) + " by " + c.member.name + " from " + c.peer());
  // The event is about the removed member: every active member hears it, the remover included.
  const frame::event_payload ev{event_kind::removed, info};
  for (auto& kv : members) {
    if (kv.second.info.state == member_state::active && kv.second.conn != nullptr) {
      kv.second.conn->send(frame_type::event, 0, 0, ev);
    }
  }
}

void directory::fail(connection& c, member_record& rec, end_reason why) {
  c.discard_deliveries();  // README "Failure": messages queued to it are discarded
  const std::string group = rec.info.group;
  if (why == end_reason::heartbeat) notify(group, rec.info, event_kind::status_missing);  // spec §4.6 [C]
  xcf::member_info info = rec.info;
  // spec §4.3 [C]: failed only with LASTING=YES; otherwise termination means not-defined.
  info.state = rec.lasting ? member_state::failed : member_state::not_defined;
  if (rec.lasting) {
    rec.info.state = member_state::failed;
    rec.conn = nullptr;
  } else {
    groups_[group].erase(info.name);
    if (groups_[group].empty()) groups_.erase(group);
  }
  log_.write(log_level::warning, msg::IMB3007W,
             describe(info) + " from " + c.peer() + ": " + std::string(to_string(why)) + "; now " +
                 std::string(xcf::to_string(info.state)));
  notify(group, info, event_kind::failed);
}

void directory::on_end(connection& c, end_reason why) {
  member_record* rec = held_by(c);
  const auto st = c.member.st;
  c.member = membership{};
  if (rec == nullptr) return;
  if (why == end_reason::stopped || st == membership::state::quiesced) {
    // A quiesced member stays quiesced when its connection goes (README "Quiesce").
    rec->conn = nullptr;
    return;
  }
  fail(c, *rec, why);
}

void directory::clear() { groups_.clear(); }

std::vector<xcf::member_info> directory::snapshot() const {
  std::vector<xcf::member_info> out;
  for (const auto& [group, members] : groups_) {
    for (const auto& [name, rec] : members) out.push_back(rec.info);
  }
  return out;
}

}  // namespace imsb::transport::hub_detail
