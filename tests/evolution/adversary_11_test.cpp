// Adversarial probes of issue 11 that need no server, written from the README's "Models
// that change": odm::Extra with renamed members, every BSON type, duplicate keys and huge
// documents; odm::changes_between on nested arrays, Extra sub-documents whose keys cannot be
// path steps, and documents nested far deeper than odm's models.

#include "test_support.hpp"

#include <odm/evolution/changes.hpp>
#include <odm/evolution/extra.hpp>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace adversary_11 {
namespace {

/// `title` is stored as "book_title": a stored field named "title" is an unknown one.
struct Renamed {
  std::int64_t id = 0;
  std::string title;
  odm::Extra extra;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::rename(&Renamed::title, "book_title"));
  };
};

TEST(Adversary11Extra, AStoredFieldNamedLikeARenamedMembersCppNameIsKeptNotRead) {
  const odm::Document stored =
      odm_test::doc_from_json(R"({"_id": {"$numberLong": "1"}, "book_title": "real", "title": "imposter"})");
  const auto book = odm::from_bson<Renamed>(stored);
  EXPECT_EQ(book.title, "real");
  ASSERT_TRUE(book.extra.contains("title"));
  EXPECT_FALSE(book.extra.contains("book_title"));
  EXPECT_EQ(odm::to_bson(book), stored) << odm::to_bson(book).to_canonical_json();
}

/// Every BSON type libbson writes, as an unknown field: each is written back with the same
/// type and bytes, in the stored order.
TEST(Adversary11Extra, EveryBsonTypeIsKeptByteForByte) {
  odm::Document stored;
  bson_t* d = stored.get_mutable();
  bson_append_int64(d, "_id", -1, 5);
  bson_append_utf8(d, "book_title", -1, "t", -1);
  bson_append_double(d, "dbl", -1, -0.0);
  bson_append_int32(d, "i32", -1, -7);
  bson_append_int64(d, "i64", -1, INT64_MIN);
  bson_decimal128_t dec;
  bson_decimal128_from_string("-0E+12", &dec);
  bson_append_decimal128(d, "dec", -1, &dec);
  const std::uint8_t bytes[] = {0, 1, 2, 255};
  bson_append_binary(d, "bin", -1, BSON_SUBTYPE_USER, bytes, 4);
  bson_append_binary(d, "old", -1, BSON_SUBTYPE_BINARY_DEPRECATED, bytes, 4);
  bson_append_regex(d, "re", -1, "^a.*", "imsx");
  bson_append_timestamp(d, "ts", -1, 4000000000u, 7);
  bson_append_minkey(d, "min", -1);
  bson_append_maxkey(d, "max", -1);
  bson_append_undefined(d, "undef", -1);
  bson_append_symbol(d, "sym", -1, "s", -1);
  bson_append_code(d, "code", -1, "function() {}");
  bson_t scope;
  bson_init(&scope);
  bson_append_int32(&scope, "x", -1, 1);
  bson_append_code_with_scope(d, "cws", -1, "x", &scope);
  bson_destroy(&scope);
  bson_oid_t oid;
  bson_oid_init_from_string(&oid, "0123456789abcdef01234567");
  bson_append_dbpointer(d, "ptr", -1, "db.coll", &oid);
  bson_append_date_time(d, "when", -1, -62135596800000);
  bson_append_null(d, "nothing", -1);
  bson_append_bool(d, "yes", -1, true);
  bson_append_utf8(d, "nul", -1, "a\0b", 3);
  bson_t sub;
  bson_append_document_begin(d, "sub", -1, &sub);
  bson_append_int32(&sub, "z", -1, 1);
  bson_append_int32(&sub, "a", -1, 2);
  bson_append_document_end(d, &sub);

  const auto book = odm::from_bson<Renamed>(stored);
  EXPECT_EQ(book.extra.size(), 20u);
  EXPECT_EQ(odm_test::bytes_of(odm::to_bson(book)), odm_test::bytes_of(stored));
}

TEST(Adversary11Extra, DuplicateUnknownKeysAreAllKeptInOrder) {
  const odm::Document stored = odm_test::doc_from_json(
      R"({"_id": {"$numberLong": "1"}, "book_title": "t", "x": 1, "y": 2, "x": "two", "x": {"three": 3}})");
  const auto book = odm::from_bson<Renamed>(stored);
  EXPECT_EQ(book.extra.size(), 4u);
  EXPECT_EQ(odm::to_bson(book), stored);
}

TEST(Adversary11Extra, ADuplicateDeclaredFieldIsADecodeErrorOrOneOfItsValuesNeverACrash) {
  const odm::Document stored =
      odm_test::doc_from_json(R"({"_id": {"$numberLong": "1"}, "book_title": "a", "book_title": "b"})");
  try {
    const auto book = odm::from_bson<Renamed>(stored);
    EXPECT_TRUE(book.title == "a" || book.title == "b") << book.title;
  } catch (const odm::DecodeError& error) {
    EXPECT_NE(std::string(error.what()).find("book_title"), std::string::npos) << error.what();
  }
}

/// 200,000 unknown fields (a document of ~3 MB): kept and written back whole.
TEST(Adversary11Extra, AHugeDocumentIsKeptWhole) {
  odm::Document stored;
  bson_append_int64(stored.get_mutable(), "_id", -1, 1);
  bson_append_utf8(stored.get_mutable(), "book_title", -1, "t", -1);
  for (int i = 0; i < 200'000; ++i) {
    const std::string key = "f" + std::to_string(i);
    bson_append_int32(stored.get_mutable(), key.c_str(), -1, i);
  }
  const auto book = odm::from_bson<Renamed>(stored);
  EXPECT_EQ(book.extra.size(), 200'000u);
  EXPECT_EQ(odm::to_bson(book), stored);
  // And a change of the declared member among them is one $set.
  Renamed changed = book;
  changed.title = "u";
  EXPECT_EQ(odm_test::canonical(odm::changes_between(stored, odm::to_bson(changed))),
            odm_test::canonical(R"({"$set": {"book_title": "u"}})"));
}

std::string changes(std::string_view before, std::string_view after) {
  return odm_test::canonical(odm::changes_between(odm_test::doc_from_json(before), odm_test::doc_from_json(after)));
}

TEST(Adversary11Changes, AnArrayInsideAnArrayThatGrewIsPushedAtItsOwnPath) {
  EXPECT_EQ(changes(R"({"a": [[1, 2], [3]]})", R"({"a": [[1, 2, 9], [3]]})"),
            odm_test::canonical(R"({"$push": {"a.0": {"$each": [9]}}})"));
  EXPECT_EQ(changes(R"({"a": [{"b": [1]}, {"b": []}]})", R"({"a": [{"b": [1]}, {"b": [7, 8]}]})"),
            odm_test::canonical(R"({"$push": {"a.1.b": {"$each": [7, 8]}}})"));
}

TEST(Adversary11Changes, AnEmptyDocumentAndAnEmptyArrayAreDifferentValues) {
  EXPECT_EQ(changes(R"({"a": {}})", R"({"a": []})"), odm_test::canonical(R"({"$set": {"a": []}})"));
}

TEST(Adversary11Changes, KeysThatCannotBePathStepsDeepInsideSetTheirOwnParentOnly) {
  EXPECT_EQ(changes(R"({"k": {"x": 1, "m": {"a.b": 1, "c": 1}}})", R"({"k": {"x": 1, "m": {"a.b": 2, "c": 1}}})"),
            odm_test::canonical(R"({"$set": {"k.m": {"a.b": 2, "c": 1}}})"));
  EXPECT_EQ(changes(R"({"k": {"m": {"": 1}}})", R"({"k": {"m": {"": 2}}})"),
            odm_test::canonical(R"({"$set": {"k.m": {"": 2}}})"));
  EXPECT_EQ(changes(R"({"k": [{"$x": 1}]})", R"({"k": [{"$x": 2}]})"),
            odm_test::canonical(R"({"$set": {"k.0": {"$x": 2}}})"));
}

TEST(Adversary11Changes, AChangedTopLevelFieldNamedWithADotIsAUsageError) {
  EXPECT_THROW(changes(R"({"a.b": 1})", R"({"a.b": 2})"), odm::UsageError);
  EXPECT_THROW(changes(R"({})", R"({"$x": 2})"), odm::UsageError);
  EXPECT_EQ(changes(R"({"a.b": 1, "c": 1})", R"({"a.b": 1, "c": 2})"), odm_test::canonical(R"({"$set": {"c": 2}})"))
      << "an unchanged field with such a name is no obstacle";
}

/// A document nested far deeper than any model (another program's, in an Extra, or given
/// to the public changes_between): a result or an odm::Error, never a crash.
odm::Document nested(int depth, int leaf) {
  // Written byte by byte: each level is {"a": <the level inside>}, the innermost {"a": leaf}.
  std::vector<std::uint8_t> bytes;
  const auto put32 = [&](std::uint32_t v) {
    for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
  };
  for (int level = 0; level < depth; ++level) {
    put32(static_cast<std::uint32_t>(12 + 8 * (depth - level)));
    bytes.insert(bytes.end(), {0x03, 'a', 0});
  }
  put32(12);
  bytes.insert(bytes.end(), {0x10, 'a', 0});
  put32(static_cast<std::uint32_t>(leaf));
  bytes.push_back(0);
  bytes.insert(bytes.end(), static_cast<std::size_t>(depth), 0);
  bson_t view;
  EXPECT_TRUE(bson_init_static(&view, bytes.data(), bytes.size()));
  return odm::Document::copy_of(&view);
}

TEST(Adversary11Changes, ADocumentNestedFarTooDeepIsAnErrorNotACrash) {
  EXPECT_EQ(odm_test::canonical(odm::changes_between(nested(3, 1), nested(3, 2))),
            odm_test::canonical(R"({"$set": {"a.a.a.a": 2}})"))
      << "the probe's document builder";
  EXPECT_EXIT(
      {
        const odm::Document before = nested(200'000, 1);
        const odm::Document after = nested(200'000, 2);
        try {
          (void)odm::changes_between(before, after);
        } catch (const odm::Error&) {
        }
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
  // Deeper than odm's 100 levels, the sub-document is set whole at the 100th: still one
  // correct $set, of the path to it.
  const odm::Document update = odm::changes_between(nested(150, 1), nested(150, 2));
  bson_iter_t set;
  ASSERT_TRUE(bson_iter_init_find(&set, update.get(), "$set")) << update.to_json();
  bson_iter_t path;
  ASSERT_TRUE(bson_iter_recurse(&set, &path) && bson_iter_next(&path));
  EXPECT_EQ(std::string(bson_iter_key(&path)).size(), 2u * odm::max_depth + 1) << "100 steps of \"a\"";
  EXPECT_EQ(bson_iter_type(&path), BSON_TYPE_DOCUMENT);
  EXPECT_FALSE(bson_iter_next(&path));
}

}  // namespace
}  // namespace adversary_11
