// Causal consistency, checked against the test plan of the drivers' "Causal Consistency"
// specification (github.com/mongodb/specifications: source/causal-consistency): in a
// session, every read after the first carries readConcern.afterClusterTime equal to the
// operationTime of the session's previous reply, whatever that operation was.

#include "models.hpp"
#include "session_support.hpp"

#include <odm/driver/client.hpp>
#include <odm/query.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace odm_test {
namespace {

auto id_is(std::int32_t id) { return odm::field(&Counter::id) == id; }

using Counters = odm::Collection<Counter>;

class CausalConsistency : public SessionTest {
 protected:
  void SetUp() override {
    SessionTest::SetUp();
    if (HasFatalFailure() || IsSkipped()) return;
    counters().insert_one(Counter{1, 0, "a"});
    recorder_.clear();
  }
  Counters counters() { return db().collection<Counter>(); }

  /// The operationTime of the last reply to `command`.
  std::optional<std::string> operation_time_of(const std::string& command) const {
    const auto replies = recorder_.replies(command);
    return replies.empty() ? std::nullopt : value_at(replies.back(), "operationTime");
  }
};

TEST_F(CausalConsistency, TheFirstReadOfASessionSendsNoAfterClusterTime) {
  odm::Session session = client().start_session();
  (void)counters().find_by_id(session, 1);
  const auto finds = recorder_.sent("find");
  ASSERT_EQ(finds.size(), 1u);
  EXPECT_FALSE(value_at(finds[0], "readConcern.afterClusterTime")) << finds[0].to_json();
}

TEST_F(CausalConsistency, AReadAfterAnyWriteWaitsForThatWrite) {
  struct Write {
    const char* command;
    std::function<void(Counters&, odm::Session&)> run;
  };
  const std::vector<Write> writes{
      {"insert", [](Counters& c, odm::Session& s) { c.insert_one(s, Counter{2, 0, "b"}); }},
      {"update", [](Counters& c, odm::Session& s) { c.update_one(s, id_is(1), odm::field(&Counter::value).inc(1)); }},
      {"delete", [](Counters& c, odm::Session& s) { c.delete_one(s, id_is(2)); }},
      {"findAndModify",
       [](Counters& c, odm::Session& s) { c.find_one_and_update(s, id_is(1), odm::field(&Counter::value).inc(1)); }},
      // A write that fails advances the session's operation time too.
      {"insert", [](Counters& c, odm::Session& s) { EXPECT_THROW(c.insert_one(s, Counter{1, 0, "dup"}), odm::DuplicateKeyError); }},
  };
  for (const Write& write : writes) {
    SCOPED_TRACE(write.command);
    recorder_.clear();
    odm::Session session = client().start_session();
    auto coll = counters();
    write.run(coll, session);
    const auto written_at = operation_time_of(write.command);
    ASSERT_TRUE(written_at);
    (void)coll.find_by_id(session, 1);
    const auto find = recorder_.sent("find").back();
    EXPECT_EQ(value_at(find, "readConcern.afterClusterTime"), written_at) << find.to_json();
    EXPECT_FALSE(value_at(find, "readConcern.level")) << "the server's default read concern is kept";
  }
}

TEST_F(CausalConsistency, EveryReadAfterAReadWaitsForIt) {
  struct Read {
    const char* command;
    std::function<void(Counters&, odm::Session&)> run;
  };
  const std::vector<Read> reads{
      {"find", [](Counters& c, odm::Session& s) { (void)c.find(s).to_vector(); }},
      {"aggregate", [](Counters& c, odm::Session& s) { (void)c.count(s); }},
      {"aggregate",
       [](Counters& c, odm::Session& s) { (void)c.aggregate(s, {json(R"({"$match": {"_id": 1}})")}).to_vector(); }},
  };
  for (const Read& read : reads) {
    SCOPED_TRACE(read.command);
    recorder_.clear();
    odm::Session session = client().start_session();
    auto coll = counters();
    (void)coll.find_one(session, id_is(1));
    const auto first_at = operation_time_of("find");
    ASSERT_TRUE(first_at);
    read.run(coll, session);
    const auto second = recorder_.sent(read.command).back();
    EXPECT_EQ(value_at(second, "readConcern.afterClusterTime"), first_at) << second.to_json();
  }
}

TEST_F(CausalConsistency, ReadsOutsideASessionSendNoAfterClusterTimeButGossipTheClusterTime) {
  counters().update_one(id_is(1), odm::field(&Counter::value).inc(1));
  (void)counters().find_by_id(1);
  const auto find = recorder_.sent("find").back();
  EXPECT_FALSE(value_at(find, "readConcern.afterClusterTime")) << find.to_json();
  // "messages sent to the server should include $clusterTime" on a deployment with one.
  EXPECT_TRUE(value_at(find, "$clusterTime.clusterTime")) << find.to_json();
}

TEST_F(CausalConsistency, AnAfterClusterTimeAheadOfTheServerIsRefused) {
  // readConcern afterClusterTime may not be greater than the server's cluster time.
  const auto error = odm_test::error_of([&] {
    db().run_command(json(R"({"find": "counter", "filter": {},
                              "readConcern": {"afterClusterTime": {"$timestamp": {"t": 4000000000, "i": 1}}}})"));
  });
  ASSERT_TRUE(error) << "a read from the future was accepted";
  EXPECT_EQ(error->code(), 72) << error->what();  // InvalidOptions
}

}  // namespace
}  // namespace odm_test
