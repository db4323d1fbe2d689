// RefMany::resolve, the last step of a join, for every id type and Dangling policy: the
// targets each id gets, and the ids that saving the document afterwards would store. A
// `drop` that moved an id onto itself once emptied std::string ids in place.

#include "../id_types.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace {

using namespace id_types;

template <class C>
class RefManyResolve : public ::testing::Test {
 protected:
  using Id = typename C::id_type;
  static constexpr odm::Dangling policy = C::policy;
  using Refs = odm::RefMany<Target<Id>, policy>;
  using Shared = std::shared_ptr<const Target<Id>>;

  static Shared target(int n) { return std::make_shared<const Target<Id>>(Target<Id>{make_id<Id>(n), "target " + std::to_string(n)}); }

  /// The ids as `codec<RefMany>` stores them: `{"refs": [...]}`.
  static odm::Document stored(const Refs& refs) {
    odm::Document document;
    odm::codec<Refs>::encode(document.get_mutable(), "refs", refs);
    return document;
  }
  static odm::Document stored_ids(const std::vector<int>& numbers) {
    std::vector<Id> ids;
    for (int n : numbers) ids.push_back(make_id<Id>(n));
    odm::Document document;
    odm::codec<std::vector<Id>>::encode(document.get_mutable(), "refs", ids);
    return document;
  }
  static Refs refs_of(const std::vector<int>& numbers) {
    std::vector<Id> ids;
    for (int n : numbers) ids.push_back(make_id<Id>(n));
    return Refs(ids);
  }
  /// What the ids of `refs` are, as numbers (by matching against make_id).
  static std::vector<Id> ids_of(const std::vector<int>& numbers) {
    std::vector<Id> ids;
    for (int n : numbers) ids.push_back(make_id<Id>(n));
    return ids;
  }
};

TYPED_TEST_SUITE(RefManyResolve, AllCases);

TYPED_TEST(RefManyResolve, DuplicatesAndAGhost) {
  using Self = TestFixture;
  // [p1, p2, p1, ghost, p3]: every target exists but the ghost's.
  auto refs = Self::refs_of({1, 2, 1, 99, 3});
  const auto p1 = Self::target(1), p2 = Self::target(2), p3 = Self::target(3);
  odm::detail::Access::resolve(refs, {p1, p2, p1, nullptr, p3});
  ASSERT_TRUE(refs.is_loaded());
  if constexpr (Self::policy == odm::Dangling::drop) {
    EXPECT_EQ(refs.ids(), Self::ids_of({1, 2, 1, 3})) << "only the ghost is forgotten";
    EXPECT_EQ(Self::stored(refs), Self::stored_ids({1, 2, 1, 3}));
    ASSERT_EQ(refs.size(), 4u);
    EXPECT_EQ(&refs[0], p1.get());
    EXPECT_EQ(&refs[1], p2.get());
    EXPECT_EQ(&refs[2], p1.get());
    EXPECT_EQ(&refs[3], p3.get());
  } else {
    EXPECT_EQ(refs.ids(), Self::ids_of({1, 2, 1, 99, 3})) << "the stored list is untouched";
    EXPECT_EQ(Self::stored(refs), Self::stored_ids({1, 2, 1, 99, 3}));
    ASSERT_EQ(refs.size(), 5u);
    EXPECT_EQ(&refs[0], p1.get());
    EXPECT_EQ(&refs[2], p1.get());
    EXPECT_THROW((void)refs[3], odm::NotLoadedError);
    EXPECT_EQ(&refs[4], p3.get());
  }
  const auto found = refs.targets();
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[3]->name, "target 3");
  EXPECT_EQ(found[3]->id, make_id<typename Self::Id>(3));
}

TYPED_TEST(RefManyResolve, EveryTargetFound) {
  using Self = TestFixture;
  for (const std::vector<int>& numbers : {std::vector<int>{3}, std::vector<int>{1, 2, 3}, std::vector<int>{2, 2}}) {
    auto refs = Self::refs_of(numbers);
    std::vector<typename Self::Shared> targets;
    for (int n : numbers) targets.push_back(Self::target(n));
    odm::detail::Access::resolve(refs, targets);
    EXPECT_EQ(refs.ids(), Self::ids_of(numbers)) << "nothing dropped, nothing changed";
    EXPECT_EQ(Self::stored(refs), Self::stored_ids(numbers));
    for (std::size_t i = 0; i < numbers.size(); ++i) EXPECT_EQ(refs[i].name, "target " + std::to_string(numbers[i]));
  }
}

TYPED_TEST(RefManyResolve, OnlyGhostsAndEmpty) {
  using Self = TestFixture;
  auto ghosts = Self::refs_of({98, 99, 98});
  odm::detail::Access::resolve(ghosts, {nullptr, nullptr, nullptr});
  EXPECT_TRUE(ghosts.targets().empty());
  if constexpr (Self::policy == odm::Dangling::drop)
    EXPECT_EQ(Self::stored(ghosts), Self::stored_ids({}));
  else
    EXPECT_EQ(Self::stored(ghosts), Self::stored_ids({98, 99, 98}));

  auto empty = Self::refs_of({});
  odm::detail::Access::resolve(empty, {});
  EXPECT_TRUE(empty.is_loaded());
  EXPECT_TRUE(empty.targets().empty());
  EXPECT_EQ(Self::stored(empty), Self::stored_ids({}));
}

TYPED_TEST(RefManyResolve, IdsReadBackThroughTheCodec) {
  using Self = TestFixture;
  const auto refs = Self::refs_of({1, 2, 1});
  const odm::Document document = Self::stored(refs);
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, document.get(), "refs"));
  typename Self::Refs back;
  odm::codec<typename Self::Refs>::decode(it, back);
  EXPECT_EQ(back, refs);
  EXPECT_EQ(back.id(2), make_id<typename Self::Id>(1));
  EXPECT_FALSE(back.is_loaded());
  EXPECT_THROW((void)back[0], odm::NotLoadedError);
}

}  // namespace
