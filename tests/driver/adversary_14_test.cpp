// Adversarial probes of issue 14 against a server: an update with no operator (which
// MongoDB would read as a replacement), bulk writes keeping their array filters, $push
// modifiers applied as MongoDB documents them, a Subset read with more than N items
// written back, and typed expressions on renamed members and a user codec's kind reaching
// the documents they name.

#include "celsius.hpp"
#include "session_support.hpp"
#include "support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace adversary_14_itest {
namespace {

using odm_test::Celsius;

using odm::field;
using odm_test::json;

struct Item {
  std::string sku;
  std::int32_t qty = 0;
};

struct Stock {
  std::int32_t id = 0;
  std::string name;
  std::vector<Item> items;
  std::vector<std::int32_t> scores;
  Celsius temp;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::rename(&Stock::name, "label"), odm::rename(&Stock::items, "lines"));
  };
};

class Adversary14 : public odm_test::DriverTest {
 protected:
  odm::Collection<Stock> stock() { return db().collection<Stock>("stock"); }
  void insert(const Stock& value) { stock().insert_one(value); }
  odm::Document stored(std::int32_t id) {
    auto found = stock().find_one<odm::Document>(field(&Stock::id) == id);
    EXPECT_TRUE(found.has_value());
    return found ? *found : odm::Document();
  }
};

TEST_F(Adversary14, AnUpdateWithoutOperatorsIsRefusedBeforeItErasesAnything) {
  // An update document without operators is a replacement to MongoDB: `{}` replaces the
  // matched document by `{_id}` ("Replace a Document" in the update command's reference).
  // An empty Update<T> (a loop that added nothing) must never reach the server as that.
  const Stock original{1, "kept", {Item{"a", 1}}, {1}, Celsius{20}};
  const auto attempt = [&](const char* what, auto&& operation) {
    SCOPED_TRACE(what);
    stock().delete_many({});
    insert(original);
    const odm::Document before = stored(1);
    log_.clear();
    EXPECT_THROW(operation(), odm::ValueError);
    EXPECT_EQ(log_.started("update") + log_.started("findAndModify"), 0) << "sent to the server";
    EXPECT_EQ(stored(1).to_canonical_json(), before.to_canonical_json());
  };
  const odm::Update<Stock> nothing;
  attempt("update_one", [&] { (void)stock().update_one(field(&Stock::id) == 1, nothing); });
  attempt("update_many", [&] { (void)stock().update_many(field(&Stock::id) == 1, nothing); });
  attempt("find_one_and_update", [&] { (void)stock().find_one_and_update(field(&Stock::id) == 1, nothing); });
  attempt("bulk update_one", [&] { (void)stock().bulk_write().update_one(field(&Stock::id) == 1, nothing).execute(); });
  attempt("bulk update_many", [&] { (void)stock().bulk_write().update_many(field(&Stock::id) == 1, nothing).execute(); });
  attempt("raw {}", [&] { (void)stock().update_one(field(&Stock::id) == 1, odm::Update<Stock>::raw(json("{}"))); });
  // A hand-written document that is not made of operators would replace the document in
  // findAndModify (libmongoc refuses it in update_one only).
  attempt("raw replacement", [&] {
    (void)stock().find_one_and_update(field(&Stock::id) == 1, odm::Update<Stock>::raw(json(R"({"label": "x"})")));
  });
  // `{$set: {}}` written by hand is sent as written: a no-op since MongoDB 5.0 ("update
  // operators accept an empty operand expression"), a ServerError before it; never `{}`.
  stock().delete_many({});
  insert(original);
  const odm::Document before = stored(1);
  log_.clear();
  try {
    (void)stock().update_one(field(&Stock::id) == 1, odm::Update<Stock>::raw(json(R"({"$set": {}})")));
  } catch (const odm::ServerError& error) {
    EXPECT_NE(engine(), odm_test::Engine::mongodb) << error.what();  // the engines that still say 4.x
  }
  const auto sent = log_.last("update");
  ASSERT_TRUE(sent.has_value());
  EXPECT_NE(sent->to_json().find(R"("u" : { "$set" : {  } })"), std::string::npos) << sent->to_json();
  EXPECT_EQ(stored(1).to_canonical_json(), before.to_canonical_json());
}

TEST_F(Adversary14, BulkWritesKeepTheirArrayFiltersAndHint) {
  insert(Stock{1, "s", {Item{"a", 1}, Item{"b", 5}}, {}, {}});
  log_.clear();
  // $[<identifier>] is written by hand: the typed paths name $ and $[] only.
  const auto filtered = odm::Update<Stock>::raw(json(R"({"$inc": {"lines.$[big].qty": 100}})"));
  stock()
      .bulk_write()
      .update_one(field(&Stock::id) == 1, filtered,
                  odm::UpdateOptions<Stock>{}.array_filters({json(R"({"big.qty": {"$gte": 5}})")}))
      .execute();
  const auto sent = log_.last("update");
  ASSERT_TRUE(sent.has_value());
  EXPECT_NE(sent->to_json().find("arrayFilters"), std::string::npos) << sent->to_json();
  const Stock after = stock().find_one(field(&Stock::id) == 1).value();
  ASSERT_EQ(after.items.size(), 2U);
  EXPECT_EQ(after.items[0].qty, 1);
  EXPECT_EQ(after.items[1].qty, 105);
}

TEST_F(Adversary14, PushModifiersAreAppliedAsDocumented) {
  insert(Stock{1, "s", {Item{"a", 3}, Item{"b", 1}}, {5, 1}, {}});
  // https://www.mongodb.com/docs/manual/reference/operator/update/push/: $position, then
  // $sort of the whole array, then $slice.
  stock().update_one(field(&Stock::id) == 1,
                     field(&Stock::items).push_each({Item{"c", 9}, Item{"d", 0}}).sort(odm::desc(&Item::qty)).slice(3) +
                         field(&Stock::scores).push_each({7}).position(0));
  const Stock after = stock().find_one(field(&Stock::id) == 1).value();
  ASSERT_EQ(after.items.size(), 3U);
  EXPECT_EQ(after.items[0].sku, "c");
  EXPECT_EQ(after.items[1].sku, "a");
  EXPECT_EQ(after.items[2].sku, "b");
  EXPECT_EQ(after.scores, (std::vector<std::int32_t>{7, 5, 1}));
}

TEST_F(Adversary14, ExpressionsOnRenamedMembersAndAUserKindFindTheirDocuments) {
  insert(Stock{1, "north", {Item{"a", 1}}, {80, 90}, Celsius{-3}});
  insert(Stock{2, "south", {Item{"b", 7}}, {10}, Celsius{25}});
  insert(Stock{3, "east", {}, {}, Celsius{12}});
  const auto ids = [&](const odm::Filter<Stock>& filter) {
    std::vector<std::int32_t> out;
    for (const Stock& s : stock().find(filter, odm::FindOptions<Stock>{}.sort(odm::sort(odm::asc(&Stock::id)))))
      out.push_back(s.id);
    return out;
  };
  EXPECT_EQ(ids(field(&Stock::temp) > Celsius{0}), (std::vector<std::int32_t>{2, 3}));
  EXPECT_EQ(ids(field(&Stock::name) == "south" || field(&Stock::temp) < Celsius{0}), (std::vector<std::int32_t>{1, 2}));
  EXPECT_EQ(ids(field(&Stock::items).elem_match([](auto i) { return i / &Item::qty > 5; })), (std::vector<std::int32_t>{2}));
  EXPECT_EQ(ids(field(&Stock::scores).elem_match([](auto s) { return s >= 85 && !(s > 95); })), (std::vector<std::int32_t>{1}));
  // $nor and $not both match the documents without the element / field.
  EXPECT_EQ(ids(!field(&Stock::items).elem_match([](auto i) { return i / &Item::qty > 5; })),
            (std::vector<std::int32_t>{1, 3}));
  EXPECT_EQ(ids(odm::nor(field(&Stock::name) == "north", field(&Stock::temp) > Celsius{20})), (std::vector<std::int32_t>{3}));
  // Sorted by the user kind, descending.
  std::vector<std::int32_t> by_temp;
  for (const Stock& s : stock().find({}, odm::FindOptions<Stock>{}.sort(odm::sort(odm::desc(&Stock::temp)))))
    by_temp.push_back(s.id);
  EXPECT_EQ(by_temp, (std::vector<std::int32_t>{2, 3, 1}));
}

TEST_F(Adversary14, FindOneAndModifyWithAProjectionReturnsWhatItWrote) {
  insert(Stock{1, "north", {Item{"a", 1}}, {}, Celsius{3}});
  // find_one_and_* return the model: the projection must leave a document the model reads.
  const auto found = stock().find_one_and_update(field(&Stock::id) == 1, field(&Stock::temp).set(Celsius{4}),
                                                 odm::FindOneAndUpdateOptions<Stock>{}
                                                     .return_document(odm::ReturnDocument::after)
                                                     .projection(odm::projection<Stock, Stock>()));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->temp.value, 4);
  EXPECT_EQ(found->name, "north");
}

struct Review {
  std::int32_t id = 0;
  odm::ParentRef<struct Product> product;
  std::int32_t stars = 0;
};
struct Product {
  std::int32_t id = 0;
  odm::Subset<Review, 2, &Review::stars> top;
};

TEST_F(Adversary14, ASubsetReadWithMoreThanNItemsCanBeWrittenBack) {
  // Another writer (or a larger N) stored three items in a Subset of 2.
  db().run_command(json(R"({"insert": "products", "documents": [{"_id": 1, "top": [
      {"id": 1, "stars": 5}, {"id": 2, "stars": 4}, {"id": 3, "stars": 3}]}]})"));
  auto products = db().collection<Product>("products");
  const Product read = products.find_one(field(&Product::id) == 1).value();
  ASSERT_EQ(read.top.size(), 3U);
  EXPECT_NO_THROW((void)products.replace_one(field(&Product::id) == 1, read));
  EXPECT_EQ(products.find_one(field(&Product::id) == 1).value().top.size(), 3U);
}

class Adversary14Labels : public odm_test::FailPointTest {};

TEST_F(Adversary14Labels, ServerErrorsOfReadsWritesAndBulkWritesCarryTheirLabels) {
  // Issue 14, item 5: one base (ReplyError) reads the labels of every server error.
  auto coll = client_->database(db_name_).collection<Stock>("stock");
  coll.insert_one(Stock{1, "s", {}, {}, {}});
  const auto check = [&](const char* command, const char* operation, auto&& run) {
    SCOPED_TRACE(command);
    fail_point(R"({"times": 1})", std::string(R"({"failCommands": [")") + command +
                                      R"("], "errorCode": 2, "errorLabels": ["OdmProbeLabel"]})");
    try {
      run();
      ADD_FAILURE() << "the fail point's error was not reported";
    } catch (const odm::ReplyError& error) {
      EXPECT_TRUE(error.has_label("OdmProbeLabel")) << error.raw_reply().to_json();
      EXPECT_FALSE(error.has_label("OdmProbe"));
      const auto* server = dynamic_cast<const odm::ServerError*>(&error);
      ASSERT_NE(server, nullptr) << error.what();
      EXPECT_EQ(server->code(), 2);
      // The message starts with the operation and names the collection.
      EXPECT_EQ(std::string(error.what()).rfind(operation, 0), 0U) << error.what();
      EXPECT_NE(std::string(error.what()).find(db_name_ + ".stock"), std::string::npos) << error.what();
    }
  };
  check("find", "find", [&] { (void)coll.find_one(field(&Stock::id) == 1); });
  check("update", "update", [&] { (void)coll.update_one(field(&Stock::id) == 1, field(&Stock::temp).set(Celsius{1})); });
  check("findAndModify", "find", [&] {
    (void)coll.find_one_and_update(field(&Stock::id) == 1, field(&Stock::temp).set(Celsius{1}));
  });
  check("delete", "delete", [&] { (void)coll.delete_one(field(&Stock::id) == 5); });
  check("aggregate", "count", [&] { (void)coll.count(field(&Stock::id) == 1); });
  check("insert", "bulk write", [&] { (void)coll.bulk_write().insert_one(Stock{2, "t", {}, {}, {}}).execute(); });
}

}  // namespace
}  // namespace adversary_14_itest
