// Optimistic locking against a server: every write odm sends to a model with a version
// member moves the version (odm/driver/versioning.hpp), so an odm::Tracked save loaded
// before any of them misses instead of writing over it; the calls that keep the version
// say so; and a reference model over randomized interleavings and a thread race show that
// no update is lost.

#include "driver/support.hpp"

#include <odm/driver/client.hpp>
#include <odm/evolution/changes.hpp>
#include <odm/evolution/extra.hpp>
#include <odm/evolution/migrate.hpp>
#include <odm/evolution/versions.hpp>
#include <odm/join/subset.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <latch>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace optimistic_locking_itest {
namespace {

using odm::field;

struct Item {
  std::int64_t id = 0;
  std::string name;
  std::int64_t stock = 0;
  std::int64_t version = 0;
  struct odm_model {
    static constexpr std::string_view collection = "items";
    // An upsert seeds only _id and what it sets: the name may be absent.
    static constexpr auto fields =
        odm::fields(odm::version(&Item::version), odm::defaulted(&Item::version), odm::defaulted(&Item::name));
  };
};

class OptimisticLocking : public odm_test::DriverTest {
 protected:
  odm::Collection<Item> items() { return db().collection<Item>(); }
  Item stored(std::int64_t id = 1) { return items().get_by_id(id); }
  /// The `u` of the last update command sent (empty when none was).
  odm::Document last_update() {
    const std::optional<odm::Document> command = log_.last("update");
    if (!command) return {};
    bson_iter_t it;
    bson_iter_t u;
    if (!bson_iter_init(&it, command->get()) || !bson_iter_find_descendant(&it, "updates.0.u", &u)) return {};
    return odm::detail::copy_held_document(u);
  }
};

// ---- the lost update of the issue, and every kind of write -------------------------------

/// A write that takes 3 from item 1's stock, as one of the calls a service makes.
struct Sale {
  const char* name;
  std::function<void(odm::Collection<Item>&, std::int64_t stock_after)> run;
};

const Sale sales[] = {
    {"update_one", [](auto& c, auto) { c.update_one(field(&Item::id) == 1, field(&Item::stock).inc(-3)); }},
    {"update_many", [](auto& c, auto) { c.update_many(field(&Item::id) == 1, field(&Item::stock).inc(-3)); }},
    {"update_one_upserting",
     [](auto& c, auto) {
       c.update_one(field(&Item::id) == 1, field(&Item::stock).inc(-3), odm::UpdateOptions<Item>{}.upsert());
     }},
    {"update_one_raw",
     [](auto& c, auto) {
       c.update_one(field(&Item::id) == 1, odm::Update<Item>::raw(odm_test::json(R"({"$inc": {"stock": -3}})")));
     }},
    {"update_one_with_another_inc",
     [](auto& c, auto) {
       c.update_one(field(&Item::id) == 1, field(&Item::stock).inc(-3) + field(&Item::name).set(std::string("sold")));
     }},
    {"find_one_and_update",
     [](auto& c, auto) { (void)c.find_one_and_update(field(&Item::id) == 1, field(&Item::stock).inc(-3)); }},
    {"replace_one",
     [](auto& c, std::int64_t after) {
       // The replacement carries the version it was read at (or any): the stored one moves.
       c.replace_one(field(&Item::id) == 1, Item{1, "widget", after, 0});
     }},
    {"replace_one_upserting",
     [](auto& c, std::int64_t after) {
       c.replace_one(field(&Item::id) == 1, Item{1, "widget", after, 0}, odm::ReplaceOptions<Item>{}.upsert());
     }},
    {"find_one_and_replace",
     [](auto& c, std::int64_t after) { (void)c.find_one_and_replace(field(&Item::id) == 1, Item{1, "widget", after, 0}); }},
    {"bulk_update_one",
     [](auto& c, auto) { c.bulk_write().update_one(field(&Item::id) == 1, field(&Item::stock).inc(-3)).execute(); }},
    {"bulk_update_many",
     [](auto& c, auto) { c.bulk_write().update_many(field(&Item::id) == 1, field(&Item::stock).inc(-3)).execute(); }},
    {"bulk_replace_one",
     [](auto& c, std::int64_t after) {
       c.bulk_write().replace_one(field(&Item::id) == 1, Item{1, "widget", after, 0}).execute();
     }},
};

void PrintTo(const Sale& sale, std::ostream* out) { *out << sale.name; }

class EveryWrite : public OptimisticLocking, public ::testing::WithParamInterface<Sale> {};

// The issue's scenario: a tracked edit loaded at stock 10; a sale takes 3 by another call;
// the edit adds 5 to what it loaded and saves. The save must lose (it would store 15 and
// erase the sale); reloaded and retried, it lands on top of the sale.
TEST_P(EveryWrite, MovesTheVersionSoATrackedSaveLoadedBeforeItLoses) {
  auto coll = items();
  coll.insert_one(Item{1, "widget", 10, 0});
  odm::Tracked<Item> edit = odm::track(coll, std::int64_t{1});
  ASSERT_EQ(edit->version, 0);
  GetParam().run(coll, 7);
  const Item after_sale = stored();
  EXPECT_EQ(after_sale.stock, 7);
  EXPECT_EQ(after_sale.version, 1) << GetParam().name << " did not move the version";
  edit->stock += 5;
  try {
    edit.save(coll);
    ADD_FAILURE() << "the save wrote over the " << GetParam().name << ": stock " << stored().stock;
  } catch (const odm::VersionConflict& conflict) {
    EXPECT_EQ(conflict.loaded_version(), 0);
    EXPECT_EQ(conflict.stored_version(), 1);
  }
  EXPECT_EQ(stored().stock, 7) << "the losing save wrote nothing";
  odm::Tracked<Item> retry = odm::track(coll, std::int64_t{1});
  retry->stock += 5;
  EXPECT_TRUE(retry.save(coll));
  EXPECT_EQ(stored().stock, 12);
  EXPECT_EQ(stored().version, 2);
}

INSTANTIATE_TEST_SUITE_P(Writes, EveryWrite, ::testing::ValuesIn(sales),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(OptimisticLocking, AnUpdateSendsItsIncrementBesideTheVersionsInOneInc) {
  auto coll = items();
  coll.insert_one(Item{1, "widget", 10, 4});
  log_.clear();
  coll.update_one(field(&Item::id) == 1, field(&Item::stock).inc(-3));
  EXPECT_EQ(last_update().to_canonical_json(),
            odm_test::json(R"({"$inc": {"stock": {"$numberLong": "-3"}, "version": {"$numberLong": "1"}}})")
                .to_canonical_json());
  EXPECT_EQ(stored().version, 5);
}

TEST_F(OptimisticLocking, AReplaceIncrementsTheStoredVersionWhateverTheReplacementSays) {
  auto coll = items();
  coll.insert_one(Item{1, "widget", 10, 4});
  log_.clear();
  coll.replace_one(field(&Item::id) == 1, Item{1, "gadget", 3, 99});
  EXPECT_EQ(last_update().to_canonical_json(),
            odm_test::json(R"({"$set": {"_id": {"$numberLong": "1"}, "name": "gadget", "stock": {"$numberLong": "3"}},
                               "$inc": {"version": {"$numberLong": "1"}}})")
                .to_canonical_json());
  const Item now = stored();
  EXPECT_EQ(now.name, "gadget");
  EXPECT_EQ(now.version, 5);
}

TEST_F(OptimisticLocking, AnUpsertThatInsertsStartsAtVersionOne) {
  auto coll = items();
  coll.update_one(field(&Item::id) == 1, field(&Item::stock).set(std::int64_t{4}), odm::UpdateOptions<Item>{}.upsert());
  EXPECT_EQ(stored(1).version, 1);
  coll.replace_one(field(&Item::id) == 2, Item{2, "b", 1, 0}, odm::ReplaceOptions<Item>{}.upsert());
  EXPECT_EQ(stored(2).version, 1);
  (void)coll.find_one_and_update(field(&Item::id) == 3, field(&Item::stock).set(std::int64_t{4}),
                                 odm::FindOneAndUpdateOptions<Item>{}.upsert());
  EXPECT_EQ(stored(3).version, 1);
  odm::Tracked<Item> tracked = odm::track(coll, std::int64_t{3});
  tracked->stock = 5;
  EXPECT_TRUE(tracked.save(coll));
  EXPECT_EQ(stored(3).version, 2);
}

TEST_F(OptimisticLocking, UpdatingManyMovesEachDocumentsVersion) {
  auto coll = items();
  coll.insert_many(std::vector<Item>{{1, "a", 1, 0}, {2, "b", 2, 7}, {3, "c", 3, 0}});
  coll.update_many(field(&Item::stock) >= 2, field(&Item::stock).inc(10));
  EXPECT_EQ(stored(1).version, 0);
  EXPECT_EQ(stored(2).version, 8);
  EXPECT_EQ(stored(3).version, 1);
}

// ---- the calls that keep the version ----------------------------------------------------

TEST_F(OptimisticLocking, KeepVersionSendsTheWriteAsGiven) {
  auto coll = items();
  coll.insert_one(Item{1, "widget", 10, 4});
  coll.update_one(field(&Item::id) == 1, field(&Item::stock).inc(-3), odm::UpdateOptions<Item>{}.keep_version());
  EXPECT_EQ(last_update().to_canonical_json(),
            odm_test::json(R"({"$inc": {"stock": {"$numberLong": "-3"}}})").to_canonical_json());
  EXPECT_EQ(stored().version, 4);
  (void)coll.find_one_and_update(field(&Item::id) == 1, field(&Item::stock).inc(-1),
                                 odm::FindOneAndUpdateOptions<Item>{}.keep_version());
  EXPECT_EQ(stored().version, 4);
  coll.replace_one(field(&Item::id) == 1, Item{1, "widget", 1, 40}, odm::ReplaceOptions<Item>{}.keep_version());
  EXPECT_EQ(stored().version, 40) << "kept: the replacement's own version is written";
  (void)coll.find_one_and_replace(field(&Item::id) == 1, Item{1, "widget", 1, 41},
                                  odm::FindOneAndReplaceOptions<Item>{}.keep_version());
  EXPECT_EQ(stored().version, 41);
  coll.bulk_write()
      .update_one(field(&Item::id) == 1, field(&Item::stock).inc(1), odm::UpdateOptions<Item>{}.keep_version())
      .replace_one(field(&Item::id) == 1, Item{1, "widget", 1, 42}, odm::ReplaceOptions<Item>{}.keep_version())
      .execute();
  EXPECT_EQ(stored().version, 42);
}

TEST_F(OptimisticLocking, AnUpdateThatWritesTheVersionItselfIsSentAsWritten) {
  auto coll = items();
  coll.insert_one(Item{1, "widget", 10, 4});
  coll.update_one(field(&Item::id) == 1, field(&Item::version).set(std::int64_t{41}));
  EXPECT_EQ(stored().version, 41);
  coll.update_one(field(&Item::id) == 1, field(&Item::version).inc(std::int64_t{2}) + field(&Item::stock).inc(-1));
  EXPECT_EQ(stored().version, 43) << "the update's own $inc of the version, not one more";
}

TEST_F(OptimisticLocking, ASetOnInsertOfTheVersionIsRefusedBeforeAnythingIsSent) {
  auto coll = items();
  log_.clear();
  try {
    coll.update_one(field(&Item::id) == 1,
                    field(&Item::stock).set(std::int64_t{1}) + field(&Item::version).set_on_insert(std::int64_t{0}),
                    odm::UpdateOptions<Item>{}.upsert());
    ADD_FAILURE() << "a $setOnInsert of the version was sent";
  } catch (const odm::UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("update_one: the update's $setOnInsert writes the version member 'version'"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(log_.started("update"), 0);
  EXPECT_EQ(coll.count(), 0);
  // Said otherwise, it is sent as written.
  coll.update_one(field(&Item::id) == 1,
                  field(&Item::stock).set(std::int64_t{1}) + field(&Item::version).set_on_insert(std::int64_t{9}),
                  odm::UpdateOptions<Item>{}.upsert().keep_version());
  EXPECT_EQ(stored().version, 9);
}

struct Note {
  std::int64_t id = 0;
  std::string text;
  std::int64_t version = 0;
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "notes";
    static constexpr auto fields = odm::fields(odm::version(&Note::version));
  };
};

// A model that keeps unknown fields is replaced by a whole document, which cannot add one
// to the stored version: refused unless the call keeps the version.
TEST_F(OptimisticLocking, AReplaceOfAModelWithExtraNeedsKeepVersion) {
  auto notes = db().collection<Note>();
  notes.insert_one(Note{1, "a", 3, {}});
  log_.clear();
  try {
    notes.replace_one(field(&Note::id) == 1, Note{1, "b", 3, {}});
    ADD_FAILURE() << "sent";
  } catch (const odm::UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("replace_one: a model with both odm::Extra and a version member"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW((void)notes.find_one_and_replace(field(&Note::id) == 1, Note{1, "b", 3, {}}), odm::UsageError);
  EXPECT_THROW(notes.bulk_write().replace_one(field(&Note::id) == 1, Note{1, "b", 3, {}}), odm::UsageError);
  EXPECT_EQ(log_.started("update") + log_.started("findAndModify"), 0);
  EXPECT_EQ(notes.get_by_id(1).text, "a");
  notes.replace_one(field(&Note::id) == 1, Note{1, "b", 4, {}}, odm::ReplaceOptions<Note>{}.keep_version());
  EXPECT_EQ(notes.get_by_id(1).version, 4);
  // Its typed updates move the version as any model's do.
  notes.update_one(field(&Note::id) == 1, field(&Note::text).set(std::string("c")));
  EXPECT_EQ(notes.get_by_id(1).version, 5);
}

// ---- writes odm makes for the program: Subset operations and migrations -----------------

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
  std::string label;
  odm::Subset<Book, 2, &Book::title, odm::Direction::ascending> first;
  std::int64_t version = 0;
  struct odm_model {
    static constexpr std::string_view collection = "shelves";
    static constexpr auto fields = odm::fields(odm::version(&Shelf::version), odm::defaulted(&Shelf::version));
  };
};

TEST_F(OptimisticLocking, ASubsetOperationMovesItsOwnersVersion) {
  auto shelves = db().collection<Shelf>();
  shelves.insert_one(Shelf{1, "fiction", {}, 0});
  odm::Tracked<Shelf> edit = odm::track(shelves, std::int32_t{1});
  ASSERT_TRUE(odm::subset::add(db(), &Shelf::first, std::int32_t{1}, Book{7, odm::ParentRef<Shelf>(1), "Emma"}));
  const Shelf after = shelves.get_by_id(1);
  ASSERT_EQ(after.first.size(), 1U);
  EXPECT_GE(after.version, 1);
  edit->label = "novels";
  // The tracked object embeds the subset as loaded (empty): saving the label alone is a
  // change of another path, yet it must not pass unseen over the owner's new version.
  EXPECT_THROW(edit.save(shelves), odm::VersionConflict);
  EXPECT_EQ(shelves.get_by_id(1).first.size(), 1U);
}

inline odm::Document same(const odm::Document& old) { return odm::Document::copy_of(old.get()); }

struct Counter {
  std::int64_t id = 0;
  std::int64_t hits = 0;
  std::int64_t version = 0;
  struct odm_model {
    static constexpr std::string_view collection = "counters";
    static constexpr auto fields = odm::fields(odm::version(&Counter::version), odm::defaulted(&Counter::version));
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&same));
  };
};

TEST_F(OptimisticLocking, AMigrationMovesTheVersionOfWhatItRewrites) {
  db().run_command(odm_test::json(
      R"({"insert": "counters", "documents": [{"_id": {"$numberLong": "1"}, "hits": {"$numberLong": "5"}}]})"));
  auto counters = db().collection<Counter>();
  odm::Tracked<Counter> edit = odm::track(counters, std::int64_t{1});
  EXPECT_EQ(edit->version, 0);
  EXPECT_EQ(odm::Migration<Counter>(db()).run().migrated, 1);
  EXPECT_EQ(counters.get_by_id(1).version, 1);
  edit->hits = 6;
  EXPECT_THROW(edit.save(counters), odm::VersionConflict);
  EXPECT_EQ(counters.get_by_id(1).hits, 5);
}

TEST_F(OptimisticLocking, ATypedUpdateThatUpgradesAnOlderDocumentFirstMovesTheVersionForBoth) {
  db().run_command(odm_test::json(
      R"({"insert": "counters", "documents": [{"_id": {"$numberLong": "1"}, "hits": {"$numberLong": "5"}}]})"));
  auto counters = db().collection<Counter>();
  counters.update_one(field(&Counter::id) == 1, field(&Counter::hits).inc(1));
  const Counter now = counters.get_by_id(1);
  EXPECT_EQ(now.hits, 6);
  EXPECT_EQ(now.version, 2) << "the upgrade's rewrite and the update are two writes";
}

// ---- a reference model over randomized interleavings -------------------------------------

// Tracked handles load, edit and save one document while direct writes of every kind come
// in between, in an order drawn from a fixed seed. The model: the stock as stored, and for
// each handle whether a write reached the document since it loaded. A save must succeed
// exactly when none did, and the stored stock is always the model's.
TEST_F(OptimisticLocking, RandomInterleavingsOfSavesAndWritesMatchTheModel) {
  const char* from_env = std::getenv("ODM_LOCKING_SEED");
  const std::uint64_t seed = from_env != nullptr ? std::strtoull(from_env, nullptr, 10) : 20261202;
  SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun with ODM_LOCKING_SEED=" + std::to_string(seed) + ")");
  std::mt19937_64 random(seed);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
  auto coll = items();
  coll.insert_one(Item{1, "widget", 100, 0});
  std::int64_t model_stock = 100;
  std::int64_t last_version = 0;
  struct Handle {
    std::optional<odm::Tracked<Item>> tracked;
    bool stale = false;
  };
  std::vector<Handle> handles(3);
  int saves = 0;
  int conflicts = 0;
  for (int step = 0; step < 120; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    Handle& handle = handles[pick(handles.size())];
    switch (pick(3)) {
      case 0:  // load
        handle.tracked.emplace(odm::track(coll, std::int64_t{1}));
        handle.stale = false;
        break;
      case 1: {  // edit and save
        if (!handle.tracked) break;
        const std::int64_t delta = static_cast<std::int64_t>(pick(9)) + 1;
        (*handle.tracked)->stock += delta;
        bool saved = false;
        try {
          saved = handle.tracked->save(coll);
        } catch (const odm::VersionConflict&) {
          ++conflicts;
        }
        EXPECT_EQ(saved, !handle.stale);
        if (saved) {
          ++saves;
          model_stock = (*handle.tracked)->stock;
          for (Handle& other : handles)
            if (&other != &handle) other.stale = true;
        } else {
          handle.tracked.reset();  // reload before the next edit, as the error says
        }
        break;
      }
      default: {  // a direct write of a random kind
        const Sale& sale = sales[pick(std::size(sales))];
        SCOPED_TRACE(sale.name);
        // Each sale takes 3 (a replace writes the stock after it, an upsert matches).
        sale.run(coll, model_stock - 3);
        model_stock -= 3;
        for (Handle& other : handles) other.stale = true;
        break;
      }
    }
    const Item now = stored();
    ASSERT_EQ(now.stock, model_stock);
    ASSERT_GE(now.version, last_version) << "a version never goes back";
    last_version = now.version;
  }
  EXPECT_GT(saves, 5);
  EXPECT_GT(conflicts, 5);
}

// ---- threads ------------------------------------------------------------------------------

// Tracked read-modify-save loops (retrying on a conflict) race typed increments of
// several kinds on one document: every increment of either side is in the final stock.
TEST_F(OptimisticLocking, TrackedSavesRacingTypedWritesLoseNoUpdate) {
  auto coll = items();
  coll.insert_one(Item{1, "widget", 0, 0});
  constexpr int savers = 3;
  constexpr int writers = 3;
  constexpr int each = 12;
  std::atomic<int> conflicts{0};
  std::latch start(savers + writers);
  std::vector<std::thread> threads;
  for (int t = 0; t < savers; ++t) {
    threads.emplace_back([&] {
      auto mine = client().database(db_name_).collection<Item>();
      start.arrive_and_wait();
      for (int done = 0; done < each;) {
        odm::Tracked<Item> item = odm::track(mine, std::int64_t{1});
        item->stock += 1;
        try {
          item.save(mine);
          ++done;
        } catch (const odm::VersionConflict&) {
          ++conflicts;
        }
      }
    });
  }
  for (int t = 0; t < writers; ++t) {
    threads.emplace_back([&, t] {
      auto mine = client().database(db_name_).collection<Item>();
      start.arrive_and_wait();
      for (int i = 0; i < each; ++i) {
        switch ((t + i) % 3) {
          case 0: mine.update_one(field(&Item::id) == 1, field(&Item::stock).inc(1)); break;
          case 1: (void)mine.find_one_and_update(field(&Item::id) == 1, field(&Item::stock).inc(1)); break;
          default: mine.bulk_write().update_one(field(&Item::id) == 1, field(&Item::stock).inc(1)).execute(); break;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const Item now = stored();
  EXPECT_EQ(now.stock, (savers + writers) * each) << conflicts.load() << " conflicts";
  EXPECT_EQ(now.version, (savers + writers) * each) << "each write moved the version once";
}

}  // namespace
}  // namespace optimistic_locking_itest
