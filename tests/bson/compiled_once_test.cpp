// Models whose codecs are compiled once, in another file (odm::document_code and
// odm::embedded_code, README "Compiling a model once"): this file only declares them
// (compiled_once_models.hpp), and encodes and decodes exactly as a file that compiles its
// own.

#include "bson/compiled_once_models.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <string>

namespace compiled_once_test {
namespace {

using odm_test::canonical;
using odm_test::decode_error;

const Order kOrder{7, "Ada", {{"pen", 2, std::nullopt}, {"ink", 1, "blue"}}, {}};

/// Not declared elsewhere: compiled here, with an Order and Lines inside it, whose codecs
/// come from compiled_once_instances.cpp.
struct Shipment {
  std::string carrier;
  Order order;
  std::vector<Line> extra_lines;
  friend bool operator==(const Shipment&, const Shipment&) = default;
};

TEST(CompiledOnce, AModelCompiledElsewhereEncodesAndDecodesAsAnyOther) {
  const odm::Document document = odm::to_bson(kOrder);
  // `customer` is written under its older name too while odm::renamed_from says so.
  EXPECT_EQ(canonical(document), canonical(R"({"_id": {"$numberLong": "7"}, "customer": "Ada", "buyer": "Ada",
      "lines": [{"sku": "pen", "quantity": {"$numberInt": "2"}, "note": null},
                {"sku": "ink", "quantity": {"$numberInt": "1"}, "note": "blue"}]})"));
  EXPECT_EQ(odm::from_bson<Order>(document), kOrder);
}

TEST(CompiledOnce, EmbeddedInAStructCompiledHere) {
  const Shipment shipment{"post", kOrder, {{"box", 1, std::nullopt}}};
  const odm::Document document = odm::to_bson(shipment);
  // Embedded, the order keeps `id` under its own name: only a whole document has `_id`.
  EXPECT_EQ(canonical(document), canonical(R"({"carrier": "post",
      "order": {"id": {"$numberLong": "7"}, "customer": "Ada", "buyer": "Ada",
                "lines": [{"sku": "pen", "quantity": {"$numberInt": "2"}, "note": null},
                          {"sku": "ink", "quantity": {"$numberInt": "1"}, "note": "blue"}]},
      "extra_lines": [{"sku": "box", "quantity": {"$numberInt": "1"}, "note": null}]})"));
  EXPECT_EQ(odm::from_bson<Shipment>(document), shipment);
}

TEST(CompiledOnce, AnyOrderUnknownFieldsRenamesAndErrors) {
  // Another order, an old name, unknown fields kept by the Extra member.
  const Order read = odm::from_bson<Order>(odm_test::doc_from_json(
      R"({"lines": [{"quantity": 3, "sku": "cap"}], "shelf": "B2", "buyer": "Grace", "_id": 9})"));
  EXPECT_EQ(read.id, 9);
  EXPECT_EQ(read.customer, "Grace");
  EXPECT_EQ(read.lines, (std::vector<Line>{{"cap", 3, std::nullopt}}));
  EXPECT_EQ(canonical(read.extra.fields()), canonical(R"({"shelf": "B2"})"));
  // Errors name their path through the codecs compiled elsewhere.
  EXPECT_EQ(decode_error<Order>(R"({"_id": 1, "customer": "x", "lines": [{"sku": "a", "quantity": "2"}]})"),
            "lines.0.quantity: expected int, got string");
  EXPECT_EQ(decode_error<Shipment>(R"({"carrier": "c", "order": {"id": 1, "customer": "x", "lines": [{}]},
                                       "extra_lines": []})"),
            "order.lines.0.sku: missing required field");
}

}  // namespace
}  // namespace compiled_once_test
