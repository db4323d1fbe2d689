// Adversarial probes of the contract release of a rename (adv11), written from the README's
// "Renaming a field while both versions run" and issue 11: a model whose schema steps
// include odm::rename_field("old", "new") retires the old name, and every write of it
// ($set/$inc typed updates, update_many, find_one_and_update, tracked saves, replaces,
// bulk writes, raw updates, upserts) unsets the retired name unless the update touches that
// path itself; its Migration also rewrites current documents that still hold it. Probed
// here: raw $rename/$unset/sub-path updates of the retired name, a retired name that is a
// string prefix of a member, nested retired names (and updates of their parent), parents
// that are null or missing, a rename under an array parent, upserts, update_many over mixed documents, another
// BSON type under the retired name, rename chains across versions and in one step, a
// retired name a later step reuses, a newer document holding the retired name (the next
// release reusing it), a Migration interrupted (by on_progress or a failing chained step),
// the expand release (v2) and the contract release (v3) from several threads against a
// reference model (ODM_ADVERSARY11_RETIRED_SEED replays a seed), a Migration beside v3's
// writers, and the contract model's validator over what its writes leave.
// A probe that shows a defect stays, asserting the documented behaviour, and is skipped
// with `defect:` and what was observed.

#include "driver/support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace adversary_11_retired_itest {

// ---- a counter: hits -> visits; hits_today has the retired name as a string prefix ------

struct Counter {
  std::int64_t id = 0;
  std::string name;
  std::int64_t visits = 0;
  std::int64_t hits_today = 0;
  struct odm_model {
    static constexpr std::string_view collection = "counters";
    static constexpr auto fields = odm::fields(odm::defaulted(&Counter::hits_today));
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("hits", "visits")));
  };
};

// The expand release of the same rename: writes both names, reads hits where present.
struct ExpandCounter {
  std::int64_t id = 0;
  std::string name;
  std::int64_t visits = 0;
  std::int64_t hits_today = 0;
  struct odm_model {
    static constexpr std::string_view collection = "counters";
    static constexpr auto fields =
        odm::fields(odm::renamed_from<&ExpandCounter::visits>("hits"), odm::defaulted(&ExpandCounter::hits_today));
  };
};

// ---- a nested rename: home.road -> home.street ------------------------------------------

struct Address {
  std::string street;
  std::int32_t number = 0;
};
struct Person {
  std::int64_t id = 0;
  std::string name;
  Address home;
  struct odm_model {
    static constexpr std::string_view collection = "people";
    static constexpr auto schema =
        odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("home.road", "home.street")));
  };
};
// The same with an optional parent (null or missing in some documents).
struct OptPerson {
  std::int64_t id = 0;
  std::string name;
  std::optional<Address> home;
  struct odm_model {
    static constexpr std::string_view collection = "opt_people";
    static constexpr auto schema =
        odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("home.road", "home.street")));
  };
};

// ---- a rename under an array parent: lines.qty -> lines.count -----------------------------

struct Line {
  std::string sku;
  std::int32_t count = 0;
};
struct Order {
  std::int64_t id = 0;
  std::string note;
  std::vector<Line> lines;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
    static constexpr auto schema =
        odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("lines.qty", "lines.count")));
  };
};

// ---- a rename chain a -> b -> c across three versions ------------------------------------

struct Item {
  std::int64_t id = 0;
  std::string name;
  std::int64_t c = 0;
  struct odm_model {
    static constexpr std::string_view collection = "items";
    static constexpr auto schema =
        odm::schema_versions<3>(odm::upgrade<1>(odm::rename_field("a", "b")), odm::upgrade<2>(odm::rename_field("b", "c")));
  };
};

// ---- a retired name a later step reuses: total -> amount, then sum -> total ---------------

struct Price {
  std::int64_t id = 0;
  std::int64_t amount = 0;
  std::int64_t total = 0;
  struct odm_model {
    static constexpr std::string_view collection = "prices";
    static constexpr auto fields = odm::fields(odm::defaulted(&Price::total), odm::defaulted(&Price::amount));
    static constexpr auto schema = odm::schema_versions<3>(odm::upgrade<1>(odm::rename_field("total", "amount")),
                                                           odm::upgrade<2>(odm::rename_field("sum", "total")));
  };
};
// The same in one step (odm::chain).
struct ChainedPrice {
  std::int64_t id = 0;
  std::int64_t amount = 0;
  std::int64_t total = 0;
  struct odm_model {
    static constexpr std::string_view collection = "chained_prices";
    static constexpr auto fields =
        odm::fields(odm::defaulted(&ChainedPrice::total), odm::defaulted(&ChainedPrice::amount));
    static constexpr auto schema = odm::schema_versions<2>(
        odm::upgrade<1>(odm::chain(odm::rename_field("total", "amount"), odm::rename_field("sum", "total"))));
  };
};

// ---- two renames in one step ---------------------------------------------------------------

struct Multi {
  std::int64_t id = 0;
  std::int64_t visits = 0;
  std::int64_t lines = 0;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "multis";
    static constexpr auto schema = odm::schema_versions<2>(
        odm::upgrade<1>(odm::chain(odm::rename_field("hits", "visits"), odm::rename_field("items", "lines"))));
  };
};

// ---- a rename chained with a user's step that fails on a marked document -------------------

struct FailOnMarked {
  odm::Document operator()(const odm::Document& stored) const {
    bson_iter_t it;
    if (bson_iter_init_find(&it, stored.get(), "broken")) throw std::runtime_error("broken document");
    return odm::Document::copy_of(stored.get());
  }
};
struct Fragile {
  std::int64_t id = 0;
  std::string name;
  std::int64_t visits = 0;
  struct odm_model {
    static constexpr std::string_view collection = "fragile";
    static constexpr auto schema =
        odm::schema_versions<2>(odm::upgrade<1>(odm::chain(odm::rename_field("hits", "visits"), FailOnMarked{})));
  };
};

}  // namespace adversary_11_retired_itest

namespace {

using namespace adversary_11_retired_itest;
using odm::field;
using odm_test::json;

unsigned seed_from_env(unsigned fallback) {
  const char* env = std::getenv("ODM_ADVERSARY11_RETIRED_SEED");
  return env ? static_cast<unsigned>(std::strtoul(env, nullptr, 10)) : fallback;
}

class Adversary11Retired : public odm_test::DriverTest {
 protected:
  void run(const std::string& command) {
    const odm::Document reply = db().run_command(json(command));
    bson_iter_t it;
    EXPECT_FALSE(bson_iter_init_find(&it, reply.get(), "writeErrors")) << reply.to_json();
  }
  void insert(const std::string& collection, const std::string& documents) {
    run(R"({"insert": ")" + collection + R"(", "documents": [)" + documents + "]}");
  }
  /// The stored document of `_id` id (read raw, nothing upgraded).
  template <class T>
  odm::Document stored(std::int64_t id) {
    auto found = db().collection<T>().template find_one<odm::Document>(odm::Filter<T>::raw(odm::detail::id_filter(id)));
    EXPECT_TRUE(found.has_value()) << "_id " << id;
    return found ? *found : odm::Document();
  }
  template <class T>
  std::int64_t raw_count(const std::string& filter) {
    return db().collection<T>().count(odm::Filter<T>::raw(json(filter)));
  }
  static std::int64_t int_at(const odm::Document& document, const char* path) {
    bson_iter_t it;
    bson_iter_t found;
    if (!bson_iter_init(&it, document.get()) || !bson_iter_find_descendant(&it, path, &found)) return -999999;
    return bson_iter_as_int64(&found);
  }
  static std::string string_at(const odm::Document& document, const char* path) {
    bson_iter_t it;
    bson_iter_t found;
    if (!bson_iter_init(&it, document.get()) || !bson_iter_find_descendant(&it, path, &found) ||
        !BSON_ITER_HOLDS_UTF8(&found))
      return "<none>";
    return bson_iter_utf8(&found, nullptr);
  }
};

// ---- raw updates naming the retired name ---------------------------------------------------

// README: the retired name is unset "where the update does not touch that path itself". A
// raw $rename of the old name onto the new one touches it: it must be sent as written (an
// added `$unset: {hits}` beside it is a conflict MongoDB refuses), and leaves visits = 9.
// odm's test server does not implement $rename: there the update as sent is checked.
TEST_F(Adversary11Retired, ARawRenameOfTheRetiredNameIsNotSentWithAConflictingUnset) {
  insert("counters", R"({"_id": {"$numberLong": "1"}, "name": "n", "hits": {"$numberLong": "9"},
                        "visits": {"$numberLong": "5"}, "schema_version": 2})");
  auto counters = db().collection<Counter>();
  const auto update = odm::Update<Counter>::raw(json(R"({"$rename": {"hits": "visits"}})"));
  const odm::Document sent = odm::detail::update_as_sent(update, odm::Filter<Counter>(field(&Counter::id) == 1), odm::detail::UpdateSpec{}, "update_one");
  EXPECT_FALSE(odm_test::has_key(sent, "$unset.hits")) << sent.to_json();
  EXPECT_FALSE(odm_test::has_key(sent, "$unset.visits")) << sent.to_json();
  std::string error;
  try {
    counters.update_one(field(&Counter::id) == 1, update);
  } catch (const odm::Error& e) {
    error = e.what();
  }
  if (error.find("does not support the $rename") != std::string::npos)
    GTEST_SKIP() << "the engine lacks $rename; the update as sent was checked: " << sent.to_json();
  EXPECT_EQ(error, "");
  const odm::Document document = stored<Counter>(1);
  EXPECT_FALSE(odm_test::has_key(document, "hits")) << document.to_json();
  EXPECT_EQ(int_at(document, "visits"), 9) << document.to_json();
}

// The same with the retired name as the target of a raw $rename (another program's field
// moved onto it): `$rename: {legacy: "hits"}` writes the path hits, so odm must not add
// `$unset: {hits}` beside it: MongoDB refuses two operators on one path ("Updating the path
// 'hits' would create a conflict at 'hits'", ConflictingUpdateOperators).
TEST_F(Adversary11Retired, ARawRenameOntoTheRetiredNameIsSentWithoutAConflictingUnset) {
  insert("counters", R"({"_id": {"$numberLong": "1"}, "name": "n", "visits": {"$numberLong": "5"},
                        "legacy": 3, "schema_version": 2})");
  auto counters = db().collection<Counter>();
  const auto update = odm::Update<Counter>::raw(json(R"({"$rename": {"legacy": "hits"}})"));
  const odm::Document sent = odm::detail::update_as_sent(update, odm::Filter<Counter>(field(&Counter::id) == 1), odm::detail::UpdateSpec{}, "update_one");
  std::string error;
  try {
    counters.update_one(field(&Counter::id) == 1, update);
  } catch (const odm::Error& e) {
    error = e.what();
  }
  EXPECT_FALSE(odm_test::has_key(sent, "$unset.hits")) << sent.to_json();
  if (error.find("does not support the $rename") != std::string::npos)
    GTEST_SKIP() << "the engine lacks $rename; the update as sent was checked: " << sent.to_json();
  EXPECT_EQ(error, "");
  const odm::Document document = stored<Counter>(1);
  EXPECT_EQ(int_at(document, "hits"), 3) << document.to_json();
  EXPECT_FALSE(odm_test::has_key(document, "legacy")) << document.to_json();
}

TEST_F(Adversary11Retired, ARawUnsetOfTheRetiredNameIsAccepted) {
  insert("counters", R"({"_id": {"$numberLong": "1"}, "name": "n", "hits": {"$numberLong": "9"},
                        "visits": {"$numberLong": "9"}, "schema_version": 2})");
  auto counters = db().collection<Counter>();
  std::string error;
  try {
    counters.update_one(field(&Counter::id) == 1,
                        odm::Update<Counter>::raw(json(R"({"$unset": {"hits": ""}, "$set": {"name": "m"}})")));
  } catch (const odm::Error& e) {
    error = e.what();
  }
  EXPECT_EQ(error, "");
  const odm::Document document = stored<Counter>(1);
  EXPECT_FALSE(odm_test::has_key(document, "hits")) << document.to_json();
  EXPECT_EQ(string_at(document, "name"), "m");
  EXPECT_EQ(int_at(document, "visits"), 9);
}

// A raw $set of a sub-path of the retired name touches it (MongoDB refuses `$set: {hits.d}`
// beside `$unset: {hits}` as a conflict): sent as written.
TEST_F(Adversary11Retired, ARawSetOfASubPathOfTheRetiredNameIsNotAConflict) {
  insert("counters", R"({"_id": {"$numberLong": "1"}, "name": "n", "hits": {"d": 1},
                        "visits": {"$numberLong": "9"}, "schema_version": 2})");
  auto counters = db().collection<Counter>();
  std::string error;
  try {
    counters.update_one(field(&Counter::id) == 1, odm::Update<Counter>::raw(json(R"({"$set": {"hits.d": 2}})")));
  } catch (const odm::Error& e) {
    error = e.what();
  }
  EXPECT_EQ(error, "");
  EXPECT_EQ(int_at(stored<Counter>(1), "hits.d"), 2) << stored<Counter>(1).to_json();
}

// ---- a retired name that is a string prefix of a member ------------------------------------

// `hits_today` starts with `hits` but is another path: its update does not touch `hits`,
// which is unset beside it; and `hits_today` is kept by updates of other members.
TEST_F(Adversary11Retired, AMemberTheRetiredNameIsAPrefixOfIsNotMistakenForIt) {
  insert("counters", R"({"_id": {"$numberLong": "1"}, "name": "n", "hits": {"$numberLong": "9"},
                        "visits": {"$numberLong": "9"}, "hits_today": {"$numberLong": "2"}, "schema_version": 2})");
  auto counters = db().collection<Counter>();
  counters.update_one(field(&Counter::id) == 1, field(&Counter::hits_today).inc(std::int64_t{1}));
  odm::Document document = stored<Counter>(1);
  EXPECT_FALSE(odm_test::has_key(document, "hits")) << document.to_json();
  EXPECT_EQ(int_at(document, "hits_today"), 3);
  run(R"({"update": "counters", "updates": [{"q": {"_id": 1}, "u": {"$set": {"hits": 9}}}]})");
  counters.update_one(field(&Counter::id) == 1, field(&Counter::name).set(std::string("m")));
  document = stored<Counter>(1);
  EXPECT_FALSE(odm_test::has_key(document, "hits")) << document.to_json();
  EXPECT_EQ(int_at(document, "hits_today"), 3) << document.to_json();
  EXPECT_EQ(int_at(document, "visits"), 9);
}

// ---- a nested retired name -------------------------------------------------------------------

// Each write path of the contract release over a current document the expand release wrote
// home.road back to: home.road is gone, home.street and home.number are what was written.
TEST_F(Adversary11Retired, EveryWritePathUnsetsANestedRetiredName) {
  const auto write_back = [&] {
    run(R"({"update": "people", "updates": [{"q": {"_id": 1}, "u": {"$set": {"home.road": "stale"}}}]})");
  };
  insert("people", R"({"_id": {"$numberLong": "1"}, "name": "n", "home": {"street": "s", "road": "s", "number": 1},
                      "schema_version": 2})");
  auto people = db().collection<Person>();
  std::vector<std::string> left;
  const auto check = [&](const char* path_name, const char* street, std::int64_t number) {
    const odm::Document document = stored<Person>(1);
    if (odm_test::has_key(document, "home.road")) left.push_back(std::string(path_name) + ": " + document.to_json());
    EXPECT_EQ(string_at(document, "home.street"), street) << path_name << ": " << document.to_json();
    EXPECT_EQ(int_at(document, "home.number"), number) << path_name << ": " << document.to_json();
  };
  const auto number = field(&Person::home) / &Address::number;
  const auto street = field(&Person::home) / &Address::street;

  people.update_one(field(&Person::id) == 1, field(&Person::name).set(std::string("a")));
  check("update of another member", "s", 1);
  write_back();
  people.update_one(field(&Person::id) == 1, number.inc(std::int32_t{2}));
  check("inc of a sibling", "s", 3);
  write_back();
  people.update_one(field(&Person::id) == 1, street.set(std::string("t")));
  check("set of the new name", "t", 3);
  write_back();
  (void)people.find_one_and_update(field(&Person::id) == 1, number.inc(std::int32_t{1}));
  check("find_one_and_update", "t", 4);
  write_back();
  {
    odm::Tracked<Person> person = odm::track(people.get_by_id(1));
    person->home.number = 5;
    person.save(people);
  }
  check("tracked save of a sibling", "t", 5);
  write_back();
  {
    odm::Tracked<Person> person = odm::track(people.get_by_id(1));
    person->name = "b";
    person.save(people);
  }
  check("tracked save of another member", "t", 5);
  write_back();
  {
    Person person = people.get_by_id(1);
    person.home.number = 6;
    people.replace_one(field(&Person::id) == 1, person);
  }
  check("replace_one", "t", 6);
  write_back();
  people.bulk_write().update_many(odm::Filter<Person>(), number.inc(std::int32_t{1})).execute();
  check("bulk update_many", "t", 7);
  write_back();
  people.update_many(odm::Filter<Person>(), odm::Update<Person>::raw(json(R"({"$inc": {"home.number": 1}})")));
  check("raw update_many", "t", 8);
  const odm::MigrationReport report = odm::Migration<Person>(db()).run();
  if (odm_test::has_key(stored<Person>(1), "home.road"))
    left.push_back("the Migration (migrated " + std::to_string(report.migrated) + "): " + stored<Person>(1).to_json());
  std::string all;
  for (const std::string& one : left) all += one + "\n";
  EXPECT_TRUE(left.empty()) << all;
}

// Setting the whole parent of a nested retired name touches it (`$set: {home}` beside
// `$unset: {home.road}` is a conflict): the write is accepted and home is the value set.
TEST_F(Adversary11Retired, SettingTheParentOfANestedRetiredNameIsNotAConflict) {
  insert("people", R"({"_id": {"$numberLong": "1"}, "name": "n", "home": {"street": "s", "road": "s", "number": 1},
                      "schema_version": 2})");
  auto people = db().collection<Person>();
  std::string error;
  try {
    people.update_one(field(&Person::id) == 1, field(&Person::home).set(Address{"x", 7}));
  } catch (const odm::Error& e) {
    error = e.what();
  }
  const odm::Document document = stored<Person>(1);
  EXPECT_EQ(error, "");
  EXPECT_FALSE(odm_test::has_key(document, "home.road")) << document.to_json();
  EXPECT_EQ(string_at(document, "home.street"), "x") << document.to_json();
  EXPECT_EQ(int_at(document, "home.number"), 7) << document.to_json();
  // A tracked save whose change is the whole parent (its type changes from null to a
  // document is not possible here; a change of both members is followed to the leaves).
  run(R"({"update": "people", "updates": [{"q": {"_id": 1}, "u": {"$set": {"home.road": "stale"}}}]})");
  odm::Tracked<Person> person = odm::track(people.get_by_id(1));
  person->home = Address{"y", 8};
  person.save(people);
  const odm::Document saved = stored<Person>(1);
  EXPECT_FALSE(odm_test::has_key(saved, "home.road")) << saved.to_json();
  EXPECT_EQ(string_at(saved, "home.street"), "y") << saved.to_json();
}

// update_many over documents whose parent of the retired name is null, missing, a document
// holding both names, and an older document (v1's): all are written, none keeps home.road,
// and null/missing parents stay as they were.
TEST_F(Adversary11Retired, AnUpdateManyOverParentsNullMissingAndOlderWritesThemAll) {
  insert("opt_people", R"({"_id": {"$numberLong": "1"}, "name": "n", "home": null, "schema_version": 2},
                          {"_id": {"$numberLong": "2"}, "name": "n", "schema_version": 2},
                          {"_id": {"$numberLong": "3"}, "name": "n", "home": {"street": "s", "road": "s", "number": 3},
                           "schema_version": 2},
                          {"_id": {"$numberLong": "4"}, "name": "n", "home": {"road": "old", "number": 4}})");
  auto people = db().collection<OptPerson>();
  std::string error;
  std::int64_t matched = -1;
  try {
    matched = people.update_many(odm::Filter<OptPerson>(), field(&OptPerson::name).set(std::string("z"))).matched;
  } catch (const odm::Error& e) {
    error = e.what();
  }
  EXPECT_EQ(error, "");
  EXPECT_EQ(matched, 4);
  EXPECT_EQ(raw_count<OptPerson>(R"({"name": "z"})"), 4);
  const std::int64_t holding = raw_count<OptPerson>(R"({"home.road": {"$exists": true}})");
  EXPECT_EQ(holding, 0);
  EXPECT_EQ(raw_count<OptPerson>(R"({"_id": 1, "home": null})"), 1);
  EXPECT_EQ(raw_count<OptPerson>(R"({"_id": 2, "home": {"$exists": false}})"), 1);
  EXPECT_EQ(string_at(stored<OptPerson>(4), "home.street"), "old");
  EXPECT_EQ(string_at(stored<OptPerson>(3), "home.street"), "s");
  for (std::int64_t id = 1; id <= 4; ++id) EXPECT_EQ(people.get_by_id(id).name, "z");
}

// ---- a retired name under an array parent ---------------------------------------------------

// rename_field("lines.qty", "lines.count") names both in one parent, an array of structs.
// include/odm/evolution/rename.hpp says such a parent "is refused when a document is read: a
// step does not rename inside array elements": reading v1's document is that error (not a
// document read with counts of 0), and a write of the current document does not fail.
TEST_F(Adversary11Retired, ARenameInsideArrayElementsIsRefusedWhenAnOlderDocumentIsRead) {
  insert("orders", R"({"_id": {"$numberLong": "1"}, "note": "v1", "lines": [{"sku": "a", "qty": 2}, {"sku": "b", "qty": 3}]},
                      {"_id": {"$numberLong": "2"}, "note": "v2", "lines": [{"sku": "a", "qty": 4, "count": 4}],
                       "schema_version": 2})");
  auto orders = db().collection<Order>();
  std::string read;
  try {
    const Order order = orders.get_by_id(1);
    read = "read, counts " + std::to_string(order.lines.at(0).count);
  } catch (const odm::Error& e) {
    read = e.what();
  }
  EXPECT_NE(read.find("array"), std::string::npos) << read;
  EXPECT_EQ(orders.update_one(field(&Order::id) == 2, field(&Order::note).set(std::string("w"))).matched, 1);
  EXPECT_EQ(orders.get_by_id(2).lines.at(0).count, 4);
  EXPECT_EQ(orders.get_by_id(2).note, "w");
}

// ---- upserts ---------------------------------------------------------------------------------

// Every upsert path that inserts stores no retired name, even when the raw filter seeds it
// (MongoDB copies a filter's equality into the inserted document before applying the update),
// and stamps the current version.
TEST_F(Adversary11Retired, UpsertsThatInsertStoreNoRetiredName) {
  auto counters = db().collection<Counter>();
  const auto whole = [](std::int64_t v) {
    return field(&Counter::visits).set(v) + field(&Counter::name).set(std::string("u"));
  };
  counters.update_one(odm::Filter<Counter>::raw(json(R"({"_id": {"$numberLong": "1"}, "hits": {"$numberLong": "5"}})")),
                      whole(1), odm::UpdateOptions<Counter>{}.upsert());
  counters.update_many(field(&Counter::id) == 2, whole(2), odm::UpdateOptions<Counter>{}.upsert());
  (void)counters.find_one_and_update(
      odm::Filter<Counter>::raw(json(R"({"_id": {"$numberLong": "3"}, "hits": {"$numberLong": "5"}})")), whole(3),
      odm::FindOneAndUpdateOptions<Counter>{}.upsert());
  counters.bulk_write()
      .update_one(odm::Filter<Counter>::raw(json(R"({"_id": {"$numberLong": "4"}, "hits": {"$numberLong": "5"}})")),
                  whole(4), odm::UpdateOptions<Counter>{}.upsert())
      .execute();
  counters.replace_one(field(&Counter::id) == 5, Counter{5, "u", 5, 0}, odm::ReplaceOptions<Counter>{}.upsert());
  counters.update_one(odm::Filter<Counter>::raw(json(R"({"_id": {"$numberLong": "6"}, "hits": {"$numberLong": "5"}})")),
                      odm::Update<Counter>::raw(json(R"({"$set": {"visits": {"$numberLong": "6"}, "name": "u"}})")),
                      odm::UpdateOptions<Counter>{}.upsert());
  for (std::int64_t id = 1; id <= 6; ++id) {
    const odm::Document document = stored<Counter>(id);
    SCOPED_TRACE(document.to_json());
    EXPECT_FALSE(odm_test::has_key(document, "hits"));
    EXPECT_EQ(int_at(document, "schema_version"), 2);
    EXPECT_EQ(counters.get_by_id(id).visits, id);
    EXPECT_EQ(db().collection<ExpandCounter>().get_by_id(id).visits, id);
  }
}

// An upsert that matches (does not insert) a current document holding the retired name
// unsets it too, and keeps the document's own version.
TEST_F(Adversary11Retired, AnUpsertThatMatchesUnsetsTheRetiredName) {
  insert("counters", R"({"_id": {"$numberLong": "1"}, "name": "n", "hits": {"$numberLong": "9"},
                        "visits": {"$numberLong": "9"}, "schema_version": 2})");
  auto counters = db().collection<Counter>();
  const auto result =
      counters.update_one(field(&Counter::id) == 1, field(&Counter::visits).inc(std::int64_t{1}), odm::UpdateOptions<Counter>{}.upsert());
  EXPECT_EQ(result.matched, 1);
  const odm::Document document = stored<Counter>(1);
  EXPECT_FALSE(odm_test::has_key(document, "hits")) << document.to_json();
  EXPECT_EQ(int_at(document, "visits"), 10);
  EXPECT_EQ(raw_count<Counter>("{}"), 1);
}

// ---- update_many over mixed documents ----------------------------------------------------------

// v1's document (hits only, no version), a current one v2 wrote both names to, a clean current
// one: an increment of visits reads 4, 10, 5 in both releases and no document keeps hits.
TEST_F(Adversary11Retired, AnUpdateManyOverMixedDocumentsIncrementsTheValueEachRead) {
  const std::string documents = R"({"_id": {"$numberLong": "1"}, "name": "v1", "hits": {"$numberLong": "3"}},
      {"_id": {"$numberLong": "2"}, "name": "v2", "hits": {"$numberLong": "9"}, "visits": {"$numberLong": "9"},
       "schema_version": 2},
      {"_id": {"$numberLong": "3"}, "name": "v3", "visits": {"$numberLong": "4"}, "schema_version": 2})";
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round == 0 ? "update_many" : "bulk update_many");
    run(R"({"delete": "counters", "deletes": [{"q": {}, "limit": 0}]})");
    insert("counters", documents);
    auto counters = db().collection<Counter>();
    if (round == 0)
      EXPECT_EQ(counters.update_many(odm::Filter<Counter>(), field(&Counter::visits).inc(std::int64_t{1})).matched, 3);
    else
      counters.bulk_write().update_many(odm::Filter<Counter>(), field(&Counter::visits).inc(std::int64_t{1})).execute();
    EXPECT_EQ(raw_count<Counter>(R"({"hits": {"$exists": true}})"), 0);
    const std::map<std::int64_t, std::int64_t> expected{{1, 4}, {2, 10}, {3, 5}};
    for (const auto& [id, visits] : expected) {
      EXPECT_EQ(counters.get_by_id(id).visits, visits) << id;
      EXPECT_EQ(db().collection<ExpandCounter>().get_by_id(id).visits, visits) << id;
    }
  }
}

// ---- another BSON type under the retired name -----------------------------------------------

// Another program wrote a string, an array, a document under hits of current documents: the
// contract release reads visits, its writes and its Migration remove hits, visits is kept.
TEST_F(Adversary11Retired, ARetiredNameOfAnotherTypeIsRemovedAndTheValueKept) {
  insert("counters", R"({"_id": {"$numberLong": "1"}, "name": "n", "hits": "five", "visits": {"$numberLong": "5"},
                        "schema_version": 2},
                        {"_id": {"$numberLong": "2"}, "name": "n", "hits": [1, 2], "visits": {"$numberLong": "6"},
                        "schema_version": 2},
                        {"_id": {"$numberLong": "3"}, "name": "n", "hits": {"x": 1}, "visits": {"$numberLong": "7"},
                        "schema_version": 2},
                        {"_id": {"$numberLong": "4"}, "name": "n", "hits": null, "visits": {"$numberLong": "8"},
                        "schema_version": 2})");
  auto counters = db().collection<Counter>();
  for (std::int64_t id = 1; id <= 4; ++id) EXPECT_EQ(counters.get_by_id(id).visits, id + 4);
  counters.update_one(field(&Counter::id) == 1, field(&Counter::name).set(std::string("m")));
  EXPECT_FALSE(odm_test::has_key(stored<Counter>(1), "hits"));
  const odm::MigrationReport report = odm::Migration<Counter>(db()).run();
  EXPECT_EQ(report.remaining, 0);
  EXPECT_EQ(raw_count<Counter>(R"({"hits": {"$exists": true}})"), 0);
  for (std::int64_t id = 1; id <= 4; ++id) EXPECT_EQ(counters.get_by_id(id).visits, id + 4);
  EXPECT_EQ(odm::Migration<Counter>(db()).run().migrated, 0);
}

// A document of a newer version than the model's that holds the retired name (the next
// release may bring it back) is left alone by the Migration and counted as newer.
TEST_F(Adversary11Retired, TheMigrationLeavesANewerDocumentHoldingTheRetiredNameAlone) {
  insert("counters", R"({"_id": {"$numberLong": "1"}, "name": "n", "hits": {"$numberLong": "1"},
                        "visits": {"$numberLong": "2"}, "schema_version": 3},
                        {"_id": {"$numberLong": "2"}, "name": "n", "hits": {"$numberLong": "5"},
                        "visits": {"$numberLong": "5"}, "schema_version": 2})");
  const odm::MigrationReport report = odm::Migration<Counter>(db()).run();
  EXPECT_EQ(report.newer, 1);
  EXPECT_EQ(raw_count<Counter>(R"({"_id": 1, "hits": 1, "visits": 2, "schema_version": 3})"), 1);
  EXPECT_FALSE(odm_test::has_key(stored<Counter>(2), "hits"));
  const odm::MigrationReport again = odm::Migration<Counter>(db()).run();
  EXPECT_EQ(report.remaining, 0);
  EXPECT_EQ(again.remaining, 0);
  EXPECT_EQ(again.newer, 1);
}

// The contract release as the older program during the next deploy (reading_newer): the
// next release brought the name `hits` back as a field of its own. A typed update by the
// contract release of such a newer document changes only what it names: README, "nothing
// odm writes erases" the fields a model does not know, and the older release "changes
// them with update_one or an odm::Tracked save, which leave the version alone"; the
// Migration leaves such a document alone (previous test).
struct ReadingNewerCounter {
  std::int64_t id = 0;
  std::string name;
  std::int64_t visits = 0;
  struct odm_model {
    static constexpr std::string_view collection = "counters";
    static constexpr auto schema =
        odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("hits", "visits"))).reading_newer();
  };
};

TEST_F(Adversary11Retired, AnUpdateOfANewerDocumentKeepsAFieldTheNextReleaseNamedLikeTheRetiredOne) {
  insert("counters", R"({"_id": {"$numberLong": "1"}, "name": "n", "visits": {"$numberLong": "5"},
                        "hits": {"$numberLong": "99"}, "schema_version": 3})");
  auto counters = db().collection<ReadingNewerCounter>();
  EXPECT_EQ(counters.get_by_id(1).visits, 5);
  counters.update_one(field(&ReadingNewerCounter::id) == 1, field(&ReadingNewerCounter::name).set(std::string("m")));
  const odm::Document document = stored<ReadingNewerCounter>(1);
  EXPECT_EQ(string_at(document, "name"), "m");
  if (!odm_test::has_key(document, "hits"))
    GTEST_SKIP() << "defect: the contract release's update of a newer document (schema_version 3, read through "
                    "reading_newer) unsets a field of the next release that reuses the retired name: "
                 << document.to_json();
  EXPECT_EQ(int_at(document, "hits"), 99);
  EXPECT_EQ(int_at(document, "schema_version"), 3);
}

// ---- rename chains --------------------------------------------------------------------------

// a -> b -> c across three versions: documents at each version, some holding a retired name
// written back; the value read is the documented rule's, and a write retires a and b.
constexpr const char* chain_documents =
    R"({"_id": {"$numberLong": "1"}, "name": "n", "a": {"$numberLong": "1"}},
       {"_id": {"$numberLong": "2"}, "name": "n", "b": {"$numberLong": "2"}, "schema_version": 2},
       {"_id": {"$numberLong": "3"}, "name": "n", "b": {"$numberLong": "3"}, "a": {"$numberLong": "3"}, "schema_version": 2},
       {"_id": {"$numberLong": "4"}, "name": "n", "c": {"$numberLong": "4"}, "b": {"$numberLong": "4"}, "schema_version": 3},
       {"_id": {"$numberLong": "5"}, "name": "n", "c": {"$numberLong": "5"}, "a": {"$numberLong": "5"}, "schema_version": 3})";

TEST_F(Adversary11Retired, ARenameChainAcrossThreeVersionsRetiresBothOldNamesOnWrite) {
  insert("items", chain_documents);
  auto items = db().collection<Item>();
  for (std::int64_t id = 1; id <= 5; ++id) EXPECT_EQ(items.get_by_id(id).c, id);
  EXPECT_EQ(items.update_many(odm::Filter<Item>(), field(&Item::name).set(std::string("m"))).matched, 5);
  EXPECT_EQ(raw_count<Item>(R"({"$or": [{"a": {"$exists": true}}, {"b": {"$exists": true}}]})"), 0);
  EXPECT_EQ(raw_count<Item>(R"({"schema_version": 3})"), 5);
  for (std::int64_t id = 1; id <= 5; ++id) EXPECT_EQ(items.get_by_id(id).c, id);
}

TEST_F(Adversary11Retired, ARenameChainAcrossThreeVersionsIsMigratedWhole) {
  insert("items", chain_documents);
  const odm::MigrationReport report = odm::Migration<Item>(db()).batch_size(2).run();
  EXPECT_EQ(report.remaining, 0);
  EXPECT_EQ(raw_count<Item>(R"({"$or": [{"a": {"$exists": true}}, {"b": {"$exists": true}}]})"), 0)
      << "migrated " << report.migrated;
  auto items = db().collection<Item>();
  for (std::int64_t id = 1; id <= 5; ++id) EXPECT_EQ(items.get_by_id(id).c, id);
  EXPECT_EQ(odm::Migration<Item>(db()).run().migrated, 0);
}

// Two renames in one step (odm::chain) retire both names.
TEST_F(Adversary11Retired, AChainOfTwoRenamesInOneStepRetiresBoth) {
  insert("multis", R"({"_id": {"$numberLong": "1"}, "name": "n", "hits": {"$numberLong": "1"}, "items": {"$numberLong": "2"},
                      "visits": {"$numberLong": "1"}, "lines": {"$numberLong": "2"}, "schema_version": 2},
                      {"_id": {"$numberLong": "2"}, "name": "n", "hits": {"$numberLong": "3"}, "items": {"$numberLong": "4"}})");
  auto multis = db().collection<Multi>();
  multis.update_one(field(&Multi::id) == 1, field(&Multi::name).set(std::string("m")));
  const odm::Document document = stored<Multi>(1);
  EXPECT_FALSE(odm_test::has_key(document, "hits")) << document.to_json();
  EXPECT_FALSE(odm_test::has_key(document, "items")) << document.to_json();
  odm::Tracked<Multi> two = odm::track(multis.get_by_id(2));
  EXPECT_EQ(two->visits, 3);
  EXPECT_EQ(two->lines, 4);
  two->name = "m";
  two.save(multis);
  const odm::Document saved = stored<Multi>(2);
  EXPECT_FALSE(odm_test::has_key(saved, "hits")) << saved.to_json();
  EXPECT_FALSE(odm_test::has_key(saved, "items")) << saved.to_json();
  EXPECT_EQ(int_at(saved, "visits"), 3);
  EXPECT_EQ(int_at(saved, "lines"), 4);
}

// ---- a retired name a later step reuses ---------------------------------------------------------

// total -> amount (version 1 to 2), then sum -> total (2 to 3): `total` is a member of the
// current version, so no document of it is rid of `total`. README: the old name is retired
// because "no document of the current version holds it"; here every current document does,
// so unsetting it loses the member's value.
TEST_F(Adversary11Retired, ANameALaterStepReusesIsNotUnsetByWrites) {
  insert("prices", R"({"_id": {"$numberLong": "1"}, "amount": {"$numberLong": "10"}, "total": {"$numberLong": "20"},
                      "schema_version": 3},
                      {"_id": {"$numberLong": "2"}, "amount": {"$numberLong": "11"}, "total": {"$numberLong": "21"},
                      "schema_version": 3},
                      {"_id": {"$numberLong": "3"}, "amount": {"$numberLong": "12"}, "total": {"$numberLong": "22"},
                      "schema_version": 3})");
  auto prices = db().collection<Price>();
  prices.update_one(field(&Price::id) == 1, field(&Price::amount).inc(std::int64_t{1}));
  {
    odm::Tracked<Price> two = odm::track(prices.get_by_id(2));
    two->amount = 50;
    two.save(prices);
  }
  odm::MigrationReport report = odm::Migration<Price>(db()).run();
  std::string lost;
  for (std::int64_t id = 1; id <= 3; ++id) {
    const odm::Document document = stored<Price>(id);
    if (!odm_test::has_key(document, "total")) lost += document.to_json() + " ";
  }
  if (!lost.empty())
    GTEST_SKIP() << "defect: a name retired by an earlier step and reused as a member by a later one "
                    "(rename_field(\"total\", \"amount\") then rename_field(\"sum\", \"total\")) is unset by the "
                    "contract release's writes and Migration (migrated "
                 << report.migrated << "): " << lost;
  EXPECT_EQ(prices.get_by_id(1).total, 20);
  EXPECT_EQ(prices.get_by_id(2).total, 21);
  EXPECT_EQ(prices.get_by_id(3).total, 22);
  EXPECT_EQ(report.migrated, 0);
}

// The same in one odm::chain: total -> amount, then sum -> total.
TEST_F(Adversary11Retired, ANameALaterRenameInTheSameChainReusesIsNotUnsetByWrites) {
  insert("chained_prices", R"({"_id": {"$numberLong": "1"}, "amount": {"$numberLong": "10"},
                              "total": {"$numberLong": "20"}, "schema_version": 2},
                              {"_id": {"$numberLong": "2"}, "total": {"$numberLong": "7"}, "sum": {"$numberLong": "8"}})");
  auto prices = db().collection<ChainedPrice>();
  const ChainedPrice older = prices.get_by_id(2);
  EXPECT_EQ(older.amount, 7);
  EXPECT_EQ(older.total, 8);
  prices.update_one(field(&ChainedPrice::id) == 1, field(&ChainedPrice::amount).inc(std::int64_t{1}));
  prices.update_one(field(&ChainedPrice::id) == 2, field(&ChainedPrice::amount).inc(std::int64_t{1}));
  std::string lost;
  for (std::int64_t id = 1; id <= 2; ++id) {
    const odm::Document document = stored<ChainedPrice>(id);
    if (!odm_test::has_key(document, "total")) lost += document.to_json() + " ";
  }
  if (!lost.empty())
    GTEST_SKIP() << "defect: in odm::chain(rename_field(\"total\", \"amount\"), rename_field(\"sum\", \"total\")) the "
                    "first rename's old name is the second's new name, a current member, and writes unset it: "
                 << lost;
  EXPECT_EQ(prices.get_by_id(1).total, 20);
  EXPECT_EQ(prices.get_by_id(2).total, 8);
  EXPECT_EQ(prices.get_by_id(2).amount, 8);
}

// ---- an interrupted Migration ----------------------------------------------------------------

// Older documents and current ones holding hits, in batches of 3, stopped by an exception
// from on_progress after the first batch; the resumed run leaves no hits and every value.
TEST_F(Adversary11Retired, AnInterruptedMigrationResumesAndRetiresEveryOldName) {
  std::string documents;
  for (int id = 1; id <= 14; ++id) {
    if (!documents.empty()) documents += ",";
    const std::string v = std::to_string(id * 10);
    documents += R"({"_id": {"$numberLong": ")" + std::to_string(id) + R"("}, "name": "n", "hits": {"$numberLong": ")" +
                 v + "\"}" +
                 (id % 2 == 0 ? R"(, "visits": {"$numberLong": ")" + v + R"("}, "schema_version": 2)" : std::string()) +
                 "}";
  }
  insert("counters", documents);
  int calls = 0;
  std::string stopped;
  try {
    odm::Migration<Counter>(db())
        .batch_size(3)
        .on_progress([&](const odm::MigrationProgress&) {
          if (++calls == 1) throw std::runtime_error("stop");
        })
        .run();
  } catch (const std::exception& e) {
    stopped = e.what();
  }
  EXPECT_EQ(stopped, "stop");
  const std::int64_t left_after_stop = raw_count<Counter>(R"({"hits": {"$exists": true}})");
  EXPECT_GT(left_after_stop, 0);
  const odm::MigrationReport report = odm::Migration<Counter>(db()).batch_size(3).run();
  EXPECT_EQ(report.remaining, 0);
  EXPECT_EQ(raw_count<Counter>(R"({"hits": {"$exists": true}})"), 0) << "left after the stop " << left_after_stop;
  EXPECT_EQ(raw_count<Counter>(R"({"schema_version": 2})"), 14);
  auto counters = db().collection<Counter>();
  for (std::int64_t id = 1; id <= 14; ++id) EXPECT_EQ(counters.get_by_id(id).visits, id * 10);
  EXPECT_EQ(odm::Migration<Counter>(db()).run().migrated, 0);
}

// ---- v2 and v3 side by side from several threads, then a Migration beside v3 -------------------

// Owned documents (each touched by one thread only, random operations of both releases
// checked against a reference value) and shared documents (increments by v3 from every
// thread, name-only writes by v2). v2 changes visits only whole (README). After phase 1
// both releases read the reference; in phase 2 v3's writers run beside a Migration; after a
// final Migration no document holds hits and every value is the reference's.
TEST_F(Adversary11Retired, TheExpandAndContractReleasesFromManyThreadsThenAMigrationLoseNothing) {
  const unsigned seed = seed_from_env(std::random_device{}());
  std::cout << "ODM_ADVERSARY11_RETIRED_SEED=" << seed << "\n";
  SCOPED_TRACE("ODM_ADVERSARY11_RETIRED_SEED=" + std::to_string(seed));
  constexpr int threads = 4;
  constexpr int owned_per_thread = 4;
  constexpr std::int64_t shared_first = 1000;
  constexpr int shared = 3;
  // Owned documents: even ones start as v1's (hits only), odd ones as v3's.
  std::string documents;
  std::map<std::int64_t, std::int64_t> reference;
  for (int t = 0; t < threads; ++t)
    for (int k = 0; k < owned_per_thread; ++k) {
      const std::int64_t id = t * 100 + k + 1;
      reference[id] = id;
      if (!documents.empty()) documents += ",";
      const std::string v = std::to_string(id);
      documents += R"({"_id": {"$numberLong": ")" + v + R"("}, "name": "n", )" +
                   (k % 2 == 0 ? R"("hits": {"$numberLong": ")" + v + "\"}"
                               : R"("visits": {"$numberLong": ")" + v + R"("}, "schema_version": 2)") +
                   "}";
    }
  for (int s = 0; s < shared; ++s) {
    const std::string v = std::to_string(shared_first + s);
    documents += R"(,{"_id": {"$numberLong": ")" + v + R"("}, "name": "n", "hits": {"$numberLong": "0"}})";
  }
  insert("counters", documents);
  std::atomic<std::int64_t> shared_increments[shared];
  for (auto& one : shared_increments) one = 0;
  std::mutex errors_mutex;
  std::vector<std::string> errors;
  const auto record = [&](const std::string& what) {
    std::lock_guard<std::mutex> lock(errors_mutex);
    errors.push_back(what);
  };

  const auto phase = [&](bool with_v2, int operations, std::uint64_t phase_seed) {
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        std::mt19937_64 rng(phase_seed * 1000003u + static_cast<std::uint64_t>(t));
        auto v3 = db().collection<Counter>();
        auto v2 = db().collection<ExpandCounter>();
        for (int i = 0; i < operations; ++i) {
          try {
            if (rng() % 3 == 0) {
              const int s = static_cast<int>(rng() % shared);
              const std::int64_t id = shared_first + s;
              if (with_v2 && rng() % 2 == 0) {
                v2.update_one(field(&ExpandCounter::id) == id,
                              field(&ExpandCounter::name).set("t" + std::to_string(t)));
              } else {
                const std::int64_t by = static_cast<std::int64_t>(rng() % 5) + 1;
                v3.update_one(field(&Counter::id) == id, field(&Counter::visits).inc(by));
                shared_increments[s] += by;
              }
              continue;
            }
            const std::int64_t id = t * 100 + static_cast<std::int64_t>(rng() % owned_per_thread) + 1;
            const std::int64_t value = static_cast<std::int64_t>(rng() % 1000);
            const int op = static_cast<int>(rng() % (with_v2 ? 10 : 6));
            std::int64_t& expected = reference.at(id);
            switch (op) {
              case 0:
                v3.update_one(field(&Counter::id) == id, field(&Counter::visits).inc(value));
                expected += value;
                break;
              case 1:
                v3.update_one(field(&Counter::id) == id, field(&Counter::visits).set(value));
                expected = value;
                break;
              case 2: {
                odm::Tracked<Counter> one = odm::track(v3.get_by_id(id));
                if (one->visits != expected) record("v3 read " + std::to_string(one->visits) + " of " + std::to_string(id));
                one->visits = value;
                one.save(v3);
                expected = value;
                break;
              }
              case 3: {
                Counter one = v3.get_by_id(id);
                one.visits += value;
                v3.replace_one(field(&Counter::id) == id, one);
                expected += value;
                break;
              }
              case 4:
                (void)v3.find_one_and_update(field(&Counter::id) == id, field(&Counter::visits).inc(value));
                expected += value;
                break;
              case 5:
                v3.bulk_write().update_one(field(&Counter::id) == id, field(&Counter::visits).set(value)).execute();
                expected = value;
                break;
              case 6:
                v2.update_one(field(&ExpandCounter::id) == id, field(&ExpandCounter::visits).set(value));
                expected = value;
                break;
              case 7: {
                odm::Tracked<ExpandCounter> one = odm::track(v2.get_by_id(id));
                if (one->visits != expected) record("v2 read " + std::to_string(one->visits) + " of " + std::to_string(id));
                one->visits = value;
                one.save(v2);
                expected = value;
                break;
              }
              case 8: {
                ExpandCounter one = v2.get_by_id(id);
                if (one.visits != expected) record("v2 read " + std::to_string(one.visits) + " of " + std::to_string(id));
                one.visits = value;
                v2.replace_one(field(&ExpandCounter::id) == id, one);
                expected = value;
                break;
              }
              default: {
                // v2's tracked save of another member: its visits stay as they are.
                odm::Tracked<ExpandCounter> one = odm::track(v2.get_by_id(id));
                one->name = "x" + std::to_string(value);
                one.save(v2);
                break;
              }
            }
          } catch (const odm::Error& e) {
            record(std::string("operation failed: ") + e.what());
          }
        }
      });
    for (std::thread& worker : workers) worker.join();
  };
  // reference[] entries are each touched by one thread only; the map itself is not resized.
  phase(true, 150, seed);
  const auto check = [&](const char* when, bool v2_too) {
    SCOPED_TRACE(when);
    auto v3 = db().collection<Counter>();
    auto v2 = db().collection<ExpandCounter>();
    for (const auto& [id, value] : reference) {
      EXPECT_EQ(v3.get_by_id(id).visits, value) << id << " " << stored<Counter>(id).to_json();
      if (v2_too) {
        EXPECT_EQ(v2.get_by_id(id).visits, value) << id << " " << stored<Counter>(id).to_json();
      }
    }
    for (int s = 0; s < shared; ++s) {
      EXPECT_EQ(v3.get_by_id(shared_first + s).visits, shared_increments[s].load()) << shared_first + s;
      if (v2_too) {
        EXPECT_EQ(v2.get_by_id(shared_first + s).visits, shared_increments[s].load()) << shared_first + s;
      }
    }
  };
  check("after v2 and v3", true);
  // Phase 2: v3 only, beside a Migration that runs repeatedly.
  std::atomic<bool> done{false};
  std::thread migrator([&] {
    while (!done) {
      try {
        (void)odm::Migration<Counter>(db()).batch_size(2).run();
      } catch (const odm::Error& e) {
        record(std::string("concurrent migration: ") + e.what());
        return;
      }
    }
  });
  phase(false, 150, seed + 1);
  done = true;
  migrator.join();
  const odm::MigrationReport report = odm::Migration<Counter>(db()).run();
  EXPECT_EQ(report.remaining, 0);
  EXPECT_EQ(raw_count<Counter>(R"({"hits": {"$exists": true}})"), 0);
  check("after the Migration", true);
  std::string all;
  for (const std::string& one : errors) all += one + "\n";
  EXPECT_TRUE(errors.empty()) << all;
}

// ---- validators ---------------------------------------------------------------------------------

// The contract model's validator (synced after its Migration, as the README says) accepts
// every document the contract release's writes leave: inserts, upserts that insert (with the
// $unset of the retired name and the $setOnInsert of the version), updates, tracked saves
// and replaces of documents that held the retired name.
TEST_F(Adversary11Retired, TheContractValidatorAcceptsWhatTheContractWritesLeave) {
  ODM_REQUIRE(json_schema_validators);
  insert("counters", R"({"_id": {"$numberLong": "1"}, "name": "n", "hits": {"$numberLong": "1"}},
                        {"_id": {"$numberLong": "2"}, "name": "n", "hits": {"$numberLong": "2"},
                         "visits": {"$numberLong": "2"}, "schema_version": 2})");
  (void)odm::Migration<Counter>(db()).run();
  odm::sync_validators<Counter>(db());
  auto counters = db().collection<Counter>();
  std::string refused;
  const auto attempt = [&](const char* what, const auto& write) {
    try {
      write();
    } catch (const odm::Error& e) {
      refused += std::string(what) + ": " + e.what() + "\n";
    }
  };
  attempt("insert_one", [&] { counters.insert_one(Counter{3, "n", 3, 0}); });
  attempt("upsert", [&] {
    counters.update_one(field(&Counter::id) == 4,
                        field(&Counter::visits).set(std::int64_t{4}) + field(&Counter::name).set(std::string("u")) +
                            field(&Counter::hits_today).set(std::int64_t{0}),
                        odm::UpdateOptions<Counter>{}.upsert());
  });
  attempt("update_many", [&] { counters.update_many(odm::Filter<Counter>(), field(&Counter::visits).inc(std::int64_t{1})); });
  attempt("tracked save", [&] {
    odm::Tracked<Counter> one = odm::track(counters.get_by_id(1));
    one->visits = 100;
    one.save(counters);
  });
  attempt("replace_one", [&] {
    Counter two = counters.get_by_id(2);
    two.name = "r";
    counters.replace_one(field(&Counter::id) == 2, two);
  });
  attempt("find_one_and_update upsert", [&] {
    (void)counters.find_one_and_update(field(&Counter::id) == 5,
                                       field(&Counter::visits).set(std::int64_t{5}) +
                                           field(&Counter::name).set(std::string("u")) +
                                           field(&Counter::hits_today).set(std::int64_t{0}),
                                       odm::FindOneAndUpdateOptions<Counter>{}.upsert());
  });
  EXPECT_EQ(refused, "");
  EXPECT_EQ(raw_count<Counter>("{}"), 5);
  EXPECT_EQ(counters.get_by_id(1).visits, 100);
  EXPECT_EQ(counters.get_by_id(2).visits, 3);
  EXPECT_EQ(counters.get_by_id(4).visits, 5);
}

// ---- more write paths --------------------------------------------------------------------

// A Migration stopped by a failing step (chained after the rename) names the document; once
// it is repaired the next run finishes, and no document keeps hits. A chain with a user's
// step still retires the rename's name on writes.
TEST_F(Adversary11Retired, AMigrationStoppedByAFailingStepResumesAfterTheRepair) {
  std::string documents;
  for (int id = 1; id <= 9; ++id) {
    if (!documents.empty()) documents += ",";
    documents += R"({"_id": {"$numberLong": ")" + std::to_string(id) + R"("}, "name": "n", "hits": {"$numberLong": ")" +
                 std::to_string(id) + "\"}" + (id == 5 ? R"(, "broken": true)" : "") + "}";
  }
  documents += R"(,{"_id": {"$numberLong": "10"}, "name": "n", "hits": {"$numberLong": "10"},
                 "visits": {"$numberLong": "10"}, "schema_version": 2})";
  insert("fragile", documents);
  std::string stopped;
  try {
    (void)odm::Migration<Fragile>(db()).batch_size(2).run();
  } catch (const odm::SchemaVersionError& e) {
    stopped = e.what();
  }
  EXPECT_NE(stopped.find("5"), std::string::npos) << stopped;
  run(R"({"update": "fragile", "updates": [{"q": {"_id": 5}, "u": {"$unset": {"broken": ""}}}]})");
  const odm::MigrationReport report = odm::Migration<Fragile>(db()).batch_size(2).run();
  EXPECT_EQ(report.remaining, 0);
  EXPECT_EQ(db().collection<Fragile>().count(odm::Filter<Fragile>::raw(json(R"({"hits": {"$exists": true}})"))), 0);
  auto fragile = db().collection<Fragile>();
  for (std::int64_t id = 1; id <= 10; ++id) EXPECT_EQ(fragile.get_by_id(id).visits, id);
  run(R"({"update": "fragile", "updates": [{"q": {"_id": 10}, "u": {"$set": {"hits": 3}}}]})");
  fragile.update_one(field(&Fragile::id) == 10, field(&Fragile::name).set(std::string("m")));
  EXPECT_FALSE(odm_test::has_key(stored<Fragile>(10), "hits"));
}

// Upserting replaces whose raw filter seeds the retired name store no retired name.
TEST_F(Adversary11Retired, UpsertingReplacesStoreNoRetiredName) {
  auto counters = db().collection<Counter>();
  counters.replace_one(odm::Filter<Counter>::raw(json(R"({"_id": {"$numberLong": "1"}, "hits": {"$numberLong": "5"}})")),
                       Counter{1, "u", 1, 0}, odm::ReplaceOptions<Counter>{}.upsert());
  (void)counters.find_one_and_replace(
      odm::Filter<Counter>::raw(json(R"({"_id": {"$numberLong": "2"}, "hits": {"$numberLong": "5"}})")),
      Counter{2, "u", 2, 0}, odm::FindOneAndReplaceOptions<Counter>{}.upsert());
  counters.bulk_write()
      .replace_one(odm::Filter<Counter>::raw(json(R"({"_id": {"$numberLong": "3"}, "hits": {"$numberLong": "5"}})")),
                   Counter{3, "u", 3, 0}, odm::ReplaceOptions<Counter>{}.upsert())
      .execute();
  for (std::int64_t id = 1; id <= 3; ++id) {
    const odm::Document document = stored<Counter>(id);
    SCOPED_TRACE(document.to_json());
    EXPECT_FALSE(odm_test::has_key(document, "hits"));
    EXPECT_EQ(int_at(document, "schema_version"), 2);
    EXPECT_EQ(db().collection<ExpandCounter>().get_by_id(id).visits, id);
  }
}

// The contract release loads a document, the expand release then sets visits whole (both
// names), the contract release saves a change of another member: v2's value stays and both
// releases read it; a save that changes visits wins and both read it too.
TEST_F(Adversary11Retired, ATrackedSaveAfterTheExpandReleaseWroteBothNamesKeepsOneTruth) {
  auto v3 = db().collection<Counter>();
  auto v2 = db().collection<ExpandCounter>();
  v3.insert_one(Counter{1, "n", 5, 0});
  odm::Tracked<Counter> mine = odm::track(v3.get_by_id(1));
  v2.update_one(field(&ExpandCounter::id) == 1, field(&ExpandCounter::visits).set(std::int64_t{7}));
  mine->name = "m";
  mine.save(v3);
  EXPECT_FALSE(odm_test::has_key(stored<Counter>(1), "hits")) << stored<Counter>(1).to_json();
  EXPECT_EQ(v3.get_by_id(1).visits, 7);
  EXPECT_EQ(v2.get_by_id(1).visits, 7);
  odm::Tracked<Counter> again = odm::track(v3.get_by_id(1));
  v2.update_one(field(&ExpandCounter::id) == 1, field(&ExpandCounter::visits).set(std::int64_t{8}));
  again->visits = 9;
  again.save(v3);
  EXPECT_EQ(v3.get_by_id(1).visits, 9);
  EXPECT_EQ(v2.get_by_id(1).visits, 9) << stored<Counter>(1).to_json();
}

// A raw update with its own $unset: the retired name joins it (one $unset, MongoDB refuses
// an operator twice), and both fields go.
TEST_F(Adversary11Retired, ARawUpdateWithItsOwnUnsetGetsTheRetiredNameMergedIn) {
  insert("counters", R"({"_id": {"$numberLong": "1"}, "name": "n", "hits": {"$numberLong": "9"},
                        "visits": {"$numberLong": "9"}, "other": 1, "schema_version": 2})");
  auto counters = db().collection<Counter>();
  std::string error;
  try {
    counters.update_one(field(&Counter::id) == 1, odm::Update<Counter>::raw(json(R"({"$unset": {"other": ""}})")));
  } catch (const odm::Error& e) {
    error = e.what();
  }
  EXPECT_EQ(error, "");
  const odm::Document document = stored<Counter>(1);
  EXPECT_FALSE(odm_test::has_key(document, "hits")) << document.to_json();
  EXPECT_FALSE(odm_test::has_key(document, "other")) << document.to_json();
  EXPECT_EQ(int_at(document, "visits"), 9);
}

}  // namespace
