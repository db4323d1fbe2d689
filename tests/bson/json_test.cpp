// to_json / from_json: relaxed Extended JSON out, relaxed or canonical in.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace bson_json_test {

struct Student {
  odm::ObjectId id;
  std::string name;
  std::int32_t points;
  std::int64_t big;
  double score;
  std::chrono::sys_days enrolled;
  std::vector<std::string> tags;
  std::optional<std::string> note;
  bool operator==(const Student&) const = default;
};

const Student kSammy{odm_test::oid("612d1e835ebee16872a109a4"), "Sammy", 7, 5'000'000'000, 2.5,
                     odm_test::day(2020, 1, 23), {"a", "b"}, std::nullopt};

struct Loose {
  std::optional<std::int32_t> a;
  bool operator==(const Loose&) const = default;
};

TEST(Json, ToJsonIsRelaxedExtendedJson) {
  EXPECT_EQ(odm::to_json(kSammy),
            R"({ "_id" : { "$oid" : "612d1e835ebee16872a109a4" }, "name" : "Sammy", "points" : 7, )"
            R"("big" : 5000000000, "score" : 2.5, "enrolled" : { "$date" : "2020-01-23T00:00:00Z" }, )"
            R"("tags" : [ "a", "b" ], "note" : null })");
}

TEST(Json, FromJsonReadsRelaxedAndCanonical) {
  EXPECT_EQ(odm::from_json<Student>(odm::to_json(kSammy)), kSammy);
  EXPECT_EQ(odm::from_json<Student>(odm::to_bson(kSammy).to_canonical_json()), kSammy);
  EXPECT_EQ(odm::from_json<Student>(R"({"_id": {"$oid": "612d1e835ebee16872a109a4"}, "name": "Sammy",
      "points": 7, "big": 5000000000, "score": 2.5, "enrolled": {"$date": "2020-01-23T00:00:00Z"},
      "tags": ["a", "b"]})"),
            kSammy);
}

TEST(Json, InvalidJsonIsAJsonError) {
  for (const char* text : {"", "{", "{\"a\": }", "not json", "{\"a\": 1,}", "{a: 1}", "{\"a\": 'x'}",
                           "{\"a\": {\"$oid\": \"xyz\"}}", "{\"a\": {\"$numberInt\": \"1.5\"}}"}) {
    SCOPED_TRACE(text);
    EXPECT_THROW((void)odm::from_json<Loose>(text), odm::JsonError);
  }
  try {
    (void)odm::from_json<Loose>("{");
  } catch (const odm::JsonError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("invalid Extended JSON: ", 0), 0u);
  }
  // A JsonError is an odm::Error, not a DecodeError.
  EXPECT_THROW((void)odm::from_json<Loose>("{"), odm::Error);
}

TEST(Json, ValidJsonOfTheWrongShapeIsADecodeError) {
  EXPECT_EQ(odm_test::error_of([] { (void)odm::from_json<Loose>(R"({"a": "x"})"); }), "a: expected int, got string");
  EXPECT_THROW((void)odm::from_json<Student>(R"({"name": "x"})"), odm::DecodeError);
}

TEST(Json, TrailingTextAfterTheDocumentIsAJsonError) {
  // libbson's bson_new_from_json reads the first document and ignores what follows;
  // odm::from_json promises JsonError for text that is not (one) Extended JSON document.
  EXPECT_THROW((void)odm::from_json<Loose>(R"({"a": 1} {"a": 2})"), odm::JsonError);
  EXPECT_THROW((void)odm::from_json<Loose>(R"({"a": 1}{"b": 2})"), odm::JsonError);
}

TEST(Json, TopLevelArrayIsNotADocument) {
  // libbson turns `[1, 2]` into the document {"0": 1, "1": 2}.
  EXPECT_THROW((void)odm::from_json<Loose>(R"([1, 2])"), odm::Error);
}

TEST(Json, StringViewNeedNotBeNulTerminated) {
  const std::string text = R"({"a": 5}garbage)";
  EXPECT_EQ(odm::from_json<Loose>(std::string_view(text).substr(0, 8)), Loose{5});
}

}  // namespace bson_json_test
