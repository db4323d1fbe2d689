// odm::Extra: the fields a model does not declare are read into it and written back
// unchanged (same order, same BSON types, same bytes), at the top level and inside
// embedded documents.

#include "test_support.hpp"

#include <odm/evolution/extra.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace extra_test {

struct Line {
  std::string sku;
  std::int32_t qty = 0;
  odm::Extra extra;
};

/// v1 of an order, which knows fewer fields than the documents it reads.
struct OrderV1 {
  std::int64_t id = 0;
  std::string customer;
  std::vector<Line> lines;
  odm::Extra extra;
};

/// The Extra member in the middle: declared fields before and after it.
struct Middle {
  std::int32_t a = 0;
  odm::Extra rest;
  std::int32_t b = 0;
};

constexpr const char* v2_document = R"({
  "_id": {"$numberLong": "7"},
  "customer": "ana",
  "lines": [{"sku": "x", "qty": 2, "gift": true, "price": {"$numberDecimal": "9.99"}}],
  "channel": "shop",
  "placed": {"$date": {"$numberLong": "1550448000000"}},
  "extra": {"a": 1},
  "score": {"$numberLong": "12"},
  "ratio": 0.5,
  "tags": ["a", {"b": null}]
})";

TEST(Extra, UnknownFieldsAreKeptAndWrittenBackUnchanged) {
  const odm::Document stored = odm_test::doc_from_json(v2_document);
  const OrderV1 order = odm::from_bson<OrderV1>(stored);
  EXPECT_EQ(order.customer, "ana");
  EXPECT_EQ(order.extra.size(), 6u);
  EXPECT_TRUE(order.extra.contains("channel"));
  EXPECT_TRUE(order.extra.contains("extra")) << "a field named like the Extra member is an unknown field too";
  EXPECT_FALSE(order.extra.contains("customer"));
  ASSERT_EQ(order.lines.size(), 1u);
  EXPECT_EQ(order.lines[0].extra.size(), 2u);
  // Declared fields first, then the kept ones, each level in its own order: here that is
  // the stored document, byte for byte (same order, same BSON types).
  EXPECT_EQ(odm::to_bson(order), stored) << odm::to_bson(order).to_canonical_json();
}

TEST(Extra, ChangesToDeclaredMembersKeepTheUnknownFields) {
  OrderV1 order = odm_test::decode<OrderV1>(v2_document);
  order.customer = "bo";
  order.lines.push_back(Line{"y", 1, {}});
  const OrderV1 again = odm::from_bson<OrderV1>(odm::to_bson(order));
  EXPECT_EQ(again.customer, "bo");
  EXPECT_EQ(again.extra, order.extra);
  EXPECT_EQ(again.lines[0].extra, order.lines[0].extra);
  EXPECT_TRUE(again.lines[1].extra.empty());
  EXPECT_EQ(odm_test::canonical(again.extra.fields()),
            odm_test::canonical(R"({"channel": "shop", "placed": {"$date": {"$numberLong": "1550448000000"}},
                                    "extra": {"a": 1}, "score": {"$numberLong": "12"}, "ratio": 0.5,
                                    "tags": ["a", {"b": null}]})"));
}

TEST(Extra, ADocumentWithoutUnknownFieldsLeavesItEmpty) {
  const auto order = odm_test::decode<OrderV1>(R"({"_id": 1, "customer": "a", "lines": []})");
  EXPECT_TRUE(order.extra.empty());
  EXPECT_EQ(odm_test::encoded(order),
            odm_test::canonical(R"({"_id": {"$numberLong": "1"}, "customer": "a", "lines": []})"));
}

TEST(Extra, FieldsInAnyOrderAroundAnExtraInTheMiddle) {
  const auto in_order = odm_test::decode<Middle>(R"({"a": 1, "x": "u", "b": 2, "y": 3})");
  EXPECT_EQ(in_order.a, 1);
  EXPECT_EQ(in_order.b, 2);
  EXPECT_EQ(odm_test::canonical(in_order.rest.fields()), odm_test::canonical(R"({"x": "u", "y": 3})"));
  EXPECT_EQ(odm_test::encoded(in_order), odm_test::canonical(R"({"a": 1, "x": "u", "y": 3, "b": 2})"));
  const auto shuffled = odm_test::decode<Middle>(R"({"y": 3, "b": 2, "rest": 0, "a": 1})");
  EXPECT_EQ(shuffled.a, 1);
  EXPECT_EQ(shuffled.b, 2);
  EXPECT_EQ(odm_test::canonical(shuffled.rest.fields()), odm_test::canonical(R"({"y": 3, "rest": 0})"));
  EXPECT_EQ(odm_test::decode_error<Middle>(R"({"a": 1})"), "b: missing required field")
      << "the Extra member keeps nothing from a missing field, and asks for none";
}

TEST(Extra, ClearForgetsTheKeptFields) {
  OrderV1 order = odm_test::decode<OrderV1>(v2_document);
  order.extra.clear();
  EXPECT_TRUE(order.extra.empty());
  EXPECT_FALSE(bson_has_field(odm::to_bson(order).get(), "channel"));
}

TEST(Extra, ABadUnknownFieldIsStillRefused) {
  // Kept fields are checked like any other: invalid UTF-8 in a kept string is refused.
  odm::Document document;
  bson_append_utf8(document.get_mutable(), "customer", -1, "a", -1);
  bson_append_utf8(document.get_mutable(), "note", -1, "\xff\xfe", 2);
  EXPECT_EQ(odm_test::error_of([&] { (void)odm::from_bson<OrderV1>(document); }).rfind("note: ", 0), 0u)
      << odm_test::error_of([&] { (void)odm::from_bson<OrderV1>(document); });
}

}  // namespace extra_test
