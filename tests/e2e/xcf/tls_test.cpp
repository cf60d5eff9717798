// Mutual TLS between xcfhub and the client backend (transport/README.md "TLS" [D];
// docs/design/xcf-emulation.md). Certificates are made for the test with the openssl command.

#include <gtest/gtest.h>

#include "imsb/core/messages.hpp"
#include "xcf_e2e.hpp"

namespace imsb::test {
namespace {

transport::tcp_service_options tls_client(const hub_process& hub, std::string ca, std::string cert = {},
                                          std::string key = {}) {
  auto o = client_options(hub.endpoint());
  o.tls.ca_file = std::move(ca);
  o.tls.cert_file = std::move(cert);
  o.tls.key_file = std::move(key);
  return o;
}

// A join that must not succeed, however the refusal shows (handshake failure, alert after it, close);
// the IMB3050E line must give `reason` (OpenSSL's words), so that people can tell the cases apart.
void expect_refused(transport::tcp_service_options options, const std::string& member, const char* why,
                    const std::vector<std::string>& reasons) {
  std::vector<std::string> log;
  options.log = [&log](const std::string& line) { log.push_back(line); };
  transport::tcp_service service(options);
  recorder events;
  const auto started = steady::now();
  auto joined = service.join(join_as("IMSBGRP", member), events);
  const auto took = std::chrono::duration_cast<milliseconds>(steady::now() - started).count();
  EXPECT_FALSE(joined.code.ok()) << why;
  EXPECT_EQ(joined.joined, nullptr) << why;
  EXPECT_EQ(joined.code, xcf::codes::link_down) << why << ": " << xcf::describe(joined.code);
  EXPECT_LT(took, 7000) << why << ": the refusal took " << took << " ms";
  ASSERT_FALSE(log.empty()) << why << ": nothing logged";
  EXPECT_NE(log.front().find(imsb::msg::IMB3050E), std::string::npos) << log.front();
  for (const auto& reason : reasons) EXPECT_NE(log.front().find(reason), std::string::npos) << log.front();
  std::cout << "[ refused  ] " << why << ": " << log.front() << "\n";
}

TEST(XcfTls, MutualTlsAdmitsTheRightCertificatesOnly) {
  temp_dir dir;
  const test_certs certs = make_test_certs(dir);
  hub_process hub(dir, {"--heartbeat-ms", "1000", "--tls-cert", certs.hub_cert, "--tls-key", certs.hub_key,
                        "--tls-ca", certs.ca_a});

  // The right CA and a certificate it signed: join and exchange messages both ways.
  transport::tcp_service good(tls_client(hub, certs.ca_a, certs.client_cert, certs.client_key));
  recorder events_a;
  recorder events_b;
  auto a = good.join(join_as("IMSBGRP", "TLSA"), events_a);
  ASSERT_TRUE(a.code.ok()) << xcf::describe(a.code);
  auto b = good.join(join_as("IMSBGRP", "TLSB"), events_b);
  ASSERT_TRUE(b.code.ok()) << xcf::describe(b.code);
  const bytes big = pattern_data(5, 1, 65536);
  ASSERT_EQ(a.joined->send(xcf::target::by_name("TLSB"), pattern_control(5, 1), big), xcf::codes::ok);
  auto got = events_b.wait_messages(1, milliseconds(10000));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(pattern_check(5, 1, got[0], 65536), "");
  EXPECT_EQ(got[0].source_name, "TLSA");
  const bytes small = pattern_data(6, 0);
  ASSERT_EQ(b.joined->send(xcf::target::by_token(a.joined->token()), pattern_control(6, 0), small),
            xcf::codes::ok);
  got = events_a.wait_messages(1, milliseconds(10000));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(pattern_check(6, 0, got[0]), "");

  // The client trusts another CA: it does not accept the hub's certificate.
  expect_refused(tls_client(hub, certs.ca_b, certs.client_cert, certs.client_key), "EVEA",
                 "client trusting a different CA", {"certificate verify failed", "self-signed certificate"});
  // No client certificate: the hub (with --tls-ca) refuses the handshake (TLS 1.3's alert).
  expect_refused(tls_client(hub, certs.ca_a), "EVEB", "client without a certificate",
                 {"certificate required"});
  // A certificate from a CA the hub does not trust: the hub's alert says so.
  expect_refused(tls_client(hub, certs.ca_a, certs.rogue_cert, certs.rogue_key), "EVEC",
                 "client certificate from another CA", {"unknown ca"});
  // Plain TCP to a TLS hub.
  expect_refused(client_options(hub.endpoint()), "EVED", "plain TCP client",
                 {"the hub closed the connection"});

  // None of them ever joined; the good members are untouched.
  std::vector<xcf::member_info> members;
  ASSERT_EQ(a.joined->query(members), xcf::codes::ok);
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].name, "TLSA");
  EXPECT_EQ(members[1].name, "TLSB");
  for (const auto& e : events_a.events()) EXPECT_EQ(e.event.member.name, "TLSB");
  EXPECT_EQ(a.joined->leave(), xcf::codes::ok);
  EXPECT_EQ(b.joined->leave(), xcf::codes::ok);
}

// The hub's certificate is signed by the trusted CA but names another host: refused, by address and by
// name, and the log says it is the name (RFC 6125: the SAN counts, not the CN, which names us here).
TEST(XcfTls, HubCertificateForAnotherHostIsRefused) {
  temp_dir dir;
  const test_certs certs = make_test_certs(dir);
  hub_process elsewhere(
      dir, {"--heartbeat-ms", "1000", "--tls-cert", certs.elsewhere_cert, "--tls-key", certs.elsewhere_key});
  expect_refused(tls_client(elsewhere, certs.ca_a), "BYADDR", "hub certificate for another address",
                 {"certificate verify failed", "IP address mismatch"});
  auto by_name = tls_client(elsewhere, certs.ca_a);
  by_name.endpoint = "localhost:" + std::to_string(elsewhere.port());
  expect_refused(by_name, "BYNAME", "hub certificate for another host name",
                 {"certificate verify failed", "hostname mismatch"});

  // The same CA with the right names: accepted by address and by name.
  hub_process right(dir,
                    {"--heartbeat-ms", "1000", "--tls-cert", certs.hub_cert, "--tls-key", certs.hub_key});
  for (const std::string host : {"127.0.0.1", "localhost"}) {
    auto options = tls_client(right, certs.ca_a);
    options.endpoint = host + ":" + std::to_string(right.port());
    transport::tcp_service service(options);
    recorder events;
    auto joined = service.join(join_as("IMSBGRP", "RIGHT"), events);
    ASSERT_TRUE(joined.code.ok()) << host << ": " << xcf::describe(joined.code);
    EXPECT_EQ(joined.joined->leave(), xcf::codes::ok);
  }
}

// Configuration mistakes are found when the service is made, not at the first join.
TEST(XcfTls, UnusableFilesAreAConfigurationError) {
  temp_dir dir;
  transport::tcp_service_options o;
  o.endpoint = "127.0.0.1:1";
  o.tls.ca_file = dir.file("missing.pem");
  EXPECT_THROW(transport::tcp_service{o}, std::invalid_argument);
  o.tls = {};
  o.endpoint = "no-port";
  EXPECT_THROW(transport::tcp_service{o}, std::invalid_argument);
}

}  // namespace
}  // namespace imsb::test
