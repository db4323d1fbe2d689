// Schema versions (odm/evolution/versions.hpp), without a server: lazy upgrades on read
// from each older version through chained steps, the version written, failing steps and
// hostile stored versions. The money guide's migration (NumberLong cents and decimal
// strings to Decimal128) is one of the steps.

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace versions_test {
namespace {

// Version 1: the total in NumberLong cents (the money guide's scale factor).
struct OrderV1 {
  std::int64_t id = 0;
  std::string customer;
  std::int64_t total_cents = 0;
  odm::Extra rest;
};
// Version 2: `total_cents` renamed `total` (still cents, or a decimal string written by
// another program), and a channel.
struct OrderV2 {
  std::int64_t id = 0;
  std::string customer;
  odm::DecimalFromLegacy<100> total;
  std::string channel = "web";
  odm::Extra rest;
};
// Version 3's shape: the total as Decimal128.
struct OrderV3 {
  std::int64_t id = 0;
  std::string customer;
  odm::Decimal total;
  std::string channel = "web";
  odm::Extra rest;
};

OrderV2 rename_total(const OrderV1& old) {
  return OrderV2{old.id, old.customer, odm::Decimal(old.total_cents, -2), "web", old.rest};
}
OrderV3 total_to_decimal(const OrderV2& old) { return OrderV3{old.id, old.customer, old.total.value(), old.channel, old.rest}; }

// The model: version 3.
struct Order {
  std::int64_t id = 0;
  std::string customer;
  odm::Decimal total;
  std::string channel = "web";
  odm::Extra rest;
  struct odm_model {
    static constexpr auto schema =
        odm::schema_versions<3>(odm::upgrade<1>(&rename_total), odm::upgrade<2>(&total_to_decimal));
  };
};

// The same, also reading documents of versions newer than 3.
struct TolerantOrder {
  std::int64_t id = 0;
  std::string customer;
  odm::Decimal total;
  std::string channel = "web";
  struct odm_model {
    static constexpr auto schema =
        odm::schema_versions<3>(odm::upgrade<1>(&rename_total), odm::upgrade<2>(&total_to_decimal)).reading_newer();
  };
};

// A strict model with a version and a document step.
odm::Document add_flag(const odm::Document& stored) {
  odm::Document next = stored;
  bson_append_bool(next.get_mutable(), "flag", 4, true);
  return next;
}
struct Strict {
  std::int64_t id = 0;
  bool flag = false;
  struct odm_model {
    static constexpr bool strict = true;
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&add_flag));
  };
};

struct Plain {
  std::int64_t id = 0;
  std::string name;
};

std::string canonical(const odm::Document& document) { return document.to_canonical_json(); }
std::string canonical(std::string_view json) { return odm::Document::from_json(json).to_canonical_json(); }
odm::Document json(std::string_view text) { return odm::Document::from_json(text); }

TEST(SchemaVersions, AVersionOneDocumentIsUpgradedThroughEveryStep) {
  const Order order = odm::from_bson<Order>(
      json(R"({"_id": 1, "customer": "ana", "total_cents": {"$numberLong": "1999"}, "note": "gift"})"));
  EXPECT_EQ(order.customer, "ana");
  EXPECT_EQ(order.total, odm::Decimal("19.99"));
  EXPECT_EQ(order.channel, "web");
  EXPECT_TRUE(order.rest.contains("note")) << "a field no version declares is carried by the steps' Extra";
  EXPECT_FALSE(order.rest.contains("total_cents"));
}

TEST(SchemaVersions, AVersionTwoDocumentTakesOnlyTheLastStep) {
  const Order cents = odm::from_bson<Order>(
      json(R"({"_id": 2, "customer": "bo", "total": {"$numberLong": "550"}, "channel": "app", "schema_version": 2})"));
  EXPECT_EQ(cents.total, odm::Decimal("5.50"));
  EXPECT_EQ(cents.channel, "app");
  const Order text = odm::from_bson<Order>(
      json(R"({"_id": 3, "customer": "cy", "total": "80.00", "channel": "shop", "schema_version": 2})"));
  EXPECT_EQ(text.total, odm::Decimal("80.00"));
  EXPECT_EQ(text.total.to_string(), "80.00") << "the string's places are kept";
}

TEST(SchemaVersions, ACurrentDocumentIsReadAsItIsAndTheVersionIsNotAnUnknownField) {
  const odm::Document stored =
      json(R"({"_id": {"$numberLong": "4"}, "customer": "di", "total": {"$numberDecimal": "1.50"}, "channel": "app", "schema_version": 3})");
  const Order order = odm::from_bson<Order>(stored);
  EXPECT_EQ(order.total, odm::Decimal("1.50"));
  EXPECT_TRUE(order.rest.empty()) << "schema_version is not kept in the Extra";
  EXPECT_EQ(canonical(odm::to_bson(order)), canonical(stored)) << "re-encoding writes the version once, last";
}

TEST(SchemaVersions, EveryDocumentIsWrittenAtTheCurrentVersionAndPlainModelsCarryNone) {
  EXPECT_EQ(canonical(odm::to_bson(Order{5, "ed", odm::Decimal("2.00"), "web", {}})),
            canonical(R"({"_id": {"$numberLong": "5"}, "customer": "ed", "total": {"$numberDecimal": "2.00"},
                          "channel": "web", "schema_version": 3})"));
  const Order upgraded = odm::from_bson<Order>(json(R"({"_id": 6, "customer": "fa", "total_cents": 5})"));
  bson_iter_t it;
  const odm::Document written = odm::to_bson(upgraded);
  ASSERT_TRUE(bson_iter_init_find(&it, written.get(), "schema_version"));
  EXPECT_EQ(bson_iter_int32(&it), 3);
  EXPECT_FALSE(bson_iter_init_find(&it, written.get(), "total_cents"));
  EXPECT_EQ(canonical(odm::to_bson(Plain{1, "x"})), canonical(R"({"_id": {"$numberLong": "1"}, "name": "x"})"));
}

TEST(SchemaVersions, AStrictModelAcceptsItsVersionFieldAndADocumentStepRuns) {
  EXPECT_TRUE(odm::from_bson<Strict>(json(R"({"_id": 1})")).flag);
  EXPECT_FALSE(odm::from_bson<Strict>(json(R"({"_id": 1, "flag": false, "schema_version": 2})")).flag);
  EXPECT_THROW((void)odm::from_bson<Strict>(json(R"({"_id": 1, "flag": false, "other": 1, "schema_version": 2})")),
               odm::DecodeError);
}

std::string error_of(const odm::Document& stored) {
  try {
    (void)odm::from_bson<Order>(stored);
  } catch (const odm::SchemaVersionError& e) {
    return e.what();
  }
  return "<no SchemaVersionError>";
}

TEST(SchemaVersions, AFailingStepNamesTheDocumentAndTheVersions) {
  const odm::Document stored =
      json(R"({"_id": 7, "customer": "gus", "total": "not a number", "schema_version": 2})");
  try {
    (void)odm::from_bson<Order>(stored);
    FAIL() << "a step that cannot read the document must fail";
  } catch (const odm::SchemaVersionError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(R"("_id" : 7)"), std::string::npos) << message;
    EXPECT_NE(message.find("from schema version 2 to 3"), std::string::npos) << message;
    EXPECT_NE(message.find("step from 2 to 3"), std::string::npos) << message;
    EXPECT_NE(message.find("total"), std::string::npos) << "the step's own error says which field: " << message;
    EXPECT_EQ(e.stored_version(), 2);
    EXPECT_EQ(e.model_version(), 3);
  }
  // A SchemaVersionError is a DecodeError, so a cursor can skip such a document.
  EXPECT_THROW((void)odm::from_bson<Order>(stored), odm::DecodeError);
}

TEST(SchemaVersions, HostileStoredVersionsAreRefusedWithAReason) {
  const auto with_version = [](std::string_view version) {
    return json(std::string(R"({"_id": 8, "customer": "h", "total": {"$numberDecimal": "1"}, "channel": "c", "schema_version": )") +
                std::string(version) + "}");
  };
  EXPECT_NE(error_of(with_version(R"("3")")).find("expected an int32 or int64 version, got string"), std::string::npos)
      << error_of(with_version(R"("3")"));
  EXPECT_NE(error_of(with_version("3.0")).find("got double"), std::string::npos);
  EXPECT_NE(error_of(with_version("null")).find("got null"), std::string::npos);
  EXPECT_NE(error_of(with_version("-1")).find("version -1 is older than any this model upgrades (from 1 to 3)"),
            std::string::npos)
      << error_of(with_version("-1"));
  EXPECT_NE(error_of(with_version("0")).find("version 0 is older"), std::string::npos);
  EXPECT_NE(error_of(with_version("4")).find("version 4 is newer than this model's (3)"), std::string::npos)
      << error_of(with_version("4"));
  EXPECT_NE(error_of(with_version(R"({"$numberLong": "9223372036854775807"})")).find("is newer"), std::string::npos);
  // A second schema_version, equal or not, is refused: another reader would take it instead.
  for (const char* twice : {R"(3, "schema_version": 3)", R"(1, "schema_version": 3)", R"(3, "schema_version": "x")"}) {
    EXPECT_NE(error_of(with_version(twice)).find("schema_version: field appears twice in the document"),
              std::string::npos)
        << error_of(with_version(twice));
  }
  // An int64 version in range is read like an int32 one.
  EXPECT_EQ(odm::from_bson<Order>(with_version(R"({"$numberLong": "3"})")).total, odm::Decimal("1"));
  // A model that reads newer documents decodes them as they are.
  const TolerantOrder newer = odm::from_bson<TolerantOrder>(with_version("4"));
  EXPECT_EQ(newer.customer, "h");
  EXPECT_THROW((void)odm::from_bson<TolerantOrder>(with_version("0")), odm::SchemaVersionError);
}

TEST(SchemaVersions, UpgradedGivesTheStoredShapeOfTheCurrentVersion) {
  constexpr const auto& schema = odm::detail::metadata_t<Order>::schema;
  const odm::Document old = json(R"({"_id": 9, "customer": "i", "total_cents": 250, "note": 1})");
  EXPECT_EQ(schema.version_of(old.get()), 1) << "a document without a version is at the oldest one";
  EXPECT_EQ(canonical(schema.upgraded(old.get())),
            canonical(R"({"_id": {"$numberLong": "9"}, "customer": "i", "total": {"$numberDecimal": "2.50"},
                          "channel": "web", "note": 1, "schema_version": 3})"));
}

}  // namespace
}  // namespace versions_test
