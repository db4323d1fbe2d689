// Operation options: every option reaches its command with the right field (seen through
// command monitoring), the read preference and concerns of each level override the level
// above, invalid settings fail before anything is sent, and the server acts on them.

#include "session_support.hpp"
#include "support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;
using odm_test::json;

/// The model of these tests: a counter with an array to aim array filters at.
struct Counter {
  std::int32_t id = 0;
  std::int32_t value = 0;
  std::string group;
  std::vector<std::string> tags;
};
/// A projection of it.
struct CounterValue {
  std::int32_t value = 0;
};

/// The commands a client sent (their documents) and the names of those that failed.
class Sent {
 public:
  odm::ClientOptions options() {
    return odm::ClientOptions{}
        .capture_command_documents()
        .on_command_started([this](const odm::CommandEvent& event) {
          std::lock_guard lock(mutex_);
          if (event.document != nullptr) started_.push_back(*event.document);
        })
        .on_command_failed([this](const odm::CommandEvent& event) {
          std::lock_guard lock(mutex_);
          failed_.emplace_back(event.command_name);
        });
  }
  void clear() {
    std::lock_guard lock(mutex_);
    started_.clear();
    failed_.clear();
  }
  /// The last command named `name` (its first key), or nullopt.
  std::optional<odm::Document> last(const std::string& name) {
    std::lock_guard lock(mutex_);
    for (auto it = started_.rbegin(); it != started_.rend(); ++it) {
      bson_iter_t i;
      if (bson_iter_init(&i, it->get()) && bson_iter_next(&i) && name == bson_iter_key(&i)) return *it;
    }
    return std::nullopt;
  }
  std::vector<std::string> failed() {
    std::lock_guard lock(mutex_);
    return failed_;
  }

 private:
  std::mutex mutex_;
  std::vector<odm::Document> started_;
  std::vector<std::string> failed_;
};

/// The canonical extended JSON of the value at dotted `path` in `document`, "" when absent.
std::string at(const odm::Document& document, const std::string& path) {
  bson_iter_t it;
  bson_iter_t found;
  if (!bson_iter_init(&it, document.get()) || !bson_iter_find_descendant(&it, path.c_str(), &found)) return "";
  odm::Document holder;
  bson_append_iter(holder.get_mutable(), "v", 1, &found);
  const std::string text = holder.to_canonical_json();  // {"v" : <value>}
  const std::size_t colon = text.find(':');
  return text.substr(colon + 2, text.size() - colon - 4);
}

class Options : public odm_test::DriverTest {
 protected:
  void SetUp() override {
    odm_test::DriverTest::SetUp();
    client_.emplace(odm::Client(uri_, recorder_.options()));
  }
  odm::Database recorded_db() { return client_->database(db_name_); }
  odm::Collection<Counter> counters() { return recorded_db().collection<Counter>(); }

  Sent recorder_;
  std::optional<odm::Client> client_;
};

// ---- every option reaches its command ------------------------------------------------

/// One row: run `operation` on a collection with documents 1..3, then expect `field` of the
/// command named `command` to hold `value` (canonical extended JSON).
struct Reach {
  std::string option;
  std::function<void(odm::Collection<Counter>&)> operation;
  std::string command;
  std::string field;
  std::string value;
};

TEST_F(Options, EveryOptionOfEveryOperationReachesItsCommand) {
  using C = Counter;
  const auto by_value = odm::sort(odm::desc(&C::value));
  const auto one = odm::field(&C::id) == 1;
  const auto inc = odm::field(&C::value).inc(1);
  const odm::Collation simple("simple");
  const auto majority = odm::WriteConcern::majority().timeout(1500ms);
  const odm::ReadPreference nearest = odm::ReadPreference(odm::ReadMode::nearest);
  const std::vector<Reach> table = {
      // find
      {"find.sort", [&](auto& c) { c.find({}, odm::FindOptions<C>{}.sort(by_value)).to_vector(); }, "find", "sort.value",
       R"({ "$numberInt" : "-1" })"},
      {"find.projection",
       [&](auto& c) { c.template find<odm::Document>({}, odm::FindOptions<C>{}.projection(odm::projection<C, CounterValue>())).to_vector(); },
       "find", "projection.value", R"({ "$numberInt" : "1" })"},
      {"find.skip", [&](auto& c) { c.find({}, odm::FindOptions<C>{}.skip(1)).to_vector(); }, "find", "skip",
       R"({ "$numberLong" : "1" })"},
      {"find.limit", [&](auto& c) { c.find({}, odm::FindOptions<C>{}.limit(2)).to_vector(); }, "find", "limit",
       R"({ "$numberLong" : "2" })"},
      {"find.batch_size", [&](auto& c) { c.find({}, odm::FindOptions<C>{}.batch_size(2)).to_vector(); }, "find",
       "batchSize", R"({ "$numberInt" : "2" })"},
      {"find.max_time", [&](auto& c) { c.find({}, odm::FindOptions<C>{}.max_time(4000ms)).to_vector(); }, "find",
       "maxTimeMS", R"({ "$numberLong" : "4000" })"},
      {"find.comment", [&](auto& c) { c.find({}, odm::FindOptions<C>{}.comment("page 1")).to_vector(); }, "find",
       "comment", R"("page 1")"},
      {"find.hint(name)", [&](auto& c) { c.find({}, odm::FindOptions<C>{}.hint("_id_")).to_vector(); }, "find", "hint",
       R"("_id_")"},
      {"find.hint(keys)",
       [&](auto& c) { c.find({}, odm::FindOptions<C>{}.hint(odm::sort(odm::asc(&C::id)))).to_vector(); }, "find",
       "hint._id", R"({ "$numberInt" : "1" })"},
      {"find.collation", [&](auto& c) { c.find({}, odm::FindOptions<C>{}.collation(simple)).to_vector(); }, "find",
       "collation.locale", R"("simple")"},
      {"find.read_concern",
       [&](auto& c) { c.find({}, odm::FindOptions<C>{}.read_concern(odm::ReadConcern::majority())).to_vector(); },
       "find", "readConcern.level", R"("majority")"},
      {"find.read_preference", [&](auto& c) { c.find({}, odm::FindOptions<C>{}.read_preference(nearest)).to_vector(); },
       "find", "$readPreference.mode", R"("nearest")"},
      // count (an aggregation)
      {"count.skip", [&](auto& c) { c.count({}, odm::CountOptions<C>{}.skip(1)); }, "aggregate", "pipeline.1.$skip",
       R"({ "$numberLong" : "1" })"},
      {"count.limit", [&](auto& c) { c.count({}, odm::CountOptions<C>{}.limit(2)); }, "aggregate", "pipeline.1.$limit",
       R"({ "$numberLong" : "2" })"},
      {"count.max_time", [&](auto& c) { c.count({}, odm::CountOptions<C>{}.max_time(4000ms)); }, "aggregate",
       "maxTimeMS", R"({ "$numberLong" : "4000" })"},
      {"count.comment", [&](auto& c) { c.count({}, odm::CountOptions<C>{}.comment("tally")); }, "aggregate", "comment",
       R"("tally")"},
      {"count.hint", [&](auto& c) { c.count({}, odm::CountOptions<C>{}.hint("_id_")); }, "aggregate", "hint",
       R"("_id_")"},
      {"count.collation", [&](auto& c) { c.count({}, odm::CountOptions<C>{}.collation(simple)); }, "aggregate",
       "collation.locale", R"("simple")"},
      {"count.read_concern",
       [&](auto& c) { c.count({}, odm::CountOptions<C>{}.read_concern(odm::ReadConcern::local())); }, "aggregate",
       "readConcern.level", R"("local")"},
      {"count.read_preference", [&](auto& c) { c.count({}, odm::CountOptions<C>{}.read_preference(nearest)); },
       "aggregate", "$readPreference.mode", R"("nearest")"},
      // aggregate
      {"aggregate.batch_size",
       [&](auto& c) { c.aggregate(std::vector<odm::Document>{}, odm::AggregateOptions<C>{}.batch_size(2)).to_vector(); },
       "aggregate", "cursor.batchSize", R"({ "$numberInt" : "2" })"},
      {"aggregate.allow_disk_use",
       [&](auto& c) { c.aggregate(std::vector<odm::Document>{}, odm::AggregateOptions<C>{}.allow_disk_use()).to_vector(); },
       "aggregate", "allowDiskUse", "true"},
      {"aggregate.max_time",
       [&](auto& c) { c.aggregate(std::vector<odm::Document>{}, odm::AggregateOptions<C>{}.max_time(4000ms)).to_vector(); },
       "aggregate", "maxTimeMS", R"({ "$numberLong" : "4000" })"},
      {"aggregate.comment",
       [&](auto& c) { c.aggregate(std::vector<odm::Document>{}, odm::AggregateOptions<C>{}.comment("report")).to_vector(); },
       "aggregate", "comment", R"("report")"},
      {"aggregate.hint",
       [&](auto& c) { c.aggregate(std::vector<odm::Document>{}, odm::AggregateOptions<C>{}.hint("_id_")).to_vector(); },
       "aggregate", "hint", R"("_id_")"},
      {"aggregate.collation",
       [&](auto& c) { c.aggregate(std::vector<odm::Document>{}, odm::AggregateOptions<C>{}.collation(simple)).to_vector(); },
       "aggregate", "collation.locale", R"("simple")"},
      {"aggregate.read_concern",
       [&](auto& c) {
         c.aggregate(std::vector<odm::Document>{}, odm::AggregateOptions<C>{}.read_concern(odm::ReadConcern::majority()))
             .to_vector();
       },
       "aggregate", "readConcern.level", R"("majority")"},
      {"aggregate.read_preference",
       [&](auto& c) {
         c.aggregate(std::vector<odm::Document>{}, odm::AggregateOptions<C>{}.read_preference(nearest)).to_vector();
       },
       "aggregate", "$readPreference.mode", R"("nearest")"},
      // insert
      {"insert_one.max_time", [&](auto& c) { c.insert_one(C{10, 0, "x", {}}, odm::InsertOneOptions<C>{}.max_time(4000ms)); },
       "insert", "maxTimeMS", R"({ "$numberLong" : "4000" })"},
      {"insert_one.comment", [&](auto& c) { c.insert_one(C{10, 0, "x", {}}, odm::InsertOneOptions<C>{}.comment("new")); },
       "insert", "comment", R"("new")"},
      {"insert_one.write_concern",
       [&](auto& c) { c.insert_one(C{10, 0, "x", {}}, odm::InsertOneOptions<C>{}.write_concern(majority)); }, "insert",
       "writeConcern.w", R"("majority")"},
      {"insert_many.ordered",
       [&](auto& c) { c.insert_many(std::vector<C>{{10, 0, "x", {}}}, odm::InsertManyOptions<C>{}.ordered(false)); },
       "insert", "ordered", "false"},
      {"insert_many.comment",
       [&](auto& c) { c.insert_many(std::vector<C>{{10, 0, "x", {}}}, odm::InsertManyOptions<C>{}.comment("batch")); },
       "insert", "comment", R"("batch")"},
      {"insert_many.write_concern",
       [&](auto& c) { c.insert_many(std::vector<C>{{10, 0, "x", {}}}, odm::InsertManyOptions<C>{}.write_concern(majority)); },
       "insert", "writeConcern.wtimeout", R"({ "$numberLong" : "1500" })"},
      // update_one / update_many / replace_one
      {"update_one.upsert", [&](auto& c) { c.update_one(one, inc, odm::UpdateOptions<C>{}.upsert()); }, "update",
       "updates.0.upsert", "true"},
      {"update_one.array_filters",
       [&](auto& c) {
         c.update_one(one, odm::Update<C>::raw(json(R"({"$set": {"tags.$[t]": "y"}})")),
                      odm::UpdateOptions<C>{}.array_filters({json(R"({"t": "x"})")}));
       },
       "update", "updates.0.arrayFilters.0.t", R"("x")"},
      {"update_one.hint", [&](auto& c) { c.update_one(one, inc, odm::UpdateOptions<C>{}.hint("_id_")); }, "update",
       "updates.0.hint", R"("_id_")"},
      {"update_one.collation", [&](auto& c) { c.update_one(one, inc, odm::UpdateOptions<C>{}.collation(simple)); },
       "update", "updates.0.collation.locale", R"("simple")"},
      {"update_one.comment", [&](auto& c) { c.update_one(one, inc, odm::UpdateOptions<C>{}.comment("bump")); }, "update",
       "comment", R"("bump")"},
      {"update_one.write_concern",
       [&](auto& c) { c.update_one(one, inc, odm::UpdateOptions<C>{}.write_concern(majority)); }, "update",
       "writeConcern.w", R"("majority")"},
      {"update_many.upsert", [&](auto& c) { c.update_many(one, inc, odm::UpdateOptions<C>{}.upsert()); }, "update",
       "updates.0.multi", "true"},
      {"update_many.hint", [&](auto& c) { c.update_many(one, inc, odm::UpdateOptions<C>{}.hint("_id_")); }, "update",
       "updates.0.hint", R"("_id_")"},
      {"replace_one.upsert",
       [&](auto& c) { c.replace_one(one, C{1, 5, "a", {}}, odm::ReplaceOptions<C>{}.upsert()); }, "update",
       "updates.0.upsert", "true"},
      {"replace_one.hint",
       [&](auto& c) { c.replace_one(one, C{1, 5, "a", {}}, odm::ReplaceOptions<C>{}.hint("_id_")); }, "update",
       "updates.0.hint", R"("_id_")"},
      {"replace_one.collation",
       [&](auto& c) { c.replace_one(one, C{1, 5, "a", {}}, odm::ReplaceOptions<C>{}.collation(simple)); }, "update",
       "updates.0.collation.locale", R"("simple")"},
      {"replace_one.comment",
       [&](auto& c) { c.replace_one(one, C{1, 5, "a", {}}, odm::ReplaceOptions<C>{}.comment("swap")); }, "update",
       "comment", R"("swap")"},
      {"replace_one.write_concern",
       [&](auto& c) { c.replace_one(one, C{1, 5, "a", {}}, odm::ReplaceOptions<C>{}.write_concern(majority)); }, "update",
       "writeConcern.w", R"("majority")"},
      // delete
      {"delete_one.max_time", [&](auto& c) { c.delete_one(one, odm::DeleteOptions<C>{}.max_time(4000ms)); }, "delete",
       "maxTimeMS", R"({ "$numberLong" : "4000" })"},
      {"delete_one.comment", [&](auto& c) { c.delete_one(one, odm::DeleteOptions<C>{}.comment("gone")); }, "delete",
       "comment", R"("gone")"},
      {"delete_one.hint", [&](auto& c) { c.delete_one(one, odm::DeleteOptions<C>{}.hint("_id_")); }, "delete",
       "deletes.0.hint", R"("_id_")"},
      {"delete_many.collation", [&](auto& c) { c.delete_many(one, odm::DeleteOptions<C>{}.collation(simple)); },
       "delete", "deletes.0.collation.locale", R"("simple")"},
      {"delete_many.write_concern",
       [&](auto& c) { c.delete_many(one, odm::DeleteOptions<C>{}.write_concern(majority)); }, "delete",
       "writeConcern.w", R"("majority")"},
      // find_one_and_*
      {"find_one_and_update.sort",
       [&](auto& c) { c.find_one_and_update({}, inc, odm::FindOneAndUpdateOptions<C>{}.sort(by_value)); },
       "findAndModify", "sort.value", R"({ "$numberInt" : "-1" })"},
      {"find_one_and_update.projection",
       [&](auto& c) {
         c.find_one_and_update(one, inc, odm::FindOneAndUpdateOptions<C>{}.projection(odm::projection<C, C>()));
       },
       "findAndModify", "fields.value", R"({ "$numberInt" : "1" })"},
      {"find_one_and_update.return_document",
       [&](auto& c) {
         c.find_one_and_update(one, inc, odm::FindOneAndUpdateOptions<C>{}.return_document(odm::ReturnDocument::after));
       },
       "findAndModify", "new", "true"},
      {"find_one_and_update.upsert",
       [&](auto& c) { c.find_one_and_update(one, inc, odm::FindOneAndUpdateOptions<C>{}.upsert()); }, "findAndModify",
       "upsert", "true"},
      {"find_one_and_update.array_filters",
       [&](auto& c) {
         c.find_one_and_update(one, odm::Update<C>::raw(json(R"({"$set": {"tags.$[t]": "y"}})")),
                               odm::FindOneAndUpdateOptions<C>{}.array_filters({json(R"({"t": "x"})")}));
       },
       "findAndModify", "arrayFilters.0.t", R"("x")"},
      {"find_one_and_update.max_time",
       [&](auto& c) { c.find_one_and_update(one, inc, odm::FindOneAndUpdateOptions<C>{}.max_time(4000ms)); },
       "findAndModify", "maxTimeMS", R"({ "$numberLong" : "4000" })"},
      {"find_one_and_update.comment",
       [&](auto& c) { c.find_one_and_update(one, inc, odm::FindOneAndUpdateOptions<C>{}.comment("claim")); },
       "findAndModify", "comment", R"("claim")"},
      {"find_one_and_update.hint",
       [&](auto& c) { c.find_one_and_update(one, inc, odm::FindOneAndUpdateOptions<C>{}.hint("_id_")); },
       "findAndModify", "hint", R"("_id_")"},
      {"find_one_and_update.collation",
       [&](auto& c) { c.find_one_and_update(one, inc, odm::FindOneAndUpdateOptions<C>{}.collation(simple)); },
       "findAndModify", "collation.locale", R"("simple")"},
      {"find_one_and_update.write_concern",
       [&](auto& c) { c.find_one_and_update(one, inc, odm::FindOneAndUpdateOptions<C>{}.write_concern(majority)); },
       "findAndModify", "writeConcern.w", R"("majority")"},
      {"find_one_and_replace.upsert",
       [&](auto& c) { c.find_one_and_replace(one, C{1, 5, "a", {}}, odm::FindOneAndReplaceOptions<C>{}.upsert()); },
       "findAndModify", "upsert", "true"},
      {"find_one_and_replace.return_document",
       [&](auto& c) {
         c.find_one_and_replace(one, C{1, 5, "a", {}},
                                odm::FindOneAndReplaceOptions<C>{}.return_document(odm::ReturnDocument::after));
       },
       "findAndModify", "new", "true"},
      {"find_one_and_replace.max_time",
       [&](auto& c) { c.find_one_and_replace(one, C{1, 5, "a", {}}, odm::FindOneAndReplaceOptions<C>{}.max_time(4000ms)); },
       "findAndModify", "maxTimeMS", R"({ "$numberLong" : "4000" })"},
      {"find_one_and_delete.sort",
       [&](auto& c) { c.find_one_and_delete({}, odm::FindOneAndDeleteOptions<C>{}.sort(by_value)); }, "findAndModify",
       "sort.value", R"({ "$numberInt" : "-1" })"},
      {"find_one_and_delete.comment",
       [&](auto& c) { c.find_one_and_delete(one, odm::FindOneAndDeleteOptions<C>{}.comment("take")); },
       "findAndModify", "comment", R"("take")"},
      {"find_one_and_delete.write_concern",
       [&](auto& c) { c.find_one_and_delete(one, odm::FindOneAndDeleteOptions<C>{}.write_concern(majority)); },
       "findAndModify", "writeConcern.w", R"("majority")"},
      // bulk writes: the per-write options travel in the statement (array_filters too)
      {"bulk.ordered", [&](auto& c) { c.bulk_write(odm::BulkWriteOptions<C>{}.ordered(false)).update_one(one, inc).execute(); },
       "update", "ordered", "false"},
      {"bulk.comment", [&](auto& c) { c.bulk_write(odm::BulkWriteOptions<C>{}.comment("bulk")).update_one(one, inc).execute(); },
       "update", "comment", R"("bulk")"},
      {"bulk.write_concern",
       [&](auto& c) { c.bulk_write(odm::BulkWriteOptions<C>{}.write_concern(majority)).delete_one(one).execute(); },
       "delete", "writeConcern.w", R"("majority")"},
      {"bulk.update_one.array_filters",
       [&](auto& c) {
         c.bulk_write()
             .update_one(one, odm::Update<C>::raw(json(R"({"$set": {"tags.$[t]": "y"}})")),
                         odm::UpdateOptions<C>{}.array_filters({json(R"({"t": "x"})")}))
             .execute();
       },
       "update", "updates.0.arrayFilters.0.t", R"("x")"},
      {"bulk.update_many.array_filters",
       [&](auto& c) {
         c.bulk_write()
             .update_many(one, odm::Update<C>::raw(json(R"({"$set": {"tags.$[t]": "y"}})")),
                          odm::UpdateOptions<C>{}.array_filters({json(R"({"t": "x"})")}))
             .execute();
       },
       "update", "updates.0.arrayFilters.0.t", R"("x")"},
      {"bulk.update_one.upsert",
       [&](auto& c) { c.bulk_write().update_one(one, inc, odm::UpdateOptions<C>{}.upsert()).execute(); }, "update",
       "updates.0.upsert", "true"},
      {"bulk.update_one.hint",
       [&](auto& c) { c.bulk_write().update_one(one, inc, odm::UpdateOptions<C>{}.hint("_id_")).execute(); }, "update",
       "updates.0.hint", R"("_id_")"},
      {"bulk.replace_one.collation",
       [&](auto& c) { c.bulk_write().replace_one(one, C{1, 5, "a", {}}, odm::ReplaceOptions<C>{}.collation(simple)).execute(); },
       "update", "updates.0.collation.locale", R"("simple")"},
      {"bulk.delete_one.hint",
       [&](auto& c) { c.bulk_write().delete_one(one, odm::DeleteOptions<C>{}.hint("_id_")).execute(); }, "delete",
       "deletes.0.hint", R"("_id_")"},
      {"bulk.delete_one.collation",
       [&](auto& c) { c.bulk_write().delete_one(one, odm::DeleteOptions<C>{}.collation(simple)).execute(); }, "delete",
       "deletes.0.collation.locale", R"("simple")"},
      {"bulk.delete_many.hint(keys)",
       [&](auto& c) {
         c.bulk_write().delete_many(one, odm::DeleteOptions<C>{}.hint(odm::sort(odm::asc(&C::id)))).execute();
       },
       "delete", "deletes.0.hint._id", R"({ "$numberInt" : "1" })"},
      {"bulk.delete_many.collation",
       [&](auto& c) { c.bulk_write().delete_many(one, odm::DeleteOptions<C>{}.collation(simple)).execute(); },
       "delete", "deletes.0.collation.locale", R"("simple")"},
  };
  // A standalone server gets no $readPreference (server selection specification: the read
  // preference only travels to a replica set member or mongos).
  const bool sends_read_preference = !missing_capability(odm_test::Capability::replica_set);
  for (const Reach& row : table) {
    SCOPED_TRACE(row.option);
    if (!sends_read_preference && row.field.starts_with("$readPreference")) continue;
    auto coll = counters();
    coll.drop();
    coll.insert_many(std::vector<Counter>{{1, 1, "a", {"x"}}, {2, 2, "b", {"x"}}, {3, 3, "c", {"x"}}});
    recorder_.clear();
    try {
      row.operation(coll);
    } catch (const odm::ServerError& error) {
      // An engine that does not implement the option (hint, collation) refuses the command;
      // the command was still sent as it should be.
      (void)error;
    }
    const std::optional<odm::Document> command = recorder_.last(row.command);
    ASSERT_TRUE(command.has_value()) << "no " << row.command << " command was sent";
    EXPECT_EQ(at(*command, row.field), row.value) << command->to_json();
  }
}

TEST_F(Options, AnUnsetOptionIsNotSent) {
  auto coll = counters();
  coll.insert_one(Counter{1, 1, "a", {}});
  recorder_.clear();
  coll.find().to_vector();
  coll.update_one(odm::field(&Counter::id) == 1, odm::field(&Counter::value).inc(1));
  coll.delete_one(odm::field(&Counter::id) == 1);
  for (const char* name : {"find", "update", "delete"}) {
    const std::optional<odm::Document> command = recorder_.last(name);
    ASSERT_TRUE(command.has_value()) << name;
    for (const char* field : {"comment", "maxTimeMS", "hint", "collation", "readConcern", "writeConcern",
                              "updates.0.arrayFilters", "updates.0.upsert", "sort", "projection", "limit", "skip"})
      EXPECT_EQ(at(*command, field), "") << name << " sent " << field << ": " << command->to_json();
  }
}

TEST_F(Options, EachWriteOfABulkDeleteCarriesOnlyItsOwnOptions) {
  auto coll = counters();
  coll.insert_many(std::vector<Counter>{{1, 1, "a", {}}, {2, 2, "b", {}}, {3, 3, "c", {}}});
  recorder_.clear();
  const auto result = coll.bulk_write()
                          .delete_one(odm::field(&Counter::id) == 1)
                          .delete_many(odm::field(&Counter::id) == 2, odm::DeleteOptions<Counter>{}.hint("_id_"))
                          .delete_one(odm::field(&Counter::id) == 3,
                                      odm::DeleteOptions<Counter>{}.collation(odm::Collation("simple")))
                          .execute();
  EXPECT_EQ(result.deleted, 3);
  EXPECT_EQ(coll.count(), 0);
  const std::optional<odm::Document> command = recorder_.last("delete");
  ASSERT_TRUE(command.has_value());
  const std::string sent = command->to_json();
  EXPECT_EQ(at(*command, "deletes.0.q._id"), R"({ "$numberInt" : "1" })") << sent << " (one command, in order)";
  EXPECT_EQ(at(*command, "deletes.0.hint"), "") << sent;
  EXPECT_EQ(at(*command, "deletes.0.collation"), "") << sent;
  EXPECT_EQ(at(*command, "deletes.1.hint"), R"("_id_")") << sent;
  EXPECT_EQ(at(*command, "deletes.1.collation"), "") << sent;
  EXPECT_EQ(at(*command, "deletes.2.hint"), "") << sent;
  EXPECT_EQ(at(*command, "deletes.2.collation.locale"), R"("simple")") << sent;
  for (const char* field : {"comment", "maxTimeMS", "hint", "collation", "writeConcern"})
    EXPECT_EQ(at(*command, field), "") << "the command itself sent " << field << ": " << sent;
}

TEST_F(Options, ABulkDeleteWithACaseInsensitiveCollationMatchesEveryCase) {
  ODM_REQUIRE(collation);
  auto coll = counters();
  coll.insert_many(std::vector<Counter>{{1, 1, "abc", {}}, {2, 2, "ABC", {}}, {3, 3, "abd", {}}});
  // Strength 2 compares base letters and accents, not case
  // (https://www.mongodb.com/docs/manual/reference/collation/#collation-document).
  const auto result = coll.bulk_write()
                          .delete_many(odm::field(&Counter::group) == "abc",
                                       odm::DeleteOptions<Counter>{}.collation(odm::Collation("en").strength(2)))
                          .execute();
  EXPECT_EQ(result.deleted, 2);
  const auto left = coll.find().to_vector();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left.front().id, 3);
}

// ---- levels: client < database < collection < operation -----------------------------

TEST_F(Options, EachLevelOverridesTheOneAbove) {
  auto level_client = [&](const odm::ClientOptions& extra) {
    odm::ClientOptions options = recorder_.options();
    if (extra.read_concern()) options.read_concern(*extra.read_concern());
    if (extra.write_concern()) options.write_concern(*extra.write_concern());
    if (extra.read_preference()) options.read_preference(*extra.read_preference());
    return odm::Client(uri_, options);
  };
  odm::Client client = level_client(odm::ClientOptions{}
                                        .read_concern(odm::ReadConcern::local())
                                        .write_concern(odm::WriteConcern::nodes(1))
                                        .read_preference(odm::ReadPreference(odm::ReadMode::primary_preferred)));
  // The `field` of the `command` that `run` sends.
  const auto sent = [&](const char* command, const char* field, const std::function<void()>& run) {
    recorder_.clear();
    run();
    const auto document = recorder_.last(command);
    return document ? at(*document, field) : std::string("no ") + command;
  };
  auto read_level = [&](const odm::Collection<Counter>& coll, std::optional<odm::ReadConcern> op = std::nullopt) {
    odm::FindOptions<Counter> options;
    if (op) options.read_concern(*op);
    return sent("find", "readConcern.level", [&] { coll.find({}, options).to_vector(); });
  };
  auto write_level = [&](odm::Collection<Counter> coll, std::optional<odm::WriteConcern> op = std::nullopt) {
    odm::DeleteOptions<Counter> options;
    if (op) options.write_concern(*op);
    return sent("delete", "writeConcern.w", [&] { coll.delete_many(odm::field(&Counter::id) == -1, options); });
  };
  // A standalone server gets no $readPreference (see above).
  const bool standalone = missing_capability(odm_test::Capability::replica_set).has_value();
  const std::string none = "(a standalone gets no $readPreference)";
  auto mode_level = [&](const odm::Collection<Counter>& coll, std::optional<odm::ReadMode> op = std::nullopt) {
    odm::FindOptions<Counter> options;
    if (op) options.read_preference(odm::ReadPreference(*op));
    const std::string mode = sent("find", "$readPreference.mode", [&] { coll.find({}, options).to_vector(); });
    return standalone ? none : mode;
  };
  const auto mode = [&](const char* expected) { return standalone ? none : std::string(expected); };

  odm::Database db = client.database(db_name_);
  auto from_client = db.collection<Counter>();
  EXPECT_EQ(read_level(from_client), R"("local")");
  EXPECT_EQ(write_level(from_client), R"({ "$numberInt" : "1" })");
  EXPECT_EQ(mode_level(from_client), mode(R"("primaryPreferred")"));

  db.read_concern(odm::ReadConcern::available())
      .write_concern(odm::WriteConcern::majority())
      .read_preference(odm::ReadPreference(odm::ReadMode::secondary_preferred));
  auto from_db = db.collection<Counter>();
  EXPECT_EQ(read_level(from_db), R"("available")");
  EXPECT_EQ(write_level(from_db), R"("majority")");
  EXPECT_EQ(mode_level(from_db), mode(R"("secondaryPreferred")"));
  EXPECT_EQ(read_level(from_client), R"("local")") << "a collection made before keeps its settings";

  auto own = db.collection<Counter>();
  own.read_concern(odm::ReadConcern::majority()).write_concern(odm::WriteConcern::nodes(1)).read_preference(
      odm::ReadPreference(odm::ReadMode::nearest));
  EXPECT_EQ(read_level(own), R"("majority")");
  EXPECT_EQ(write_level(own), R"({ "$numberInt" : "1" })");
  EXPECT_EQ(mode_level(own), mode(R"("nearest")"));
  EXPECT_EQ(read_level(from_db), R"("available")") << "another handle keeps its database's";

  EXPECT_EQ(read_level(own, odm::ReadConcern::local()), R"("local")");
  EXPECT_EQ(write_level(own, odm::WriteConcern::tagged("dc")), R"("dc")");
  EXPECT_EQ(mode_level(own, odm::ReadMode::secondary_preferred), mode(R"("secondaryPreferred")"));
  EXPECT_EQ(read_level(own), R"("majority")") << "an operation's settings are its own";

  // A collection sets one setting and keeps its database's others.
  auto partly = db.collection<Counter>();
  partly.read_concern(odm::ReadConcern::local());
  EXPECT_EQ(read_level(partly), R"("local")");
  EXPECT_EQ(write_level(partly), R"("majority")");
}

TEST_F(Options, TheClientsSettingsReplaceTheUris) {
  const std::string uri = uri_;
  odm::Client client(uri + (uri.find('?') == std::string::npos ? "?" : "&") + "readConcernLevel=available&w=1",
                     recorder_.options().read_concern(odm::ReadConcern::majority()));
  auto coll = client.database(db_name_).collection<Counter>();
  recorder_.clear();
  coll.find().to_vector();
  coll.delete_many(odm::field(&Counter::id) == -1);
  EXPECT_EQ(at(*recorder_.last("find"), "readConcern.level"), R"("majority")");
  EXPECT_EQ(at(*recorder_.last("delete"), "writeConcern.w"), R"({ "$numberInt" : "1" })") << "the URI's w stays";
}

TEST_F(Options, TagSetsAndStalenessReachTheServerSelection) {
  ODM_REQUIRE(replica_set);  // a standalone gets no $readPreference
  auto coll = counters();
  recorder_.clear();
  coll.find({}, odm::FindOptions<Counter>{}.read_preference(
                    odm::ReadPreference(odm::ReadMode::nearest).tag_sets({{{"dc", "east"}}, {}}).max_staleness(120s)))
      .to_vector();
  const auto command = recorder_.last("find");
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(at(*command, "$readPreference.tags.0.dc"), R"("east")") << command->to_json();
  EXPECT_EQ(at(*command, "$readPreference.maxStalenessSeconds"), R"({ "$numberLong" : "120" })") << command->to_json();
}

// ---- validation: invalid settings fail before anything is sent ----------------------

TEST(OptionsValidation, InvalidCombinationsAreConfigurationErrors) {
  using odm::ConfigurationError;
  EXPECT_THROW(odm::ReadPreference(odm::ReadMode::primary).max_staleness(120s), ConfigurationError);
  EXPECT_THROW(odm::ReadPreference(odm::ReadMode::primary).tag_sets({{{"dc", "east"}}}), ConfigurationError);
  EXPECT_THROW(odm::ReadPreference(odm::ReadMode::secondary).max_staleness(89s), ConfigurationError);
  EXPECT_NO_THROW(odm::ReadPreference(odm::ReadMode::secondary).max_staleness(90s));
  EXPECT_NO_THROW(odm::ReadPreference(odm::ReadMode::primary).tag_sets({}));
  EXPECT_THROW(odm::WriteConcern::nodes(0).journal(true), ConfigurationError);
  EXPECT_NO_THROW(odm::WriteConcern::nodes(0).journal(false));
  EXPECT_THROW(odm::WriteConcern::unacknowledged().journal(), ConfigurationError);
  EXPECT_THROW(odm::WriteConcern::majority().timeout(-1ms), ConfigurationError);
  EXPECT_THROW(odm::WriteConcern::nodes(-1), ConfigurationError);
  EXPECT_THROW(odm::WriteConcern::tagged(""), ConfigurationError);
  EXPECT_TRUE(std::holds_alternative<odm::WriteConcern::Majority>(odm::WriteConcern::tagged("majority").w()));
  EXPECT_THROW(odm::Collation(""), ConfigurationError);
  EXPECT_THROW(odm::Collation("en").strength(0), ConfigurationError);
  EXPECT_THROW(odm::Collation("en").strength(6), ConfigurationError);
  EXPECT_THROW(odm::FindOptions<Counter>{}.max_time(-1ms), ConfigurationError);
  try {
    odm::ReadPreference(odm::ReadMode::primary).max_staleness(120s);
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("maxStalenessSeconds cannot be combined with mode primary"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(Options, AnInvalidCombinationAtAnOperationSendsNothing) {
  auto coll = counters();
  recorder_.clear();
  // linearizable reads only from the primary.
  EXPECT_THROW(coll.find({}, odm::FindOptions<Counter>{}
                                 .read_concern(odm::ReadConcern::linearizable())
                                 .read_preference(odm::ReadPreference(odm::ReadMode::secondary_preferred))),
               odm::ConfigurationError);
  auto secondary = counters();
  secondary.read_preference(odm::ReadPreference(odm::ReadMode::nearest));
  EXPECT_THROW(secondary.count({}, odm::CountOptions<Counter>{}.read_concern(odm::ReadConcern::linearizable())),
               odm::ConfigurationError)
      << "the collection's read preference counts too";
  // A bulk write's statement carries no command settings.
  EXPECT_THROW(coll.bulk_write().update_one(odm::field(&Counter::id) == 1, odm::field(&Counter::value).inc(1),
                                            odm::UpdateOptions<Counter>{}.comment("per write")),
               odm::ConfigurationError);
  EXPECT_THROW(coll.bulk_write().delete_one(odm::field(&Counter::id) == 1, odm::DeleteOptions<Counter>{}.comment("per write")),
               odm::ConfigurationError);
  EXPECT_THROW(coll.bulk_write().delete_many(odm::field(&Counter::id) == 1,
                                             odm::DeleteOptions<Counter>{}.max_time(5ms)),
               odm::ConfigurationError);
  EXPECT_THROW(coll.bulk_write().delete_many(odm::field(&Counter::id) == 1,
                                             odm::DeleteOptions<Counter>{}.write_concern(odm::WriteConcern::majority())),
               odm::ConfigurationError);
  EXPECT_FALSE(recorder_.last("find").has_value());
  EXPECT_FALSE(recorder_.last("aggregate").has_value());
}

TEST_F(Options, AnOperationInATransactionCannotSetItsOwnConcerns) {
  ODM_REQUIRE(transactions);
  auto coll = counters();
  coll.insert_one(Counter{1, 1, "a", {}});
  odm::Session session = client_->start_session();
  session.start_transaction();
  recorder_.clear();
  EXPECT_THROW(coll.find(session, {}, odm::FindOptions<Counter>{}.read_concern(odm::ReadConcern::majority())),
               odm::ConfigurationError);
  EXPECT_THROW(coll.update_one(session, odm::field(&Counter::id) == 1, odm::field(&Counter::value).inc(1),
                               odm::UpdateOptions<Counter>{}.write_concern(odm::WriteConcern::majority())),
               odm::ConfigurationError);
  EXPECT_FALSE(recorder_.last("find").has_value());
  EXPECT_FALSE(recorder_.last("update").has_value());
  // The collection's own settings give way to the transaction's.
  auto majority = counters();
  majority.read_concern(odm::ReadConcern::majority()).write_concern(odm::WriteConcern::majority());
  majority.update_one(session, odm::field(&Counter::id) == 1, odm::field(&Counter::value).inc(1));
  const auto update = recorder_.last("update");
  ASSERT_TRUE(update.has_value());
  EXPECT_EQ(at(*update, "writeConcern"), "") << update->to_json();
  session.commit_transaction();
  EXPECT_EQ(coll.get_by_id(1).value, 2);
}

// ---- the server acts on them -----------------------------------------------------------

// MongoDB's maxTimeAlwaysTimeOut fail point fails a command that carries maxTimeMS as if
// its time ran out (the drivers' specification tests use it); failCommand's
// blockConnection would not do: mongod blocks for all of blockTimeMS whatever the maxTimeMS.
// mongod applies it to every client, so CTest runs these tests alone (RUN_SERIAL,
// tests/driver/CMakeLists.txt); the test server also honours the appName given here.
class MaxTime : public odm_test::FailPointTest {
 protected:
  void expire_next(int times) {
    admin_->database("admin").run_command(json(R"({"configureFailPoint": "maxTimeAlwaysTimeOut", "mode": {"times": )" +
                                               std::to_string(times) + R"(}, "data": {"appName": ")" + app_name_ +
                                               R"("}})"));
  }
  void TearDown() override {
    if (admin_ && !IsSkipped())
      admin_->database("admin").run_command(json(R"({"configureFailPoint": "maxTimeAlwaysTimeOut", "mode": "off"})"));
    FailPointTest::TearDown();
  }
};

TEST_F(MaxTime, ACommandPastItsTimeLimitFailsWithMaxTimeMSExpired) {
  auto coll = client_->database(db_name_).collection<Counter>();
  coll.insert_one(Counter{1, 1, "a", {}});
  const auto expired = [&](auto&& operation) {
    expire_next(1);
    const auto error = odm_test::error_of(operation);
    EXPECT_TRUE(error.has_value()) << "no error";
    // The message names the limit that was hit and what to change.
    if (error) {
      EXPECT_NE(std::string(error->what()).find("ran past its time limit (the max_time(...) of its options"),
                std::string::npos)
          << error->what();
    }
    return error ? error->code() : 0;
  };
  EXPECT_EQ(expired([&] { coll.find({}, odm::FindOptions<Counter>{}.max_time(5000ms)).to_vector(); }), 50);
  EXPECT_EQ(expired([&] { coll.count({}, odm::CountOptions<Counter>{}.max_time(5000ms)); }), 50);
  EXPECT_EQ(expired([&] {
              coll.find_one_and_update(odm::field(&Counter::id) == 1, odm::field(&Counter::value).inc(1),
                                       odm::FindOneAndUpdateOptions<Counter>{}.max_time(5000ms));
            }),
            50);
  EXPECT_EQ(expired([&] { coll.delete_one(odm::field(&Counter::id) == 1, odm::DeleteOptions<Counter>{}.max_time(5000ms)); }),
            50);
  EXPECT_EQ(coll.get_by_id(1).value, 1) << "an expired write changed nothing";
  // Without max_time the fail point does not apply.
  expire_next(1);
  EXPECT_EQ(coll.count(), 1);
}

TEST_F(Options, AHintNamingNoIndexIsRefused) {
  ODM_REQUIRE(hint_checks);
  auto coll = counters();
  coll.insert_many(std::vector<Counter>{{1, 1, "a", {}}, {2, 2, "b", {}}});
  EXPECT_EQ(coll.find({}, odm::FindOptions<Counter>{}.hint("_id_")).to_vector().size(), 2u);
  EXPECT_EQ(coll.count({}, odm::CountOptions<Counter>{}.hint(odm::sort(odm::asc(&Counter::id)))), 2);
  EXPECT_THROW(coll.find({}, odm::FindOptions<Counter>{}.hint("no_such_index")).to_vector(), odm::ServerError);
  EXPECT_THROW(coll.count({}, odm::CountOptions<Counter>{}.hint(odm::sort(odm::asc(&Counter::value)))),
               odm::ServerError);
  EXPECT_THROW(coll.update_one(odm::field(&Counter::id) == 1, odm::field(&Counter::value).inc(1),
                               odm::UpdateOptions<Counter>{}.hint("no_such_index")),
               odm::ServerError);
  EXPECT_EQ(coll.get_by_id(1).value, 1) << "a refused update changes nothing";
  EXPECT_THROW(coll.bulk_write()
                   .delete_one(odm::field(&Counter::id) == 1, odm::DeleteOptions<Counter>{}.hint("no_such_index"))
                   .execute(),
               odm::ServerError);
  EXPECT_EQ(coll.count(), 2) << "a refused bulk delete deletes nothing";
}

// ---- dropping what is not there -------------------------------------------------------

TEST(NamespaceNotFound, EveryFormOfTheReplyIsRecognized) {
  EXPECT_TRUE(odm::detail::namespace_not_found(26, "ns not found"));
  EXPECT_TRUE(odm::detail::namespace_not_found(26, "Collection test.x does not exist"));
  EXPECT_TRUE(odm::detail::namespace_not_found(17, "ns not found")) << "no code: libmongoc's own";
  EXPECT_TRUE(odm::detail::namespace_not_found(0, "ns does not exist: test.x"));
  EXPECT_FALSE(odm::detail::namespace_not_found(13, "not authorized on test to execute command"));
  EXPECT_FALSE(odm::detail::namespace_not_found(17, "unknown"));
}

TEST_F(Options, DroppingAMissingCollectionSendsNoFailingCommandWorthAlerting) {
  auto coll = recorded_db().collection<Counter>("never_created");
  recorder_.clear();
  EXPECT_NO_THROW(coll.drop());
  EXPECT_NO_THROW(coll.drop());
}

}  // namespace
