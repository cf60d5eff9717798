// imsbridge's configuration (bridge/include/imsb/bridge/config.hpp): every key from the file and from the
// command line, the command line's precedence, partner sections and defaults, and one IMB2050E line naming
// the key for each kind of bad value.

#include <sys/stat.h>

#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "imsb/bridge/config.hpp"
#include "imsb/core/messages.hpp"
#include "process.hpp"

namespace imsb::bridge {
namespace {

struct parsed {
  result<std::optional<bridge_config>> r;
  std::string help;
};

parsed parse(std::vector<std::string> args) {
  args.insert(args.begin(), "imsbridge");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream help;
  auto r = parse_config(static_cast<int>(argv.size()), argv.data(), help);
  return parsed{std::move(r), help.str()};
}

bridge_config ok(std::vector<std::string> args) {
  auto p = parse(std::move(args));
  if (!p.r.ok()) {
    ADD_FAILURE() << p.r.error().detail;
    return {};
  }
  if (!p.r->has_value()) {
    ADD_FAILURE() << "help returned";
    return {};
  }
  return **p.r;
}

// The key an error names, and its line checked for the IMB2050E form.
std::string error_key(std::vector<std::string> args) {
  auto p = parse(std::move(args));
  if (p.r.ok()) return "(accepted)";
  const auto& e = p.r.error();
  const std::string head = std::string(msg::IMB2050E) + " configuration: " + e.field + ": ";
  EXPECT_EQ(e.detail.rfind(head, 0), 0u) << e.detail;
  EXPECT_GT(e.detail.size(), head.size()) << "no reason given: " << e.detail;
  EXPECT_EQ(e.detail.find('\n'), std::string::npos) << "one line: " << e.detail;
  return e.field;
}

class config_test : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text, mode_t mode = 0600) {
    const std::string path = dir_.file(name);
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
    return path;
  }
  test::temp_dir dir_;
};

TEST_F(config_test, DefaultsWithoutAnyOption) {
  const bridge_config c = ok({});
  EXPECT_EQ(c.qmgr_connect, "");
  EXPECT_FALSE(c.qmgr_prefix.has_value());
  EXPECT_FALSE(c.qmgr_mqserver.has_value());
  EXPECT_EQ(c.xcf_url, "tcp://127.0.0.1:5099");
  EXPECT_EQ(c.member, "");
  EXPECT_EQ(c.dru_exit, "DFSYDRU0");
  EXPECT_EQ(c.age, 2147483647u);
  EXPECT_EQ(c.tpipe_prefix, "CSQ");
  EXPECT_EQ(c.cm1_window, 4u);
  EXPECT_EQ(c.ack_timeout_ms, 120000u);
  EXPECT_EQ(c.bid_timeout_ms, 30000u);
  EXPECT_EQ(c.backoff_initial_ms, 500u);
  EXPECT_EQ(c.backoff_max_ms, 30000u);
  EXPECT_EQ(c.resource_retry_limit, 50u);
  EXPECT_EQ(c.rescan_ms, 5000u);
  EXPECT_EQ(c.control_socket, "");
  EXPECT_TRUE(c.console);
  EXPECT_EQ(c.utoken_key_file, "");
  EXPECT_EQ(c.utoken_validity_s, 3600u);
  EXPECT_EQ(c.passticket_keys_file, "");
  EXPECT_EQ(c.partner_defaults.data.ccsid, 37);
  EXPECT_EQ(c.partner_defaults.data.convert, bridgemap::conversion::text);
  EXPECT_EQ(c.partner_defaults.access, access_level::control);
  EXPECT_TRUE(c.partners.empty());
  EXPECT_EQ(&c.partner("GRP1", "IMS1"), &c.partner_defaults);
}

TEST_F(config_test, EveryKeyFromTheFile) {
  const std::string pw = write("pw", "s3cret\nignored second line\n");
  const std::string ca = write("ca.pem", "x");
  const std::string cert = write("cert.pem", "x");
  const std::string key = write("key.pem", "x");
  const std::string utk = write("utoken.key", std::string(64, 'a'));
  const std::string ptk = write("passtickets", "MVSQMZ " + std::string(64, 'b') + "\n");
  const std::string sock = dir_.file("ctl.sock");
  const std::string ini =
      write("bridge.ini",
            "# a comment\n"
            "[qmgr]\nconnect = local:QMZ\nprefix = /tmp/pfx\nmqserver = CHL1/TCP/host(1414)\n"
            "user = bridgeusr\npassword-file = " +
                pw + "\ntls-ca = " + ca + "\ntls-cert = " + cert + "\ntls-key = " + key +
                "\n"
                "[xcf]\nurl = tcp://hub.example:6000\ntls-ca = " +
                ca + "\ntls-cert = " + cert + "\ntls-key = " + key +
                "\n"
                "[otmacon]\nmember = mqbr1\ndruexit = MYDRU\nage = 600\ntpipe-prefix = ab\n"
                "[bridge]\ncm1-window = 16\nack-timeout-ms = 5000\nbid-timeout-ms = 7000\n"
                "backoff-initial-ms = 10\nbackoff-max-ms = 20\nresource-retry-limit = 3\n"
                "rescan-ms = 250\ncontrol-socket = " +
                sock + "\nconsole = no\nutoken-key = " + utk + "\npassticket-keys = " + ptk +
                "\nutoken-validity = 60\n"
                "[partner]\nccsid = 500\nconversion = none\naccess = READ\n"
                "[partner.GRP1.IMS1]\nccsid = 1047\n");
  const bridge_config c = ok({"--config", ini});
  EXPECT_EQ(c.qmgr_connect, "local:QMZ");
  EXPECT_EQ(c.qmgr_prefix, std::optional<std::string>("/tmp/pfx"));
  EXPECT_EQ(c.qmgr_mqserver, std::optional<std::string>("CHL1/TCP/host(1414)"));
  EXPECT_EQ(c.qmgr_user, "bridgeusr");
  EXPECT_EQ(c.qmgr_password, "s3cret");
  EXPECT_EQ(c.qmgr_tls.ca_file, ca);
  EXPECT_EQ(c.qmgr_tls.cert_file, cert);
  EXPECT_EQ(c.qmgr_tls.key_file, key);
  EXPECT_EQ(c.xcf_url, "tcp://hub.example:6000");
  EXPECT_EQ(c.xcf_tls.ca_file, ca);
  EXPECT_EQ(c.xcf_tls.cert_file, cert);
  EXPECT_EQ(c.xcf_tls.key_file, key);
  EXPECT_EQ(c.member, "MQBR1");  // XCF names are upper case
  EXPECT_EQ(c.dru_exit, "MYDRU");
  EXPECT_EQ(c.age, 600u);
  EXPECT_EQ(c.tpipe_prefix, "AB");
  EXPECT_EQ(c.cm1_window, 16u);
  EXPECT_EQ(c.ack_timeout_ms, 5000u);
  EXPECT_EQ(c.bid_timeout_ms, 7000u);
  EXPECT_EQ(c.backoff_initial_ms, 10u);
  EXPECT_EQ(c.backoff_max_ms, 20u);
  EXPECT_EQ(c.resource_retry_limit, 3u);
  EXPECT_EQ(c.rescan_ms, 250u);
  EXPECT_EQ(c.control_socket, sock);
  EXPECT_FALSE(c.console);
  EXPECT_EQ(c.utoken_key_file, utk);
  EXPECT_EQ(c.passticket_keys_file, ptk);
  EXPECT_EQ(c.utoken_validity_s, 60u);
  EXPECT_EQ(c.partner_defaults.data.ccsid, 500);
  EXPECT_EQ(c.partner_defaults.data.convert, bridgemap::conversion::none);
  EXPECT_EQ(c.partner_defaults.access, access_level::read);
  ASSERT_EQ(c.partners.size(), 1u);
  const partner_config& p = c.partner("GRP1", "IMS1");
  EXPECT_EQ(p.data.ccsid, 1047);
  // Keys a partner section does not give come from [partner].
  EXPECT_EQ(p.data.convert, bridgemap::conversion::none);
  EXPECT_EQ(p.access, access_level::read);
}

TEST_F(config_test, EveryKeyFromTheCommandLine) {
  const bridge_config c = ok({"--qmgr.connect=QM2",
                              "--qmgr.prefix=/p",
                              "--qmgr.user=u",
                              "--xcf.url=tcp://[::1]:7000",
                              "--otmacon.member=M1",
                              "--otmacon.druexit=D1",
                              "--otmacon.age=0",
                              "--otmacon.tpipe-prefix=@$9",
                              "--bridge.cm1-window=1",
                              "--bridge.ack-timeout-ms=100",
                              "--bridge.bid-timeout-ms=86400000",
                              "--bridge.backoff-initial-ms=1",
                              "--bridge.backoff-max-ms=1",
                              "--bridge.resource-retry-limit=1000000",
                              "--bridge.rescan-ms=100",
                              "--bridge.console=YES",
                              "--bridge.utoken-validity=86400",
                              "--partner.ccsid=1140",
                              "--partner.conversion=TEXT",
                              "--partner.access=update",
                              "--partner.grp2.imsb.access=none",
                              "--partner.GRP2.IMSB.ccsid=819"});
  EXPECT_EQ(c.qmgr_connect, "QM2");
  EXPECT_EQ(c.qmgr_prefix, std::optional<std::string>("/p"));
  EXPECT_EQ(c.qmgr_user, "u");
  EXPECT_EQ(c.xcf_url, "tcp://[::1]:7000");
  EXPECT_EQ(c.member, "M1");
  EXPECT_EQ(c.dru_exit, "D1");
  EXPECT_EQ(c.age, 0u);
  EXPECT_EQ(c.tpipe_prefix, "@$9");
  EXPECT_EQ(c.cm1_window, 1u);
  EXPECT_EQ(c.ack_timeout_ms, 100u);
  EXPECT_EQ(c.bid_timeout_ms, 86400000u);
  EXPECT_EQ(c.backoff_initial_ms, 1u);
  EXPECT_EQ(c.backoff_max_ms, 1u);
  EXPECT_EQ(c.resource_retry_limit, 1000000u);
  EXPECT_EQ(c.rescan_ms, 100u);
  EXPECT_TRUE(c.console);
  EXPECT_EQ(c.utoken_validity_s, 86400u);
  EXPECT_EQ(c.partner_defaults.data.ccsid, 1140);
  EXPECT_EQ(c.partner_defaults.access, access_level::update);
  // Section names are XCF names: upper case, whichever way they were written.
  ASSERT_EQ(c.partners.count("GRP2.IMSB"), 1u);
  EXPECT_EQ(c.partner("GRP2", "IMSB").access, access_level::none);
  EXPECT_EQ(c.partner("GRP2", "IMSB").data.ccsid, 819);
  EXPECT_EQ(c.partner("GRP2", "IMSB").data.convert, bridgemap::conversion::text);
}

TEST_F(config_test, CommandLineWinsOverTheFile) {
  const std::string ini = write("b.ini",
                                "[qmgr]\nconnect = local:FILEQM\n[bridge]\ncm1-window = 8\nconsole = yes\n"
                                "[partner]\nccsid = 500\n"
                                "[partner.GRP1.IMS1]\nconversion = none\naccess = UPDATE\n");
  // Before or after --config: the command line wins either way.
  const bridge_config c =
      ok({"--bridge.console=no", "--config", ini, "--qmgr.connect=local:CLIQM", "--partner.ccsid=1047",
          "--partner.GRP1.IMS1.access=CONTROL", "--partner.GRP1.IMS2.access=READ"});
  EXPECT_EQ(c.qmgr_connect, "local:CLIQM");
  EXPECT_EQ(c.cm1_window, 8u);  // only in the file
  EXPECT_FALSE(c.console);
  EXPECT_EQ(c.partner_defaults.data.ccsid, 1047);
  const partner_config& p1 = c.partner("GRP1", "IMS1");
  EXPECT_EQ(p1.access, access_level::control);              // command line over the section
  EXPECT_EQ(p1.data.convert, bridgemap::conversion::none);  // the section's own
  EXPECT_EQ(p1.data.ccsid, 1047);                           // the defaults, as overridden
  const partner_config& p2 = c.partner("GRP1", "IMS2");
  EXPECT_EQ(p2.access, access_level::read);
  EXPECT_EQ(p2.data.convert, bridgemap::conversion::text);
  EXPECT_EQ(c.partners.size(), 2u);
  // A partner nobody named: the defaults.
  EXPECT_EQ(c.partner("GRP9", "IMS9").data.ccsid, 1047);
  EXPECT_EQ(c.partner("GRP9", "IMS9").access, access_level::control);
}

TEST_F(config_test, BadValuesNameTheirKey) {
  const std::string empty = write("empty", "");
  const std::string blank_first = write("blank", "\nsecond\n");
  const std::string a_file = write("f", "x");
  const struct {
    std::vector<std::string> args;
    std::string key;
  } cases[] = {
      {{"--bridge.cm1-window=0"}, "bridge.cm1-window"},
      {{"--bridge.cm1-window=abc"}, "bridge.cm1-window"},
      {{"--bridge.cm1-window=1001"}, "bridge.cm1-window"},
      {{"--bridge.cm1-window=-1"}, "bridge.cm1-window"},
      {{"--bridge.cm1-window=99999999999999999999999"}, "bridge.cm1-window"},
      {{"--bridge.ack-timeout-ms=5"}, "bridge.ack-timeout-ms"},
      {{"--bridge.bid-timeout-ms=86400001"}, "bridge.bid-timeout-ms"},
      {{"--bridge.backoff-initial-ms=0"}, "bridge.backoff-initial-ms"},
      {{"--bridge.backoff-initial-ms=100", "--bridge.backoff-max-ms=10"}, "bridge.backoff-max-ms"},
      {{"--bridge.resource-retry-limit=0"}, "bridge.resource-retry-limit"},
      {{"--bridge.rescan-ms=99"}, "bridge.rescan-ms"},
      {{"--bridge.utoken-validity=0"}, "bridge.utoken-validity"},
      {{"--bridge.console=maybe"}, "bridge.console"},
      {{"--bridge.control-socket=/tmp/" + std::string(120, 's')}, "bridge.control-socket"},
      {{"--bridge.utoken-key=" + dir_.file("missing")}, "bridge.utoken-key"},
      {{"--bridge.passticket-keys=" + dir_.path()}, "bridge.passticket-keys"},
      {{"--otmacon.age=2147483648"}, "otmacon.age"},
      {{"--otmacon.tpipe-prefix=ABCDE"}, "otmacon.tpipe-prefix"},
      {{"--otmacon.tpipe-prefix=A-B"}, "otmacon.tpipe-prefix"},
      {{"--otmacon.tpipe-prefix=A#"}, "otmacon.tpipe-prefix"},  // not an OTMA name character
      {{"--otmacon.tpipe-prefix="}, "otmacon.tpipe-prefix"},
      {{"--otmacon.member=DFSMQ"}, "otmacon.member"},
      {{"--otmacon.member=1MQ"}, "otmacon.member"},
      {{"--otmacon.member=ABCDEFGHIJKLMNOPQ"}, "otmacon.member"},
      {{"--otmacon.member=MQ#1"}, "otmacon.member"},
      {{"--otmacon.druexit=TOOLONGNAME"}, "otmacon.druexit"},
      {{"--xcf.url=http://hub:5099"}, "xcf.url"},
      {{"--xcf.url=tcp://hub"}, "xcf.url"},
      {{"--xcf.url=tcp://hub:0"}, "xcf.url"},
      {{"--xcf.url=tcp://hub:65536"}, "xcf.url"},
      {{"--xcf.url=tcp://:5099"}, "xcf.url"},
      {{"--xcf.url=tcp://hub:5099/path"}, "xcf.url"},
      {{"--xcf.tls-ca=" + dir_.file("nope.pem")}, "xcf.tls-ca"},
      {{"--xcf.tls-key=" + a_file}, "xcf.tls-cert"},
      {{"--qmgr.connect=local:"}, "qmgr.connect"},
      {{"--qmgr.connect=local:BAD NAME"}, "qmgr.connect"},
      {{"--qmgr.connect=" + std::string(49, 'Q')}, "qmgr.connect"},
      {{"--qmgr.mqserver=CHL/UDP/host(1414)"}, "qmgr.mqserver"},
      {{"--qmgr.mqserver=CHL/TCP/host"}, "qmgr.mqserver"},
      {{"--qmgr.mqserver=CHL/TCP/host(0)"}, "qmgr.mqserver"},
      {{"--qmgr.prefix="}, "qmgr.prefix"},
      {{"--qmgr.user=u", "--qmgr.password-file=" + dir_.file("nopw")}, "qmgr.password-file"},
      {{"--qmgr.user=u", "--qmgr.password-file=" + empty}, "qmgr.password-file"},
      {{"--qmgr.user=u", "--qmgr.password-file=" + blank_first}, "qmgr.password-file"},
      {{"--qmgr.password-file=" + a_file}, "qmgr.password-file"},  // a password without a user
      {{"--qmgr.tls-cert=" + a_file}, "qmgr.tls-key"},
      {{"--partner.ccsid=99999"}, "partner.ccsid"},
      {{"--partner.ccsid=9999"}, "partner.ccsid"},  // a number, not a supported CCSID
      {{"--partner.conversion=binary"}, "partner.conversion"},
      {{"--partner.access=ALTER"}, "partner.access"},
      {{"--partner.GRP1.IMS1.access=x"}, "partner.GRP1.IMS1.access"},
      {{"--partner.GRP1.IMS1.colour=red"}, "partner.GRP1.IMS1.colour"},
      {{"--partner.1GRP.IMS1.ccsid=37"}, "partner.1GRP.IMS1.ccsid"},
      {{"--partner.GROUPTOOLONG.IMS1.ccsid=37"}, "partner.GROUPTOOLONG.IMS1.ccsid"},
      {{"--partner.GRP1.ccsid=37"}, "partner.GRP1.ccsid"},
      {{"--partner.GRP1.IMS1.ccsid"}, "partner.GRP1.IMS1.ccsid"},  // no value
      {{"--qmgr.conect=local:QM"}, "qmgr.conect"},
      {{"--config=" + dir_.file("no.ini")}, "config"},
      {{"stray"}, "stray"},
  };
  for (const auto& c : cases) {
    std::string joined;
    for (const auto& a : c.args) joined += a + ' ';
    EXPECT_EQ(error_key(c.args), c.key) << joined;
  }
}

TEST_F(config_test, BadFileContentNamesTheKey) {
  EXPECT_EQ(error_key({"--config", write("a.ini", "[bridge]\ncolour = blue\n")}), "bridge.colour");
  EXPECT_EQ(error_key({"--config", write("b.ini", "[partner.GRP1.IMS1]\nccsid = 12\n")}),
            "partner.GRP1.IMS1.ccsid");
  EXPECT_EQ(error_key({"--config", write("c.ini", "[bridge]\ncm1-window = 2\ncm1-window = 3\n")}),
            "bridge.cm1-window");
  EXPECT_EQ(error_key({"--config", write("d.ini", "[otmacon]\nage = soon\n")}), "otmacon.age");
  EXPECT_EQ(error_key({"--config", write("e.ini", "config = other.ini\n")}), "config");
  // A line that is not key = value.
  EXPECT_EQ(error_key({"--config", write("f.ini", "[bridge]\njust words\n")}), "config");
  // The command line's good value does not hide a bad one in the file for another key.
  EXPECT_EQ(error_key({"--bridge.cm1-window=2", "--config", write("g.ini", "[bridge]\nrescan-ms = 1\n")}),
            "bridge.rescan-ms");
  // ... and a bad value in the file is not looked at when the command line gives the key.
  EXPECT_EQ(ok({"--bridge.rescan-ms=200", "--config", write("h.ini", "[bridge]\nrescan-ms = 1\n")}).rescan_ms,
            200u);
}

TEST_F(config_test, HelpListsEveryKey) {
  auto p = parse({"--help"});
  ASSERT_TRUE(p.r.ok());
  EXPECT_FALSE(p.r->has_value());
  for (const char* key : {"--config",
                          "qmgr.connect",
                          "qmgr.prefix",
                          "qmgr.mqserver",
                          "qmgr.user",
                          "qmgr.password-file",
                          "qmgr.tls-ca",
                          "qmgr.tls-cert",
                          "qmgr.tls-key",
                          "xcf.url",
                          "xcf.tls-ca",
                          "xcf.tls-cert",
                          "xcf.tls-key",
                          "otmacon.member",
                          "otmacon.druexit",
                          "otmacon.age",
                          "otmacon.tpipe-prefix",
                          "bridge.cm1-window",
                          "bridge.ack-timeout-ms",
                          "bridge.bid-timeout-ms",
                          "bridge.backoff-initial-ms",
                          "bridge.backoff-max-ms",
                          "bridge.resource-retry-limit",
                          "bridge.rescan-ms",
                          "bridge.control-socket",
                          "bridge.console",
                          "bridge.utoken-key",
                          "bridge.passticket-keys",
                          "bridge.utoken-validity",
                          "partner.ccsid",
                          "partner.conversion",
                          "partner.access",
                          "partner.GROUP.MEMBER"}) {
    EXPECT_NE(p.help.find(key), std::string::npos) << key;
  }
}

// examples/imsbridge/imsbridge.ini: it parses, and it names every key (set or commented out).
TEST_F(config_test, TheSampleParsesAndNamesEveryKey) {
  const std::string sample = std::string(IMSB_VECTORS_DIR) + "/../../examples/imsbridge/imsbridge.ini";
  const bridge_config c = ok({"--config", sample});
  EXPECT_EQ(c.qmgr_connect, "local:QMZ");
  EXPECT_EQ(c.partner("XCFGRP1", "IMSA").data.ccsid, 1047);
  EXPECT_EQ(c.partner("XCFGRP1", "IMSA").access, access_level::update);
  std::ifstream in(sample);
  std::ostringstream text;
  text << in.rdbuf();
  std::string section;
  std::set<std::string> named;
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] == '[') section = line.substr(1, line.find(']') - 1);
    const std::string body = line.rfind('#', 0) == 0 ? line.substr(1) : line;
    const auto eq = body.find(" = ");
    if (eq != std::string::npos && body.find(' ') == eq) named.insert(section + "." + body.substr(0, eq));
  }
  for (const char* key : {"qmgr.connect",
                          "qmgr.prefix",
                          "qmgr.mqserver",
                          "qmgr.user",
                          "qmgr.password-file",
                          "qmgr.tls-ca",
                          "qmgr.tls-cert",
                          "qmgr.tls-key",
                          "xcf.url",
                          "xcf.tls-ca",
                          "xcf.tls-cert",
                          "xcf.tls-key",
                          "otmacon.member",
                          "otmacon.druexit",
                          "otmacon.age",
                          "otmacon.tpipe-prefix",
                          "bridge.cm1-window",
                          "bridge.ack-timeout-ms",
                          "bridge.bid-timeout-ms",
                          "bridge.backoff-initial-ms",
                          "bridge.backoff-max-ms",
                          "bridge.resource-retry-limit",
                          "bridge.rescan-ms",
                          "bridge.control-socket",
                          "bridge.console",
                          "bridge.utoken-key",
                          "bridge.passticket-keys",
                          "bridge.utoken-validity",
                          "partner.ccsid",
                          "partner.conversion",
                          "partner.access"}) {
    EXPECT_EQ(named.count(key), 1u) << key;
  }
}

TEST_F(config_test, AccessLevelNames) {
  EXPECT_EQ(to_string(access_level::none), "NONE");
  EXPECT_EQ(to_string(access_level::read), "READ");
  EXPECT_EQ(to_string(access_level::update), "UPDATE");
  EXPECT_EQ(to_string(access_level::control), "CONTROL");
}

}  // namespace
}  // namespace imsb::bridge
