// A write the server applied, whose reply odm then cannot decode as the model: the error
// must say the write happened (odm::DecodeAfterWriteError), keep what the server
// returned, and still be a DecodeError. A caller that retried on a plain DecodeError
// would apply an `$inc` twice.

#include "models.hpp"
#include "support.hpp"

#include <odm/driver/client.hpp>
#include <odm/query.hpp>

#include <gtest/gtest.h>

#include <string>

namespace odm_test {

// Models live outside the anonymous namespace: the reflection of member names needs
// types with linkage (clang refuses the others).
/// A tally whose `label` is an int; the documents below store it as a string.
struct Tally {
  std::int32_t id = 0;
  std::int32_t hits = 0;
  std::int32_t label = 0;
};
/// The same documents as they are stored.
struct StoredTally {
  std::int32_t id = 0;
  std::int32_t hits = 0;
  std::string label;
};

namespace {

class WriteApplied : public DriverTest {
 protected:
  void SetUp() override {
    DriverTest::SetUp();
    db().collection<StoredTally>("tally").insert_one(StoredTally{1, 0, "one"});
  }
  odm::Collection<Tally> tallies() { return db().collection<Tally>("tally"); }
  odm::Collection<StoredTally> stored() { return db().collection<StoredTally>("tally"); }
};

TEST_F(WriteApplied, FindOneAndUpdateSaysTheUpdateWasApplied) {
  auto coll = tallies();
  try {
    coll.find_one_and_update(odm::field(&Tally::id) == 1, odm::field(&Tally::hits).inc(1));
    FAIL() << "expected odm::DecodeAfterWriteError";
  } catch (const odm::DecodeAfterWriteError& error) {
    EXPECT_EQ(error.path(), "label");
    const std::string what = error.what();
    EXPECT_NE(what.find("label: expected int, got string"), std::string::npos) << what;
    EXPECT_NE(what.find("the write was applied"), std::string::npos) << what;
    EXPECT_NE(what.find(".tally"), std::string::npos) << what;
    EXPECT_EQ(error.operation(), "findAndModify in " + db_name_ + ".tally");
    // The document the server returned (the one before the update) is kept.
    EXPECT_EQ(odm::from_bson<StoredTally>(error.returned()).hits, 0);
    EXPECT_EQ(odm::from_bson<StoredTally>(error.returned()).label, "one");
  }
  // Applied exactly once.
  EXPECT_EQ(stored().get_by_id(1).hits, 1);
  // Still a DecodeError for code that catches those.
  EXPECT_THROW(coll.find_one_and_update(odm::field(&Tally::id) == 1, odm::field(&Tally::hits).inc(1),
                                        odm::FindOneAndUpdateOptions<Tally>{}.return_document(odm::ReturnDocument::after)),
               odm::DecodeError);
  EXPECT_EQ(stored().get_by_id(1).hits, 2);
}

TEST_F(WriteApplied, FindOneAndReplaceAndDeleteToo) {
  auto coll = tallies();
  try {
    coll.find_one_and_replace(odm::field(&Tally::id) == 1, Tally{1, 5, 7});
    FAIL() << "expected odm::DecodeAfterWriteError";
  } catch (const odm::DecodeAfterWriteError& error) {
    EXPECT_EQ(error.path(), "label");
  }
  EXPECT_EQ(coll.get_by_id(1).hits, 5);  // replaced: it fits now

  stored().insert_one(StoredTally{2, 9, "two"});
  try {
    coll.find_one_and_delete(odm::field(&Tally::id) == 2);
    FAIL() << "expected odm::DecodeAfterWriteError";
  } catch (const odm::DecodeAfterWriteError& error) {
    // Deleted, and the deleted document is not lost: it is in the error.
    EXPECT_EQ(odm::from_bson<StoredTally>(error.returned()).hits, 9);
  }
  EXPECT_FALSE(stored().find_by_id(2).has_value());
}

TEST_F(WriteApplied, AnUpsertedIdThatDoesNotFitTheModel) {
  auto coll = tallies();
  // The filter gives the new document a string _id; Tally's id is an int.
  const auto filter = odm::Filter<Tally>::raw(json(R"({"_id": "text-id"})"));
  try {
    coll.update_one(filter, odm::field(&Tally::hits).set(3), odm::UpdateOptions<Tally>{}.upsert());
    FAIL() << "expected odm::DecodeAfterWriteError";
  } catch (const odm::DecodeAfterWriteError& error) {
    EXPECT_EQ(error.path(), "_id");
    EXPECT_EQ(error.operation(), "update in " + db_name_ + ".tally");
    EXPECT_EQ(error.returned(), json(R"({"_id": "text-id"})"));
  }
  EXPECT_EQ(db().collection<StoredTally>("tally").count(), 2);  // inserted

  // The same in a bulk write.
  auto bulk = coll.bulk_write();
  bulk.update_one(odm::Filter<Tally>::raw(json(R"({"_id": "other-id"})")), odm::field(&Tally::hits).set(4),
                  odm::UpdateOptions<Tally>{}.upsert());
  EXPECT_THROW(bulk.execute(), odm::DecodeAfterWriteError);
  EXPECT_EQ(db().collection<StoredTally>("tally").count(), 3);
}

}  // namespace
}  // namespace odm_test
