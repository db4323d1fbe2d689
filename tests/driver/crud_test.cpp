// Typed CRUD against the server: inserts (with id generation), finds, cursors across
// batches, count, replace, update, delete, find-and-modify, bulk writes, and the raw
// escape hatches. Filters, updates and sorts come from the typed builders (odm/query.hpp)
// except where a test is about the raw escape hatch.

#include "models.hpp"
#include "support.hpp"

#include <odm/driver/client.hpp>
#include <odm/query.hpp>

#include <gtest/gtest.h>

#include <concepts>
#include <ranges>
#include <string>
#include <vector>

namespace odm_test {

// Models live outside the anonymous namespace: the reflection of member names needs
// types with linkage (clang refuses the others).
/// A $group result.
struct Total {
  std::string id;
  std::int32_t total = 0;
  std::int32_t n = 0;
};

namespace {

using odm::Filter;
using odm::Update;

class Crud : public DriverTest {};

// A cursor is a move-only input range of T.
static_assert(std::ranges::input_range<odm::Cursor<Counter>>);
static_assert(std::same_as<std::ranges::range_value_t<odm::Cursor<Counter>>, Counter>);
static_assert(std::movable<odm::Cursor<Counter>> && !std::copy_constructible<odm::Cursor<Counter>>);
static_assert(std::ranges::input_range<odm::Cursor<odm::Document>>);


std::vector<Counter> counters(int n) {
  std::vector<Counter> all;
  for (int i = 0; i < n; ++i) all.push_back(Counter{i, i * 10, i % 2 == 0 ? "even" : "odd"});
  return all;
}

TEST_F(Crud, InsertOneGeneratesObjectIdIntoTheCallersObject) {
  auto notes = db().collection<Note>();
  EXPECT_EQ(notes.name(), "note");
  Note note{{}, "hello", 1};
  ASSERT_TRUE(note.id.is_zero());
  const auto result = notes.insert_one(note);
  EXPECT_FALSE(note.id.is_zero());
  EXPECT_EQ(result.inserted_id, note.id);

  const std::optional<Note> found = notes.find_by_id(note.id);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->text, "hello");
  EXPECT_EQ(found->id, note.id);

  // A const object is not changed; the id is generated for the stored copy.
  const Note constant{{}, "const", 2};
  const auto second = notes.insert_one(constant);
  EXPECT_TRUE(constant.id.is_zero());
  EXPECT_FALSE(second.inserted_id.is_zero());
  EXPECT_EQ(notes.get_by_id(second.inserted_id).text, "const");

  EXPECT_FALSE(notes.find_by_id(odm::ObjectId::generate()).has_value());
  EXPECT_THROW(notes.get_by_id(odm::ObjectId::generate()), odm::NotFound);
}

TEST_F(Crud, AModelWithoutIdGetsAGeneratedObjectId) {
  auto lines = db().collection<LogLine>();
  EXPECT_EQ(lines.name(), "log_line");
  const auto result = lines.insert_one(LogLine{"db1", "started"});
  EXPECT_FALSE(result.inserted_id.is_zero());
  const auto stored = lines.find<odm::Document>(odm::field(&LogLine::host) == "db1").to_vector();
  ASSERT_EQ(stored.size(), 1u);
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, stored[0].get(), "_id"));
  ASSERT_TRUE(BSON_ITER_HOLDS_OID(&it));
  EXPECT_EQ(odm::ObjectId(*bson_iter_oid(&it)), result.inserted_id);
  EXPECT_EQ(lines.find().to_vector().at(0).text, "started");
}

TEST_F(Crud, InsertManyAssignsIdsAndReportsThemInOrder) {
  auto notes = db().collection<Note>();
  std::vector<Note> batch{{{}, "a", 1}, {{}, "b", 2}, {{}, "c", 3}};
  const auto result = notes.insert_many(batch);
  EXPECT_EQ(result.inserted, 3);
  ASSERT_EQ(result.inserted_ids.size(), 3u);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    EXPECT_FALSE(batch[i].id.is_zero());
    EXPECT_EQ(result.inserted_ids[i], batch[i].id);
  }
  EXPECT_EQ(notes.count(), 3);
}

TEST_F(Crud, CursorFetchesBatchesLazilyWithGetMore) {
  auto coll = db().collection<Counter>();
  EXPECT_EQ(coll.name(), "counter");
  coll.insert_many(counters(250));
  log_.clear();

  auto cursor = coll.find(Filter<Counter>(), odm::FindOptions<Counter>{}.sort(odm::sort(odm::asc(&Counter::id))).batch_size(10));
  EXPECT_EQ(log_.started("find"), 0) << "nothing is sent before iteration starts";
  auto it = cursor.begin();
  EXPECT_EQ(log_.started("find"), 1);
  EXPECT_EQ(log_.started("getMore"), 0) << "the first batch came with the find";
  int expected = 0;
  for (; it != cursor.end(); ++it) {
    EXPECT_EQ(it->id, expected);
    EXPECT_EQ(it->value, expected * 10);
    ++expected;
    if (expected == 10) {
      EXPECT_EQ(log_.started("getMore"), 0) << "no getMore while the first batch lasts";
    }
    if (expected == 11) {
      EXPECT_EQ(log_.started("getMore"), 1);
    }
  }
  EXPECT_EQ(expected, 250);
  EXPECT_EQ(log_.started("find"), 1);
  // 240 documents after the first batch, 10 per getMore; a server may need one more
  // getMore to learn the cursor is exhausted.
  EXPECT_GE(log_.started("getMore"), 24);
  EXPECT_LE(log_.started("getMore"), 25);
}

TEST_F(Crud, DefaultBatchesCoverMoreThan101Documents) {
  auto coll = db().collection<Counter>();
  coll.insert_many(counters(150));
  log_.clear();
  const std::vector<Counter> all = coll.find().to_vector();
  EXPECT_EQ(all.size(), 150u);
  EXPECT_EQ(log_.started("find"), 1);
  // A find without batchSize gets 101 documents in its first batch, the rest through
  // getMore (https://www.mongodb.com/docs/manual/tutorial/iterate-a-cursor/#cursor-batches).
  ODM_REQUIRE(first_batch_of_101);
  EXPECT_GE(log_.started("getMore"), 1) << "the first batch holds 101 documents; the other 49 need a getMore";
}

TEST_F(Crud, FindWithFilterSortSkipLimitAndCount) {
  auto coll = db().collection<Counter>();
  coll.insert_many(counters(30));
  const auto even = odm::field(&Counter::group) == "even";
  EXPECT_EQ(coll.count(even), 15);
  EXPECT_EQ(coll.count(), 30);
  EXPECT_EQ(coll.count(even, odm::CountOptions<Counter>{}.skip(5).limit(4)), 4);

  const auto page = coll.find(even, odm::FindOptions<Counter>{}.sort(odm::sort(odm::desc(&Counter::value))).skip(2).limit(3))
                        .to_vector();
  ASSERT_EQ(page.size(), 3u);
  EXPECT_EQ(page[0].id, 24);
  EXPECT_EQ(page[1].id, 22);
  EXPECT_EQ(page[2].id, 20);

  const std::optional<Counter> first = coll.find_one(even, odm::FindOptions<Counter>{}.sort(odm::sort(odm::asc(&Counter::value))));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->id, 0);
  EXPECT_FALSE(coll.find_one(odm::field(&Counter::group) == "none"));
}

TEST_F(Crud, ReplaceOne) {
  auto coll = db().collection<Counter>();
  coll.insert_many(counters(3));
  const auto result = coll.replace_one(odm::field(&Counter::id) == 1, Counter{1, 999, "replaced"});
  EXPECT_EQ(result.matched, 1);
  EXPECT_EQ(result.modified, 1);
  EXPECT_FALSE(result.upserted_id);
  const Counter stored = coll.get_by_id(1);
  EXPECT_EQ(stored.value, 999);
  EXPECT_EQ(stored.group, "replaced");

  const auto upserted = coll.replace_one(odm::field(&Counter::id) == 7, Counter{7, 70, "new"},
                                         odm::ReplaceOptions<Counter>{}.upsert());
  EXPECT_EQ(upserted.matched, 0);
  ASSERT_TRUE(upserted.upserted_id);
  EXPECT_EQ(*upserted.upserted_id, 7);
}

TEST_F(Crud, UpdateOneManyAndUpsert) {
  auto coll = db().collection<Counter>();
  coll.insert_many(counters(10));
  const auto one = coll.update_one(odm::field(&Counter::group) == "odd",
                                   odm::field(&Counter::value).inc(1));
  EXPECT_EQ(one.matched, 1);
  EXPECT_EQ(one.modified, 1);

  const auto many = coll.update_many(odm::field(&Counter::group) == "even",
                                     odm::field(&Counter::group).set("pair"));
  EXPECT_EQ(many.matched, 5);
  EXPECT_EQ(many.modified, 5);
  EXPECT_EQ(coll.count(odm::field(&Counter::group) == "pair"), 5);

  // Matched but already in that state: matched 1, modified 0.
  const auto same = coll.update_one(odm::field(&Counter::id) == 0,
                                    odm::field(&Counter::group).set("pair"));
  EXPECT_EQ(same.matched, 1);
  EXPECT_EQ(same.modified, 0);

  const auto none = coll.update_one(odm::field(&Counter::id) == 100,
                                    odm::field(&Counter::value).set(1));
  EXPECT_EQ(none.matched, 0);
  EXPECT_FALSE(none.upserted_id);

  const auto upsert = coll.update_one(odm::field(&Counter::id) == 100,
                                      odm::field(&Counter::value).set(5) + odm::field(&Counter::group).set("up"),
                                      odm::UpdateOptions<Counter>{}.upsert());
  EXPECT_EQ(upsert.matched, 0);
  ASSERT_TRUE(upsert.upserted_id);
  EXPECT_EQ(*upsert.upserted_id, 100);
  EXPECT_EQ(coll.get_by_id(100).group, "up");
}

TEST_F(Crud, DeleteOneAndMany) {
  auto coll = db().collection<Counter>();
  coll.insert_many(counters(10));
  EXPECT_EQ(coll.delete_one(odm::field(&Counter::group) == "odd").deleted, 1);
  EXPECT_EQ(coll.delete_many(odm::field(&Counter::group) == "odd").deleted, 4);
  EXPECT_EQ(coll.delete_many(odm::field(&Counter::group) == "odd").deleted, 0);
  EXPECT_EQ(coll.count(), 5);
}

TEST_F(Crud, FindOneAndUpdateReturnsTheBeforeOrAfterImage) {
  auto coll = db().collection<Counter>();
  coll.insert_one(Counter{1, 10, "a"});
  const auto filter = odm::field(&Counter::id) == 1;
  const auto inc = odm::field(&Counter::value).inc(5);

  const std::optional<Counter> before = coll.find_one_and_update(filter, inc);
  ASSERT_TRUE(before);
  EXPECT_EQ(before->value, 10);
  const std::optional<Counter> after =
      coll.find_one_and_update(filter, inc, odm::FindOneAndUpdateOptions<Counter>{}.return_document(odm::ReturnDocument::after));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->value, 20);

  EXPECT_FALSE(coll.find_one_and_update(odm::field(&Counter::id) == 2, inc));
  const auto upserted = coll.find_one_and_update(
      odm::field(&Counter::id) == 2, odm::field(&Counter::value).set(1) + odm::field(&Counter::group).set("b"),
      odm::FindOneAndUpdateOptions<Counter>{}.upsert().return_document(odm::ReturnDocument::after));
  ASSERT_TRUE(upserted);
  EXPECT_EQ(upserted->id, 2);

  const auto replaced = coll.find_one_and_replace(filter, Counter{1, 77, "r"},
                                                  odm::FindOneAndReplaceOptions<Counter>{}.return_document(odm::ReturnDocument::after));
  ASSERT_TRUE(replaced);
  EXPECT_EQ(replaced->value, 77);

  const auto deleted = coll.find_one_and_delete(filter);
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->value, 77);
  EXPECT_FALSE(coll.find_by_id(1));
  EXPECT_FALSE(coll.find_one_and_delete(filter));
}

TEST_F(Crud, BulkWriteSendsMixedWritesTogether) {
  auto coll = db().collection<Counter>();
  coll.insert_many(counters(4));
  log_.clear();
  auto bulk = coll.bulk_write();
  bulk.insert_one(Counter{10, 100, "bulk"})
      .insert_one(Counter{11, 110, "bulk"})
      .update_one(odm::field(&Counter::id) == 0, odm::field(&Counter::value).set(-1))
      .update_many(odm::field(&Counter::group) == "bulk", odm::field(&Counter::value).inc(1))
      .replace_one(odm::field(&Counter::id) == 1, Counter{1, 1, "replaced"})
      .update_one(odm::field(&Counter::id) == 50, odm::field(&Counter::value).set(50),
                  odm::UpdateOptions<Counter>{}.upsert())
      .delete_one(odm::field(&Counter::id) == 2)
      .delete_many((odm::field(&Counter::id) >= 3 && odm::field(&Counter::id) < 4));
  EXPECT_EQ(bulk.size(), 8u);
  const auto result = bulk.execute();
  EXPECT_EQ(result.inserted, 2);
  EXPECT_EQ(result.matched, 4);   // _id 0, the two "bulk", _id 1
  EXPECT_EQ(result.modified, 4);
  EXPECT_EQ(result.upserted, 1);
  EXPECT_EQ(result.deleted, 2);
  ASSERT_EQ(result.upserted_ids.size(), 1u);
  EXPECT_EQ(result.upserted_ids[0].first, 5u);
  EXPECT_EQ(result.upserted_ids[0].second, 50);
  EXPECT_EQ(coll.count(), 5);  // 0, 1, 10, 11, 50
  EXPECT_EQ(coll.get_by_id(11).value, 111);
  // Consecutive writes of one kind go in one command: insert, update (x4), delete (x2).
  EXPECT_EQ(log_.started("insert"), 1);
  EXPECT_EQ(log_.started("update"), 1);
  EXPECT_EQ(log_.started("delete"), 1);
  EXPECT_TRUE(bulk.empty());
  EXPECT_EQ(bulk.execute().inserted, 0) << "an empty bulk write sends nothing";
}

TEST_F(Crud, RawFilterAndRawAggregatePipeline) {
  auto coll = db().collection<Counter>();
  coll.insert_many(counters(20));
  // A raw filter the typed builders need not cover: $expr.
  const auto raw = coll.find(Filter<Counter>::raw(json(R"({"$expr": {"$gt": ["$value", 150]}})"))).to_vector();
  EXPECT_EQ(raw.size(), 4u);  // 160, 170, 180, 190

  std::vector<odm::Document> pipeline{
      json(R"({"$match": {"value": {"$gte": 100}}})"),
      json(R"({"$group": {"_id": "$group", "total": {"$sum": "$value"}, "n": {"$sum": 1}}})"),
      json(R"({"$sort": {"_id": 1}})"),
  };
  const std::vector<Total> totals = coll.aggregate<Total>(pipeline).to_vector();
  ASSERT_EQ(totals.size(), 2u);
  EXPECT_EQ(totals[0].id, "even");
  EXPECT_EQ(totals[0].total, 100 + 120 + 140 + 160 + 180);
  EXPECT_EQ(totals[0].n, 5);
  EXPECT_EQ(totals[1].id, "odd");

  // The same pipeline as one raw document, read as plain BSON.
  const auto documents =
      coll.aggregate_raw(json(R"({"pipeline": [{"$match": {"group": "odd"}}, {"$count": "n"}]})")).to_vector();
  ASSERT_EQ(documents.size(), 1u);
  EXPECT_EQ(documents[0], json(R"({"n": 10})"));

  // Raw documents from find.
  const auto as_bson = coll.find<odm::Document>(Filter<Counter>::raw(json(R"({"_id": 3})"))).to_vector();
  ASSERT_EQ(as_bson.size(), 1u);
  EXPECT_EQ(as_bson[0], json(R"({"_id": 3, "value": 30, "group": "odd"})"));
}

TEST_F(Crud, RunCommandAndDrop) {
  auto coll = db().collection<Counter>();
  coll.insert_one(Counter{1, 1, "x"});
  const odm::Document reply = db().run_command(json(R"({"ping": 1})"));
  EXPECT_TRUE(has_key(reply, "ok"));
  coll.drop();
  EXPECT_EQ(coll.count(), 0);
  // Dropping a missing collection is fine: MongoDB 7 says ok, older servers NamespaceNotFound
  // (https://www.mongodb.com/docs/manual/reference/command/drop/), some only "ns not found".
  coll.drop();
}

}  // namespace
}  // namespace odm_test
