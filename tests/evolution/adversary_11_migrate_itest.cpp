// Adversarial probes of batch migrations (issue 11 item 5, odm/evolution/migrate.hpp),
// from the README's promise: a run "rewrites every document whose schema_version is not
// the model's", is resumable, idempotent and safe while others write. The documents are
// inserted as raw Extended JSON, as an older program or another tool left them. A probe
// that shows a defect is kept, skipped with `defect:` and its reason.

#include "driver/support.hpp"

#include <odm/driver/client.hpp>
#include <odm/evolution/extra.hpp>
#include <odm/evolution/migrate.hpp>
#include <odm/evolution/versions.hpp>
#include <odm/query.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace adv11m {

// Version 2 changes nothing but the version: the probes are about which documents a run
// selects, not about the step.
odm::Document mark(const odm::Document& old) { return odm::Document::copy_of(old.get()); }

// No id member: documents keep whatever _id another program gave them (int, string,
// ObjectId), which is what the model's `rest` carries.
struct Tally {
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "tallies";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&mark));
  };
};

// Version 2 renames `payload` to `body`.
odm::Document rename_payload(const odm::Document& old) {
  odm::Document next;
  bson_iter_t it;
  bson_iter_init(&it, old.get());
  while (bson_iter_next(&it)) {
    const std::string_view key = bson_iter_key(&it);
    bson_append_iter(next.get_mutable(), key == "payload" ? "body" : bson_iter_key(&it), -1, &it);
  }
  return next;
}
struct Letter {
  std::int32_t id = 0;
  std::string body;
  struct odm_model {
    static constexpr std::string_view collection = "letters";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&rename_payload));
  };
};

// Version 1 stored `hits`; version 2 renamed it `visits` (a typed step, Extra carried).
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
inline CounterV2 rename_hits(const CounterV1& old) { return {old.id, old.hits, old.rest}; }
struct Counter {
  std::int64_t id = 0;
  std::int64_t visits = 0;
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "counters";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&rename_hits));
  };
};

}  // namespace adv11m

namespace {

using namespace adv11m;
using odm_test::json;

class Adversary11Migrate : public odm_test::DriverTest {
 protected:
  void insert(const std::string& documents) {
    db().run_command(json(R"({"insert": "tallies", "documents": )" + documents + "}"));
  }
  std::int64_t count(const std::string& filter) {
    return db().collection<Tally>().count(odm::Filter<Tally>::raw(json(filter)));
  }
  std::int64_t old_documents() { return count(R"({"schema_version": {"$ne": 2}})"); }
  std::int64_t checkpoints() {
    // The odm test server has no `count` command: count the first batch of a find.
    const odm::Document reply = db().run_command(json(R"({"find": "odm_migrations"})"));
    bson_iter_t it;
    bson_iter_t batch;
    if (!bson_iter_init(&it, reply.get()) || !bson_iter_find_descendant(&it, "cursor.firstBatch", &batch) ||
        !BSON_ITER_HOLDS_ARRAY(&batch) || !bson_iter_recurse(&batch, &it))
      return -1;
    std::int64_t n = 0;
    while (bson_iter_next(&it)) ++n;
    return n;
  }
};

// _ids of several BSON types in one collection (one program wrote integers, another
// strings and ObjectIds). A finished run must leave no old document, whatever the batch
// size. MongoDB's `$gt` compares within one type only (the manual's "comparison/sort
// order" and type bracketing), while `$sort` orders across types.
TEST_F(Adversary11Migrate, MixedIdTypesAreAllMigratedWhateverTheBatchSize) {
  insert(R"([{"_id": 1, "n": 1}, {"_id": 2, "n": 2}, {"_id": "a", "n": 3}, {"_id": "b", "n": 4},
            {"_id": {"$oid": "5f0000000000000000000001"}, "n": 5}])");
  const odm::MigrationReport report = odm::Migration<Tally>(db()).batch_size(2).run();
  const std::int64_t left = old_documents();
  EXPECT_EQ(left, 0) << "a run over _ids of mixed types (1, 2, \"a\", \"b\", ObjectId) with batch_size(2) "
                        "reported migrated="
                     << report.migrated << " of to_do=" << report.progress.to_do << " and left " << left
                     << " old documents: the next batch selects `_id: {$gt: <last>}`, which MongoDB type-brackets";
  EXPECT_EQ(report.migrated, 5);
}

// A checkpoint whose last_id is of another type than the collection's ids (tampered, or
// written for another collection's ids): a run that reports success must not skip
// documents; refusing with a clear error would be as good.
TEST_F(Adversary11Migrate, ATamperedCheckpointNeverMakesARunSkipDocumentsSilently) {
  insert(R"([{"_id": 1, "n": 1}, {"_id": 2, "n": 2}, {"_id": 3, "n": 3}])");
  db().run_command(json(R"({"insert": "odm_migrations", "documents": [{"_id": "tallies@2", "last_id": "zzz",
                                                                       "done_in_last_run": 0}]})"));
  odm::MigrationReport report;
  try {
    report = odm::Migration<Tally>(db()).run();
  } catch (const odm::Error& error) {
    SUCCEED() << "refused: " << error.what();
    return;
  }
  const std::int64_t left = old_documents();
  EXPECT_EQ(left, 0) << "a checkpoint {last_id: \"zzz\"} over integer ids made the run report resumed="
                     << report.resumed << ", migrated=" << report.migrated << ", to_do=" << report.progress.to_do
                     << ", delete the checkpoint, and leave " << left << " old documents";
}

// A version stored as a double (another program's JSON writes 2 as 2.0): reading it is
// an odm::SchemaVersionError (README), so the migration must not count it as current and
// leave a document the model cannot read.
TEST_F(Adversary11Migrate, AVersionTheModelCannotReadIsNotLeftBehindAsCurrent) {
  insert(R"([{"_id": 1, "schema_version": 2.0}, {"_id": 2}])");
  ASSERT_THROW((void)db().collection<Tally>().find({}).to_vector(), odm::DecodeError)
      << "the README says a double version is refused when reading";
  try {
    const odm::MigrationReport report = odm::Migration<Tally>(db()).run();
    FAIL() << "a document with schema_version 2.0 (a double), which the model refuses to read, is "
              "never selected by the migration (`$ne: 2` matches numerically): the run ended with migrated="
           << report.migrated << " and the collection still holds a document odm cannot read";
  } catch (const odm::SchemaVersionError& error) {
    EXPECT_NE(std::string(error.what()).find("1"), std::string::npos) << error.what();
  }
}

// The README: a version odm cannot use throws odm::SchemaVersionError (a DecodeError)
// naming the _id, the version found and the model's. Through a cursor (find, aggregate)
// the error reaches the caller as that type, so a caller can catch it and read them.
TEST_F(Adversary11Migrate, AHostileVersionReadThroughACursorIsASchemaVersionError) {
  insert(R"([{"_id": 1, "schema_version": 7}])");
  try {
    (void)db().collection<Tally>().find({}).to_vector();
    FAIL() << "a document of a newer version was read";
  } catch (const odm::SchemaVersionError& error) {
    SUCCEED() << error.what();
  } catch (const odm::DecodeError& error) {
    FAIL() << "find() throws a plain odm::DecodeError, not the odm::SchemaVersionError the README "
              "promises (odm/driver/collection.cpp located_decode_error copies reason and path into a new "
              "DecodeError, slicing the subtype): "
           << error.what();
  }
}

// A large document (9 MB, well under MongoDB's 16 MiB) whose step renames its big field:
// the guarded update carries the document as read (the guard) and the renamed field
// (the $set), about 18 MB in one update statement, over MongoDB's limit for a command
// document (16 MiB + 16 KiB). The README promises every old document is rewritten.
TEST_F(Adversary11Migrate, ALargeDocumentWhoseStepRewritesItIsMigrated) {
  const std::string big(9 * 1024 * 1024, 'x');
  odm::Document document;
  bson_append_int32(document.get_mutable(), "_id", 3, 1);
  bson_append_utf8(document.get_mutable(), "payload", -1, big.data(), static_cast<int>(big.size()));
  odm::Document command;
  bson_append_utf8(command.get_mutable(), "insert", -1, "letters", -1);
  bson_t documents;
  bson_append_array_begin(command.get_mutable(), "documents", -1, &documents);
  bson_append_document(&documents, "0", -1, document.get());
  bson_append_array_end(command.get_mutable(), &documents);
  db().run_command(command);
  ASSERT_EQ(db().collection<Letter>().get_by_id(1).body.size(), big.size()) << "read lazily upgraded";
  try {
    const odm::MigrationReport report = odm::Migration<Letter>(db()).run();
    EXPECT_EQ(report.migrated, 1);
  } catch (const odm::Error& error) {
    FAIL() << "migrating one 9 MB document whose step renames its 9 MB field fails: the guarded "
              "update repeats the whole document as its filter next to the $set: "
           << std::string(error.what()).substr(0, 300);
  }
}

// The README's "Saving what changed" loads with odm::track(collection.get_by_id(id)). On
// a versioned model whose document is still at version 1, that save sends only the
// changed member ($set visits) and neither the rename nor the version; the next read
// upgrades the stored version-1 document again, and the step's `visits = hits` wins over
// the saved value. Fixed: a save of a versioned model only matches a document at the
// current version; one still older is rewritten to it with the change replayed over it.
TEST_F(Adversary11Migrate, ATrackedSaveOfALazilyUpgradedDocumentIsNotLostOnTheNextRead) {
  db().run_command(json(R"({"insert": "counters", "documents": [{"_id": {"$numberLong": "1"},
                                                                 "hits": {"$numberLong": "10"}}]})"));
  auto counters = db().collection<Counter>();
  odm::Tracked<Counter> by_value = odm::track(counters.get_by_id(1));
  by_value->visits = 99;
  by_value.save(counters);
  const std::int64_t after_value_form = counters.get_by_id(1).visits;

  odm::Tracked<Counter> by_id = odm::track(counters, std::int64_t{1});
  by_id->visits = 77;
  by_id.save(counters);
  EXPECT_EQ(counters.get_by_id(1).visits, 77) << "odm::track(collection, id) sends the upgrade with the change";
  EXPECT_EQ(after_value_form, 99)
      << "odm::track(collection.get_by_id(1)) on a version-1 document, visits = 99, save(): the next get_by_id must "
         "read the saved value, not the step's upgrade of the stored old field";
}

// A typed update of a version-1 document: `$inc: {visits: 5}` names the new field, the
// document still holds `hits` and no version; reading upgrades it again and the step's
// `visits = hits` replaces what the update wrote. The README's versions section says
// reading upgrades lazily and saving writes the new version, and says nothing of typed
// updates: a counter incremented through them lost every increment until the document
// was saved or migrated. Fixed: a typed update first upgrades the older documents it can
// reach (odm/driver/collection.hpp, upgrade_reachable).
TEST_F(Adversary11Migrate, ATypedUpdateOfAnOldVersionDocumentIsNotLostOnTheNextRead) {
  db().run_command(json(R"({"insert": "counters", "documents": [{"_id": {"$numberLong": "1"},
                                                                 "hits": {"$numberLong": "10"}}]})"));
  auto counters = db().collection<Counter>();
  counters.update_one(odm::field(&Counter::id) == std::int64_t{1}, odm::field(&Counter::visits).inc(std::int64_t{5}));
  const std::int64_t read = counters.get_by_id(1).visits;
  (void)odm::Migration<Counter>(db()).run();
  const std::int64_t migrated = counters.get_by_id(1).visits;
  EXPECT_EQ(read, 15) << "$inc visits 5 on a version-1 document {hits: 10}, read back";
  EXPECT_EQ(migrated, 15) << "the same after the Migration";
}

// Running a finished migration again writes nothing.
TEST_F(Adversary11Migrate, ASecondRunWritesNothing) {
  insert(R"([{"_id": 1}, {"_id": 2}, {"_id": 3}])");
  EXPECT_EQ(odm::Migration<Tally>(db()).batch_size(2).run().migrated, 3);
  log_.clear();
  const odm::MigrationReport again = odm::Migration<Tally>(db()).batch_size(2).run();
  EXPECT_EQ(again.migrated, 0);
  EXPECT_EQ(log_.started("update"), 0);
  EXPECT_EQ(log_.started("insert"), 0);
  EXPECT_EQ(count("{}"), 3);
}

// Two migrations of one collection at once: every document migrated once in total, and
// nothing left behind.
TEST_F(Adversary11Migrate, TwoRunsAtOnceMigrateEachDocumentOnce) {
  std::string documents = "[";
  for (int i = 1; i <= 200; ++i) documents += (i > 1 ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) + "}";
  insert(documents + "]");
  std::atomic<std::int64_t> migrated{0};
  std::atomic<std::int64_t> current{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> runs;
  for (int r = 0; r < 2; ++r)
    runs.emplace_back([&] {
      try {
        odm::Client own(uri_);
        const odm::MigrationReport report = odm::Migration<Tally>(own.database(db_name_)).batch_size(7).run();
        migrated += report.migrated;
        current += report.already_current;
      } catch (const std::exception& error) {
        ++failures;
        ADD_FAILURE() << error.what();
      }
    });
  for (std::thread& t : runs) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(old_documents(), 0);
  EXPECT_EQ(migrated.load(), 200);
}

// A writer that deletes documents while the run goes: they count as vanished or are
// never seen; nothing is re-created, nothing else is skipped.
TEST_F(Adversary11Migrate, DeletesDuringARunRecreateNothing) {
  std::string documents = "[";
  for (int i = 1; i <= 60; ++i) documents += (i > 1 ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) + "}";
  insert(documents + "]");
  int batches = 0;
  const odm::MigrationReport report =
      odm::Migration<Tally>(db())
          .batch_size(10)
          .on_progress([&](const odm::MigrationProgress&) {
            if (++batches == 2)
              db().run_command(json(R"({"delete": "tallies", "deletes": [{"q": {"_id": {"$gt": 40}}, "limit": 0}]})"));
          })
          .run();
  EXPECT_EQ(count("{}"), 40);
  EXPECT_EQ(old_documents(), 0);
  EXPECT_EQ(report.migrated, 40);
}

// A step that fails stops the run with the step's error naming the document; what was
// done stays done, and the checkpoint lets the next run start after the last full batch.
TEST_F(Adversary11Migrate, AFailingDocumentStopsTheRunAndTheNextRunResumes) {
  insert(R"([{"_id": 1}, {"_id": 2}, {"_id": 3, "schema_version": "two"}, {"_id": 4}])");
  try {
    (void)odm::Migration<Tally>(db()).batch_size(1).run();
    ADD_FAILURE() << "a hostile version did not stop the run";
  } catch (const odm::SchemaVersionError& error) {
    EXPECT_NE(std::string(error.what()).find("3"), std::string::npos) << error.what();
  }
  EXPECT_EQ(count(R"({"schema_version": 2})"), 2);
  ASSERT_EQ(checkpoints(), 1);
  // Fix the document, run again: it resumes and finishes.
  db().run_command(json(R"({"update": "tallies", "updates": [{"q": {"_id": 3}, "u": {"$unset": {"schema_version": ""}}}]})"));
  const odm::MigrationReport report = odm::Migration<Tally>(db()).batch_size(1).run();
  EXPECT_TRUE(report.resumed);
  EXPECT_EQ(old_documents(), 0);
  EXPECT_EQ(checkpoints(), 0);
}

}  // namespace
