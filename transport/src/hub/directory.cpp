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

// README "Send" [D]: (target, stream) pairs one connection may have refused and not yet resumed.
constexpr std::size_t max_refused_streams = 4096;

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
    rec.conn->send(frame_type::event, 0, 0, ev, connection::kind::event);
  }
}

void directory::on_frame(connection& c, const frame::header& head, result<frame::payload>& body) {
  const frame_type type = head.type;
  const std::uint32_t corr = head.corr;
  const auto st = c.member.st;
  const std::string type_name(frame::to_string(type));

  if (hub_only(type)) {
    c.protocol_error(codes::protocol_error, "a client may not send " + type_name);
    return;
  }
  // A payload that does not decode: names that break the rules are answered where the README says so
  // (JOIN 8/14, SEND 8/14; "Join" [D]) and the connection goes on; anything else is ERROR and close.
  auto undecodable = [&]() {
    const decode_error& err = body.error();
    if (err.code == std::errc::invalid_argument) {
      if (type == frame_type::join) {
        refuse_join(c, head, codes::bad_name, "JOIN", "a name breaks the XCF rules: " + err.to_string());
        return;
      }
      if (type == frame_type::send && st == membership::state::active) {
        answer(c, frame_type::send_rsp, corr, codes::bad_name);
        return;
      }
    }
    c.protocol_error(err.code == std::errc::invalid_argument ? codes::bad_name : codes::protocol_error,
                     err.to_string());
  };
  // Frames allowed in every state: the heartbeat and the read-only query.
  switch (type) {
    case frame_type::ping:
    case frame_type::pong:
    case frame_type::query:
      if (!body) {
        undecodable();
      } else if (type == frame_type::ping) {
        c.send(frame_type::pong, 0, corr, *body);  // in order with the other answers: clients fence on it
      } else if (type == frame_type::query) {
        query(c, head, std::get<frame::query_payload>(*body));
      }  // PONG: liveness was noted when the frame arrived
      return;
    default:
      break;
  }
  if (st == membership::state::none) {
    // README "Connections": before JOIN (and after LEAVE) only JOIN, QUERY and PING.
    if (type != frame_type::join) {
      c.protocol_error(codes::protocol_error, type_name + " before JOIN");
    } else if (!body) {
      undecodable();
    } else {
      join(c, head, std::get<frame::join_payload>(*body));
    }
    return;
  }
  if (type == frame_type::join) {
    c.protocol_error(codes::protocol_error, "JOIN on a connection that already carries member " +
                                                c.member.group + "/" + c.member.name);
    return;
  }
  const bool bad_target =
      !body && body.error().code == std::errc::invalid_argument && type == frame_type::send;
  if (!body && !bad_target) {
    undecodable();
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
  if (bad_target) {
    undecodable();
    return;
  }
  switch (type) {
    case frame_type::leave:
      leave(c, head);
      return;
    case frame_type::quiesce:
      quiesce(c, head);
      return;
    case frame_type::send:
      send(c, head, std::get<frame::send_payload>(*body));
      return;
    case frame_type::set_user_state:
      set_user_state(c, head, std::get<frame::set_user_state_payload>(*body));
      return;
    case frame_type::remove:
      remove(c, head, std::get<frame::remove_payload>(*body));
      return;
    default:
      c.protocol_error(codes::protocol_error, "unexpected " + type_name);
      return;
  }
}

void directory::refuse_join(connection& c, const frame::header& h, xcf::return_code code,
                            const std::string& who, const std::string& why, std::string_view id) {
  // A client that retries a refused JOIN in a loop must not flood the console (IMB3011W).
  if (c.join_refusals.allow(connection::clock::now())) {
    const std::size_t held = c.join_refusals.take_held_back();
    log_.write(log_level::warning, id,
               who + " from " + c.peer() + " refused " + code_text(code) + ": " + why +
                   (held == 0 ? "" : " (" + std::to_string(held) + " earlier refusals not shown)"));
  }
  frame::join_rsp_payload rsp;
  rsp.code = code;
  rsp.max_payload = options_.max_message;
  rsp.heartbeat_ms = static_cast<std::uint32_t>(options_.heartbeat.count());
  c.send(frame_type::join_rsp, 0, h.corr, rsp);
}

void directory::join(connection& c, const frame::header& h, const frame::join_payload& p) {
  const std::string who = p.group + "/" + p.member;
  const auto allowed = options_.allow.find(p.group);
  if (allowed != options_.allow.end() && allowed->second.count(p.member) == 0) {
    refuse_join(c, h, codes::not_authorized, who, "not on the allow-list of group " + p.group);  // RACF [D]
    return;
  }
  member_state previous = member_state::not_defined;
  bool others_active = false;
  if (auto g = groups_.find(p.group); g != groups_.end()) {
    if (auto existing = g->second.find(p.member); existing != g->second.end()) {
      previous = existing->second.info.state;
    }
    others_active = std::any_of(g->second.begin(), g->second.end(), [&](const auto& kv) {
      return kv.first != p.member && kv.second.info.state == member_state::active;
    });
  }
  if (previous == member_state::active) {
    refuse_join(c, h, codes::already_active, who, "a member of that name is active");  // [D] IXCCREAT's 8/8
    return;
  }
  // README "Join" [D]: every record (active, quiesced, failed) counts, so lasting members that fail
  // and never come back cannot grow the hub without bound either.
  const bool new_record = previous == member_state::not_defined;
  if (new_record && member_count_ >= options_.max_members) {
    refuse_join(c, h, codes::resource_shortage, who,
                "the hub holds --max-members " + std::to_string(options_.max_members) + " members",
                msg::IMB3029W);
    return;
  }
  // [C: XCF-JOIN]: 4/8 re-join of a failed member, 4/0C of a quiesced one, 4/4 first active member.
  xcf::return_code code = codes::ok;
  if (previous == member_state::failed) {
    code = codes::was_failed;
  } else if (previous == member_state::quiesced) {
    code = codes::was_quiesced;
  } else if (!others_active) {
    code = codes::first_active;
  }
  auto& members = groups_[p.group];
  if (new_record) ++member_count_;
  member_record& rec = members[p.member];
  rec.info.group = p.group;
  rec.info.name = p.member;
  rec.info.token = new_token();  // a re-join gets a new token ([C: XCF-JOIN] 4/8)
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

void directory::erase_member(const std::string& group, const std::string& name) {
  auto g = groups_.find(group);
  if (g == groups_.end()) return;
  if (g->second.erase(name) != 0) --member_count_;
  if (g->second.empty()) groups_.erase(g);
}

void directory::forget_refusals(const std::string& group, const std::string& target) {
  auto g = groups_.find(group);
  if (g == groups_.end()) return;
  for (auto& [name, rec] : g->second) {
    if (rec.conn == nullptr) continue;
    auto& refused = rec.conn->member.refused;
    refused.erase(refused.lower_bound({target, 0}), refused.upper_bound({target, 0xFFFF}));
  }
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
  // IXCLEAVE [C: XCF-LEAVE]: what it sent is still delivered (already queued to the targets), what was
  // sent to it is discarded.
  const std::size_t dropped = c.discard_deliveries();
  xcf::member_info info = rec->info;
  info.state = member_state::not_defined;
  erase_member(group, info.name);
  forget_refusals(group, info.name);
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
  c.member.refused.clear();                            // it sends no more
  const std::size_t dropped = c.discard_deliveries();  // it receives no more messages
  forget_refusals(rec->info.group, rec->info.name);
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
  // [R]/[D]: only an active member receives messages.
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
    if (c.member.refused.size() >= max_refused_streams) {
      // README "Send" [D]: a client that never resumes would grow this set with every stream it uses.
      c.protocol_error(codes::resource_shortage,
                       std::to_string(max_refused_streams) + " streams refused 12/0 and none resumed");
      return;
    }
    c.member.refused.insert(stream_key);
    if (c.send_refusals.allow(connection::clock::now())) {
      const std::size_t held = c.send_refusals.take_held_back();
      log_.write(log_level::warning, msg::IMB3014W,
                 describe(self->info) + " to " + target->info.name + " stream " + std::to_string(p.stream) +
                     ": " + std::to_string(target->conn->queued_bytes()) + " bytes queued, limit " +
                     std::to_string(options_.target_buffer) + "; refused 12/00 until the sender resumes" +
                     (held == 0 ? "" : " (" + std::to_string(held) + " earlier refusals not shown)"));
    }
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
  // README "Details": a blank group lists every group and ignores the member. The answer is bounded by
  // --max-members, and the connection is not read while its answers wait (connection::read_paused).
  const bool every_group = p.group.empty();
  for (const auto& [group, members] : groups_) {
    if (!every_group && group != p.group) continue;
    for (const auto& [name, rec] : members) {
      if (!every_group && !p.member.empty() && name != p.member) continue;
      rsp.members.push_back(rec.info);
    }
  }
  if (!every_group && !p.member.empty() && rsp.members.empty()) rsp.code = codes::not_found;
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
  notify(rec->info.group, rec->info, event_kind::user_state);  // IXCSETUS [C: XCF-STATES]
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
  // [C: XCF-LEAVE]: IXCDELET takes a failed or quiesced (or created) member to not-defined.
  if (it->second.info.state == member_state::active) {
    answer(c, frame_type::remove_rsp, h.corr, codes::already_active);
    return;
  }
  xcf::member_info info = it->second.info;
  info.state = member_state::not_defined;
  // A quiesced member's connection, if still open, keeps its membership view; held_by() no longer
  // finds the record, so its LEAVE is a plain 0/0. The remover is active, so the group stays.
  members.erase(it);
  --member_count_;
  answer(c, frame_type::remove_rsp, h.corr, codes::ok);
  log_.write(log_level::info, msg::IMB3010I, describe(info) + " by " + c.member.name + " from " + c.peer());
  // The event is about the removed member: every active member hears it, the remover included.
  const frame::event_payload ev{event_kind::removed, info};
  for (auto& kv : members) {
    if (kv.second.info.state == member_state::active && kv.second.conn != nullptr) {
      kv.second.conn->send(frame_type::event, 0, 0, ev, connection::kind::event);
    }
  }
}

void directory::fail(connection& c, member_record& rec, end_reason why) {
  const std::size_t dropped = c.discard_deliveries();  // README "Failure": messages queued to it go
  const std::string group = rec.info.group;
  // [C: XCF-STATES]: status missing first when the member fell silent rather than went away.
  if (why == end_reason::heartbeat || why == end_reason::partial_frame) {
    notify(group, rec.info, event_kind::status_missing);
  }
  xcf::member_info info = rec.info;
  // Failed only with LASTING=YES [C: XCF-JOIN]; otherwise termination means not-defined [R].
  info.state = rec.lasting ? member_state::failed : member_state::not_defined;
  if (rec.lasting) {
    rec.info.state = member_state::failed;
    rec.conn = nullptr;
  } else {
    erase_member(group, info.name);
  }
  forget_refusals(group, info.name);
  log_.write(log_level::warning, msg::IMB3007W,
             describe(info) + " from " + c.peer() + ": " + std::string(to_string(why)) + "; now " +
                 std::string(xcf::to_string(info.state)) + "; " + std::to_string(dropped) +
                 " undelivered messages to it discarded");
  notify(group, info, event_kind::failed);
}

void directory::on_end(connection& c, end_reason why) {
  // The lines a rate limit held back are counted, not lost.
  if (const std::size_t n = c.join_refusals.take_held_back()) {
    log_.write(log_level::warning, msg::IMB3011W,
               "from " + c.peer() + ": " + std::to_string(n) + " more join refusals not shown");
  }
  if (const std::size_t n = c.send_refusals.take_held_back()) {
    log_.write(log_level::warning, msg::IMB3014W,
               "from " + c.peer() + ": " + std::to_string(n) + " more send refusals not shown");
  }
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

void directory::clear() {
  groups_.clear();
  member_count_ = 0;
}

std::vector<xcf::member_info> directory::snapshot() const {
  std::vector<xcf::member_info> out;
  for (const auto& [group, members] : groups_) {
    for (const auto& [name, rec] : members) out.push_back(rec.info);
  }
  return out;
}

}  // namespace imsb::transport::hub_detail
