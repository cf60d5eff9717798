// imsreq's connection as the program makes it: qmgr::connect (connect.hpp: "local:QM" in-process,
// bindings, MQSERVER). Kept out of imsb_bridge, which reaches the queue manager only through
// mqi::connection (docs/design/layers.md): library imsb_imsreq.

#include "imsb/bridge/imsreq.hpp"
#include "imsb/qmgr/connect.hpp"

namespace imsb::bridge {

int run_imsreq(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return run_imsreq(args, out, err, [](const imsreq_options& o) {
    qmgr::connect_options c;
    c.target = o.qmgr;
    c.prefix = o.prefix;
    c.mqserver = o.mqserver;
    c.appl_name = "imsreq";
    return qmgr::connect(c);
  });
}

}  // namespace imsb::bridge
