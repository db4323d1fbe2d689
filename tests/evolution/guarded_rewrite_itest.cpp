// Writes to documents of an older schema version go through one guarded rewrite
// (odm/driver/upgrade.hpp): Migration, odm::Tracked saves, typed updates and bulk writes.
// A field of ~9 MB rewritten through each path (the guard must leave room for the update
// within MongoDB's 16 MiB), typed upserts stamping the current version, and a randomized
// run of an old program, tracked saves, typed updates, bulk writes and a Migration at once,
// checked against a reference model of what every writer wrote (seed printed;
// ODM_ROLLING_SEED replays one).

#include "driver/support.hpp"

#include <odm/driver/client.hpp>
#include <odm/evolution/changes.hpp>
#include <odm/evolution/extra.hpp>
#include <odm/evolution/migrate.hpp>
#include <odm/evolution/versions.hpp>
#include <odm/query.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace guarded_rewrite_itest {

// ---- a large field the step rewrites ---------------------------------------------------

struct BlobV1 {
  std::int64_t id = 0;
  std::string blob;
  std::int64_t n = 0;
  struct odm_model {
    static constexpr std::string_view collection = "blobs";
  };
};
struct BlobShape {
  std::int64_t id = 0;
  std::string blob;
  std::int64_t n = 0;
};
// Rewrites the whole large field: its upgrade alone is a ~9 MB $set.
inline BlobShape mark_blob(const BlobShape& old) { return {old.id, old.blob + "!", old.n}; }
struct Blob {
  std::int64_t id = 0;
  std::string blob;
  std::int64_t n = 0;
  struct odm_model {
    static constexpr std::string_view collection = "blobs";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&mark_blob));
  };
};

// ---- an order service in two releases --------------------------------------------------

// The release still running: cents, no schema_version. It reads upgraded documents too
// (their total_cents is gone: defaulted).
struct OrderV1 {
  std::int64_t id = 0;
  std::string customer;
  std::int64_t total_cents = 0;
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
    static constexpr auto fields = odm::fields(odm::defaulted(&OrderV1::total_cents));
  };
};
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
  return {old.id, old.customer, odm::Decimal(old.total_cents, -2), old.rest};
}
// The new release: Decimal totals at schema version 2, a note and a counter.
struct Order {
  std::int64_t id = 0;
  std::string customer;
  odm::Decimal total;
  std::string note;
  std::int64_t visits = 0;
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
    static constexpr auto fields = odm::fields(odm::defaulted(&Order::note), odm::defaulted(&Order::visits));
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&to_decimal));
  };
};

}  // namespace guarded_rewrite_itest

namespace {

using namespace guarded_rewrite_itest;
using odm::field;
using odm_test::json;

class GuardedRewrite : public odm_test::DriverTest {
 protected:
  odm::Document raw(const std::string& collection, std::int64_t id) {
    auto found = db().collection<Order>(collection).find_one<odm::Document>(
        odm::Filter<Order>::raw(odm::detail::id_filter(id)));
    EXPECT_TRUE(found.has_value()) << collection << " _id " << id;
    return found ? *found : odm::Document();
  }
  std::int32_t stored_version(const std::string& collection, std::int64_t id) {
    const odm::Document document = raw(collection, id);
    bson_iter_t it;
    if (!bson_iter_init_find(&it, document.get(), "schema_version")) return 0;
    return BSON_ITER_HOLDS_INT32(&it) ? bson_iter_int32(&it) : -1;
  }
};

// Every path that rewrites an older document: the step's ~9 MB $set plus a guard that
// compared the stored ~9 MB value would be over 16 MiB; the guard leaves that field out.
TEST_F(GuardedRewrite, ANineMegabyteFieldIsRewrittenThroughEveryPath) {
  const std::string big(9 * 1024 * 1024, 'b');
  auto old = db().collection<BlobV1>();
  for (std::int64_t id = 1; id <= 5; ++id) old.insert_one(BlobV1{id, big, 0});
  auto blobs = db().collection<Blob>();
  // 1: a tracked save, odm::track(collection.get_by_id(id)).
  {
    odm::Tracked<Blob> tracked = odm::track(blobs.get_by_id(1));
    tracked->n = 1;
    EXPECT_TRUE(tracked.save(blobs));
  }
  // 2: a tracked save, odm::track(collection, id).
  {
    odm::Tracked<Blob> tracked = odm::track(blobs, std::int64_t{2});
    tracked->n = 2;
    EXPECT_TRUE(tracked.save(blobs));
  }
  // 3: a typed update.
  blobs.update_one(field(&Blob::id) == std::int64_t{3}, field(&Blob::n).set(std::int64_t{3}));
  // 4: a bulk write's typed update.
  EXPECT_EQ(blobs.bulk_write().update_one(field(&Blob::id) == std::int64_t{4}, field(&Blob::n).set(std::int64_t{4})).execute().matched, 1);
  // 5: the Migration.
  const odm::MigrationReport report = odm::Migration<Blob>(db()).batch_size(1).run();
  EXPECT_EQ(report.migrated, 1);
  EXPECT_EQ(report.remaining, 0);
  for (std::int64_t id = 1; id <= 5; ++id) {
    SCOPED_TRACE("_id " + std::to_string(id));
    EXPECT_EQ(stored_version("blobs", id), 2);
    const Blob now = blobs.get_by_id(id);
    EXPECT_EQ(now.blob.size(), big.size() + 1);
    EXPECT_EQ(now.blob.back(), '!');
    EXPECT_EQ(now.n, id == 5 ? 0 : id);
  }
}

// A typed upsert that inserts writes the current version ($setOnInsert), whatever else
// the update sets, through every update path; an update's own $setOnInsert is kept.
TEST_F(GuardedRewrite, EveryTypedUpsertThatInsertsWritesTheCurrentVersion) {
  auto orders = db().collection<Order>();
  const auto set = [](const char* customer) {
    return field(&Order::customer).set(std::string(customer)) + field(&Order::total).set(odm::Decimal(250, -2));
  };
  orders.update_one(field(&Order::id) == std::int64_t{1}, set("one"), odm::UpdateOptions<Order>{}.upsert());
  orders.update_many(field(&Order::id) == std::int64_t{2}, set("many"), odm::UpdateOptions<Order>{}.upsert());
  (void)orders.find_one_and_update(field(&Order::id) == std::int64_t{3}, set("modify"),
                                   odm::FindOneAndUpdateOptions<Order>{}.upsert());
  orders.bulk_write().update_one(field(&Order::id) == std::int64_t{4}, set("bulk"), odm::UpdateOptions<Order>{}.upsert()).execute();
  orders.update_one(field(&Order::id) == std::int64_t{5},
                    odm::Update<Order>::raw(json(
                        R"({"$setOnInsert": {"customer": "raw", "total": {"$numberDecimal": "1"}, "note": "first"},
                            "$inc": {"visits": 1}})")),
                    odm::UpdateOptions<Order>{}.upsert());
  for (std::int64_t id = 1; id <= 5; ++id) {
    SCOPED_TRACE("_id " + std::to_string(id));
    EXPECT_EQ(stored_version("orders", id), 2) << raw("orders", id).to_json();
    const Order read = orders.get_by_id(id);  // the step would throw over a current shape (no total_cents)
    if (id < 5) {
      EXPECT_EQ(read.total, odm::Decimal(250, -2));
    }
  }
  EXPECT_EQ(orders.get_by_id(5).note, "first");
  EXPECT_EQ(orders.get_by_id(5).visits, 1);
  // An upsert that matches leaves the stored version alone (a matched old document is
  // upgraded first, as every typed update does).
  db().collection<OrderV1>().insert_one(OrderV1{6, "old", 700, {}});
  orders.update_one(field(&Order::id) == std::int64_t{6}, field(&Order::note).set(std::string("n")),
                    odm::UpdateOptions<Order>{}.upsert());
  EXPECT_EQ(stored_version("orders", 6), 2);
  EXPECT_EQ(orders.get_by_id(6).total, odm::Decimal(700, -2));
}

// Randomized: an old program writing customer (anywhere) and total_cents (to documents it
// still finds old), new-release tracked saves of the note, typed and bulk increments of
// visits, and Migration runs, all at once on one collection. Afterwards every document
// reads under both releases and holds each writer's last write.
TEST_F(GuardedRewrite, OldWritesTrackedSavesTypedUpdatesAndAMigrationAtOnceLoseNothing) {
  std::uint64_t seed = std::random_device{}();
  if (const char* given = std::getenv("ODM_ROLLING_SEED")) seed = std::strtoull(given, nullptr, 10);
  SCOPED_TRACE("ODM_ROLLING_SEED=" + std::to_string(seed));
  constexpr std::int64_t documents = 6;
  constexpr int rounds = 25;
  for (std::int64_t id = 1; id <= documents; ++id)
    db().collection<OrderV1>().insert_one(OrderV1{id, "c" + std::to_string(id), 100 * id, {}});

  // The reference model: each field has one writer, so its last write is the writer's last.
  std::map<std::int64_t, std::string> customer;
  std::map<std::int64_t, std::int64_t> cents;
  std::map<std::int64_t, std::string> note;
  std::map<std::int64_t, std::int64_t> visits;
  for (std::int64_t id = 1; id <= documents; ++id) {
    customer[id] = "c" + std::to_string(id);
    cents[id] = 100 * id;
  }
  std::vector<std::string> errors(4);
  std::atomic<int> ready{0};
  const auto worker = [&](int which, auto body) {
    return std::thread([&, which, body] {
      try {
        odm::Client client(uri_);
        odm::Database database = client.database(db_name_);
        std::mt19937_64 random(seed + static_cast<std::uint64_t>(which));
        ++ready;
        while (ready.load() < 4) std::this_thread::yield();
        for (int round = 0; round < rounds; ++round) body(database, random, round);
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(which)] = e.what();
      }
    });
  };
  std::vector<std::thread> threads;
  // The old program: customer anywhere; total_cents only where the document is still old
  // (a version-2 document has no total_cents: a write there is not the total any more).
  threads.push_back(worker(0, [&](odm::Database& database, std::mt19937_64& random, int round) {
    auto orders = database.collection<OrderV1>();
    const std::int64_t id = 1 + static_cast<std::int64_t>(random() % documents);
    if (random() % 2 == 0) {
      const std::string name = "v1-" + std::to_string(round);
      orders.update_one(field(&OrderV1::id) == id, field(&OrderV1::customer).set(name));
      customer[id] = name;
    } else {
      const std::int64_t value = 1000 + round;
      const auto still_old = odm::Filter<OrderV1>::raw(odm::detail::id_filter(id)) &&
                             odm::Filter<OrderV1>::raw(json(R"({"schema_version": {"$exists": false}})"));
      if (orders.update_one(still_old, field(&OrderV1::total_cents).set(value)).matched == 1) cents[id] = value;
    }
  }));
  // The new release's tracked saves of the note, both ways of tracking.
  threads.push_back(worker(1, [&](odm::Database& database, std::mt19937_64& random, int round) {
    auto orders = database.collection<Order>();
    const std::int64_t id = 1 + static_cast<std::int64_t>(random() % documents);
    odm::Tracked<Order> tracked = random() % 2 == 0 ? odm::track(orders, id) : odm::track(orders.get_by_id(id));
    tracked->note = "n" + std::to_string(round);
    tracked.save(orders);
    note[id] = tracked->note;
  }));
  // Typed and bulk increments.
  threads.push_back(worker(2, [&](odm::Database& database, std::mt19937_64& random, int) {
    auto orders = database.collection<Order>();
    const std::int64_t id = 1 + static_cast<std::int64_t>(random() % documents);
    const auto by_id = field(&Order::id) == id;
    const auto inc = field(&Order::visits).inc(std::int64_t{1});
    const std::int64_t matched =
        random() % 2 == 0 ? orders.update_one(by_id, inc).matched : orders.bulk_write().update_one(by_id, inc).execute().matched;
    if (matched != 1) throw std::runtime_error("an increment matched " + std::to_string(matched));
    ++visits[id];
  }));
  // Migration runs.
  threads.push_back(worker(3, [&](odm::Database& database, std::mt19937_64& random, int round) {
    if (round % 5 != 0) return;
    odm::Migration<Order>(database).batch_size(static_cast<std::int32_t>(1 + random() % 3)).run();
  }));
  for (std::thread& thread : threads) thread.join();
  for (std::size_t i = 0; i < errors.size(); ++i) EXPECT_EQ(errors[i], "") << "thread " << i;

  auto v2 = db().collection<Order>();
  auto v1 = db().collection<OrderV1>();
  for (std::int64_t id = 1; id <= documents; ++id) {
    SCOPED_TRACE("_id " + std::to_string(id) + ": " + raw("orders", id).to_json());
    const Order now = v2.get_by_id(id);
    EXPECT_EQ(now.customer, customer[id]);
    EXPECT_EQ(now.total, odm::Decimal(cents[id], -2));
    EXPECT_EQ(now.note, note[id]);
    EXPECT_EQ(now.visits, visits[id]);
    EXPECT_NO_THROW((void)v1.get_by_id(id));
    EXPECT_EQ(v1.get_by_id(id).customer, customer[id]);
  }
}

}  // namespace
