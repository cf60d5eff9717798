#pragma once
// Prints commands back as canonical MQSC on one line: canonical verb and object type, keywords in the
// order written, values quoted where they were quoted. For every parsed command c,
// parse(to_mqsc(c)) gives c again (tests/portable/mqsc, tests/fuzz/mqsc_parser_fuzz.cpp).

#include <string>
#include <string_view>

#include "imsb/mqsc/command.hpp"

namespace imsb::mqsc {

// "DEFINE QLOCAL(IMS.BRIDGE.Q1) STGCLASS(IMSA) DESCR('it''s') NOSHARE"
std::string to_mqsc(const command& cmd);

// 'text' with each ' doubled.
std::string quote(std::string_view text);

// Whether text reads back as the same single unquoted value: not empty, upper case, no blank, comma,
// quote or ';', parentheses only as HOST(1414). A value built by a program that fails this is printed
// quoted by to_mqsc.
bool is_plain_value(std::string_view text);

}  // namespace imsb::mqsc
