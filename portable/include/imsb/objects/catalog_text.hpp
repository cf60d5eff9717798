#pragma once
// The object catalog as text, the form qmgr/ keeps on disk (<QM dir>/qmanager/QMQMOBJCAT [D]) and reads back
// at every start: the queue manager's name and file-system profile, every object with every attribute, every
// authority record, and every real ↔ transformed file-name pair, so that names made by truncation plus suffix
// or by a case collision map the same way after a restart [D] (docs/design/queue-manager.md). Line-oriented
// and readable; the format is specified in catalog_text.cpp's header comment and versioned by its first line.

#include <string>
#include <string_view>

#include "imsb/core/result.hpp"
#include "imsb/objects/object.hpp"

namespace imsb::objects {

std::string encode_catalog(const object_catalog& catalog);

// Any text in, never a crash. Errors name the line (decode_error.offset = byte offset of the line,
// field "catalog.line N", detail what is wrong), std::errc::invalid_argument for a malformed line or
// value, std::errc::file_exists for a duplicate object or file-name pair, std::errc::not_supported for
// an unknown format version.
result<object_catalog> decode_catalog(std::string_view text);

}  // namespace imsb::objects
