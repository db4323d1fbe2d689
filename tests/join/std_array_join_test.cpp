// Joins through std::array (README, Relationships): a std::array<odm::Ref<P>, 2> member and
// a std::array of embedded items that each hold a Ref are resolved in place.
//
// g++ 12.2 (Debian bookworm's) cannot compile such a model: Boost.PFR counts a model's
// fields with `T{}` in a SFINAE context, and for any aggregate that holds an array of a
// class with a non-trivial destructor (std::array<std::string, 2> or std::string[2] as
// much as std::array<odm::Ref<P>, 2>) g++ 12.2 stops with an internal compiler error in
// check_noexcept_r. odm cannot avoid that probe without replacing Boost.PFR, so on g++ 12
// this test compiles to a skip with that reason; clang++ compiles and runs it.

#include <odm/join/join.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#define ODM_TEST_GCC12_ARRAY_ICE 1
#endif

namespace {

#ifndef ODM_TEST_GCC12_ARRAY_ICE
struct ArrayProduct {
  std::int64_t id = 0;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "products";
  };
};

struct PairItem {
  odm::Ref<ArrayProduct> product;
  std::int32_t quantity = 0;
};

struct PairOrder {
  std::int64_t id = 0;
  std::array<odm::Ref<ArrayProduct>, 2> pair;
  std::array<odm::Embedded<PairItem>, 2> items;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};
#endif

class StdArrayJoin : public odm_test::DriverTest {};

TEST_F(StdArrayJoin, ReferencesInAStdArrayAndInItsEmbeddedItemsAreResolved) {
#ifdef ODM_TEST_GCC12_ARRAY_ICE
  GTEST_SKIP() << "g++ 12 crashes (internal compiler error in check_noexcept_r) on Boost.PFR's field count of "
                  "a model holding a std::array of a class type; built with clang++ this test runs";
#else
  db().collection<ArrayProduct>().insert_many(
      std::vector<ArrayProduct>{{1, "pen"}, {2, "ink"}, {3, "pad"}});
  PairOrder order;
  order.id = 7;
  order.pair = {odm::Ref<ArrayProduct>(std::int64_t{2}), odm::Ref<ArrayProduct>(std::int64_t{3})};
  order.items = {PairItem{std::int64_t{1}, 4}, PairItem{std::int64_t{3}, 1}};
  db().collection<PairOrder>().insert_one(order);

  std::vector<PairOrder> loaded = db().collection<PairOrder>().find().to_vector();
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_FALSE(loaded[0].pair[0].is_loaded());
  odm::resolve(db(), loaded, odm::with(&PairOrder::pair), odm::with(&PairOrder::items, odm::with(&PairItem::product)));
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].pair[0]->name, "ink");
  EXPECT_EQ(loaded[0].pair[1]->name, "pad");
  EXPECT_EQ(loaded[0].items[0]->product->name, "pen");
  EXPECT_EQ(loaded[0].items[1]->product->name, "pad");
  EXPECT_EQ(loaded[0].items[1]->quantity, 1);
#endif
}

}  // namespace
