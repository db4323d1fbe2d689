// Sessions and multi-document transactions. They need a replica set: the odm test server
// is a one-member one; docker-compose.yml starts a real one (run with
// MONGODB_URI='mongodb://127.0.0.1:27017/?replicaSet=rs0'). transaction_test.cpp covers
// the retries, fail points and isolation.

#include "models.hpp"
#include "support.hpp"

#include <odm/driver/client.hpp>

#include <gtest/gtest.h>

#include <stdexcept>

namespace odm_test {
namespace {

class Sessions : public DriverTest {};

TEST_F(Sessions, OperationsRunInASession) {
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
  odm::Client other(uri_);
  odm::Session session = other.start_session();
  auto coll = db().collection<Counter>();
  EXPECT_THROW(coll.insert_one(session, Counter{1, 1, "a"}), odm::Error);
}

TEST_F(Sessions, TransactionCommitsOrAborts) {
  auto coll = db().collection<Counter>();
  coll.insert_one(Counter{1, 0, "a"});  // create the collection outside the transaction
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
