// Adversarial probes of validators from the model (issue 11 item 6): every document odm
// writes for a model that combines Extra (top level and embedded), variants of a struct
// and a scalar, maps of structs, optional enums, Money, schema versions, renamed and
// defaulted members passes the schema odm::sync_validators puts on the server, by every
// write path (insert, replace, Tracked save, the lazy upgrade's save); wrong writes of
// another program are refused; the report after a manual collMod says what differs. A
// probe that shows a defect is kept, skipped with `defect:` and its reason.

#include "driver/support.hpp"

#include <odm/evolution/changes.hpp>
#include <odm/evolution/extra.hpp>
#include <odm/evolution/schema.hpp>
#include <odm/evolution/versions.hpp>
#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace adv11v {

enum class Speed { slow, fast };

struct Parcel {
  std::string code;
  std::int32_t grams = 0;
};

struct Address {
  std::string city;
  odm::Extra rest;  // an embedded struct that keeps unknown fields
};

// Version 1 stored `via` as a string; version 2 stores the stops as addresses.
odm::Document v1_to_v2(const odm::Document& old) {
  odm::Document next;
  bson_iter_t it;
  bson_iter_init(&it, old.get());
  while (bson_iter_next(&it)) {
    if (std::string_view(bson_iter_key(&it)) == "via") {
      bson_t stops;
      bson_t first;
      bson_append_array_begin(next.get_mutable(), "stops", -1, &stops);
      bson_append_document_begin(&stops, "0", -1, &first);
      bson_append_utf8(&first, "city", -1, bson_iter_utf8(&it, nullptr), -1);
      bson_append_document_end(&stops, &first);
      bson_append_array_end(next.get_mutable(), &stops);
      continue;
    }
    bson_append_iter(next.get_mutable(), bson_iter_key(&it), -1, &it);
  }
  return next;
}

struct Shipment {
  std::string id;
  odm::Money price;
  std::optional<Speed> speed;
  std::variant<std::int32_t, std::string> code;
  std::variant<Parcel, std::string> content;
  std::map<std::string, Parcel> by_room;
  std::optional<odm::Embedded<Address>> to;
  std::vector<Address> stops;
  std::int32_t tries = 0;
  std::string channel = "web";
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "shipments";
    static constexpr auto fields = odm::fields(odm::rename(&Shipment::tries, "n_tries"), odm::defaulted(&Shipment::channel));
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&v1_to_v2));
  };
};

// The same without Extra: closed documents, a $set-replace.
struct Closed {
  std::string id;
  odm::Money price;
  std::optional<Speed> speed;
  std::variant<Parcel, std::string> content;
  std::map<std::string, std::int64_t> counts;
  std::optional<std::string> note;
  struct odm_model {
    static constexpr std::string_view collection = "closed";
  };
};

}  // namespace adv11v

namespace {

using namespace adv11v;
using odm_test::json;

std::int32_t write_error_code(const odm::Document& reply) {
  bson_iter_t it;
  if (bson_iter_init(&it, reply.get()) && bson_iter_find_descendant(&it, "writeErrors.0.code", &it))
    return static_cast<std::int32_t>(bson_iter_as_int64(&it));
  return 0;
}

class Adversary11Validators : public odm_test::DriverTest {
 protected:
  std::int32_t raw_insert(const std::string& collection, const std::string& document) {
    return write_error_code(
        db().run_command(json(R"({"insert": ")" + collection + R"(", "documents": [)" + document + "]}")));
  }
  static Shipment full(const std::string& id) {
    Shipment s;
    s.id = id;
    s.price = odm::Money("12.50", "EUR");
    s.speed = Speed::fast;
    s.code = std::string("X-1");
    s.content = Parcel{"p", 300};
    s.by_room = {{"kitchen", Parcel{"k", 1}}, {"hall", Parcel{"h", 2}}};
    s.to = odm::Embedded<Address>(Address{"Oslo", {}});
    s.stops = {Address{"Bergen", {}}};
    s.tries = 2;
    return s;
  }
};

// Everything odm writes, by every path, is stored under the model's validator.
TEST_F(Adversary11Validators, EveryWriteOfAModelWithEveryKindPassesItsSchema) {
  ODM_REQUIRE(json_schema_validators);
  odm::sync_validators<Shipment, Closed>(db());
  auto shipments = db().collection<Shipment>();
  std::vector<std::string> refused;
  const auto attempt = [&](const std::string& what, auto&& write) {
    try {
      write();
    } catch (const odm::Error& error) {
      refused.push_back(what + ": " + error.what());
    }
  };
  attempt("insert of a full object", [&] { shipments.insert_one(full("a")); });
  attempt("insert of an object with empty optionals, int code, string content, no stops", [&] {
    Shipment s;
    s.id = "b";
    s.price = odm::Money("0", "USD");
    s.code = 7;
    s.content = std::string("letter");
    shipments.insert_one(s);
  });
  // Another program's fields at the top level and inside an embedded Address, kept by
  // Extra and written back by a replace.
  ASSERT_EQ(raw_insert("shipments", R"({"_id": "c", "price": {"value": {"$numberDecimal": "1"}, "currency": "EUR"},
      "speed": null, "code": 1, "content": "x", "by_room": {}, "to": {"city": "Rome", "zip": "00100"},
      "stops": [{"city": "Pisa", "floor": 3}], "n_tries": 0, "channel": "app", "schema_version": 2, "other": true})"),
            0)
      << "a document of the model's shape with unknown fields where Extra keeps them";
  attempt("replace of a document read with its unknown fields", [&] {
    Shipment c = shipments.get_by_id("c");
    c.tries = 5;
    shipments.replace_one(odm::field(&Shipment::id) == "c", c);
  });
  attempt("Tracked save of changes", [&] {
    odm::Tracked<Shipment> t = odm::track(shipments.get_by_id("a"));
    t->speed.reset();
    t->by_room["attic"] = Parcel{"t", 3};
    t->stops.push_back(Address{"Trondheim", {}});
    t->content = std::string("now a letter");
    t.save(shipments);
  });
  // A version-1 document (stored while validation was off, as before the validator
  // existed), upgraded lazily and saved by a Tracked save.
  odm::sync_validators<Shipment>(db(), {.level = odm::ValidationLevel::off});
  ASSERT_EQ(raw_insert("shipments", R"({"_id": "old", "price": {"value": {"$numberDecimal": "3"}, "currency": "EUR"},
      "speed": "slow", "code": "c", "content": "x", "by_room": {}, "via": "Lund", "n_tries": 1})"),
            0);
  odm::sync_validators<Shipment>(db());
  attempt("Tracked save of a lazily upgraded version-1 document", [&] {
    odm::Tracked<Shipment> t = odm::track(shipments, std::string("old"));
    t->tries = 9;
    t.save(shipments);
  });
  attempt("replace of a lazily upgraded version-1 document", [&] {
    Shipment old = shipments.get_by_id("old");
    shipments.replace_one(odm::field(&Shipment::id) == "old", old);
  });
  auto closed = db().collection<Closed>();
  attempt("insert of a closed model", [&] {
    closed.insert_one(Closed{"a", odm::Money("1.00", "EUR"), std::nullopt, Parcel{"p", 1}, {{"x", 1}}, std::nullopt});
  });
  attempt("$set-replace of a closed model", [&] {
    closed.replace_one(odm::field(&Closed::id) == "a",
                       Closed{"a", odm::Money("2.00", "EUR"), Speed::slow, std::string("s"), {}, std::string("n")});
  });
  std::string all;
  for (const std::string& r : refused) all += "\n  " + r;
  EXPECT_TRUE(refused.empty()) << "writes odm made were refused by the model's own validator:" << all;
}

// Another program's typical wrong writes are refused (DocumentValidationFailure, 121).
TEST_F(Adversary11Validators, WrongWritesOfAnotherProgramAreRefused) {
  ODM_REQUIRE(json_schema_validators);
  odm::sync_validators<Closed>(db());
  const std::string good_price = R"("price": {"value": {"$numberDecimal": "1"}, "currency": "EUR"})";
  EXPECT_EQ(raw_insert("closed", R"({"_id": "ok", )" + good_price +
                                     R"(, "speed": "fast", "content": "s", "counts": {"a": {"$numberLong": "1"}}, "note": null})"),
            0)
      << "a right write";
  const std::vector<std::pair<std::string, std::string>> wrong{
      {"a double amount", R"({"_id": 1, "price": {"value": 1.5, "currency": "EUR"}, "content": "s", "counts": {}})"},
      {"a Money with another field", R"({"_id": 2, "price": {"value": {"$numberDecimal": "1"}, "currency": "EUR",
                                          "cents": 100}, "content": "s", "counts": {}})"},
      {"an enum name that does not exist", R"({"_id": 3, )" + good_price + R"(, "speed": "medium", "content": "s",
                                                "counts": {}})"},
      {"an enum stored as its number", R"({"_id": 4, )" + good_price + R"(, "speed": 1, "content": "s", "counts": {}})"},
      {"a variant alternative the model does not have", R"({"_id": 5, )" + good_price + R"(, "content": 7,
                                                          "counts": {}})"},
      {"a variant struct with an unknown field", R"({"_id": 6, )" + good_price + R"(, "content": {"code": "c",
                                                   "grams": 1, "extra": 1}, "counts": {}})"},
      {"a map value of another type", R"({"_id": 7, )" + good_price + R"(, "content": "s", "counts": {"a": 1.5}})"},
      {"a missing required member", R"({"_id": 8, )" + good_price + R"(, "counts": {}})"},
      {"an unknown top-level field", R"({"_id": 9, )" + good_price + R"(, "content": "s", "counts": {}, "x": 1})"},
      {"an int where odm writes a long", R"({"_id": 10, )" + good_price + R"(, "content": "s", "counts": {"a": 1}})"},
  };
  std::string accepted;
  for (const auto& [what, document] : wrong)
    if (const std::int32_t code = raw_insert("closed", document); code != 121)
      accepted += "\n  " + what + " (code " + std::to_string(code) + ")";
  EXPECT_TRUE(accepted.empty()) << "wrong writes the validator let through:" << accepted;
}

// After an administrator's collMod, the report says what differs, path by path, and a
// sync restores the model's validator; a validator equal to the model's but written
// with its keys in another order is the same schema (MongoDB compares nothing by order
// in $jsonSchema's `properties`).
TEST_F(Adversary11Validators, TheReportAfterAManualCollModIsRight) {
  ODM_REQUIRE(json_schema_validators);
  odm::sync_validators<Closed>(db());
  // collMod: `note` becomes a required string, the level moderate.
  std::string schema = odm::json_schema<Closed>().to_canonical_json();
  const std::string note = R"("note" : { "bsonType" : [ "string", "null" ] })";
  const std::size_t at = schema.find(note);
  ASSERT_NE(at, std::string::npos) << "the model's schema of `note`: " << schema;
  std::string changed = schema;
  changed.replace(at, note.size(), R"("note" : { "bsonType" : "string" })");
  db().run_command(json(R"({"collMod": "closed", "validator": {"$jsonSchema": )" + changed +
                        R"(}, "validationLevel": "moderate"})"));
  const odm::ValidatorSyncReport plan = odm::sync_validators<Closed>(db(), {.dry_run = true});
  const std::string text = plan.to_string();
  ASSERT_EQ(plan.collections.size(), 1u);
  EXPECT_EQ(plan.collections[0].step, odm::ValidatorSyncEntry::Step::updated) << text;
  EXPECT_NE(text.find("properties.note.bsonType"), std::string::npos) << text;
  EXPECT_NE(text.find("validationLevel: server moderate, planned strict"), std::string::npos) << text;
  EXPECT_EQ(odm::sync_validators<Closed>(db()).collections[0].step, odm::ValidatorSyncEntry::Step::updated);
  EXPECT_EQ(odm::sync_validators<Closed>(db()).collections[0].step, odm::ValidatorSyncEntry::Step::unchanged);

  // The same schema with `required` listed in reverse order.
  const std::string required_key = R"("required" : [ )";
  const std::size_t r = schema.find(required_key);
  ASSERT_NE(r, std::string::npos) << schema;
  const std::size_t r_end = schema.find(']', r);
  std::vector<std::string> names;
  for (std::size_t p = schema.find('"', r + required_key.size()); p < r_end; p = schema.find('"', p + 1)) {
    const std::size_t q = schema.find('"', p + 1);
    names.push_back(schema.substr(p, q - p + 1));
    p = q;
  }
  ASSERT_GE(names.size(), 2u) << schema;
  std::string reversed = required_key;
  for (std::size_t i = names.size(); i-- > 0;) reversed += names[i] + (i ? ", " : " ");
  std::string reordered = schema;
  reordered.replace(r, r_end - r, reversed);
  db().run_command(json(R"({"collMod": "closed", "validator": {"$jsonSchema": )" + reordered + "}}"));
  const odm::ValidatorSyncReport same = odm::sync_validators<Closed>(db(), {.dry_run = true});
  EXPECT_EQ(same.collections[0].step, odm::ValidatorSyncEntry::Step::unchanged)
      << "a validator equal to the model's but with `required` in another order is reported as "
         "different and would be rewritten by every sync: "
      << same.to_string();
}

}  // namespace
