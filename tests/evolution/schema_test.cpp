// The $jsonSchema of a model (odm/evolution/schema.hpp): golden schemas of a few models,
// and the check (tests/evolution/schema_check.hpp) that what odm writes passes them and
// that the typical wrong writes do not. Every golden test of tests/golden also checks its
// document against its model's schema (odm_test::golden).

#include "evolution/random_values.hpp"
#include "evolution/schema_check.hpp"
#include "evolution/schema_models.hpp"
#include "golden/seed_models.hpp"
#include "test_support.hpp"

#include <odm/evolution/schema.hpp>
#include <odm/evolution/versions.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace schema_test {

using odm_test::canonical;

using schema_models::Line;
using schema_models::Order;
using schema_models::sample_order;
using schema_models::Status;

TEST(JsonSchema, OfAModelSaysTheBsonTypesOdmWrites) {
  EXPECT_EQ(canonical(odm::json_schema<Order>()), canonical(R"({
    "bsonType": "object",
    "required": ["_id", "customer", "number", "weight", "gift", "placed", "total", "status", "lines", "counters",
                 "author", "receipt", "r"],
    "properties": {
      "_id": {"bsonType": "objectId"},
      "customer": {"bsonType": "string"},
      "number": {"bsonType": "long"},
      "weight": {"bsonType": "double"},
      "gift": {"bsonType": "bool"},
      "placed": {"bsonType": "date"},
      "total": {"bsonType": "object", "required": ["value", "currency"],
                "properties": {"value": {"bsonType": "decimal"}, "currency": {"bsonType": "string"}},
                "additionalProperties": false},
      "status": {"bsonType": "string", "enum": ["draft", "paid", "shipped"]},
      "note": {"bsonType": ["string", "null"]},
      "lines": {"bsonType": "array", "items": {
          "bsonType": "object", "required": ["sku", "quantity", "unit_price"],
          "properties": {"sku": {"bsonType": "string"}, "quantity": {"bsonType": "int"},
                         "unit_price": {"bsonType": "decimal"}},
          "additionalProperties": false}},
      "counters": {"bsonType": "object", "additionalProperties": {"bsonType": "int"}},
      "author": {"anyOf": [{"bsonType": "string"}, {"bsonType": "array", "items": {"bsonType": "string"}}]},
      "receipt": {"bsonType": "binData"},
      "retries": {"bsonType": "int"},
      "r": {"bsonType": "int"}
    },
    "additionalProperties": false
  })"));
}

struct Publisher {
  std::string id;
  std::string name;
};

struct Product;
struct Review {
  std::int32_t review_id = 0;
  odm::ParentRef<Product> product_id;
  std::string text;
  std::int64_t published = 0;
  struct odm_model {
    static constexpr auto key = &Review::review_id;
  };
};
struct Product {
  std::int32_t id = 0;
  odm::Subset<Review, 2, &Review::published> reviews;
  odm::Ref<Publisher> maker;
  odm::RefMany<Publisher> resellers;
};

TEST(JsonSchema, ReferencesAreTheirTargetsIdsAndSubsetItemsLackTheirParentReference) {
  EXPECT_EQ(canonical(odm::json_schema<Product>()), canonical(R"({
    "bsonType": "object",
    "required": ["_id", "reviews", "maker", "resellers"],
    "properties": {
      "_id": {"bsonType": "int"},
      "reviews": {"bsonType": "array", "items": {
          "bsonType": "object", "required": ["review_id", "text", "published"],
          "properties": {"review_id": {"bsonType": "int"}, "text": {"bsonType": "string"},
                         "published": {"bsonType": "long"}},
          "additionalProperties": false}},
      "maker": {"bsonType": "string"},
      "resellers": {"bsonType": "array", "items": {"bsonType": "string"}}
    },
    "additionalProperties": false
  })"));
  // A ParentRef may be null (a root) or absent.
  EXPECT_EQ(canonical(odm::json_schema<Review>()), canonical(R"({
    "bsonType": "object",
    "required": ["review_id", "text", "published"],
    "properties": {
      "_id": {"bsonType": "objectId"},
      "review_id": {"bsonType": "int"},
      "product_id": {"bsonType": ["int", "null"]},
      "text": {"bsonType": "string"},
      "published": {"bsonType": "long"}
    },
    "additionalProperties": false
  })"));
}

struct Kept {
  std::int64_t id = 0;
  std::optional<Status> status;
  std::variant<std::int32_t, Line> either;
  odm::Extra extra;
};

TEST(JsonSchema, AModelWithExtraAllowsOtherFieldsAndNullableEnumsListNull) {
  EXPECT_EQ(canonical(odm::json_schema<Kept>()), canonical(R"({
    "bsonType": "object",
    "required": ["_id", "either"],
    "properties": {
      "_id": {"bsonType": "long"},
      "status": {"bsonType": ["string", "null"], "enum": ["draft", "paid", "shipped", null]},
      "either": {"anyOf": [
          {"bsonType": "int"},
          {"bsonType": "object", "required": ["sku", "quantity", "unit_price"],
           "properties": {"sku": {"bsonType": "string"}, "quantity": {"bsonType": "int"},
                          "unit_price": {"bsonType": "decimal"}},
           "additionalProperties": false}]}
    }
  })"));
}

TEST(JsonSchema, UnknownFieldsAllowedDropsAdditionalPropertiesEverywhere) {
  const odm::Document schema = odm::json_schema<Order>({.unknown_fields = odm::UnknownFields::allowed});
  EXPECT_EQ(schema.to_canonical_json().find("additionalProperties\" : false"), std::string::npos) << schema.to_json();
  EXPECT_NE(schema.to_canonical_json().find("additionalProperties"), std::string::npos)
      << "the map's value schema stays";
}

struct Money3 {
  std::int32_t id = 0;
  odm::ScaledAmount<100> cents;
  odm::DisplayMoney shown;
  odm::DecimalFromLegacy<100> migrating;
};

TEST(JsonSchema, TheMoneyModelsOfTheGuide) {
  EXPECT_EQ(canonical(odm::json_schema<Money3>()), canonical(R"({
    "bsonType": "object",
    "required": ["_id", "cents", "shown", "migrating"],
    "properties": {
      "_id": {"bsonType": "int"},
      "cents": {"bsonType": "long"},
      "shown": {"bsonType": "object", "required": ["display", "approx", "currency"],
                "properties": {"display": {"bsonType": "string"}, "approx": {"bsonType": "double"},
                               "currency": {"bsonType": "string"}},
                "additionalProperties": false},
      "migrating": {"bsonType": "decimal"}
    },
    "additionalProperties": false
  })"));
}

/// A struct that contains itself: described to three levels, then only as an object.
struct Node {
  std::int32_t id = 0;
  std::vector<Node> children;
};

TEST(JsonSchema, AStructThatContainsItselfEndsInAPlainObject) {
  EXPECT_EQ(canonical(odm::json_schema<Node>()), canonical(R"({
    "bsonType": "object",
    "required": ["_id", "children"],
    "properties": {
      "_id": {"bsonType": "int"},
      "children": {"bsonType": "array", "items": {
          "bsonType": "object", "required": ["id", "children"],
          "properties": {"id": {"bsonType": "int"},
                         "children": {"bsonType": "array", "items": {
                             "bsonType": "object", "required": ["id", "children"],
                             "properties": {"id": {"bsonType": "int"},
                                            "children": {"bsonType": "array", "items": {"bsonType": "object"}}},
                             "additionalProperties": false}}},
          "additionalProperties": false}}
    },
    "additionalProperties": false
  })"));
}

std::vector<std::string> violations_of(const odm::Document& document) {
  return odm_test::schema_violations(odm::json_schema<Order>().get(), document.get());
}

/// `document` with its top-level field `path` replaced by the Extended JSON value `json`.
odm::Document with(const odm::Document& document, std::string_view path, std::string_view json) {
  odm::Document patch = odm::Document::from_json(std::string("{\"v\": ") + std::string(json) + "}");
  // Rebuild through a map of top-level fields: enough for these tests' paths.
  odm::Document out;
  bson_iter_t it, value;
  bson_iter_init(&it, document.get());
  bson_iter_init_find(&value, patch.get(), "v");
  while (bson_iter_next(&it)) {
    if (path == bson_iter_key(&it))
      bson_append_iter(out.get_mutable(), bson_iter_key(&it), -1, &value);
    else
      bson_append_iter(out.get_mutable(), bson_iter_key(&it), -1, &it);
  }
  return out;
}

TEST(JsonSchema, WhatOdmWritesPassesAndTypicalWrongWritesDoNot) {
  const odm::Document good = odm::to_bson(sample_order());
  EXPECT_TRUE(violations_of(good).empty()) << violations_of(good).front();
  Order empty_optional = sample_order();
  empty_optional.note.reset();
  EXPECT_TRUE(violations_of(odm::to_bson(empty_optional)).empty());

  EXPECT_FALSE(violations_of(with(good, "total", R"({"value": 19.99, "currency": "EUR"})")).empty())
      << "a double for money";
  EXPECT_FALSE(violations_of(with(good, "placed", R"("2026-11-24")")).empty()) << "a string for a date";
  EXPECT_FALSE(violations_of(with(good, "number", "7")).empty()) << "an int where odm writes a long";
  EXPECT_FALSE(violations_of(with(good, "status", R"("lost")")).empty()) << "a name the enum lacks";
  EXPECT_FALSE(violations_of(with(good, "lines", R"([{"sku": "a", "quantity": "2",
                                                       "unit_price": {"$numberDecimal": "1"}}])"))
                   .empty())
      << "a wrong type inside an array element";
  EXPECT_FALSE(violations_of(with(good, "counters", R"({"views": 1.5})")).empty()) << "a wrong map value";
  EXPECT_FALSE(violations_of(with(good, "author", "5")).empty()) << "no alternative of the variant";
  EXPECT_FALSE(violations_of(with(good, "customer", "null")).empty()) << "null where odm never writes one";

  odm::Document missing;
  bson_copy_to_excluding_noinit(good.get(), missing.get_mutable(), "customer", nullptr);
  EXPECT_FALSE(violations_of(missing).empty()) << "a missing required field";
  odm::Document without_default;
  bson_copy_to_excluding_noinit(good.get(), without_default.get_mutable(), "retries", nullptr);
  EXPECT_TRUE(violations_of(without_default).empty()) << "a defaulted member may be absent";

  odm::Document extra = odm::Document::copy_of(good.get());
  bson_append_int32(extra.get_mutable(), "unknown", -1, 1);
  EXPECT_FALSE(violations_of(extra).empty()) << "a field the model does not declare";
}

odm::Document mark_paid(const odm::Document& stored) { return stored; }

/// A model with schema versions and no odm::Extra: its documents carry `schema_version`.
struct VersionedInvoice {
  std::int64_t id = 0;
  std::string customer;
  struct odm_model {
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&mark_paid));
  };
};

TEST(JsonSchema, AModelWithSchemaVersionsAllowsItsVersionField) {
  const odm::Document schema = odm::json_schema<VersionedInvoice>();
  const odm::Document written = odm::to_bson(VersionedInvoice{7, "ada"});
  const auto broken = odm_test::schema_violations(schema.get(), written.get());
  EXPECT_TRUE(broken.empty()) << broken.front() << "\n  document: " << written.to_json()
                              << "\n  schema: " << schema.to_json();
  EXPECT_FALSE(odm_test::schema_violations(schema.get(), with(written, "schema_version", R"("2")").get()).empty())
      << "a version of another type than odm writes";
  odm::Document before_versions;
  bson_copy_to_excluding_noinit(written.get(), before_versions.get_mutable(), "schema_version", nullptr);
  EXPECT_TRUE(odm_test::schema_violations(schema.get(), before_versions.get()).empty())
      << "a document from before the model had versions";
}

// ---- randomized: random objects of every seed model and of the models above ---------

constexpr std::uint64_t seed = 20261124;

/// `rounds` random T: each encodes to a document that passes T's schema, and a copy of it
/// with one scalar changed to another BSON type does not.
template <class T>
void random_documents_pass_and_mutations_fail(odm_test::random_values::Rng& rng, int rounds) {
  const odm::Document schema = odm::json_schema<T>();
  const std::string model(odm::detail::unqualified_type_name<T>());
  for (int round = 0; round < rounds; ++round) {
    const T value = odm_test::random_values::make<T>(rng, 0);
    const odm::Document written = odm::to_bson(value);
    const auto broken = odm_test::schema_violations(schema.get(), written.get());
    ASSERT_TRUE(broken.empty()) << model << ", seed " << seed << ", round " << round << ": " << broken.front()
                                << "\n  document: " << written.to_json() << "\n  schema: " << schema.to_json();
    std::string what;
    if (const auto mutated = odm_test::random_values::wrong_type_mutation(written, rng, what)) {
      ASSERT_FALSE(odm_test::schema_violations(schema.get(), mutated->get()).empty())
          << model << ", seed " << seed << ", round " << round << ": passes with " << what
          << "\n  document: " << mutated->to_json() << "\n  schema: " << schema.to_json();
    }
  }
}

/// The models of tests/golden/seed_models.hpp (the guides' documents); none has a variant
/// of two scalars, so every wrong-type mutation must fail.
template <class... Models>
void for_models(odm_test::random_values::Rng& rng, int rounds) {
  (random_documents_pass_and_mutations_fail<Models>(rng, rounds), ...);
}

TEST(JsonSchema, RandomDocumentsOfEverySeedModelPassAndSingleFieldWrongTypesFail) {
  odm_test::random_values::Rng rng(seed);
  for_models<seed::Address, seed::Imdb, seed::Viewer, seed::Tomatoes, seed::ProductReview, seed::PublisherInfo,
             seed::Checkout, seed::UpdateResult, seed::WriteResult, seed::Part, seed::Email, seed::IdCard,
             seed::CourseInfo, seed::BoardMessage, seed::Client, seed::ClientAddress, seed::ClientWithAddress, seed::Patron, seed::PatronAddress,
             seed::PersonAddress, seed::Person, seed::FullMovie, seed::Movie, seed::MovieDetails, seed::Review,
             seed::BookWithPublisher, seed::PublisherWithBooks, seed::Book, seed::Publisher,
             seed::BookWithPublisherId, seed::BookWithCheckout, seed::CategoryWithParent,
             seed::CategoryWithChildren, seed::Volume, seed::ProductWithParts, seed::Host, seed::LogMessage,
             seed::StudentWithEmails, seed::StudentWithIdCard, seed::Course, seed::StudentWithEmbeddedCourses,
             seed::Student, seed::StudentWithEmbeddedMessages, seed::StudentWithMessageRefs, seed::Message,
             seed::MessageWithAuthor>(rng, 40);
  // Node's random trees are at most three levels deep, as deep as its schema describes.
  for_models<Order, Product, Review, Kept, Money3, Node>(rng, 200);
}

}  // namespace schema_test

// MongoDB gives no meaning to the order of a $jsonSchema's `required`, `bsonType`, `type`
// and `enum` arrays, nor of its documents' keys; the BSON type of a number is part of it.
TEST(SchemaDifferences, ComparesSchemasAsMongoDBDoes) {
  const auto differences = [](const char* planned, const char* existing) {
    return odm::schema_differences(odm::Document::from_json(planned).get(), odm::Document::from_json(existing).get());
  };
  EXPECT_TRUE(differences(R"({"$jsonSchema": {"required": ["a", "b", "c"], "properties": {"a": {"bsonType": "int"},
                                "b": {"bsonType": ["string", "null"]}, "c": {"enum": ["x", "y", null]}}}})",
                          R"({"$jsonSchema": {"properties": {"c": {"enum": [null, "y", "x"]}, "a": {"bsonType": "int"},
                                "b": {"bsonType": ["null", "string"]}}, "required": ["c", "a", "b"]}})")
                  .empty());
  const std::vector<std::string> missing = differences(R"({"required": ["a", "b"]})", R"({"required": ["b", "c"]})");
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].rfind("required: ", 0), 0u) << missing[0];
  EXPECT_EQ(differences(R"({"required": ["a", "a"]})", R"({"required": ["a"]})").size(), 1u);
  // 1 (int32) and 1.0 (double), or 1 and NumberLong(1), are different schemas to keep.
  EXPECT_EQ(differences(R"({"maxLength": 1})", R"({"maxLength": 1.0})").size(), 1u);
  EXPECT_EQ(differences(R"({"maxLength": 1})", R"({"maxLength": {"$numberLong": "1"}})").size(), 1u);
  EXPECT_TRUE(differences(R"({"maxLength": 1})", R"({"maxLength": 1})").empty());
  // Arrays whose order means something (items of a tuple, anyOf's sub-schemas) stay ordered.
  EXPECT_EQ(differences(R"({"items": [{"bsonType": "int"}, {"bsonType": "string"}]})",
                        R"({"items": [{"bsonType": "string"}, {"bsonType": "int"}]})")
                .size(),
            2u);
}
