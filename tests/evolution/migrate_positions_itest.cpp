// Batch migrations (odm/evolution/migrate.hpp) over what other programs leave in a
// collection: `_id`s of every BSON type odm sees in practice (MongoDB sorts them by type
// bracket, and `$gt` compares within one bracket only), interrupted runs, versions stored
// in another numeric type, documents close to MongoDB's 16 MiB limit; and the
// SchemaVersionError of a hostile version, whatever reads it.

#include "driver/support.hpp"

#include <odm/driver/client.hpp>
#include <odm/evolution/extra.hpp>
#include <odm/evolution/migrate.hpp>
#include <odm/evolution/versions.hpp>
#include <odm/query.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace migrate_positions {

// Version 2 adds `seen: true`: what a run wrote is visible in the document.
odm::Document add_seen(const odm::Document& old) {
  odm::Document next = odm::Document::copy_of(old.get());
  bson_append_bool(next.get_mutable(), "seen", 4, true);
  return next;
}

// No id member: the documents keep the _ids other programs gave them.
struct Mixed {
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "mixed";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&add_seen));
  };
};

// Version 2 renames `payload` to `body` (a typed step): it rewrites a field of any size.
struct BlobV1 {
  std::int32_t id = 0;
  std::string payload;
  std::string note;
};
struct BlobV2 {
  std::int32_t id = 0;
  std::string body;
  std::string note;
};
BlobV2 rename_payload(const BlobV1& old) { return {old.id, old.payload, old.note}; }
struct Blob {
  std::int32_t id = 0;
  std::string body;
  std::string note;
  struct odm_model {
    static constexpr std::string_view collection = "blobs";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&rename_payload));
  };
};

}  // namespace migrate_positions

namespace {

using namespace migrate_positions;
using odm_test::json;

class MigratePositions : public odm_test::DriverTest {
 protected:
  std::int64_t count(const std::string& filter) {
    return db().collection<Mixed>().count(odm::Filter<Mixed>::raw(json(filter)));
  }
  // Old for the model: anything but the int32 2 (the test's own reference, not odm's filter).
  std::int64_t current_documents() {
    std::int64_t n = 0;
    for (const odm::Document& document : db().collection<Mixed>().find<odm::Document>({})) {
      bson_iter_t it;
      if (bson_iter_init_find(&it, document.get(), "schema_version") && BSON_ITER_HOLDS_INT32(&it) &&
          bson_iter_int32(&it) == 2)
        ++n;
    }
    return n;
  }
};

// An _id of one of six types, as Extended JSON; numbers of different types never equal
// (MongoDB's unique _id index compares 5, NumberLong(5) and 5.0 as one value).
std::string random_id(std::mt19937_64& random, int type) {
  char buffer[64];
  switch (type) {
    case 0: return std::to_string(static_cast<std::int32_t>(random() % 100000));
    case 1:
      return R"({"$numberLong": ")" + std::to_string(10000000000LL + static_cast<std::int64_t>(random() % 100000)) +
             R"("})";
    case 2:
      std::snprintf(buffer, sizeof buffer, "%lld.5", static_cast<long long>(random() % 200000) - 100000);
      return buffer;
    case 3: return "\"s" + std::to_string(random() % 100000) + "\"";
    case 4:
      std::snprintf(buffer, sizeof buffer, R"({"$oid": "%024llx"})", static_cast<unsigned long long>(random() % 100000));
      return buffer;
    default: return R"({"k": )" + std::to_string(random() % 100000) + "}";
  }
}

// Randomized against a reference set: documents with _ids of mixed types, some already
// current, some old (no version, version 1), one run with a random batch size, sometimes
// interrupted after a few batches and run again. Afterwards every document is current,
// each old one was written by a run, the current ones were not touched.
TEST_F(MigratePositions, EveryDocumentIsMigratedWhateverTheIdTypesAndBatchSize) {
  const std::uint64_t seed = std::random_device{}();
  std::mt19937_64 random(seed);
  SCOPED_TRACE("seed " + std::to_string(seed) + " (std::mt19937_64)");
  for (int round = 0; round < 12; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    db().collection<Mixed>().drop();
    db().run_command(json(R"({"delete": "odm_migrations", "deletes": [{"q": {}, "limit": 0}]})"));
    const int types = 1 + static_cast<int>(random() % 6);  // how many of the six kinds this round mixes
    std::vector<int> kinds;
    for (int k = 0; k < 6; ++k) kinds.push_back(k);
    std::shuffle(kinds.begin(), kinds.end(), random);
    kinds.resize(static_cast<std::size_t>(types));
    std::set<std::string> ids;
    std::int64_t old_count = 0, current_count = 0;
    std::string documents;
    const int size = 1 + static_cast<int>(random() % 40);
    for (int i = 0; i < size; ++i) {
      const std::string id = random_id(random, kinds[random() % kinds.size()]);
      if (!ids.insert(id).second) continue;
      const int state = static_cast<int>(random() % 3);  // 0: no version, 1: version 1, 2: current
      std::string document = R"({"_id": )" + id + R"(, "n": )" + std::to_string(i);
      if (state == 1) document += R"(, "schema_version": 1)";
      if (state == 2) document += R"(, "schema_version": 2, "seen": true, "untouched": true)";
      (state == 2 ? current_count : old_count) += 1;
      documents += (documents.empty() ? "" : ",") + document + "}";
    }
    db().run_command(json(R"({"insert": "mixed", "documents": [)" + documents + "]}"));
    const std::int32_t batch = 1 + static_cast<std::int32_t>(random() % 7);
    SCOPED_TRACE("batch size " + std::to_string(batch) + ", documents [" + documents + "]");

    std::int64_t migrated = 0;
    const int crash_after = static_cast<int>(random() % 4);  // 0: no crash
    if (crash_after > 0) {
      int batches = 0;
      try {
        odm::Migration<Mixed>(db())
            .batch_size(batch)
            .on_progress([&](const odm::MigrationProgress&) {
              if (++batches == crash_after) throw std::runtime_error("crash");
            })
            .run();
      } catch (const std::runtime_error&) {
      }
      migrated += current_documents() - current_count;  // what the interrupted run wrote
    }
    const odm::MigrationReport report = odm::Migration<Mixed>(db()).batch_size(batch).run();
    migrated += report.migrated;
    EXPECT_EQ(report.remaining, 0);
    EXPECT_EQ(migrated, old_count) << "each old document written once";
    EXPECT_EQ(current_documents(), old_count + current_count);
    EXPECT_EQ(count(R"({"seen": true})"), old_count + current_count) << "every old document went through the step";
    EXPECT_EQ(count(R"({"untouched": true, "seen": true, "schema_version": 2})"), current_count);
    EXPECT_EQ(count("{}"), static_cast<std::int64_t>(ids.size()));
    if (HasFailure()) return;
  }
}

// Each bracket of MongoDB's sort order after the other, one document per type, batch size 1:
// every position continues into the next bracket.
TEST_F(MigratePositions, ABatchOfOneWalksEveryTypeBracket) {
  db().run_command(json(R"({"insert": "mixed", "documents": [
      {"_id": null}, {"_id": {"$numberDouble": "NaN"}}, {"_id": -3.5}, {"_id": 2}, {"_id": {"$numberLong": "7"}},
      {"_id": "a"}, {"_id": {"k": 1}}, {"_id": {"$binary": {"base64": "AQI=", "subType": "00"}}},
      {"_id": {"$oid": "5f0000000000000000000001"}}, {"_id": false}, {"_id": true},
      {"_id": {"$date": {"$numberLong": "0"}}}]})"));
  const odm::MigrationReport report = odm::Migration<Mixed>(db()).batch_size(1).run();
  EXPECT_EQ(report.migrated, 12);
  EXPECT_EQ(report.remaining, 0);
  EXPECT_EQ(current_documents(), 12);
}

// A checkpoint is a hint: one whose last_id is past every id of its bracket, or of the
// last bracket, still leaves nothing old behind, and the run says it resumed.
TEST_F(MigratePositions, ACheckpointPastEveryIdLeavesNothingBehind) {
  for (const char* last : {R"({"$numberLong": "9000000000000"})", R"({"$date": {"$numberLong": "4102444800000"}})",
                           R"({"k": "zzz"})"}) {
    SCOPED_TRACE(last);
    db().collection<Mixed>().drop();
    db().run_command(json(R"({"delete": "odm_migrations", "deletes": [{"q": {}, "limit": 0}]})"));
    db().run_command(json(R"({"insert": "mixed", "documents": [{"_id": 1}, {"_id": "b"}, {"_id": {"k": 2}}]})"));
    db().run_command(json(std::string(R"({"insert": "odm_migrations", "documents": [{"_id": "mixed@2", "last_id": )") +
                          last + "}]}"));
    const odm::MigrationReport report = odm::Migration<Mixed>(db()).run();
    EXPECT_TRUE(report.resumed);
    EXPECT_EQ(report.migrated, 3);
    EXPECT_EQ(report.remaining, 0);
    EXPECT_EQ(current_documents(), 3);
  }
}

// Versions in the other numeric types: an int64 2 is current (the model reads it so) and
// not touched; newer int32/int64 versions are left alone and counted; an int64 1 is
// migrated; a double, negative, string or null version stops the run naming its _id.
TEST_F(MigratePositions, VersionsInOtherNumericTypes) {
  db().run_command(json(R"({"insert": "mixed", "documents": [
      {"_id": 1, "schema_version": {"$numberLong": "2"}, "seen": true},
      {"_id": 2, "schema_version": 3}, {"_id": 3, "schema_version": {"$numberLong": "4"}},
      {"_id": 4, "schema_version": {"$numberLong": "1"}}]})"));
  log_.clear();
  const odm::MigrationReport report = odm::Migration<Mixed>(db()).run();
  EXPECT_EQ(report.migrated, 1);
  EXPECT_EQ(report.newer, 2);
  EXPECT_EQ(report.remaining, 0);
  EXPECT_EQ(current_documents(), 1) << "document 4, now the int32 2";
  EXPECT_EQ(count(R"({"_id": 1, "seen": true})"), 1);
  EXPECT_EQ(log_.started("update"), 2) << "document 4 and the checkpoint";
  EXPECT_EQ(odm::Migration<Mixed>(db()).run().migrated, 0);

  for (const char* version : {R"({"$numberDouble": "1.0"})", "-1", R"("1")", "null"}) {
    SCOPED_TRACE(version);
    db().collection<Mixed>().drop();
    db().run_command(json(std::string(R"({"insert": "mixed", "documents": [{"_id": 10, "schema_version": )") +
                          version + "}]}"));
    try {
      (void)odm::Migration<Mixed>(db()).run();
      ADD_FAILURE() << "a version the model cannot read was not reported";
    } catch (const odm::SchemaVersionError& error) {
      EXPECT_NE(std::string(error.what()).find(R"("_id" : 10)"), std::string::npos) << error.what();
      EXPECT_EQ(error.document_id(), R"({ "_id" : 10 })");
    }
  }
}

// A document close to MongoDB's 16 MiB limit whose step rewrites its large field: the
// guard leaves out what does not fit beside the update, and the document is migrated.
TEST_F(MigratePositions, ADocumentNearTheSizeLimitWhoseStepRewritesItIsMigrated) {
  for (const std::size_t megabytes : {9u, 15u}) {
    SCOPED_TRACE(std::to_string(megabytes) + " MB");
    db().collection<Blob>().drop();
    const std::string big(megabytes * 1000 * 1000, 'x');
    odm::Document document;
    bson_append_int32(document.get_mutable(), "_id", 3, 1);
    bson_append_utf8(document.get_mutable(), "payload", -1, big.data(), static_cast<int>(big.size()));
    bson_append_utf8(document.get_mutable(), "note", -1, "small", -1);
    odm::Document command;
    bson_append_utf8(command.get_mutable(), "insert", -1, "blobs", -1);
    bson_t documents;
    bson_append_array_begin(command.get_mutable(), "documents", -1, &documents);
    bson_append_document(&documents, "0", -1, document.get());
    bson_append_array_end(command.get_mutable(), &documents);
    db().run_command(command);
    log_.clear();
    const odm::MigrationReport report = odm::Migration<Blob>(db()).run();
    EXPECT_EQ(report.migrated, 1);
    EXPECT_EQ(report.remaining, 0);
    const Blob read = db().collection<Blob>().get_by_id(1);
    EXPECT_EQ(read.body.size(), big.size());
    EXPECT_EQ(read.note, "small");
  }
}

// The small fields stay guarded next to a large update: a writer that changed one of them
// between the read and the write makes the guard miss, and the change is kept.
TEST_F(MigratePositions, ALargeDocumentsSmallFieldsAreStillGuarded) {
  const std::string big(12 * 1000 * 1000, 'y');
  odm::Document document;
  bson_append_int32(document.get_mutable(), "_id", 3, 1);
  bson_append_utf8(document.get_mutable(), "payload", -1, big.data(), static_cast<int>(big.size()));
  bson_append_utf8(document.get_mutable(), "note", -1, "before", -1);
  const odm::Document guard = odm::detail::guard_of(document.get(), odm::detail::max_document_bytes - big.size() - 64);
  EXPECT_EQ(guard.to_canonical_json(),
            json(R"({"_id": 1, "schema_version": {"$exists": false}, "note": {"$eq": "before"}})").to_canonical_json());
  const odm::Document whole = odm::detail::guard_of(document.get(), odm::detail::max_document_bytes);
  EXPECT_GT(whole.size(), big.size()) << "with room, every field is guarded";
}

// A hostile version read through each path keeps its type and data: find, get_by_id,
// find_one.
TEST_F(MigratePositions, AHostileVersionIsASchemaVersionErrorWhateverReadsIt) {
  db().run_command(json(R"({"insert": "blobs", "documents": [{"_id": 5, "schema_version": 9}]})"));
  auto blobs = db().collection<Blob>();
  const auto expect_version_error = [](const char* path, auto read) {
    try {
      read();
      ADD_FAILURE() << path << ": read a document of a newer version";
    } catch (const odm::SchemaVersionError& error) {
      EXPECT_EQ(error.stored_version(), 9) << path;
      EXPECT_EQ(error.model_version(), 2) << path;
      EXPECT_EQ(error.document_id(), R"({ "_id" : 5 })") << path;
      EXPECT_NE(std::string(error.what()).find("from find on"), std::string::npos) << path << ": " << error.what();
    } catch (const std::exception& error) {
      ADD_FAILURE() << path << ": not a SchemaVersionError: " << error.what();
    }
  };
  expect_version_error("find", [&] { (void)blobs.find({}).to_vector(); });
  expect_version_error("find_one", [&] { (void)blobs.find_one({}); });
  expect_version_error("get_by_id", [&] { (void)blobs.get_by_id(5); });
}

}  // namespace

namespace {

// find_one_and_update applies its write, then cannot read the document: the error says the
// write was applied (DecodeAfterWriteError) and nests the SchemaVersionError with its data.
TEST_F(MigratePositions, AHostileVersionAfterAWriteIsNestedInTheDecodeAfterWriteError) {
  db().run_command(json(R"({"insert": "blobs", "documents": [{"_id": 5, "schema_version": 9}]})"));
  try {
    (void)db().collection<Blob>().find_one_and_update(odm::Filter<Blob>::raw(json(R"({"_id": 5})")),
                                                      odm::Update<Blob>::raw(json(R"({"$set": {"note": "n"}})")));
    ADD_FAILURE() << "read a document of a newer version";
  } catch (const odm::DecodeAfterWriteError& error) {
    try {
      std::rethrow_if_nested(error);
      ADD_FAILURE() << "nothing nested in: " << error.what();
    } catch (const odm::SchemaVersionError& inner) {
      EXPECT_EQ(inner.stored_version(), 9);
      EXPECT_EQ(inner.document_id(), R"({ "_id" : 5 })");
    }
  }
  EXPECT_EQ(db().collection<Blob>().count(odm::Filter<Blob>::raw(json(R"({"note": "n"})"))), 1) << "the write was applied";
}

}  // namespace
