// The contract release of a rename (odm::rename_field in a schema step) writing to a
// document that still holds the old name: every write path of the newest release leaves
// the value under the new name and the old name gone (else the expand release, which reads
// the old name where present, reads a stale value), and keeps the fields the model does
// not know, in their order. Two shapes of stored document: an older one (no
// schema_version: the upgrade consumes the old name) and a current one an expand-release
// program wrote both names to afterwards (the old name is retired: every write unsets it).
// Also a user's document step that drops a field: a tracked save unsets it.

#include "driver/support.hpp"

#include <odm/aggregation/pipeline.hpp>
#include <odm/driver/client.hpp>
#include <odm/evolution/changes.hpp>
#include <odm/evolution/extra.hpp>
#include <odm/evolution/migrate.hpp>
#include <odm/evolution/rename.hpp>
#include <odm/evolution/versions.hpp>
#include <odm/query.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace consumed_fields_itest {

/// The contract release: "hits" was renamed to "visits"; fields it does not declare stay.
struct Counter {
  std::int64_t id = 0;
  std::string name;
  std::int64_t visits = 0;
  struct odm_model {
    static constexpr std::string_view collection = "counters";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("hits", "visits")));
  };
};

/// The same, keeping its unknown fields in an odm::Extra (true replacements).
struct KeepingCounter {
  std::int64_t id = 0;
  std::string name;
  std::int64_t visits = 0;
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "counters";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("hits", "visits")));
  };
};

/// The expand release of the same rename (writes both names, reads "hits" where present).
struct ExpandCounter {
  std::int64_t id = 0;
  std::string name;
  std::int64_t visits = 0;
  struct odm_model {
    static constexpr std::string_view collection = "counters";
    static constexpr auto fields = odm::fields(odm::renamed_from<&ExpandCounter::visits>("hits"));
  };
};

/// The expand release's counter with a computed copy of it (a $set stage's output).
struct CopiedCounter {
  std::int64_t id = 0;
  std::string name;
  std::int64_t visits = 0;
  std::int64_t copy = 0;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&CopiedCounter::visits>("hits"));
  };
};

/// A user's document step that drops the field "legacy" and keeps the rest.
struct DropLegacy {
  odm::Document operator()(const odm::Document& stored) const {
    odm::Document out;
    bson_iter_t it;
    bson_iter_init(&it, stored.get());
    while (bson_iter_next(&it))
      if (std::string_view(bson_iter_key(&it)) != "legacy")
        bson_append_iter(out.get_mutable(), bson_iter_key(&it), -1, &it);
    return out;
  }
};
struct Slim {
  std::int64_t id = 0;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "slim";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(DropLegacy{}));
  };
};

}  // namespace consumed_fields_itest

namespace {

using namespace consumed_fields_itest;
using odm::field;
using odm_test::json;

// Written by v1 (old name only) beside another program's fields, before the contract release.
constexpr const char* older_document =
    R"({"_id": {"$numberLong": "1"}, "note": "kept", "hits": {"$numberLong": "5"}, "name": "n",
        "other": {"k": 1}})";
// Stamped current by the contract release, then written by the expand release (both names).
constexpr const char* current_document =
    R"({"_id": {"$numberLong": "1"}, "note": "kept", "hits": {"$numberLong": "5"}, "name": "n",
        "other": {"k": 1}, "visits": {"$numberLong": "5"}, "schema_version": 2})";

class ConsumedFields : public odm_test::DriverTest, public ::testing::WithParamInterface<const char*> {
 protected:
  void SetUp() override {
    odm_test::DriverTest::SetUp();
    db().run_command(json(std::string(R"({"insert": "counters", "documents": [)") + GetParam() + "]}"));
  }
  odm::Document stored() {
    auto found = db().collection<Counter>().find_one<odm::Document>(odm::Filter<Counter>::raw(json(R"({"_id": 1})")));
    EXPECT_TRUE(found.has_value());
    return found ? *found : odm::Document();
  }
  /// The stored document: no "hits", `visits` as given, the unknown fields as written and
  /// in their order before the model's.
  void expect_renamed(std::int64_t visits) {
    const odm::Document document = stored();
    SCOPED_TRACE(document.to_json());
    EXPECT_FALSE(odm_test::has_key(document, "hits"));
    bson_iter_t it;
    ASSERT_TRUE(bson_iter_init_find(&it, document.get(), "visits"));
    EXPECT_EQ(bson_iter_as_int64(&it), visits);
    ASSERT_TRUE(bson_iter_init_find(&it, document.get(), "note"));
    EXPECT_EQ(std::string(bson_iter_utf8(&it, nullptr)), "kept");
    ASSERT_TRUE(bson_iter_init_find(&it, document.get(), "other"));
    EXPECT_TRUE(BSON_ITER_HOLDS_DOCUMENT(&it));
    std::vector<std::string> unknown;
    bson_iter_init(&it, document.get());
    while (bson_iter_next(&it)) {
      const std::string key = bson_iter_key(&it);
      if (key == "note" || key == "other") unknown.push_back(key);
    }
    EXPECT_EQ(unknown, (std::vector<std::string>{"note", "other"}));
  }
};

INSTANTIATE_TEST_SUITE_P(OlderAndCurrent, ConsumedFields, ::testing::Values(older_document, current_document),
                         [](const auto& info) { return info.index == 0 ? "Older" : "CurrentWithTheOldName"; });

TEST_P(ConsumedFields, ATrackedSave) {
  auto counters = db().collection<Counter>();
  odm::Tracked<Counter> counter = odm::track(counters.get_by_id(1));
  EXPECT_EQ(counter->visits, 5);
  counter->visits += 1;
  counter.save(counters);
  expect_renamed(6);
}

TEST_P(ConsumedFields, ATrackedSaveOfAModelKeepingUnknownFields) {
  auto counters = db().collection<KeepingCounter>("counters");
  odm::Tracked<KeepingCounter> counter = odm::track(counters.get_by_id(1));
  counter->visits += 1;
  counter.save(counters);
  expect_renamed(6);
}

TEST_P(ConsumedFields, AReplaceOne) {
  auto counters = db().collection<Counter>();
  Counter counter = counters.get_by_id(1);
  counter.visits = 9;
  EXPECT_EQ(counters.replace_one(field(&Counter::id) == 1, counter).matched, 1);
  expect_renamed(9);
}

TEST_P(ConsumedFields, AReplaceOneOfAModelKeepingUnknownFields) {
  auto counters = db().collection<KeepingCounter>("counters");
  KeepingCounter counter = counters.get_by_id(1);
  counter.visits = 9;
  EXPECT_EQ(counters.replace_one(field(&KeepingCounter::id) == 1, counter).matched, 1);
  expect_renamed(9);
}

TEST_P(ConsumedFields, AFindOneAndReplace) {
  auto counters = db().collection<Counter>();
  Counter counter = counters.get_by_id(1);
  counter.visits = 9;
  EXPECT_TRUE(counters.find_one_and_replace(field(&Counter::id) == 1, counter).has_value());
  expect_renamed(9);
}

TEST_P(ConsumedFields, ATypedUpdate) {
  auto counters = db().collection<Counter>();
  EXPECT_EQ(counters.update_one(field(&Counter::id) == 1, field(&Counter::visits).inc(std::int64_t{2})).matched, 1);
  expect_renamed(7);
}

TEST_P(ConsumedFields, ATypedUpdateOfAnotherMember) {
  auto counters = db().collection<Counter>();
  EXPECT_EQ(counters.update_one(field(&Counter::id) == 1, field(&Counter::name).set("m")).matched, 1);
  expect_renamed(5);
}

TEST_P(ConsumedFields, AFindOneAndUpdate) {
  auto counters = db().collection<Counter>();
  EXPECT_TRUE(counters.find_one_and_update(field(&Counter::id) == 1, field(&Counter::visits).inc(std::int64_t{2}))
                  .has_value());
  expect_renamed(7);
}

TEST_P(ConsumedFields, BulkWrites) {
  auto counters = db().collection<Counter>();
  counters.bulk_write().update_one(field(&Counter::id) == 1, field(&Counter::visits).inc(std::int64_t{2})).execute();
  expect_renamed(7);
  Counter counter = counters.get_by_id(1);
  counter.visits = 9;
  db().run_command(json(R"({"update": "counters", "updates": [{"q": {"_id": 1}, "u": {"$set": {"hits": 3}}}]})"));
  counters.bulk_write().replace_one(field(&Counter::id) == 1, counter).execute();
  expect_renamed(9);
}

TEST_P(ConsumedFields, TheMigration) {
  const odm::MigrationReport report = odm::Migration<Counter>(db()).run();
  EXPECT_EQ(report.migrated, 1);
  EXPECT_EQ(report.remaining, 0);
  expect_renamed(5);
  EXPECT_EQ(odm::Migration<Counter>(db()).run().migrated, 0);
}

// A document step that drops a field consumes it: a tracked save of a model without
// odm::Extra (which leaves the fields it does not declare) unsets it all the same.
class ConsumedFieldsOfAUserStep : public odm_test::DriverTest {};

TEST_F(ConsumedFieldsOfAUserStep, ATrackedSaveUnsetsWhatTheStepDropped) {
  db().run_command(json(R"({"insert": "slim", "documents": [{"_id": {"$numberLong": "1"}, "legacy": 1, "name": "n",
                                                            "other": "kept"}]})"));
  auto slim = db().collection<Slim>();
  odm::Tracked<Slim> one = odm::track(slim.get_by_id(1));
  one->name = "m";
  one.save(slim);
  const auto found = slim.find_one<odm::Document>(odm::Filter<Slim>::raw(json(R"({"_id": 1})")));
  ASSERT_TRUE(found.has_value());
  SCOPED_TRACE(found->to_json());
  EXPECT_FALSE(odm_test::has_key(*found, "legacy"));
  EXPECT_TRUE(odm_test::has_key(*found, "other"));
  EXPECT_EQ(slim.get_by_id(1).name, "m");
}

}  // namespace

namespace {

class ConsumedFieldsBesideTheExpandRelease : public odm_test::DriverTest {};

// The README's known hole, exactly: an `inc` by the expand release on a document only the
// contract release wrote creates the old name with the increment alone, which the expand
// release then reads; the contract release reads the right sum, and its next write (of
// any member) retires the old name, after which both read the same again.
TEST_F(ConsumedFieldsBesideTheExpandRelease, AnIncrementCreatesTheOldNameUntilTheContractReleaseWritesAgain) {
  auto contract = db().collection<Counter>();
  auto expand = db().collection<ExpandCounter>();
  contract.insert_one(Counter{1, "n", 5});
  expand.update_one(field(&ExpandCounter::id) == 1, field(&ExpandCounter::visits).inc(std::int64_t{2}));
  EXPECT_EQ(expand.get_by_id(1).visits, 2) << "the known hole: the old name holds the increment alone";
  EXPECT_EQ(contract.get_by_id(1).visits, 7);
  contract.update_one(field(&Counter::id) == 1, field(&Counter::name).set("m"));
  EXPECT_EQ(expand.get_by_id(1).visits, 7);
  EXPECT_EQ(contract.get_by_id(1).visits, 7);
  // A whole set by the expand release writes both names: both read it.
  expand.update_one(field(&ExpandCounter::id) == 1, field(&ExpandCounter::visits).set(std::int64_t{11}));
  EXPECT_EQ(expand.get_by_id(1).visits, 11);
  EXPECT_EQ(contract.get_by_id(1).visits, 11);
}

}  // namespace

namespace {

// An $addFields (or $set) assignment from the renamed member reads it as the expand
// release does: the old name where a document has it (v1 wrote it last), else the new one.
TEST_F(ConsumedFieldsBesideTheExpandRelease, AnAssignmentFromTheRenamedMemberReadsTheOldNameFirst) {
  db().run_command(json(R"({"insert": "counters", "documents": [
      {"_id": {"$numberLong": "1"}, "name": "v1", "hits": {"$numberLong": "4"}},
      {"_id": {"$numberLong": "2"}, "name": "both", "hits": {"$numberLong": "5"}, "visits": {"$numberLong": "3"}},
      {"_id": {"$numberLong": "3"}, "name": "v3", "visits": {"$numberLong": "6"}}]})"));
  const auto copies = db().collection<ExpandCounter>()
                          .aggregate(odm::pipeline<ExpandCounter>().add_fields<CopiedCounter>(
                              odm::agg::assign<&CopiedCounter::copy>(field(&ExpandCounter::visits))))
                          .to_vector();
  ASSERT_EQ(copies.size(), 3u);
  for (const CopiedCounter& copied : copies) {
    SCOPED_TRACE(copied.name);
    EXPECT_EQ(copied.copy, copied.id == 1 ? 4 : copied.id == 2 ? 5 : 6);
  }
}

}  // namespace
