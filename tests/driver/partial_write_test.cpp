// insert_many() and bulk_write() that fail part-way: the exception is the error that
// stopped them and an odm::PartialWrite<T> that accounts for every write (applied,
// refused, unconfirmed, not attempted), with the counts, the stored ids in input order
// (odm's generated ids for a model without an id member) and each refused write's index,
// code and message. Checked against what the server holds afterwards.

#include "fault_proxy.hpp"
#include "models.hpp"
#include "session_support.hpp"
#include "support.hpp"

#include <odm/driver/client.hpp>
#include <odm/query.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace odm_test {
namespace {

using odm::WriteStatus;
constexpr WriteStatus A = WriteStatus::applied;
constexpr WriteStatus R = WriteStatus::refused;
constexpr WriteStatus U = WriteStatus::unconfirmed;
constexpr WriteStatus N = WriteStatus::not_attempted;

std::vector<Counter> with_ids(const std::vector<int>& ids) {
  std::vector<Counter> all;
  for (int id : ids) all.push_back(Counter{id, id * 10, "new"});
  return all;
}

std::vector<int> indices(const std::vector<odm::WriteFailure>& failures) {
  std::vector<int> found;
  for (const auto& failure : failures) found.push_back(static_cast<int>(failure.index));
  return found;
}

class PartialWrites : public DriverTest {
 protected:
  /// The ids the collection holds, sorted.
  template <class T>
  std::vector<typename odm::Collection<T>::id_type> stored_ids(odm::Collection<T> coll) {
    std::vector<typename odm::Collection<T>::id_type> ids;
    for (const odm::Document& document : coll.template find<odm::Document>().to_vector()) {
      ids.push_back(odm::detail::decode_id<typename odm::Collection<T>::id_type>(document));
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  /// A unique index on LogLine::host.
  void unique_host() {
    db().run_command(json(
        R"({"createIndexes": "log_line", "indexes": [{"key": {"host": 1}, "name": "host_unique", "unique": true}]})"));
  }
};

TEST_F(PartialWrites, AnOrderedInsertManyStopsAtADuplicateAndSaysWhatItStored) {
  ODM_REQUIRE(insert_counts);
  auto coll = db().collection<Counter>();
  coll.insert_one(Counter{2, 0, "old"});
  try {
    coll.insert_many(with_ids({0, 1, 2, 3, 4}));
    FAIL() << "expected an exception";
  } catch (const odm::PartialWrite<Counter>& partial) {
    EXPECT_EQ(partial.statuses(), (std::vector<WriteStatus>{A, A, R, N, N}));
    EXPECT_EQ(partial.result().inserted, 2);
    EXPECT_EQ(partial.result().inserted_ids, (std::vector<std::int32_t>{0, 1}));
    ASSERT_EQ(partial.write_errors().size(), 1u);
    EXPECT_EQ(partial.write_errors()[0].index, 2u);
    EXPECT_EQ(partial.write_errors()[0].code, 11000);
    EXPECT_NE(partial.write_errors()[0].message.find("duplicate key"), std::string::npos);
    EXPECT_EQ(partial.positions(N), (std::vector<std::size_t>{3, 4}));
    EXPECT_EQ(partial.id(3), 3);
    // A position past the input is odm's UsageError (was std::out_of_range).
    EXPECT_THROW((void)partial.id(5), odm::UsageError);
    // It is the DuplicateKeyError it always was, whose reply numbers the writes as the input does.
    const auto* duplicate = dynamic_cast<const odm::DuplicateKeyError*>(&partial.error());
    ASSERT_NE(duplicate, nullptr);
    EXPECT_EQ(std::string(partial.what()), duplicate->what());
    EXPECT_NE(duplicate->raw_reply().to_json().find(R"("index" : 2)"), std::string::npos)
        << duplicate->raw_reply().to_json();
  }
  EXPECT_EQ(stored_ids(coll), (std::vector<std::int32_t>{0, 1, 2}));
  EXPECT_EQ(coll.get_by_id(2).group, "old");
  // Caught as the DuplicateKeyError, as before.
  EXPECT_THROW(coll.insert_many(with_ids({7, 0})), odm::DuplicateKeyError);
}

TEST_F(PartialWrites, AnUnorderedInsertManyGoesOnAndListsEachRefusedWrite) {
  ODM_REQUIRE(insert_counts);
  auto coll = db().collection<Counter>();
  coll.insert_many(with_ids({1, 4}));
  try {
    coll.insert_many(with_ids({0, 1, 2, 3, 4, 5}), odm::InsertManyOptions<Counter>{}.ordered(false));
    FAIL() << "expected an exception";
  } catch (const odm::PartialWrite<Counter>& partial) {
    EXPECT_EQ(partial.statuses(), (std::vector<WriteStatus>{A, R, A, A, R, A}));
    EXPECT_EQ(partial.result().inserted, 4);
    EXPECT_EQ(partial.result().inserted_ids, (std::vector<std::int32_t>{0, 2, 3, 5}));
    EXPECT_EQ(indices(partial.write_errors()), (std::vector<int>{1, 4}));
    for (const auto& failure : partial.write_errors()) EXPECT_EQ(failure.code, 11000);
    EXPECT_NE(dynamic_cast<const odm::DuplicateKeyError*>(&partial.error()), nullptr);
  }
  EXPECT_EQ(stored_ids(coll), (std::vector<std::int32_t>{0, 1, 2, 3, 4, 5}));
}

TEST_F(PartialWrites, AModelWithoutAnIdGetsTheIdsOdmGeneratedForWhatWasStored) {
  ODM_REQUIRE(insert_counts);
  unique_host();
  auto lines = db().collection<LogLine>();
  lines.insert_one(LogLine{"b", "old"});
  for (const bool ordered : {true, false}) {
    SCOPED_TRACE(ordered ? "ordered" : "unordered");
    const std::string tag = ordered ? "o" : "u";
    try {
      lines.insert_many(std::vector<LogLine>{{"a" + tag, "1"}, {"b", "2"}, {"c" + tag, "3"}},
                        odm::InsertManyOptions<LogLine>{}.ordered(ordered));
      FAIL() << "expected an exception";
    } catch (const odm::PartialWrite<LogLine>& partial) {
      EXPECT_EQ(partial.statuses(), ordered ? (std::vector<WriteStatus>{A, R, N}) : (std::vector<WriteStatus>{A, R, A}));
      const std::vector<odm::ObjectId>& ids = partial.result().inserted_ids;
      ASSERT_EQ(ids.size(), ordered ? 1u : 2u);
      EXPECT_EQ(ids[0], partial.id(0));
      // The stored documents carry exactly these ids.
      EXPECT_EQ(lines.find_by_id(ids[0])->host, "a" + tag);
      if (!ordered) {
        EXPECT_EQ(lines.find_by_id(ids[1])->host, "c" + tag);
      }
      // The refused one had its own id, which is not stored.
      ASSERT_TRUE(partial.id(1).has_value());
      EXPECT_FALSE(lines.find_by_id(*partial.id(1)).has_value());
    }
  }
  EXPECT_EQ(lines.count(), 4);  // b, ao, au, cu
}

TEST_F(PartialWrites, ABulkWriteAccountsForEveryKindOfWrite) {
  ODM_REQUIRE(insert_counts);
  auto coll = db().collection<Counter>();
  for (const bool ordered : {true, false}) {
    SCOPED_TRACE(ordered ? "ordered" : "unordered");
    coll.delete_many({});
    coll.insert_many(with_ids({0, 1}));
    auto bulk = coll.bulk_write(odm::BulkWriteOptions<Counter>{}.ordered(ordered));
    bulk.insert_one(Counter{10, 0, "new"})
        .update_one(odm::field(&Counter::id) == 0, odm::field(&Counter::value).inc(5))
        .insert_one(Counter{0, 0, "dup"})
        .delete_one(odm::field(&Counter::id) == 1)
        .update_one(odm::field(&Counter::id) == 20, odm::field(&Counter::value).set(1), odm::UpdateOptions<Counter>{}.upsert());
    try {
      bulk.execute();
      FAIL() << "expected an exception";
    } catch (const odm::DuplicateKeyError& error) {
      const auto* partial = dynamic_cast<const odm::PartialWrite<Counter>*>(&error);
      ASSERT_NE(partial, nullptr);
      const odm::BulkWriteResult<std::int32_t>& result = partial->result();
      if (ordered) {
        EXPECT_EQ(partial->statuses(), (std::vector<WriteStatus>{A, A, R, N, N}));
        EXPECT_EQ(result.deleted, 0);
        EXPECT_TRUE(result.upserted_ids.empty());
      } else {
        EXPECT_EQ(partial->statuses(), (std::vector<WriteStatus>{A, A, R, A, A}));
        EXPECT_EQ(result.deleted, 1);
        ASSERT_EQ(result.upserted_ids.size(), 1u);
        EXPECT_EQ(result.upserted_ids[0], (std::pair<std::size_t, std::int32_t>{4, 20}));
      }
      EXPECT_EQ(result.inserted, 1);
      EXPECT_EQ(result.inserted_ids, (std::vector<std::int32_t>{10}));
      EXPECT_EQ(result.matched, 1);
      EXPECT_EQ(result.modified, 1);
      EXPECT_EQ(indices(partial->write_errors()), (std::vector<int>{2}));
      EXPECT_FALSE(partial->id(1).has_value());  // an update carries no document id
      EXPECT_EQ(partial->id(2), 0);
    }
    EXPECT_EQ(stored_ids(coll), ordered ? (std::vector<std::int32_t>{0, 1, 10}) : (std::vector<std::int32_t>{0, 10, 20}));
    EXPECT_EQ(coll.get_by_id(0).value, 5);
    EXPECT_EQ(bulk.size(), 0u);  // execute() consumed the writes
  }
}

TEST_F(PartialWrites, ASuccessfulBulkWriteReportsTheIdsOdmGenerated) {
  auto lines = db().collection<LogLine>();
  auto bulk = lines.bulk_write();
  bulk.insert_one(LogLine{"h1", "x"}).delete_many(odm::field(&LogLine::host) == "none").insert_one(LogLine{"h2", "y"});
  const auto result = bulk.execute();
  ASSERT_EQ(result.inserted_ids.size(), 2u);
  EXPECT_EQ(lines.find_by_id(result.inserted_ids[0])->host, "h1");
  EXPECT_EQ(lines.find_by_id(result.inserted_ids[1])->host, "h2");
}

// MongoDB stores no document above maxBsonObjectSize (16 MiB). libmongoc notices only as it
// sends the command holding one, after the writes before it in that command went out, so
// odm refuses such a write before anything of the insert_many or bulk write is sent.
TEST_F(PartialWrites, ADocumentAboveTheServersLimitIsRefusedBeforeAnythingIsSent) {
  auto coll = db().collection<Counter>();
  coll.insert_one(Counter{1, 0, "small"});
  const std::string huge((16u << 20) + 64 * 1024, 'x');  // past libmongoc's own 16 KiB allowance too
  const auto refused = [&](auto&& write, std::size_t writes) {
    log_.clear();
    try {
      write();
      ADD_FAILURE() << "a document above 16 MiB was accepted";
    } catch (const odm::DriverError& error) {
      const auto* partial = dynamic_cast<const odm::PartialWrite<Counter>*>(&error);
      ASSERT_NE(partial, nullptr);
      EXPECT_EQ(partial->statuses(), std::vector<WriteStatus>(writes, N));
      EXPECT_EQ(partial->result().inserted, 0);
      EXPECT_NE(std::string(error.what()).find(" bytes, more than the 16777216 the server stores (maxBsonObjectSize); "
                                               "nothing was sent"),
                std::string::npos)
          << error.what();
      EXPECT_EQ(log_.started("insert") + log_.started("update"), 0);
    }
  };
  for (const bool ordered : {true, false}) {
    SCOPED_TRACE(ordered ? "ordered" : "unordered");
    refused([&] {
      coll.insert_many(std::vector<Counter>{{2, 0, "a"}, {3, 0, huge}, {4, 0, "b"}},
                       odm::InsertManyOptions<Counter>{}.ordered(ordered));
    }, 3);
    refused([&] {
      auto bulk = coll.bulk_write(odm::BulkWriteOptions<Counter>{}.ordered(ordered));
      bulk.insert_one(Counter{5, 0, "c"}).replace_one(odm::field(&Counter::id) == 1, Counter{1, 0, huge});
      bulk.execute();
    }, 2);
  }
  EXPECT_EQ(stored_ids(coll), std::vector<std::int32_t>{1});
  EXPECT_EQ(coll.get_by_id(1).group, "small");
}

// ---- a connection reset between batches ---------------------------------------------

/// Through a proxy that makes the server's write batches small (and maybe resets).
class PartialWritesThroughAProxy : public ThroughAProxy<PartialWrites> {};

TEST_F(PartialWritesThroughAProxy, AResetBetweenBatchesLeavesEveryDocumentAccountedFor) {
  unique_host();
  for (const bool ordered : {true, false}) {
    SCOPED_TRACE(ordered ? "ordered" : "unordered");
    db().collection<LogLine>().delete_many({});
    // Batches of 4 writes; the first insert command passes, every later one is reset
    // before it reaches the server.
    FaultProxy proxy(upstream_, {.fault = "reset", .after = 1, .commands = "insert", .max_write_batch_size = 4});
    ASSERT_TRUE(proxy.running());
    const std::chrono::milliseconds socket(10'000);
    odm::Client client(proxy.uri(), odm::ClientOptions{}.socket_timeout(socket));
    auto lines = client.database(db_name_).collection<LogLine>();
    std::vector<LogLine> batch;
    for (int i = 0; i < 10; ++i) batch.push_back(LogLine{"host" + std::to_string(i), "line"});

    const auto start = std::chrono::steady_clock::now();
    try {
      lines.insert_many(batch, odm::InsertManyOptions<LogLine>{}.ordered(ordered));
      FAIL() << "expected an exception";
    } catch (const odm::ConnectionError& error) {
      EXPECT_LT(std::chrono::steady_clock::now() - start, socket);  // a reset is seen at once
      const auto* partial = dynamic_cast<const odm::PartialWrite<LogLine>*>(&error);
      ASSERT_NE(partial, nullptr) << error.what();
      // Batch 1 stored, batch 2 sent on the connection that was reset, batch 3 never sent.
      EXPECT_EQ(partial->statuses(), (std::vector<WriteStatus>{A, A, A, A, U, U, U, U, N, N}));
      EXPECT_EQ(partial->result().inserted, 4);
      ASSERT_EQ(partial->result().inserted_ids.size(), 4u);
      for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(partial->result().inserted_ids[i], partial->id(i));
      EXPECT_TRUE(partial->write_errors().empty());
      // What the server holds is exactly what was reported stored (the proxy reset the
      // second batch before the server saw it), under the ids odm generated.
      auto direct = db().collection<LogLine>();
      std::vector<odm::ObjectId> expected = partial->result().inserted_ids;
      std::sort(expected.begin(), expected.end());
      EXPECT_EQ(stored_ids(direct), expected);
      for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(direct.get_by_id(*partial->id(i)).host, batch[i].host);
    }
  }
}

TEST_F(PartialWritesThroughAProxy, AResetInTheMiddleOfABulkWrite) {
  FaultProxy proxy(upstream_, {.fault = "reset", .after = 0, .commands = "update", .max_write_batch_size = 0});
  ASSERT_TRUE(proxy.running());
  odm::Client client(proxy.uri());
  auto coll = client.database(db_name_).collection<Counter>();
  auto bulk = coll.bulk_write(odm::BulkWriteOptions<Counter>{}.ordered(false));
  bulk.insert_one(Counter{1, 1, "a"})
      .insert_one(Counter{2, 2, "a"})
      .update_one(odm::field(&Counter::id) == 1, odm::field(&Counter::value).inc(1))
      .delete_one(odm::field(&Counter::id) == 2);
  try {
    bulk.execute();
    FAIL() << "expected odm::ConnectionError";
  } catch (const odm::PartialWrite<Counter>& partial) {
    EXPECT_NE(dynamic_cast<const odm::ConnectionError*>(&partial.error()), nullptr) << partial.what();
    // A lost connection ends even an unordered bulk write.
    EXPECT_EQ(partial.statuses(), (std::vector<WriteStatus>{A, A, U, N}));
    EXPECT_EQ(partial.result().inserted_ids, (std::vector<std::int32_t>{1, 2}));
  }
  EXPECT_EQ(stored_ids(db().collection<Counter>()), (std::vector<std::int32_t>{1, 2}));
  EXPECT_EQ(db().collection<Counter>().get_by_id(1).value, 1);
}

// ---- randomized, against a reference model --------------------------------------------

TEST_F(PartialWritesThroughAProxy, RandomInsertManyMatchesAReferenceModel) {
  ODM_REQUIRE(insert_counts);
  // Small batches (3 writes) so that most insert_many calls span several commands.
  FaultProxy proxy(upstream_, {.fault = "none", .after = 0, .commands = "", .max_write_batch_size = 3});
  ASSERT_TRUE(proxy.running());
  CommandLog commands;
  odm::Client client(proxy.uri(), commands.attach());
  auto coll = client.database(db_name_).collection<Counter>();

  const unsigned seed = 20261124;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  std::set<std::int32_t> stored;  // the reference: the ids the collection holds
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const bool ordered = random() % 2 == 0;
    const int count = 1 + static_cast<int>(random() % 12);
    std::vector<int> ids;
    for (int i = 0; i < count; ++i) ids.push_back(static_cast<int>(random() % 60));

    // What MongoDB does: a duplicate (of a stored id or of an earlier write) is refused;
    // an ordered insert stops there.
    std::vector<WriteStatus> expected(ids.size(), N);
    std::vector<std::int32_t> expected_ids;
    std::set<std::int32_t> after = stored;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (!after.insert(ids[i]).second) {
        expected[i] = R;
        if (ordered) break;
      } else {
        expected[i] = A;
        expected_ids.push_back(ids[i]);
      }
    }
    const bool fails = std::find(expected.begin(), expected.end(), R) != expected.end();
    try {
      const auto result = coll.insert_many(with_ids(ids), odm::InsertManyOptions<Counter>{}.ordered(ordered));
      EXPECT_FALSE(fails);
      EXPECT_EQ(result.inserted_ids, expected_ids);
    } catch (const odm::PartialWrite<Counter>& partial) {
      EXPECT_TRUE(fails) << partial.what();
      EXPECT_EQ(partial.statuses(), expected);
      EXPECT_EQ(partial.result().inserted_ids, expected_ids);
      EXPECT_EQ(partial.result().inserted, static_cast<std::int64_t>(expected_ids.size()));
      std::vector<std::size_t> refused;
      for (std::size_t i = 0; i < expected.size(); ++i)
        if (expected[i] == R) refused.push_back(i);
      EXPECT_EQ(partial.positions(R), refused);
      ASSERT_EQ(partial.write_errors().size(), refused.size());
      for (std::size_t i = 0; i < refused.size(); ++i) {
        EXPECT_EQ(partial.write_errors()[i].index, refused[i]);
        EXPECT_EQ(partial.write_errors()[i].code, 11000);
      }
    }
    stored = after;
    EXPECT_EQ(stored_ids(coll), std::vector<std::int32_t>(stored.begin(), stored.end()));
    if (::testing::Test::HasFailure()) break;
  }
  // The writes did travel in several commands per call.
  EXPECT_GT(commands.started("insert"), 60) << "rounds: 40";
}

// ---- a reply whose counts contradict its own write errors: a server fault ----------------

/// What an insert_many of 0..3 over a stored 1 reports when the reply says `n: 4` (four
/// inserted, yet one refused): a ProtocolError that is a PartialWrite, with the command's
/// writes unconfirmed and none of its count taken as a figure.
void expect_contradiction_reported(odm::Collection<Counter>& coll, bool ordered) {
  try {
    coll.insert_many(with_ids({0, 1, 2, 3}), odm::InsertManyOptions<Counter>{}.ordered(ordered));
    ADD_FAILURE() << "a reply counting a refused insert as inserted was taken";
  } catch (const odm::PartialWrite<Counter>& partial) {
    const auto* fault = dynamic_cast<const odm::ProtocolError*>(&partial.error());
    ASSERT_NE(fault, nullptr) << partial.what();
    EXPECT_NE(std::string(partial.what()).find("the server's reply contradicts itself: of the 4 inserts of one "
                                               "command it refuses 1 and counts 4 inserted, where its write errors "
                                               "leave " +
                                               std::string(ordered ? "1" : "3") + " (a server fault)"),
              std::string::npos)
        << partial.what();
    EXPECT_EQ(partial.result().inserted, 0) << "no figure from a reply that contradicts itself";
    EXPECT_TRUE(partial.result().inserted_ids.empty());
    EXPECT_EQ(partial.statuses(), (std::vector<WriteStatus>{U, R, U, U}));
    EXPECT_EQ(indices(partial.write_errors()), (std::vector<int>{1}));
    EXPECT_FALSE(fault->raw_reply().empty()) << "the reply as the server sent it";
  }
}

/// The odm test server, whose fail point data odmReplyFields (its own) makes a reply
/// contradict itself; skipped elsewhere.
class ContradictingReplies : public FailPointTest {
 protected:
  void SetUp() override {
    FailPointTest::SetUp();
    if (HasFatalFailure() || IsSkipped()) return;
    if (engine() != Engine::odm_test_server)
      GTEST_SKIP() << "needs the odm test server's odmReplyFields fail point data, which makes a reply contradict "
                      "itself; MongoDB's replies do not";
  }
};

// Told by the fail point to answer n: 4.
TEST_F(ContradictingReplies, AnInsertCountAboveWhatTheWriteErrorsLeaveIsAProtocolError) {
  for (const bool ordered : {true, false}) {
    SCOPED_TRACE(ordered ? "ordered" : "unordered");
    auto coll = client_->database(db_name_).collection<Counter>();
    coll.delete_many({});
    coll.insert_one(Counter{1, 0, "old"});
    fail_point(R"({"times": 1})", R"({"failCommands": ["insert"], "odmReplyFields": {"n": 4}})");
    expect_contradiction_reported(coll, ordered);
  }
}

// A reply that counts fewer inserts than were sent, with no write error: as much a fault.
TEST_F(ContradictingReplies, AnInsertCountBelowWhatWasSentWithoutErrorsIsAProtocolError) {
  auto coll = client_->database(db_name_).collection<Counter>();
  fail_point(R"({"times": 1})", R"({"failCommands": ["insert"], "odmReplyFields": {"n": 1}})");
  try {
    coll.insert_many(with_ids({0, 1, 2}));
    ADD_FAILURE() << "a reply counting 1 of 3 inserts, with no error, was taken";
  } catch (const odm::PartialWrite<Counter>& partial) {
    ASSERT_NE(dynamic_cast<const odm::ProtocolError*>(&partial.error()), nullptr) << partial.what();
    EXPECT_EQ(partial.result().inserted, 0);
    EXPECT_EQ(partial.statuses(), (std::vector<WriteStatus>{U, U, U}));
  }
}

// mongo-java-server counts refused documents in n (the engine gap insert_counts): odm
// reports that as the server fault it is, never as a plausible figure.
TEST_F(PartialWrites, MongoJavaServersMiscountedInsertsAreAProtocolError) {
  if (engine() != Engine::mongo_java_server)
    GTEST_SKIP() << "only mongo-java-server's insert replies count refused documents in n; MongoDB's and the odm "
                    "test server's count what they stored (ContradictingReplies makes the test server do it)";
  for (const bool ordered : {true, false}) {
    SCOPED_TRACE(ordered ? "ordered" : "unordered");
    auto coll = db().collection<Counter>();
    coll.delete_many({});
    coll.insert_one(Counter{1, 0, "old"});
    expect_contradiction_reported(coll, ordered);
  }
}

/// Waits (at most 10 s) until `coll` holds `count` documents matching `filter`.
std::int64_t count_eventually(odm::Collection<Counter>& coll, const odm::Filter<Counter>& filter, std::int64_t count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::int64_t now = coll.count(filter);
  while (now != count && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    now = coll.count(filter);
  }
  return now;
}

// README: "A reply whose count of inserts contradicts its own write errors ... that command's writes are `unconfirmed`
// and left out of `result()`'s counts, and nothing after it is sent" -- in an unordered bulk write mixing kinds.
TEST_F(ContradictingReplies, AnUnorderedMixedBulkWriteKeepsTheOtherCommandsCountsAndStops) {
  auto coll = client_->database(db_name_).collection<Counter>();
  coll.insert_many(with_ids({1, 2}));  // values 10, 20
  fail_point(R"({"times": 1})", R"({"failCommands": ["insert"], "odmReplyFields": {"n": 2}})");
  auto bulk = coll.bulk_write(odm::BulkWriteOptions<Counter>{}.ordered(false));
  bulk.update_one(odm::field(&Counter::id) == 2, odm::field(&Counter::value).inc(5))  // 0: its own command
      .insert_one(Counter{1, 0, "dup"})                                               // 1: refused
      .insert_one(Counter{3, 30, "new"})                                              // 2: stored, n says 2
      .update_one(odm::field(&Counter::id) == 2, odm::field(&Counter::value).inc(1));  // 3: after the fault
  try {
    bulk.execute();
    ADD_FAILURE() << "a reply counting a refused insert was taken";
  } catch (const odm::ProtocolError& fault) {
    const auto* partial = dynamic_cast<const odm::PartialWrite<Counter>*>(&fault);
    ASSERT_NE(partial, nullptr) << "the ProtocolError is also a PartialWrite: " << fault.what();
    EXPECT_NE(std::string(fault.what()).find("of the 2 inserts of one command it refuses 1 and counts 2 inserted, "
                                             "where its write errors leave 1 (a server fault)"),
              std::string::npos)
        << fault.what();
    EXPECT_EQ(partial->statuses(), (std::vector<WriteStatus>{A, R, U, N}));
    const auto& result = partial->result();
    EXPECT_EQ(result.inserted, 0) << "no figure from the contradicted command";
    EXPECT_TRUE(result.inserted_ids.empty());
    EXPECT_EQ(result.matched, 1) << "the update before it was answered by a consistent reply";
    EXPECT_EQ(result.modified, 1);
    EXPECT_EQ(indices(partial->write_errors()), (std::vector<int>{1}));
    EXPECT_EQ(partial->positions(N), (std::vector<std::size_t>{3}));
  } catch (const odm::Error& other) {
    ADD_FAILURE() << "not a ProtocolError: " << other.what();
  }
  auto direct = db().collection<Counter>();
  EXPECT_EQ(direct.get_by_id(2).value, 25) << "the write after the contradicted command was not sent";
  EXPECT_EQ(direct.get_by_id(1).group, "new");  // with_ids' group: the duplicate was refused
}

// README: "that command's writes are `unconfirmed` and left out of `result()`'s counts, and nothing after it is sent"
// -- an earlier insert command's count stays; a fault in a later command, no write error.
TEST_F(ContradictingReplies, AnOrderedBulkWriteCountsOnlyTheCommandsBeforeTheFault) {
  auto coll = client_->database(db_name_).collection<Counter>();
  coll.insert_one(Counter{1, 0, "old"});
  // The first insert command passes; every later one answers n: 3.
  fail_point(R"({"skip": 1})", R"({"failCommands": ["insert"], "odmReplyFields": {"n": 3}})");
  auto bulk = coll.bulk_write();
  bulk.insert_one(Counter{10, 0, "a"})                                                // 0: consistent
      .update_one(odm::field(&Counter::id) == 1, odm::field(&Counter::value).inc(1))  // 1
      .insert_one(Counter{11, 0, "b"})                                                // 2: n: 3 for 2 sent
      .insert_one(Counter{12, 0, "c"})                                                // 3
      .delete_one(odm::field(&Counter::id) == 1);                                     // 4: not sent
  try {
    bulk.execute();
    ADD_FAILURE() << "a reply counting 3 of 2 inserts was taken";
  } catch (const odm::PartialWrite<Counter>& partial) {
    ASSERT_NE(dynamic_cast<const odm::ProtocolError*>(&partial.error()), nullptr) << partial.what();
    EXPECT_NE(std::string(partial.what()).find("of the 2 inserts of one command it refuses 0 and counts 3 inserted, "
                                               "where its write errors leave 2"),
              std::string::npos)
        << partial.what();
    EXPECT_EQ(partial.statuses(), (std::vector<WriteStatus>{A, A, U, U, N}));
    EXPECT_EQ(partial.result().inserted, 1);
    EXPECT_EQ(partial.result().inserted_ids, (std::vector<std::int32_t>{10}));
    EXPECT_EQ(partial.result().matched, 1);
    EXPECT_EQ(partial.result().deleted, 0);
    EXPECT_TRUE(partial.write_errors().empty());
    EXPECT_EQ(partial.id(2), 11);
  }
  auto direct = db().collection<Counter>();
  EXPECT_TRUE(direct.find_by_id(1).has_value()) << "the delete after the fault was sent";
}

// README: the ProtocolError "is also a `PartialWrite<T>`"; "the write throws an `odm::ProtocolError`" even after an
// earlier refusal of an unordered write, whose DuplicateKeyError it replaces.
TEST_F(ContradictingReplies, AFaultAfterARefusalIsStillTheProtocolError) {
  auto coll = client_->database(db_name_).collection<Counter>();
  coll.insert_one(Counter{1, 0, "old"});
  fail_point(R"({"skip": 1})", R"({"failCommands": ["insert"], "odmReplyFields": {"n": 5}})");
  auto bulk = coll.bulk_write(odm::BulkWriteOptions<Counter>{}.ordered(false));
  bulk.insert_one(Counter{1, 0, "dup"})                                               // 0: refused, consistent
      .update_one(odm::field(&Counter::id) == 1, odm::field(&Counter::value).inc(1))  // 1
      .insert_one(Counter{5, 0, "a"})                                                 // 2: n: 5 for 2 sent
      .insert_one(Counter{6, 0, "b"});                                                // 3
  try {
    bulk.execute();
    ADD_FAILURE() << "the contradicted reply was taken";
  } catch (const odm::PartialWrite<Counter>& partial) {
    EXPECT_NE(dynamic_cast<const odm::ProtocolError*>(&partial.error()), nullptr) << partial.what();
    EXPECT_EQ(partial.statuses(), (std::vector<WriteStatus>{R, A, U, U}));
    EXPECT_EQ(partial.result().inserted, 0);
    EXPECT_EQ(partial.result().matched, 1);
    EXPECT_EQ(indices(partial.write_errors()), (std::vector<int>{0}));
  }
}

// README: "`insert_many` and `bulk_write()` ... A reply whose count of inserts contradicts its own write errors ...
// the write throws an `odm::ProtocolError`" -- the issue's 4 inserts, one refused, n: 4, through bulk_write().
TEST_F(ContradictingReplies, TheIssuesFourInsertsThroughABulkWrite) {
  auto coll = client_->database(db_name_).collection<Counter>();
  coll.insert_one(Counter{1, 0, "old"});
  fail_point(R"({"times": 1})", R"({"failCommands": ["insert"], "odmReplyFields": {"n": 4}})");
  auto bulk = coll.bulk_write(odm::BulkWriteOptions<Counter>{}.ordered(false));
  for (const Counter& counter : with_ids({0, 1, 2, 3})) bulk.insert_one(counter);
  try {
    bulk.execute();
    ADD_FAILURE() << "inserted == 4 taken as a figure";
  } catch (const odm::ProtocolError& fault) {
    const auto* partial = dynamic_cast<const odm::PartialWrite<Counter>*>(&fault);
    ASSERT_NE(partial, nullptr);
    EXPECT_EQ(partial->result().inserted, 0);
    EXPECT_EQ(partial->statuses(), (std::vector<WriteStatus>{U, R, U, U}));
    EXPECT_NE(std::string(fault.what()).find("refuses 1 and counts 4 inserted, where its write errors leave 3"),
              std::string::npos)
        << fault.what();
  }
}

// ---- unacknowledged writes have no counts to contradict --------------------------------------

// README: "unconfirmed (... answered by a reply that contradicts itself ...)"; "A reply whose count of inserts
// contradicts its own write errors ... is a server fault". With w: 0 there is no reply at all: libmongoc's bulk
// reply then has no nInserted (a defect found: odm read it as 0 and took it for a contradiction).
TEST_F(PartialWrites, AnUnacknowledgedInsertManyIsNoServerFault) {
  ODM_REQUIRE(unacknowledged_writes);
  for (const bool ordered : {false, true}) {
    SCOPED_TRACE(ordered ? "ordered" : "unordered");
    const int first = ordered ? 10 : 0;
    auto coll = db().collection<Counter>();
    coll.write_concern(odm::WriteConcern::unacknowledged());
    try {
      coll.insert_many(with_ids({first, first + 1, first + 2}), odm::InsertManyOptions<Counter>{}.ordered(ordered));
    } catch (const odm::ProtocolError& fault) {
      ADD_FAILURE() << "w: 0 gets no reply, so no reply contradicted itself: " << fault.what();
    }
    auto direct = db().collection<Counter>();
    EXPECT_EQ(count_eventually(direct, odm::field(&Counter::id) >= first && odm::field(&Counter::id) <= first + 2, 3), 3);
  }
}

// The same through bulk_write(): README "`insert_many` and `bulk_write()`".
TEST_F(PartialWrites, AnUnacknowledgedBulkWriteWithInsertsIsNoServerFault) {
  ODM_REQUIRE(unacknowledged_writes);
  auto coll = db().collection<Counter>();
  coll.insert_one(Counter{1, 0, "old"});
  auto bulk = coll.bulk_write(
      odm::BulkWriteOptions<Counter>{}.ordered(false).write_concern(odm::WriteConcern::unacknowledged()));
  bulk.insert_one(Counter{2, 0, "a"}).insert_one(Counter{3, 0, "b"}).update_one(odm::field(&Counter::id) == 1,
                                                                                 odm::field(&Counter::value).inc(1));
  try {
    bulk.execute();
  } catch (const odm::ProtocolError& fault) {
    ADD_FAILURE() << "w: 0 gets no reply, so no reply contradicted itself: " << fault.what();
  }
  auto direct = db().collection<Counter>();
  EXPECT_EQ(count_eventually(direct, odm::field(&Counter::value) == 1, 1), 1) << "the update after the inserts was sent";
  EXPECT_EQ(direct.count(), 3);
}

}  // namespace
}  // namespace odm_test
