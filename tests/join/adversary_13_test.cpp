// Adversarial probes of issue 13's relationships (subset identity, reverse counts, trees,
// RefMany under drop), written from the README and MongoDB's documented behaviour. Each
// probe that found a defect says so beside it; the others stay as regression tests.

#include <odm/join/counts.hpp>
#include <odm/join/subset.hpp>
#include <odm/join/tree.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace {

// ---- Subset: an item is identified by its owner and its key ------------------------------

struct Kit;

struct Part {
  std::int32_t part_no = 0;
  odm::ParentRef<Kit> kit_id;
  std::string label;
  std::int32_t rank = 0;
  struct odm_model {
    static constexpr std::string_view collection = "adv_part";
    static constexpr auto key = &Part::part_no;
  };
};

struct Kit {
  std::int32_t id = 0;
  odm::Subset<Part, 3, &Part::rank> parts;
  struct odm_model {
    static constexpr std::string_view collection = "adv_kit";
  };
};

class Adversary13Subset : public odm_test::DriverTest {
 protected:
  std::vector<std::int32_t> embedded_keys(std::int32_t kit) {
    std::vector<std::int32_t> keys;
    for (const Part& p : db().collection<Kit>().get_by_id(kit).parts) keys.push_back(p.part_no);
    return keys;
  }
  std::int64_t stored_with_key(std::int32_t kit, std::int32_t key) {
    return db().collection<Part>().count(odm::field(&Part::kit_id) == kit &&
                                         odm::field(&Part::part_no) == key);
  }
};

// The subset header promises that "items are identified by owner and key" (update and
// remove act on the one item with that owner and key). Adding a second item with a key
// the owner already has would break that: the owner would embed it twice, `update` would
// change one copy and `remove` would report success while the other copy stays shown. So
// such an add is refused (as inserting a second document with an existing _id is, E11000),
// and a retried add (after a timeout, say) cannot duplicate the item.
// Defect found: add stored the duplicate; both copies were embedded.
TEST_F(Adversary13Subset, AddingAKeyTheOwnerAlreadyHasIsRefusedAndStoresNothing) {
  db().collection<Kit>().insert_one(Kit{1, {}});
  db().collection<Kit>().insert_one(Kit{2, {}});
  odm::subset::add(db(), &Kit::parts, 1, Part{7, {}, "first", 5});
  try {
    odm::subset::add(db(), &Kit::parts, 1, Part{7, {}, "again", 9});
    ADD_FAILURE() << "a second item keyed 7 for kit 1 was accepted";
  } catch (const odm::Error& error) {
    EXPECT_NE(std::string(error.what()).find("7"), std::string::npos) << "the key is named: " << error.what();
  }
  EXPECT_EQ(stored_with_key(1, 7), 1);
  EXPECT_EQ(embedded_keys(1), (std::vector<std::int32_t>{7}));
  EXPECT_EQ(db().collection<Kit>().get_by_id(1).parts.items().front().label, "first") << "the first one is untouched";
  // Another owner may have its own item keyed 7.
  EXPECT_NO_THROW(odm::subset::add(db(), &Kit::parts, 2, Part{7, {}, "kit 2's", 1}));
  EXPECT_EQ(stored_with_key(2, 7), 1);
  EXPECT_EQ(embedded_keys(2), (std::vector<std::int32_t>{7}));
  // Removing it then leaves nothing behind, in either place.
  Part gone{7, odm::ParentRef<Kit>(1), "", 0};
  EXPECT_TRUE(odm::subset::remove(db(), &Kit::parts, gone));
  EXPECT_EQ(stored_with_key(1, 7), 0);
  EXPECT_TRUE(embedded_keys(1).empty());
}

// An item added for an owner that does not exist is stored (the header says so) and
// reported; adding it again is refused like any duplicate.
TEST_F(Adversary13Subset, AnItemOfAMissingOwnerIsStoredOnceAndReported) {
  EXPECT_FALSE(odm::subset::add(db(), &Kit::parts, 42, Part{1, {}, "orphan", 1}));
  EXPECT_EQ(stored_with_key(42, 1), 1);
  EXPECT_THROW(odm::subset::add(db(), &Kit::parts, 42, Part{1, {}, "orphan", 1}), odm::Error);
  EXPECT_EQ(stored_with_key(42, 1), 1);
}

// Extreme order keys sort as MongoDB sorts int32 values.
TEST_F(Adversary13Subset, ExtremeOrderKeysKeepTheFirstThree) {
  db().collection<Kit>().insert_one(Kit{1, {}});
  const std::int32_t low = std::numeric_limits<std::int32_t>::min();
  const std::int32_t high = std::numeric_limits<std::int32_t>::max();
  std::int32_t key = 1;
  for (std::int32_t rank : {0, low, high, -1, high - 1, low + 1}) odm::subset::add(db(), &Kit::parts, 1, Part{key++, {}, "", rank});
  std::vector<std::int32_t> ranks;
  for (const Part& p : db().collection<Kit>().get_by_id(1).parts) ranks.push_back(p.rank);
  EXPECT_EQ(ranks, (std::vector<std::int32_t>{high, high - 1, 0}));
}

// ---- count_children: hostile parent ids -----------------------------------------------

/// Only its ids are used (count_children does not read the parents).
struct Shelf {
  std::string id;
};

struct Tome {
  std::int64_t id = 0;
  odm::ParentRef<Shelf> shelf;
  struct odm_model {
    static constexpr std::string_view collection = "adv_tome";
  };
};

class Adversary13Counts : public odm_test::DriverTest {};

// String ids are values, not paths or operators: an empty id, one with dots, one that
// looks like an operator, one in Japanese, each counts its own children; duplicates in
// the page each get the count; a parent without children counts 0; one aggregate.
TEST_F(Adversary13Counts, HostileStringIdsAndDuplicatesCountExactly) {
  const std::vector<std::string> ids = {"", "a.b", "$in", "棚", "{\"$gt\": \"\"}"};
  std::vector<Tome> tomes;
  std::int64_t next = 1;
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t n = 0; n <= i; ++n) tomes.push_back(Tome{next++, odm::ParentRef<Shelf>(ids[i])});
  tomes.push_back(Tome{next++, odm::ParentRef<Shelf>{}});  // a root: parent null
  db().collection<Tome>().insert_many(tomes);
  std::vector<std::string> page = {"$in", "", "none", "a.b", "", "棚", "{\"$gt\": \"\"}", "$in"};
  log_.clear();
  const auto counts = odm::count_children(db(), page, &Tome::shelf);
  EXPECT_EQ(log_.started("aggregate"), 1);
  ASSERT_EQ(counts.size(), page.size());
  const std::vector<std::int64_t> expected = {3, 1, 0, 2, 1, 4, 5, 3};
  for (std::size_t i = 0; i < page.size(); ++i) EXPECT_EQ(counts[i], expected[i]) << "page[" << i << "] = " << page[i];
  EXPECT_EQ(counts.of(""), 1);
  EXPECT_EQ(counts.entries().size(), 6u) << "one entry per distinct parent";
  EXPECT_THROW(counts.of("not in the page"), odm::ValueError);
}

// ---- trees: cycles and depth ----------------------------------------------------------

struct Node {
  std::string id;
  odm::ParentRef<Node> parent;
  struct odm_model {
    static constexpr std::string_view collection = "adv_nodes";
  };
};

struct ListNode {
  std::string id;
  odm::RefMany<ListNode> children;
  struct odm_model {
    static constexpr std::string_view collection = "adv_list_nodes";
  };
};

class Adversary13Tree : public odm_test::DriverTest {};

// A node that is its own parent is the shortest cycle: ancestors refuses it with a
// DataError instead of looping (every wait has a limit), descendants lists the others once.
TEST_F(Adversary13Tree, ANodeThatIsItsOwnParentOrChildIsACycle) {
  auto nodes = db().collection<Node>();
  nodes.insert_many(std::vector<Node>{{"self", odm::ParentRef<Node>("self")}, {"kid", odm::ParentRef<Node>("self")}});
  EXPECT_THROW(odm::tree::ancestors(nodes, nodes.get_by_id("self"), &Node::parent), odm::DataError);
  const auto below = odm::tree::descendants(nodes, nodes.get_by_id("self"), &Node::parent);
  ASSERT_EQ(below.size(), 1u);
  EXPECT_EQ(below[0].id, "kid");

  auto lists = db().collection<ListNode>();
  lists.insert_many(std::vector<ListNode>{{"loop", odm::RefMany<ListNode>(std::vector<std::string>{"loop", "leaf", "loop"})}, {"leaf", {}}});
  EXPECT_THROW(odm::tree::ancestors(lists, lists.get_by_id("loop"), &ListNode::children), odm::DataError);
  const auto listed = odm::tree::descendants(lists, lists.get_by_id("loop"), &ListNode::children);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].id, "leaf");
}

// A deep chain (300 levels) is walked with one query per level and no recursion.
TEST_F(Adversary13Tree, ADeepChainIsWalkedOneQueryPerLevel) {
  constexpr int depth = 300;
  std::vector<Node> chain;
  for (int i = 0; i < depth; ++i)
    chain.push_back(Node{"n" + std::to_string(i), i == 0 ? odm::ParentRef<Node>{} : odm::ParentRef<Node>("n" + std::to_string(i - 1))});
  auto nodes = db().collection<Node>();
  nodes.insert_many(chain);
  const Node bottom = nodes.get_by_id("n" + std::to_string(depth - 1));
  log_.clear();
  const auto up = odm::tree::ancestors(nodes, bottom, &Node::parent);
  ASSERT_EQ(up.size(), static_cast<std::size_t>(depth - 1));
  EXPECT_EQ(up.front().id, "n" + std::to_string(depth - 2));
  EXPECT_EQ(up.back().id, "n0");
  EXPECT_EQ(log_.started("find"), depth - 1) << "one find per level; the root's null parent needs none";
  const Node top = nodes.get_by_id("n0");
  log_.clear();
  const auto down = odm::tree::descendants(nodes, top, &Node::parent);
  EXPECT_EQ(down.size(), static_cast<std::size_t>(depth - 1));
  EXPECT_EQ(log_.started("find"), depth) << "one $in per level, the last finding nothing";
}

// ---- RefMany: the empty string is an id like any other --------------------------------

struct Leaf {
  std::string id;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "adv_leaf";
  };
};

template <odm::Dangling P>
struct Branch {
  std::int32_t id = 0;
  odm::RefMany<Leaf, P> leaves;
  struct odm_model {
    static constexpr std::string_view collection = "adv_branch";
  };
};

class Adversary13RefMany : public odm_test::DriverTest {};

// `_id: ""` is a valid id (MongoDB refuses only arrays and, for _id, regular expressions
// and undefined); under drop only the ghost goes, the empty ids and their duplicates stay.
TEST_F(Adversary13RefMany, EmptyStringIdsAreKeptUnderDrop) {
  db().collection<Leaf>().insert_many(std::vector<Leaf>{{"", "blank"}, {"x", "ex"}});
  using B = Branch<odm::Dangling::drop>;
  db().collection<B>().insert_one(B{1, odm::RefMany<Leaf, odm::Dangling::drop>(std::vector<std::string>{"", "ghost", "x", ""})});
  std::vector<B> branches = db().collection<B>().find().to_vector();
  odm::resolve(db(), branches, odm::with(&B::leaves));
  ASSERT_EQ(branches.size(), 1u);
  EXPECT_EQ(branches[0].leaves.ids(), (std::vector<std::string>{"", "x", ""}));
  std::vector<std::string> names;
  for (const auto& leaf : branches[0].leaves.targets()) names.push_back(leaf->name);
  EXPECT_EQ(names, (std::vector<std::string>{"blank", "ex", "blank"}));
}

}  // namespace
