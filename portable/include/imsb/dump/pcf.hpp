#pragma once
// mqdump's view of PCF data (imsb/mq/pcf.hpp): the MQCFH and each parameter with IBM's names and
// what its value means — an event (Bridge Started: Reason 2125 = MQRC_BRIDGE_STARTED, BridgeType 1 =
// MQBT_OTMA ...), a PCF command or its response.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "imsb/core/bytes.hpp"
#include "imsb/dump/tree.hpp"

namespace imsb::dump {

// Formats whose data is PCF: MQFMT_ADMIN, MQFMT_EVENT, MQFMT_PCF [C: CMQC-PY].
bool is_pcf_format(std::string_view format_819) noexcept;

// Adds to `parent` the MQCFH and parameter nodes of the PCF data `data`, which starts at `base` in
// the input, its integers in `encoding`, strings in `ccsid` unless they name their own. Bytes after
// the parameters are shown as data. When the PCF does not decode, the fields that fit are shown and
// the error node is returned (id IMB4930E, the MQRC, field and absolute offset); nullopt otherwise.
std::optional<node> add_pcf_nodes(node& parent, bytes_view data, std::size_t base, std::int32_t encoding,
                                  std::int32_t ccsid);

}  // namespace imsb::dump
