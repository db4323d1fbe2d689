// Adversarial probes (adv23) of the recently changed model-evolution behaviours, written
// from the README's "Models that change" and MongoDB's documented semantics:
//  1. upserting replaces (replace_one, find_one_and_replace, a bulk replace_one) of a model
//     with schema versions whose filter does not pin `_id` refuse a newer match; a filter
//     that "pins" `_id` skips the check (probed: a regular expression on a string `_id`,
//     `$in` of one id, a collation, a version stored as a double);
//  2. upsert seeds of a member renamed in its expand phase: every upsert path, an update
//     writing an overlapping path (same, ancestor, descendant, `$rename` target), a sibling,
//     a string-prefix neighbour, the user's own `$setOnInsert`;
//  3. whole-struct comparisons of a struct holding a renamed member, in every position of a
//     filter (negations, `$nor`, nested lists, deletes, counts), `null`/`$exists` passing;
//  4. guarded rewrites that outgrow 16 MiB through the replace paths, and one that fits
//     just below the limit;
//  5. retired names unset by every write unless an overlapping path is written, with
//     hostile parents (an array, a string) and the Migration leaving newer documents alone.
// A probe that shows a defect stays, asserting the documented behaviour, and is skipped
// with `defect:` and what was observed.

#include "driver/support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace adversary_23_itest {

inline odm::Document same(const odm::Document& old) { return odm::Document::copy_of(old.get()); }

// ---- versioned models for the upserting replaces ------------------------------------------

struct Gadget {
  std::int64_t id = 0;
  std::string name;
  std::int32_t uses = 0;
  struct odm_model {
    static constexpr std::string_view collection = "adv23_gadgets";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&same)).reading_newer();
  };
};

struct Slug {
  std::string id;
  std::int32_t uses = 0;
  struct odm_model {
    static constexpr std::string_view collection = "adv23_slugs";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&same)).reading_newer();
  };
};

// A plain model to read any collection raw (no versions, no renames).
struct Plain {
  std::int64_t id = 0;
};

// ---- a member renamed in its expand phase, top level and one struct down -------------------

struct Contact {
  std::int64_t id = 0;
  std::string contact;
  std::string contact_note;
  std::int32_t calls = 0;
  struct odm_model {
    static constexpr std::string_view collection = "adv23_contacts";
    static constexpr auto fields = odm::fields(odm::renamed_from<&Contact::contact>("phone"),
                                               odm::defaulted(&Contact::calls), odm::defaulted(&Contact::contact_note));
  };
};

struct Box {
  std::optional<std::string> label;
  std::optional<std::int32_t> size;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Box::label>("tag"));
  };
};
struct Crate {
  std::int64_t id = 0;
  Box box;
  std::optional<Box> spare;
  std::vector<std::string> notes;
  struct odm_model {
    static constexpr std::string_view collection = "adv23_crates";
    static constexpr auto fields = odm::fields(odm::defaulted(&Crate::notes));
  };
};

// ---- a step that copies a large field -------------------------------------------------------

inline odm::Document doubled(const odm::Document& old) {
  odm::Document out = odm::Document::copy_of(old.get());
  bson_iter_t it;
  if (bson_iter_init_find(&it, old.get(), "blob")) bson_append_iter(out.get_mutable(), "copy", 4, &it);
  return out;
}
struct Big {
  std::int64_t id = 0;
  std::string blob;
  std::string copy;
  std::int32_t touched = 0;
  struct odm_model {
    static constexpr std::string_view collection = "adv23_bigs";
    static constexpr auto fields = odm::fields(odm::defaulted(&Big::touched));
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&doubled));
  };
};

// ---- retired names: hits -> visits, home.road -> home.street --------------------------------

struct Address {
  std::string street;
  std::int32_t number = 0;
};
struct Resident {
  std::int64_t id = 0;
  std::string name;
  std::int64_t visits = 0;
  Address home;
  struct odm_model {
    static constexpr std::string_view collection = "adv23_residents";
    static constexpr auto fields = odm::fields(odm::defaulted(&Resident::visits));
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(
        odm::chain(odm::rename_field("hits", "visits"), odm::rename_field("home.road", "home.street"))));
  };
};

}  // namespace adversary_23_itest

namespace {

using namespace adversary_23_itest;
using odm::field;
using odm_test::json;

unsigned seed_from_env(unsigned fallback) {
  const char* env = std::getenv("ODM_ADVERSARY23_SEED");
  return env ? static_cast<unsigned>(std::strtoul(env, nullptr, 10)) : fallback;
}

class Adversary23 : public odm_test::DriverTest {
 protected:
  void run(const std::string& command) {
    const odm::Document reply = db().run_command(json(command));
    bson_iter_t it;
    EXPECT_FALSE(bson_iter_init_find(&it, reply.get(), "writeErrors")) << reply.to_json();
  }
  void insert(const std::string& collection, const std::string& documents) {
    run(R"({"insert": ")" + collection + R"(", "documents": [)" + documents + "]}");
  }
  std::int64_t raw_count(const std::string& collection, const std::string& filter) {
    return db().collection<Plain>(collection).count(odm::Filter<Plain>::raw(json(filter)));
  }
  std::vector<odm::Document> all(const std::string& collection) {
    std::vector<odm::Document> out;
    for (const odm::Document& d :
         db().collection<Plain>(collection).find<odm::Document>(odm::Filter<Plain>::raw(json("{}"))))
      out.push_back(d);
    return out;
  }
  std::string dump(const std::string& collection) {
    std::string out;
    for (const odm::Document& d : all(collection)) out += d.to_json() + "\n";
    return out;
  }
  /// What a call threw: "" for the expected type, "<no error>", or the other error.
  template <class Expected>
  static std::string error_of(const std::function<void()>& call) {
    try {
      call();
    } catch (const Expected&) {
      return "";
    } catch (const std::exception& e) {
      return std::string("another error: ") + e.what();
    }
    return "<no error>";
  }
};

// =============================================================================================
// 1. Upserting replaces and newer documents
// =============================================================================================

// README: an upserting replace whose filter does not pin `_id` "first asks whether its filter
// matches a newer document ... and throws odm::SchemaVersionError if so". With an id member,
// the twin is only stopped by a duplicate key when the replacement carries the newer
// document's id: here it carries another one, so without the check a second, older "red"
// would be inserted. The version is stored as an int64 (another program's NumberLong).
TEST_F(Adversary23, AnUpsertingReplaceByANameMatchingANewerDocumentInsertsNoTwinOnAnyPath) {
  insert("adv23_gadgets", R"({"_id": {"$numberLong": "1"}, "name": "red", "uses": 4, "hue": 7,
                             "schema_version": {"$numberLong": "3"}})");
  auto gadgets = db().collection<Gadget>();
  const auto red = field(&Gadget::name) == std::string("red");
  EXPECT_EQ(error_of<odm::SchemaVersionError>(
                [&] { gadgets.replace_one(red, Gadget{2, "red", 5}, odm::ReplaceOptions<Gadget>{}.upsert()); }),
            "");
  EXPECT_EQ(error_of<odm::SchemaVersionError>([&] {
              (void)gadgets.find_one_and_replace(red, Gadget{3, "red", 6},
                                                 odm::FindOneAndReplaceOptions<Gadget>{}.upsert());
            }),
            "");
  EXPECT_EQ(error_of<odm::SchemaVersionError>([&] {
              gadgets.bulk_write()
                  .insert_one(Gadget{9, "blue", 1})
                  .replace_one(red, Gadget{4, "red", 7}, odm::ReplaceOptions<Gadget>{}.upsert())
                  .execute();
            }),
            "");
  // The bulk write sent nothing: not even its insert before the replace.
  EXPECT_EQ(raw_count("adv23_gadgets", "{}"), 1) << dump("adv23_gadgets");
  EXPECT_EQ(raw_count("adv23_gadgets", R"({"_id": 1, "uses": 4, "hue": 7, "schema_version": 3})"), 1)
      << dump("adv23_gadgets");
}

// The same filter without a newer match upserts normally (the check must not refuse an
// older or current match, nor a miss): control for the test above.
TEST_F(Adversary23, AnUpsertingReplaceWithoutANewerMatchWritesAsUsual) {
  insert("adv23_gadgets", R"({"_id": {"$numberLong": "1"}, "name": "red", "uses": 4, "hue": 7})");
  auto gadgets = db().collection<Gadget>();
  gadgets.replace_one(field(&Gadget::name) == std::string("red"), Gadget{1, "red", 5},
                      odm::ReplaceOptions<Gadget>{}.upsert());
  gadgets.replace_one(field(&Gadget::name) == std::string("green"), Gadget{2, "green", 1},
                      odm::ReplaceOptions<Gadget>{}.upsert());
  gadgets.bulk_write()
      .replace_one(field(&Gadget::name) == std::string("teal"), Gadget{3, "teal", 1},
                   odm::ReplaceOptions<Gadget>{}.upsert())
      .execute();
  EXPECT_EQ(raw_count("adv23_gadgets", R"({"_id": 1, "uses": 5, "hue": 7, "schema_version": 2})"), 1)
      << dump("adv23_gadgets");
  EXPECT_EQ(raw_count("adv23_gadgets", R"({"schema_version": 2})"), 3) << dump("adv23_gadgets");
}

// `_id: {$in: [id]}` is not an equality at the top level: the check runs, and the newer
// document is refused (here the duplicate key would stop a twin too, but the README says the
// replace throws SchemaVersionError, not DuplicateKeyError).
TEST_F(Adversary23, AnUpsertingReplaceByAnIdInListOfANewerDocumentIsASchemaVersionError) {
  insert("adv23_gadgets", R"({"_id": {"$numberLong": "1"}, "name": "red", "uses": 4, "schema_version": 3})");
  auto gadgets = db().collection<Gadget>();
  EXPECT_EQ(error_of<odm::SchemaVersionError>([&] {
              gadgets.replace_one(field(&Gadget::id).in({std::int64_t{1}}), Gadget{1, "red", 5},
                                  odm::ReplaceOptions<Gadget>{}.upsert());
            }),
            "");
  EXPECT_EQ(error_of<odm::SchemaVersionError>([&] {
              gadgets.replace_one(field(&Gadget::id) == std::int64_t{1}, Gadget{1, "red", 5},
                                  odm::ReplaceOptions<Gadget>{}.upsert());
            }),
            "");
  EXPECT_EQ(raw_count("adv23_gadgets", R"({"_id": 1, "uses": 4, "schema_version": 3})"), 1) << dump("adv23_gadgets");
  EXPECT_EQ(raw_count("adv23_gadgets", "{}"), 1);
}

// A regular expression on a string `_id` is not an equality: `{_id: /^re/}` matches the
// newer "red" and pins nothing, and the replacement's id ("rex") is another key, so the
// insert is no duplicate. The README's rule (only an equality at the top level skips the
// check) says the replace must throw SchemaVersionError and insert nothing.
TEST_F(Adversary23, AnUpsertingReplaceByARegexOnAStringIdIsCheckedForNewerDocuments) {
  insert("adv23_slugs", R"({"_id": "red", "uses": 4, "schema_version": 3})");
  auto slugs = db().collection<Slug>();
  const std::string replace_error = error_of<odm::SchemaVersionError>(
      [&] { slugs.replace_one(field(&Slug::id).regex("^re"), Slug{"rex", 5}, odm::ReplaceOptions<Slug>{}.upsert()); });
  const std::string find_error = error_of<odm::SchemaVersionError>([&] {
    (void)slugs.find_one_and_replace(field(&Slug::id).regex("^re"), Slug{"reb", 6},
                                     odm::FindOneAndReplaceOptions<Slug>{}.upsert());
  });
  const std::string bulk_error = error_of<odm::SchemaVersionError>([&] {
    slugs.bulk_write().replace_one(field(&Slug::id).regex("^re"), Slug{"rec", 7}, odm::ReplaceOptions<Slug>{}.upsert()).execute();
  });
  const std::int64_t documents = raw_count("adv23_slugs", "{}");
  if (documents != 1 || !replace_error.empty())
    ADD_FAILURE() << "fixed defect came back: odm::detail::pins_id takes a BSON regular expression on `_id` for an equality, so an "
                    "upserting replace with field(&T::id).regex(...) skips the newer-document check and inserts an "
                    "older twin beside the newer document it matches (README, Replacing a newer document). Observed: "
                 << documents << " documents, replace_one: '" << replace_error << "', find_one_and_replace: '"
                 << find_error << "', bulk: '" << bulk_error << "'\n"
                 << dump("adv23_slugs");
  EXPECT_EQ(replace_error, "");
  EXPECT_EQ(find_error, "");
  EXPECT_EQ(bulk_error, "");
  EXPECT_EQ(documents, 1) << dump("adv23_slugs");
}

// With a case-insensitive collation the filter `name == "red"` matches a newer "RED": the
// check must ask with the same collation, else the replace (which excludes the newer
// document) inserts an older twin. MongoDB documents collation on update and find alike.
// The same for `_id == "red"` under that collation: it matches the newer `_id: "RED"`, but
// the `_id` index compares bytes, so the insert is no duplicate key: the "pinned" `_id` does
// not stop the twin. Neither bundled engine has collations; on MongoDB a failure here is
// reported as a suspected defect (odm::detail::find_newer sends no collation, and pins_id
// ignores it), read from the code and not observed.
TEST_F(Adversary23, AnUpsertingReplaceWithACollationSeesTheNewerDocumentItsFilterMatches) {
  ODM_REQUIRE(collation);
  insert("adv23_gadgets", R"({"_id": {"$numberLong": "1"}, "name": "RED", "uses": 4, "schema_version": 3})");
  insert("adv23_slugs", R"({"_id": "RED", "uses": 4, "schema_version": 3})");
  auto gadgets = db().collection<Gadget>();
  auto slugs = db().collection<Slug>();
  const std::string by_name = error_of<odm::SchemaVersionError>([&] {
    gadgets.replace_one(field(&Gadget::name) == std::string("red"), Gadget{2, "red", 5},
                        odm::ReplaceOptions<Gadget>{}.upsert().collation(odm::Collation("en").strength(2)));
  });
  const std::string by_id = error_of<odm::SchemaVersionError>([&] {
    slugs.replace_one(field(&Slug::id) == std::string("red"), Slug{"red", 5},
                      odm::ReplaceOptions<Slug>{}.upsert().collation(odm::Collation("en").strength(2)));
  });
  const std::int64_t gadget_count = raw_count("adv23_gadgets", "{}");
  const std::int64_t slug_count = raw_count("adv23_slugs", "{}");
  if (!by_name.empty() || !by_id.empty() || gadget_count != 1 || slug_count != 1)
    ADD_FAILURE() << "fixed defect came back: an upserting replace with a collation inserts an older twin beside the newer document "
                    "its filter matches (find_newer asks without the collation; pins_id skips the check for an _id "
                    "equality that the collation widens). by name: '"
                 << by_name << "', " << gadget_count << " gadgets; by _id: '" << by_id << "', " << slug_count
                 << " slugs";
  EXPECT_EQ(by_name, "");
  EXPECT_EQ(by_id, "");
}

// A version another program stored as a double (the shell writes numbers as doubles):
// `schema_version: 3.0` is newer by MongoDB's numeric comparison and a version the model
// cannot read (README: "Stored versions odm cannot use throw odm::SchemaVersionError").
// A replace must not write this older version and its values over it: expected a
// SchemaVersionError (or at least nothing written).
TEST_F(Adversary23, AReplaceOfADocumentWhoseVersionIsTheDoubleThreeWritesNothing) {
  insert("adv23_gadgets", R"({"_id": {"$numberLong": "1"}, "name": "red", "uses": 4, "hue": 7,
                             "schema_version": 3.0})");
  auto gadgets = db().collection<Gadget>();
  std::string error;
  try {
    gadgets.replace_one(field(&Gadget::id) == std::int64_t{1}, Gadget{1, "red", 99});
  } catch (const std::exception& e) {
    error = e.what();
  }
  const bool kept = raw_count("adv23_gadgets", R"({"_id": 1, "uses": 4, "schema_version": 3})") == 1;
  if (!kept)
    ADD_FAILURE() << "fixed defect came back: replace_one's not-newer filter only excludes int32/int64 versions above the model's, "
                    "so a document at schema_version 3.0 (a double, unreadable by the model, newer by value) is "
                    "overwritten and stamped with version 2. Error: '"
                 << error << "'\n"
                 << dump("adv23_gadgets");
  EXPECT_TRUE(kept);
  EXPECT_NE(error, "");
}

// An upserting replace by name that finds a newer document stored as a double or a
// decimal (another program's number) reports that value in the message, and as a version of
// the wrong type (SchemaVersionError::stored_version() is -1 then, as documented): never 0
// or a truncated 2, which would read as older than the model's.
TEST_F(Adversary23, ANewerVersionOfAnotherNumericTypeIsReportedAsStored) {
  struct Stored {
    const char* version;  // Extended JSON
    const char* shown;
  };
  for (const Stored stored : {Stored{R"({"$numberDecimal": "3"})", "(a decimal) 3"},
                              Stored{"2.5", "(a double) 2.5"}}) {
    SCOPED_TRACE(stored.version);
    run(R"({"delete": "adv23_gadgets", "deletes": [{"q": {}, "limit": 0}]})");
    insert("adv23_gadgets", std::string(R"({"_id": {"$numberLong": "1"}, "name": "red", "uses": 4, "schema_version": )") +
                                stored.version + "}");
    auto gadgets = db().collection<Gadget>();
    try {
      gadgets.replace_one(field(&Gadget::name) == std::string("red"), Gadget{2, "red", 5},
                          odm::ReplaceOptions<Gadget>{}.upsert());
      ADD_FAILURE() << "no SchemaVersionError\n" << dump("adv23_gadgets");
    } catch (const odm::SchemaVersionError& e) {
      EXPECT_EQ(e.stored_version(), -1);
      EXPECT_NE(std::string(e.what()).find(std::string("at schema version ") + stored.shown), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(raw_count("adv23_gadgets", "{}"), 1) << dump("adv23_gadgets");
  }
}

// Several threads upsert-replace by name while the newer document is there: every call is
// refused, and the collection still holds one document, the newer one, unchanged.
TEST_F(Adversary23, UpsertingReplacesFromManyThreadsNeverAddATwinBesideANewerDocument) {
  insert("adv23_gadgets", R"({"_id": {"$numberLong": "1"}, "name": "red", "uses": 4, "schema_version": 3})");
  std::atomic<int> refused{0};
  std::atomic<int> other{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      auto gadgets = db().collection<Gadget>();
      for (int i = 0; i < 15; ++i) {
        try {
          const Gadget g{100 + t * 100 + i, "red", i};
          if (i % 2 == 0)
            gadgets.replace_one(field(&Gadget::name) == std::string("red"), g, odm::ReplaceOptions<Gadget>{}.upsert());
          else
            (void)gadgets.find_one_and_replace(field(&Gadget::name) == std::string("red"), g,
                                               odm::FindOneAndReplaceOptions<Gadget>{}.upsert());
          ++other;
        } catch (const odm::SchemaVersionError&) {
          ++refused;
        } catch (const std::exception&) {
          ++other;
        }
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(refused.load(), 60);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(raw_count("adv23_gadgets", "{}"), 1) << dump("adv23_gadgets");
}

// =============================================================================================
// 2. Upsert seeds of a member renamed in its expand phase
// =============================================================================================

// Every upsert path seeds both names from `contact == "c"` beside an update of another member.
TEST_F(Adversary23, EveryUpsertPathSeedsBothNamesBesideAnUpdateOfAnotherMember) {
  auto contacts = db().collection<Contact>();
  const auto by = [](std::int64_t id) {
    return field(&Contact::id) == id && field(&Contact::contact) == std::string("c" + std::to_string(id));
  };
  const auto calls = field(&Contact::calls).inc(std::int32_t{1});
  contacts.update_one(by(1), calls, odm::UpdateOptions<Contact>{}.upsert());
  contacts.update_many(by(2), calls, odm::UpdateOptions<Contact>{}.upsert());
  (void)contacts.find_one_and_update(by(3), calls, odm::FindOneAndUpdateOptions<Contact>{}.upsert());
  contacts.bulk_write().update_one(by(4), calls, odm::UpdateOptions<Contact>{}.upsert()).execute();
  contacts.bulk_write().update_many(by(5), calls, odm::UpdateOptions<Contact>{}.upsert()).execute();
  for (int id = 1; id <= 5; ++id) {
    const std::string c = "c" + std::to_string(id);
    EXPECT_EQ(raw_count("adv23_contacts", R"({"_id": )" + std::to_string(id) + R"(, "contact": ")" + c +
                                              R"(", "phone": ")" + c + R"(", "calls": 1})"),
              1)
        << id << "\n" << dump("adv23_contacts");
  }
}

// A member whose name starts with the renamed one's (`contact_note`) is another path: its
// update does not overlap the seed, which stays (MongoDB accepts `contact` and
// `contact_note` side by side).
TEST_F(Adversary23, AnUpdateOfAMemberTheRenamedNamePrefixesKeepsTheSeed) {
  auto contacts = db().collection<Contact>();
  contacts.update_one(field(&Contact::id) == std::int64_t{1} && field(&Contact::contact) == std::string("x"),
                      field(&Contact::contact_note).set(std::string("n")), odm::UpdateOptions<Contact>{}.upsert());
  EXPECT_EQ(raw_count("adv23_contacts", R"({"contact": "x", "phone": "x", "contact_note": "n"})"), 1)
      << dump("adv23_contacts");
  EXPECT_EQ(db().collection<Contact>().find_one(field(&Contact::contact_note) == std::string("n"))->contact, "x");
}

// Raw updates that write an overlapping path (the new name, the old one, a `$rename` target,
// the user's own `$setOnInsert` of it): the overlapping seed is left to the update, and the
// write is accepted (MongoDB refuses two operators on overlapping paths).
TEST_F(Adversary23, RawUpsertsWritingAnOverlappingPathAreAcceptedAndKeepTheirOwnValue) {
  auto contacts = db().collection<Contact>();
  const auto upsert = odm::UpdateOptions<Contact>{}.upsert();
  std::vector<std::string> errors;
  const auto attempt = [&](const char* what, const std::function<void()>& write) {
    try {
      write();
    } catch (const std::exception& e) {
      errors.push_back(std::string(what) + ": " + e.what());
    }
  };
  attempt("$setOnInsert of both names", [&] {
    contacts.update_one(field(&Contact::id) == std::int64_t{1} && field(&Contact::contact) == std::string("a"),
                        odm::Update<Contact>::raw(json(R"({"$setOnInsert": {"contact": "mine", "phone": "mine"},
                                                            "$inc": {"calls": 1}})")),
                        upsert);
  });
  attempt("$set of the old name only", [&] {
    contacts.update_one(field(&Contact::id) == std::int64_t{2} && field(&Contact::contact) == std::string("b"),
                        odm::Update<Contact>::raw(json(R"({"$set": {"phone": "p"}})")), upsert);
  });
  attempt("$unset of the new name", [&] {
    contacts.update_one(field(&Contact::id) == std::int64_t{3} && field(&Contact::contact) == std::string("c"),
                        odm::Update<Contact>::raw(json(R"({"$unset": {"contact": ""}, "$set": {"calls": 2}})")),
                        upsert);
  });
  EXPECT_TRUE(errors.empty()) << [&] {
    std::string s;
    for (auto& e : errors) s += e + "\n";
    return s;
  }();
  // 1: the user's $setOnInsert is kept as written.
  EXPECT_EQ(raw_count("adv23_contacts", R"({"_id": 1, "contact": "mine", "phone": "mine", "calls": 1})"), 1)
      << dump("adv23_contacts");
  // 2: the old name is the update's; the new name still gets the seed (a sibling path).
  EXPECT_EQ(raw_count("adv23_contacts", R"({"_id": 2, "phone": "p", "contact": "b"})"), 1) << dump("adv23_contacts");
  // 3: a raw update of the new name is expanded to both names (as a typed one): the $unset
  // removes both, as MongoDB's upsert of a plain field unset by the update would.
  EXPECT_EQ(raw_count("adv23_contacts", R"({"_id": 3, "phone": {"$exists": false}, "contact": {"$exists": false}})"), 1)
      << dump("adv23_contacts");
}

// A raw `$rename` whose target is the renamed member's new name overlaps the seed of that
// name (MongoDB refuses `$rename: {x: "contact"}` beside `$setOnInsert: {contact}`).
TEST_F(Adversary23, ARawRenameOntoTheRenamedNameIsNotSentWithAConflictingSeed) {
  auto contacts = db().collection<Contact>();
  const auto filter =
      odm::Filter<Contact>(field(&Contact::id) == std::int64_t{1} && field(&Contact::contact) == std::string("a"));
  const auto update = odm::Update<Contact>::raw(json(R"({"$rename": {"legacy": "contact"}})"));
  const odm::Document sent = odm::detail::update_as_sent(update, filter, odm::detail::OptionsAccess::spec(odm::UpdateOptions<Contact>{}.upsert()), "update_one");
  EXPECT_FALSE(odm_test::has_key(sent, "$setOnInsert.contact")) << sent.to_json();
  EXPECT_TRUE(odm_test::has_key(sent, "$setOnInsert.phone")) << sent.to_json();
  std::string error;
  try {
    contacts.update_one(filter, update, odm::UpdateOptions<Contact>{}.upsert());
  } catch (const odm::Error& e) {
    error = e.what();
  }
  if (error.find("$rename") != std::string::npos && error.find("support") != std::string::npos)
    GTEST_SKIP() << "the engine lacks $rename; the update as sent was checked: " << sent.to_json();
  EXPECT_EQ(error, "") << sent.to_json();
  EXPECT_EQ(raw_count("adv23_contacts", R"({"_id": 1, "phone": "a"})"), 1) << dump("adv23_contacts");
}

// One struct down: the seeds of box.label (under box.label and box.tag) are dropped beside an
// update of `box` (their ancestor), kept beside an update of `spare`, `notes` or the sibling
// box.size (other paths).
TEST_F(Adversary23, NestedSeedsAreDroppedOnlyWhereTheUpdateOverlapsThem) {
  auto crates = db().collection<Crate>();
  const auto label = field(&Crate::box) / &Box::label;
  const auto size = field(&Crate::box) / &Box::size;
  const auto upsert = odm::UpdateOptions<Crate>{}.upsert();
  crates.update_one(field(&Crate::id) == std::int64_t{1} && label == std::string("x"),
                    field(&Crate::spare).set(Box{std::string("s"), 1}), upsert);
  crates.update_one(field(&Crate::id) == std::int64_t{2} && label == std::string("y"),
                    field(&Crate::box).set(Box{std::string("whole"), 2}), upsert);
  crates.update_one(field(&Crate::id) == std::int64_t{3} && label == std::string("z"), size.set(std::int32_t{3}),
                    upsert);
  crates.update_one(field(&Crate::id) == std::int64_t{4} && label == std::string("w"),
                    field(&Crate::notes).push(std::string("n")), upsert);
  EXPECT_EQ(raw_count("adv23_crates", R"({"_id": 1, "box.label": "x", "box.tag": "x", "spare.label": "s"})"), 1)
      << dump("adv23_crates");
  EXPECT_EQ(raw_count("adv23_crates", R"({"_id": 2, "box.label": "whole", "box.tag": "whole", "box.size": 2})"), 1)
      << dump("adv23_crates");
  EXPECT_EQ(raw_count("adv23_crates", R"({"_id": 3, "box.label": "z", "box.tag": "z", "box.size": 3})"), 1)
      << dump("adv23_crates");
  EXPECT_EQ(raw_count("adv23_crates", R"({"_id": 4, "box.label": "w", "box.tag": "w", "notes": ["n"]})"), 1)
      << dump("adv23_crates");
  for (std::int64_t id = 1; id <= 4; ++id) EXPECT_NO_THROW((void)crates.get_by_id(id)) << id;
}

// Randomized: upserts with random filters (an equality on the renamed member, `{$eq}` form,
// with and without an id) and random updates of other members or the member itself, checked
// against a reference of what MongoDB's upsert of a plain field would store.
TEST_F(Adversary23, RandomUpsertsOfARenamedMemberStoreWhatAPlainFieldWould) {
  const unsigned seed = seed_from_env(2323);
  std::mt19937 rng(seed);
  auto contacts = db().collection<Contact>();
  for (int round = 0; round < 40; ++round) {
    const std::int64_t id = round + 1;
    const std::string value = "v" + std::to_string(rng() % 1000);
    const int kind = static_cast<int>(rng() % 4);
    odm::Update<Contact> update = field(&Contact::calls).inc(std::int32_t{1});
    std::string expected_contact = value;
    std::int32_t expected_calls = 1;
    std::string expected_note;
    if (kind == 1) {
      update = field(&Contact::contact).set(std::string("set") + value);
      expected_contact = "set" + value;
      expected_calls = 0;
    } else if (kind == 2) {
      update = field(&Contact::contact_note).set(value) + field(&Contact::calls).inc(std::int32_t{2});
      expected_note = value;
      expected_calls = 2;
    } else if (kind == 3) {
      update = field(&Contact::calls).set_on_insert(std::int32_t{7});
      expected_calls = 7;
    }
    const auto filter = field(&Contact::id) == id && field(&Contact::contact) == value;
    try {
      if (rng() % 2 == 0)
        contacts.update_one(filter, update, odm::UpdateOptions<Contact>{}.upsert());
      else
        (void)contacts.find_one_and_update(filter, update, odm::FindOneAndUpdateOptions<Contact>{}.upsert());
    } catch (const std::exception& e) {
      ADD_FAILURE() << "seed " << seed << " round " << round << " kind " << kind << ": " << e.what();
      continue;
    }
    const Contact read = contacts.get_by_id(id);
    EXPECT_EQ(read.contact, expected_contact) << "seed " << seed << " round " << round << " kind " << kind;
    EXPECT_EQ(read.calls, expected_calls) << "seed " << seed << " round " << round << " kind " << kind;
    EXPECT_EQ(read.contact_note, expected_note) << "seed " << seed << " round " << round << " kind " << kind;
    EXPECT_EQ(raw_count("adv23_contacts", R"({"_id": )" + std::to_string(id) + R"(, "phone": ")" + expected_contact +
                                              R"(", "contact": ")" + expected_contact + R"("})"),
              1)
        << "seed " << seed << " round " << round << "\n" << dump("adv23_contacts");
  }
}

// =============================================================================================
// 3. Whole-struct comparisons of a struct holding a renamed member
// =============================================================================================

TEST_F(Adversary23, EveryWholeStructComparisonOfABoxIsRefusedWherePlacedInTheFilter) {
  insert("adv23_crates", R"({"_id": {"$numberLong": "1"}, "box": {"tag": "a", "size": 1}, "notes": []})");
  auto crates = db().collection<Crate>();
  const Box a{std::string("a"), 1};
  const auto box = field(&Crate::box);
  const auto id = field(&Crate::id);
  const std::vector<std::pair<std::string, odm::Filter<Crate>>> filters = {
      {"==", box == a},
      {"!=", box != a},
      {"in", box.in({a, Box{}})},
      {"nin", box.nin({a})},
      {"!(==)", !(box == a)},
      {"|| beside an id", id == std::int64_t{1} || box == a},
      {"&& beside an id", id == std::int64_t{1} && box == a},
      {"nor", odm::nor(id == std::int64_t{5}, box == a)},
      {"nested ||(&&(!))", id == std::int64_t{2} || (id == std::int64_t{1} && !(box != a))},
  };
  for (const auto& entry : filters) {
    // (not a structured binding: clang 14 does not let a lambda capture one)
    const std::string& what = entry.first;
    const odm::Filter<Crate>& filter = entry.second;
    EXPECT_EQ(error_of<odm::UsageError>([&] { (void)crates.count(filter); }), "") << "count " << what;
    EXPECT_EQ(error_of<odm::UsageError>([&] { (void)crates.find_one(filter); }), "") << "find_one " << what;
    EXPECT_EQ(error_of<odm::UsageError>([&] { crates.update_many(filter, field(&Crate::notes).push(std::string("x"))); }),
              "")
        << "update_many " << what;
    EXPECT_EQ(error_of<odm::UsageError>([&] { crates.delete_many(filter); }), "") << "delete_many " << what;
  }
  EXPECT_EQ(raw_count("adv23_crates", R"({"_id": 1, "notes": []})"), 1) << dump("adv23_crates");
  // null and $exists pass and mean what they mean.
  EXPECT_EQ(crates.count(field(&Crate::spare) == std::nullopt), 1);
  EXPECT_EQ(crates.count(box.exists()), 1);
  EXPECT_EQ(crates.count(field(&Crate::spare).exists()), 0);
  EXPECT_EQ(crates.count(box.exists(false)), 0);
  // The members compared one by one find what v1 wrote.
  EXPECT_EQ(crates.count((field(&Crate::box) / &Box::label) == std::string("a") &&
                         (field(&Crate::box) / &Box::size) == std::int32_t{1}),
            1);
}

// README: renamed members are followed "one embedded struct down" (a member of an embedded
// struct too; only two or more structs down, or inside array elements, is "not covered").
// An optional embedded struct is one struct down: v1's `spare: {tag: "s"}` reads label "s",
// so a typed filter on spare.label must find it, a whole-struct comparison of `spare` must be
// refused, and an upsert must seed both names.
TEST_F(Adversary23, ARenamedMemberOfAnOptionalEmbeddedStructIsFollowedLikeAPlainOne) {
  insert("adv23_crates", R"({"_id": {"$numberLong": "1"}, "box": {"tag": "a", "size": 1},
                             "spare": {"tag": "s", "size": 2}, "notes": []})");
  auto crates = db().collection<Crate>();
  const Crate read = crates.get_by_id(1);
  ASSERT_EQ(read.spare.has_value() ? read.spare->label : std::nullopt, std::optional<std::string>("s"));
  const auto spare_label = field(&Crate::spare) / &Box::label;
  const std::int64_t found = crates.count(spare_label == std::string("s"));
  const std::string whole = error_of<odm::UsageError>(
      [&] { (void)crates.count(field(&Crate::spare) == std::optional<Box>(Box{std::string("s"), 2})); });
  crates.update_one(field(&Crate::id) == std::int64_t{2} && spare_label == std::string("u"),
                    field(&Crate::notes).push(std::string("n")), odm::UpdateOptions<Crate>{}.upsert());
  const std::int64_t seeded = raw_count("adv23_crates", R"({"_id": 2, "spare.label": "u", "spare.tag": "u"})");
  // A typed update of spare.label must be read back (README: each path under both names).
  crates.update_one(field(&Crate::id) == std::int64_t{1}, spare_label.set(std::optional<std::string>("t")));
  const Crate after = crates.get_by_id(1);
  const std::string updated = after.spare && after.spare->label ? *after.spare->label : "<none>";
  if (found != 1 || !whole.empty() || seeded != 1 || updated != "t")
    ADD_FAILURE() << "fixed defect came back: odm::detail::written_previous_names (embedded_struct) does not look inside a "
                    "std::optional embedded struct, so a renamed member of it is decoded under both names but "
                    "typed filters, whole-struct comparisons and upsert seeds ignore the old name. Observed: "
                    "count(spare.label == \"s\") = "
                 << found << " (expected 1), whole comparison: '" << whole << "', seeded both names: " << seeded
                 << ", spare.label read after a typed set of \"t\": " << updated
                 << "\n"
                 << dump("adv23_crates");
  EXPECT_EQ(found, 1);
  EXPECT_EQ(whole, "");
  EXPECT_EQ(seeded, 1);
  EXPECT_EQ(updated, "t");
}

// The refusal holds in an aggregation's $match and in a bulk write's filter, before
// anything of the bulk write is sent.
TEST_F(Adversary23, AWholeBoxComparisonInABulkWriteSendsNothing) {
  auto crates = db().collection<Crate>();
  const Box a{std::string("a"), 1};
  const std::string error = error_of<odm::UsageError>([&] {
    crates.bulk_write()
        .insert_one(Crate{7, Box{std::string("b"), 2}, std::nullopt, {}})
        .update_one(field(&Crate::box) == a, field(&Crate::notes).push(std::string("x")))
        .execute();
  });
  EXPECT_EQ(error, "");
  EXPECT_EQ(raw_count("adv23_crates", "{}"), 0) << dump("adv23_crates");
}

// =============================================================================================
// 4. Guarded rewrites past 16 MiB
// =============================================================================================

class Adversary23Big : public Adversary23 {
 protected:
  void insert_big(std::int64_t id, std::size_t blob_bytes) {
    const std::string blob(blob_bytes, 'z');
    odm::Document old;
    bson_append_int64(old.get_mutable(), "_id", 3, id);
    bson_append_utf8(old.get_mutable(), "blob", 4, blob.data(), static_cast<int>(blob.size()));
    odm::Document command;
    bson_append_utf8(command.get_mutable(), "insert", 6, "adv23_bigs", 10);
    bson_t list;
    bson_append_array_begin(command.get_mutable(), "documents", 9, &list);
    bson_append_document(&list, "0", 1, old.get());
    bson_append_array_end(command.get_mutable(), &list);
    db().run_command(command);
  }
  bool untouched(std::int64_t id) {
    return raw_count("adv23_bigs", R"({"_id": )" + std::to_string(id) +
                                       R"(, "copy": {"$exists": false}, "schema_version": {"$exists": false}})") == 1;
  }
};

// README: "A rewrite whose resulting document (or update) would pass 16 MiB is refused before
// it is sent, with an odm::EncodeError naming the document's _id, and nothing is written":
// through the replace paths, which upgrade older documents their filter reaches first.
TEST_F(Adversary23Big, ReplacesOfAnOldDocumentWhoseUpgradeOutgrowsTheLimitAreRefused) {
  insert_big(1, 9 * 1024 * 1024);
  ASSERT_TRUE(untouched(1));
  auto bigs = db().collection<Big>();
  const auto by_id = field(&Big::id) == std::int64_t{1};
  std::vector<std::string> problems;
  const auto attempt = [&](const char* what, const std::function<void()>& write) {
    try {
      write();
      problems.push_back(std::string(what) + " was not refused");
    } catch (const odm::EncodeError& e) {
      if (std::string(e.what()).find("_id") == std::string::npos)
        problems.push_back(std::string(what) + ": the error does not name the _id: " + e.what());
    } catch (const std::exception& e) {
      problems.push_back(std::string(what) + ": not an EncodeError: " + e.what());
    }
    if (!untouched(1)) problems.push_back(std::string(what) + " wrote the document");
  };
  attempt("replace_one", [&] { bigs.replace_one(by_id, Big{1, "small", "", 1}); });
  attempt("find_one_and_replace", [&] { (void)bigs.find_one_and_replace(by_id, Big{1, "small", "", 2}); });
  attempt("bulk replace_one", [&] { bigs.bulk_write().replace_one(by_id, Big{1, "small", "", 3}).execute(); });
  attempt("bulk update_one after an insert", [&] {
    bigs.bulk_write().insert_one(Big{2, "b", "c", 0}).update_one(by_id, field(&Big::touched).set(4)).execute();
  });
  if (raw_count("adv23_bigs", R"({"_id": 2})") != 0) problems.push_back("the bulk write sent its insert");
  attempt("update_many over the collection", [&] { bigs.update_many(odm::Filter<Big>(), field(&Big::touched).set(5)); });
  std::string all_problems;
  for (auto& p : problems) all_problems += p + "\n";
  EXPECT_TRUE(problems.empty()) << all_problems;
}

// The other side of the limit: a document whose upgrade is just below 16 MiB "can always be
// rewritten" (a field too large to compare is left out of the guard).
TEST_F(Adversary23Big, AnUpgradeJustBelowTheLimitIsWritten) {
  // The upgraded document: _id (int64), blob, copy (both the same string), schema_version,
  // touched. Each string field costs 1 + 5 + 4 + n + 1 bytes ("blob"/"copy" keys).
  const std::size_t limit = 16 * 1024 * 1024;
  const std::size_t overhead = 4 + 1 + (1 + 4 + 8) + 2 * (1 + 5 + 4 + 1) + (1 + 15 + 4) + (1 + 8 + 4) + 64;
  const std::size_t blob = (limit - overhead) / 2;
  insert_big(1, blob);
  auto bigs = db().collection<Big>();
  std::string error;
  try {
    bigs.update_one(field(&Big::id) == std::int64_t{1}, field(&Big::touched).set(1));
  } catch (const std::exception& e) {
    error = e.what();
  }
  EXPECT_EQ(error.substr(0, 300), "");
  EXPECT_EQ(raw_count("adv23_bigs", R"({"_id": 1, "touched": 1, "schema_version": 2})"), 1);
}

// =============================================================================================
// 5. Retired names
// =============================================================================================

// Hostile parents of a nested retired name: `home` stored as an array or a string in a
// current document (another program). MongoDB's $unset of a path through a non-document
// does nothing, so a write of another member must succeed and leave `home` as it is.
TEST_F(Adversary23, AWriteBesideAHostileParentOfANestedRetiredNameSucceeds) {
  insert("adv23_residents", R"({"_id": {"$numberLong": "1"}, "name": "n", "visits": {"$numberLong": "1"},
                                "home": [{"road": "r"}], "schema_version": 2},
                               {"_id": {"$numberLong": "2"}, "name": "n", "visits": {"$numberLong": "1"},
                                "home": "somewhere", "schema_version": 2})");
  auto residents = db().collection<Resident>();
  for (std::int64_t id = 1; id <= 2; ++id) {
    std::string error;
    try {
      residents.update_one(field(&Resident::id) == id, field(&Resident::name).set(std::string("m")));
    } catch (const std::exception& e) {
      error = e.what();
    }
    EXPECT_EQ(error, "") << id;
  }
  EXPECT_EQ(raw_count("adv23_residents", R"({"name": "m"})"), 2) << dump("adv23_residents");
  EXPECT_EQ(raw_count("adv23_residents", R"({"_id": 2, "home": "somewhere"})"), 1) << dump("adv23_residents");
}

// Raw updates that write a path overlapping a nested retired name: a descendant
// (`home.road.x`), the parent unset, a `$rename` onto it. Sent without a conflicting unset.
TEST_F(Adversary23, RawUpdatesOverlappingANestedRetiredNameAreNotSentWithAConflictingUnset) {
  const auto fresh = [&] {
    run(R"({"delete": "adv23_residents", "deletes": [{"q": {}, "limit": 0}]})");
    insert("adv23_residents", R"({"_id": {"$numberLong": "1"}, "name": "n", "visits": {"$numberLong": "1"},
                                  "hits": 3, "home": {"street": "s", "road": {"x": 1}, "number": 1}, "legacy": "l",
                                  "schema_version": 2})");
  };
  auto residents = db().collection<Resident>();
  const auto by_id = odm::Filter<Resident>(field(&Resident::id) == std::int64_t{1});
  struct Case {
    const char* what;
    const char* update;
    const char* afterwards;
  };
  const std::vector<Case> cases = {
      {"a descendant", R"({"$set": {"home.road.x": 2}})", R"({"home.road.x": 2, "hits": {"$exists": false}})"},
      {"the parent unset", R"({"$unset": {"home": ""}})", R"({"home": {"$exists": false}, "hits": {"$exists": false}})"},
      {"the parent set", R"({"$set": {"home": {"street": "t", "number": 2}}})",
       R"({"home": {"street": "t", "number": 2}, "hits": {"$exists": false}})"},
      {"an $inc of the old top-level name", R"({"$inc": {"hits": 1}})", R"({"hits": 4, "home.road": {"$exists": false}})"},
      {"a $rename onto the nested name", R"({"$rename": {"legacy": "home.road"}})",
       R"({"home.road": "l", "hits": {"$exists": false}})"},
  };
  for (const Case& c : cases) {
    fresh();
    const auto update = odm::Update<Resident>::raw(json(c.update));
    const odm::Document sent = odm::detail::update_as_sent(update, by_id, odm::detail::UpdateSpec{}, "update_one");
    std::string error;
    try {
      residents.update_one(by_id, update);
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (error.find("$rename") != std::string::npos && error.find("support") != std::string::npos) continue;
    EXPECT_EQ(error, "") << c.what << ": " << sent.to_json();
    EXPECT_EQ(raw_count("adv23_residents", c.afterwards), 1) << c.what << ": " << sent.to_json() << "\n"
                                                               << dump("adv23_residents");
  }
}

// Another program stored a string under the retired name of an older document: the step
// moves it onto `visits`, which does not decode as an int64. README: the upgrade "must read as
// the model, else DecodeError and nothing is written", before the typed update is sent.
TEST_F(Adversary23, ATypedUpdateOfAnOldDocumentWithAWrongTypeUnderTheRetiredNameWritesNothing) {
  insert("adv23_residents", R"({"_id": {"$numberLong": "1"}, "name": "n", "hits": "lots",
                                "home": {"road": "r", "number": 1}})");
  auto residents = db().collection<Resident>();
  std::string error = error_of<odm::DecodeError>(
      [&] { residents.update_one(field(&Resident::id) == std::int64_t{1}, field(&Resident::name).set(std::string("m"))); });
  EXPECT_EQ(error, "");
  error = error_of<odm::DecodeError>([&] {
    residents.replace_one(field(&Resident::id) == std::int64_t{1}, Resident{1, "m", 1, Address{"s", 1}});
  });
  EXPECT_EQ(error, "");
  EXPECT_EQ(raw_count("adv23_residents", R"({"_id": 1, "name": "n", "hits": "lots", "home": {"road": "r", "number": 1},
                                             "schema_version": {"$exists": false}})"),
            1)
      << dump("adv23_residents");
}

// An upserting replace of a model in its expand phase writes both names, and its filter's
// seeds (overlapping the replacement's $set) are left out: the write is accepted.
TEST_F(Adversary23, AnUpsertingReplaceOfARenamedModelWritesBothNamesOnce) {
  auto contacts = db().collection<Contact>();
  contacts.replace_one(field(&Contact::contact) == std::string("a"), Contact{1, "b", "", 3},
                       odm::ReplaceOptions<Contact>{}.upsert());
  (void)contacts.find_one_and_replace(field(&Contact::contact) == std::string("c"), Contact{2, "d", "", 4},
                                      odm::FindOneAndReplaceOptions<Contact>{}.upsert());
  contacts.bulk_write()
      .replace_one(field(&Contact::contact) == std::string("e"), Contact{3, "f", "", 5},
                   odm::ReplaceOptions<Contact>{}.upsert())
      .execute();
  EXPECT_EQ(raw_count("adv23_contacts", R"({"_id": 1, "contact": "b", "phone": "b", "calls": 3})"), 1)
      << dump("adv23_contacts");
  EXPECT_EQ(raw_count("adv23_contacts", R"({"_id": 2, "contact": "d", "phone": "d", "calls": 4})"), 1)
      << dump("adv23_contacts");
  EXPECT_EQ(raw_count("adv23_contacts", R"({"_id": 3, "contact": "f", "phone": "f", "calls": 5})"), 1)
      << dump("adv23_contacts");
}

// The Migration unsets retired names (top level and nested) on current documents, leaves
// newer documents as they are (counted in `newer`), and a second run writes nothing.
TEST_F(Adversary23, TheMigrationUnsetsRetiredNamesOnCurrentDocumentsOnly) {
  insert("adv23_residents", R"({"_id": {"$numberLong": "1"}, "name": "a", "visits": {"$numberLong": "1"}, "hits": 9,
                                "home": {"street": "s", "road": "stale", "number": 1}, "schema_version": 2},
                               {"_id": {"$numberLong": "2"}, "name": "b", "hits": {"$numberLong": "4"},
                                "home": {"road": "r", "number": 2}},
                               {"_id": {"$numberLong": "3"}, "name": "c", "visits": {"$numberLong": "1"}, "hits": "own",
                                "home": {"street": "s", "road": "newer's", "number": 3}, "schema_version": 3},
                               {"_id": {"$numberLong": "4"}, "name": "d", "visits": {"$numberLong": "1"},
                                "home": {"street": "s", "number": 4}, "schema_version": 2})");
  const odm::MigrationReport report = odm::Migration<Resident>(db()).batch_size(1).run();
  EXPECT_EQ(report.newer, 1);
  EXPECT_EQ(report.remaining, 0);
  EXPECT_EQ(raw_count("adv23_residents", R"({"_id": 1, "hits": {"$exists": false}, "home.road": {"$exists": false},
                                             "visits": 1, "home.street": "s"})"),
            1)
      << dump("adv23_residents");
  EXPECT_EQ(raw_count("adv23_residents", R"({"_id": 2, "hits": {"$exists": false}, "home.road": {"$exists": false},
                                             "visits": 4, "home.street": "r", "schema_version": 2})"),
            1)
      << dump("adv23_residents");
  EXPECT_EQ(raw_count("adv23_residents", R"({"_id": 3, "hits": "own", "home.road": "newer's", "schema_version": 3})"), 1)
      << dump("adv23_residents");
  EXPECT_EQ(raw_count("adv23_residents", R"({"_id": 4, "home": {"street": "s", "number": 4}})"), 1)
      << dump("adv23_residents");
  const odm::MigrationReport again = odm::Migration<Resident>(db()).run();
  EXPECT_EQ(again.migrated, 0);
}

// Every typed write of a current document holding both retired names (written back by an
// expand release) unsets both and keeps the rest; a random sequence against a reference.
TEST_F(Adversary23, RandomWritesOfCurrentDocumentsNeverLeaveARetiredName) {
  const unsigned seed = seed_from_env(2324);
  std::mt19937 rng(seed);
  auto residents = db().collection<Resident>();
  struct Ref {
    std::string name;
    std::int64_t visits;
    std::string street;
    std::int32_t number;
  };
  std::vector<Ref> ref;
  for (int id = 1; id <= 6; ++id) {
    insert("adv23_residents", R"({"_id": {"$numberLong": ")" + std::to_string(id) + R"("}, "name": "n", "visits": 1,
                                  "home": {"street": "s", "number": 1}, "schema_version": 2})");
    ref.push_back({"n", 1, "s", 1});
  }
  for (int step = 0; step < 60; ++step) {
    const std::int64_t id = 1 + static_cast<std::int64_t>(rng() % 6);
    Ref& r = ref[static_cast<std::size_t>(id - 1)];
    // Another program (the expand release) writes the old names back.
    run(R"({"update": "adv23_residents", "updates": [{"q": {"_id": )" + std::to_string(id) +
        R"(}, "u": {"$set": {"hits": 77, "home.road": "stale"}}}]})");
    const int kind = static_cast<int>(rng() % 7);
    const auto by_id = field(&Resident::id) == id;
    switch (kind) {
      case 0:
        residents.update_one(by_id, field(&Resident::visits).inc(std::int64_t{2}));
        r.visits += 2;
        break;
      case 1:
        residents.update_one(by_id, (field(&Resident::home) / &Address::number).inc(std::int32_t{1}));
        r.number += 1;
        break;
      case 2: {
        odm::Tracked<Resident> t = odm::track(residents.get_by_id(id));
        t->name = "t" + std::to_string(step);
        t.save(residents);
        r.name = t->name;
        break;
      }
      case 3: {
        Resident whole{id, "r" + std::to_string(step), r.visits, Address{"st" + std::to_string(step), r.number}};
        residents.replace_one(by_id, whole);
        r.name = whole.name;
        r.street = whole.home.street;
        break;
      }
      case 4:
        (void)residents.find_one_and_update(by_id, (field(&Resident::home) / &Address::street).set(std::string("f")));
        r.street = "f";
        break;
      case 5:
        residents.bulk_write().update_one(by_id, field(&Resident::name).set(std::string("b"))).execute();
        r.name = "b";
        break;
      default:
        residents.update_many(by_id, odm::Update<Resident>::raw(json(R"({"$inc": {"visits": 1}})")));
        r.visits += 1;
        break;
    }
    const std::string where = "seed " + std::to_string(seed) + " step " + std::to_string(step) + " kind " +
                              std::to_string(kind) + "\n" + dump("adv23_residents");
    EXPECT_EQ(raw_count("adv23_residents", R"({"_id": )" + std::to_string(id) +
                                               R"(, "$or": [{"hits": {"$exists": true}}, {"home.road": {"$exists": true}}]})"),
              0)
        << where;
    const Resident read = residents.get_by_id(id);
    EXPECT_EQ(read.name, r.name) << where;
    EXPECT_EQ(read.visits, r.visits) << where;
    EXPECT_EQ(read.home.street, r.street) << where;
    EXPECT_EQ(read.home.number, r.number) << where;
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
