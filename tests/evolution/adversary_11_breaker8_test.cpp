// Adversarial probes of issue 11 that need no server (breaker8), written from the README's
// "Models that change": odm::Extra beside a renamed member in its expand phase (top level
// and one embedded struct down) and beside a schema version, another program's null in a
// defaulted member, and the changes a tracked save sends for an Extra holding duplicate
// keys (hostile stored data) — MongoDB refuses an update naming one path twice.

#include "test_support.hpp"

#include <odm/evolution/changes.hpp>
#include <odm/evolution/extra.hpp>
#include <odm/evolution/rename.hpp>
#include <odm/evolution/versions.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace adversary_11_breaker8 {
namespace {

struct Customer {
  std::int64_t id = 0;
  std::string contact;
  odm::Extra rest;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Customer::contact>("phone"));
  };
};

struct Inner {
  std::string street;
  odm::Extra rest;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Inner::street>("road"));
  };
};
struct Person {
  std::int64_t id = 0;
  Inner home;
  odm::Extra rest;
};

inline odm::Document same(const odm::Document& old) { return odm::Document::copy_of(old.get()); }
struct Versioned {
  std::int64_t id = 0;
  std::string name;
  odm::Extra rest;
  struct odm_model {
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&same));
  };
};

struct Defaulted {
  std::int64_t id = 0;
  std::string channel = "web";
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::defaulted(&Defaulted::channel));
  };
};

/// The keys of a document, in order.
std::vector<std::string> keys_of(const bson_t* document) {
  std::vector<std::string> keys;
  bson_iter_t it;
  bson_iter_init(&it, document);
  while (bson_iter_next(&it)) keys.emplace_back(bson_iter_key(&it));
  return keys;
}

/// Every path an update names, with the operator, once per occurrence.
std::map<std::string, int> paths_of(const odm::Document& update) {
  std::map<std::string, int> paths;
  bson_iter_t op;
  bson_iter_init(&op, update.get());
  while (bson_iter_next(&op)) {
    bson_iter_t path;
    if (!bson_iter_recurse(&op, &path)) continue;
    while (bson_iter_next(&path)) ++paths[bson_iter_key(&path)];
  }
  return paths;
}

std::string repeated(const std::map<std::string, int>& paths) {
  std::string out;
  for (const auto& [path, count] : paths)
    if (count > 1) out += path + " x" + std::to_string(count) + "; ";
  return out;
}

// An expand-phase member beside an Extra: the old name is the member's, not an unknown
// field, so the encode writes each name once and the unknown fields in their order.
TEST(Adversary11Breaker8Extra, ARenamedMembersOldNameIsNotKeptTwiceByAnExtra) {
  for (const char* text :
       {R"({"_id": {"$numberLong": "1"}, "phone": "old", "x": 1, "contact": "new", "y": "two"})",
        R"({"_id": {"$numberLong": "1"}, "x": 1, "contact": "new", "y": "two", "phone": "old"})",
        R"({"_id": {"$numberLong": "1"}, "x": 1, "phone": "old", "y": "two"})"}) {
    SCOPED_TRACE(text);
    const Customer read = odm::from_bson<Customer>(odm_test::doc_from_json(text));
    EXPECT_EQ(read.contact, "old");
    EXPECT_EQ(read.rest.size(), 2u);
    const odm::Document written = odm::to_bson(read);
    std::multiset<std::string> keys;
    for (auto& k : keys_of(written.get())) keys.insert(k);
    EXPECT_EQ(keys.count("phone"), 1u) << written.to_json();
    EXPECT_EQ(keys.count("contact"), 1u) << written.to_json();
    std::vector<std::string> unknown;
    for (auto& k : keys_of(written.get()))
      if (k == "x" || k == "y") unknown.push_back(k);
    EXPECT_EQ(unknown, (std::vector<std::string>{"x", "y"}));
    EXPECT_EQ(odm::from_bson<Customer>(written).contact, "old");
  }
}

TEST(Adversary11Breaker8Extra, ANestedRenamedMembersOldNameIsNotKeptTwiceByAnExtra) {
  const odm::Document stored = odm_test::doc_from_json(
      R"({"_id": {"$numberLong": "1"}, "home": {"road": "Old Rd", "street": "New St", "door": 4}, "tail": true})");
  const Person read = odm::from_bson<Person>(stored);
  EXPECT_EQ(read.home.street, "Old Rd");
  EXPECT_TRUE(read.home.rest.contains("door"));
  EXPECT_FALSE(read.home.rest.contains("road"));
  const odm::Document written = odm::to_bson(read);
  bson_iter_t it;
  bson_iter_t home;
  ASSERT_TRUE(bson_iter_init_find(&it, written.get(), "home") && bson_iter_recurse(&it, &home));
  std::multiset<std::string> keys;
  while (bson_iter_next(&home)) keys.insert(bson_iter_key(&home));
  EXPECT_EQ(keys.count("road"), 1u) << written.to_json();
  EXPECT_EQ(keys.count("street"), 1u) << written.to_json();
  EXPECT_EQ(keys.count("door"), 1u) << written.to_json();
  EXPECT_EQ(odm::from_bson<Person>(written).home.street, "Old Rd");
}

// A versioned model's schema_version is not an unknown field: wherever it is stored, the
// encode writes it once, at the current version, and keeps the fields around it in order.
TEST(Adversary11Breaker8Extra, TheSchemaVersionIsWrittenOnceBesideAnExtra) {
  for (const char* text : {R"({"_id": {"$numberLong": "1"}, "a": 1, "schema_version": 2, "name": "n", "z": 3})",
                           R"({"_id": {"$numberLong": "1"}, "schema_version": 1, "a": 1, "name": "n", "z": 3})",
                           R"({"_id": {"$numberLong": "1"}, "a": 1, "name": "n", "z": 3})"}) {
    SCOPED_TRACE(text);
    const Versioned read = odm::from_bson<Versioned>(odm_test::doc_from_json(text));
    EXPECT_FALSE(read.rest.contains("schema_version"));
    const odm::Document written = odm::to_bson(read);
    const auto keys = keys_of(written.get());
    EXPECT_EQ(std::count(keys.begin(), keys.end(), "schema_version"), 1) << written.to_json();
    bson_iter_t it;
    ASSERT_TRUE(bson_iter_init_find(&it, written.get(), "schema_version"));
    EXPECT_TRUE(BSON_ITER_HOLDS_INT32(&it) && bson_iter_int32(&it) == 2) << written.to_json();
    std::vector<std::string> unknown;
    for (auto& k : keys)
      if (k == "a" || k == "z") unknown.push_back(k);
    EXPECT_EQ(unknown, (std::vector<std::string>{"a", "z"}));
  }
}

// A defaulted member takes its default when the field is absent; another program's null
// is not absence: a DecodeError naming the field (not a silent default, not a crash).
TEST(Adversary11Breaker8Defaults, ANullInADefaultedMemberIsADecodeErrorNamingIt) {
  EXPECT_EQ(odm::from_bson<Defaulted>(odm_test::doc_from_json(R"({"_id": {"$numberLong": "1"}})")).channel, "web");
  try {
    (void)odm::from_bson<Defaulted>(odm_test::doc_from_json(R"({"_id": {"$numberLong": "1"}, "channel": null})"));
    ADD_FAILURE() << "a null channel read as a value";
  } catch (const odm::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("channel"), std::string::npos) << e.what();
  }
  try {
    (void)odm::from_bson<Defaulted>(odm_test::doc_from_json(R"({"_id": {"$numberLong": "1"}, "channel": 7})"));
    ADD_FAILURE() << "an int32 channel read as a string";
  } catch (const odm::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("channel"), std::string::npos) << e.what();
  }
}

// Another program stored an unknown key twice (BSON allows it, MongoDB keeps it). A model
// with an Extra keeps both; a tracked save must still send an update MongoDB accepts,
// which names no path twice ("Updating the path 'x' would create a conflict").
TEST(Adversary11Breaker8Changes, AnExtraWithDuplicateKeysNeverMakesAnUpdateNameAPathTwice) {
  const odm::Document stored =
      odm_test::doc_from_json(R"({"_id": {"$numberLong": "1"}, "name": "n", "x": 1, "x": 2, "y": 3})");
  const Versioned loaded = odm::from_bson<Versioned>(stored);
  ASSERT_EQ(loaded.rest.size(), 3u);
  {
    odm::Tracked<Versioned> tracked(loaded);
    tracked->name = "m";
    const auto paths = paths_of(tracked.changes());
    EXPECT_EQ(repeated(paths), "") << tracked.changes().to_json();
    EXPECT_EQ(paths.count("x"), 0u) << "an unchanged unknown field is not sent: " << tracked.changes().to_json();
  }
  {
    // Between two documents that both hold x twice, changing only the second value.
    const odm::Document before = odm_test::doc_from_json(R"({"_id": 1, "x": 1, "x": 2})");
    const odm::Document after = odm_test::doc_from_json(R"({"_id": 1, "x": 1, "x": 5})");
    std::string outcome;
    try {
      const odm::Document update = odm::changes_between(before, after);
      outcome = repeated(paths_of(update));
      if (update.empty()) outcome = "no update: the change of the second x is lost";
    } catch (const odm::Error& e) {
      outcome = "";  // refusing such a document is fine
      (void)e;
    }
    EXPECT_EQ(outcome, "");
  }
}

// Another program's value of the wrong BSON type under the old name, which is the truth
// while present: a DecodeError naming the stored (old) name, not the new one.
TEST(Adversary11Breaker8Extra, AWrongTypeUnderTheOldNameIsADecodeErrorNamingIt) {
  try {
    (void)odm::from_bson<Customer>(
        odm_test::doc_from_json(R"({"_id": {"$numberLong": "1"}, "contact": "ok", "phone": 5551234})"));
    ADD_FAILURE() << "an int32 under the old name read as a string";
  } catch (const odm::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("phone"), std::string::npos) << e.what();
  }
}

// The README's `extra.clear()` on an object whose Extra kept a duplicate unknown key: the
// tracked save's update must name `x` once (MongoDB refuses `{$unset: {x: 1, x: 1}}`:
// "Updating the path 'x' would create a conflict at 'x'"), so clearing stays possible.
TEST(Adversary11Breaker8Changes, ClearingAnExtraWithADuplicateKeyUnsetsItOnce) {
  const odm::Document stored =
      odm_test::doc_from_json(R"({"_id": {"$numberLong": "1"}, "name": "n", "x": 1, "x": 2, "y": 3})");
  odm::Tracked<Versioned> tracked(odm::from_bson<Versioned>(stored));
  tracked->rest.clear();
  const odm::Document update = tracked.changes();
  const auto paths = paths_of(update);
  EXPECT_EQ(paths.count("x"), 1u) << "clearing the Extra removes x: " << update.to_json();
  EXPECT_EQ(repeated(paths), "") << update.to_json();
}

}  // namespace
}  // namespace adversary_11_breaker8
