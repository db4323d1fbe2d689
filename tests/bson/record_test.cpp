// The struct codec: declaration order on encode; on decode any field order, unknown
// fields ignored (by default), duplicates and missing required fields refused.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

/// Names that share lengths and first bytes: the lookup of a field read out of order finds
/// the names of the key's length, then compares their bytes.
struct Alike {
  std::int32_t ab;
  std::int32_t ac;
  std::int32_t ba;
  std::int32_t a;
  std::int32_t abc;
  std::int32_t b;
  std::int32_t bb;
  bool operator==(const Alike&) const = default;
};
struct StrictAlike {
  Alike alike;
  std::int32_t ad;
  bool operator==(const StrictAlike&) const = default;
  struct odm_model {
    static constexpr bool strict = true;
  };
};

/// `fields` as a JSON object, each after an unknown field (`unknown[i]`, cycling).
std::string alike_json(const std::vector<std::pair<std::string, int>>& fields, const std::vector<std::string>& unknown) {
  std::string json = "{";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (!unknown.empty()) json += "\"" + unknown[i % unknown.size()] + "\": 0, ";
    json += "\"" + fields[i].first + "\": " + std::to_string(fields[i].second) + (i + 1 < fields.size() ? ", " : "");
  }
  return json + "}";
}

TEST(Record, NamesOfOneLengthAndFirstByteAreToldApartInAnyOrder) {
  const std::vector<std::pair<std::string, int>> fields{{"ab", 1}, {"ac", 2}, {"ba", 3}, {"a", 4},
                                                        {"abc", 5}, {"b", 6}, {"bb", 7}};
  const Alike expected{1, 2, 3, 4, 5, 6, 7};
  // Unknown names of the same lengths and first bytes, and the empty name.
  const std::vector<std::string> unknown{"aa", "ad", "bc", "c", "abd", "", "ac0"};
  for (std::size_t shift = 0; shift < fields.size(); ++shift) {
    for (const bool reverse : {false, true}) {
      std::vector<std::pair<std::string, int>> order = fields;
      std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shift), order.end());
      if (reverse) std::reverse(order.begin(), order.end());
      const std::string plain = alike_json(order, {});
      EXPECT_EQ(decode<Alike>(plain), expected) << plain;
      const std::string mixed = alike_json(order, unknown);
      EXPECT_EQ(decode<Alike>(mixed), expected) << mixed;
      // A strict model refuses the first unknown name, whichever of its look-alikes is known.
      const std::string strict = R"({"ad": 8, "alike": )" + plain + R"(, "ab": 0})";
      EXPECT_EQ(decode_error<StrictAlike>(strict), "ab: unknown field (the model is strict)") << strict;
    }
  }
  // A duplicate is found under its own name, not a look-alike's.
  EXPECT_EQ(decode_error<Alike>(R"({"bb": 7, "ab": 1, "ac": 2, "ba": 3, "a": 4, "abc": 5, "b": 6, "ba": 3})"),
            "ba: field appears twice in the document");
  EXPECT_EQ(decode_error<Alike>(R"({"bb": 7, "ab": 1, "ac": 2, "a": 4, "abc": 5, "b": 6})"),
            "ba: missing required field");
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
