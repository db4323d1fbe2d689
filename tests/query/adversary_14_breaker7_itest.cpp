// Adversarial probes of issue 14 against a server: options typed by the model reach the
// wire, each exactly once, with the last value set, and an unset option is not sent
// (README, "Options of an operation": "An unset option is not sent, except `ordered`");
// and the typed expressions' documented semantics (empty `$in`, `$nor` of the empty
// filter, `$push` modifiers, a filter of 100,000 conditions) hold on the server.
// Commands are seen through command monitoring.

#include <odm/odm.hpp>

#include "driver/support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace adversary_14_breaker7_itest {
namespace {

using odm::field;
using odm_test::json;

struct Line {
  std::string sku;
  std::int32_t qty = 0;
};

struct Doc {
  std::int64_t id = 0;
  std::int32_t n = 0;
  std::vector<std::int32_t> scores;
  std::vector<Line> lines;
  struct odm_model {
    static constexpr std::string_view collection = "docs";
  };
};

/// How many times `key` is a top-level key of `document`.
int occurrences(const odm::Document& document, std::string_view key) {
  bson_iter_t it;
  int count = 0;
  if (!bson_iter_init(&it, document.get())) return -1;
  while (bson_iter_next(&it))
    if (key == bson_iter_key(&it)) ++count;
  return count;
}

/// The first element of the array `key` (an update or delete statement), as a document.
odm::Document first_statement(const odm::Document& command, const char* key) {
  bson_iter_t it, array;
  if (!bson_iter_init_find(&it, command.get(), key) || !bson_iter_recurse(&it, &array) || !bson_iter_next(&array))
    return {};
  std::uint32_t length = 0;
  const std::uint8_t* data = nullptr;
  bson_iter_document(&array, &length, &data);
  bson_t statement;
  if (data == nullptr || !bson_init_static(&statement, data, length)) return {};
  return odm::Document::copy_of(&statement);
}

/// The value under `key`, as canonical Extended JSON ({"v": value}).
std::string value_of(const odm::Document& document, const char* key) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, document.get(), key)) return "<absent>";
  odm::Document holder;
  bson_append_iter(holder.get_mutable(), "v", 1, &it);
  return holder.to_canonical_json();
}
std::string expected_value(std::string_view value_json) {
  return json("{\"v\": " + std::string(value_json) + "}").to_canonical_json();
}

/// Each key once in `document`; the keys of `absent` not at all.
void expect_once(const odm::Document& document, std::initializer_list<std::string_view> once,
                 std::initializer_list<std::string_view> absent = {}) {
  for (const std::string_view key : once) EXPECT_EQ(occurrences(document, key), 1) << key << " in " << document.to_json();
  for (const std::string_view key : absent) EXPECT_EQ(occurrences(document, key), 0) << key << " in " << document.to_json();
}

class Breaker7Options : public odm_test::DriverTest {
 protected:
  odm::Collection<Doc> docs() { return db().collection<Doc>(); }
  void store() {
    docs().insert_many(std::vector<Doc>{{1, 5, {5, 1}, {{"a", 1}}}, {2, 99'999, {}, {}}, {3, 100'000, {}, {}}});
    log_.clear();
  }
  /// Runs `operation`, tolerating a refusal by the server (only the command is checked).
  template <class Operation>
  void run(Operation&& operation) {
    try {
      operation();
    } catch (const odm::ServerError&) {
    }
  }
};

const auto by_id_desc = [] { return odm::sort(odm::desc(&Doc::id)); };

TEST_F(Breaker7Options, FindSendsEachOptionOnceWithItsLastValueAndNoUnsetOne) {
  store();
  (void)docs().find({}).to_vector();
  ASSERT_TRUE(log_.last("find"));
  expect_once(*log_.last("find"), {"find", "filter"},
              {"sort", "projection", "skip", "limit", "batchSize", "comment", "maxTimeMS", "hint", "collation",
               "singleBatch", "readConcern", "allowDiskUse", "noCursorTimeout"});

  log_.clear();
  run([&] {
    (void)docs()
        .find(field(&Doc::n) > 0, odm::FindOptions<Doc>{}
                                      .sort(odm::sort(odm::asc(&Doc::n)))
                                      .sort(by_id_desc())
                                      .skip(2)
                                      .skip(1)
                                      .limit(9)
                                      .limit(2)
                                      .batch_size(9)
                                      .batch_size(1)
                                      .comment("first")
                                      .comment("second")
                                      .max_time(std::chrono::seconds(9))
                                      .max_time(std::chrono::seconds(5))
                                      .hint("n_1")
                                      .hint(odm::sort(odm::asc(&Doc::id)))
                                      .read_concern(odm::ReadConcern::local()))
        .to_vector();
  });
  const auto command = log_.last("find");
  ASSERT_TRUE(command);
  expect_once(*command, {"sort", "skip", "limit", "batchSize", "comment", "maxTimeMS", "hint", "readConcern"},
              {"singleBatch", "projection"});
  EXPECT_EQ(value_of(*command, "sort"), expected_value(R"({"_id": -1})"));
  EXPECT_EQ(value_of(*command, "skip"), expected_value(R"({"$numberLong": "1"})"));
  EXPECT_EQ(value_of(*command, "limit"), expected_value(R"({"$numberLong": "2"})"));
  EXPECT_EQ(value_of(*command, "batchSize"), expected_value("1"));
  EXPECT_EQ(value_of(*command, "comment"), expected_value(R"("second")"));
  EXPECT_EQ(value_of(*command, "hint"), expected_value(R"({"_id": 1})"));
}

TEST_F(Breaker7Options, CountAndAggregateSendTheirOptionsOnce) {
  store();
  EXPECT_EQ(docs().count(), 3);
  ASSERT_TRUE(log_.last("aggregate"));
  expect_once(*log_.last("aggregate"), {"aggregate", "pipeline"}, {"comment", "maxTimeMS", "hint", "collation", "allowDiskUse"});

  log_.clear();
  EXPECT_EQ(docs().count(field(&Doc::n) > 0, odm::CountOptions<Doc>{}
                                                  .skip(1)
                                                  .limit(1)
                                                  .comment("c")
                                                  .max_time(std::chrono::seconds(5))
                                                  .hint(odm::sort(odm::asc(&Doc::id)))),
            1);
  auto command = log_.last("aggregate");
  ASSERT_TRUE(command);
  expect_once(*command, {"comment", "maxTimeMS", "hint"});
  const std::string pipeline = value_of(*command, "pipeline");
  EXPECT_NE(pipeline.find("$skip"), std::string::npos) << pipeline;
  EXPECT_EQ(pipeline.find("$skip"), pipeline.rfind("$skip")) << pipeline;
  EXPECT_EQ(pipeline.find("$limit"), pipeline.rfind("$limit")) << pipeline;

  log_.clear();
  (void)docs()
      .aggregate(std::vector<odm::Document>{json(R"({"$match": {}})")},
                 odm::AggregateOptions<Doc>{}.batch_size(2).allow_disk_use().comment("agg").max_time(std::chrono::seconds(5)))
      .to_vector();
  command = log_.last("aggregate");
  ASSERT_TRUE(command);
  expect_once(*command, {"cursor", "allowDiskUse", "comment", "maxTimeMS"}, {"batchSize"});
  EXPECT_EQ(value_of(*command, "cursor"), expected_value(R"({"batchSize": 2})"));
}

TEST_F(Breaker7Options, WritesSendTheirOptionsOnceAndNoUnsetOne) {
  store();
  docs().update_one(field(&Doc::id) == 1, field(&Doc::n).inc(1));
  auto command = log_.last("update");
  ASSERT_TRUE(command);
  expect_once(*command, {"update", "updates"}, {"comment", "writeConcern", "maxTimeMS"});
  expect_once(first_statement(*command, "updates"), {"q", "u"}, {"upsert", "arrayFilters", "hint", "collation"});

  log_.clear();
  docs().update_one(field(&Doc::id) == 1, (field(&Doc::lines).all_elements() / &Line::qty).inc(1),
                    odm::UpdateOptions<Doc>{}
                        .upsert()
                        .array_filters({json(R"({"x.qty": {"$gt": 100}})")})
                        .array_filters({})
                        .comment("u1")
                        .comment("u2")
                        .hint(odm::sort(odm::asc(&Doc::id)))
                        .write_concern(odm::WriteConcern::nodes(1)));
  command = log_.last("update");
  ASSERT_TRUE(command);
  expect_once(*command, {"comment", "writeConcern"});
  EXPECT_EQ(value_of(*command, "comment"), expected_value(R"("u2")"));
  expect_once(first_statement(*command, "updates"), {"q", "u", "upsert", "hint"}, {"arrayFilters"});

  log_.clear();
  docs().replace_one(field(&Doc::id) == 2, Doc{2, 7, {}, {}},
                     odm::ReplaceOptions<Doc>{}.upsert().comment("r").hint(odm::sort(odm::asc(&Doc::id))));
  command = log_.last("update");
  ASSERT_TRUE(command);
  expect_once(*command, {"comment"});
  expect_once(first_statement(*command, "updates"), {"q", "u", "upsert", "hint"}, {"arrayFilters"});

  log_.clear();
  docs().delete_one(field(&Doc::id) == 3, odm::DeleteOptions<Doc>{}
                                              .comment("d")
                                              .max_time(std::chrono::seconds(5))
                                              .hint(odm::sort(odm::asc(&Doc::id)))
                                              .write_concern(odm::WriteConcern::nodes(1)));
  command = log_.last("delete");
  ASSERT_TRUE(command);
  expect_once(*command, {"delete", "deletes", "comment", "maxTimeMS", "writeConcern"});
  expect_once(first_statement(*command, "deletes"), {"q", "limit", "hint"}, {"collation"});

  log_.clear();
  docs().insert_one(Doc{4, 1, {}, {}}, odm::InsertOneOptions<Doc>{}.comment("i").max_time(std::chrono::seconds(5)));
  command = log_.last("insert");
  ASSERT_TRUE(command);
  expect_once(*command, {"insert", "documents", "comment", "maxTimeMS", "ordered"}, {"writeConcern"});

  log_.clear();
  docs().insert_many(std::vector<Doc>{{5, 1, {}, {}}, {6, 1, {}, {}}},
                     odm::InsertManyOptions<Doc>{}.ordered(true).ordered(false).comment("m"));
  command = log_.last("insert");
  ASSERT_TRUE(command);
  expect_once(*command, {"insert", "documents", "comment", "ordered"});
  EXPECT_EQ(value_of(*command, "ordered"), expected_value("false"));
}

TEST_F(Breaker7Options, FindAndModifySendsItsOptionsOnce) {
  store();
  (void)docs().find_one_and_update(field(&Doc::id) == 1, field(&Doc::n).inc(1));
  auto command = log_.last("findAndModify");
  ASSERT_TRUE(command);
  expect_once(*command, {"findAndModify", "query", "update"},
              {"sort", "fields", "upsert", "arrayFilters", "hint", "comment", "maxTimeMS", "remove", "collation"});

  log_.clear();
  const auto updated = docs().find_one_and_update(
      field(&Doc::n) > 0, (field(&Doc::lines).all_elements() / &Line::qty).inc(1),
      odm::FindOneAndUpdateOptions<Doc>{}
          .sort(odm::sort(odm::asc(&Doc::n)))
          .sort(by_id_desc())
          .return_document(odm::ReturnDocument::after)
          .upsert()
          .comment("f")
          .max_time(std::chrono::seconds(5))
          .hint(odm::sort(odm::asc(&Doc::id))));
  ASSERT_TRUE(updated);
  EXPECT_EQ(updated->id, 3);
  command = log_.last("findAndModify");
  ASSERT_TRUE(command);
  expect_once(*command, {"sort", "new", "upsert", "comment", "maxTimeMS", "hint"}, {"remove", "arrayFilters"});
  EXPECT_EQ(value_of(*command, "sort"), expected_value(R"({"_id": -1})"));

  log_.clear();
  const auto removed = docs().find_one_and_delete(
      field(&Doc::n) > 0, odm::FindOneAndDeleteOptions<Doc>{}.sort(by_id_desc()).comment("x").max_time(std::chrono::seconds(5)));
  ASSERT_TRUE(removed);
  EXPECT_EQ(removed->id, 3);
  command = log_.last("findAndModify");
  ASSERT_TRUE(command);
  expect_once(*command, {"remove", "sort", "comment", "maxTimeMS"}, {"new", "upsert", "update", "arrayFilters"});
}

TEST_F(Breaker7Options, BulkWritesCarryTheirStatementsOptionsOnce) {
  store();
  auto bulk = docs().bulk_write(odm::BulkWriteOptions<Doc>{}.comment("b1").comment("b2"));
  bulk.update_one(field(&Doc::id) == 1, (field(&Doc::lines).all_elements() / &Line::qty).inc(1),
                  odm::UpdateOptions<Doc>{}.upsert().hint(odm::sort(odm::asc(&Doc::id))));
  bulk.delete_one(field(&Doc::id) == 2);
  (void)bulk.execute();
  auto command = log_.last("update");
  ASSERT_TRUE(command);
  expect_once(*command, {"comment"});
  EXPECT_EQ(value_of(*command, "comment"), expected_value(R"("b2")"));
  expect_once(first_statement(*command, "updates"), {"q", "u", "upsert", "hint"}, {"arrayFilters"});
  command = log_.last("delete");
  ASSERT_TRUE(command);
  expect_once(*command, {"comment"});
}


TEST_F(Breaker7Options, FindOneFindByIdAndFindOneAndReplaceSendEachOptionOnce) {
  store();
  const auto one = docs().find_one(field(&Doc::n) > 0,
                                   odm::FindOptions<Doc>{}.limit(5).skip(1).sort(by_id_desc()).comment("one"));
  ASSERT_TRUE(one);
  EXPECT_EQ(one->id, 2);
  auto command = log_.last("find");
  ASSERT_TRUE(command);
  expect_once(*command, {"limit", "skip", "sort", "comment"});
  EXPECT_EQ(value_of(*command, "limit"), expected_value(R"({"$numberLong": "1"})"));

  log_.clear();
  ASSERT_TRUE(docs().find_by_id(2));
  command = log_.last("find");
  ASSERT_TRUE(command);
  expect_once(*command, {"filter", "limit"}, {"sort", "skip", "comment"});

  log_.clear();
  const auto replaced = docs().find_one_and_replace(
      field(&Doc::n) > 0, Doc{3, 1, {}, {}},
      odm::FindOneAndReplaceOptions<Doc>{}
          .sort(by_id_desc())
          .upsert()
          .return_document(odm::ReturnDocument::after)
          .comment("r")
          .max_time(std::chrono::seconds(5))
          .hint(odm::sort(odm::asc(&Doc::id))));
  ASSERT_TRUE(replaced);
  EXPECT_EQ(replaced->n, 1);
  command = log_.last("findAndModify");
  ASSERT_TRUE(command);
  expect_once(*command, {"query", "update", "sort", "upsert", "new", "comment", "maxTimeMS", "hint"},
              {"arrayFilters", "remove"});
}


// Issue 14: "BulkWrite drops array_filters on update_one, update_many and replace_one
// silently"; each reaches its statement once and applies.
TEST_F(Breaker7Options, BulkUpdatesCarryTheirArrayFiltersOnce) {
  store();
  auto bulk = docs().bulk_write();
  bulk.update_one(field(&Doc::id) == 1, odm::Update<Doc>::raw(json(R"({"$inc": {"lines.$[x].qty": 10}})")),
                  odm::UpdateOptions<Doc>{}.array_filters({json(R"({"x.sku": "a"})")}));
  bulk.update_many(field(&Doc::id) == 1, odm::Update<Doc>::raw(json(R"({"$inc": {"lines.$[y].qty": 100}})")),
                   odm::UpdateOptions<Doc>{}.array_filters({json(R"({"y.qty": {"$gt": 5}})")}));
  (void)bulk.execute();
  const auto command = log_.last("update");
  ASSERT_TRUE(command);
  const std::string updates = value_of(*command, "updates");
  EXPECT_NE(updates.find(R"("x.sku")"), std::string::npos) << updates;
  EXPECT_NE(updates.find(R"("y.qty")"), std::string::npos) << updates;
  expect_once(first_statement(*command, "updates"), {"q", "u", "arrayFilters"});
  const Doc read = docs().get_by_id(1);
  ASSERT_EQ(read.lines.size(), 1u);
  EXPECT_EQ(read.lines[0].qty, 111);
}

// ---- semantics on the server ------------------------------------------------------------

class Breaker7Semantics : public Breaker7Options {};

// MongoDB: `$in: []` matches no document, `$nin: []` every one; `$not` of the first every
// one; `$nor: [{}]` none.
TEST_F(Breaker7Semantics, EmptyListsAndTheNegatedEmptyFilter) {
  store();
  const std::vector<std::int32_t> none;
  EXPECT_EQ(docs().count(field(&Doc::n).in(none)), 0);
  EXPECT_EQ(docs().count(field(&Doc::n).nin(none)), 3);
  EXPECT_EQ(docs().count(!field(&Doc::n).in(none)), 3);
  EXPECT_EQ(docs().count(!odm::Filter<Doc>{}), 0);
  EXPECT_EQ(docs().count(odm::nor(odm::Filter<Doc>{}, field(&Doc::n) == 5)), 0);
  EXPECT_EQ(docs().count(field(&Doc::n) > 1 && field(&Doc::n) < 99'999 && field(&Doc::n) != 7), 1);
  EXPECT_EQ(docs().count(!(field(&Doc::n) > 1 && field(&Doc::n) < 99'999)), 2);
}

TEST_F(Breaker7Semantics, PushModifiersDoWhatTheManualSays) {
  store();
  // scores [5, 1]: add 3 and 9, sort descending, keep 3: [9, 5, 3].
  docs().update_one(field(&Doc::id) == 1, field(&Doc::scores).push_each({3, 9}).sort(odm::descending).slice(3));
  EXPECT_EQ(docs().get_by_id(1).scores, (std::vector<std::int32_t>{9, 5, 3}));
  // At position 0, then keep the last 2.
  docs().update_one(field(&Doc::id) == 1, field(&Doc::scores).push_each({0}).position(0).slice(-2));
  EXPECT_EQ(docs().get_by_id(1).scores, (std::vector<std::int32_t>{5, 3}));
  // An empty $each with $slice trims.
  const std::vector<std::int32_t> none;
  docs().update_one(field(&Doc::id) == 1, field(&Doc::scores).push_each(none).slice(1));
  EXPECT_EQ(docs().get_by_id(1).scores, (std::vector<std::int32_t>{5}));
  // Documents sorted by two keys.
  docs().update_one(field(&Doc::id) == 1, field(&Doc::lines)
                                              .push_each({Line{"c", 1}, Line{"b", 2}, Line{"d", 1}})
                                              .sort(odm::desc(&Line::qty), odm::asc(&Line::sku))
                                              .slice(3));
  const Doc read = docs().get_by_id(1);
  ASSERT_EQ(read.lines.size(), 3u);
  EXPECT_EQ(read.lines[0].sku, "b");
  EXPECT_EQ(read.lines[1].sku, "a");
  EXPECT_EQ(read.lines[2].sku, "c");
}

// A filter of 100,000 conditions is one `$or` the server runs (1.5 MB, far below 16 MiB).
TEST_F(Breaker7Semantics, AHundredThousandOrConditionsRunOnTheServer) {
  store();
  odm::Filter<Doc> any = field(&Doc::n) == 0;
  for (std::int32_t i = 1; i < 100'000; ++i) any = any || field(&Doc::n) == i;
  EXPECT_EQ(docs().count(any), 2);  // n 5 and 99,999; not 100,000
  EXPECT_EQ(docs().count(!any), 1);
}

}  // namespace
}  // namespace adversary_14_breaker7_itest
