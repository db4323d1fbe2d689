// Every filter and update operator odm's typed query API builds, run on a server, with
// the results MongoDB's manual documents for them (query and update operator
// references). The unit tests check the BSON odm writes; these check what it does.

#include "support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace operators {
namespace {

using odm::field;
using odm_test::json;

struct Part {
  std::string name;
  std::int32_t qty = 0;
  bool operator==(const Part&) const = default;
};

struct Item {
  std::int32_t id = 0;
  std::string name;
  std::int32_t qty = 0;
  double price = 0;
  std::vector<std::string> tags;
  std::vector<std::int32_t> scores;
  std::vector<Part> parts;
  std::optional<std::string> note;
  struct odm_model {
    static constexpr std::string_view collection = "items";
  };
};

/// What an upsert leaves of an Item: its id, name and quantity.
struct Counted {
  std::int32_t id = 0;
  std::string name;
  std::int32_t qty = 0;
};

class Operators : public odm_test::DriverTest {
 protected:
  void SetUp() override {
    DriverTest::SetUp();
    if (HasFatalFailure()) return;
    items().insert_many(std::vector<Item>{
        {1, "widget", 5, 2.5, {"a", "b"}, {81, 90}, {{"bolt", 2}, {"nut", 8}}, "x"},
        {2, "Wrench", 10, 12.0, {"b"}, {70}, {{"bolt", 9}}, std::nullopt},
        {3, "gadget", 0, 7.25, {}, {}, {}, "y"},
        {4, "gizmo", 5, 0.5, {"a", "c"}, {84, 79}, {{"nut", 1}}, std::nullopt},
    });
    // A document without `note` at all (odm would store null).
    db().run_command(json(R"({"insert": "items", "documents": [{"_id": 5, "name": "nothing", "qty": 1,
        "price": 1.0, "tags": [], "scores": [], "parts": []}]})"));
  }
  odm::Collection<Item> items() { return db().collection<Item>(); }

  std::set<std::int32_t> ids(const odm::Filter<Item>& filter) {
    std::set<std::int32_t> out;
    for (const Item& item : items().find(filter)) out.insert(item.id);
    return out;
  }
  Item updated(std::int32_t id, const odm::Update<Item>& update) {
    items().update_one(field(&Item::id) == id, update);
    return items().get_by_id(id);
  }
};

using Ids = std::set<std::int32_t>;

TEST_F(Operators, Comparisons) {
  EXPECT_EQ(ids(field(&Item::qty) == 5), (Ids{1, 4}));
  EXPECT_EQ(ids(field(&Item::qty) != 5), (Ids{2, 3, 5}));
  EXPECT_EQ(ids(field(&Item::qty) < 5), (Ids{3, 5}));
  EXPECT_EQ(ids(field(&Item::qty) <= 5), (Ids{1, 3, 4, 5}));
  EXPECT_EQ(ids(field(&Item::qty) > 5), (Ids{2}));
  EXPECT_EQ(ids(field(&Item::qty) >= 10), (Ids{2}));
  EXPECT_EQ(ids(field(&Item::price) >= 2.5 && field(&Item::price) < 8.0), (Ids{1, 3}));
  EXPECT_EQ(ids(field(&Item::name).in({"widget", "gizmo", "none"})), (Ids{1, 4}));
  EXPECT_EQ(ids(field(&Item::qty).nin({5, 1})), (Ids{2, 3}));
}

TEST_F(Operators, Logic) {
  EXPECT_EQ(ids(field(&Item::qty) == 0 || field(&Item::price) > 10.0), (Ids{2, 3}));
  EXPECT_EQ(ids(!(field(&Item::qty) == 5)), (Ids{2, 3, 5}));
  EXPECT_EQ(ids(!(field(&Item::qty) == 5 || field(&Item::qty) == 0)), (Ids{2, 5}));
}

TEST_F(Operators, ExistsMatchesNullButNotAbsence) {
  EXPECT_EQ(ids(field(&Item::note).exists()), (Ids{1, 2, 3, 4})) << "a null note exists";
  EXPECT_EQ(ids(field(&Item::note).exists(false)), (Ids{5}));
}

TEST_F(Operators, Arrays) {
  EXPECT_EQ(ids(field(&Item::tags) == "a"), (Ids{1, 4})) << "one element equal is enough";
  EXPECT_EQ(ids(field(&Item::tags).all({"a", "b"})), (Ids{1}));
  EXPECT_EQ(ids(field(&Item::tags).size(0)), (Ids{3, 5}));
  EXPECT_EQ(ids(field(&Item::scores).elem_match([](auto s) { return s >= 80 && s < 85; })), (Ids{1, 4}));
  // One element satisfies both conditions, or any elements each satisfy one.
  EXPECT_EQ(ids(field(&Item::parts).elem_match([](auto p) { return p / &Part::name == "bolt" && p / &Part::qty > 5; })),
            (Ids{2}));
  EXPECT_EQ(ids(field(&Item::parts) / &Part::name == "bolt" && field(&Item::parts) / &Part::qty > 5), (Ids{1, 2}));
}

TEST_F(Operators, Regex) {
  EXPECT_EQ(ids(field(&Item::name).regex("^w", "i")), (Ids{1, 2}));
  EXPECT_EQ(ids(field(&Item::name).regex("get$")), (Ids{1, 3}));
}

TEST_F(Operators, FieldUpdates) {
  Item item = updated(1, field(&Item::name).set(std::string("sprocket")) + field(&Item::qty).inc(2) +
                             field(&Item::price).mul(2.0) + field(&Item::note).unset());
  EXPECT_EQ(item.name, "sprocket");
  EXPECT_EQ(item.qty, 7);
  EXPECT_EQ(item.price, 5.0);
  EXPECT_FALSE(item.note);
  EXPECT_EQ(updated(4, field(&Item::qty).min(3)).qty, 3);
  EXPECT_EQ(updated(4, field(&Item::qty).min(9)).qty, 3) << "$min keeps the smaller";
  EXPECT_EQ(updated(4, field(&Item::qty).max(7)).qty, 7);
  EXPECT_EQ(updated(4, field(&Item::qty).max(1)).qty, 7) << "$max keeps the larger";

  // $setOnInsert applies only when the update inserts.
  const auto qty_of_9 = [&] { return items().find_one<Counted>(field(&Item::id) == 9).value().qty; };
  items().update_one(field(&Item::id) == 9, field(&Item::name).set(std::string("new")) + field(&Item::qty).set_on_insert(42),
                     odm::UpdateOptions<Item>{}.upsert());
  EXPECT_EQ(qty_of_9(), 42);
  items().update_one(field(&Item::id) == 9, field(&Item::qty).set_on_insert(1));
  EXPECT_EQ(qty_of_9(), 42);
}

TEST_F(Operators, ArrayUpdates) {
  EXPECT_EQ(updated(1, field(&Item::tags).push(std::string("z"))).tags, (std::vector<std::string>{"a", "b", "z"}));
  // $each at position 0, then sorted descending, then the first three kept.
  EXPECT_EQ(updated(1, field(&Item::scores).push_each({100, 60}).position(0).sort(odm::descending).slice(3)).scores,
            (std::vector<std::int32_t>{100, 90, 81}));
  EXPECT_EQ(updated(2, field(&Item::parts).push_each({Part{"gear", 4}}).sort(odm::desc(&Part::qty))).parts,
            (std::vector<Part>{{"bolt", 9}, {"gear", 4}}));
  EXPECT_EQ(updated(1, field(&Item::tags).add_to_set(std::string("a"))).tags, (std::vector<std::string>{"a", "b", "z"}));
  EXPECT_EQ(updated(1, field(&Item::tags).add_to_set_each({"r", "a", "r"})).tags,
            (std::vector<std::string>{"a", "b", "z", "r"}));
  EXPECT_EQ(updated(1, field(&Item::tags).pull(std::string("a"))).tags, (std::vector<std::string>{"b", "z", "r"}));
  EXPECT_EQ(updated(1, field(&Item::tags).pull_all({"b", "r"})).tags, (std::vector<std::string>{"z"}));
  EXPECT_EQ(updated(4, field(&Item::scores).pull([](auto s) { return s < 80; })).scores, (std::vector<std::int32_t>{84}));
  EXPECT_EQ(updated(1, field(&Item::scores).pop_first()).scores, (std::vector<std::int32_t>{90, 81}));
  EXPECT_EQ(updated(1, field(&Item::scores).pop_last()).scores, (std::vector<std::int32_t>{90}));
}

TEST_F(Operators, PositionalUpdates) {
  // The element the filter matched ($), and every element ($[]).
  items().update_one(field(&Item::id) == 1 && field(&Item::parts) / &Part::name == "nut",
                     (field(&Item::parts).matched() / &Part::qty).set(0));
  EXPECT_EQ(items().get_by_id(1).parts, (std::vector<Part>{{"bolt", 2}, {"nut", 0}}));
  EXPECT_EQ(updated(4, field(&Item::scores).all_elements().inc(1)).scores, (std::vector<std::int32_t>{85, 80}));
}

}  // namespace
}  // namespace operators
