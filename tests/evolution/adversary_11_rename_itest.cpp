// Adversarial probes of the expand/contract rename (issue 11 items 5 and 7; README
// "Renaming a field while both versions run"), written from the README's promise: v2
// "reads the old name when a document has it (...), else the new one", its typed filters
// and updates address both names, so "v2's queries find what v1 wrote and v1 reads what
// v2 changed". Documents of the older program are written through a v1 model (old name
// only) or as raw Extended JSON, as another program leaves them. A probe that shows a
// defect is kept, skipped with `defect:` and its reason.

#include "driver/support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace adv11r {

// ---- a top-level rename: v1 stores `phone`, v2 calls it `contact` ---------------------

struct CustomerV1 {
  std::int64_t id = 0;
  std::string name;
  std::string phone;
  struct odm_model {
    static constexpr std::string_view collection = "customers";
  };
};

struct CustomerV2 {
  std::int64_t id = 0;
  std::string name;
  std::string contact;
  struct odm_model {
    static constexpr std::string_view collection = "customers";
    static constexpr auto fields = odm::fields(odm::renamed_from<&CustomerV2::contact>("phone"));
  };
};

/// A smaller struct read through a projection of CustomerV2. It declares the model's
/// rename: odm::projection refuses a result member that would read the new name only
/// (compile-fail pair projection_of_renamed_member).
struct Card {
  std::int64_t id = 0;
  std::string contact;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Card::contact>("phone"));
  };
};

// The same rename with a unique index on the renamed member (its own collection).
struct MemberV1 {
  std::int64_t id = 0;
  std::string phone;
  struct odm_model {
    static constexpr std::string_view collection = "members";
  };
};
struct MemberV2 {
  std::int64_t id = 0;
  std::string contact;
  struct odm_model {
    static constexpr std::string_view collection = "members";
    static constexpr auto fields = odm::fields(odm::renamed_from<&MemberV2::contact>("phone"));
    static constexpr auto indexes = odm::indexes(odm::index(&MemberV2::contact).unique());
  };
};

// ---- a renamed counter and a renamed array -------------------------------------------

struct Line {
  std::string sku;
  std::int32_t qty = 0;
};

struct CartV1 {
  std::int64_t id = 0;
  std::int64_t hits = 0;
  std::vector<Line> items;
  struct odm_model {
    static constexpr std::string_view collection = "carts";
  };
};
struct CartV2 {
  std::int64_t id = 0;
  std::int64_t visits = 0;
  std::vector<Line> lines;
  struct odm_model {
    static constexpr std::string_view collection = "carts";
    static constexpr auto fields =
        odm::fields(odm::renamed_from<&CartV2::visits>("hits"), odm::renamed_from<&CartV2::lines>("items"));
  };
};
/// The contract release: the old name is a schema step's to move.
struct CartV3 {
  std::int64_t id = 0;
  std::int64_t visits = 0;
  struct odm_model {
    static constexpr std::string_view collection = "carts";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("hits", "visits")));
  };
};

// ---- optional members: null vs absent under both names ------------------------------

struct NoteV1 {
  std::int64_t id = 0;
  std::optional<std::string> memo;
  struct odm_model {
    static constexpr std::string_view collection = "notes";
  };
};
struct NoteV2 {
  std::int64_t id = 0;
  std::optional<std::string> remark;
  struct odm_model {
    static constexpr std::string_view collection = "notes";
    static constexpr auto fields = odm::fields(odm::renamed_from<&NoteV2::remark>("memo"));
  };
};

// ---- a renamed member inside an embedded struct ---------------------------------------

struct Address {
  std::string street;
  std::optional<std::string> floor;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Address::street>("road"));
  };
};
struct Person {
  std::int64_t id = 0;
  Address home;
  struct odm_model {
    static constexpr std::string_view collection = "people";
  };
};

// A renamed embedded struct: the old name's whole value is the truth.
struct Place {
  std::string city;
  std::optional<std::string> note;
};
struct Shipment {
  std::int64_t id = 0;
  Place destination;
  struct odm_model {
    static constexpr std::string_view collection = "shipments";
    static constexpr auto fields = odm::fields(odm::renamed_from<&Shipment::destination>("ship_to"));
  };
};

// The contract release of Person's nested rename: the README's contract step, given the
// dotted path of the member (the only way to name it).
struct AddressV3 {
  std::string street;
  std::optional<std::string> floor;
};
struct PersonV3 {
  std::int64_t id = 0;
  AddressV3 home;
  struct odm_model {
    static constexpr std::string_view collection = "people";
    static constexpr auto schema =
        odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("home.road", "home.street")));
  };
};

/// The sum of every cart's counter (a $group without a key).
struct CartTotal {
  std::int64_t visits = 0;
};

}  // namespace adv11r

namespace {

using namespace adv11r;
using odm::field;
using odm_test::json;

class Adversary11Rename : public odm_test::DriverTest {
 protected:
  void run(const std::string& command) { db().run_command(json(command)); }
  template <class T>
  odm::Document stored(std::int64_t id) {
    auto found = db().collection<T>().template find_one<odm::Document>(odm::Filter<T>::raw(odm::detail::id_filter(id)));
    EXPECT_TRUE(found.has_value()) << "_id " << id;
    return found ? *found : odm::Document();
  }
  bool has_field(const odm::Document& document, const char* key) {
    bson_iter_t it;
    return bson_iter_init_find(&it, document.get(), key);
  }
};

// ---- reads -----------------------------------------------------------------------------

// Both names with different values: v1 wrote the old one last, so it is the truth, in
// either order of the two fields in the document.
TEST_F(Adversary11Rename, BothNamesWithDifferentValuesReadTheOldOneInEitherOrder) {
  run(R"({"insert": "customers", "documents": [
        {"_id": {"$numberLong": "1"}, "name": "a", "contact": "new", "phone": "old"},
        {"_id": {"$numberLong": "2"}, "name": "b", "phone": "old", "contact": "new"},
        {"_id": {"$numberLong": "3"}, "name": "c", "contact": "only-new"},
        {"_id": {"$numberLong": "4"}, "name": "d", "phone": "only-old"}]})");
  auto v2 = db().collection<CustomerV2>();
  EXPECT_EQ(v2.get_by_id(1).contact, "old");
  EXPECT_EQ(v2.get_by_id(2).contact, "old");
  EXPECT_EQ(v2.get_by_id(3).contact, "only-new");
  EXPECT_EQ(v2.get_by_id(4).contact, "only-old");
  // The typed filter agrees with what is read.
  EXPECT_EQ(v2.count(field(&CustomerV2::contact) == std::string("old")), 2);
  EXPECT_EQ(v2.count(field(&CustomerV2::contact) == std::string("new")), 0);
  EXPECT_EQ(v2.count(field(&CustomerV2::contact) == std::string("only-new")), 1);
  EXPECT_EQ(v2.count(field(&CustomerV2::contact).in({std::string("old"), std::string("only-old")})), 3);
}

// A stored null under the old name is a present value (nullopt), not an absent one: the
// new name's value must not show through it.
TEST_F(Adversary11Rename, NullUnderTheOldNameIsPresentAbsentIsNot) {
  run(R"({"insert": "notes", "documents": [
        {"_id": {"$numberLong": "1"}, "remark": "v2 wrote", "memo": null},
        {"_id": {"$numberLong": "2"}, "remark": "v2 wrote"},
        {"_id": {"$numberLong": "3"}}]})");
  auto v2 = db().collection<NoteV2>();
  EXPECT_EQ(v2.get_by_id(1).remark, std::nullopt);
  EXPECT_EQ(v2.get_by_id(2).remark, std::optional<std::string>("v2 wrote"));
  EXPECT_EQ(v2.get_by_id(3).remark, std::nullopt);
  // v1 sets null, v2 reads null; v2 unsets, v1 reads nothing.
  auto v1 = db().collection<NoteV1>();
  v2.insert_one(NoteV2{4, "x"});
  v1.update_one(field(&NoteV1::id) == std::int64_t{4}, field(&NoteV1::memo).set(std::nullopt));
  EXPECT_EQ(v2.get_by_id(4).remark, std::nullopt);
  v2.update_one(field(&NoteV2::id) == std::int64_t{2}, field(&NoteV2::remark).unset());
  EXPECT_EQ(v1.get_by_id(2).memo, std::nullopt);
  EXPECT_EQ(v2.get_by_id(2).remark, std::nullopt);
  const odm::Document raw = stored<NoteV2>(2);
  EXPECT_FALSE(has_field(raw, "remark")) << raw.to_json();
  EXPECT_FALSE(has_field(raw, "memo")) << raw.to_json();
}

// The old name's value is read as a whole: a sub-document under it is not merged with
// the one under the new name (a member absent from the old value reads as absent).
TEST_F(Adversary11Rename, ARenamedSubDocumentIsReadWholeFromTheOldName) {
  run(R"({"insert": "shipments", "documents": [
        {"_id": {"$numberLong": "1"}, "destination": {"city": "Oslo", "note": "ring twice"},
         "ship_to": {"city": "Bergen"}}]})");
  const Shipment read = db().collection<Shipment>().get_by_id(1);
  EXPECT_EQ(read.destination.city, "Bergen");
  EXPECT_FALSE(read.destination.note.has_value())
      << "a renamed struct member must be read whole from the old name, not merged over the new name's value: "
         "`note` reads \"" << read.destination.note.value_or("") << "\"";
}

// ---- typed filters ----------------------------------------------------------------------

// Negations over a document that has only the new name (written by a program that knows
// only the new name): `!=`, `!`, `exists(false)` must mean the opposite of what `==` and
// `exists(true)` find.
TEST_F(Adversary11Rename, NegatedFiltersAreTheComplementOfTheirPositiveForm) {
  run(R"({"insert": "customers", "documents": [
        {"_id": {"$numberLong": "1"}, "name": "a", "contact": "c"},
        {"_id": {"$numberLong": "2"}, "name": "b", "phone": "c"},
        {"_id": {"$numberLong": "3"}, "name": "c", "phone": "x", "contact": "c"},
        {"_id": {"$numberLong": "4"}, "name": "d", "phone": "c", "contact": "x"}]})");
  auto v2 = db().collection<CustomerV2>();
  const auto is_c = field(&CustomerV2::contact) == std::string("c");
  const std::int64_t positive = v2.count(is_c);
  EXPECT_EQ(positive, 3);  // 1, 2 and 4 read "c"
  EXPECT_EQ(v2.count(odm::nor(is_c)), 4 - positive);
  EXPECT_EQ(v2.count(!is_c), 4 - positive);
  const std::int64_t ne = v2.count(field(&CustomerV2::contact) != std::string("c"));
  const std::int64_t not_gt = v2.count(!(field(&CustomerV2::contact) > std::string("b")));
  const std::int64_t absent = v2.count(field(&CustomerV2::contact).exists(false));
  EXPECT_EQ(ne, 4 - positive) << "`contact != \"c\"`";
  EXPECT_EQ(not_gt, 0) << "`!(contact > \"b\")`: every document reads \"c\" or \"x\"";
  EXPECT_EQ(absent, 0) << "`contact.exists(false)`: every document has a contact";
}

// $elemMatch over a renamed array finds what v1 wrote under the old name.
TEST_F(Adversary11Rename, ElemMatchOnARenamedArrayFindsWhatV1Wrote) {
  auto v1 = db().collection<CartV1>();
  v1.insert_one(CartV1{1, 0, {{"a", 1}, {"b", 2}}});
  v1.insert_one(CartV1{2, 0, {{"a", 5}}});
  auto v2 = db().collection<CartV2>();
  EXPECT_EQ(v2.count(field(&CartV2::lines).elem_match([](auto l) { return l / &Line::sku == std::string("b"); })), 1);
  EXPECT_EQ(v2.count(field(&CartV2::lines).size(1)), 1);
  EXPECT_EQ(v2.count((field(&CartV2::lines) / &Line::qty) > 1), 2);
}

// ---- sorts, projections, indexes ---------------------------------------------------------

// A sort on the renamed member cannot order by the value each document reads (the old
// name's where present, else the new one's: a find sorts by one field), so it is refused:
// odm::asc(&CustomerV2::contact) does not compile (compile-fail pair sort_on_renamed_member),
// and a sort key given as a path throws before anything is sent.
TEST_F(Adversary11Rename, ASortOnTheRenamedMemberIsRefusedBeforeAnythingIsSent) {
  auto v2 = db().collection<CustomerV2>();
  v2.insert_one(CustomerV2{1, "one", "m"});
  try {
    (void)odm::asc(field(&CustomerV2::contact));
    ADD_FAILURE() << "a sort key on a renamed member was accepted";
  } catch (const odm::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("renamed in its expand phase"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("rename_field"), std::string::npos) << e.what();
  }
  // Other members still sort.
  std::vector<std::string> names;
  for (const CustomerV2& c : v2.find({}, odm::FindOptions<CustomerV2>{}.sort(odm::sort(odm::asc(&CustomerV2::name)))))
    names.push_back(c.name);
  EXPECT_EQ(names, std::vector<std::string>{"one"});
}

// A projection onto a smaller struct reads what v1 wrote.
TEST_F(Adversary11Rename, AProjectionOntoASmallerStructReadsWhatV1Wrote) {
  auto v1 = db().collection<CustomerV1>();
  auto v2 = db().collection<CustomerV2>();
  v2.insert_one(CustomerV2{1, "one", "first"});
  v1.update_one(field(&CustomerV1::id) == std::int64_t{1}, field(&CustomerV1::phone).set(std::string("changed")));
  v1.insert_one(CustomerV1{2, "two", "v1 only"});
  std::string problem;
  for (std::int64_t id : {std::int64_t{1}, std::int64_t{2}}) {
    try {
      const auto card = v2.find_one<Card>(field(&CustomerV2::id) == id,
                                          odm::FindOptions<CustomerV2>{}.projection(odm::projection<CustomerV2, Card>()));
      const std::string want = id == 1 ? "changed" : "v1 only";
      if (!card || card->contact != want)
        problem += "_id " + std::to_string(id) + " read \"" + (card ? card->contact : "<none>") + "\", want \"" + want + "\"; ";
    } catch (const odm::Error& e) {
      problem += "_id " + std::to_string(id) + " threw " + e.what() + "; ";
    }
  }
  EXPECT_EQ(problem, "") << "odm::projection<CustomerV2, Card>() is "
                         << odm::projection<CustomerV2, Card>().bson().to_json();
}

// A unique index declared on the renamed member must not refuse v1's writes, which hold
// only the old name (MongoDB indexes a missing field as null, so a second v1 document
// would be a duplicate of the first).
TEST_F(Adversary11Rename, AUniqueIndexOnTheRenamedMemberDoesNotRefuseV1Writes) {
  ODM_REQUIRE(partial_unique_indexes);
  odm::sync_indexes<MemberV2>(db());
  auto v1 = db().collection<MemberV1>();
  v1.insert_one(MemberV1{1, "111"});
  try {
    v1.insert_one(MemberV1{2, "222"});
  } catch (const odm::Error& e) {
    ADD_FAILURE() << "odm::index(&MemberV2::contact).unique() refused v1's second insert: " << e.what();
  }
  EXPECT_EQ(db().collection<MemberV2>().get_by_id(2).contact, "222");
  // Uniqueness still holds under each name: v1 repeating v1's value, v2 repeating it
  // (v2 writes the old name too), and v2 repeating v2's value.
  EXPECT_THROW(v1.insert_one(MemberV1{3, "111"}), odm::DuplicateKeyError);
  auto v2 = db().collection<MemberV2>();
  EXPECT_THROW(v2.insert_one(MemberV2{4, "222"}), odm::DuplicateKeyError);
  v2.insert_one(MemberV2{5, "555"});
  EXPECT_THROW(v2.insert_one(MemberV2{6, "555"}), odm::DuplicateKeyError);
  EXPECT_THROW(v1.insert_one(MemberV1{7, "555"}), odm::DuplicateKeyError);
}

// ---- typed updates --------------------------------------------------------------------

// $inc, $push, $unset of the renamed members on a document only v1 wrote, and
// find_one_and_update returning the document after.
TEST_F(Adversary11Rename, UpdatesOfADocumentOnlyV1WroteReadTheSameInBothVersions) {
  auto v1 = db().collection<CartV1>();
  auto v2 = db().collection<CartV2>();
  v1.insert_one(CartV1{1, 10, {{"a", 1}}});
  v2.update_one(field(&CartV2::id) == std::int64_t{1},
                field(&CartV2::visits).inc(std::int64_t{5}) + field(&CartV2::lines).push(Line{"b", 2}));
  EXPECT_EQ(v2.get_by_id(1).visits, 15);
  EXPECT_EQ(v1.get_by_id(1).hits, 15);
  EXPECT_EQ(v2.get_by_id(1).lines.size(), 2u);
  EXPECT_EQ(v1.get_by_id(1).items.size(), 2u);
  const auto after = v2.find_one_and_update(field(&CartV2::visits) == std::int64_t{15}, field(&CartV2::visits).inc(std::int64_t{1}),
                                            odm::FindOneAndUpdateOptions<CartV2>{}.return_document(odm::ReturnDocument::after));
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->visits, 16);
  EXPECT_EQ(after->lines.size(), 2u);
  // min/max against the value read.
  v2.update_one(field(&CartV2::id) == std::int64_t{1}, field(&CartV2::visits).max(std::int64_t{3}));
  EXPECT_EQ(v2.get_by_id(1).visits, 16);
  EXPECT_EQ(v1.get_by_id(1).hits, 16);
}

// A positional update of an element of the renamed array: a document may hold either
// array, and MongoDB's `$` is recorded through no `$or`, so one update cannot reach both.
// odm refuses it before anything is sent, naming the path and what to write instead, and
// the document is unchanged.
TEST_F(Adversary11Rename, APositionalUpdateOfARenamedArrayIsRefusedBeforeAnythingIsSent) {
  auto v1 = db().collection<CartV1>();
  auto v2 = db().collection<CartV2>();
  v1.insert_one(CartV1{1, 0, {{"a", 1}, {"b", 2}}});
  const auto has_b = field(&CartV2::id) == std::int64_t{1} &&
                     field(&CartV2::lines).elem_match([](auto l) { return l / &Line::sku == std::string("b"); });
  try {
    v2.update_one(has_b, (field(&CartV2::lines).matched() / &Line::qty).set(9));
    ADD_FAILURE() << "a positional update of a renamed array was sent";
  } catch (const odm::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("lines.$.qty"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Set the whole member"), std::string::npos) << e.what();
  }
  EXPECT_EQ(v1.get_by_id(1).items.at(1).qty, 2);
  // What the message advises works on the document only v1 wrote.
  CartV2 cart = v2.get_by_id(1);
  cart.lines.at(1).qty = 9;
  v2.update_one(field(&CartV2::id) == std::int64_t{1}, field(&CartV2::lines).set(cart.lines));
  EXPECT_EQ(v1.get_by_id(1).items.at(1).qty, 9);
  EXPECT_EQ(v2.get_by_id(1).lines.at(1).qty, 9);
}

// An upsert whose filter holds the renamed member: MongoDB seeds the inserted document
// with the filter's equality conditions, so the value must be there under both names.
TEST_F(Adversary11Rename, AnUpsertKeepsTheFiltersValueOfTheRenamedMember) {
  auto v2 = db().collection<CustomerV2>();
  const auto result = v2.update_one(field(&CustomerV2::id) == std::int64_t{5} && field(&CustomerV2::contact) == std::string("555"),
                                    field(&CustomerV2::name).set(std::string("new")), odm::UpdateOptions<CustomerV2>{}.upsert());
  EXPECT_TRUE(result.upserted_id.has_value());
  const odm::Document raw = stored<CustomerV2>(5);
  ASSERT_TRUE(has_field(raw, "contact") && has_field(raw, "phone"))
      << "the inserted document " << raw.to_json() << " lacks the member under one of its names";
  EXPECT_EQ(v2.get_by_id(5).contact, "555");
  EXPECT_EQ(db().collection<CustomerV1>().get_by_id(5).phone, "555");
}

// replace_one by v2 of a document v1 changed since v2 loaded it: v2's value wins under both names.
TEST_F(Adversary11Rename, AReplaceByV2WritesBothNames) {
  auto v1 = db().collection<CustomerV1>();
  auto v2 = db().collection<CustomerV2>();
  v1.insert_one(CustomerV1{1, "a", "old"});
  CustomerV2 mine = v2.get_by_id(1);
  v1.update_one(field(&CustomerV1::id) == std::int64_t{1}, field(&CustomerV1::phone).set(std::string("v1")));
  mine.contact = "v2";
  v2.replace_one(field(&CustomerV2::id) == std::int64_t{1}, mine);
  EXPECT_EQ(v1.get_by_id(1).phone, "v2");
  EXPECT_EQ(v2.get_by_id(1).contact, "v2");
}

// A typed update of a renamed member inside an embedded struct: the value read afterwards
// must be the one written.
TEST_F(Adversary11Rename, ATypedUpdateOfARenamedEmbeddedMemberIsNotLost) {
  auto people = db().collection<Person>();
  people.insert_one(Person{1, Address{"Main St", std::nullopt}});
  people.update_one(field(&Person::id) == std::int64_t{1}, (field(&Person::home) / &Address::street).set(std::string("High St")));
  const std::string read = people.get_by_id(1).home.street;
  EXPECT_EQ(read, "High St") << "a typed $set of a renamed member inside an embedded struct was lost";
}

// ---- a v1 writer racing v2 ---------------------------------------------------------------

// v1 and v2 increment one counter, v1 renames the customer and v2 pushes lines, from
// several threads at once: no write lost, both versions read the same.
TEST_F(Adversary11Rename, V1AndV2IncrementingAtOnceLoseNothing) {
  const char* env = std::getenv("ODM_ADVERSARY_SEED");
  const unsigned seed = env ? static_cast<unsigned>(std::strtoul(env, nullptr, 10)) : 20261124u;
  SCOPED_TRACE("seed " + std::to_string(seed) + " (ODM_ADVERSARY_SEED replays it)");
  db().collection<CartV1>().insert_one(CartV1{1, 0, {}});
  constexpr int threads = 4;
  constexpr int rounds = 25;
  std::atomic<int> ready{0};
  std::atomic<std::int64_t> added{0};
  std::atomic<std::int64_t> pushed{0};
  std::vector<std::thread> workers;
  std::vector<std::string> errors(threads);
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      try {
        odm::Client client(uri_);
        auto v1 = client.database(db_name_).collection<CartV1>();
        auto v2 = client.database(db_name_).collection<CartV2>();
        std::mt19937 random(seed + static_cast<unsigned>(t));
        ++ready;
        while (ready.load() < threads) std::this_thread::yield();
        for (int i = 0; i < rounds; ++i) {
          const std::int64_t by = 1 + static_cast<std::int64_t>(random() % 5);
          switch (random() % 4) {
            case 0: v1.update_one(field(&CartV1::id) == std::int64_t{1}, field(&CartV1::hits).inc(by)); break;
            case 1: v2.update_one(field(&CartV2::id) == std::int64_t{1}, field(&CartV2::visits).inc(by)); break;
            case 2:
              v1.update_one(field(&CartV1::id) == std::int64_t{1}, field(&CartV1::items).push(Line{"v1", 1}));
              ++pushed;
              continue;
            default:
              v2.update_one(field(&CartV2::id) == std::int64_t{1}, field(&CartV2::lines).push(Line{"v2", 1}));
              ++pushed;
              continue;
          }
          added += by;
        }
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(t)] = e.what();
      }
    });
  }
  for (auto& w : workers) w.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  EXPECT_EQ(db().collection<CartV1>().get_by_id(1).hits, added.load());
  EXPECT_EQ(db().collection<CartV2>().get_by_id(1).visits, added.load());
  EXPECT_EQ(static_cast<std::int64_t>(db().collection<CartV2>().get_by_id(1).lines.size()), pushed.load());
  // Every element pushed under the new name while the document had only the old one, or
  // the reverse, is still in the array each version reads.
  EXPECT_EQ(static_cast<std::int64_t>(db().collection<CartV1>().get_by_id(1).items.size()), pushed.load());
}

// ---- the contract step ------------------------------------------------------------------

// rename_field with a Migration: the old value wins where present, the old name is gone,
// a second run writes nothing, and an interrupted run resumes without losing anything.
TEST_F(Adversary11Rename, TheContractMigrationKeepsTheNewestValueAndIsIdempotentAndResumable) {
  run(R"({"insert": "carts", "documents": [
        {"_id": {"$numberLong": "1"}, "hits": {"$numberLong": "5"}},
        {"_id": {"$numberLong": "2"}, "visits": {"$numberLong": "7"}, "hits": {"$numberLong": "7"}},
        {"_id": {"$numberLong": "3"}, "visits": {"$numberLong": "3"}, "hits": {"$numberLong": "9"}},
        {"_id": {"$numberLong": "4"}, "visits": {"$numberLong": "4"}},
        {"_id": {"$numberLong": "5"}, "hits": {"$numberLong": "6"}, "visits": {"$numberLong": "1"}}]})");
  const std::int64_t want[] = {5, 7, 9, 4, 6};
  // Interrupted after the first batch.
  int batches = 0;
  EXPECT_THROW(odm::Migration<CartV3>(db())
                   .batch_size(2)
                   .on_progress([&](const odm::MigrationProgress&) {
                     if (++batches == 1) throw std::runtime_error("crash");
                   })
                   .run(),
               std::runtime_error);
  auto v3 = db().collection<CartV3>();
  for (std::int64_t id = 1; id <= 5; ++id) EXPECT_EQ(v3.get_by_id(id).visits, want[id - 1]) << "_id " << id;
  const odm::MigrationReport first = odm::Migration<CartV3>(db()).batch_size(2).run();
  EXPECT_EQ(first.remaining, 0);
  for (std::int64_t id = 1; id <= 5; ++id) {
    EXPECT_EQ(v3.get_by_id(id).visits, want[id - 1]) << "_id " << id;
    EXPECT_FALSE(has_field(stored<CartV3>(id), "hits")) << "_id " << id;
  }
  const odm::MigrationReport second = odm::Migration<CartV3>(db()).run();
  EXPECT_EQ(second.migrated, 0);
  EXPECT_EQ(second.remaining, 0);
  for (std::int64_t id = 1; id <= 5; ++id) EXPECT_EQ(v3.get_by_id(id).visits, want[id - 1]) << "_id " << id;
}

// The contract of a nested rename: odm::rename_field takes a top-level name. Given the
// dotted path of a renamed embedded member it must either move it or refuse; a silent
// no-op marks the document current and the next read takes the stale new name.
TEST_F(Adversary11Rename, TheContractStepOfANestedRenameNeverLosesTheNewerValue) {
  run(R"({"insert": "people", "documents": [
        {"_id": {"$numberLong": "1"}, "home": {"street": "stale", "road": "fresh"}}]})");
  std::string read;
  std::string failure;
  try {
    odm::Migration<PersonV3>(db()).run();
    read = db().collection<PersonV3>().get_by_id(1).home.street;
  } catch (const odm::Error& e) {
    failure = e.what();  // refusing the dotted name is as good as moving it
  }
  EXPECT_EQ(failure, "");
  EXPECT_EQ(read, "fresh") << "the contract step must move the old name's value, v1's last write";
  EXPECT_FALSE(has_field(stored<PersonV3>(1), "home.road"));
}

// A tracked save by v2 of a document only v1 wrote, changing one element of the renamed
// array: the save sets the element's path under both names. Under the new name, which
// the document lacks, MongoDB's $set of "lines.1.qty" creates an object {"1": {qty}}, not
// an array; the next typed array update of the member must still work.
TEST_F(Adversary11Rename, ATrackedElementChangeOnAV1DocumentKeepsTheRenamedMemberAnArray) {
  db().collection<CartV1>().insert_one(CartV1{1, 0, {{"a", 1}, {"b", 2}}});
  auto v2 = db().collection<CartV2>();
  odm::Tracked<CartV2> mine = odm::track(v2.get_by_id(1));
  mine->lines.at(1).qty = 5;
  const std::string sent = mine.changes().to_json();
  EXPECT_TRUE(mine.save(v2));
  EXPECT_EQ(v2.get_by_id(1).lines.at(1).qty, 5);
  EXPECT_EQ(db().collection<CartV1>().get_by_id(1).items.at(1).qty, 5);
  std::string failure;
  try {
    v2.update_one(field(&CartV2::id) == std::int64_t{1}, field(&CartV2::lines).push(Line{"c", 1}));
  } catch (const odm::Error& e) {
    failure = e.what();
  }
  const odm::Document raw = stored<CartV2>(1);
  bson_iter_t it;
  const bool new_name_is_array = bson_iter_init_find(&it, raw.get(), "lines") && BSON_ITER_HOLDS_ARRAY(&it);
  EXPECT_EQ(failure, "") << "the tracked save sent " << sent;
  EXPECT_TRUE(new_name_is_array) << "the tracked save sent " << sent << "; stored " << raw.to_json();
  EXPECT_EQ(v2.get_by_id(1).lines.size(), 3u);
}

// `$[]` over the renamed array: MongoDB refuses an array update of a path the document
// lacks, and a document may hold either name, so odm refuses it before anything is sent.
TEST_F(Adversary11Rename, AnAllElementsUpdateOfARenamedArrayIsRefusedBeforeAnythingIsSent) {
  db().collection<CartV1>().insert_one(CartV1{1, 0, {{"a", 1}, {"b", 2}}});
  auto v2 = db().collection<CartV2>();
  const auto update = (field(&CartV2::lines).all_elements() / &Line::qty).inc(10);
  try {
    v2.update_one(field(&CartV2::id) == std::int64_t{1}, update);
    ADD_FAILURE() << "an all-elements update of a renamed array was sent";
  } catch (const odm::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("lines.$[].qty"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("renamed in its expand phase"), std::string::npos) << e.what();
  }
  EXPECT_EQ(db().collection<CartV1>().get_by_id(1).items.at(1).qty, 2);
  // The same through the array filters' form, and in a bulk write.
  EXPECT_THROW(v2.update_one(field(&CartV2::id) == std::int64_t{1},
                             (field(&CartV2::lines).matched() / &Line::qty).inc(1)),
               odm::UsageError);
  EXPECT_THROW(v2.bulk_write().update_one(field(&CartV2::id) == std::int64_t{1}, update), odm::UsageError);
}

// A typed $group over the renamed counter adds what each document reads (v1 wrote only
// the old name; v1 changed the old name after v2 wrote both).
TEST_F(Adversary11Rename, AGroupOverTheRenamedMemberAddsTheValuesRead) {
  auto v1 = db().collection<CartV1>();
  auto v2 = db().collection<CartV2>();
  v1.insert_one(CartV1{1, 5, {}});
  v2.insert_one(CartV2{2, 7, {}});
  v1.update_one(field(&CartV1::id) == std::int64_t{2}, field(&CartV1::hits).set(std::int64_t{10}));
  const auto pipeline = odm::pipeline<CartV2>().group<CartTotal>(odm::agg::sum<&CartTotal::visits>(field(&CartV2::visits)));
  const std::vector<CartTotal> totals = v2.aggregate(pipeline).to_vector();
  ASSERT_EQ(totals.size(), 1u);
  std::int64_t read = 0;
  for (const CartV2& c : v2.find()) read += c.visits;
  EXPECT_EQ(read, 15);
  EXPECT_EQ(totals[0].visits, read) << pipeline.bson().to_json();
}

}  // namespace
