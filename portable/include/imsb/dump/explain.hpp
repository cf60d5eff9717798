#pragma once
// `mqdump --explain CODE`: what an MQRC, MQFB or OTMA sense code means, as a document tree
// (tree.hpp) so that it renders as a listing or as JSON like everything else mqdump prints.

#include <string_view>

#include "imsb/dump/tree.hpp"

namespace imsb::dump {

struct explanation {
  node document;
  bool known = false;  // false: nothing matched; the document holds an IMB4005E error node
};

// Accepts:
//   2087, 294           a decimal number: the MQRC and/or MQFB with that value (both when both exist);
//                       MQFB 301–399 and 600–855 are decoded back into the OTMA sense (and reason)
//   MQRC_Q_FULL, MQFB_BUFFER_OVERFLOW, OTMA_SENSE_FLOOD
//                       a name (case-insensitive)
//   0x126, X'126'       hex: as a number (MQRC/MQFB) and, when it fits 16 bits, as an OTMA sense code
//   sense 0x1A reason 0x27, sense X'30', sense 30
//                       an OTMA NAK: sense and reason are hex whatever the prefix, as IMS writes them;
//                       gives the sense code's meaning and the Feedback the bridge puts in
//                       MQDLH.Reason and reports [C: IMS-FB-CODES]
explanation explain_code(std::string_view code);

}  // namespace imsb::dump
