// Schema versions against a server: lazy upgrades written back by saves, and batch
// migrations (odm/evolution/migrate.hpp): dry run, idempotence, crash and resume,
// concurrent writers (a forced interleaving and a randomized run), hostile versions.

#include "driver/support.hpp"

#include <odm/driver/client.hpp>
#include <odm/evolution/changes.hpp>
#include <odm/evolution/extra.hpp>
#include <odm/evolution/migrate.hpp>
#include <odm/evolution/versions.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace migrate_itest {
namespace {

using odm_test::json;

// The fields of a document as canonical Extended JSON, by name: engines differ on where an
// update puts the fields it creates (MongoDB 5.0+ in lexicographic order), which is not
// what these tests are about.
std::map<std::string, std::string> canonical(const odm::Document& document) {
  std::map<std::string, std::string> fields;
  bson_iter_t it;
  bson_iter_init(&it, document.get());
  while (bson_iter_next(&it)) {
    odm::Document one;
    bson_append_iter(one.get_mutable(), bson_iter_key(&it), -1, &it);
    fields.emplace(bson_iter_key(&it), one.to_canonical_json());
  }
  return fields;
}

// Version 1 stored `hits`; version 2 renamed it `visits`.
struct CounterV1 {
  std::int64_t id = 0;
  std::int64_t hits = 0;
  odm::Extra rest;
};
struct CounterV2 {
  std::int64_t id = 0;
  std::int64_t visits = 0;
  odm::Extra rest;
};

// What the step does besides renaming, set by each test: count the upgrades of each
// document, fail on one, or write to the document as a concurrent writer would.
std::mutex hooks_mutex;
std::map<std::int64_t, int> upgrades_of;
std::function<void(std::int64_t)> before_upgrade;

CounterV2 rename_hits(const CounterV1& old) {
  std::function<void(std::int64_t)> hook;
  {
    std::lock_guard lock(hooks_mutex);
    hook = before_upgrade;
  }
  if (hook) hook(old.id);
  {
    std::lock_guard lock(hooks_mutex);
    ++upgrades_of[old.id];
  }
  return CounterV2{old.id, old.hits, old.rest};
}

struct Counter {
  std::int64_t id = 0;
  std::int64_t visits = 0;
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "counters";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&rename_hits));
  };
};

class Migrate : public odm_test::DriverTest {
 protected:
  void SetUp() override {
    DriverTest::SetUp();
    std::lock_guard lock(hooks_mutex);
    upgrades_of.clear();
    before_upgrade = nullptr;
  }
  void TearDown() override {
    {
      std::lock_guard lock(hooks_mutex);
      before_upgrade = nullptr;
    }
    DriverTest::TearDown();
  }
  odm::Collection<Counter> counters() { return db().collection<Counter>(); }
  /// `count` version-1 documents {_id: i, hits: i * 10, tag: "t<i>"}, ids 1..count.
  void insert_v1(int count) {
    std::string documents = "[";
    for (int i = 1; i <= count; ++i) {
      if (i > 1) documents += ",";
      documents += R"({"_id": {"$numberLong": ")" + std::to_string(i) + R"("}, "hits": {"$numberLong": ")" +
                   std::to_string(i * 10) + R"("}, "tag": "t)" + std::to_string(i) + R"("})";
    }
    db().run_command(json(R"({"insert": "counters", "documents": )" + documents + "]}"));
  }
  std::vector<odm::Document> all() {
    std::vector<odm::Document> documents;
    odm::FindOptions<Counter> options;
    options.sort(odm::Sort<Counter>::raw(json(R"({"_id": 1})")));
    for (const odm::Document& d : counters().find<odm::Document>({}, std::move(options))) documents.push_back(d);
    return documents;
  }
  std::int64_t at_version(int version) {
    return counters().count(odm::Filter<Counter>::raw(json(R"({"schema_version": )" + std::to_string(version) + "}")));
  }
  /// The documents of the checkpoint collection, read through a model of the test's own.
  struct Checkpoint {
    std::string id;
  };
  std::int64_t checkpoints() { return db().collection<Checkpoint>("odm_migrations").count(); }
};

TEST_F(Migrate, ReadingUpgradesLazilyAndSavingWritesTheNewVersion) {
  insert_v1(2);
  auto coll = counters();
  const Counter read = coll.get_by_id(1);
  EXPECT_EQ(read.visits, 10);
  EXPECT_EQ(canonical(all()[0]), canonical(json(R"({"_id": {"$numberLong": "1"}, "hits": {"$numberLong": "10"},
                                                    "tag": "t1"})")))
      << "reading changes nothing stored";
  coll.replace_one(odm::Filter<Counter>::raw(odm::detail::id_filter(std::int64_t{1})), read);
  EXPECT_EQ(canonical(all()[0]), canonical(json(R"({"_id": {"$numberLong": "1"}, "visits": {"$numberLong": "10"},
                                                    "tag": "t1", "schema_version": 2})")));
  // A tracked save of a document loaded at version 1 writes the upgrade with the change.
  odm::Tracked<Counter> tracked = odm::track(coll, std::int64_t{2});
  tracked->visits += 1;
  EXPECT_TRUE(tracked.save(coll));
  // (MongoDB 5.0+ adds the fields an update creates in lexicographic order.)
  EXPECT_EQ(canonical(all()[1]), canonical(json(R"({"_id": {"$numberLong": "2"}, "tag": "t2", "schema_version": 2,
                                                    "visits": {"$numberLong": "21"}})")));
  EXPECT_FALSE(tracked.changed());
}

TEST_F(Migrate, ADryRunChangesNothingAndARunMigratesEveryOldDocumentOnce) {
  insert_v1(12);
  counters().insert_one(Counter{13, 5, {}});  // already at version 2
  const std::vector<odm::Document> before = all();
  std::vector<odm::MigrationProgress> seen;
  const odm::MigrationReport dry =
      odm::Migration<Counter>(db()).batch_size(5).dry_run().on_progress([&](const auto& p) { seen.push_back(p); }).run();
  EXPECT_TRUE(dry.dry_run);
  EXPECT_EQ(dry.migrated, 12);
  ASSERT_EQ(before.size(), all().size());
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(canonical(before[i]), canonical(all()[i]));
  EXPECT_EQ(checkpoints(), 0) << "a dry run writes no checkpoint";
  ASSERT_EQ(seen.size(), 3u) << "batches of 5, 5 and 2";
  EXPECT_EQ(seen.back().done, 12);
  EXPECT_EQ(seen.back().to_do, 12);

  {
    std::lock_guard lock(hooks_mutex);
    upgrades_of.clear();
  }
  log_.clear();
  const odm::MigrationReport report = odm::Migration<Counter>(db()).batch_size(5).run();
  EXPECT_EQ(report.migrated, 12);
  EXPECT_EQ(report.progress.done, 12);
  EXPECT_GE(report.progress.rate(), 0.0);
  EXPECT_EQ(log_.started("update"), 12 + 3) << "one guarded update per document, one checkpoint per batch";
  EXPECT_EQ(at_version(2), 13);
  const std::vector<odm::Document> after = all();
  for (std::size_t i = 0; i < 12; ++i) {
    const std::string id = std::to_string(i + 1);
    EXPECT_EQ(canonical(after[i]), canonical(json(R"({"_id": {"$numberLong": ")" + id +
                                                  R"("}, "tag": "t)" + id + R"(", "schema_version": 2, "visits": {"$numberLong": ")" +
                                                  std::to_string((i + 1) * 10) + R"("}})")));
  }
  EXPECT_EQ(canonical(after[12]), canonical(before[12])) << "a current document is not touched";
  EXPECT_EQ(checkpoints(), 0) << "a finished run deletes its checkpoint";

  // Idempotent: a second run finds nothing to do and writes nothing.
  log_.clear();
  const odm::MigrationReport again = odm::Migration<Counter>(db()).batch_size(5).run();
  EXPECT_EQ(again.migrated, 0);
  EXPECT_EQ(again.progress.to_do, 0);
  EXPECT_EQ(log_.started("update"), 0);
  std::lock_guard lock(hooks_mutex);
  for (const auto& [id, count] : upgrades_of) EXPECT_EQ(count, 1) << "document " << id << " upgraded once";
}

TEST_F(Migrate, AnInterruptedRunResumesAfterItsCheckpointAndEveryDocumentIsMigratedOnce) {
  insert_v1(30);
  // A crash after the second batch's checkpoint.
  int batches = 0;
  EXPECT_THROW(odm::Migration<Counter>(db())
                   .batch_size(5)
                   .on_progress([&](const odm::MigrationProgress&) {
                     if (++batches == 2) throw std::runtime_error("crash");
                   })
                   .run(),
               std::runtime_error);
  EXPECT_EQ(at_version(2), 10);
  EXPECT_EQ(checkpoints(), 1);
  // A failing step in the middle of the next batch (document 13): the run stops there.
  {
    std::lock_guard lock(hooks_mutex);
    before_upgrade = [](std::int64_t id) {
      if (id == 13) throw std::runtime_error("cannot upgrade 13");
    };
  }
  try {
    odm::Migration<Counter>(db()).batch_size(5).run();
    ADD_FAILURE() << "the failing step must stop the run";
  } catch (const odm::SchemaVersionError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(R"("_id" : 13)"), std::string::npos) << message;
    EXPECT_NE(message.find("from schema version 1 to 2"), std::string::npos) << message;
    EXPECT_NE(message.find("cannot upgrade 13"), std::string::npos) << message;
  }
  EXPECT_EQ(at_version(2), 12) << "11 and 12 were written before 13 failed";
  {
    std::lock_guard lock(hooks_mutex);
    before_upgrade = nullptr;
  }
  const odm::MigrationReport rest = odm::Migration<Counter>(db()).batch_size(5).run();
  EXPECT_TRUE(rest.resumed);
  EXPECT_EQ(rest.progress.to_do, 18) << "after the checkpoint (10), the documents still old: 13..30";
  EXPECT_EQ(rest.migrated, 18);
  EXPECT_EQ(at_version(2), 30);
  EXPECT_EQ(checkpoints(), 0);
  std::lock_guard lock(hooks_mutex);
  EXPECT_EQ(upgrades_of.size(), 30u);
  for (const auto& [id, count] : upgrades_of) EXPECT_EQ(count, 1) << "document " << id << " upgraded once";
}

TEST_F(Migrate, AWriterBetweenTheReadAndTheWriteIsNotOverwritten) {
  insert_v1(3);
  auto coll = counters();
  // Forced interleaving: while document 2 is being upgraded, another program increments
  // its hits (the old model's field). The guarded write misses, the migration reads the
  // document again and upgrades the new value.
  int writes = 0;
  {
    std::lock_guard lock(hooks_mutex);
    before_upgrade = [&](std::int64_t id) {
      if (id == 2 && writes++ == 0)
        coll.update_one(odm::Filter<Counter>::raw(json(R"({"_id": {"$numberLong": "2"}})")),
                        odm::Update<Counter>::raw(json(R"({"$inc": {"hits": 1}, "$set": {"late": true}})")));
    };
  }
  const odm::MigrationReport report = odm::Migration<Counter>(db()).run();
  EXPECT_EQ(report.migrated, 3);
  EXPECT_EQ(report.retries, 1);
  const Counter two = coll.get_by_id(2);
  EXPECT_EQ(two.visits, 21) << "the concurrent increment survived";
  EXPECT_TRUE(two.rest.contains("late"));
  EXPECT_EQ(at_version(2), 3);
}

TEST_F(Migrate, ConcurrentWritersLoseNothingDuringAMigration) {
  constexpr int documents = 40;
  constexpr int writers = 4;
  constexpr int writes_each = 60;
  insert_v1(documents);
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<std::atomic<int>> increments(documents + 1);
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937 random(seed + static_cast<unsigned>(w));
      std::uniform_int_distribution<int> pick(1, documents);
      auto coll = counters();
      try {
        for (int i = 0; i < writes_each; ++i) {
          const int id = pick(random);
          const std::string by_id = R"({"_id": {"$numberLong": ")" + std::to_string(id) + R"("}, )";
          // The old program increments `hits` of an old document, the new one `visits`.
          for (int attempt = 0; attempt < 10; ++attempt) {
            if (coll.update_one(odm::Filter<Counter>::raw(json(by_id + R"("schema_version": {"$exists": false}})")),
                                odm::Update<Counter>::raw(json(R"({"$inc": {"hits": 1}})")))
                    .matched == 1 ||
                coll.update_one(odm::Filter<Counter>::raw(json(by_id + R"("schema_version": 2})")),
                                odm::Update<Counter>::raw(json(R"({"$inc": {"visits": 1}})")))
                    .matched == 1) {
              ++increments[id];
              break;
            }
          }
        }
      } catch (const std::exception& e) {
        failed = true;
        ADD_FAILURE() << "writer " << w << ": " << e.what();
      }
    });
  }
  odm::MigrationReport report;
  try {
    report = odm::Migration<Counter>(db()).batch_size(3).max_retries(50).run();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "migration: " << e.what();
  }
  for (auto& thread : threads) thread.join();
  ASSERT_FALSE(failed);
  EXPECT_EQ(report.left_for_next_run, 0);
  EXPECT_EQ(at_version(2), documents);
  int total = 0;
  for (int id = 1; id <= documents; ++id) {
    total += increments[id];
    EXPECT_EQ(counters().get_by_id(id).visits, id * 10 + increments[id]) << "document " << id << " (seed " << seed << ")";
  }
  EXPECT_EQ(total, writers * writes_each);
  RecordProperty("guarded_write_retries", static_cast<int>(report.retries));
}

TEST_F(Migrate, HostileAndNewerVersionsInACollection) {
  insert_v1(2);
  db().run_command(json(R"({"insert": "counters", "documents": [
      {"_id": {"$numberLong": "3"}, "visits": {"$numberLong": "1"}, "schema_version": 7},
      {"_id": {"$numberLong": "4"}, "visits": {"$numberLong": "1"}, "schema_version": "2"}]})"));
  // A newer document is left alone; a version that is not a number stops the run, naming it.
  try {
    odm::Migration<Counter>(db()).run();
    ADD_FAILURE() << "a string version must stop the migration";
  } catch (const odm::SchemaVersionError& e) {
    EXPECT_NE(std::string(e.what()).find(R"("_id" : 4)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("got string"), std::string::npos) << e.what();
  }
  EXPECT_EQ(at_version(2), 2) << "documents 1 and 2 were migrated before it";
  EXPECT_EQ(at_version(7), 1) << "the newer document is untouched";
  EXPECT_THROW((void)counters().get_by_id(3), odm::DecodeError) << "the cursor reports it as a DecodeError";
  // Once the bad document is repaired the run finishes.
  counters().update_one(odm::Filter<Counter>::raw(json(R"({"_id": {"$numberLong": "4"}})")),
                        odm::Update<Counter>::raw(json(R"({"$set": {"schema_version": 1, "hits": 9}})")));
  const odm::MigrationReport report = odm::Migration<Counter>(db()).run();
  EXPECT_EQ(report.migrated, 1);
  EXPECT_EQ(report.newer, 1);
  EXPECT_EQ(counters().get_by_id(4).visits, 9) << "the step's field, not the stale one the Extra carried";
}

}  // namespace
}  // namespace migrate_itest
