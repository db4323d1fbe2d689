// Validators from the model against a server: odm::sync_validators creates the collection
// with the model's $jsonSchema or updates it (collMod), reports what differs, and changes
// nothing in a dry run; the server then refuses the typical wrong writes of other programs
// (DocumentValidationFailure, 121) and stores everything odm writes, for random objects of
// every kind of member.

#include "driver/support.hpp"
#include "evolution/random_values.hpp"
#include "evolution/schema_check.hpp"
#include "evolution/schema_models.hpp"
#include "golden/seed_models.hpp"

#include <odm/evolution/schema.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace schema_itest {
namespace {

using odm_test::json;

using schema_models::Order;
using schema_models::Status;

/// What an older service stored: the total as a double, the date as a string.
struct SloppyOrder {
  odm::ObjectId id;
  std::string customer;
  std::int64_t number = 0;
  std::string placed;
  double total = 0;
  struct odm_model {
    static constexpr auto collection = "order";
  };
};

/// The sub-document `key` of `parent` (empty when it has none).
odm::Document child(const odm::Document& parent, const char* key) {
  bson_iter_t it;
  bson_t view;
  if (bson_iter_init_find(&it, parent.get(), key) && BSON_ITER_HOLDS_DOCUMENT(&it) && odm::detail::held_document(it, view))
    return odm::Document::copy_of(&view);
  return odm::Document();
}

std::string string_field(const odm::Document& document, const char* key) {
  bson_iter_t it;
  if (bson_iter_init_find(&it, document.get(), key) && BSON_ITER_HOLDS_UTF8(&it)) return bson_iter_utf8(&it, nullptr);
  return {};
}

/// The reply's first write error code, or 0 when the write was applied.
std::int32_t write_error_code(const odm::Document& reply) {
  bson_iter_t it;
  if (bson_iter_init(&it, reply.get()) && bson_iter_find_descendant(&it, "writeErrors.0.code", &it))
    return bson_iter_as_int64(&it) == 0 ? -1 : static_cast<std::int32_t>(bson_iter_as_int64(&it));
  return 0;
}

class Validators : public odm_test::DriverTest {
 protected:
  /// Inserts `document` as another program would (no odm codec): the write error code, or 0.
  std::int32_t raw_insert(const std::string& collection, const odm::Document& document) {
    odm::Document command;
    bson_append_utf8(command.get_mutable(), "insert", -1, collection.c_str(), -1);
    bson_t documents;
    bson_append_array_begin(command.get_mutable(), "documents", -1, &documents);
    bson_append_document(&documents, "0", -1, document.get());
    bson_append_array_end(command.get_mutable(), &documents);
    return write_error_code(db().run_command(command));
  }

  /// The collection's options as listCollections reports them.
  odm::Document options_of(const std::string& collection) {
    const odm::Document reply = db().run_command(json(R"({"listCollections": 1, "filter": {"name": ")" + collection + R"("}})"));
    bson_iter_t it;
    bson_iter_t found;
    bson_t view;
    if (bson_iter_init(&it, reply.get()) && bson_iter_find_descendant(&it, "cursor.firstBatch.0", &found) &&
        BSON_ITER_HOLDS_DOCUMENT(&found) && odm::detail::held_document(found, view))
      return child(odm::Document::copy_of(&view), "options");
    return odm::Document();
  }

  static Order sample() { return schema_models::sample_order(); }
};

TEST_F(Validators, SyncCreatesTheCollectionWithTheModelsValidatorAndIsIdempotent) {
  ODM_REQUIRE(json_schema_validators);
  const odm::ValidatorSyncReport first = odm::sync_validators<Order>(db());
  ASSERT_EQ(first.collections.size(), 1u);
  EXPECT_EQ(first.collections[0].step, odm::ValidatorSyncEntry::Step::created);
  EXPECT_EQ(first.collections[0].planned.collection, "order");
  const odm::Document options = options_of("order");
  const odm::Document expected = odm::validator_plan<Order>().validator;
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, options.get(), "validator")) << options.to_json();
  EXPECT_TRUE(odm::schema_differences(expected.get(), child(options, "validator").get()).empty());

  const odm::ValidatorSyncReport second = odm::sync_validators<Order>(db());
  ASSERT_EQ(second.collections.size(), 1u);
  EXPECT_EQ(second.collections[0].step, odm::ValidatorSyncEntry::Step::unchanged);
  EXPECT_TRUE(second.collections[0].differences.empty()) << second.to_string();
  EXPECT_EQ(second.to_string(), "unchanged    order (Order): validationLevel strict, validationAction error\n");
}

TEST_F(Validators, ADryRunPrintsThePlanAndChangesNothing) {
  ODM_REQUIRE(json_schema_validators);
  const odm::ValidatorSyncReport plan = odm::sync_validators<Order>(db(), {.dry_run = true});
  EXPECT_EQ(plan.to_string(), "would create order (Order): validationLevel strict, validationAction error\n");
  const odm::Document listed = db().run_command(json(R"({"listCollections": 1, "filter": {"name": "order"}})"));
  bson_iter_t it;
  EXPECT_FALSE(bson_iter_init(&it, listed.get()) && bson_iter_find_descendant(&it, "cursor.firstBatch.0", &it))
      << "the dry run created nothing: " << listed.to_json();
}

TEST_F(Validators, TheReportSaysWhatDiffersFromTheServerAndCollModFixesIt) {
  ODM_REQUIRE(json_schema_validators);
  // The validator an older model put there: total a double, placed a string.
  odm::sync_validators(db(), {odm::validator_plan<SloppyOrder>()});
  const odm::ValidatorSyncReport plan =
      odm::sync_validators<Order>(db(), {.level = odm::ValidationLevel::moderate, .dry_run = true});
  ASSERT_EQ(plan.collections.size(), 1u);
  EXPECT_EQ(plan.collections[0].step, odm::ValidatorSyncEntry::Step::updated);
  const std::string text = plan.to_string();
  EXPECT_NE(text.find("would update order (Order): validationLevel moderate"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(validator.$jsonSchema.properties.placed.bsonType: server "string", model "date")"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("validator.$jsonSchema.properties.total.bsonType: server \"double\", model \"object\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("validator.$jsonSchema.properties.lines: only in the model"), std::string::npos) << text;
  EXPECT_NE(text.find("validationLevel: server strict, planned moderate"), std::string::npos) << text;
  // The dry run left the old validator: a double total is still accepted.
  EXPECT_EQ(raw_insert("order", json(R"({"customer": "x", "number": {"$numberLong": "1"}, "placed": "today",
                                         "total": 1.5})")),
            0);

  const odm::ValidatorSyncReport applied =
      odm::sync_validators<Order>(db(), {.level = odm::ValidationLevel::moderate});
  EXPECT_EQ(applied.collections[0].step, odm::ValidatorSyncEntry::Step::updated);
  const odm::Document options = options_of("order");
  EXPECT_EQ(string_field(options, "validationLevel"), "moderate") << options.to_json();
  EXPECT_EQ(odm::sync_validators<Order>(db(), {.level = odm::ValidationLevel::moderate}).collections[0].step,
            odm::ValidatorSyncEntry::Step::unchanged);
  // A typed write of the old model is now refused, with the server's code.
  auto sloppy = db().collection<SloppyOrder>();
  SloppyOrder old{odm::ObjectId::generate(), "bo", 2, "yesterday", 2.5};
  try {
    sloppy.insert_one(old);
    ADD_FAILURE() << "the old model's write was stored";
  } catch (const odm::WriteError& error) {
    EXPECT_EQ(error.code(), 121) << error.what();
  }
}

TEST_F(Validators, TypicalWrongWritesAreRefusedAndWhatOdmWritesIsStored) {
  ODM_REQUIRE(json_schema_validators);
  odm::sync_validators<Order>(db());
  auto orders = db().collection<Order>();
  Order order = sample();
  orders.insert_one(order);
  Order empty = sample();
  empty.note.reset();
  empty.lines.clear();
  orders.insert_one(empty);
  EXPECT_EQ(orders.count(), 2);

  const odm::Document good = odm::to_bson(sample());
  const auto with = [&](const char* field, const char* value) {
    odm::Document patch = json(std::string(R"({"v": )") + value + "}");
    bson_iter_t replacement;
    bson_iter_init_find(&replacement, patch.get(), "v");
    odm::Document out;
    odm_test::random_values::copy_replacing(good.get(), {field}, 0, replacement, out.get_mutable());
    bson_t* id_less = bson_new();
    bson_copy_to_excluding_noinit(out.get(), id_less, "_id", nullptr);
    return odm::Document::adopt(id_less);
  };
  EXPECT_EQ(raw_insert("order", with("customer", R"("other program")")), 0) << "the control write is stored";
  EXPECT_EQ(raw_insert("order", with("total", R"({"value": 19.99, "currency": "EUR"})")), 121) << "a double for money";
  EXPECT_EQ(raw_insert("order", with("placed", R"("2026-11-24")")), 121) << "a string for a date";
  EXPECT_EQ(raw_insert("order", with("number", "7")), 121) << "an int where odm writes a long";
  EXPECT_EQ(raw_insert("order", with("status", R"("lost")")), 121) << "a name the enum lacks";
  EXPECT_EQ(raw_insert("order", with("lines", R"([{"sku": "a", "quantity": "2", "unit_price": {"$numberDecimal": "1"}}])")),
            121)
      << "a wrong type inside an array element";
  EXPECT_EQ(raw_insert("order", with("total", R"({"value": {"$numberDecimal": "1"}, "currency": 978})")), 121)
      << "a wrong type inside a nested document";
  odm::Document missing;
  bson_copy_to_excluding_noinit(good.get(), missing.get_mutable(), "_id", "customer", nullptr);
  EXPECT_EQ(raw_insert("order", missing), 121) << "a missing required field";
  odm::Document defaulted;
  bson_copy_to_excluding_noinit(good.get(), defaulted.get_mutable(), "_id", "retries", nullptr);
  EXPECT_EQ(raw_insert("order", defaulted), 0) << "a defaulted member may be absent";
  // Updates are checked too.
  EXPECT_EQ(write_error_code(db().run_command(json(
                R"({"update": "order", "updates": [{"q": {}, "u": {"$set": {"total.value": 1.5}}}]})"))),
            121);
}

TEST_F(Validators, WarnAndModerateLetAMigrationRunWhileOldDocumentsRemain) {
  ODM_REQUIRE(json_schema_validators);
  // Documents of the old shape are there before the validator.
  ASSERT_EQ(raw_insert("order", json(R"({"customer": "old", "number": {"$numberLong": "1"}, "placed": "x",
                                         "total": 1.5})")),
            0);
  odm::sync_validators<Order>(db(), {.level = odm::ValidationLevel::moderate});
  // moderate: an update of a document that already fails is not checked (the migration
  // can touch it step by step); a new document must pass.
  EXPECT_EQ(write_error_code(db().run_command(
                json(R"({"update": "order", "updates": [{"q": {"customer": "old"}, "u": {"$set": {"note": "seen"}}}]})"))),
            0);
  EXPECT_EQ(raw_insert("order", json(R"({"customer": "new", "total": 2.5})")), 121);
  // warn: stored, and the server logs it.
  odm::sync_validators<Order>(db(), {.action = odm::ValidationAction::warn});
  EXPECT_EQ(raw_insert("order", json(R"({"customer": "new", "total": 2.5})")), 0);
}

/// `rounds` random T written by odm into a collection validated by T's schema: each is
/// stored, and each with one scalar changed to another BSON type is refused.
template <class T>
void random_round_trip(odm::Database db, odm_test::random_values::Rng& rng, std::uint64_t seed, int rounds,
                       const std::function<std::int32_t(const std::string&, const odm::Document&)>& raw_insert) {
  const std::string model(odm::detail::unqualified_type_name<T>());
  odm::ValidatorPlan plan = odm::validator_plan<T>();
  plan.collection = "random_" + model;
  odm::sync_validators(db, {plan});
  auto collection = db.collection<T>(plan.collection);
  for (int round = 0; round < rounds; ++round) {
    T value = odm_test::random_values::make<T>(rng, 0);
    const odm::Document written = odm::to_bson(value);
    try {
      collection.insert_one(value);
    } catch (const odm::DuplicateKeyError&) {
      continue;  // a random id drawn twice
    } catch (const odm::Error& error) {
      ADD_FAILURE() << model << ", seed " << seed << ", round " << round << ": refused: " << error.what()
                    << "\n  document: " << written.to_json();
      return;
    }
    std::string what;
    if (const auto mutated = odm_test::random_values::wrong_type_mutation(written, rng, what)) {
      // A fresh _id, so that a refusal is the validator's and not a duplicate key.
      bson_t* fresh = bson_new();
      bson_copy_to_excluding_noinit(mutated->get(), fresh, "_id", nullptr);
      const odm::Document without_id = odm::Document::adopt(fresh);
      const bool mutated_id = what.rfind("_id ", 0) == 0;
      const odm::Document& sent = mutated_id ? *mutated : without_id;
      EXPECT_EQ(raw_insert(plan.collection, sent), 121)
          << model << ", seed " << seed << ", round " << round << ": stored with " << what
          << "\n  document: " << sent.to_json();
    }
  }
}

TEST_F(Validators, RandomObjectsOfSeedModelsAreStoredAndSingleFieldWrongTypesRefused) {
  ODM_REQUIRE(json_schema_validators);
  constexpr std::uint64_t seed = 20261124;
  odm_test::random_values::Rng rng(seed);
  const auto raw = [&](const std::string& collection, const odm::Document& document) {
    return raw_insert(collection, document);
  };
  random_round_trip<Order>(db(), rng, seed, 60, raw);
  random_round_trip<seed::FullMovie>(db(), rng, seed, 20, raw);
  random_round_trip<seed::BookWithPublisher>(db(), rng, seed, 20, raw);
  random_round_trip<seed::ProductWithParts>(db(), rng, seed, 20, raw);
  random_round_trip<seed::StudentWithEmails>(db(), rng, seed, 20, raw);
  random_round_trip<seed::CategoryWithParent>(db(), rng, seed, 20, raw);
}

}  // namespace
}  // namespace schema_itest
