// odm::with() as data (Relation<T>::step()): what a server-side ($lookup) form of the same
// join reads. No server: the description is built when the relation is.

#include <odm/join/join.hpp>
#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace {

struct StepCategory {
  std::string id;
  struct odm_model {
    static constexpr std::string_view collection = "categories";
  };
};
struct StepProduct {
  std::int64_t id = 0;
  odm::Ref<StepCategory, odm::Dangling::drop> category;
  struct odm_model {
    static constexpr std::string_view collection = "products";
  };
};
struct StepItem {
  odm::Ref<StepProduct> product;
  odm::RefMany<StepProduct, odm::Dangling::raise> alternatives;
};
struct StepOrder {
  std::int64_t id = 0;
  std::vector<odm::Embedded<StepItem>> items;
  std::optional<odm::Embedded<StepItem>> gift;
  std::map<std::string, std::vector<odm::Ref<StepProduct>>> lists;
};
// Embedded as a plain struct, without odm::Embedded.
struct StepKeyed {
  std::int64_t id = 0;
  odm::Ref<StepProduct> product;
};
struct StepHolder {
  std::int64_t id = 0;
  std::vector<StepKeyed> keyed;
  odm::Ref<StepProduct> product;
};

TEST(JoinStep, DescribesEachLevelOfAPathThroughEmbeddedDocuments) {
  const auto relation =
      odm::with(&StepOrder::items, odm::with(&StepItem::product, odm::with(&StepProduct::category)),
                odm::with(&StepItem::alternatives));
  const odm::JoinStep& items = relation.step();
  EXPECT_EQ(items.action, odm::JoinStep::Action::look_inside);
  EXPECT_EQ(items.field, "items");
  EXPECT_EQ(items.through, (std::vector<odm::Through>{odm::Through::array}));
  EXPECT_TRUE(items.from.empty());
  ASSERT_EQ(items.nested.size(), 2u);

  const odm::JoinStep& product = items.nested[0];
  EXPECT_EQ(product.action, odm::JoinStep::Action::fetch);
  EXPECT_EQ(product.field, "product");
  EXPECT_EQ(product.from, "products");
  EXPECT_EQ(product.kind, odm::Relationship::reference);
  EXPECT_EQ(product.policy, odm::Dangling::keep);
  EXPECT_TRUE(product.through.empty());
  ASSERT_EQ(product.nested.size(), 1u);
  EXPECT_EQ(product.nested[0].from, "categories");
  EXPECT_EQ(product.nested[0].policy, odm::Dangling::drop);

  const odm::JoinStep& alternatives = items.nested[1];
  EXPECT_EQ(alternatives.kind, odm::Relationship::child_references);
  EXPECT_EQ(alternatives.policy, odm::Dangling::raise);
}

TEST(JoinStep, NamesTheContainersOnTheWay) {
  EXPECT_EQ(odm::with(&StepOrder::gift, odm::with(&StepItem::product)).step().through,
            (std::vector<odm::Through>{odm::Through::optional}));
  const odm::JoinStep lists = odm::with(&StepOrder::lists).step();
  EXPECT_EQ(lists.action, odm::JoinStep::Action::fetch);
  EXPECT_EQ(lists.through, (std::vector<odm::Through>{odm::Through::map, odm::Through::array}));
  EXPECT_EQ(lists.from, "products");
}

TEST(JoinStep, LooksIntoPlainStructMembersToo) {
  const odm::JoinStep keyed = odm::with(&StepHolder::keyed, odm::with(&StepKeyed::product)).step();
  EXPECT_EQ(keyed.field, "keyed");
  EXPECT_EQ(keyed.through, (std::vector<odm::Through>{odm::Through::array}));
  EXPECT_EQ(keyed.action, odm::JoinStep::Action::look_inside);
  EXPECT_EQ(keyed.nested.at(0).field, "product");
  EXPECT_EQ(keyed.nested.at(0).nested_field, "product");
}

}  // namespace
