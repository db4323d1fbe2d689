// The struct codec: declaration order on encode; on decode any field order, unknown
// fields ignored (by default), duplicates and missing required fields refused.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace bson_record_test {

using odm_test::decode;
using odm_test::decode_error;
using odm_test::encoded;

struct Movie {
  std::int32_t id;
  std::string title;
  std::int32_t year;
  std::int32_t runtime;
  std::string type;
  std::optional<std::string> plot;
  bool operator==(const Movie&) const = default;
};

const Movie kTrain{1, "The Arrival of a Train", 1896, 1, "movie", std::nullopt};

struct Empty {
  bool operator==(const Empty&) const = default;
};

struct HasEmpty {
  Empty nothing;
  std::int32_t n;
  bool operator==(const HasEmpty&) const = default;
};

TEST(Record, EncodesInDeclarationOrder) {
  EXPECT_EQ(encoded(kTrain), odm_test::canonical(R"({"_id": {"$numberInt": "1"}, "title": "The Arrival of a Train",
      "year": {"$numberInt": "1896"}, "runtime": {"$numberInt": "1"}, "type": "movie", "plot": null})"));
}

TEST(Record, DecodesFieldsInAnyOrder) {
  // Reversed, shuffled, and with the last field first: the fallback lookup path.
  EXPECT_EQ(decode<Movie>(R"({"plot": null, "type": "movie", "runtime": 1, "year": 1896,
                              "title": "The Arrival of a Train", "_id": 1})"),
            kTrain);
  EXPECT_EQ(decode<Movie>(R"({"year": 1896, "_id": 1, "type": "movie", "title": "The Arrival of a Train",
                              "runtime": 1})"),
            kTrain);
  EXPECT_EQ(decode<Movie>(R"({"runtime": 1, "year": 1896, "type": "movie", "_id": 1,
                              "title": "The Arrival of a Train"})"),
            kTrain);
}

TEST(Record, UnknownFieldsInterleavedAreIgnored) {
  EXPECT_EQ(decode<Movie>(R"({"x0": 1, "_id": 1, "x1": {"deep": [1, 2, {"a": null}]}, "title": "The Arrival of a Train",
                              "year": 1896, "zzz": "after", "runtime": 1, "_": true, "type": "movie",
                              "Title": "case differs", "title2": 5, "plot": null, "last": {"$oid": "612d1e835ebee16872a109a4"}})"),
            kTrain);
  // Unknown fields in any order mixed with known ones in any order.
  EXPECT_EQ(decode<Movie>(R"({"type": "movie", "aaa": 0, "title": "The Arrival of a Train", "runtime": 1,
                              "zzz": 0, "_id": 1, "year": 1896, "id": 99})"),
            kTrain);
}

TEST(Record, InOrderThenUnknownOrRepeatedFieldsAfterTheLastMember) {
  // Every member in declaration order (the fast path), then more fields.
  EXPECT_EQ(decode<Movie>(R"({"_id": 1, "title": "The Arrival of a Train", "year": 1896, "runtime": 1,
                              "type": "movie", "plot": null, "extra": 1, "more": [1]})"),
            kTrain);
  EXPECT_EQ(decode_error<Movie>(R"({"_id": 1, "title": "The Arrival of a Train", "year": 1896, "runtime": 1,
                                    "type": "movie", "plot": null, "year": 1897})"),
            "year: field appears twice in the document");
  // In order up to the middle, then out of order, then back in order.
  EXPECT_EQ(decode<Movie>(R"({"_id": 1, "title": "The Arrival of a Train", "type": "movie", "plot": null,
                              "year": 1896, "runtime": 1})"),
            kTrain);
  EXPECT_EQ(decode_error<Movie>(R"({"_id": 1, "title": "The Arrival of a Train", "_id": 2, "year": 1896,
                                    "runtime": 1, "type": "movie"})"),
            "_id: field appears twice in the document");
}

TEST(Record, DuplicateFieldIsAnError) {
  EXPECT_EQ(decode_error<Movie>(R"({"_id": 1, "title": "a", "title": "b", "year": 1896, "runtime": 1,
                                    "type": "movie"})"),
            "title: field appears twice in the document");
  EXPECT_EQ(decode_error<Movie>(R"({"_id": 1, "title": "a", "year": 1896, "runtime": 1, "type": "movie",
                                    "_id": 2})"),
            "_id: field appears twice in the document");
  // Also for optional members, and inside embedded documents.
  EXPECT_EQ(decode_error<Movie>(R"({"_id": 1, "plot": null, "title": "a", "year": 1896, "runtime": 1,
                                    "type": "movie", "plot": "x"})"),
            "plot: field appears twice in the document");
  EXPECT_EQ(decode_error<HasEmpty>(R"({"nothing": {}, "n": 1, "n": 1})"), "n: field appears twice in the document");
}

TEST(Record, MissingRequiredFieldIsAnErrorNamingIt) {
  EXPECT_EQ(decode_error<Movie>(R"({"_id": 1, "title": "a", "runtime": 1, "type": "movie"})"),
            "year: missing required field");
  EXPECT_EQ(decode_error<Movie>(R"({})"), "_id: missing required field");
  EXPECT_EQ(decode_error<Movie>(R"({"_id": 1, "title": "a", "year": 1, "runtime": 1})"),
            "type: missing required field");
  EXPECT_EQ(decode_error<HasEmpty>(R"({"n": 1})"), "nothing: missing required field");
  // The optional member may be missing.
  EXPECT_EQ(decode<Movie>(R"({"_id": 1, "title": "The Arrival of a Train", "year": 1896, "runtime": 1,
                              "type": "movie"})"),
            kTrain);
}

TEST(Record, EmptyStruct) {
  EXPECT_EQ(encoded(Empty{}), odm_test::canonical(R"({})"));
  EXPECT_EQ(decode<Empty>(R"({"anything": 1})"), Empty{});
  EXPECT_EQ(encoded(HasEmpty{{}, 3}), odm_test::canonical(R"({"nothing": {}, "n": {"$numberInt": "3"}})"));
  EXPECT_EQ(odm_test::round_trip(HasEmpty{{}, 3}), (HasEmpty{{}, 3}));
}

TEST(Record, TopLevelMustBeADocumentOfTheRightShape) {
  EXPECT_EQ(decode_error<HasEmpty>(R"({"nothing": 5, "n": 1})"), "nothing: expected object, got int");
}

TEST(Record, EncodeIntoAppendsToAnExistingDocument) {
  odm::Document doc = odm_test::doc_from_json(R"({"before": 1})");
  odm::encode_into(doc.get_mutable(), kTrain);
  EXPECT_EQ(odm_test::canonical(doc),
            odm_test::canonical(R"({"before": 1, "_id": 1, "title": "The Arrival of a Train", "year": 1896,
                                    "runtime": 1, "type": "movie", "plot": null})"));
}

TEST(Record, DocumentsAreEqualByBytes) {
  EXPECT_EQ(odm::to_bson(kTrain), odm::to_bson(kTrain));
  Movie other = kTrain;
  other.year = 1897;
  EXPECT_NE(odm::to_bson(kTrain), odm::to_bson(other));
}

}  // namespace bson_record_test
