// --allow GROUP=M1,M2 and --allow-file: the stand-in for RACF's IMSXCF.* profiles (README "Join" [D]).

#include <fstream>

#include "imsb/names/name_rules.hpp"
#include "imsb/transport/hub.hpp"

namespace imsb::transport {

namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

}  // namespace

bool add_allow_entry(std::string_view text, allow_list& list, std::string& error) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    error = "'" + std::string(text) + "' is not GROUP=MEMBER1,MEMBER2";
    return false;
  }
  const std::string_view group = trim(text.substr(0, eq));
  if (auto problem = names::check_xcf_group_name(group, names::xcf_rules::xcf)) {  // [C: XCF-NAMES2]
    error = "'" + std::string(text) + "': " + problem->reason;
    return false;
  }
  std::set<std::string> members;
  std::string_view rest = text.substr(eq + 1);
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view member = trim(rest.substr(0, comma));
    if (auto problem = names::check_xcf_member_name(member, names::xcf_rules::xcf)) {
      error = "'" + std::string(text) + "': " + problem->reason;
      return false;
    }
    members.emplace(member);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  list[std::string(group)].insert(members.begin(), members.end());
  return true;
}

bool load_allow_file(const std::string& path, allow_list& list, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read allow-list file '" + path + "'";
    return false;
  }
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::string_view text = line;
    if (const auto hash = text.find('#'); hash != std::string_view::npos) text = text.substr(0, hash);
    text = trim(text);
    if (text.empty()) continue;
    std::string why;
    if (!add_allow_entry(text, list, why)) {
      error = path + " line " + std::to_string(number) + ": " + why;
      return false;
    }
  }
  if (in.bad()) {
    error = "cannot read allow-list file '" + path + "'";
    return false;
  }
  return true;
}

}  // namespace imsb::transport
