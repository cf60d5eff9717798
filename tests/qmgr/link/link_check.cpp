// The queue manager's runtime and client libraries on their own (qmgr/CMakeLists.txt): this program links
// imsb_qmgr_runtime and imsb_qmgr_client and nothing of the tools, runs a queue manager in-process (a put
// and a get under syncpoint, committed), makes a client TLS context, and fails if Boost.Program_options is
// mapped into it. That a program can be linked this way at all is half of the check; the other half is
// that the loader did not bring the library in through something else.

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "client_connection.hpp"
#include "imsb/objects/mqsc_exec.hpp"
#include "imsb/qmgr/queue_manager.hpp"
#include "imsb/qmgr/store.hpp"

namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "test_qmgr_link: %s\n", what.c_str());
  return 1;
}

int run(const std::string& prefix) {
  using namespace imsb;
  objects::exec_context ctx{"2026-12-02", "01.00.00", false};
  auto cat = objects::new_queue_manager("QML", names::fs_profile::posix, "", "", ctx);
  if (!cat.ok()) return fail(cat.error().to_string());
  if (objects::run_script(*cat, "DEFINE QLOCAL(Q1)\n", ctx).exit_code() != 0) return fail("DEFINE QLOCAL");
  auto store = qmgr::queue_manager_store::create(prefix, *cat);
  if (!store.ok()) return fail(store.error().to_string());
  auto lock = store->try_lock();
  if (!lock.ok()) return fail(lock.error().to_string());
  auto qm = qmgr::queue_manager::start(std::move(*store), std::move(*lock), qmgr::runtime_options{});
  if (!qm.ok()) return fail(qm.error().to_string());
  qmgr::principal who{"link", {}, true, "test_qmgr_link"};
  auto c = (*qm)->connect(who);
  if (!c.ok()) return fail(c.error().to_string());
  auto q = (*c)->open(mqi::object_descriptor{"Q1", "", mq::MQOT_Q}, mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  if (!q.ok()) return fail(q.error().to_string());
  const std::string text = "linked without the tools";
  mq::mqmd md;
  auto put =
      (*c)->put(q->handle, md, bytes_view(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()),
                mq::MQPMO_SYNCPOINT);
  if (!put.ok()) return fail(put.error().to_string());
  if (auto r = (*c)->commit(); !r.ok()) return fail(r.error().to_string());
  mqi::get_request g;
  g.match_options = 0;
  auto m = (*c)->get(q->handle, g);
  if (!m.ok()) return fail(m.error().to_string());
  if (std::string(m->data.begin(), m->data.end()) != text) return fail("the message came back changed");
  // The client library: a TLS context as a client connection makes it.
  auto tls = qmgr::detail::make_tls_context(qmgr::tls_options{}, false);
  if (!tls.ok()) return fail(tls.error().to_string());
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find("program_options") != std::string::npos) return fail("mapped: " + line);
  }
  std::printf("test_qmgr_link: the runtime and the client run without Boost.Program_options\n");
  return 0;
}

}  // namespace

int main() {
  char dir[] = "/tmp/test_qmgr_link.XXXXXX";
  if (::mkdtemp(dir) == nullptr) return fail("mkdtemp");
  const int rc = run(std::string(dir) + "/prefix");
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return rc;
}
