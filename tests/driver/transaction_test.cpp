// Multi-document transactions: isolation as MongoDB documents it, and
// Session::with_transaction's retries checked against the drivers' "Convenient API for
// Transactions" and "Driver Transactions" specifications
// (github.com/mongodb/specifications: source/transactions-convenient-api,
// source/transactions), errors injected with the failCommand fail point and every
// attempt counted with command monitoring.

#include "models.hpp"
#include "session_support.hpp"

#include <odm/driver/client.hpp>
#include <odm/query.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <utility>

namespace odm_test {
namespace {

using namespace std::chrono_literals;

auto id_is(std::int32_t id) { return odm::field(&Counter::id) == id; }
auto add(std::int32_t amount) { return odm::field(&Counter::value).inc(amount); }

class Transactions : public FailPointTest {
 protected:
  void SetUp() override {
    FailPointTest::SetUp();
    if (HasFatalFailure() || IsSkipped()) return;
    counters().insert_one(Counter{1, 0, "a"});  // the collection exists before any transaction
    recorder_.clear();
  }
  odm::Collection<Counter> counters() { return db().collection<Counter>(); }

  /// with_transaction with a body that inserts Counter{2}, counting the body's calls.
  int insert_in_transaction(odm::Session& session, std::chrono::milliseconds limit = 120s) {
    int calls = 0;
    session.with_transaction(
        [&](odm::Session& s) {
          ++calls;
          counters().insert_one(s, Counter{2, 2, "b"});
        },
        limit);
    return calls;
  }
};

// ---- isolation (https://www.mongodb.com/docs/manual/core/transactions-production-consideration/)

TEST_F(Transactions, ReadTheirSnapshotAndTheirOwnWrites) {
  auto coll = counters();
  odm::Session session = client().start_session();
  session.start_transaction();
  EXPECT_EQ(coll.get_by_id(session, 1).value, 0);  // the first operation takes the snapshot
  coll.update_one(id_is(1), odm::field(&Counter::value).set(5));
  EXPECT_EQ(coll.get_by_id(1).value, 5);
  EXPECT_EQ(coll.get_by_id(session, 1).value, 0) << "a transaction reads its snapshot, not later commits";
  coll.insert_one(session, Counter{2, 2, "b"});
  EXPECT_TRUE(coll.find_by_id(session, 2)) << "a transaction reads its own writes";
  EXPECT_EQ(coll.count(session), 2);
  EXPECT_FALSE(coll.find_by_id(2)) << "nobody else sees them before the commit";
  session.commit_transaction();
  EXPECT_TRUE(coll.find_by_id(2));
  EXPECT_EQ(coll.get_by_id(1).value, 5);
}

TEST_F(Transactions, TheFirstWriterWinsAndTheSecondIsAborted) {
  auto coll = counters();
  odm::Session first = client().start_session();
  odm::Session second = client().start_session();
  first.start_transaction();
  second.start_transaction();
  coll.update_one(first, id_is(1), add(1));
  const auto conflict = odm_test::error_of([&] { coll.update_one(second, id_is(1), add(10)); });
  ASSERT_TRUE(conflict) << "two transactions wrote one document";
  EXPECT_EQ(conflict->code(), 112) << conflict->what();  // WriteConflict
  EXPECT_TRUE(conflict->has_label("TransientTransactionError")) << conflict->raw_reply().to_json();
  // The server aborted the second transaction: its next operation finds none.
  const auto next = odm_test::error_of([&] { (void)coll.find_by_id(second, 1); });
  ASSERT_TRUE(next) << "the conflicting transaction went on";
  EXPECT_EQ(next->code(), 251) << next->what();  // NoSuchTransaction
  EXPECT_TRUE(next->has_label("TransientTransactionError"));
  second.abort_transaction();
  first.commit_transaction();
  EXPECT_EQ(coll.get_by_id(1).value, 1);
}

TEST_F(Transactions, AWriteAfterAnOutsideChangeToTheSameDocumentConflicts) {
  auto coll = counters();
  odm::Session session = client().start_session();
  session.start_transaction();
  EXPECT_EQ(coll.get_by_id(session, 1).value, 0);
  coll.update_one(id_is(1), add(5));
  const auto error = odm_test::error_of([&] { coll.update_one(session, id_is(1), add(1)); });
  ASSERT_TRUE(error) << "the transaction overwrote a change made after its snapshot";
  EXPECT_EQ(error->code(), 112) << error->what();
  EXPECT_TRUE(error->has_label("TransientTransactionError"));
  session.abort_transaction();
  EXPECT_EQ(coll.get_by_id(1).value, 5);
}

TEST_F(Transactions, AnOutsideWriteWaitsUntilTheTransactionEnds) {
  auto coll = counters();
  odm::Session session = client().start_session();
  session.start_transaction();
  coll.update_one(session, id_is(1), add(1));
  auto outside = std::async(std::launch::async, [&] { return coll.update_one(id_is(1), add(10)).modified; });
  EXPECT_EQ(outside.wait_for(300ms), std::future_status::timeout)
      << "a write outside the transaction waits while it holds the document";
  session.commit_transaction();
  EXPECT_EQ(outside.get(), 1);
  EXPECT_EQ(coll.get_by_id(1).value, 11) << "both increments count: the waiting one applies after the commit";
}

TEST_F(Transactions, ARealConflictInTheBodyRetriesTheWholeTransaction) {
  auto coll = counters();
  odm::Session session = client().start_session();
  int calls = 0;
  session.with_transaction([&](odm::Session& s) {
    ++calls;
    const std::int32_t seen = coll.get_by_id(s, 1).value;
    if (calls == 1) coll.update_one(id_is(1), add(100));  // someone else commits meanwhile
    coll.update_one(s, id_is(1), odm::field(&Counter::value).set(seen + 1));
  });
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(coll.get_by_id(1).value, 101) << "the retry read the other commit";
}

// ---- with_transaction and the convenient API specification ----------------------------

TEST_F(Transactions, ATransientErrorInTheBodyRunsTheTransactionAgain) {
  // failCommand's WriteConflict: the server labels it TransientTransactionError.
  fail_point(R"({"times": 1})", R"({"failCommands": ["insert"], "errorCode": 112})");
  odm::Session session = client().start_session();
  EXPECT_EQ(insert_in_transaction(session), 2);
  const auto inserts = recorder_.sent("insert");
  ASSERT_EQ(inserts.size(), 2u);
  EXPECT_LT(int_at(inserts[0], "txnNumber"), int_at(inserts[1], "txnNumber")) << "a new transaction";
  EXPECT_EQ(recorder_.attempts("abortTransaction"), 1) << "the failed attempt is aborted";
  EXPECT_EQ(recorder_.attempts("commitTransaction"), 1);
  EXPECT_EQ(counters().count(id_is(2)), 1);
}

TEST_F(Transactions, ANetworkErrorInTheBodyRunsTheTransactionAgain) {
  // The driver labels a network error in a transaction TransientTransactionError.
  fail_point(R"({"times": 1})", R"({"failCommands": ["insert"], "closeConnection": true})");
  odm::Session session = client().start_session();
  EXPECT_EQ(insert_in_transaction(session), 2);
  EXPECT_EQ(recorder_.attempts("insert"), 2) << "a write in a transaction is never retried on its own";
  EXPECT_EQ(recorder_.attempts("commitTransaction"), 1);
  EXPECT_EQ(counters().count(id_is(2)), 1);
}

TEST_F(Transactions, AServerErrorAndALostConnectionShowTheirLabelsAsOneReplyError) {
  // with_transaction reads the labels of both through odm::ReplyError, their common base.
  const auto label_of_failed_insert = [&](const std::string& failure) -> std::pair<bool, bool> {
    fail_point(R"({"times": 1})", R"({"failCommands": ["insert"], )" + failure + "}");
    odm::Session session = client().start_session();
    session.start_transaction();
    try {
      counters().insert_one(session, Counter{2, 2, "b"});
    } catch (const odm::ReplyError& error) {
      const bool from_server = dynamic_cast<const odm::ServerError*>(&error) != nullptr;
      EXPECT_NE(from_server, dynamic_cast<const odm::ConnectionError*>(&error) != nullptr) << error.what();
      return {from_server, error.has_label("TransientTransactionError")};
    }
    ADD_FAILURE() << "the insert did not fail: " << failure;
    return {false, false};
  };
  EXPECT_EQ(label_of_failed_insert(R"("errorCode": 112)"), std::make_pair(true, true)) << "WriteConflict";
  EXPECT_EQ(label_of_failed_insert(R"("closeConnection": true)"), std::make_pair(false, true)) << "a lost connection";
}

TEST_F(Transactions, AnErrorWithoutLabelIsNotRetried) {
  fail_point(R"({"times": 1})", R"({"failCommands": ["insert"], "errorCode": 2})");
  odm::Session session = client().start_session();
  const auto error = odm_test::error_of([&] { insert_in_transaction(session); });
  ASSERT_TRUE(error) << "the error was swallowed";
  EXPECT_EQ(error->code(), 2);
  EXPECT_FALSE(error->has_label("TransientTransactionError"));
  EXPECT_EQ(recorder_.attempts("insert"), 1);
  EXPECT_EQ(recorder_.attempts("abortTransaction"), 1);
  EXPECT_EQ(recorder_.attempts("commitTransaction"), 0);
  EXPECT_FALSE(session.in_transaction());
  EXPECT_EQ(counters().count(id_is(2)), 0);
}

TEST_F(Transactions, AnUnknownCommitResultCommitsAgainWithMajorityWriteConcern) {
  // ExceededTimeLimit (262) is a retryable error: libmongoc commits again once by itself
  // ("commitTransaction is a retryable write command"), then labels the error
  // UnknownTransactionCommitResult and with_transaction commits again.
  fail_point(R"({"times": 2})", R"({"failCommands": ["commitTransaction"], "errorCode": 262})");
  odm::Session session = client().start_session();
  EXPECT_EQ(insert_in_transaction(session), 1) << "the body is not run again";
  const auto commits = recorder_.sent("commitTransaction");
  ASSERT_EQ(commits.size(), 3u);
  EXPECT_FALSE(value_at(commits[0], "writeConcern"));
  for (std::size_t i = 1; i < commits.size(); ++i) {
    // "drivers MUST apply w: majority ... and wtimeout: 10000" to a retried commit.
    EXPECT_EQ(value_at(commits[i], "writeConcern.w"), value_at(json(R"({"w": "majority"})"), "w")) << commits[i].to_json();
    EXPECT_EQ(int_at(commits[i], "writeConcern.wtimeout"), 10000);
    EXPECT_EQ(int_at(commits[i], "txnNumber"), int_at(commits[0], "txnNumber")) << "the same transaction";
  }
  EXPECT_EQ(counters().count(id_is(2)), 1);
}

TEST_F(Transactions, ANetworkErrorOnCommitCommitsAgain) {
  fail_point(R"({"times": 1})", R"({"failCommands": ["commitTransaction"], "closeConnection": true})");
  odm::Session session = client().start_session();
  EXPECT_EQ(insert_in_transaction(session), 1);
  EXPECT_EQ(recorder_.attempts("commitTransaction"), 2);
  EXPECT_EQ(counters().count(id_is(2)), 1);
}

TEST_F(Transactions, MaxTimeMSExpiredOnCommitIsNotRetried) {
  // "the driver MUST retry the commit if and only if the error is not MaxTimeMSExpired".
  fail_point(R"({"times": 1})", R"({"failCommands": ["commitTransaction"], "errorCode": 50})");
  odm::Session session = client().start_session();
  const auto error = odm_test::error_of([&] { insert_in_transaction(session); });
  ASSERT_TRUE(error) << "the commit was retried after MaxTimeMSExpired";
  EXPECT_EQ(error->code(), 50) << error->what();
  EXPECT_TRUE(error->has_label("UnknownTransactionCommitResult")) << error->raw_reply().to_json();
  EXPECT_EQ(recorder_.attempts("commitTransaction"), 1);
}

TEST_F(Transactions, ATransientErrorOnCommitRunsTheTransactionAgain) {
  // NoSuchTransaction on commit, without a write concern error: TransientTransactionError.
  fail_point(R"({"times": 1})", R"({"failCommands": ["commitTransaction"], "errorCode": 251})");
  odm::Session session = client().start_session();
  EXPECT_EQ(insert_in_transaction(session), 2);
  EXPECT_EQ(recorder_.attempts("insert"), 2);
  EXPECT_EQ(recorder_.attempts("commitTransaction"), 2);
  EXPECT_EQ(counters().count(id_is(2)), 1) << "the first transaction never committed";
}

TEST_F(Transactions, AWriteConcernTimeoutOnCommitCommitsAgain) {
  // "The driver MUST add the UnknownTransactionCommitResult error label when
  // commitTransaction fails with ... write concern failed / timeout."
  fail_point(R"({"times": 1})", R"({"failCommands": ["commitTransaction"], "writeConcernError": {
      "code": 64, "codeName": "WriteConcernFailed", "errmsg": "waiting for replication timed out",
      "errInfo": {"wtimeout": true}}})");
  odm::Session session = client().start_session();
  EXPECT_EQ(insert_in_transaction(session), 1);
  EXPECT_EQ(recorder_.attempts("commitTransaction"), 2);
  EXPECT_EQ(counters().count(id_is(2)), 1);
}

TEST_F(Transactions, AnUnsatisfiableWriteConcernOnCommitIsNotRetried) {
  // UnsatisfiableWriteConcern (100) and UnknownReplWriteConcern (79) are not labelled: a
  // second commit could not do better.
  for (const char* code : {"100", "79"}) {
    SCOPED_TRACE(code);
    recorder_.clear();
    counters().delete_many(id_is(2));
    fail_point(R"({"times": 1})", std::string(R"({"failCommands": ["commitTransaction"], "writeConcernError": {"code": )") +
                                      code + R"(, "errmsg": "the write concern cannot be satisfied"}})");
    odm::Session session = client().start_session();
    const auto error = odm_test::error_of<odm::WriteError>([&] { insert_in_transaction(session); });
    ASSERT_TRUE(error) << "the write concern error was swallowed";
    EXPECT_EQ(error->code(), std::stoi(code)) << error->what();
    EXPECT_FALSE(error->has_label("UnknownTransactionCommitResult"));
    EXPECT_EQ(recorder_.attempts("commitTransaction"), 1);
  }
}

TEST_F(Transactions, ABodyThatEndsTheTransactionEndsIt) {
  // "If the ClientSession is in the 'no transaction', 'transaction aborted', or
  // 'transaction committed' state, assume the callback intentionally aborted or committed
  // the transaction and return immediately."
  odm::Session session = client().start_session();
  session.with_transaction([&](odm::Session& s) {
    counters().insert_one(s, Counter{2, 2, "b"});
    s.commit_transaction();
  });
  EXPECT_EQ(recorder_.attempts("commitTransaction"), 1);
  EXPECT_TRUE(counters().find_by_id(2));

  session.with_transaction([&](odm::Session& s) {
    counters().insert_one(s, Counter{3, 3, "c"});
    s.abort_transaction();
  });
  EXPECT_EQ(recorder_.attempts("commitTransaction"), 1) << "no commit after the body aborted";
  EXPECT_FALSE(counters().find_by_id(3));
}

TEST_F(Transactions, RetriesStopAtTheTimeLimit) {
  // The drivers' limit is 120 s; with_transaction takes a shorter one, so this stays fast.
  fail_point(R"("alwaysOn")", R"({"failCommands": ["insert"], "errorCode": 112})");
  odm::Session session = client().start_session();
  const auto in_body = odm_test::error_of([&] { insert_in_transaction(session, 300ms); });
  ASSERT_TRUE(in_body) << "a transaction that always conflicts committed";
  EXPECT_EQ(in_body->code(), 112);
  EXPECT_TRUE(in_body->has_label("TransientTransactionError")) << "the last error propagates as it was";
  EXPECT_GE(recorder_.attempts("insert"), 2) << "retried until the limit";

  recorder_.clear();
  fail_point(R"("alwaysOn")", R"({"failCommands": ["commitTransaction"], "errorCode": 262})");
  const auto on_commit = odm_test::error_of([&] { insert_in_transaction(session, 300ms); });
  ASSERT_TRUE(on_commit) << "a commit that always fails succeeded";
  EXPECT_EQ(on_commit->code(), 262);
  EXPECT_TRUE(on_commit->has_label("UnknownTransactionCommitResult"));
  EXPECT_EQ(recorder_.attempts("insert"), 1);
  EXPECT_GE(recorder_.attempts("commitTransaction"), 4) << "commits again until the limit (twice per try)";
  EXPECT_EQ(counters().count(id_is(2)), 0);
}

}  // namespace
}  // namespace odm_test
