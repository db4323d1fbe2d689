// Retryable writes, checked against the drivers' "Retryable Writes" specification
// (github.com/mongodb/specifications: source/retryable-writes): every single-document
// write odm offers is sent with a transaction number and retried exactly once after a
// retryable error, and the server applies it at most once; multi-document writes,
// writes in a transaction and clients with retryWrites=false are never retried.

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
auto add(std::int32_t amount) { return odm::field(&Counter::value).inc(amount); }

using Counters = odm::Collection<Counter>;

/// One write odm offers, the command it sends, and what it leaves behind when it was
/// applied exactly once (starting from counters 1 and 2 at 0).
struct WriteCase {
  const char* name;
  const char* command;
  std::function<void(Counters&)> write;
  std::function<bool(Counters&)> applied_once;
};

std::vector<WriteCase> single_document_writes() {
  auto value_of = [](Counters& c, std::int32_t id) { return c.get_by_id(id).value; };
  return {
      {"insert_one", "insert", [](Counters& c) { c.insert_one(Counter{3, 0, "c"}); },
       [](Counters& c) { return c.count() == 3; }},
      {"insert_many", "insert", [](Counters& c) { c.insert_many(std::vector<Counter>{{3, 0, "c"}, {4, 0, "d"}}); },
       [](Counters& c) { return c.count() == 4; }},
      {"update_one", "update", [](Counters& c) { c.update_one(id_is(1), add(1)); },
       [=](Counters& c) { return value_of(c, 1) == 1; }},
      {"replace_one", "update", [](Counters& c) { c.replace_one(id_is(1), Counter{1, 7, "r"}); },
       [=](Counters& c) { return value_of(c, 1) == 7; }},
      {"delete_one", "delete", [](Counters& c) { c.delete_one(id_is(2)); },
       [](Counters& c) { return c.count() == 1; }},
      {"find_one_and_update", "findAndModify", [](Counters& c) { c.find_one_and_update(id_is(1), add(1)); },
       [=](Counters& c) { return value_of(c, 1) == 1; }},
      {"find_one_and_replace", "findAndModify",
       [](Counters& c) { c.find_one_and_replace(id_is(1), Counter{1, 7, "r"}); },
       [=](Counters& c) { return value_of(c, 1) == 7; }},
      {"find_one_and_delete", "findAndModify", [](Counters& c) { c.find_one_and_delete(id_is(2)); },
       [](Counters& c) { return c.count() == 1; }},
      {"bulk_write of update_one", "update",
       [](Counters& c) { c.bulk_write().update_one(id_is(1), add(1)).update_one(id_is(2), add(1)).execute(); },
       [=](Counters& c) { return value_of(c, 1) == 1 && value_of(c, 2) == 1; }},
  };
}

class RetryableWrites : public FailPointTest {
 protected:
  Counters counters() { return db().collection<Counter>(); }

  void reset() {
    counters().delete_many({});
    counters().insert_many(std::vector<Counter>{{1, 0, "a"}, {2, 0, "b"}});
    recorder_.clear();
  }

  /// Runs every single-document write once with the fail point armed for one failure.
  void each_write_fails_once(const std::string& failure) {
    for (const WriteCase& write : single_document_writes()) {
      SCOPED_TRACE(write.name);
      reset();
      auto coll = counters();
      fail_point(R"({"times": 1})", R"({"failCommands": [")" + std::string(write.command) + R"("], )" + failure + "}");
      ASSERT_NO_THROW(write.write(coll));
      const auto sent = recorder_.sent(write.command);
      ASSERT_EQ(sent.size(), 2u) << "one retry";
      EXPECT_EQ(value_at(sent[0], "txnNumber"), value_at(sent[1], "txnNumber")) << sent[0].to_json();
      EXPECT_TRUE(value_at(sent[0], "txnNumber")) << "sent as a retryable write: " << sent[0].to_json();
      EXPECT_EQ(value_at(sent[0], "lsid"), value_at(sent[1], "lsid"));
      EXPECT_TRUE(write.applied_once(coll));
    }
  }
};

TEST_F(RetryableWrites, ARetryableErrorIsRetriedOnce) {
  // ExceededTimeLimit: the server labels it RetryableWriteError.
  each_write_fails_once(R"("errorCode": 262)");
}

TEST_F(RetryableWrites, ANetworkErrorIsRetriedOnce) { each_write_fails_once(R"("closeConnection": true)"); }

TEST_F(RetryableWrites, AWriteConcernErrorAfterTheWriteIsRetriedAndAppliedOnce) {
  // The first attempt is applied; the retry, with the same transaction number, is
  // answered from the server's record instead of being applied twice.
  each_write_fails_once(R"("writeConcernError": {"code": 262, "errmsg": "exceeded time limit"})");
}

TEST_F(RetryableWrites, ASecondRetryableErrorPropagates) {
  reset();
  // ShutdownInProgress, which also makes the driver check the server again first.
  fail_point(R"({"times": 2})", R"({"failCommands": ["insert"], "errorCode": 91})");
  const auto error = odm_test::error_of([&] { counters().insert_one(Counter{3, 0, "c"}); });
  ASSERT_TRUE(error) << "two failures were swallowed";
  EXPECT_EQ(error->code(), 91) << error->what();
  EXPECT_TRUE(error->has_label("RetryableWriteError"));
  EXPECT_EQ(recorder_.attempts("insert"), 2) << "retried once, not more";
  EXPECT_EQ(counters().count(), 2);
}

TEST_F(RetryableWrites, OtherErrorsAreNotRetried) {
  reset();
  fail_point(R"({"times": 1})", R"({"failCommands": ["update"], "errorCode": 2})");
  EXPECT_THROW(counters().update_one(id_is(1), add(1)), odm::ServerError);
  EXPECT_EQ(recorder_.attempts("update"), 1);
  EXPECT_EQ(counters().get_by_id(1).value, 0);
}

TEST_F(RetryableWrites, MultiDocumentWritesAreNeverRetried) {
  // "Drivers MUST NOT add a transaction ID to any ... write commands that include one or
  // more multi-document write operations ... MUST NOT retry these commands".
  for (const char* command : {"update", "delete"}) {
    SCOPED_TRACE(command);
    reset();
    fail_point(R"({"times": 1})", R"({"failCommands": [")" + std::string(command) + R"("], "errorCode": 262})");
    if (std::string(command) == "update")
      EXPECT_THROW(counters().update_many({}, add(1)), odm::ServerError);
    else
      EXPECT_THROW(counters().delete_many({}), odm::ServerError);
    const auto sent = recorder_.sent(command);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_FALSE(value_at(sent[0], "txnNumber")) << sent[0].to_json();
  }
}

TEST_F(RetryableWrites, WritesInATransactionAreNotRetriedOnTheirOwn) {
  // "drivers MUST NOT retry write commands within transactions"; the server adds no
  // RetryableWriteError label to them.
  reset();
  fail_point(R"({"times": 1})", R"({"failCommands": ["insert"], "errorCode": 262})");
  odm::Session session = client().start_session();
  session.start_transaction();
  const auto error = odm_test::error_of([&] { counters().insert_one(session, Counter{3, 0, "c"}); });
  ASSERT_TRUE(error) << "the error was swallowed";
  EXPECT_EQ(error->code(), 262);
  EXPECT_FALSE(error->has_label("RetryableWriteError")) << error->raw_reply().to_json();
  EXPECT_EQ(recorder_.attempts("insert"), 1);
  session.abort_transaction();
}

class NoRetryableWrites : public RetryableWrites {
 protected:
  std::string client_uri() const override {
    return uri_ + (uri_.find('?') == std::string::npos ? "?" : "&") + "retryWrites=false";
  }
};

TEST_F(NoRetryableWrites, RetryWritesFalseSendsNoTransactionNumberAndRetriesNothing) {
  reset();
  fail_point(R"({"times": 1})", R"({"failCommands": ["insert"], "errorCode": 262})");
  EXPECT_THROW(counters().insert_one(Counter{3, 0, "c"}), odm::ServerError);
  const auto sent = recorder_.sent("insert");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_FALSE(value_at(sent[0], "txnNumber"));
}

}  // namespace
}  // namespace odm_test
