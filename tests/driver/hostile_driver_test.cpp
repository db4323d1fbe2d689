// An adversary's cases against the README's driver promises: every reply decoded after a
// write says the write was applied (upserts of update_many and of a bulk write, the
// upserted document find_one_and_update returns), a bulk write whose upserted id does not
// fit the model still accounts for every write, and a session holding the pool's only
// connection gives PoolExhausted in time, never a hang.

#include "support.hpp"

#include <odm/driver/client.hpp>
#include <odm/query.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace odm_test {

/// `label` is an int here; the upserts below store other shapes.
struct Scored {
  std::int32_t id = 0;
  std::int32_t hits = 0;
  std::int32_t label = 0;
};

namespace {

using odm::WriteStatus;
using std::chrono::milliseconds;

class HostileDriver : public DriverTest {
 protected:
  odm::Collection<Scored> scored() { return db().collection<Scored>("scored"); }
  std::int64_t stored() { return scored().count(); }
};

TEST_F(HostileDriver, AnUpdateManyUpsertWhoseIdDoesNotFitSaysTheWriteWasApplied) {
  auto coll = scored();
  try {
    coll.update_many(odm::Filter<Scored>::raw(json(R"({"_id": "text"})")), odm::field(&Scored::hits).set(1),
                     odm::UpdateOptions<Scored>{}.upsert());
    FAIL() << "expected odm::DecodeAfterWriteError";
  } catch (const odm::DecodeAfterWriteError& error) {
    EXPECT_NE(std::string(error.what()).find("the write was applied"), std::string::npos) << error.what();
    EXPECT_EQ(error.returned(), json(R"({"_id": "text"})"));
  }
  EXPECT_EQ(stored(), 1);
}

TEST_F(HostileDriver, AnUpsertedDocumentThatFindOneAndUpdateReturnsAndDoesNotFit) {
  auto coll = scored();
  // The upsert stores label as a string (from the filter); the returned document (after)
  // does not fit Scored.
  const auto filter = odm::Filter<Scored>::raw(json(R"({"_id": 7, "label": "seven"})"));
  try {
    coll.find_one_and_update(filter, odm::field(&Scored::hits).inc(1),
                             odm::FindOneAndUpdateOptions<Scored>{}.upsert().return_document(odm::ReturnDocument::after));
    FAIL() << "expected odm::DecodeAfterWriteError";
  } catch (const odm::DecodeAfterWriteError& error) {
    EXPECT_EQ(error.path(), "label");
    EXPECT_EQ(error.returned(), json(R"({"_id": 7, "label": "seven", "hits": 1})"));
  }
  EXPECT_EQ(stored(), 1);
}

TEST_F(HostileDriver, ABulkWriteWithAnUpsertedIdThatDoesNotFitAccountsForEveryWrite) {
  ODM_REQUIRE(insert_counts);  // the statuses follow from the reply's n
  auto coll = scored();
  coll.insert_one(Scored{1, 0, 0});
  // Unordered: the upsert is applied (its id is a string), the duplicate refused, the
  // last insert applied. The error that stopped a write comes first, and it accounts for all.
  {
    auto bulk = coll.bulk_write(odm::BulkWriteOptions<Scored>{}.ordered(false));
    bulk.update_one(odm::Filter<Scored>::raw(json(R"({"_id": "text"})")), odm::field(&Scored::hits).set(1),
                    odm::UpdateOptions<Scored>{}.upsert())
        .insert_one(Scored{1, 0, 0})
        .insert_one(Scored{2, 0, 0});
    try {
      bulk.execute();
      FAIL() << "expected an exception";
    } catch (const odm::PartialWrite<Scored>& partial) {
      EXPECT_NE(dynamic_cast<const odm::DuplicateKeyError*>(&partial.error()), nullptr) << partial.what();
      EXPECT_EQ(partial.statuses(), (std::vector<WriteStatus>{WriteStatus::applied, WriteStatus::refused,
                                                               WriteStatus::applied}));
      EXPECT_EQ(partial.result().inserted_ids, (std::vector<std::int32_t>{2}));
      EXPECT_EQ(partial.result().upserted, 1);
    }
    EXPECT_EQ(stored(), 3);
  }
}

TEST_F(HostileDriver, ABulkWriteWhoseOnlyFailureIsAnUpsertedIdThatDoesNotFitIsAPartialWrite) {
  auto coll = scored();
  // No other failure: the DecodeAfterWriteError is what is thrown, and it is a PartialWrite
  // too, with every write applied and the inserted ids.
  {
    auto bulk = coll.bulk_write();
    bulk.insert_one(Scored{3, 0, 0})
        .update_one(odm::Filter<Scored>::raw(json(R"({"_id": "other"})")), odm::field(&Scored::hits).set(1),
                    odm::UpdateOptions<Scored>{}.upsert())
        .insert_one(Scored{4, 0, 0});
    try {
      bulk.execute();
      FAIL() << "expected an exception";
    } catch (const odm::DecodeAfterWriteError& error) {
      EXPECT_EQ(error.returned(), json(R"({"_id": "other"})"));
      const auto* partial = dynamic_cast<const odm::PartialWrite<Scored>*>(&error);
      ASSERT_NE(partial, nullptr);
      EXPECT_EQ(partial->statuses(), (std::vector<WriteStatus>(3, WriteStatus::applied)));
      EXPECT_EQ(partial->result().inserted_ids, (std::vector<std::int32_t>{3, 4}));
      EXPECT_TRUE(partial->write_errors().empty());
    }
    EXPECT_EQ(stored(), 3);
  }
}

TEST_F(HostileDriver, ASessionHoldingThePoolsOnlyConnectionIsPoolExhaustedNotAHang) {
  ODM_REQUIRE(sessions);
  const milliseconds wait(300);
  odm::Client small(uri_, odm::ClientOptions{}.max_pool_size(1).pool_wait_timeout(wait));
  auto coll = small.database(db_name_).collection<Scored>("scored");
  const auto start = std::chrono::steady_clock::now();
  {
    odm::Session session = small.start_session();
    EXPECT_THROW((void)coll.count(), odm::PoolExhausted);
  }
  // Generous: the configured wait plus a loaded machine's slack; a hang would never end.
  EXPECT_LT(std::chrono::steady_clock::now() - start, wait + milliseconds(10'000));
  EXPECT_EQ(coll.count(), 0);  // the session is gone: its connection is back
}

}  // namespace
}  // namespace odm_test
