// Adversarial probes of tracked saves and typed updates of documents still at an older
// schema version (issue 11 items 3-5; README "Schema versions and migrations"), written
// from the README's promise: "an odm::Tracked save (from odm::track(collection.get_by_id(id))
// as well as odm::track(collection, id)) matches only a document at the current version
// (...); when the stored document is older, it is read again and rewritten to the current
// version with the object's changes replayed over it, by one update guarded by the stored
// values of the fields it rewrites (another writer's change in between makes it miss, and
// it is read and retried)", and a typed update first upgrades the older documents it can
// reach the same guarded way. A probe that shows a defect is kept, skipped with `defect:`.

#include "driver/support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace adv11roll {

// The program still deployed: totals in cents, no schema_version.
struct OrderV1 {
  std::int64_t id = 0;
  std::string customer;
  std::int64_t total_cents = 0;
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};

// The shapes the step goes between (the fields neither declares are carried in `rest`).
struct CentsShape {
  std::int64_t id = 0;
  std::string customer;
  std::int64_t total_cents = 0;
  odm::Extra rest;
};
struct DecimalShape {
  std::int64_t id = 0;
  std::string customer;
  odm::Decimal total;
  odm::Extra rest;
};
inline DecimalShape to_decimal(const CentsShape& old) {
  if (old.customer == "unconvertible") throw std::runtime_error("the step refuses this order");
  return {old.id, old.customer, odm::Decimal(old.total_cents, -2), old.rest};
}

// The new release: Decimal totals (schema version 2), a counter and marks added later.
struct Order {
  std::int64_t id = 0;
  std::string customer;
  odm::Decimal total;
  std::int64_t visits = 0;
  std::map<std::string, std::int32_t> marks;
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
    static constexpr auto fields = odm::fields(odm::defaulted(&Order::visits), odm::defaulted(&Order::marks));
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&to_decimal));
  };
};

// The same without odm::Extra (a model that leaves unknown fields alone).
struct Slim {
  std::int64_t id = 0;
  std::string customer;
  odm::Decimal total;
  std::int64_t visits = 0;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
    static constexpr auto fields = odm::fields(odm::defaulted(&Slim::visits));
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&to_decimal));
  };
};

// A rolling deploy of versions: the release still running (version 2, reading the newer
// documents as they are) and the new one (version 3 renames `count` to `qty`).
inline odm::Document unchanged(const odm::Document& old) { return odm::Document::copy_of(old.get()); }
struct StockV2 {
  std::int64_t id = 0;
  std::string name;
  std::int64_t count = 0;
  struct odm_model {
    static constexpr std::string_view collection = "stock";
    static constexpr auto fields = odm::fields(odm::defaulted(&StockV2::count));
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&unchanged)).reading_newer();
  };
};
struct StockV3 {
  std::int64_t id = 0;
  std::string name;
  std::int64_t qty = 0;
  struct odm_model {
    static constexpr std::string_view collection = "stock";
    static constexpr auto schema =
        odm::schema_versions<3>(odm::upgrade<1>(&unchanged), odm::upgrade<2>(odm::rename_field("count", "qty")));
  };
};

// No id member: documents keep whatever _id other programs gave them.
struct Bag {
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "bags";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&unchanged));
  };
};

}  // namespace adv11roll

namespace {

using namespace adv11roll;
using odm::field;
using odm_test::json;

class Adversary11Rolling : public odm_test::DriverTest {
 protected:
  void insert_old(std::int64_t id, const std::string& customer, std::int64_t cents) {
    db().collection<OrderV1>().insert_one(OrderV1{id, customer, cents, {}});
  }
  odm::Document stored(std::int64_t id) {
    auto found = db().collection<Order>().find_one<odm::Document>(odm::Filter<Order>::raw(odm::detail::id_filter(id)));
    EXPECT_TRUE(found.has_value()) << "_id " << id;
    return found ? *found : odm::Document();
  }
};

// The forced interleaving the README promises against: the old program writes the old
// field between the load and the save of an old document.
TEST_F(Adversary11Rolling, ATrackedSaveOfAnOldDocumentKeepsAnOlderProgramsWriteInBetween) {
  for (const bool from_collection : {false, true}) {
    SCOPED_TRACE(from_collection ? "odm::track(collection, id)" : "odm::track(collection.get_by_id(id))");
    const std::int64_t id = from_collection ? 2 : 1;
    insert_old(id, "ann", 1200);
    auto orders = db().collection<Order>();
    odm::Tracked<Order> mine = from_collection ? odm::track(orders, id) : odm::track(orders.get_by_id(id));
    EXPECT_EQ(mine->total, odm::Decimal(1200, -2));
    db().collection<OrderV1>().update_one(field(&OrderV1::id) == id, field(&OrderV1::total_cents).set(std::int64_t{1500}));
    mine->marks["seen"] = 1;
    EXPECT_TRUE(mine.save(orders));
    const Order now = orders.get_by_id(id);
    EXPECT_EQ(now.marks.count("seen"), 1u);
    EXPECT_EQ(now.total, odm::Decimal(1500, -2)) << stored(id).to_json();
  }
}

// Two writers of the new release track one old document and change different members:
// both changes are kept (README "Saving what changed").
TEST_F(Adversary11Rolling, TwoTrackedSavesOfOneOldDocumentChangingDifferentMembersKeepBoth) {
  for (const bool from_collection : {false, true}) {
    SCOPED_TRACE(from_collection ? "odm::track(collection, id)" : "odm::track(collection.get_by_id(id))");
    const std::int64_t id = from_collection ? 2 : 1;
    insert_old(id, "bob", 1000);
    auto orders = db().collection<Order>();
    auto load = [&] { return from_collection ? odm::track(orders, id) : odm::track(orders.get_by_id(id)); };
    odm::Tracked<Order> first = load();
    odm::Tracked<Order> second = load();
    first->total = odm::Decimal(1300, -2);
    EXPECT_TRUE(first.save(orders));
    second->customer = "robert";
    EXPECT_TRUE(second.save(orders));
    const Order now = orders.get_by_id(id);
    EXPECT_EQ(now.customer, "robert");
    EXPECT_EQ(now.total, odm::Decimal(1300, -2)) << stored(id).to_json();
  }
}

// Many threads of the new release on old documents at once: tracked saves (each its own
// mark) and typed increments. Afterwards every mark and every increment is there.
TEST_F(Adversary11Rolling, ConcurrentTrackedSavesAndTypedUpdatesOfOldDocumentsLoseNothing) {
  const char* env = std::getenv("ODM_ADVERSARY_SEED");
  const unsigned seed = env ? static_cast<unsigned>(std::strtoul(env, nullptr, 10)) : 20261124u;
  SCOPED_TRACE("seed " + std::to_string(seed) + " (ODM_ADVERSARY_SEED replays it)");
  constexpr int documents = 6;
  constexpr int threads = 4;
  for (int d = 1; d <= documents; ++d) insert_old(d, "c" + std::to_string(d), 100 * d);
  std::atomic<int> ready{0};
  std::vector<std::string> errors(threads);
  // What each thread did, per document: its mark's last value and its increments.
  std::vector<std::map<std::int64_t, std::int32_t>> marks(threads);
  std::vector<std::map<std::int64_t, std::int64_t>> incs(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      try {
        odm::Client client(uri_);
        auto orders = client.database(db_name_).collection<Order>();
        std::mt19937 random(seed * 31u + static_cast<unsigned>(t));
        ++ready;
        while (ready.load() < threads) std::this_thread::yield();
        for (int i = 0; i < 12; ++i) {
          const std::int64_t id = 1 + static_cast<std::int64_t>(random() % documents);
          switch (random() % 3) {
            case 0: {
              odm::Tracked<Order> tracked = odm::track(orders.get_by_id(id));
              tracked->marks["t" + std::to_string(t)] = i;
              tracked.save(orders);
              marks[static_cast<std::size_t>(t)][id] = i;
              break;
            }
            case 1: {
              odm::Tracked<Order> tracked = odm::track(orders, id);
              tracked->marks["t" + std::to_string(t)] = i;
              tracked.save(orders);
              marks[static_cast<std::size_t>(t)][id] = i;
              break;
            }
            default:
              orders.update_one(field(&Order::id) == id, field(&Order::visits).inc(std::int64_t{1}));
              ++incs[static_cast<std::size_t>(t)][id];
          }
        }
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(t)] = e.what();
      }
    });
  }
  for (auto& w : workers) w.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  auto orders = db().collection<Order>();
  std::string lost;
  for (std::int64_t id = 1; id <= documents; ++id) {
    const Order now = orders.get_by_id(id);
    EXPECT_EQ(now.total, odm::Decimal(100 * id, -2)) << "_id " << id;
    std::int64_t want_visits = 0;
    for (int t = 0; t < threads; ++t) {
      const auto& mine = marks[static_cast<std::size_t>(t)];
      if (auto m = mine.find(id); m != mine.end()) {
        const auto got = now.marks.find("t" + std::to_string(t));
        if (got == now.marks.end() || got->second != m->second)
          lost += "_id " + std::to_string(id) + " mark t" + std::to_string(t) + "; ";
      }
      const auto& inc = incs[static_cast<std::size_t>(t)];
      if (auto n = inc.find(id); n != inc.end()) want_visits += n->second;
    }
    if (now.visits != want_visits)
      lost += "_id " + std::to_string(id) + " visits " + std::to_string(now.visits) + " want " +
              std::to_string(want_visits) + "; ";
  }
  EXPECT_EQ(lost, "") << "updates lost among concurrent tracked saves and typed updates of older documents "
                 << lost << "(seed " << seed << ")";
}

// A typed update whose filter has no _id upgrades every older document first; one that
// cannot be read (a version written by another program) is left as it is and the update
// still reaches the others.
TEST_F(Adversary11Rolling, ATypedUpdateWithoutIdSkipsAnUnreadableVersionAndUpdatesTheRest) {
  insert_old(1, "ann", 100);
  insert_old(2, "ann", 200);
  db().run_command(json(R"({"insert": "orders", "documents": [
        {"_id": {"$numberLong": "3"}, "customer": "zed", "total_cents": {"$numberLong": "1"}, "schema_version": "2"}]})"));
  auto orders = db().collection<Order>();
  const auto result = orders.update_many(field(&Order::customer) == std::string("ann"), field(&Order::visits).inc(std::int64_t{2}));
  EXPECT_EQ(result.matched, 2);
  for (std::int64_t id : {std::int64_t{1}, std::int64_t{2}}) {
    const Order now = orders.get_by_id(id);
    EXPECT_EQ(now.visits, 2);
    EXPECT_EQ(now.total, odm::Decimal(100 * id, -2));
  }
  EXPECT_THROW(orders.get_by_id(3), odm::SchemaVersionError);
  // Filters on the current shape see the upgraded documents.
  EXPECT_EQ(orders.count(field(&Order::total) == odm::Decimal(2)), 1);
}

// A step that throws for the document a typed update targets: the update is refused with
// the step's error, and nothing is written.
TEST_F(Adversary11Rolling, ATypedUpdateOfADocumentWhoseStepThrowsWritesNothing) {
  insert_old(1, "unconvertible", 100);
  const std::string before = stored(1).to_canonical_json();
  auto orders = db().collection<Order>();
  bool threw = false;
  try {
    orders.update_one(field(&Order::id) == std::int64_t{1}, field(&Order::visits).inc(std::int64_t{1}));
  } catch (const odm::Error& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find("refuses"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(threw);
  EXPECT_EQ(stored(1).to_canonical_json(), before);
  EXPECT_THROW(orders.get_by_id(1), odm::SchemaVersionError);
  EXPECT_THROW((void)odm::track(orders, 1), odm::SchemaVersionError);
  // find_one_and_update: refused before writing, too.
  EXPECT_THROW(orders.find_one_and_update(field(&Order::id) == std::int64_t{1}, field(&Order::visits).inc(std::int64_t{1})),
               odm::Error);
  EXPECT_EQ(stored(1).to_canonical_json(), before);
}

// A tracked save of an old document deleted since it was loaded: NotFound, nothing written.
TEST_F(Adversary11Rolling, ATrackedSaveOfAnOldDocumentDeletedMidWayIsNotFoundAndRecreatesNothing) {
  for (const bool from_collection : {false, true}) {
    SCOPED_TRACE(from_collection ? "odm::track(collection, id)" : "odm::track(collection.get_by_id(id))");
    insert_old(1, "ann", 100);
    auto orders = db().collection<Order>();
    odm::Tracked<Order> mine = from_collection ? odm::track(orders, 1) : odm::track(orders.get_by_id(1));
    orders.delete_one(field(&Order::id) == std::int64_t{1});
    mine->customer = "gone";
    EXPECT_THROW(mine.save(orders), odm::NotFound);
    EXPECT_EQ(orders.count({}), 0);
  }
}

// A tracked save of an old document through a model without odm::Extra: the fields it
// does not know stay, and the next read does not run the step over a stale total.
TEST_F(Adversary11Rolling, ATrackedSaveWithoutExtraUpgradesAndKeepsUnknownFields) {
  db().run_command(json(R"({"insert": "orders", "documents": [
        {"_id": {"$numberLong": "1"}, "customer": "ann", "total_cents": {"$numberLong": "700"}, "audit": "kept"}]})"));
  auto slim = db().collection<Slim>();
  odm::Tracked<Slim> mine = odm::track(slim.get_by_id(1));
  mine->total = odm::Decimal(800, -2);
  EXPECT_TRUE(mine.save(slim));
  EXPECT_EQ(slim.get_by_id(1).total, odm::Decimal(800, -2));
  const odm::Document raw = stored(1);
  bson_iter_t it;
  EXPECT_TRUE(bson_iter_init_find(&it, raw.get(), "audit")) << raw.to_json();
  // Saving again, then a typed update: still the saved total.
  mine->customer = "anne";
  EXPECT_TRUE(mine.save(slim));
  slim.update_one(field(&Slim::id) == std::int64_t{1}, field(&Slim::visits).inc(std::int64_t{1}));
  const Slim now = slim.get_by_id(1);
  EXPECT_EQ(now.total, odm::Decimal(800, -2));
  EXPECT_EQ(now.customer, "anne");
  EXPECT_EQ(now.visits, 1);
}

// find_one_and_update of an old document returns it upgraded and updated.
TEST_F(Adversary11Rolling, FindOneAndUpdateOfAnOldDocumentReturnsTheCurrentShape) {
  insert_old(1, "ann", 250);
  auto orders = db().collection<Order>();
  const auto after = orders.find_one_and_update(field(&Order::total) == odm::Decimal(250, -2), field(&Order::visits).inc(std::int64_t{3}),
                                                odm::FindOneAndUpdateOptions<Order>{}.return_document(odm::ReturnDocument::after));
  ASSERT_TRUE(after.has_value()) << "the filter on the current shape did not see the older document";
  EXPECT_EQ(after->visits, 3);
  EXPECT_EQ(after->total, odm::Decimal(250, -2));
}

// A bulk write's typed update of a document still at the older version. The README says
// bulk writes "match the stored documents as they are" (no upgrade first); the value the
// update writes must still be what the next read returns, or the write must be refused.
TEST_F(Adversary11Rolling, ABulkTypedUpdateOfAnOldDocumentIsNotSilentlyLost) {
  insert_old(1, "ann", 1200);
  auto orders = db().collection<Order>();
  const auto result = orders.bulk_write().update_one(field(&Order::id) == std::int64_t{1}, field(&Order::total).set(odm::Decimal(2000, -2))).execute();
  EXPECT_EQ(result.matched, 1);
  std::string got;
  try {
    got = orders.get_by_id(1).total.to_string();
  } catch (const odm::Error& e) {
    got = std::string("an error: ") + e.what();
  }
  EXPECT_EQ(got, "20.00") << "a bulk write's typed $set of total on a version-1 document must upgrade it first; stored "
                          << stored(1).to_json();
}

// A batch migration interrupted by a crash in on_progress: the next run finishes, a third
// writes nothing, and `remaining` says 0 only when nothing old is left.
TEST_F(Adversary11Rolling, AMigrationCountsWhatItLeavesAndAResumedRunFinishes) {
  for (int d = 1; d <= 9; ++d) insert_old(d, "c", d);
  int calls = 0;
  EXPECT_THROW(odm::Migration<Order>(db())
                   .batch_size(2)
                   .on_progress([&](const odm::MigrationProgress&) {
                     if (++calls == 2) throw std::runtime_error("crash");
                   })
                   .run(),
               std::runtime_error);
  const odm::MigrationReport report = odm::Migration<Order>(db()).batch_size(2).run();
  EXPECT_EQ(report.remaining, 0);
  EXPECT_EQ(db().collection<Order>().count(odm::Filter<Order>::raw(json(R"({"schema_version": {"$ne": 2}})"))), 0);
  const odm::MigrationReport again = odm::Migration<Order>(db()).run();
  EXPECT_EQ(again.migrated, 0);
  EXPECT_EQ(again.remaining, 0);
}

// A typed upsert of a versioned model that inserts: the new document is in the current
// shape (the update's filter and operators name it), so it must read as the current
// version, not be taken for a version-1 document and run through the step.
TEST_F(Adversary11Rolling, ATypedUpsertThatInsertsWritesTheCurrentVersion) {
  auto orders = db().collection<Order>();
  const auto result = orders.update_one(field(&Order::id) == std::int64_t{9},
                                        field(&Order::customer).set(std::string("new")) + field(&Order::total).set(odm::Decimal(500, -2)),
                                        odm::UpdateOptions<Order>{}.upsert());
  EXPECT_TRUE(result.upserted_id.has_value());
  std::string problem;
  try {
    const Order read = orders.get_by_id(9);
    EXPECT_EQ(read.customer, "new");
    EXPECT_EQ(read.total, odm::Decimal(500, -2));
  } catch (const odm::Error& e) {
    problem = e.what();
  }
  EXPECT_EQ(problem, "") << "a typed upsert of a model with schema versions must insert schema_version; stored "
                         << stored(9).to_json();
}

// Every way odm inserts a document of a versioned model stamps the current version.
TEST_F(Adversary11Rolling, EveryInsertPathWritesTheCurrentVersion) {
  auto orders = db().collection<Order>();
  Order one;
  one.id = 1;
  one.customer = "a";
  one.total = odm::Decimal(100, -2);
  orders.insert_one(one);
  std::vector<Order> many(2, one);
  many[0].id = 2;
  many[1].id = 3;
  orders.insert_many(many);
  Order bulk = one;
  bulk.id = 4;
  orders.bulk_write().insert_one(bulk).execute();
  Order replaced = one;
  replaced.id = 5;
  orders.replace_one(field(&Order::id) == std::int64_t{5}, replaced, odm::ReplaceOptions<Order>{}.upsert());
  for (std::int64_t id = 1; id <= 5; ++id) {
    bson_iter_t it;
    const odm::Document raw = stored(id);
    EXPECT_TRUE(bson_iter_init_find(&it, raw.get(), "schema_version") && BSON_ITER_HOLDS_INT32(&it) &&
                bson_iter_int32(&it) == 2)
        << raw.to_json();
    EXPECT_EQ(orders.get_by_id(id).total, odm::Decimal(100, -2));
  }
}

// The older release (reading_newer) writes back a document the newer release wrote: it
// must not relabel it with its own, older version, or the newer release runs its step
// over the newer shape (here: the stale `count` replaces `qty`).
TEST_F(Adversary11Rolling, AnOlderReleaseWritingANewerDocumentDoesNotDowngradeIt) {
  auto v3 = db().collection<StockV3>();
  auto v2 = db().collection<StockV2>();
  v3.insert_one(StockV3{1, "bolt", 5});
  v3.insert_one(StockV3{2, "nut", 7});
  // A tracked save.
  odm::Tracked<StockV2> tracked = odm::track(v2.get_by_id(1));
  tracked->name = "bolt M6";
  tracked.save(v2);
  EXPECT_EQ(v3.get_by_id(1).qty, 5);
  EXPECT_EQ(v3.get_by_id(1).name, "bolt M6");
  // A replace: refused (odm::SchemaVersionError naming the versions), nothing written.
  StockV2 loaded = v2.get_by_id(2);
  loaded.name = "nut M6";
  try {
    v2.replace_one(field(&StockV2::id) == std::int64_t{2}, loaded);
    ADD_FAILURE() << "replace_one by the older release of a version-3 document was not refused";
  } catch (const odm::SchemaVersionError& e) {
    EXPECT_EQ(e.stored_version(), 3);
    EXPECT_EQ(e.model_version(), 2);
    EXPECT_NE(std::string(e.what()).find("newer than this model's"), std::string::npos) << e.what();
  }
  // The same with upsert, and through find_one_and_replace.
  EXPECT_THROW(v2.replace_one(field(&StockV2::id) == std::int64_t{2}, loaded, odm::ReplaceOptions<StockV2>{}.upsert()),
               odm::SchemaVersionError);
  EXPECT_THROW((void)v2.find_one_and_replace(field(&StockV2::id) == std::int64_t{2}, loaded), odm::SchemaVersionError);
  EXPECT_THROW((void)v2.find_one_and_replace(field(&StockV2::id) == std::int64_t{2}, loaded,
                                             odm::FindOneAndReplaceOptions<StockV2>{}.upsert()),
               odm::SchemaVersionError);
  // A bulk write's replace does not match it (its result says so).
  EXPECT_EQ(v2.bulk_write().replace_one(field(&StockV2::id) == std::int64_t{2}, loaded).execute().matched, 0);
  const StockV3 now = v3.get_by_id(2);
  EXPECT_EQ(now.name, "nut");
  EXPECT_EQ(now.qty, 7);
  // Its own version's documents it still replaces.
  v2.insert_one(StockV2{3, "washer", 4});
  StockV2 washer = v2.get_by_id(3);
  washer.count = 5;
  EXPECT_EQ(v2.replace_one(field(&StockV2::id) == std::int64_t{3}, washer).matched, 1);
  EXPECT_EQ(v3.get_by_id(3).qty, 5);
}

// _ids of every type MongoDB allows in `_id`, including the ends of the sort order
// (MinKey, MaxKey), null, a Decimal128 NaN (after which `$gt` matches no number) and the
// types after ObjectId (bool, date, timestamp): one document per batch, every one
// migrated, the report true.
TEST_F(Adversary11Rolling, AMigrationVisitsEveryIdTypeOneBatchAtATime) {
  const char* ids[] = {R"({"$minKey": 1})", "null", R"({"$numberDecimal": "NaN"})", "1", "2.5",
                       R"({"$numberDecimal": "3"})", R"("text")", R"({"a": 1})", R"({"$binary": {"base64": "AQI=", "subType": "00"}})",
                       R"({"$oid": "65a000000000000000000001"})", "true", R"({"$date": {"$numberLong": "1700000000000"}})",
                       R"({"$timestamp": {"t": 1, "i": 2}})", R"({"$maxKey": 1})"};
  std::int64_t stored_ids = 0;
  std::string refused;
  for (const char* id : ids) {
    try {
      db().run_command(json(std::string(R"({"insert": "bags", "documents": [{"_id": )") + id + R"(, "n": 1}]})"));
      ++stored_ids;
    } catch (const odm::Error& e) {
      refused += std::string(id) + " (" + e.what() + "); ";
    }
  }
  const auto old_count = [&] {
    return db().collection<Bag>().count(odm::Filter<Bag>::raw(json(R"({"schema_version": {"$ne": 2}})")));
  };
  ASSERT_EQ(old_count(), stored_ids) << refused;
  const odm::MigrationReport report = odm::Migration<Bag>(db()).batch_size(1).run();
  EXPECT_EQ(old_count(), 0) << "engine refused: " << refused;
  EXPECT_EQ(report.migrated, stored_ids);
  EXPECT_EQ(report.remaining, 0);
  EXPECT_EQ(odm::Migration<Bag>(db()).run().migrated, 0);
}

}  // namespace
