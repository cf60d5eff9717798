// The emulator's durable store: every step, replay equality, torn tails, damage in the middle,
// cold start, checkpoints. The kill -9 rounds are in journal_crash_test.cpp.
#include "imsb/imsemu/journal.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <system_error>
#include <vector>

namespace imsb::imsemu {
namespace {

namespace fs = std::filesystem;

class journal_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "imsb-journal-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  journal open(bool cold = false) {
    auto j = journal::open(dir_, cold);
    EXPECT_TRUE(j.ok()) << (j.ok() ? "" : j.error().to_string());
    return std::move(j).value();
  }
  fs::path log() const { return dir_ / "journal.log"; }
  bytes read_log() const {
    std::ifstream in(log(), std::ios::binary);
    return bytes(std::istreambuf_iterator<char>(in), {});
  }
  // While the journal is open its file holds the records (log_size() bytes), then zeros written ahead.
  void expect_records_then_zeros(const journal& j) const {
    const bytes file = read_log();
    ASSERT_GE(file.size(), j.log_size());
    EXPECT_TRUE(std::all_of(file.begin() + static_cast<std::ptrdiff_t>(j.log_size()), file.end(),
                            [](std::uint8_t b) { return b == 0; }))
        << "the bytes after the records are not zeros";
  }
  void write_log(const bytes& b) const {
    std::ofstream out(log(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }

  static bytes msg(const std::string& s) { return bytes(s.begin(), s.end()); }
  static phonebook_change put(const std::string& last, const std::string& ext = "1234") {
    return {phonebook_change::kind::put, ims::phone_entry{last, "FIRST", ext, "99999"}};
  }
  static phonebook_change erase(const std::string& last) {
    return {phonebook_change::kind::erase, ims::phone_entry{last, "", "", ""}};
  }

  // One recoverable transaction on Tpipe C/T: input number n, its run (a phone-book change, one output),
  // the output's ACK with send number n. false, reported, when a step fails.
  static bool cycle(journal& j, std::uint32_t n) {
    auto in = j.log_input("C", "T", true, n, msg(std::string(100, 'x')));
    EXPECT_TRUE(in.ok()) << in.error().to_string();
    if (!in.ok()) return false;
    auto run = j.commit_run(*in, "ECHO", "OK", {put("N" + std::to_string(n))}, {{"C", "T", true, msg("o")}});
    EXPECT_TRUE(run.ok()) << run.error().to_string();
    if (!run.ok()) return false;
    auto acked = j.log_output_acked(run->output_ids[0], n);
    EXPECT_TRUE(acked.ok()) << acked.error().to_string();
    return acked.ok();
  }

  // A journal with some of everything in it.
  journal populated() {
    journal j = open();
    auto in1 = j.log_input("CLIENT1", "TPIPE1", true, 1, msg("input one"));
    auto in2 = j.log_input("CLIENT1", "TPIPE1", true, 2, msg("input two"));
    auto in3 = j.log_input("CLIENT2", "TP2", false, 0, msg("input three"));
    EXPECT_TRUE(in1.ok() && in2.ok() && in3.ok());
    auto r1 = j.commit_run(*in1, "IVTNO", "OK", {put("SMITH"), put("JONES")},
                           {{"CLIENT1", "TPIPE1", true, msg("reply one")}});
    auto r2 = j.commit_run(
        *in3, "ECHO", "OK", {erase("JONES")},
        {{"CLIENT2", "TP2", false, msg("reply three")}, {"CLIENT2", "ALTDEST", false, msg("alt")}});
    EXPECT_TRUE(r1.ok() && r2.ok());
    EXPECT_TRUE(j.log_output_acked(r1->output_ids[0], 1).ok());
    EXPECT_TRUE(j.set_tpipe("CLIENT3", "TP3", tpipe_state{true, 7, 9, true}).ok());
    return j;
  }

  fs::path dir_;
};

TEST_F(journal_test, a_new_folder_gives_an_empty_journal) {
  journal j = open();
  EXPECT_TRUE(fs::exists(log()));
  EXPECT_TRUE(j.state().tpipes.empty());
  EXPECT_TRUE(j.state().inputs.empty());
  EXPECT_TRUE(j.state().runs.empty());
  EXPECT_EQ(j.state().next_id, 1U);
  EXPECT_EQ(j.state().cold_starts, 0U);
}

TEST_F(journal_test, log_input_queues_it_and_sets_the_receive_number_of_a_recoverable_input) {
  journal j = open();
  const auto size0 = j.log_size();
  auto id = j.log_input("CLIENT1", "TPIPE1", true, 5, msg("abc"));
  ASSERT_TRUE(id.ok());
  EXPECT_GT(j.log_size(), size0);
  expect_records_then_zeros(j);  // on disk when the call returns
  ASSERT_EQ(j.state().inputs.size(), 1U);
  const auto& in = j.state().inputs[0];
  EXPECT_EQ(in.id, *id);
  EXPECT_EQ(in.client, "CLIENT1");
  EXPECT_EQ(in.tpipe, "TPIPE1");
  EXPECT_EQ(in.recoverable_seq, 5U);
  EXPECT_EQ(in.otma, msg("abc"));
  const auto& t = j.state().tpipes.at({"CLIENT1", "TPIPE1"});
  EXPECT_TRUE(t.synchronized);
  EXPECT_EQ(t.recv_rsn, 5U);
  EXPECT_EQ(t.send_rsn, 0U);

  // Recoverable number 0 ([C: IMS-RS-SUMMARY]: CM0 with rsn 0) leaves the receive number alone.
  auto id2 = j.log_input("CLIENT1", "TPIPE1", true, 0, msg("def"));
  ASSERT_TRUE(id2.ok());
  EXPECT_NE(*id2, *id);
  EXPECT_EQ(j.state().tpipes.at({"CLIENT1", "TPIPE1"}).recv_rsn, 5U);
  EXPECT_EQ(j.state().inputs.size(), 2U);
}

TEST_F(journal_test, a_tpipe_once_synchronized_stays_so) {
  journal j = open();
  ASSERT_TRUE(j.log_input("C", "T", true, 1, msg("a")).ok());
  ASSERT_TRUE(j.log_input("C", "T", false, 0, msg("b")).ok());
  EXPECT_TRUE(j.state().tpipes.at({"C", "T"}).synchronized);
  ASSERT_TRUE(j.log_input("C", "U", false, 0, msg("c")).ok());
  EXPECT_FALSE(j.state().tpipes.at({"C", "U"}).synchronized);
}

TEST_F(journal_test, commit_run_is_one_record_that_runs_the_input_changes_the_db_and_enqueues_output) {
  journal j = open();
  auto in = j.log_input("CLIENT1", "TPIPE1", true, 1, msg("in"));
  ASSERT_TRUE(in.ok());
  const auto before = j.log_size();
  auto run =
      j.commit_run(*in, "IVTNO", "OK", {put("SMITH"), put("BROWN"), erase("BROWN")},
                   {{"CLIENT1", "TPIPE1", true, msg("out1")}, {"CLIENT1", "LTERM9", false, msg("out2")}});
  ASSERT_TRUE(run.ok()) << run.error().to_string();
  EXPECT_GT(j.log_size(), before);
  EXPECT_EQ(run->run, 1U);
  EXPECT_EQ(run->input_id, *in);
  EXPECT_EQ(run->transaction, "IVTNO");
  EXPECT_EQ(run->client, "CLIENT1");
  EXPECT_EQ(run->tpipe, "TPIPE1");
  EXPECT_EQ(run->recoverable_seq, 1U);
  EXPECT_EQ(run->outcome, "OK");
  ASSERT_EQ(run->output_ids.size(), 2U);

  const auto& s = j.state();
  EXPECT_TRUE(s.inputs.empty());
  EXPECT_TRUE(s.phonebook.find("SMITH").has_value());
  EXPECT_FALSE(s.phonebook.find("BROWN").has_value());
  ASSERT_EQ(s.runs.size(), 1U);
  EXPECT_EQ(s.runs[0].output_ids, run->output_ids);
  const auto* out1 = s.find_output(run->output_ids[0]);
  ASSERT_NE(out1, nullptr);
  EXPECT_EQ(out1->data, msg("out1"));
  EXPECT_TRUE(out1->synchronized);
  ASSERT_EQ(s.outputs.at({"CLIENT1", "LTERM9"}).size(), 1U);
  EXPECT_EQ(s.outputs.at({"CLIENT1", "LTERM9"})[0].id, run->output_ids[1]);
  EXPECT_TRUE(s.tpipes.count({"CLIENT1", "LTERM9"}) == 1);
  // The output's send number is not logged at enqueue [C: IMS-RS-CS].
  EXPECT_EQ(s.tpipes.at({"CLIENT1", "TPIPE1"}).send_rsn, 0U);

  // Run numbers follow commit order; ids never repeat.
  auto in2 = j.log_input("CLIENT1", "TPIPE1", true, 2, msg("in2"));
  ASSERT_TRUE(in2.ok());
  EXPECT_GT(*in2, run->output_ids[1]);
  auto run2 = j.commit_run(*in2, "ECHO", "ABEND U0777", {}, {});
  ASSERT_TRUE(run2.ok());
  EXPECT_EQ(run2->run, 2U);
  EXPECT_TRUE(run2->output_ids.empty());
}

TEST_F(journal_test, commit_run_of_an_input_not_queued_fails_and_writes_nothing) {
  journal j = open();
  auto in = j.log_input("C", "T", false, 0, msg("in"));
  ASSERT_TRUE(in.ok());
  ASSERT_TRUE(j.commit_run(*in, "ECHO", "OK", {}, {}).ok());
  const auto size = j.log_size();
  const journal_state before = j.state();
  for (std::uint64_t id : {*in, *in + 100}) {
    auto again = j.commit_run(id, "ECHO", "OK", {put("X")}, {{"C", "T", false, msg("o")}});
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().code, std::errc::invalid_argument);
  }
  EXPECT_EQ(j.log_size(), size);
  expect_records_then_zeros(j);
  EXPECT_TRUE(j.state() == before);
}

TEST_F(journal_test, an_acked_output_is_dequeued_and_its_send_number_logged) {
  journal j = open();
  auto in = j.log_input("C", "T", true, 1, msg("in"));
  ASSERT_TRUE(in.ok());
  auto run =
      j.commit_run(*in, "ECHO", "OK", {},
                   {{"C", "T", true, msg("a")}, {"C", "T", true, msg("b")}, {"C", "N", false, msg("c")}});
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(j.log_output_acked(run->output_ids[0], 1).ok());
  EXPECT_EQ(j.state().tpipes.at({"C", "T"}).send_rsn, 1U);
  ASSERT_EQ(j.state().outputs.at({"C", "T"}).size(), 1U);
  EXPECT_EQ(j.state().outputs.at({"C", "T"})[0].data, msg("b"));
  // Without a number the send number stays.
  ASSERT_TRUE(j.log_output_acked(run->output_ids[1], std::nullopt).ok());
  EXPECT_EQ(j.state().tpipes.at({"C", "T"}).send_rsn, 1U);
  EXPECT_EQ(j.state().outputs.count({"C", "T"}), 0U);
  // A number given for output on a non-synchronized Tpipe is not a recoverable number: ignored.
  ASSERT_TRUE(j.log_output_acked(run->output_ids[2], 42).ok());
  EXPECT_EQ(j.state().tpipes.at({"C", "N"}).send_rsn, 0U);
  EXPECT_TRUE(j.state().outputs.empty());
  // Twice: unknown.
  auto twice = j.log_output_acked(run->output_ids[0], 2);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, std::errc::invalid_argument);
  EXPECT_EQ(j.state().tpipes.at({"C", "T"}).send_rsn, 1U);
}

TEST_F(journal_test, purge_output_dequeues_without_a_send_number) {
  journal j = open();
  auto in = j.log_input("C", "T", true, 1, msg("in"));
  ASSERT_TRUE(in.ok());
  auto run = j.commit_run(*in, "ECHO", "OK", {}, {{"C", "T", true, msg("a")}, {"C", "T", true, msg("b")}});
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(j.purge_output(run->output_ids[1]).ok());
  ASSERT_EQ(j.state().outputs.at({"C", "T"}).size(), 1U);
  EXPECT_EQ(j.state().outputs.at({"C", "T"})[0].id, run->output_ids[0]);
  EXPECT_EQ(j.state().tpipes.at({"C", "T"}).send_rsn, 0U);
  EXPECT_FALSE(j.purge_output(run->output_ids[1]).ok());
  EXPECT_FALSE(j.purge_output(*in).ok());  // an input id is not an output
}

TEST_F(journal_test, set_tpipe_creates_or_replaces_a_tpipe) {
  journal j = open();
  ASSERT_TRUE(j.log_input("C", "T", true, 3, msg("in")).ok());
  ASSERT_TRUE(j.set_tpipe("C", "T", tpipe_state{true, 0, 0, false}).ok());  // REPresynch reset
  EXPECT_EQ(j.state().tpipes.at({"C", "T"}).recv_rsn, 0U);
  ASSERT_TRUE(j.set_tpipe("C", "S", tpipe_state{false, 0, 0, true}).ok());  // /STO TPIPE
  EXPECT_TRUE(j.state().tpipes.at({"C", "S"}).stopped);
  EXPECT_FALSE(j.state().tpipes.at({"C", "S"}).synchronized);
}

TEST_F(journal_test, the_state_after_reopen_equals_the_state_before) {
  journal_state before;
  {
    journal j = populated();
    before = j.state();
  }
  journal j = open();
  EXPECT_TRUE(j.state() == before);
  EXPECT_EQ(j.state().runs.size(), 2U);
  EXPECT_EQ(j.state().tpipes.at({"CLIENT1", "TPIPE1"}).recv_rsn, 2U);
  EXPECT_EQ(j.state().tpipes.at({"CLIENT1", "TPIPE1"}).send_rsn, 1U);
  EXPECT_TRUE(j.state().tpipes.at({"CLIENT3", "TP3"}).stopped);
  EXPECT_TRUE(j.state().phonebook.find("SMITH").has_value());
  EXPECT_FALSE(j.state().phonebook.find("JONES").has_value());
  // And it keeps going where it stopped.
  auto id = j.log_input("CLIENT1", "TPIPE1", true, 3, msg("x"));
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, before.next_id);
}

TEST_F(journal_test, the_state_equality_notices_each_kind_of_difference) {
  journal j = populated();
  const journal_state base = j.state();
  journal_state s = base;
  EXPECT_TRUE(s == base);
  s.tpipes.begin()->second.send_rsn++;
  EXPECT_TRUE(s != base);
  s = base;
  s.inputs[0].otma.push_back(1);
  EXPECT_TRUE(s != base);
  s = base;
  s.outputs.begin()->second[0].synchronized = !s.outputs.begin()->second[0].synchronized;
  EXPECT_TRUE(s != base);
  s = base;
  s.phonebook.put(ims::phone_entry{"SMITH", "OTHER", "1", "2"});
  EXPECT_TRUE(s != base);
  s = base;
  s.runs[1].outcome = "ABEND";
  EXPECT_TRUE(s != base);
  s = base;
  s.cold_starts++;
  EXPECT_TRUE(s != base);
}

TEST_F(journal_test, a_second_open_of_the_same_folder_is_refused) {
  journal j = open();
  auto second = journal::open(dir_, false);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, std::errc::device_or_resource_busy);
}

TEST_F(journal_test, cold_start_keeps_the_phonebook_and_runs_but_drops_tpipes_inputs_and_outputs) {
  journal_state before;
  {
    journal j = populated();
    before = j.state();
    ASSERT_FALSE(before.inputs.empty());
    ASSERT_FALSE(before.outputs.empty());
  }
  {
    journal j = open(/*cold=*/true);
    const auto& s = j.state();
    EXPECT_TRUE(s.tpipes.empty());
    EXPECT_TRUE(s.inputs.empty());
    EXPECT_TRUE(s.outputs.empty());
    EXPECT_EQ(s.cold_starts, 1U);
    EXPECT_EQ(s.runs.size(), before.runs.size());
    EXPECT_EQ(s.phonebook.entries().size(), before.phonebook.entries().size());
    EXPECT_TRUE(s.phonebook.find("SMITH").has_value());
    // The ids keep growing: an old id never names a new message.
    auto id = j.log_input("CLIENT1", "TPIPE1", true, 1, msg("after cold start"));
    ASSERT_TRUE(id.ok());
    EXPECT_GE(*id, before.next_id);
    EXPECT_EQ(j.state().tpipes.at({"CLIENT1", "TPIPE1"}).recv_rsn, 1U);
    before = j.state();
  }
  journal j = open();  // warm: the cold start itself was logged
  EXPECT_TRUE(j.state() == before);
  EXPECT_EQ(j.state().cold_starts, 1U);
}

TEST_F(journal_test, checkpoint_rewrites_the_log_as_a_snapshot_that_replays_the_same) {
  journal_state before;
  std::uint64_t shrunk_to = 0;
  {
    journal j = populated();
    for (std::uint32_t n = 1; n <= 50; ++n) ASSERT_TRUE(cycle(j, n));
    const auto grown = j.log_size();
    ASSERT_TRUE(j.checkpoint().ok());
    shrunk_to = j.log_size();
    EXPECT_LT(shrunk_to, grown);
    EXPECT_EQ(fs::file_size(log()), shrunk_to);
    EXPECT_FALSE(fs::exists(dir_ / "journal.tmp"));
    // Steps after a checkpoint append to the new file.
    ASSERT_TRUE(j.log_input("C", "T", true, 51, msg("after")).ok());
    EXPECT_GT(j.log_size(), shrunk_to);
    before = j.state();
  }
  journal j = open();
  EXPECT_TRUE(j.state() == before);
  EXPECT_EQ(j.state().runs.size(), 52U);
  EXPECT_EQ(j.state().tpipes.at({"C", "T"}).send_rsn, 50U);
}

TEST_F(journal_test, steps_checkpoint_by_themselves_past_the_threshold) {
  journal_state before;
  {
    journal j = open();
    j.set_checkpoint_threshold(2000);
    std::uint64_t largest = 0;
    int shrinks = 0;
    for (int i = 0; i < 200; ++i) {
      const auto size = j.log_size();
      auto in = j.log_input("C", "T", false, 0, msg(std::string(200, 'y')));
      ASSERT_TRUE(in.ok());
      j.settle();  // the compaction a step starts runs on its own thread
      if (j.log_size() < size) ++shrinks;
      largest = std::max(largest, j.log_size());
      ASSERT_TRUE(j.commit_run(*in, "ECHO", "OK", {}, {}).ok());
      j.settle();
    }
    EXPECT_EQ(j.last_compaction_error(), "");
    EXPECT_EQ(j.compactions(), static_cast<std::uint64_t>(shrinks));
    EXPECT_GT(shrinks, 5);
    // Bounded by the snapshot (ids and 200 runs) plus the threshold and one record.
    EXPECT_LT(largest, 200U * 60U + 2000U + 400U);
    before = j.state();
  }
  journal j = open();
  EXPECT_TRUE(j.state() == before);
  EXPECT_EQ(j.state().runs.size(), 200U);
}

// No step waits for a snapshot: the compaction is held after writing its snapshot, and steps go on; the
// records they log meanwhile are copied after the snapshot when it swaps the file in.
TEST_F(journal_test, a_compaction_runs_off_the_message_path_and_keeps_the_steps_logged_meanwhile) {
  journal_state before;
  std::uint64_t held_size = 0;
  {
    journal j = populated();
    j.set_checkpoint_threshold(2000);
    std::promise<void> entered, release;
    std::atomic<bool> hook_timed_out{false};
    j.set_compaction_hook([&, wait = release.get_future().share()] {
      entered.set_value();
      if (wait.wait_for(std::chrono::seconds(30)) != std::future_status::ready) hook_timed_out = true;
    });
    auto in_hook = entered.get_future();
    std::uint32_t n = 1;
    while (in_hook.wait_for(std::chrono::seconds(0)) != std::future_status::ready && n < 100)
      ASSERT_TRUE(cycle(j, n++));
    ASSERT_EQ(in_hook.wait_for(std::chrono::seconds(10)), std::future_status::ready)
        << "no compaction started past the threshold";
    EXPECT_TRUE(fs::exists(dir_ / "journal.tmp"));  // the snapshot, durable, not yet swapped in
    // Three times the threshold logged while the snapshot waits: none of these steps waits for it.
    for (int k = 0; k < 60; ++k) ASSERT_TRUE(cycle(j, n++));
    EXPECT_EQ(j.compactions(), 0U);
    held_size = j.log_size();
    release.set_value();
    j.settle();
    EXPECT_FALSE(hook_timed_out.load()) << "a step waited for the compaction";
    EXPECT_EQ(j.compactions(), 1U);
    EXPECT_EQ(j.last_compaction_error(), "");
    EXPECT_LT(j.log_size(), held_size);
    EXPECT_EQ(fs::file_size(log()), j.log_size());
    EXPECT_FALSE(fs::exists(dir_ / "journal.tmp"));
    j.set_compaction_hook({});
    ASSERT_TRUE(cycle(j, n++));  // appends go to the new file
    j.settle();                  // (the tail copied in is past the threshold: that step starts another)
    expect_records_then_zeros(j);
    before = j.state();
  }
  journal j = open();
  EXPECT_TRUE(j.state() == before);
  EXPECT_GE(j.state().runs.size(), 62U);
}

// A compaction that cannot write its snapshot loses nothing: the error is kept, steps go on in the old
// file, and a later step compacts once it can.
TEST_F(journal_test, a_failed_compaction_loses_nothing_and_is_tried_again) {
  journal_state before;
  {
    journal j = populated();
    j.set_checkpoint_threshold(1000);
    fs::create_directory(dir_ / "journal.tmp");  // open(O_WRONLY) of a folder fails: EISDIR
    for (int i = 1; i <= 20; ++i) {
      ASSERT_TRUE(j.log_input("C", "T", false, 0, msg(std::string(200, 'z'))).ok());
      j.settle();
    }
    EXPECT_EQ(j.compactions(), 0U);
    EXPECT_NE(j.last_compaction_error().find("journal.tmp"), std::string::npos) << j.last_compaction_error();
    const auto grown = j.log_size();
    EXPECT_GT(grown, 4000U);
    fs::remove(dir_ / "journal.tmp");
    ASSERT_TRUE(j.log_input("C", "T", false, 0, msg("again")).ok());
    j.settle();
    EXPECT_EQ(j.compactions(), 1U);
    EXPECT_EQ(j.last_compaction_error(), "");
    EXPECT_LT(j.log_size(), grown);
    before = j.state();
  }
  journal j = open();
  EXPECT_TRUE(j.state() == before);
  EXPECT_EQ(j.state().inputs.size(), before.inputs.size());
}

TEST_F(journal_test, a_leftover_checkpoint_temporary_is_ignored) {
  journal_state before;
  {
    journal j = populated();
    before = j.state();
  }
  {
    std::ofstream junk(dir_ / "journal.tmp", std::ios::binary);
    junk << "half a snapshot";
  }
  journal j = open();
  EXPECT_TRUE(j.state() == before);
  EXPECT_FALSE(fs::exists(dir_ / "journal.tmp"));
}

// Every prefix of the last record — what a crash during its write leaves — is dropped, and the file is
// cut back to the last whole record.
// The file grows by zeros written ahead of the records, so that an append's fdatasync need not write the
// inode (journal.hpp); a clean close trims them, and a crash that leaves them loses nothing.
TEST_F(journal_test, the_file_grows_by_zeros_ahead_of_the_records_and_a_clean_close_trims_them) {
  journal_state before;
  std::uint64_t records = 0;
  bytes crashed;  // the file as a kill -9 would leave it: the records, then the zeros ahead
  {
    journal j = populated();
    ASSERT_TRUE(cycle(j, 1));
    before = j.state();
    records = j.log_size();
    crashed = read_log();
    EXPECT_GT(crashed.size(), records) << "no zeros were written ahead of the records";
    EXPECT_EQ(crashed.size() % (256 * 1024), 0U) << "the file does not grow in steps of 256 KiB";
    expect_records_then_zeros(j);
    // Steps fill the zeros: the file keeps its size until the records reach its end.
    const auto size = crashed.size();
    ASSERT_TRUE(cycle(j, 2));
    EXPECT_EQ(fs::file_size(log()), size);
  }
  EXPECT_GT(fs::file_size(log()), records);
  {
    journal j = open();
    EXPECT_EQ(fs::file_size(log()), j.log_size()) << "a clean close left the zeros";
  }
  write_log(crashed);
  journal_state after;
  {
    journal j = open();
    EXPECT_TRUE(j.state() == before);
    EXPECT_EQ(j.log_size(), records);
    EXPECT_EQ(fs::file_size(log()), records) << "open did not drop the zeros a crash left";
    ASSERT_TRUE(cycle(j, 2));  // and steps go on after the records
    after = j.state();
  }
  journal j = open();
  EXPECT_TRUE(j.state() == after);
}

TEST_F(journal_test, a_torn_tail_record_is_ignored_and_truncated_at_every_length) {
  journal_state before;
  std::uint64_t whole = 0, full = 0;
  {
    journal j = populated();
    before = j.state();
    whole = j.log_size();
    auto in = j.log_input("CLIENT9", "TP9", true, 1, msg("the torn one"));
    ASSERT_TRUE(in.ok());
    full = j.log_size();
  }
  const bytes complete = read_log();
  ASSERT_EQ(complete.size(), full);
  for (std::uint64_t cut = whole + 1; cut < full; ++cut) {
    write_log(bytes(complete.begin(), complete.begin() + static_cast<std::ptrdiff_t>(cut)));
    auto j = journal::open(dir_, false);
    ASSERT_TRUE(j.ok()) << "cut at " << cut << ": " << j.error().to_string();
    EXPECT_TRUE(j->state() == before) << "cut at " << cut;
    EXPECT_EQ(j->log_size(), whole);
    EXPECT_EQ(fs::file_size(log()), whole);
  }
}

TEST_F(journal_test, a_tail_of_zeros_or_a_bad_crc_on_the_last_record_is_a_torn_tail) {
  journal_state before;
  std::uint64_t whole = 0;
  {
    journal j = populated();
    before = j.state();
    whole = j.log_size();
    ASSERT_TRUE(j.log_input("C", "T", false, 0, msg("last")).ok());
  }
  bytes file = read_log();
  file.back() ^= 0xFF;  // the last record's CRC
  write_log(file);
  {
    journal j = open();
    EXPECT_TRUE(j.state() == before);
    EXPECT_EQ(j.log_size(), whole);
  }
  file.resize(whole);
  file.insert(file.end(), 4096, 0);  // a file system that extended the file but never wrote the data
  write_log(file);
  journal j = open();
  EXPECT_TRUE(j.state() == before);
  EXPECT_EQ(fs::file_size(log()), whole);
}

TEST_F(journal_test, a_damaged_record_followed_by_good_ones_is_an_error_naming_its_offset) {
  std::vector<std::uint64_t> ends;
  {
    journal j = open();
    ends.push_back(j.log_size());
    for (int i = 0; i < 4; ++i) {
      ASSERT_TRUE(
          j.log_input("C", "T", true, static_cast<std::uint32_t>(i + 1), msg("input " + std::to_string(i)))
              .ok());
      ends.push_back(j.log_size());
    }
  }
  const bytes good = read_log();
  struct damage {
    const char* what;
    std::size_t at;  // offset inside the second input record
  };
  for (const damage d :
       {damage{"payload byte", 12}, damage{"type", 4}, damage{"length", 2}, damage{"length", 3}}) {
    bytes bad = good;
    const std::size_t rec = ends[1];  // the second input record begins where the first ends
    bad[rec + d.at] ^= 0x40;
    write_log(bad);
    auto j = journal::open(dir_, false);
    ASSERT_FALSE(j.ok()) << d.what;
    EXPECT_EQ(j.error().code, std::errc::illegal_byte_sequence) << d.what;
    EXPECT_EQ(j.error().offset, rec) << d.what;
    EXPECT_NE(j.error().detail.find("intact record"), std::string::npos) << j.error().detail;
    EXPECT_EQ(read_log(), bad) << "a refused journal is left as it is";
  }
  write_log(good);
  journal j = open();
  EXPECT_EQ(j.state().inputs.size(), 4U);
}

TEST_F(journal_test, a_file_that_is_not_a_journal_is_refused) {
  write_log(msg("this is not a journal at all"));
  auto j = journal::open(dir_, false);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().code, std::errc::illegal_byte_sequence);
  EXPECT_EQ(j.error().offset, 0U);
}

TEST_F(journal_test, a_moved_journal_keeps_working_and_the_moved_from_one_refuses_steps) {
  journal a = open();
  journal b = std::move(a);
  EXPECT_TRUE(b.log_input("C", "T", false, 0, msg("x")).ok());
  EXPECT_FALSE(a.log_input("C", "T", false, 0, msg("y")).ok());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.state().inputs.size(), 1U);
}

// The journal holds whole inputs, UTOKENs included, so [D] a folder it creates is 0700 and every file it
// writes (the log, and the temporary file a checkpoint renames over it) is 0600, whatever the umask lets
// through.
TEST_F(journal_test, the_folder_it_creates_is_0700_and_its_files_0600) {
  const mode_t old_mask = ::umask(022);
  const fs::path state = dir_ / "parent" / "state";
  {
    auto j = journal::open(state, false);
    ASSERT_TRUE(j.ok()) << j.error().to_string();
    struct stat st {};
    ASSERT_EQ(::stat(state.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0700U);
    ASSERT_EQ(::stat((state / "journal.log").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600U);
    ASSERT_TRUE(j->log_input("C", "T", false, 0, msg("with a token")).ok());
    ASSERT_TRUE(j->checkpoint().ok());  // the log is now the checkpoint's temporary file, renamed
    ASSERT_EQ(::stat((state / "journal.log").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600U);
    for (const auto& e : fs::directory_iterator(state)) {
      ASSERT_EQ(::stat(e.path().c_str(), &st), 0);
      EXPECT_EQ(st.st_mode & 077, 0U) << e.path();
    }
  }
  // A folder that already exists keeps its mode (the operator chose it).
  const fs::path existing = dir_ / "existing";
  ASSERT_EQ(::mkdir(existing.c_str(), 0750), 0);
  {
    auto j = journal::open(existing / "", false);  // a trailing separator too
    ASSERT_TRUE(j.ok()) << j.error().to_string();
    struct stat st {};
    ASSERT_EQ(::stat(existing.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0750U);
  }
  ::umask(old_mask);
}

}  // namespace
}  // namespace imsb::imsemu
