// Adversary 29: odm::document_code and odm::embedded_code (README "Compiling a model once")
// declared for models of every shape odm maps, and compiled in another file
// (adversary_29_compiled_once_instances.cpp, which includes this file with
// ODM_ADVERSARY29_INSTANCES defined): schema versions, strict models, odm::Extra at both
// levels, renames, recursion, variants of structs, a class template, an empty struct, more
// than 64 members, enums, maps, Decimal, Money, references. Each must encode and decode
// exactly as the README's mapping says, as an undeclared one does.
//
// The adversary found that one class for both levels (odm::record_code, since split) could
// not be compiled for a struct whose names are valid at one level only: Account (a model
// whose old name is "id", which is `_id` in a document and would collide embedded) and Copy
// (embedded only, with a member stored as "_id", which would collide with `id` in a
// document). Each is now declared at its own level and tested below.

#include <odm/odm.hpp>

#include <cstdint>
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace adversary29 {

// Schema versions: the shapes before and after the step, and the model; all declared.
struct PriceCents {
  std::int64_t id = 0;
  std::string name;
  std::int64_t cents = 0;
  odm::Extra rest;
};
struct PriceDecimal {
  std::int64_t id = 0;
  std::string name;
  odm::Decimal amount;
  odm::Extra rest;
};
inline PriceDecimal price_to_decimal(const PriceCents& old) {
  return {old.id, old.name, odm::Decimal(old.cents, -2), old.rest};
}
struct PriceV2 {
  std::int64_t id = 0;
  std::string name;
  odm::Decimal amount;
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "adversary29_prices";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&price_to_decimal));
  };
};

struct Gauge {
  std::string name;
  double value = 0;
  friend bool operator==(const Gauge&, const Gauge&) = default;
  struct odm_model {
    static constexpr bool strict = true;
  };
};

// Embedded, keeping its own unknown fields; `id` stays `id` inside a document.
struct Note {
  std::int32_t id = 0;
  std::string text;
  odm::Extra extra;
};

struct Node {
  std::string name;
  std::vector<Node> children;
  friend bool operator==(const Node&, const Node&) = default;
};

struct Circle {
  double radius = 0;
  friend bool operator==(const Circle&, const Circle&) = default;
};
struct Square {
  double side = 0;
  friend bool operator==(const Square&, const Square&) = default;
};
struct Drawing {
  std::string title;
  std::vector<std::variant<Circle, Square>> shapes;
  friend bool operator==(const Drawing&, const Drawing&) = default;
};

template <class V>
struct Box {
  V value{};
  std::string label;
  friend bool operator==(const Box&, const Box&) = default;
};

struct Nothing {
  friend bool operator==(const Nothing&, const Nothing&) = default;
};

struct Wide {
  std::int32_t m0 = 0;
  std::int32_t m1 = 0;
  std::int32_t m2 = 0;
  std::int32_t m3 = 0;
  std::int32_t m4 = 0;
  std::int32_t m5 = 0;
  std::int32_t m6 = 0;
  std::int32_t m7 = 0;
  std::int32_t m8 = 0;
  std::int32_t m9 = 0;
  std::int32_t m10 = 0;
  std::int32_t m11 = 0;
  std::int32_t m12 = 0;
  std::int32_t m13 = 0;
  std::int32_t m14 = 0;
  std::int32_t m15 = 0;
  std::int32_t m16 = 0;
  std::int32_t m17 = 0;
  std::int32_t m18 = 0;
  std::int32_t m19 = 0;
  std::int32_t m20 = 0;
  std::int32_t m21 = 0;
  std::int32_t m22 = 0;
  std::int32_t m23 = 0;
  std::int32_t m24 = 0;
  std::int32_t m25 = 0;
  std::int32_t m26 = 0;
  std::int32_t m27 = 0;
  std::int32_t m28 = 0;
  std::int32_t m29 = 0;
  std::int32_t m30 = 0;
  std::int32_t m31 = 0;
  std::int32_t m32 = 0;
  std::int32_t m33 = 0;
  std::int32_t m34 = 0;
  std::int32_t m35 = 0;
  std::int32_t m36 = 0;
  std::int32_t m37 = 0;
  std::int32_t m38 = 0;
  std::int32_t m39 = 0;
  std::int32_t m40 = 0;
  std::int32_t m41 = 0;
  std::int32_t m42 = 0;
  std::int32_t m43 = 0;
  std::int32_t m44 = 0;
  std::int32_t m45 = 0;
  std::int32_t m46 = 0;
  std::int32_t m47 = 0;
  std::int32_t m48 = 0;
  std::int32_t m49 = 0;
  std::int32_t m50 = 0;
  std::int32_t m51 = 0;
  std::int32_t m52 = 0;
  std::int32_t m53 = 0;
  std::int32_t m54 = 0;
  std::int32_t m55 = 0;
  std::int32_t m56 = 0;
  std::int32_t m57 = 0;
  std::int32_t m58 = 0;
  std::int32_t m59 = 0;
  std::int32_t m60 = 0;
  std::int32_t m61 = 0;
  std::int32_t m62 = 0;
  std::int32_t m63 = 0;
  std::int32_t m64 = 0;
  std::int32_t m65 = 0;
  std::int32_t m66 = 0;
  std::int32_t m67 = 0;
  std::int32_t m68 = 0;
  std::int32_t m69 = 0;
  friend bool operator==(const Wide&, const Wide&) = default;
};

enum class Tier { basic, gold };

struct Customer {
  std::int64_t id = 0;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "adversary29_customers";
  };
};

struct Invoice {
  std::int64_t id = 0;
  std::string number;  // read under its older name "no" too
  Tier tier = Tier::basic;
  std::map<std::string, std::int32_t> counts;
  odm::Decimal tax;
  odm::Money total;
  odm::Ref<Customer> customer;
  odm::RefMany<Customer> cc;
  std::optional<Note> note;
  std::vector<Box<std::int32_t>> boxes;
  struct odm_model {
    static constexpr std::string_view collection = "adversary29_invoices";
    static constexpr auto fields = odm::fields(odm::renamed_from<&Invoice::number>("no"));
  };
};

// Names valid at one level only, each declared at its level.
/// A model whose old name is "id": as a document `id` is `_id`, so "id" is free; embedded
/// it would be its own member's name.
struct Account {
  std::int64_t id = 0;
  std::string external;
  friend bool operator==(const Account&, const Account&) = default;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Account::external>("id"));
  };
};
/// Stored only inside a Holder, with a member stored as "_id": embedded, `id` stays `id`.
struct Copy {
  std::int32_t id = 0;
  std::int32_t source = 0;
  friend bool operator==(const Copy&, const Copy&) = default;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::rename(&Copy::source, "_id"));
  };
};
struct Holder {
  std::int32_t id = 0;
  Copy copy;
  friend bool operator==(const Holder&, const Holder&) = default;
};

}  // namespace adversary29

extern template struct odm::document_code<adversary29::Account>;
extern template struct odm::embedded_code<adversary29::Copy>;
extern template struct odm::document_code<adversary29::PriceCents>;
extern template struct odm::embedded_code<adversary29::PriceCents>;
extern template struct odm::document_code<adversary29::PriceDecimal>;
extern template struct odm::embedded_code<adversary29::PriceDecimal>;
extern template struct odm::document_code<adversary29::PriceV2>;
extern template struct odm::embedded_code<adversary29::PriceV2>;
extern template struct odm::document_code<adversary29::Gauge>;
extern template struct odm::embedded_code<adversary29::Gauge>;
extern template struct odm::document_code<adversary29::Note>;
extern template struct odm::embedded_code<adversary29::Note>;
extern template struct odm::document_code<adversary29::Node>;
extern template struct odm::embedded_code<adversary29::Node>;
extern template struct odm::document_code<adversary29::Circle>;
extern template struct odm::embedded_code<adversary29::Circle>;
extern template struct odm::document_code<adversary29::Square>;
extern template struct odm::embedded_code<adversary29::Square>;
extern template struct odm::document_code<adversary29::Drawing>;
extern template struct odm::embedded_code<adversary29::Drawing>;
extern template struct odm::document_code<adversary29::Box<std::int32_t>>;
extern template struct odm::embedded_code<adversary29::Box<std::int32_t>>;
extern template struct odm::document_code<adversary29::Nothing>;
extern template struct odm::embedded_code<adversary29::Nothing>;
extern template struct odm::document_code<adversary29::Wide>;
extern template struct odm::embedded_code<adversary29::Wide>;
extern template struct odm::document_code<adversary29::Customer>;
extern template struct odm::embedded_code<adversary29::Customer>;
extern template struct odm::document_code<adversary29::Invoice>;
extern template struct odm::embedded_code<adversary29::Invoice>;

#ifdef ODM_ADVERSARY29_INSTANCES

template struct odm::document_code<adversary29::Account>;
template struct odm::embedded_code<adversary29::Copy>;

template struct odm::document_code<adversary29::PriceCents>;
template struct odm::embedded_code<adversary29::PriceCents>;
template struct odm::document_code<adversary29::PriceDecimal>;
template struct odm::embedded_code<adversary29::PriceDecimal>;
template struct odm::document_code<adversary29::PriceV2>;
template struct odm::embedded_code<adversary29::PriceV2>;
template struct odm::document_code<adversary29::Gauge>;
template struct odm::embedded_code<adversary29::Gauge>;
template struct odm::document_code<adversary29::Note>;
template struct odm::embedded_code<adversary29::Note>;
template struct odm::document_code<adversary29::Node>;
template struct odm::embedded_code<adversary29::Node>;
template struct odm::document_code<adversary29::Circle>;
template struct odm::embedded_code<adversary29::Circle>;
template struct odm::document_code<adversary29::Square>;
template struct odm::embedded_code<adversary29::Square>;
template struct odm::document_code<adversary29::Drawing>;
template struct odm::embedded_code<adversary29::Drawing>;
template struct odm::document_code<adversary29::Box<std::int32_t>>;
template struct odm::embedded_code<adversary29::Box<std::int32_t>>;
template struct odm::document_code<adversary29::Nothing>;
template struct odm::embedded_code<adversary29::Nothing>;
template struct odm::document_code<adversary29::Wide>;
template struct odm::embedded_code<adversary29::Wide>;
template struct odm::document_code<adversary29::Customer>;
template struct odm::embedded_code<adversary29::Customer>;
template struct odm::document_code<adversary29::Invoice>;
template struct odm::embedded_code<adversary29::Invoice>;

#else

#include "test_support.hpp"

#include <gtest/gtest.h>

namespace adversary29 {
namespace {

using odm_test::canonical;
using odm_test::decode_error;
using odm_test::doc_from_json;

TEST(Adversary29RecordCode, SchemaVersionsWriteTheVersionLastAndUpgradeOlderDocuments) {
  const PriceV2 price{4, "pen", odm::Decimal("1.25"), {}};
  EXPECT_EQ(canonical(odm::to_bson(price)),
            canonical(R"({"_id": {"$numberLong": "4"}, "name": "pen", "amount": {"$numberDecimal": "1.25"},
                          "schema_version": {"$numberInt": "2"}})"));
  // A document without a version is at version 1: upgraded through the typed step, whose
  // old shape (declared too) keeps the unknown field in its Extra.
  const PriceV2 old = odm::from_bson<PriceV2>(
      doc_from_json(R"({"cents": {"$numberLong": "125"}, "shelf": "A", "name": "cap", "_id": {"$numberLong": "5"}})"));
  EXPECT_EQ(old.id, 5);
  EXPECT_EQ(old.name, "cap");
  EXPECT_EQ(old.amount, odm::Decimal("1.25"));
  EXPECT_EQ(canonical(old.rest.fields()), canonical(R"({"shelf": "A"})"));
  // At the current version: read as it is, the version field is not an unknown field.
  const PriceV2 current = odm::from_bson<PriceV2>(doc_from_json(
      R"({"_id": {"$numberLong": "6"}, "name": "ink", "amount": {"$numberDecimal": "2.50"}, "schema_version": 2})"));
  EXPECT_EQ(current.amount, odm::Decimal("2.50"));
  EXPECT_EQ(current.rest.size(), 0U);
  EXPECT_EQ(decode_error<PriceV2>(R"({"_id": 1, "name": "x", "amount": "2", "schema_version": 2})"),
            "amount: expected decimal, got string");
}

TEST(Adversary29RecordCode, AStrictModelRefusesUnknownFieldsAtBothLevels) {
  EXPECT_EQ(odm::from_bson<Gauge>(doc_from_json(R"({"value": 2.5, "name": "t"})")), (Gauge{"t", 2.5}));
  EXPECT_EQ(decode_error<Gauge>(R"({"name": "t", "value": 1.0, "unit": "C"})"),
            "unit: unknown field (the model is strict)");
  EXPECT_EQ(decode_error<Gauge>(R"({"unit": "C", "name": "t", "value": 1.0})"),
            "unit: unknown field (the model is strict)");
  EXPECT_EQ(decode_error<Box<Gauge>>(R"({"value": {"name": "t", "value": 1.0, "unit": "C"}, "label": "l"})"),
            "value.unit: unknown field (the model is strict)");
}

TEST(Adversary29RecordCode, ARecursiveStructEncodesAndDecodesEveryLevel) {
  const Node tree{"root", {{"a", {{"a1", {}}}}, {"b", {}}}};
  EXPECT_EQ(canonical(odm::to_bson(tree)), canonical(R"({"name": "root", "children": [
      {"name": "a", "children": [{"name": "a1", "children": []}]}, {"name": "b", "children": []}]})"));
  EXPECT_EQ(odm::from_bson<Node>(odm::to_bson(tree)), tree);
  EXPECT_EQ(decode_error<Node>(R"({"name": "r", "children": [{"name": "a", "children": [{"children": []}]}]})"),
            "children.0.children.0.name: missing required field");
  // Fields in another order, deep down.
  EXPECT_EQ(odm::from_bson<Node>(doc_from_json(R"({"children": [{"children": [], "name": "x"}], "name": "r"})")),
            (Node{"r", {{"x", {}}}}));
}

TEST(Adversary29RecordCode, VariantsOfDeclaredStructsPickTheAlternativeByShape) {
  const Drawing drawing{"d", {Circle{1.5}, Square{2.0}}};
  EXPECT_EQ(canonical(odm::to_bson(drawing)),
            canonical(R"({"title": "d", "shapes": [{"radius": 1.5}, {"side": 2.0}]})"));
  const Drawing read =
      odm::from_bson<Drawing>(doc_from_json(R"({"shapes": [{"side": 3.0}, {"radius": 4.0}], "title": "e"})"));
  EXPECT_EQ(read, (Drawing{"e", {Square{3.0}, Circle{4.0}}}));
}

TEST(Adversary29RecordCode, AClassTemplateAndAnEmptyStruct) {
  const Box<std::int32_t> box{7, "seven"};
  EXPECT_EQ(canonical(odm::to_bson(box)), canonical(R"({"value": {"$numberInt": "7"}, "label": "seven"})"));
  EXPECT_EQ(odm::from_bson<Box<std::int32_t>>(doc_from_json(R"({"label": "s", "value": 8})")),
            (Box<std::int32_t>{8, "s"}));
  EXPECT_EQ(decode_error<Box<std::int32_t>>(R"({"label": "s"})"), "value: missing required field");
  EXPECT_EQ(canonical(odm::to_bson(Nothing{})), canonical("{}"));
  // Unknown fields of a model that is not strict are ignored, even with no member at all.
  EXPECT_EQ(decode_error<Nothing>(R"({"a": 1, "b": {"c": [1, 2]}})"), "<no error>");
  EXPECT_EQ(canonical(odm::to_bson(Box<Nothing>{})), canonical(R"({"value": {}, "label": ""})"));
  EXPECT_EQ(decode_error<Box<Nothing>>(R"({"value": {"z": 1}, "label": ""})"), "<no error>");
}

std::string wide_json(int missing, bool reversed) {
  std::vector<std::string> fields;
  for (int i = 0; i < 70; ++i)
    if (i != missing)
      fields.push_back("\"m" + std::to_string(i) + "\": {\"$numberInt\": \"" + std::to_string(i * 3) + "\"}");
  if (reversed) std::reverse(fields.begin(), fields.end());
  std::string json = "{";
  for (std::size_t i = 0; i < fields.size(); ++i) json += (i == 0 ? "" : ", ") + fields[i];
  return json + "}";
}

TEST(Adversary29RecordCode, MoreThanSixtyFourMembers) {
  Wide wide;
  std::int32_t next = 0;
  boost::pfr::for_each_field(wide, [&](std::int32_t& member) {
    member = next;
    next += 3;
  });
  ASSERT_EQ(wide.m69, 207);
  EXPECT_EQ(canonical(odm::to_bson(wide)), canonical(wide_json(-1, false)));
  EXPECT_EQ(odm::from_bson<Wide>(doc_from_json(wide_json(-1, true))), wide);
  EXPECT_EQ(decode_error<Wide>(wide_json(65, true)), "m65: missing required field");
  EXPECT_EQ(decode_error<Wide>(wide_json(3, false)), "m3: missing required field");
  EXPECT_EQ(decode_error<Wide>(wide_json(69, false)), "m69: missing required field");
}

TEST(Adversary29RecordCode, EnumsMapsMoneyReferencesRenamesAndAnEmbeddedExtra) {
  Invoice invoice;
  invoice.id = 11;
  invoice.number = "F-1";
  invoice.tier = Tier::gold;
  invoice.counts = {{"b", 2}, {"a", 1}};
  invoice.tax = odm::Decimal("0.20");
  invoice.total = odm::Money("12.50", "EUR");
  invoice.customer = std::int64_t{3};
  invoice.cc = {std::int64_t{4}, std::int64_t{5}};
  invoice.note = Note{9, "hi", {}};
  invoice.boxes = {{1, "one"}};
  const std::string expected = canonical(R"({"_id": {"$numberLong": "11"}, "number": "F-1", "no": "F-1",
      "tier": "gold", "counts": {"a": {"$numberInt": "1"}, "b": {"$numberInt": "2"}},
      "tax": {"$numberDecimal": "0.20"}, "total": {"value": {"$numberDecimal": "12.50"}, "currency": "EUR"},
      "customer": {"$numberLong": "3"}, "cc": [{"$numberLong": "4"}, {"$numberLong": "5"}],
      "note": {"id": {"$numberInt": "9"}, "text": "hi"},
      "boxes": [{"value": {"$numberInt": "1"}, "label": "one"}]})");
  EXPECT_EQ(canonical(odm::to_bson(invoice)), expected);
  // Through Extended JSON and back.
  EXPECT_EQ(canonical(odm::to_bson(odm::from_json<Invoice>(odm::to_json(invoice)))), expected);

  // Any order, the old name, an embedded struct's unknown fields kept in its Extra and
  // written back where it is declared.
  const Invoice read = odm::from_bson<Invoice>(doc_from_json(R"({"boxes": [], "note": {"text": "t", "pin": 42,
      "id": 1}, "cc": [], "customer": {"$numberLong": "8"},
      "total": {"currency": "USD", "value": {"$numberDecimal": "1"}},
      "tax": {"$numberDecimal": "0"}, "counts": {}, "tier": "basic", "no": "old", "_id": {"$numberLong": "12"}})"));
  EXPECT_EQ(read.id, 12);
  EXPECT_EQ(read.number, "old");
  EXPECT_EQ(read.tier, Tier::basic);
  EXPECT_EQ(read.customer, odm::Ref<Customer>(std::int64_t{8}));
  EXPECT_EQ(read.total, odm::Money("1", "USD"));
  ASSERT_TRUE(read.note.has_value());
  EXPECT_EQ(read.note->id, 1);
  EXPECT_EQ(canonical(read.note->extra.fields()), canonical(R"({"pin": {"$numberInt": "42"}})"));
  const odm::Document again = odm::to_bson(read);
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, again.get(), "note"));
  uint32_t length = 0;
  const uint8_t* data = nullptr;
  bson_iter_document(&it, &length, &data);
  bson_t note;
  ASSERT_TRUE(bson_init_static(&note, data, length));
  EXPECT_EQ(canonical(&note), canonical(R"({"id": {"$numberInt": "1"}, "text": "t", "pin": {"$numberInt": "42"}})"));

  // Errors name their path through every declared codec.
  EXPECT_EQ(decode_error<Invoice>(R"({"_id": {"$numberLong": "1"}, "number": "n", "tier": "platinum", "counts": {},
      "tax": {"$numberDecimal": "0"}, "total": {"value": {"$numberDecimal": "1"}, "currency": "USD"},
      "customer": {"$numberLong": "1"}, "cc": [], "note": null, "boxes": []})"),
            "tier: \"platinum\" is not a name of this enum");
  EXPECT_EQ(decode_error<Invoice>(R"({"_id": {"$numberLong": "1"}, "number": "n", "tier": "gold", "counts": {"k": "v"},
      "tax": {"$numberDecimal": "0"}, "total": {"value": {"$numberDecimal": "1"}, "currency": "USD"},
      "customer": {"$numberLong": "1"}, "cc": [], "note": null, "boxes": [{"value": 1, "label": 2}]})"),
            "counts.k: expected int, got string");
}

TEST(Adversary29RecordCode, NamesValidAtOneLevelAreDeclaredAtThatLevel) {
  // A document: `id` is `_id`; renamed_from writes the old name "id" too, and reads it first.
  const Account account{5, "ext"};
  EXPECT_EQ(canonical(odm::to_bson(account)),
            canonical(R"({"_id": {"$numberLong": "5"}, "external": "ext", "id": "ext"})"));
  EXPECT_EQ(odm::from_bson<Account>(odm::to_bson(account)), account);
  EXPECT_EQ(odm::from_bson<Account>(doc_from_json(R"({"_id": {"$numberLong": "5"}, "id": "old"})")),
            (Account{5, "old"}));
  // Embedded: `id` stays `id`, and the member renamed "_id" is the sub-document's "_id".
  const Holder holder{1, {2, 3}};
  EXPECT_EQ(canonical(odm::to_bson(holder)),
            canonical(R"({"_id": {"$numberInt": "1"},
                          "copy": {"id": {"$numberInt": "2"}, "_id": {"$numberInt": "3"}}})"));
  EXPECT_EQ(odm::from_bson<Holder>(odm::to_bson(holder)), holder);
  EXPECT_EQ(decode_error<Holder>(R"({"_id": 1, "copy": {"_id": 3}})"), "copy.id: missing required field");
}

}  // namespace
}  // namespace adversary29

#endif
