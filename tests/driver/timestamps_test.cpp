// Automatic timestamps against a server (odm::created_at, odm::updated_at;
// odm/driver/timestamps.hpp): every insert sets both, every update, replace and save sets
// updated_at and leaves created_at as stored, an upsert that inserts sets both, and a write
// that sets a stamp itself is sent as written. Times are the client's clock to the
// millisecond, so each is checked to lie between the clock read before and after the call.

#include "driver/support.hpp"

#include <odm/driver/client.hpp>
#include <odm/evolution/changes.hpp>
#include <odm/evolution/extra.hpp>
#include <odm/fields/object_id.hpp>
#include <odm/join/subset.hpp>
#include <odm/model/timestamps.hpp>
#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

namespace timestamps_test {
namespace {

using odm::field;
using Millis = std::chrono::sys_time<std::chrono::milliseconds>;

Millis clock_now() { return std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now()); }

struct Order {
  std::int64_t id = 0;
  std::string status;
  Millis created_at{};
  // A finer time point, optional: documents stored before the member existed have none.
  std::optional<std::chrono::system_clock::time_point> updated_at;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
    static constexpr auto fields = odm::fields(odm::created_at(&Order::created_at), odm::updated_at(&Order::updated_at),
                                               odm::defaulted(&Order::status));
  };
};

/// The window a call ran in, to the millisecond: every stamp it wrote lies inside.
struct Window {
  Millis from;
  Millis to;
  bool holds(Millis t) const { return from <= t && t <= to; }
  bool holds(std::optional<std::chrono::system_clock::time_point> t) const {
    return t && holds(std::chrono::floor<std::chrono::milliseconds>(*t)) &&
           std::chrono::floor<std::chrono::milliseconds>(*t) == *t;
  }
};
Window during(const std::function<void()>& call) {
  const Millis from = clock_now();
  call();
  return {from, clock_now()};
}
/// Waits until the clock has moved past `t`, so that the next stamp differs from it.
void after(Millis t) {
  while (clock_now() <= t) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

class Timestamps : public odm_test::DriverTest {
 protected:
  odm::Collection<Order> orders() { return db().collection<Order>(); }
  Order stored(std::int64_t id = 1) { return orders().get_by_id(id); }
};

// ---- inserts ---------------------------------------------------------------------------

TEST_F(Timestamps, AnInsertSetsBothInTheObjectAndTheDocument) {
  auto coll = orders();
  Order order{1, "new", {}, std::nullopt};
  const Window window = during([&] { coll.insert_one(order); });
  EXPECT_TRUE(window.holds(order.created_at));
  EXPECT_TRUE(window.holds(order.updated_at));
  EXPECT_EQ(order.updated_at, std::optional<std::chrono::system_clock::time_point>(order.created_at));
  const Order back = stored();
  EXPECT_EQ(back.created_at, order.created_at);
  EXPECT_EQ(back.updated_at, order.updated_at);
  // A const object is not changed: a copy is stamped and written. A stamp already in the
  // object is an insert's to set, not the caller's.
  const Order given{2, "new", Millis(std::chrono::milliseconds(5)), std::nullopt};
  const Window second = during([&] { coll.insert_one(given); });
  EXPECT_EQ(given.created_at, Millis(std::chrono::milliseconds(5)));
  EXPECT_FALSE(given.updated_at);
  EXPECT_TRUE(second.holds(stored(2).created_at));
  EXPECT_TRUE(second.holds(stored(2).updated_at));
}

TEST_F(Timestamps, InsertManyAndBulkInsertsStampEveryDocument) {
  auto coll = orders();
  std::vector<Order> batch{{1, "a", {}, {}}, {2, "b", {}, {}}};
  const Window window = during([&] { coll.insert_many(batch); });
  for (const Order& order : batch) {
    EXPECT_TRUE(window.holds(order.created_at));
    EXPECT_EQ(stored(order.id).created_at, order.created_at);
    EXPECT_EQ(stored(order.id).updated_at, order.updated_at);
  }
  EXPECT_EQ(batch[0].created_at, batch[1].created_at) << "one call, one time";
  const std::vector<Order> constant{{3, "c", {}, {}}};
  const Window second = during([&] { coll.insert_many(constant); });
  EXPECT_EQ(constant[0].created_at, Millis{});
  EXPECT_TRUE(second.holds(stored(3).created_at));
  Order bulk{4, "d", {}, {}};
  const Order bulk_const{5, "e", {}, {}};
  const Window third = during([&] { coll.bulk_write().insert_one(bulk).insert_one(bulk_const).execute(); });
  EXPECT_TRUE(third.holds(bulk.created_at));
  EXPECT_EQ(stored(4).created_at, bulk.created_at);
  EXPECT_TRUE(third.holds(stored(5).created_at));
  EXPECT_TRUE(third.holds(stored(5).updated_at));
}

// ---- every kind of write that changes a document ---------------------------------------

struct Change {
  const char* name;
  std::function<void(odm::Collection<Order>&, odm::Database db)> run;
};

const Change changes[] = {
    {"update_one", [](auto& c, auto) { c.update_one(field(&Order::id) == 1, field(&Order::status).set(std::string("paid"))); }},
    {"update_many",
     [](auto& c, auto) { c.update_many(field(&Order::id) == 1, field(&Order::status).set(std::string("paid"))); }},
    {"update_one_raw",
     [](auto& c, auto) {
       c.update_one(field(&Order::id) == 1, odm::Update<Order>::raw(odm_test::json(R"({"$set": {"status": "paid"}})")));
     }},
    {"update_one_upserting_that_matches",
     [](auto& c, auto) {
       c.update_one(field(&Order::id) == 1, field(&Order::status).set(std::string("paid")),
                    odm::UpdateOptions<Order>{}.upsert());
     }},
    {"find_one_and_update",
     [](auto& c, auto) {
       (void)c.find_one_and_update(field(&Order::id) == 1, field(&Order::status).set(std::string("paid")));
     }},
    {"replace_one",
     [](auto& c, auto) {
       // The replacement's own stamps (here the epoch, as a fresh object has) are not written.
       c.replace_one(field(&Order::id) == 1, Order{1, "paid", {}, {}});
     }},
    {"replace_one_upserting_that_matches",
     [](auto& c, auto) { c.replace_one(field(&Order::id) == 1, Order{1, "paid", {}, {}}, odm::ReplaceOptions<Order>{}.upsert()); }},
    {"find_one_and_replace",
     [](auto& c, auto) { (void)c.find_one_and_replace(field(&Order::id) == 1, Order{1, "paid", {}, {}}); }},
    {"bulk_update_one",
     [](auto& c, auto) {
       c.bulk_write().update_one(field(&Order::id) == 1, field(&Order::status).set(std::string("paid"))).execute();
     }},
    {"bulk_update_many",
     [](auto& c, auto) {
       c.bulk_write().update_many(field(&Order::id) == 1, field(&Order::status).set(std::string("paid"))).execute();
     }},
    {"bulk_replace_one",
     [](auto& c, auto) { c.bulk_write().replace_one(field(&Order::id) == 1, Order{1, "paid", {}, {}}).execute(); }},
    {"tracked_save",
     [](auto& c, auto) {
       odm::Tracked<Order> order = odm::track(c, std::int64_t{1});
       order->status = "paid";
       ASSERT_TRUE(order.save(c));
     }},
};

void PrintTo(const Change& change, std::ostream* out) { *out << change.name; }

class EveryChange : public Timestamps, public ::testing::WithParamInterface<Change> {};

TEST_P(EveryChange, SetsUpdatedAtAndKeepsCreatedAt) {
  auto coll = orders();
  Order order{1, "new", {}, {}};
  coll.insert_one(order);
  after(order.created_at);
  const Window window = during([&] { GetParam().run(coll, db()); });
  const Order now = stored();
  EXPECT_EQ(now.status, "paid");
  EXPECT_EQ(now.created_at, order.created_at) << GetParam().name << " changed created_at";
  EXPECT_TRUE(window.holds(now.updated_at)) << GetParam().name << " did not set updated_at to the time of the write";
}

INSTANTIATE_TEST_SUITE_P(Writes, EveryChange, ::testing::ValuesIn(changes),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(Timestamps, UpsertsThatInsertSetBoth) {
  auto coll = orders();
  const auto paid = field(&Order::status).set(std::string("paid"));
  const std::vector<std::pair<std::int64_t, std::function<void()>>> upserts{
      {1, [&] { coll.update_one(field(&Order::id) == 1, paid, odm::UpdateOptions<Order>{}.upsert()); }},
      {2, [&] { coll.update_many(field(&Order::id) == 2, paid, odm::UpdateOptions<Order>{}.upsert()); }},
      {3, [&] { (void)coll.find_one_and_update(field(&Order::id) == 3, paid, odm::FindOneAndUpdateOptions<Order>{}.upsert()); }},
      {4, [&] { coll.replace_one(field(&Order::id) == 4, Order{4, "paid", {}, {}}, odm::ReplaceOptions<Order>{}.upsert()); }},
      {5,
       [&] {
         (void)coll.find_one_and_replace(field(&Order::id) == 5, Order{5, "paid", {}, {}},
                                         odm::FindOneAndReplaceOptions<Order>{}.upsert());
       }},
      {6, [&] { coll.bulk_write().update_one(field(&Order::id) == 6, paid, odm::UpdateOptions<Order>{}.upsert()).execute(); }},
      {7,
       [&] {
         coll.bulk_write()
             .replace_one(field(&Order::id) == 7, Order{7, "paid", {}, {}}, odm::ReplaceOptions<Order>{}.upsert())
             .execute();
       }},
  };
  for (const auto& [id, upsert] : upserts) {
    const Window window = during(upsert);
    const Order inserted = stored(id);
    EXPECT_TRUE(window.holds(inserted.created_at)) << "upsert " << id;
    EXPECT_TRUE(window.holds(inserted.updated_at)) << "upsert " << id;
    EXPECT_EQ(inserted.status, "paid");
  }
}

// ---- what is sent ----------------------------------------------------------------------

TEST_F(Timestamps, AnUpdateSetsUpdatedAtBesideItsOwnSetAndAnUpsertCreatedAtOnInsert) {
  auto coll = orders();
  coll.insert_one(Order{1, "new", {}, {}});
  log_.clear();
  coll.update_one(field(&Order::id) == 1, field(&Order::status).set(std::string("paid")));
  const Order now = stored();
  const auto ms = [](auto t) { return std::to_string(std::chrono::floor<std::chrono::milliseconds>(t).time_since_epoch().count()); };
  EXPECT_EQ(last_update().to_canonical_json(),
            odm_test::json(R"({"$set": {"status": "paid", "updated_at": {"$date": {"$numberLong": ")" +
                           ms(*now.updated_at) + R"("}}}})")
                .to_canonical_json());
  coll.update_one(field(&Order::id) == 2, field(&Order::status).set(std::string("x")),
                  odm::UpdateOptions<Order>{}.upsert());
  const Order upserted = stored(2);
  EXPECT_EQ(last_update().to_canonical_json(),
            odm_test::json(R"({"$set": {"status": "x", "updated_at": {"$date": {"$numberLong": ")" +
                           ms(*upserted.updated_at) + R"("}}}, "$setOnInsert": {"created_at": {"$date": {"$numberLong": ")" +
                           ms(upserted.created_at) + R"("}}}})")
                .to_canonical_json());
}

TEST_F(Timestamps, AWriteThatSetsAStampItselfIsSentAsWritten) {
  auto coll = orders();
  coll.insert_one(Order{1, "new", {}, {}});
  const std::chrono::system_clock::time_point moment{std::chrono::milliseconds(1'700'000'000'000)};
  coll.update_one(field(&Order::id) == 1, field(&Order::updated_at).set(moment));
  EXPECT_EQ(stored().updated_at, moment);
  // An import that keeps the times it brings: both set by the upsert itself.
  const Millis created{std::chrono::milliseconds(1'600'000'000'000)};
  coll.update_one(field(&Order::id) == 2,
                  field(&Order::created_at).set_on_insert(created) + field(&Order::updated_at).set(moment),
                  odm::UpdateOptions<Order>{}.upsert());
  EXPECT_EQ(stored(2).created_at, created);
  EXPECT_EQ(stored(2).updated_at, moment);
}

TEST_F(Timestamps, AReplaceLeavesTheStoredCreatedAtOut) {
  auto coll = orders();
  Order order{1, "new", {}, {}};
  coll.insert_one(order);
  log_.clear();
  coll.replace_one(field(&Order::id) == 1, Order{1, "paid", Millis(std::chrono::milliseconds(3)), {}});
  const odm::Document sent = last_update();
  bson_iter_t it;
  EXPECT_FALSE(bson_iter_init(&it, sent.get()) && bson_iter_find_descendant(&it, "$set.created_at", &it))
      << sent.to_json();
  EXPECT_FALSE(bson_iter_init(&it, sent.get()) && bson_iter_find_descendant(&it, "$unset.created_at", &it))
      << sent.to_json();
  EXPECT_TRUE(bson_iter_init(&it, sent.get()) && bson_iter_find_descendant(&it, "$setOnInsert.created_at", &it))
      << sent.to_json();
  EXPECT_EQ(stored().created_at, order.created_at);
}

// A model with odm::Extra is replaced by its whole document: created_at is the replacement's.
struct Note {
  odm::ObjectId id;
  std::string text;
  Millis created_at{};
  Millis updated_at{};
  odm::Extra extra;
  struct odm_model {
    static constexpr std::string_view collection = "notes";
    static constexpr auto fields = odm::fields(odm::created_at(&Note::created_at), odm::updated_at(&Note::updated_at));
  };
};

TEST_F(Timestamps, AWholeDocumentReplaceWritesTheReplacementsCreatedAt) {
  auto notes = db().collection<Note>();
  Note note{{}, "a", {}, {}, {}};
  notes.insert_one(note);
  EXPECT_FALSE(note.id.is_zero());
  after(note.created_at);
  Note edited = notes.get_by_id(note.id);
  edited.text = "b";
  const Window window = during([&] { notes.replace_one(field(&Note::id) == note.id, edited); });
  const Note now = notes.get_by_id(note.id);
  EXPECT_EQ(now.created_at, note.created_at);
  EXPECT_TRUE(window.holds(now.updated_at));
  EXPECT_EQ(edited.updated_at, note.updated_at) << "the replacement passed const is not changed";
}

// A fresh object upserted by a whole-document replace has no created_at of its own: the
// upsert that inserts gives it now, as every insert does.
TEST_F(Timestamps, AWholeDocumentUpsertOfAFreshObjectSetsCreatedAtNow) {
  auto notes = db().collection<Note>();
  const odm::ObjectId id = odm::ObjectId::generate();
  const Window window = during([&] {
    notes.replace_one(field(&Note::id) == id, Note{id, "fresh", {}, {}, {}}, odm::ReplaceOptions<Note>{}.upsert());
  });
  const Note stored = notes.get_by_id(id);
  EXPECT_TRUE(window.holds(stored.created_at));
  EXPECT_TRUE(window.holds(stored.updated_at));
}

// keep_timestamps(): a data fix that is no change of content leaves the stamps as the write says.
TEST_F(Timestamps, AWriteWithKeepTimestampsLeavesThemAsItSays) {
  auto coll = orders();
  coll.insert_one(Order{1, "new", {}, {}});
  const Order before = stored();
  after(before.created_at);
  coll.update_one(field(&Order::id) == 1, field(&Order::status).set("fixed"),
                  odm::UpdateOptions<Order>{}.keep_timestamps());
  EXPECT_EQ(stored().updated_at, before.updated_at);
  EXPECT_EQ(stored().status, "fixed");
  const Millis imported{std::chrono::milliseconds(946684800000)};  // 2000-01-01, the source's own times
  coll.replace_one(field(&Order::id) == 1, Order{1, "imported", imported, imported},
                   odm::ReplaceOptions<Order>{}.keep_timestamps());
  EXPECT_EQ(stored().created_at, imported);
  EXPECT_EQ(stored().updated_at, std::optional<std::chrono::system_clock::time_point>(imported));
}

// ---- rewrites that are no change of the document --------------------------------------------

struct Counter {
  std::int32_t id = 0;
  std::int32_t n = 0;
  std::optional<Millis> created_at;
  std::optional<Millis> updated_at;
  struct odm_model {
    static constexpr std::string_view collection = "counters";
    static constexpr auto fields = odm::fields(odm::created_at(&Counter::created_at), odm::updated_at(&Counter::updated_at));
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("count", "n")));
  };
};

TEST_F(Timestamps, AMigrationLeavesTheStampsAlone) {
  auto raw = db().collection<odm::Document>("counters");
  raw.insert_one(odm::Document::from_json(R"({"_id": 1, "count": 1, "created_at": {"$date": "2000-01-01T00:00:00Z"},
                                              "updated_at": {"$date": "2000-01-01T00:00:00Z"}})"));
  raw.insert_one(odm::Document::from_json(R"({"_id": 2, "count": 1})"));  // written before the stamps existed
  ASSERT_EQ(odm::Migration<Counter>(db()).run().migrated, 2);
  auto counters = db().collection<Counter>();
  const Counter one = counters.get_by_id(1);
  EXPECT_EQ(one.n, 1);
  EXPECT_EQ(one.updated_at, Millis(std::chrono::milliseconds(946684800000)));
  const Counter two = counters.get_by_id(2);
  EXPECT_FALSE(two.updated_at.has_value()) << "a migration is no change of the document";
  EXPECT_FALSE(two.created_at.has_value());
}

// ---- tracked saves -----------------------------------------------------------------------

// A save whose object's updated_at the program changed sends that change as made, as an
// update that writes the stamp does.
TEST_F(Timestamps, ASaveOfAnUpdatedAtTheProgramChangedSendsItAsChanged) {
  auto coll = orders();
  coll.insert_one(Order{1, "new", {}, {}});
  odm::Tracked<Order> order = odm::track(coll, std::int64_t{1});
  const std::chrono::system_clock::time_point backdated{std::chrono::milliseconds(946684800000)};
  order->updated_at = backdated;
  order->status = "imported";
  EXPECT_TRUE(order.save(coll));
  EXPECT_EQ(stored().updated_at, backdated);
  EXPECT_EQ(order->updated_at, backdated);
  EXPECT_FALSE(order.changed());
}

TEST_F(Timestamps, ASaveSetsUpdatedAtInTheObjectAndOnlyWhenItWrites) {
  auto coll = orders();
  coll.insert_one(Order{1, "new", {}, {}});
  odm::Tracked<Order> order = odm::track(coll, std::int64_t{1});
  const auto loaded = order->updated_at;
  after(order->created_at);
  EXPECT_FALSE(order.save(coll)) << "nothing changed: nothing sent";
  EXPECT_EQ(stored().updated_at, loaded);
  EXPECT_EQ(order->updated_at, loaded);
  order->status = "paid";
  const Window window = during([&] { EXPECT_TRUE(order.save(coll)); });
  EXPECT_TRUE(window.holds(order->updated_at));
  EXPECT_EQ(stored().updated_at, order->updated_at);
  EXPECT_FALSE(order.changed()) << "the object is what is stored";
}

// ---- writes made for the program: a Subset operation is an update of its owner -------------

struct Shelf;
struct Book {
  std::int32_t code = 0;
  odm::ParentRef<Shelf> shelf;
  std::string title;
  struct odm_model {
    static constexpr std::string_view collection = "books";
    static constexpr auto key = &Book::code;
  };
};
struct Shelf {
  std::int32_t id = 0;
  odm::Subset<Book, 2, &Book::title, odm::Direction::ascending> first;
  Millis updated_at{};
  struct odm_model {
    static constexpr std::string_view collection = "shelves";
    static constexpr auto fields = odm::fields(odm::updated_at(&Shelf::updated_at));
  };
};

TEST_F(Timestamps, ASubsetOperationSetsItsOwnersUpdatedAt) {
  auto shelves = db().collection<Shelf>();
  Shelf shelf{1, {}, {}};
  shelves.insert_one(shelf);
  after(shelf.updated_at);
  const Window window = during(
      [&] { ASSERT_TRUE(odm::subset::add(db(), &Shelf::first, std::int32_t{1}, Book{7, odm::ParentRef<Shelf>(1), "Emma"})); });
  EXPECT_TRUE(window.holds(shelves.get_by_id(1).updated_at));
}

}  // namespace
}  // namespace timestamps_test
