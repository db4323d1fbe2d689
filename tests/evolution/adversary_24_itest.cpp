// Adversarial probes (adv24) of issue 11's follow-up fixes (adv23's findings), written from
// the README's "Schema versions and migrations" ("Replacing a newer document") and
// "Renaming a field while both versions run", and MongoDB's documented comparison rules:
//  1. a stored version above the model's in any numeric type (int32, int64, double 3.0 or
//     2.5, decimal128, infinity, a huge decimal) is newer: every replace path refuses it
//     (SchemaVersionError) or, for a bulk write's plain replace_one, does not match it, and
//     the document stays byte for byte as it was;
//  2. hostile versions that are not newer (a string, null, NaN, -0.0, a decimal NaN, no
//     version, the model's version as a double or decimal): nothing crashes, reads are
//     SchemaVersionErrors naming the _id, and a replace writes the model's version;
//  3. filters on `_id` that are not an equality (regular expressions in every spelling,
//     `$in`, ranges, negations) do not "pin" it: an upserting replace asks for a newer
//     match first;
//  4. a renamed member inside a std::optional embedded struct (and inside odm::Embedded)
//     is matched by typed filters and changed by typed updates under both names, checked
//     against a reference that decodes every document and applies the rule itself.
// The defect these probes found (renames inside odm::Embedded) is fixed; its probe
// asserts, and says "fixed defect came back" if it does.

#include "driver/support.hpp"

#include <odm/evolution/rename.hpp>
#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace adversary_24_itest {

inline odm::Document same(const odm::Document& old) { return odm::Document::copy_of(old.get()); }

/// Version 2, refusing newer documents on read (not reading_newer).
struct Gizmo {
  std::int64_t id = 0;
  std::string name;
  std::int32_t uses = 0;
  struct odm_model {
    static constexpr std::string_view collection = "adv24_gizmos";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&same));
  };
};

struct Slug {
  std::string id;
  std::int32_t uses = 0;
  struct odm_model {
    static constexpr std::string_view collection = "adv24_slugs";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&same)).reading_newer();
  };
};

struct Plain {
  std::int64_t id = 0;
};

struct Label {
  std::optional<std::string> label;  // renamed from "tag"
  std::optional<std::int32_t> size;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Label::label>("tag"));
  };
};
struct Shelf {
  std::int64_t id = 0;
  std::optional<Label> maybe;
  odm::Embedded<Label> wrapped;
  std::optional<odm::Embedded<Label>> maybe_wrapped;
  struct odm_model {
    static constexpr std::string_view collection = "adv24_shelves";
    static constexpr auto when_absent = odm::Absent::initial_value;
  };
};

}  // namespace adversary_24_itest

namespace {

using namespace adversary_24_itest;
using odm::field;
using odm_test::json;

class Adversary24 : public odm_test::DriverTest {
 protected:
  void run(const std::string& command) {
    const odm::Document reply = db().run_command(json(command));
    bson_iter_t it;
    ASSERT_FALSE(bson_iter_init_find(&it, reply.get(), "writeErrors")) << reply.to_json();
  }
  void insert(const std::string& collection, const std::string& documents) {
    run(R"({"insert": ")" + collection + R"(", "documents": [)" + documents + "]}");
  }
  std::int64_t raw_count(const std::string& collection, const std::string& filter) {
    return db().collection<Plain>(collection).count(odm::Filter<Plain>::raw(json(filter)));
  }
  /// Every stored document of the collection, as canonical Extended JSON, one per line.
  std::string dump(const std::string& collection) {
    std::string out;
    for (const odm::Document& d :
         db().collection<Plain>(collection).find<odm::Document>(odm::Filter<Plain>::raw(json("{}"))))
      out += d.to_canonical_json() + "\n";
    return out;
  }
  /// Whether the engine is mongo-java-server, which lacks what `why` says (a gap of that
  /// engine in this one case; tests/driver/support.hpp has no capability for it): the case
  /// is left out there, and the reason printed.
  bool java_lacks(const std::string& what, const char* why) {
    if (engine() != odm_test::Engine::mongo_java_server) return false;
    std::cout << "[ SKIPPED CASE ] " << what << ": mongo-java-server " << why << "\n";
    return true;
  }
  /// "" when `call` throws Expected (an odm::Error), else what happened.
  template <class Expected>
  static std::string outcome(const std::function<void()>& call, std::string* message = nullptr) {
    try {
      call();
    } catch (const Expected& e) {
      if (message != nullptr) *message = e.what();
      return "";
    } catch (const std::exception& e) {
      return std::string("another error: ") + e.what();
    }
    return "<no error>";
  }
};

// =============================================================================================
// 1. Newer in any numeric type: never replaced
// =============================================================================================

// MongoDB compares numbers across types by value (int, long, double, decimal), and a decimal
// or double infinity is above every finite number
// (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/#numeric-types).
constexpr const char* kInexactDecimals =
    "compares a Decimal128 with an int by a rounded value: 2.000000000000000000000000000000001 is not $gt 2 there; "
    "MongoDB compares numbers of different types by their exact values "
    "(https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/#numeric-types)";
constexpr const char* kNaNAboveNumbers =
    "matches a NaN (double or decimal) with {$gt: 2}; MongoDB orders NaN below every number, so $gt never matches it "
    "(https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/#numeric-types)";
constexpr const char* kRegexOperatorOfARegex =
    "refuses {$regex: /^re/} (a BSON regular expression as the operator's value: 'Illegal repetition', error 17); "
    "MongoDB takes it (https://www.mongodb.com/docs/manual/reference/operator/query/regex/#syntax)";

constexpr const char* kSetKeepsAnEqualNumber =
    "keeps a stored double 2.0 (or decimal 2, or long 2) when $set writes the int32 2, an equal number of another type; "
    "MongoDB's $set stores the value given, with its type "
    "(https://www.mongodb.com/docs/manual/reference/operator/update/set/)";

const std::vector<std::string>& newer_versions() {
  static const std::vector<std::string> versions{
      "3",
      R"({"$numberLong": "3"})",
      R"({"$numberDouble": "3.0"})",
      R"({"$numberDouble": "2.5"})",
      R"({"$numberDouble": "2.0000000000000004"})",
      R"({"$numberDecimal": "3"})",
      R"({"$numberDecimal": "2.5"})",
      R"({"$numberDecimal": "2.000000000000000000000000000000001"})",
      R"({"$numberDouble": "Infinity"})",
      R"({"$numberDecimal": "Infinity"})",
      R"({"$numberDecimal": "1E+6000"})",
      R"({"$numberLong": "9223372036854775807"})",
      "2147483647",
  };
  return versions;
}

TEST_F(Adversary24, AVersionAboveTheModelsInAnyNumericTypeIsNeverReplacedOnAnyPath) {
  std::vector<std::string> versions;
  for (const std::string& v : newer_versions())
    if (!(v.find("2.000000000000000000000000000000001") != std::string::npos &&
          java_lacks("schema_version " + v, kInexactDecimals)))
      versions.push_back(v);
  for (std::size_t i = 0; i < versions.size(); ++i) {
    const std::int64_t id = static_cast<std::int64_t>(i) + 1;
    insert("adv24_gizmos", R"({"_id": {"$numberLong": ")" + std::to_string(id) + R"("}, "name": "n)" +
                               std::to_string(id) + R"(", "uses": 4, "hue": 7, "schema_version": )" + versions[i] + "}");
  }
  const std::string before = dump("adv24_gizmos");
  auto gizmos = db().collection<Gizmo>();
  for (std::size_t i = 0; i < versions.size(); ++i) {
    SCOPED_TRACE("schema_version " + versions[i]);
    const std::int64_t id = static_cast<std::int64_t>(i) + 1;
    const std::string name = "n" + std::to_string(id);
    const auto by_id = field(&Gizmo::id) == id;
    const auto by_name = field(&Gizmo::name) == name;
    std::string message;
    EXPECT_EQ(outcome<odm::SchemaVersionError>([&] { gizmos.replace_one(by_id, Gizmo{id, name, 99}); }, &message), "")
        << "replace_one by _id";
    EXPECT_NE(message.find("newer"), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(id)), std::string::npos) << "the message names the document: " << message;
    EXPECT_EQ(outcome<odm::SchemaVersionError>(
                  [&] { gizmos.replace_one(by_id, Gizmo{id, name, 99}, odm::ReplaceOptions<Gizmo>{}.upsert()); }),
              "")
        << "upserting replace_one by _id";
    EXPECT_EQ(outcome<odm::SchemaVersionError>([&] {
                gizmos.replace_one(by_name, Gizmo{id + 1000, name, 99}, odm::ReplaceOptions<Gizmo>{}.upsert());
              }),
              "")
        << "upserting replace_one by name";
    EXPECT_EQ(outcome<odm::SchemaVersionError>([&] { (void)gizmos.find_one_and_replace(by_id, Gizmo{id, name, 99}); }),
              "")
        << "find_one_and_replace by _id";
    EXPECT_EQ(outcome<odm::SchemaVersionError>([&] {
                (void)gizmos.find_one_and_replace(by_id, Gizmo{id, name, 99},
                                                  odm::FindOneAndReplaceOptions<Gizmo>{}.upsert());
              }),
              "")
        << "upserting find_one_and_replace by _id";
    EXPECT_EQ(outcome<odm::SchemaVersionError>([&] {
                (void)gizmos.find_one_and_replace(by_name, Gizmo{id + 2000, name, 99},
                                                  odm::FindOneAndReplaceOptions<Gizmo>{}.upsert());
              }),
              "")
        << "upserting find_one_and_replace by name";
    EXPECT_EQ(outcome<odm::SchemaVersionError>([&] {
                gizmos.bulk_write()
                    .replace_one(by_name, Gizmo{id + 3000, name, 99}, odm::ReplaceOptions<Gizmo>{}.upsert())
                    .execute();
              }),
              "")
        << "a bulk write's upserting replace_one by name";
    // A bulk write's plain replace_one does not match it (README: "its matched count says so").
    try {
      const auto result = gizmos.bulk_write().replace_one(by_id, Gizmo{id, name, 99}).execute();
      EXPECT_EQ(result.matched, 0) << "bulk replace_one by _id";
      EXPECT_EQ(result.modified, 0);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "bulk replace_one by _id threw: " << e.what();
    }
    // An upserting one pinned by _id: the insert is a duplicate key; whatever it reports, it
    // reports it as an odm::Error and writes nothing.
    EXPECT_EQ(outcome<odm::Error>([&] {
                gizmos.bulk_write()
                    .replace_one(by_id, Gizmo{id, name, 99}, odm::ReplaceOptions<Gizmo>{}.upsert())
                    .execute();
              }),
              "")
        << "a bulk write's upserting replace_one by _id";
    // Reading it is a SchemaVersionError naming its _id (not reading_newer).
    try {
      (void)gizmos.get_by_id(id);
      ADD_FAILURE() << "get_by_id read a newer document";
    } catch (const odm::SchemaVersionError& e) {
      EXPECT_NE(e.document_id().find(std::to_string(id)), std::string::npos) << e.what();
      EXPECT_EQ(e.model_version(), 2);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "get_by_id: not a SchemaVersionError: " << e.what();
    }
  }
  EXPECT_EQ(dump("adv24_gizmos"), before) << "a newer document was changed, or one was added";
}

// A typed update of a newer document leaves its version alone and applies (README: the older
// release changes them "with update_one or an odm::Tracked save, which leave the version
// alone"), whatever the version's numeric type.
TEST_F(Adversary24, ATypedUpdateOfADocumentNewerInAnyNumericTypeKeepsItsVersion) {
  const auto& versions = newer_versions();
  for (std::size_t i = 0; i < versions.size(); ++i)
    insert("adv24_gizmos", R"({"_id": {"$numberLong": ")" + std::to_string(i + 1) + R"("}, "name": "n", "uses": 4,
                               "schema_version": )" + versions[i] + "}");
  auto gizmos = db().collection<Gizmo>();
  for (std::size_t i = 0; i < versions.size(); ++i) {
    const std::int64_t id = static_cast<std::int64_t>(i) + 1;
    const auto result = gizmos.update_one(field(&Gizmo::id) == id, field(&Gizmo::uses).inc(std::int32_t{1}));
    EXPECT_EQ(result.matched, 1) << versions[i];
    EXPECT_EQ(raw_count("adv24_gizmos", R"({"_id": )" + std::to_string(id) + R"(, "uses": 5, "schema_version": )" +
                                            versions[i] + "}"),
              1)
        << versions[i] << "\n"
        << dump("adv24_gizmos");
  }
}

// =============================================================================================
// 2. Hostile versions that are not newer
// =============================================================================================

struct Hostile {
  std::string version;  // "" for no version field
  bool readable;        // the model reads the document as it is stored (upgrading a version 1)
};

TEST_F(Adversary24, HostileVersionsThatAreNotNewerAreReadAsErrorsAndReplacedCleanly) {
  const std::vector<Hostile> cases{
      {R"("3")", false},
      {"null", false},
      {R"({"$numberDouble": "NaN"})", false},
      {R"({"$numberDouble": "-0.0"})", false},
      {R"({"$numberDouble": "-Infinity"})", false},
      {R"({"$numberDecimal": "NaN"})", false},
      {R"({"$numberDecimal": "-1E+6000"})", false},
      {R"({"$numberDouble": "2.0"})", false},
      {R"({"$numberDecimal": "2.0"})", false},
      {R"({"$numberDecimal": "2"})", false},
      {R"({"v": 3})", false},
      {"true", false},
      {"", true},
      {"1", true},
      {R"({"$numberLong": "2"})", true},
      {"2", true},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string id = std::to_string(i + 1);
    insert("adv24_gizmos", R"({"_id": {"$numberLong": ")" + id + R"("}, "name": "h)" + id + R"(", "uses": 4, "hue": 7)" +
                               (cases[i].version.empty() ? std::string() : R"(, "schema_version": )" + cases[i].version) +
                               "}");
  }
  auto gizmos = db().collection<Gizmo>();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Hostile& c = cases[i];
    SCOPED_TRACE("schema_version " + (c.version.empty() ? std::string("(none)") : c.version));
    if (c.version.find("NaN") != std::string::npos && java_lacks("schema_version " + c.version, kNaNAboveNumbers))
      continue;
    if ((c.version == R"({"$numberDouble": "2.0"})" || c.version == R"({"$numberDecimal": "2.0"})" ||
         c.version == R"({"$numberDecimal": "2"})" || c.version == R"({"$numberLong": "2"})") &&
        java_lacks("schema_version " + c.version, kSetKeepsAnEqualNumber))
      continue;
    const std::int64_t id = static_cast<std::int64_t>(i) + 1;
    const std::string name = "h" + std::to_string(id);
    // Reading: the document, or a SchemaVersionError naming the _id.
    try {
      const Gizmo read = gizmos.get_by_id(id);
      EXPECT_TRUE(c.readable) << "read a document whose version the model cannot use";
      EXPECT_EQ(read.uses, 4);
    } catch (const odm::SchemaVersionError& e) {
      EXPECT_FALSE(c.readable) << e.what();
      EXPECT_NE(e.document_id().find(std::to_string(id)), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("schema_version"), std::string::npos) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "get_by_id: not a SchemaVersionError: " << e.what();
    }
    // Replacing (upserting, by name, so a twin would show): not newer, so matched and written
    // over, with the model's version as an int32; the field the model does not know stays.
    try {
      const auto result = gizmos.replace_one(field(&Gizmo::name) == name, Gizmo{id, name, 99},
                                             odm::ReplaceOptions<Gizmo>{}.upsert());
      EXPECT_EQ(result.matched, 1);
      EXPECT_FALSE(result.upserted_id.has_value());
    } catch (const std::exception& e) {
      ADD_FAILURE() << "replace_one threw: " << e.what();
    }
    EXPECT_EQ(raw_count("adv24_gizmos", R"({"name": ")" + name + R"("})"), 1) << dump("adv24_gizmos");
    EXPECT_EQ(raw_count("adv24_gizmos", R"({"_id": )" + std::to_string(id) +
                                            R"(, "uses": 99, "hue": 7, "schema_version": {"$type": "int", "$eq": 2}})"),
              1)
        << dump("adv24_gizmos");
    try {
      EXPECT_EQ(gizmos.get_by_id(id).uses, 99);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "reading the replaced document: " << e.what();
    }
  }
}

// A version stored as an array holding a newer number: MongoDB's query matches an array by its
// elements, so `{schema_version: {$type: "int", $gt: 2}}` matches [3] and the server sees it
// as newer; the model cannot read it either way. Whatever odm does with it, it must not
// crash, must report it as an odm::Error, and must not leave two documents or half a write.
TEST_F(Adversary24, AnArrayVersionHoldingANewerNumberIsEitherRefusedWholeOrReplacedCleanly) {
  insert("adv24_gizmos", R"({"_id": {"$numberLong": "1"}, "name": "arr", "uses": 4, "hue": 7, "schema_version": [3]})");
  const std::string before = dump("adv24_gizmos");
  auto gizmos = db().collection<Gizmo>();
  std::string error;
  try {
    gizmos.replace_one(field(&Gizmo::name) == std::string("arr"), Gizmo{1, "arr", 99}, odm::ReplaceOptions<Gizmo>{}.upsert());
  } catch (const odm::SchemaVersionError& e) {
    error = e.what();
  }
  EXPECT_EQ(raw_count("adv24_gizmos", "{}"), 1) << dump("adv24_gizmos");
  if (error.empty())
    EXPECT_EQ(raw_count("adv24_gizmos", R"({"_id": 1, "uses": 99, "hue": 7, "schema_version": {"$type": "int", "$eq": 2}})"),
              1)
        << dump("adv24_gizmos");
  else
    EXPECT_EQ(dump("adv24_gizmos"), before) << error;
}

// README, Batch migration: a document whose version the model cannot read stops the run
// with an odm::SchemaVersionError naming its _id; newer ones (int32/int64) are left alone
// and counted. Nothing crashes and nothing newer is written.
TEST_F(Adversary24, AMigrationStopsAtAnUnreadableVersionAndLeavesNewerDocumentsAlone) {
  insert("adv24_gizmos", R"({"_id": {"$numberLong": "1"}, "name": "a", "uses": 1, "schema_version": 3},
                            {"_id": {"$numberLong": "2"}, "name": "b", "uses": 1, "schema_version": {"$numberLong": "4"}},
                            {"_id": {"$numberLong": "3"}, "name": "c", "uses": 1})");
  const odm::MigrationReport first = odm::Migration<Gizmo>(db()).run();
  EXPECT_EQ(first.migrated, 1);
  EXPECT_EQ(first.newer, 2);
  EXPECT_EQ(first.remaining, 0);
  insert("adv24_gizmos", R"({"_id": {"$numberLong": "4"}, "name": "d", "uses": 1, "schema_version": {"$numberDouble": "NaN"}})");
  try {
    (void)odm::Migration<Gizmo>(db()).run();
    ADD_FAILURE() << "the Migration ran over a NaN version";
  } catch (const odm::SchemaVersionError& e) {
    EXPECT_NE(e.document_id().find('4'), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a SchemaVersionError: " << e.what();
  }
  EXPECT_EQ(raw_count("adv24_gizmos", R"({"_id": 1, "schema_version": 3, "uses": 1})"), 1) << dump("adv24_gizmos");
  EXPECT_EQ(raw_count("adv24_gizmos", R"({"_id": 2, "schema_version": 4, "uses": 1})"), 1) << dump("adv24_gizmos");
}

// =============================================================================================
// 3. Filters that do not pin _id
// =============================================================================================

/// `{_id: {$regex: /pattern/}}`: the operator holding a BSON regular expression (libbson's
/// Extended JSON reader cannot spell it).
odm::Document regex_operator_on_id(const char* pattern) {
  odm::Document d;
  bson_t inner;
  bson_append_document_begin(d.get_mutable(), "_id", 3, &inner);
  bson_append_regex(&inner, "$regex", 6, pattern, "");
  bson_append_document_end(d.get_mutable(), &inner);
  return d;
}

// README: only "an equality at its top level, not a regular expression" pins `_id`. Every
// other condition on `_id` can match the newer "red" while the upsert inserts the
// replacement's own id ("rex"), so each upserting replace must refuse, on every path.
TEST_F(Adversary24, NoConditionOnIdButAnEqualityPinsIt) {
  insert("adv24_slugs", R"({"_id": "red", "uses": 4, "schema_version": 3})");
  const std::string before = dump("adv24_slugs");
  auto slugs = db().collection<Slug>();
  std::vector<std::pair<std::string, odm::Filter<Slug>>> filters{
      {"$regex string", odm::Filter<Slug>::raw(json(R"({"_id": {"$regex": "^re"}})"))},
      {"$regex with $options", odm::Filter<Slug>::raw(json(R"({"_id": {"$regex": "^RE", "$options": "i"}})"))},
      {"$options before $regex", odm::Filter<Slug>::raw(json(R"({"_id": {"$options": "i", "$regex": "^RE"}})"))},
      {"$regex of a BSON regex", odm::Filter<Slug>::raw(regex_operator_on_id("^re"))},
      {"$in of a regex", odm::Filter<Slug>::raw(json(R"({"_id": {"$in": [{"$regularExpression": {"pattern": "^re", "options": ""}}]}})"))},
      {"$in of one id", odm::Filter<Slug>::raw(json(R"({"_id": {"$in": ["red"]}})"))},
      {"$gte", odm::Filter<Slug>::raw(json(R"({"_id": {"$gte": "r"}})"))},
      {"$not $eq", odm::Filter<Slug>::raw(json(R"({"_id": {"$not": {"$eq": "blue"}}})"))},
      {"$eq beside $exists", odm::Filter<Slug>::raw(json(R"({"_id": {"$exists": true, "$eq": "red"}})"))},
      {"$and of an equality", odm::Filter<Slug>::raw(json(R"({"$and": [{"_id": {"$regex": "^re"}}]})"))},
      {"typed regex", field(&Slug::id).regex("^re")},
      {"typed regex, case-insensitive", field(&Slug::id).regex("^RE", "i")},
      {"typed !=", field(&Slug::id) != std::string("blue")},
      {"typed in", field(&Slug::id).in({std::string("red"), std::string("blue")})},
      {"typed ||", field(&Slug::id) == std::string("red") || field(&Slug::id) == std::string("rex")},
  };
  for (const auto& entry : filters) {
    const std::string& what = entry.first;
    const odm::Filter<Slug>& filter = entry.second;
    if (what == "$regex of a BSON regex" && java_lacks(what, kRegexOperatorOfARegex)) continue;
    EXPECT_EQ(outcome<odm::SchemaVersionError>(
                  [&] { slugs.replace_one(filter, Slug{"rex", 5}, odm::ReplaceOptions<Slug>{}.upsert()); }),
              "")
        << "replace_one, " << what;
    EXPECT_EQ(outcome<odm::SchemaVersionError>([&] {
                (void)slugs.find_one_and_replace(filter, Slug{"reb", 6}, odm::FindOneAndReplaceOptions<Slug>{}.upsert());
              }),
              "")
        << "find_one_and_replace, " << what;
    EXPECT_EQ(outcome<odm::SchemaVersionError>([&] {
                slugs.bulk_write().replace_one(filter, Slug{"rec", 7}, odm::ReplaceOptions<Slug>{}.upsert()).execute();
              }),
              "")
        << "bulk replace_one, " << what;
  }
  // The equality that pins it: the insert is a duplicate key, reported as the newer document.
  EXPECT_EQ(outcome<odm::SchemaVersionError>([&] {
              slugs.replace_one(field(&Slug::id) == std::string("red"), Slug{"red", 5}, odm::ReplaceOptions<Slug>{}.upsert());
            }),
            "");
  EXPECT_EQ(outcome<odm::SchemaVersionError>([&] {
              slugs.replace_one(odm::Filter<Slug>::raw(json(R"({"_id": {"$eq": "red"}})")), Slug{"red", 5},
                                odm::ReplaceOptions<Slug>{}.upsert());
            }),
            "");
  EXPECT_EQ(dump("adv24_slugs"), before);
}

// =============================================================================================
// 4. A renamed member inside an optional embedded struct (and odm::Embedded)
// =============================================================================================

// The stored shapes of one embedded Label: v1's (old name), the contract release's (new
// name), v2's (both, equal or not), nulls, an empty document, the struct null or absent.
const std::vector<std::string>& label_shapes() {
  static const std::vector<std::string> shapes{
      R"({"tag": "s"})",
      R"({"label": "s"})",
      R"({"label": "s", "tag": "s"})",
      R"({"label": "x", "tag": "s"})",
      R"({"tag": "x", "label": "s"})",
      R"({"label": "s", "tag": null})",
      R"({"tag": null})",
      R"({"label": null})",
      R"({"size": 1})",
      R"({})",
      "null",
      "",
  };
  return shapes;
}

/// What v2 reads as the label of a stored shape (the rule: the old name's value when the
/// document has the old name, else the new one's), from odm's decoding of the document.
std::optional<std::string> read_label(const std::optional<Label>& l) { return l ? l->label : std::nullopt; }

class Adversary24Renamed : public Adversary24 {
 protected:
  /// Stores every shape under `member` (the other two members absent), ids 1..n.
  void store(const std::string& member) {
    const auto& shapes = label_shapes();
    std::string docs;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      if (!docs.empty()) docs += ", ";
      docs += R"({"_id": {"$numberLong": ")" + std::to_string(i + 1) + R"("})" +
              (shapes[i].empty() ? std::string() : ", \"" + member + "\": " + shapes[i]) + "}";
    }
    insert("adv24_shelves", docs);
  }
  /// Each document's label as v2 reads it.
  std::map<std::int64_t, std::optional<std::string>> labels(
      const std::function<std::optional<std::string>(const Shelf&)>& of) {
    std::map<std::int64_t, std::optional<std::string>> out;
    for (const Shelf& s : db().collection<Shelf>().find(odm::Filter<Shelf>{})) out[s.id] = of(s);
    return out;
  }
  std::set<std::int64_t> found(const odm::Filter<Shelf>& filter) {
    std::set<std::int64_t> out;
    for (const Shelf& s : db().collection<Shelf>().find(filter)) out.insert(s.id);
    return out;
  }
  /// Every filter on the label, against the ids whose read value satisfies it.
  template <class Path>
  void check_filters(const Path& label, const std::function<std::optional<std::string>(const Shelf&)>& of,
                     std::vector<std::string>& problems) {
    const auto read = labels(of);
    const auto expect = [&](const std::string& what, const odm::Filter<Shelf>& filter,
                            const std::function<bool(const std::optional<std::string>&)>& holds) {
      std::set<std::int64_t> want;
      for (const auto& [id, value] : read)
        if (holds(value)) want.insert(id);
      const std::set<std::int64_t> got = found(filter);
      if (got != want) {
        std::string g;
        std::string w;
        for (auto id : got) g += std::to_string(id) + " ";
        for (auto id : want) w += std::to_string(id) + " ";
        problems.push_back(what + ": found {" + g + "}, the rule reads {" + w + "}; sent " + filter.bson().to_json());
      }
    };
    const std::optional<std::string> s("s");
    const std::optional<std::string> x("x");
    expect("== s", label == std::string("s"), [&](const auto& v) { return v == s; });
    expect("!= s", label != std::string("s"), [&](const auto& v) { return v != s; });
    expect("!(== s)", !(label == std::string("s")), [&](const auto& v) { return v != s; });
    expect("in [s, x]", label.in({std::string("s"), std::string("x")}), [&](const auto& v) { return v == s || v == x; });
    expect("nin [s, x]", label.nin({std::string("s"), std::string("x")}), [&](const auto& v) { return v != s && v != x; });
    expect("== null", label == std::nullopt, [&](const auto& v) { return !v.has_value(); });
    expect("> r", label > std::string("r"), [&](const auto& v) { return v.has_value() && *v > "r"; });
  }
  /// A typed set of the label on every document whose parent is not null (MongoDB cannot
  /// create a field inside null), then every one reads "t".
  template <class Path>
  void check_update(const Path& label, const std::function<std::optional<std::string>(const Shelf&)>& of,
                    const std::string& member, std::vector<std::string>& problems) {
    auto shelves = db().collection<Shelf>();
    shelves.update_many(odm::Filter<Shelf>::raw(json(R"({")" + member + R"(": {"$ne": null}})")),
                        label.set(std::optional<std::string>("t")));
    shelves.update_many(odm::Filter<Shelf>::raw(json(R"({")" + member + R"(": {"$exists": false}})")),
                        label.set(std::optional<std::string>("t")));
    for (const auto& [id, value] : labels(of))
      if (id != 11 && value != std::optional<std::string>("t"))
        problems.push_back("after set(\"t\"), document " + std::to_string(id) + " reads " +
                           (value ? "\"" + *value + "\"" : std::string("null")));
    if (!problems.empty()) problems.push_back("stored:\n" + dump("adv24_shelves"));
  }
};

TEST_F(Adversary24Renamed, FiltersAndUpdatesOfALabelInsideAnOptionalStructFollowTheRule) {
  store("maybe");
  const auto of = [](const Shelf& s) { return read_label(s.maybe); };
  std::vector<std::string> problems;
  check_filters(field(&Shelf::maybe) / &Label::label, of, problems);
  check_update(field(&Shelf::maybe) / &Label::label, of, "maybe", problems);
  std::string all;
  for (const auto& p : problems) all += p + "\n";
  EXPECT_TRUE(problems.empty()) << all;
}

TEST_F(Adversary24Renamed, FiltersAndUpdatesOfALabelInsideAnEmbeddedWrapperFollowTheRule) {
  store("maybe_wrapped");
  const auto of = [](const Shelf& s) {
    return s.maybe_wrapped ? (*s.maybe_wrapped)->label : std::optional<std::string>();
  };
  std::vector<std::string> problems;
  check_filters(field(&Shelf::maybe_wrapped) / &Label::label, of, problems);
  check_update(field(&Shelf::maybe_wrapped) / &Label::label, of, "maybe_wrapped", problems);
  std::string all;
  for (const auto& p : problems) all += p + "\n";
  if (!problems.empty())
    ADD_FAILURE() << "fixed defect came back: typed filters and updates of a member renamed inside std::optional<odm::Embedded<T>> "
                    "address only the new name (detail::embedded_struct, odm/query/previous_names.hpp, does not see "
                    "through odm::Embedded):\n"
                 << all;
}

}  // namespace
