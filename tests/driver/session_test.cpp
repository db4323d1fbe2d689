// Sessions and multi-document transactions. They need a replica set: the odm test server
// is a one-member one; docker-compose.yml starts a real one (run with
// MONGODB_URI='mongodb://127.0.0.1:27017/?replicaSet=rs0'). transaction_test.cpp covers
// the retries, fail points and isolation. On an engine without transactions
// (support.hpp's engine_gaps) the test checks that the refusal is a clear odm::Error that
// leaves nothing behind, and then skips.

#include "models.hpp"
#include "support.hpp"

#include <odm/driver/client.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>

namespace odm_test {
namespace {

class Sessions : public DriverTest {};

TEST_F(Sessions, OperationsRunInASession) {
  ODM_REQUIRE(sessions);
  auto coll = db().collection<Counter>();
  odm::Session session = client().start_session();
  coll.insert_one(session, Counter{1, 1, "a"});
  EXPECT_EQ(coll.count(session), 1);
  EXPECT_EQ(coll.find_by_id(session, 1)->value, 1);
  EXPECT_FALSE(session.in_transaction());
  // The session's commands carry its id.
  const std::optional<odm::Document> find = log_.last("find");
  ASSERT_TRUE(find);
  EXPECT_TRUE(has_key(*find, "lsid")) << find->to_json();
}

TEST_F(Sessions, ASessionBelongsToItsClient) {
  ODM_REQUIRE(sessions);
  odm::Client other(uri_);
  odm::Session session = other.start_session();
  auto coll = db().collection<Counter>();
  EXPECT_THROW(coll.insert_one(session, Counter{1, 1, "a"}), odm::Error);
}

TEST_F(Sessions, TransactionCommitsOrAborts) {
  auto coll = db().collection<Counter>();
  coll.insert_one(Counter{1, 0, "a"});  // create the collection outside the transaction

  if (const std::optional<std::string> missing = missing_capability(Capability::transactions)) {
    try {
      odm::Session session = client().start_session();
      session.with_transaction([&](odm::Session& s) { coll.insert_one(s, Counter{2, 2, "b"}); });
      FAIL() << engine_name(engine()) << " should refuse transactions";
    } catch (const odm::Error& error) {
      EXPECT_FALSE(std::string(error.what()).empty());
      EXPECT_FALSE(coll.find_by_id(2)) << "nothing of the refused transaction may remain";
      GTEST_SKIP() << *missing << "; it refused with: " << error.what();
    }
  }

  odm::Session session = client().start_session();

  session.with_transaction([&](odm::Session& s) {
    coll.insert_one(s, Counter{2, 2, "b"});
    coll.update_one(s, odm::Filter<Counter>::raw(json(R"({"_id": 1})")),
                    odm::Update<Counter>::raw(json(R"({"$inc": {"value": 1}})")));
  });
  EXPECT_EQ(coll.get_by_id(1).value, 1);
  EXPECT_TRUE(coll.find_by_id(2));

  EXPECT_THROW(session.with_transaction([&](odm::Session& s) {
    coll.insert_one(s, Counter{3, 3, "c"});
    throw std::runtime_error("give up");
  }),
               std::runtime_error);
  EXPECT_FALSE(coll.find_by_id(3)) << "an exception aborts the transaction";
  EXPECT_FALSE(session.in_transaction());
}

}  // namespace
}  // namespace odm_test
